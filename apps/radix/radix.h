/* radix.h -- the bookkeeping of parallel radix sort that its three forms share.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Parallel LSD radix sort of N keys held in blocks, rank r owning positions
 * [app_lo(N,P,r), app_lo(N,P,r+1)) of the array before and after every pass.  A pass on one
 * digit: every rank histograms its keys; from all histograms every rank computes where each
 * rank's keys of each digit go -- off[s][d] = (keys of smaller digits, all ranks) + (keys of
 * digit d on ranks before s) -- and a stable local counting sort lines its keys up in global
 * order.  Its keys then go, in that order, to the ranks owning their positions: for each
 * destination one contiguous run, so "one message per destination per pass" (the paper's
 * cluster version of RADIX), which the receiver cuts into per-digit chunks and copies into
 * place.
 */
#ifndef APPS_RADIX_H
#define APPS_RADIX_H

#include <stdint.h>

/* --n KEYS (default 2^20) and --bits B (1..16, default 8) */
void radix_options(long *nkeys, int *bits);
/* off[s * radix + d] from all ranks' histograms hist[s * radix + d] */
void radix_offsets(const long *hist, int nranks, int radix, long *off);
/* The state of a pass in the forms that exchange keys by message, for a rank of n keys */
typedef struct radix_pass {
    int bits, radix;
    long *hist, *all_hist, *off;     /* my histogram; everyone's; everyone's offsets */
    uint32_t *sorted, *recvbuf;      /* my keys in global order; the keys received */
    int *scounts, *sdispls, *rcounts, *rdispls;
} radix_pass;
void radix_pass_init(radix_pass *x, int bits, long n);
void radix_pass_free(radix_pass *x);
/* The start of such a pass: my histogram, everyone's (MPI_Allgather over MPI_COMM_WORLD),
 * everyone's offsets, and my n keys lined up in global order. */
void radix_rank(radix_pass *x, const uint32_t *src, long n, int shift);
/* how many of one rank's keys (its histogram h, its offsets off) land in positions [lo, hi) */
long radix_overlap(const long *h, const long *off, int radix, long lo, long hi);
/* copy the run of one rank's keys that lands in [lo, hi) (in global order, from `run`) to
 * their places dst[position - lo]; returns the number of keys copied */
long radix_place(const uint32_t *run, const long *h, const long *off, int radix, long lo, long hi, uint32_t *dst);

#endif

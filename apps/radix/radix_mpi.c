/* radix_mpi.c -- RADIX, message-passing form: parallel radix sort, one message per destination per pass.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: LSD radix sort of N 32-bit keys in blocks (radix.h), `bits` bits per pass.
 * Communication per pass: MPI_Allgather of the ranks' digit histograms (every rank computes
 * every key's destination from them), then one MPI_Alltoallv in which each rank sends each
 * other rank one message holding all its keys for it -- an all-to-all personalized exchange
 * whose sizes depend on the data (the paper's "irregular and scattered" pattern).  The
 * receiver cuts each message into per-digit chunks and copies them into place.
 *
 * usage: mpiexec -n P radix_mpi [--n KEYS (default 2^20)] [--bits B (default 8)] [--reps R]
 */
#include "radix.h"
#include "../common/app.h"
#include "../common/keys.h"
#include <stdio.h>

static long nkeys, lo, hi;
static radix_pass x;
static uint32_t *input, *other;   /* my block of the keys, and the other buffer of a pass */

/* one pass on the digit at `shift`: my keys go from src to their owners' dst */
static void pass(const uint32_t *src, uint32_t *dst, int shift)
{
    radix_rank(&x, src, hi - lo, shift);
    const long *my_off = x.off + (long)app.rank * x.radix;
    for (int q = 0, s_at = 0, r_at = 0; q < app.size; q++) {
        long qlo = app_lo(nkeys, app.size, q), qhi = app_lo(nkeys, app.size, q + 1);
        x.scounts[q] = (int)radix_overlap(x.hist, my_off, x.radix, qlo, qhi);
        x.rcounts[q] = (int)radix_overlap(x.all_hist + (long)q * x.radix, x.off + (long)q * x.radix, x.radix, lo, hi);
        x.sdispls[q] = s_at;
        x.rdispls[q] = r_at;
        s_at += x.scounts[q];
        r_at += x.rcounts[q];
        if (q != app.rank && x.scounts[q] > 0) app_count(1, (long)sizeof(uint32_t) * x.scounts[q]);
    }
    app_phase(APP_RMEM);
    MPI_Alltoallv(x.sorted, x.scounts, x.sdispls, MPI_UINT32_T, x.recvbuf, x.rcounts, x.rdispls, MPI_UINT32_T,
                  MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    for (int s = 0; s < app.size; s++)
        radix_place(x.recvbuf + x.rdispls[s], x.all_hist + (long)s * x.radix, x.off + (long)s * x.radix, x.radix,
                    lo, hi, dst);
}

static keys_part sort(void)
{
    uint32_t *src = input, *dst = other;
    for (int shift = 0; shift < KEY_BITS; shift += x.bits) {
        pass(src, dst, shift);
        uint32_t *t = src; src = dst; dst = t;
    }
    return (keys_part){ src, hi - lo };
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "radix", "mpi");
    int bits;
    radix_options(&nkeys, &bits);
    lo = app_lo(nkeys, app.size, app.rank);
    hi = app_lo(nkeys, app.size, app.rank + 1);
    radix_pass_init(&x, bits, hi - lo);
    input = app_alloc(sizeof(uint32_t) * (size_t)(hi - lo));
    other = app_alloc(sizeof(uint32_t) * (size_t)(hi - lo));

    char detail[32];
    snprintf(detail, sizeof detail, ", %d bits per pass", bits);
    const char *size = keys_run(nkeys, input, sort, detail);
    free(input);
    free(other);
    radix_pass_free(&x);
    return app_finish(size);
}

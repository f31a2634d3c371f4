/* radix.c -- offsets, overlaps and placement of the parallel radix sort's key exchange.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * radix.h gives the scheme.  A rank's keys of digit d occupy the global positions
 * [off[d], off[d] + h[d]), and these intervals increase with d, so the keys a rank sends to
 * one destination are consecutive in its locally sorted buffer and arrive as one run that
 * radix_place cuts at the digit boundaries.
 */
#include "radix.h"
#include "../common/app.h"
#include "../common/keys.h"
#include <string.h>

void radix_options(long *nkeys, int *bits)
{
    *nkeys = app_arg("--n", 1L << 20);
    *bits = (int)app_arg("--bits", 8);
    if (*bits < 1 || *bits > 16) app_refuse("--bits must be 1..16");
}

void radix_offsets(const long *hist, int nranks, int radix, long *off)
{
    long at = 0;
    for (int d = 0; d < radix; d++)
        for (int s = 0; s < nranks; s++) {
            off[(long)s * radix + d] = at;
            at += hist[(long)s * radix + d];
        }
}

long radix_overlap(const long *h, const long *off, int radix, long lo, long hi)
{
    long count = 0;
    for (int d = 0; d < radix; d++) {
        long a = off[d] > lo ? off[d] : lo, e = off[d] + h[d] < hi ? off[d] + h[d] : hi;
        if (a < e) count += e - a;
    }
    return count;
}

long radix_place(const uint32_t *run, const long *h, const long *off, int radix, long lo, long hi, uint32_t *dst)
{
    long copied = 0;
    for (int d = 0; d < radix; d++) {
        long a = off[d] > lo ? off[d] : lo, e = off[d] + h[d] < hi ? off[d] + h[d] : hi;
        if (a >= e) continue;
        memcpy(dst + (a - lo), run + copied, sizeof(uint32_t) * (size_t)(e - a));
        copied += e - a;
    }
    return copied;
}

void radix_pass_init(radix_pass *x, int bits, long n)
{
    size_t p = (size_t)app.size, r = (size_t)1 << bits;
    x->bits = bits;
    x->radix = 1 << bits;
    x->hist = app_alloc(sizeof(long) * r);
    x->all_hist = app_alloc(sizeof(long) * r * p);
    x->off = app_alloc(sizeof(long) * r * p);
    x->sorted = app_alloc(sizeof(uint32_t) * (size_t)n);
    x->recvbuf = app_alloc(sizeof(uint32_t) * (size_t)n);
    x->scounts = app_alloc(sizeof(int) * p);
    x->sdispls = app_alloc(sizeof(int) * p);
    x->rcounts = app_alloc(sizeof(int) * p);
    x->rdispls = app_alloc(sizeof(int) * p);
}

void radix_pass_free(radix_pass *x)
{
    free(x->hist); free(x->all_hist); free(x->off); free(x->sorted); free(x->recvbuf);
    free(x->scounts); free(x->sdispls); free(x->rcounts); free(x->rdispls);
}

void radix_rank(radix_pass *x, const uint32_t *src, long n, int shift)
{
    long *next = app_alloc(sizeof(long) * (size_t)x->radix);
    keys_histogram(src, n, shift, x->bits, x->hist);
    app_phase(APP_RMEM);
    MPI_Allgather(x->hist, x->radix, MPI_LONG, x->all_hist, x->radix, MPI_LONG, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    radix_offsets(x->all_hist, app.size, x->radix, x->off);
    for (long d = 0, at = 0; d < x->radix; d++) { next[d] = at; at += x->hist[d]; }
    keys_scatter(src, n, shift, x->bits, next, x->sorted);
    free(next);
}

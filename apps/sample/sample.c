/* sample.c -- regular sampling, splitters and the cutting of a sorted block into pieces.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * sample.h gives the scheme.  A rank without keys contributes samples equal to the largest
 * key, which only moves splitters up; keys equal to a splitter go to the lower piece, so
 * equal keys never straddle two ranks' ranges out of order.
 */
#include "sample.h"
#include "../common/app.h"
#include "../common/keys.h"

void sample_pick(const uint32_t *sorted, long n, uint32_t *samples)
{
    for (int i = 0; i < SAMPLES; i++)
        samples[i] = n ? sorted[(long)(((double)i + 0.5) * (double)n / SAMPLES)] : UINT32_MAX;
}

void sample_splitters(uint32_t *all, uint32_t *tmp, int nranks, uint32_t *splitters)
{
    keys_sort(all, (long)nranks * SAMPLES, tmp);
    for (int q = 1; q < nranks; q++) splitters[q - 1] = all[(long)q * SAMPLES];
}

static long upper_bound(const uint32_t *k, long n, uint32_t x)   /* first index with k[i] > x */
{
    long a = 0, b = n;
    while (a < b) {
        long mid = a + (b - a) / 2;
        if (k[mid] <= x) a = mid + 1; else b = mid;
    }
    return a;
}

void sample_cuts(const uint32_t *sorted, long n, const uint32_t *splitters, int nranks, long *cut)
{
    cut[0] = 0;
    for (int q = 1; q < nranks; q++) cut[q] = upper_bound(sorted, n, splitters[q - 1]);
    cut[nranks] = n;
}

void sample_split(uint32_t *keys, long n, uint32_t *tmp, long *cut)
{
    size_t all_n = (size_t)app.size * SAMPLES;
    uint32_t samples[SAMPLES], *all = app_alloc(sizeof(uint32_t) * all_n * 2);
    uint32_t *splitters = app_alloc(sizeof(uint32_t) * (size_t)app.size);
    keys_sort(keys, n, tmp);
    sample_pick(keys, n, samples);
    app_phase(APP_RMEM);
    MPI_Allgather(samples, SAMPLES, MPI_UINT32_T, all, SAMPLES, MPI_UINT32_T, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    sample_splitters(all, all + all_n, app.size, splitters);
    sample_cuts(keys, n, splitters, app.size, cut);
    free(all);
    free(splitters);
}

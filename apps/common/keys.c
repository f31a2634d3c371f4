/* keys.c -- key generation, counting-sort passes, local radix sort and sort verification.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * keys.h describes the pieces.  The verification gathers each rank's count, first and last
 * key (MPI_Allgather) to check the order across rank boundaries, skipping ranks that hold
 * no keys, which sample sort may leave.
 */
#include "keys.h"
#include "app.h"
#include <stdio.h>
#include <string.h>

void keys_generate(uint32_t *k, long first, long count)
{
    for (long i = 0; i < count; i++) k[i] = (uint32_t)(app_hash((uint64_t)(first + i)) >> 32);
}

void keys_histogram(const uint32_t *k, long n, int shift, int bits, long *hist)
{
    uint32_t mask = (1u << bits) - 1;
    memset(hist, 0, sizeof(long) << bits);
    for (long i = 0; i < n; i++) hist[(k[i] >> shift) & mask]++;
}

void keys_scatter(const uint32_t *k, long n, int shift, int bits, long *next, uint32_t *out)
{
    uint32_t mask = (1u << bits) - 1;
    for (long i = 0; i < n; i++) out[next[(k[i] >> shift) & mask]++] = k[i];
}

void keys_sort(uint32_t *k, long n, uint32_t *tmp)
{
    enum { BITS = 8, R = 1 << BITS };
    long hist[R], next[R];
    uint32_t *src = k, *dst = tmp;
    for (int shift = 0; shift < KEY_BITS; shift += BITS) {   /* an even number of passes: ends in k */
        keys_histogram(src, n, shift, BITS, hist);
        for (long d = 0, at = 0; d < R; d++) { next[d] = at; at += hist[d]; }
        keys_scatter(src, n, shift, BITS, next, dst);
        uint32_t *t = src; src = dst; dst = t;
    }
}

/* the global fingerprint of keys held by all ranks (MPI_Allreduce over MPI_COMM_WORLD) */
static void keys_fingerprint(const uint32_t *k, long n, uint64_t fp[3])
{
    uint64_t mine[3] = { (uint64_t)n, 0, 0 };
    for (long i = 0; i < n; i++) {
        mine[1] += k[i];
        mine[2] += app_hash(k[i]);
    }
    MPI_Allreduce(mine, fp, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

/* app_verify lines for the output held by all ranks */
static void keys_verify(const uint32_t *k, long n, const uint64_t input_fp[3])
{
    long unsorted = 0;
    for (long i = 1; i < n; i++) unsorted += k[i - 1] > k[i];
    uint64_t mine[3] = { (uint64_t)n, n ? k[0] : 0, n ? k[n - 1] : 0 };
    uint64_t *all = app_alloc(sizeof(uint64_t) * 3 * (size_t)app.size);
    MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int q = app.rank + 1; n && q < app.size; q++)
        if (all[3 * q]) {                 /* the next rank holding keys */
            unsorted += k[n - 1] > all[3 * q + 1];
            break;
        }
    free(all);
    uint64_t fp[3];
    keys_fingerprint(k, n, fp);
    app_verify("unsorted-pairs", (double)unsorted, 0);
    app_verify("fingerprint-mismatch", memcmp(fp, input_fp, sizeof fp) != 0, 0);
}

const char *keys_run(long nkeys, uint32_t *input, keys_part (*sort)(void), const char *detail)
{
    static char text[96];
    long lo = app_lo(nkeys, app.size, app.rank), n = app_lo(nkeys, app.size, app.rank + 1) - lo;
    uint64_t input_fp[3];
    keys_part out = { NULL, 0 };
    for (int rep = 0; rep < app.reps; rep++) {
        keys_generate(input, lo, n);
        if (rep == 0) keys_fingerprint(input, n, input_fp);
        app_rep_begin();
        out = sort();
        app_rep_end();
    }
    keys_verify(out.k, out.n, input_fp);
    snprintf(text, sizeof text, "N=%ld keys%s", nkeys, detail);
    return text;
}

/* sample_sas.c -- SAMPLE, shared-address-space form: sample sort with pieces copied straight out of shared blocks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: sample sort of N 32-bit keys (sample.h).  The input blocks, the samples, the
 * cut points and the output array are shared windows (MPI_Win_allocate_shared).  Each rank
 * sorts its block in place and writes its samples; node barrier; each rank derives the
 * splitters from all samples and writes the cut points of its block; node barrier; each rank
 * copies its piece of every block straight into its range of the output -- whose start is
 * the sum of the pieces bound for lower ranks -- and sorts that range.  The output is one
 * globally sorted array.  Synchronization: two node barriers (MPI_Win_sync + MPI_Barrier +
 * MPI_Win_sync).  Runs on one node.
 *
 * usage: mpiexec -n P sample_sas [--n KEYS (default 2^20)] [--reps R]
 */
#include "sample.h"
#include "../common/app.h"
#include "../common/keys.h"
#include <string.h>

static long nkeys, lo, n;
static MPI_Comm node;
static uint32_t *in, *out;        /* shared: N keys each */
static uint32_t *samples;         /* shared: [rank][SAMPLES] */
static long *cuts;                /* shared: [rank][P + 1] */
static uint32_t *all, *splitters, *tmp;

static keys_part sort(void)
{
    int p = app.size;
    keys_sort(in + lo, n, tmp);
    sample_pick(in + lo, n, samples + (long)app.rank * SAMPLES);
    app_node_barrier(node);

    memcpy(all, samples, sizeof(uint32_t) * SAMPLES * (size_t)p);
    sample_splitters(all, all + (long)SAMPLES * p, p, splitters);
    sample_cuts(in + lo, n, splitters, p, cuts + (long)app.rank * (p + 1));
    app_node_barrier(node);

    long start = 0, count = 0;        /* my range of out */
    for (int s = 0; s < p; s++) {
        const long *cut = cuts + (long)s * (p + 1);
        start += cut[app.rank];
        count += cut[app.rank + 1] - cut[app.rank];
    }
    app_phase(APP_RMEM);
    for (int s = 0, at = 0; s < p; s++) {
        const long *cut = cuts + (long)s * (p + 1);
        long piece = cut[app.rank + 1] - cut[app.rank];
        memcpy(out + start + at, in + app_lo(nkeys, p, s) + cut[app.rank], sizeof(uint32_t) * (size_t)piece);
        at += (int)piece;
        if (s != app.rank) app_count(0, (long)sizeof(uint32_t) * piece);
    }
    app_phase(APP_LOCAL);
    keys_sort(out + start, count, tmp);
    return (keys_part){ out + start, count };
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "sample", "sas");
    nkeys = app_arg("--n", 1L << 20);
    node = app_one_node();
    lo = app_lo(nkeys, app.size, app.rank);
    n = app_lo(nkeys, app.size, app.rank + 1) - lo;
    in = app_shared(node, (MPI_Aint)(sizeof(uint32_t) * (size_t)n));
    out = app_shared(node, (MPI_Aint)(sizeof(uint32_t) * (size_t)n));
    samples = app_shared(node, sizeof(uint32_t) * SAMPLES);
    cuts = app_shared(node, (MPI_Aint)(sizeof(long) * (size_t)(app.size + 1)));
    all = app_alloc(sizeof(uint32_t) * SAMPLES * 2 * (size_t)app.size);
    splitters = app_alloc(sizeof(uint32_t) * (size_t)app.size);
    tmp = app_alloc(sizeof(uint32_t) * (size_t)nkeys);    /* sort scratch: a range may hold many keys */

    const char *size = keys_run(nkeys, in + lo, sort, "");
    free(all); free(splitters); free(tmp);
    return app_finish(size);
}

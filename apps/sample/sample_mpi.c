/* sample_mpi.c -- SAMPLE, message-passing form: sample sort with an all-to-all exchange of sorted pieces.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: sample sort of N 32-bit keys (sample.h): local radix sort, regular samples,
 * splitters, one exchange, second local sort.  Communication: MPI_Allgather of every rank's
 * samples, MPI_Alltoall of the piece sizes, then one MPI_Alltoallv of the pieces -- an
 * all-to-all personalized exchange, more regular than RADIX's because each piece is one
 * contiguous run of a sorted block.
 *
 * usage: mpiexec -n P sample_mpi [--n KEYS (default 2^20)] [--reps R]
 */
#include "sample.h"
#include "../common/app.h"
#include "../common/keys.h"

static long n;                    /* my block of the keys */
static uint32_t *keys, *tmp;
static long *cut;
static int *scounts, *sdispls, *rcounts, *rdispls;
static uint32_t *mine;            /* my range of the sorted output, then as much sort scratch */

static keys_part sort(void)
{
    sample_split(keys, n, tmp, cut);
    for (int q = 0; q < app.size; q++) {
        scounts[q] = (int)(cut[q + 1] - cut[q]);
        sdispls[q] = (int)cut[q];
        if (q != app.rank && scounts[q] > 0) app_count(1, (long)sizeof(uint32_t) * scounts[q]);
    }
    app_phase(APP_RMEM);
    MPI_Alltoall(scounts, 1, MPI_INT, rcounts, 1, MPI_INT, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    long nmine = 0;
    for (int q = 0; q < app.size; q++) { rdispls[q] = (int)nmine; nmine += rcounts[q]; }
    free(mine);
    mine = app_alloc(sizeof(uint32_t) * (size_t)nmine * 2);
    app_phase(APP_RMEM);
    MPI_Alltoallv(keys, scounts, sdispls, MPI_UINT32_T, mine, rcounts, rdispls, MPI_UINT32_T, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    keys_sort(mine, nmine, mine + nmine);
    return (keys_part){ mine, nmine };
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "sample", "mpi");
    long nkeys = app_arg("--n", 1L << 20);
    size_t p = (size_t)app.size;
    n = app_lo(nkeys, app.size, app.rank + 1) - app_lo(nkeys, app.size, app.rank);
    keys = app_alloc(sizeof(uint32_t) * (size_t)n);
    tmp = app_alloc(sizeof(uint32_t) * (size_t)n);
    cut = app_alloc(sizeof(long) * (p + 1));
    scounts = app_alloc(sizeof(int) * p); sdispls = app_alloc(sizeof(int) * p);
    rcounts = app_alloc(sizeof(int) * p); rdispls = app_alloc(sizeof(int) * p);

    const char *size = keys_run(nkeys, keys, sort, "");
    free(keys); free(tmp); free(cut); free(mine);
    free(scounts); free(sdispls); free(rcounts); free(rdispls);
    return app_finish(size);
}

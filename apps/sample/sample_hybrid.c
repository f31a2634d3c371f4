/* sample_hybrid.c -- SAMPLE, hybrid form: pieces copied out of on-node ranks' shared blocks, messages between nodes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: sample sort of N 32-bit keys (sample.h).  Each node keeps its ranks' sorted
 * blocks and cut points in shared windows (MPI_Win_allocate_shared).  Samples travel by
 * MPI_Allgather and piece sizes by MPI_Alltoall over all ranks; then a rank copies its
 * pieces of on-node blocks straight out of their owners' memory (as sample_sas does) while
 * one MPI_Ialltoallv, in which pairs on the same node send nothing, brings the pieces from
 * other nodes; a second local sort finishes.  Synchronization: one node barrier
 * (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) once the blocks are sorted and cut.
 * --node-size K makes nodes of K ranks.
 *
 * usage: mpiexec -n P sample_hybrid [--n KEYS (default 2^20)] [--reps R] [--node-size K]
 */
#include "sample.h"
#include "../common/app.h"
#include "../common/keys.h"
#include <string.h>

static long n;
static MPI_Comm node;
static int *node_rank;
static uint32_t **block_of, *tmp;  /* on-node ranks' sorted blocks (shared) */
static long **cut_of;              /* ... and their cut points (shared) */
static int *sizes, *from, *scounts, *sdispls, *rcounts, *rdispls;
static uint32_t *mine;             /* my range of the output, then as much sort scratch */

static keys_part sort(void)
{
    int p = app.size;
    uint32_t *keys = block_of[app.rank];
    long *cut = cut_of[app.rank];
    sample_split(keys, n, tmp, cut);
    for (int q = 0; q < p; q++) sizes[q] = (int)(cut[q + 1] - cut[q]);
    app_phase(APP_RMEM);
    MPI_Alltoall(sizes, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    long nmine = 0;
    for (int q = 0; q < p; q++) {
        int remote = node_rank[q] < 0;
        scounts[q] = remote ? sizes[q] : 0;
        sdispls[q] = (int)cut[q];
        rcounts[q] = remote ? from[q] : 0;
        rdispls[q] = (int)nmine;
        nmine += from[q];
        if (remote && sizes[q] > 0) app_count(1, (long)sizeof(uint32_t) * sizes[q]);
    }
    free(mine);
    mine = app_alloc(sizeof(uint32_t) * (size_t)nmine * 2);
    app_node_barrier(node);            /* the node's blocks are sorted and cut */

    MPI_Request req;
    app_phase(APP_RMEM);
    MPI_Ialltoallv(keys, scounts, sdispls, MPI_UINT32_T, mine, rcounts, rdispls, MPI_UINT32_T,
                   MPI_COMM_WORLD, &req);
    for (int s = 0; s < p; s++) {      /* pieces of on-node blocks, copied out of place */
        if (node_rank[s] < 0) continue;
        memcpy(mine + rdispls[s], block_of[s] + cut_of[s][app.rank], sizeof(uint32_t) * (size_t)from[s]);
        if (s != app.rank) app_count(0, (long)sizeof(uint32_t) * from[s]);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    app_phase(APP_LOCAL);
    keys_sort(mine, nmine, mine + nmine);
    return (keys_part){ mine, nmine };
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "sample", "hybrid");
    long nkeys = app_arg("--n", 1L << 20);
    size_t p = (size_t)app.size;
    node = app_node_comm(MPI_COMM_WORLD);
    node_rank = app_node_ranks(node);
    n = app_lo(nkeys, app.size, app.rank + 1) - app_lo(nkeys, app.size, app.rank);
    uint32_t *blocks = app_shared(node, (MPI_Aint)(sizeof(uint32_t) * (size_t)n));
    long *cuts = app_shared(node, (MPI_Aint)(sizeof(long) * (p + 1)));
    block_of = app_alloc(sizeof(uint32_t *) * p);
    cut_of = app_alloc(sizeof(long *) * p);
    for (int q = 0; q < app.size; q++) {
        block_of[q] = node_rank[q] >= 0 ? app_part(blocks, node_rank[q]) : NULL;
        cut_of[q] = node_rank[q] >= 0 ? app_part(cuts, node_rank[q]) : NULL;
    }
    tmp = app_alloc(sizeof(uint32_t) * (size_t)n);
    sizes = app_alloc(sizeof(int) * p); from = app_alloc(sizeof(int) * p);
    scounts = app_alloc(sizeof(int) * p); sdispls = app_alloc(sizeof(int) * p);
    rcounts = app_alloc(sizeof(int) * p); rdispls = app_alloc(sizeof(int) * p);

    const char *size = keys_run(nkeys, block_of[app.rank], sort, "");
    free(block_of); free(cut_of); free(tmp); free(mine); free(node_rank);
    free(sizes); free(from); free(scounts); free(sdispls); free(rcounts); free(rdispls);
    return app_finish(size);
}

/* radix_hybrid.c -- RADIX, hybrid form: keys stored straight into on-node ranks' arrays, one message per off-node rank.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: LSD radix sort of N 32-bit keys in blocks (radix.h), `bits` bits per pass.  The
 * key arrays of a node's ranks are shared windows (MPI_Win_allocate_shared).  A pass: the
 * ranks' histograms are exchanged with MPI_Allgather; each rank sorts its keys locally into
 * global order, copies the runs bound for ranks of its own node directly into their arrays
 * (as radix_sas does, but one run per destination) and sends the runs bound for other nodes
 * in one MPI_Ialltoallv, in which pairs on the same node send nothing.  Synchronization: one
 * node barrier (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) per pass, after which the node's
 * stores are visible.  --node-size K makes nodes of K ranks.
 *
 * usage: mpiexec -n P radix_hybrid [--n KEYS (default 2^20)] [--bits B (default 8)] [--reps R] [--node-size K]
 */
#include "radix.h"
#include "../common/app.h"
#include "../common/keys.h"
#include <stdio.h>

static long nkeys, lo, hi;
static radix_pass x;
static MPI_Comm node;
static int *node_rank;
static uint32_t **keys_of[2];     /* the two key arrays: every on-node rank's block of each */

/* one pass on the digit at `shift`: my keys go from array `from` to their owners' other array */
static void pass(int from, int shift)
{
    uint32_t **dst = keys_of[!from];
    radix_rank(&x, keys_of[from][app.rank], hi - lo, shift);
    const long *my_off = x.off + (long)app.rank * x.radix;
    for (int q = 0, s_at = 0, r_at = 0; q < app.size; q++) {
        long qlo = app_lo(nkeys, app.size, q), qhi = app_lo(nkeys, app.size, q + 1);
        long run = radix_overlap(x.hist, my_off, x.radix, qlo, qhi);
        int remote = node_rank[q] < 0;
        x.scounts[q] = remote ? (int)run : 0;
        x.rcounts[q] = remote ? (int)radix_overlap(x.all_hist + (long)q * x.radix, x.off + (long)q * x.radix,
                                                   x.radix, lo, hi) : 0;
        x.sdispls[q] = s_at;
        x.rdispls[q] = r_at;
        s_at += (int)run;
        r_at += x.rcounts[q];
        if (x.scounts[q] > 0) app_count(1, (long)sizeof(uint32_t) * x.scounts[q]);
    }
    MPI_Request req;
    app_phase(APP_RMEM);
    MPI_Ialltoallv(x.sorted, x.scounts, x.sdispls, MPI_UINT32_T, x.recvbuf, x.rcounts, x.rdispls, MPI_UINT32_T,
                   MPI_COMM_WORLD, &req);
    for (int q = 0; q < app.size; q++) {   /* my runs for my node, stored in place */
        if (node_rank[q] < 0) continue;
        long qlo = app_lo(nkeys, app.size, q), qhi = app_lo(nkeys, app.size, q + 1);
        long copied = radix_place(x.sorted + x.sdispls[q], x.hist, my_off, x.radix, qlo, qhi, dst[q]);
        if (q != app.rank) app_count(0, (long)sizeof(uint32_t) * copied);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    app_phase(APP_LOCAL);
    for (int s = 0; s < app.size; s++)
        if (node_rank[s] < 0)
            radix_place(x.recvbuf + x.rdispls[s], x.all_hist + (long)s * x.radix, x.off + (long)s * x.radix,
                        x.radix, lo, hi, dst[app.rank]);
    app_node_barrier(node);
}

static keys_part sort(void)
{
    int from = 0;
    for (int shift = 0; shift < KEY_BITS; shift += x.bits, from = !from) pass(from, shift);
    return (keys_part){ keys_of[from][app.rank], hi - lo };
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "radix", "hybrid");
    int bits;
    radix_options(&nkeys, &bits);
    lo = app_lo(nkeys, app.size, app.rank);
    hi = app_lo(nkeys, app.size, app.rank + 1);
    radix_pass_init(&x, bits, hi - lo);
    node = app_node_comm(MPI_COMM_WORLD);
    node_rank = app_node_ranks(node);
    for (int i = 0; i < 2; i++) {
        uint32_t *array = app_shared(node, (MPI_Aint)(sizeof(uint32_t) * (size_t)(hi - lo)));
        keys_of[i] = app_alloc(sizeof(uint32_t *) * (size_t)app.size);
        for (int q = 0; q < app.size; q++) keys_of[i][q] = node_rank[q] >= 0 ? app_part(array, node_rank[q]) : NULL;
    }

    char detail[32];
    snprintf(detail, sizeof detail, ", %d bits per pass", bits);
    const char *size = keys_run(nkeys, keys_of[0][app.rank], sort, detail);
    free(keys_of[0]);
    free(keys_of[1]);
    free(node_rank);
    radix_pass_free(&x);
    return app_finish(size);
}

/* mempi-test: np=2,3,4,5,7 timeout=120 */
/* coll_inter.c -- collectives on an intercommunicator.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The world is split into a low group (even ranks) and a high group (odd ranks) joined by an
 * intercommunicator.  Rooted collectives use MPI_ROOT / MPI_PROC_NULL in the root's group;
 * all-to-all shaped ones deliver the *remote* group's data.  Values encode the sender's
 * world rank so a wrong source or order shows up.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank;

int main(int argc, char **argv)
{
    int wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) { MPI_Finalize(); return 77; }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int color = wrank % 2;
    MPI_Comm local, inter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 42, &inter));
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank); MPI_Comm_size(inter, &lsize); MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    /* remote rank r has world rank 2r + (1 - color) */
#define RW(r) (2 * (r) + (1 - color))

    CHECK_MPI(MPI_Barrier(inter));
    /* bcast from low group's rank 0 to the high group, then back from high's last rank */
    for (int dir = 0; dir < 2; dir++) {
        int root_group = dir, rootl = dir ? lsize - 1 : 0;   /* high group root: its last rank */
        int v[4] = { -1, -1, -1, -1 };
        int root_arg;
        if (color == root_group) { root_arg = lrank == (root_group ? lsize - 1 : 0) ? MPI_ROOT : MPI_PROC_NULL; if (root_arg == MPI_ROOT) for (int i = 0; i < 4; i++) v[i] = 100 * wrank + i; }
        else root_arg = root_group ? rsize - 1 : 0;
        (void)rootl;
        CHECK_MPI(MPI_Bcast(v, 4, MPI_INT, root_arg, inter));
        if (color != root_group) { int rw = RW(root_arg); for (int i = 0; i < 4; i++) if (v[i] != 100 * rw + i) FAIL("bcast dir %d got %d", dir, v[i]); }
    }
    /* allreduce: sum of the remote group's world ranks */
    int mine = wrank, sum = -1, want = 0;
    for (int r = 0; r < rsize; r++) want += RW(r);
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
    if (sum != want) FAIL("allreduce got %d want %d", sum, want);
    /* allgather */
    int *all = malloc(sizeof(int) * rsize * 2);
    int two[2] = { wrank, -wrank };
    CHECK_MPI(MPI_Allgather(two, 2, MPI_INT, all, 2, MPI_INT, inter));
    for (int r = 0; r < rsize; r++) if (all[2 * r] != RW(r) || all[2 * r + 1] != -RW(r)) FAIL("allgather r=%d", r);
    /* alltoall */
    int *s = malloc(sizeof(int) * rsize), *d = malloc(sizeof(int) * rsize);
    for (int r = 0; r < rsize; r++) s[r] = wrank * 1000 + RW(r);
    CHECK_MPI(MPI_Alltoall(s, 1, MPI_INT, d, 1, MPI_INT, inter));
    for (int r = 0; r < rsize; r++) if (d[r] != RW(r) * 1000 + wrank) FAIL("alltoall r=%d got %d", r, d[r]);
    /* gather to low group's rank 0, reduce to it, scatter from it */
    int root_arg = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_MPI(MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, root_arg, inter));
    if (root_arg == MPI_ROOT) for (int r = 0; r < rsize; r++) if (all[r] != RW(r)) FAIL("gather r=%d", r);
    sum = -1;
    CHECK_MPI(MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root_arg, inter));
    if (root_arg == MPI_ROOT && sum != want) FAIL("reduce got %d", sum);
    for (int r = 0; r < rsize; r++) all[r] = 7 * r + 1;
    int got = -1;
    CHECK_MPI(MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, root_arg, inter));
    if (color == 1 && got != 7 * lrank + 1) FAIL("scatter got %d", got);
    MPI_Request rq;
    CHECK_MPI(MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_MAX, inter, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (sum != RW(rsize - 1)) FAIL("iallreduce max got %d", sum);
    CHECK_MPI(MPI_Ibarrier(inter, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* reduce_scatter: both groups reduce 12-element vectors; my group's counts cut the remote
     * group's sum among us (groups of different sizes cut it differently) */
    {
        int T = 12, rc[16], off = 0, vec[12], res[13];
        for (int j = 0; j < lsize; j++) rc[j] = T / lsize + (j < T % lsize);
        for (int j = 0; j < lrank; j++) off += rc[j];
        for (int k = 0; k < T; k++) vec[k] = wrank * 100 + k;
        for (int nb = 0; nb < 2; nb++) {
            for (int k = 0; k <= T; k++) res[k] = -1;
            if (nb) { CHECK_MPI(MPI_Ireduce_scatter(vec, res, rc, MPI_INT, MPI_SUM, inter, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
            else CHECK_MPI(MPI_Reduce_scatter(vec, res, rc, MPI_INT, MPI_SUM, inter));
            for (int k = 0; k < rc[lrank]; k++) {
                int w = 0; for (int r = 0; r < rsize; r++) w += RW(r) * 100 + off + k;
                if (res[k] != w) FAIL("reduce_scatter nb=%d k=%d got %d want %d", nb, k, res[k], w);
            }
            if (res[rc[lrank]] != -1) FAIL("reduce_scatter wrote past its block");
        }
        /* block form: needs the same total in both groups, so only when they have equal size */
        if (lsize == rsize) {
            CHECK_MPI(MPI_Reduce_scatter_block(vec, res, 2, MPI_INT, MPI_MAX, inter));
            for (int k = 0; k < 2; k++) if (res[k] != RW(rsize - 1) * 100 + 2 * lrank + k) FAIL("reduce_scatter_block k=%d got %d", k, res[k]);
        }
    }
    /* persistent forms: an allreduce and a bcast from the low group's rank 0, started 3 times */
    {
        MPI_Request pr[2];
        int x = 0, y = -1, b[3] = { -1, -1, -1 };
        int broot = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        CHECK_MPI(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &pr[0]));
        CHECK_MPI(MPI_Bcast_init(b, 3, MPI_INT, broot, inter, MPI_INFO_NULL, &pr[1]));
        for (int it = 0; it < 3; it++) {
            x = wrank + it;
            if (broot == MPI_ROOT) for (int i = 0; i < 3; i++) b[i] = 10 * it + i;
            CHECK_MPI(MPI_Startall(2, pr));
            CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
            if (y != want + rsize * it) FAIL("persistent allreduce it %d got %d want %d", it, y, want + rsize * it);
            if (color == 1) for (int i = 0; i < 3; i++) if (b[i] != 10 * it + i) FAIL("persistent bcast it %d got %d", it, b[i]);
        }
        CHECK_MPI(MPI_Request_free(&pr[0]));
        CHECK_MPI(MPI_Request_free(&pr[1]));
    }
    free(all); free(s); free(d);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}

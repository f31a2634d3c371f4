/* mempi-test: np=1,2,3,5,8 timeout=120 */
/* coll_large_count.c -- the large-count (_c) forms of the v/w collectives and their I-forms.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each _c entry point takes MPI_Count counts and MPI_Aint displacements; this checks that they
 * reach the same algorithms with the right arrays: rank r contributes (r % 3) + 1 blocks of
 * values that name the sender, placed in reverse rank order with gaps that must stay
 * untouched.  Blocking and nonblocking forms both run.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static int val(int from, int to, long i) { return from * 10000 + to * 100 + (int)i; }
static void done(MPI_Request *rq) { if (rq) CHECK_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE)); }

static void test_v(int nb)
{
    MPI_Request rq, *r = nb ? &rq : NULL;
    MPI_Count *cnt = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *dsp = malloc(sizeof(MPI_Aint) * size);
    long total = 0;
    for (int q = size - 1; q >= 0; q--) { cnt[q] = q % 3 + 1; dsp[q] = total; total += cnt[q] + 1; }
    int mine[3], *all = malloc(sizeof(int) * (total + 1));
    for (int i = 0; i < cnt[rank]; i++) mine[i] = val(rank, 0, i);

    /* allgatherv */
    for (long i = 0; i < total; i++) all[i] = -1;
    if (nb) CHECK_MPI(MPI_Iallgatherv_c(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD, r));
    else CHECK_MPI(MPI_Allgatherv_c(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    done(r);
    for (int q = 0; q < size; q++) {
        for (int i = 0; i < cnt[q]; i++) if (all[dsp[q] + i] != val(q, 0, i)) FAIL("allgatherv_c q=%d i=%d", q, i);
        if (all[dsp[q] + cnt[q]] != -1) FAIL("allgatherv_c wrote a gap");
    }
    /* gatherv to the last rank */
    int root = size - 1;
    for (long i = 0; i < total; i++) all[i] = -1;
    if (nb) CHECK_MPI(MPI_Igatherv_c(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, r));
    else CHECK_MPI(MPI_Gatherv_c(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD));
    done(r);
    if (rank == root) for (int q = 0; q < size; q++) for (int i = 0; i < cnt[q]; i++)
        if (all[dsp[q] + i] != val(q, 0, i)) FAIL("gatherv_c q=%d i=%d", q, i);
    /* scatterv from rank 0 */
    for (long i = 0; i < total; i++) all[i] = (int)i + 7;
    int got[3] = { -1, -1, -1 };
    if (nb) CHECK_MPI(MPI_Iscatterv_c(all, cnt, dsp, MPI_INT, got, cnt[rank], MPI_INT, 0, MPI_COMM_WORLD, r));
    else CHECK_MPI(MPI_Scatterv_c(all, cnt, dsp, MPI_INT, got, cnt[rank], MPI_INT, 0, MPI_COMM_WORLD));
    done(r);
    for (int i = 0; i < cnt[rank]; i++) if (got[i] != (int)(dsp[rank] + i + 7)) FAIL("scatterv_c i=%d", i);

    /* alltoallv / alltoallw: (me + d) % 3 elements to d */
    MPI_Count *sc = malloc(sizeof(MPI_Count) * size), *rc = malloc(sizeof(MPI_Count) * size);
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * size), *rd = malloc(sizeof(MPI_Aint) * size);
    MPI_Aint *sdb = malloc(sizeof(MPI_Aint) * size), *rdb = malloc(sizeof(MPI_Aint) * size);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * size);
    long st = 0, rt = 0;
    for (int d = 0; d < size; d++) {
        sc[d] = (rank + d) % 3; sd[d] = st; st += sc[d] + 1; sdb[d] = sd[d] * (MPI_Aint)sizeof(int);
        rc[d] = (d + rank) % 3; rd[d] = rt; rt += rc[d] + 2; rdb[d] = rd[d] * (MPI_Aint)sizeof(int);
        ty[d] = MPI_INT;
    }
    int *s = malloc(sizeof(int) * (st + 1)), *rb = malloc(sizeof(int) * (rt + 1));
    for (int d = 0; d < size; d++) for (int i = 0; i < sc[d]; i++) s[sd[d] + i] = val(rank, d, i);
    for (int w = 0; w < 2; w++) {
        for (long i = 0; i < rt; i++) rb[i] = -1;
        if (!w && nb) CHECK_MPI(MPI_Ialltoallv_c(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, r));
        else if (!w) CHECK_MPI(MPI_Alltoallv_c(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
        else if (nb) CHECK_MPI(MPI_Ialltoallw_c(s, sc, sdb, ty, rb, rc, rdb, ty, MPI_COMM_WORLD, r));
        else CHECK_MPI(MPI_Alltoallw_c(s, sc, sdb, ty, rb, rc, rdb, ty, MPI_COMM_WORLD));
        done(r);
        for (int q = 0; q < size; q++) {
            for (int i = 0; i < rc[q]; i++) if (rb[rd[q] + i] != val(q, rank, i)) FAIL("alltoall%c_c from %d i=%d", w ? 'w' : 'v', q, i);
            if (rb[rd[q] + rc[q]] != -1) FAIL("alltoall%c_c wrote a gap", w ? 'w' : 'v');
        }
    }

    /* reduce_scatter: block q has (q % 3) + 1 elements */
    int *in = malloc(sizeof(int) * (total + 1)), out[3];
    long off = 0, ntot = 0;
    for (int q = 0; q < size; q++) { if (q < rank) off += cnt[q]; ntot += cnt[q]; }
    for (long i = 0; i < ntot; i++) in[i] = (int)i * (rank + 1);
    if (nb) CHECK_MPI(MPI_Ireduce_scatter_c(in, out, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r));
    else CHECK_MPI(MPI_Reduce_scatter_c(in, out, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    done(r);
    for (int i = 0; i < cnt[rank]; i++) if (out[i] != (int)((off + i) * size * (size + 1) / 2)) FAIL("reduce_scatter_c i=%d got %d", i, out[i]);
    free(in); free(s); free(rb); free(sc); free(rc); free(sd); free(rd); free(sdb); free(rdb); free(ty);
    free(cnt); free(dsp); free(all);
}

static void test_i_regular(void)
{
    MPI_Request rq;
    int x[2] = { rank, rank * 2 }, *all = malloc(sizeof(int) * 2 * size), y[2];
    CHECK_MPI(MPI_Iallgather_c(x, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, &rq)); done(&rq);
    for (int q = 0; q < size; q++) if (all[2 * q] != q || all[2 * q + 1] != 2 * q) FAIL("iallgather_c q=%d", q);
    CHECK_MPI(MPI_Igather_c(x, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD, &rq)); done(&rq);
    if (rank == 0) for (int q = 0; q < size; q++) if (all[2 * q] != q) FAIL("igather_c q=%d", q);
    for (int q = 0; q < 2 * size; q++) all[q] = q * 3;
    CHECK_MPI(MPI_Iscatter_c(all, 2, MPI_INT, y, 2, MPI_INT, 0, MPI_COMM_WORLD, &rq)); done(&rq);
    if (y[0] != 6 * rank || y[1] != 6 * rank + 3) FAIL("iscatter_c");
    int *s = malloc(sizeof(int) * size), *r = malloc(sizeof(int) * size);
    for (int q = 0; q < size; q++) s[q] = val(rank, q, 0);
    CHECK_MPI(MPI_Ialltoall_c(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD, &rq)); done(&rq);
    for (int q = 0; q < size; q++) if (r[q] != val(q, rank, 0)) FAIL("ialltoall_c q=%d", q);
    int v = rank + 1, sc = 0, ex = -5;
    CHECK_MPI(MPI_Iscan_c(&v, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq)); done(&rq);
    if (sc != (rank + 1) * (rank + 2) / 2) FAIL("iscan_c got %d", sc);
    CHECK_MPI(MPI_Iexscan_c(&v, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq)); done(&rq);
    if (rank > 0 && ex != rank * (rank + 1) / 2) FAIL("iexscan_c got %d", ex);
    for (int q = 0; q < size; q++) s[q] = q + rank;
    int blk = -1;
    CHECK_MPI(MPI_Ireduce_scatter_block_c(s, &blk, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq)); done(&rq);
    if (blk != rank * size + size * (size - 1) / 2) FAIL("ireduce_scatter_block_c got %d", blk);
    free(all); free(s); free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_v(0);
    test_v(1);
    test_i_regular();
    /* a negative count is an error of class MPI_ERR_COUNT, not a crash */
    MPI_Count bad[16]; MPI_Aint dz[16] = { 0 };
    for (int q = 0; q < 16; q++) bad[q] = -1;
    int cls, x = 0;
    if (size <= 16) {
        int err = MPI_Allgatherv_c(&x, 0, MPI_INT, &x, bad, dz, MPI_INT, MPI_COMM_WORLD);
        MPI_Error_class(err, &cls);
        if (cls != MPI_ERR_COUNT) FAIL("negative count: class %d", cls);
    }
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=3,5 timeout=120 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=3,5 timeout=120 env=MEMPI_COLL_ALLREDUCE=ring,MEMPI_COLL_BCAST=scatter_allgather,MEMPI_COLL_ALLGATHER=bruck,MEMPI_COLL_ALLTOALL=bruck,MEMPI_COLL_REDUCE_SCATTER=pairwise,MEMPI_COLL_REDUCE_SCATTER_BLOCK=pairwise,MEMPI_COLL_SCAN=linear,MEMPI_COLL_EXSCAN=linear,MEMPI_COLL_GATHER=linear,MEMPI_COLL_SCATTER=linear,MEMPI_COLL_REDUCE=linear,MEMPI_COLL_ALLTOALLV=pairwise,MEMPI_COLL_ALLTOALLW=pairwise */
/* mempi-test: np=2,4 timeout=120 env=MEMPI_COLL_ALLREDUCE=rabenseifner,MEMPI_COLL_ALLGATHER=recursive_doubling,MEMPI_COLL_BCAST=linear,MEMPI_COLL_ALLGATHERV=gatherv_bcast,MEMPI_COLL_GATHER=binomial,MEMPI_COLL_SCATTER=binomial,MEMPI_COLL_REDUCE_SCATTER=reduce_scatterv,MEMPI_COLL_ALLTOALL=linear */
/* coll_persistent.c -- MPI-4 persistent collectives: every MPI_<coll>_init, started many times.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each request is initialised once and started three times (MPI_Start, and MPI_Startall over
 * all of them at once); the send buffers change between starts, so every run must read them
 * again.  Results are checked against local references; statuses must be empty; a completed
 * persistent request keeps its handle and is inactive (MPI_Test gives flag 1 at once, a second
 * MPI_Wait returns an empty status); blocking and nonblocking collectives run between and
 * during the persistent ones; MPI_Request_free releases them.  Covers the large-count _c
 * forms of some, MPI_IN_PLACE, a non-commutative user op and a neighbourhood collective.
 */
#include <mpi.h>
#include "check.h"
#include "coll_forced.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void check_empty(const MPI_Status *st, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    /* no MPI_ERROR: single-completion calls do not write it (MPI 4.0 3.2.5) */
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG || n != 0)
        FAIL("%s: status not empty (source %d tag %d count %d)", what, st->MPI_SOURCE,
             st->MPI_TAG, n);
}

static int v(int r, long i, int it) { return (int)((r * 7919L + i * 31L + it * 104729L) % 100003L); }

#define N 7                     /* elements per block */
#define BIG 9000                /* elements of the large bcast / allreduce (rendezvous) */
#define P 1000003

/* non-commutative: (m, c) affine maps composed in rank order */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {
        long m = (long)a[2 * k] * b[2 * k] % P;
        long c = ((long)a[2 * k + 1] * b[2 * k] + b[2 * k + 1]) % P;
        b[2 * k] = (int)m; b[2 * k + 1] = (int)c;
    }
}

enum { BARRIER, BCAST, BIGBCAST, GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV,
       ALLTOALL, ALLTOALLV, ALLTOALLW, REDUCE, ALLREDUCE, ALLREDUCE_IP, BIGALLREDUCE,
       RS, RSB, SCAN, EXSCAN, REDUCE_NC, NBR, NREQ };

static MPI_Request req[NREQ];
static int *sb[NREQ], *rb[NREQ];
static int counts[64], displs[64], scounts[64], acounts[64], bdispls[64];
static MPI_Aint wdispls[64];
static MPI_Count ccounts[64];
static MPI_Datatype types[64];
static MPI_Comm ring;
static MPI_Op affine;
static MPI_Datatype pair;

static long blen(int k)                /* elements of the send and receive buffers */
{
    if (k == BIGBCAST || k == BIGALLREDUCE) return BIG;
    if (k == REDUCE_NC) return 2 * N;
    return (long)N * size * 2 + 2;
}

static void fill(int it)
{
    for (int k = 0; k < NREQ; k++)
        for (long i = 0; i < blen(k); i++) {
            sb[k][i] = v(rank, i, it + k);
            rb[k][i] = -1;
        }
    for (long i = 0; i < N; i++) {     /* affine maps with m >= 2 */
        sb[REDUCE_NC][2 * i] = 2 + (rank * 13 + (int)i + it) % 97;
        sb[REDUCE_NC][2 * i + 1] = (rank * 5 + (int)i * 3 + it) % 89;
    }
    for (long i = 0; i < blen(BIGBCAST); i++)
        if (rank != size - 1) sb[BIGBCAST][i] = -1;
    for (long i = 0; i < N; i++)
        if (rank != 0) sb[BCAST][i] = -1;
    for (long i = 0; i < blen(ALLREDUCE_IP); i++)
        rb[ALLREDUCE_IP][i] = v(rank, i, it + ALLREDUCE_IP);
}

static void init_all(void)
{
    MPI_Comm c = MPI_COMM_WORLD;
    int root = size > 1 ? 1 : 0;
    for (int i = 0; i < size; i++) {
        counts[i] = 1 + i % 3; displs[i] = 3 * i;            /* v-forms: gaps between blocks */
        /* alltoallv/w: q sends 1 + (q + 2p) % 3 elements to p, from and to offset 3 * peer */
        scounts[i] = 1 + (rank + 2 * i) % 3; acounts[i] = 1 + (i + 2 * rank) % 3;
        bdispls[i] = 3 * i * (int)sizeof(int);           /* alltoallw: bytes */
        ccounts[i] = counts[i];
        types[i] = MPI_INT;
        wdispls[i] = 12 * i;                             /* Allgatherv_init_c: elements */
    }
    CHECK_MPI(MPI_Barrier_init(c, MPI_INFO_NULL, &req[BARRIER]));
    CHECK_MPI(MPI_Bcast_init(sb[BCAST], N, MPI_INT, 0, c, MPI_INFO_NULL, &req[BCAST]));
    CHECK_MPI(MPI_Bcast_init_c(sb[BIGBCAST], BIG, MPI_INT, size - 1, c, MPI_INFO_NULL, &req[BIGBCAST]));
    CHECK_MPI(MPI_Gather_init(sb[GATHER], N, MPI_INT, rb[GATHER], N, MPI_INT, root, c, MPI_INFO_NULL,
                          &req[GATHER]));
    CHECK_MPI(MPI_Gatherv_init(sb[GATHERV], counts[rank], MPI_INT, rb[GATHERV], counts, displs,
                           MPI_INT, 0, c, MPI_INFO_NULL, &req[GATHERV]));
    CHECK_MPI(MPI_Scatter_init(sb[SCATTER], N, MPI_INT, rb[SCATTER], N, MPI_INT, root, c,
                           MPI_INFO_NULL, &req[SCATTER]));
    CHECK_MPI(MPI_Scatterv_init(sb[SCATTERV], counts, displs, MPI_INT, rb[SCATTERV], counts[rank],
                            MPI_INT, 0, c, MPI_INFO_NULL, &req[SCATTERV]));
    CHECK_MPI(MPI_Allgather_init_c(sb[ALLGATHER], N, MPI_INT, rb[ALLGATHER], N, MPI_INT, c,
                               MPI_INFO_NULL, &req[ALLGATHER]));
    CHECK_MPI(MPI_Allgatherv_init_c(sb[ALLGATHERV], counts[rank], MPI_INT, rb[ALLGATHERV], ccounts,
                                wdispls, MPI_INT, c, MPI_INFO_NULL, &req[ALLGATHERV]));
    CHECK_MPI(MPI_Alltoall_init(sb[ALLTOALL], 2, MPI_INT, rb[ALLTOALL], 2, MPI_INT, c, MPI_INFO_NULL,
                            &req[ALLTOALL]));
    CHECK_MPI(MPI_Alltoallv_init(sb[ALLTOALLV], scounts, displs, MPI_INT, rb[ALLTOALLV], acounts,
                             displs, MPI_INT, c, MPI_INFO_NULL, &req[ALLTOALLV]));
    CHECK_MPI(MPI_Alltoallw_init(sb[ALLTOALLW], scounts, bdispls, types, rb[ALLTOALLW], acounts,
                             bdispls, types, c, MPI_INFO_NULL, &req[ALLTOALLW]));
    CHECK_MPI(MPI_Reduce_init(sb[REDUCE], rb[REDUCE], N, MPI_INT, MPI_SUM, root, c, MPI_INFO_NULL,
                          &req[REDUCE]));
    CHECK_MPI(MPI_Allreduce_init(sb[ALLREDUCE], rb[ALLREDUCE], N, MPI_INT, MPI_MAX, c, MPI_INFO_NULL,
                             &req[ALLREDUCE]));
    CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, rb[ALLREDUCE_IP], N, MPI_INT, MPI_SUM, c,
                             MPI_INFO_NULL, &req[ALLREDUCE_IP]));
    CHECK_MPI(MPI_Allreduce_init_c(sb[BIGALLREDUCE], rb[BIGALLREDUCE], BIG, MPI_INT, MPI_SUM, c,
                               MPI_INFO_NULL, &req[BIGALLREDUCE]));
    CHECK_MPI(MPI_Reduce_scatter_init(sb[RS], rb[RS], counts, MPI_INT, MPI_SUM, c, MPI_INFO_NULL,
                                  &req[RS]));
    CHECK_MPI(MPI_Reduce_scatter_block_init(sb[RSB], rb[RSB], 2, MPI_INT, MPI_SUM, c, MPI_INFO_NULL,
                                        &req[RSB]));
    CHECK_MPI(MPI_Scan_init(sb[SCAN], rb[SCAN], N, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &req[SCAN]));
    CHECK_MPI(MPI_Exscan_init(sb[EXSCAN], rb[EXSCAN], N, MPI_INT, MPI_SUM, c, MPI_INFO_NULL,
                          &req[EXSCAN]));
    CHECK_MPI(MPI_Reduce_init(sb[REDUCE_NC], rb[REDUCE_NC], N, pair, affine, 0, c, MPI_INFO_NULL,
                          &req[REDUCE_NC]));
    CHECK_MPI(MPI_Neighbor_alltoall_init(sb[NBR], 2, MPI_INT, rb[NBR], 2, MPI_INT, ring,
                                     MPI_INFO_NULL, &req[NBR]));
}

static long sum(long i, int it) { long t = 0; for (int r = 0; r < size; r++) t += v(r, i, it); return t; }

/* element i of operation k in iteration it */
#define SAME(k, i, got, want) do { long g_ = (got), w_ = (want);                              \
        CHECK(g_ == w_, "it %d op %d element %ld: got %ld, expected %ld", it, k, (long)(i), g_, w_); \
    } while (0)

static void verify(int it)
{
    int root = size > 1 ? 1 : 0;
    for (long i = 0; i < N; i++)
        SAME(BCAST, i, sb[BCAST][i], v(0, i, it + BCAST));
    for (long i = 0; i < BIG; i++)
        SAME(BIGBCAST, i, sb[BIGBCAST][i], v(size - 1, i, it + BIGBCAST));
    if (rank == root)
        for (int p = 0; p < size; p++)
            for (long i = 0; i < N; i++)
                SAME(GATHER, p * N + i, rb[GATHER][p * N + i], v(p, i, it + GATHER));
    if (rank == 0)
        for (int p = 0; p < size; p++)
            for (long i = 0; i < 3; i++)
                SAME(GATHERV, 3 * p + i, rb[GATHERV][3 * p + i],
                       i < counts[p] ? v(p, i, it + GATHERV) : -1);
    for (long i = 0; i < N; i++)
        SAME(SCATTER, i, rb[SCATTER][i], v(root, rank * N + i, it + SCATTER));
    for (long i = 0; i < counts[rank]; i++)
        SAME(SCATTERV, i, rb[SCATTERV][i], v(0, displs[rank] + i, it + SCATTERV));
    for (int p = 0; p < size; p++)
        for (long i = 0; i < N; i++)
            SAME(ALLGATHER, p * N + i, rb[ALLGATHER][p * N + i], v(p, i, it + ALLGATHER));
    for (int p = 0; p < size; p++)
        for (long i = 0; i < counts[p]; i++)
            SAME(ALLGATHERV, i, rb[ALLGATHERV][wdispls[p] + i], v(p, i, it + ALLGATHERV));
    for (int p = 0; p < size; p++)
        for (long i = 0; i < 2; i++)
            SAME(ALLTOALL, i, rb[ALLTOALL][2 * p + i], v(p, 2 * rank + i, it + ALLTOALL));
    for (int k = ALLTOALLV; k <= ALLTOALLW; k++)
        for (int p = 0; p < size; p++)
            for (long i = 0; i < 3; i++)
                SAME(k, 3 * p + i, rb[k][3 * p + i],
                       i < acounts[p] ? v(p, 3 * rank + i, it + k) : -1);
    if (rank == root)
        for (long i = 0; i < N; i++)
            SAME(REDUCE, i, rb[REDUCE][i], sum(i, it + REDUCE));
    for (long i = 0; i < N; i++) {
        long mx = 0;
        for (int r = 0; r < size; r++) if (v(r, i, it + ALLREDUCE) > mx) mx = v(r, i, it + ALLREDUCE);
        SAME(ALLREDUCE, i, rb[ALLREDUCE][i], mx);
        SAME(ALLREDUCE_IP, i, rb[ALLREDUCE_IP][i], sum(i, it + ALLREDUCE_IP));
    }
    for (long i = 0; i < BIG; i++)
        SAME(BIGALLREDUCE, i, rb[BIGALLREDUCE][i], sum(i, it + BIGALLREDUCE));
    long off = 0;
    for (int p = 0; p < rank; p++) off += counts[p];
    for (long i = 0; i < counts[rank]; i++)
        SAME(RS, i, rb[RS][i], sum(off + i, it + RS));
    for (long i = 0; i < 2; i++)
        SAME(RSB, i, rb[RSB][i], sum(2 * rank + i, it + RSB));
    for (long i = 0; i < N; i++) {
        long s = 0;
        for (int r = 0; r <= rank; r++) s += v(r, i, it + SCAN);
        SAME(SCAN, i, rb[SCAN][i], s);
        if (rank > 0) {
            s = 0;
            for (int r = 0; r < rank; r++) s += v(r, i, it + EXSCAN);
            SAME(EXSCAN, i, rb[EXSCAN][i], s);
        }
    }
    if (rank == 0)
        for (long i = 0; i < N; i++) {
            long M = 1, C = 0;
            for (int r = 0; r < size; r++) {
                int m = 2 + (r * 13 + (int)i + it) % 97, c = (r * 5 + (int)i * 3 + it) % 89;
                C = (C * m + c) % P; M = M * m % P;
            }
            SAME(REDUCE_NC, 2 * i, rb[REDUCE_NC][2 * i], M);
            SAME(REDUCE_NC, 2 * i + 1, rb[REDUCE_NC][2 * i + 1], C);
        }
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;   /* ring: -1 then +1 */
    for (long i = 0; i < 2; i++) {
        SAME(NBR, i, rb[NBR][i], v(left, 2 + i, it + NBR));        /* left sent its +1 block */
        SAME(NBR, 2 + i, rb[NBR][2 + i], v(right, i, it + NBR));   /* right sent its -1 block */
    }
}

int main(int argc, char **argv)
{
    coll_forced_begin();
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims = size, periods = 1;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring));
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    CHECK_MPI(MPI_Op_create(affine_fn, 0, &affine));
    for (int k = 0; k < NREQ; k++) {
        sb[k] = malloc(sizeof(int) * (size_t)blen(k));
        rb[k] = malloc(sizeof(int) * (size_t)blen(k));
    }
    fill(0);
    init_all();
    /* the op and type may be freed while the requests live */
    CHECK_MPI(MPI_Op_free(&affine));
    CHECK_MPI(MPI_Type_free(&pair));

    MPI_Status sts[NREQ];
    for (int k = 0; k < NREQ; k++) {            /* inactive before the first start */
        int flag = 0;
        CHECK_MPI(MPI_Test(&req[k], &flag, &sts[k]));
        if (!flag || req[k] == MPI_REQUEST_NULL) FAIL("inactive request %d: flag %d", k, flag);
        check_empty(&sts[k], "Test on an inactive request");
    }
    for (int it = 0; it < 6; it++) {
        fill(it);
        if (it % 2 == 0) {
            /* one by one, with blocking and nonblocking collectives in between */
            MPI_Request ib;
            int x = rank, y = -1;
            CHECK_MPI(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ib));
            for (int k = 0; k < NREQ; k++) {
                CHECK_MPI(MPI_Start(&req[k]));
                if (k == NREQ / 2) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            }
            int z = rank == 0 ? 77 : 0;
            CHECK_MPI(MPI_Bcast(&z, 1, MPI_INT, 0, MPI_COMM_WORLD));
            if (z != 77) FAIL("bcast in between gave %d", z);
            /* complete in reverse on odd ranks */
            for (int j = 0; j < NREQ; j++) {
                int k = rank % 2 ? NREQ - 1 - j : j;
                CHECK_MPI(MPI_Wait(&req[k], &sts[k]));
                check_empty(&sts[k], "Wait");
                if (req[k] == MPI_REQUEST_NULL) FAIL("Wait freed persistent request %d", k);
            }
            CHECK_MPI(MPI_Wait(&ib, MPI_STATUS_IGNORE));
            if (y != size * (size - 1) / 2) FAIL("Iallreduce in between gave %d", y);
        } else {
            CHECK_MPI(MPI_Startall(NREQ, req));
            if (it == 3) {                   /* Testall until done */
                int flag = 0;
                while (!flag) CHECK_MPI(MPI_Testall(NREQ, req, &flag, sts));
            } else {
                CHECK_MPI(MPI_Waitall(NREQ, req, sts));
            }
            for (int k = 0; k < NREQ; k++) {
                check_empty(&sts[k], "Waitall");
                if (req[k] == MPI_REQUEST_NULL) FAIL("Waitall freed persistent request %d", k);
            }
        }
        verify(it);
        /* completed: inactive again */
        MPI_Status st;
        CHECK_MPI(MPI_Wait(&req[BCAST], &st));
        check_empty(&st, "Wait on an inactive request");
    }
    /* starting an active request is an error */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Start(&req[BARRIER]));
    if (MPI_Start(&req[BARRIER]) == MPI_SUCCESS) FAIL("MPI_Start of an active request succeeded");
    CHECK_MPI(MPI_Wait(&req[BARRIER], MPI_STATUS_IGNORE));
    /* errors: a bad root or info makes no request; freeing an active request is refused */
    MPI_Request bad = MPI_REQUEST_NULL;
    int cls, one = 1;
    if (MPI_Bcast_init(&one, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &bad) == MPI_SUCCESS)
        FAIL("Bcast_init with root %d succeeded", size);
    int e = MPI_Allreduce_init(&one, &cls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, (MPI_Info)0x1234,
                               &bad);
    MPI_Error_class(e, &cls);
    if (cls != MPI_ERR_INFO) FAIL("Allreduce_init with a bad info: class %d", cls);
    if (bad != MPI_REQUEST_NULL) FAIL("a failed init returned a request");
    if (size > 1) {
        int x = rank == 1 ? 5 : 0, go = 0;
        MPI_Request pb;
        CHECK_MPI(MPI_Bcast_init(&x, 1, MPI_INT, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &pb));
        if (rank == 0) {                 /* rank 1 starts only after our free attempt */
            CHECK_MPI(MPI_Start(&pb));
            if (MPI_Request_free(&pb) == MPI_SUCCESS) FAIL("Request_free of an active request");
            CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
        } else {
            if (rank == 1) CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Start(&pb));
        }
        CHECK_MPI(MPI_Wait(&pb, MPI_STATUS_IGNORE));
        if (x != 5) FAIL("bcast after a refused free gave %d", x);
        CHECK_MPI(MPI_Request_free(&pb));
    }
    for (int k = 0; k < NREQ; k++) {
        CHECK_MPI(MPI_Request_free(&req[k]));
        if (req[k] != MPI_REQUEST_NULL) FAIL("Request_free did not reset the handle");
    }
    /* an init on a communicator that is freed before the request */
    MPI_Comm dup;
    MPI_Request r;
    int a = rank, b = -1;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Allreduce_init(&a, &b, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Comm_free(&dup));
    for (int it = 0; it < 3; it++) {
        a = rank + it;
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (b != size * (size - 1) / 2 + size * it) FAIL("allreduce on freed comm gave %d", b);
    }
    CHECK_MPI(MPI_Request_free(&r));
    for (int k = 0; k < NREQ; k++) { free(sb[k]); free(rb[k]); }
    CHECK_MPI(MPI_Comm_free(&ring));
    coll_forced_end(NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}

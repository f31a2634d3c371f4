/* mempi-test: np=1,2,3,5,7 timeout=180 */
/* mempi-test: np=3,4,6 timeout=180 env=MEMPI_COLL_ALLREDUCE=recursive_doubling,MEMPI_COLL_REDUCE=linear,MEMPI_COLL_SCAN=linear,MEMPI_COLL_EXSCAN=linear,MEMPI_COLL_REDUCE_SCATTER=pairwise,MEMPI_COLL_REDUCE_SCATTER_BLOCK=pairwise,MEMPI_COLL_ALLGATHER=ring,MEMPI_COLL_ALLTOALL=linear */
/* mempi-test: np=2,5,8 timeout=180 env=MEMPI_COLL_ALLREDUCE=ring,MEMPI_COLL_REDUCE=binomial,MEMPI_COLL_REDUCE_SCATTER=reduce_scatterv,MEMPI_COLL_REDUCE_SCATTER_BLOCK=reduce_scatterv,MEMPI_COLL_ALLGATHER=bruck,MEMPI_COLL_ALLTOALL=bruck */
/* mempi-test: np=3,6 timeout=180 env=MEMPI_COLL_ALLREDUCE=rabenseifner,MEMPI_COLL_ALLGATHER=gather_bcast,MEMPI_COLL_BCAST=scatter_allgather,MEMPI_COLL_ALLTOALL=pairwise,MEMPI_COLL_SCAN=recursive_doubling,MEMPI_COLL_EXSCAN=recursive_doubling */
/* mempi-test: np=5,9 timeout=180 env=MEMPI_NODE_SIZE=2,MEMPI_COLL_ALLREDUCE=btree4,MEMPI_COLL_REDUCE=node,MEMPI_COLL_ALLGATHER=btree4star,MEMPI_COLL_BCAST=two_stage */
/* coll_matrix.c -- the cells of the collective test matrix that coll_suite.c leaves open.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * coll_suite.c (through coll_default, coll_alg_a/b/c, coll_node and coll_shm) checks every collective
 * x algorithm x size x in-place x one derived layout x a non-commutative op on a contiguous
 * pair type.  This file adds, under the forced algorithms of the lines above:
 *   1. a non-commutative user op on a NON-contiguous derived type with a non-zero true lower
 *      bound (2 ints at int offsets 1 and 3 of a 5-int extent): Allreduce (also in place),
 *      Reduce at every root, Scan, Exscan, Reduce_scatter, Reduce_scatter_block, in the
 *      blocking, nonblocking and persistent forms; holes must stay untouched;
 *   2. several-MB data: Allreduce of 1 Mi ints, Allgather and Alltoall of ~4 MiB in total,
 *      Bcast of 4 MiB with a derived type, blocking and nonblocking;
 *   3. the allreduce selection at sizes around its thresholds (2 KiB, 1 MiB) with a
 *      commutative and a non-commutative op;
 *   4. Reduce_scatter and Reduce_scatter_block with MPI_SUM on the holey type (the forced
 *      pairwise algorithm serves commutative ops only).
 * Every result is compared with a naive reference computed locally.
 */
#include <mpi.h>
#include "check.h"
#include "coll_forced.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define HOLE (-7777)
#define P 1000003
#define EXT 5                           /* ints per element of the holey type */

static MPI_Datatype holey;              /* ints at 1 and 3 of every 5 */
static MPI_Op affine_h;                 /* affine maps (m at 1, c at 3), non-commutative */

static void affine_holey(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (*dt != holey)
        abort();                        /* the op is only used with the holey type */
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += EXT, b += EXT) {   /* b = a then b */
        long m = (long)a[1] * b[1] % P;
        long c = ((long)a[3] * b[1] + b[3]) % P;
        b[1] = (int)m; b[3] = (int)c;
    }
}

static void aff(int r, long i, int *m, int *c)
{
    *m = 2 + (int)((r * 13 + i) % 97);
    *c = (int)((r * 5 + i * 3) % 89);
}

static void fold(int lo, int hi, long i, long *M, long *C)
{
    *M = 1; *C = 0;
    for (int r = lo; r <= hi; r++) {
        int m, c;
        aff(r, i, &m, &c);
        *C = (*C * m + c) % P;
        *M = *M * m % P;
    }
}

static int *holey_buf(long n, int fill_rank)
{
    int *b = malloc(sizeof(int) * (size_t)(EXT * n + 1));
    for (long i = 0; i < EXT * n; i++)
        b[i] = HOLE;
    if (fill_rank >= 0)
        for (long i = 0; i < n; i++)
            aff(fill_rank, i, &b[EXT * i + 1], &b[EXT * i + 3]);
    return b;
}

/* element i of b must be the fold of ranks lo..hi (lo > hi: untouched), holes intact */
static void expect_fold(const int *b, long n, long first, int lo, int hi, const char *what)
{
    for (long i = 0; i < n; i++) {
        const int *e = b + EXT * i;
        if (e[0] != HOLE || e[2] != HOLE || e[4] != HOLE)
            FAIL("%s: hole overwritten at element %ld", what, i);
        if (lo > hi)
            continue;
        long M, C;
        fold(lo, hi, first + i, &M, &C);
        if (e[1] != M || e[3] != C)
            FAIL("%s: element %ld is (%d,%d), expected (%ld,%ld)", what, i, e[1], e[3], M, C);
    }
}

/* Runs `start` in form f (0 blocking, 1 nonblocking, 2 persistent started twice). */
enum { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const form_name[] = { "blocking", "nonblocking", "persistent" };

static void complete(MPI_Request *rq, int f)
{
    if (f == BLOCKING)
        return;
    MPI_Status st;
    if (f == PERSISTENT)
        CHECK_MPI(MPI_Start(rq));
    CHECK_MPI(MPI_Wait(rq, &st));
    if (st.MPI_SOURCE != MPI_ANY_SOURCE)       /* MPI_ERROR is not Wait's to set */
        FAIL("status of a collective not empty");
}

static void release(MPI_Request *rq, int f)
{
    if (f == PERSISTENT)
        CHECK_MPI(MPI_Request_free(rq));
}

static void test_noncommutative_holey(void)
{
    static const long ns[] = { 0, 1, 5, 3000 };
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 4; s++) {
            long n = ns[s];
            char what[96];
            MPI_Request rq = MPI_REQUEST_NULL;
            /* Allreduce, then in place */
            for (int ip = 0; ip < 2; ip++) {
                int *a = holey_buf(n, rank), *b = holey_buf(n, -1);
                const void *sb = ip ? MPI_IN_PLACE : a;
                void *rb = ip ? a : b;
                if (f == BLOCKING) CHECK_MPI(MPI_Allreduce(sb, rb, (int)n, holey, affine_h, MPI_COMM_WORLD));
                if (f == NONBLOCKING) CHECK_MPI(MPI_Iallreduce(sb, rb, (int)n, holey, affine_h, MPI_COMM_WORLD, &rq));
                if (f == PERSISTENT) CHECK_MPI(MPI_Allreduce_init(sb, rb, (int)n, holey, affine_h, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
                complete(&rq, f);
                snprintf(what, sizeof what, "%s allreduce%s n=%ld", form_name[f], ip ? " in place" : "", n);
                expect_fold(rb, n, 0, 0, size - 1, what);
                if (f == PERSISTENT) {           /* again, from fresh inputs */
                    for (long i = 0; i < n; i++) aff(rank, i, &a[EXT * i + 1], &a[EXT * i + 3]);
                    complete(&rq, f);
                    expect_fold(rb, n, 0, 0, size - 1, what);
                }
                release(&rq, f);
                free(a); free(b);
            }
            /* Reduce at every root */
            for (int root = 0; root < size; root++) {
                int *a = holey_buf(n, rank), *b = holey_buf(n, -1);
                if (f == BLOCKING) CHECK_MPI(MPI_Reduce(a, b, (int)n, holey, affine_h, root, MPI_COMM_WORLD));
                if (f == NONBLOCKING) CHECK_MPI(MPI_Ireduce(a, b, (int)n, holey, affine_h, root, MPI_COMM_WORLD, &rq));
                if (f == PERSISTENT) CHECK_MPI(MPI_Reduce_init(a, b, (int)n, holey, affine_h, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
                complete(&rq, f);
                release(&rq, f);
                snprintf(what, sizeof what, "%s reduce root %d n=%ld", form_name[f], root, n);
                expect_fold(b, n, 0, 0, rank == root ? size - 1 : -1, what);
                free(a); free(b);
            }
            /* Scan and Exscan (exscan's result on rank 0 is undefined: not checked) */
            for (int ex = 0; ex < 2; ex++) {
                int *a = holey_buf(n, rank), *b = holey_buf(n, -1);
                if (f == BLOCKING) CHECK_MPI((ex ? MPI_Exscan : MPI_Scan)(a, b, (int)n, holey, affine_h, MPI_COMM_WORLD));
                if (f == NONBLOCKING) CHECK_MPI((ex ? MPI_Iexscan : MPI_Iscan)(a, b, (int)n, holey, affine_h, MPI_COMM_WORLD, &rq));
                if (f == PERSISTENT) CHECK_MPI((ex ? MPI_Exscan_init : MPI_Scan_init)(a, b, (int)n, holey, affine_h, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
                complete(&rq, f);
                release(&rq, f);
                snprintf(what, sizeof what, "%s %s n=%ld", form_name[f], ex ? "exscan" : "scan", n);
                if (!(ex && rank == 0))
                    expect_fold(b, n, 0, 0, ex ? rank - 1 : rank, what);
                free(a); free(b);
            }
            /* Reduce_scatter with uneven blocks, and Reduce_scatter_block */
            int *counts = malloc(sizeof(int) * (size_t)size);
            long total = 0, first = 0;
            for (int r = 0; r < size; r++) {
                counts[r] = (int)(n ? (n + r) % 4 + (r == 1 ? n : 0) : 0);
                if (r < rank) first += counts[r];
                total += counts[r];
            }
            for (int blk = 0; blk < 2; blk++) {
                long tot = blk ? n * size : total;
                int mine = blk ? (int)n : counts[rank];
                long off = blk ? n * rank : first;
                int *a = holey_buf(tot, rank), *b = holey_buf(mine, -1);
                if (blk) {
                    if (f == BLOCKING) CHECK_MPI(MPI_Reduce_scatter_block(a, b, (int)n, holey, affine_h, MPI_COMM_WORLD));
                    if (f == NONBLOCKING) CHECK_MPI(MPI_Ireduce_scatter_block(a, b, (int)n, holey, affine_h, MPI_COMM_WORLD, &rq));
                    if (f == PERSISTENT) CHECK_MPI(MPI_Reduce_scatter_block_init(a, b, (int)n, holey, affine_h, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
                } else {
                    if (f == BLOCKING) CHECK_MPI(MPI_Reduce_scatter(a, b, counts, holey, affine_h, MPI_COMM_WORLD));
                    if (f == NONBLOCKING) CHECK_MPI(MPI_Ireduce_scatter(a, b, counts, holey, affine_h, MPI_COMM_WORLD, &rq));
                    if (f == PERSISTENT) CHECK_MPI(MPI_Reduce_scatter_init(a, b, counts, holey, affine_h, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
                }
                complete(&rq, f);
                release(&rq, f);
                snprintf(what, sizeof what, "%s reduce_scatter%s n=%ld", form_name[f], blk ? "_block" : "", n);
                expect_fold(b, mine, off, 0, size - 1, what);
                free(a); free(b);
            }
            free(counts);
        }
}

static int val(int r, long i) { return (int)((r * 7919L + i * 31L) % 100003L); }

/* Reduce_scatter (uneven blocks) and Reduce_scatter_block with a built-in, commutative op on
 * the holey type, blocking and nonblocking: the pairwise algorithm's case, which the
 * non-commutative op of test_noncommutative_holey never reaches. */
static void test_commutative_holey(void)
{
    const long n = 37;
    int *counts = malloc(sizeof(int) * (size_t)size);
    long total = 0, first = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)(n + r % 3);
        if (r < rank) first += counts[r];
        total += counts[r];
    }
    for (int blk = 0; blk < 2; blk++)
        for (int nb = 0; nb < 2; nb++) {
            long tot = blk ? n * size : total, off = blk ? n * rank : first;
            int mine = blk ? (int)n : counts[rank];
            int *a = holey_buf(tot, rank), *b = holey_buf(mine, -1);
            MPI_Request rq = MPI_REQUEST_NULL;
            if (blk && nb) CHECK_MPI(MPI_Ireduce_scatter_block(a, b, (int)n, holey, MPI_SUM, MPI_COMM_WORLD, &rq));
            if (blk && !nb) CHECK_MPI(MPI_Reduce_scatter_block(a, b, (int)n, holey, MPI_SUM, MPI_COMM_WORLD));
            if (!blk && nb) CHECK_MPI(MPI_Ireduce_scatter(a, b, counts, holey, MPI_SUM, MPI_COMM_WORLD, &rq));
            if (!blk && !nb) CHECK_MPI(MPI_Reduce_scatter(a, b, counts, holey, MPI_SUM, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            for (long i = 0; i < mine; i++) {
                const int *e = b + EXT * i;
                long m = 0, c = 0;
                for (int r = 0; r < size; r++) {
                    int mr, cr;
                    aff(r, off + i, &mr, &cr);
                    m += mr;
                    c += cr;
                }
                CHECK(e[0] == HOLE && e[2] == HOLE && e[4] == HOLE, "sum reduce_scatter%s (nb %d): "
                      "hole overwritten at element %ld", blk ? "_block" : "", nb, i);
                CHECK(e[1] == m && e[3] == c, "sum reduce_scatter%s (nb %d): element %ld is "
                      "(%d,%d), expected (%ld,%ld)", blk ? "_block" : "", nb, i, e[1], e[3], m, c);
            }
            free(a); free(b);
        }
    free(counts);
}

static void test_large(void)
{
    /* Allreduce of 1 Mi ints (4 MiB), blocking then nonblocking */
    long n = 1L << 20;
    int *a = malloc(sizeof(int) * (size_t)n), *b = malloc(sizeof(int) * (size_t)n);
    for (int nb = 0; nb < 2; nb++) {
        for (long i = 0; i < n; i++) { a[i] = val(rank, i) - 50000; b[i] = HOLE; }
        if (nb) {
            MPI_Request rq;
            CHECK_MPI(MPI_Iallreduce(a, b, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Allreduce(a, b, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        }
        for (long i = 0; i < n; i++) {
            long want = 0;
            for (int r = 0; r < size; r++) want += val(r, i) - 50000;
            if (b[i] != want) FAIL("4 MiB allreduce (nb %d): element %ld is %d, expected %ld", nb, i, b[i], want);
        }
    }
    free(a); free(b);
    /* Allgather and Alltoall of ~4 MiB in total */
    long per = (1L << 20) / size;
    a = malloc(sizeof(int) * (size_t)(per * size));
    b = malloc(sizeof(int) * (size_t)(per * size));
    for (long i = 0; i < per; i++) a[i] = val(rank, i);
    CHECK_MPI(MPI_Allgather(a, (int)per, MPI_INT, b, (int)per, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        for (long i = 0; i < per; i++)
            if (b[p * per + i] != val(p, i)) FAIL("4 MiB allgather: block %d element %ld", p, i);
    per /= size;                         /* alltoall: per ints to each peer */
    for (long i = 0; i < per * size; i++) a[i] = val(rank, i);
    MPI_Request rq;
    CHECK_MPI(MPI_Ialltoall(a, (int)per, MPI_INT, b, (int)per, MPI_INT, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int p = 0; p < size; p++)
        for (long i = 0; i < per; i++)
            if (b[p * per + i] != val(p, rank * per + i)) FAIL("alltoall: block %d element %ld", p, i);
    free(a); free(b);
    /* Bcast of 4 MiB of a strided type (every other int of an 8 MiB buffer) */
    MPI_Datatype strided;
    long m = 1L << 20;
    CHECK_MPI(MPI_Type_vector((int)m, 1, 2, MPI_INT, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    a = malloc(sizeof(int) * (size_t)m * 2);
    int root = size / 2;
    for (long i = 0; i < 2 * m; i++) a[i] = rank == root || i % 2 ? val(root, i) : -1;
    for (long i = 1; i < 2 * m; i += 2) a[i] = HOLE;
    CHECK_MPI(MPI_Bcast(a, 1, strided, root, MPI_COMM_WORLD));
    for (long i = 0; i < 2 * m; i++)
        if (a[i] != (i % 2 ? HOLE : val(root, i))) FAIL("strided bcast element %ld is %d", i, a[i]);
    free(a);
    CHECK_MPI(MPI_Type_free(&strided));
}

/* Allreduce at the sizes where the default rule switches algorithms. */
static void test_thresholds(void)
{
    static const long ns[] = { 511, 512, 513, 262143, 262144, 262145 };   /* ints */
    for (int s = 0; s < 6; s++) {
        long n = ns[s];
        int *a = malloc(sizeof(int) * (size_t)n), *b = malloc(sizeof(int) * (size_t)n);
        for (long i = 0; i < n; i++) a[i] = val(rank, i);
        CHECK_MPI(MPI_Allreduce(a, b, (int)n, MPI_INT, MPI_BXOR, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++) {
            int want = 0;
            for (int r = 0; r < size; r++) want ^= val(r, i);
            if (b[i] != want) FAIL("allreduce bxor n=%ld element %ld", n, i);
        }
        free(a); free(b);
    }
}

int main(int argc, char **argv)
{
    coll_forced_begin();
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype two;
    int displs[2] = { 1, 3 };
    CHECK_MPI(MPI_Type_create_indexed_block(2, 1, displs, MPI_INT, &two));
    CHECK_MPI(MPI_Type_create_resized(two, 0, EXT * sizeof(int), &holey));
    CHECK_MPI(MPI_Type_commit(&holey));
    CHECK_MPI(MPI_Type_free(&two));
    CHECK_MPI(MPI_Op_create(affine_holey, 0, &affine_h));
    test_noncommutative_holey();
    test_commutative_holey();
    test_large();
    test_thresholds();
    CHECK_MPI(MPI_Op_free(&affine_h));
    CHECK_MPI(MPI_Type_free(&holey));
    coll_forced_end(NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}

/* mempi-test: np=2,3,4,5 timeout=180 */
/* mempi-test: np=3,4,5 timeout=180 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=5 timeout=180 env=MEMPI_NODE_SIZE=3 */
/* mempi-test: np=3,5 timeout=180 env=MEMPI_COLL_ALLREDUCE=recursive_doubling */
/* mempi-test: np=4,5 timeout=180 env=MEMPI_COLL_ALLREDUCE=ring */
/* coll_allreduce_identical.c -- every rank gets a bitwise identical allreduce result (MPI 4.0
 * §6.9.6: "MPI requires that all MPI processes from the same group participating in these
 * operations receive identical results").  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The inputs make the combining order visible: doubles of magnitude 1e16 and of magnitude 1
 * with alternating signs, so (a + b) + c and a + (b + c) differ in the last bits.  Each case
 * runs blocking, in place, nonblocking and persistent, at vector lengths that select every
 * algorithm (recursive doubling, Rabenseifner, ring, shared memory, node-aware B-Tree-4 under
 * MEMPI_NODE_SIZE); results are gathered (plain data movement) and compared byte for byte.
 * Besides MPI_SUM on doubles: a non-commutative user op (composition of affine maps, on pairs
 * of doubles: results identical and in rank order), and a user op declared commutative that
 * is commutative only up to ties -- it
 * keeps its inout operand when |a| == |b|, as BLACS's absolute-maximum combine does -- for
 * which every rank must still see the same result.  Two disjoint communicators of the same
 * shape reducing the same data must agree as well (ScaLAPACK's process columns do this).
 * The sums are also checked against a long double reference.
 */
#include "check.h"
#include <float.h>
#include <math.h>
#include <string.h>

static int wrank, wsize;

static double input(int rank, MPI_Aint i)
{
    double big = (rank % 3 == 0) ? 1e16 : (rank % 3 == 1) ? -1e16 : 0.0;
    return big * (1.0 + (double)(i % 7) * 0.125) + (1.0 + rank) * (1.0 + (double)i * 1e-3) +
           (rank % 2 ? 0.3 : -0.7);
}

/* All members of comm must hold the same `bytes` bytes at buf. */
static void same_everywhere(MPI_Comm comm, const void *buf, size_t bytes, const char *what)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char *all = rank == 0 ? malloc(bytes * (size_t)size) : NULL;
    CHECK_MPI(MPI_Gather(buf, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, comm));
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            CHECK(memcmp(all, all + (size_t)r * bytes, bytes) == 0,
                  "%s: rank %d of %d got a result that differs from rank 0's", what, r, size);
        free(all);
    }
}

/* Elements are affine maps x -> m x + c stored as (m, c); inout = in o inout (apply inout
 * first): associative, not commutative. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        double m = a[2 * i] * b[2 * i], c = a[2 * i] * b[2 * i + 1] + a[2 * i + 1];
        b[2 * i] = m;
        b[2 * i + 1] = c;
    }
}

/* "Commutative": the larger magnitude wins, but on a tie the inout operand stays. */
static void absmax_tie(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    double *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (fabs(a[i]) > fabs(b[i]))
            b[i] = a[i];
}

/* Runs one allreduce four ways and checks every result is identical on all ranks; the
 * blocking result is returned in out. */
static void run(MPI_Comm comm, const double *in, double *out, MPI_Aint n, MPI_Datatype dt,
                MPI_Op op, const char *what)
{
    char label[96];
    int tsize;
    MPI_Type_size(dt, &tsize);
    size_t bytes = (size_t)tsize * (size_t)n;
    double *tmp = malloc(bytes);
    CHECK_MPI(MPI_Allreduce(in, out, (int)n, dt, op, comm));
    snprintf(label, sizeof label, "%s n=%ld blocking", what, (long)n);
    same_everywhere(comm, out, bytes, label);

    memcpy(tmp, in, bytes);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, tmp, (int)n, dt, op, comm));
    snprintf(label, sizeof label, "%s n=%ld in place", what, (long)n);
    same_everywhere(comm, tmp, bytes, label);

    MPI_Request r;
    CHECK_MPI(MPI_Iallreduce(in, tmp, (int)n, dt, op, comm, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    snprintf(label, sizeof label, "%s n=%ld nonblocking", what, (long)n);
    same_everywhere(comm, tmp, bytes, label);

    CHECK_MPI(MPI_Allreduce_init(in, tmp, (int)n, dt, op, comm, MPI_INFO_NULL, &r));
    for (int k = 0; k < 2; k++) {
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        snprintf(label, sizeof label, "%s n=%ld persistent", what, (long)n);
        same_everywhere(comm, tmp, bytes, label);
    }
    CHECK_MPI(MPI_Request_free(&r));
    free(tmp);
}

static void sums(MPI_Comm comm, MPI_Aint n)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *in = malloc(sizeof(double) * (size_t)n), *out = malloc(sizeof(double) * (size_t)n);
    for (MPI_Aint i = 0; i < n; i++)
        in[i] = input(rank, i);
    run(comm, in, out, n, MPI_DOUBLE, MPI_SUM, "MPI_SUM");
    for (MPI_Aint i = 0; i < n; i += 1 + n / 17) {
        long double exact = 0;
        for (int r = 0; r < size; r++)
            exact += input(r, i);
        /* every partial sum is below 4e16, whose ulp is 8: a few ulps per addition */
        CHECK(fabsl((long double)out[i] - exact) <= 8.0L * size,
              "MPI_SUM n=%ld element %ld: %.17g, expected about %.17Lg", (long)n, (long)i,
              out[i], exact);
    }
    free(in);
    free(out);
}

static void user_ops(MPI_Comm comm, MPI_Aint n)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *in = malloc(sizeof(double) * 2 * (size_t)n);
    double *out = malloc(sizeof(double) * 2 * (size_t)n);
    MPI_Op op;
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));

    CHECK_MPI(MPI_Op_create(compose, 0, &op));
    for (MPI_Aint i = 0; i < n; i++) {
        in[2 * i] = 1.0 + 0.01 * rank + 1e-4 * (double)i;
        in[2 * i + 1] = rank - 1.5 + 1e-3 * (double)i;
    }
    run(comm, in, out, n, pair, op, "non-commutative op");
    for (MPI_Aint i = 0; i < n; i += 1 + n / 11) {    /* x0 o x1 o ... o x(size-1) */
        double m = 1.0, c = 0.0;
        for (int r = size - 1; r >= 0; r--) {
            double rm = 1.0 + 0.01 * r + 1e-4 * (double)i, rc = r - 1.5 + 1e-3 * (double)i;
            c = rm * c + rc;
            m = rm * m;
        }
        CHECK(fabs(out[2 * i] - m) <= 1e-12 * fabs(m) && fabs(out[2 * i + 1] - c) <= 1e-9,
              "non-commutative op n=%ld element %ld: (%g, %g), rank order gives (%g, %g)",
              (long)n, (long)i, out[2 * i], out[2 * i + 1], m, c);
    }
    CHECK_MPI(MPI_Op_free(&op));

    CHECK_MPI(MPI_Op_create(absmax_tie, 1, &op));
    for (MPI_Aint i = 0; i < n; i++)       /* every rank: +-7, so all magnitudes tie */
        in[i] = (rank + i) % 2 ? 7.0 : -7.0;
    run(comm, in, out, n, MPI_DOUBLE, op, "absmax with ties");
    for (MPI_Aint i = 0; i < n; i++)
        CHECK(fabs(out[i]) == 7.0, "absmax element %ld: %g", (long)i, out[i]);
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Type_free(&pair));
    free(in);
    free(out);
}

/* Two disjoint communicators of the same shape reduce the same data: same results. */
static void twins(void)
{
    if (wsize < 4)
        return;
    int half = wsize / 2, color = wrank < half ? 0 : wrank < 2 * half ? 1 : MPI_UNDEFINED;
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &c));
    enum { N = 300 };
    double in[N], out[N], other[N];
    if (c != MPI_COMM_NULL) {
        int rank;
        MPI_Comm_rank(c, &rank);
        for (int i = 0; i < N; i++)
            in[i] = input(rank, i);
        CHECK_MPI(MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, c));
        CHECK_MPI(MPI_Comm_free(&c));
    }
    /* rank k of each twin swaps its result with the other twin's rank k */
    if (color != MPI_UNDEFINED) {
        int peer = color == 0 ? wrank + half : wrank - half;
        CHECK_MPI(MPI_Sendrecv(out, N, MPI_DOUBLE, peer, 5, other, N, MPI_DOUBLE, peer, 5,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(memcmp(out, other, sizeof out) == 0,
              "two communicators of %d ranks reduced the same data to different results", half);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    /* 1, 3: recursive doubling; 700 (5.6 KB): Rabenseifner; 140000 (1.1 MB): ring */
    const MPI_Aint lengths[] = { 1, 3, 700, 140000 };
    for (int k = 0; k < 4; k++) {
        sums(MPI_COMM_WORLD, lengths[k]);
        if (lengths[k] < 1000)
            user_ops(MPI_COMM_WORLD, lengths[k]);
    }
    MPI_Comm odd;                              /* a communicator of another shape */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &odd));
    sums(odd, 3);
    user_ops(odd, 5);
    CHECK_MPI(MPI_Comm_free(&odd));
    twins();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0)
        printf("coll_allreduce_identical: %d ranks, results identical\n", wsize);
    MPI_Finalize();
    return 0;
}

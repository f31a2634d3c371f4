/* mempi-test: np=2,3,5 timeout=300 */
/* mempi-test: np=4 timeout=300 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=3 timeout=300 env=MEMPI_WAIT=sleep */
/* thread_coll_unlocked.c -- large shared-memory collectives whose copies and folds run
 * without the big lock, while other threads of the same processes work on other
 * communicators.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank runs three threads under MPI_THREAD_MULTIPLE.  Threads 0 and 2 each own a copy of
 * MPI_COMM_WORLD (a split) and run large blocking collectives on it -- allreduce of 1 MiB with
 * MPI_SUM and of 256 KiB with a user-defined operation (which must keep the lock), reduce,
 * bcast with rotating roots, allgather and alltoall -- so two collectives' single copies and
 * folds run outside the lock at once.  Thread 1 meanwhile exchanges small messages around a
 * ring on a third communicator, checking data and status.  The data is a function of (rank,
 * thread, round, index), so a fold that read another thread's input or a stale round gives a
 * wrong value.  Under MemPI, when all ranks share one host and single copy works (a remote
 * write delivered bytes in the warm-up), the counter mempi_unlocked_coll_copies must have
 * moved: the copies did leave the lock.  Under another MPI (tests/mpi/run-with-mpich) only the
 * data is checked.
 */
#include <mpi.h>
#include "check.h"
#include "counters.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 12
#define RING_ITERS 3000
#define BIG (128 * 1024)              /* doubles: 1 MiB */
#define USER (32 * 1024)              /* doubles: 256 KiB */
#define BLOCK (8 * 1024)              /* doubles per rank and block: 64 KiB */

static int rank, size;
static MPI_Comm comm_of[3];
static MPI_Op user_sum;

static double val(int r, int t, int round, long i)
{
    return (double)(r * 1000003L + t * 10007L + round * 101L + i % 9973);
}

/* the sum over all ranks of val(r, t, round, i) */
static double sum_val(int t, int round, long i)
{
    double s = 0;
    for (int r = 0; r < size; r++)
        s += val(r, t, round, i);
    return s;
}

static void user_sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static void check_sum(const double *got, long n, int t, int round, const char *what)
{
    for (long i = 0; i < n; i++)
        if (got[i] != sum_val(t, round, i))
            FAIL("thread %d round %d: %s [%ld] = %g, expected %g", t, round, what, i, got[i],
                 sum_val(t, round, i));
}

static void big_round(int t, int round, double *a, double *b)
{
    MPI_Comm c = comm_of[t];
    for (long i = 0; i < BIG; i++)
        a[i] = val(rank, t, round, i);
    CHECK_MPI(MPI_Allreduce(a, b, BIG, MPI_DOUBLE, MPI_SUM, c));
    check_sum(b, BIG, t, round, "allreduce");

    CHECK_MPI(MPI_Allreduce(a, b, USER, MPI_DOUBLE, user_sum, c));
    check_sum(b, USER, t, round, "allreduce (user op)");

    int root = round % size;
    memset(b, 0, sizeof(double) * BIG);
    CHECK_MPI(MPI_Reduce(a, b, BIG / 2, MPI_DOUBLE, MPI_SUM, root, c));
    if (rank == root)
        check_sum(b, BIG / 2, t, round, "reduce");

    for (long i = 0; i < BIG / 2; i++)
        b[i] = rank == root ? val(root, t, round, i) : -1.0;
    CHECK_MPI(MPI_Bcast(b, BIG / 2, MPI_DOUBLE, root, c));
    for (long i = 0; i < BIG / 2; i++)
        if (b[i] != val(root, t, round, i))
            FAIL("thread %d round %d: bcast from %d [%ld] = %g", t, round, root, i, b[i]);

    long per = BIG / size;            /* allgather: rank r's block holds val(r, ...) */
    for (long i = 0; i < per; i++)
        a[i] = val(rank, t, round, i);
    CHECK_MPI(MPI_Allgather(a, (int)per, MPI_DOUBLE, b, (int)per, MPI_DOUBLE, c));
    for (int r = 0; r < size; r++)
        for (long i = 0; i < per; i++)
            if (b[r * per + i] != val(r, t, round, i))
                FAIL("thread %d round %d: allgather block %d [%ld] = %g", t, round, r, i,
                     b[r * per + i]);

    for (int j = 0; j < size; j++)    /* alltoall: block j of rank r holds val(r, ..., j) */
        for (long i = 0; i < BLOCK; i++)
            a[j * BLOCK + i] = val(rank, t, round, j * 100000L + i);
    CHECK_MPI(MPI_Alltoall(a, BLOCK, MPI_DOUBLE, b, BLOCK, MPI_DOUBLE, c));
    for (int r = 0; r < size; r++)
        for (long i = 0; i < BLOCK; i++)
            if (b[r * BLOCK + i] != val(r, t, round, rank * 100000L + i))
                FAIL("thread %d round %d: alltoall block %d [%ld] = %g", t, round, r, i,
                     b[r * BLOCK + i]);
}

static void ring(void)
{
    MPI_Comm c = comm_of[1];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < RING_ITERS; it++) {
        long out[2] = { rank, it }, in[2] = { -1, -1 };
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, 2, MPI_LONG, right, it % 100, in, 2, MPI_LONG, left,
                               it % 100, c, &st));
        CHECK(in[0] == left && in[1] == it, "ring %d: got (%ld, %ld) from %d", it, in[0],
              in[1], left);
        int n;
        MPI_Get_count(&st, MPI_LONG, &n);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == it % 100 && n == 2,
              "ring %d: status source %d tag %d count %d", it, st.MPI_SOURCE, st.MPI_TAG, n);
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (t == 1) {
        ring();
        return NULL;
    }
    double *a = malloc(sizeof(double) * BIG), *b = malloc(sizeof(double) * BIG);
    CHECK(a && b, "out of memory");
    for (int round = 0; round < ROUNDS; round++)
        big_round(t, round, a, b);
    free(a);
    free(b);
    return NULL;
}

/* 1 if a 1 MiB message to the right neighbour, received posted first, went by remote write
 * (single copy works) -- only asked when all ranks share this host. */
static int single_copy_works(MPI_T_pvar_handle written)
{
    int n = 1 << 17, right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *sb = calloc((size_t)n, sizeof(double)), *rb = calloc((size_t)n, sizeof(double));
    MPI_Request rq;
    CHECK_MPI(MPI_Irecv(rb, n, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(sb, n, MPI_DOUBLE, right, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    free(sb);
    free(rb);
    int mine = counter_read(written) > 0, any = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return any;
}

static int is_mempi(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    CHECK_MPI(MPI_Get_library_version(v, &len));
    return strncmp(v, "MemPI", 5) == 0;
}

int main(int argc, char **argv)
{
    int level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave level %d", level);
    CHECK_MPI(MPI_Op_create(user_sum_fn, 1, &user_sum));
    for (int t = 0; t < 3; t++)
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 3, rank, &comm_of[t]));

    int counted = is_mempi(), one_host_cma = 0;
    MPI_T_pvar_handle unlocked = MPI_T_PVAR_HANDLE_NULL, written = MPI_T_PVAR_HANDLE_NULL;
    if (counted) {
        counters_open();
        unlocked = counter_start("mempi_unlocked_coll_copies");
        written = counter_start("mempi_sendreq_bytes");
        MPI_Comm host;
        int host_size;
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                      &host));
        MPI_Comm_size(host, &host_size);
        MPI_Comm_free(&host);
        one_host_cma = host_size == size && single_copy_works(written);
    }

    pthread_t th[3];
    for (int t = 0; t < 3; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < 3; t++)
        pthread_join(th[t], NULL);

    if (counted) {
        unsigned long long mine = counter_read(unlocked), all = 0;
        CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                                MPI_COMM_WORLD));
        if (one_host_cma)
            CHECK(all > 0, "no collective copy ran outside the big lock");
        counters_close();
    }

    for (int t = 0; t < 3; t++)
        CHECK_MPI(MPI_Comm_free(&comm_of[t]));
    CHECK_MPI(MPI_Op_free(&user_sum));
    MPI_Finalize();
    return 0;
}

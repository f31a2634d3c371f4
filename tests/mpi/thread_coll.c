/* mempi-test: np=2,3,5 timeout=300 */
/* mempi-test: np=4 timeout=300 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=3 timeout=300 env=MEMPI_WAIT=sleep */
/* thread_coll.c -- blocking collectives from several threads at once, each on its own
 * communicator, under MPI_THREAD_MULTIPLE.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank runs NT threads.  Thread t owns a copy of MPI_COMM_WORLD (a split made by the
 * main thread) and, made by itself while the other threads run collectives, a split of it (every
 * rank but the last, reordered) -- so collectives on different communicators of one process
 * overlap in time, and communicators are created while others are in use; every fourth round
 * it also duplicates its communicator for one allreduce and frees it again (the threads'
 * duplicates have the same ranks in the same order: they compete for the library's spare
 * collective slots).  Each round a
 * thread runs barrier, bcast, allreduce, reduce, allgather and alltoall on one of its two
 * communicators, with sizes from 8 bytes to beyond the single-copy threshold (256 KiB per
 * rank) and rotating roots; the data is a function of (rank, thread, round, index), so a
 * collective that read another thread's cells, another communicator's or a stale round's
 * data gives a wrong value.  The NODE_SIZE run splits the ranks into simulated nodes, so the
 * node-aware algorithms' node-local halves run on the threads' communicators too.
 */
#include <mpi.h>
#include "check.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NT 4
#define ROUNDS 60
#define BIG_DOUBLES (256 * 1024 / 8)

static int rank, size;
static MPI_Comm dup_of[NT];

static double val(int r, int t, int round, long i)
{
    return (double)(r * 1000003L + t * 10007L + round * 101L + i % 9973);
}

/* The number of doubles of round `round`: 1, 16, 1000 or BIG_DOUBLES. */
static long count_of(int round)
{
    static const long counts[] = { 1, 16, 1000, BIG_DOUBLES };
    return counts[round % 4];
}

static void run_round(int t, int round, MPI_Comm c, double *a, double *b, double *big)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    long cnt = count_of(round);
    CHECK_MPI(MPI_Barrier(c));

    /* bcast from a rotating root */
    int root = (round + t) % n;
    for (long i = 0; i < cnt; i++)
        a[i] = me == root ? val(root, t, round, i) : -1;
    CHECK_MPI(MPI_Bcast(a, (int)cnt, MPI_DOUBLE, root, c));
    for (long i = 0; i < cnt; i++)
        if (a[i] != val(root, t, round, i))
            FAIL("thread %d round %d: bcast[%ld] = %g, expected %g", t, round, i, a[i],
                 val(root, t, round, i));

    /* allreduce: the sum over the communicator's ranks */
    for (long i = 0; i < cnt; i++)
        a[i] = val(me, t, round, i);
    CHECK_MPI(MPI_Allreduce(a, b, (int)cnt, MPI_DOUBLE, MPI_SUM, c));
    for (long i = 0; i < cnt; i++) {
        double want = 0;
        for (int r = 0; r < n; r++)
            want += val(r, t, round, i);
        if (b[i] != want)
            FAIL("thread %d round %d: allreduce[%ld] = %g, expected %g", t, round, i, b[i],
                 want);
    }

    /* reduce (MAX) to another rotating root, in place there */
    int rroot = (round * 3 + t + 1) % n;
    for (long i = 0; i < cnt; i++)
        b[i] = val(me, t, round, i);
    CHECK_MPI(MPI_Reduce(me == rroot ? MPI_IN_PLACE : b, b, (int)cnt, MPI_DOUBLE, MPI_MAX,
                         rroot, c));
    if (me == rroot)
        for (long i = 0; i < cnt; i++)
            if (b[i] != val(n - 1, t, round, i))
                FAIL("thread %d round %d: reduce[%ld] = %g, expected %g", t, round, i, b[i],
                     val(n - 1, t, round, i));

    /* allgather of cnt doubles per rank (the big ones only every other round: memory) */
    long gcnt = cnt == BIG_DOUBLES && round % 8 != 3 ? 1000 : cnt;
    for (long i = 0; i < gcnt; i++)
        a[i] = val(me, t, round, i);
    CHECK_MPI(MPI_Allgather(a, (int)gcnt, MPI_DOUBLE, big, (int)gcnt, MPI_DOUBLE, c));
    for (int r = 0; r < n; r++)
        for (long i = 0; i < gcnt; i++)
            if (big[r * gcnt + i] != val(r, t, round, i))
                FAIL("thread %d round %d: allgather block %d [%ld] = %g, expected %g", t,
                     round, r, i, big[r * gcnt + i], val(r, t, round, i));

    /* alltoall: block j of rank r holds val(r, t, round, j * 1000 + i) */
    long acnt = cnt > 1000 ? 1000 : cnt;
    for (int j = 0; j < n; j++)
        for (long i = 0; i < acnt; i++)
            big[j * acnt + i] = val(me, t, round, j * 1000 + i);
    CHECK_MPI(MPI_Alltoall(big, (int)acnt, MPI_DOUBLE, b, (int)acnt, MPI_DOUBLE, c));
    for (int r = 0; r < n; r++)
        for (long i = 0; i < acnt; i++)
            if (b[r * acnt + i] != val(r, t, round, me * 1000 + i))
                FAIL("thread %d round %d: alltoall block %d [%ld] = %g, expected %g", t,
                     round, r, i, b[r * acnt + i], val(r, t, round, me * 1000 + i));
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    size_t room = (size_t)(size > 4 ? size : 4) * BIG_DOUBLES;
    double *a = malloc(room * sizeof(double)), *b = malloc(room * sizeof(double));
    double *big = malloc(room * sizeof(double));
    CHECK(a && b && big, "out of memory");
    /* every rank but the last, in reverse order: a communicator other than the dup's shape */
    MPI_Comm split;
    CHECK_MPI(MPI_Comm_split(dup_of[t], rank == size - 1 ? MPI_UNDEFINED : 0, size - rank,
                             &split));
    for (int round = 0; round < ROUNDS; round++) {
        if (round % 3 != 2)
            run_round(t, round, dup_of[t], a, b, big);
        else if (split != MPI_COMM_NULL)
            run_round(t, round, split, a, b, big);     /* the last rank is not in the split */
        if (round % 4 == 1) {         /* a short-lived communicator: shm state made and freed */
            MPI_Comm tmp;
            CHECK_MPI(MPI_Comm_dup(dup_of[t], &tmp));
            long v = rank + t, sum = -1;
            CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, tmp));
            CHECK(sum == (long)size * (size - 1) / 2 + (long)size * t,
                  "thread %d round %d: allreduce on a fresh duplicate %ld", t, round, sum);
            CHECK_MPI(MPI_Comm_free(&tmp));
        }
    }
    if (split != MPI_COMM_NULL) {
        int n;
        MPI_Comm_size(split, &n);
        CHECK(n == size - 1, "thread %d: split has %d ranks, expected %d", t, n, size - 1);
        CHECK_MPI(MPI_Comm_free(&split));
    }
    free(a);
    free(b);
    free(big);
    return NULL;
}

int main(int argc, char **argv)
{
    int level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave level %d", level);
    for (int t = 0; t < NT; t++)      /* a copy of the world: same ranks, same order */
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 7, rank, &dup_of[t]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++)
        CHECK_MPI(MPI_Comm_free(&dup_of[t]));
    /* and the world communicator's collectives still agree afterwards */
    long v = rank, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == (long)size * (size - 1) / 2, "world allreduce %ld", sum);
    MPI_Finalize();
    return 0;
}

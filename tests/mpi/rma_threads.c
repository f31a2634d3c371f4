/* mempi-test: np=1,2,3,5 timeout=300 */
/* mempi-test: np=2,3 timeout=180 env=MEMPI_CMA=0 */
/* rma_threads.c -- one-sided communication under MPI_THREAD_MULTIPLE: a window per thread, and threads sharing one window under lock_all + flush.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Part 1: each of NT threads of every rank owns a duplicate of MPI_COMM_WORLD, creates a
 * window on it (the threads' collective calls run concurrently, on different
 * communicators), runs fence, lock and PSCW epochs on it (put to the right neighbour, get
 * from the left, accumulate into rank 0), checks the results, and frees it.  Thread t
 * creates its window with a different flavor (allocate, create, dynamic), so the windows'
 * creation, synchronisation and freeing interleave across flavors.
 *
 * Part 2: one window, one lock_all epoch opened by the main thread; NT threads of every rank
 * at once take tickets from a counter on rank 0 (MPI_Fetch_and_op + MPI_Win_flush, the flush
 * of one thread also completing other threads' operations, which is allowed), put into
 * their own slot at every rank, flush, and read the slot back with MPI_Rget + MPI_Wait.
 * Checked: the counter ends at P * NT * ITERS, the tickets are unique, every slot holds what
 * its thread put last.
 *
 * Part 3: every thread again on a communicator of its own, with an allocate window of 2 x 256
 * KiB per rank: in a lock_all epoch it puts 256 KiB (a pattern of rank, thread and round) into
 * the right neighbour's first half, gets the left neighbour's second half, flushes, and after
 * a barrier checks what arrived in its own first half and what it read -- large transfers of
 * several threads at once, which MemPI moves without its big lock when the window memory is
 * mapped (under MemPI on one node the counter mempi_unlocked_rma_copies must move).
 */
#include "rma_common.h"
#include "counters.h"
#include <pthread.h>

static int me, np;
enum { NT = 4, ITERS = 40 };
static MPI_Comm comms[NT];

static void *own_window(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm comm = comms[t];
    int flavor = t % 3 == 0 ? FL_ALLOCATE : t % 3 == 1 ? FL_CREATE : FL_DYNAMIC;
    rma_win w;
    rma_win_open(&w, flavor, (np + 2) * sizeof(long), sizeof(long), MPI_INFO_NULL, comm);
    long *mem = (long *)w.base;
    RMA_LOCAL_BEGIN(&w, me);
    for (int i = 0; i < np + 2; i++) mem[i] = 0;
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(comm));
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long v = 1000L * t + me, got = -1, one = t + 1;
    for (int round = 0; round < 3; round++) {
        /* round 0: fence, 1: lock, 2: PSCW; each puts v + round into the right neighbour's slot 0 */
        long pv = v + 100000L * round;
        MPI_Group g, in, out;
        if (round == 0) CHECK_MPI(MPI_Win_fence(0, w.win));
        if (round == 2) {
            CHECK_MPI(MPI_Comm_group(comm, &g));
            CHECK_MPI(MPI_Group_incl(g, 1, &left, &in));
            CHECK_MPI(MPI_Group_incl(g, 1, &right, &out));
            CHECK_MPI(MPI_Win_post(in, 0, w.win));
            CHECK_MPI(MPI_Win_start(out, 0, w.win));
        }
        if (round == 1) CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w.win));
        CHECK_MPI(MPI_Put(&pv, 1, MPI_LONG, right, rma_disp(&w, right, 0), 1, MPI_LONG, w.win));
        if (round == 1) CHECK_MPI(MPI_Win_unlock(right, w.win));
        if (round == 0) CHECK_MPI(MPI_Win_fence(0, w.win));
        if (round == 2) {
            CHECK_MPI(MPI_Win_complete(w.win));
            CHECK_MPI(MPI_Win_wait(w.win));
            MPI_Group_free(&g); MPI_Group_free(&in); MPI_Group_free(&out);
        }
        CHECK_MPI(MPI_Barrier(comm));
        /* the left neighbour's put, read back under a shared lock of the own window */
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
        got = mem[0];
        CHECK_MPI(MPI_Win_unlock(me, w.win));
        CHECK(got == 1000L * t + left + 100000L * round, "thread %d, %s window, round %d: slot 0 = "
              "%ld, expected %ld", t, rma_flavor_name[flavor], round, got,
              1000L * t + left + 100000L * round);
        CHECK_MPI(MPI_Barrier(comm));
    }
    CHECK_MPI(MPI_Win_lock_all(0, w.win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, rma_disp(&w, 0, sizeof(long)), 1, MPI_LONG,
                             MPI_SUM, w.win));
    CHECK_MPI(MPI_Win_unlock_all(w.win));
    CHECK_MPI(MPI_Barrier(comm));
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
        CHECK(mem[1] == (long)np * (t + 1), "thread %d: accumulated %ld, expected %ld", t, mem[1],
              (long)np * (t + 1));
        CHECK_MPI(MPI_Win_unlock(0, w.win));
    }
    CHECK_MPI(MPI_Barrier(comm));
    rma_win_close(&w);
    return NULL;
}

static rma_win shared_w;
static long tickets[NT][ITERS];

static void *shared_window(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Win win = shared_w.win;
    long one = 1;
    for (int i = 0; i < ITERS; i++) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[t][i], MPI_LONG, 0, 0, MPI_SUM, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        int target = (me + t + i) % np;
        long v = (long)me * 1000000L + t * 1000L + i, back = -1;
        MPI_Aint slot = 1 + (MPI_Aint)me * NT + t;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, target, slot, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(target, win));
        MPI_Request req;
        CHECK_MPI(MPI_Rget(&back, 1, MPI_LONG, target, slot, 1, MPI_LONG, win, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(back == v, "thread %d: read back %ld from rank %d slot %ld, expected %ld", t, back,
              target, (long)slot, v);
    }
    return NULL;
}

enum { BIG = 32 * 1024, BIG_ROUNDS = 4 };      /* longs per half window: 256 KiB */

static long pattern(int r, int t, int round, long i)
{
    return (long)r * 100000000L + t * 10000000L + round * 1000000L + i;
}

static void *big_window(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm comm = comms[t];
    int right = (me + 1) % np, left = (me + np - 1) % np;
    rma_win w;
    rma_win_open(&w, FL_ALLOCATE, 2 * BIG * (MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL,
                 comm);
    long *mem = (long *)w.base, *out = malloc(sizeof(long) * BIG), *in = malloc(sizeof(long) * BIG);
    CHECK(out && in, "out of memory");
    for (int round = 0; round < BIG_ROUNDS; round++) {
        RMA_LOCAL_BEGIN(&w, me);
        for (long i = 0; i < BIG; i++) {
            mem[i] = -1;
            mem[BIG + i] = pattern(me, t, round, i) + 7;
        }
        RMA_LOCAL_END(&w, me);
        for (long i = 0; i < BIG; i++)
            out[i] = pattern(me, t, round, i);
        CHECK_MPI(MPI_Barrier(comm));
        CHECK_MPI(MPI_Win_lock_all(0, w.win));
        CHECK_MPI(MPI_Put(out, BIG, MPI_LONG, right, 0, BIG, MPI_LONG, w.win));
        CHECK_MPI(MPI_Get(in, BIG, MPI_LONG, left, BIG, BIG, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_flush_all(w.win));
        CHECK_MPI(MPI_Win_unlock_all(w.win));
        CHECK_MPI(MPI_Barrier(comm));
        for (long i = 0; i < BIG; i++)
            if (in[i] != pattern(left, t, round, i) + 7)
                FAIL("thread %d round %d: got [%ld] = %ld from rank %d, expected %ld", t, round, i,
                     in[i], left, pattern(left, t, round, i) + 7);
        RMA_LOCAL_BEGIN(&w, me);
        for (long i = 0; i < BIG; i++)
            if (mem[i] != pattern(left, t, round, i))
                FAIL("thread %d round %d: put from rank %d left [%ld] = %ld, expected %ld", t,
                     round, left, i, mem[i], pattern(left, t, round, i));
        RMA_LOCAL_END(&w, me);
        CHECK_MPI(MPI_Barrier(comm));
    }
    free(out);
    free(in);
    rma_win_close(&w);
    return NULL;
}

/* MemPI's counter mempi_unlocked_rma_copies of this rank, across the run of f on NT threads. */
static unsigned long long run_counted(void *(*f)(void *))
{
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    unsigned long long v = 0;
    pthread_t th[NT];
    int counted = rma_lib() == RMA_MEMPI;
    if (counted) {
        counters_open();
        h = counter_start("mempi_unlocked_rma_copies");
    }
    for (int t = 0; t < NT; t++)
        CHECK(!pthread_create(&th[t], NULL, f, (void *)(intptr_t)t), "pthread_create");
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    if (counted) {
        v = counter_read(h);
        counters_close();
    }
    return v;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, not MPI_THREAD_MULTIPLE",
          provided);
    pthread_t th[NT];

    for (int t = 0; t < NT; t++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
        CHECK_MPI(MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN));
    }
    for (int t = 0; t < NT; t++)
        CHECK(!pthread_create(&th[t], NULL, own_window, (void *)(intptr_t)t), "pthread_create");
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_free(&comms[t]));

    long n = 1 + (long)np * NT;
    rma_win_open(&shared_w, FL_ALLOCATE, n * (MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL,
                 MPI_COMM_WORLD);
    RMA_LOCAL_BEGIN(&shared_w, me);
    memset(shared_w.base, 0, (size_t)n * sizeof(long));
    RMA_LOCAL_END(&shared_w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock_all(0, shared_w.win));
    for (int t = 0; t < NT; t++)
        CHECK(!pthread_create(&th[t], NULL, shared_window, (void *)(intptr_t)t), "pthread_create");
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    CHECK_MPI(MPI_Win_unlock_all(shared_w.win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    long total = (long)np * NT * ITERS, *all = me == 0 ? malloc(sizeof(long) * total) : NULL;
    CHECK_MPI(MPI_Gather(tickets, NT * ITERS, MPI_LONG, all, NT * ITERS, MPI_LONG, 0, MPI_COMM_WORLD));
    RMA_LOCAL_BEGIN(&shared_w, me);
    long *mem = (long *)shared_w.base;
    if (me == 0) {
        CHECK(mem[0] == total, "shared counter %ld, expected %ld", mem[0], total);
        char *seen = calloc((size_t)total, 1);
        for (long i = 0; i < total; i++) {
            CHECK(all[i] >= 0 && all[i] < total && !seen[all[i]], "ticket %ld out of range or "
                  "given twice", all[i]);
            seen[all[i]] = 1;
        }
        free(seen);
        free(all);
    }
    /* slot of (rank r, thread t) here holds its last put aimed at this rank, if any */
    for (int r = 0; r < np; r++)
        for (int t = 0; t < NT; t++) {
            long want = 0;
            for (int i = 0; i < ITERS; i++)
                if ((r + t + i) % np == me) want = (long)r * 1000000L + t * 1000L + i;
            CHECK(mem[1 + r * NT + t] == want, "slot of rank %d thread %d: %ld, expected %ld", r, t,
                  mem[1 + r * NT + t], want);
        }
    RMA_LOCAL_END(&shared_w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rma_win_close(&shared_w);

    for (int t = 0; t < NT; t++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
        CHECK_MPI(MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN));
    }
    unsigned long long unlocked = run_counted(big_window);
    for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_free(&comms[t]));
    if (rma_lib() == RMA_MEMPI && rma_all_on_one_node(MPI_COMM_WORLD))
        CHECK(unlocked > 0, "no put or get moved without the big lock");
    if (me == 0)
        printf("rma_threads: %d threads x %d ranks, own windows, a shared window and large transfers passed\n", NT, np);
    MPI_Finalize();
    return 0;
}

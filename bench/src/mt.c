/* mt.c -- multi-threaded latency and message rate under MPI_THREAD_MULTIPLE.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Ranks are paired as in the other point-to-point programs (rank r with r + nprocs/2).  Each
 * rank runs T threads (1, 2, 4 by default; --threads N for one count), and thread t of a pair
 * talks to thread t of the partner on a communicator of its own (MPI_Comm_dup of
 * MPI_COMM_WORLD per thread), so the threads have nothing to match against each other.
 *
 *   mt_lat_T<n>   one-way latency (us): every thread ping-pongs `size` bytes with
 *                 MPI_Send/MPI_Recv; the time of a round trip of all threads at once, / 2;
 *   mt_rate_T<n>  messages per second of the rank pair: every thread sends a window of
 *                 WINDOW 8-byte MPI_Isend, its partner receives them with MPI_Irecv, both
 *                 MPI_Waitall, and a 0-byte reply closes the window; all threads' messages
 *                 count.
 *
 *   mt_busy_T2    parallel progress: how many 8-byte messages per second (million) thread 1
 *                 of the first rank exchanges with itself (MPI_Sendrecv on its own
 *                 communicator) while thread 0 of the same rank moves BUSY_BYTES messages back
 *                 and forth with its partner the whole time.  A library that holds one lock
 *                 through a large copy stops thread 1 for it; one that lets threads on
 *                 different communicators progress in parallel does not.  Thread 1 counts
 *                 from the end of thread 0's first transfer until thread 0 finished
 *                 BUSY_ROUNDS more and BUSY_SECONDS passed (the first byte of each large
 *                 message tells the partner whether it is the last); the partner's thread 1
 *                 idles.  The median of BUSY_SAMPLES samples is printed.
 *   mt_busypeer_T2  as mt_busy_T2, but thread 1 of the first rank ping-pongs 8 bytes with the
 *                 partner's thread 1 (their own communicator) while the two threads 0 move
 *                 the large messages between the same two processes, each receive posted
 *                 before the send that precedes it: million messages per second (two per
 *                 round trip).  A library that keeps one order per pair of processes makes a
 *                 small message wait behind a large one queued before it to the same peer
 *                 (a remote write into the posted receive); one that orders per
 *                 communicator does not.
 *   mt_busycoll_T2  as mt_busy_T2, while thread 0 of every rank runs MPI_Allreduce of
 *                 BUSY_BYTES (doubles, MPI_SUM) on its communicator instead: the collective's copies
 *                 and folds against thread 1's small messages (element 0 of the first
 *                 ranks' input carries "last").
 *
 *   mt_self_T<n>  (--self only; meant for one rank) parallel progress inside one process:
 *                 every thread sends 8 bytes to its own rank with MPI_Send and receives them
 *                 with MPI_Recv, on its own communicator; messages per second of all the
 *                 rank's threads.  With a core per thread, a library whose threads on
 *                 different communicators progress in parallel gains from the second thread;
 *                 one that serializes them does not.
 *   mt_selfrate_T<n>  (--self only) the same with nonblocking calls: every thread posts
 *                 SELF_WINDOW 8-byte MPI_Irecv from its own rank, then SELF_WINDOW MPI_Isend to
 *                 it, then one MPI_Waitall over all of them; messages per second of all the
 *                 rank's threads.  --self-rate measures only this point (MPICH's MPI_Send
 *                 to self waits for the receive, so mt_self cannot run there).
 *
 * --level single runs under MPI_THREAD_SINGLE (T = 1 only): the baseline that the one-thread
 * MPI_THREAD_MULTIPLE figure is compared with.  Each sample lines the threads up on a
 * pthread barrier after an MPI_Barrier of the main threads; the median of the samples is
 * printed in the format of bench.h (name size value unit).
 */
#include "bench.h"
#include <pthread.h>
#include <sched.h>

#define MAX_THREADS 16
#define WINDOW 64
#define SELF_WINDOW 16
#define BUSY_BYTES (4L << 20)
#define BUSY_ROUNDS 10
#define BUSY_SECONDS 0.1
#define BUSY_SAMPLES 5

enum { LAT, RATE, BUSY, BUSY_PEER, BUSY_COLL, SELF, SELF_RATE };

static struct {
    int nthreads, mode, quit;
    int busy_stop;                     /* mt_busy: thread 1 is done (atomic accesses) */
    long busy_rounds;                  /* transfers thread 0 finished (atomic accesses) */
    double busy_rate;                  /* thread 1's exchanges, million per second */
    char *big, *big_out;
    long size, iters;
    bench_pair pair;
    MPI_Comm comm[MAX_THREADS];
    char *buf[MAX_THREADS];
    pthread_barrier_t go, done;
} job;

static void lat(int t, long iters)
{
    MPI_Comm c = job.comm[t];
    char *b = job.buf[t];
    int n = (int)job.size, p = job.pair.partner;
    for (long i = 0; i < iters; i++) {
        if (job.pair.first) {
            MPI_Send(b, n, MPI_BYTE, p, 1, c);
            MPI_Recv(b, n, MPI_BYTE, p, 1, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, n, MPI_BYTE, p, 1, c, MPI_STATUS_IGNORE);
            MPI_Send(b, n, MPI_BYTE, p, 1, c);
        }
    }
}

/* mt_self: thread t sends 8 bytes to its own rank and receives them, on its own
 * communicator. */
static void self_exchange(int t, long iters)
{
    MPI_Comm c = job.comm[t];
    char *b = job.buf[t];
    for (long i = 0; i < iters; i++) {
        MPI_Send(b, 8, MPI_BYTE, bench.rank, 5, c);
        MPI_Recv(b + 8, 8, MPI_BYTE, bench.rank, 5, c, MPI_STATUS_IGNORE);
    }
}

/* mt_selfrate: windows of nonblocking messages from thread t to its own rank. */
static void self_rate(int t, long iters)
{
    MPI_Comm c = job.comm[t];
    char *b = job.buf[t];
    MPI_Request r[2 * SELF_WINDOW];
    for (long i = 0; i < iters; i++) {
        for (int w = 0; w < SELF_WINDOW; w++)
            MPI_Irecv(b + 8 * (SELF_WINDOW + w), 8, MPI_BYTE, bench.rank, 4, c, &r[w]);
        for (int w = 0; w < SELF_WINDOW; w++)
            MPI_Isend(b + 8 * w, 8, MPI_BYTE, bench.rank, 4, c, &r[SELF_WINDOW + w]);
        MPI_Waitall(2 * SELF_WINDOW, r, MPI_STATUSES_IGNORE);
    }
}

static void rate(int t, long iters)
{
    MPI_Comm c = job.comm[t];
    char *b = job.buf[t];
    int p = job.pair.partner;
    MPI_Request r[WINDOW];
    for (long i = 0; i < iters; i++) {
        if (job.pair.first) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(b + 8 * w, 8, MPI_BYTE, p, 2, c, &r[w]);
            MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, p, 3, c, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(b + 8 * w, 8, MPI_BYTE, p, 2, c, &r[w]);
            MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, p, 3, c);
        }
    }
}

/* A receive of a large message: blocking, or (prepost) posted before the caller's own send so
 * that the sender finds it posted. */
static void big_recv_start(int prepost, MPI_Request *rq)
{
    if (prepost)
        MPI_Irecv(job.big_out, (int)BUSY_BYTES, MPI_BYTE, job.pair.partner, 4, job.comm[0], rq);
}

static void big_recv_end(int prepost, MPI_Request *rq)
{
    if (prepost) {
        MPI_Wait(rq, MPI_STATUS_IGNORE);
        job.big[0] = job.big_out[0];
    } else {
        MPI_Recv(job.big, (int)BUSY_BYTES, MPI_BYTE, job.pair.partner, 4, job.comm[0],
                 MPI_STATUS_IGNORE);
    }
}

/* mt_busy, thread 0: large messages back and forth until thread 1 of the first rank is done;
 * the first byte of each message tells the partner whether it is the last.  prepost: each
 * receive is posted before the send that precedes it (mt_busypeer). */
static void busy_stream(int prepost)
{
    MPI_Comm c = job.comm[0];
    int p = job.pair.partner;
    MPI_Request rq;
    for (;;) {
        if (job.pair.first) {
            job.big[0] = (char)__atomic_load_n(&job.busy_stop, __ATOMIC_ACQUIRE);
            int last = job.big[0];
            big_recv_start(prepost, &rq);
            MPI_Send(job.big, (int)BUSY_BYTES, MPI_BYTE, p, 4, c);
            big_recv_end(prepost, &rq);
            __atomic_add_fetch(&job.busy_rounds, 1, __ATOMIC_RELEASE);
            if (last)
                return;
        } else {
            big_recv_start(prepost, &rq);
            big_recv_end(prepost, &rq);
            int last = job.big[0];
            MPI_Send(job.big, (int)BUSY_BYTES, MPI_BYTE, p, 4, c);
            if (last)
                return;
        }
    }
}

/* mt_busycoll, thread 0: large allreduces until thread 1 of a first rank is done. */
static void busy_allreduce(void)
{
    double *in = (double *)job.big, *out = (double *)job.big_out;
    int n = (int)(BUSY_BYTES / sizeof(double));
    for (;;) {
        in[0] = job.pair.first ? (double)__atomic_load_n(&job.busy_stop, __ATOMIC_ACQUIRE) : 0;
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, job.comm[0]);
        __atomic_add_fetch(&job.busy_rounds, 1, __ATOMIC_RELEASE);
        if (out[0] > 0)
            return;
    }
}

/* mt_busy, thread 1 of the first rank: 8-byte exchanges with itself on its own communicator
 * while thread 0's transfers run (see the top); the partner's thread 1 has nothing to do. */
static void busy_self(int t)
{
    MPI_Comm c = job.comm[t];
    char *b = job.buf[t];
    if (!job.pair.first)
        return;
    while (__atomic_load_n(&job.busy_rounds, __ATOMIC_ACQUIRE) < 1)
        sched_yield();
    long r0 = __atomic_load_n(&job.busy_rounds, __ATOMIC_ACQUIRE), iters = 0;
    double t0 = MPI_Wtime(), t1 = t0;
    for (;;) {
        MPI_Sendrecv(b, 8, MPI_BYTE, bench.rank, 5, b + 8, 8, MPI_BYTE, bench.rank, 5, c,
                     MPI_STATUS_IGNORE);
        iters++;
        if ((iters & 63) == 0) {
            t1 = MPI_Wtime();
            if (__atomic_load_n(&job.busy_rounds, __ATOMIC_ACQUIRE) >= r0 + BUSY_ROUNDS &&
                t1 - t0 >= BUSY_SECONDS)
                break;
        }
    }
    job.busy_rate = (double)iters / (t1 - t0) / 1e6;
    __atomic_store_n(&job.busy_stop, 1, __ATOMIC_RELEASE);
}

/* mt_busypeer, thread 1: 8-byte round trips with the partner's thread 1 while thread 0's
 * transfers run; the first byte of a message tells the partner whether it is the last. */
static void busy_peer(int t)
{
    MPI_Comm c = job.comm[t];
    char *b = job.buf[t];
    int p = job.pair.partner;
    if (!job.pair.first) {
        do {
            MPI_Recv(b, 8, MPI_BYTE, p, 6, c, MPI_STATUS_IGNORE);
            MPI_Send(b, 8, MPI_BYTE, p, 6, c);
        } while (!b[0]);
        return;
    }
    while (__atomic_load_n(&job.busy_rounds, __ATOMIC_ACQUIRE) < 1)
        sched_yield();
    long r0 = __atomic_load_n(&job.busy_rounds, __ATOMIC_ACQUIRE), iters = 0;
    double t0 = MPI_Wtime(), t1 = t0;
    for (int last = 0; !last;) {
        if ((iters & 63) == 63) {
            t1 = MPI_Wtime();
            last = __atomic_load_n(&job.busy_rounds, __ATOMIC_ACQUIRE) >= r0 + BUSY_ROUNDS &&
                   t1 - t0 >= BUSY_SECONDS;
        }
        b[0] = (char)last;
        MPI_Send(b, 8, MPI_BYTE, p, 6, c);
        MPI_Recv(b, 8, MPI_BYTE, p, 6, c, MPI_STATUS_IGNORE);
        iters++;
    }
    job.busy_rate = 2.0 * (double)(iters - 1) / (t1 - t0) / 1e6;
    __atomic_store_n(&job.busy_stop, 1, __ATOMIC_RELEASE);
}

static void work(int t)
{
    if ((job.mode == SELF || job.mode == SELF_RATE) && t < job.nthreads) {
        if (job.mode == SELF)
            self_exchange(t, job.iters);
        else
            self_rate(t, job.iters);
        return;
    }
    if (job.pair.partner < 0 || t >= job.nthreads)
        return;
    if (job.mode == BUSY || job.mode == BUSY_PEER || job.mode == BUSY_COLL) {
        if (t == 0 && job.mode != BUSY_COLL)
            busy_stream(job.mode == BUSY_PEER);
        else if (t == 0)
            busy_allreduce();
        else if (job.mode == BUSY_PEER)
            busy_peer(t);
        else
            busy_self(t);
        return;
    }
    if (job.mode == LAT)
        lat(t, job.iters);
    else
        rate(t, job.iters);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mt_busy_T2 / mt_busypeer_T2 / mt_busycoll_T2 (two threads): thread 1's rate under thread
 * 0's large transfers (modes BUSY, BUSY_PEER) or allreduces (BUSY_COLL). */
static void measure_busy(int mode, const char *name)
{
    double v[BUSY_SAMPLES];
    job.mode = mode;
    job.size = 8;
    for (int k = 0; k < BUSY_SAMPLES; k++) {
        job.busy_stop = 0;
        job.busy_rounds = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        pthread_barrier_wait(&job.go);
        work(0);
        pthread_barrier_wait(&job.done);
        v[k] = job.busy_rate;
    }
    qsort(v, BUSY_SAMPLES, sizeof v[0], cmp_double);
    bench_report(name, 8, v[BUSY_SAMPLES / 2], "Mmsg/s");
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (;;) {
        pthread_barrier_wait(&job.go);
        if (job.quit)
            break;
        work(t);
        pthread_barrier_wait(&job.done);
    }
    return NULL;
}

/* One sample with all threads of every rank (bench_sample's shape, threads added). */
static void sample_op(void *ctx, long iters)
{
    (void)ctx;
    job.iters = iters;
    pthread_barrier_wait(&job.go);
    work(0);
    pthread_barrier_wait(&job.done);
}

int main(int argc, char **argv)
{
    const char *level = bench_option(argc, argv, "--level");
    int single = level && !strcmp(level, "single");
    int provided;
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
    if (!single && provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "mt: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* bench_init's option parsing without its MPI_Init */
    MPI_Comm_rank(MPI_COMM_WORLD, &bench.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench.nprocs);
    bench.target = 0.2;
    bench.max_size = 4L << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) bench.quick = 1;
        else if (!strcmp(argv[i], "--target") && i + 1 < argc) bench.target = atof(argv[++i]);
    }
    bench.start = MPI_Wtime();
    const char *only = bench_option(argc, argv, "--threads");
    int self_only = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--self"))
            self_only = 1;
        else if (!strcmp(argv[i], "--self-rate"))
            self_only = 2;
    int counts[3] = { 1, 2, 4 }, ncounts = single ? 1 : 3;
    if (only) {
        counts[0] = atoi(only);
        ncounts = 1;
    }
    int most = 1;
    for (int i = 0; i < ncounts; i++) {
        if (counts[i] < 1 || counts[i] > MAX_THREADS || (single && counts[i] != 1)) {
            fprintf(stderr, "mt: bad thread count %d\n", counts[i]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (counts[i] > most) most = counts[i];
    }
    if (bench.rank == 0)
        printf("# nprocs %d target %.3f s level %s\n", bench.nprocs, bench.target,
               single ? "single" : "multiple");
    job.pair = bench_pairing();
    for (int t = 0; t < most; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &job.comm[t]);
        job.buf[t] = bench_alloc(8 * WINDOW + 64);
    }
    static const long sizes[] = { 0, 8, 64 };
    for (int ci = 0; ci < ncounts; ci++) {
        int n = counts[ci];
        pthread_t th[MAX_THREADS];
        job.nthreads = n;
        job.quit = 0;
        pthread_barrier_init(&job.go, NULL, (unsigned)n);
        pthread_barrier_init(&job.done, NULL, (unsigned)n);
        for (int t = 1; t < n; t++)
            pthread_create(&th[t], NULL, worker, (void *)(long)t);
        char name[32];
        if (self_only) {
            job.mode = SELF;
            snprintf(name, sizeof name, "mt_self_T%d", n);
            if (self_only == 1)         /* not with --self-rate */
                bench_report(name, 8, (double)n / bench_measure(sample_op, NULL) / 1e6,
                             "Mmsg/s");
            job.mode = SELF_RATE;
            snprintf(name, sizeof name, "mt_selfrate_T%d", n);
            bench_report(name, 8, (double)n * SELF_WINDOW / bench_measure(sample_op, NULL) / 1e6,
                         "Mmsg/s");
            goto next;
        }
        job.mode = LAT;
        snprintf(name, sizeof name, "mt_lat_T%d", n);
        for (int s = 0; s < 3; s++) {
            job.size = sizes[s];
            bench_report(name, sizes[s], bench_measure(sample_op, NULL) / 2 * 1e6, "us");
        }
        job.mode = RATE;
        snprintf(name, sizeof name, "mt_rate_T%d", n);
        double t = bench_measure(sample_op, NULL);
        bench_report(name, 8, (double)n * WINDOW / t / 1e6, "Mmsg/s");
        if (n == 2) {
            job.big = bench_alloc((size_t)BUSY_BYTES);
            job.big_out = bench_alloc((size_t)BUSY_BYTES);
            measure_busy(BUSY, "mt_busy_T2");
            measure_busy(BUSY_PEER, "mt_busypeer_T2");
            measure_busy(BUSY_COLL, "mt_busycoll_T2");
            free(job.big);
            free(job.big_out);
        }
    next:
        job.quit = 1;
        pthread_barrier_wait(&job.go);
        for (int t2 = 1; t2 < n; t2++)
            pthread_join(th[t2], NULL);
        pthread_barrier_destroy(&job.go);
        pthread_barrier_destroy(&job.done);
    }
    for (int t = 0; t < most; t++) {
        MPI_Comm_free(&job.comm[t]);
        free(job.buf[t]);
    }
    MPI_Finalize();
    return 0;
}

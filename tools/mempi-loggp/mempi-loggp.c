/* mempi-loggp.c -- measure LogGP (and two-tier LoGH{sSP}) parameters of any MPI per send mode.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Method: Al-Tawil and Moritz, "Performance Modeling and Evaluation of MPI"
 * (shared/papers/002), Figure 2.  Two ranks P1 and P2 exchange one message
 * each way per repetition:
 *
 *   P1: barrier; t11 = time(Send[mode]);  barrier; wait delta; t12 = time(Receive)
 *   P2: barrier; t21 = time(Receive);     barrier;             t22 = time(Send[mode])
 *
 * for the eight send modes (standard, synchronous, buffered, ready; blocking
 * and nonblocking) and sizes 0 B .. 4 MiB, after 10 warm-up repetitions and
 * with at least 600 measured ones.  Nonblocking operations are completed
 * with an MPI_Test loop outside the timers, as in the paper.
 *
 *   o_s = t11: the time P1 is busy in the send call.  For the local modes
 *         this is the software overhead; for the blocking synchronous send
 *         it includes waiting for the match (the paper's "non-local" case).
 *   o_r = t12: the receive call started after P1 waited delta (twice the
 *         measured one-way time of that size plus 2 us), so no idle waiting
 *         for the message is included ("delayed receive").  For nonblocking
 *         modes the timer covers MPI_Irecv only.
 *   L   = t21 - t12 - o_s(isend), from the blocking synchronous mode at
 *         sizes <= 64 B: the paper's latency bound (receive time including
 *         the wait for the first message minus the receive overhead), less
 *         the injection overhead it still contains.  Reported per mode too.
 *   g   = gap per message of a burst of K back-to-back sends of that mode
 *         into pre-posted receives (LogP's g, measured instead of being
 *         approximated by o_s).
 *   G   = slope of g(k) over k >= 64 KiB (median of the pairwise slopes,
 *         robust to one disturbed point): time per byte of long messages;
 *         1/G is the long-message bandwidth.
 *
 * The barrier is a two-party barrier with a root (the root receives the
 * partner's arrival and releases it), so the root leaves it about one
 * latency before the partner.  Every experiment runs once with P1 as root
 * and once with P2 as root and the two medians are averaged, which cancels
 * that skew (the paper's "root swap").  Ready mode needs the receive posted
 * before the send: there the receive is pre-posted before the barrier and
 * the timed "receive" is its completion (MPI_Wait, or one MPI_Test).
 *
 * Validation: the one-way time of a standard blocking ping-pong is measured
 * per size and compared with the LogGP prediction o_s + L + o_r + (k-1)G
 * (small-message o_s, o_r of the standard nonblocking mode), with the error.
 *
 * Two tiers: ranks are grouped into nodes by MPI_Get_processor_name (or
 * --ranks-per-node N).  With several nodes the measurement runs on an
 * intra-node pair and on an inter-node pair and prints the LoGH{sSP}
 * parameters: s_s, s_r, S inside a node; o_s, o_r, L, G between nodes.
 *
 * --modes a,b,... limits the send modes (isend and ssend are always kept);
 * a library that refuses MPI_Buffer_attach loses only the buffered modes.
 * --raw FILE writes every number in a line format read by loggp_plot.py;
 * --tune FILE writes a "key = value" MEMPI_TUNING file (derivation in
 * tools/mempi-loggp/README.md and in write_tuning() below).
 *
 * Uses MPI-1 calls only, so it builds against any MPI.
 */
#define _GNU_SOURCE
#include <mpi.h>
/* GCC takes MPI_STATUSES_IGNORE, a sentinel pointer, for a zero-size array */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 100
#define TAG_BARRIER 101
#define TAG_RESULT 102
#define MAX_SIZES 32
#define WARMUP 10
#define BURST_BYTES (8L << 20)      /* bursts stay near cache size, like a ping-pong */

typedef enum { MODE_STANDARD, MODE_SYNCHRONOUS, MODE_BUFFERED, MODE_READY } send_kind;

typedef struct send_mode {
    const char *name;
    send_kind kind;
    int nonblocking;
} send_mode;

static const send_mode modes[] = {
    {"send", MODE_STANDARD, 0},  {"ssend", MODE_SYNCHRONOUS, 0},
    {"bsend", MODE_BUFFERED, 0}, {"rsend", MODE_READY, 0},
    {"isend", MODE_STANDARD, 1}, {"issend", MODE_SYNCHRONOUS, 1},
    {"ibsend", MODE_BUFFERED, 1}, {"irsend", MODE_READY, 1},
};
#define NMODES 8
#define MODE_ISEND 4
#define MODE_SSEND 1

/* Modes measured (--modes, and buffered modes drop out when the library
 * refuses MPI_Buffer_attach).  isend and ssend are always on: L and the
 * model need them. */
static int mode_enabled[NMODES] = {1, 1, 1, 1, 1, 1, 1, 1};

/* Timers of one (mode, size) experiment, averaged over the two roots. */
typedef struct timers {
    double t11, t12, t21, t22, gap;
} timers;

/* Everything measured on one pair of ranks. */
typedef struct pair_result {
    int a, b;                           /* P1 and P2 */
    int nsizes;
    long sizes[MAX_SIZES];
    timers t[NMODES][MAX_SIZES];
    double pingpong[MAX_SIZES];         /* measured one-way time, s */
    double L;                           /* s */
    double L_bound;                     /* the paper's bound t21 - t12, s */
    double G[NMODES];                   /* s per byte */
} pair_result;

typedef struct options {
    int quick, reps, ranks_per_node;
    const char *raw, *tune, *modes;
    long max_size;
} options;

static int my_rank, nprocs;
static char *sbuf, *rbuf;

/* ---- small helpers -------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void spin_wait(double seconds)
{
    double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until) {
    }
}

static void complete(MPI_Request *req)
{
    int done = 0;
    while (!done) MPI_Test(req, &done, MPI_STATUS_IGNORE);
}

/* Two-party barrier with a root: the root leaves first. */
static void pair_barrier(int peer, int i_am_root)
{
    char c = 0;
    if (i_am_root) {
        MPI_Recv(&c, 0, MPI_BYTE, peer, TAG_BARRIER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&c, 0, MPI_BYTE, peer, TAG_BARRIER, MPI_COMM_WORLD);
    } else {
        MPI_Send(&c, 0, MPI_BYTE, peer, TAG_BARRIER, MPI_COMM_WORLD);
        MPI_Recv(&c, 0, MPI_BYTE, peer, TAG_BARRIER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Start (nonblocking) or perform (blocking) a send of the given mode. */
static void send_start(const send_mode *m, const char *buf, long size, int peer, MPI_Request *req)
{
    int n = (int)size;
    *req = MPI_REQUEST_NULL;
    if (m->nonblocking) {
        switch (m->kind) {
        case MODE_STANDARD: MPI_Isend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, req); break;
        case MODE_SYNCHRONOUS: MPI_Issend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, req); break;
        case MODE_BUFFERED: MPI_Ibsend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, req); break;
        case MODE_READY: MPI_Irsend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, req); break;
        }
    } else {
        switch (m->kind) {
        case MODE_STANDARD: MPI_Send(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD); break;
        case MODE_SYNCHRONOUS: MPI_Ssend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD); break;
        case MODE_BUFFERED: MPI_Bsend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD); break;
        case MODE_READY: MPI_Rsend(buf, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD); break;
        }
    }
}

/* Timed send: the time inside the send call; completion is not timed. */
static double timed_send(const send_mode *m, long size, int peer)
{
    MPI_Request req;
    double t0 = MPI_Wtime();
    send_start(m, sbuf, size, peer, &req);
    double t = MPI_Wtime() - t0;
    if (m->nonblocking) complete(&req);
    return t;
}

/* Pre-post the receive a ready send needs (before the barrier). */
static void ready_prepost(const send_mode *m, long size, int peer, MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    if (m->kind == MODE_READY)
        MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, req);
}

/* Timed receive of the matching kind (see the file comment for ready mode). */
static double timed_recv(const send_mode *m, long size, int peer, MPI_Request *preposted)
{
    double t0, t;
    if (m->kind == MODE_READY) {
        int done = 0;
        t0 = MPI_Wtime();
        if (m->nonblocking) MPI_Test(preposted, &done, MPI_STATUS_IGNORE);
        else MPI_Wait(preposted, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
        if (!done && m->nonblocking) complete(preposted);
        return t;
    }
    if (m->nonblocking) {
        MPI_Request req;
        t0 = MPI_Wtime();
        MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req);
        t = MPI_Wtime() - t0;
        complete(&req);
        return t;
    }
    t0 = MPI_Wtime();
    MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

/* ---- the measurements ------------------------------------------------------ */

/* Standard blocking ping-pong: one-way time (s), agreed by both sides. */
static double pingpong(int a, int b, long size, int reps)
{
    int peer = my_rank == a ? b : a;
    double *v = malloc(sizeof(double) * reps);
    for (int i = -WARMUP; i < reps; i++) {
        double t0 = MPI_Wtime();
        if (my_rank == a) {
            MPI_Send(sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD);
        }
        if (i >= 0) v[i] = (MPI_Wtime() - t0) / 2;
    }
    double t = median(v, reps);
    free(v);
    MPI_Bcast(&t, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
    return t;
}

/* Figure 2 for one mode, size and barrier root; fills P1's view of the
 * medians of t11, t12, t21, t22 (P2 sends its two to P1). */
static void figure2(int a, int b, const send_mode *m, long size, int reps, double delta, int root,
                    double out[4])
{
    int p1 = my_rank == a, peer = p1 ? b : a;
    double *x = malloc(sizeof(double) * reps), *y = malloc(sizeof(double) * reps);
    MPI_Request pre;
    for (int i = -WARMUP; i < reps; i++) {
        double first, second;
        if (p1) {
            pair_barrier(peer, root == my_rank);
            first = timed_send(m, size, peer);                  /* timer11 */
            ready_prepost(m, size, peer, &pre);
            pair_barrier(peer, root == my_rank);
            spin_wait(delta);
            second = timed_recv(m, size, peer, &pre);          /* timer12 */
        } else {
            ready_prepost(m, size, peer, &pre);
            pair_barrier(peer, root == my_rank);
            first = timed_recv(m, size, peer, &pre);           /* timer21 */
            pair_barrier(peer, root == my_rank);
            second = timed_send(m, size, peer);                 /* timer22 */
        }
        if (i >= 0) { x[i] = first; y[i] = second; }
    }
    double mine[2] = {median(x, reps), median(y, reps)};
    if (p1) {
        double theirs[2];
        MPI_Recv(theirs, 2, MPI_DOUBLE, peer, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        out[0] = mine[0]; out[1] = mine[1]; out[2] = theirs[0]; out[3] = theirs[1];
    } else {
        MPI_Send(mine, 2, MPI_DOUBLE, peer, TAG_RESULT, MPI_COMM_WORLD);
    }
    free(x);
    free(y);
}

/* Gap per message: bursts of K sends of one mode into pre-posted receives. */
static double burst_gap(int a, int b, const send_mode *m, long size, int bursts)
{
    int p1 = my_rank == a, peer = p1 ? b : a;
    int k = size > 0 ? (int)(BURST_BYTES / size) : 32;
    if (k > 32) k = 32;
    if (k < 4) k = 4;
    MPI_Request req[32];
    double *v = malloc(sizeof(double) * bursts);
    for (int r = -2; r < bursts; r++) {
        if (!p1)
            for (int j = 0; j < k; j++)
                MPI_Irecv(rbuf + (size_t)j * size, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req[j]);
        pair_barrier(peer, !p1);     /* P2 is root: P1 leaves last, receives are posted */
        double t0 = MPI_Wtime();
        if (p1) {
            for (int j = 0; j < k; j++) send_start(m, sbuf, size, peer, &req[j]);
            if (m->nonblocking) MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        } else {
            MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        }
        if (r >= 0) v[r] = (MPI_Wtime() - t0) / k;
    }
    double g = median(v, bursts);
    free(v);
    MPI_Bcast(&g, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
    return g;
}

/* Slope of y(x) over the points with x >= xmin, Theil-Sen style (median of
 * the pairwise slopes): one disturbed burst must not make G negative. */
static double slope(const long *x, const double *y, int n, long xmin)
{
    double pair_slopes[MAX_SIZES * MAX_SIZES];
    int m = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (x[i] >= xmin && x[j] > x[i])
                pair_slopes[m++] = (y[j] - y[i]) / (double)(x[j] - x[i]);
    if (m == 0) return n > 0 && x[n - 1] > 0 ? y[n - 1] / x[n - 1] : 0;
    return median(pair_slopes, m);
}

/* Run everything on the pair (a, b); ranks outside the pair only join the
 * Bcasts that publish agreed values. */
static void measure_pair(int a, int b, const options *o, pair_result *res)
{
    int in_pair = my_rank == a || my_rank == b;
    res->a = a;
    res->b = b;
    for (int s = 0; s < res->nsizes; s++) {
        long size = res->sizes[s];
        if (in_pair) res->pingpong[s] = pingpong(a, b, size, o->reps);
        else MPI_Bcast(&res->pingpong[s], 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
        double delta = 2 * res->pingpong[s] + 2e-6;
        for (int mi = 0; mi < NMODES; mi++) {
            timers *t = &res->t[mi][s];
            if (!mode_enabled[mi]) continue;
            if (in_pair) {
                double r1[4] = {0}, r2[4] = {0};
                figure2(a, b, &modes[mi], size, o->reps, delta, a, r1);
                figure2(a, b, &modes[mi], size, o->reps, delta, b, r2);
                t->t11 = (r1[0] + r2[0]) / 2;
                t->t12 = (r1[1] + r2[1]) / 2;
                t->t21 = (r1[2] + r2[2]) / 2;
                t->t22 = (r1[3] + r2[3]) / 2;
                t->gap = burst_gap(a, b, &modes[mi], size, size >= (1L << 20) ? 9 : 21);
            } else {
                MPI_Bcast(&t->gap, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
            }
        }
    }
    /* derived parameters, computed on P1 (rank a) */
    double lsum = 0, bsum = 0;
    int ln = 0;
    for (int s = 0; s < res->nsizes; s++)
        if (res->sizes[s] <= 64) {
            timers *t = &res->t[MODE_SSEND][s];
            lsum += t->t21 - t->t12 - res->t[MODE_ISEND][s].t11;
            bsum += t->t21 - t->t12;
            ln++;
        }
    res->L = ln ? lsum / ln : 0;
    res->L_bound = ln ? bsum / ln : 0;
    if (res->L < 0) res->L = 0;
    for (int mi = 0; mi < NMODES; mi++) {
        double gaps[MAX_SIZES];
        for (int s = 0; s < res->nsizes; s++) gaps[s] = res->t[mi][s].gap;
        res->G[mi] = slope(res->sizes, gaps, res->nsizes, 65536);
    }
}

/* Local memory copy cost in seconds per byte (for --tune). */
static double copy_cost(void)
{
    size_t n = 1 << 20;
    char *x = malloc(n), *y = malloc(n);
    memset(x, 1, n);
    memset(y, 2, n);
    double best = 1;
    for (int r = 0; r < 20; r++) {
        double t0 = MPI_Wtime();
        memcpy(y, x, n);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
        x[r] = y[n - 1 - r];
    }
    free(x);
    free(y);
    return best / n;
}

/* ---- output ---------------------------------------------------------------- */

static int small_index(const pair_result *r)
{
    for (int s = 0; s < r->nsizes; s++)
        if (r->sizes[s] >= 16) return s;
    return 0;
}

static double predict(const pair_result *r, long k)
{
    int s0 = small_index(r);
    const timers *t = &r->t[MODE_ISEND][s0];
    return t->t11 + r->L + t->t12 + (k > 0 ? (k - 1) * r->G[MODE_ISEND] : 0);
}

static void print_summary(FILE *f, const pair_result *r, const char *tier)
{
    int s0 = small_index(r);
    fprintf(f, "LogGP parameters, %s pair: ranks %d and %d (overheads at %ld B, us)\n",
            tier, r->a, r->b, r->sizes[s0]);
    fprintf(f, "  %-7s %9s %9s %9s %10s %11s\n", "mode", "o_s", "o_r", "g", "G(ns/B)", "1/G(MB/s)");
    for (int mi = 0; mi < NMODES; mi++) {
        const timers *t = &r->t[mi][s0];
        double G = r->G[mi];
        if (!mode_enabled[mi]) {
            fprintf(f, "  %-7s %9s %9s %9s %10s %11s  (not measured)\n", modes[mi].name, "-", "-", "-", "-", "-");
            continue;
        }
        fprintf(f, "  %-7s %9.3f %9.3f %9.3f %10.4f %11.0f\n", modes[mi].name, t->t11 * 1e6,
                t->t12 * 1e6, t->gap * 1e6, G * 1e9, G > 0 ? 1e-6 / G : 0.0);
    }
    fprintf(f, "  L = %.3f us (blocking synchronous, sizes <= 64 B; paper's bound t21 - t12 = %.3f us;\n"
               "      0 means below what the timers resolve)\n", r->L * 1e6, r->L_bound * 1e6);
    fprintf(f, "Model validation (%s): one-way ping-pong time, measured vs o_s + L + o_r + (k-1)G\n", tier);
    fprintf(f, "  %10s %12s %12s %8s\n", "size", "measured_us", "predicted_us", "error%");
    for (int s = 0; s < r->nsizes; s++) {
        double m = r->pingpong[s], p = predict(r, r->sizes[s]);
        fprintf(f, "  %10ld %12.3f %12.3f %+8.1f\n", r->sizes[s], m * 1e6, p * 1e6, (p - m) / m * 100);
    }
}

static void print_table(FILE *f, const pair_result *r, const char *tier)
{
    fprintf(f, "# table %s: mode size o_s_us o_r_us t21_us t22_us L_us g_us\n", tier);
    for (int mi = 0; mi < NMODES; mi++)
        for (int s = 0; s < r->nsizes && mode_enabled[mi]; s++) {
            const timers *t = &r->t[mi][s];
            fprintf(f, "%s %-7s %8ld %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", tier, modes[mi].name,
                    r->sizes[s], t->t11 * 1e6, t->t12 * 1e6, t->t21 * 1e6, t->t22 * 1e6,
                    (t->t21 - t->t12 - r->t[MODE_ISEND][s].t11) * 1e6, t->gap * 1e6);
        }
}

static void write_raw(FILE *f, const pair_result *r, const char *tier)
{
    for (int mi = 0; mi < NMODES; mi++) {
        if (!mode_enabled[mi]) continue;
        for (int s = 0; s < r->nsizes; s++) {
            const timers *t = &r->t[mi][s];
            fprintf(f, "%s o_s %s %ld %.6g\n", tier, modes[mi].name, r->sizes[s], t->t11 * 1e6);
            fprintf(f, "%s o_r %s %ld %.6g\n", tier, modes[mi].name, r->sizes[s], t->t12 * 1e6);
            fprintf(f, "%s g %s %ld %.6g\n", tier, modes[mi].name, r->sizes[s], t->gap * 1e6);
        }
        fprintf(f, "%s G %s 0 %.6g\n", tier, modes[mi].name, r->G[mi] * 1e9);
    }
    fprintf(f, "%s L - 0 %.6g\n", tier, r->L * 1e6);
    for (int s = 0; s < r->nsizes; s++)
        fprintf(f, "%s pingpong measured %ld %.6g\n%s pingpong predicted %ld %.6g\n", tier, r->sizes[s],
                r->pingpong[s] * 1e6, tier, r->sizes[s], predict(r, r->sizes[s]) * 1e6);
}

static long round_pow2(double x, long lo, long hi)
{
    long p = lo;
    while (p < hi && p * 2 <= x * 1.414) p *= 2;
    return p;
}

/*
 * Tuning file.  An eager message is copied twice (into the receiver's queue,
 * out of it), a rendezvous one once, but it pays a handshake of about two
 * extra small messages.  With c the copy cost per byte and o_s + L + o_r
 * the small-message one-way time:
 *     eager(k)      = (o_s + L + o_r) + 2kc
 *     rendezvous(k) = 3(o_s + L + o_r) + kc
 * so eager wins below k* = 2(o_s + L + o_r) / c, rounded to a power of two
 * and clamped to [1 KiB, 1 MiB].  Sizes above k* use rendezvous.
 */
static void write_tuning(const char *path, const pair_result *intra, const pair_result *inter, double c)
{
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "mempi-loggp: cannot write %s\n", path); return; }
    const pair_result *tiers[2] = {intra, inter};
    const char *suffix[2] = {"shm", "net"};
    fprintf(f, "# MemPI tuning file written by mempi-loggp (MEMPI_TUNING=%s).\n", path);
    fprintf(f, "# Derivation: eager costs o_s+L+o_r + 2*k*c (two copies), rendezvous\n"
               "# 3*(o_s+L+o_r) + k*c (handshake, one copy); threshold k* = 2*(o_s+L+o_r)/c,\n"
               "# rounded to a power of two in [1 KiB, 1 MiB].  c = %.4f ns/B (memcpy).\n", c * 1e9);
    for (int i = 0; i < 2; i++) {
        const pair_result *r = tiers[i];
        if (!r) continue;
        int s0 = small_index(r);
        const timers *t = &r->t[MODE_ISEND][s0];
        double one_way = t->t11 + r->L + t->t12;
        long k = round_pow2(2 * one_way / c, 1024, 1L << 20);
        /* Sizes above the eager limit go by rendezvous (or by remote write when the
         * receive was posted first), so one number per tier sets both protocols. */
        fprintf(f, "%s = %ld\n", i == 0 ? "MEMPI_EAGER_MAX" : "MEMPI_NET_EAGER_MAX", k);
        fprintf(f, "loggp_o_s_us_%s = %.3f\nloggp_o_r_us_%s = %.3f\nloggp_L_us_%s = %.3f\n",
                suffix[i], t->t11 * 1e6, suffix[i], t->t12 * 1e6, suffix[i], r->L * 1e6);
        fprintf(f, "loggp_G_ns_per_byte_%s = %.5f\n", suffix[i], r->G[MODE_ISEND] * 1e9);
    }
    fclose(f);
}

/* ---- main ------------------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to, "usage: mpiexec -n 2 mempi-loggp [--quick] [--reps N>=600] [--max-size BYTES]\n"
                    "       [--modes send,ssend,bsend,rsend,isend,issend,ibsend,irsend]\n"
                    "       [--ranks-per-node N] [--raw FILE] [--tune FILE]\n");
}

static int parse(int argc, char **argv, options *o)
{
    o->quick = 0; o->reps = 600; o->ranks_per_node = 0; o->raw = NULL; o->tune = NULL; o->modes = NULL;
    o->max_size = 4L << 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--quick")) o->quick = 1;
        else if (!strcmp(a, "--reps") && more) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "--max-size") && more) o->max_size = atol(argv[++i]);
        else if (!strcmp(a, "--ranks-per-node") && more) o->ranks_per_node = atoi(argv[++i]);
        else if (!strcmp(a, "--raw") && more) o->raw = argv[++i];
        else if (!strcmp(a, "--tune") && more) o->tune = argv[++i];
        else if (!strcmp(a, "--modes") && more) o->modes = argv[++i];
        else return -1;
    }
    if (o->modes)
        for (int mi = 0; mi < NMODES; mi++) {
            const char *p = o->modes, *name = modes[mi].name;
            size_t len = strlen(name);
            mode_enabled[mi] = mi == MODE_ISEND || mi == MODE_SSEND;
            for (; (p = strstr(p, name)) != NULL; p += len)
                if ((p == o->modes || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
                    mode_enabled[mi] = 1;
        }
    return o->reps >= 1 ? 0 : -1;
}

/* Attach the Bsend buffer; a library that refuses (not implemented yet)
 * loses the two buffered modes instead of aborting the whole run. */
static void attach_buffer(char *buf, int size)
{
    int ok, all_ok;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ok = MPI_Buffer_attach(buf, size) == MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        mode_enabled[2] = mode_enabled[6] = 0;      /* bsend, ibsend */
        if (my_rank == 0) printf("# MPI_Buffer_attach failed: buffered modes not measured\n");
    }
}

/* Node of each rank: by processor name, or by blocks of ranks_per_node. */
static void find_nodes(int *node, int ranks_per_node)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    if (ranks_per_node > 0) {
        for (int r = 0; r < nprocs; r++) node[r] = r / ranks_per_node;
        return;
    }
    MPI_Get_processor_name(name, &len);
    char *all = malloc((size_t)nprocs * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < nprocs; r++) {
        node[r] = r;
        for (int q = 0; q < r; q++)
            if (!strncmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                         MPI_MAX_PROCESSOR_NAME)) { node[r] = node[q]; break; }
    }
    free(all);
}

int main(int argc, char **argv)
{
    static const long full[] = {0, 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304};
    static const long fast[] = {0, 16, 1024, 16384, 65536, 262144, 1048576};
    options o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (my_rank == 0) usage(stdout);
            MPI_Finalize();
            return 0;
        }
    if (parse(argc, argv, &o) || nprocs < 2) {
        if (my_rank == 0) usage(stderr);
        MPI_Finalize();
        return 2;
    }
    if (o.reps < 600 && my_rank == 0)
        fprintf(stderr, "mempi-loggp: warning: %d repetitions, the method asks for at least 600\n", o.reps);

    int *node = malloc(sizeof(int) * nprocs);
    find_nodes(node, o.ranks_per_node);
    int intra_peer = -1, inter_peer = -1;
    for (int r = 1; r < nprocs; r++) {
        if (node[r] == node[0] && intra_peer < 0) intra_peer = r;
        if (node[r] != node[0] && inter_peer < 0) inter_peer = r;
    }

    /* buffers: a burst of receives (BURST_BYTES, at least 4 messages), and the Bsend buffer */
    sbuf = malloc((size_t)o.max_size + 64);
    rbuf = malloc((size_t)BURST_BYTES + (size_t)4 * o.max_size + 64);
    memset(sbuf, 1, (size_t)o.max_size + 64);
    memset(rbuf, 0, (size_t)BURST_BYTES + (size_t)4 * o.max_size + 64);
    int bsize = (int)(BURST_BYTES + 4 * o.max_size + 64L * MPI_BSEND_OVERHEAD);
    char *bbuf = malloc((size_t)bsize);
    if (mode_enabled[2] || mode_enabled[6]) attach_buffer(bbuf, bsize);

    pair_result *intra = NULL, *inter = NULL;
    const long *list = o.quick ? fast : full;
    int nlist = o.quick ? (int)(sizeof fast / sizeof *fast) : (int)(sizeof full / sizeof *full);
    pair_result *todo[2] = {NULL, NULL};
    int peers[2] = {intra_peer, inter_peer};
    for (int i = 0; i < 2; i++) {
        if (peers[i] < 0) continue;
        pair_result *r = calloc(1, sizeof *r);
        for (int s = 0; s < nlist; s++)
            if (list[s] <= o.max_size) r->sizes[r->nsizes++] = list[s];
        measure_pair(0, peers[i], &o, r);
        todo[i] = r;
    }
    intra = todo[0];
    inter = todo[1];

    if (my_rank == 0) {
        printf("# mempi-loggp: LogGP per send mode (Al-Tawil & Moritz, Figure 2 method)\n");
        printf("# %d ranks, %d repetitions after %d warm-up, barrier root swapped, medians\n",
               nprocs, o.reps, WARMUP);
        if (intra) print_summary(stdout, intra, "intra-node");
        if (inter) print_summary(stdout, inter, "inter-node");
        if (intra && inter) {
            int a = small_index(intra), b = small_index(inter);
            printf("LoGH{sSP} two-tier parameters (us, ns/B)\n");
            printf("  intra-node: s_s = %.3f  s_r = %.3f  S = %.4f ns/B (1/S = %.0f MB/s)\n",
                   intra->t[MODE_ISEND][a].t11 * 1e6, intra->t[MODE_ISEND][a].t12 * 1e6,
                   intra->G[MODE_ISEND] * 1e9, intra->G[MODE_ISEND] > 0 ? 1e-6 / intra->G[MODE_ISEND] : 0);
            printf("  inter-node: o_s = %.3f  o_r = %.3f  L = %.3f  G = %.4f ns/B (1/G = %.0f MB/s)\n",
                   inter->t[MODE_ISEND][b].t11 * 1e6, inter->t[MODE_ISEND][b].t12 * 1e6, inter->L * 1e6,
                   inter->G[MODE_ISEND] * 1e9, inter->G[MODE_ISEND] > 0 ? 1e-6 / inter->G[MODE_ISEND] : 0);
        } else if (intra) {
            printf("LoGH{sSP}: all ranks on one node, so only the intra-node tier (s_s = o_s, s_r = o_r,\n"
                   "  S = G of the isend row above) is measured; run ranks on two nodes for the inter tier.\n");
        } else {
            printf("LoGH{sSP}: one rank per node, so only the inter-node tier (o_s, o_r, L, G above) is\n"
                   "  measured; run two ranks on one node as well for the intra tier.\n");
        }
        if (intra) print_table(stdout, intra, "intra");
        if (inter) print_table(stdout, inter, "inter");
        if (o.raw) {
            FILE *f = fopen(o.raw, "w");
            if (f) {
                if (intra) write_raw(f, intra, "intra");
                if (inter) write_raw(f, inter, "inter");
                fclose(f);
            } else {
                fprintf(stderr, "mempi-loggp: cannot write %s\n", o.raw);
            }
        }
        if (o.tune) write_tuning(o.tune, intra, inter, copy_cost());
    }
    if (mode_enabled[2] || mode_enabled[6]) {
        int dummy;
        char *detached;
        MPI_Buffer_detach(&detached, &dummy);
    }
    free(bbuf);
    free(sbuf);
    free(rbuf);
    free(intra);
    free(inter);
    free(node);
    MPI_Finalize();
    return 0;
}

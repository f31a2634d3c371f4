/* bench.h -- shared timing, size lists, pairing and output for the benchmark programs.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Every benchmark program in bench/src is a plain MPI-1 program that builds
 * against any MPI (MemPI, MPICH, Open MPI).  They share this header only, so
 * each program is one .c file and the harness (bench/run) needs no library.
 *
 * Timing is time-based, never count-based, because the same program must
 * finish in a few seconds on a library that does 0.3 us per ping-pong and on
 * one that busy-polls on an oversubscribed machine and does 10 ms per
 * barrier.  bench_measure() runs the operation once (warm-up and first
 * estimate), then grows the iteration count until one sample lasts about
 * target/5 seconds, then takes up to five samples and returns the median of
 * their per-iteration times.  Every sample is bracketed by a barrier and its
 * elapsed time is the maximum over all ranks (one MPI_Allreduce), so all
 * ranks agree on every decision and the number reported is the time the
 * slowest rank saw.
 *
 * A program also has a wall-clock budget (--budget SECONDS): once rank 0 has
 * used it up, the remaining points are reported as "skipped" and the program
 * exits cleanly, so the harness's hard timeout is only a last resort.
 *
 * Output: rank 0 prints one line per result, "<name> <size> <value> <unit>",
 * flushed at once so a killed run still leaves its finished points; lines
 * starting with '#' are comments.  A point not measured is printed as
 * "<name> <size> skipped budget".
 *
 * Point-to-point programs run on pairs: with P ranks, rank r < P/2 is paired
 * with r + P/2 (the "first" side) and an odd last rank idles.  All pairs run
 * at once, so on 4 ranks the numbers show two pairs competing for 2 cores.
 */
#ifndef BENCH_H
#define BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* posix_memalign */
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_SIZES 40

typedef struct bench_config {
    double target;      /* seconds one measured point should take */
    double budget;      /* seconds the whole program may take (0 = none) */
    int quick;          /* smaller size lists */
    long max_size;      /* largest message size in bytes */
    int rank, nprocs;
    double start;       /* MPI_Wtime at bench_init */
} bench_config;

static bench_config bench;

typedef void (*bench_op)(void *ctx, long iters);

/* Parse the options every program shares; unknown options are left to the
 * program (it reads them with bench_option()).  --mt starts MPI with
 * MPI_THREAD_MULTIPLE (still one thread): what mpi4py and threaded programs
 * ask for, so the run shows what the level costs each library. */
static inline void bench_init(int *argc, char ***argv)
{
    int mt = 0, provided;
    for (int i = 1; i < *argc; i++)
        if (!strcmp((*argv)[i], "--mt")) mt = 1;
    if (mt) {
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "--mt: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        MPI_Init(argc, argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &bench.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench.nprocs);
    bench.target = 0.2;
    bench.budget = 0;
    bench.quick = 0;
    bench.max_size = 4L << 20;
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (!strcmp(a, "--quick")) bench.quick = 1;
        else if (!strcmp(a, "--target") && i + 1 < *argc) bench.target = atof((*argv)[++i]);
        else if (!strcmp(a, "--budget") && i + 1 < *argc) bench.budget = atof((*argv)[++i]);
        else if (!strcmp(a, "--max-size") && i + 1 < *argc) bench.max_size = atol((*argv)[++i]);
    }
    if (bench.target <= 0) bench.target = 0.2;
    bench.start = MPI_Wtime();
    if (bench.rank == 0) {
        printf("# nprocs %d target %.3f s budget %.0f s quick %d%s\n",
               bench.nprocs, bench.target, bench.budget, bench.quick,
               mt ? " thread_multiple" : "");
        fflush(stdout);
    }
}

/* Value of "--name VALUE" or NULL. */
static inline const char *bench_option(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name)) return argv[i + 1];
    return NULL;
}

static inline void bench_report(const char *name, long size, double value, const char *unit)
{
    if (bench.rank == 0) {
        printf("%s %ld %.6g %s\n", name, size, value, unit);
        fflush(stdout);
    }
}

/* True on every rank once rank 0 has used up the budget (collective). */
static inline int bench_over_budget(void)
{
    int over = 0;
    if (bench.rank == 0 && bench.budget > 0 && MPI_Wtime() - bench.start > bench.budget)
        over = 1;
    MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return over;
}

/* Report a point as skipped and tell the caller to stop measuring. */
static inline int bench_skip_if_over_budget(const char *name, long size)
{
    if (!bench_over_budget()) return 0;
    if (bench.rank == 0) {
        printf("%s %ld skipped budget\n", name, size);
        fflush(stdout);
    }
    return 1;
}

/* One sample: barrier, run iters iterations, max elapsed over ranks. */
static inline double bench_sample(bench_op op, void *ctx, long iters)
{
    double t0, dt, dtmax;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    op(ctx, iters);
    dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return dtmax;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds per iteration of op: median over up to 5 samples of ~target/5 s. */
static inline double bench_measure(bench_op op, void *ctx)
{
    const long max_iters = 100000000L;
    double sample_goal = bench.target / 5;
    long iters = 1;
    /* The first call of an operation may set up connections, registrations or a protocol
     * path (tens of ms across namespace nodes): it is a warm-up only, never a sample --
     * counted, it was once the whole measurement of points slower than a fifth of the
     * target, and a 64 KiB allreduce read 170 ms instead of 0.4 ms. */
    bench_sample(op, ctx, 1);
    double t = bench_sample(op, ctx, 1);          /* first guess */
    while (t < sample_goal / 2 && iters < max_iters) {
        long next = t > 0 ? (long)(iters * sample_goal / t) : iters * 16;
        if (next > iters * 16) next = iters * 16;
        if (next <= iters) next = iters * 2;
        iters = next;
        t = bench_sample(op, ctx, iters);
    }
    int nsamples = t > 0 ? (int)(bench.target / t) : 5;
    if (nsamples > 5) nsamples = 5;
    if (nsamples < 1) nsamples = 1;
    double per_iter[5];
    per_iter[0] = t / iters;                      /* the last calibration run counts */
    for (int i = 1; i < nsamples; i++)
        per_iter[i] = bench_sample(op, ctx, iters) / iters;
    qsort(per_iter, nsamples, sizeof(double), bench_cmp_double);
    return per_iter[nsamples / 2];
}

/* Size lists: powers of four plus the sizes the targets name. */
static inline int bench_sizes(long *out, long min_size, int quick)
{
    static const long full[] = {0, 1, 4, 8, 16, 64, 256, 1024, 4096, 16384, 65536,
                                262144, 1048576, 4194304};
    static const long fast[] = {0, 8, 1024, 65536, 262144, 1048576, 4194304};
    const long *list = quick ? fast : full;
    int len = quick ? (int)(sizeof fast / sizeof *fast) : (int)(sizeof full / sizeof *full);
    int n = 0;
    for (int i = 0; i < len && n < BENCH_MAX_SIZES; i++)
        if (list[i] >= min_size && list[i] <= bench.max_size) out[n++] = list[i];
    return n;
}

/* Pairing for point-to-point programs. */
typedef struct bench_pair {
    int partner;    /* rank of the other side, or -1 when idle */
    int first;      /* 1 on the side that starts (sender) */
    int npairs;
} bench_pair;

static inline bench_pair bench_pairing(void)
{
    bench_pair p;
    p.npairs = bench.nprocs / 2;
    if (bench.rank < p.npairs) { p.partner = bench.rank + p.npairs; p.first = 1; }
    else if (bench.rank < 2 * p.npairs) { p.partner = bench.rank - p.npairs; p.first = 0; }
    else { p.partner = -1; p.first = 0; }
    return p;
}

/* Streaming programs keep a window of operations in flight: BENCH_MAX_WINDOW, halved for
 * large messages until window * size <= 64 MiB (but never below 4). */
#define BENCH_MAX_WINDOW 64
static inline int bench_window(long size)
{
    int w = BENCH_MAX_WINDOW;
    while (w > 4 && (long)w * size > (64L << 20)) w /= 2;
    return w;
}

/* Page-touched, 64-byte aligned buffer (never NULL for size 0). */
static inline char *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64)) {
        fprintf(stderr, "bench: out of memory allocating %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, 1, bytes ? bytes : 64);
    return p;
}

#endif

/* rma.c -- one-sided latency and bandwidth: put, get, accumulate, fetch-and-op, compare-and-swap, under lock/flush and under fence.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Pairs as in bw.c: the first rank of each pair is the origin, its partner the target; all
 * pairs run at once.  The window is MPI_Win_allocate memory of --max-size bytes on every rank
 * (--flavor create: MPI_Win_create on malloc'ed memory).  Every operation targets offset 0
 * of the partner's window; a get writes into its own slot of the origin's buffer.
 *
 * Lock/flush (passive target): each sample is one MPI_Win_lock_all epoch at the origin; the
 * target makes no call while the origin works (it waits in the harness's MPI_Allreduce).
 *   <op>_lat: one operation then MPI_Win_flush(target), per iteration: the time until an
 *             operation is complete at the target (a get: until its data has arrived), us;
 *   <op>_bw:  a window of W operations (64, fewer for large sizes: W * size <= 64 MiB) then
 *             one flush, MB/s (10^6 bytes/s) of one pair.
 *   put, get: 8 B - 4 MiB; acc (MPI_Accumulate, MPI_SUM on doubles): 8 B - 1 MiB;
 *   fop (MPI_Fetch_and_op, MPI_SUM on one long) and cas (MPI_Compare_and_swap on one long):
 *   latency only, 8 B.
 * Fence (active target): every rank of the window calls MPI_Win_fence; one iteration is the
 * origin's operations followed by one fence (the fence that ends one epoch starts the next,
 * as in the standard's loosely synchronous example), after a fence(MPI_MODE_NOPRECEDE).
 *   put_fence_lat, get_fence_lat: one operation per fence, us per iteration;
 *   put_fence_bw, get_fence_bw: W operations per fence, MB/s.
 * Order: put, get, fop, acc latency; put, get, acc bandwidth; the fence series; cas.  A
 * library that exhausts the budget loses the series at the end.  Compare-and-swap is last
 * because Open MPI 4.1.4's default one-sided component (osc/rdma over btl/vader) crashes in
 * it (a segfault in the shared-memory transport's emulated atomics); osc/ucx does not crash
 * but its passive-target put is orders of magnitude slower, so the run keeps the default and
 * loses only this point.
 */
#include "bench.h"

enum { K_PUT, K_GET, K_ACC, K_FOP, K_CAS };

typedef struct rma_ctx {
    bench_pair pair;
    MPI_Win win;
    char *obuf, *rbuf;
    long size;
    int window, kind;
    long one;        /* fetch-and-op and compare-and-swap operand */
} rma_ctx;

static void issue(rma_ctx *c, int j)
{
    int t = c->pair.partner;
    long cmp = 0;
    switch (c->kind) {
    case K_PUT:
        MPI_Put(c->obuf, (int)c->size, MPI_BYTE, t, 0, (int)c->size, MPI_BYTE, c->win);
        break;
    case K_GET:
        MPI_Get(c->rbuf + (size_t)j * c->size, (int)c->size, MPI_BYTE, t, 0, (int)c->size, MPI_BYTE,
                c->win);
        break;
    case K_ACC:
        MPI_Accumulate(c->obuf, (int)(c->size / 8), MPI_DOUBLE, t, 0, (int)(c->size / 8), MPI_DOUBLE,
                       MPI_SUM, c->win);
        break;
    case K_FOP:
        MPI_Fetch_and_op(&c->one, c->rbuf, MPI_LONG, t, 0, MPI_SUM, c->win);
        break;
    case K_CAS:
        MPI_Compare_and_swap(&c->one, &cmp, c->rbuf, MPI_LONG, t, 0, c->win);
        break;
    }
}

static void lock_op(void *arg, long iters)
{
    rma_ctx *c = arg;
    if (c->pair.partner < 0 || !c->pair.first) return;
    MPI_Win_lock_all(0, c->win);
    for (long i = 0; i < iters; i++) {
        for (int j = 0; j < c->window; j++) issue(c, j);
        MPI_Win_flush(c->pair.partner, c->win);
    }
    MPI_Win_unlock_all(c->win);
}

static void fence_op(void *arg, long iters)
{
    rma_ctx *c = arg;
    int origin = c->pair.partner >= 0 && c->pair.first;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, c->win);
    for (long i = 0; i < iters; i++) {
        if (origin)
            for (int j = 0; j < c->window; j++) issue(c, j);
        MPI_Win_fence(0, c->win);
    }
}

/* One series: name, kind, sizes from min to max, latency (window 1) or bandwidth.  Returns 0
 * once the budget is used up. */
static int series(rma_ctx *c, const char *name, int kind, long min, long max, int bw, int fence)
{
    long sizes[BENCH_MAX_SIZES];
    int n = bench_sizes(sizes, min, bench.quick);
    c->kind = kind;
    for (int i = 0; i < n; i++) {
        if (sizes[i] > max) break;
        if (bench_skip_if_over_budget(name, sizes[i])) return 0;
        c->size = sizes[i];
        c->window = bw ? bench_window(sizes[i]) : 1;
        double t = bench_measure(fence ? fence_op : lock_op, c);
        if (bw) bench_report(name, sizes[i], (double)c->size * c->window / t / 1e6, "MB/s");
        else bench_report(name, sizes[i], t * 1e6, "us");
    }
    return 1;
}

int main(int argc, char **argv)
{
    bench_init(&argc, &argv);
    const char *flavor = bench_option(argc, argv, "--flavor");
    int create = flavor && !strcmp(flavor, "create");
    rma_ctx c;
    c.pair = bench_pairing();
    c.one = 1;
    long max = bench.max_size < 8 ? 8 : bench.max_size;
    size_t rbytes = (size_t)4 * max > (64UL << 20) ? (size_t)4 * max : (64UL << 20);
    c.obuf = bench_alloc((size_t)max);
    c.rbuf = bench_alloc(rbytes);
    for (long i = 0; i + 8 <= max; i += 8) {
        double one = 1.0;
        memcpy(c.obuf + i, &one, 8);       /* sums of doubles stay finite */
    }
    void *mem = NULL;
    if (create) {
        mem = bench_alloc((size_t)max);
        MPI_Win_create(mem, max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
    } else {
        MPI_Win_allocate(max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &c.win);
        memset(mem, 0, (size_t)max);
    }
    if (bench.rank == 0) {
        printf("# window %s, %ld bytes per rank\n", create ? "MPI_Win_create" : "MPI_Win_allocate", max);
        fflush(stdout);
    }
    const long MiB = 1L << 20;
    (void)(series(&c, "put_lat", K_PUT, 8, max, 0, 0)
           && series(&c, "get_lat", K_GET, 8, max, 0, 0)
           && series(&c, "fop_lat", K_FOP, 8, 8, 0, 0)
           && series(&c, "acc_lat", K_ACC, 8, MiB, 0, 0)
           && series(&c, "put_bw", K_PUT, 8, max, 1, 0)
           && series(&c, "get_bw", K_GET, 8, max, 1, 0)
           && series(&c, "acc_bw", K_ACC, 8, MiB, 1, 0)
           && series(&c, "put_fence_lat", K_PUT, 8, max, 0, 1)
           && series(&c, "get_fence_lat", K_GET, 8, max, 0, 1)
           && series(&c, "put_fence_bw", K_PUT, 8, max, 1, 1)
           && series(&c, "get_fence_bw", K_GET, 8, max, 1, 1)
           && series(&c, "cas_lat", K_CAS, 8, 8, 0, 0));
    MPI_Win_free(&c.win);
    if (create) free(mem);
    free(c.obuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

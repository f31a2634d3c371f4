/* bibw.c -- bidirectional bandwidth over message sizes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Both ranks of each pair post a window of W receives and W sends at once
 * and wait for all of them; one iteration is one window in each direction.
 * Reported: MB/s summed over both directions of one pair while all pairs run.
 * Window and buffer rules are the same as in bw.c.
 */
#include "bench.h"

typedef struct bibw_ctx {
    bench_pair pair;
    char *sbuf, *rbuf;
    long size;
    int window;
} bibw_ctx;

static void bibw_op(void *arg, long iters)
{
    bibw_ctx *c = arg;
    MPI_Request req[2 * BENCH_MAX_WINDOW];
    if (c->pair.partner < 0) return;
    for (long i = 0; i < iters; i++) {
        for (int j = 0; j < c->window; j++)
            MPI_Irecv(c->rbuf + (size_t)j * c->size, (int)c->size, MPI_BYTE, c->pair.partner, 4,
                      MPI_COMM_WORLD, &req[j]);
        for (int j = 0; j < c->window; j++)
            MPI_Isend(c->sbuf, (int)c->size, MPI_BYTE, c->pair.partner, 4, MPI_COMM_WORLD,
                      &req[c->window + j]);
        MPI_Waitall(2 * c->window, req, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    bench_init(&argc, &argv);
    long sizes[BENCH_MAX_SIZES];
    int nsizes = bench_sizes(sizes, 1, bench.quick);
    bibw_ctx c;
    c.pair = bench_pairing();
    c.sbuf = bench_alloc((size_t)bench.max_size);
    size_t rbytes = (size_t)4 * bench.max_size > (64UL << 20) ? (size_t)4 * bench.max_size : (64UL << 20);
    c.rbuf = bench_alloc(rbytes);
    for (int i = 0; i < nsizes; i++) {
        if (bench_skip_if_over_budget("bibw", sizes[i])) break;
        c.size = sizes[i];
        c.window = bench_window(sizes[i]);
        double t = bench_measure(bibw_op, &c);
        bench_report("bibw", sizes[i], 2.0 * c.size * c.window / t / 1e6, "MB/s");
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

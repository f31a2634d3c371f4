/* bw.c -- streaming (unidirectional) bandwidth over message sizes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The first rank of each pair keeps a window of nonblocking sends in flight
 * (MPI_Isend x W, MPI_Waitall); the partner pre-posts W receives into
 * distinct buffer slots and answers each window with a 4-byte
 * acknowledgement, so one iteration is one window plus one small reply.  The
 * window shrinks for large messages to bound memory (W*size <= 64 MiB).
 * Reported: MB/s (10^6 bytes per second) of one pair while all pairs run.
 */
#include "bench.h"

typedef struct bw_ctx {
    bench_pair pair;
    char *sbuf, *rbuf;
    long size;
    int window;
} bw_ctx;

static void bw_op(void *arg, long iters)
{
    bw_ctx *c = arg;
    MPI_Request req[BENCH_MAX_WINDOW];
    int ack = 0;
    if (c->pair.partner < 0) return;
    for (long i = 0; i < iters; i++) {
        if (c->pair.first) {
            for (int j = 0; j < c->window; j++)
                MPI_Isend(c->sbuf, (int)c->size, MPI_BYTE, c->pair.partner, 2, MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, c->pair.partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < c->window; j++)
                MPI_Irecv(c->rbuf + (size_t)j * c->size, (int)c->size, MPI_BYTE, c->pair.partner, 2,
                          MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_INT, c->pair.partner, 3, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    bench_init(&argc, &argv);
    long sizes[BENCH_MAX_SIZES];
    int nsizes = bench_sizes(sizes, 1, bench.quick);
    bw_ctx c;
    c.pair = bench_pairing();
    c.sbuf = bench_alloc((size_t)bench.max_size);
    /* W*size <= 64 MiB except when W bottoms out at 4 for huge sizes */
    size_t rbytes = (size_t)4 * bench.max_size > (64UL << 20) ? (size_t)4 * bench.max_size : (64UL << 20);
    c.rbuf = bench_alloc(rbytes);
    for (int i = 0; i < nsizes; i++) {
        if (bench_skip_if_over_budget("bw", sizes[i])) break;
        c.size = sizes[i];
        c.window = bench_window(sizes[i]);
        double t = bench_measure(bw_op, &c);
        bench_report("bw", sizes[i], (double)c.size * c.window / t / 1e6, "MB/s");
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

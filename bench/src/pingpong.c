/* pingpong.c -- ping-pong one-way latency over message sizes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The first rank of each pair sends size bytes with MPI_Send, the partner
 * receives with MPI_Recv and sends the same size back.  One iteration is a
 * full round trip; the reported value is half of it (one-way latency, us).
 * With more than two ranks all pairs run at once and the slowest pair counts.
 */
#include "bench.h"

typedef struct pingpong_ctx {
    bench_pair pair;
    char *buf;
    long size;
} pingpong_ctx;

static void pingpong_op(void *arg, long iters)
{
    pingpong_ctx *c = arg;
    if (c->pair.partner < 0) return;
    for (long i = 0; i < iters; i++) {
        if (c->pair.first) {
            MPI_Send(c->buf, (int)c->size, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD);
            MPI_Recv(c->buf, (int)c->size, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->buf, (int)c->size, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->buf, (int)c->size, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    bench_init(&argc, &argv);
    long sizes[BENCH_MAX_SIZES];
    int nsizes = bench_sizes(sizes, 0, bench.quick);
    pingpong_ctx c;
    c.pair = bench_pairing();
    c.buf = bench_alloc((size_t)bench.max_size);
    for (int i = 0; i < nsizes; i++) {
        if (bench_skip_if_over_budget("latency", sizes[i])) break;
        c.size = sizes[i];
        double t = bench_measure(pingpong_op, &c);
        bench_report("latency", sizes[i], t / 2 * 1e6, "us");
    }
    free(c.buf);
    MPI_Finalize();
    return 0;
}

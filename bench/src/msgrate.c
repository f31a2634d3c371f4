/* msgrate.c -- small-message rate with a window of nonblocking sends.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Like bw.c but for tiny messages: the first rank of each pair issues a
 * window of 128 MPI_Isend, the partner pre-posts 128 MPI_Irecv and replies
 * with a 4-byte acknowledgement per window.  Reported: messages per second
 * summed over all pairs (the aggregate rate of the job).
 */
#include "bench.h"

#define RATE_WINDOW 128

typedef struct rate_ctx {
    bench_pair pair;
    char *sbuf, *rbuf;
    long size;
} rate_ctx;

static void rate_op(void *arg, long iters)
{
    rate_ctx *c = arg;
    MPI_Request req[RATE_WINDOW];
    int ack = 0;
    if (c->pair.partner < 0) return;
    for (long i = 0; i < iters; i++) {
        if (c->pair.first) {
            for (int j = 0; j < RATE_WINDOW; j++)
                MPI_Isend(c->sbuf, (int)c->size, MPI_BYTE, c->pair.partner, 5, MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(RATE_WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, c->pair.partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < RATE_WINDOW; j++)
                MPI_Irecv(c->rbuf + (size_t)j * c->size, (int)c->size, MPI_BYTE, c->pair.partner, 5,
                          MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(RATE_WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_INT, c->pair.partner, 6, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    static const long sizes[] = {0, 8, 64};
    bench_init(&argc, &argv);
    rate_ctx c;
    c.pair = bench_pairing();
    c.sbuf = bench_alloc(64);
    c.rbuf = bench_alloc(64 * RATE_WINDOW);
    for (int i = 0; i < 3; i++) {
        if (bench_skip_if_over_budget("msgrate", sizes[i])) break;
        c.size = sizes[i];
        double t = bench_measure(rate_op, &c);
        bench_report("msgrate", sizes[i], (double)RATE_WINDOW * c.pair.npairs / t, "msg/s");
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

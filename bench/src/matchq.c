/* matchq.c -- small-message latency while another communicator's queues are long.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * A library or another thread often keeps many receives posted on a communicator of its own
 * (a task runtime, a halo library waiting for every neighbour) while the program talks on
 * another.  MPI matches within a communicator only, so the second communicator's messages
 * need not cost more than with empty queues elsewhere.  Each pair first fills a duplicate of
 * MPI_COMM_WORLD with `depth` posted receives on each side and, in the other direction,
 * `depth` unexpected messages; then it measures 8-byte ping-pong latency (one way, us) on
 * MPI_COMM_WORLD; then it matches and receives everything it queued, checking the data.
 * Reported as "latency_q" with the depth as the size column.
 */
#include "bench.h"

typedef struct q_ctx {
    bench_pair pair;
    char buf[8];
} q_ctx;

static void pingpong_op(void *arg, long iters)
{
    q_ctx *c = arg;
    if (c->pair.partner < 0) return;
    for (long i = 0; i < iters; i++) {
        if (c->pair.first) {
            MPI_Send(c->buf, 8, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD);
            MPI_Recv(c->buf, 8, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->buf, 8, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->buf, 8, MPI_BYTE, c->pair.partner, 1, MPI_COMM_WORLD);
        }
    }
}

/* Fills `other` with depth posted receives (tag 2) and depth unexpected messages (tag 3) at
 * each rank of the pair, runs the ping-pong, then drains both and checks what arrived. */
static double measure_at(q_ctx *c, MPI_Comm other, int depth)
{
    int *posted = malloc(sizeof(int) * (size_t)(depth + 1));
    int *sent = malloc(sizeof(int) * (size_t)(depth + 1));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)(depth + 1));
    int p = c->pair.partner;
    for (int i = 0; p >= 0 && i < depth; i++) {
        MPI_Irecv(&posted[i], 1, MPI_INT, p, 2, other, &reqs[i]);
        sent[i] = i;
        MPI_Send(&sent[i], 1, MPI_INT, p, 3, other);     /* unexpected at the partner */
    }
    double t = bench_measure(pingpong_op, c);
    for (int i = 0; p >= 0 && i < depth; i++)
        MPI_Send(&sent[i], 1, MPI_INT, p, 2, other);
    for (int i = 0; p >= 0 && i < depth; i++) {
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, p, 3, other, MPI_STATUS_IGNORE);
        if (got != i) {
            fprintf(stderr, "matchq: unexpected message %d carried %d\n", i, got);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (p >= 0)
        MPI_Waitall(depth, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; p >= 0 && i < depth; i++)
        if (posted[i] != i) {
            fprintf(stderr, "matchq: posted receive %d got %d\n", i, posted[i]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    free(posted);
    free(sent);
    free(reqs);
    return t;
}

int main(int argc, char **argv)
{
    static const int depths[] = {0, 64, 1024};
    bench_init(&argc, &argv);
    q_ctx c;
    c.pair = bench_pairing();
    memset(c.buf, 0, sizeof c.buf);
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    for (int i = 0; i < 3; i++) {
        if (bench_skip_if_over_budget("latency_q", depths[i])) break;
        double t = measure_at(&c, other, depths[i]);
        bench_report("latency_q", depths[i], t / 2 * 1e6, "us");
    }
    MPI_Comm_free(&other);
    MPI_Finalize();
    return 0;
}

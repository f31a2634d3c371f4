/* mempi-test: np=8 timeout=240 env=MEMPI_WAIT=sleep,MEMPI_SPIN=0 */
/* mempi-test: np=2,3,5 timeout=180 env=MEMPI_WAIT=sleep,MEMPI_SPIN=20 */
/* mempi-test: np=4,8 timeout=180 */
/* wait_sleep_stress.c -- many ranks that sleep on futexes: no lost wake-up, no hang.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * With MEMPI_WAIT=sleep and no spinning, every blocking call that does not find its message
 * at once goes to sleep, so every phase below races senders against sleepers: ping-pong in
 * pairs, a ring of Sendrecv, barriers with random stragglers, allreduce, large (rendezvous)
 * messages, a flood that fills a receiver's queues while it sleeps or computes, MPI_Probe
 * waiting for late messages.  Each phase checks data and status.  A lost wake-up costs a
 * sleep timeout (a few ms), so besides the hang timeout every phase has a time budget that
 * only thousands of lost wake-ups would exceed.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static void busy_ms(double ms)
{
    double t = MPI_Wtime();
    while ((MPI_Wtime() - t) * 1e3 < ms)
        ;
}

static void check_status(const MPI_Status *st, int src, int tag, MPI_Datatype dt, int count,
                         const char *what)
{
    int n;
    MPI_Get_count(st, dt, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count,
          "%s: status source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE,
          st->MPI_TAG, n, src, tag, count);
}

static void phase_pingpong(int rounds)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    for (int i = 0; i < rounds; i++) {
        long v[1] = { (long)i * 1000 + rank }, r[1];
        MPI_Status st;
        if (rank & 1) {
            MPI_Recv(r, 1, MPI_LONG, peer, 5, MPI_COMM_WORLD, &st);
            check_status(&st, peer, 5, MPI_LONG, 1, "pingpong recv");
            CHECK(r[0] == (long)i * 1000 + peer, "pingpong: got %ld in round %d", r[0], i);
            MPI_Send(v, 1, MPI_LONG, peer, 6, MPI_COMM_WORLD);
        } else {
            MPI_Send(v, 1, MPI_LONG, peer, 5, MPI_COMM_WORLD);
            MPI_Recv(r, 1, MPI_LONG, peer, 6, MPI_COMM_WORLD, &st);
            check_status(&st, peer, 6, MPI_LONG, 1, "pingpong reply");
            CHECK(r[0] == (long)i * 1000 + peer, "pingpong: reply %ld in round %d", r[0], i);
        }
    }
}

static void phase_ring(int rounds)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < rounds; i++) {
        int out[2] = { rank, i }, in[2] = { -1, -1 };
        MPI_Status st;
        MPI_Sendrecv(out, 2, MPI_INT, right, i % 7, in, 2, MPI_INT, left, i % 7, MPI_COMM_WORLD, &st);
        check_status(&st, left, i % 7, MPI_INT, 2, "ring");
        CHECK(in[0] == left && in[1] == i, "ring: got (%d,%d) in round %d", in[0], in[1], i);
    }
}

static void phase_barrier_stragglers(int rounds)
{
    unsigned seed = 77;
    for (int i = 0; i < rounds; i++) {
        seed = seed * 1103515245u + 12345u;
        int straggler = (int)((seed >> 16) % (unsigned)size);
        if (rank == straggler && i % 5 == 0)
            busy_ms(1.0);
        int before = i;
        MPI_Barrier(MPI_COMM_WORLD);
        /* everyone passed round i: an allreduce of the round number must agree */
        int mn, mx;
        MPI_Allreduce(&before, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&before, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(mn == i && mx == i, "barrier round %d: ranks were in rounds %d..%d", i, mn, mx);
    }
}

static void phase_allreduce(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        long v = rank + i, sum = -1;
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        long want = (long)size * (size - 1) / 2 + (long)size * i;
        CHECK(sum == want, "allreduce round %d: %ld, expected %ld", i, sum, want);
    }
}

static void phase_large(int rounds, int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < n; k++)
            out[k] = rank * 1000003 + r * 31 + k;
        memset(in, 0xff, sizeof(int) * (size_t)n);
        MPI_Request rq[2];
        MPI_Status st[2];
        MPI_Irecv(in, n, MPI_INT, left, 9, MPI_COMM_WORLD, &rq[0]);
        if (rank == r % size)
            busy_ms(2.0);                  /* the receiver side sleeps meanwhile */
        MPI_Isend(out, n, MPI_INT, right, 9, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
        check_status(&st[0], left, 9, MPI_INT, n, "large");
        for (int k = 0; k < n; k++)
            CHECK(in[k] == left * 1000003 + r * 31 + k, "large round %d: element %d is %d", r, k,
                  in[k]);
    }
    free(out);
    free(in);
}

/* Everyone floods rank 0, which computes first: senders fill its queues and must wait for it
 * to drain them (they may not sleep through that), then rank 0 receives in any order. */
static void phase_flood(int per_sender, int bytes)
{
    char *buf = malloc((size_t)bytes);
    if (rank == 0) {
        busy_ms(20.0);
        int *next = calloc((size_t)size, sizeof(int));
        for (int m = 0; m < per_sender * (size - 1); m++) {
            MPI_Status st;
            MPI_Recv(buf, bytes, MPI_CHAR, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE;
            check_status(&st, s, 11, MPI_CHAR, bytes, "flood");
            CHECK(s > 0 && s < size, "flood: source %d", s);
            int seq;
            memcpy(&seq, buf, sizeof seq);
            CHECK(seq == next[s], "flood: from %d message %d, expected %d (order)", s, seq, next[s]);
            CHECK(buf[bytes - 1] == (char)(s + seq), "flood: payload from %d message %d", s, seq);
            next[s]++;
        }
        free(next);
    } else {
        for (int m = 0; m < per_sender; m++) {
            memset(buf, 0, (size_t)bytes);
            memcpy(buf, &m, sizeof m);
            buf[bytes - 1] = (char)(rank + m);
            MPI_Send(buf, bytes, MPI_CHAR, 0, 11, MPI_COMM_WORLD);
        }
    }
    free(buf);
}

/* The last rank probes for messages the others send late, one by one. */
static void phase_probe(void)
{
    int last = size - 1;
    if (rank == last) {
        for (int k = 0; k < size - 1; k++) {
            MPI_Status st;
            MPI_Probe(k, 13, MPI_COMM_WORLD, &st);
            check_status(&st, k, 13, MPI_INT, 3, "probe");
            int v[3];
            MPI_Recv(v, 3, MPI_INT, k, 13, MPI_COMM_WORLD, &st);
            CHECK(v[0] == k && v[2] == k * 2, "probe: got %d..%d from %d", v[0], v[2], k);
        }
    } else {
        busy_ms(1.0 + rank);
        int v[3] = { rank, 0, rank * 2 };
        MPI_Send(v, 3, MPI_INT, last, 13, MPI_COMM_WORLD);
    }
}

static void timed(const char *name, double budget, void (*fn)(void))
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    fn();
    t = MPI_Wtime() - t;
    double tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-18s %8.3f s\n", name, tmax);
    CHECK(tmax < budget, "phase %s took %.1f s (budget %.0f s): lost wake-ups?", name, tmax, budget);
}

static void p_pingpong(void) { phase_pingpong(3000); }
static void p_ring(void) { phase_ring(1000); }
static void p_barrier(void) { phase_barrier_stragglers(300); }
static void p_allreduce(void) { phase_allreduce(1000); }
static void p_large(void) { phase_large(16, 65536); }
static void p_flood(void) { phase_flood(300, 1000); }
static void p_probe(void) { phase_probe(); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    timed("pingpong", 60, p_pingpong);
    timed("ring", 60, p_ring);
    timed("barrier", 60, p_barrier);
    timed("allreduce", 60, p_allreduce);
    timed("large", 60, p_large);
    timed("flood", 60, p_flood);
    timed("probe", 30, p_probe);
    MPI_Finalize();
    return 0;
}

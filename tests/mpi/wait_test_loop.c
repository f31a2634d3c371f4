/* mempi-test: np=2,3,4,8 timeout=180 */
/* mempi-test: np=4,5 timeout=180 env=MEMPI_WAIT=sleep,MEMPI_SPIN=10 */
/* mempi-test: np=4 timeout=180 env=MEMPI_WAIT=yield */
/* wait_test_loop.c -- nonblocking progress does not starve: MPI_Test loops and compute between
 * tests.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * With more ranks than cores, a rank that only polls (MPI_Test, MPI_Iprobe in a loop) holds
 * its core; unless the library gives the core away now and then, the peers it waits for -- which
 * may share that core -- barely run.  Phases:
 *   test loop   rank 0 waits for a message from every other rank with MPI_Test alone, while
 *               the others first run a ping-pong chain among themselves;
 *   compute     rank 0 computes in 1 ms slices between MPI_Test calls on a large receive and a
 *               large send (rendezvous: rank 0's progress is needed to move the data), while
 *               the others wait in blocking calls;
 *   iprobe      the last rank polls MPI_Iprobe for a message rank 0 sends after computing.
 * Every phase checks data and status and must finish within a generous time budget (a starved
 * peer makes it take tens of seconds, not milliseconds).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static volatile double sink;

static void compute_ms(double ms)
{
    double t = MPI_Wtime(), x = 1.0;
    while ((MPI_Wtime() - t) * 1e3 < ms)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void phase_test_loop(void)
{
    if (rank == 0) {
        MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)size);
        int *val = calloc((size_t)size, sizeof(int)), pending = size - 1;
        for (int s = 1; s < size; s++)
            MPI_Irecv(&val[s], 1, MPI_INT, s, 21, MPI_COMM_WORLD, &rq[s]);
        while (pending > 0)
            for (int s = 1; s < size; s++) {
                if (rq[s] == MPI_REQUEST_NULL)
                    continue;
                int flag = 0;
                MPI_Status st;
                MPI_Test(&rq[s], &flag, &st);
                if (flag) {
                    int n;
                    MPI_Get_count(&st, MPI_INT, &n);
                    CHECK(st.MPI_SOURCE == s && st.MPI_TAG == 21 && n == 1,
                          "test loop: status %d/%d/%d from %d", st.MPI_SOURCE, st.MPI_TAG, n, s);
                    CHECK(rq[s] == MPI_REQUEST_NULL, "test loop: request not freed");
                    pending--;
                }
            }
        for (int s = 1; s < size; s++)
            CHECK(val[s] == s * 100 + 2000, "test loop: %d from rank %d", val[s], s);
        free(rq);
        free(val);
    } else {
        /* a chain 1 -> 2 -> ... -> size-1 -> 1, many times, before reporting to rank 0 */
        int n = size - 1, me = rank - 1;
        int next = (me + 1) % n + 1, prev = (me + n - 1) % n + 1;
        int token = 0;
        for (int round = 0; round < 2000 && n > 1; round++) {
            if (me == 0) {
                token = round;
                MPI_Send(&token, 1, MPI_INT, next, 22, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, prev, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(token == round + n - 1, "chain: token %d in round %d", token, round);
            } else {
                MPI_Recv(&token, 1, MPI_INT, prev, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 22, MPI_COMM_WORLD);
            }
        }
        int v = rank * 100 + 2000;
        MPI_Send(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
    }
}

static void phase_compute(void)
{
    const int n = 1 << 18;                   /* 1 MiB of ints: rendezvous */
    int *buf = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    if (rank == 0) {
        for (int k = 0; k < n; k++)
            buf[k] = k ^ 0x5a5a;
        MPI_Request rq[2];
        MPI_Irecv(in, n, MPI_INT, size - 1, 31, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(buf, n, MPI_INT, 1, 32, MPI_COMM_WORLD, &rq[1]);
        int done = 0, slices = 0;
        MPI_Status st[2];
        while (!done) {
            compute_ms(1.0);
            slices++;
            MPI_Testall(2, rq, &done, st);
        }
        int cnt;
        MPI_Get_count(&st[0], MPI_INT, &cnt);
        CHECK(st[0].MPI_SOURCE == size - 1 && st[0].MPI_TAG == 31 && cnt == n,
              "compute: receive status %d/%d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG, cnt);
        for (int k = 0; k < n; k++)
            CHECK(in[k] == k + 7, "compute: element %d is %d", k, in[k]);
    }
    if (rank == 1) {
        MPI_Status st;
        MPI_Recv(in, n, MPI_INT, 0, 32, MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(st.MPI_SOURCE == 0 && cnt == n, "compute: rank 1 status %d/%d", st.MPI_SOURCE, cnt);
        for (int k = 0; k < n; k++)
            CHECK(in[k] == (k ^ 0x5a5a), "compute: rank 1 element %d is %d", k, in[k]);
    }
    if (rank == size - 1) {
        for (int k = 0; k < n; k++)
            buf[k] = k + 7;
        MPI_Send(buf, n, MPI_INT, 0, 31, MPI_COMM_WORLD);
    }
    free(buf);
    free(in);
}

static void phase_iprobe(void)
{
    int last = size - 1;
    if (rank == 0) {
        compute_ms(30.0);
        int v = 4242;
        MPI_Send(&v, 1, MPI_INT, last, 41, MPI_COMM_WORLD);
    } else if (rank == last) {
        int flag = 0;
        MPI_Status st;
        while (!flag)
            MPI_Iprobe(0, 41, MPI_COMM_WORLD, &flag, &st);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 41, "iprobe: status %d/%d", st.MPI_SOURCE,
              st.MPI_TAG);
        int v = 0;
        MPI_Recv(&v, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(v == 4242, "iprobe: got %d", v);
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
        printf("%-10s %8.3f s\n", name, tmax);
    CHECK(tmax < budget, "phase %s took %.1f s (budget %.0f s): starved?", name, tmax, budget);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    timed("test loop", 40, phase_test_loop);
    if (size > 1) {
        timed("compute", 40, phase_compute);
        timed("iprobe", 40, phase_iprobe);
    }
    MPI_Finalize();
    return 0;
}

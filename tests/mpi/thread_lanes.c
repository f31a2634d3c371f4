/* mempi-test: np=2,3,5 timeout=300 env=MEMPI_LANES=1 */
/* mempi-test: np=4 timeout=300 env=MEMPI_LANES=1,MEMPI_SHM_CELLS=4,MEMPI_SHM_RING_AFTER=0 */
/* mempi-test: np=3 timeout=300 */
/* thread_lanes.c -- MPI_Send and MPI_Recv in lanes, beside the big lock, under
 * MPI_THREAD_MULTIPLE.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Once lanes are open (MEMPI_LANES=1: from MPI_Init; auto: once threads meet), a small
 * blocking send or receive runs as a reader of the big lock holding its communicator's
 * track stripe (src/binding/lane.c), so threads on different communicators run at once, and
 * a lane gives up -- having changed nothing -- whenever the call needs more.  NT threads per
 * rank each own a duplicate of MPI_COMM_WORLD (there are more of them than stripes, so some
 * share one) and exchange ITERS messages around the ring in rotating styles that take the
 * lane or push it back to the big lock at every step:
 *   - MPI_Send and MPI_Recv of 0-64 bytes (the lane's send and direct receive);
 *   - two messages, the second received when it has arrived (the lane's unexpected path);
 *   - MPI_Ssend (a synchronous message: the lane leaves it and its ACK to the big lock);
 *   - MPI_Isend with a receive from MPI_ANY_SOURCE (the general send path on the same track);
 *   - 200 B - 3 KiB messages (payload in a chunk), and now and then 40 KiB (fragments, or a
 *     rendezvous: the lane must not take a packet of a message in flight).
 * Every receive but one style takes MPI_ANY_TAG and each message's tag is its iteration, so a
 * message that overtook another of its thread fails the status check; the data, source and
 * count are checked too.  The second configuration shrinks the rings to 4 cells (full rings:
 * the lane's send gives up) and hands out rings at once.  Before the threads start, the main
 * thread's first MPI_Send must run in a lane when its destination is on the same node
 * (nothing else runs, so it cannot be refused): the counter mempi_lane_calls moves.  Errors still reach the handler with lanes open
 * (MPI_ERRORS_RETURN on a duplicate: invalid rank and tag), and the library goes on.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "counters.h"
#include "node.h"

#define NT 5
#define NCOMM 9
#define ITERS 300
#define BIG (40 * 1024)

static int rank, size, lanes_forced;
static MPI_Comm comms[NCOMM];

/* Thread t's communicator: threads 0-3 the first four, thread 4 the last (a stripe that
 * wraps around onto one of the others'). */
static MPI_Comm comm_of(int t) { return comms[t < NT - 1 ? t : NCOMM - 1]; }

static int len_of(int t, int i)
{
    if (i % 5 == 4)
        return i % 35 == 4 ? BIG : 200 + (i * 37 + t * 11) % 2900;
    return (i * 7 + t * 3) % 65;
}

static unsigned char byte_of(int src, int t, int i, int k)
{
    return (unsigned char)(src * 29 + t * 13 + i * 7 + k * 3);
}

static void fill(unsigned char *b, int src, int t, int i, int n)
{
    for (int k = 0; k < n; k++)
        b[k] = byte_of(src, t, i, k);
}

static void check_msg(const unsigned char *b, const MPI_Status *st, int src, int t, int i,
                      int n)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == i && count == n,
          "thread %d iteration %d: status source %d tag %d count %d, expected %d %d %d", t, i,
          st->MPI_SOURCE, st->MPI_TAG, count, src, i, n);
    for (int k = 0; k < n; k++)
        CHECK(b[k] == byte_of(src, t, i, k), "thread %d iteration %d: byte %d is %d, expected %d",
              t, i, k, b[k], byte_of(src, t, i, k));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm comm = comm_of(t);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *out = malloc(2 * BIG), *in = malloc(2 * BIG);
    CHECK(out && in, "out of memory");
    for (int i = 0; i < ITERS; i++) {
        int n = len_of(t, i);
        MPI_Status st;
        MPI_Request req;
        fill(out, rank, t, i, n);
        switch (i % 5) {
        case 0:
        case 4:
            if (n == BIG) {      /* maybe a rendezvous: a blocking send around the ring hangs */
                CHECK_MPI(MPI_Isend(out, n, MPI_BYTE, right, i, comm, &req));
                CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, MPI_ANY_TAG, comm, &st));
                CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
                break;
            }
            CHECK_MPI(MPI_Send(out, n, MPI_BYTE, right, i, comm));
            CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, MPI_ANY_TAG, comm, &st));
            break;
        case 1: {
            /* two messages; the second is received once it surely arrived (after the first) */
            int n2 = len_of(t, i + 5);
            unsigned char *out2 = out + BIG;
            fill(out2, rank, t, i + 1000, n2);
            CHECK_MPI(MPI_Send(out, n, MPI_BYTE, right, i, comm));
            CHECK_MPI(MPI_Send(out2, n2, MPI_BYTE, right, i + 1000, comm));
            CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, i, comm, &st));
            check_msg(in, &st, left, t, i, n);
            CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, MPI_ANY_TAG, comm, &st));
            check_msg(in, &st, left, t, i + 1000, n2);
            continue;
        }
        case 2:
            if (rank % 2 == 0) {
                CHECK_MPI(MPI_Ssend(out, n, MPI_BYTE, right, i, comm));
                CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, MPI_ANY_TAG, comm, &st));
            } else {
                CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, MPI_ANY_TAG, comm, &st));
                CHECK_MPI(MPI_Ssend(out, n, MPI_BYTE, right, i, comm));
            }
            break;
        default:
            CHECK_MPI(MPI_Isend(out, n, MPI_BYTE, right, i, comm, &req));
            CHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            break;
        }
        check_msg(in, &st, left, t, i, n);
    }
    free(out);
    free(in);
    return NULL;
}

/* With lanes open, errors still go through the big lock's path to the handler. */
static void errors_still_reported(void)
{
    MPI_Comm c;
    int x = 0, cls;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    MPI_Error_class(MPI_Send(&x, 1, MPI_INT, size, 0, c), &cls);
    CHECK(cls == MPI_ERR_RANK, "MPI_Send to rank %d of %d: class %d, expected MPI_ERR_RANK",
          size, size, cls);
    MPI_Error_class(MPI_Recv(&x, 1, MPI_INT, 0, -5, c, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_TAG, "MPI_Recv with tag -5: class %d, expected MPI_ERR_TAG", cls);
    MPI_Error_class(MPI_Send(&x, -1, MPI_INT, 0, 0, c), &cls);
    CHECK(cls == MPI_ERR_COUNT, "MPI_Send of -1 elements: class %d, expected MPI_ERR_COUNT", cls);
    CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("MEMPI_LANES");
    lanes_forced = env && strcmp(env, "1") == 0;
    for (int c = 0; c < NCOMM; c++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]));

    /* One message around the ring from the main thread alone: with lanes open from
     * MPI_Init, nothing holds the big lock, so a send to a process of this node (through
     * shared memory; the network transport has no fast path) cannot be refused a lane. */
    int right_local = on_my_node((rank + 1) % size);
    counters_open();
    MPI_T_pvar_handle lane_calls = counter_start("mempi_lane_calls");
    int token = rank, got = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 7, comms[0]));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, 7, comms[0], &st));
    CHECK(got == (rank + size - 1) % size && st.MPI_SOURCE == got && st.MPI_TAG == 7,
          "token %d from %d tag %d", got, st.MPI_SOURCE, st.MPI_TAG);
    unsigned long long lanes_before = counter_read(lane_calls);
    if (lanes_forced && right_local)
        CHECK(lanes_before >= 1, "MEMPI_LANES=1: the first MPI_Send ran under the big lock "
              "(mempi_lane_calls %llu)", lanes_before);
    errors_still_reported();

    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);

    unsigned long long mine = counter_read(lane_calls), total = 0;
    CHECK_MPI(MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0 && getenv("MEMPI_TEST_VERBOSE"))
        printf("calls done in lanes: %llu\n", total);
    counters_close();
    for (int c = 0; c < NCOMM; c++)
        CHECK_MPI(MPI_Comm_free(&comms[c]));
    MPI_Finalize();
    return 0;
}

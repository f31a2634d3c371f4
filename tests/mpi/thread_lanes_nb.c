/* mempi-test: np=2,3,5 timeout=300 env=MEMPI_LANES=1 */
/* mempi-test: np=4 timeout=300 env=MEMPI_LANES=1,MEMPI_SHM_CELLS=4,MEMPI_SHM_RING_AFTER=0 */
/* mempi-test: np=3 timeout=300 */
/* thread_lanes_nb.c -- MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Test, MPI_Waitall and
 * MPI_Testall in lanes under MPI_THREAD_MULTIPLE.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Once lanes are open, a small MPI_Isend handed over at the call, an MPI_Irecv matched or
 * posted, and the completion of null, completed-send and plain receive requests of one track
 * run beside the big lock (src/binding/lane.c, src/pt2pt/lane.c); anything more gives the
 * call back to the lock.  NT threads per rank, each with a communicator of its own (more
 * communicators than stripes, so some threads share one), exchange windows of W messages
 * around the ring, each window in a rotating style:
 *   0  all receives posted first, then the sends, then MPI_Waitall over both;
 *   1  sends first, receives after (messages that arrived: matched at the MPI_Irecv), the
 *      receives completed one by one with MPI_Wait, in reverse order;
 *   2  receives with MPI_ANY_SOURCE and MPI_ANY_TAG mixed in, completed by an MPI_Testall
 *      loop (a test that finds a request open must still make progress);
 *   3  chunk-sized and 40 KiB messages, one MPI_Issend, an MPI_Test loop per request: the
 *      lane must leave synchronous messages, fragments and rendezvous to the lock;
 *   4  one MPI_Waitall over the receives of this thread's communicator and of a second one
 *      of another stripe (the lane gives the whole call back).
 * Message k of a window has tag k and its content names sender, thread, window and k, so a
 * message that overtook another, or went to the wrong receive, fails the data or status
 * check.  Then, with the threads joined: a truncated receive completed by MPI_Waitall
 * reports MPI_ERR_IN_STATUS and MPI_ERR_TRUNCATE in its status, an invalid handle to
 * MPI_Wait is MPI_ERR_REQUEST, and the library goes on.  With MEMPI_LANES=1 and the right
 * neighbour on this node, the main thread's MPI_Irecv and MPI_Isend must run in lanes once
 * the communicator was used (nothing else runs): mempi_lane_calls moves by at least 2.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "counters.h"
#include "node.h"

#define NT 5
#define NCOMM 10
#define W 12
#define WINDOWS 60
#define BIG (40 * 1024)

static int rank, size;
static MPI_Comm comms[NCOMM];

static int len_of(int style, int t, int w, int k)
{
    if (style == 3)
        return k == 5 ? BIG : 200 + (w * 37 + t * 11 + k * 131) % 2900;
    return (w * 7 + t * 3 + k * 5) % 65;
}

static unsigned char byte_of(int src, int t, int w, int k, int j)
{
    return (unsigned char)(src * 29 + t * 13 + w * 7 + k * 17 + j * 3);
}

static void check_msg(const unsigned char *b, const MPI_Status *st, int src, int t, int w,
                      int k, int n)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == k && count == n,
          "thread %d window %d message %d: status source %d tag %d count %d, expected %d %d %d",
          t, w, k, st->MPI_SOURCE, st->MPI_TAG, count, src, k, n);
    for (int j = 0; j < n; j++)
        CHECK(b[j] == byte_of(src, t, w, k, j), "thread %d window %d message %d: byte %d is %d, "
              "expected %d", t, w, k, j, b[j], byte_of(src, t, w, k, j));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm comm = comms[t], other = comms[NT + t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *out = malloc((size_t)W * BIG), *in = malloc((size_t)W * BIG);
    CHECK(out && in, "out of memory");
    for (int w = 0; w < WINDOWS; w++) {
        int style = (w + t) % 5;
        MPI_Request rreq[W], sreq[W], all[2 * W];
        MPI_Status st[2 * W];
        for (int k = 0; k < W; k++) {
            int n = len_of(style, t, w, k);
            for (int j = 0; j < n; j++)
                out[(size_t)k * BIG + j] = byte_of(rank, t, w, k, j);
        }
        /* message k goes on `other` in style 4 when k is odd */
#define COMM_OF(k) (style == 4 && (k) % 2 ? other : comm)
#define POST_RECVS()                                                                         \
        for (int k = 0; k < W; k++) {                                                        \
            int src = style == 2 && k % 3 == 1 ? MPI_ANY_SOURCE : left;                      \
            int tag = style == 2 && k % 3 == 2 ? MPI_ANY_TAG : k;                            \
            if (style == 2 && k % 3 == 2)                                                    \
                src = left;              /* ANY_TAG: one source, so order decides */         \
            CHECK_MPI(MPI_Irecv(in + (size_t)k * BIG, BIG, MPI_BYTE, src, tag, COMM_OF(k),   \
                                &rreq[k]));                                                  \
        }
#define POST_SENDS()                                                                         \
        for (int k = 0; k < W; k++) {                                                        \
            int n = len_of(style, t, w, k);                                                  \
            if (style == 3 && k == 2)                                                        \
                CHECK_MPI(MPI_Issend(out + (size_t)k * BIG, n, MPI_BYTE, right, k, comm,     \
                                     &sreq[k]));                                             \
            else                                                                             \
                CHECK_MPI(MPI_Isend(out + (size_t)k * BIG, n, MPI_BYTE, right, k,            \
                                    COMM_OF(k), &sreq[k]));                                  \
        }
        if (style == 1) {
            POST_SENDS();
            POST_RECVS();
            for (int k = W - 1; k >= 0; k--)
                CHECK_MPI(MPI_Wait(&rreq[k], &st[k]));
            CHECK_MPI(MPI_Waitall(W, sreq, MPI_STATUSES_IGNORE));
        } else {
            POST_RECVS();
            POST_SENDS();
            memcpy(all, rreq, sizeof rreq);
            memcpy(all + W, sreq, sizeof sreq);
            if (style == 2) {
                int flag = 0;
                while (!flag)
                    CHECK_MPI(MPI_Testall(2 * W, all, &flag, st));
            } else if (style == 3) {
                for (int k = 0; k < 2 * W; k++)
                    for (int flag = 0; !flag;)
                        CHECK_MPI(MPI_Test(&all[k], &flag, &st[k]));
            } else {
                CHECK_MPI(MPI_Waitall(2 * W, all, st));
            }
            for (int k = 0; k < 2 * W; k++)
                CHECK(all[k] == MPI_REQUEST_NULL, "thread %d window %d: request %d not freed",
                      t, w, k);
        }
        for (int k = 0; k < W; k++)
            check_msg(in + (size_t)k * BIG, &st[k], left, t, w, k, len_of(style, t, w, k));
#undef COMM_OF
#undef POST_RECVS
#undef POST_SENDS
    }
    free(out);
    free(in);
    return NULL;
}

/* With lanes open, errors of requests still reach the handler. */
static void errors_still_reported(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char big[64] = { 0 }, small[8];
    MPI_Request r[2];
    MPI_Status st[2];
    CHECK_MPI(MPI_Comm_set_errhandler(comms[0], MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Irecv(small, 8, MPI_BYTE, left, 99, comms[0], &r[0]));
    CHECK_MPI(MPI_Isend(big, 64, MPI_BYTE, right, 99, comms[0], &r[1]));
    int err = MPI_Waitall(2, r, st), cls;
    CHECK(err == MPI_ERR_IN_STATUS, "MPI_Waitall with a truncated receive returned %d", err);
    MPI_Error_class(st[0].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "the truncated receive's status has class %d", cls);
    MPI_Request bogus = (MPI_Request)0x7badbeef;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Wait(&bogus, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "MPI_Wait on an invalid handle: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_MPI(MPI_Comm_set_errhandler(comms[0], MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("MEMPI_LANES");
    int lanes_forced = env && strcmp(env, "1") == 0;
    for (int c = 0; c < NCOMM; c++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]));

    /* The main thread alone: nothing holds the big lock, so with lanes open from MPI_Init
     * the second round's MPI_Irecv and MPI_Isend to a process of this node cannot be refused
     * a lane (the first round makes what a lane does not: the shared completed send request
     * and the communicator's matching queues; the MPI_Waitall may give up when its message
     * comes later than its spins last). */
    counters_open();
    MPI_T_pvar_handle lane_calls = counter_start("mempi_lane_calls");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned long long before = 0, moved = 0;
    for (int round = 0; round < 2; round++) {
        int token = rank * 10 + round, got = -1;
        MPI_Request r[2];
        MPI_Status st[2];
        before = counter_read(lane_calls);
        CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, left, 7, comms[0], &r[0]));
        CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, right, 7, comms[0], &r[1]));
        CHECK_MPI(MPI_Waitall(2, r, st));
        CHECK(got == left * 10 + round && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 7,
              "round %d: token %d from %d tag %d", round, got, st[0].MPI_SOURCE, st[0].MPI_TAG);
        moved = counter_read(lane_calls) - before;
    }
    if (lanes_forced && on_my_node(right))
        CHECK(moved >= 2, "MEMPI_LANES=1: MPI_Irecv or MPI_Isend ran under the big lock "
              "(mempi_lane_calls moved %llu)", moved);

    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    errors_still_reported();

    unsigned long long mine = counter_read(lane_calls) - before, total = 0;
    CHECK_MPI(MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0 && getenv("MEMPI_TEST_VERBOSE"))
        printf("calls done in lanes: %llu\n", total);
    counters_close();
    for (int c = 0; c < NCOMM; c++)
        CHECK_MPI(MPI_Comm_free(&comms[c]));
    MPI_Finalize();
    return 0;
}

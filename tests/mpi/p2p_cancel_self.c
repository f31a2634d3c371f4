/* mempi-test: np=1,2,3,5 timeout=120 */
/* p2p_cancel_self.c -- cancelling an unmatched send to oneself is decided before MPI_Cancel returns.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends to itself (Issend, Isend of a rendezvous-size message, on MPI_COMM_WORLD
 * and MPI_COMM_SELF), with no receive posted, and cancels.  The receiver is this process, so
 * the cancel needs nobody else's progress: right after MPI_Cancel the first
 * MPI_Request_get_status must say complete and cancelled (mpi4py's testCancel relies on it:
 * it takes a cancelled status as proof of completion).  Then the request is waited on, and a
 * message sent afterwards with the same envelope must arrive intact (the cancelled one must
 * neither arrive nor shift the pair's sequence).  A send whose receive is already matched
 * cannot be cancelled: it completes normally, not cancelled, with its data delivered.
 */
#include "check.h"

static const int sizes[] = { 0, 1, 1000, 100000, 4 << 20 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void fill(char *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        buf[i] = (char)(i * 7 + seed);
}

static void check_data(const char *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == (char)(i * 7 + seed), "byte %d of %d: %d, expected %d", i, n, buf[i],
              (char)(i * 7 + seed));
}

/* An unmatched send to oneself, cancelled: complete and cancelled at the first look. */
static void cancel_unmatched(MPI_Comm comm, int synchronous, int n, char *sbuf, char *rbuf)
{
    int me, tag = 40 + synchronous;
    MPI_Comm_rank(comm, &me);
    MPI_Request req;
    fill(sbuf, n, 3);
    if (synchronous)
        CHECK_MPI(MPI_Issend(sbuf, n, MPI_CHAR, me, tag, comm, &req));
    else
        CHECK_MPI(MPI_Isend(sbuf, n, MPI_CHAR, me, tag, comm, &req));
    CHECK_MPI(MPI_Cancel(&req));
    MPI_Status st;
    int flag = 0, cancelled = 0;
    CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    if (synchronous)
        CHECK(cancelled, "Issend of %d bytes to self, unmatched: not cancelled", n);
    CHECK(flag || !cancelled, "%s of %d bytes to self: cancelled, but not complete right after "
          "MPI_Cancel", synchronous ? "Issend" : "Isend", n);
    if (!cancelled) {                       /* it was delivered: take it */
        CHECK_MPI(MPI_Recv(rbuf, n, MPI_CHAR, me, tag, comm, &st));
        check_data(rbuf, n, 3);
    }
    /* The next message with the same envelope arrives, and only it. */
    fill(sbuf, n, 9);
    memset(rbuf, 0, (size_t)n + 1);
    CHECK_MPI(MPI_Sendrecv(sbuf, n, MPI_CHAR, me, tag, rbuf, n + 1, MPI_CHAR, me, tag, comm,
                           &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
    CHECK(count == n, "message after the cancelled one: %d bytes, expected %d", count, n);
    CHECK(st.MPI_SOURCE == me && st.MPI_TAG == tag, "status source %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    check_data(rbuf, n, 9);
    int pending = 1;
    CHECK_MPI(MPI_Iprobe(me, tag, comm, &pending, MPI_STATUS_IGNORE));
    CHECK(!pending, "a message is still pending after the cancelled one (%d bytes)", n);
}

/* A send whose receive is posted first is matched: MPI_Cancel leaves it alone. */
static void cancel_matched(MPI_Comm comm, int n, char *sbuf, char *rbuf)
{
    int me;
    MPI_Comm_rank(comm, &me);
    MPI_Request rreq, sreq;
    memset(rbuf, 0, (size_t)n + 1);
    CHECK_MPI(MPI_Irecv(rbuf, n, MPI_CHAR, me, 50, comm, &rreq));
    fill(sbuf, n, 5);
    CHECK_MPI(MPI_Issend(sbuf, n, MPI_CHAR, me, 50, comm, &sreq));
    CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Cancel(&sreq));
    MPI_Status st;
    int cancelled = 1;
    CHECK_MPI(MPI_Wait(&sreq, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled, "Issend of %d bytes, already received: reported cancelled", n);
    check_data(rbuf, n, 5);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int max = sizes[NSIZES - 1];
    char *sbuf = malloc((size_t)max + 1), *rbuf = malloc((size_t)max + 1);
    CHECK(sbuf && rbuf, "out of memory");
    MPI_Comm comms[2] = { MPI_COMM_WORLD, MPI_COMM_SELF };
    for (int round = 0; round < 3; round++)
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < NSIZES; i++) {
                cancel_unmatched(comms[c], 1, sizes[i], sbuf, rbuf);
                cancel_unmatched(comms[c], 0, sizes[i], sbuf, rbuf);
                cancel_matched(comms[c], sizes[i], sbuf, rbuf);
            }
    free(sbuf);
    free(rbuf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("p2p_cancel_self: ok\n");
    CHECK_MPI(MPI_Finalize());
    return 0;
}

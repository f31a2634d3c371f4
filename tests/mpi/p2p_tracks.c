/* mempi-test: np=2,3,5 timeout=180 */
/* mempi-test: np=2,3,5 timeout=180 env=MEMPI_SHM_CELLS=4,MEMPI_SHM_CHUNKS=4,MEMPI_SHM_CHUNK=1024,MEMPI_EAGER_MAX=8192 */
/* mempi-test: np=3 timeout=180 env=MEMPI_SENDREQ=1,MEMPI_SENDREQ_MIN=0,MEMPI_EAGER_MAX=64,MEMPI_SHM_CELLS=4 */
/* p2p_tracks.c -- message order per communicator when sends to one peer travel on several
 * tracks.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Between two processes the library orders messages per track, a group of communicators
 * (src/pt2pt/proto.h): a send stuck at the head of one track -- a remote write, a message
 * half-way into a full ring -- no longer holds up the others, so packets of different
 * communicators' messages interleave in the ring.  This checks what that could break:
 *   - eleven communicators (so that some share a track and some do not) carry messages of
 *     every protocol -- empty, one packet, several eager fragments, rendezvous, synchronous --
 *     round-robin to the right neighbour, with small rings and packets in one configuration
 *     so that one communicator's fragments are interleaved with another's; some
 *     communicators have their receives posted first (requests for sending, remote writes,
 *     fragments into a matched receive), the others are received late (unexpected messages,
 *     fragments into an unexpected copy).  Each communicator's messages arrive in send order
 *     with exact data and status;
 *   - a receive on one communicator whose request for sending is out is cancelled while the
 *     sender works on another communicator and then sends the message the receive asked
 *     for: the withdrawal reaches the request on its own track, and the message is received
 *     exactly once -- by the cancelled receive if the cancel failed, else by a new one.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

#define NCOMMS 11
#define ROUNDS 24
#define NSIZES 6
static const int sizes[NSIZES] = { 0, 2, 750, 2048, 5000, 20000 };  /* in ints */

static int rank, size, left, right;

static int size_of(int comm, int round)
{
    return sizes[(round + comm) % NSIZES];
}

static int pattern(int from, int comm, int round, int j)
{
    return from * 1000003 + comm * 10007 + round * 101 + j;
}

static void fill(int *buf, int comm, int round)
{
    for (int j = 0; j < size_of(comm, round); j++)
        buf[j] = pattern(rank, comm, round, j);
}

static void check_message(const int *buf, const MPI_Status *st, int comm, int round)
{
    int n = size_of(comm, round), got;
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &got));
    CHECK(got == n && st->MPI_SOURCE == left && st->MPI_TAG == round % 4,
          "communicator %d, message %d: count %d source %d tag %d, expected %d %d %d "
          "(messages of a communicator out of order?)", comm, round, got, st->MPI_SOURCE,
          st->MPI_TAG, n, left, round % 4);
    for (int j = 0; j < n; j++)
        CHECK(buf[j] == pattern(left, comm, round, j),
              "communicator %d, message %d: int %d is %d, expected %d", comm, round, j, buf[j],
              pattern(left, comm, round, j));
}

static void interleaved(MPI_Comm *comms)
{
    static int out[NCOMMS][ROUNDS][20000], in[NCOMMS][ROUNDS][20000];
    MPI_Request sreq[NCOMMS * ROUNDS], rreq[NCOMMS * ROUNDS];
    MPI_Status rst[NCOMMS * ROUNDS];
    int nr = 0, ns = 0;
    /* communicators 0, 3, 6, 9: every receive posted before anything is sent */
    for (int k = 0; k < NCOMMS; k += 3)
        for (int r = 0; r < ROUNDS; r++)
            CHECK_MPI(MPI_Irecv(in[k][r], 20000, MPI_INT, left, MPI_ANY_TAG, comms[k], &rreq[nr++]));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < NCOMMS; k++) {
            fill(out[k][r], k, r);
            if ((r + k) % 5 == 0)
                CHECK_MPI(MPI_Issend(out[k][r], size_of(k, r), MPI_INT, right, r % 4, comms[k],
                                     &sreq[ns++]));
            else
                CHECK_MPI(MPI_Isend(out[k][r], size_of(k, r), MPI_INT, right, r % 4, comms[k],
                                    &sreq[ns++]));
        }
    /* the others late, communicator by communicator from the last, in send order */
    for (int k = NCOMMS - 1; k >= 0; k--) {
        if (k % 3 == 0)
            continue;
        for (int r = 0; r < ROUNDS; r++) {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(in[k][r], 20000, MPI_INT, k % 2 ? left : MPI_ANY_SOURCE,
                               MPI_ANY_TAG, comms[k], &st));
            check_message(in[k][r], &st, k, r);
        }
    }
    CHECK_MPI(MPI_Waitall(nr, rreq, rst));
    nr = 0;
    for (int k = 0; k < NCOMMS; k += 3)
        for (int r = 0; r < ROUNDS; r++, nr++)
            check_message(in[k][r], &rst[nr], k, r);
    CHECK_MPI(MPI_Waitall(ns, sreq, MPI_STATUSES_IGNORE));
}

/* The receive on comms[a] with a request for sending out is withdrawn while the sender sends
 * on comms[b] first. */
static void cancel_across(MPI_Comm *comms, int a, int b, int iter)
{
    enum { BIG = 16384, SMALL = 20 };
    static int big_in[BIG], big_out[BIG];
    int small_in[SMALL], small_out[SMALL];
    MPI_Request rreq, sreq, small_req[SMALL];
    for (int j = 0; j < BIG; j++)
        big_out[j] = pattern(rank, a, iter, j);
    CHECK_MPI(MPI_Irecv(big_in, BIG, MPI_INT, left, 99, comms[a], &rreq));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < SMALL; i++) {
        small_out[i] = pattern(rank, b, iter, i);
        CHECK_MPI(MPI_Isend(&small_out[i], 1, MPI_INT, right, i, comms[b], &small_req[i]));
    }
    int cancel = iter % 2 == 0;
    if (!cancel)
        CHECK_MPI(MPI_Isend(big_out, BIG, MPI_INT, right, 99, comms[a], &sreq));
    for (int i = 0; i < SMALL; i++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&small_in[i], 1, MPI_INT, left, MPI_ANY_TAG, comms[b], &st));
        CHECK(st.MPI_TAG == i && small_in[i] == pattern(left, b, iter, i),
              "small message %d on communicator %d: tag %d value %d", i, b, st.MPI_TAG,
              small_in[i]);
    }
    MPI_Status st;
    int cancelled = 0;
    if (cancel) {
        /* The left neighbour sends the large message only after its own cancel finished, so
         * the withdrawal finds the request for sending unused: a send that took it now would
         * write into a receive that is no longer there. */
        CHECK_MPI(MPI_Cancel(&rreq));
        CHECK_MPI(MPI_Wait(&rreq, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK_MPI(MPI_Isend(big_out, BIG, MPI_INT, right, 99, comms[a], &sreq));
    } else {
        CHECK_MPI(MPI_Wait(&rreq, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(!cancelled, "a receive nobody cancelled says it was cancelled");
    }
    if (cancelled) {
        for (int j = 0; j < BIG; j++)
            big_in[j] = -1;
        CHECK_MPI(MPI_Recv(big_in, BIG, MPI_INT, left, 99, comms[a], &st));
    }
    int got;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == BIG && st.MPI_SOURCE == left && st.MPI_TAG == 99,
          "large message (cancelled %d): count %d source %d tag %d", cancelled, got,
          st.MPI_SOURCE, st.MPI_TAG);
    for (int j = 0; j < BIG; j++)
        CHECK(big_in[j] == pattern(left, a, iter, j), "large message (cancelled %d): int %d "
              "is %d, expected %d", cancelled, j, big_in[j], pattern(left, a, iter, j));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Waitall(SMALL, small_req, MPI_STATUSES_IGNORE));
    /* Nothing else may arrive on comms[a]: the message was received exactly once. */
    int flag;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[a], &flag, &st));
    CHECK(!flag, "a second copy of the large message arrived (tag %d)", st.MPI_TAG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    MPI_Comm comms[NCOMMS];
    for (int k = 0; k < NCOMMS; k++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]));
    for (int rep = 0; rep < 3; rep++)
        interleaved(comms);
    for (int iter = 0; iter < 8; iter++)
        cancel_across(comms, 1 + iter % 4, (2 + iter % 4 + iter % 3) % NCOMMS, iter);
    for (int k = 0; k < NCOMMS; k++)
        CHECK_MPI(MPI_Comm_free(&comms[k]));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_tracks: %d communicators x %d messages x 3, 8 cancels across communicators\n",
               NCOMMS, ROUNDS);
    MPI_Finalize();
    return 0;
}

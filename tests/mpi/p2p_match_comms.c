/* mempi-test: np=2,3,4,5,7 timeout=180 */
/* p2p_match_comms.c -- matching stays exact with traffic spread over many communicators.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every context has its own matching queues (src/pt2pt/match.c).  This checks what MPI
 * requires of them and what splitting them could break:
 *   - interleaved traffic on eight communicators (dups, a split, MPI_COMM_SELF) in a ring:
 *     messages are sent round-robin over the communicators, received in another order
 *     (specific source and tag, MPI_ANY_TAG, MPI_ANY_SOURCE, MPI_Mprobe + MPI_Mrecv), with
 *     receives posted on some communicators long before their messages come; within each
 *     communicator the order of one sender's messages holds, data and status are exact,
 *     and no message is taken on another communicator;
 *   - a message that arrives for a communicator the receiver has not finished creating is
 *     received on it once it exists;
 *   - a synchronous send that sits unexpected at the receiver on a duplicate communicator can
 *     be cancelled (the receiver finds it in that communicator's queue), and is then never
 *     delivered, while a later message with the same envelope is.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

#define NCOMMS 8
#define ROUNDS 40

static int rank, size;

static int value(int comm, int round, int from)
{
    return from * 100000 + comm * 1000 + round;
}

static void ring_traffic(MPI_Comm *comms)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* communicators 0 and 5 get their receives posted before anything is sent */
    static int early[2][ROUNDS];
    MPI_Request ereq[2][ROUNDS];
    const int early_comm[2] = { 0, 5 };
    for (int e = 0; e < 2; e++)
        for (int r = 0; r < ROUNDS; r++)
            CHECK_MPI(MPI_Irecv(&early[e][r], 1, MPI_INT, e ? MPI_ANY_SOURCE : left, r % 3,
                                comms[early_comm[e]], &ereq[e][r]));
    MPI_Request sreq[NCOMMS * ROUNDS];
    static int out[NCOMMS][ROUNDS];
    int n = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < NCOMMS; k++) {
            int kk = (k + r) % NCOMMS;                 /* rotate which goes first */
            MPI_Comm c = comms[kk];
            int peer = c == MPI_COMM_SELF ? 0 : right;
            out[kk][r] = value(kk, r, rank);
            CHECK_MPI(MPI_Isend(&out[kk][r], 1, MPI_INT, peer, r % 3, c, &sreq[n++]));
        }
    /* the others, communicator by communicator from the last, each in its own style */
    for (int k = NCOMMS - 1; k >= 0; k--) {
        if (k == early_comm[0] || k == early_comm[1])
            continue;
        MPI_Comm c = comms[k];
        int from = c == MPI_COMM_SELF ? 0 : left;
        int expect_from = c == MPI_COMM_SELF ? rank : left;
        for (int r = 0; r < ROUNDS; r++) {
            int got = -1;
            MPI_Status st;
            switch (k % 4) {
            case 0:
                CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, from, r % 3, c, &st));
                break;
            case 1:
                CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, from, MPI_ANY_TAG, c, &st));
                break;
            case 2:
                CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st));
                break;
            default: {
                MPI_Message m;
                CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &m, &st));
                CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &m, &st));
                break;
            }
            }
            int cnt = -1;
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(got == value(k, r, expect_from), "comm %d round %d: got %d, expected %d", k, r,
                  got, value(k, r, expect_from));
            CHECK(st.MPI_TAG == r % 3 && cnt == 1, "comm %d round %d: tag %d count %d", k, r,
                  st.MPI_TAG, cnt);
            CHECK(st.MPI_SOURCE == (c == MPI_COMM_SELF ? 0 : left), "comm %d: source %d", k,
                  st.MPI_SOURCE);
        }
    }
    for (int e = 0; e < 2; e++) {
        MPI_Status st[ROUNDS];
        CHECK_MPI(MPI_Waitall(ROUNDS, ereq[e], st));
        int k = early_comm[e];
        int expect_from = comms[k] == MPI_COMM_SELF ? rank : left;
        for (int r = 0; r < ROUNDS; r++)
            CHECK(early[e][r] == value(k, r, expect_from) && st[r].MPI_TAG == r % 3,
                  "early comm %d round %d: got %d tag %d, expected %d", k, r, early[e][r],
                  st[r].MPI_TAG, value(k, r, expect_from));
    }
    CHECK_MPI(MPI_Waitall(n, sreq, MPI_STATUSES_IGNORE));
}

/* Rank 0 sends on a new communicator as soon as its MPI_Comm_dup returns; rank 1 may still be
 * creating it when the message comes. */
static void early_arrival(void)
{
    int go = 0;
    MPI_Request goreq = MPI_REQUEST_NULL;
    if (rank == 1)
        CHECK_MPI(MPI_Irecv(&go, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, &goreq));
    MPI_Comm fresh;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &fresh));
    if (rank == 0) {
        int v = 4242, one = 1;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 5, fresh));
        CHECK_MPI(MPI_Send(&one, 1, MPI_INT, 1, 77, MPI_COMM_WORLD));
    } else if (rank == 1) {
        CHECK_MPI(MPI_Wait(&goreq, MPI_STATUS_IGNORE));
        int v = -1, flag = 0;
        MPI_Status st;
        CHECK_MPI(MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "the new communicator's message is visible on MPI_COMM_WORLD");
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 5, fresh, &st));
        CHECK(go == 1 && v == 4242 && st.MPI_SOURCE == 0 && st.MPI_TAG == 5,
              "early message: %d from %d tag %d", v, st.MPI_SOURCE, st.MPI_TAG);
    }
    CHECK_MPI(MPI_Comm_free(&fresh));
}

/* Rank 0's synchronous send on a duplicate waits unexpected at rank 1, which only probes it;
 * rank 0 cancels it. */
static void cancel_on_dup(MPI_Comm c)
{
    int v = 99, ready = 0;
    if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, 1, 11, c, &r));
        CHECK_MPI(MPI_Recv(&ready, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        int cancelled = 0;
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(cancelled, "a synchronous send unexpected at its receiver was not cancelled");
        CHECK_MPI(MPI_Send(&cancelled, 1, MPI_INT, 1, 13, MPI_COMM_WORLD));
        v = 100;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 11, c));
    } else if (rank == 1) {
        MPI_Status st;
        CHECK_MPI(MPI_Probe(0, 11, c, &st));           /* it is here, unexpected */
        CHECK_MPI(MPI_Send(&ready, 1, MPI_INT, 0, 12, MPI_COMM_WORLD));
        int cancelled = 0;                             /* receive only once it is decided */
        CHECK_MPI(MPI_Recv(&cancelled, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int got = -1;
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 11, c, &st));
        CHECK(got == 100, "after the cancel, received %d instead of the later message 100", got);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comms[NCOMMS];
    comms[0] = MPI_COMM_WORLD;
    comms[1] = MPI_COMM_SELF;
    for (int k = 2; k < NCOMMS - 1; k++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &comms[NCOMMS - 1]));
    for (int rep = 0; rep < 3; rep++)
        ring_traffic(comms);
    for (int rep = 0; rep < 5; rep++)
        early_arrival();
    cancel_on_dup(comms[3]);
    for (int k = 2; k < NCOMMS; k++)
        CHECK_MPI(MPI_Comm_free(&comms[k]));
    if (rank == 0)
        printf("p2p_match_comms: %d ranks, %d communicators, order and data exact\n", size,
               NCOMMS);
    MPI_Finalize();
    return 0;
}

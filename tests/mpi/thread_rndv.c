/* mempi-test: np=2,3,5 timeout=240 */
/* mempi-test: np=2,5 timeout=240 env=MEMPI_SENDREQ_MIN=0,MEMPI_SPIN=0 */
/* thread_rndv.c -- threads of a rank that all exchange rendezvous messages with the same two
 * peers at once, under MPI_THREAD_MULTIPLE.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank runs NT threads on one duplicate of MPI_COMM_WORLD, each with its own tag.  In
 * every iteration a thread sends one message to rank+1 and receives one from rank-1: large
 * (rendezvous: the receiver reads the sender's buffer, or the sender writes into a receive
 * that asked for it) in most iterations, small (eager) in the others, in rotating styles --
 * MPI_Isend then MPI_Recv (the receive often finds the rendezvous request already there and
 * reads inside the receive call), MPI_Irecv before the send (the read happens in whichever
 * thread's poll delivers the request), and MPI_Sendrecv.  So several threads of a rank are in
 * the middle of a read, a write or a send to the same peer at the same moment.  A transport
 * wait inside such an operation that let another thread in would reorder the pair's messages
 * (the receiver stops on a sequence gap), lose a queued send, or wait for an RMA completion
 * another thread's poll holds -- the last two hang.  The second line runs every receive
 * through a request for sending (the sender writes) and yields from the first fruitless poll,
 * which across nodes (tests/cluster/check-suite) widens those windows.  Each message carries
 * its sender, thread and iteration; the receiver checks the data, the status's source, tag
 * and count, and the order of one thread's messages.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define NT 4
#define ITERS 150
#define BIG (96 * 1024)

static int rank, size;
static MPI_Comm comm;

static int len_of(int t, int i)
{
    if (i % 4 == 3)
        return (i * 11 + t * 5) % 200;         /* small: eager */
    return BIG - ((i * 13 + t * 7) % 1024);     /* large: rendezvous */
}

static unsigned char byte_of(int src, int t, int i, int k)
{
    return (unsigned char)(src * 29 + t * 13 + i * 7 + k * 3);
}

static void *run(void *arg)
{
    int t = (int)(long)arg, tag = 100 + t;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *sb = malloc(BIG), *rb = malloc(BIG + 1);
    CHECK(sb && rb, "out of memory");
    for (int i = 0; i < ITERS; i++) {
        int n = len_of(t, i);
        for (int k = 0; k < n; k++)
            sb[k] = byte_of(rank, t, i, k);
        memset(rb, 0xee, BIG + 1);
        MPI_Status st;
        MPI_Request r;
        switch (i % 3) {
        case 0:                                  /* the request often arrives first */
            CHECK_MPI(MPI_Isend(sb, n, MPI_BYTE, right, tag, comm, &r));
            CHECK_MPI(MPI_Recv(rb, BIG, MPI_BYTE, left, tag, comm, &st));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        case 1:                                  /* the receive is posted first */
            CHECK_MPI(MPI_Irecv(rb, BIG, MPI_BYTE, left, tag, comm, &r));
            CHECK_MPI(MPI_Send(sb, n, MPI_BYTE, right, tag, comm));
            CHECK_MPI(MPI_Wait(&r, &st));
            break;
        default:
            CHECK_MPI(MPI_Sendrecv(sb, n, MPI_BYTE, right, tag, rb, BIG, MPI_BYTE, left, tag,
                                   comm, &st));
            break;
        }
        int got;
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == tag, "rank %d thread %d iter %d: source "
              "%d tag %d, expected %d and %d", rank, t, i, st.MPI_SOURCE, st.MPI_TAG, left, tag);
        CHECK(got == n, "rank %d thread %d iter %d: %d bytes, expected %d (another thread's or "
              "iteration's message)", rank, t, i, got, n);
        int bad = -1;
        for (int k = 0; k < n && bad < 0; k++)
            if (rb[k] != byte_of(left, t, i, k))
                bad = k;
        CHECK(bad < 0, "rank %d thread %d iter %d: byte %d of %d wrong", rank, t, i, bad, n);
        CHECK(rb[n] == 0xee, "rank %d thread %d iter %d: written past the message", rank, t, i);
    }
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    int level;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level));
    CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave thread level %d", level);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    /* the main thread is thread 0: it takes part like the others */
    pthread_t helpers[NT - 1];
    for (int t = 1; t < NT; t++)
        CHECK(pthread_create(&helpers[t - 1], NULL, run, (void *)(long)t) == 0,
              "pthread_create");
    run((void *)0L);
    for (int t = 1; t < NT; t++)
        pthread_join(helpers[t - 1], NULL);
    int flag;
    MPI_Status st;
    CHECK_MPI(MPI_Barrier(comm));
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st));
    CHECK(!flag, "a message from %d tag %d left over", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Comm_free(&comm));
    MPI_Finalize();
    return check_failures ? 1 : 0;
}

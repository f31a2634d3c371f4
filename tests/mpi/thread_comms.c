/* mempi-test: np=2,3,5 timeout=240 */
/* mempi-test: np=3 timeout=240 env=MEMPI_EAGER_MAX=256,MEMPI_SENDREQ_MIN=0 */
/* mempi-test: np=2 timeout=240 env=MEMPI_WAIT=sleep */
/* mempi-test: np=3 timeout=240 env=MEMPI_LANES=1 */
/* thread_comms.c -- threads on their own communicators and on one shared communicator with
 * different tags, under MPI_THREAD_MULTIPLE.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank runs NT threads.  Threads 0 and 1 each own a duplicate of MPI_COMM_WORLD; threads
 * 2 and 3 share a third duplicate and keep apart by tag.  Each thread exchanges ITERS
 * messages around the ring (to rank+1, from rank-1) in rotating styles: blocking MPI_Send and
 * MPI_Recv of 0-64 bytes (the fast paths when they apply), MPI_Isend with MPI_Recv,
 * MPI_Sendrecv, a receive from MPI_ANY_SOURCE on an owned communicator, and now and then a
 * message large enough for the rendezvous protocol.  Every message carries its sender's rank,
 * thread and iteration, and its length is a function of them: a receiver checks the data,
 * the status's source, tag and count, and that the messages of one thread arrive in order
 * (MPI's non-overtaking rule per communicator and tag).  A message delivered to the wrong
 * thread, out of order, truncated or with a wrong status fails the test.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define NT 4
#define ITERS 400
#define BIG (96 * 1024)

static int rank, size;
static MPI_Comm comms[3];

static MPI_Comm comm_of(int t) { return comms[t < 2 ? t : 2]; }
static int tag_of(int t) { return 10 + t; }

/* Length of the message of thread t, iteration i (both sides compute it). */
static int len_of(int t, int i)
{
    if (i % 97 == 13)
        return BIG;
    return (int)((i * 7 + t * 3) % 65);   /* 0..64 bytes */
}

static void fill(unsigned char *b, int n, int src, int t, int i)
{
    for (int k = 0; k < n; k++)
        b[k] = (unsigned char)(src * 31 + t * 17 + i * 5 + k);
}

static int verify(const unsigned char *b, int n, int src, int t, int i)
{
    for (int k = 0; k < n; k++)
        if (b[k] != (unsigned char)(src * 31 + t * 17 + i * 5 + k))
            return k;
    return -1;
}

static void *run(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comm_of(t);
    int tag = tag_of(t), right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *sb = malloc(BIG), *rb = malloc(BIG);
    CHECK(sb && rb, "out of memory");
    for (int i = 0; i < ITERS; i++) {
        int sn = len_of(t, i), rn = len_of(t, i);
        fill(sb, sn, rank, t, i);
        memset(rb, 0xee, (size_t)rn + 1 > BIG ? BIG : (size_t)rn + 1);
        MPI_Status st;
        int style = sn == BIG ? 2 : i % 4;
        int src = left;
        switch (style) {
        case 0:                                    /* blocking, small: the fast paths */
            CHECK_MPI(MPI_Send(sb, sn, MPI_BYTE, right, tag, c));
            CHECK_MPI(MPI_Recv(rb, BIG, MPI_BYTE, left, tag, c, &st));
            break;
        case 1: {                                  /* nonblocking send, blocking receive */
            MPI_Request r;
            CHECK_MPI(MPI_Isend(sb, sn, MPI_BYTE, right, tag, c, &r));
            CHECK_MPI(MPI_Recv(rb, BIG, MPI_BYTE, left, tag, c, &st));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        }
        case 2:                                    /* sendrecv (also every large message) */
            CHECK_MPI(MPI_Sendrecv(sb, sn, MPI_BYTE, right, tag, rb, BIG, MPI_BYTE, left, tag,
                                   c, &st));
            break;
        default:                                   /* any source where nobody else sends */
            if (t < 2)
                src = MPI_ANY_SOURCE;
            CHECK_MPI(MPI_Send(sb, sn, MPI_BYTE, right, tag, c));
            CHECK_MPI(MPI_Recv(rb, BIG, MPI_BYTE, src, tag, c, &st));
            break;
        }
        int got;
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(st.MPI_SOURCE == left, "rank %d thread %d iter %d: source %d, expected %d", rank, t,
              i, st.MPI_SOURCE, left);
        CHECK(st.MPI_TAG == tag, "rank %d thread %d iter %d: tag %d, expected %d", rank, t, i,
              st.MPI_TAG, tag);
        CHECK(got == rn, "rank %d thread %d iter %d: %d bytes, expected %d (another thread's or "
              "another iteration's message)", rank, t, i, got, rn);
        int bad = verify(rb, rn, left, t, i);
        CHECK(bad < 0, "rank %d thread %d iter %d: byte %d of %d wrong", rank, t, i, bad, rn);
        if (rn < BIG)
            CHECK(rb[rn] == 0xee, "rank %d thread %d iter %d: written past the message", rank, t,
                  i);
    }
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k < 3; k++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]));
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, run, (void *)(long)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    /* nothing may be left over: a stray message would show up here */
    for (int k = 0; k < 3; k++) {
        int flag;
        MPI_Status st;
        CHECK_MPI(MPI_Barrier(comms[k]));
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[k], &flag, &st));
        CHECK(!flag, "a message from %d tag %d left on communicator %d", st.MPI_SOURCE,
              st.MPI_TAG, k);
        CHECK_MPI(MPI_Comm_free(&comms[k]));
    }
    MPI_Finalize();
    return check_failures ? 1 : 0;
}

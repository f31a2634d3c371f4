/* mempi-test: np=2,3,5 timeout=300 */
/* mempi-test: np=2,4 timeout=300 env=MEMPI_SPLIT_COPY=1 */
/* mempi-test: np=3 timeout=300 env=MEMPI_SPLIT_COPY=1,MEMPI_SHM_CELLS=4 */
/* thread_bigcopy.c -- threads on their own communicators moving large messages at once, under
 * MPI_THREAD_MULTIPLE.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Large single copies through shared memory run without the big lock (src/pt2pt/copy.c): a
 * rendezvous pull leaves the packet handler for a progress hook, a remote write copies while
 * its send stays at the head of its peer's queue.  Here NT threads per rank, each on its own
 * duplicate of MPI_COMM_WORLD, exchange 160 KiB - 2 MiB messages around a ring, so that
 * several threads of one rank copy to and from the same peers at the same time:
 *   - receive first: MPI_Irecv, a zero-byte handshake, then MPI_Send -- the sender finds the
 *     request for sending and writes (its RWDONE must keep its place behind any other send);
 *   - send first: MPI_Isend, the handshake, then MPI_Recv -- the receive matches an
 *     unexpected rendezvous and the pull runs in the wait's poll;
 *   - a non-contiguous receive (a vector type), which copies under the lock, mixed in;
 *   - eager messages between the large ones on the same pair (order across the paths);
 *   - a receive that no message matches, cancelled while its request for sending is out.
 * Each message carries its sender, thread and iteration; the receiver checks every byte, the
 * status's source, tag and count, and each thread's order.  The second line forces two-core
 * copies, so two threads of a process may try to own one at once (one gets it, the other
 * copies alone); the third also shrinks the queues, so control packets (a copy's SPLIT) wait
 * in the sender's control queue and must still reach the receiver before the message's
 * RWDONE.  At the end, if some rank wrote by remote write to a node-mate, at least one
 * copy must have run outside the lock (the counter mempi_unlocked_copies).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "counters.h"
#include "node.h"

#define NT 3
#define ITERS 18
#define MAXLEN ((2 << 20) + 64)

static int rank, size;
static MPI_Comm comms[NT];

static int len_of(int t, int i)
{
    static const int sizes[] = { 160 << 10, (1 << 20) + 13, (2 << 20) - 5, (300 << 10) + 7 };
    return sizes[(i + t) % 4];
}

static unsigned char byte_of(int src, int t, int i, int k)
{
    return (unsigned char)(src * 31 + t * 17 + i * 5 + k * 7 + (k >> 12));
}

static void fill(unsigned char *b, int src, int t, int i, int n)
{
    for (int k = 0; k < n; k++)
        b[k] = byte_of(src, t, i, k);
}

static void check_data(const unsigned char *b, int src, int t, int i, int n, const char *what)
{
    for (int k = 0; k < n; k++)
        if (b[k] != byte_of(src, t, i, k))
            FAIL("thread %d iteration %d (%s): byte %d of %d is %u, expected %u", t, i, what,
                 k, n, b[k], byte_of(src, t, i, k));
}

static void check_status(const MPI_Status *st, int src, int tag, int n, const char *what)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n,
          "%s: status source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE,
          st->MPI_TAG, count, src, tag, n);
}

/* A receive nobody sends to, cancelled: it must complete as cancelled. */
static void cancel_unmatched(MPI_Comm c, int left, unsigned char *rb)
{
    MPI_Request r;
    MPI_Status st;
    int cancelled = 0;
    CHECK_MPI(MPI_Irecv(rb, 1 << 20, MPI_BYTE, left, 999, c, &r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "a receive that nothing matches was not cancelled");
}

static void *run(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *sb = malloc(MAXLEN), *rb = malloc(MAXLEN), *small = malloc(64);
    unsigned char *strided = malloc(2 * (size_t)MAXLEN);
    CHECK(sb && rb && small && strided, "out of memory");
    for (int i = 0; i < ITERS; i++) {
        int n = len_of(t, i), tag = i % 7;
        fill(sb, rank, t, i, n);
        memset(rb, 0xee, MAXLEN);
        MPI_Status st;
        MPI_Request r;
        switch (i % 3) {
        case 0:                           /* receive first: the sender writes */
            CHECK_MPI(MPI_Irecv(rb, MAXLEN, MPI_BYTE, left, tag, c, &r));
            CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 50, NULL, 0, MPI_BYTE, right, 50, c,
                                   MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send(sb, n, MPI_BYTE, right, tag, c));
            CHECK_MPI(MPI_Wait(&r, &st));
            break;
        case 1:                           /* send first: the receiver pulls */
            CHECK_MPI(MPI_Isend(sb, n, MPI_BYTE, right, tag, c, &r));
            CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, right, 51, NULL, 0, MPI_BYTE, left, 51, c,
                                   MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Recv(rb, MAXLEN, MPI_BYTE, left, tag, c, &st));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        default: {                        /* eager after large, and a strided receive */
            MPI_Request rs[2];
            MPI_Datatype vec;
            int nn = n / 2;
            CHECK_MPI(MPI_Type_vector(nn, 1, 2, MPI_BYTE, &vec));
            CHECK_MPI(MPI_Type_commit(&vec));
            memset(strided, 0xee, 2 * (size_t)nn);
            for (int k = 0; k < 64; k++)
                small[k] = byte_of(rank, t, i + 1000, k);
            CHECK_MPI(MPI_Isend(sb, nn, MPI_BYTE, right, tag, c, &rs[0]));
            CHECK_MPI(MPI_Isend(small, 64, MPI_BYTE, right, tag, c, &rs[1]));
            CHECK_MPI(MPI_Recv(strided, 1, vec, left, tag, c, &st));
            check_status(&st, left, tag, nn, "strided receive");
            for (int k = 0; k < nn; k++)
                rb[k] = strided[2 * k];
            check_data(rb, left, t, i, nn, "strided receive");
            CHECK_MPI(MPI_Recv(rb, 64, MPI_BYTE, left, tag, c, &st));
            check_status(&st, left, tag, 64, "eager after large");
            check_data(rb, left, t, i + 1000, 64, "eager after large");
            CHECK_MPI(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
            MPI_Type_free(&vec);
            if (i % 6 == 2)
                cancel_unmatched(c, left, rb);
            continue;
        }
        }
        check_status(&st, left, tag, n, i % 3 == 0 ? "receive first" : "send first");
        check_data(rb, left, t, i, n, i % 3 == 0 ? "receive first" : "send first");
        CHECK(rb[n] == 0xee, "thread %d iteration %d: byte past the message written", t, i);
    }
    free(sb);
    free(rb);
    free(small);
    free(strided);
    return NULL;
}

/* 1 if rank+1 is another process of this rank's node (sends to it go through shared memory). */
static int right_on_node(void)
{
    int right = (rank + 1) % size;
    return right != rank && on_my_node(right);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NT; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    counters_open();                  /* mempi_unlocked_copies, mempi_sendreq_bytes: from here */
    MPI_T_pvar_handle h_unlocked = counter_start("mempi_unlocked_copies");
    MPI_T_pvar_handle h_written = counter_start("mempi_sendreq_bytes");
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, run, (void *)(long)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&comms[t]);

    /* Single copy may be refused by the kernel; a rank whose right neighbour shares its node
     * and that delivered bytes by remote write shows that it was on. */
    unsigned long long unlocked, written, mine[2], all[2];
    unlocked = counter_read(h_unlocked);
    written = counter_read(h_written);
    counters_close();
    mine[0] = unlocked;
    mine[1] = right_on_node() && written > 0;
    MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all[1] > 0)
        CHECK(all[0] > 0, "no single copy ran outside the big lock (%llu ranks wrote to a "
              "node-mate)", all[1]);
    MPI_Finalize();
    return check_failures ? 1 : 0;
}

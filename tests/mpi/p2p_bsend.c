/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_EAGER_MAX=0 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_EAGER_MAX=0,MEMPI_CMA=0 */
/* p2p_bsend.c -- buffered sends with exactly MPI_BSEND_OVERHEAD + size bytes per message.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The standard (MPI-4.1 section 3.6.1) promises that a buffer of the packed size plus
 * MPI_BSEND_OVERHEAD per message is enough.  For sizes around every rounding boundary and
 * beyond the eager limit, with exactly that much attached, each rank:
 *   - sends to itself with MPI_Bsend, MPI_Ibsend, MPI_Bsend_init + MPI_Start (twice on one
 *     buffer: a block is reused once its message has gone);
 *   - sends around the ring (rank+1), the three kinds in a row into one buffer of three
 *     messages, receiving from rank-1 (mpi4py's testPersistent pattern: Bsend_init and
 *     Recv_init started together, then detach);
 *   - rank 0 -> rank 1 and back: Ibsend + Wait, Bsend, detach while the receiver has not yet
 *     received (mpi4py's testSendRecv: detach waits for the messages to leave);
 * and checks data, status (source, tag, count) and that MPI_Buffer_detach returns the
 * attached address and size.  One byte less than the promise must give MPI_ERR_BUFFER
 * (with MPI_ERRORS_RETURN), never a hang.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fill(char *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = (char)(i * 7 + seed);
}

static void check_recv(const char *b, int n, int seed, const MPI_Status *st, int src, int tag)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n,
          "status source %d tag %d count %d, expected %d/%d/%d", st->MPI_SOURCE, st->MPI_TAG,
          count, src, tag, n);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == (char)(i * 7 + seed), "byte %d of %d (seed %d) wrong", i, n, seed);
}

static void detach_check(void *buf, int bytes)
{
    void *got;
    int got_size;
    MPI_Buffer_detach(&got, &got_size);
    CHECK(got == buf && got_size == bytes, "detach gave %p/%d, attached %p/%d", got, got_size,
          buf, bytes);
}

static void self_sends(int n, char *out, char *in)
{
    int bytes = MPI_BSEND_OVERHEAD + n;
    char *buf = malloc((size_t)bytes);
    MPI_Status st;
    MPI_Request req;
    MPI_Buffer_attach(buf, bytes);

    fill(out, n, 1);
    CHECK(MPI_Bsend(out, n, MPI_BYTE, rank, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "Bsend %d", n);
    memset(out, 0, (size_t)n);                   /* the data was copied out */
    MPI_Recv(in, n, MPI_BYTE, rank, 1, MPI_COMM_WORLD, &st);
    check_recv(in, n, 1, &st, rank, 1);

    fill(out, n, 2);
    CHECK(MPI_Ibsend(out, n, MPI_BYTE, rank, 2, MPI_COMM_WORLD, &req) == MPI_SUCCESS, "Ibsend %d", n);
    MPI_Wait(&req, &st);
    CHECK(req == MPI_REQUEST_NULL, "Ibsend request not freed");
    MPI_Recv(in, n, MPI_BYTE, rank, 2, MPI_COMM_WORLD, &st);
    check_recv(in, n, 2, &st, rank, 2);

    MPI_Bsend_init(out, n, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &req);
    for (int round = 0; round < 2; round++) {
        fill(out, n, 3 + round);
        CHECK(MPI_Start(&req) == MPI_SUCCESS, "Start of Bsend_init %d", n);
        MPI_Wait(&req, &st);
        CHECK(req != MPI_REQUEST_NULL, "persistent request freed by Wait");
        MPI_Recv(in, n, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &st);
        check_recv(in, n, 3 + round, &st, rank, 3);
    }
    MPI_Request_free(&req);
    detach_check(buf, bytes);
    free(buf);
}

static void ring_sends(int n, char *out, char *in)
{
    int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    int bytes = 3 * (MPI_BSEND_OVERHEAD + n);
    char *buf = malloc((size_t)bytes);
    char *out2 = malloc((size_t)n + 1), *out3 = malloc((size_t)n + 1);
    MPI_Request sreq[2], preq[2];
    MPI_Status st;
    MPI_Buffer_attach(buf, bytes);

    /* three buffered sends of the three kinds in a row, then receive them in order */
    fill(out, n, 10);
    fill(out2, n, 11);
    fill(out3, n, 12);
    MPI_Bsend(out, n, MPI_BYTE, dest, 5, MPI_COMM_WORLD);
    MPI_Ibsend(out2, n, MPI_BYTE, dest, 5, MPI_COMM_WORLD, &sreq[0]);
    MPI_Bsend_init(out3, n, MPI_BYTE, dest, 5, MPI_COMM_WORLD, &sreq[1]);
    MPI_Start(&sreq[1]);
    for (int k = 0; k < 3; k++) {
        MPI_Recv(in, n, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st);
        check_recv(in, n, 10 + k, &st, src, 5);
    }
    MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
    CHECK(sreq[0] == MPI_REQUEST_NULL && sreq[1] != MPI_REQUEST_NULL, "Waitall handles");
    MPI_Request_free(&sreq[1]);
    detach_check(buf, bytes);

    /* mpi4py's testPersistent: one message's worth, Bsend_init and Recv_init started
     * together, both waited, then detach */
    bytes = MPI_BSEND_OVERHEAD + n;
    MPI_Buffer_attach(buf, bytes);
    fill(out, n, 20);
    MPI_Bsend_init(out, n, MPI_BYTE, dest, 6, MPI_COMM_WORLD, &preq[0]);
    MPI_Recv_init(in, n + 1, MPI_BYTE, src, 6, MPI_COMM_WORLD, &preq[1]);
    MPI_Start(&preq[0]);
    MPI_Start(&preq[1]);
    MPI_Wait(&preq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&preq[1], &st);
    check_recv(in, n, 20, &st, src, 6);
    detach_check(buf, bytes);
    MPI_Request_free(&preq[0]);
    MPI_Request_free(&preq[1]);
    free(out2);
    free(out3);
    free(buf);
}

/* mpi4py's testSendRecv: the sender detaches before the receiver has received. */
static void detach_before_receive(int n, char *out, char *in)
{
    int bytes = 2 * (MPI_BSEND_OVERHEAD + n);
    char *buf = malloc((size_t)bytes);
    MPI_Request req;
    MPI_Status st;
    for (int sender = 0; sender < 2; sender++) {
        int other = 1 - sender;
        if (rank == sender) {
            MPI_Buffer_attach(buf, bytes);
            fill(out, n, 30);
            MPI_Ibsend(out, n, MPI_BYTE, other, 7, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            fill(out, n, 31);
            MPI_Bsend(out, n, MPI_BYTE, other, 7, MPI_COMM_WORLD);
            detach_check(buf, bytes);
            MPI_Send(out, n, MPI_BYTE, other, 7, MPI_COMM_WORLD);
        } else if (rank == other) {
            for (int k = 0; k < 3; k++) {
                MPI_Recv(in, n, MPI_BYTE, sender, 7, MPI_COMM_WORLD, &st);
                check_recv(in, n, k == 0 ? 30 : 31, &st, sender, 7);
            }
        }
    }
    free(buf);
}

static void too_small(int n, char *out)
{
    int bytes = MPI_BSEND_OVERHEAD + n - 1, cls;
    char *buf = malloc((size_t)bytes);
    MPI_Buffer_attach(buf, bytes);
    int err = MPI_Bsend(out, n, MPI_BYTE, rank, 9, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "Bsend of %d bytes into %d bytes: error class %d, not "
          "MPI_ERR_BUFFER", n, bytes, cls);
    detach_check(buf, bytes);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a failed Bsend sent a message");
    free(buf);
}

int main(int argc, char **argv)
{
    static const int sizes[] = { 0, 1, 2, 15, 16, 17, 31, 63, 64, 65, 100, 1000, 4095, 4096,
                                 16383, 16384, 16385, 70001 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *out = malloc(80000), *in = malloc(80000);
    int tests = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        self_sends(n, out, in);
        ring_sends(n, out, in);
        if (size >= 2)
            detach_before_receive(n, out, in);
        if (n > 0)
            too_small(n, out);
        tests++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(out);
    free(in);
    if (rank == 0)
        printf("p2p_bsend: %d ranks, %d sizes, buffered sends fit MPI_BSEND_OVERHEAD + size\n",
               size, tests);
    MPI_Finalize();
    return 0;
}

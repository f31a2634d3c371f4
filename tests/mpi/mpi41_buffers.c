/* mempi-test: np=1,2,3,5 timeout=180 */
/* mpi41_buffers.c -- MPI 4.1's buffers for buffered sends per process, communicator and
 * session, with MPI_BUFFER_AUTOMATIC and the flush calls.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends buffered messages to its right neighbour and receives from its left one,
 * checking data, source and tag:
 *   - a communicator buffer too small for two messages: the second Bsend fails with
 *     MPI_ERR_BUFFER although the process buffer is large (the communicator's is used first),
 *     and succeeds after MPI_Comm_flush_buffer once the receiver has drained the first;
 *     on a duplicate (which has no buffer of its own) the same sends use the process buffer;
 *   - MPI_BUFFER_AUTOMATIC on a communicator: 50 buffered sends of 4 KiB pend at once with no
 *     user memory (the send buffers are overwritten before the receives), received out of
 *     order; MPI_Comm_iflush_buffer's request, made before the receives, completes after
 *     them; MPI_Comm_detach_buffer returns MPI_BUFFER_AUTOMATIC;
 *   - a session buffer: a communicator built from the session's mpi://WORLD group sends
 *     buffered through MPI_Session_attach_buffer's buffer (no process buffer attached: without
 *     the session's the send would fail), MPI_Session_flush_buffer/iflush, detach;
 *   - errors: attaching twice (MPI_ERR_BUFFER), detaching nothing from a communicator.
 * MPICH 4.0.2 has none of these functions (MPI 4.1), so there is no cross-check.
 */
#include <mpi.h>
#include "check.h"
#include <stdlib.h>
#include <string.h>

enum { NAUTO = 50, AUTO_INTS = 1024 };

static void exchange_one(MPI_Comm comm, int tag, int value)
{
    int rank, size, got = -1;
    MPI_Status st;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK_MPI(MPI_Bsend(&value, 1, MPI_INT, (rank + 1) % size, tag, comm));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, tag, comm, &st));
    CHECK(got == value - rank + (rank + size - 1) % size, "tag %d: got %d", tag, got);
    CHECK(st.MPI_SOURCE == (rank + size - 1) % size && st.MPI_TAG == tag, "status %d/%d",
          st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    /* Process buffer large, communicator buffer room for one int message only. */
    int big_size = 16 * (MPI_BSEND_OVERHEAD + 64);
    char *big = malloc((size_t)big_size);
    CHECK_MPI(MPI_Buffer_attach(big, big_size));
    int small_size = MPI_BSEND_OVERHEAD + (int)sizeof(int);
    char *small = malloc((size_t)small_size);
    CHECK_MPI(MPI_Comm_attach_buffer(comm, small, small_size));
    CHECK_CLASS(MPI_Comm_attach_buffer(comm, small, small_size), MPI_ERR_BUFFER);
    int one = 100 + rank, two = 200 + rank;
    CHECK_MPI(MPI_Bsend(&one, 1, MPI_INT, right, 1, comm));
    /* The first message may still sit in the buffer: a second cannot fit beside it unless it
     * left already, so only a failure is checked for its class. */
    int err = MPI_Bsend(&two, 1, MPI_INT, right, 2, comm);
    if (err != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_BUFFER, "second Bsend into a full communicator buffer: class %d",
              cls);
    }
    int got;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, left, 1, comm, &st));
    CHECK(got == 100 + left && st.MPI_SOURCE == left && st.MPI_TAG == 1, "first: %d", got);
    CHECK_MPI(MPI_Comm_flush_buffer(comm));
    if (err != MPI_SUCCESS)
        CHECK_MPI(MPI_Bsend(&two, 1, MPI_INT, right, 2, comm));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, left, 2, comm, &st));
    CHECK(got == 200 + left && st.MPI_TAG == 2, "second: %d", got);
    void *addr;
    int n;
    CHECK_MPI(MPI_Comm_detach_buffer(comm, &addr, &n));
    CHECK(addr == small && n == small_size, "comm detach gave %p/%d", addr, n);
    CHECK_CLASS(MPI_Comm_detach_buffer(comm, &addr, &n), MPI_ERR_BUFFER);

    /* A duplicate has no buffer of its own: several messages fit in the process buffer. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < 4; i++)
        exchange_one(dup, 10 + i, 1000 * i + rank);
    CHECK_MPI(MPI_Buffer_flush());
    MPI_Request freq;
    CHECK_MPI(MPI_Buffer_iflush(&freq));
    CHECK_MPI(MPI_Wait(&freq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Buffer_detach(&addr, &n));
    CHECK(addr == big && n == big_size, "process detach gave %p/%d", addr, n);

    /* Automatic buffering: many large messages pending at once, no user memory. */
    CHECK_MPI(MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0));
    int *out = malloc(sizeof(int) * NAUTO * AUTO_INTS), *in = malloc(sizeof(int) * AUTO_INTS);
    for (int m = 0; m < NAUTO; m++) {
        for (int i = 0; i < AUTO_INTS; i++)
            out[m * AUTO_INTS + i] = rank * 1000000 + m * 1000 + i;
        CHECK_MPI(MPI_Bsend(out + m * AUTO_INTS, AUTO_INTS, MPI_INT, right, 100 + m, comm));
    }
    memset(out, 0xff, sizeof(int) * NAUTO * AUTO_INTS);   /* the library holds copies */
    MPI_Request iflush;
    CHECK_MPI(MPI_Comm_iflush_buffer(comm, &iflush));
    for (int m = NAUTO - 1; m >= 0; m--) {                 /* out of order: matched by tag */
        CHECK_MPI(MPI_Recv(in, AUTO_INTS, MPI_INT, left, 100 + m, comm, &st));
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == AUTO_INTS && st.MPI_SOURCE == left, "automatic message %d: count %d", m,
              cnt);
        for (int i = 0; i < AUTO_INTS; i++)
            CHECK(in[i] == left * 1000000 + m * 1000 + i, "automatic message %d [%d] = %d",
                  m, i, in[i]);
    }
    CHECK_MPI(MPI_Wait(&iflush, &st));
    CHECK_MPI(MPI_Comm_detach_buffer(comm, &addr, &n));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "detach of an automatic buffer gave %p", addr);
    free(out);
    free(in);

    /* A session's buffer serves the communicators built from its process sets. */
    MPI_Session session;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    MPI_Group g;
    CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &g));
    MPI_Comm scomm;
    CHECK_MPI(MPI_Comm_create_from_group(g, "mpi41_buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                         &scomm));
    int ssize = 4 * (MPI_BSEND_OVERHEAD + 64);
    char *sbuf = malloc((size_t)ssize);
    CHECK_MPI(MPI_Session_attach_buffer(session, sbuf, ssize));
    CHECK_CLASS(MPI_Session_attach_buffer(session, sbuf, ssize), MPI_ERR_BUFFER);
    exchange_one(scomm, 7, 77 + rank);
    CHECK_MPI(MPI_Session_flush_buffer(session));
    exchange_one(scomm, 8, 88 + rank);
    CHECK_MPI(MPI_Session_iflush_buffer(session, &freq));
    CHECK_MPI(MPI_Wait(&freq, MPI_STATUS_IGNORE));
    MPI_Count cn;
    CHECK_MPI(MPI_Session_detach_buffer_c(session, &addr, &cn));
    CHECK(addr == sbuf && cn == ssize, "session detach gave %p/%ld", addr, (long)cn);
    /* Nothing attached anywhere now: a buffered send fails. */
    CHECK_CLASS(MPI_Bsend(&one, 1, MPI_INT, right, 9, scomm), MPI_ERR_BUFFER);
    MPI_Comm_free(&scomm);
    MPI_Group_free(&g);
    CHECK_MPI(MPI_Session_finalize(&session));
    free(sbuf);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    free(big);
    free(small);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi41_buffers: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=2,3,4,6 timeout=120 */
/* p2p_recv_arrived.c -- blocking receives of messages that already arrived.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Recv of a message that is already here, whole and unexpected, is copied out without a
 * request (src/pt2pt/fast.c, mp_recv_arrived).  Ranks pair up (even with the odd one above;
 * a last odd rank out only takes part in the barriers).  The sender sends, with no receive
 * posted: a synchronous message (MPI_Issend), a strided one, one too long for the receive
 * buffer, three that a wildcard receive must take in order, an empty one, and a marker; the
 * receiver probes the marker, so everything before it has arrived, and then receives them in
 * another order.  Checked: data (also through a vector type), status source, tag and count,
 * the truncation error under MPI_ERRORS_RETURN (and that the next receive still works), the
 * wildcard receives' order, and that the synchronous send completes only once received (its
 * MPI_Test stays false until the receiver says it received it).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <string.h>

static int rank, size;

static void sender(int peer)
{
    int sync_val = 11, seq[3] = { 51, 52, 53 }, marker = 99, go = 0, flag = 1;
    double strided[8];
    char longmsg[100];
    for (int i = 0; i < 8; i++)
        strided[i] = 1.5 * i;
    memset(longmsg, 'x', sizeof longmsg);
    MPI_Request sreq, r[6];
    CHECK_MPI(MPI_Issend(&sync_val, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &sreq));
    CHECK_MPI(MPI_Isend(strided, 8, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Isend(longmsg, 100, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &r[1]));
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Isend(&seq[i], 1, MPI_INT, peer, 5 + i, MPI_COMM_WORLD, &r[2 + i]));
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_INT, peer, 8, MPI_COMM_WORLD, &r[5]));
    CHECK_MPI(MPI_Send(&marker, 1, MPI_INT, peer, 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a synchronous send completed before its receive was posted");
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 20, MPI_COMM_WORLD));   /* "test it now" */
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
}

static void receiver(int peer)
{
    MPI_Status st;
    int v = -1, cnt = -1, go = 0;
    CHECK_MPI(MPI_Probe(peer, 9, MPI_COMM_WORLD, &st));   /* all the rest has arrived */
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    /* a wildcard tag takes the earliest-arrived message: the synchronous one (tag 1) */
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(v == 11 && st.MPI_TAG == 1 && st.MPI_SOURCE == peer, "sync message: %d tag %d from %d",
          v, st.MPI_TAG, st.MPI_SOURCE);
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, peer, 21, MPI_COMM_WORLD));

    /* strided receive: every other double of a 16-element array */
    double into[16];
    for (int i = 0; i < 16; i++)
        into[i] = -1;
    MPI_Datatype every_other;
    MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    CHECK_MPI(MPI_Recv(into, 1, every_other, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK(cnt == 8 && st.MPI_SOURCE == peer, "strided: count %d source %d", cnt, st.MPI_SOURCE);
    for (int i = 0; i < 16; i++)
        CHECK(into[i] == (i % 2 ? -1 : 1.5 * (i / 2)), "strided element %d: %g", i, into[i]);
    MPI_Type_free(&every_other);

    /* too long: MPI_ERR_TRUNCATE, the buffer's 50 bytes filled, the library still usable */
    char shortbuf[64];
    memset(shortbuf, 0, sizeof shortbuf);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Recv(shortbuf, 50, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &st), cls = -1;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "long message into a short buffer: class %d", cls);
    CHECK(shortbuf[0] == 'x' && shortbuf[49] == 'x' && shortbuf[50] == 0,
          "truncated data: %d %d %d", shortbuf[0], shortbuf[49], shortbuf[50]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* the three with consecutive tags, by a wildcard receive: in the order sent */
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(v == 51 + i && st.MPI_TAG == 5 + i, "wildcard %d: %d tag %d", i, v, st.MPI_TAG);
    }
    CHECK_MPI(MPI_Recv(&v, 0, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 0 && st.MPI_TAG == 8, "empty message: count %d tag %d", cnt, st.MPI_TAG);
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &st));
    CHECK(v == 99, "marker %d", v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 20; round++) {
        if (rank % 2 == 0 && rank + 1 < size)
            sender(rank + 1);
        else if (rank % 2 == 1)
            receiver(rank - 1);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("p2p_recv_arrived: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}

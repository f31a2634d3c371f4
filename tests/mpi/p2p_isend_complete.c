/* mempi-test: np=2,3,4,5 timeout=120 */
/* p2p_isend_complete.c -- MPI_Isend requests that completed at the call behave as requests.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A small MPI_Isend that the fast path hands over is complete when the call returns and may
 * share its request with other such sends (src/pt2pt/fast.c, core/request.c).  Whatever a
 * library does with them, MPI requires of each handle: MPI_Request_get_status says complete
 * and leaves the handle; MPI_Test and MPI_Wait reset it to MPI_REQUEST_NULL; MPI_Cancel of a
 * complete send does not cancel it; MPI_Request_free of one handle leaves the others usable;
 * the array forms (Waitall, Waitany, Waitsome, Testall, Testany, Testsome) finish each handle
 * once, also when one value appears several times, next to requests of large messages that
 * are still in progress; and every message arrives once, in order, with its data.  Ring:
 * each rank sends to rank+1 and receives from rank-1.  That they are complete at the call is
 * MemPI's behaviour when the neighbour shares the node, checked too (MPI allows a send to
 * complete later, and over the network MemPI's do).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 24
#define BIG (256 * 1024)

static int rank, size, right, left;
static int right_here;      /* the right neighbour shares this node: shared-memory fast path */

static void expect_null(MPI_Request r, const char *what)
{
    CHECK(r == MPI_REQUEST_NULL, "%s left the handle 0x%x", what, (unsigned)r);
}

/* Receives the N small messages of round `round` from the left, in order. */
static void receive_round(int round)
{
    for (int i = 0; i < N; i++) {
        int got = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
        CHECK(got == left * 10000 + round * 100 + i, "round %d message %d: got %d", round, i, got);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5, "status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    }
}

/* After a barrier every earlier message was received, so the ring to the right has room for
 * all N (its 64 cells): MemPI hands each one over at the call. */
static void small_round(int round, MPI_Request *r, int *vals)
{
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        vals[i] = rank * 10000 + round * 100 + i;
        CHECK_MPI(MPI_Isend(&vals[i], 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[i]));
        CHECK(r[i] != MPI_REQUEST_NULL, "MPI_Isend gave MPI_REQUEST_NULL");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Group wg, ng;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(node, &ng);
    int right_in_node;
    MPI_Group_translate_ranks(wg, 1, &right, ng, &right_in_node);
    right_here = right_in_node != MPI_UNDEFINED;
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    MPI_Comm_free(&node);
    MPI_Request r[N + 2];
    MPI_Status st[N + 2];
    int vals[N], flag, idx, outcount, indices[N + 2];
    char *big = malloc(BIG), *bigin = malloc(BIG);
    memset(big, rank + 1, BIG);

    /* round 0: get_status leaves the handle, Test and Wait reset it */
    small_round(0, r, vals);
    for (int i = 0; i < N; i++) {
        flag = 0;
        CHECK_MPI(MPI_Request_get_status(r[i], &flag, &st[0]));
        CHECK(flag == 1 || !right_here, "a small MPI_Isend is not complete: get_status flag %d",
              flag);
        CHECK(r[i] != MPI_REQUEST_NULL, "MPI_Request_get_status reset the handle");
    }
    for (int i = 0; i < N; i++) {
        if (i % 2) {
            CHECK_MPI(MPI_Test(&r[i], &flag, &st[0]));
            CHECK(flag == 1 || !right_here, "MPI_Test: flag %d", flag);
            if (!flag)                             /* over the network: not yet */
                CHECK_MPI(MPI_Wait(&r[i], &st[0]));
        } else {
            CHECK_MPI(MPI_Wait(&r[i], &st[0]));
        }
        expect_null(r[i], "MPI_Test/MPI_Wait");
    }
    receive_round(0);

    /* round 1: cancel does not cancel, free of one leaves the others, the same value twice
     * in an array with a large send in progress */
    small_round(1, r, vals);
    CHECK_MPI(MPI_Cancel(&r[0]));
    CHECK_MPI(MPI_Wait(&r[0], &st[0]));
    int cancelled = 1;
    CHECK_MPI(MPI_Test_cancelled(&st[0], &cancelled));
    CHECK(!cancelled, "a complete send was cancelled");
    CHECK_MPI(MPI_Request_free(&r[1]));
    expect_null(r[1], "MPI_Request_free");
    MPI_Request bigr[2];
    CHECK_MPI(MPI_Irecv(bigin, BIG, MPI_CHAR, left, 6, MPI_COMM_WORLD, &bigr[0]));
    CHECK_MPI(MPI_Isend(big, BIG, MPI_CHAR, right, 6, MPI_COMM_WORLD, &bigr[1]));
    r[N] = bigr[0];
    r[N + 1] = bigr[1];
    if (right_here)                /* the shared completed request twice in the array (a live */
        r[0] = r[2];               /* request of its own may not appear twice: erroneous)    */
    CHECK_MPI(MPI_Waitall(N + 2, r, st));
    for (int i = 0; i < N + 2; i++)
        expect_null(r[i], "MPI_Waitall");
    for (int i = 0; i < BIG; i++)
        if (bigin[i] != (char)(left + 1)) {
            CHECK(0, "large message byte %d: %d", i, bigin[i]);
            break;
        }
    receive_round(1);

    /* round 2: Waitany, Waitsome, Testall, Testany, Testsome */
    small_round(2, r, vals);
    int left_to_finish = N;
    while (left_to_finish > N / 2) {
        CHECK_MPI(MPI_Waitany(N, r, &idx, &st[0]));
        CHECK(idx >= 0 && idx < N && r[idx] == MPI_REQUEST_NULL, "MPI_Waitany index %d", idx);
        left_to_finish--;
    }
    while (left_to_finish > 0) {
        CHECK_MPI(MPI_Waitsome(N, r, &outcount, indices, st));
        CHECK(outcount >= 1 && outcount <= left_to_finish, "MPI_Waitsome finished %d of %d",
              outcount, left_to_finish);
        CHECK(outcount == N / 2 || !right_here, "MPI_Waitsome finished %d of %d complete sends",
              outcount, N / 2);
        for (int k = 0; k < outcount; k++)
            expect_null(r[indices[k]], "MPI_Waitsome");
        left_to_finish -= outcount;
    }
    flag = 0;
    CHECK_MPI(MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1, "MPI_Testall on finished handles: flag %d", flag);
    CHECK_MPI(MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "MPI_Testany on null handles: %d %d", flag, idx);
    CHECK_MPI(MPI_Testsome(N, r, &outcount, indices, MPI_STATUSES_IGNORE));
    CHECK(outcount == MPI_UNDEFINED, "MPI_Testsome on null handles: %d", outcount);
    receive_round(2);

    /* round 3: Testsome on live ones */
    small_round(3, r, vals);
    CHECK_MPI(MPI_Testsome(N, r, &outcount, indices, MPI_STATUSES_IGNORE));
    CHECK(outcount == N || !right_here, "MPI_Testsome finished %d of %d complete sends",
          outcount, N);
    for (int k = 0; k < outcount && outcount != MPI_UNDEFINED; k++)
        expect_null(r[indices[k]], "MPI_Testsome");
    CHECK_MPI(MPI_Waitall(N, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        expect_null(r[i], "MPI_Waitall");
    receive_round(3);

    free(big);
    free(bigin);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_isend_complete: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}

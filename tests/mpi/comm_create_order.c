/* mempi-test: np=2,3,4,5 timeout=120 */
/* comm_create_order.c -- MPI_THREAD_MULTIPLE: creations that one process runs at once on two
 * threads and its partner runs one after the other, in the opposite order.  MemPI, BSD-3-Clause
 * (see LICENSE).
 *
 * Ranks pair up (2k, 2k+1; an odd last rank only joins the final barrier).  The even rank
 * starts MPI_Comm_create_group "G" (tag 1) on one thread and, a moment later, "X" (tag 2) on
 * another; the odd rank creates X, then G.  So the even rank waits in G for a partner that is
 * still in X, while X needs the even rank's second thread.  A context-id agreement that held
 * the process's id mask for the whole of G's round made every round of X fail at the even
 * rank for as long as G waited: for ever.  Every new communicator carries an exchange checked
 * for data and status; 10 rounds.
 */
#include <mpi.h>
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ROUNDS = 10, TAG_G = 1, TAG_X = 2 };
static int wrank, wsize;
static MPI_Group pair;

static void create_and_check(int tag, int round)
{
    MPI_Comm c;
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, pair, tag, &c) == MPI_SUCCESS,
          "Comm_create_group tag %d round %d", tag, round);
    int rank, size, got = -1;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    CHECK(size == 2 && rank == wrank % 2, "tag %d: rank %d of %d", tag, rank, size);
    int val = wrank * 100 + tag * 10 + round % 10;
    MPI_Status st;
    MPI_Sendrecv(&val, 1, MPI_INT, 1 - rank, tag, &got, 1, MPI_INT, 1 - rank, tag, c, &st);
    int partner = wrank ^ 1;
    CHECK(got == partner * 100 + tag * 10 + round % 10, "tag %d round %d got %d", tag, round, got);
    CHECK(st.MPI_SOURCE == 1 - rank && st.MPI_TAG == tag, "status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Comm_free(&c);
}

typedef struct { int tag, round, delay_us; } job;

static void *run(void *arg)
{
    job *j = arg;
    if (j->delay_us) {
        struct timespec ts = { 0, j->delay_us * 1000L };
        nanosleep(&ts, NULL);
    }
    create_and_check(j->tag, j->round);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    if ((wrank ^ 1) < wsize) {
        MPI_Group world;
        int members[2] = { wrank & ~1, wrank | 1 };
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 2, members, &pair);
        MPI_Group_free(&world);
        for (int round = 0; round < ROUNDS; round++) {
            if (wrank % 2 == 0) {
                job g = { TAG_G, round, 0 }, x = { TAG_X, round, 2000 };
                pthread_t tg, tx;
                pthread_create(&tg, NULL, run, &g);
                pthread_create(&tx, NULL, run, &x);
                pthread_join(tg, NULL);
                pthread_join(tx, NULL);
            } else {
                create_and_check(TAG_X, round);
                create_and_check(TAG_G, round);
            }
        }
        MPI_Group_free(&pair);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

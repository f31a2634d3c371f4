/* mempi-test: np=5,7 timeout=300 env=MEMPI_WAIT=sleep,MEMPI_SPIN=0,MEMPI_SLEEP_TIMEOUT=100000000,MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* mempi-test: np=2,5,7 timeout=300 env=MEMPI_SLEEP_TIMEOUT=100000000 */
/* mempi-test: np=5 timeout=300 env=MEMPI_NODE_SIZE=2,MEMPI_WAIT=sleep,MEMPI_SPIN=0,MEMPI_SLEEP_TIMEOUT=100000000 */
/* mempi-test: np=3,4 timeout=300 */
/* coll_shm_wake.c -- shared-memory collectives whose waiters sleep: no lost wake-up.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The shared-memory collectives wait for a word in a peer's slot (a cell's stamp, or the
 * count of readers of our own cell).  Such a waiter may sleep on its futex, and the rank that
 * stores the word must wake it.  With MEMPI_WAIT=sleep and no spinning every wait that does
 * not find its word at once sleeps, and MEMPI_SLEEP_TIMEOUT is raised to 100 s, so a single
 * lost wake-up turns into a hang, which the test's timeout reports: the test cannot pass
 * when the wake-up protocol loses one.  Thousands of rounds of barrier, bcast, reduce,
 * allreduce and allgather on MPI_COMM_WORLD and on two halves of it run with a rotating
 * straggler (a rank that computes for a while before it joins, so that the others are
 * asleep when it arrives), and every result is checked.  The default policy at more ranks
 * than cores (np 5, 7 on a small machine) runs the same rounds through its spin-or-yield
 * decisions; MEMPI_NODE_SIZE=2 runs the node-local halves of the node-aware algorithms.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <string.h>

#define ROUNDS 2000

static void busy_us(double us)
{
    double t = MPI_Wtime();
    while ((MPI_Wtime() - t) * 1e6 < us)
        ;
}

/* One round of every collective on comm; `straggler` computes first. */
static void round_on(MPI_Comm comm, int round, int straggler)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int root = round % size;

    if (rank == straggler)
        busy_us(200);
    MPI_Barrier(comm);

    long b[3] = {0, 0, 0};
    if (rank == root) {
        b[0] = round;
        b[1] = -round;
        b[2] = 7L * round + root;
    }
    if (rank == straggler && rank != root)
        busy_us(100);
    MPI_Bcast(b, 3, MPI_LONG, root, comm);
    CHECK(b[0] == round && b[1] == -round && b[2] == 7L * round + root,
          "round %d: bcast from %d gave %ld %ld %ld", round, root, b[0], b[1], b[2]);

    double x = rank + 1 + round, sum = 0;
    if (rank == straggler)
        busy_us(100);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    double want = (double)size * (size + 1) / 2 + (double)size * round;
    CHECK(sum == want, "round %d: allreduce gave %g, expected %g", round, sum, want);

    int mine[2] = {rank, round}, all[2 * 16];
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == r && all[2 * r + 1] == round, "round %d: allgather block %d is %d %d",
              round, r, all[2 * r], all[2 * r + 1]);

    int v = rank * 3 + round % 5, red = -1;
    MPI_Reduce(&v, &red, 1, MPI_INT, MPI_MAX, root, comm);
    if (rank == root)
        CHECK(red == (size - 1) * 3 + round % 5, "round %d: reduce to %d gave %d", round, root,
              red);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 16, "at most 16 ranks (allgather buffer), got %d", size);
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));

    for (int round = 0; round < ROUNDS; round++) {
        /* every 8th round has a straggler, a different rank each time */
        int straggler = round % 8 == 0 ? (round / 8) % size : -1;
        round_on(MPI_COMM_WORLD, round, straggler);
        if (round % 4 == 0) {
            int hrank;
            MPI_Comm_rank(half, &hrank);
            round_on(half, round, straggler >= 0 && straggler % 2 == rank % 2 ? hrank : -1);
        }
    }
    /* the status of a last message after all the sleeping: pt2pt still delivers */
    int token = rank;
    MPI_Status st;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    CHECK_MPI(MPI_Sendrecv_replace(&token, 1, MPI_INT, next, 5, prev, 5, MPI_COMM_WORLD, &st));
    CHECK(token == prev && st.MPI_SOURCE == prev && st.MPI_TAG == 5,
          "ring: got %d from %d tag %d, expected %d from %d tag 5", token, st.MPI_SOURCE,
          st.MPI_TAG, prev, prev);

    MPI_Comm_free(&half);
    if (rank == 0)
        printf("coll_shm_wake: %d rounds on %d ranks ok\n", ROUNDS, size);
    MPI_Finalize();
    return 0;
}

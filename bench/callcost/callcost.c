/* callcost.c -- a fixed sequence of cheap MPI calls whose instruction counts callgrind reports.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Timing the per-call overhead of an MPI library on a shared machine is noise; counting the
 * instructions each call executes is not.  Each rank tests a request that cannot be complete
 * yet, probes for a message that does not exist, and asks its rank; then rank 1 posts NMSG
 * receives of one int and, after a barrier, rank 0 sends them with MPI_Isend.  Every one of
 * these calls returns without waiting, so its inclusive instruction count per call is the
 * library's fixed cost for it.  Then both ranks send each other NMSG blocking messages (the
 * ring holds them: MPI_Send returns at once) and, after a barrier, receive them (already
 * arrived: MPI_Recv does not wait).  bench/callcost/run divides callgrind's inclusive
 * counts by the number of calls.  With the argument `multiple` the program initializes with
 * MPI_THREAD_MULTIPLE (one thread still makes every call): the cost of the thread level. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NPOLL 100     /* MPI_Test, MPI_Iprobe, MPI_Comm_rank per round */
#define NMSG 16       /* messages per round: few enough for the shared-memory ring to hold */
#define ROUNDS 20     /* bench/callcost/run divides by these counts */

int main(int argc, char **argv)
{
    int provided;
    if (argc > 1 && !strcmp(argv[1], "multiple"))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    int rank, size, flag, x = 7, y[NMSG];
    MPI_Request r[NMSG], never;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "callcost: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int round = 0; round < ROUNDS; round++) {
        /* Barriers keep every measured loop free of arriving traffic: a poll that finds a
         * packet does work that depends on timing, and the counts would too. */
        MPI_Barrier(MPI_COMM_WORLD);
        /* a receive nobody sends to yet: MPI_Test on it cannot complete */
        MPI_Irecv(&flag, 1, MPI_INT, 1 - rank, 99, MPI_COMM_WORLD, &never);
        for (int i = 0; i < NPOLL; i++) {
            MPI_Test(&never, &flag, MPI_STATUS_IGNORE);
            MPI_Iprobe(1 - rank, 98, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            MPI_Comm_rank(MPI_COMM_WORLD, &flag);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; rank == 1 && i < NMSG; i++)   /* posted before any send: never unexpected */
            MPI_Irecv(&y[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; rank == 0 && i < NMSG; i++)
            MPI_Isend(&x, 1, MPI_INT, 1, i, MPI_COMM_WORLD, &r[i]);
        MPI_Waitall(NMSG, r, MPI_STATUSES_IGNORE);
        for (int i = 0; rank == 1 && i < NMSG; i++)
            if (y[i] != 7) { fprintf(stderr, "callcost: wrong data\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < NMSG; i++)
            MPI_Send(&x, 1, MPI_INT, 1 - rank, 50 + i, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < NMSG; i++) {
            y[i] = 0;
            MPI_Recv(&y[i], 1, MPI_INT, 1 - rank, 50 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (y[i] != 7) { fprintf(stderr, "callcost: wrong data\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
        }
        MPI_Send(&x, 1, MPI_INT, 1 - rank, 99, MPI_COMM_WORLD);   /* completes `never` */
        MPI_Wait(&never, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}

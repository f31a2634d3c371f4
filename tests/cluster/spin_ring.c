/* spin_ring.c -- a job that keeps every rank communicating, for the failure tests.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank passes a token around the ring and joins an allreduce, over and over, for the
 * number of seconds given (default 30), then exits 0.  Rank 0 prints "running" once the ring
 * went round once, so a test knows the job is up before it kills a rank or cuts a link.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 30.0, start = MPI_Wtime();
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    static char buf[1 << 16];
    for (long round = 0;; round++) {
        int go = MPI_Wtime() - start < seconds, all;
        MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all)
            break;
        int len = (round % 2) ? (int)sizeof buf : 8;
        MPI_Sendrecv_replace(buf, len, MPI_CHAR, next, 1, prev, 1, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        if (round == 0 && rank == 0) {
            printf("running\n");
            fflush(stdout);
        }
    }
    MPI_Finalize();
    return 0;
}

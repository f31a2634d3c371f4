/* spawn_crash.c -- a spawned child dies while its parents wait for it.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Helper of check-spawn.  The parents spawn two children (this program with argument
 * "child") and wait for a message from child 1 that never comes: child 1 kills itself with
 * SIGKILL once connected.  The job must end (not hang) with the nested launcher's line naming
 * the child and this launcher's line naming the spawned job.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        if (rank == 1)
            raise(SIGKILL);
        MPI_Recv(&v, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);   /* never sent */
    } else {
        char *args[] = { "child", NULL };
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 1, 0, inter, MPI_STATUS_IGNORE);       /* never sent */
    }
    MPI_Finalize();
    return 0;
}

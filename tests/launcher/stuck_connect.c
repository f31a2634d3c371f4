/* stuck_connect.c -- a connection between two jobs that can never complete, so its processes stay inside it.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Helper of check-inbox-kill.  `stuck_connect server FILE`: rank 0 opens a port and writes
 * its name to FILE, and every rank but the last calls MPI_Comm_accept on MPI_COMM_WORLD; the
 * last rank never does (it sleeps).  `stuck_connect client FILE`: every rank calls
 * MPI_Comm_connect to the port in FILE.  The connection can never finish -- the server's
 * root waits for the last rank's description forever -- so the client's processes and the
 * server's other ones have each made their channel inbox for the other group
 * (src/transport/shm/conn.c) and wait in the exchange of descriptions.  The test kills both
 * jobs there.  Nothing here returns normally: a process that gets past MPI_Comm_accept or
 * MPI_Comm_connect says so and fails, since the test's premise would be wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm inter;
    char port[MPI_MAX_PORT_NAME] = "";
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: stuck_connect server|client FILE\n");
        return 2;
    }
    if (strcmp(argv[1], "server") == 0) {
        if (rank == size - 1) {
            for (;;)
                sleep(100);           /* never joins the accept */
        }
        if (rank == 0) {
            char tmp[4096];
            MPI_Open_port(MPI_INFO_NULL, port);
            snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
            FILE *f = fopen(tmp, "w");
            if (f == NULL || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 ||
                rename(tmp, argv[2]) != 0) {
                perror("stuck_connect: writing the port file");
                return 2;
            }
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    } else {
        if (rank == 0) {
            FILE *f;
            while ((f = fopen(argv[2], "r")) == NULL)
                usleep(10000);
            if (fgets(port, sizeof port, f) == NULL)
                port[0] = '\0';
            fclose(f);
            port[strcspn(port, "\n")] = '\0';
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    }
    fprintf(stderr, "stuck_connect: %s %d finished a connection without server rank %d\n",
            argv[1], rank, size - 1);
    return 1;
}

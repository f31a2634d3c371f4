/* stats_exchange.c -- a program whose traffic is known exactly, for check-stats.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Rank 1 posts N receives of 64 KiB (from rank 0, or from MPI_ANY_SOURCE when argv[1] is
 * "any"), then sends rank 0 one 4-byte "go"; rank 0 then sends the N messages.  Traffic: N+1
 * messages, N*65536+4 bytes.  With receives posted first for a specific source, every data
 * message must be delivered by remote write; with MPI_ANY_SOURCE none can be.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 10
#define SIZE 65536

int main(int argc, char **argv)
{
    int rank, go = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int any = argc > 1 && strcmp(argv[1], "any") == 0;
    char *buf = malloc((size_t)N * SIZE);
    if (rank == 1) {
        MPI_Request r[N];
        for (int i = 0; i < N; i++)
            MPI_Irecv(buf + (size_t)i * SIZE, SIZE, MPI_BYTE, any ? MPI_ANY_SOURCE : 0, i,
                      MPI_COMM_WORLD, &r[i]);
        MPI_Send(&go, 1, MPI_INT, 0, 100, MPI_COMM_WORLD);
        MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++)
            for (int k = 0; k < SIZE; k += 4096)
                if (buf[(size_t)i * SIZE + k] != (char)(i + k / 4096)) {
                    fprintf(stderr, "bad data in message %d\n", i);
                    return 1;
                }
    } else if (rank == 0) {
        MPI_Recv(&go, 1, MPI_INT, 1, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < SIZE; k += 4096)
                buf[(size_t)i * SIZE + k] = (char)(i + k / 4096);
            MPI_Send(buf + (size_t)i * SIZE, SIZE, MPI_BYTE, 1, i, MPI_COMM_WORLD);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}

/* pingpong.c -- round-trip time and bandwidth between ranks 0 and 1.
 * MemPI example, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            printf("pingpong needs at least 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    char *buf = calloc(1, 1 << 22);
    if (rank == 0)
        printf("%10s %12s %12s\n", "bytes", "one-way us", "MB/s");
    for (int n = 0; n <= (1 << 22); n = n ? n * 16 : 1) {
        int iters = n < 65536 ? 1000 : 40;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double t = (MPI_Wtime() - t0) / (2.0 * iters);
        if (rank == 0)
            printf("%10d %12.3f %12.1f\n", n, t * 1e6, n / t / 1e6);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}

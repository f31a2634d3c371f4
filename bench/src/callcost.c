/* callcost.c -- nanoseconds per call of cheap MPI functions, to see an ABI layer's cost.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Latency benchmarks hide a few nanoseconds under a microsecond of noise.  This one calls
 * functions that do almost nothing -- MPI_Comm_rank, MPI_Test on MPI_REQUEST_NULL (a request
 * in and out, a status out), MPI_Iprobe with MPI_ANY_SOURCE/MPI_ANY_TAG that finds nothing --
 * a few million times at one rank and prints the best of five runs per call, so that the
 * difference between a build against the MPICH ABI and one with `mpicc -mpi-abi` is the
 * conversion layer's cost (bench/abi-pingpong prints both).
 */
#include <mpi.h>
#include <stdio.h>

#define N 2000000

static double best(int which)
{
    double b = 1e9;
    for (int r = 0; r < 5; r++) {
        int rank, flag;
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Status st;
        double t0 = MPI_Wtime();
        for (int i = 0; i < N; i++) {
            if (which == 0) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            else if (which == 1) MPI_Test(&req, &flag, &st);
            else MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, &st);
        }
        double t = (MPI_Wtime() - t0) / N * 1e9;
        if (t < b) b = t;
    }
    return b;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static const char *const names[] = { "comm_rank", "test_null", "iprobe_any" };
    for (int w = 0; w < 3; w++)
        printf("callcost %s %.2f ns\n", names[w], best(w));
    MPI_Finalize();
    return 0;
}

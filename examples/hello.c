/* hello.c -- every rank says who and where it is.  MemPI example, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    MPI_Get_library_version(lib, &len);
    if (rank == 0)
        printf("%s\n", lib);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hello from rank %d of %d on %s\n", rank, size, host);
    MPI_Finalize();
    return 0;
}

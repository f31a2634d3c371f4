/* llt_allreduce_check.c -- an MPI_Allreduce interposer that checks every rank got the same bytes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * check-scalapack-llt preloads this library (LD_PRELOAD) into Debian's MPICH-built ScaLAPACK
 * tester.  After each MPI_Allreduce of at most 4 KiB it packs the result (so that a derived
 * type's padding, which nobody writes, is not compared), gathers every member's packed bytes
 * and prints "ALLREDUCE-MISMATCH ..." to stderr when any member's differ from member 0's.
 * MPI requires every member to receive the same result; ScaLAPACK's condition estimator
 * takes different branches on different ranks when they do not, and then hangs.  The gather
 * runs through PMPI, so it is not checked itself.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls;

static void report(MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op, int member)
{
    int world, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    PMPI_Comm_size(comm, &size);
    fprintf(stderr, "ALLREDUCE-MISMATCH: world rank %d, call %ld: communicator of size %d, "
            "count %d, datatype %#x, op %#x: member %d's result differs from member 0's\n",
            world, calls, size, count, (unsigned)dt, (unsigned)op, member);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    int err = PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    calls++;
    int size, packed_max, len = 0;
    if (err != MPI_SUCCESS || count <= 0 || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        PMPI_Pack_size(count, dt, comm, &packed_max) != MPI_SUCCESS || packed_max > 4096)
        return err;
    char *mine = malloc((size_t)packed_max + 1), *all = malloc((size_t)(packed_max + 1) * size);
    PMPI_Pack(rbuf, count, dt, mine, packed_max, &len, comm);
    PMPI_Allgather(mine, len, MPI_BYTE, all, len, MPI_BYTE, comm);
    for (int i = 1; i < size; i++)
        if (memcmp(all + (size_t)i * len, all, (size_t)len) != 0) {
            report(comm, count, dt, op, i);
            break;
        }
    free(mine);
    free(all);
    return err;
}

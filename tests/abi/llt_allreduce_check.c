/* llt_allreduce_check.c -- an MPI_Allreduce interposer that checks every rank got the same bytes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * check-scalapack-llt preloads this library (LD_PRELOAD) into Debian's MPICH-built ScaLAPACK
 * tester.  After each MPI_Allreduce of at most 4 KiB it packs the result (so that a derived
 * type's padding, which nobody writes, is not compared), gathers every member's packed bytes
 * together with what the member asked for -- count, datatype and the operation -- and prints
 *
 *   ALLREDUCE-MISMATCH ...  when all members asked for the same reduction and some member's
 *                           result differs from member 0's: MPI requires identical results,
 *                           so this is the library's fault;
 *   ALLREDUCE-DIVERGED ...  when the members called with different arguments: the program
 *                           had already taken different branches on different ranks, and the
 *                           calls that met are not one reduction (then differing results are
 *                           expected and say nothing about the library).
 *
 * The operation of a user-defined op is its function, not its handle: BLACS creates and frees
 * an op around every call, so the handles are equal on all ranks whichever function they
 * stand for.  MPI_Op_create is interposed to remember each handle's function, which is named
 * across processes by its object file and offset there (load addresses differ per process).
 * The gather runs through PMPI, so it is not checked itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls;

#define OPS 64
static struct { MPI_Op op; MPI_User_function *fn; } ops[OPS];

int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
    int err = PMPI_Op_create(fn, commute, op);
    if (err != MPI_SUCCESS)
        return err;
    int slot = -1;
    for (int i = 0; i < OPS && slot < 0; i++)
        if (ops[i].fn == NULL || ops[i].op == *op)
            slot = i;
    if (slot >= 0) {
        ops[slot].op = *op;
        ops[slot].fn = fn;
    }
    return err;
}

/* The same number on every rank for the same operation: a predefined op's handle, or a hash
 * of the user function's object file name and offset in it. */
static uint64_t op_identity(MPI_Op op)
{
    for (int i = 0; i < OPS; i++) {
        if (ops[i].fn == NULL || ops[i].op != op)
            continue;
        Dl_info info;
        if (dladdr((void *)ops[i].fn, &info) == 0 || info.dli_fname == NULL)
            return 1;
        uint64_t h = 1469598103934665603ull;
        const char *base = strrchr(info.dli_fname, '/');
        for (const char *c = base ? base + 1 : info.dli_fname; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        return h ^ (uint64_t)((char *)ops[i].fn - (char *)info.dli_fbase);
    }
    return (uint64_t)(unsigned)op;
}

typedef struct { uint64_t count, dt, op; } call_args;

static void report(const char *kind, MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op,
                   int member, const char *what)
{
    int world, size;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    PMPI_Comm_size(comm, &size);
    fprintf(stderr, "%s: world rank %d, call %ld: communicator of size %d, count %d, "
            "datatype %#x, op %#x: member %d's %s differs from member 0's\n", kind, world, calls,
            size, count, (unsigned)dt, (unsigned)op, member, what);
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
    /* Every member contributes the same number of bytes: the arguments, then the result
     * padded to 4 KiB (a member that asked for a different type still takes part). */
    size_t block = sizeof(call_args) + 4096;
    char *mine = calloc(1, block), *all = malloc(block * (size_t)size);
    call_args args = { (uint64_t)count, (uint64_t)(unsigned)dt, op_identity(op) };
    memcpy(mine, &args, sizeof args);
    PMPI_Pack(rbuf, count, dt, mine + sizeof args, packed_max, &len, comm);
    PMPI_Allgather(mine, (int)block, MPI_BYTE, all, (int)block, MPI_BYTE, comm);
    for (int i = 1; i < size; i++) {
        const char *other = all + (size_t)i * block;
        if (memcmp(other, all, sizeof args) != 0) {
            report("ALLREDUCE-DIVERGED", comm, count, dt, op, i, "count, datatype or operation");
            break;
        }
        if (memcmp(other + sizeof args, all + sizeof args, (size_t)len) != 0) {
            report("ALLREDUCE-MISMATCH", comm, count, dt, op, i, "result");
            break;
        }
    }
    free(mine);
    free(all);
    return err;
}

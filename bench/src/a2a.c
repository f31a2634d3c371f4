/* a2a.c -- time per call of large MPI_Alltoall and MPI_Alltoallv.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The all-to-all of an FFT transpose: every rank sends a block of `size`
 * bytes to every rank (its own included), 64 KiB to 4 MiB, on
 * MPI_COMM_WORLD, calls back to back.  alltoallv uses the same equal blocks
 * through counts and displacements (the form applications with uneven
 * decompositions call).  Reported: us per call of the slowest rank, as
 * "alltoall_l" and "alltoallv_l" (coll.c's "alltoall" stops at 1 MiB).
 * Only MPI-1 calls are used.
 */
#include "bench.h"

typedef struct a2a_ctx {
    char *sbuf, *rbuf;
    int *counts, *displs;
    long size;
    int v;
} a2a_ctx;

static void a2a_op(void *arg, long iters)
{
    a2a_ctx *c = arg;
    for (long i = 0; i < iters; i++) {
        if (c->v)
            MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts, c->displs,
                          MPI_BYTE, MPI_COMM_WORLD);
        else
            MPI_Alltoall(c->sbuf, (int)c->size, MPI_BYTE, c->rbuf, (int)c->size, MPI_BYTE,
                         MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    static const long sizes[] = {65536, 262144, 1048576, 4194304};
    bench_init(&argc, &argv);
    int nsizes = bench.quick ? 3 : 4;
    long maxs = sizes[nsizes - 1];
    a2a_ctx c;
    c.sbuf = bench_alloc((size_t)maxs * bench.nprocs);
    c.rbuf = bench_alloc((size_t)maxs * bench.nprocs);
    c.counts = malloc(sizeof(int) * bench.nprocs);
    c.displs = malloc(sizeof(int) * bench.nprocs);
    for (c.v = 0; c.v < 2; c.v++) {
        const char *name = c.v ? "alltoallv_l" : "alltoall_l";
        for (int i = 0; i < nsizes; i++) {
            if (bench_skip_if_over_budget(name, sizes[i])) break;
            c.size = sizes[i];
            for (int r = 0; r < bench.nprocs; r++) {
                c.counts[r] = (int)c.size;
                c.displs[r] = (int)(c.size * r);
            }
            bench_report(name, c.size, bench_measure(a2a_op, &c) * 1e6, "us");
        }
    }
    free(c.counts);
    free(c.displs);
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

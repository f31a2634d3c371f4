/* coll.c -- time per call of each collective over message sizes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * One iteration is one call of the collective on MPI_COMM_WORLD, back to
 * back; the reported value (us) is the per-call time of the slowest rank.
 * "size" is the message of one rank: the reduced vector for allreduce,
 * reduce, scan; the broadcast message; the block each rank contributes or
 * receives for allgather, gather, scatter, alltoall, reduce_scatter (equal
 * counts, i.e. reduce_scatter_block written with the MPI-1 call).
 * Reductions are MPI_SUM over MPI_DOUBLE (size/8 elements).  Rooted
 * collectives use root 0.  --ops a,b,c picks a subset (default: all).
 * Only MPI-1 calls are used, so a young MPI library can run it.
 */
#include "bench.h"

typedef struct coll_ctx {
    char *sbuf, *rbuf;
    long size;
    int op;
    int *counts;        /* reduce_scatter: size/8 doubles for every rank */
} coll_ctx;

enum { C_BARRIER, C_BCAST, C_ALLREDUCE, C_REDUCE, C_ALLGATHER, C_GATHER, C_SCATTER,
       C_ALLTOALL, C_REDUCE_SCATTER, C_SCAN, C_COUNT };

static const char *coll_names[C_COUNT] = {
    "barrier", "bcast", "allreduce", "reduce", "allgather", "gather", "scatter",
    "alltoall", "reduce_scatter", "scan"};

static void coll_op(void *arg, long iters)
{
    coll_ctx *c = arg;
    MPI_Comm w = MPI_COMM_WORLD;
    int n = (int)c->size, nd = (int)(c->size / 8);
    for (long i = 0; i < iters; i++) {
        switch (c->op) {
        case C_BARRIER: MPI_Barrier(w); break;
        case C_BCAST: MPI_Bcast(c->sbuf, n, MPI_BYTE, 0, w); break;
        case C_ALLREDUCE: MPI_Allreduce(c->sbuf, c->rbuf, nd, MPI_DOUBLE, MPI_SUM, w); break;
        case C_REDUCE: MPI_Reduce(c->sbuf, c->rbuf, nd, MPI_DOUBLE, MPI_SUM, 0, w); break;
        case C_ALLGATHER: MPI_Allgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, w); break;
        case C_GATHER: MPI_Gather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, w); break;
        case C_SCATTER: MPI_Scatter(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, w); break;
        case C_ALLTOALL: MPI_Alltoall(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, w); break;
        case C_REDUCE_SCATTER:  /* MPI-1 form of reduce_scatter_block: equal counts */
            MPI_Reduce_scatter(c->sbuf, c->rbuf, c->counts, MPI_DOUBLE, MPI_SUM, w); break;
        case C_SCAN: MPI_Scan(c->sbuf, c->rbuf, nd, MPI_DOUBLE, MPI_SUM, w); break;
        }
    }
}

static int coll_selected(const char *ops, const char *name)
{
    if (!ops) return 1;
    size_t len = strlen(name);
    for (const char *p = ops; (p = strstr(p, name)) != NULL; p += len)
        if ((p == ops || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    static const long full[] = {8, 64, 512, 1024, 4096, 16384, 65536, 262144, 1048576};
    static const long fast[] = {8, 1024, 65536, 1048576};
    bench_init(&argc, &argv);
    const char *ops = bench_option(argc, argv, "--ops");
    const long *sizes = bench.quick ? fast : full;
    int nsizes = bench.quick ? 4 : 9;
    long maxs = sizes[nsizes - 1];
    coll_ctx c;
    c.counts = malloc(sizeof(int) * bench.nprocs);
    c.sbuf = bench_alloc((size_t)maxs * bench.nprocs);
    c.rbuf = bench_alloc((size_t)maxs * bench.nprocs);
    /* doubles must be valid numbers, not the 0x0101... pattern of bench_alloc */
    for (size_t k = 0; k < (size_t)maxs * bench.nprocs / 8; k++) ((double *)c.sbuf)[k] = 1.0;
    for (int op = 0; op < C_COUNT; op++) {
        if (!coll_selected(ops, coll_names[op])) continue;
        for (int i = 0; i < nsizes; i++) {
            long size = op == C_BARRIER ? 0 : sizes[i];
            if (bench_skip_if_over_budget(coll_names[op], size)) goto done;
            c.size = size;
            c.op = op;
            for (int r = 0; r < bench.nprocs; r++) c.counts[r] = (int)(size / 8);
            double t = bench_measure(coll_op, &c);
            bench_report(coll_names[op], size, t * 1e6, "us");
            if (op == C_BARRIER) break;
        }
    }
done:
    free(c.counts);
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

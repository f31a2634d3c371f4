/* halo.c -- 2-D periodic halo exchange with four neighbours.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Ranks form a px x py periodic grid (px*py = P, px the largest divisor of
 * P not above sqrt(P)), computed here rather than with MPI_Dims_create and
 * MPI_Cart_* so the program needs only point-to-point calls.  One iteration:
 * MPI_Irecv from the four neighbours, MPI_Isend of size bytes to each,
 * MPI_Waitall.  On 2 ranks the grid is 1 x 2, so the two horizontal
 * neighbours are the rank itself (self messages) and the two vertical ones
 * are the same partner, as in a real periodic 1 x 2 decomposition.
 * Reported: us per exchange (slowest rank).
 */
#include "bench.h"

typedef struct halo_ctx {
    int nbr[4];
    char *sbuf, *rbuf;
    long size;
} halo_ctx;

static void halo_op(void *arg, long iters)
{
    halo_ctx *c = arg;
    MPI_Request req[8];
    for (long i = 0; i < iters; i++) {
        for (int d = 0; d < 4; d++)
            MPI_Irecv(c->rbuf + (size_t)d * c->size, (int)c->size, MPI_BYTE, c->nbr[d], 10 + (d ^ 1),
                      MPI_COMM_WORLD, &req[d]);
        for (int d = 0; d < 4; d++)
            MPI_Isend(c->sbuf + (size_t)d * c->size, (int)c->size, MPI_BYTE, c->nbr[d], 10 + d,
                      MPI_COMM_WORLD, &req[4 + d]);
        MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv)
{
    static const long full[] = {8, 1024, 8192, 65536, 262144, 1048576};
    static const long fast[] = {8, 8192, 262144};
    bench_init(&argc, &argv);
    int p = bench.nprocs, px = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0) px = d;
    int py = p / px, x = bench.rank % px, y = bench.rank / px;
    halo_ctx c;
    /* direction d sends with tag 10+d and the neighbour receives it as the
     * opposite direction d^1: 0=west 1=east 2=south 3=north */
    c.nbr[0] = y * px + (x + px - 1) % px;
    c.nbr[1] = y * px + (x + 1) % px;
    c.nbr[2] = ((y + py - 1) % py) * px + x;
    c.nbr[3] = ((y + 1) % py) * px + x;
    const long *sizes = bench.quick ? fast : full;
    int nsizes = bench.quick ? 3 : 6;
    c.sbuf = bench_alloc(4 * (size_t)sizes[nsizes - 1]);
    c.rbuf = bench_alloc(4 * (size_t)sizes[nsizes - 1]);
    if (bench.rank == 0) printf("# grid %d x %d\n", px, py);
    for (int i = 0; i < nsizes; i++) {
        if (bench_skip_if_over_budget("halo", sizes[i])) break;
        c.size = sizes[i];
        double t = bench_measure(halo_op, &c);
        bench_report("halo", sizes[i], t * 1e6, "us");
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}

/* sort.c -- application kernel: parallel bucket sort of integer keys (NAS IS style).  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Each rank holds N random keys in [0, 4*N*P).  One iteration sorts them
 * globally: count the keys per destination rank (rank r owns the key range
 * [4*N*r, 4*N*(r+1))), MPI_Alltoall the counts, MPI_Alltoallv the keys, then
 * a local counting sort of what arrived.  The keys are regenerated from the
 * iteration number so every iteration moves the same amount of data.  This
 * is the all-to-all pattern of IS and of FFT transposes.  "size" is the
 * bytes of keys per rank (4*N).  Reported: us per sort (slowest rank).
 */
#include "bench.h"

typedef struct sort_ctx {
    int nkeys;
    unsigned *keys, *bucketed, *recv, *hist;
    int *scount, *sdispl, *rcount, *rdispl, *fill;
} sort_ctx;

/* linear congruential generator, scaled into [0, limit) */
static unsigned sort_random(unsigned *state, unsigned limit)
{
    *state = *state * 1103515245u + 12345u;
    return (unsigned)(((unsigned long long)*state * limit) >> 32);
}

static void sort_once(sort_ctx *c, long seed)
{
    int p = bench.nprocs;
    unsigned state = (unsigned)(seed * 7919 + bench.rank * 104729 + 1);
    unsigned range = 4u * (unsigned)c->nkeys;
    for (int i = 0; i < c->nkeys; i++) c->keys[i] = sort_random(&state, range * (unsigned)p);
    for (int r = 0; r < p; r++) c->scount[r] = 0;
    for (int i = 0; i < c->nkeys; i++) c->scount[c->keys[i] / range]++;
    c->sdispl[0] = 0;
    for (int r = 1; r < p; r++) c->sdispl[r] = c->sdispl[r - 1] + c->scount[r - 1];
    for (int r = 0; r < p; r++) c->fill[r] = c->sdispl[r];
    for (int i = 0; i < c->nkeys; i++) c->bucketed[c->fill[c->keys[i] / range]++] = c->keys[i];
    MPI_Alltoall(c->scount, 1, MPI_INT, c->rcount, 1, MPI_INT, MPI_COMM_WORLD);
    c->rdispl[0] = 0;
    for (int r = 1; r < p; r++) c->rdispl[r] = c->rdispl[r - 1] + c->rcount[r - 1];
    int total = c->rdispl[p - 1] + c->rcount[p - 1];
    MPI_Alltoallv(c->bucketed, c->scount, c->sdispl, MPI_UNSIGNED, c->recv, c->rcount, c->rdispl,
                  MPI_UNSIGNED, MPI_COMM_WORLD);
    /* local counting sort over this rank's key range (histogram only: the
     * sorted order is implied by the counts, as in NAS IS's ranking) */
    unsigned base = range * (unsigned)bench.rank;
    memset(c->hist, 0, range * sizeof(unsigned));
    for (int i = 0; i < total; i++) c->hist[c->recv[i] - base]++;
}

static void sort_op(void *arg, long iters)
{
    static long seed;
    for (long i = 0; i < iters; i++) sort_once(arg, seed++);
}

int main(int argc, char **argv)
{
    static const int full[] = {1024, 16384, 262144};
    static const int fast[] = {1024, 262144};
    bench_init(&argc, &argv);
    const int *sizes = bench.quick ? fast : full;
    int nsizes = bench.quick ? 2 : 3, p = bench.nprocs;
    for (int s = 0; s < nsizes; s++) {
        if (bench_skip_if_over_budget("sort", 4L * sizes[s])) break;
        sort_ctx c;
        c.nkeys = sizes[s];
        unsigned range = 4u * (unsigned)sizes[s];
        c.keys = malloc(sizeof(unsigned) * c.nkeys);
        c.bucketed = malloc(sizeof(unsigned) * c.nkeys);
        /* keys are uniform, but any rank may receive up to P*N of them */
        c.recv = malloc(sizeof(unsigned) * c.nkeys * (size_t)p);
        c.hist = malloc(sizeof(unsigned) * range);
        c.scount = malloc(sizeof(int) * p); c.sdispl = malloc(sizeof(int) * p);
        c.rcount = malloc(sizeof(int) * p); c.rdispl = malloc(sizeof(int) * p);
        c.fill = malloc(sizeof(int) * p);
        double t = bench_measure(sort_op, &c);
        bench_report("sort", 4L * sizes[s], t * 1e6, "us");
        free(c.keys); free(c.bucketed); free(c.recv); free(c.hist);
        free(c.scount); free(c.sdispl); free(c.rcount); free(c.rdispl); free(c.fill);
    }
    MPI_Finalize();
    return 0;
}

/* cg.c -- application kernel: conjugate gradient on a 2-D Poisson problem.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The grid is split in row strips, one strip per rank.  One CG iteration
 * does what a real solver does: a halo exchange of one row (n doubles) with
 * the rank above and below (MPI_Sendrecv, MPI_PROC_NULL at the edges), a
 * 5-point stencil mat-vec, two dot products each finished by an 8-byte
 * MPI_Allreduce, and three vector updates.  When the residual underflows,
 * the solve restarts from x = 0 so long runs stay on real numbers.
 *
 * Two series, "size" is n (the number of columns):
 *   cg       every rank owns an n x n block (weak scaling: the problem grows
 *            with the ranks).  32 is communication bound, 256 is closer to a
 *            compute-bound solver.
 *   cgfixed  one (2n) x n grid split over all ranks (strong scaling: the same
 *            problem whatever the number of ranks).  On a 2-core machine its
 *            time at 4 ranks against 2 ranks is issue 8's test of an
 *            oversubscribed MPI: the computation is the same, so any growth is
 *            the cost of sharing the cores.
 * Reported: us per CG iteration (slowest rank).
 */
#include "bench.h"

typedef struct cg_ctx {
    int n, rows, up, down;          /* this rank's strip: rows x n */
    double *x, *r, *p, *q, *b;      /* p has two ghost rows: (rows+2) x n */
} cg_ctx;

static void cg_halo(cg_ctx *c)
{
    int n = c->n, rows = c->rows;
    double *p = c->p;
    MPI_Sendrecv(p + n, n, MPI_DOUBLE, c->up, 20, p + (size_t)(rows + 1) * n, n, MPI_DOUBLE, c->down, 20,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(p + (size_t)rows * n, n, MPI_DOUBLE, c->down, 21, p, n, MPI_DOUBLE, c->up, 21,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double cg_dot(const double *a, const double *b, size_t len)
{
    double local = 0, global;
    for (size_t i = 0; i < len; i++) local += a[i] * b[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

static void cg_restart(cg_ctx *c)
{
    size_t len = (size_t)c->rows * c->n;
    for (size_t i = 0; i < len; i++) {
        c->x[i] = 0;
        c->r[i] = c->b[i];
        c->p[c->n + i] = c->b[i];
    }
}

static void cg_op(void *arg, long iters)
{
    cg_ctx *c = arg;
    int n = c->n, rows = c->rows;
    size_t len = (size_t)rows * n;
    double *pin = c->p + n;     /* interior rows of p */
    double rr = cg_dot(c->r, c->r, len);
    for (long it = 0; it < iters; it++) {
        if (rr < 1e-200) { cg_restart(c); rr = cg_dot(c->r, c->r, len); }
        cg_halo(c);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < n; j++) {
                double v = 4 * c->p[(size_t)(i + 1) * n + j] - c->p[(size_t)i * n + j]
                           - c->p[(size_t)(i + 2) * n + j];
                if (j > 0) v -= c->p[(size_t)(i + 1) * n + j - 1];
                if (j < n - 1) v -= c->p[(size_t)(i + 1) * n + j + 1];
                c->q[(size_t)i * n + j] = v;
            }
        double alpha = rr / cg_dot(pin, c->q, len);
        for (size_t i = 0; i < len; i++) {
            c->x[i] += alpha * pin[i];
            c->r[i] -= alpha * c->q[i];
        }
        double rr_new = cg_dot(c->r, c->r, len);
        double beta = rr_new / rr;
        for (size_t i = 0; i < len; i++) pin[i] = c->r[i] + beta * pin[i];
        rr = rr_new;
    }
}

/* Measure one series point: this rank's strip is rows x n. */
static void cg_point(cg_ctx *c, const char *name, int n, int rows)
{
    c->n = n;
    c->rows = rows;
    size_t len = (size_t)rows * n;
    c->x = calloc(len + 1, sizeof(double));
    c->r = calloc(len + 1, sizeof(double));
    c->q = calloc(len + 1, sizeof(double));
    c->b = calloc(len + 1, sizeof(double));
    c->p = calloc(len + 2 * (size_t)n, sizeof(double));
    for (size_t i = 0; i < len; i++) c->b[i] = 1.0 + (double)((i * 7 + (size_t)bench.rank) % 13) / 13;
    cg_restart(c);
    double t = bench_measure(cg_op, c);
    bench_report(name, n, t * 1e6, "us");
    free(c->x); free(c->r); free(c->q); free(c->b); free(c->p);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {32, 256};
    bench_init(&argc, &argv);
    cg_ctx c;
    c.up = bench.rank > 0 ? bench.rank - 1 : MPI_PROC_NULL;
    c.down = bench.rank < bench.nprocs - 1 ? bench.rank + 1 : MPI_PROC_NULL;
    for (int s = 0; s < 2; s++) {
        if (bench_skip_if_over_budget("cg", sizes[s])) break;
        cg_point(&c, "cg", sizes[s], sizes[s]);
    }
    for (int s = 0; s < 2; s++) {
        /* 2n rows over P ranks, the first (2n mod P) ranks one row more */
        int total = 2 * sizes[s], P = bench.nprocs;
        int rows = total / P + (bench.rank < total % P);
        if (bench_skip_if_over_budget("cgfixed", sizes[s])) break;
        cg_point(&c, "cgfixed", sizes[s], rows);
    }
    MPI_Finalize();
    return 0;
}

/* ocean.c -- red-black Gauss-Seidel, residual, restriction, prolongation and the V-cycle of OCEAN.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * All loops run over the calling rank's band of rows; the rows just outside the band come
 * from the level's `above`/`below` pointers, which the form keeps current through
 * ops.exchange (ocean.h).  The V-cycle is V(2,2) with 16 sweeps on the coarsest level, which
 * is small (at least 4 rows per rank, 4..64 rows in all) and well conditioned (a / 4^l).
 * Every loop runs the same arithmetic in the same order at every rank count, so results
 * differ between forms and rank counts only in the order of the global sums.
 *
 * Convergence is judged on the global residual norm, one ops.sum per V-cycle: the
 * allreduce of OCEAN that the paper's Table 13 speeds up.
 */
#include "ocean.h"
#include "../common/app.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { RED = 0, BLACK = 1, PRE = 2, POST = 2, COARSE_SWEEPS = 16, MAX_CYCLES = 60 };
static const double TOLERANCE = 1e-10, A0 = 40.0, DT = 1.0;

static double forcing(long i, long j, long n)   /* the wind: zero integral over the basin */
{
    return 0.1 * sin(2 * APP_PI * ((double)i + 0.5) / (double)n) * cos(APP_PI * ((double)j + 0.5) / (double)n);
}

void ocean_setup(ocean *o, long n, int nranks, int rank)
{
    long coarsest = 4;
    while (coarsest < 4L * nranks && coarsest < n) coarsest *= 2;
    int levels = 1;
    while ((n >> (levels - 1)) > coarsest) levels++;
    o->nlevels = levels;
    o->nranks = nranks;
    o->coarsest = n >> (levels - 1);
    o->lv = calloc((size_t)levels, sizeof *o->lv);
    o->dt = DT;
    for (int l = 0; l < levels; l++) {
        ocean_level *v = &o->lv[l];
        v->n = n >> l;
        ocean_band(o, l, rank, &v->lo, &v->hi);
        v->a = A0 / (double)(1L << (2 * l));
        v->f = app_alloc(sizeof(double) * (size_t)((v->hi - v->lo) * v->n));
        v->r = app_alloc(sizeof(double) * (size_t)((v->hi - v->lo) * v->n));
    }
}

void ocean_band(const ocean *o, int level, int rank, long *lo, long *hi)
{
    int shift = o->nlevels - 1 - level;
    *lo = app_lo(o->coarsest, o->nranks, rank) << shift;
    *hi = app_lo(o->coarsest, o->nranks, rank + 1) << shift;
}

void ocean_free(ocean *o)
{
    for (int l = 0; l < o->nlevels; l++) { free(o->lv[l].f); free(o->lv[l].r); }
    free(o->lv);
}

void ocean_initial(const ocean *o, double *u0)
{
    const ocean_level *v = &o->lv[0];
    for (long i = v->lo; i < v->hi; i++)
        for (long j = 0; j < v->n; j++)
            u0[(i - v->lo) * v->n + j] = 1.0 + 0.5 * cos(3 * APP_PI * (double)(i * j) / (double)(v->n * v->n));
}

/* the row of u at global row i (lo-1 .. hi), or NULL outside the basin */
static const double *row(const ocean_level *v, long i)
{
    if (i < v->lo) return v->above;
    if (i >= v->hi) return v->below;
    return v->u + (i - v->lo) * v->n;
}

/* sum of the existing neighbours of (i, j) and their count */
static inline double neighbours(const ocean_level *v, const double *up, const double *mid,
                                const double *down, long j, int *k)
{
    double s = 0;
    int c = 0;
    if (up) { s += up[j]; c++; }
    if (down) { s += down[j]; c++; }
    if (j > 0) { s += mid[j - 1]; c++; }
    if (j < v->n - 1) { s += mid[j + 1]; c++; }
    *k = c;
    return s;
}

static void relax(const ocean_level *v, int color)
{
    for (long i = v->lo; i < v->hi; i++) {
        const double *up = row(v, i - 1), *down = row(v, i + 1);
        double *u = v->u + (i - v->lo) * v->n;
        const double *f = v->f + (i - v->lo) * v->n;
        for (long j = (i + color) & 1; j < v->n; j += 2) {
            int k;
            double s = neighbours(v, up, u, down, j, &k);
            u[j] = (f[j] + v->a * s) / (1.0 + v->a * k);
        }
    }
}

static double residual(const ocean_level *v)   /* r = f - (I - aL) u; returns my sum of r^2 */
{
    double ss = 0;
    for (long i = v->lo; i < v->hi; i++) {
        const double *up = row(v, i - 1), *down = row(v, i + 1), *u = v->u + (i - v->lo) * v->n;
        const double *f = v->f + (i - v->lo) * v->n;
        double *r = v->r + (i - v->lo) * v->n;
        for (long j = 0; j < v->n; j++) {
            int k;
            double s = neighbours(v, up, u, down, j, &k);
            r[j] = f[j] - (1.0 + v->a * k) * u[j] + v->a * s;
            ss += r[j] * r[j];
        }
    }
    return ss;
}

static void restrict_residual(const ocean_level *fine, ocean_level *coarse)
{
    for (long I = coarse->lo; I < coarse->hi; I++)
        for (long J = 0; J < coarse->n; J++) {
            const double *r0 = fine->r + (2 * I - fine->lo) * fine->n + 2 * J, *r1 = r0 + fine->n;
            coarse->f[(I - coarse->lo) * coarse->n + J] = 0.25 * (r0[0] + r0[1] + r1[0] + r1[1]);
            coarse->u[(I - coarse->lo) * coarse->n + J] = 0.0;
        }
}

/* u_fine += bilinear interpolation of u_coarse (walls mirror the edge cell) */
static void prolong(const ocean_level *coarse, ocean_level *fine)
{
    long nc = coarse->n;
    for (long i = fine->lo; i < fine->hi; i++) {
        long I = i / 2, In = (i & 1) ? I + 1 : I - 1;   /* the coarse row on i's side */
        const double *c = row(coarse, I), *cn = (In < 0 || In >= nc) ? c : row(coarse, In);
        double *u = fine->u + (i - fine->lo) * fine->n;
        for (long j = 0; j < fine->n; j++) {
            long J = j / 2, Jn = (j & 1) ? J + 1 : J - 1;
            if (Jn < 0 || Jn >= nc) Jn = J;
            u[j] += 0.5625 * c[J] + 0.1875 * (cn[J] + c[Jn]) + 0.0625 * cn[Jn];
        }
    }
}

static void smooth(const ocean *o, int l, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        relax(&o->lv[l], RED);
        o->ops.exchange(l);
        relax(&o->lv[l], BLACK);
        o->ops.exchange(l);
    }
}

/* on entry the rows around level l's band are current; so they are on return */
static void vcycle(ocean *o, int l)
{
    if (l == o->nlevels - 1) {
        smooth(o, l, COARSE_SWEEPS);
        return;
    }
    smooth(o, l, PRE);
    residual(&o->lv[l]);
    restrict_residual(&o->lv[l], &o->lv[l + 1]);
    o->ops.exchange(l + 1);
    vcycle(o, l + 1);
    prolong(&o->lv[l + 1], &o->lv[l]);
    o->ops.exchange(l);
    smooth(o, l, POST);
}

static void ocean_step(ocean *o)
{
    ocean_level *v = &o->lv[0];
    double ff = 0;
    for (long i = v->lo; i < v->hi; i++)
        for (long j = 0; j < v->n; j++) {
            double *f = &v->f[(i - v->lo) * v->n + j];
            *f = v->u[(i - v->lo) * v->n + j] + o->dt * forcing(i, j, v->n);
            ff += *f * *f;
        }
    double fnorm = sqrt(o->ops.sum(ff));
    o->ops.exchange(0);
    for (o->cycles = 1; o->cycles <= MAX_CYCLES; o->cycles++) {
        vcycle(o, 0);
        if (sqrt(o->ops.sum(residual(v))) <= TOLERANCE * fnorm) break;
    }
}

static double ocean_heat(const ocean *o)
{
    const ocean_level *v = &o->lv[0];
    double s = 0;
    for (long k = 0; k < (v->hi - v->lo) * v->n; k++) s += v->u[k];
    return s;
}

static double ocean_check_residual(const ocean *o)
{
    const ocean_level *v = &o->lv[0];
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int mine = (int)((v->hi - v->lo) * v->n), *counts = NULL, *displs = NULL;
    double *u = NULL, *f = NULL, rel = 0;
    if (me == 0) {
        counts = app_alloc(sizeof(int) * (size_t)np);
        displs = app_alloc(sizeof(int) * (size_t)np);
        u = app_alloc(sizeof(double) * (size_t)(v->n * v->n));
        f = app_alloc(sizeof(double) * (size_t)(v->n * v->n));
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0)
        for (int q = 0, at = 0; q < np; q++) { displs[q] = at; at += counts[q]; }
    MPI_Gatherv(v->u, mine, MPI_DOUBLE, u, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(v->f, mine, MPI_DOUBLE, f, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {   /* the whole grid as one band without neighbours */
        ocean_level whole = { .n = v->n, .lo = 0, .hi = v->n, .a = v->a, .u = u, .f = f,
                              .r = app_alloc(sizeof(double) * (size_t)(v->n * v->n)) };
        double ff = 0;
        for (long k = 0; k < v->n * v->n; k++) ff += f[k] * f[k];
        rel = sqrt(residual(&whole) / ff);
        free(whole.r);
        free(u); free(f); free(counts); free(displs);
    }
    MPI_Bcast(&rel, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return rel;
}

void ocean_swap_rows(const ocean_level *v, int up, int down, double *above, double *below)
{
    long rows = v->hi - v->lo;
    int n = (int)v->n, up_n = up != MPI_PROC_NULL ? n : 0, down_n = down != MPI_PROC_NULL ? n : 0;
    app_phase(APP_RMEM);
    MPI_Sendrecv(v->u, up_n, MPI_DOUBLE, up, 0, below, down_n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(v->u + (rows - 1) * n, down_n, MPI_DOUBLE, down, 1, above, up_n, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    app_phase(APP_LOCAL);
    app_count((up_n > 0) + (down_n > 0), (long)sizeof(double) * (up_n + down_n));
}

double ocean_allreduce(double mine)
{
    double all;
    app_phase(APP_RMEM);
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    return all;
}

const char *ocean_run(ocean *o, int steps)
{
    static char text[96];
    double heat0 = 0;
    for (int rep = 0; rep < app.reps; rep++) {
        ocean_initial(o, o->lv[0].u);
        heat0 = o->ops.sum(ocean_heat(o));
        app_rep_begin();
        for (int s = 0; s < steps; s++) ocean_step(o);
        app_rep_end();
    }
    app_verify("residual", ocean_check_residual(o), 1e-9);
    app_verify("heat-conservation", fabs(o->ops.sum(ocean_heat(o)) - heat0) / fabs(heat0), 1e-9);
    snprintf(text, sizeof text, "%ldx%ld grid, %d levels, %d steps, %d V-cycles in the last",
             o->lv[0].n, o->lv[0].n, o->nlevels, steps, o->cycles);
    return text;
}

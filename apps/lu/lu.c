/* lu.c -- block kernels, block-cyclic bookkeeping, panel packing and the residual check of LU.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The kernels are plain loops over row-major b x b blocks, written so the compiler vectorizes
 * their inner loop along a row; the trailing update (lu_update) is where the time goes, as in
 * the paper's LOCAL-dominated LU.  The matrix is generated from a hash of the global element
 * index with a dominant diagonal, so no pivoting is needed and every rank count factors the
 * same matrix.  The residual check is the only communication here: the owners' blocks go to
 * world rank 0 as (I, J, data) records in one MPI_Gatherv.
 */
#include "lu.h"
#include "../common/app.h"
#include <math.h>
#include <string.h>

void lu_grid(int owners, int *pr, int *pc)
{
    int r = 1;
    for (int d = 1; d * d <= owners; d++)
        if (owners % d == 0) r = d;
    *pr = r;
    *pc = owners / r;
}

void lu_setup(lu *m, long n, long b, int pr, int pc, int owner)
{
    m->n = n;
    m->b = b;
    m->nb = n / b;
    m->pr = pr;
    m->pc = pc;
    m->prow = owner / pc;
    m->pcol = owner % pc;
    m->lrows = (m->nb - m->prow + pr - 1) / pr;
    m->lcols = (m->nb - m->pcol + pc - 1) / pc;
}

long lu_first_after(long k, int p, int me)
{
    return k >= me ? (k - me) / p + 1 : 0;
}

static double element(long i, long j, long n)
{
    return app_unit((uint64_t)(i * n + j)) - 0.5 + (i == j ? 0.5 * (double)n : 0.0);
}

void lu_fill(const lu *m, double *blocks)
{
    for (long li = 0; li < m->lrows; li++)
        for (long lj = 0; lj < m->lcols; lj++) {
            long I = li * m->pr + m->prow, J = lj * m->pc + m->pcol;
            double *a = lu_block(m, blocks, I, J);
            for (long i = 0; i < m->b; i++)
                for (long j = 0; j < m->b; j++) a[i * m->b + j] = element(I * m->b + i, J * m->b + j, m->n);
        }
}

void lu_factor_diag(double *d, long b)
{
    for (long k = 0; k < b; k++)
        for (long i = k + 1; i < b; i++) {
            double l = d[i * b + k] /= d[k * b + k];
            for (long j = k + 1; j < b; j++) d[i * b + j] -= l * d[k * b + j];
        }
}

void lu_solve_lower(const double *d, double *a, long b)
{
    for (long i = 1; i < b; i++)
        for (long k = 0; k < i; k++) {
            double l = d[i * b + k];
            for (long j = 0; j < b; j++) a[i * b + j] -= l * a[k * b + j];
        }
}

void lu_solve_upper(const double *d, double *a, long b)
{
    for (long i = 0; i < b; i++) {
        double *row = a + i * b;
        for (long k = 0; k < b; k++) {
            double x = row[k] /= d[k * b + k];
            for (long j = k + 1; j < b; j++) row[j] -= x * d[k * b + j];
        }
    }
}

void lu_update(double *restrict c, const double *restrict l, const double *restrict u, long b)
{
    for (long i = 0; i < b; i++)
        for (long k = 0; k < b; k++) {
            double x = l[i * b + k];
            for (long j = 0; j < b; j++) c[i * b + j] -= x * u[k * b + j];
        }
}

long lu_pack_column(const lu *m, double *blocks, long k, double *buf)
{
    long count = 0, bb = m->b * m->b;
    for (long li = lu_first_after(k, m->pr, m->prow); li < m->lrows; li++, count++)
        memcpy(buf + count * bb, lu_block(m, blocks, li * m->pr + m->prow, k), sizeof(double) * (size_t)bb);
    return count;
}

long lu_pack_row(const lu *m, double *blocks, long k, double *buf)
{
    long count = 0, bb = m->b * m->b;
    for (long lj = lu_first_after(k, m->pc, m->pcol); lj < m->lcols; lj++, count++)
        memcpy(buf + count * bb, lu_block(m, blocks, k, lj * m->pc + m->pcol), sizeof(double) * (size_t)bb);
    return count;
}

void lu_update_trailing(const lu *m, double *blocks, long k, const double *col, const double *row,
                        long first, long stride)
{
    long li0 = lu_first_after(k, m->pr, m->prow), lj0 = lu_first_after(k, m->pc, m->pcol);
    long width = m->lcols - lj0, bb = m->b * m->b;
    for (long t = first; t < (m->lrows - li0) * width; t += stride) {
        long li = li0 + t / width, lj = lj0 + t % width;
        lu_update(lu_block(m, blocks, li * m->pr + m->prow, lj * m->pc + m->pcol),
                  col + (li - li0) * bb, row + (lj - lj0) * bb, m->b);
    }
}

void lu_share_diag(const lu *m, long k, double *diag, MPI_Comm row_comm, MPI_Comm col_comm)
{
    int krow = (int)(k % m->pr), kcol = (int)(k % m->pc);
    app_phase(APP_RMEM);
    if (m->prow == krow) MPI_Bcast(diag, (int)(m->b * m->b), MPI_DOUBLE, kcol, row_comm);
    if (m->pcol == kcol) MPI_Bcast(diag, (int)(m->b * m->b), MPI_DOUBLE, krow, col_comm);
    app_phase(APP_LOCAL);
}

void lu_share_panels(const lu *m, long k, double *col, double *row, MPI_Comm row_comm, MPI_Comm col_comm)
{
    int krow = (int)(k % m->pr), kcol = (int)(k % m->pc);
    long bb = m->b * m->b;
    long ncol = m->lrows - lu_first_after(k, m->pr, m->prow), nrow = m->lcols - lu_first_after(k, m->pc, m->pcol);
    app_phase(APP_RMEM);
    MPI_Bcast(col, (int)(ncol * bb), MPI_DOUBLE, kcol, row_comm);
    MPI_Bcast(row, (int)(nrow * bb), MPI_DOUBLE, krow, col_comm);
    app_phase(APP_LOCAL);
    if (m->pcol == kcol && m->pc > 1 && ncol > 0) app_count(1, (long)sizeof(double) * ncol * bb);
    if (m->prow == krow && m->pr > 1 && nrow > 0) app_count(1, (long)sizeof(double) * nrow * bb);
}

double lu_residual(const lu *m, double *blocks)
{
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long bb = m->b * m->b, rec = bb + 2, mine = blocks ? m->lrows * m->lcols : 0;
    double *out = app_alloc(sizeof(double) * (size_t)(mine * rec));
    for (long t = 0; t < mine; t++) {
        long I = (t / m->lcols) * m->pr + m->prow, J = (t % m->lcols) * m->pc + m->pcol;
        out[t * rec] = (double)I;
        out[t * rec + 1] = (double)J;
        memcpy(out + t * rec + 2, lu_block(m, blocks, I, J), sizeof(double) * (size_t)bb);
    }
    int count = (int)(mine * rec), *counts = NULL, *displs = NULL;
    double *all = NULL, rel = 0;
    if (me == 0) {
        counts = app_alloc(sizeof(int) * (size_t)np);
        displs = app_alloc(sizeof(int) * (size_t)np);
        all = app_alloc(sizeof(double) * (size_t)(m->nb * m->nb * rec));
    }
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0)
        for (int q = 0, at = 0; q < np; q++) { displs[q] = at; at += counts[q]; }
    MPI_Gatherv(out, count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        long n = m->n, b = m->b;
        double *f = app_alloc(sizeof(double) * (size_t)(n * n)), diff = 0, norm = 0;
        for (long t = 0; t < m->nb * m->nb; t++) {
            const double *r = all + t * rec;
            long I = (long)r[0], J = (long)r[1];
            for (long i = 0; i < b; i++) memcpy(f + (I * b + i) * n + J * b, r + 2 + i * b, sizeof(double) * (size_t)b);
        }
        double *lu_row = app_alloc(sizeof(double) * (size_t)n);
        for (long i = 0; i < n; i++) {     /* row i of L U: sum over k <= i of L_ik U_k., L_ii = 1 */
            memset(lu_row, 0, sizeof(double) * (size_t)n);
            for (long k = 0; k <= i; k++) {
                double l = k < i ? f[i * n + k] : 1.0;
                for (long j = k; j < n; j++) lu_row[j] += l * f[k * n + j];
            }
            for (long j = 0; j < n; j++) {
                double a = element(i, j, n);
                diff += (a - lu_row[j]) * (a - lu_row[j]);
                norm += a * a;
            }
        }
        free(lu_row);
        rel = sqrt(diff / norm);
        free(f); free(all); free(counts); free(displs);
    }
    free(out);
    MPI_Bcast(&rel, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return rel;
}

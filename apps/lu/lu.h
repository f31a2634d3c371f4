/* lu.h -- the block kernels and the 2-D block-cyclic layout of LU that its three forms share.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Blocked right-looking LU factorization without pivoting (the SPLASH-2 kernel) of a dense,
 * diagonally dominant n x n matrix split into b x b blocks.  Step k factors the diagonal
 * block A_kk = L_kk U_kk, solves the pivot column (A_ik <- A_ik U_kk^-1, i > k) and the pivot
 * row (A_kj <- L_kk^-1 A_kj, j > k), and updates the trailing blocks A_ij -= A_ik A_kj.
 *
 * Blocks are distributed 2-D block-cyclically over a pr x pc grid of owners: block (I, J)
 * belongs to owner (I mod pr, J mod pc), which stores its blocks contiguously, row-major in
 * its local block coordinates (I / pr, J / pc) -- the "four-dimensional array" the paper
 * credits for LU's good shared-memory behaviour.  An owner is a rank in the mpi and sas
 * forms and a node in the hybrid form.
 */
#ifndef APPS_LU_H
#define APPS_LU_H

#include <mpi.h>

typedef struct lu {
    long n, b, nb;          /* matrix order, block order, blocks per side */
    int pr, pc;             /* owner grid */
    int prow, pcol;         /* this owner's place in it */
    long lrows, lcols;      /* my block rows and block columns */
} lu;

void lu_grid(int owners, int *pr, int *pc);    /* pr x pc = owners, pr <= pc, as square as can be */
void lu_setup(lu *m, long n, long b, int pr, int pc, int owner);
long lu_first_after(long k, int p, int me);    /* local index of my first block line beyond k */
static inline double *lu_block(const lu *m, double *blocks, long I, long J)   /* I, J must be mine */
{
    return blocks + ((I / m->pr) * m->lcols + J / m->pc) * m->b * m->b;
}
void lu_fill(const lu *m, double *blocks);     /* my blocks of A */

void lu_factor_diag(double *d, long b);                         /* d = L U in place */
void lu_solve_lower(const double *d, double *a, long b);        /* a = L(d)^-1 a: pivot row */
void lu_solve_upper(const double *d, double *a, long b);        /* a = a U(d)^-1: pivot column */
void lu_update(double *c, const double *l, const double *u, long b);   /* c -= l u */

/* Pack my blocks of pivot column k below the diagonal (pivot row k right of it) into buf, in
 * local order; returns the number of blocks.  Every owner of the same grid row (column) gets
 * them in this order. */
long lu_pack_column(const lu *m, double *blocks, long k, double *buf);
long lu_pack_row(const lu *m, double *blocks, long k, double *buf);
/* The trailing update of step k on my blocks, from packed pivot column and row blocks; only
 * every `stride`-th block from `first` on, so the ranks of a node can share the work. */
void lu_update_trailing(const lu *m, double *blocks, long k, const double *col, const double *row,
                        long first, long stride);

/* The broadcasts of step k between owners (lu_mpi: ranks; lu_hybrid: node leaders), on the
 * communicators of the owner's grid row and grid column (ranked by column and by row): the
 * diagonal block to the owners of pivot row and column; then the pivot column blocks along
 * grid rows and the pivot row blocks along grid columns, packed as lu_pack_* packs them. */
void lu_share_diag(const lu *m, long k, double *diag, MPI_Comm row_comm, MPI_Comm col_comm);
void lu_share_panels(const lu *m, long k, double *col, double *row, MPI_Comm row_comm, MPI_Comm col_comm);

/* ||A - L U||_F / ||A||_F, computed on world rank 0 from every owner's blocks (MPI_Gatherv
 * over MPI_COMM_WORLD; ranks that are not an owner's spokesman pass blocks = NULL); every rank
 * gets the value. */
double lu_residual(const lu *m, double *blocks);

#endif

/* lu_mpi.c -- LU, message-passing form: blocked LU on a 2-D block-cyclic grid, panels broadcast along rows and columns.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: blocked right-looking LU without pivoting (lu.h) on a pr x pc grid of ranks.
 * Communication: one-to-many, non-personalized.  At step k the owner of the diagonal block
 * factors it and broadcasts it along its grid row and its grid column (MPI_Bcast on row and
 * column communicators made by MPI_Comm_split); the owners of the pivot column and the pivot
 * row solve their blocks; then each pivot-column owner broadcasts its blocks along its grid
 * row and each pivot-row owner its blocks along its grid column, so every rank holds the
 * L and U blocks its trailing update needs.  Each panel reaches sqrt(P) ranks, as the paper
 * says.
 *
 * usage: mpiexec -n P lu_mpi [--n ORDER (default 512)] [--b BLOCK (default 32)] [--reps R]
 */
#include "lu.h"
#include "../common/app.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "lu", "mpi");
    long n = app_arg("--n", 512), b = app_arg("--b", 32);
    if (b < 1 || n < b || n % b) app_refuse("--n must be a multiple of --b");
    int pr, pc;
    lu_grid(app.size, &pr, &pc);
    lu m;
    lu_setup(&m, n, b, pr, pc, app.rank);
    MPI_Comm row_comm, col_comm;       /* my grid row (ranked by column) and grid column */
    MPI_Comm_split(MPI_COMM_WORLD, m.prow, m.pcol, &row_comm);
    MPI_Comm_split(MPI_COMM_WORLD, m.pcol, m.prow, &col_comm);

    long bb = b * b;
    double *blocks = app_alloc(sizeof(double) * (size_t)(m.lrows * m.lcols * bb));
    double *diag = app_alloc(sizeof(double) * (size_t)bb);
    double *col = app_alloc(sizeof(double) * (size_t)(m.lrows * bb));   /* pivot column blocks of my rows */
    double *row = app_alloc(sizeof(double) * (size_t)(m.lcols * bb));   /* pivot row blocks of my columns */

    for (int rep = 0; rep < app.reps; rep++) {
        lu_fill(&m, blocks);
        app_rep_begin();
        for (long k = 0; k < m.nb; k++) {
            int in_krow = m.prow == k % pr, in_kcol = m.pcol == k % pc;
            if (in_krow && in_kcol) {
                lu_factor_diag(lu_block(&m, blocks, k, k), b);
                memcpy(diag, lu_block(&m, blocks, k, k), sizeof(double) * (size_t)bb);
            }
            lu_share_diag(&m, k, diag, row_comm, col_comm);       /* MPI_Bcast along row and column */

            long ncol = m.lrows - lu_first_after(k, pr, m.prow);   /* my block rows below k */
            long nrow = m.lcols - lu_first_after(k, pc, m.pcol);   /* my block columns right of k */
            if (in_kcol)
                for (long li = m.lrows - ncol; li < m.lrows; li++)
                    lu_solve_upper(diag, lu_block(&m, blocks, li * pr + m.prow, k), b);
            if (in_krow)
                for (long lj = m.lcols - nrow; lj < m.lcols; lj++)
                    lu_solve_lower(diag, lu_block(&m, blocks, k, lj * pc + m.pcol), b);
            if (in_kcol) lu_pack_column(&m, blocks, k, col);
            if (in_krow) lu_pack_row(&m, blocks, k, row);

            lu_share_panels(&m, k, col, row, row_comm, col_comm);  /* MPI_Bcast along rows, columns */

            lu_update_trailing(&m, blocks, k, col, row, 0, 1);
        }
        app_rep_end();
    }
    app_verify("residual-|A-LU|/|A|", lu_residual(&m, blocks), 1e-12);

    char size[96];
    snprintf(size, sizeof size, "%ldx%ld matrix, %ldx%ld blocks, %dx%d ranks", n, n, b, b, pr, pc);
    free(blocks); free(diag); free(col); free(row);
    MPI_Comm_free(&row_comm);
    MPI_Comm_free(&col_comm);
    return app_finish(size);
}

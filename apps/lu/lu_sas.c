/* lu_sas.c -- LU, shared-address-space form: blocked LU on a block-cyclic matrix in a shared window.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: blocked right-looking LU without pivoting (lu.h), blocks owned 2-D
 * block-cyclically by a pr x pc grid of ranks as in lu_mpi.  The matrix is one shared window
 * (MPI_Win_allocate_shared) in which every rank contributes its own blocks, stored
 * contiguously (the four-dimensional array of SPLASH-2 LU), so each rank writes only its own
 * memory.  Communication: the trailing update and the panel solves read the diagonal, pivot
 * column and pivot row blocks straight from their owners' memory.  Synchronization: two node
 * barriers (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) per step, after the diagonal block is
 * factored and after the panels are solved.  Runs on one node.
 *
 * usage: mpiexec -n P lu_sas [--n ORDER (default 512)] [--b BLOCK (default 32)] [--reps R]
 */
#include "lu.h"
#include "../common/app.h"
#include <stdio.h>

static lu *owner;           /* the layout seen from every rank: owner[q] */
static const lu *me;        /* ... and from this one */
static double **base;       /* every rank's blocks in the shared window */

static double *block(long I, long J)   /* anyone's block (I, J) */
{
    int q = (int)(I % me->pr) * me->pc + (int)(J % me->pc);
    return lu_block(&owner[q], base[q], I, J);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "lu", "sas");
    long n = app_arg("--n", 512), b = app_arg("--b", 32);
    MPI_Comm node = app_one_node();
    if (b < 1 || n < b || n % b) app_refuse("--n must be a multiple of --b");
    int pr, pc;
    lu_grid(app.size, &pr, &pc);
    owner = app_alloc(sizeof(lu) * (size_t)app.size);
    for (int q = 0; q < app.size; q++) lu_setup(&owner[q], n, b, pr, pc, q);
    me = &owner[app.rank];
    long bb = b * b;
    double *matrix = app_shared(node, (MPI_Aint)(sizeof(double) * (size_t)(me->lrows * me->lcols * bb)));
    base = app_alloc(sizeof(double *) * (size_t)app.size);
    for (int q = 0; q < app.size; q++) base[q] = app_part(matrix, q);
    double *mine = base[app.rank];

    for (int rep = 0; rep < app.reps; rep++) {
        lu_fill(me, mine);
        app_rep_begin();
        for (long k = 0; k < me->nb; k++) {
            int in_krow = me->prow == k % pr, in_kcol = me->pcol == k % pc;
            if (in_krow && in_kcol) lu_factor_diag(block(k, k), b);
            app_node_barrier(node);

            const double *diag = block(k, k);
            long li0 = lu_first_after(k, pr, me->prow), lj0 = lu_first_after(k, pc, me->pcol);
            if (in_kcol)
                for (long li = li0; li < me->lrows; li++) lu_solve_upper(diag, block(li * pr + me->prow, k), b);
            if (in_krow)
                for (long lj = lj0; lj < me->lcols; lj++) lu_solve_lower(diag, block(k, lj * pc + me->pcol), b);
            app_node_barrier(node);

            for (long li = li0; li < me->lrows; li++)
                for (long lj = lj0; lj < me->lcols; lj++) {
                    long I = li * pr + me->prow, J = lj * pc + me->pcol;
                    lu_update(block(I, J), block(I, k), block(k, J), b);
                }
            if (!in_kcol) app_count(0, (long)sizeof(double) * (me->lrows - li0) * bb);
            if (!in_krow) app_count(0, (long)sizeof(double) * (me->lcols - lj0) * bb);
        }
        app_rep_end();
    }
    app_verify("residual-|A-LU|/|A|", lu_residual(me, mine), 1e-12);

    char size[96];
    snprintf(size, sizeof size, "%ldx%ld matrix, %ldx%ld blocks, %dx%d ranks", n, n, b, b, pr, pc);
    free(owner);
    free(base);
    return app_finish(size);
}

/* ocean_mpi.c -- OCEAN, message-passing form: multigrid V-cycles on row bands with halo exchanges.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: implicit heat diffusion in a closed basin, one multigrid solve (red-black
 * Gauss-Seidel V-cycles) per time step (ocean.h).  Each rank owns a band of rows of every grid
 * level and keeps a copy of the row above and the row below its band (halo rows).
 * Communication: nearest neighbour only -- after every half-sweep, restriction and
 * prolongation a rank swaps its first and last rows with the ranks above and below
 * (two MPI_Sendrecv; MPI_PROC_NULL at the basin's walls) -- and one MPI_Allreduce per V-cycle
 * for the residual norm that decides convergence.
 *
 * usage: mpiexec -n P ocean_mpi [--n CELLS (a power of 2, default 256)] [--steps S] [--reps R]
 */
#include "ocean.h"
#include "../common/app.h"

static ocean o;
static int up, down;              /* neighbour ranks, MPI_PROC_NULL at a wall */
static double **halo;             /* per level: row above, my rows, row below */

static void exchange(int l)
{
    ocean_level *v = &o.lv[l];
    ocean_swap_rows(v, up, down, halo[l], halo[l] + (v->hi - v->lo + 1) * v->n);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "ocean", "mpi");
    long n = app_arg("--n", 256);
    int steps = (int)app_arg("--steps", 3);
    if (n < 8 || (n & (n - 1))) app_refuse("--n must be a power of 2, at least 8");
    ocean_setup(&o, n, app.size, app.rank);
    o.ops = (ocean_ops){ exchange, ocean_allreduce };
    up = app.rank > 0 ? app.rank - 1 : MPI_PROC_NULL;
    down = app.rank < app.size - 1 ? app.rank + 1 : MPI_PROC_NULL;
    halo = app_alloc(sizeof(double *) * (size_t)o.nlevels);
    for (int l = 0; l < o.nlevels; l++) {
        ocean_level *v = &o.lv[l];
        long rows = v->hi - v->lo;
        halo[l] = app_alloc(sizeof(double) * (size_t)((rows + 2) * v->n));
        v->u = halo[l] + v->n;
        v->above = up != MPI_PROC_NULL ? halo[l] : NULL;
        v->below = down != MPI_PROC_NULL ? halo[l] + (rows + 1) * v->n : NULL;
    }

    const char *size = ocean_run(&o, steps);
    for (int l = 0; l < o.nlevels; l++) free(halo[l]);
    free(halo);
    ocean_free(&o);
    return app_finish(size);
}

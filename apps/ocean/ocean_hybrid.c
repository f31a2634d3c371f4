/* ocean_hybrid.c -- OCEAN, hybrid form: shared-window grids inside a node, halo messages between nodes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: implicit heat diffusion in a closed basin, one multigrid solve (red-black
 * Gauss-Seidel V-cycles) per time step (ocean.h), rows partitioned into bands over all ranks.
 * Each node keeps its ranks' bands of every level in shared windows.  A rank reads the row
 * next to its band from its neighbour's memory when the neighbour is on its node and keeps a
 * halo copy, refreshed by MPI_Sendrecv, when it is not.  Communication: those loads, one
 * MPI_Sendrecv per off-node neighbour per exchange, and one MPI_Allreduce per V-cycle;
 * synchronization: a node barrier (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) per exchange.
 * --node-size K makes nodes of K ranks.
 *
 * usage: mpiexec -n P ocean_hybrid [--n CELLS] [--steps S] [--reps R] [--node-size K]
 */
#include "ocean.h"
#include "../common/app.h"

static ocean o;
static MPI_Comm node;
static int up_msg, down_msg;      /* neighbours reached by message, else MPI_PROC_NULL */
static double **halo_above, **halo_below;

static void exchange(int l)
{
    ocean_level *v = &o.lv[l];
    ocean_swap_rows(v, up_msg, down_msg, halo_above[l], halo_below[l]);
    int loads = (v->above != NULL) + (v->below != NULL) - (up_msg != MPI_PROC_NULL) - (down_msg != MPI_PROC_NULL);
    app_count(0, (long)sizeof(double) * v->n * loads);
    app_node_barrier(node);
}

/* where the row next to my band comes from: the neighbour's band in the node's window, or a halo */
static const double *neighbour_row(double *grid, const int *node_rank, int l, int q, int last_row,
                                   double **halo, int *by_msg)
{
    *by_msg = MPI_PROC_NULL;
    if (q < 0 || q >= app.size) return NULL;
    if (node_rank[q] < 0) {
        *by_msg = q;
        halo[l] = app_alloc(sizeof(double) * (size_t)o.lv[l].n);
        return halo[l];
    }
    long lo, hi;
    ocean_band(&o, l, q, &lo, &hi);
    return (const double *)app_part(grid, node_rank[q]) + (last_row ? hi - lo - 1 : 0) * o.lv[l].n;
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "ocean", "hybrid");
    long n = app_arg("--n", 256);
    int steps = (int)app_arg("--steps", 3);
    if (n < 8 || (n & (n - 1))) app_refuse("--n must be a power of 2, at least 8");
    node = app_node_comm(MPI_COMM_WORLD);
    int *node_rank = app_node_ranks(node);
    ocean_setup(&o, n, app.size, app.rank);
    o.ops = (ocean_ops){ exchange, ocean_allreduce };
    halo_above = calloc((size_t)o.nlevels, sizeof(double *));
    halo_below = calloc((size_t)o.nlevels, sizeof(double *));
    for (int l = 0; l < o.nlevels; l++) {
        ocean_level *v = &o.lv[l];
        double *grid = app_shared(node, (MPI_Aint)(sizeof(double) * (size_t)((v->hi - v->lo) * v->n)));
        v->u = app_part(grid, node_rank[app.rank]);
        v->above = neighbour_row(grid, node_rank, l, app.rank - 1, 1, halo_above, &up_msg);
        v->below = neighbour_row(grid, node_rank, l, app.rank + 1, 0, halo_below, &down_msg);
    }

    const char *size = ocean_run(&o, steps);
    for (int l = 0; l < o.nlevels; l++) { free(halo_above[l]); free(halo_below[l]); }
    free(halo_above); free(halo_below); free(node_rank);
    ocean_free(&o);
    return app_finish(size);
}

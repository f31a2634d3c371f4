/* ocean_sas.c -- OCEAN, shared-address-space form: multigrid V-cycles on grids in shared windows.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: implicit heat diffusion in a closed basin, one multigrid solve (red-black
 * Gauss-Seidel V-cycles) per time step (ocean.h), rows partitioned into bands as in the
 * message-passing form.  Every level's grid is one array in a shared window
 * (MPI_Win_allocate_shared, each rank contributing its band), so the rows next to a band are
 * simply read from the neighbours' memory.  Communication: those loads; synchronization: a
 * node barrier (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) wherever ocean_mpi exchanges
 * halos, and the residual norm summed through a shared array of partial sums and one
 * barrier.  Runs on one node.
 *
 * usage: mpiexec -n P ocean_sas [--n CELLS (a power of 2, default 256)] [--steps S] [--reps R]
 */
#include "ocean.h"
#include "../common/app.h"

static ocean o;
static MPI_Comm node;
static double *partial;           /* two shared slots per rank, used alternately */

static void exchange(int l)
{
    app_node_barrier(node);
    const ocean_level *v = &o.lv[l];
    app_count(0, (long)sizeof(double) * v->n * ((v->above != NULL) + (v->below != NULL)));
}

static double sum(double mine)
{
    static int parity;    /* a slot is written again only after everyone passed the next barrier */
    partial[2 * app.rank + parity] = mine;
    app_node_barrier(node);
    double all = 0;
    for (int q = 0; q < app.size; q++) all += partial[2 * q + parity];
    parity ^= 1;
    return all;
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "ocean", "sas");
    long n = app_arg("--n", 256);
    int steps = (int)app_arg("--steps", 3);
    node = app_one_node();
    if (n < 8 || (n & (n - 1))) app_refuse("--n must be a power of 2, at least 8");
    ocean_setup(&o, n, app.size, app.rank);
    o.ops = (ocean_ops){ exchange, sum };
    partial = app_shared(node, 2 * sizeof(double));
    for (int l = 0; l < o.nlevels; l++) {
        ocean_level *v = &o.lv[l];
        double *grid = app_shared(node, (MPI_Aint)(sizeof(double) * (size_t)((v->hi - v->lo) * v->n)));
        v->u = grid + v->lo * v->n;
        v->above = v->lo > 0 ? grid + (v->lo - 1) * v->n : NULL;
        v->below = v->hi < v->n ? grid + v->hi * v->n : NULL;
    }

    const char *size = ocean_run(&o, steps);
    ocean_free(&o);
    return app_finish(size);
}

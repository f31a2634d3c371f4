/* nbody_sas.c -- N-BODY, shared-address-space form: Barnes-Hut over a shared forest of per-rank trees.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: Barnes-Hut in 3-D with leapfrog steps (nbody.h); bodies partitioned in Morton
 * order.  The tree is globally shared: every rank builds the subtree of its own bodies, over
 * the common root cube, in its part of shared windows (MPI_Win_allocate_shared), so tree
 * building needs no locks (the spirit of the paper's Barnes-spatial), and the force on a body
 * is the sum of walks through every rank's subtree, read in place.  Nothing is copied
 * between ranks: no locally essential trees, which is the programming ease the paper
 * credits to SAS.  Synchronization: two node barriers (MPI_Win_sync + MPI_Barrier +
 * MPI_Win_sync) per force evaluation, once the bounding boxes are posted and once the
 * subtrees are built.  Runs on one node.
 *
 * usage: mpiexec -n P nbody_sas [--n BODIES (default 8192)] [--steps S (default 3)] [--reps R]
 */
#include "nbody.h"
#include "../common/app.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static long total, n;
static nb_particle *body;
static double (*acc)[3], *phi;
static MPI_Comm node;
static nb_box *boxes;             /* shared: one per rank */
static int *ncells;               /* shared: the size of every rank's tree */
static nb_cell **cells_of;        /* every rank's tree: cells, particles (shared) */
static nb_particle **tree_of;
static int cell_cap;

static void forces(void)
{
    boxes[app.rank] = nb_bounds(body, n);
    app_node_barrier(node);
    nb_box root = nb_union(boxes, app.size);
    memcpy(tree_of[app.rank], body, sizeof(nb_particle) * (size_t)n);
    ncells[app.rank] = nb_build(tree_of[app.rank], (int)n, &root, cells_of[app.rank], cell_cap);
    if (ncells[app.rank] < 0) {
        fprintf(stderr, "nbody_sas: rank %d: tree needs more than %d cells\n", app.rank, cell_cap);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    app_node_barrier(node);
    for (long i = 0; i < n; i++) {
        acc[i][0] = acc[i][1] = acc[i][2] = phi[i] = 0;
        for (int q = 0; q < app.size; q++) nb_force(cells_of[q], ncells[q], tree_of[q], body[i].x, acc[i], &phi[i]);
    }
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "nbody", "sas");
    int steps;
    double dt;
    n = nb_options(&total, &steps, &dt);
    node = app_one_node();
    cell_cap = (int)n + 64;
    boxes = app_shared(node, sizeof(nb_box));
    ncells = app_shared(node, sizeof(int));
    nb_cell *cells = app_shared(node, (MPI_Aint)(sizeof(nb_cell) * (size_t)cell_cap));
    nb_particle *trees = app_shared(node, (MPI_Aint)(sizeof(nb_particle) * (size_t)n));
    cells_of = app_alloc(sizeof(nb_cell *) * (size_t)app.size);
    tree_of = app_alloc(sizeof(nb_particle *) * (size_t)app.size);
    for (int q = 0; q < app.size; q++) {
        cells_of[q] = app_part(cells, q);
        tree_of[q] = app_part(trees, q);
    }
    body = app_alloc(sizeof(nb_particle) * (size_t)n);
    acc = app_alloc(sizeof(double[3]) * (size_t)n);
    phi = app_alloc(sizeof(double) * (size_t)n);

    const char *size = nb_simulate(total, n, body, acc, phi, steps, dt, forces);
    free(cells_of); free(tree_of); free(body); free(acc); free(phi);
    return app_finish(size);
}

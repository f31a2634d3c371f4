/* nbody_mpi.c -- N-BODY, message-passing form: Barnes-Hut with locally essential trees.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: Barnes-Hut in 3-D with leapfrog steps (nbody.h); bodies partitioned in Morton
 * order.  Every force evaluation: each rank builds an octree of its own bodies; for every
 * other rank it selects the part of that tree a body in the other rank's bounding box can
 * see (nb_exchange_let: cells far enough away become pseudo-bodies) and sends it; each rank then
 * builds its locally essential tree -- its own bodies plus everything it received -- and
 * computes the forces on its bodies from it alone.  Communication per evaluation:
 * MPI_Allgather of the ranks' bounding boxes, then an all-to-all personalized exchange whose
 * sizes depend on where the bodies are (MPI_Alltoall of the counts, MPI_Alltoallv of the
 * pseudo-bodies): the paper's "unpredictable" pattern.
 *
 * usage: mpiexec -n P nbody_mpi [--n BODIES (default 8192)] [--steps S (default 3)] [--reps R]
 */
#include "nbody.h"
#include "../common/app.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static long total, n;             /* bodies in all, mine */
static nb_particle *body;         /* my bodies: position, mass */
static double (*acc)[3], *phi;
static nb_box *boxes;             /* every rank's bounding box */
static int *to_others;            /* 1 for every rank but me */
static nb_particle *tree_p;       /* my bodies, then what the others sent: my locally essential tree */
static int tree_cap;
static nb_cell *cells;
static int cell_cap;

static void forces(void)
{
    nb_box root = nb_share_boxes(body, n, boxes);
    memcpy(tree_p, body, sizeof(nb_particle) * (size_t)n);
    int ncells = nb_build_grow(tree_p, (int)n, &root, &cells, &cell_cap);
    int received = nb_exchange_let(cells, ncells, tree_p, boxes, to_others, &tree_p, (int)n, &tree_cap);
    ncells = nb_build_grow(tree_p, (int)n + received, &root, &cells, &cell_cap);
    for (long i = 0; i < n; i++) {
        acc[i][0] = acc[i][1] = acc[i][2] = phi[i] = 0;
        nb_force(cells, ncells, tree_p, body[i].x, acc[i], &phi[i]);
    }
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "nbody", "mpi");
    int steps;
    double dt;
    n = nb_options(&total, &steps, &dt);
    body = app_alloc(sizeof(nb_particle) * (size_t)n);
    acc = app_alloc(sizeof(double[3]) * (size_t)n);
    phi = app_alloc(sizeof(double) * (size_t)n);
    boxes = app_alloc(sizeof(nb_box) * (size_t)app.size);
    to_others = app_alloc(sizeof(int) * (size_t)app.size);
    for (int q = 0; q < app.size; q++) to_others[q] = q != app.rank;
    tree_cap = (int)n;
    tree_p = app_alloc(sizeof(nb_particle) * (size_t)n);

    const char *size = nb_simulate(total, n, body, acc, phi, steps, dt, forces);
    free(body); free(acc); free(phi); free(boxes); free(to_others); free(tree_p); free(cells);
    return app_finish(size);
}

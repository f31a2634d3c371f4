/* nbody_mpi.c -- N-BODY, message-passing form: Barnes-Hut with locally essential trees.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: Barnes-Hut in 3-D with leapfrog steps (nbody.h); bodies partitioned in Morton
 * order.  Every force evaluation: each rank builds an octree of its own bodies; for every
 * other rank it selects the part of that tree a body in the other rank's bounding box can
 * see (nb_let: cells far enough away become pseudo-bodies) and sends it; each rank then
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
static nb_box *boxes;
static nb_particle *tree_p, *let_p;   /* particles of my tree, then of my locally essential tree */
static int tree_cap, let_len, let_cap;
static nb_cell *cells;
static int cell_cap;
static int *scounts, *sdispls, *rcounts, *rdispls;

static void forces(void)
{
    nb_box mine = nb_bounds(body, n);
    app_phase(APP_RMEM);
    MPI_Allgather(&mine, 6, MPI_DOUBLE, boxes, 6, MPI_DOUBLE, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    nb_box root = nb_union(boxes, app.size);

    memcpy(tree_p, body, sizeof(nb_particle) * (size_t)n);
    int ncells = nb_build_grow(tree_p, (int)n, &root, &cells, &cell_cap);
    let_len = 0;
    for (int q = 0; q < app.size; q++) {
        int before = let_len;
        if (q != app.rank) nb_let(cells, ncells, tree_p, &boxes[q], &let_p, &let_len, &let_cap);
        scounts[q] = 4 * (let_len - before);         /* doubles: x, y, z, m */
        sdispls[q] = 4 * before;
        if (scounts[q] > 0) app_count(1, (long)sizeof(double) * scounts[q]);
    }
    app_phase(APP_RMEM);
    MPI_Alltoall(scounts, 1, MPI_INT, rcounts, 1, MPI_INT, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    int received = 0;
    for (int q = 0; q < app.size; q++) { rdispls[q] = 4 * (int)n + received; received += rcounts[q]; }
    if (n + received / 4 > tree_cap) {
        tree_cap = (int)n + received / 4;
        tree_p = realloc(tree_p, sizeof(nb_particle) * (size_t)tree_cap);
    }
    app_phase(APP_RMEM);
    MPI_Alltoallv(let_p, scounts, sdispls, MPI_DOUBLE, tree_p, rcounts, rdispls, MPI_DOUBLE, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);

    ncells = nb_build_grow(tree_p, (int)n + received / 4, &root, &cells, &cell_cap);
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
    size_t p = (size_t)app.size;
    body = app_alloc(sizeof(nb_particle) * (size_t)n);
    acc = app_alloc(sizeof(double[3]) * (size_t)n);
    phi = app_alloc(sizeof(double) * (size_t)n);
    boxes = app_alloc(sizeof(nb_box) * p);
    tree_cap = (int)n;
    tree_p = app_alloc(sizeof(nb_particle) * (size_t)n);
    scounts = app_alloc(sizeof(int) * p); sdispls = app_alloc(sizeof(int) * p);
    rcounts = app_alloc(sizeof(int) * p); rdispls = app_alloc(sizeof(int) * p);

    const char *size = nb_simulate(total, n, body, acc, phi, steps, dt, forces);
    free(body); free(acc); free(phi); free(boxes); free(tree_p); free(let_p); free(cells);
    free(scounts); free(sdispls); free(rcounts); free(rdispls);
    return app_finish(size);
}

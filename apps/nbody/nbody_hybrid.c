/* nbody_hybrid.c -- N-BODY, hybrid form: a shared forest inside each node, locally essential trees between nodes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: Barnes-Hut in 3-D with leapfrog steps (nbody.h); bodies partitioned in Morton
 * order.  Both tree structures the paper's hybrid needs: inside a node, every rank builds
 * the subtree of its bodies in shared windows (MPI_Win_allocate_shared) and walks its node
 * mates' subtrees in place, as nbody_sas does; between nodes, every rank sends each rank of
 * another node the locally essential part of its subtree, as nbody_mpi does, and builds one
 * more tree of what it received.  The force on a body is the sum over the node's subtrees and
 * that tree.  Communication per evaluation: MPI_Allgather of bounding boxes, MPI_Alltoall of
 * counts and MPI_Alltoallv of pseudo-bodies, in which pairs on the same node send nothing;
 * synchronization: two node barriers (MPI_Win_sync + MPI_Barrier + MPI_Win_sync).
 * --node-size K makes nodes of K ranks.
 *
 * usage: mpiexec -n P nbody_hybrid [--n BODIES (default 8192)] [--steps S (default 3)] [--reps R] [--node-size K]
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
static int *node_rank, nsize, *off_node;
static nb_box *boxes;
static int *ncells, cell_cap;            /* shared: the size of every node mate's subtree */
static nb_cell **cells_of;               /* node mates' subtrees (shared), by node rank */
static nb_particle **tree_of;
static nb_particle *far_p;               /* what ranks of other nodes sent me, and its tree */
static int far_cap, far_cell_cap;
static nb_cell *far_cells;

static void forces(void)
{
    int me = node_rank[app.rank];
    nb_box root = nb_share_boxes(body, n, boxes);
    app_node_barrier(node);                /* node mates are done with my previous subtree */
    memcpy(tree_of[me], body, sizeof(nb_particle) * (size_t)n);
    ncells[me] = nb_build(tree_of[me], (int)n, &root, cells_of[me], cell_cap);
    if (ncells[me] < 0) {
        fprintf(stderr, "nbody_hybrid: rank %d: tree needs more than %d cells\n", app.rank, cell_cap);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int received = nb_exchange_let(cells_of[me], ncells[me], tree_of[me], boxes, off_node, &far_p, 0, &far_cap);
    int far_cells_n = nb_build_grow(far_p, received, &root, &far_cells, &far_cell_cap);
    app_node_barrier(node);                /* the node's subtrees are complete */

    for (long i = 0; i < n; i++) {
        acc[i][0] = acc[i][1] = acc[i][2] = phi[i] = 0;
        for (int q = 0; q < nsize; q++) nb_force(cells_of[q], ncells[q], tree_of[q], body[i].x, acc[i], &phi[i]);
        nb_force(far_cells, far_cells_n, far_p, body[i].x, acc[i], &phi[i]);
    }
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "nbody", "hybrid");
    int steps;
    double dt;
    n = nb_options(&total, &steps, &dt);
    node = app_node_comm(MPI_COMM_WORLD);
    node_rank = app_node_ranks(node);
    MPI_Comm_size(node, &nsize);
    cell_cap = (int)n + 64;
    ncells = app_shared(node, sizeof(int));
    nb_cell *cells = app_shared(node, (MPI_Aint)(sizeof(nb_cell) * (size_t)cell_cap));
    nb_particle *trees = app_shared(node, (MPI_Aint)(sizeof(nb_particle) * (size_t)n));
    cells_of = app_alloc(sizeof(nb_cell *) * (size_t)nsize);
    tree_of = app_alloc(sizeof(nb_particle *) * (size_t)nsize);
    for (int q = 0; q < nsize; q++) {
        cells_of[q] = app_part(cells, q);
        tree_of[q] = app_part(trees, q);
    }
    body = app_alloc(sizeof(nb_particle) * (size_t)n);
    acc = app_alloc(sizeof(double[3]) * (size_t)n);
    phi = app_alloc(sizeof(double) * (size_t)n);
    boxes = app_alloc(sizeof(nb_box) * (size_t)app.size);
    off_node = app_alloc(sizeof(int) * (size_t)app.size);
    for (int q = 0; q < app.size; q++) off_node[q] = node_rank[q] < 0;

    const char *size = nb_simulate(total, n, body, acc, phi, steps, dt, forces);
    free(cells_of); free(tree_of); free(body); free(acc); free(phi); free(boxes);
    free(far_p); free(far_cells); free(node_rank); free(off_node);
    return app_finish(size);
}

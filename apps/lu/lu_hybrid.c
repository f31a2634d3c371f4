/* lu_hybrid.c -- LU, hybrid form: block-cyclic over nodes, node leaders broadcast panels, the node's ranks share the work.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: blocked right-looking LU without pivoting (lu.h) with the blocks distributed
 * 2-D block-cyclically over a grid of *nodes*.  A node keeps its blocks, the diagonal block
 * and the two panels of the current step in shared windows (MPI_Win_allocate_shared); the
 * node's ranks split the panel solves and the trailing update among themselves (loop-level
 * parallelism), while the first rank of each node, its leader, does the node's message
 * passing: the MPI_Bcast of the diagonal block and of the panels along node rows and node
 * columns, exactly as lu_mpi does between ranks.  Synchronization: four node barriers
 * (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) per step, around the leaders' broadcasts.  On
 * one node there is nothing to broadcast; --node-size K makes nodes of K ranks.
 *
 * usage: mpiexec -n P lu_hybrid [--n ORDER (default 512)] [--b BLOCK (default 32)] [--reps R] [--node-size K]
 */
#include "lu.h"
#include "../common/app.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "lu", "hybrid");
    long n = app_arg("--n", 512), b = app_arg("--b", 32);
    if (b < 1 || n < b || n % b) app_refuse("--n must be a multiple of --b");
    MPI_Comm node = app_node_comm(MPI_COMM_WORLD), leaders, row_comm = MPI_COMM_NULL, col_comm = MPI_COMM_NULL;
    int nrank, nsize, node_id = 0, nnodes = 0;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int leader = nrank == 0;
    MPI_Comm_split(MPI_COMM_WORLD, leader ? 0 : MPI_UNDEFINED, app.rank, &leaders);
    if (leader) {
        MPI_Comm_rank(leaders, &node_id);
        MPI_Comm_size(leaders, &nnodes);
    }
    MPI_Bcast(&node_id, 1, MPI_INT, 0, node);
    MPI_Bcast(&nnodes, 1, MPI_INT, 0, node);
    int pr, pc;
    lu_grid(nnodes, &pr, &pc);
    lu m;
    lu_setup(&m, n, b, pr, pc, node_id);
    if (leader) {
        MPI_Comm_split(leaders, m.prow, m.pcol, &row_comm);
        MPI_Comm_split(leaders, m.pcol, m.prow, &col_comm);
    }
    long bb = b * b;
    double *blocks = app_shared(node, leader ? (MPI_Aint)(sizeof(double) * (size_t)(m.lrows * m.lcols * bb)) : 0);
    double *diag = app_shared(node, leader ? (MPI_Aint)(sizeof(double) * (size_t)bb) : 0);
    double *col = app_shared(node, leader ? (MPI_Aint)(sizeof(double) * (size_t)(m.lrows * bb)) : 0);
    double *row = app_shared(node, leader ? (MPI_Aint)(sizeof(double) * (size_t)(m.lcols * bb)) : 0);

    for (int rep = 0; rep < app.reps; rep++) {
        if (leader) lu_fill(&m, blocks);
        app_node_barrier(node);
        app_rep_begin();
        for (long k = 0; k < m.nb; k++) {
            int in_krow = m.prow == k % pr, in_kcol = m.pcol == k % pc;
            if (in_krow && in_kcol && leader) {
                lu_factor_diag(lu_block(&m, blocks, k, k), b);
                memcpy(diag, lu_block(&m, blocks, k, k), sizeof(double) * (size_t)bb);
            }
            app_node_barrier(node);
            if (leader) lu_share_diag(&m, k, diag, row_comm, col_comm);
            app_node_barrier(node);

            long li0 = lu_first_after(k, pr, m.prow), lj0 = lu_first_after(k, pc, m.pcol);
            long ncol = m.lrows - li0, nrow = m.lcols - lj0;
            for (long t = nrank; in_kcol && t < ncol; t += nsize) {   /* panel blocks, round robin */
                double *a = lu_block(&m, blocks, (li0 + t) * pr + m.prow, k);
                lu_solve_upper(diag, a, b);
                memcpy(col + t * bb, a, sizeof(double) * (size_t)bb);
            }
            for (long t = nrank; in_krow && t < nrow; t += nsize) {
                double *a = lu_block(&m, blocks, k, (lj0 + t) * pc + m.pcol);
                lu_solve_lower(diag, a, b);
                memcpy(row + t * bb, a, sizeof(double) * (size_t)bb);
            }
            app_node_barrier(node);
            if (leader) lu_share_panels(&m, k, col, row, row_comm, col_comm);
            app_node_barrier(node);

            lu_update_trailing(&m, blocks, k, col, row, nrank, nsize);
        }
        app_rep_end();
    }
    app_verify("residual-|A-LU|/|A|", lu_residual(&m, leader ? blocks : NULL), 1e-12);

    char size[112];
    snprintf(size, sizeof size, "%ldx%ld matrix, %ldx%ld blocks, %dx%d nodes", n, n, b, b, pr, pc);
    if (leader) {
        MPI_Comm_free(&row_comm);
        MPI_Comm_free(&col_comm);
        MPI_Comm_free(&leaders);
    }
    return app_finish(size);
}

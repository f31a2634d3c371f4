/* node.h -- where a test's peers are.  MemPI, BSD-3-Clause (see LICENSE).
 *
 *   on_my_node(world_rank)   1 if that process shares this one's node (MPI_COMM_TYPE_SHARED):
 *                            messages to it go through shared memory, not the network
 *
 * Collective over MPI_COMM_WORLD (it splits it); call it from one thread of every rank.
 */
#ifndef MEMPI_TEST_NODE_H
#define MEMPI_TEST_NODE_H

#include <mpi.h>
#include "check.h"

static __attribute__((unused)) int on_my_node(int world_rank)
{
    MPI_Comm node;
    MPI_Group wg, ng;
    int mapped;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Comm_group(node, &ng));
    CHECK_MPI(MPI_Group_translate_ranks(wg, 1, &world_rank, ng, &mapped));
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    MPI_Comm_free(&node);
    return mapped != MPI_UNDEFINED;
}

#endif

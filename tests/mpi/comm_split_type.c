/* mempi-test: np=1,2,3,5,8 timeout=60 */
/* mempi-test: np=3,5 timeout=60 env=MEMPI_NODE_SIZE=2 */
/* comm_split_type.c -- MPI_Comm_split_type: SHARED gives exactly the ranks of one node.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The node of a rank is checked with MPI_Get_processor_name: members of one shared
 * communicator must report the same host name, and the shared communicators of all ranks
 * must partition MPI_COMM_WORLD (sizes add up over the leaders).  Run it with
 * MEMPI_NODE_SIZE=2 as well to exercise simulated multi-node layouts (then host names are
 * not compared).  Also: MPI_UNDEFINED gives MPI_COMM_NULL, the key orders ranks, and
 * HW_GUIDED with "mpi_shared_memory" matches SHARED.  HW_GUIDED without the info key or with
 * a level MemPI does not know gives MPI_COMM_NULL; HW_UNGUIDED gives the node only when that
 * is a strict subset (several nodes), else MPI_COMM_NULL; both name the level they chose in
 * the new communicator's info (mpi_hw_resource_type).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -wrank, MPI_INFO_NULL, &node);
    CHECK(node != MPI_COMM_NULL, "no node communicator");
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    CHECK(ns >= 1 && ns <= wsize, "node size %d", ns);
    /* key -wrank: the highest world rank of the node is local rank 0 */
    int *worlds = malloc(sizeof(int) * ns);
    MPI_Allgather(&wrank, 1, MPI_INT, worlds, 1, MPI_INT, node);
    for (int i = 1; i < ns; i++)
        CHECK(worlds[i - 1] > worlds[i], "node order %d %d", worlds[i - 1], worlds[i]);
    /* partition: the node leaders' sizes add up to the world */
    int lead_size = nr == 0 ? ns : 0, total;
    MPI_Allreduce(&lead_size, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == wsize, "node sizes add up to %d", total);
    if (!getenv("MEMPI_NODE_SIZE")) {
        char me[MPI_MAX_PROCESSOR_NAME], *all = malloc((size_t)ns * MPI_MAX_PROCESSOR_NAME);
        int len;
        memset(me, 0, sizeof me);
        MPI_Get_processor_name(me, &len);
        MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, node);
        for (int i = 0; i < ns; i++)
            CHECK(strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, me) == 0, "host differs");
        free(all);
    }
    /* HW_GUIDED with the shared-memory level is the node again */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm hw;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &hw);
    int res;
    MPI_Comm_compare(hw, node, &res);
    CHECK(res == MPI_SIMILAR || res == MPI_CONGRUENT || (ns == 1 && res == MPI_CONGRUENT), "hw vs node %d", res);
    MPI_Info used;
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Comm_get_info(hw, &used);
    MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "mpi_shared_memory") == 0, "hw info %d %s", flag, flag ? val : "");
    MPI_Info_free(&used);
    MPI_Comm_free(&hw);
    /* unknown level, no key: MPI_COMM_NULL */
    MPI_Info_set(info, "mpi_hw_resource_type", "no_such_level");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &hw);
    CHECK(hw == MPI_COMM_NULL, "unknown hw level");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &hw);
    CHECK(hw == MPI_COMM_NULL, "hw guided without a level");
    MPI_Info_free(&info);
    /* unguided: a strict subset, so the node when there are several nodes */
    int nodes = 0, lead = nr == 0;
    MPI_Allreduce(&lead, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &hw);
    if (nodes == 1) {
        CHECK(hw == MPI_COMM_NULL, "unguided on one node");
    } else {
        CHECK(hw != MPI_COMM_NULL, "unguided on %d nodes", nodes);
        MPI_Comm_compare(hw, node, &res);
        CHECK(res == MPI_CONGRUENT || res == MPI_SIMILAR, "unguided vs node %d", res);
        MPI_Comm_free(&hw);
    }
    /* MPI_UNDEFINED on odd ranks */
    MPI_Comm some;
    MPI_Comm_split_type(MPI_COMM_WORLD, wrank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &some);
    CHECK((some == MPI_COMM_NULL) == (wrank % 2 == 1), "undefined split_type");
    if (some != MPI_COMM_NULL) MPI_Comm_free(&some);
    free(worlds);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}

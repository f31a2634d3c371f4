/* group.c -- group objects: ordered lists of world ranks.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The core defines mp_group and frees it (mp_group_release in object.c); this file builds
 * groups and gives them handles.  A group has at most one handle for its whole life: asking
 * for the group of a communicator twice returns the same handle with one more reference,
 * and MPI_Group_free drops one reference.  So the communicator's own reference keeps its
 * group (and the world array it shares with the communicator) alive.
 *
 * Set operations (binding/group.c) translate world ranks with a world-sized inverse map
 * (mp_group_world_map), which keeps every operation linear in the group sizes.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>

mp_group *mp_group_create(int size, int *world)
{
    mp_group *g = mp_calloc(1, sizeof *g);
    g->size = size;
    g->world = world;
    g->rank = mp_group_rank_of_world(g, mp_world.rank);
    atomic_init(&g->refs, 1);
    return g;
}

mp_group *mp_group_copy_of(int size, const int *world)
{
    int *copy = mp_malloc(sizeof(int) * (size_t)(size ? size : 1));
    if (size)
        memcpy(copy, world, sizeof(int) * (size_t)size);
    return mp_group_create(size, copy);
}

int mp_group_publish(mp_group *g)
{
    if (g->handle == 0)
        g->handle = mp_table_insert(&mp_group_table, g);
    return g->handle;
}

void mp_group_retain(mp_group *g)
{
    if (g->handle != MPI_GROUP_EMPTY)
        atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed);
}

int mp_group_rank_of_world(const mp_group *g, int world_rank)
{
    for (int r = 0; r < g->size; r++)
        if (g->world[r] == world_rank)
            return r;
    return MPI_UNDEFINED;
}

int *mp_group_world_map(const mp_group *g)
{
    int n = mp_world.nprocs > 0 ? mp_world.nprocs : 1;
    int *map = mp_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        map[i] = MPI_UNDEFINED;
    for (int r = 0; r < g->size; r++)
        if (g->world[r] >= 0 && g->world[r] < n)
            map[g->world[r]] = r;
    return map;
}

mp_group *mp_comm_local_group(mp_comm *comm)
{
    if (comm->group == NULL)
        comm->group = mp_group_copy_of(comm->size, comm->world);
    return comm->group;
}

mp_group *mp_comm_remote_group(mp_comm *comm)
{
    if (!comm->is_inter)
        return NULL;
    if (comm->remote_group == NULL) {
        comm->remote_group = mp_group_copy_of(comm->remote_size, comm->remote_world);
        free(comm->remote_world);
        comm->remote_world = comm->remote_group->world;
    }
    return comm->remote_group;
}

/* object.c -- life cycle of communicator and group objects.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The core owns only what every layer needs: creating a communicator over a list of world
 * ranks, looking handles up, reference counting, and the node layout that collectives read.
 * Everything users do with communicators (split, dup, topologies, attributes) is the comm
 * layer's, which builds on these functions.
 *
 * Predefined objects have MPICH's builtin handles (MPI_COMM_WORLD, MPI_COMM_SELF,
 * MPI_GROUP_EMPTY) and are resolved without the table.
 */
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

mp_table mp_comm_table  = { .type = MP_OBJ_COMM,  .lock = ATOMIC_FLAG_INIT };
mp_table mp_group_table = { .type = MP_OBJ_GROUP, .lock = ATOMIC_FLAG_INIT };
mp_world_state mp_world;
static mp_group group_empty = { .handle = MPI_GROUP_EMPTY, .size = 0, .rank = MPI_UNDEFINED };

mp_comm *mp_comm_get(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return mp_world.comm_world;
    if (handle == MPI_COMM_SELF)
        return mp_world.comm_self;
    return mp_table_lookup(&mp_comm_table, handle);
}

mp_group *mp_group_get(MPI_Group handle)
{
    if (handle == MPI_GROUP_EMPTY)
        return &group_empty;
    return mp_table_lookup(&mp_group_table, handle);
}

mp_comm *mp_comm_new(int ctx, int size, int rank, int *world)
{
    mp_comm *c = mp_calloc(1, sizeof *c);
    mp_group *g = mp_calloc(1, sizeof *g);
    g->size = size;
    g->rank = rank;
    g->world = world;
    atomic_init(&g->refs, 1);
    c->group = g;
    c->world = world;
    c->size = size;
    c->rank = rank;
    c->ctx = ctx;
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->info = MPI_INFO_NULL;
    atomic_init(&c->refs, 1);
    mp_comm_layout(c);
    return c;
}

/* Node layout: which ranks of the local group share a node.  Node ids come from mp_world.procs
 * (the launcher's process mapping, or MEMPI_NODE_SIZE's simulated nodes). */
void mp_comm_layout(mp_comm *c)
{
    free(c->node_of);
    free(c->node_leader);
    c->node_of = mp_malloc(sizeof(int) * (size_t)(c->size ? c->size : 1));
    c->node_leader = mp_malloc(sizeof(int) * (size_t)(c->size ? c->size : 1));
    int *seen_node = mp_malloc(sizeof(int) * (size_t)(c->size ? c->size : 1));
    int nnodes = 0;
    for (int r = 0; r < c->size; r++) {
        int node = mp_world.procs ? mp_world.procs[c->world[r]].node : 0;
        int idx = 0;
        while (idx < nnodes && seen_node[idx] != node)
            idx++;
        if (idx == nnodes) {
            seen_node[nnodes] = node;
            c->node_leader[nnodes] = r;
            nnodes++;
        }
        c->node_of[r] = idx;
    }
    free(seen_node);
    c->nnodes = nnodes;
    c->my_node = c->rank >= 0 && c->rank < c->size ? c->node_of[c->rank] : 0;
    c->local_rank = 0;
    c->local_size = 0;
    for (int r = 0; r < c->size; r++) {
        if (c->node_of[r] != c->my_node)
            continue;
        if (r < c->rank)
            c->local_rank++;
        c->local_size++;
    }
}

void mp_group_release(mp_group *g)
{
    if (g == NULL || g == &group_empty)
        return;
    if (atomic_fetch_sub_explicit(&g->refs, 1, memory_order_acq_rel) == 1) {
        if (g->handle)
            mp_table_remove(&mp_group_table, g->handle);
        free(g->world);
        free(g);
    }
}

#define MP_MAX_RELEASE_HOOKS 4
static void (*release_hooks[MP_MAX_RELEASE_HOOKS])(mp_comm *);
static int nrelease_hooks;

void mp_comm_on_release(void (*hook)(mp_comm *comm))
{
    for (int i = 0; i < nrelease_hooks; i++)   /* layers register again at every start */
        if (release_hooks[i] == hook)
            return;
    if (nrelease_hooks == MP_MAX_RELEASE_HOOKS)
        mp_fatal("too many communicator release hooks");
    release_hooks[nrelease_hooks++] = hook;
}

void mp_comm_release(mp_comm *c)
{
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (c->handle && c->handle != MPI_COMM_WORLD && c->handle != MPI_COMM_SELF)
        mp_table_remove(&mp_comm_table, c->handle);
    for (int i = 0; i < nrelease_hooks; i++)
        release_hooks[i](c);
    if (c->world != c->group->world)
        free(c->world);
    mp_group_release(c->group);
    if (c->remote_group) {
        if (c->remote_world != c->remote_group->world)
            free(c->remote_world);
        mp_group_release(c->remote_group);
    } else {
        free(c->remote_world);
    }
    free(c->node_of);
    free(c->node_leader);
    free(c);
}

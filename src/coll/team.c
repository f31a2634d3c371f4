/* team.c -- per-communicator collective state and the teams node-aware algorithms run on.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The node layout of a communicator (comm->nnodes, node_of[], node_leader[], filled by the
 * core from the process table or from MEMPI_NODE_SIZE) is turned once, on the first
 * collective, into three rank lists: the ranks of my node, the node leaders in node order,
 * and each rank's position inside its node.  A communicator without layout information is
 * treated as one node.  The state is freed by mp_coll_comm_free when the communicator goes.
 *
 * To test the node-aware algorithms on one host, MEMPI_NODE_SIZE=k makes the core cut the
 * world into simulated nodes of k consecutive ranks (transports still see one machine).
 */
#include "coll/coll_impl.h"
#include <stdlib.h>

static int node_of(const mp_comm *c, int r)
{
    return c->node_of ? c->node_of[r] : 0;
}

static void layout(mp_comm *comm, mp_coll_state *cs)
{
    int n = comm->size;
    int nn = comm->node_of && comm->nnodes > 0 && !comm->is_inter ? comm->nnodes : 1;
    const int *node_leader = comm->node_leader;
    cs->node_count = mp_calloc((size_t)nn, sizeof(int));
    cs->pos_in_node = mp_malloc((size_t)n * sizeof(int));
    for (int r = 0; r < n; r++) {
        int nd = nn == 1 ? 0 : node_of(comm, r);
        cs->pos_in_node[r] = cs->node_count[nd]++;
    }
    int me_node = nn == 1 ? 0 : node_of(comm, comm->rank);
    cs->node_ranks = mp_malloc((size_t)cs->node_count[me_node] * sizeof(int));
    for (int r = 0, k = 0; r < n; r++)
        if ((nn == 1 ? 0 : node_of(comm, r)) == me_node)
            cs->node_ranks[k++] = r;
    cs->leaders = mp_malloc((size_t)nn * sizeof(int));
    for (int i = 0; i < nn; i++)
        cs->leaders[i] = nn == 1 ? 0 : node_leader[i];
    cs->nnodes = nn;
    cs->blocked = 1;
    for (int r = 1; r < n && nn > 1; r++) {
        int a = node_of(comm, r - 1), b = node_of(comm, r);
        if (b != a && b != a + 1)
            cs->blocked = 0;
    }
    if (nn > 1 && node_of(comm, 0) != 0)
        cs->blocked = 0;
}

mp_coll_state *mp_coll_state_of(mp_comm *comm)
{
    mp_coll_state *cs = comm->coll_state;
    if (MP_LIKELY(cs != NULL))
        return cs;
    cs = mp_calloc(1, sizeof *cs);
    comm->coll_state = cs;
    layout(comm, cs);
    return cs;
}

void mp_coll_comm_free(mp_comm *comm)
{
    mp_coll_state *cs = comm->coll_state;
    if (!cs)
        return;
    mp_coll_shm_comm_free(cs);
    free(cs->node_ranks);
    free(cs->leaders);
    free(cs->pos_in_node);
    free(cs->node_count);
    free(cs);
    comm->coll_state = NULL;
}

mp_team mp_team_all(mp_comm *comm)
{
    mp_team t = { comm->size, comm->rank, NULL };
    return t;
}

mp_team mp_team_node(mp_comm *comm)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    mp_team t = { cs->node_count[cs->nnodes == 1 ? 0 : node_of(comm, comm->rank)],
                  cs->pos_in_node[comm->rank], cs->node_ranks };
    return t;
}

mp_team mp_team_leaders(mp_comm *comm)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    int me = -1;
    for (int i = 0; i < cs->nnodes; i++)
        if (cs->leaders[i] == comm->rank)
            me = i;
    mp_team t = { cs->nnodes, me, cs->leaders };
    return t;
}

int mp_coll_node_of(mp_comm *comm, int rank)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    return cs->nnodes == 1 ? 0 : node_of(comm, rank);
}

int mp_coll_node_aware_useful(mp_comm *comm)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    return !comm->is_inter && cs->nnodes > 1 && cs->nnodes < comm->size;
}

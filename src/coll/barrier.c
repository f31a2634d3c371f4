/* barrier.c -- MPI_Barrier / MPI_Ibarrier.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   dissemination  ceil(log2 n) rounds; in round k every rank signals rank+2^k and waits for
 *                  rank-2^k.  Works for any n, no root, no idle ranks.
 *   node           node-aware: every rank signals its node leader, the leaders run the
 *                  dissemination barrier among themselves, then release their node.  Only
 *                  log2(nodes) rounds cross the network.
 *   shm            (blocking calls on one host) flags in the shared segment: shm.c.
 * A blocking node barrier whose ranks share the host does its node-local halves with shm
 * flags too (only the leaders exchange messages).
 * Messages are zero-byte "pings" on the collective context.
 */
#include "coll/coll_impl.h"

void mp_build_barrier_dissemination(mp_sched *s, const mp_team *t)
{
    int n = t->size, me = t->rank;
    for (int k = 1; k < n; k <<= 1) {
        mp_sched_pong(s, mp_team_peer(t, (me - k + n) % n));
        mp_sched_ping(s, mp_team_peer(t, (me + k) % n));
        mp_sched_fence(s);
    }
}

static void build_barrier_node(mp_sched *s, mp_comm *comm)
{
    mp_team node = mp_team_node(comm), leaders = mp_team_leaders(comm);
    if (node.rank == 0) {
        for (int i = 1; i < node.size; i++)
            mp_sched_pong(s, mp_team_peer(&node, i));
        mp_sched_fence(s);
        mp_build_barrier_dissemination(s, &leaders);
        for (int i = 1; i < node.size; i++)
            mp_sched_ping(s, mp_team_peer(&node, i));
    } else {
        mp_sched_ping(s, mp_team_peer(&node, 0));
        mp_sched_pong(s, mp_team_peer(&node, 0));
    }
    mp_sched_fence(s);
}

/* Blocking node barrier: flags inside each node (shm node view), messages among the leaders. */
static int barrier_node_shm(mp_comm *comm)
{
    mp_team leaders = mp_team_leaders(comm);
    int err = mp_coll_shm_node_arrive(comm);
    mp_sched *s = mp_sched_new(comm);          /* on every rank: keeps the tags in step */
    if (leaders.rank >= 0)
        mp_build_barrier_dissemination(s, &leaders);
    int e2 = mp_sched_run(s);
    int e3 = mp_coll_shm_node_release(comm);
    return err ? err : e2 ? e2 : e3;
}

int mp_ibarrier(mp_comm *comm, mp_request **req)
{
    mp_coll_args shm = { 0, 0, 1, 1, 0 };
    if (!req && !comm->is_inter && comm->size > 1) {
        int alg = mp_coll_select(MP_COLL_BARRIER, comm, &shm);
        if (alg == MP_BARRIER_SHM) {
            mp_coll_ran(comm, MP_COLL_BARRIER, alg);
            return mp_coll_shm_barrier(comm);
        }
        if (alg == MP_BARRIER_NODE && mp_coll_shm_node_usable(comm)) {
            mp_coll_ran(comm, MP_COLL_BARRIER, alg);
            return barrier_node_shm(comm);
        }
    }
    mp_sched *s = mp_sched_new(comm);
    if (comm->is_inter)
        return mp_coll_finish(s, mp_build_inter_barrier(s, comm), req);
    mp_coll_args a = { 0, 0, 1 };
    int alg = mp_coll_select(MP_COLL_BARRIER, comm, &a);
    if (comm->size > 1)
        mp_coll_ran(comm, MP_COLL_BARRIER, alg);
    if (alg == MP_BARRIER_NODE) {
        build_barrier_node(s, comm);
    } else {
        mp_team t = mp_team_all(comm);
        mp_build_barrier_dissemination(s, &t);
    }
    return mp_coll_finish(s, MPI_SUCCESS, req);
}


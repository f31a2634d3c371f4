/* reduce.c -- MPI_Reduce / MPI_Ireduce.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   binomial  log2 n rounds up a binomial tree.  For a commutative op the tree is rooted at
 *             the root; for a non-commutative one it is rooted at rank 0, where every
 *             combine is (lower ranks) op (higher ranks), and the result then moves to the
 *             root in one extra message.
 *   linear    the root receives every contribution and combines them in rank order.
 *   shm       (blocking calls on one host, contiguous types) reduce in place in the shared
 *             segment: shm.c.
 *   node      node-aware: reduce inside each node to its leader, then among the leaders,
 *             then hand the result to the root.  Used with a commutative op, or when the
 *             layout is "blocked" (nodes are runs of consecutive ranks in node order), where
 *             the two-level order equals rank order.
 * The accumulator of a non-root is a scratch copy of its input; the root accumulates in its
 * receive buffer.  With a non-commutative op the accumulator and the receive scratch swap
 * roles after each combine (in = lower, inout = higher), which the builder tracks.
 */
#include "coll/coll_impl.h"

/* Returns the buffer that holds the result at team member `lroot` (acc or a scratch). */
void *mp_build_reduce_tree(mp_sched *s, const mp_team *t, void *acc, MPI_Aint count,
                           mp_datatype *dt, MPI_Op op, int lroot, int commutative)
{
    int n = t->size, rel = (t->rank - lroot + n) % n;
    void *tmp = NULL;
    for (int mask = 1; mask < n; mask <<= 1) {
        if ((rel & mask) == 0) {
            int src = rel | mask;
            if (src >= n)
                continue;
            if (!tmp)
                tmp = mp_sched_tmp(s, count, dt);
            mp_sched_recv(s, tmp, count, dt, mp_team_peer(t, (src + lroot) % n));
            mp_sched_fence(s);
            if (commutative) {
                mp_sched_reduce(s, tmp, acc, count, dt, op);
            } else {                  /* acc holds lower ranks: tmp = acc op tmp */
                mp_sched_reduce(s, acc, tmp, count, dt, op);
                void *x = acc; acc = tmp; tmp = x;
            }
        } else {
            mp_sched_send(s, acc, count, dt, mp_team_peer(t, (rel - mask + lroot) % n));
            mp_sched_fence(s);
            break;
        }
    }
    return acc;
}

/* Team reduction into `result` at member root, acc being the member's modifiable input. */
void mp_build_reduce_to(mp_sched *s, const mp_team *t, void *acc, void *result, MPI_Aint count,
                        mp_datatype *dt, MPI_Op op, int root, int commutative)
{
    int lroot = commutative ? root : 0;
    void *res = mp_build_reduce_tree(s, t, acc, count, dt, op, lroot, commutative);
    if (lroot != root) {
        if (t->rank == lroot)
            mp_sched_send(s, res, count, dt, mp_team_peer(t, root));
        else if (t->rank == root)
            mp_sched_recv(s, result, count, dt, mp_team_peer(t, lroot));
        mp_sched_fence(s);
    } else if (t->rank == root && res != result) {
        mp_sched_copy(s, res, count, dt, result, count, dt);
    }
}

static void build_reduce_linear(mp_sched *s, const mp_team *t, void *acc, void *result,
                                MPI_Aint count, mp_datatype *dt, MPI_Op op, int root)
{
    int n = t->size;
    if (t->rank != root) {
        mp_sched_send(s, acc, count, dt, mp_team_peer(t, root));
        mp_sched_fence(s);
        return;
    }
    void **in = mp_sched_alloc(s, (size_t)n * sizeof(void *));
    for (int i = 0; i < n; i++) {
        if (i == root) {
            in[i] = acc;
            continue;
        }
        in[i] = mp_sched_tmp(s, count, dt);
        mp_sched_recv(s, in[i], count, dt, mp_team_peer(t, i));
    }
    mp_sched_fence(s);
    /* x0 op (x1 op (... op x(n-1))): combine from the top so `in` is always the lower */
    for (int i = n - 2; i >= 0; i--)
        mp_sched_reduce(s, in[i], in[n - 1], count, dt, op);
    if (in[n - 1] != result)
        mp_sched_copy(s, in[n - 1], count, dt, result, count, dt);
}

static void build_reduce_node(mp_sched *s, mp_comm *comm, void *acc, void *result,
                              MPI_Aint count, mp_datatype *dt, MPI_Op op, int root,
                              int commutative)
{
    mp_team node = mp_team_node(comm), leaders = mp_team_leaders(comm);
    void *r = mp_build_reduce_tree(s, &node, acc, count, dt, op, 0, commutative);
    if (leaders.rank >= 0)
        r = mp_build_reduce_tree(s, &leaders, r, count, dt, op, 0, commutative);
    int top = leaders.map[0];         /* leader of node 0 now holds the result */
    if (top != root) {
        if (comm->rank == top)
            mp_sched_send(s, r, count, dt, root);
        else if (comm->rank == root)
            mp_sched_recv(s, result, count, dt, top);
        mp_sched_fence(s);
    } else if (comm->rank == root && r != result) {
        mp_sched_copy(s, r, count, dt, result, count, dt);
    }
}

static int build_reduce(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                        MPI_Aint count, mp_datatype *dt, MPI_Op op, int root)
{
    if (comm->is_inter)
        return mp_build_inter_reduce(s, comm, sbuf, rbuf, count, dt, op, root);
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    int me = comm->rank, commutative = mp_op_commutative(op);
    /* the accumulator: root works in rbuf, others in a scratch copy of their input */
    void *acc;
    if (me == root) {
        acc = rbuf;
        if (sbuf != MPI_IN_PLACE)
            mp_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    } else {
        acc = mp_sched_tmp(s, count, dt);
        mp_sched_copy(s, sbuf, count, dt, acc, count, dt);
    }
    if (comm->size == 1)
        return MPI_SUCCESS;
    mp_coll_args a = { mp_datatype_bytes(dt, count), count, commutative };
    mp_team t = mp_team_all(comm);
    int alg = mp_coll_select(MP_COLL_REDUCE, comm, &a);
    if (alg == MP_REDUCE_NODE && !commutative && !mp_coll_state_of(comm)->blocked)
        alg = MP_REDUCE_BINOMIAL;
    mp_coll_ran(comm, MP_COLL_REDUCE, alg);
    switch (alg) {
    case MP_REDUCE_NODE:
        build_reduce_node(s, comm, acc, rbuf, count, dt, op, root, commutative);
        break;
    case MP_REDUCE_BINOMIAL:
        mp_build_reduce_to(s, &t, acc, rbuf, count, dt, op, root, commutative);
        break;
    default:
        build_reduce_linear(s, &t, acc, rbuf, count, dt, op, root);
        break;
    }
    return MPI_SUCCESS;
}

int mp_ireduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
               int root, mp_comm *comm, mp_request **req)
{
    mp_coll_args shm = { mp_datatype_bytes(dt, count), count, mp_op_commutative(op), 1,
                         mp_coll_shm_reduce_fits(dt) };
    if (!req && !comm->is_inter && comm->size > 1 &&
        mp_coll_select(MP_COLL_REDUCE, comm, &shm) == MP_REDUCE_SHM) {
        mp_coll_ran(comm, MP_COLL_REDUCE, MP_REDUCE_SHM);
        return mp_coll_shm_reduce(sbuf, rbuf, count, dt, op, root, comm);
    }
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, op);
    return mp_coll_finish(s, build_reduce(s, comm, sbuf, rbuf, count, dt, op, root), req);
}


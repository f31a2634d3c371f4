/* allreduce.c -- MPI_Allreduce / MPI_Iallreduce.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms (all work in the caller's receive buffer, after copying the input there):
 *   recursive_doubling  log2 n exchange rounds, every rank ends with the result.  With n not
 *                       a power of two the first 2r ranks pair up (even sends to odd) so a
 *                       power of two take part, and the result goes back at the end.  Each
 *                       combine puts the lower-ranked block first, for every op: so it is
 *                       correct for non-commutative operations, and both partners evaluate
 *                       the same expression, which keeps results bitwise identical on all
 *                       ranks (MPI 4.0 6.9.6 requires identical results) even for an op
 *                       declared commutative that is so only up to ties or rounding (BLACS's
 *                       absolute-maximum combine keeps its inout operand on a tie).  Best for
 *                       small vectors.
 *   rabenseifner        reduce-scatter by recursive halving, then allgather by recursive
 *                       doubling: each rank sends ~2x the vector in total.  Commutative ops,
 *                       count >= the power of two below n.  Best for large vectors.
 *   ring                reduce-scatter around a ring then allgather around it: bandwidth
 *                       optimal, 2(n-1) steps.  Commutative ops.
 *   reduce_bcast        binomial reduce to rank 0 then binomial broadcast (any op).
 *   btree4              node-aware B-Tree-4 (Shan et al.): the deepest level of the tree is
 *                       the node -- reduce inside each node to its leader, allreduce among
 *                       the leaders (recursive doubling, or Rabenseifner when large), then
 *                       broadcast inside each node.  Generalised to any ranks per node and
 *                       any number of nodes; needs a commutative op or a blocked layout.
 *   shm                 (blocking calls on one host, contiguous types) reduce in place in
 *                       the shared segment: shm.c.  A blocking btree4 (on one host or
 *                       several) does its node-local reduce and broadcast through shm too.
 * An algorithm whose condition does not hold falls back to recursive doubling, also when
 * forced through MEMPI_COLL_ALLREDUCE.
 */
#include "coll/coll_impl.h"

#define RABENSEIFNER_MIN 2048

/* The recursive algorithms run on a power of two: of a team of pof2 + rem ranks, the first
 * 2 * rem pair up -- the even one hands its vector to the odd one, which reduces it
 * ((me-1) op me) and takes part as rank me / 2 -- and the others take part as me - rem.
 * Returns the rank among the pof2, -1 for a rank that sits out. */
static int fold_in(mp_sched *s, const mp_team *t, void *acc, void *tmp, MPI_Aint count,
                   mp_datatype *dt, MPI_Op op, int rem)
{
    int me = t->rank, newrank = -1;
    if (me >= 2 * rem)
        return me - rem;
    if (me % 2 == 0) {
        mp_sched_send(s, acc, count, dt, mp_team_peer(t, me + 1));
    } else {
        mp_sched_recv(s, tmp, count, dt, mp_team_peer(t, me - 1));
        mp_sched_fence(s);
        mp_sched_reduce(s, tmp, acc, count, dt, op);
        newrank = me / 2;
    }
    mp_sched_fence(s);
    return newrank;
}

/* The result back to the ranks that sat out: the even one of a pair receives it into `into`. */
static void fold_out(mp_sched *s, const mp_team *t, void *into, const void *acc,
                     MPI_Aint count, mp_datatype *dt, int rem)
{
    int me = t->rank;
    if (me >= 2 * rem)
        return;
    if (me % 2 == 0)
        mp_sched_recv(s, into, count, dt, mp_team_peer(t, me + 1));
    else
        mp_sched_send(s, acc, count, dt, mp_team_peer(t, me - 1));
    mp_sched_fence(s);
}

void mp_build_allreduce_rd(mp_sched *s, const mp_team *t, void *acc, MPI_Aint count,
                           mp_datatype *dt, MPI_Op op)
{
    int n = t->size, me = t->rank;
    if (n == 1)
        return;
    int pof2 = (int)mp_pof2_floor(n), rem = n - pof2;
    void *orig = acc, *tmp = mp_sched_tmp(s, count, dt);
    int newrank = fold_in(s, t, acc, tmp, count, dt, op, rem);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            mp_sched_recv(s, tmp, count, dt, mp_team_peer(t, dst));
            mp_sched_send(s, acc, count, dt, mp_team_peer(t, dst));
            mp_sched_fence(s);
            if (dst < me) {                              /* (lower block) op (higher) */
                mp_sched_reduce(s, tmp, acc, count, dt, op);
            } else {
                mp_sched_reduce(s, acc, tmp, count, dt, op);
                void *x = acc; acc = tmp; tmp = x;
            }
        }
    }
    fold_out(s, t, orig, acc, count, dt, rem);
    if (newrank >= 0 && acc != orig)
        mp_sched_copy(s, acc, count, dt, orig, count, dt);
}

/* Block b of pof2 blocks: elements [lo(b), lo(b+1)). */
static MPI_Aint block_lo(MPI_Aint b, MPI_Aint count, int nb)
{
    MPI_Aint q = count / nb, r = count % nb;
    return b * q + (b < r ? b : r);
}

static void build_allreduce_rabenseifner(mp_sched *s, const mp_team *t, void *acc,
                                         MPI_Aint count, mp_datatype *dt, MPI_Op op)
{
    int n = t->size;
    int pof2 = (int)mp_pof2_floor(n), rem = n - pof2;
    void *tmp = mp_sched_tmp(s, count, dt);
    int newrank = fold_in(s, t, acc, tmp, count, dt, op, rem);
    if (newrank >= 0) {
#define REAL(nr) ((nr) < rem ? (nr) * 2 + 1 : (nr) + rem)
        /* reduce-scatter by recursive halving: keep the half of my range that contains
         * my own block, send the other half to the partner */
        int lo = 0, hi = pof2;
        for (int d = pof2 / 2; d >= 1; d /= 2) {
            int partner = REAL(newrank ^ d), mid = lo + (hi - lo) / 2;
            int klo, khi, slo, shi;
            if ((newrank & d) == 0) { klo = lo; khi = mid; slo = mid; shi = hi; }
            else                    { klo = mid; khi = hi; slo = lo; shi = mid; }
            MPI_Aint ke0 = block_lo(klo, count, pof2), ke1 = block_lo(khi, count, pof2);
            MPI_Aint se0 = block_lo(slo, count, pof2), se1 = block_lo(shi, count, pof2);
            mp_sched_recv(s, mp_elem(tmp, ke0, dt), ke1 - ke0, dt, mp_team_peer(t, partner));
            mp_sched_send(s, mp_elem(acc, se0, dt), se1 - se0, dt, mp_team_peer(t, partner));
            mp_sched_fence(s);
            mp_sched_reduce(s, mp_elem(tmp, ke0, dt), mp_elem(acc, ke0, dt), ke1 - ke0, dt, op);
            lo = klo; hi = khi;
        }
        /* allgather by recursive doubling: my range grows back to everything */
        for (int d = 1; d < pof2; d *= 2) {
            int pnew = newrank ^ d, partner = REAL(pnew);
            int mlo = newrank & ~(d - 1), plo = pnew & ~(d - 1);
            MPI_Aint m0 = block_lo(mlo, count, pof2), m1 = block_lo(mlo + d, count, pof2);
            MPI_Aint p0 = block_lo(plo, count, pof2), p1 = block_lo(plo + d, count, pof2);
            mp_sched_recv(s, mp_elem(acc, p0, dt), p1 - p0, dt, mp_team_peer(t, partner));
            mp_sched_send(s, mp_elem(acc, m0, dt), m1 - m0, dt, mp_team_peer(t, partner));
            mp_sched_fence(s);
        }
#undef REAL
    }
    fold_out(s, t, acc, acc, count, dt, rem);
}

static void build_allreduce_ring(mp_sched *s, const mp_team *t, void *acc, MPI_Aint count,
                                 mp_datatype *dt, MPI_Op op)
{
    int n = t->size, me = t->rank;
    int right = mp_team_peer(t, (me + 1) % n), left = mp_team_peer(t, (me - 1 + n) % n);
    void *tmp = mp_sched_tmp(s, count, dt);
#define LO(b) block_lo(((b) % n + n) % n, count, n)
#define HI(b) block_lo(((b) % n + n) % n + 1, count, n)
    for (int k = 0; k < n - 1; k++) {
        int sb = me - k, rb = me - k - 1;
        mp_sched_recv(s, mp_elem(tmp, LO(rb), dt), HI(rb) - LO(rb), dt, left);
        mp_sched_send(s, mp_elem(acc, LO(sb), dt), HI(sb) - LO(sb), dt, right);
        mp_sched_fence(s);
        mp_sched_reduce(s, mp_elem(tmp, LO(rb), dt), mp_elem(acc, LO(rb), dt), HI(rb) - LO(rb),
                        dt, op);
    }
    for (int k = 0; k < n - 1; k++) {   /* I own block me+1 now */
        int sb = me + 1 - k, rb = me - k;
        mp_sched_recv(s, mp_elem(acc, LO(rb), dt), HI(rb) - LO(rb), dt, left);
        mp_sched_send(s, mp_elem(acc, LO(sb), dt), HI(sb) - LO(sb), dt, right);
        mp_sched_fence(s);
    }
#undef LO
#undef HI
}

/* Allreduce over a team on a buffer holding this member's input; picks by size. */
static void build_allreduce_flat(mp_sched *s, const mp_team *t, void *acc, MPI_Aint count,
                                 mp_datatype *dt, MPI_Op op, int commutative)
{
    if (commutative && mp_datatype_bytes(dt, count) >= RABENSEIFNER_MIN &&
        count >= mp_pof2_floor(t->size) && t->size > 2)
        build_allreduce_rabenseifner(s, t, acc, count, dt, op);
    else
        mp_build_allreduce_rd(s, t, acc, count, dt, op);
}

static void build_allreduce_btree4(mp_sched *s, mp_comm *comm, void *acc, MPI_Aint count,
                                   mp_datatype *dt, MPI_Op op, int commutative)
{
    mp_team node = mp_team_node(comm), leaders = mp_team_leaders(comm);
    void *r = mp_build_reduce_tree(s, &node, acc, count, dt, op, 0, commutative);
    if (leaders.rank >= 0) {
        if (r != acc)
            mp_sched_copy(s, r, count, dt, acc, count, dt);
        build_allreduce_flat(s, &leaders, acc, count, dt, op, commutative);
    }
    mp_build_bcast_binomial(s, &node, acc, count, dt, 0);
}

static int build_allreduce(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                           MPI_Aint count, mp_datatype *dt, MPI_Op op)
{
    if (comm->is_inter)
        return mp_build_inter_allreduce(s, comm, sbuf, rbuf, count, dt, op);
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (sbuf != MPI_IN_PLACE)
        mp_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    if (comm->size == 1)
        return MPI_SUCCESS;
    int commutative = mp_op_commutative(op);
    mp_coll_args a = { mp_datatype_bytes(dt, count), count, commutative };
    mp_team t = mp_team_all(comm);
    int alg = mp_coll_select(MP_COLL_ALLREDUCE, comm, &a);
    int big_enough = count >= mp_pof2_floor(comm->size);
    if ((alg == MP_ALLREDUCE_RABENSEIFNER && (!commutative || !big_enough)) ||
        (alg == MP_ALLREDUCE_RING && !commutative) ||
        (alg == MP_ALLREDUCE_BTREE4 && !commutative && !mp_coll_state_of(comm)->blocked))
        alg = MP_ALLREDUCE_RECURSIVE_DOUBLING;
    mp_coll_ran(comm, MP_COLL_ALLREDUCE, alg);
    switch (alg) {
    case MP_ALLREDUCE_RABENSEIFNER:
        build_allreduce_rabenseifner(s, &t, rbuf, count, dt, op);
        break;
    case MP_ALLREDUCE_RING:
        build_allreduce_ring(s, &t, rbuf, count, dt, op);
        break;
    case MP_ALLREDUCE_REDUCE_BCAST: {
        void *r = mp_build_reduce_tree(s, &t, rbuf, count, dt, op, 0, commutative);
        if (t.rank == 0 && r != rbuf)
            mp_sched_copy(s, r, count, dt, rbuf, count, dt);
        mp_build_bcast_binomial(s, &t, rbuf, count, dt, 0);
        break;
    }
    case MP_ALLREDUCE_BTREE4:
        build_allreduce_btree4(s, comm, rbuf, count, dt, op, commutative);
        break;
    default:
        mp_build_allreduce_rd(s, &t, rbuf, count, dt, op);
        break;
    }
    return MPI_SUCCESS;
}

/* Blocking B-Tree-4 (on one host or several): shm reduce inside each node to its leader,
 * messages among the leaders, shm broadcast inside each node. */
static int allreduce_btree4_shm(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt,
                                MPI_Op op, mp_comm *comm)
{
    mp_team leaders = mp_team_leaders(comm);
    int err = mp_coll_shm_node_reduce(sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op,
                                      comm);
    mp_sched *s = mp_sched_new(comm);          /* on every rank: keeps the tags in step */
    if (leaders.rank >= 0)
        build_allreduce_flat(s, &leaders, rbuf, count, dt, op, mp_op_commutative(op));
    int e2 = mp_sched_run(s);
    int e3 = mp_coll_shm_node_bcast(rbuf, count, dt, 0, comm);
    return err ? err : e2 ? e2 : e3;
}

int mp_iallreduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
                  mp_comm *comm, mp_request **req)
{
    mp_coll_args shm = { mp_datatype_bytes(dt, count), count, mp_op_commutative(op), 1,
                         mp_coll_shm_reduce_fits(dt) };
    if (!req && !comm->is_inter && comm->size > 1 && count > 0) {
        int alg = mp_coll_select(MP_COLL_ALLREDUCE, comm, &shm);
        if (alg == MP_ALLREDUCE_SHM) {
            mp_coll_ran(comm, MP_COLL_ALLREDUCE, alg);
            return mp_coll_shm_allreduce(sbuf, rbuf, count, dt, op, comm);
        }
        if (alg == MP_ALLREDUCE_BTREE4 && shm.shm_fits && mp_coll_shm_node_usable(comm) &&
            (shm.commutative || mp_coll_state_of(comm)->blocked)) {
            mp_coll_ran(comm, MP_COLL_ALLREDUCE, alg);
            return allreduce_btree4_shm(sbuf, rbuf, count, dt, op, comm);
        }
    }
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, op);
    return mp_coll_finish(s, build_allreduce(s, comm, sbuf, rbuf, count, dt, op), req);
}


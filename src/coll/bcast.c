/* bcast.c -- MPI_Bcast / MPI_Ibcast.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   binomial           log2 n rounds; each rank receives once from its parent, then sends to
 *                      its children, largest subtree first.  Best for small messages.
 *   scatter_allgather  for large messages (van de Geijn): the root's buffer is cut into n
 *                      pieces that are scattered down a binomial tree, then a ring
 *                      allgather puts every piece everywhere.  Each rank sends ~2x the data
 *                      once instead of log2 n times.
 *   two_stage          node-aware (MPI-StarT): the data first crosses the network among one
 *                      rank per node -- the root stands in for its node's leader -- then
 *                      each node broadcasts internally.  Each stage picks binomial or
 *                      scatter_allgather by size.
 *   linear             the root sends to everybody (reference / tiny communicators).
 *   shm                (blocking calls on one host) the root packs the data into its shared
 *                      slot chunk by chunk, the others unpack it: shm.c.
 * A blocking two_stage broadcast runs its node stage with shm (the node view of shm.c, also
 * when the communicator spans several hosts).
 * Buffers are split by whole elements, so derived datatypes work unchanged.
 */
#include "coll/coll_impl.h"

#define SCATTER_ALLGATHER_MIN (12 * 1024)

void mp_build_bcast_binomial(mp_sched *s, const mp_team *t, void *buf, MPI_Aint count,
                             mp_datatype *dt, int root)
{
    int n = t->size, rel = (t->rank - root + n) % n, mask = 1;
    while (mask < n) {
        if (rel & mask) {
            mp_sched_recv(s, buf, count, dt, mp_team_peer(t, (rel - mask + root) % n));
            mp_sched_fence(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n)
            mp_sched_send(s, buf, count, dt, mp_team_peer(t, (rel + mask + root) % n));
    mp_sched_fence(s);
}

static void build_bcast_linear(mp_sched *s, const mp_team *t, void *buf, MPI_Aint count,
                               mp_datatype *dt, int root)
{
    if (t->rank == root) {
        for (int i = 0; i < t->size; i++)
            if (i != root)
                mp_sched_send(s, buf, count, dt, mp_team_peer(t, i));
    } else {
        mp_sched_recv(s, buf, count, dt, mp_team_peer(t, root));
    }
    mp_sched_fence(s);
}

/* Piece of relative rank r: elements [r*chunk, min((r+1)*chunk, count)). */
static MPI_Aint piece_lo(MPI_Aint r, MPI_Aint chunk, MPI_Aint count)
{
    MPI_Aint lo = r * chunk;
    return lo < count ? lo : count;
}

static void scatter_allgather_pieces(mp_sched *s, const mp_team *t, void *buf, MPI_Aint count,
                                     mp_datatype *dt, int root)
{
    int n = t->size, rel = (t->rank - root + n) % n;
    MPI_Aint chunk = (count + n - 1) / n;
    /* scatter: rank rel owns pieces [rel, rel + subtree) and forwards the upper parts */
    int mask = 1;
    while (mask < n) {
        if (rel & mask) {
            int hi = rel + mask < n ? rel + mask : n;
            MPI_Aint lo_e = piece_lo(rel, chunk, count), hi_e = piece_lo(hi, chunk, count);
            mp_sched_recv(s, mp_elem(buf, lo_e, dt), hi_e - lo_e, dt,
                          mp_team_peer(t, (rel - mask + root) % n));
            mp_sched_fence(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < n) {
            int c = rel + mask, hi = c + mask < n ? c + mask : n;
            MPI_Aint lo_e = piece_lo(c, chunk, count), hi_e = piece_lo(hi, chunk, count);
            mp_sched_send(s, mp_elem(buf, lo_e, dt), hi_e - lo_e, dt,
                          mp_team_peer(t, (c + root) % n));
        }
    }
    mp_sched_fence(s);
    /* ring allgather of the pieces; member i holds the piece of relative rank i-root */
    MPI_Aint *counts = mp_sched_alloc(s, 2 * (size_t)n * sizeof(MPI_Aint));
    MPI_Aint *displs = counts + n;
    for (int i = 0; i < n; i++) {
        int r = (i - root + n) % n;
        displs[i] = piece_lo(r, chunk, count);
        counts[i] = piece_lo(r + 1, chunk, count) - displs[i];
    }
    mp_build_allgatherv_ring(s, t, buf, counts, displs, dt);
}

/* Scatter + allgather cuts the message into pieces, which must be the same bytes on every
 * rank even when the root's (count, datatype) differs from a receiver's with the same type
 * signature (1 x contiguous(1000, MPI_INT) against 1000 x MPI_INT).  So the pieces are cut in
 * bytes of the packed message: a contiguous buffer is used in place as bytes; any other is
 * packed into a scratch buffer first (root) and unpacked from it at the end (receivers). */
static void build_bcast_scatter_allgather(mp_sched *s, const mp_team *t, void *buf,
                                          MPI_Aint count, mp_datatype *dt, int root)
{
    mp_datatype *byte = mp_datatype_get(MPI_BYTE);
    MPI_Aint nbytes = (MPI_Aint)mp_datatype_bytes(dt, count);
    if (dt->is_contig) {
        scatter_allgather_pieces(s, t, (char *)buf + dt->true_lb, nbytes, byte, root);
        return;
    }
    char *bytes = mp_sched_alloc(s, (size_t)nbytes);
    if (t->rank == root) {
        mp_sched_copy(s, buf, count, dt, bytes, nbytes, byte);
        mp_sched_fence(s);
    }
    scatter_allgather_pieces(s, t, bytes, nbytes, byte, root);
    if (t->rank != root) {
        mp_sched_fence(s);
        mp_sched_copy(s, bytes, nbytes, byte, buf, count, dt);
        mp_sched_fence(s);
    }
}

/* Flat broadcast over a team, choosing by size. */
static void build_bcast_flat(mp_sched *s, const mp_team *t, void *buf, MPI_Aint count,
                             mp_datatype *dt, int root)
{
    if (mp_datatype_bytes(dt, count) >= SCATTER_ALLGATHER_MIN && t->size > 2)
        build_bcast_scatter_allgather(s, t, buf, count, dt, root);
    else
        mp_build_bcast_binomial(s, t, buf, count, dt, root);
}

/* stage2 == 0 builds only the network stage (the node stage then runs through shm). */
static void build_bcast_two_stage(mp_sched *s, mp_comm *comm, void *buf, MPI_Aint count,
                                  mp_datatype *dt, int root, int stage2)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    int root_node = mp_coll_node_of(comm, root);
    /* stage 1: one rank per node, the root standing in for its node's leader */
    int *heads = mp_sched_alloc(s, (size_t)cs->nnodes * sizeof(int));
    int me_head = -1;
    for (int i = 0; i < cs->nnodes; i++) {
        heads[i] = i == root_node ? root : cs->leaders[i];
        if (heads[i] == comm->rank)
            me_head = i;
    }
    if (me_head >= 0) {
        mp_team net = { cs->nnodes, me_head, heads };
        build_bcast_flat(s, &net, buf, count, dt, root_node);
    }
    if (!stage2)
        return;
    /* stage 2: inside each node from its head */
    mp_team node = mp_team_node(comm);
    int my_node = mp_coll_node_of(comm, comm->rank);
    int head_pos = cs->pos_in_node[heads[my_node]];
    build_bcast_flat(s, &node, buf, count, dt, head_pos);
}

static int build_bcast(mp_sched *s, mp_comm *comm, void *buf, MPI_Aint count, mp_datatype *dt,
                       int root)
{
    if (comm->is_inter)
        return mp_build_inter_bcast(s, comm, buf, count, dt, root);
    if (comm->size == 1 || count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    mp_coll_args a = { mp_datatype_bytes(dt, count), count, 1 };
    mp_team t = mp_team_all(comm);
    int alg = mp_coll_select(MP_COLL_BCAST, comm, &a);
    if (alg == MP_BCAST_SCATTER_ALLGATHER && a.bytes < (size_t)comm->size)
        alg = MP_BCAST_BINOMIAL;      /* fewer bytes than ranks */
    mp_coll_ran(comm, MP_COLL_BCAST, alg);
    switch (alg) {
    case MP_BCAST_TWO_STAGE:
        build_bcast_two_stage(s, comm, buf, count, dt, root, 1);
        break;
    case MP_BCAST_SCATTER_ALLGATHER:
        build_bcast_scatter_allgather(s, &t, buf, count, dt, root);
        break;
    case MP_BCAST_BINOMIAL:
        mp_build_bcast_binomial(s, &t, buf, count, dt, root);
        break;
    default:
        build_bcast_linear(s, &t, buf, count, dt, root);
        break;
    }
    return MPI_SUCCESS;
}

/* Blocking two-stage broadcast: messages among the node heads, then shm inside
 * each node from its head (the root, or the node leader). */
static int bcast_two_stage_shm(void *buf, MPI_Aint count, mp_datatype *dt, int root,
                               mp_comm *comm)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    mp_sched *s = mp_sched_new(comm);
    build_bcast_two_stage(s, comm, buf, count, dt, root, 0);
    int err = mp_sched_run(s);
    int my_node = mp_coll_node_of(comm, comm->rank);
    int head = my_node == mp_coll_node_of(comm, root) ? root : cs->leaders[my_node];
    int e2 = mp_coll_shm_node_bcast(buf, count, dt, cs->pos_in_node[head], comm);
    return err ? err : e2;
}

int mp_ibcast(void *buf, MPI_Aint count, mp_datatype *dt, int root, mp_comm *comm,
              mp_request **req)
{
    mp_coll_args shm = { mp_datatype_bytes(dt, count), count, 1, 1, 0 };
    if (!req && !comm->is_inter && comm->size > 1 && count > 0 && dt->size > 0) {
        int alg = mp_coll_select(MP_COLL_BCAST, comm, &shm);
        if (alg == MP_BCAST_SHM) {
            mp_coll_ran(comm, MP_COLL_BCAST, alg);
            return mp_coll_shm_bcast(buf, count, dt, root, comm);
        }
        if (alg == MP_BCAST_TWO_STAGE && mp_coll_shm_node_usable(comm)) {
            mp_coll_ran(comm, MP_COLL_BCAST, alg);
            return bcast_two_stage_shm(buf, count, dt, root, comm);
        }
    }
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, MPI_OP_NULL);
    return mp_coll_finish(s, build_bcast(s, comm, buf, count, dt, root), req);
}


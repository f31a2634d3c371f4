/* allgather.c -- MPI_Allgather(v) / MPI_Iallgather(v).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank first puts its own block into its place in the receive buffer (nothing to do
 * for MPI_IN_PLACE); the algorithms then only move blocks of the receive buffer.
 * Algorithms:
 *   ring                n-1 steps, each rank passes on the block it received last.
 *                       Bandwidth optimal, any n; also the allgatherv algorithm.
 *   recursive_doubling  log2 n exchanges of doubling ranges (power-of-two n only; other
 *                       sizes use bruck).
 *   bruck               ceil(log2 n) steps for any n, in a scratch buffer rotated so my
 *                       block comes first, rotated back at the end.
 *   gather_bcast        binomial gather to rank 0, then broadcast.
 *   btree4star          node-aware B-Tree-4* (Shan et al.): gather inside each node to the
 *                       leader, leaders exchange what they hold (a ring over nodes, each node's
 *                       blocks travelling as one message per run of consecutive ranks),
 *                       then each leader broadcasts the full buffer inside its node (in
 *                       blocking calls through the shm node view).  Nothing is sent to a
 *                       root and back.
 *   shm                 (blocking calls on one host) every rank copies its block into its
 *                       shared slot once, the others copy it out: shm.c.
 */
#include "coll/coll_impl.h"

void mp_build_allgatherv_ring(mp_sched *s, const mp_team *t, void *buf, const MPI_Aint *counts,
                              const MPI_Aint *displs, mp_datatype *dt)
{
    int n = t->size, me = t->rank;
    int right = mp_team_peer(t, (me + 1) % n), left = mp_team_peer(t, (me - 1 + n) % n);
    for (int k = 0; k < n - 1; k++) {
        int sb = ((me - k) % n + n) % n, rb = ((me - k - 1) % n + n) % n;
        mp_sched_recv(s, mp_elem(buf, displs[rb], dt), counts[rb], dt, left);
        mp_sched_send(s, mp_elem(buf, displs[sb], dt), counts[sb], dt, right);
        mp_sched_fence(s);
    }
}

/* Regular blocks of `bc` elements: block i at element i*bc. */
static void build_allgather_ring(mp_sched *s, const mp_team *t, void *rbuf, MPI_Aint bc,
                                 mp_datatype *dt)
{
    int n = t->size;
    MPI_Aint *counts = mp_sched_alloc(s, 2 * (size_t)n * sizeof(MPI_Aint)), *displs = counts + n;
    for (int i = 0; i < n; i++) {
        counts[i] = bc;
        displs[i] = (MPI_Aint)i * bc;
    }
    mp_build_allgatherv_ring(s, t, rbuf, counts, displs, dt);
}

static void build_allgather_rd(mp_sched *s, const mp_team *t, void *rbuf, MPI_Aint bc,
                               mp_datatype *dt)
{
    int me = t->rank;
    for (int d = 1; d < t->size; d *= 2) {
        int p = me ^ d, mlo = me & ~(d - 1), plo = p & ~(d - 1);
        mp_sched_recv(s, mp_elem(rbuf, plo * bc, dt), d * bc, dt, mp_team_peer(t, p));
        mp_sched_send(s, mp_elem(rbuf, mlo * bc, dt), d * bc, dt, mp_team_peer(t, p));
        mp_sched_fence(s);
    }
}

static void build_allgather_bruck(mp_sched *s, const mp_team *t, void *rbuf, MPI_Aint bc,
                                  mp_datatype *dt)
{
    int n = t->size, me = t->rank;
    void *tmp = mp_sched_tmp(s, n * bc, dt);
    mp_sched_copy(s, mp_elem(rbuf, me * bc, dt), bc, dt, tmp, bc, dt);
    for (int d = 1; d < n; d *= 2) {
        int nb = d < n - d ? d : n - d;
        mp_sched_recv(s, mp_elem(tmp, d * bc, dt), nb * bc, dt, mp_team_peer(t, (me + d) % n));
        mp_sched_send(s, tmp, nb * bc, dt, mp_team_peer(t, (me - d + n) % n));
        mp_sched_fence(s);
    }
    /* tmp block i belongs to rank me+i: rotate back */
    int first = n - me;               /* blocks me..n-1 */
    mp_sched_copy(s, tmp, first * bc, dt, mp_elem(rbuf, me * bc, dt), first * bc, dt);
    if (me > 0)
        mp_sched_copy(s, mp_elem(tmp, first * bc, dt), me * bc, dt, rbuf, me * bc, dt);
}

static void build_allgather_gather_bcast(mp_sched *s, const mp_team *t, void *rbuf,
                                         MPI_Aint bc, mp_datatype *dt)
{
    int n = t->size;
    MPI_Aint *counts = mp_sched_alloc(s, 2 * (size_t)n * sizeof(MPI_Aint)), *displs = counts + n;
    for (int i = 0; i < n; i++) {
        counts[i] = bc;
        displs[i] = (MPI_Aint)i * bc;
    }
    mp_build_gatherv_linear(s, t, rbuf, counts, displs, dt, 0);
    mp_build_bcast_binomial(s, t, rbuf, n * bc, dt, 0);
}

/* Sends (or receives) the blocks of every rank of node `nd` as runs of consecutive ranks. */
static void node_blocks(mp_sched *s, mp_comm *comm, int nd, void *rbuf,
                        const MPI_Aint *counts, const MPI_Aint *displs, mp_datatype *dt,
                        int peer, int send)
{
    int n = comm->size;
    for (int r = 0; r < n; r++) {
        if (mp_coll_node_of(comm, r) != nd)
            continue;
        int e = r;                    /* extend a run while blocks abut in the buffer */
        MPI_Aint cnt = counts[r];
        while (e + 1 < n && mp_coll_node_of(comm, e + 1) == nd &&
               displs[e + 1] == displs[e] + counts[e]) {
            e++;
            cnt += counts[e];
        }
        if (send)
            mp_sched_send(s, mp_elem(rbuf, displs[r], dt), cnt, dt, peer);
        else
            mp_sched_recv(s, mp_elem(rbuf, displs[r], dt), cnt, dt, peer);
        r = e;
    }
}

/* node_bcast == 0 leaves out step 3 (a blocking caller then runs it through shm). */
static void build_btree4star(mp_sched *s, mp_comm *comm, void *rbuf, const MPI_Aint *counts,
                             const MPI_Aint *displs, mp_datatype *dt, int node_bcast)
{
    mp_team node = mp_team_node(comm), leaders = mp_team_leaders(comm);
    /* 1: gather inside the node to its leader */
    MPI_Aint *nc = mp_sched_alloc(s, 2 * (size_t)node.size * sizeof(MPI_Aint)), *nd = nc + node.size;
    for (int i = 0; i < node.size; i++) {
        nc[i] = counts[node.map[i]];
        nd[i] = displs[node.map[i]];
    }
    mp_build_gatherv_linear(s, &node, rbuf, nc, nd, dt, 0);
    /* 2: leaders exchange around a ring of nodes */
    if (leaders.rank >= 0 && leaders.size > 1) {
        int L = leaders.size, me = leaders.rank;
        int right = mp_team_peer(&leaders, (me + 1) % L);
        int left = mp_team_peer(&leaders, (me - 1 + L) % L);
        for (int k = 0; k < L - 1; k++) {
            int sb = ((me - k) % L + L) % L, rb = ((me - k - 1) % L + L) % L;
            node_blocks(s, comm, rb, rbuf, counts, displs, dt, left, 0);
            node_blocks(s, comm, sb, rbuf, counts, displs, dt, right, 1);
            mp_sched_fence(s);
        }
    }
    /* 3: every leader broadcasts everything inside its node, as runs of blocks */
    if (node.size > 1 && node_bcast) {
        int n = comm->size;
        for (int r = 0; r < n; r++) {
            int e = r;
            MPI_Aint cnt = counts[r];
            while (e + 1 < n && displs[e + 1] == displs[e] + counts[e]) {
                e++;
                cnt += counts[e];
            }
            mp_build_bcast_binomial(s, &node, mp_elem(rbuf, displs[r], dt), cnt, dt, 0);
            r = e;
        }
    }
}

void mp_build_allgatherv_btree4star(mp_sched *s, mp_comm *comm, void *rbuf,
                                    const MPI_Aint *counts, const MPI_Aint *displs,
                                    mp_datatype *dt)
{
    build_btree4star(s, comm, rbuf, counts, displs, dt, 1);
}

/* counts and displacements (counts + n) of an allgather's n equal blocks, in the schedule */
static MPI_Aint *equal_blocks(mp_sched *s, int n, MPI_Aint rcount)
{
    MPI_Aint *counts = mp_sched_alloc(s, 2 * (size_t)n * sizeof(MPI_Aint));
    for (int i = 0; i < n; i++) {
        counts[i] = rcount;
        counts[n + i] = (MPI_Aint)i * rcount;
    }
    return counts;
}

/* Blocking B-Tree-4* whose last step -- the leader's whole buffer to its node -- goes through
 * the shm node view: one copy in and one out per rank instead of a binomial tree of messages. */
static int allgather_btree4star_shm(const void *sbuf, MPI_Aint scount, mp_datatype *sdt,
                                    void *rbuf, MPI_Aint rcount, mp_datatype *rdt,
                                    mp_comm *comm)
{
    int n = comm->size;
    mp_sched *s = mp_sched_new(comm);
    if (sbuf != MPI_IN_PLACE)
        mp_sched_copy(s, sbuf, scount, sdt, mp_elem(rbuf, comm->rank * rcount, rdt), rcount, rdt);
    MPI_Aint *counts = equal_blocks(s, n, rcount);
    build_btree4star(s, comm, rbuf, counts, counts + n, rdt, 0);
    int err = mp_sched_run(s);
    /* every rank calls it, also alone on its node: the first use agrees on an epoch */
    int e2 = mp_coll_shm_node_bcast(rbuf, (MPI_Aint)n * rcount, rdt, 0, comm);
    return err ? err : e2;
}

static int build_allgather(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                           mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt)
{
    if (comm->is_inter)
        return mp_build_inter_allgather(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt);
    int n = comm->size, me = comm->rank;
    if (sbuf != MPI_IN_PLACE)
        mp_sched_copy(s, sbuf, scount, sdt, mp_elem(rbuf, me * rcount, rdt), rcount, rdt);
    if (n == 1 || rcount == 0 || rdt->size == 0)
        return MPI_SUCCESS;
    mp_coll_args a = { mp_datatype_bytes(rdt, rcount), rcount, 1 };
    mp_team t = mp_team_all(comm);
    int alg = mp_coll_select(MP_COLL_ALLGATHER, comm, &a);
    if (alg == MP_ALLGATHER_RECURSIVE_DOUBLING && (n & (n - 1)) != 0)
        alg = MP_ALLGATHER_BRUCK;
    mp_coll_ran(comm, MP_COLL_ALLGATHER, alg);
    switch (alg) {
    case MP_ALLGATHER_RECURSIVE_DOUBLING:
        build_allgather_rd(s, &t, rbuf, rcount, rdt);
        break;
    case MP_ALLGATHER_BRUCK:
        build_allgather_bruck(s, &t, rbuf, rcount, rdt);
        break;
    case MP_ALLGATHER_GATHER_BCAST:
        build_allgather_gather_bcast(s, &t, rbuf, rcount, rdt);
        break;
    case MP_ALLGATHER_BTREE4STAR: {
        MPI_Aint *counts = equal_blocks(s, n, rcount);
        build_btree4star(s, comm, rbuf, counts, counts + n, rdt, 1);
        break;
    }
    default:
        build_allgather_ring(s, &t, rbuf, rcount, rdt);
        break;
    }
    return MPI_SUCCESS;
}

static int build_allgatherv(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                            mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                            const MPI_Aint *displs, mp_datatype *rdt)
{
    if (comm->is_inter)
        return mp_build_inter_allgatherv(s, comm, sbuf, scount, sdt, rbuf, rcounts, displs, rdt);
    int n = comm->size, me = comm->rank;
    if (sbuf != MPI_IN_PLACE)
        mp_sched_copy(s, sbuf, scount, sdt, mp_elem(rbuf, displs[me], rdt), rcounts[me], rdt);
    if (n == 1)
        return MPI_SUCCESS;
    /* nonblocking calls may outlive the caller's arrays: keep copies */
    MPI_Aint *c = mp_sched_alloc(s, 2 * (size_t)n * sizeof(MPI_Aint)), *d = c + n;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        c[i] = rcounts[i];
        d[i] = displs[i];
        total += mp_datatype_bytes(rdt, rcounts[i]);
    }
    mp_coll_args a = { total / (size_t)n, 0, 1 };
    mp_team t = mp_team_all(comm);
    int alg = mp_coll_select(MP_COLL_ALLGATHERV, comm, &a);
    mp_coll_ran(comm, MP_COLL_ALLGATHERV, alg);
    switch (alg) {
    case MP_ALLGATHERV_BTREE4STAR:
        mp_build_allgatherv_btree4star(s, comm, rbuf, c, d, rdt);
        break;
    case MP_ALLGATHERV_GATHERV_BCAST:
        mp_build_gatherv_linear(s, &t, rbuf, c, d, rdt, 0);
        for (int i = 0; i < n; i++)
            mp_build_bcast_binomial(s, &t, mp_elem(rbuf, d[i], rdt), c[i], rdt, 0);
        break;
    default:
        mp_build_allgatherv_ring(s, &t, rbuf, c, d, rdt);
        break;
    }
    return MPI_SUCCESS;
}

int mp_iallgather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                  MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req)
{
    mp_coll_args shm = { mp_datatype_bytes(rdt, rcount), rcount, 1, 1, 0 };
    if (!req && !comm->is_inter && comm->size > 1 && rcount > 0 && rdt->size > 0) {
        int alg = mp_coll_select(MP_COLL_ALLGATHER, comm, &shm);
        if (alg == MP_ALLGATHER_SHM) {
            mp_coll_ran(comm, MP_COLL_ALLGATHER, alg);
            return mp_coll_shm_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
        }
        if (alg == MP_ALLGATHER_BTREE4STAR && mp_coll_shm_node_usable(comm)) {
            mp_coll_ran(comm, MP_COLL_ALLGATHER, alg);
            return allgather_btree4star_shm(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
        }
    }
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    return mp_coll_finish(s, build_allgather(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt), req);
}

int mp_iallgatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                   const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt,
                   mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    return mp_coll_finish(s, build_allgatherv(s, comm, sbuf, scount, sdt, rbuf, rcounts,
                                              displs, rdt), req);
}


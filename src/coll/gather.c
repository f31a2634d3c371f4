/* gather.c -- MPI_Gather(v) / MPI_Igather(v).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   binomial  (gather) each rank collects its binomial subtree's blocks in a scratch buffer
 *             (in relative-rank order) and sends them to its parent in one message:
 *             log2 n steps, good for small blocks.  The root receives straight into its
 *             receive buffer when it is rank 0, otherwise into a scratch buffer that it
 *             rotates into place.
 *   linear    the root posts one receive per rank, every rank sends once (gatherv always;
 *             gather with large blocks, where the tree only adds copies).
 * Non-roots only know their send type, so subtree buffers are laid out in the send type;
 * the type signatures match the root's receive type by the standard's rules.
 */
#include "coll/coll_impl.h"

void mp_build_gatherv_linear(mp_sched *s, const mp_team *t, void *buf, const MPI_Aint *counts,
                             const MPI_Aint *displs, mp_datatype *dt, int root)
{
    if (t->rank == root) {
        for (int i = 0; i < t->size; i++)
            if (i != root)
                mp_sched_recv(s, mp_elem(buf, displs[i], dt), counts[i], dt, mp_team_peer(t, i));
    } else {
        mp_sched_send(s, mp_elem(buf, displs[t->rank], dt), counts[t->rank], dt,
                      mp_team_peer(t, root));
    }
    mp_sched_fence(s);
}

static int lowbit(int x) { return x & -x; }

static void build_gather_binomial(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                                  mp_datatype *sdt, void *rbuf, MPI_Aint rcount,
                                  mp_datatype *rdt, int root)
{
    int n = comm->size, me = comm->rank, rel = (me - root + n) % n;
    int sub = rel == 0 ? n : (lowbit(rel) < n - rel ? lowbit(rel) : n - rel);
    int top = rel == 0 ? (int)mp_pof2_floor(n) * 2 : lowbit(rel);
    void *acc;                        /* subtree blocks in relative order */
    MPI_Aint bc;                      /* elements per block in acc's type */
    mp_datatype *dt;
    if (rel == 0) {
        bc = rcount; dt = rdt;
        acc = root == 0 ? rbuf : mp_sched_tmp(s, n * rcount, rdt);
        if (sbuf != MPI_IN_PLACE)
            mp_sched_copy(s, sbuf, scount, sdt, acc, rcount, rdt);
        else if (root != 0)
            mp_sched_copy(s, mp_elem(rbuf, root * rcount, rdt), rcount, rdt, acc, rcount, rdt);
    } else {
        bc = scount; dt = sdt;
        acc = sub > 1 ? mp_sched_tmp(s, sub * scount, sdt) : (void *)sbuf;
        if (sub > 1)
            mp_sched_copy(s, sbuf, scount, sdt, acc, scount, sdt);
    }
    for (int m = 1; m < top && rel + m < n; m <<= 1) {
        int c = rel + m, csub = m < n - c ? m : n - c;
        mp_sched_recv(s, mp_elem(acc, m * bc, dt), csub * bc, dt, (c + root) % n);
    }
    mp_sched_fence(s);
    if (rel != 0) {
        mp_sched_send(s, acc, sub * bc, dt, (rel - lowbit(rel) + root) % n);
        mp_sched_fence(s);
    } else if (root != 0) {           /* relative block i belongs to rank root+i */
        int first = n - root;
        mp_sched_copy(s, acc, first * bc, dt, mp_elem(rbuf, root * bc, dt), first * bc, dt);
        mp_sched_copy(s, mp_elem(acc, first * bc, dt), root * bc, dt, rbuf, root * bc, dt);
    }
}

static int build_gather(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                        mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt,
                        int root)
{
    if (comm->is_inter)
        return mp_build_inter_gather(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
    int n = comm->size, me = comm->rank;
    size_t bytes = me == root ? mp_datatype_bytes(rdt, rcount) : mp_datatype_bytes(sdt, scount);
    if (bytes == 0)
        return MPI_SUCCESS;
    mp_coll_args a = { bytes, 0, 1 };
    int alg = mp_coll_select(MP_COLL_GATHER, comm, &a);
    mp_coll_ran(comm, MP_COLL_GATHER, alg);
    if (alg == MP_GATHER_BINOMIAL) {
        build_gather_binomial(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
        return MPI_SUCCESS;
    }
    if (me == root) {
        if (sbuf != MPI_IN_PLACE)
            mp_sched_copy(s, sbuf, scount, sdt, mp_elem(rbuf, me * rcount, rdt), rcount, rdt);
        for (int i = 0; i < n; i++)
            if (i != root)
                mp_sched_recv(s, mp_elem(rbuf, i * rcount, rdt), rcount, rdt, i);
    } else {
        mp_sched_send(s, sbuf, scount, sdt, root);
    }
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

static int build_gatherv(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                         mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                         const MPI_Aint *displs, mp_datatype *rdt, int root)
{
    if (comm->is_inter)
        return mp_build_inter_gatherv(s, comm, sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                      root);
    int me = comm->rank;
    mp_coll_ran(comm, MP_COLL_GATHERV, 0);     /* linear, the only one */
    if (me == root) {
        if (sbuf != MPI_IN_PLACE)
            mp_sched_copy(s, sbuf, scount, sdt, mp_elem(rbuf, displs[me], rdt), rcounts[me], rdt);
        for (int i = 0; i < comm->size; i++)
            if (i != root)
                mp_sched_recv(s, mp_elem(rbuf, displs[i], rdt), rcounts[i], rdt, i);
    } else {
        mp_sched_send(s, sbuf, scount, sdt, root);
    }
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

int mp_igather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
               MPI_Aint rcount, mp_datatype *rdt, int root, mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_new(comm);
    if (req) {
        mp_sched_hold_dt(s, sdt);
        mp_sched_hold_dt(s, rdt);
    }
    return mp_coll_finish(s, build_gather(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt, root),
                          req);
}

int mp_gather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
              MPI_Aint rcount, mp_datatype *rdt, int root, mp_comm *comm)
{
    return mp_igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, NULL);
}

int mp_igatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt, int root,
                mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_new(comm);
    if (req) {
        mp_sched_hold_dt(s, sdt);
        mp_sched_hold_dt(s, rdt);
    }
    return mp_coll_finish(s, build_gatherv(s, comm, sbuf, scount, sdt, rbuf, rcounts, displs,
                                           rdt, root), req);
}

int mp_gatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
               const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt, int root,
               mp_comm *comm)
{
    return mp_igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, NULL);
}

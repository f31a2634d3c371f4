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

int mp_build_rooted(mp_sched *s, mp_comm *comm, int gather, const void *one, MPI_Aint one_count,
                    mp_datatype *one_dt, const void *all, MPI_Aint count,
                    const MPI_Aint *counts, const MPI_Aint *displs, mp_datatype *dt, int root)
{
    int inter = comm->is_inter;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (inter ? root == MPI_ROOT : comm->rank == root) {
        for (int i = 0; i < (inter ? comm->remote_size : comm->size); i++) {
            void *p = mp_elem(all, displs ? displs[i] : i * count, dt);
            MPI_Aint c = counts ? counts[i] : count;
            if (!inter && i == root && one == MPI_IN_PLACE)
                continue;
            if (!inter && i == root && gather)
                mp_sched_copy(s, one, one_count, one_dt, p, c, dt);
            else if (!inter && i == root)
                mp_sched_copy(s, p, c, dt, (void *)one, one_count, one_dt);
            else if (gather)
                mp_sched_recv(s, p, c, dt, i);
            else
                mp_sched_send(s, p, c, dt, i);
        }
    } else if (gather) {
        mp_sched_send(s, one, one_count, one_dt, root);
    } else {
        mp_sched_recv(s, (void *)one, one_count, one_dt, root);
    }
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

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
    int me = comm->rank;
    if (!comm->is_inter) {
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
    }
    return mp_build_rooted(s, comm, 1, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root);
}

int mp_igather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
               MPI_Aint rcount, mp_datatype *rdt, int root, mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    return mp_coll_finish(s, build_gather(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt, root),
                          req);
}

int mp_igatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt, int root,
                mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    if (!comm->is_inter)
        mp_coll_ran(comm, MP_COLL_GATHERV, 0);     /* linear, the only one */
    return mp_coll_finish(s, mp_build_rooted(s, comm, 1, sbuf, scount, sdt, rbuf, 0, rcounts,
                                             displs, rdt, root), req);
}


/* scatter.c -- MPI_Scatter(v) / MPI_Iscatter(v).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   binomial  (scatter) the mirror image of the binomial gather: the root sends each child
 *             its whole subtree's blocks in one message, each rank keeps its first block and
 *             forwards the rest; log2 n steps.  A root other than rank 0 first rotates its
 *             buffer into relative order in a scratch buffer.
 *   linear    the root sends one message per rank (scatterv always).
 * Intermediate ranks only know the receive type, so subtree buffers use it.
 */
#include "coll/coll_impl.h"

static int lowbit(int x) { return x & -x; }

static void build_scatter_binomial(mp_sched *s, mp_comm *comm, const void *sbuf,
                                   MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                                   MPI_Aint rcount, mp_datatype *rdt, int root)
{
    int n = comm->size, me = comm->rank, rel = (me - root + n) % n;
    int sub = rel == 0 ? n : (lowbit(rel) < n - rel ? lowbit(rel) : n - rel);
    const void *acc;
    MPI_Aint bc;
    mp_datatype *dt;
    if (rel == 0) {
        bc = scount; dt = sdt;
        if (root == 0) {
            acc = sbuf;
        } else {                      /* relative block i is the block of rank root+i */
            void *tmp = mp_sched_tmp(s, n * scount, sdt);
            int first = n - root;
            mp_sched_copy(s, mp_elem(sbuf, root * scount, sdt), first * scount, sdt, tmp,
                          first * scount, sdt);
            mp_sched_copy(s, sbuf, root * scount, sdt, mp_elem(tmp, first * scount, sdt),
                          root * scount, sdt);
            acc = tmp;
        }
        if (rbuf != MPI_IN_PLACE)
            mp_sched_copy(s, acc, scount, sdt, rbuf, rcount, rdt);
    } else {
        bc = rcount; dt = rdt;
        void *tmp = sub > 1 ? mp_sched_tmp(s, sub * rcount, rdt) : rbuf;
        mp_sched_recv(s, tmp, sub * rcount, rdt, (rel - lowbit(rel) + root) % n);
        mp_sched_fence(s);
        if (sub > 1)
            mp_sched_copy(s, tmp, rcount, rdt, rbuf, rcount, rdt);
        acc = tmp;
    }
    int top = rel == 0 ? (int)mp_pof2_floor(n) * 2 : lowbit(rel);
    for (int m = 1; m < top && rel + m < n; m <<= 1) {
        int c = rel + m, csub = m < n - c ? m : n - c;
        mp_sched_send(s, mp_elem(acc, m * bc, dt), csub * bc, dt, (c + root) % n);
    }
    mp_sched_fence(s);
}

static int build_scatter(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                         mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt,
                         int root)
{
    if (!comm->is_inter) {
        int me = comm->rank;
        size_t bytes = me == root ? mp_datatype_bytes(sdt, scount) : mp_datatype_bytes(rdt, rcount);
        mp_coll_args a = { bytes, 0, 1 };
        int alg = bytes ? mp_coll_select(MP_COLL_SCATTER, comm, &a) : -1;
        if (alg < 0)
            return MPI_SUCCESS;
        mp_coll_ran(comm, MP_COLL_SCATTER, alg);
        if (alg == MP_SCATTER_BINOMIAL) {
            build_scatter_binomial(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt, root);
            return MPI_SUCCESS;
        }
    }
    return mp_build_rooted(s, comm, 0, rbuf, rcount, rdt, sbuf, scount, NULL, NULL, sdt, root);
}

int mp_iscatter(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                MPI_Aint rcount, mp_datatype *rdt, int root, mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    return mp_coll_finish(s, build_scatter(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt, root),
                          req);
}

int mp_iscatterv(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *displs,
                 mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt, int root,
                 mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    if (!comm->is_inter)
        mp_coll_ran(comm, MP_COLL_SCATTERV, 0);    /* linear, the only one */
    return mp_coll_finish(s, mp_build_rooted(s, comm, 0, rbuf, rcount, rdt, sbuf, 0, scounts,
                                             displs, sdt, root), req);
}


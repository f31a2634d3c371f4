/* reduce_scatter.c -- MPI_Reduce_scatter(_block) and their I forms.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   reduce_scatterv  reduce the whole vector to rank 0 (binomial, order-preserving), then
 *                    scatter the pieces.  Any op; small vectors.
 *   pairwise         n-1 steps: in step k rank r sends the piece of rank r+k of its input
 *                    and receives its own piece from r-k, reducing as it goes.  Each rank
 *                    sends its vector once.  Commutative ops only.
 * The block form is the v form with equal counts.  With MPI_IN_PLACE the input is the receive
 * buffer; the result lands at its start.
 */
#include "coll/coll_impl.h"

static int build_reduce_scatter(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                                const MPI_Aint *rcounts, mp_datatype *dt, MPI_Op op, int coll)
{
    int n = comm->size, me = comm->rank, commutative = mp_op_commutative(op);
    MPI_Aint *displs = mp_sched_alloc(s, (size_t)(n + 1) * sizeof(MPI_Aint));
    displs[0] = 0;
    for (int i = 0; i < n; i++)
        displs[i + 1] = displs[i] + rcounts[i];
    MPI_Aint total = displs[n];
    if (total == 0 || dt->size == 0)
        return MPI_SUCCESS;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    mp_coll_args a = { mp_datatype_bytes(dt, total) / (size_t)n, total, commutative };
    int alg = mp_coll_select(coll, comm, &a);
    if (!commutative)
        alg = MP_REDUCE_SCATTER_REDUCE_SCATTERV;
    mp_coll_ran(comm, coll, alg);
    if (alg == MP_REDUCE_SCATTER_PAIRWISE) {
        /* own piece accumulates in a scratch buffer (the input may be rbuf itself) */
        void *acc = mp_sched_tmp(s, rcounts[me], dt);
        void *tmp = mp_sched_tmp(s, rcounts[me], dt);
        mp_sched_copy(s, mp_elem(in, displs[me], dt), rcounts[me], dt, acc, rcounts[me], dt);
        for (int k = 1; k < n; k++) {
            int to = (me + k) % n, from = (me - k + n) % n;
            mp_sched_recv(s, tmp, rcounts[me], dt, from);
            mp_sched_send(s, mp_elem(in, displs[to], dt), rcounts[to], dt, to);
            mp_sched_fence(s);
            mp_sched_reduce(s, tmp, acc, rcounts[me], dt, op);
        }
        mp_sched_copy(s, acc, rcounts[me], dt, rbuf, rcounts[me], dt);
        return MPI_SUCCESS;
    }
    /* reduce to 0 in a full-size scratch vector, then scatter its pieces */
    void *acc = mp_sched_tmp(s, total, dt);
    mp_sched_copy(s, in, total, dt, acc, total, dt);
    mp_team t = mp_team_all(comm);
    void *res = mp_build_reduce_tree(s, &t, acc, total, dt, op, 0, commutative);
    if (me == 0) {
        for (int i = 1; i < n; i++)
            mp_sched_send(s, mp_elem(res, displs[i], dt), rcounts[i], dt, i);
        mp_sched_copy(s, res, rcounts[0], dt, rbuf, rcounts[0], dt);
    } else {
        mp_sched_recv(s, rbuf, rcounts[me], dt, 0);
    }
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

/* Ends both entry points: the schedule of an intercommunicator or of an intracommunicator
 * (family: MP_COLL_REDUCE_SCATTER or _BLOCK, for the algorithm's selection). */
static int finish(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                  const MPI_Aint *counts, mp_datatype *dt, MPI_Op op, int family,
                  mp_request **req)
{
    if (comm->is_inter)
        return mp_coll_finish(s, mp_build_inter_reduce_scatter(s, comm, sbuf, rbuf, counts,
                                                                dt, op), req);
    return mp_coll_finish(s, build_reduce_scatter(s, comm, sbuf, rbuf, counts, dt, op, family),
                          req);
}

int mp_ireduce_scatter(const void *sbuf, void *rbuf, const MPI_Aint *rcounts, mp_datatype *dt,
                       MPI_Op op, mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, op);
    return finish(s, comm, sbuf, rbuf, rcounts, dt, op, MP_COLL_REDUCE_SCATTER, req);
}

int mp_ireduce_scatter_block(const void *sbuf, void *rbuf, MPI_Aint rcount, mp_datatype *dt,
                             MPI_Op op, mp_comm *comm, mp_request **req)
{
    int n = comm->is_inter ? comm->remote_size : comm->size;
    if (comm->is_inter && comm->size > n)
        n = comm->size;
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, op);
    MPI_Aint *counts = mp_sched_alloc(s, (size_t)n * sizeof(MPI_Aint));
    for (int i = 0; i < n; i++)
        counts[i] = rcount;
    return finish(s, comm, sbuf, rbuf, counts, dt, op, MP_COLL_REDUCE_SCATTER_BLOCK, req);
}

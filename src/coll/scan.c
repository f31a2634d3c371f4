/* scan.c -- MPI_Scan / MPI_Exscan and their I forms.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   recursive_doubling  log2 n rounds: in round k rank r exchanges its running "partial"
 *                       (the reduction of a range of ranks ending at r's group) with r^2^k;
 *                       contributions from lower ranks are folded into the result, and the
 *                       partial grows with lower ranks on the left and higher ranks on the
 *                       right, so non-commutative operations stay in rank order.
 *   linear              a chain: rank r waits for the prefix of 0..r-1, combines, passes on.
 * Exscan leaves rank 0's receive buffer untouched (undefined by the standard); rank 1 gets
 * rank 0's input unchanged.
 */
#include "coll/coll_impl.h"

static void build_scan_rd(mp_sched *s, mp_comm *comm, const void *in, void *rbuf,
                          MPI_Aint count, mp_datatype *dt, MPI_Op op, int exclusive)
{
    int n = comm->size, me = comm->rank, commutative = mp_op_commutative(op);
    void *partial = mp_sched_tmp(s, count, dt), *tmp = mp_sched_tmp(s, count, dt);
    mp_sched_copy(s, in, count, dt, partial, count, dt);
    if (!exclusive && in != rbuf)
        mp_sched_copy(s, in, count, dt, rbuf, count, dt);
    int have = !exclusive;            /* does rbuf hold something yet? */
    for (int mask = 1; mask < n; mask <<= 1) {
        int dst = me ^ mask;
        if (dst >= n)
            continue;
        mp_sched_recv(s, tmp, count, dt, dst);
        mp_sched_send(s, partial, count, dt, dst);
        mp_sched_fence(s);
        if (dst < me) {               /* tmp covers lower ranks */
            if (have) {
                mp_sched_reduce(s, tmp, rbuf, count, dt, op);
            } else {
                mp_sched_copy(s, tmp, count, dt, rbuf, count, dt);
                have = 1;
            }
            mp_sched_reduce(s, tmp, partial, count, dt, op);
        } else if (commutative) {
            mp_sched_reduce(s, tmp, partial, count, dt, op);
        } else {                      /* partial = partial op tmp */
            mp_sched_reduce(s, partial, tmp, count, dt, op);
            void *x = partial; partial = tmp; tmp = x;
        }
    }
}

static void build_scan_linear(mp_sched *s, mp_comm *comm, const void *in, void *rbuf,
                              MPI_Aint count, mp_datatype *dt, MPI_Op op, int exclusive)
{
    int n = comm->size, me = comm->rank;
    /* acc: the prefix up to me, passed on; got: the prefix of 0..me-1 from me - 1 (the
     * exclusive scan's result, so received into rbuf) */
    void *acc = exclusive ? mp_sched_tmp(s, count, dt) : rbuf;
    void *got = exclusive ? rbuf : me > 0 ? mp_sched_tmp(s, count, dt) : NULL;
    if (in != acc)
        mp_sched_copy(s, in, count, dt, acc, count, dt);
    if (me > 0) {
        mp_sched_recv(s, got, count, dt, me - 1);
        mp_sched_fence(s);
        mp_sched_reduce(s, got, acc, count, dt, op);
    }
    if (me < n - 1)
        mp_sched_send(s, acc, count, dt, me + 1);
    mp_sched_fence(s);
}

static int build_scan(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf, MPI_Aint count,
                      mp_datatype *dt, MPI_Op op, int exclusive)
{
    if (count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    mp_coll_args a = { mp_datatype_bytes(dt, count), count, mp_op_commutative(op) };
    int coll = exclusive ? MP_COLL_EXSCAN : MP_COLL_SCAN, alg = mp_coll_select(coll, comm, &a);
    mp_coll_ran(comm, coll, alg);
    if (alg == MP_SCAN_LINEAR)
        build_scan_linear(s, comm, in, rbuf, count, dt, op, exclusive);
    else
        build_scan_rd(s, comm, in, rbuf, count, dt, op, exclusive);
    return MPI_SUCCESS;
}

int mp_iscan(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
             mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, op);
    return mp_coll_finish(s, build_scan(s, comm, sbuf, rbuf, count, dt, op, 0), req);
}

int mp_iexscan(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
               mp_comm *comm, mp_request **req)
{
    mp_sched *s = mp_sched_for(comm, req, dt, NULL, op);
    return mp_coll_finish(s, build_scan(s, comm, sbuf, rbuf, count, dt, op, 1), req);
}


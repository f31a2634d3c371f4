/* inter.c -- collectives on intercommunicators.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * On an intercommunicator every message goes to the *other* group, and ranks name members
 * of the remote group.  These forms are written with cross-group messages only, so they need
 * no hidden intracommunicator (and no extra context id):
 *
 *   rooted (bcast, gather(v), scatter(v), reduce)  the root (root == MPI_ROOT) talks to every
 *       member of the remote group directly; other members of the root's group
 *       (MPI_PROC_NULL) do nothing.  Reduce combines in remote rank order at the root.
 *   all-to-all shaped (allgather(v), alltoall(v,w), allreduce, barrier)  every member
 *       exchanges with every remote member: n*m messages, each member combines what it
 *       receives in remote rank order.  Barrier: a rank leaves once every remote member
 *       has entered, which is exactly the standard's guarantee.
 * This favours simplicity over message count; intercommunicator collectives are rare.
 * Reduce_scatter: the counts describe how the *remote* group's reduced vector is cut among
 * the local group, and the remote group does not know them; so every member sends its whole
 * vector (the total count is the same in both groups) to every remote member, and each
 * member folds, in remote rank order, only its own block of what it received.
 */
#include "coll/coll_impl.h"

int mp_build_inter_barrier(mp_sched *s, mp_comm *comm)
{
    for (int i = 0; i < comm->remote_size; i++)
        mp_sched_pong(s, i);
    for (int i = 0; i < comm->remote_size; i++)
        mp_sched_ping(s, i);
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

int mp_build_inter_bcast(mp_sched *s, mp_comm *comm, void *buf, MPI_Aint count, mp_datatype *dt,
                         int root)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT) {
        for (int i = 0; i < comm->remote_size; i++)
            mp_sched_send(s, buf, count, dt, i);
    } else {
        mp_sched_recv(s, buf, count, dt, root);
    }
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

/* Receives every remote member's contribution and combines them in rank order into out. */
static void gather_reduce(mp_sched *s, mp_comm *comm, void *out, MPI_Aint count,
                          mp_datatype *dt, MPI_Op op)
{
    int m = comm->remote_size;
    void **in = mp_sched_alloc(s, (size_t)m * sizeof(void *));
    for (int i = 0; i < m; i++) {
        in[i] = i == m - 1 ? out : mp_sched_tmp(s, count, dt);
        mp_sched_recv(s, in[i], count, dt, i);
    }
    mp_sched_fence(s);
    for (int i = m - 2; i >= 0; i--)
        mp_sched_reduce(s, in[i], out, count, dt, op);
}

int mp_build_inter_reduce(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                          MPI_Aint count, mp_datatype *dt, MPI_Op op, int root)
{
    if (root == MPI_PROC_NULL || count == 0)
        return MPI_SUCCESS;
    if (root == MPI_ROOT) {
        gather_reduce(s, comm, rbuf, count, dt, op);
    } else {
        mp_sched_send(s, sbuf, count, dt, root);
        mp_sched_fence(s);
    }
    return MPI_SUCCESS;
}

int mp_build_inter_allreduce(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                             MPI_Aint count, mp_datatype *dt, MPI_Op op)
{
    if (count == 0)
        return MPI_SUCCESS;
    int m = comm->remote_size;
    void **in = mp_sched_alloc(s, (size_t)m * sizeof(void *));
    for (int i = 0; i < m; i++) {
        in[i] = i == m - 1 ? rbuf : mp_sched_tmp(s, count, dt);
        mp_sched_recv(s, in[i], count, dt, i);
    }
    for (int i = 0; i < m; i++)
        mp_sched_send(s, sbuf, count, dt, i);
    mp_sched_fence(s);
    for (int i = m - 2; i >= 0; i--)
        mp_sched_reduce(s, in[i], rbuf, count, dt, op);
    return MPI_SUCCESS;
}

/* Receives block i from and sends block i to every remote member i.  A side's block i is
 * counts[i] elements at element displs[i] of its buffer (the v-forms), else `count` elements
 * at element i * step (step 0: the same block for every member). */
static int exchange(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                    MPI_Aint sstep, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                    mp_datatype *sdt, void *rbuf, MPI_Aint rcount, MPI_Aint rstep,
                    const MPI_Aint *rcounts, const MPI_Aint *rdispls, mp_datatype *rdt)
{
    for (int i = 0; i < comm->remote_size; i++)
        mp_sched_recv(s, mp_elem(rbuf, rdispls ? rdispls[i] : i * rstep, rdt),
                      rcounts ? rcounts[i] : rcount, rdt, i);
    for (int i = 0; i < comm->remote_size; i++)
        mp_sched_send(s, mp_elem(sbuf, sdispls ? sdispls[i] : i * sstep, sdt),
                      scounts ? scounts[i] : scount, sdt, i);
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

int mp_build_inter_allgatherv(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                              mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                              const MPI_Aint *displs, mp_datatype *rdt)
{
    return exchange(s, comm, sbuf, scount, 0, NULL, NULL, sdt, rbuf, 0, 0, rcounts, displs, rdt);
}

int mp_build_inter_allgather(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                             mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt)
{
    return exchange(s, comm, sbuf, scount, 0, NULL, NULL, sdt, rbuf, rcount, rcount, NULL, NULL,
                    rdt);
}

int mp_build_inter_alltoallw(mp_sched *s, mp_comm *comm, const void *sbuf,
                             const MPI_Aint *scounts, const MPI_Aint *sdispls,
                             mp_datatype *const *sdts, void *rbuf, const MPI_Aint *rcounts,
                             const MPI_Aint *rdispls, mp_datatype *const *rdts)
{
    for (int i = 0; i < comm->remote_size; i++)
        mp_sched_recv(s, (char *)rbuf + rdispls[i], rcounts[i], rdts[i], i);
    for (int i = 0; i < comm->remote_size; i++)
        mp_sched_send(s, (const char *)sbuf + sdispls[i], scounts[i], sdts[i], i);
    mp_sched_fence(s);
    return MPI_SUCCESS;
}

int mp_build_inter_alltoallv(mp_sched *s, mp_comm *comm, const void *sbuf,
                             const MPI_Aint *scounts, const MPI_Aint *sdispls, mp_datatype *sdt,
                             void *rbuf, const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                             mp_datatype *rdt)
{
    return exchange(s, comm, sbuf, 0, 0, scounts, sdispls, sdt, rbuf, 0, 0, rcounts, rdispls,
                    rdt);
}

int mp_build_inter_alltoall(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                            mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt)
{
    return exchange(s, comm, sbuf, scount, scount, NULL, NULL, sdt, rbuf, rcount, rcount, NULL,
                    NULL, rdt);
}

int mp_build_inter_reduce_scatter(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                                  const MPI_Aint *rcounts, mp_datatype *dt, MPI_Op op)
{
    int n = comm->size, m = comm->remote_size, me = comm->rank;
    MPI_Aint total = 0, off = 0;
    for (int i = 0; i < n; i++) {
        total += rcounts[i];
        if (i < me)
            off += rcounts[i];
    }
    if (total == 0)
        return MPI_SUCCESS;
    void **in = mp_sched_alloc(s, (size_t)m * sizeof(void *));
    for (int i = 0; i < m; i++) {
        in[i] = mp_sched_tmp(s, total, dt);
        mp_sched_recv(s, in[i], total, dt, i);
    }
    for (int i = 0; i < m; i++)
        mp_sched_send(s, sbuf, total, dt, i);
    mp_sched_fence(s);
    MPI_Aint mine = rcounts[me];
    mp_sched_copy(s, mp_elem(in[m - 1], off, dt), mine, dt, rbuf, mine, dt);
    for (int i = m - 2; i >= 0; i--)
        mp_sched_reduce(s, mp_elem(in[i], off, dt), rbuf, mine, dt, op);
    return MPI_SUCCESS;
}

/* neighbor.c -- neighbourhood collectives: MPI_(I)Neighbor_allgather(v), _alltoall(v,w).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A process exchanges data only with the neighbours its topology names: it receives one block
 * from each in-neighbour and sends one block to each out-neighbour, in the order of
 * mp_topo_neighbors (Cartesian: for each dimension the -1 then the +1 neighbour; graph: the
 * adjacency list; distributed graph: the sources and destinations as given).  Every variant
 * is one schedule phase: all receives posted, then all sends, then one fence.  MPI_PROC_NULL
 * neighbours (open edges of a non-periodic Cartesian dimension) are skipped but keep their
 * block in the buffers.  The v and regular forms are expanded to the w form (byte
 * displacements, a type per neighbour) before building.
 *
 * Matching.  Several messages may go between the same pair in one call: a periodic Cartesian
 * dimension of size 1 or 2 makes the -1 and +1 neighbour the same process, and graphs may
 * repeat an edge.  For graphs the standard pairs the i-th send to a process with the i-th
 * receive from it, which is exactly what one tag and the point-to-point order give.  For
 * Cartesian topologies that would be wrong: the block I send to my -1 neighbour is the one it
 * receives from its +1 neighbour.  So a Cartesian call reserves 2*ndims tags and the block
 * for out-neighbour k travels with tag offset k, while the receive from in-neighbour j
 * expects offset j^1 (the direction opposite to j in the same dimension).
 */
#include "coll/coll_impl.h"
#include "comm/comm.h"
#include <stdlib.h>

/* The w form of one call: per neighbour counts, byte displacements and types. */
typedef struct nbr_xfer {
    const char *sbase; const MPI_Aint *sc, *sd; mp_datatype *const *st;
    char *rbase; const MPI_Aint *rc, *rd; mp_datatype *const *rt;
} nbr_xfer;

typedef struct nbr_list {
    int indeg, outdeg, *in, *out;
    int cart;
} nbr_list;

static int get_neighbors(mp_comm *comm, nbr_list *nl)
{
    if (comm->is_inter || !comm->topo)
        return mp_error_code(MPI_ERR_TOPOLOGY, "communicator has no topology");
    int err = mp_topo_neighbors(comm, &nl->indeg, &nl->in, &nl->outdeg, &nl->out);
    if (err != MPI_SUCCESS)
        return mp_error_code(err, "communicator has no topology");
    nl->cart = comm->topo->kind == MPI_CART;
    return MPI_SUCCESS;
}

static void build_exchange(mp_sched *s, const nbr_list *nl, const nbr_xfer *x)
{
    if (nl->cart)
        mp_sched_reserve_tags(s, nl->outdeg);
    for (int j = 0; j < nl->indeg; j++)
        if (nl->in[j] != MPI_PROC_NULL)
            mp_sched_recv_tagged(s, x->rbase + x->rd[j], x->rc[j], x->rt[j], nl->in[j],
                                 nl->cart ? j ^ 1 : 0);
    for (int k = 0; k < nl->outdeg; k++)
        if (nl->out[k] != MPI_PROC_NULL)
            mp_sched_send_tagged(s, x->sbase + x->sd[k], x->sc[k], x->st[k], nl->out[k],
                                 nl->cart ? k : 0);
    mp_sched_fence(s);
}

static void hold_types(mp_sched *s, mp_datatype *const *t, int n)
{
    for (int i = 0; i < n; i++)
        mp_sched_hold_dt(s, t[i]);
}

/* Per-neighbour arrays in schedule memory: counts, byte displacements, types.  `counts` NULL
 * means `count` each; `displs` (in elements of dt) NULL means consecutive blocks, `stride`
 * elements apart (0: every block at the buffer's start, as allgather sends). */
static void expand(mp_sched *s, int n, const MPI_Aint *counts, const MPI_Aint *displs,
                   MPI_Aint count, MPI_Aint stride, mp_datatype *dt, const MPI_Aint **c,
                   const MPI_Aint **d, mp_datatype *const **t)
{
    MPI_Aint *cc = mp_sched_alloc(s, 2 * (size_t)(n + 1) * sizeof(MPI_Aint)), *dd = cc + n + 1;
    mp_datatype **tt = mp_sched_alloc(s, (size_t)(n + 1) * sizeof *tt);
    for (int i = 0; i < n; i++) {
        cc[i] = counts ? counts[i] : count;
        dd[i] = (displs ? displs[i] : i * stride) * dt->extent;
        tt[i] = dt;
    }
    *c = cc; *d = dd; *t = tt;
}

/* Common tail: build, keep objects alive for the nonblocking form, run or start. */
static int finish(mp_sched *s, nbr_list *nl, nbr_xfer *x, mp_request **req)
{
    if (req) {
        hold_types(s, x->st, nl->outdeg);
        hold_types(s, x->rt, nl->indeg);
    }
    build_exchange(s, nl, x);
    free(nl->in);
    free(nl->out);
    return mp_coll_finish(s, MPI_SUCCESS, req);
}

int mp_ineighbor_alltoallw(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                           mp_datatype *const *sdts, void *rbuf, const MPI_Aint *rcounts,
                           const MPI_Aint *rdispls, mp_datatype *const *rdts, mp_comm *comm,
                           mp_request **req)
{
    nbr_list nl;
    int err = get_neighbors(comm, &nl);
    if (err != MPI_SUCCESS)
        return err;
    mp_sched *s = mp_sched_new(comm);
    /* the caller's arrays may go away before a nonblocking call ends: copy them */
    MPI_Aint *v = mp_sched_alloc(s, 2 * (size_t)(nl.outdeg + nl.indeg + 1) * sizeof *v);
    mp_datatype **t = mp_sched_alloc(s, (size_t)(nl.outdeg + nl.indeg + 1) * sizeof *t);
    MPI_Aint *sc = v, *sd = v + nl.outdeg, *rc = sd + nl.outdeg, *rd = rc + nl.indeg;
    for (int k = 0; k < nl.outdeg; k++) {
        sc[k] = scounts[k]; sd[k] = sdispls[k]; t[k] = sdts[k];
    }
    for (int j = 0; j < nl.indeg; j++) {
        rc[j] = rcounts[j]; rd[j] = rdispls[j]; t[nl.outdeg + j] = rdts[j];
    }
    nbr_xfer x = { sbuf, sc, sd, t, rbuf, rc, rd, t + nl.outdeg };
    return finish(s, &nl, &x, req);
}

/* The regular and v forms: both sides expanded to the w form (see expand), then run. */
static int expanded(const void *sbuf, const MPI_Aint *sc, const MPI_Aint *sd, MPI_Aint scount,
                    MPI_Aint sstride, mp_datatype *sdt, void *rbuf, const MPI_Aint *rc,
                    const MPI_Aint *rd, MPI_Aint rcount, MPI_Aint rstride, mp_datatype *rdt,
                    mp_comm *comm, mp_request **req)
{
    nbr_list nl;
    int err = get_neighbors(comm, &nl);
    if (err != MPI_SUCCESS)
        return err;
    mp_sched *s = mp_sched_new(comm);
    nbr_xfer x = { sbuf, 0, 0, 0, rbuf, 0, 0, 0 };
    expand(s, nl.outdeg, sc, sd, scount, sstride, sdt, &x.sc, &x.sd, &x.st);
    expand(s, nl.indeg, rc, rd, rcount, rstride, rdt, &x.rc, &x.rd, &x.rt);
    return finish(s, &nl, &x, req);
}

int mp_ineighbor_alltoallv(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                           mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                           const MPI_Aint *rdispls, mp_datatype *rdt, mp_comm *comm,
                           mp_request **req)
{
    return expanded(sbuf, scounts, sdispls, 0, 0, sdt, rbuf, rcounts, rdispls, 0, 0, rdt, comm,
                    req);
}

int mp_ineighbor_alltoall(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                          MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req)
{
    return expanded(sbuf, NULL, NULL, scount, scount, sdt, rbuf, NULL, NULL, rcount, rcount, rdt,
                    comm, req);
}

int mp_ineighbor_allgatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                            const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt,
                            mp_comm *comm, mp_request **req)
{
    return expanded(sbuf, NULL, NULL, scount, 0, sdt, rbuf, rcounts, displs, 0, 0, rdt, comm,
                    req);
}

int mp_ineighbor_allgather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                           MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req)
{
    return expanded(sbuf, NULL, NULL, scount, 0, sdt, rbuf, NULL, NULL, rcount, rcount, rdt,
                    comm, req);
}

/* alltoall.c -- MPI_Alltoall(v,w) / MPI_Ialltoall(v,w).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithms:
 *   pairwise  n-1 steps; in step k rank r sends to r+k and receives from r-k, so every rank
 *             has exactly one message in and one out at a time.  Any n.  Large blocks.
 *   bruck     ceil(log2 n) steps for small blocks: blocks are rotated so block i goes to rank
 *             me+i, in step k every block whose index has bit k set moves 2^k ranks on (packed
 *             into one message), and a final rotation puts them in place.  Works on packed
 *             bytes because the send and receive types differ.
 *   linear    every receive and send posted at once (small n, or v/w variants).
 *   shm       blocking calls on one node (coll/shm.c): one publication of where every block
 *             is, then each rank pulls its blocks by single copy in a permuted order.
 * MPI_IN_PLACE: the receive buffer is first copied (packed) to scratch and used as the
 * send buffer, so every algorithm works unchanged.  The v and w variants are one code path:
 * alltoallv turns its element displacements into byte displacements and per-peer types.
 */
#include "coll/coll_impl.h"
#include <stdlib.h>
#include <string.h>

/* One description of "block for/from peer i": address and (count, type) (coll_impl.h). */
typedef mp_a2a_args a2a;

static void pair_step(mp_sched *s, const a2a *x, int to, int from)
{
    mp_sched_recv(s, x->rbase + x->rd[from], x->rc[from], x->rt[from], from);
    mp_sched_send(s, x->sbase + x->sd[to], x->sc[to], x->st[to], to);
}

static void build_pairwise(mp_sched *s, mp_comm *comm, const a2a *x)
{
    int n = comm->size, me = comm->rank;
    mp_sched_copy(s, x->sbase + x->sd[me], x->sc[me], x->st[me], x->rbase + x->rd[me],
                  x->rc[me], x->rt[me]);
    for (int k = 1; k < n; k++) {
        pair_step(s, x, (me + k) % n, (me - k + n) % n);
        mp_sched_fence(s);
    }
}

static void build_linear(mp_sched *s, mp_comm *comm, const a2a *x)
{
    int n = comm->size, me = comm->rank;
    mp_sched_copy(s, x->sbase + x->sd[me], x->sc[me], x->st[me], x->rbase + x->rd[me],
                  x->rc[me], x->rt[me]);
    for (int k = 1; k < n; k++)
        mp_sched_recv(s, x->rbase + x->rd[(me - k + n) % n], x->rc[(me - k + n) % n],
                      x->rt[(me - k + n) % n], (me - k + n) % n);
    for (int k = 1; k < n; k++)
        mp_sched_send(s, x->sbase + x->sd[(me + k) % n], x->sc[(me + k) % n],
                      x->st[(me + k) % n], (me + k) % n);
    mp_sched_fence(s);
}

/* Regular alltoall, Bruck, on packed blocks of `bb` bytes. */
static void build_bruck(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                        mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt)
{
    int n = comm->size, me = comm->rank;
    mp_datatype *byte = mp_datatype_get(MPI_BYTE);
    MPI_Aint bb = (MPI_Aint)mp_datatype_bytes(sdt, scount);
    char *tmp = mp_sched_alloc(s, (size_t)(n * bb));
    char *sendpk = mp_sched_alloc(s, (size_t)(n * bb)), *recvpk = mp_sched_alloc(s, (size_t)(n * bb));
    for (int i = 0; i < n; i++)        /* tmp[i] = block for rank me+i */
        mp_sched_copy(s, mp_elem(sbuf, ((me + i) % n) * scount, sdt), scount, sdt,
                      tmp + i * bb, bb, byte);
    for (int d = 1; d < n; d <<= 1) {
        int k = 0;
        for (int i = 1; i < n; i++)
            if (i & d)
                mp_sched_copy(s, tmp + i * bb, bb, byte, sendpk + (k++) * bb, bb, byte);
        mp_sched_recv(s, recvpk, k * bb, byte, (me - d + n) % n);
        mp_sched_send(s, sendpk, k * bb, byte, (me + d) % n);
        mp_sched_fence(s);
        k = 0;
        for (int i = 1; i < n; i++)
            if (i & d)
                mp_sched_copy(s, recvpk + (k++) * bb, bb, byte, tmp + i * bb, bb, byte);
    }
    for (int i = 0; i < n; i++)        /* tmp[i] came from rank me-i */
        mp_sched_copy(s, tmp + i * bb, bb, byte, mp_elem(rbuf, ((me - i + n) % n) * rcount, rdt),
                      rcount, rdt);
}

/* MPI_IN_PLACE: pack each block of the receive buffer into scratch; send from there. */
static void in_place_source(mp_sched *s, mp_comm *comm, a2a *x)
{
    int n = comm->size;
    mp_datatype *byte = mp_datatype_get(MPI_BYTE);
    MPI_Aint *sc = mp_sched_alloc(s, 2 * (size_t)n * sizeof(MPI_Aint)), *sd = sc + n;
    mp_datatype **st = mp_sched_alloc(s, (size_t)n * sizeof(mp_datatype *));
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += mp_datatype_bytes(x->rt[i], x->rc[i]);
    char *pk = mp_sched_alloc(s, total);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        sc[i] = (MPI_Aint)mp_datatype_bytes(x->rt[i], x->rc[i]);
        sd[i] = (MPI_Aint)off;
        st[i] = byte;
        mp_sched_copy(s, x->rbase + x->rd[i], x->rc[i], x->rt[i], pk + off, sc[i], byte);
        off += (size_t)sc[i];
    }
    x->sbase = pk; x->sc = sc; x->sd = sd; x->st = st;
}

static int build_alltoallw(mp_sched *s, mp_comm *comm, int coll, a2a *x, size_t avg_bytes)
{
    if (x->sbase == MPI_IN_PLACE)
        in_place_source(s, comm, x);
    mp_coll_args a = { avg_bytes, 0, 1 };
    int alg = mp_coll_select(coll, comm, &a);
    if (alg == MP_ALLTOALLV_SHM)      /* forced, but not possible for this call */
        alg = MP_ALLTOALLV_LINEAR;
    mp_coll_ran(comm, coll, alg);
    if (alg == MP_ALLTOALLV_LINEAR)
        build_linear(s, comm, x);
    else
        build_pairwise(s, comm, x);
    return MPI_SUCCESS;
}

/* Expands regular or v arguments to the w form (byte displacements, a type per peer) in v
 * (4n entries) and t (2n). */
static a2a expand_into(MPI_Aint *v, mp_datatype **t, int n, const void *sbuf,
                       const MPI_Aint *scounts, const MPI_Aint *sdispls, MPI_Aint scount,
                       mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                       const MPI_Aint *rdispls, MPI_Aint rcount, mp_datatype *rdt)
{
    for (int i = 0; i < n; i++) {
        if (sbuf != MPI_IN_PLACE) {
            v[i] = scounts ? scounts[i] : scount;
            v[n + i] = (scounts ? sdispls[i] : i * scount) * sdt->extent;
        }
        v[2 * n + i] = rcounts ? rcounts[i] : rcount;
        v[3 * n + i] = (rcounts ? rdispls[i] : i * rcount) * rdt->extent;
        t[i] = sdt;
        t[n + i] = rdt;
    }
    a2a x = { sbuf, v, v + n, t, rbuf, v + 2 * n, v + 3 * n, t + n };
    return x;
}

static a2a expand(mp_sched *s, int n, const void *sbuf, const MPI_Aint *scounts,
                  const MPI_Aint *sdispls, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                  const MPI_Aint *rcounts, const MPI_Aint *rdispls, MPI_Aint rcount,
                  mp_datatype *rdt)
{
    MPI_Aint *v = mp_sched_alloc(s, 4 * (size_t)n * sizeof(MPI_Aint));
    mp_datatype **t = mp_sched_alloc(s, 2 * (size_t)n * sizeof(mp_datatype *));
    return expand_into(v, t, n, sbuf, scounts, sdispls, scount, sdt, rbuf, rcounts, rdispls,
                       rcount, rdt);
}

/* A blocking call on an intracommunicator for which the rule picks the shm algorithm
 * (coll/shm.c: one node, single copy); reports it as the one that runs. */
static int shm_picked(int coll, mp_comm *comm, size_t bytes, mp_request **req)
{
    if (req || comm->is_inter || comm->size < 2)
        return 0;
    mp_coll_args a = { bytes, 0, 1, 1, 0 };
    int shm = coll == MP_COLL_ALLTOALL ? MP_ALLTOALL_SHM : MP_ALLTOALLV_SHM;
    if (mp_coll_select(coll, comm, &a) != shm || !mp_coll_shm_alltoall_fits(comm))
        return 0;
    mp_coll_ran(comm, coll, shm);
    return 1;
}

/* Regular or v arguments through the shm algorithm. */
static int run_shm(mp_comm *comm, const void *sbuf, const MPI_Aint *scounts,
                   const MPI_Aint *sdispls, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                   const MPI_Aint *rcounts, const MPI_Aint *rdispls, MPI_Aint rcount,
                   mp_datatype *rdt)
{
    int n = comm->size;
    MPI_Aint *v = mp_malloc(4 * (size_t)n * sizeof(MPI_Aint));
    mp_datatype **t = mp_malloc(2 * (size_t)n * sizeof(mp_datatype *));
    a2a x = expand_into(v, t, n, sbuf, scounts, sdispls, scount, sdt, rbuf, rcounts, rdispls,
                        rcount, rdt);
    int err = mp_coll_shm_alltoall(&x, comm);
    free(v);
    free(t);
    return err;
}

static int build_alltoall(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                          mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt)
{
    if (comm->is_inter)
        return mp_build_inter_alltoall(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt);
    int n = comm->size;
    size_t bytes = mp_datatype_bytes(rdt, rcount);
    if (bytes == 0)
        return MPI_SUCCESS;
    mp_coll_args a = { bytes, 0, 1 };
    int alg = mp_coll_select(MP_COLL_ALLTOALL, comm, &a);
    if ((alg == MP_ALLTOALL_BRUCK && sbuf == MPI_IN_PLACE) || alg == MP_ALLTOALL_SHM)
        alg = MP_ALLTOALL_PAIRWISE;   /* shm: forced, but not possible for this call */
    mp_coll_ran(comm, MP_COLL_ALLTOALL, alg);
    if (alg == MP_ALLTOALL_BRUCK) {
        build_bruck(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt);
        return MPI_SUCCESS;
    }
    a2a x = expand(s, n, sbuf, NULL, NULL, scount, sdt, rbuf, NULL, NULL, rcount, rdt);
    if (sbuf == MPI_IN_PLACE)
        in_place_source(s, comm, &x);
    if (alg == MP_ALLTOALL_LINEAR)
        build_linear(s, comm, &x);
    else
        build_pairwise(s, comm, &x);
    return MPI_SUCCESS;
}

int mp_ialltoall(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                 MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req)
{
    size_t bytes = mp_datatype_bytes(rdt, rcount);
    if (bytes && shm_picked(MP_COLL_ALLTOALL, comm, bytes, req))
        return run_shm(comm, sbuf, NULL, NULL, scount, sdt, rbuf, NULL, NULL, rcount, rdt);
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    return mp_coll_finish(s, build_alltoall(s, comm, sbuf, scount, sdt, rbuf, rcount, rdt), req);
}

int mp_ialltoallv(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                  mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                  const MPI_Aint *rdispls, mp_datatype *rdt, mp_comm *comm, mp_request **req)
{
    if (shm_picked(MP_COLL_ALLTOALLV, comm, 0, req))
        return run_shm(comm, sbuf, scounts, sdispls, 0, sdt, rbuf, rcounts, rdispls, 0, rdt);
    mp_sched *s = mp_sched_for(comm, req, sdt, rdt, MPI_OP_NULL);
    if (comm->is_inter)
        return mp_coll_finish(s, mp_build_inter_alltoallv(s, comm, sbuf, scounts, sdispls, sdt,
                                                          rbuf, rcounts, rdispls, rdt), req);
    int n = comm->size;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += mp_datatype_bytes(rdt, rcounts[i]);
    a2a x = expand(s, n, sbuf, scounts, sdispls, 0, sdt, rbuf, rcounts, rdispls, 0, rdt);
    return mp_coll_finish(s, build_alltoallw(s, comm, MP_COLL_ALLTOALLV, &x, total / (size_t)n),
                          req);
}

int mp_ialltoallw(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                  mp_datatype *const *sdts, void *rbuf, const MPI_Aint *rcounts,
                  const MPI_Aint *rdispls, mp_datatype *const *rdts, mp_comm *comm,
                  mp_request **req)
{
    if (shm_picked(MP_COLL_ALLTOALLW, comm, 0, req)) {
        a2a x = { sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts };
        return mp_coll_shm_alltoall(&x, comm);
    }
    mp_sched *s = mp_sched_new(comm);
    int n = comm->is_inter ? comm->remote_size : comm->size;
    /* copy the arrays: a nonblocking call may outlive them */
    MPI_Aint *v = mp_sched_alloc(s, 4 * (size_t)n * sizeof(MPI_Aint));
    mp_datatype **t = mp_sched_alloc(s, 2 * (size_t)n * sizeof(mp_datatype *));
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (sbuf != MPI_IN_PLACE) {
            v[i] = scounts[i]; v[n + i] = sdispls[i]; t[i] = sdts[i];
            if (req)
                mp_sched_hold_dt(s, sdts[i]);
        }
        v[2 * n + i] = rcounts[i]; v[3 * n + i] = rdispls[i]; t[n + i] = rdts[i];
        if (req)
            mp_sched_hold_dt(s, rdts[i]);
        total += mp_datatype_bytes(rdts[i], rcounts[i]);
    }
    a2a x = { sbuf, v, v + n, t, rbuf, v + 2 * n, v + 3 * n, t + n };
    if (comm->is_inter)
        return mp_coll_finish(s, mp_build_inter_alltoallw(s, comm, sbuf, v, v + n, t, rbuf,
                                                          v + 2 * n, v + 3 * n, t + n), req);
    return mp_coll_finish(s, build_alltoallw(s, comm, MP_COLL_ALLTOALLW, &x, total / (size_t)n),
                          req);
}


/* coll_neighbor.c -- MPI neighbourhood collective entry points (blocking, nonblocking,
 * large-count).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The thirty entry points (allgather, allgatherv, alltoall, alltoallv, alltoallw; each
 * blocking, I-form and persistent _init, each int and _c) funnel into one checker,
 * do_neighbor, which gets the neighbour counts from the topology, widens the count and
 * displacement arrays (int, MPI_Count or MPI_Aint) to MPI_Aint, checks every argument and
 * calls the coll layer.  Arrays the coll layer needs after a nonblocking call returns (or
 * that a persistent request reuses) are copied there.
 *
 * Checks: an intracommunicator with a topology (MPI_ERR_TOPOLOGY otherwise), no MPI_IN_PLACE
 * (the standard does not allow it for these calls), non-negative counts, committed types.
 */
#include "binding/binding.h"
#include <stdlib.h>

enum nkind { N_ALLGATHER, N_ALLGATHERV, N_ALLTOALL, N_ALLTOALLV, N_ALLTOALLW };
enum { BLOCKING = 0, NONBLOCKING = 1, PERSISTENT = 2 };   /* the `nb` argument */
enum akind { A_INT, A_COUNT, A_AINT };

/* A count or displacement array as the caller gave it. */
typedef struct raw { const void *p; int kind; } raw;

typedef struct nargs {
    const void *sbuf; MPI_Aint scount; raw sc, sd; MPI_Datatype st; const MPI_Datatype *sts;
    void *rbuf;       MPI_Aint rcount; raw rc, rd; MPI_Datatype rt; const MPI_Datatype *rts;
} nargs;

static MPI_Aint *widen(raw a, int n)
{
    MPI_Aint *w = mp_malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = a.kind == A_INT ? ((const int *)a.p)[i]
             : a.kind == A_COUNT ? (MPI_Aint)((const MPI_Count *)a.p)[i]
             : ((const MPI_Aint *)a.p)[i];
    return w;
}

static int check_array(const char *F, mp_comm *comm, raw a, int n, const char *name)
{
    if (n > 0 && !a.p)
        return mp_error(comm, MPI_ERR_ARG, F, "%s must not be NULL", name);
    return MPI_SUCCESS;
}

static int check_counts(const char *F, mp_comm *comm, const MPI_Aint *c, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (c[i] < 0)
            return mp_error(comm, MPI_ERR_COUNT, F, "invalid %s[%d] = %ld (must be >= 0)", name, i,
                            (long)c[i]);
    return MPI_SUCCESS;
}

static int degrees(const char *F, mp_comm *comm, int *indeg, int *outdeg)
{
    int *in = NULL, *out = NULL;
    if (comm->is_inter)
        return mp_error(comm, MPI_ERR_COMM, F, "not defined on an intercommunicator");
    if (!comm->topo || mp_topo_neighbors(comm, indeg, &in, outdeg, &out) != MPI_SUCCESS)
        return mp_error(comm, MPI_ERR_TOPOLOGY, F, "communicator has no topology (create it "
                        "with MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create)");
    free(in);
    free(out);
    return MPI_SUCCESS;
}

/* Resolves n handles (one per neighbour, or the single handle `one` when `many` is NULL). */
static int get_types(const char *F, mp_comm *comm, MPI_Datatype one, const MPI_Datatype *many,
                     int n, mp_datatype **out)
{
    for (int i = 0; i < n; i++) {
        int err = mp_arg_datatype(F, comm, many ? many[i] : one, 0, &out[i]);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

static int dispatch(int kind, const nargs *a, MPI_Aint *sc, MPI_Aint *sd, mp_datatype **sdt,
                    MPI_Aint *rc, MPI_Aint *rd, mp_datatype **rdt, mp_comm *comm,
                    mp_request **req)
{
    switch (kind) {
    case N_ALLGATHER:
        return mp_ineighbor_allgather(a->sbuf, a->scount, sdt[0], a->rbuf, a->rcount, rdt[0],
                                      comm, req);
    case N_ALLGATHERV:
        return mp_ineighbor_allgatherv(a->sbuf, a->scount, sdt[0], a->rbuf, rc, rd, rdt[0],
                                       comm, req);
    case N_ALLTOALL:
        return mp_ineighbor_alltoall(a->sbuf, a->scount, sdt[0], a->rbuf, a->rcount, rdt[0],
                                     comm, req);
    case N_ALLTOALLV:
        return mp_ineighbor_alltoallv(a->sbuf, sc, sd, sdt[0], a->rbuf, rc, rd, rdt[0], comm,
                                      req);
    default:
        return mp_ineighbor_alltoallw(a->sbuf, sc, sd, sdt, a->rbuf, rc, rd, rdt, comm, req);
    }
}

static int do_neighbor(const char *F, int kind, const nargs *a, MPI_Comm comm_h,
                       MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_request *r = NULL;
    if (nb)
        MP_OUT_NULL(request, MPI_REQUEST_NULL);
    int indeg, outdeg, err = mp_arg_comm(F, comm_h, &comm);
    if (err || (nb && (err = mp_arg_request_ptr(F, comm, request))) ||
        (err = degrees(F, comm, &indeg, &outdeg)))
        return err;
    if (a->sbuf == MPI_IN_PLACE)
        return mp_error(comm, MPI_ERR_BUFFER, F, "MPI_IN_PLACE is not allowed for "
                        "neighbourhood collectives");
    int per_peer_s = kind == N_ALLTOALLV || kind == N_ALLTOALLW;
    int per_peer_r = per_peer_s || kind == N_ALLGATHERV;
    if ((per_peer_s && ((err = check_array(F, comm, a->sc, outdeg, "sendcounts")) ||
                        (err = check_array(F, comm, a->sd, outdeg, "sdispls")))) ||
        (per_peer_r && ((err = check_array(F, comm, a->rc, indeg, "recvcounts")) ||
                        (err = check_array(F, comm, a->rd, indeg, "rdispls")))) ||
        (kind == N_ALLTOALLW && ((err = check_array(F, comm, (raw){ a->sts, 0 }, outdeg,
                                                    "sendtypes")) ||
                                 (err = check_array(F, comm, (raw){ a->rts, 0 }, indeg,
                                                    "recvtypes")))))
        return err;
    if (!per_peer_s && (err = mp_arg_count(F, comm, a->scount)))
        return err;
    if (!per_peer_r && (err = mp_arg_count(F, comm, a->rcount)))
        return err;
    MPI_Aint *sc = per_peer_s ? widen(a->sc, outdeg) : NULL;
    MPI_Aint *sd = per_peer_s ? widen(a->sd, outdeg) : NULL;
    MPI_Aint *rc = per_peer_r ? widen(a->rc, indeg) : NULL;
    MPI_Aint *rd = per_peer_r ? widen(a->rd, indeg) : NULL;
    int ns = kind == N_ALLTOALLW ? outdeg : 1, nr = kind == N_ALLTOALLW ? indeg : 1;
    mp_datatype **sdt = mp_calloc((size_t)ns + 1, sizeof *sdt);
    mp_datatype **rdt = mp_calloc((size_t)nr + 1, sizeof *rdt);
    if (!(sc && (err = check_counts(F, comm, sc, outdeg, "sendcounts"))) &&
        !(rc && (err = check_counts(F, comm, rc, indeg, "recvcounts"))) &&
        !(err = get_types(F, comm, a->st, kind == N_ALLTOALLW ? a->sts : NULL, ns, sdt)) &&
        !(err = get_types(F, comm, a->rt, kind == N_ALLTOALLW ? a->rts : NULL, nr, rdt))) {
        if (nb == PERSISTENT)             /* the call keeps its schedule in r */
            r = mp_coll_persistent_new(comm);
        err = dispatch(kind, a, sc, sd, sdt, rc, rd, rdt, comm, request ? &r : NULL);
        if (err && r && r->kind == MP_REQ_PCOLL)
            mp_coll_persistent_free(r);
        err = mp_ret(comm, F, err);
        if (!err && request)
            *request = mp_request_handle(r);
    }
    free(sc); free(sd); free(rc); free(rd); free(sdt); free(rdt);
    return err;
}

#define NO_ARR ((raw){ NULL, A_INT })
#define ARR(p, k) ((raw){ (p), (k) })

/* ---- allgather --------------------------------------------------------------------------- */
static int allgather(const char *F, const void *sb, MPI_Aint sc, MPI_Datatype st, void *rb,
                     MPI_Aint rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req, int nb)
{
    nargs a = { sb, sc, NO_ARR, NO_ARR, st, NULL, rb, rc, NO_ARR, NO_ARR, rt, NULL };
    return do_neighbor(F, N_ALLGATHER, &a, comm, req, nb);
}

int PMPI_Neighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                            MPI_Datatype rt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return allgather("MPI_Neighbor_allgather", sb, sc, st, rb, rc, rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                              MPI_Count rc, MPI_Datatype rt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return allgather("MPI_Neighbor_allgather_c", sb, (MPI_Aint)sc, st, rb, (MPI_Aint)rc, rt,
                     comm, NULL, 0);
}
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
int PMPI_Ineighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                             MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return allgather("MPI_Ineighbor_allgather", sb, sc, st, rb, rc, rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                               MPI_Count rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return allgather("MPI_Ineighbor_allgather_c", sb, (MPI_Aint)sc, st, rb, (MPI_Aint)rc, rt,
                     comm, req, 1);
}
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c

/* ---- allgatherv -------------------------------------------------------------------------- */
static int allgatherv(const char *F, const void *sb, MPI_Aint sc, MPI_Datatype st, void *rb,
                      raw rc, raw rd, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req, int nb)
{
    nargs a = { sb, sc, NO_ARR, NO_ARR, st, NULL, rb, 0, rc, rd, rt, NULL };
    return do_neighbor(F, N_ALLGATHERV, &a, comm, req, nb);
}

int PMPI_Neighbor_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[],
                             const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return allgatherv("MPI_Neighbor_allgatherv", sb, sc, st, rb, ARR(rc, A_INT), ARR(rd, A_INT),
                      rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                               const MPI_Count rc[], const MPI_Aint rd[], MPI_Datatype rt,
                               MPI_Comm comm)
{
    MP_BIG_LOCK();
    return allgatherv("MPI_Neighbor_allgatherv_c", sb, (MPI_Aint)sc, st, rb, ARR(rc, A_COUNT),
                      ARR(rd, A_AINT), rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
int PMPI_Ineighbor_allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[],
                              const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return allgatherv("MPI_Ineighbor_allgatherv", sb, sc, st, rb, ARR(rc, A_INT),
                      ARR(rd, A_INT), rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                                const MPI_Count rc[], const MPI_Aint rd[], MPI_Datatype rt,
                                MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return allgatherv("MPI_Ineighbor_allgatherv_c", sb, (MPI_Aint)sc, st, rb, ARR(rc, A_COUNT),
                      ARR(rd, A_AINT), rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c

/* ---- alltoall ---------------------------------------------------------------------------- */
static int alltoall(const char *F, const void *sb, MPI_Aint sc, MPI_Datatype st, void *rb,
                    MPI_Aint rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req, int nb)
{
    nargs a = { sb, sc, NO_ARR, NO_ARR, st, NULL, rb, rc, NO_ARR, NO_ARR, rt, NULL };
    return do_neighbor(F, N_ALLTOALL, &a, comm, req, nb);
}

int PMPI_Neighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                           MPI_Datatype rt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoall("MPI_Neighbor_alltoall", sb, sc, st, rb, rc, rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                             MPI_Count rc, MPI_Datatype rt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoall("MPI_Neighbor_alltoall_c", sb, (MPI_Aint)sc, st, rb, (MPI_Aint)rc, rt, comm,
                    NULL, 0);
}
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
int PMPI_Ineighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                            MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return alltoall("MPI_Ineighbor_alltoall", sb, sc, st, rb, rc, rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                              MPI_Count rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return alltoall("MPI_Ineighbor_alltoall_c", sb, (MPI_Aint)sc, st, rb, (MPI_Aint)rc, rt, comm,
                    req, 1);
}
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c

/* ---- alltoallv --------------------------------------------------------------------------- */
static int alltoallv(const char *F, const void *sb, raw sc, raw sd, MPI_Datatype st, void *rb,
                     raw rc, raw rd, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req, int nb)
{
    nargs a = { sb, 0, sc, sd, st, NULL, rb, 0, rc, rd, rt, NULL };
    return do_neighbor(F, N_ALLTOALLV, &a, comm, req, nb);
}

int PMPI_Neighbor_alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                            void *rb, const int rc[], const int rd[], MPI_Datatype rt,
                            MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallv("MPI_Neighbor_alltoallv", sb, ARR(sc, A_INT), ARR(sd, A_INT), st, rb,
                     ARR(rc, A_INT), ARR(rd, A_INT), rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv_c(const void *sb, const MPI_Count sc[], const MPI_Aint sd[],
                              MPI_Datatype st, void *rb, const MPI_Count rc[],
                              const MPI_Aint rd[], MPI_Datatype rt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallv("MPI_Neighbor_alltoallv_c", sb, ARR(sc, A_COUNT), ARR(sd, A_AINT), st, rb,
                     ARR(rc, A_COUNT), ARR(rd, A_AINT), rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
int PMPI_Ineighbor_alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                             void *rb, const int rc[], const int rd[], MPI_Datatype rt,
                             MPI_Comm comm, MPI_Request *req)
{
    MP_BIG_LOCK();
    return alltoallv("MPI_Ineighbor_alltoallv", sb, ARR(sc, A_INT), ARR(sd, A_INT), st, rb,
                     ARR(rc, A_INT), ARR(rd, A_INT), rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv_c(const void *sb, const MPI_Count sc[], const MPI_Aint sd[],
                               MPI_Datatype st, void *rb, const MPI_Count rc[],
                               const MPI_Aint rd[], MPI_Datatype rt, MPI_Comm comm,
                               MPI_Request *req)
{
    MP_BIG_LOCK();
    return alltoallv("MPI_Ineighbor_alltoallv_c", sb, ARR(sc, A_COUNT), ARR(sd, A_AINT), st, rb,
                     ARR(rc, A_COUNT), ARR(rd, A_AINT), rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c

/* ---- alltoallw (displacements in bytes, a type per neighbour) ---------------------------- */
static int alltoallw(const char *F, const void *sb, raw sc, const MPI_Aint *sd,
                     const MPI_Datatype *st, void *rb, raw rc, const MPI_Aint *rd,
                     const MPI_Datatype *rt, MPI_Comm comm, MPI_Request *req, int nb)
{
    nargs a = { sb, 0, sc, ARR(sd, A_AINT), MPI_DATATYPE_NULL, st,
                rb, 0, rc, ARR(rd, A_AINT), MPI_DATATYPE_NULL, rt };
    return do_neighbor(F, N_ALLTOALLW, &a, comm, req, nb);
}

int PMPI_Neighbor_alltoallw(const void *sb, const int sc[], const MPI_Aint sd[],
                            const MPI_Datatype st[], void *rb, const int rc[],
                            const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallw("MPI_Neighbor_alltoallw", sb, ARR(sc, A_INT), sd, st, rb, ARR(rc, A_INT),
                     rd, rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw_c(const void *sb, const MPI_Count sc[], const MPI_Aint sd[],
                              const MPI_Datatype st[], void *rb, const MPI_Count rc[],
                              const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallw("MPI_Neighbor_alltoallw_c", sb, ARR(sc, A_COUNT), sd, st, rb,
                     ARR(rc, A_COUNT), rd, rt, comm, NULL, 0);
}
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
int PMPI_Ineighbor_alltoallw(const void *sb, const int sc[], const MPI_Aint sd[],
                             const MPI_Datatype st[], void *rb, const int rc[],
                             const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                             MPI_Request *req)
{
    MP_BIG_LOCK();
    return alltoallw("MPI_Ineighbor_alltoallw", sb, ARR(sc, A_INT), sd, st, rb, ARR(rc, A_INT),
                     rd, rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw_c(const void *sb, const MPI_Count sc[], const MPI_Aint sd[],
                               const MPI_Datatype st[], void *rb, const MPI_Count rc[],
                               const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                               MPI_Request *req)
{
    MP_BIG_LOCK();
    return alltoallw("MPI_Ineighbor_alltoallw_c", sb, ARR(sc, A_COUNT), sd, st, rb,
                     ARR(rc, A_COUNT), rd, rt, comm, req, 1);
}
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c

/* ---- persistent forms (MPI-4) ------------------------------------------------------------ */
static int check_info(const char *F, MPI_Comm comm_h, MPI_Info info)
{
    if (info == MPI_INFO_NULL || mp_info_get(info))
        return MPI_SUCCESS;
    return mp_error(mp_comm_get(comm_h), MPI_ERR_INFO, F, "invalid info handle 0x%x",
                    (unsigned)info);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_allgather_init";
    int err = check_info(F, comm, info);
    return err ? err : allgather(F, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, request, PERSISTENT);
}
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_allgather_init_c";
    int err = check_info(F, comm, info);
    return err ? err : allgather(F, sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf,
                                 (MPI_Aint)recvcount, recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_allgatherv_init";
    int err = check_info(F, comm, info);
    return err ? err : allgatherv(F, sendbuf, sendcount, sendtype, recvbuf, ARR(recvcounts,
                                  A_INT), ARR(displs, A_INT), recvtype, comm, request,
                                  PERSISTENT);
}
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_allgatherv_init_c";
    int err = check_info(F, comm, info);
    return err ? err : allgatherv(F, sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf,
                                  ARR(recvcounts, A_COUNT), ARR(displs, A_AINT), recvtype, comm,
                                  request, PERSISTENT);
}
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_alltoall_init";
    int err = check_info(F, comm, info);
    return err ? err : alltoall(F, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm, request, PERSISTENT);
}
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_alltoall_init_c";
    int err = check_info(F, comm, info);
    return err ? err : alltoall(F, sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf,
                                (MPI_Aint)recvcount, recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_alltoallv_init";
    int err = check_info(F, comm, info);
    return err ? err : alltoallv(F, sendbuf, ARR(sendcounts, A_INT), ARR(sdispls, A_INT),
                                 sendtype, recvbuf, ARR(recvcounts, A_INT), ARR(rdispls, A_INT),
                                 recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_alltoallv_init_c";
    int err = check_info(F, comm, info);
    return err ? err : alltoallv(F, sendbuf, ARR(sendcounts, A_COUNT), ARR(sdispls, A_AINT),
                                 sendtype, recvbuf, ARR(recvcounts, A_COUNT), ARR(rdispls,
                                 A_AINT), recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_alltoallw_init";
    int err = check_info(F, comm, info);
    return err ? err : alltoallw(F, sendbuf, ARR(sendcounts, A_INT), sdispls, sendtypes, recvbuf,
                                 ARR(recvcounts, A_INT), rdispls, recvtypes, comm, request,
                                 PERSISTENT);
}
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Neighbor_alltoallw_init_c";
    int err = check_info(F, comm, info);
    return err ? err : alltoallw(F, sendbuf, ARR(sendcounts, A_COUNT), sdispls, sendtypes,
                                 recvbuf, ARR(recvcounts, A_COUNT), rdispls, recvtypes, comm,
                                 request, PERSISTENT);
}
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c

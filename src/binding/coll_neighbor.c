/* coll_neighbor.c -- what the neighbourhood collective entry points check beyond their
 * description.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * src/binding/coll.spec describes the five neighbourhood collectives (allgather, allgatherv,
 * alltoall, alltoallv, alltoallw), each in six forms (blocking, _c, I, I_c, _init, _init_c),
 * like the other collectives.  Their mp_do_* functions funnel into one checker, neighbor(),
 * which gets the neighbour counts from the topology, widens the count and displacement arrays
 * (int, MPI_Count or MPI_Aint) to MPI_Aint, checks every argument and calls the coll layer,
 * which copies the arrays a nonblocking call (or a persistent request) still needs.
 *
 * Checks: an intracommunicator with a topology (MPI_ERR_TOPOLOGY otherwise), no MPI_IN_PLACE
 * (the standard does not allow it for these calls), non-negative counts, committed types.
 */
#include "binding/binding.h"
#include <stdlib.h>

enum nkind { N_ALLGATHER, N_ALLGATHERV, N_ALLTOALL, N_ALLTOALLV, N_ALLTOALLW };

typedef struct nargs {
    const void *sbuf; MPI_Aint scount; mp_counts sc, sd; MPI_Datatype st; const MPI_Datatype *sts;
    void *rbuf;       MPI_Aint rcount; mp_counts rc, rd; MPI_Datatype rt; const MPI_Datatype *rts;
} nargs;

#define NO_ARR ((mp_counts){ NULL, MP_COUNTS_INT })
#define AINTS(p) ((mp_counts){ (p), MP_COUNTS_AINT })

static int check_array(const char *F, const void *p, int n, const char *name)
{
    if (n > 0 && !p)
        return mp_err(F, MPI_ERR_ARG, "%s must not be NULL", name);
    return MPI_SUCCESS;
}

static int check_counts(const char *F, const MPI_Aint *c, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (c[i] < 0)
            return mp_err(F, MPI_ERR_COUNT, "invalid %s[%d] = %ld (must be >= 0)", name, i,
                          (long)c[i]);
    return MPI_SUCCESS;
}

static int degrees(const char *F, mp_comm *comm, int *indeg, int *outdeg)
{
    int *in = NULL, *out = NULL;
    if (comm->is_inter)
        return mp_err(F, MPI_ERR_COMM, "not defined on an intercommunicator");
    if (!comm->topo || mp_topo_neighbors(comm, indeg, &in, outdeg, &out) != MPI_SUCCESS)
        return mp_err(F, MPI_ERR_TOPOLOGY, "communicator has no topology (create it with "
                      "MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create)");
    free(in);
    free(out);
    return MPI_SUCCESS;
}

/* Resolves n handles (one per neighbour, or the single handle `one` when `many` is NULL). */
static int get_types(const char *F, MPI_Datatype one, const MPI_Datatype *many, int n,
                     mp_datatype **out)
{
    for (int i = 0; i < n; i++) {
        int err = mp_chk_datatype(F, many ? many[i] : one, 0, &out[i]);
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

static int neighbor(const char *F, int kind, const nargs *a, mp_comm *comm, mp_request **req)
{
    int indeg, outdeg, err = degrees(F, comm, &indeg, &outdeg);
    if (err)
        return err;
    if (a->sbuf == MPI_IN_PLACE)
        return mp_err(F, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed for neighbourhood "
                      "collectives");
    int per_peer_s = kind == N_ALLTOALLV || kind == N_ALLTOALLW;
    int per_peer_r = per_peer_s || kind == N_ALLGATHERV;
    if ((per_peer_s && ((err = check_array(F, a->sc.p, outdeg, "sendcounts")) ||
                        (err = check_array(F, a->sd.p, outdeg, "sdispls")))) ||
        (per_peer_r && ((err = check_array(F, a->rc.p, indeg, "recvcounts")) ||
                        (err = check_array(F, a->rd.p, indeg, "rdispls")))) ||
        (kind == N_ALLTOALLW && ((err = check_array(F, a->sts, outdeg, "sendtypes")) ||
                                 (err = check_array(F, a->rts, indeg, "recvtypes")))))
        return err;
    if (!per_peer_s && (err = mp_chk_count(F, a->scount)))
        return err;
    if (!per_peer_r && (err = mp_chk_count(F, a->rcount)))
        return err;
    MPI_Aint *sc = per_peer_s ? mp_counts_widen(a->sc, outdeg) : NULL;
    MPI_Aint *sd = per_peer_s ? mp_counts_widen(a->sd, outdeg) : NULL;
    MPI_Aint *rc = per_peer_r ? mp_counts_widen(a->rc, indeg) : NULL;
    MPI_Aint *rd = per_peer_r ? mp_counts_widen(a->rd, indeg) : NULL;
    int ns = kind == N_ALLTOALLW ? outdeg : 1, nr = kind == N_ALLTOALLW ? indeg : 1;
    mp_datatype **sdt = mp_calloc((size_t)ns + 1, sizeof *sdt);
    mp_datatype **rdt = mp_calloc((size_t)nr + 1, sizeof *rdt);
    if (!(sc && (err = check_counts(F, sc, outdeg, "sendcounts"))) &&
        !(rc && (err = check_counts(F, rc, indeg, "recvcounts"))) &&
        !(err = get_types(F, a->st, kind == N_ALLTOALLW ? a->sts : NULL, ns, sdt)) &&
        !(err = get_types(F, a->rt, kind == N_ALLTOALLW ? a->rts : NULL, nr, rdt)))
        err = dispatch(kind, a, sc, sd, sdt, rc, rd, rdt, comm, req);
    free(sc); free(sd); free(rc); free(rd); free(sdt); free(rdt);
    return err;
}

/* allgather and alltoall: one count and one type for every neighbour. */
#define UNIFORM(name, kind)                                                                    \
    int name(const char *F, const void *sb, MPI_Aint sc, MPI_Datatype st, void *rb,           \
             MPI_Aint rc, MPI_Datatype rt, mp_comm *comm, mp_request **req)                    \
    {                                                                                          \
        nargs a = { sb, sc, NO_ARR, NO_ARR, st, NULL, rb, rc, NO_ARR, NO_ARR, rt, NULL };      \
        return neighbor(F, kind, &a, comm, req);                                               \
    }
UNIFORM(mp_do_neighbor_allgather, N_ALLGATHER)
UNIFORM(mp_do_neighbor_alltoall, N_ALLTOALL)

int mp_do_neighbor_allgatherv(const char *F, const void *sb, MPI_Aint sc, MPI_Datatype st,
                              void *rb, mp_counts rc, mp_counts rd, MPI_Datatype rt,
                              mp_comm *comm, mp_request **req)
{
    nargs a = { sb, sc, NO_ARR, NO_ARR, st, NULL, rb, 0, rc, rd, rt, NULL };
    return neighbor(F, N_ALLGATHERV, &a, comm, req);
}

int mp_do_neighbor_alltoallv(const char *F, const void *sb, mp_counts sc, mp_counts sd,
                             MPI_Datatype st, void *rb, mp_counts rc, mp_counts rd,
                             MPI_Datatype rt, mp_comm *comm, mp_request **req)
{
    nargs a = { sb, 0, sc, sd, st, NULL, rb, 0, rc, rd, rt, NULL };
    return neighbor(F, N_ALLTOALLV, &a, comm, req);
}

/* alltoallw: displacements in bytes (MPI_Aint in every form), a type per neighbour. */
int mp_do_neighbor_alltoallw(const char *F, const void *sb, mp_counts sc, const MPI_Aint *sd,
                             const MPI_Datatype *st, void *rb, mp_counts rc,
                             const MPI_Aint *rd, const MPI_Datatype *rt, mp_comm *comm,
                             mp_request **req)
{
    nargs a = { sb, 0, sc, AINTS(sd), MPI_DATATYPE_NULL, st,
                rb, 0, rc, AINTS(rd), MPI_DATATYPE_NULL, rt };
    return neighbor(F, N_ALLTOALLW, &a, comm, req);
}

/* coll.c -- what the collective entry points check beyond their description.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * src/binding/coll.spec describes each collective once; the generated entry points of its six
 * forms (blocking, _c, I, I_c, _init, _init_c) resolve the communicator, check the info and
 * request pointers, and call the mp_do_* function here with counts as MPI_Aint, count and
 * displacement arrays as mp_counts, and the coll layer's request argument `req`: NULL for the
 * blocking call, the address of the request to set for the I-form, or of a new inactive
 * persistent request (src/coll/persist.c) in which an _init call keeps its schedule.
 *
 * Checks follow the standard's notion of significance: the receive arguments of a gather are
 * only checked at the root, the send arguments are not checked when MPI_IN_PLACE replaces
 * them, and on intercommunicators the roles follow root == MPI_ROOT / MPI_PROC_NULL.  Count
 * arrays are widened to MPI_Aint here; the coll layer copies whatever it still needs after
 * the call returns.
 */
#include "binding/binding.h"
#include <stdlib.h>

static int in_place_error(const char *F, const char *what)
{
    return mp_err(F, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed %s", what);
}

static int same_buffer(const char *F, const void *s, const void *r, MPI_Aint n)
{
    if (s == r && s != NULL && n > 0)
        return mp_err(F, MPI_ERR_BUFFER, "send and receive buffers are the same (use "
                      "MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

static int check_counts(const char *F, const MPI_Aint *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i] < 0)
            return mp_err(F, MPI_ERR_COUNT, "invalid count %ld at index %d (must be >= 0)",
                          (long)c[i], i);
    return MPI_SUCCESS;
}

static int peers(const mp_comm *comm) { return comm->is_inter ? comm->remote_size : comm->size; }

static const mp_counts no_counts = { NULL, MP_COUNTS_INT };

/* ---- barrier, bcast ------------------------------------------------------------------------ */
int mp_do_barrier(const char *F, mp_comm *comm, mp_request **req)
{
    return mp_ibarrier(comm, req);
}

int mp_do_bcast(const char *F, void *buf, MPI_Aint count, MPI_Datatype dth, int root,
                mp_comm *comm, mp_request **req)
{
    mp_datatype *dt;
    int err = mp_chk_root(F, comm, root);
    if (err)
        return err;
    if (comm->is_inter && root == MPI_PROC_NULL)
        dt = mp_datatype_get(MPI_BYTE), count = 0;
    else if ((err = mp_chk_datatype(F, dth, count, &dt)))
        return err;
    return mp_ibcast(buf, count, dt, root, comm, req);
}

/* ---- reductions ---------------------------------------------------------------------------- */
int mp_do_reduce(const char *F, const void *sbuf, void *rbuf, MPI_Aint count, MPI_Datatype dth,
                 MPI_Op op, int root, mp_comm *comm, mp_request **req)
{
    mp_datatype *dt;
    int err = mp_chk_root(F, comm, root);
    if (err)
        return err;
    if (comm->is_inter && root == MPI_PROC_NULL)   /* nothing to do, but a request to return */
        return mp_ireduce(sbuf, rbuf, 0, mp_datatype_get(MPI_BYTE), op, root, comm, req);
    if ((err = mp_chk_datatype(F, dth, count, &dt)) ||
        (err = mp_op_check_reduction(F, op, dt)))
        return err;
    if (sbuf == MPI_IN_PLACE && (comm->is_inter || comm->rank != root))
        return in_place_error(F, "as the send buffer except at the root");
    if (!comm->is_inter && comm->rank == root && (err = same_buffer(F, sbuf, rbuf, count)))
        return err;
    return mp_ireduce(sbuf, rbuf, count, dt, op, root, comm, req);
}

/* The type, op and buffers of a reduction whose result every rank gets (count elements of
 * data in all: allreduce, reduce_scatter). */
static int all_reduction(const char *F, const void *sbuf, const void *rbuf, MPI_Aint count,
                         MPI_Datatype dth, MPI_Op op, const mp_comm *comm, mp_datatype **dt)
{
    int err;
    if ((err = mp_chk_datatype(F, dth, count, dt)) ||
        (err = mp_op_check_reduction(F, op, *dt)))
        return err;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, "on an intercommunicator");
    return same_buffer(F, sbuf, rbuf, count);
}

int mp_do_allreduce(const char *F, const void *sbuf, void *rbuf, MPI_Aint count,
                    MPI_Datatype dth, MPI_Op op, mp_comm *comm, mp_request **req)
{
    mp_datatype *dt;
    int err = all_reduction(F, sbuf, rbuf, count, dth, op, comm, &dt);
    return err ? err : mp_iallreduce(sbuf, rbuf, count, dt, op, comm, req);
}

static int scan(const char *F, const void *sbuf, void *rbuf, MPI_Aint count, MPI_Datatype dth,
                MPI_Op op, mp_comm *comm, mp_request **req, int exclusive)
{
    mp_datatype *dt;
    int err;
    if (comm->is_inter)
        return mp_err(F, MPI_ERR_COMM, "not defined on an intercommunicator");
    if ((err = mp_chk_datatype(F, dth, count, &dt)) ||
        (err = mp_op_check_reduction(F, op, dt)) || (err = same_buffer(F, sbuf, rbuf, count)))
        return err;
    return exclusive ? mp_iexscan(sbuf, rbuf, count, dt, op, comm, req)
                     : mp_iscan(sbuf, rbuf, count, dt, op, comm, req);
}

int mp_do_scan(const char *F, const void *sbuf, void *rbuf, MPI_Aint count, MPI_Datatype dt,
               MPI_Op op, mp_comm *comm, mp_request **req)
{
    return scan(F, sbuf, rbuf, count, dt, op, comm, req, 0);
}

int mp_do_exscan(const char *F, const void *sbuf, void *rbuf, MPI_Aint count, MPI_Datatype dt,
                 MPI_Op op, mp_comm *comm, mp_request **req)
{
    return scan(F, sbuf, rbuf, count, dt, op, comm, req, 1);
}

/* counts: one per rank (reduce_scatter), or NULL and `block` (reduce_scatter_block). */
static int reduce_scatter(const char *F, const void *sbuf, void *rbuf, const MPI_Aint *counts,
                          MPI_Aint block, MPI_Datatype dth, MPI_Op op, mp_comm *comm,
                          mp_request **req)
{
    mp_datatype *dt;
    int err;
    MPI_Aint total = counts ? 0 : block;
    if (counts) {
        if ((err = check_counts(F, counts, comm->size)))
            return err;
        for (int i = 0; i < comm->size; i++)
            total += counts[i];
    }
    if ((err = all_reduction(F, sbuf, rbuf, total, dth, op, comm, &dt)))
        return err;
    return counts ? mp_ireduce_scatter(sbuf, rbuf, counts, dt, op, comm, req)
                  : mp_ireduce_scatter_block(sbuf, rbuf, block, dt, op, comm, req);
}

int mp_do_reduce_scatter(const char *F, const void *sbuf, void *rbuf, mp_counts rcounts,
                         MPI_Datatype dt, MPI_Op op, mp_comm *comm, mp_request **req)
{
    if (!rcounts.p)
        return mp_err(F, MPI_ERR_ARG, "recvcounts must not be NULL");
    MPI_Aint *w = mp_counts_widen(rcounts, comm->size);
    int err = reduce_scatter(F, sbuf, rbuf, w, 0, dt, op, comm, req);
    free(w);
    return err;
}

int mp_do_reduce_scatter_block(const char *F, const void *sbuf, void *rbuf, MPI_Aint rcount,
                               MPI_Datatype dt, MPI_Op op, mp_comm *comm, mp_request **req)
{
    return reduce_scatter(F, sbuf, rbuf, NULL, rcount, dt, op, comm, req);
}

/* ---- gather, scatter, allgather ------------------------------------------------------------ */
/* Which sides of a rooted collective are significant here. */
enum { SIDE_SEND = 1, SIDE_RECV = 2 };

static int rooted_sides(const mp_comm *comm, int root, int gather)
{
    if (comm->is_inter) {
        if (root == MPI_PROC_NULL)
            return 0;
        if (root == MPI_ROOT)
            return gather ? SIDE_RECV : SIDE_SEND;
        return gather ? SIDE_SEND : SIDE_RECV;
    }
    if (comm->rank == root)
        return SIDE_SEND | SIDE_RECV;
    return gather ? SIDE_SEND : SIDE_RECV;
}

/* One side of a rooted collective: a buffer, its count (or per-rank counts and
 * displacements: the v-forms) and its type, resolved by rooted(). */
typedef struct side {
    const void *buf;
    MPI_Aint count;
    const MPI_Aint *counts, *displs;
    MPI_Datatype h;
    mp_datatype *dt;
} side;

/* The checks of gather and scatter: `one` is the side every rank has (gather's send,
 * scatter's receive; MPI_IN_PLACE only at the root), `all` the root's side with a block per
 * rank.  A side that is not significant here gets MPI_BYTE, and `one` no data. */
static int rooted(const char *F, int gather, side *one, side *all, int root, mp_comm *comm)
{
    int err = mp_chk_root(F, comm, root);
    if (err)
        return err;
    int sides = rooted_sides(comm, root, gather);
    int one_here = sides & (gather ? SIDE_SEND : SIDE_RECV);
    int all_here = sides & (gather ? SIDE_RECV : SIDE_SEND);
    one->dt = all->dt = mp_datatype_get(MPI_BYTE);
    if (one->buf == MPI_IN_PLACE && (comm->is_inter || comm->rank != root))
        return in_place_error(F, gather ? "as the send buffer except at the root"
                                        : "as the receive buffer except at the root");
    if (one_here && one->buf != MPI_IN_PLACE &&
        (err = mp_chk_datatype(F, one->h, one->count, &one->dt)))
        return err;
    if (all_here && ((all->counts && (err = check_counts(F, all->counts, peers(comm)))) ||
                     (err = mp_chk_datatype(F, all->h, all->counts ? 0 : all->count, &all->dt))))
        return err;
    if (!one_here)
        one->count = 0;
    return MPI_SUCCESS;
}

/* Gather(v) (gather = 1) and scatter(v): checks, then the coll layer.  s and r are the send
 * and receive sides; a v-form passes the root side's counts and displacements in v[0], v[1],
 * which are read only where that side is significant (zeros elsewhere, may be NULL there). */
static int rooted_coll(const char *F, int gather, side s, side r, const mp_counts *v, int root,
                       mp_comm *comm, mp_request **req)
{
    side *one = gather ? &s : &r, *all = gather ? &r : &s;
    int err = MPI_SUCCESS;
    if (v) {
        int here = (rooted_sides(comm, root, gather) & (gather ? SIDE_RECV : SIDE_SEND)) != 0;
        if (here && (!v[0].p || !v[1].p))
            return mp_err(F, MPI_ERR_ARG, "%s and displs must not be NULL at the root",
                          gather ? "recvcounts" : "sendcounts");
        all->counts = mp_counts_widen(here ? v[0] : no_counts, peers(comm));
        all->displs = mp_counts_widen(here ? v[1] : no_counts, peers(comm));
    }
    if (!(err = rooted(F, gather, one, all, root, comm))) {
        void *rbuf = (void *)r.buf;
        if (gather && v)
            err = mp_igatherv(s.buf, s.count, s.dt, rbuf, r.counts, r.displs, r.dt, root, comm,
                              req);
        else if (gather)
            err = mp_igather(s.buf, s.count, s.dt, rbuf, r.count, r.dt, root, comm, req);
        else if (v)
            err = mp_iscatterv(s.buf, s.counts, s.displs, s.dt, rbuf, r.count, r.dt, root, comm,
                               req);
        else
            err = mp_iscatter(s.buf, s.count, s.dt, rbuf, r.count, r.dt, root, comm, req);
    }
    free((void *)all->counts);
    free((void *)all->displs);
    return err;
}

#define SIDE(buf, count, type) ((side){ (buf), (count), NULL, NULL, (type), NULL })

int mp_do_gather(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdt, void *rbuf,
                 MPI_Aint rcount, MPI_Datatype rdt, int root, mp_comm *comm, mp_request **req)
{
    return rooted_coll(F, 1, SIDE(sbuf, scount, sdt), SIDE(rbuf, rcount, rdt), NULL, root, comm,
                       req);
}

int mp_do_gatherv(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdt,
                  void *rbuf, mp_counts rcounts, mp_counts displs, MPI_Datatype rdt, int root,
                  mp_comm *comm, mp_request **req)
{
    mp_counts v[2] = { rcounts, displs };
    return rooted_coll(F, 1, SIDE(sbuf, scount, sdt), SIDE(rbuf, 0, rdt), v, root, comm, req);
}

int mp_do_scatter(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdt,
                  void *rbuf, MPI_Aint rcount, MPI_Datatype rdt, int root, mp_comm *comm,
                  mp_request **req)
{
    return rooted_coll(F, 0, SIDE(sbuf, scount, sdt), SIDE(rbuf, rcount, rdt), NULL, root, comm,
                       req);
}

int mp_do_scatterv(const char *F, const void *sbuf, mp_counts scounts, mp_counts displs,
                   MPI_Datatype sdt, void *rbuf, MPI_Aint rcount, MPI_Datatype rdt, int root,
                   mp_comm *comm, mp_request **req)
{
    mp_counts v[2] = { scounts, displs };
    return rooted_coll(F, 0, SIDE(sbuf, 0, sdt), SIDE(rbuf, rcount, rdt), v, root, comm, req);
}

/* The send side of allgather and alltoall: MPI_IN_PLACE (not on an intercommunicator; the
 * type is then MPI_BYTE) or a checked type. */
static int send_side(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdth,
                     const mp_comm *comm, mp_datatype **sdt)
{
    *sdt = mp_datatype_get(MPI_BYTE);
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, "on an intercommunicator");
    return sbuf == MPI_IN_PLACE ? MPI_SUCCESS : mp_chk_datatype(F, sdth, scount, sdt);
}

static int allgather(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdth,
                     void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                     const MPI_Aint *displs, MPI_Datatype rdth, mp_comm *comm, mp_request **req)
{
    mp_datatype *sdt, *rdt;
    int err = send_side(F, sbuf, scount, sdth, comm, &sdt);
    if (err)
        return err;
    if (rcounts && (err = check_counts(F, rcounts, peers(comm))))
        return err;
    if ((err = mp_chk_datatype(F, rdth, rcounts ? 0 : rcount, &rdt)))
        return err;
    if (rcounts)
        return mp_iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, req);
    return mp_iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
}

int mp_do_allgather(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdt,
                    void *rbuf, MPI_Aint rcount, MPI_Datatype rdt, mp_comm *comm,
                    mp_request **req)
{
    return allgather(F, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, comm, req);
}

int mp_do_allgatherv(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdt,
                     void *rbuf, mp_counts rcounts, mp_counts displs, MPI_Datatype rdt,
                     mp_comm *comm, mp_request **req)
{
    if (!rcounts.p || !displs.p)
        return mp_err(F, MPI_ERR_ARG, "recvcounts and displs must not be NULL");
    MPI_Aint *c = mp_counts_widen(rcounts, peers(comm)), *d = mp_counts_widen(displs, peers(comm));
    int err = allgather(F, sbuf, scount, sdt, rbuf, 0, c, d, rdt, comm, req);
    free(c);
    free(d);
    return err;
}

/* ---- alltoall(v,w) ------------------------------------------------------------------------- */
int mp_do_alltoall(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdth,
                   void *rbuf, MPI_Aint rcount, MPI_Datatype rdth, mp_comm *comm,
                   mp_request **req)
{
    mp_datatype *sdt, *rdt;
    int err;
    if ((err = send_side(F, sbuf, scount, sdth, comm, &sdt)) ||
        (err = mp_chk_datatype(F, rdth, rcount, &rdt)))
        return err;
    return mp_ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req);
}

/* alltoallv and alltoallw share one checker: per-peer types (sth != NULL: w) or one type. */
static int alltoallw(const char *F, const void *sbuf, const MPI_Aint *sc, const MPI_Aint *sd,
                     const MPI_Datatype *sth, MPI_Datatype st1, void *rbuf, const MPI_Aint *rc,
                     const MPI_Aint *rd, const MPI_Datatype *rth, MPI_Datatype rt1,
                     mp_comm *comm, mp_request **req)
{
    int n = peers(comm), w = rth != NULL, err;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, "on an intercommunicator");
    if ((sbuf != MPI_IN_PLACE && (err = check_counts(F, sc, n))) ||
        (err = check_counts(F, rc, n)))
        return err;
    mp_datatype **sdts = mp_calloc((size_t)n + 1, sizeof *sdts);
    mp_datatype **rdts = mp_calloc((size_t)n + 1, sizeof *rdts);
    for (int i = 0; i < n && !err; i++) {
        if (sbuf != MPI_IN_PLACE && (w || i == 0))
            err = mp_chk_datatype(F, w ? sth[i] : st1, 0, &sdts[i]);
        if (!err && (w || i == 0))
            err = mp_chk_datatype(F, w ? rth[i] : rt1, 0, &rdts[i]);
    }
    if (!err && w)
        err = mp_ialltoallw(sbuf, sc, sd, sdts, rbuf, rc, rd, rdts, comm, req);
    else if (!err)
        err = mp_ialltoallv(sbuf, sc, sd, sdts[0] ? sdts[0] : rdts[0], rbuf, rc, rd, rdts[0],
                            comm, req);
    free(sdts);
    free(rdts);
    return err;
}

/* The arrays of alltoallv/w widened; the send side's are not read with MPI_IN_PLACE. */
static int alltoallvw(const char *F, const void *sbuf, mp_counts sc, mp_counts sd,
                      const MPI_Datatype *sts, MPI_Datatype st1, void *rbuf, mp_counts rc,
                      mp_counts rd, const MPI_Datatype *rts, MPI_Datatype rt1, mp_comm *comm,
                      mp_request **req)
{
    int n = peers(comm), in_place = sbuf == MPI_IN_PLACE;
    MPI_Aint *a = mp_counts_widen(in_place ? no_counts : sc, n);
    MPI_Aint *b = mp_counts_widen(in_place ? no_counts : sd, n);
    MPI_Aint *c = mp_counts_widen(rc, n), *d = mp_counts_widen(rd, n);
    int err = alltoallw(F, sbuf, a, b, sts, st1, rbuf, c, d, rts, rt1, comm, req);
    free(a);
    free(b);
    free(c);
    free(d);
    return err;
}

int mp_do_alltoallv(const char *F, const void *sbuf, mp_counts scounts, mp_counts sdispls,
                    MPI_Datatype sdt, void *rbuf, mp_counts rcounts, mp_counts rdispls,
                    MPI_Datatype rdt, mp_comm *comm, mp_request **req)
{
    return alltoallvw(F, sbuf, scounts, sdispls, NULL, sdt, rbuf, rcounts, rdispls, NULL, rdt,
                      comm, req);
}

int mp_do_alltoallw(const char *F, const void *sbuf, mp_counts scounts, mp_counts sdispls,
                    const MPI_Datatype *sdts, void *rbuf, mp_counts rcounts,
                    mp_counts rdispls, const MPI_Datatype *rdts, mp_comm *comm,
                    mp_request **req)
{
    return alltoallvw(F, sbuf, scounts, sdispls, sdts, MPI_DATATYPE_NULL, rbuf, rcounts,
                      rdispls, rdts, MPI_DATATYPE_NULL, comm, req);
}

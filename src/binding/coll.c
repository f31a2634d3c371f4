/* coll.c -- MPI collective entry points (blocking, nonblocking, large-count).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every collective has one checking function here, `do_<name>`, that takes counts as
 * MPI_Aint, a request pointer (NULL for the blocking call, the user's MPI_Request for the
 * I-form and the persistent MPI_<name>_init) and the form (BLOCKING, NONBLOCKING,
 * PERSISTENT).  The public entry points are thin wrappers, so MPI_Bcast, MPI_Ibcast,
 * MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init and MPI_Bcast_init_c share their argument
 * checks.  Count arrays of the v-forms are widened to MPI_Aint; the coll layer copies
 * whatever it still needs after the call returns.
 *
 * Checks follow the standard's notion of significance: the receive arguments of a gather are
 * only checked at the root, the send arguments are not checked when MPI_IN_PLACE replaces
 * them, and on intercommunicators the roles follow root == MPI_ROOT / MPI_PROC_NULL.
 */
#include "binding/binding.h"
#include <stdlib.h>

/* The `nb` argument of the do_* checkers: which form of the collective is called. */
enum { BLOCKING = 0, NONBLOCKING = 1, PERSISTENT = 2 };

/* `r` is read only after the call has run (argument evaluation order is unspecified).  A
 * persistent request made for a call that failed is freed again. */
static int start_or_run(mp_comm *comm, const char *F, int err, mp_request **r,
                        MPI_Request *request)
{
    if (err) {
        if (*r && (*r)->kind == MP_REQ_PCOLL)
            mp_coll_persistent_free(*r);
        return mp_ret(comm, F, err);
    }
    if (request)
        *request = mp_request_handle(*r);
    return MPI_SUCCESS;
}

/* The coll layer's request argument: NULL for a blocking call, &r for an I-form (the call
 * sets r), and for an init call &r holding a new inactive persistent request in which the
 * call keeps its schedule (src/coll/persist.c).  It is the last argument of the coll call,
 * evaluated only once every check has passed. */
static mp_request **req_arg(mp_comm *comm, int nb, mp_request **r)
{
    if (nb == BLOCKING)
        return NULL;
    *r = nb == PERSISTENT ? mp_coll_persistent_new(comm) : NULL;
    return r;
}

#define REQ(request) req_arg(comm, nb, &r)

/* MPI_*_init: the info argument (no hints are used) must be MPI_INFO_NULL or valid. */
static int check_info(const char *F, MPI_Comm comm_h, MPI_Info info)
{
    if (info == MPI_INFO_NULL || mp_info_get(info))
        return MPI_SUCCESS;
    return mp_error(mp_comm_get(comm_h), MPI_ERR_INFO, F, "invalid info handle 0x%x",
                    (unsigned)info);
}

static int check_op(const char *F, mp_comm *comm, MPI_Op op, const mp_datatype *dt)
{
    int err = mp_op_check_reduction(F, op, dt);
    return err ? mp_error_raise(comm, err, F) : MPI_SUCCESS;
}

static int check_common(const char *F, MPI_Comm comm_h, mp_comm **comm, MPI_Request *request,
                        int nonblocking)
{
    if (nonblocking)
        MP_OUT_NULL(request, MPI_REQUEST_NULL);
    int err = mp_arg_comm(F, comm_h, comm);
    if (!err && nonblocking)
        err = mp_arg_request_ptr(F, *comm, request);
    return err;
}

static int in_place_error(const char *F, mp_comm *comm, const char *what)
{
    return mp_error(comm, MPI_ERR_BUFFER, F, "MPI_IN_PLACE is not allowed %s", what);
}

static int same_buffer(const char *F, mp_comm *comm, const void *s, const void *r, MPI_Aint n)
{
    if (s == r && s != NULL && n > 0)
        return mp_error(comm, MPI_ERR_BUFFER, F, "send and receive buffers are the same "
                        "(use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

/* Widens an int or MPI_Count array of n entries to MPI_Aint (caller frees). */
static MPI_Aint *widen_int(const int *a, int n)
{
    MPI_Aint *w = mp_malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = a ? a[i] : 0;
    return w;
}

static int check_counts(const char *F, mp_comm *comm, const MPI_Aint *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i] < 0)
            return mp_error(comm, MPI_ERR_COUNT, F, "invalid count %ld at index %d (must be >= 0)",
                            (long)c[i], i);
    return MPI_SUCCESS;
}

static int peers(const mp_comm *comm) { return comm->is_inter ? comm->remote_size : comm->size; }

/* ------------------------------------------------------------------------------------------ */
/* Barrier, Bcast                                                                             */
/* ------------------------------------------------------------------------------------------ */
static int do_barrier(const char *F, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err)
        return err;
    return start_or_run(comm, F, mp_ibarrier(comm, REQ(request)), &r, request);
}

int PMPI_Barrier(MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_barrier("MPI_Barrier", comm, NULL, 0);
}
#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_barrier("MPI_Ibarrier", comm, request, 1);
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier

static int do_bcast(const char *F, void *buf, MPI_Aint count, MPI_Datatype dth, int root,
                    MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err || (err = mp_arg_root(F, comm, root)))
        return err;
    if (comm->is_inter && root == MPI_PROC_NULL)
        dt = mp_datatype_get(MPI_BYTE), count = 0;
    else if ((err = mp_arg_datatype(F, comm, dth, count, &dt)))
        return err;
    return start_or_run(comm, F, mp_ibcast(buf, count, dt, root, comm, REQ(request)), &r, request);
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_bcast("MPI_Bcast", buf, count, dt, root, comm, NULL, 0);
}
#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_bcast("MPI_Bcast_c", buf, (MPI_Aint)count, dt, root, comm, NULL, 0);
}
#pragma weak MPI_Bcast_c = PMPI_Bcast_c
int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_bcast("MPI_Ibcast", buf, count, dt, root, comm, request, 1);
}
#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_bcast("MPI_Ibcast_c", buf, (MPI_Aint)count, dt, root, comm, request, 1);
}
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c

/* ------------------------------------------------------------------------------------------ */
/* Reductions                                                                                 */
/* ------------------------------------------------------------------------------------------ */
static int do_reduce(const char *F, const void *sbuf, void *rbuf, MPI_Aint count,
                     MPI_Datatype dth, MPI_Op op, int root, MPI_Comm comm_h,
                     MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err || (err = mp_arg_root(F, comm, root)))
        return err;
    if (comm->is_inter && root == MPI_PROC_NULL)   /* nothing to do, but a request to return */
        return start_or_run(comm, F, mp_ireduce(sbuf, rbuf, 0, mp_datatype_get(MPI_BYTE), op,
                                                root, comm, REQ(request)), &r, request);
    if ((err = mp_arg_datatype(F, comm, dth, count, &dt)) || (err = check_op(F, comm, op, dt)))
        return err;
    if (sbuf == MPI_IN_PLACE && (comm->is_inter || comm->rank != root))
        return in_place_error(F, comm, "as the send buffer except at the root");
    if (!comm->is_inter && comm->rank == root && (err = same_buffer(F, comm, sbuf, rbuf, count)))
        return err;
    return start_or_run(comm, F, mp_ireduce(sbuf, rbuf, count, dt, op, root, comm, REQ(request)),
                        &r, request);
}

int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_reduce("MPI_Reduce", sbuf, rbuf, count, dt, op, root, comm, NULL, 0);
}
#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                  int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_reduce("MPI_Reduce_c", sbuf, rbuf, (MPI_Aint)count, dt, op, root, comm, NULL, 0);
}
#pragma weak MPI_Reduce_c = PMPI_Reduce_c
int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_reduce("MPI_Ireduce", sbuf, rbuf, count, dt, op, root, comm, request, 1);
}
#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_reduce("MPI_Ireduce_c", sbuf, rbuf, (MPI_Aint)count, dt, op, root, comm, request, 1);
}
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c

static int do_allreduce(const char *F, const void *sbuf, void *rbuf, MPI_Aint count,
                        MPI_Datatype dth, MPI_Op op, MPI_Comm comm_h, MPI_Request *request,
                        int nb)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err || (err = mp_arg_datatype(F, comm, dth, count, &dt)) ||
        (err = check_op(F, comm, op, dt)))
        return err;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, comm, "on an intercommunicator");
    if ((err = same_buffer(F, comm, sbuf, rbuf, count)))
        return err;
    return start_or_run(comm, F, mp_iallreduce(sbuf, rbuf, count, dt, op, comm, REQ(request)),
                        &r, request);
}

int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_allreduce("MPI_Allreduce", sbuf, rbuf, count, dt, op, comm, NULL, 0);
}
#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_allreduce("MPI_Allreduce_c", sbuf, rbuf, (MPI_Aint)count, dt, op, comm, NULL, 0);
}
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_allreduce("MPI_Iallreduce", sbuf, rbuf, count, dt, op, comm, request, 1);
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_allreduce("MPI_Iallreduce_c", sbuf, rbuf, (MPI_Aint)count, dt, op, comm, request, 1);
}
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c

static int do_scan(const char *F, const void *sbuf, void *rbuf, MPI_Aint count,
                   MPI_Datatype dth, MPI_Op op, MPI_Comm comm_h, MPI_Request *request, int nb,
                   int exclusive)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err)
        return err;
    if (comm->is_inter)
        return mp_error(comm, MPI_ERR_COMM, F, "not defined on an intercommunicator");
    if ((err = mp_arg_datatype(F, comm, dth, count, &dt)) || (err = check_op(F, comm, op, dt)) ||
        (err = same_buffer(F, comm, sbuf, rbuf, count)))
        return err;
    err = exclusive ? mp_iexscan(sbuf, rbuf, count, dt, op, comm, REQ(request))
                    : mp_iscan(sbuf, rbuf, count, dt, op, comm, REQ(request));
    return start_or_run(comm, F, err, &r, request);
}

int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Scan", sbuf, rbuf, count, dt, op, comm, NULL, 0, 0);
}
#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Scan_c", sbuf, rbuf, (MPI_Aint)count, dt, op, comm, NULL, 0, 0);
}
#pragma weak MPI_Scan_c = PMPI_Scan_c
int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Iscan", sbuf, rbuf, count, dt, op, comm, request, 1, 0);
}
#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Exscan", sbuf, rbuf, count, dt, op, comm, NULL, 0, 1);
}
#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Exscan_c", sbuf, rbuf, (MPI_Aint)count, dt, op, comm, NULL, 0, 1);
}
#pragma weak MPI_Exscan_c = PMPI_Exscan_c
int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Iexscan", sbuf, rbuf, count, dt, op, comm, request, 1, 1);
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

static int do_reduce_scatter(const char *F, const void *sbuf, void *rbuf, const MPI_Aint *counts,
                             MPI_Aint block, MPI_Datatype dth, MPI_Op op, MPI_Comm comm_h,
                             MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err)
        return err;
    MPI_Aint total = counts ? 0 : block;
    if (counts) {
        if ((err = check_counts(F, comm, counts, comm->size)))
            return err;
        for (int i = 0; i < comm->size; i++)
            total += counts[i];
    }
    if ((err = mp_arg_datatype(F, comm, dth, total, &dt)) || (err = check_op(F, comm, op, dt)))
        return err;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, comm, "on an intercommunicator");
    if ((err = same_buffer(F, comm, sbuf, rbuf, total)))
        return err;
    err = counts ? mp_ireduce_scatter(sbuf, rbuf, counts, dt, op, comm, REQ(request))
                 : mp_ireduce_scatter_block(sbuf, rbuf, block, dt, op, comm, REQ(request));
    return start_or_run(comm, F, err, &r, request);
}

static int reduce_scatter_int(const char *F, const void *sbuf, void *rbuf, const int *counts,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm_h, MPI_Request *request,
                              int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    if (!comm)
        return do_reduce_scatter(F, sbuf, rbuf, NULL, 0, dt, op, comm_h, request, nb);
    MPI_Aint *w = widen_int(counts, comm->size);
    int err = do_reduce_scatter(F, sbuf, rbuf, w, 0, dt, op, comm_h, request, nb);
    free(w);
    return err;
}

int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return reduce_scatter_int("MPI_Reduce_scatter", sbuf, rbuf, rcounts, dt, op, comm, NULL, 0);
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return reduce_scatter_int("MPI_Ireduce_scatter", sbuf, rbuf, rcounts, dt, op, comm,
                              request, 1);
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_reduce_scatter("MPI_Reduce_scatter_block", sbuf, rbuf, NULL, rcount, dt, op, comm,
                             NULL, 0);
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block_c(const void *sbuf, void *rbuf, MPI_Count rcount, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_reduce_scatter("MPI_Reduce_scatter_block_c", sbuf, rbuf, NULL, (MPI_Aint)rcount,
                             dt, op, comm, NULL, 0);
}
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_reduce_scatter("MPI_Ireduce_scatter_block", sbuf, rbuf, NULL, rcount, dt, op,
                             comm, request, 1);
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block

/* ------------------------------------------------------------------------------------------ */
/* Gather, scatter, allgather                                                                 */
/* ------------------------------------------------------------------------------------------ */
/* Which sides of a rooted collective are significant here: bit 1 = send, bit 2 = receive. */
enum { SIDE_SEND = 1, SIDE_RECV = 2 };

static int rooted_sides(mp_comm *comm, int root, int gather)
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

static int do_gather(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdth,
                     void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                     const MPI_Aint *displs, MPI_Datatype rdth, int root, MPI_Comm comm_h,
                     MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *sdt = mp_datatype_get(MPI_BYTE), *rdt = sdt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err || (err = mp_arg_root(F, comm, root)))
        return err;
    int sides = rooted_sides(comm, root, 1);
    int root_here = !comm->is_inter && comm->rank == root;
    if (sbuf == MPI_IN_PLACE && !root_here)
        return in_place_error(F, comm, "as the send buffer except at the root");
    if ((sides & SIDE_SEND) && sbuf != MPI_IN_PLACE &&
        (err = mp_arg_datatype(F, comm, sdth, scount, &sdt)))
        return err;
    if (sides & SIDE_RECV) {
        if (rcounts && (err = check_counts(F, comm, rcounts, peers(comm))))
            return err;
        if ((err = mp_arg_datatype(F, comm, rdth, rcounts ? 0 : rcount, &rdt)))
            return err;
    }
    if (!(sides & SIDE_SEND))
        scount = 0;
    if (rcounts)
        err = mp_igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, REQ(request));
    else
        err = mp_igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, REQ(request));
    return start_or_run(comm, F, err, &r, request);
}

int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_gather("MPI_Gather", sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, comm,
                     NULL, 0);
}
#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                  MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_gather("MPI_Gather_c", sbuf, (MPI_Aint)scount, sdt, rbuf, (MPI_Aint)rcount, NULL,
                     NULL, rdt, root, comm, NULL, 0);
}
#pragma weak MPI_Gather_c = PMPI_Gather_c
int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_gather("MPI_Igather", sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, comm,
                     request, 1);
}
#pragma weak MPI_Igather = PMPI_Igather

static int gatherv_int(const char *F, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                       const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                       MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = comm ? peers(comm) : 0;
    int recv_side = comm && rooted_sides(comm, root, 1) & SIDE_RECV;
    if (comm && recv_side && (!rcounts || !displs))
        return mp_error(comm, MPI_ERR_ARG, F, "recvcounts and displs must not be NULL at the root");
    MPI_Aint *c = widen_int(recv_side ? rcounts : NULL, n), *d = widen_int(recv_side ? displs : NULL, n);
    int err = do_gather(F, sbuf, scount, sdt, rbuf, 0, c, d, rdt, root, comm_h, request, nb);
    free(c);
    free(d);
    return err;
}

int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return gatherv_int("MPI_Gatherv", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm,
                       NULL, 0);
}
#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                  const int rcounts[], const int displs[], MPI_Datatype rdt, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return gatherv_int("MPI_Igatherv", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm,
                       request, 1);
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

static int do_scatter(const char *F, const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                      const MPI_Aint *displs, MPI_Datatype sdth, void *rbuf, MPI_Aint rcount,
                      MPI_Datatype rdth, int root, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *sdt = mp_datatype_get(MPI_BYTE), *rdt = sdt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err || (err = mp_arg_root(F, comm, root)))
        return err;
    int sides = rooted_sides(comm, root, 0);
    int root_here = !comm->is_inter && comm->rank == root;
    if (rbuf == MPI_IN_PLACE && !root_here)
        return in_place_error(F, comm, "as the receive buffer except at the root");
    if (sides & SIDE_SEND) {
        if (scounts && (err = check_counts(F, comm, scounts, peers(comm))))
            return err;
        if ((err = mp_arg_datatype(F, comm, sdth, scounts ? 0 : scount, &sdt)))
            return err;
    }
    if ((sides & SIDE_RECV) && rbuf != MPI_IN_PLACE &&
        (err = mp_arg_datatype(F, comm, rdth, rcount, &rdt)))
        return err;
    if (!(sides & SIDE_RECV))
        rcount = 0;
    if (scounts)
        err = mp_iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, REQ(request));
    else
        err = mp_iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, REQ(request));
    return start_or_run(comm, F, err, &r, request);
}

int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_scatter("MPI_Scatter", sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root,
                      comm, NULL, 0);
}
#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_scatter("MPI_Scatter_c", sbuf, (MPI_Aint)scount, NULL, NULL, sdt, rbuf,
                      (MPI_Aint)rcount, rdt, root, comm, NULL, 0);
}
#pragma weak MPI_Scatter_c = PMPI_Scatter_c
int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, int root, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_scatter("MPI_Iscatter", sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root,
                      comm, request, 1);
}
#pragma weak MPI_Iscatter = PMPI_Iscatter

static int scatterv_int(const char *F, const void *sbuf, const int *scounts, const int *displs,
                        MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                        MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = comm ? peers(comm) : 0;
    int send_side = comm && rooted_sides(comm, root, 0) & SIDE_SEND;
    if (comm && send_side && (!scounts || !displs))
        return mp_error(comm, MPI_ERR_ARG, F, "sendcounts and displs must not be NULL at the root");
    MPI_Aint *c = widen_int(send_side ? scounts : NULL, n), *d = widen_int(send_side ? displs : NULL, n);
    int err = do_scatter(F, sbuf, 0, c, d, sdt, rbuf, rcount, rdt, root, comm_h, request, nb);
    free(c);
    free(d);
    return err;
}

int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return scatterv_int("MPI_Scatterv", sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                        comm, NULL, 0);
}
#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                   void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    MP_BIG_LOCK();
    return scatterv_int("MPI_Iscatterv", sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                        comm, request, 1);
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

static int do_allgather(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdth,
                        void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                        const MPI_Aint *displs, MPI_Datatype rdth, MPI_Comm comm_h,
                        MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *sdt = mp_datatype_get(MPI_BYTE), *rdt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err)
        return err;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, comm, "on an intercommunicator");
    if (sbuf != MPI_IN_PLACE && (err = mp_arg_datatype(F, comm, sdth, scount, &sdt)))
        return err;
    if (rcounts && (err = check_counts(F, comm, rcounts, peers(comm))))
        return err;
    if ((err = mp_arg_datatype(F, comm, rdth, rcounts ? 0 : rcount, &rdt)))
        return err;
    if (rcounts)
        err = mp_iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, REQ(request));
    else
        err = mp_iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, REQ(request));
    return start_or_run(comm, F, err, &r, request);
}

int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_allgather("MPI_Allgather", sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, comm,
                        NULL, 0);
}
#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_allgather("MPI_Allgather_c", sbuf, (MPI_Aint)scount, sdt, rbuf, (MPI_Aint)rcount,
                        NULL, NULL, rdt, comm, NULL, 0);
}
#pragma weak MPI_Allgather_c = PMPI_Allgather_c
int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                    MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_allgather("MPI_Iallgather", sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, comm,
                        request, 1);
}
#pragma weak MPI_Iallgather = PMPI_Iallgather

static int allgatherv_int(const char *F, const void *sbuf, int scount, MPI_Datatype sdt,
                          void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rdt,
                          MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = comm ? peers(comm) : 0;
    if (comm && (!rcounts || !displs))
        return mp_error(comm, MPI_ERR_ARG, F, "recvcounts and displs must not be NULL");
    MPI_Aint *c = widen_int(rcounts, n), *d = widen_int(displs, n);
    int err = do_allgather(F, sbuf, scount, sdt, rbuf, 0, c, d, rdt, comm_h, request, nb);
    free(c);
    free(d);
    return err;
}

int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return allgatherv_int("MPI_Allgatherv", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                          NULL, 0);
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm,
                     MPI_Request *request)
{
    MP_BIG_LOCK();
    return allgatherv_int("MPI_Iallgatherv", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                          request, 1);
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv

/* ------------------------------------------------------------------------------------------ */
/* Alltoall(v,w)                                                                              */
/* ------------------------------------------------------------------------------------------ */
static int do_alltoall(const char *F, const void *sbuf, MPI_Aint scount, MPI_Datatype sdth,
                       void *rbuf, MPI_Aint rcount, MPI_Datatype rdth, MPI_Comm comm_h,
                       MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_datatype *sdt = mp_datatype_get(MPI_BYTE), *rdt;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err)
        return err;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, comm, "on an intercommunicator");
    if (sbuf != MPI_IN_PLACE && (err = mp_arg_datatype(F, comm, sdth, scount, &sdt)))
        return err;
    if ((err = mp_arg_datatype(F, comm, rdth, rcount, &rdt)))
        return err;
    return start_or_run(comm, F, mp_ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm,
                                              REQ(request)), &r, request);
}

int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_alltoall("MPI_Alltoall", sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL, 0);
}
#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return do_alltoall("MPI_Alltoall_c", sbuf, (MPI_Aint)scount, sdt, rbuf, (MPI_Aint)rcount, rdt,
                       comm, NULL, 0);
}
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_alltoall("MPI_Ialltoall", sbuf, scount, sdt, rbuf, rcount, rdt, comm, request, 1);
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall

/* alltoallv and alltoallw share one checker: per-peer types (w) or one type (v). */
static int do_alltoallw(const char *F, const void *sbuf, const MPI_Aint *sc, const MPI_Aint *sd,
                        const MPI_Datatype *sth, MPI_Datatype st1, void *rbuf,
                        const MPI_Aint *rc, const MPI_Aint *rd, const MPI_Datatype *rth,
                        MPI_Datatype rt1, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm;
    mp_request *r = NULL;
    int err = check_common(F, comm_h, &comm, request, nb);
    if (err)
        return err;
    int n = peers(comm), w = rth != NULL;
    if (sbuf == MPI_IN_PLACE && comm->is_inter)
        return in_place_error(F, comm, "on an intercommunicator");
    if ((sbuf != MPI_IN_PLACE && (err = check_counts(F, comm, sc, n))) ||
        (err = check_counts(F, comm, rc, n)))
        return err;
    mp_datatype **sdts = mp_calloc((size_t)n + 1, sizeof *sdts);
    mp_datatype **rdts = mp_calloc((size_t)n + 1, sizeof *rdts);
    for (int i = 0; i < n && !err; i++) {
        if (sbuf != MPI_IN_PLACE && (w || i == 0))
            err = mp_arg_datatype(F, comm, w ? sth[i] : st1, 0, &sdts[i]);
        if (!err && (w || i == 0))
            err = mp_arg_datatype(F, comm, w ? rth[i] : rt1, 0, &rdts[i]);
    }
    if (!err) {
        if (w)
            err = mp_ialltoallw(sbuf, sc, sd, sdts, rbuf, rc, rd, rdts, comm, REQ(request));
        else
            err = mp_ialltoallv(sbuf, sc, sd, sdts[0] ? sdts[0] : rdts[0], rbuf, rc, rd, rdts[0],
                                comm, REQ(request));
        err = start_or_run(comm, F, err, &r, request);
    }
    free(sdts);
    free(rdts);
    return err;
}

static int alltoallv_int(const char *F, const void *sbuf, const int *sc, const int *sd,
                         MPI_Datatype sdt, void *rbuf, const int *rc, const int *rd,
                         MPI_Datatype rdt, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = comm ? peers(comm) : 0;
    int in_place = sbuf == MPI_IN_PLACE;
    MPI_Aint *a = widen_int(in_place ? NULL : sc, n), *b = widen_int(in_place ? NULL : sd, n);
    MPI_Aint *c = widen_int(rc, n), *d = widen_int(rd, n);
    int err = do_alltoallw(F, sbuf, a, b, NULL, sdt, rbuf, c, d, NULL, rdt, comm_h, request, nb);
    free(a); free(b); free(c); free(d);
    return err;
}

int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                   MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallv_int("MPI_Alltoallv", sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls,
                         rdt, comm, NULL, 0);
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                    void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                    MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return alltoallv_int("MPI_Ialltoallv", sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls,
                         rdt, comm, request, 1);
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv

static int alltoallw_int(const char *F, const void *sbuf, const int *sc, const int *sd,
                         const MPI_Datatype *st, void *rbuf, const int *rc, const int *rd,
                         const MPI_Datatype *rt, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = comm ? peers(comm) : 0;
    int in_place = sbuf == MPI_IN_PLACE;
    MPI_Aint *a = widen_int(in_place ? NULL : sc, n), *b = widen_int(in_place ? NULL : sd, n);
    MPI_Aint *c = widen_int(rc, n), *d = widen_int(rd, n);
    int err = do_alltoallw(F, sbuf, a, b, st, MPI_DATATYPE_NULL, rbuf, c, d, rt,
                           MPI_DATATYPE_NULL, comm_h, request, nb);
    free(a); free(b); free(c); free(d);
    return err;
}

int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallw_int("MPI_Alltoallw", sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls,
                         rdts, comm, NULL, 0);
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype sdts[], void *rbuf, const int rcounts[],
                    const int rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                    MPI_Request *request)
{
    MP_BIG_LOCK();
    return alltoallw_int("MPI_Ialltoallw", sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls,
                         rdts, comm, request, 1);
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw


/* ------------------------------------------------------------------------------------------ */
/* Large-count forms of the v/w collectives and the remaining I-forms                         */
/* ------------------------------------------------------------------------------------------ */
/* MPI_Count counts and MPI_Aint displacements as MPI_Aint arrays of n entries (caller frees);
 * a NULL array stays an array of zeros (insignificant arguments). */
static MPI_Aint *widen_count(const MPI_Count *a, int n)
{
    MPI_Aint *w = mp_malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = a ? (MPI_Aint)a[i] : 0;
    return w;
}

static MPI_Aint *copy_aint(const MPI_Aint *a, int n)
{
    MPI_Aint *w = mp_malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = a ? a[i] : 0;
    return w;
}

static int peers_of(MPI_Comm comm_h)
{
    mp_comm *comm = mp_comm_get(comm_h);
    return comm ? peers(comm) : 0;
}

int PMPI_Iallgather_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                      MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_allgather("MPI_Iallgather_c", sbuf, (MPI_Aint)scount, sdt, rbuf, (MPI_Aint)rcount,
                        NULL, NULL, rdt, comm, request, 1);
}
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c

static int allgatherv_c(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                        void *rbuf, const MPI_Count *rcounts, const MPI_Aint *displs,
                        MPI_Datatype rdt, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = peers_of(comm_h);
    if (comm && (!rcounts || !displs))
        return mp_error(comm, MPI_ERR_ARG, F, "recvcounts and displs must not be NULL");
    MPI_Aint *c = widen_count(rcounts, n), *d = copy_aint(displs, n);
    int err = do_allgather(F, sbuf, (MPI_Aint)scount, sdt, rbuf, 0, c, d, rdt, comm_h, request, nb);
    free(c);
    free(d);
    return err;
}

int PMPI_Allgatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                      const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rdt,
                      MPI_Comm comm)
{
    MP_BIG_LOCK();
    return allgatherv_c("MPI_Allgatherv_c", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                        NULL, 0);
}
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
int PMPI_Iallgatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                       const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rdt,
                       MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return allgatherv_c("MPI_Iallgatherv_c", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                        request, 1);
}
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c

int PMPI_Igather_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_gather("MPI_Igather_c", sbuf, (MPI_Aint)scount, sdt, rbuf, (MPI_Aint)rcount, NULL,
                     NULL, rdt, root, comm, request, 1);
}
#pragma weak MPI_Igather_c = PMPI_Igather_c

static int gatherv_c(const char *F, const void *sbuf, MPI_Count scount, MPI_Datatype sdt,
                     void *rbuf, const MPI_Count *rcounts, const MPI_Aint *displs,
                     MPI_Datatype rdt, int root, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = peers_of(comm_h);
    int recv_side = comm && rooted_sides(comm, root, 1) & SIDE_RECV;
    if (comm && recv_side && (!rcounts || !displs))
        return mp_error(comm, MPI_ERR_ARG, F, "recvcounts and displs must not be NULL at the root");
    MPI_Aint *c = widen_count(recv_side ? rcounts : NULL, n);
    MPI_Aint *d = copy_aint(recv_side ? displs : NULL, n);
    int err = do_gather(F, sbuf, (MPI_Aint)scount, sdt, rbuf, 0, c, d, rdt, root, comm_h,
                        request, nb);
    free(c);
    free(d);
    return err;
}

int PMPI_Gatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                   const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rdt,
                   int root, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return gatherv_c("MPI_Gatherv_c", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm,
                     NULL, 0);
}
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
int PMPI_Igatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    const MPI_Count rcounts[], const MPI_Aint displs[], MPI_Datatype rdt,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return gatherv_c("MPI_Igatherv_c", sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm,
                     request, 1);
}
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c

int PMPI_Iscatter_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rdt, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_scatter("MPI_Iscatter_c", sbuf, (MPI_Aint)scount, NULL, NULL, sdt, rbuf,
                      (MPI_Aint)rcount, rdt, root, comm, request, 1);
}
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c

static int scatterv_c(const char *F, const void *sbuf, const MPI_Count *scounts,
                      const MPI_Aint *displs, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                      MPI_Datatype rdt, int root, MPI_Comm comm_h, MPI_Request *request, int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    int n = peers_of(comm_h);
    int send_side = comm && rooted_sides(comm, root, 0) & SIDE_SEND;
    if (comm && send_side && (!scounts || !displs))
        return mp_error(comm, MPI_ERR_ARG, F, "sendcounts and displs must not be NULL at the root");
    MPI_Aint *c = widen_count(send_side ? scounts : NULL, n);
    MPI_Aint *d = copy_aint(send_side ? displs : NULL, n);
    int err = do_scatter(F, sbuf, 0, c, d, sdt, rbuf, (MPI_Aint)rcount, rdt, root, comm_h,
                         request, nb);
    free(c);
    free(d);
    return err;
}

int PMPI_Scatterv_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint displs[],
                    MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                    MPI_Comm comm)
{
    MP_BIG_LOCK();
    return scatterv_c("MPI_Scatterv_c", sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                      comm, NULL, 0);
}
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
int PMPI_Iscatterv_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint displs[],
                     MPI_Datatype sdt, void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root,
                     MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return scatterv_c("MPI_Iscatterv_c", sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                      comm, request, 1);
}
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c

int PMPI_Ialltoall_c(const void *sbuf, MPI_Count scount, MPI_Datatype sdt, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rdt, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_alltoall("MPI_Ialltoall_c", sbuf, (MPI_Aint)scount, sdt, rbuf, (MPI_Aint)rcount,
                       rdt, comm, request, 1);
}
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c

static int alltoallvw_c(const char *F, const void *sbuf, const MPI_Count *sc,
                        const MPI_Aint *sd, const MPI_Datatype *sts, MPI_Datatype st1,
                        void *rbuf, const MPI_Count *rc, const MPI_Aint *rd,
                        const MPI_Datatype *rts, MPI_Datatype rt1, MPI_Comm comm_h,
                        MPI_Request *request, int nb)
{
    int n = peers_of(comm_h), in_place = sbuf == MPI_IN_PLACE;
    MPI_Aint *a = widen_count(in_place ? NULL : sc, n), *b = copy_aint(in_place ? NULL : sd, n);
    MPI_Aint *c = widen_count(rc, n), *d = copy_aint(rd, n);
    int err = do_alltoallw(F, sbuf, a, b, sts, st1, rbuf, c, d, rts, rt1, comm_h, request, nb);
    free(a); free(b); free(c); free(d);
    return err;
}

int PMPI_Alltoallv_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sdt, void *rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype rdt, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallvw_c("MPI_Alltoallv_c", sbuf, scounts, sdispls, NULL, sdt, rbuf, rcounts,
                        rdispls, NULL, rdt, comm, NULL, 0);
}
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
int PMPI_Ialltoallv_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sdt, void *rbuf, const MPI_Count rcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype rdt, MPI_Comm comm,
                      MPI_Request *request)
{
    MP_BIG_LOCK();
    return alltoallvw_c("MPI_Ialltoallv_c", sbuf, scounts, sdispls, NULL, sdt, rbuf, rcounts,
                        rdispls, NULL, rdt, comm, request, 1);
}
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
int PMPI_Alltoallw_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sdts[], void *rbuf, const MPI_Count rcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype rdts[], MPI_Comm comm)
{
    MP_BIG_LOCK();
    return alltoallvw_c("MPI_Alltoallw_c", sbuf, scounts, sdispls, sdts, MPI_DATATYPE_NULL, rbuf,
                        rcounts, rdispls, rdts, MPI_DATATYPE_NULL, comm, NULL, 0);
}
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
int PMPI_Ialltoallw_c(const void *sbuf, const MPI_Count scounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sdts[], void *rbuf, const MPI_Count rcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype rdts[], MPI_Comm comm,
                      MPI_Request *request)
{
    MP_BIG_LOCK();
    return alltoallvw_c("MPI_Ialltoallw_c", sbuf, scounts, sdispls, sdts, MPI_DATATYPE_NULL,
                        rbuf, rcounts, rdispls, rdts, MPI_DATATYPE_NULL, comm, request, 1);
}
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c

static int reduce_scatter_c(const char *F, const void *sbuf, void *rbuf, const MPI_Count *counts,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm_h, MPI_Request *request,
                            int nb)
{
    mp_comm *comm = mp_comm_get(comm_h);
    if (!comm)
        return do_reduce_scatter(F, sbuf, rbuf, NULL, 0, dt, op, comm_h, request, nb);
    if (!counts)
        return mp_error(comm, MPI_ERR_ARG, F, "recvcounts must not be NULL");
    MPI_Aint *w = widen_count(counts, comm->size);
    int err = do_reduce_scatter(F, sbuf, rbuf, w, 0, dt, op, comm_h, request, nb);
    free(w);
    return err;
}

int PMPI_Reduce_scatter_c(const void *sbuf, void *rbuf, const MPI_Count rcounts[],
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return reduce_scatter_c("MPI_Reduce_scatter_c", sbuf, rbuf, rcounts, dt, op, comm, NULL, 0);
}
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
int PMPI_Ireduce_scatter_c(const void *sbuf, void *rbuf, const MPI_Count rcounts[],
                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return reduce_scatter_c("MPI_Ireduce_scatter_c", sbuf, rbuf, rcounts, dt, op, comm, request,
                            1);
}
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
int PMPI_Ireduce_scatter_block_c(const void *sbuf, void *rbuf, MPI_Count rcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_reduce_scatter("MPI_Ireduce_scatter_block_c", sbuf, rbuf, NULL, (MPI_Aint)rcount,
                             dt, op, comm, request, 1);
}
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c

int PMPI_Iscan_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Iscan_c", sbuf, rbuf, (MPI_Aint)count, dt, op, comm, request, 1, 0);
}
#pragma weak MPI_Iscan_c = PMPI_Iscan_c
int PMPI_Iexscan_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return do_scan("MPI_Iexscan_c", sbuf, rbuf, (MPI_Aint)count, dt, op, comm, request, 1, 1);
}
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c

/* ------------------------------------------------------------------------------------------ */
/* Persistent collectives (MPI-4): the I-form's checks and schedule, kept for MPI_Start       */
/* ------------------------------------------------------------------------------------------ */
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Barrier_init";
    int err = check_info(F, comm, info);
    return err ? err : do_barrier(F, comm, request, PERSISTENT);
}
#pragma weak MPI_Barrier_init = PMPI_Barrier_init

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Bcast_init";
    int err = check_info(F, comm, info);
    return err ? err : do_bcast(F, buffer, count, datatype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Bcast_init = PMPI_Bcast_init

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Bcast_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_bcast(F, buffer, (MPI_Aint)count, datatype, root, comm, request,
                                PERSISTENT);
}
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Reduce_init";
    int err = check_info(F, comm, info);
    return err ? err : do_reduce(F, sendbuf, recvbuf, count, datatype, op, root, comm, request,
                                 PERSISTENT);
}
#pragma weak MPI_Reduce_init = PMPI_Reduce_init

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Reduce_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_reduce(F, sendbuf, recvbuf, (MPI_Aint)count, datatype, op, root, comm,
                                 request, PERSISTENT);
}
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Allreduce_init";
    int err = check_info(F, comm, info);
    return err ? err : do_allreduce(F, sendbuf, recvbuf, count, datatype, op, comm, request,
                                    PERSISTENT);
}
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    static const char *const F = "MPI_Allreduce_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_allreduce(F, sendbuf, recvbuf, (MPI_Aint)count, datatype, op, comm,
                                    request, PERSISTENT);
}
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Scan_init";
    int err = check_info(F, comm, info);
    return err ? err : do_scan(F, sendbuf, recvbuf, count, datatype, op, comm, request,
                               PERSISTENT, 0);
}
#pragma weak MPI_Scan_init = PMPI_Scan_init

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Scan_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_scan(F, sendbuf, recvbuf, (MPI_Aint)count, datatype, op, comm, request,
                               PERSISTENT, 0);
}
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Exscan_init";
    int err = check_info(F, comm, info);
    return err ? err : do_scan(F, sendbuf, recvbuf, count, datatype, op, comm, request,
                               PERSISTENT, 1);
}
#pragma weak MPI_Exscan_init = PMPI_Exscan_init

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Exscan_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_scan(F, sendbuf, recvbuf, (MPI_Aint)count, datatype, op, comm, request,
                               PERSISTENT, 1);
}
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    static const char *const F = "MPI_Reduce_scatter_init";
    int err = check_info(F, comm, info);
    return err ? err : reduce_scatter_int(F, sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                          request, PERSISTENT);
}
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    static const char *const F = "MPI_Reduce_scatter_init_c";
    int err = check_info(F, comm, info);
    return err ? err : reduce_scatter_c(F, sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                        request, PERSISTENT);
}
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    static const char *const F = "MPI_Reduce_scatter_block_init";
    int err = check_info(F, comm, info);
    return err ? err : do_reduce_scatter(F, sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
                                         request, PERSISTENT);
}
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                     MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Reduce_scatter_block_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_reduce_scatter(F, sendbuf, recvbuf, NULL, (MPI_Aint)recvcount, datatype,
                                         op, comm, request, PERSISTENT);
}
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    static const char *const F = "MPI_Gather_init";
    int err = check_info(F, comm, info);
    return err ? err : do_gather(F, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                                 recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Gather_init = PMPI_Gather_init

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Gather_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_gather(F, sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf,
                                 (MPI_Aint)recvcount, NULL, NULL, recvtype, root, comm, request,
                                 PERSISTENT);
}
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Gatherv_init";
    int err = check_info(F, comm, info);
    return err ? err : gatherv_int(F, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    static const char *const F = "MPI_Gatherv_init_c";
    int err = check_info(F, comm, info);
    return err ? err : gatherv_c(F, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Scatter_init";
    int err = check_info(F, comm, info);
    return err ? err : do_scatter(F, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf, recvcount,
                                  recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Scatter_init = PMPI_Scatter_init

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Scatter_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_scatter(F, sendbuf, (MPI_Aint)sendcount, NULL, NULL, sendtype, recvbuf,
                                  (MPI_Aint)recvcount, recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Scatterv_init";
    int err = check_info(F, comm, info);
    return err ? err : scatterv_int(F, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                    recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Scatterv_init_c";
    int err = check_info(F, comm, info);
    return err ? err : scatterv_c(F, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root, comm, request, PERSISTENT);
}
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    static const char *const F = "MPI_Allgather_init";
    int err = check_info(F, comm, info);
    return err ? err : do_allgather(F, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                                    NULL, recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Allgather_init = PMPI_Allgather_init

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Allgather_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_allgather(F, sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf,
                                    (MPI_Aint)recvcount, NULL, NULL, recvtype, comm, request,
                                    PERSISTENT);
}
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Allgatherv_init";
    int err = check_info(F, comm, info);
    return err ? err : allgatherv_int(F, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                      displs, recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    static const char *const F = "MPI_Allgatherv_init_c";
    int err = check_info(F, comm, info);
    return err ? err : allgatherv_c(F, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    static const char *const F = "MPI_Alltoall_init";
    int err = check_info(F, comm, info);
    return err ? err : do_alltoall(F, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm, request, PERSISTENT);
}
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Alltoall_init_c";
    int err = check_info(F, comm, info);
    return err ? err : do_alltoall(F, sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf,
                                   (MPI_Aint)recvcount, recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    static const char *const F = "MPI_Alltoallv_init";
    int err = check_info(F, comm, info);
    return err ? err : alltoallv_int(F, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                     recvcounts, rdispls, recvtype, comm, request, PERSISTENT);
}
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    static const char *const F = "MPI_Alltoallv_init_c";
    int err = check_info(F, comm, info);
    return err ? err : alltoallvw_c(F, sendbuf, sendcounts, sdispls, NULL, sendtype, recvbuf,
                                    recvcounts, rdispls, NULL, recvtype, comm, request,
                                    PERSISTENT);
}
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    static const char *const F = "MPI_Alltoallw_init";
    int err = check_info(F, comm, info);
    return err ? err : alltoallw_int(F, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, comm, request, PERSISTENT);
}
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    static const char *const F = "MPI_Alltoallw_init_c";
    int err = check_info(F, comm, info);
    return err ? err : alltoallvw_c(F, sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL,
                                    recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL,
                                    comm, request, PERSISTENT);
}
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c

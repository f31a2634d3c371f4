/* pt2pt.c -- MPI point-to-point entry points.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Argument checks, handle translation, and a call into the pt2pt layer.  Requests handed to
 * the user get an integer handle; MPI_Wait and friends free non-persistent ones and reset the
 * user's handle to MPI_REQUEST_NULL, as the standard requires.
 */
#include "binding/binding.h"

static int check_send(const char *F, const void *buf, int count, MPI_Datatype dtype, int dest,
                      int tag, MPI_Comm comm_h, mp_comm **comm, mp_datatype **dt)
{
    int err;
    if ((err = mp_arg_comm(F, comm_h, comm)) ||
        (err = mp_arg_datatype(F, *comm, dtype, count, dt)) ||
        (err = mp_arg_rank(F, *comm, dest, MP_ALLOW_PROC_NULL)) ||
        (err = mp_arg_tag(F, *comm, tag, 0)) ||
        (err = mp_arg_buffer(F, *comm, buf, count, *dt)))
        return err;
    return MPI_SUCCESS;
}

static int check_recv(const char *F, const void *buf, int count, MPI_Datatype dtype, int src,
                      int tag, MPI_Comm comm_h, mp_comm **comm, mp_datatype **dt)
{
    int err;
    if ((err = mp_arg_comm(F, comm_h, comm)) ||
        (err = mp_arg_datatype(F, *comm, dtype, count, dt)) ||
        (err = mp_arg_rank(F, *comm, src, MP_ALLOW_PROC_NULL | MP_ALLOW_ANY)) ||
        (err = mp_arg_tag(F, *comm, tag, MP_ALLOW_ANY)) ||
        (err = mp_arg_buffer(F, *comm, buf, count, *dt)))
        return err;
    return MPI_SUCCESS;
}

static int send_mode(const char *F, const void *buf, int count, MPI_Datatype dtype, int dest,
                     int tag, MPI_Comm comm_h, int mode)
{
    mp_comm *comm;
    mp_datatype *dt;
    int err = check_send(F, buf, count, dtype, dest, tag, comm_h, &comm, &dt);
    if (err)
        return err;
    return mp_ret(comm, F, mp_send(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, mode));
}

static int isend_mode(const char *F, const void *buf, int count, MPI_Datatype dtype, int dest,
                      int tag, MPI_Comm comm_h, int mode, MPI_Request *request)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *req;
    int err = check_send(F, buf, count, dtype, dest, tag, comm_h, &comm, &dt);
    if (err || (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    err = mp_isend(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, mode, &req);
    if (err)
        return mp_ret(comm, F, err);
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Send", buf, count, dtype, dest, tag, comm, MP_MODE_STANDARD);
}
#pragma weak MPI_Send = PMPI_Send

int PMPI_Ssend(const void *buf, int count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Ssend", buf, count, dtype, dest, tag, comm, MP_MODE_SYNC);
}
#pragma weak MPI_Ssend = PMPI_Ssend

int PMPI_Rsend(const void *buf, int count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Rsend", buf, count, dtype, dest, tag, comm, MP_MODE_READY);
}
#pragma weak MPI_Rsend = PMPI_Rsend

int PMPI_Isend(const void *buf, int count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend_mode("MPI_Isend", buf, count, dtype, dest, tag, comm, MP_MODE_STANDARD, request);
}
#pragma weak MPI_Isend = PMPI_Isend

int PMPI_Issend(const void *buf, int count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Issend", buf, count, dtype, dest, tag, comm, MP_MODE_SYNC, request);
}
#pragma weak MPI_Issend = PMPI_Issend

int PMPI_Irsend(const void *buf, int count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Irsend", buf, count, dtype, dest, tag, comm, MP_MODE_READY, request);
}
#pragma weak MPI_Irsend = PMPI_Irsend

int PMPI_Recv(void *buf, int count, MPI_Datatype dtype, int source, int tag, MPI_Comm comm_h,
              MPI_Status *status)
{
    static const char *const F = "MPI_Recv";
    mp_comm *comm;
    mp_datatype *dt;
    int err = check_recv(F, buf, count, dtype, source, tag, comm_h, &comm, &dt);
    if (err)
        return err;
    return mp_ret(comm, F, mp_recv(buf, count, dt, source, tag, comm, MP_CTX_PT2PT, status));
}
#pragma weak MPI_Recv = PMPI_Recv

int PMPI_Irecv(void *buf, int count, MPI_Datatype dtype, int source, int tag, MPI_Comm comm_h,
               MPI_Request *request)
{
    static const char *const F = "MPI_Irecv";
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *req;
    int err = check_recv(F, buf, count, dtype, source, tag, comm_h, &comm, &dt);
    if (err || (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    err = mp_irecv(buf, count, dt, source, tag, comm, MP_CTX_PT2PT, &req);
    if (err)
        return mp_ret(comm, F, err);
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}
#pragma weak MPI_Irecv = PMPI_Irecv

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                  MPI_Comm comm_h, MPI_Status *status)
{
    static const char *const F = "MPI_Sendrecv";
    mp_comm *comm;
    mp_datatype *sdt, *rdt;
    int err;
    if ((err = check_send(F, sbuf, scount, stype, dest, stag, comm_h, &comm, &sdt)) ||
        (err = check_recv(F, rbuf, rcount, rtype, source, rtag, comm_h, &comm, &rdt)))
        return err;
    return mp_ret(comm, F, mp_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt,
                                       source, rtag, comm, MP_CTX_PT2PT, status));
}
#pragma weak MPI_Sendrecv = PMPI_Sendrecv

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype dtype, int *count)
{
    static const char *const F = "MPI_Get_count";
    mp_datatype *dt;
    int err;
    if ((err = mp_arg_datatype(F, NULL, dtype, 0, &dt)))
        return err;
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid status pointer %p", (void *)status);
    MPI_Count bytes = mp_status_bytes(status);
    if (dt->size == 0)
        *count = 0;
    else if (bytes % dt->size != 0 || bytes / dt->size > 0x7fffffff)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / dt->size);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_count = PMPI_Get_count

/* ---- completion ---------------------------------------------------------------------- */

/* Resolves a user request handle; MPI_REQUEST_NULL gives NULL with no error. */
static int lookup_request(const char *F, MPI_Request h, mp_request **out)
{
    *out = NULL;
    if (h == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    mp_request *r = mp_request_get(h);
    if (r == NULL)
        return mp_error(NULL, MPI_ERR_REQUEST, F, "invalid request handle 0x%x", (unsigned)h);
    *out = r;
    return MPI_SUCCESS;
}

/* Finishes a completed request for the user: status out, free, handle reset. */
static int finish(mp_request *req, MPI_Request *handle, MPI_Status *status)
{
    int err = req->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE)
        *status = req->status;
    mp_request_free(req);
    *handle = MPI_REQUEST_NULL;
    return err;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char *const F = "MPI_Wait";
    mp_request *req;
    int err;
    if ((err = mp_arg_initialized(F)) || (err = mp_arg_request_ptr(F, NULL, request)) ||
        (err = lookup_request(F, *request, &req)))
        return err;
    if (req == NULL) {
        if (status != MPI_STATUS_IGNORE)
            mp_status_empty(status);
        return MPI_SUCCESS;
    }
    mp_comm *comm = req->comm;
    if (!mp_request_is_done(req))
        mp_wait_request(req);
    return mp_ret(comm, F, finish(req, request, status));
}
#pragma weak MPI_Wait = PMPI_Wait

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char *const F = "MPI_Test";
    mp_request *req;
    int err;
    if ((err = mp_arg_initialized(F)) || (err = mp_arg_request_ptr(F, NULL, request)) ||
        (err = lookup_request(F, *request, &req)))
        return err;
    if (req == NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            mp_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!mp_request_is_done(req))
        mp_progress();
    *flag = mp_request_is_done(req);
    if (!*flag)
        return MPI_SUCCESS;
    mp_comm *comm = req->comm;
    return mp_ret(comm, F, finish(req, request, status));
}
#pragma weak MPI_Test = PMPI_Test

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    static const char *const F = "MPI_Waitall";
    int err;
    if ((err = mp_arg_initialized(F)))
        return err;
    if (count < 0)
        return mp_error(NULL, MPI_ERR_COUNT, F, "invalid count %d", count);
    if (count > 0 && requests == NULL)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid request array NULL");
    for (int i = 0; i < count; i++) {
        mp_request *req;
        if ((err = lookup_request(F, requests[i], &req)))
            return err;
    }
    int any_error = 0;
    mp_comm *err_comm = NULL;
    for (int i = 0; i < count; i++) {
        mp_request *req = requests[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(requests[i]);
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (req == NULL) {
            if (st != MPI_STATUS_IGNORE)
                mp_status_empty(st);
            continue;
        }
        if (!mp_request_is_done(req))
            mp_wait_request(req);
        mp_comm *comm = req->comm;
        int e = finish(req, &requests[i], st);
        if (e != MPI_SUCCESS) {
            any_error = 1;
            err_comm = comm;
        } else if (st != MPI_STATUS_IGNORE) {
            st->MPI_ERROR = MPI_SUCCESS;
        }
    }
    if (any_error)
        return mp_error(err_comm, MPI_ERR_IN_STATUS, F, "one or more requests failed; see the "
                        "MPI_ERROR field of the statuses");
    return MPI_SUCCESS;
}
#pragma weak MPI_Waitall = PMPI_Waitall

int PMPI_Iprobe(int source, int tag, MPI_Comm comm_h, int *flag, MPI_Status *status)
{
    static const char *const F = "MPI_Iprobe";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, comm_h, &comm)) ||
        (err = mp_arg_rank(F, comm, source, MP_ALLOW_PROC_NULL | MP_ALLOW_ANY)) ||
        (err = mp_arg_tag(F, comm, tag, MP_ALLOW_ANY)))
        return err;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE) {
            mp_status_empty(status);
            status->MPI_SOURCE = MPI_PROC_NULL;
        }
        return MPI_SUCCESS;
    }
    *flag = mp_iprobe(source, tag, comm, MP_CTX_PT2PT, status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Iprobe = PMPI_Iprobe

int PMPI_Probe(int source, int tag, MPI_Comm comm_h, MPI_Status *status)
{
    static const char *const F = "MPI_Probe";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, comm_h, &comm)) ||
        (err = mp_arg_rank(F, comm, source, MP_ALLOW_PROC_NULL | MP_ALLOW_ANY)) ||
        (err = mp_arg_tag(F, comm, tag, MP_ALLOW_ANY)))
        return err;
    if (source == MPI_PROC_NULL) {
        if (status != MPI_STATUS_IGNORE) {
            mp_status_empty(status);
            status->MPI_SOURCE = MPI_PROC_NULL;
        }
        return MPI_SUCCESS;
    }
    unsigned spins = 0;
    while (!mp_iprobe(source, tag, comm, MP_CTX_PT2PT, status))
        mp_idle(&spins);
    return MPI_SUCCESS;
}
#pragma weak MPI_Probe = PMPI_Probe

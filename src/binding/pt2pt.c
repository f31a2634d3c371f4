/* pt2pt.c -- MPI point-to-point entry points.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Argument checks, handle translation, and a call into the pt2pt layer.  Requests handed to
 * the user get an integer handle; MPI_Wait and friends free non-persistent ones and reset the
 * user's handle to MPI_REQUEST_NULL, as the standard requires.
 */
#include "binding/binding.h"
#include <stdlib.h>

static inline int check_send(const char *F, const void *buf, MPI_Count count, MPI_Datatype dtype,
                             int dest, int tag, MPI_Comm comm_h, mp_comm **comm, mp_datatype **dt)
{
    return mp_arg_p2p(F, buf, (MPI_Aint)count, dtype, dest, tag, comm_h, MP_ALLOW_PROC_NULL, 0,
                      comm, dt);
}

static inline int check_recv(const char *F, const void *buf, MPI_Count count, MPI_Datatype dtype,
                             int src, int tag, MPI_Comm comm_h, mp_comm **comm, mp_datatype **dt)
{
    return mp_arg_p2p(F, buf, (MPI_Aint)count, dtype, src, tag, comm_h,
                      MP_ALLOW_PROC_NULL | MP_ALLOW_ANY, MP_ALLOW_ANY, comm, dt);
}

static int send_mode(const char *F, const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
                     int tag, MPI_Comm comm_h, int mode)
{
    mp_comm *comm;
    mp_datatype *dt;
    int err = check_send(F, buf, count, dtype, dest, tag, comm_h, &comm, &dt);
    if (err)
        return err;
    return mp_ret(comm, F, mp_send(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, mode));
}

static int isend_mode(const char *F, const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
                      int tag, MPI_Comm comm_h, int mode, MPI_Request *request)
{
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
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

static int send_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Send", buf, count, dtype, dest, tag, comm, MP_MODE_STANDARD);
}
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return send_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Send = PMPI_Send

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return send_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Send_c = PMPI_Send_c

static int ssend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Ssend", buf, count, dtype, dest, tag, comm, MP_MODE_SYNC);
}
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return ssend_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Ssend = PMPI_Ssend

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return ssend_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Ssend_c = PMPI_Ssend_c

static int rsend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm)
{
    return send_mode("MPI_Rsend", buf, count, dtype, dest, tag, comm, MP_MODE_READY);
}
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return rsend_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Rsend = PMPI_Rsend

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return rsend_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Rsend_c = PMPI_Rsend_c

static int isend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend_mode("MPI_Isend", buf, count, dtype, dest, tag, comm, MP_MODE_STANDARD, request);
}
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return isend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Isend = PMPI_Isend

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return isend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Isend_c = PMPI_Isend_c

static int issend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Issend", buf, count, dtype, dest, tag, comm, MP_MODE_SYNC, request);
}
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return issend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Issend = PMPI_Issend

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return issend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Issend_c = PMPI_Issend_c

static int irsend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend_mode("MPI_Irsend", buf, count, dtype, dest, tag, comm, MP_MODE_READY, request);
}
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return irsend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Irsend = PMPI_Irsend

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return irsend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Irsend_c = PMPI_Irsend_c

static int recv_impl(void *buf, MPI_Count count, MPI_Datatype dtype, int source, int tag, MPI_Comm comm_h,
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
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MP_BIG_LOCK();
    return recv_impl(buf, count, datatype, source, tag, comm, status);
}
#pragma weak MPI_Recv = PMPI_Recv

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MP_BIG_LOCK();
    return recv_impl(buf, count, datatype, source, tag, comm, status);
}
#pragma weak MPI_Recv_c = PMPI_Recv_c

static int irecv_impl(void *buf, MPI_Count count, MPI_Datatype dtype, int source, int tag, MPI_Comm comm_h,
               MPI_Request *request)
{
    static const char *const F = "MPI_Irecv";
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
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
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return irecv_impl(buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Irecv = PMPI_Irecv

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return irecv_impl(buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Irecv_c = PMPI_Irecv_c

static int sendrecv_impl(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
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
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MP_BIG_LOCK();
    return sendrecv_impl(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}
#pragma weak MPI_Sendrecv = PMPI_Sendrecv

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MP_BIG_LOCK();
    return sendrecv_impl(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}
#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c

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

int PMPI_Iprobe(int source, int tag, MPI_Comm comm_h, int *flag, MPI_Status *status)
{
    MP_BIG_LOCK();
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
    MP_BIG_LOCK();
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
        mp_idle_packet(&spins);
    return MPI_SUCCESS;
}
#pragma weak MPI_Probe = PMPI_Probe

/* ---- buffered, persistent, matched-probe, replace ------------------------------------ */

static int bsend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm_h)
{
    static const char *const F = "MPI_Bsend";
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *req;
    int err = check_send(F, buf, count, dtype, dest, tag, comm_h, &comm, &dt);
    if (err)
        return err;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((err = mp_ibsend(buf, count, dt, dest, tag, comm, &req)))
        return mp_ret(comm, F, err);
    mp_request_free(req);
    return MPI_SUCCESS;
}
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return bsend_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Bsend = PMPI_Bsend

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MP_BIG_LOCK();
    return bsend_impl(buf, count, datatype, dest, tag, comm);
}
#pragma weak MPI_Bsend_c = PMPI_Bsend_c

static int ibsend_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag, MPI_Comm comm_h,
                MPI_Request *request)
{
    static const char *const F = "MPI_Ibsend";
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *req;
    int err = check_send(F, buf, count, dtype, dest, tag, comm_h, &comm, &dt);
    if (err || (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    if (dest == MPI_PROC_NULL)
        err = mp_isend(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, MP_MODE_STANDARD, &req);
    else
        err = mp_ibsend(buf, count, dt, dest, tag, comm, &req);
    if (err)
        return mp_ret(comm, F, err);
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return ibsend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Ibsend = PMPI_Ibsend

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return ibsend_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c

int PMPI_Buffer_attach(void *buffer, int size)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Buffer_attach";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    if (size < 0 || (buffer == NULL && size > 0))
        return mp_error(NULL, MPI_ERR_BUFFER, F, "invalid buffer %p of size %d", buffer, size);
    return mp_ret(NULL, F, mp_bsend_attach(buffer, (size_t)size));
}
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Buffer_detach";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    void *buf;
    size_t n;
    mp_bsend_detach(&buf, &n);
    *(void **)buffer_addr = buf;
    *size = (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

static int send_init(const char *F, const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
                     int tag, MPI_Comm comm_h, int mode, MPI_Request *request)
{
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_comm *comm;
    mp_datatype *dt;
    int err = check_send(F, buf, count, dtype, dest, tag, comm_h, &comm, &dt);
    if (err || (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    mp_request *req = mp_persistent_new(MP_REQ_PSEND, (void *)buf, count, dt, dest, tag, comm, mode);
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}

static int send_init_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Send_init", buf, count, dtype, dest, tag, comm, MP_MODE_STANDARD, request);
}
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return send_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Send_init = PMPI_Send_init

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return send_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Send_init_c = PMPI_Send_init_c

static int ssend_init_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Ssend_init", buf, count, dtype, dest, tag, comm, MP_MODE_SYNC, request);
}
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return ssend_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Ssend_init = PMPI_Ssend_init

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return ssend_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c

static int rsend_init_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Rsend_init", buf, count, dtype, dest, tag, comm, MP_MODE_READY, request);
}
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return rsend_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Rsend_init = PMPI_Rsend_init

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return rsend_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c

static int bsend_init_impl(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return send_init("MPI_Bsend_init", buf, count, dtype, dest, tag, comm, MP_MODE_BUFFERED, request);
}
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return bsend_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Bsend_init = PMPI_Bsend_init

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return bsend_init_impl(buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c

static int recv_init_impl(void *buf, MPI_Count count, MPI_Datatype dtype, int source, int tag, MPI_Comm comm_h,
                   MPI_Request *request)
{
    static const char *const F = "MPI_Recv_init";
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_comm *comm;
    mp_datatype *dt;
    int err = check_recv(F, buf, count, dtype, source, tag, comm_h, &comm, &dt);
    if (err || (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    mp_request *req = mp_persistent_new(MP_REQ_PRECV, buf, count, dt, source, tag, comm,
                                        MP_MODE_STANDARD);
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return recv_init_impl(buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Recv_init = PMPI_Recv_init

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return recv_init_impl(buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c

static int start_one(const char *F, MPI_Request h)
{
    mp_request *req = h == MPI_REQUEST_NULL ? NULL : mp_request_get(h);
    if (req == NULL || (req->kind != MP_REQ_PSEND && req->kind != MP_REQ_PRECV &&
                        req->kind != MP_REQ_PCOLL))
        return mp_error(NULL, MPI_ERR_REQUEST, F, "request 0x%x is not a persistent request",
                        (unsigned)h);
    if (req->inner != NULL)
        return mp_error(req->comm, MPI_ERR_REQUEST, F, "persistent request 0x%x is already "
                        "active", (unsigned)h);
    if (req->kind == MP_REQ_PCOLL)                 /* persistent collective: src/coll/persist.c */
        return mp_ret(req->comm, F, mp_coll_start(req));
    return mp_ret(req->comm, F, mp_start(req));
}

int PMPI_Start(MPI_Request *request)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Start";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = mp_arg_request_ptr(F, NULL, request)))
        return err;
    return start_one(F, *request);
}
#pragma weak MPI_Start = PMPI_Start

int PMPI_Startall(int count, MPI_Request requests[])
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Startall";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    if (count < 0 || (count > 0 && requests == NULL))
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid request array (count %d)", count);
    for (int i = 0; i < count; i++)
        if ((err = start_one(F, requests[i])))
            return err;
    return MPI_SUCCESS;
}
#pragma weak MPI_Startall = PMPI_Startall

static int probe_args(const char *F, int source, int tag, MPI_Comm comm_h, mp_comm **comm)
{
    int err;
    if ((err = mp_arg_comm(F, comm_h, comm)) ||
        (err = mp_arg_rank(F, *comm, source, MP_ALLOW_PROC_NULL | MP_ALLOW_ANY)) ||
        (err = mp_arg_tag(F, *comm, tag, MP_ALLOW_ANY)))
        return err;
    return MPI_SUCCESS;
}

static void proc_null_status(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        mp_status_empty(status);
        status->MPI_SOURCE = MPI_PROC_NULL;
    }
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm_h, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Improbe";
    MP_OUT_NULL(message, MPI_MESSAGE_NULL);
    mp_comm *comm;
    mp_request *msg;
    int err = probe_args(F, source, tag, comm_h, &comm);
    if (err)
        return err;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    *flag = mp_improbe(source, tag, comm, MP_CTX_PT2PT, &msg, status);
    if (*flag)
        *message = mp_request_handle(msg);
    return MPI_SUCCESS;
}
#pragma weak MPI_Improbe = PMPI_Improbe

int PMPI_Mprobe(int source, int tag, MPI_Comm comm_h, MPI_Message *message, MPI_Status *status)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Mprobe";
    MP_OUT_NULL(message, MPI_MESSAGE_NULL);
    mp_comm *comm;
    mp_request *msg;
    int err = probe_args(F, source, tag, comm_h, &comm);
    if (err)
        return err;
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    unsigned spins = 0;
    while (!mp_improbe(source, tag, comm, MP_CTX_PT2PT, &msg, status))
        mp_idle_packet(&spins);
    *message = mp_request_handle(msg);
    return MPI_SUCCESS;
}
#pragma weak MPI_Mprobe = PMPI_Mprobe

/* Resolves a message handle for Mrecv/Imrecv; *msg NULL means MPI_MESSAGE_NO_PROC. */
static int message_arg(const char *F, MPI_Message *message, mp_request **msg)
{
    int err;
    if ((err = mp_arg_initialized(F)))
        return err;
    if (message == NULL)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid message pointer NULL");
    *msg = NULL;
    if (*message == MPI_MESSAGE_NO_PROC)
        return MPI_SUCCESS;
    mp_request *m = *message == MPI_MESSAGE_NULL ? NULL : mp_request_get(*message);
    if (m == NULL || m->kind != MP_REQ_PROBE)
        return mp_error(NULL, MPI_ERR_REQUEST, F, "invalid message handle 0x%x", (unsigned)*message);
    *msg = m;
    return MPI_SUCCESS;
}

static int imrecv_impl(void *buf, MPI_Count count, MPI_Datatype dtype, MPI_Message *message, MPI_Request *request)
{
    static const char *const F = "MPI_Imrecv";
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_request *msg, *req;
    mp_datatype *dt;
    int err;
    if ((err = message_arg(F, message, &msg)) || (err = mp_arg_request_ptr(F, NULL, request)))
        return err;
    mp_comm *comm = msg ? msg->comm : NULL;
    if ((err = mp_arg_datatype(F, comm, dtype, count, &dt)))
        return err;
    if (msg == NULL)
        err = mp_irecv(buf, count, dt, MPI_PROC_NULL, 0, mp_world.comm_self, MP_CTX_PT2PT, &req);
    else
        err = mp_imrecv(buf, count, dt, msg, &req);
    if (err)
        return mp_ret(comm, F, err);
    *message = MPI_MESSAGE_NULL;
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    MP_BIG_LOCK();
    return imrecv_impl(buf, count, datatype, message, request);
}
#pragma weak MPI_Imrecv = PMPI_Imrecv

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    MP_BIG_LOCK();
    return imrecv_impl(buf, count, datatype, message, request);
}
#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c

static int mrecv_impl(void *buf, MPI_Count count, MPI_Datatype dtype, MPI_Message *message, MPI_Status *status)
{
    static const char *const F = "MPI_Mrecv";
    mp_request *msg, *req;
    mp_datatype *dt;
    int err;
    if ((err = message_arg(F, message, &msg)))
        return err;
    mp_comm *comm = msg ? msg->comm : NULL;
    if ((err = mp_arg_datatype(F, comm, dtype, count, &dt)))
        return err;
    *message = MPI_MESSAGE_NULL;
    if (msg == NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    mp_imrecv(buf, count, dt, msg, &req);
    return mp_ret(comm, F, mp_wait(req, status));
}
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    MP_BIG_LOCK();
    return mrecv_impl(buf, count, datatype, message, status);
}
#pragma weak MPI_Mrecv = PMPI_Mrecv

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    MP_BIG_LOCK();
    return mrecv_impl(buf, count, datatype, message, status);
}
#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c

static int sendrecv_replace_impl(void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int stag,
                          int source, int rtag, MPI_Comm comm_h, MPI_Status *status)
{
    static const char *const F = "MPI_Sendrecv_replace";
    mp_comm *comm;
    mp_datatype *dt;
    int err;
    if ((err = check_send(F, buf, count, dtype, dest, stag, comm_h, &comm, &dt)) ||
        (err = check_recv(F, buf, count, dtype, source, rtag, comm_h, &comm, &dt)))
        return err;
    size_t bytes = mp_datatype_bytes(dt, count);
    void *tmp = mp_malloc(bytes);
    mp_pack(buf, count, dt, 0, tmp, bytes);
    err = mp_sendrecv(tmp, (MPI_Aint)bytes, mp_datatype_get(MPI_BYTE), dest, stag, buf, count, dt,
                      source, rtag, comm, MP_CTX_PT2PT, status);
    free(tmp);
    return mp_ret(comm, F, err);
}
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MP_BIG_LOCK();
    return sendrecv_replace_impl(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MP_BIG_LOCK();
    return sendrecv_replace_impl(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c

static int isendrecv_impl(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source, int rtag,
                   MPI_Comm comm_h, MPI_Request *request)
{
    static const char *const F = "MPI_Isendrecv";
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_comm *comm;
    mp_datatype *sdt, *rdt;
    mp_request *req;
    int err;
    if ((err = check_send(F, sbuf, scount, stype, dest, stag, comm_h, &comm, &sdt)) ||
        (err = check_recv(F, rbuf, rcount, rtype, source, rtag, comm_h, &comm, &rdt)) ||
        (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    err = mp_isendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm,
                       NULL, &req);
    *request = mp_request_handle(req);
    return mp_ret(comm, F, err);
}
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return isendrecv_impl(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request);
}
#pragma weak MPI_Isendrecv = PMPI_Isendrecv

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return isendrecv_impl(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, request);
}
#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c

static int isendrecv_replace_impl(void *buf, MPI_Count count, MPI_Datatype dtype, int dest, int stag,
                           int source, int rtag, MPI_Comm comm_h, MPI_Request *request)
{
    static const char *const F = "MPI_Isendrecv_replace";
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *req;
    int err;
    if ((err = check_send(F, buf, count, dtype, dest, stag, comm_h, &comm, &dt)) ||
        (err = check_recv(F, buf, count, dtype, source, rtag, comm_h, &comm, &dt)) ||
        (err = mp_arg_request_ptr(F, comm, request)))
        return err;
    size_t bytes = mp_datatype_bytes(dt, count);
    void *tmp = mp_malloc(bytes);
    mp_pack(buf, count, dt, 0, tmp, bytes);
    err = mp_isendrecv(tmp, (MPI_Aint)bytes, mp_datatype_get(MPI_BYTE), dest, stag, buf, count,
                       dt, source, rtag, comm, tmp, &req);
    *request = mp_request_handle(req);
    return mp_ret(comm, F, err);
}
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return isendrecv_replace_impl(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}
#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return isendrecv_replace_impl(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}
#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c

int PMPI_Pcontrol(const int level, ...)
{
    (void)level;                          /* no profiling levels: a no-op, as the standard allows */
    return MPI_SUCCESS;
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype dtype, MPI_Count *count)
{
    static const char *const F = "MPI_Get_count_c";
    mp_datatype *dt;
    int err;
    if ((err = mp_arg_datatype(F, NULL, dtype, 0, &dt)))
        return err;
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid status pointer %p", (void *)status);
    MPI_Count bytes = mp_status_bytes(status);
    if (dt->size == 0)
        *count = 0;
    else if (bytes % dt->size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = bytes / dt->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_count_c = PMPI_Get_count_c

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Buffer_attach_c";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    if (size < 0 || (buffer == NULL && size > 0))
        return mp_error(NULL, MPI_ERR_BUFFER, F, "invalid buffer %p of size %lld", buffer,
                        (long long)size);
    return mp_ret(NULL, F, mp_bsend_attach(buffer, (size_t)size));
}
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    MP_BIG_LOCK();
    int err = mp_arg_initialized("MPI_Buffer_detach_c");
    if (err)
        return err;
    void *buf;
    size_t n;
    mp_bsend_detach(&buf, &n);
    *(void **)buffer_addr = buf;
    *size = (MPI_Count)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c

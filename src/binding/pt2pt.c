/* pt2pt.c -- what the point-to-point entry points do beyond their description.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * src/binding/pt2pt.spec describes every point-to-point function; the common sends and
 * receives call the pt2pt layer directly.  What is left here: buffered sends, the replace
 * forms (which send a packed copy), probes and matched receives (MPI_PROC_NULL gives an empty
 * status and MPI_MESSAGE_NO_PROC), MPI_Start(all), the detached buffer and MPI_Get_count.
 * Requests handed to the user get an integer handle; MPI_Wait and friends (request.c) free
 * non-persistent ones and reset the user's handle to MPI_REQUEST_NULL.
 */
#include "binding/binding.h"
#include <stdlib.h>

/* ---- buffered and replace forms ---------------------------------------------------------- */

int mp_do_bsend(const char *F, const void *buf, MPI_Aint count, mp_datatype *dt, int dest,
                int tag, mp_comm *comm)
{
    mp_request *req;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int err = mp_ibsend(buf, count, dt, dest, tag, comm, &req);
    if (!err)
        mp_request_free(req);
    return err;
}

int mp_do_ibsend(const char *F, const void *buf, MPI_Aint count, mp_datatype *dt, int dest,
                 int tag, mp_comm *comm, mp_request **req)
{
    if (dest == MPI_PROC_NULL)
        return mp_isend(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, MP_MODE_STANDARD, req);
    return mp_ibsend(buf, count, dt, dest, tag, comm, req);
}

/* The send side of a replace call: a packed copy of buf (the caller frees *tmp). */
static size_t packed_copy(void *buf, MPI_Aint count, mp_datatype *dt, void **tmp)
{
    size_t bytes = mp_datatype_bytes(dt, count);
    *tmp = mp_malloc(bytes);
    mp_pack(buf, count, dt, 0, *tmp, bytes);
    return bytes;
}

int mp_do_sendrecv_replace(const char *F, void *buf, MPI_Aint count, mp_datatype *dt, int dest,
                           int sendtag, int source, int recvtag, mp_comm *comm,
                           MPI_Status *status)
{
    void *tmp;
    size_t bytes = packed_copy(buf, count, dt, &tmp);
    int err = mp_sendrecv(tmp, (MPI_Aint)bytes, mp_datatype_get(MPI_BYTE), dest, sendtag, buf,
                          count, dt, source, recvtag, comm, MP_CTX_PT2PT, status);
    free(tmp);
    return err;
}

/* The copy belongs to the request, which frees it when it completes. */
int mp_do_isendrecv_replace(const char *F, void *buf, MPI_Aint count, mp_datatype *dt,
                            int dest, int sendtag, int source, int recvtag, mp_comm *comm,
                            mp_request **req)
{
    void *tmp;
    size_t bytes = packed_copy(buf, count, dt, &tmp);
    return mp_isendrecv(tmp, (MPI_Aint)bytes, mp_datatype_get(MPI_BYTE), dest, sendtag, buf,
                        count, dt, source, recvtag, comm, tmp, req);
}

/* ---- persistent requests ------------------------------------------------------------------ */

/* Starts one persistent request; raises its errors (through the request's communicator). */
static int start_one(const char *F, MPI_Request h)
{
    mp_request *req = h == MPI_REQUEST_NULL ? NULL : mp_request_get(h);
    if (req == NULL || (req->kind != MP_REQ_PSEND && req->kind != MP_REQ_PRECV &&
                        req->kind != MP_REQ_PCOLL && req->kind != MP_REQ_PART))
        return mp_error(NULL, MPI_ERR_REQUEST, F, "request 0x%x is not a persistent request",
                        (unsigned)h);
    if (req->kind == MP_REQ_PART ? mp_part_active(req) : req->inner != NULL)
        return mp_error(req->comm, MPI_ERR_REQUEST, F, "persistent request 0x%x is already "
                        "active", (unsigned)h);
    if (req->kind == MP_REQ_PCOLL)                 /* persistent collective: src/coll/persist.c */
        return mp_ret(req->comm, F, mp_coll_start(req));
    if (req->kind == MP_REQ_PART)                  /* partitioned: src/pt2pt/part.c */
        return mp_ret(req->comm, F, mp_part_start(req));
    return mp_ret(req->comm, F, mp_start(req));
}

int mp_do_start(const char *F, MPI_Request *request)
{
    return start_one(F, *request);
}

int mp_do_startall(const char *F, int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        int err = start_one(F, requests[i]);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

/* ---- probes and matched receives ---------------------------------------------------------- */

static void proc_null_status(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        mp_status_empty(status);
        status->MPI_SOURCE = MPI_PROC_NULL;
    }
}

int mp_do_iprobe(const char *F, int source, int tag, mp_comm *comm, int *flag,
                 MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    *flag = mp_iprobe(source, tag, comm, MP_CTX_PT2PT, status);
    return MPI_SUCCESS;
}

int mp_do_probe(const char *F, int source, int tag, mp_comm *comm, MPI_Status *status)
{
    int flag;
    unsigned spins = 0;
    while (mp_do_iprobe(F, source, tag, comm, &flag, status), !flag)
        mp_idle_packet(&spins);
    return MPI_SUCCESS;
}

int mp_do_improbe(const char *F, int source, int tag, mp_comm *comm, int *flag,
                  MPI_Message *message, MPI_Status *status)
{
    mp_request *msg;
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

int mp_do_mprobe(const char *F, int source, int tag, mp_comm *comm, MPI_Message *message,
                 MPI_Status *status)
{
    int flag;
    unsigned spins = 0;
    while (mp_do_improbe(F, source, tag, comm, &flag, message, status), !flag)
        mp_idle_packet(&spins);
    return MPI_SUCCESS;
}

/* Resolves a message handle and the datatype of Mrecv/Imrecv, raising errors (through the
 * message's communicator once it is known); *msg NULL means MPI_MESSAGE_NO_PROC. */
static int message_args(const char *F, MPI_Message *message, MPI_Datatype dth, MPI_Aint count,
                        mp_request **msg, mp_datatype **dt)
{
    *msg = NULL;
    if (*message != MPI_MESSAGE_NO_PROC) {
        mp_request *m = *message == MPI_MESSAGE_NULL ? NULL : mp_request_get(*message);
        if (m == NULL || m->kind != MP_REQ_PROBE)
            return mp_error(NULL, MPI_ERR_REQUEST, F, "invalid message handle 0x%x",
                            (unsigned)*message);
        *msg = m;
    }
    mp_comm *comm = *msg ? (*msg)->comm : NULL;
    return mp_error_raise(comm, mp_chk_datatype(F, dth, count, dt), F);
}

int mp_do_imrecv(const char *F, void *buf, MPI_Aint count, MPI_Datatype dth,
                 MPI_Message *message, mp_request **req)
{
    mp_request *msg;
    mp_datatype *dt;
    int err = message_args(F, message, dth, count, &msg, &dt);
    if (err)
        return err;
    if (msg == NULL)
        err = mp_irecv(buf, count, dt, MPI_PROC_NULL, 0, mp_world.comm_self, MP_CTX_PT2PT, req);
    else
        err = mp_imrecv(buf, count, dt, msg, req);
    if (err)
        return mp_error_raise(msg ? msg->comm : NULL, err, F);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int mp_do_mrecv(const char *F, void *buf, MPI_Aint count, MPI_Datatype dth,
                MPI_Message *message, MPI_Status *status)
{
    mp_request *msg, *req;
    mp_datatype *dt;
    int err = message_args(F, message, dth, count, &msg, &dt);
    if (err)
        return err;
    *message = MPI_MESSAGE_NULL;
    if (msg == NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    mp_comm *comm = msg->comm;
    mp_imrecv(buf, count, dt, msg, &req);
    return mp_ret(comm, F, mp_wait(req, status));
}

/* ---- the buffer of buffered mode, counts --------------------------------------------------- */

/* MPI_BUFFER_AUTOMATIC takes no size; anything else is size bytes at buffer. */
int mp_do_bbuf_attach(const char *F, mp_bbuf *b, void *buffer, MPI_Aint size)
{
    if (buffer != MPI_BUFFER_AUTOMATIC && (size < 0 || (!buffer && size != 0)))
        return mp_err(F, MPI_ERR_BUFFER, "invalid buffer %p of size %ld", buffer, (long)size);
    int err = mp_bbuf_attach(b, buffer, buffer == MPI_BUFFER_AUTOMATIC ? 0 : (size_t)size);
    return err ? mp_err(F, mp_error_class_of(err), "%s", mp_error_message(err)) : MPI_SUCCESS;
}

int mp_do_bbuf_detach(const char *F, mp_bbuf *b, void *buffer_addr, MPI_Aint *size)
{
    void *buf;
    size_t n;
    if (!mp_bbuf_attached(b))
        return mp_err(F, MPI_ERR_BUFFER, "no buffer is attached");
    mp_bbuf_detach(b, &buf, &n);
    *(void **)buffer_addr = buf;
    *size = (MPI_Aint)n;
    return MPI_SUCCESS;
}

/* A communicator's own buffer slot, made on first use. */
mp_bbuf *mp_comm_bbuf(mp_comm *comm)
{
    if (comm->bbuf == NULL)
        comm->bbuf = mp_bbuf_new();
    return comm->bbuf;
}

int mp_do_buffer_detach(const char *F, void *buffer_addr, MPI_Aint *size)
{
    void *buf;
    size_t n;
    mp_bsend_detach(&buf, &n);
    *(void **)buffer_addr = buf;
    *size = (MPI_Aint)n;
    return MPI_SUCCESS;
}

/* MPI_UNDEFINED unless the status holds a whole number of elements of dt. */
int mp_do_get_count(const char *F, const MPI_Status *status, mp_datatype *dt, MPI_Aint *count)
{
    MPI_Count bytes = mp_status_bytes(status);
    if (dt->size == 0)
        *count = 0;
    else if (bytes % dt->size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = (MPI_Aint)(bytes / dt->size);
    return MPI_SUCCESS;
}

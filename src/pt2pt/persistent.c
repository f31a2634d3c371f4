/* persistent.c -- persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Start).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A persistent request is a saved argument list.  MPI_Start turns it into an ordinary
 * operation (req->inner) through the same paths as MPI_Isend/MPI_Irecv -- including the
 * request-for-sending protocol, which is where persistent receives posted early pay off.
 * Completion functions finish the inner request and leave the persistent one inactive.
 * The request holds references on its datatype and communicator, so freeing either while
 * the request lives is safe.
 */
#include "pt2pt/proto.h"

mp_request *mp_persistent_new(int kind, void *buf, MPI_Aint count, mp_datatype *dt, int peer,
                              int tag, mp_comm *comm, int mode)
{
    mp_request *req = mp_request_alloc(kind);
    mp_request_set_message(req, buf, count, dt, peer, tag, comm);
    req->mode = (uint8_t)mode;
    mp_datatype_retain(dt);
    atomic_fetch_add_explicit(&comm->refs, 1, memory_order_relaxed);
    atomic_store_explicit(&req->done, 1, memory_order_relaxed);   /* inactive */
    mp_status_empty(&req->status);
    return req;
}

int mp_start(mp_request *req)
{
    int err;
    if (req->kind == MP_REQ_PRECV)
        err = mp_irecv(req->buf, req->count, req->dt, req->peer, req->tag, req->comm,
                       MP_CTX_PT2PT, &req->inner);
    else if (req->mode == MP_MODE_BUFFERED)
        err = mp_ibsend(req->buf, req->count, req->dt, req->peer, req->tag, req->comm, &req->inner);
    else
        err = mp_isend(req->buf, req->count, req->dt, req->peer, req->tag, req->comm,
                       MP_CTX_PT2PT, req->mode, &req->inner);
    if (err != MPI_SUCCESS)
        req->inner = NULL;
    return err;
}

void mp_persistent_free(mp_request *req)
{
    mp_datatype_release(req->dt);
    mp_comm_release(req->comm);
    mp_request_free(req);
}

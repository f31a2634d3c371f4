/* cancel.c -- MPI_Cancel for receives and for sends not yet matched.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 *  - A posted receive is removed from the posted queue and completes as cancelled -- unless
 *    it has a request for sending outstanding, in which case the sender might be writing into
 *    its buffer: it withdraws the SREQ (SRCANCEL) and decides when the answer arrives.
 *  - A send still queued locally (nothing handed to the transport) keeps its sequence number
 *    but transmits a NULLMSG in its place, so its track's numbering stays gap-free.
 *  - A send whose first packet left but which is not matched (rendezvous waiting for FIN,
 *    synchronous eager waiting for ACK) asks the receiver (CANCEL_REQ, naming the message by
 *    its sequence number) to withdraw it from the unexpected queue; the answer says whether
 *    it did.  To oneself that exchange runs before MPI_Cancel returns (only this process
 *    takes part), so such a send is decided, complete or not cancellable, at once.
 * While a handshake is under way the request does not complete, even if its data finishes
 * (cancel_pending defers completion), so the answer never finds a recycled request.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>

static void cancel_done(mp_request *req)
{
    mp_status_set_cancelled(&req->status, 1);
    mp_status_set_bytes(&req->status, 0);
    req->error = MPI_SUCCESS;
    if (req->kind == MP_REQ_RECV) {
        mp_op_release_type(req);
        req->status.MPI_ERROR = MPI_SUCCESS;
        req->state = MP_ST_DONE;
        mp_request_complete(req);
    } else {
        mp_send_complete(req);
    }
}

int mp_cancel(mp_request *req)
{
    if (mp_request_is_done(req) || req->cancel_pending)
        return MPI_SUCCESS;
    switch (req->state) {
    case MP_ST_RECV_POSTED:
        if (req->sreq_out) {
            req->cancel_pending = 1;
            mp_hdr h;             /* its context names the SREQ's track (sendreq.c) */
            mp_hdr_control(&h, MP_PKT_SRCANCEL, mp_request_cookie(req), 0);
            h.ctx = req->ctx;
            mp_send_ctrl(req->world_peer, &h);
        } else {
            mp_posted_remove(req);
            cancel_done(req);
        }
        break;
    case MP_ST_SEND_EAGER:
    case MP_ST_SEND_RTS:
    case MP_ST_SEND_RWDONE:
        if (req->done_bytes == 0)          /* still queued: nothing left this process */
            req->state = MP_ST_SEND_NULL;
        break;
    case MP_ST_WAIT_FIN:
    case MP_ST_WAIT_ACK: {
        mp_hdr h = { .type = MP_PKT_CANCEL_REQ, .cookie = mp_request_cookie(req),
                     .ctx = req->ctx, .seq = req->seq };
        req->cancel_pending = 1;
        mp_send_ctrl(req->world_peer, &h);
        /* To oneself the answer needs no other process: decide now, so that a cancelled
         * send is complete when MPI_Cancel returns (as a message between two peers would
         * be once the peer answers). */
        while (req->world_peer == mp_world.rank && req->cancel_pending)
            mp_progress();
        break;
    }
    default:
        break;                             /* matched or in flight: cannot be cancelled */
    }
    return MPI_SUCCESS;
}

/* Receiver: withdraw the unexpected message the sender `world` identifies by its sequence
 * number.  Not by its cookie alone: every eager message carries its request's address, and a
 * request completed at hand-over is recycled at once, so an older unexpected eager message
 * may carry the same cookie as the send being cancelled. */
static void on_cancel_req(int world, const mp_hdr *h)
{
    mp_hdr reply = { .type = MP_PKT_CANCEL_REP, .cookie = h->cookie };
    mp_mq *q = mp_mq_of(h->ctx);
    for (mp_unexp *u = q->unexp_head; u; u = u->next) {
        if (u->world_src != world || u->seq != h->seq)
            continue;
        if (u->type == MP_PKT_RTS || u->received == u->size) {
            mp_unexp_remove(q, u);
            free(u->data);
            free(u);
            reply.flags = MP_HDR_CANCELLED;
        }
        break;
    }
    mp_send_ctrl(world, &reply);
}

void mp_cancel_on_packet(int world, const mp_hdr *h)
{
    switch (h->type) {
    case MP_PKT_CANCEL_REQ:
        on_cancel_req(world, h);
        return;
    }
    mp_request *req = mp_request_of_cookie(h->cookie);
    MP_ASSERT(req->cancel_pending);
    switch (h->type) {
    case MP_PKT_CANCEL_REP:
        req->cancel_pending = 0;
        if (h->flags & MP_HDR_CANCELLED)
            cancel_done(req);
        else if (req->state == MP_ST_DONE)
            mp_request_complete(req);      /* finished while we asked */
        break;
    case MP_PKT_SRCANCEL_ACK:
        req->cancel_pending = 0;
        req->sreq_out = 0;
        if (req->state == MP_ST_RECV_POSTED) {
            mp_posted_remove(req);
            cancel_done(req);
        } else if (req->state == MP_ST_DONE) {
            mp_request_complete(req);
        }
        break;
    }
}

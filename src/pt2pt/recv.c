/* recv.c -- the receiver's side of the protocol and the packet handler.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every packet that a transport delivers arrives in mp_recv_on_packet.  First packets of a
 * message (EAGER, RTS, RWDONE, NULLMSG) carry their track's sequence number (proto.h), which
 * must be the next one expected on that track from that peer: a gap is a protocol bug and
 * stops the job loudly rather than reordering.
 * A first packet either matches the earliest posted receive or becomes an unexpected message
 * (eager data is copied out of the queue at once, so the sender's queue space is free again
 * as soon as we poll).  Replies -- ACK, FIN, CTS -- go out as control packets.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

/* Copies packed bytes [offset, offset+len) of the message into the receive buffer, dropping
 * what lies beyond the buffer's capacity (the truncation error is recorded at match time). */
void mp_deliver(mp_request *req, size_t offset, const void *data, size_t len)
{
    if (offset >= req->bytes || len == 0)
        return;
    if (len > req->bytes - offset)
        len = req->bytes - offset;
    if (req->dt->is_contig)
        memcpy((char *)req->buf + req->dt->true_lb + offset, data, len);
    else
        mp_unpack(req->buf, req->count, req->dt, offset, data, len);
}

void mp_recv_complete(mp_request *req)
{
    mp_op_release_type(req);
    req->status.MPI_ERROR = req->error;
    req->state = MP_ST_DONE;
    if (!req->cancel_pending)             /* else the SRCANCEL answer completes it */
        mp_request_complete(req);
}

void mp_send_reply(int world, int type, uint64_t cookie, uint64_t addr)
{
    mp_hdr h;
    mp_hdr_control(&h, type, cookie, addr);
    mp_send_ctrl(world, &h);
}

void mp_ack_if_sync(int world, const mp_hdr *first)
{
    if (first->flags & MP_HDR_SYNC)
        mp_send_reply(world, MP_PKT_ACK, first->cookie, 0);
}

/* Sets source, tag, count and the truncation error of a matched receive. */
static void set_match_status(mp_request *req, int src, int tag, size_t size)
{
    req->status.MPI_SOURCE = src;
    req->status.MPI_TAG = tag;
    size_t got = size < req->bytes ? size : req->bytes;
    mp_status_set_bytes(&req->status, (MPI_Count)got);
    req->msg_bytes = size;
    if (size > req->bytes)
        req->error = mp_error_code(MPI_ERR_TRUNCATE, "message of %zu bytes from rank %d "
                                   "(tag %d) truncated to the %zu bytes of the receive buffer",
                                   size, src, tag, req->bytes);
}

/* A rendezvous read started with read_start finished: as at the end of a synchronous one. */
static void rndv_read_done(void *arg, int err)
{
    mp_request *req = arg;
    if (err != MPI_SUCCESS && req->error == MPI_SUCCESS)
        req->error = err;
    mp_send_reply(req->world_peer, MP_PKT_FIN, req->peer_req, 0);
    mp_recv_complete(req);
}

/* Rendezvous, receiver side: pull with single copy, or ask the sender to stream.  A
 * contiguous buffer is read asynchronously where the transport can and will (read_start; the
 * FIN then goes to peer_req), so the next message's rendezvous overlaps this one's data. */
static void rndv_receive(mp_request *req, int world, size_t size, uint64_t cookie, uint64_t addr)
{
    mp_transport *tp = mp_p2p.peers[world].tp;
    req->world_peer = world;
    if (tp->single_copy && addr != 0) {
        size_t want = size < req->bytes ? size : req->bytes;
        if (req->dt->is_contig && tp->read_start && want > 0) {
            req->state = MP_ST_RECV_READING;
            req->peer_req = cookie;
            if (tp->read_start(world, addr, (char *)req->buf + req->dt->true_lb, want,
                               rndv_read_done, req) == MPI_SUCCESS)
                return;
        }
        if (mp_copy_deferred(world)) {    /* out of the handler: copy.c */
            mp_pull_later(req, world, cookie, addr, want);
            return;
        }
        int err = mp_copy_shared(0, world, addr, cookie, req->buf, req->count, req->dt, want);
        if (err != MPI_SUCCESS && req->error == MPI_SUCCESS)
            req->error = err;
        mp_send_reply(world, MP_PKT_FIN, cookie, 0);
        mp_recv_complete(req);
    } else {
        req->state = MP_ST_RECV_FRAGS;
        req->done_bytes = 0;
        mp_send_reply(world, MP_PKT_CTS, cookie, mp_request_cookie(req));
        if (size == 0)
            mp_recv_complete(req);
    }
}

void mp_recv_match_unexp(mp_request *req, mp_unexp *u)
{
    set_match_status(req, u->src, u->tag, u->size);
    if (u->type == MP_PKT_RTS) {
        rndv_receive(req, u->world_src, u->size, u->cookie, u->addr);
        free(u);
        return;
    }
    if (u->flags & MP_HDR_SYNC)
        mp_send_reply(u->world_src, MP_PKT_ACK, u->cookie, 0);
    if (u->received < u->size) {          /* fragments still arriving: finish on the last */
        u->waiting = req;
        req->state = MP_ST_RECV_WAIT_UNEXP;
        return;
    }
    mp_deliver(req, 0, u->data, u->size);
    free(u->data);
    free(u);
    mp_recv_complete(req);
}

void mp_recv_take_whole(mp_request *req, const mp_hdr *h, const void *payload)
{
    set_match_status(req, h->src, h->tag, h->size);
    mp_deliver(req, 0, payload, h->len);
    req->done_bytes = h->len;
    mp_recv_complete(req);
}

/* Every message consumes its track's next sequence number exactly once, in order. */
static void check_seq(int world, mp_track *t, const mp_hdr *h)
{
    if (MP_UNLIKELY(h->seq != t->recv_seq))
        mp_fatal("protocol error: message %u from rank %d (track %u) arrived when %u was "
                 "expected", h->seq, world, mp_track_index(h->ctx), t->recv_seq);
    t->recv_seq++;
}

/* RWDONE: the sender wrote the message into the receive that requested it. */
static void on_rwdone(int world, mp_track *t, const mp_hdr *h)
{
    check_seq(world, t, h);
    mp_request *req = mp_request_of_cookie(h->cookie);
    if (req->kind != MP_REQ_RECV || req->state != MP_ST_RECV_POSTED)
        mp_fatal("protocol error: remote write from rank %d into a receive that is not posted", world);
    mp_posted_remove(req);
    req->sreq_out = 0;
    set_match_status(req, h->src, h->tag, h->size);
    mp_recv_complete(req);
}

static void on_first_packet(int world, mp_track *t, const mp_hdr *h, const void *payload)
{
    check_seq(world, t, h);
    mp_mq *q = mp_mq_of(h->ctx);
    mp_request *req = mp_match_posted(q, h->src, h->tag);
    if (req) {
        set_match_status(req, h->src, h->tag, h->size);
        if (h->type == MP_PKT_RTS) {
            rndv_receive(req, world, h->size, h->cookie, h->addr);
            return;
        }
        mp_ack_if_sync(world, h);
        mp_deliver(req, 0, payload, h->len);
        req->done_bytes = h->len;
        if (h->len < h->size) {
            req->state = MP_ST_RECV_FRAGS;
            t->in_req = req;
        } else {
            mp_recv_complete(req);
        }
        return;
    }
    mp_unexp *u = mp_calloc(1, sizeof *u);
    u->type = h->type;
    u->world_src = world;
    u->ctx = h->ctx;
    u->src = h->src;
    u->tag = h->tag;
    u->seq = h->seq;
    u->flags = h->flags;
    u->size = h->size;
    u->cookie = h->cookie;
    u->addr = h->addr;
    if (h->type == MP_PKT_EAGER) {
        u->data = mp_malloc(h->size);
        memcpy(u->data, payload, h->len);
        u->received = h->len;
        if (u->received < u->size)
            t->in_unexp = u;
    }
    mp_unexp_append(q, u);
}

static void on_frag(mp_peer *peer, const mp_hdr *h, const void *payload)
{
    if (h->cookie != 0) {                 /* pipelined rendezvous into a matched receive */
        mp_request *req = mp_request_of_cookie(h->cookie);
        MP_ASSERT(req->kind == MP_REQ_RECV && req->state == MP_ST_RECV_FRAGS);
        mp_deliver(req, req->done_bytes, payload, h->len);
        req->done_bytes += h->len;
        if (req->done_bytes >= req->msg_bytes)
            mp_recv_complete(req);
        return;
    }
    mp_track *t = mp_track_of(peer, h->ctx);  /* an eager continuation: of its track's message */
    if (t->in_req) {                      /* receive already matched */
        mp_request *req = t->in_req;
        mp_deliver(req, req->done_bytes, payload, h->len);
        req->done_bytes += h->len;
        if (req->done_bytes >= req->msg_bytes) {
            t->in_req = NULL;
            mp_recv_complete(req);
        }
        return;
    }
    mp_unexp *u = t->in_unexp;            /* unexpected message */
    if (u == NULL)
        mp_fatal("protocol error: fragment without a message in progress");
    memcpy(u->data + u->received, payload, h->len);
    u->received += h->len;
    if (u->received < u->size)
        return;
    t->in_unexp = NULL;
    if (u->waiting) {
        mp_request *req = u->waiting;
        mp_deliver(req, 0, u->data, u->size);
        free(u->data);
        free(u);
        mp_recv_complete(req);
    }
}

/* SPLIT: the peer copies a message between our request's buffer and its own and offers to
 * share the work.  Our request is a receive whose SREQ the peer is writing into, or a
 * rendezvous send the peer is pulling (from the packed copy if the type is not contiguous);
 * the packet precedes the RWDONE or FIN that completes it, so the request is still there.
 * The owner reports a failure of our part; we only copy. */
void mp_split_on_packet(int world, const mp_hdr *h)
{
    mp_request *req = mp_request_of_cookie(h->cookie);
    int write = req->kind == MP_REQ_SEND;
    MP_ASSERT(write ? req->state == MP_ST_WAIT_FIN : req->state == MP_ST_RECV_POSTED);
    void *local = write && req->tmp ? req->tmp : (char *)req->buf + req->dt->true_lb;
    if (mp_copy_deferred(world)) {        /* out of the handler, maybe unlocked: copy.c */
        mp_help_later(world, h->seq, write, h->addr, local, h->size);
        return;
    }
    mp_transport *tp = mp_p2p.peers[world].tp;
    size_t helped = 0;
    tp->split_copy(world, 0, h->seq, write, h->addr, local, h->size, &helped);
    mp_stat.split_help_bytes += helped;
}

void mp_recv_on_packet(int world, const mp_hdr *h, const void *payload)
{
    mp_peer *peer = &mp_p2p.peers[world];
    switch (h->type) {
    case MP_PKT_EAGER:
    case MP_PKT_RTS:
        on_first_packet(world, mp_track_of(peer, h->ctx), h, payload);
        break;
    case MP_PKT_FRAG:
        on_frag(peer, h, payload);
        break;
    case MP_PKT_RWDONE:
        on_rwdone(world, mp_track_of(peer, h->ctx), h);
        break;
    case MP_PKT_NULLMSG:
        check_seq(world, mp_track_of(peer, h->ctx), h);
        break;
    case MP_PKT_SREQ:
        mp_sendreq_on_sreq(world, h);
        break;
    case MP_PKT_SRCANCEL:
        mp_sendreq_on_cancel(world, h);
        break;
    case MP_PKT_SPLIT:
        mp_split_on_packet(world, h);
        break;
    case MP_PKT_SRCANCEL_ACK:
    case MP_PKT_CANCEL_REQ:
    case MP_PKT_CANCEL_REP:
        mp_cancel_on_packet(world, h);
        break;
    case MP_PKT_CTS: {
        mp_request *req = mp_request_of_cookie(h->cookie);
        MP_ASSERT(req->kind == MP_REQ_SEND && req->state == MP_ST_WAIT_FIN);
        req->peer_req = h->addr;
        req->done_bytes = 0;
        req->state = MP_ST_SEND_STREAM;
        mp_send_queue(peer, req);
        break;
    }
    case MP_PKT_FIN: {
        mp_request *req = mp_request_of_cookie(h->cookie);
        MP_ASSERT(req->kind == MP_REQ_SEND && req->state == MP_ST_WAIT_FIN);
        mp_send_complete(req);
        break;
    }
    case MP_PKT_ACK: {
        mp_request *req = mp_request_of_cookie(h->cookie);
        MP_ASSERT(req->kind == MP_REQ_SEND && req->mode == MP_MODE_SYNC);
        if (req->state == MP_ST_WAIT_ACK)
            mp_send_complete(req);
        else
            req->acked = 1;               /* matched before its last fragment left */
        break;
    }
    default:
        mp_fatal("protocol error: unknown packet type %d from rank %d", h->type, world);
    }
}

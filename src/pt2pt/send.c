/* send.c -- the sender's side of the protocol: eager, rendezvous, pending queues.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A send becomes a request queued on its peer's track (proto.h).  Only the head of a track's
 * queue hands packets to the transport, so the first packets of a communicator's messages
 * leave in the order of the send calls; when the transport answers MP_AGAIN (queue or pool
 * full) the request stays at the head and the progress engine retries, taking the peer's
 * tracks in turn so that one busy communicator cannot keep another's sends waiting for ever.
 * Nonblocking sends therefore never block, and a blocking send waits while polling, so two
 * ranks flooding each other both drain and neither deadlocks.
 *
 *   eager       size <= the transport's eager_max: EAGER packet + FRAG packets, complete when
 *               handed over (synchronous mode: when the receiver's ACK arrives)
 *   rendezvous  RTS with the buffer address; the receiver pulls with single copy and sends
 *               FIN, or, without single copy, answers CTS and we stream FRAGs to its request
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

static int *active;            /* peers with queued work, unordered */
static int nactive;
static char *is_active;

static void mark_active(int world)
{
    if (!is_active[world]) {
        is_active[world] = 1;
        active[nactive++] = world;
    }
}

void mp_send_init_queues(void)
{
    active = NULL;
    is_active = NULL;
}

void mp_send_grow_queues(int old_n, int new_n)
{
    active = mp_realloc(active, sizeof(int) * (size_t)new_n);
    is_active = mp_realloc(is_active, (size_t)new_n);
    memset(is_active + old_n, 0, (size_t)(new_n - old_n));
}

/* A derived datatype may be freed by the user while an operation using it is pending
 * (MPI_Type_free is legal then): the operation holds a reference until it completes. */
void mp_op_hold_type(mp_request *req)
{
    if (!req->dt->is_builtin) {
        mp_datatype_retain(req->dt);
        req->dt_held = 1;
    }
}

void mp_op_release_type(mp_request *req)
{
    if (req->dt_held) {
        req->dt_held = 0;
        mp_datatype_release(req->dt);
    }
}

void mp_send_complete(mp_request *req)
{
    free(req->tmp);
    req->tmp = NULL;
    mp_op_release_type(req);
    req->state = MP_ST_DONE;
    if (!req->cancel_pending)             /* else the cancel answer completes it */
        mp_request_complete(req);
}

static void fill_hdr(mp_hdr *h, const mp_request *req, int type)
{
    mp_hdr_message(h, type, req->ctx, req->comm->rank, req->tag, req->seq, req->bytes);
}

void mp_stat_sent(int proto, size_t bytes)
{
    mp_stat.msgs_sent++;
    mp_stat.bytes_sent += bytes;
    switch (proto) {
    case MP_PROTO_EAGER:
        mp_stat.eager_msgs++;
        mp_stat.eager_bytes += bytes;
        break;
    case MP_PROTO_SENDREQ:
        mp_stat.sendreq_msgs++;
        mp_stat.sendreq_bytes += bytes;
        break;
    default:
        mp_stat.rndv_msgs++;
        mp_stat.rndv_bytes += bytes;
        break;
    }
}

/* Remote Write: the whole message straight into the receiver's posted buffer, which the
 * receiver helps fill if it is polling (MP_PKT_SPLIT). */
static void remote_write(mp_request *req, int in_hook)
{
    int err = in_hook ? mp_copy_in_hook(1, req->world_peer, req->remote_addr, req->peer_req,
                                        req->buf, req->count, req->dt, req->bytes)
                      : mp_copy_shared(1, req->world_peer, req->remote_addr, req->peer_req,
                                       req->buf, req->count, req->dt, req->bytes);
    if (err != MPI_SUCCESS)
        mp_fatal("remote write to rank %d failed: %s", req->world_peer, mp_error_message(err));
}

/* Once threads meet in the library the remote write of the peer's head send runs from the
 * hook, possibly without the big lock (copy.c says what keeps the peer's queue safe). */
static int write_later(const mp_request *req)
{
    return req->state == MP_ST_SEND_RWDONE && req->done_bytes < req->bytes &&
           mp_copy_deferred(req->world_peer);
}

static void remote_write_in_hook(mp_track *t, mp_request *req)
{
    t->copying = 1;
    req->done_bytes = req->bytes;         /* taken: a cancel leaves it alone */
    remote_write(req, 1);
    t->copying = 0;
}

/* Hands as much of `req` to the transport as it takes.  Returns 1 when the request no longer
 * needs its place at the head of the queue, 0 when the transport is full. */
static int transmit(mp_request *req)
{
    mp_transport *tp = mp_p2p.peers[req->world_peer].tp;
    mp_hdr h;
    mp_payload pl = { req->tmp ? req->tmp : req->buf, req->count, req->tmp ? NULL : req->dt, 0, 0 };
    switch (req->state) {
    case MP_ST_SEND_EAGER:
        do {
            size_t off = req->done_bytes;
            size_t len = req->bytes - off < tp->max_payload ? req->bytes - off : tp->max_payload;
            fill_hdr(&h, req, off == 0 ? MP_PKT_EAGER : MP_PKT_FRAG);
            if (off == 0) {
                h.cookie = mp_request_cookie(req);
                h.flags = req->mode == MP_MODE_SYNC ? MP_HDR_SYNC : 0;
            }
            pl.offset = off;
            pl.len = len;
            if (tp->send(req->world_peer, &h, &pl) == MP_AGAIN)
                return 0;
            req->done_bytes = off + len;
        } while (req->done_bytes < req->bytes);
        if (req->mode == MP_MODE_SYNC && !req->acked)
            req->state = MP_ST_WAIT_ACK;
        else
            mp_send_complete(req);
        return 1;
    case MP_ST_SEND_RTS:
        fill_hdr(&h, req, MP_PKT_RTS);
        h.cookie = mp_request_cookie(req);
        if (tp->single_copy)
            h.addr = req->tmp ? (uint64_t)(uintptr_t)req->tmp
                              : (uint64_t)(uintptr_t)((char *)req->buf + req->dt->true_lb);
        req->state = MP_ST_WAIT_FIN;   /* before send: a reply can only come after it */
        if (tp->send(req->world_peer, &h, NULL) == MP_AGAIN) {
            req->state = MP_ST_SEND_RTS;
            return 0;
        }
        return 1;
    case MP_ST_SEND_RWDONE:
        if (req->done_bytes < req->bytes) {   /* the remote write, once */
            remote_write(req, 0);
            req->done_bytes = req->bytes;
        }
        /* Its SPLIT may wait in the control queue (the ring was full): RWDONE must not pass
         * it, or the receiver meets a SPLIT for a receive already complete. */
        if (mp_p2p.peers[req->world_peer].ctrl_head)
            return 0;
        fill_hdr(&h, req, MP_PKT_RWDONE);
        h.cookie = req->peer_req;
        if (tp->send(req->world_peer, &h, NULL) == MP_AGAIN)
            return 0;
        if (req->ack_after)               /* a withdrawal waited for this RWDONE (sendreq.c) */
            mp_send_reply(req->world_peer, MP_PKT_SRCANCEL_ACK, req->peer_req, 0);
        mp_send_complete(req);
        return 1;
    case MP_ST_SEND_NULL:
        fill_hdr(&h, req, MP_PKT_NULLMSG);
        if (tp->send(req->world_peer, &h, NULL) == MP_AGAIN)
            return 0;
        if (req->ack_after)               /* it had taken an SREQ that was then withdrawn */
            mp_send_reply(req->world_peer, MP_PKT_SRCANCEL_ACK, req->peer_req, 0);
        mp_status_set_cancelled(&req->status, 1);
        mp_send_complete(req);
        return 1;
    case MP_ST_SEND_STREAM:
        while (req->done_bytes < req->bytes) {
            size_t off = req->done_bytes;
            size_t len = req->bytes - off < tp->max_payload ? req->bytes - off : tp->max_payload;
            fill_hdr(&h, req, MP_PKT_FRAG);
            h.cookie = req->peer_req;
            pl.offset = off;
            pl.len = len;
            if (tp->send(req->world_peer, &h, &pl) == MP_AGAIN)
                return 0;
            req->done_bytes = off + len;
        }
        mp_send_complete(req);
        return 1;
    default:
        return 1;
    }
}

/* Hands a track's queued sends to the transport.  Returns -1 when the transport is full, else
 * the sends finished.  *wrote: a remote write ran from here, and may have let go of the big
 * lock (the caller's view of the active peers is stale). */
static int flush_track(mp_track *t, int *wrote)
{
    int events = 0;
    if (t->copying)                       /* another thread writes the head's data */
        return 0;
    while (t->send_head) {
        mp_request *req = t->send_head;
        if (write_later(req)) {
            remote_write_in_hook(t, req);
            *wrote = 1;
        }
        mp_request *next = req->next;     /* transmit may complete and recycle req */
        if (!transmit(req))
            return -1;
        t->send_head = next;
        if (!t->send_head)
            t->send_tail = NULL;
        events++;
    }
    return events;
}

/* Hands the peer's queued packets to the transport: control packets first (they may overtake
 * sends), then each track's sends, starting from the track after the one that started last
 * time. */
static int flush_peer(int world, int *wrote)
{
    mp_peer *p = &mp_p2p.peers[world];
    int events = 0;
    while (p->ctrl_head) {
        mp_ctrl *c = p->ctrl_head;
        if (p->tp->send(world, &c->hdr, NULL) == MP_AGAIN)
            return events;
        p->ctrl_head = c->next;
        if (!p->ctrl_head)
            p->ctrl_tail = NULL;
        free(c);
        events++;
    }
    unsigned first = p->turn++;
    for (unsigned k = 0; k < MP_TRACKS; k++) {
        mp_track *t = mp_track_at(p, (first + k) & (MP_TRACKS - 1));
        int n = t ? flush_track(t, wrote) : 0;
        if (n < 0)
            return events;
        events += n;
    }
    return events;
}

static int peer_idle(mp_peer *p)
{
    if (p->ctrl_head)
        return 0;
    for (unsigned i = 0; i < MP_TRACKS; i++) {
        mp_track *t = mp_track_at(p, i);
        if (t && t->send_head)
            return 0;
    }
    return 1;
}

void mp_send_queue(mp_peer *peer, mp_request *req)
{
    req->next = NULL;
    int world = (int)(peer - mp_p2p.peers);
    mp_track *t = mp_track_of(peer, req->ctx);
    if (t->send_tail) {
        t->send_tail->next = req;
        t->send_tail = req;
        return;
    }
    if (!peer->ctrl_head && !write_later(req) && transmit(req))
        return;                           /* req may be complete and recycled already */
    t->send_head = t->send_tail = req;
    mark_active(world);
}

void mp_send_ctrl(int world, const mp_hdr *hdr)
{
    mp_peer *p = &mp_p2p.peers[world];
    if (!p->ctrl_head && p->tp->send(world, hdr, NULL) != MP_AGAIN)
        return;
    mp_ctrl *c = mp_malloc(sizeof *c);
    c->next = NULL;
    c->hdr = *hdr;
    if (p->ctrl_tail)
        p->ctrl_tail->next = c;
    else
        p->ctrl_head = c;
    p->ctrl_tail = c;
    mark_active(world);
}

int mp_send_flush(void)
{
    int events = 0;
    for (int i = 0; i < nactive;) {
        int w = active[i], wrote = 0;
        events += flush_peer(w, &wrote);
        if (wrote)                        /* other threads may have changed active[] */
            return events + 1;
        if (peer_idle(&mp_p2p.peers[w])) {
            is_active[w] = 0;
            active[i] = active[--nactive];
        } else {
            i++;
        }
    }
    return events;
}

int mp_send_pending(void)
{
    return nactive;
}

/* Non-zero while some peer has queued work: gates the progress hook (core/progress.c). */
const int *mp_send_pending_gate(void)
{
    return &nactive;
}

int mp_isend(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
             mp_comm *comm, int ctx_offset, int mode, mp_request **out)
{
    mp_request *req = mp_request_alloc(MP_REQ_SEND);
    *out = req;
    req->mode = (uint8_t)mode;
    if (dest == MPI_PROC_NULL) {
        mp_status_empty(&req->status);
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->state = MP_ST_DONE;
        mp_request_complete(req);
        return MPI_SUCCESS;
    }
    mp_request_set_message(req, buf, count, dt, dest, tag, comm);
    req->ctx = comm->ctx + ctx_offset;
    req->bytes = mp_datatype_bytes(dt, count);
    mp_op_hold_type(req);
    int world = comm->is_inter ? comm->remote_world[dest] : comm->world[dest];
    req->world_peer = world;
    if (MP_UNLIKELY(mp_world.procs[world].failed)) {
        mp_p2p_fail_request(req, world);
        return MPI_SUCCESS;
    }
    mp_peer *peer = &mp_p2p.peers[world];
    mp_track *track = mp_track_of(peer, req->ctx);
    req->seq = mp_send_number(track, req->ctx, req->tag);
    mp_transport *tp = peer->tp;

    if (track->sreqs && mp_sendreq_take(track, req)) {
        req->state = MP_ST_SEND_RWDONE;
        mp_stat_sent(MP_PROTO_SENDREQ, req->bytes);
    } else if (req->bytes <= tp->eager_max) {
        req->state = MP_ST_SEND_EAGER;
        mp_stat_sent(MP_PROTO_EAGER, req->bytes);
    } else {
        req->state = MP_ST_SEND_RTS;
        mp_stat_sent(MP_PROTO_RNDV, req->bytes);
        mp_t_event(MP_T_EVENT_RNDV_START, world, dest, tag, req->ctx, req->bytes);
        if (tp->single_copy && !dt->is_contig) {
            /* The receiver pulls one contiguous range: pack once here. */
            req->tmp = mp_malloc(req->bytes);
            mp_pack(buf, count, dt, 0, req->tmp, req->bytes);
        }
    }
    mp_send_queue(peer, req);
    return MPI_SUCCESS;
}

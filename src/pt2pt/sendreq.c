/* sendreq.c -- the papers' "request for sending" (SR) and Remote Write.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * When a receive for a specific source is posted and nothing matching has arrived, the
 * receiver sends that source an SREQ carrying the receive buffer's address and capacity and
 * `first_seq`: the next sequence number of the context's track (proto.h) it has not seen.
 * The sender's next matching send then writes the data straight into the receive buffer
 * (process_vm_writev: one copy) and sends RWDONE in its place in the track's order.  The
 * rules that make this exactly-once and in order (docs/protocol.md):
 *
 *  1. Eligibility (receiver).  An SREQ is sent only if no receive posted earlier on the same
 *     context could match a message this receive could match (same or wildcard source,
 *     overlapping tag).  Then the first message from the source with seq >= first_seq that
 *     matches (context, tag) is, by MPI's matching order, this receive's message.
 *  2. Late SREQ (sender).  When the SREQ arrives, the sender looks at the envelopes of the
 *     messages it already numbered from first_seq on (a history of MP_HISTORY): if one of
 *     them matches, that message (sent eagerly or by rendezvous) is the receive's, and the
 *     SREQ is dropped.  If the history does not reach back far enough, it is dropped too --
 *     dropping is always safe: the receive stays posted and is matched normally.
 *  3. Use (sender).  Otherwise the SREQ waits; the first later send on (context, tag) takes
 *     it.  If that message does not fit or is too small to gain from a write, the SREQ is
 *     discarded and the message goes eagerly or by rendezvous (rule 2's reasoning again).
 *  4. Withdrawal.  A receive with an SREQ outstanding cannot be cancelled locally (the sender
 *     might be writing): it sends SRCANCEL; the sender removes the SREQ if still there and
 *     always answers SRCANCEL_ACK -- after the RWDONE of a send that took the SREQ, if that
 *     RWDONE is still queued (control packets otherwise overtake queued sends).  Per-pair
 *     FIFO order of what the transport took then puts any RWDONE before that answer, so when
 *     the answer arrives the receive is either complete or safe to cancel.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

static int tags_overlap(int a, int b)
{
    return a == MPI_ANY_TAG || b == MPI_ANY_TAG || a == b;
}

uint32_t mp_send_number(mp_track *track, int ctx, int tag)
{
    uint32_t seq = track->send_seq++;
    mp_envelope *e = &track->history[seq % MP_HISTORY];
    e->ctx = ctx;
    e->tag = tag;
    return seq;
}

void mp_sendreq_maybe_post(mp_request *req)
{
    if (!mp_cfg.sendreq || req->peer < 0 || req->bytes < mp_cfg.sendreq_min ||
        !req->dt->is_contig)
        return;
    int world = req->comm->is_inter ? req->comm->remote_world[req->peer] : req->comm->world[req->peer];
    mp_peer *peer = &mp_p2p.peers[world];
    if (!peer->tp->single_copy || peer->tp->write == NULL)
        return;
    if (mp_posted_earlier_could_match(mp_mq_of(req->ctx), req->peer, req->tag, req))
        return;                           /* rule 1 */
    mp_hdr h;
    uint32_t first_seq = mp_track_of(peer, req->ctx)->recv_seq;
    mp_hdr_message(&h, MP_PKT_SREQ, req->ctx, 0, req->tag, first_seq, req->bytes);
    h.cookie = mp_request_cookie(req);
    h.addr = (uint64_t)(uintptr_t)((char *)req->buf + req->dt->true_lb);
    req->sreq_out = 1;
    req->world_peer = world;
    mp_send_ctrl(world, &h);
}

void mp_sendreq_on_sreq(int world, const mp_hdr *h)
{
    mp_track *t = mp_track_of(&mp_p2p.peers[world], h->ctx);
    uint32_t numbered = t->send_seq - h->seq;        /* messages numbered since first_seq */
    if (numbered > MP_HISTORY)
        return;                                      /* rule 2: cannot tell, drop */
    for (uint32_t s = h->seq; s != t->send_seq; s++) {
        mp_envelope *e = &t->history[s % MP_HISTORY];
        if (e->ctx == h->ctx && tags_overlap(h->tag, e->tag))
            return;                                  /* rule 2: already answered */
    }
    mp_sreq *r = mp_malloc(sizeof *r);
    r->next = NULL;
    r->ctx = h->ctx;
    r->tag = h->tag;
    r->first_seq = h->seq;
    r->capacity = h->size;
    r->cookie = h->cookie;
    r->addr = h->addr;
    mp_sreq **tail = &t->sreqs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = r;
}

int mp_sendreq_take(mp_track *track, mp_request *req)
{
    for (mp_sreq **pp = &track->sreqs; *pp; pp = &(*pp)->next) {
        mp_sreq *r = *pp;
        if (r->ctx != req->ctx || !tags_overlap(r->tag, req->tag))
            continue;
        *pp = r->next;                               /* this message answers it either way */
        int use = req->bytes <= r->capacity && req->bytes >= mp_cfg.sendreq_min;
        if (use) {
            req->peer_req = r->cookie;
            req->remote_addr = r->addr;
        }
        free(r);
        return use;
    }
    return 0;
}

/* SRCANCEL (on the receive's context, so on the SREQ's track): drop the SREQ if no send took
 * it yet.  If a send took it and its RWDONE still waits in the track's queue (the transport
 * was full), the answer must not overtake it -- control packets leave before queued sends --
 * so that send carries the answer out after its RWDONE (ack_after); the receive then
 * completes with the message, not cancelled. */
void mp_sendreq_on_cancel(int world, const mp_hdr *h)
{
    mp_track *t = mp_track_of(&mp_p2p.peers[world], h->ctx);
    for (mp_sreq **pp = &t->sreqs; *pp; pp = &(*pp)->next)
        if ((*pp)->cookie == h->cookie) {
            mp_sreq *r = *pp;
            *pp = r->next;
            free(r);
            break;
        }
    for (mp_request *q = t->send_head; q; q = q->next)
        if (q->state == MP_ST_SEND_RWDONE && q->peer_req == h->cookie) {
            q->ack_after = 1;
            return;
        }
    mp_send_reply(world, MP_PKT_SRCANCEL_ACK, h->cookie, 0);
}

/* netmsg.c -- the network transport's data path: send, poll, credits.  MemPI, BSD-3-Clause.
 *
 * send() packs wire header + point-to-point header + payload (through the datatype engine,
 * straight from the user's buffer) into an idle send buffer and posts it with fi_send, or
 * with fi_inject when the whole packet fits the provider's inject size (control packets: no
 * buffer, no completion).  No credit, no idle buffer, or a provider queue that is full all
 * answer MP_AGAIN before anything changed, so the point-to-point layer simply retries after
 * progress: nothing is dropped and per-pair order is kept.
 *
 * poll() reads the completion queue: a send completion returns its buffer, a receive
 * completion applies the returned credits, checks the packet number, hands the packet to the
 * protocol (mp_transport_deliver), reposts the buffer and owes the sender one credit.  Credits owed
 * go back on our next DATA packet to that peer, or in an explicit CREDIT packet once a
 * quarter of the window is owed (see net.h for why that never deadlocks).
 */
#include "transport/net/net.h"

#ifdef MEMPI_HAVE_LIBFABRIC
#include <string.h>

#define MP_NET_INLINE_MAX MP_NET_INJECT  /* largest packet built on the stack for fi_inject */

static uint16_t take_owed(mp_net_peer *p)
{
    int n = p->owed > 0xffff ? 0xffff : p->owed;
    return (uint16_t)n;
}

/* Posts `len` bytes already in buffer b (or inline bytes when b is NULL) to `peer`. */
static int post(int peer, mp_net_buf *b, const void *inline_bytes, size_t len)
{
    mp_net_peer *p = &mp_net.peers[peer];
    ssize_t rc;
    if (b == NULL) {
        rc = fi_inject(mp_net.ep, inline_bytes, len, p->addr);
    } else {
        b->peer = peer;
        rc = fi_send(mp_net.ep, b->data, len, mp_net.desc, p->addr, &b->ctx);
    }
    if (rc == -FI_EAGAIN)
        return MP_AGAIN;
    if (rc != 0)
        mp_fatal("network send to %s failed: %s", mp_net_peer_name(peer),
                 fi_strerror((int)-rc));
    return 0;
}

static mp_net_buf *send_buf(void)
{
    return mp_net.nsend_free ? mp_net.send_free[--mp_net.nsend_free] : NULL;
}

static void send_buf_release(mp_net_buf *b)
{
    mp_net.send_free[mp_net.nsend_free++] = b;
}

static int net_send(int world_peer, const mp_hdr *hdr, const mp_payload *payload)
{
    mp_net_peer *p = &mp_net.peers[world_peer];
    if (p->credits == 0)
        return MP_AGAIN;
    size_t len = payload ? payload->len : 0;
    mp_hdr h = *hdr;
    h.len = (uint32_t)len;
    mp_net_key key;
    mp_net_reg *made = NULL;
    int with_key = 0;
    if (mp_net.rma && (with_key = mp_net_rma_outgoing(world_peer, &h, &key, &made)) < 0)
        return 0;                      /* an SREQ we do not serve: as if lost, which is safe */
    size_t head = sizeof(mp_net_wire) + sizeof(mp_hdr) + (with_key ? sizeof key : 0);
    size_t total = head + len;
    mp_net_wire w = { MP_NET_MAGIC, MP_NET_DATA, with_key ? MP_NET_F_KEY : 0, take_owed(p),
                      p->wire_src, p->send_seq };
    int rc;
    if (total <= mp_net.inject_size && total <= MP_NET_INLINE_MAX) {
        /* Small enough to inject: the provider copies it now, no buffer, no completion. */
        char bytes[MP_NET_INLINE_MAX];
        memcpy(bytes, &w, sizeof w);
        memcpy(bytes + sizeof w, &h, sizeof h);
        if (with_key)
            memcpy(bytes + sizeof w + sizeof h, &key, sizeof key);
        mp_payload_copy(bytes + head, payload);
        rc = post(world_peer, NULL, bytes, total);
    } else {
        mp_net_buf *b = send_buf();
        if (b == NULL) {
            mp_net_rma_unsent(made);
            return MP_AGAIN;
        }
        memcpy(b->data, &w, sizeof w);
        memcpy(b->data + sizeof w, &h, sizeof h);
        if (with_key)
            memcpy(b->data + sizeof w + sizeof h, &key, sizeof key);
        mp_payload_copy(b->data + head, payload);
        rc = post(world_peer, b, NULL, total);
        if (rc != 0)
            send_buf_release(b);
    }
    if (rc != 0) {
        mp_net_rma_unsent(made);
        return rc;
    }
    p->credits--;
    p->send_seq++;
    p->owed -= w.credits;
    if (mp_net.rma)
        mp_net_rma_sent(world_peer, &h, made);
    return 0;
}

int mp_net_send_ctrl(int peer, int type)
{
    mp_net_peer *p = &mp_net.peers[peer];
    mp_net_wire w = { MP_NET_MAGIC, (uint8_t)type, 0, take_owed(p), p->wire_src,
                      type == MP_NET_BYE ? p->send_seq : 0 };
    int rc;
    /* BYE and BYE_ACK must leave before the endpoint closes: they take a buffer so that a
     * send completion tells us so.  CREDIT goes inline when the provider allows. */
    if (type == MP_NET_CREDIT && sizeof w <= mp_net.inject_size) {
        rc = post(peer, NULL, &w, sizeof w);
    } else {
        mp_net_buf *b = send_buf();
        if (b == NULL)
            return MP_AGAIN;
        memcpy(b->data, &w, sizeof w);
        rc = post(peer, b, NULL, sizeof w);
        if (rc != 0)
            send_buf_release(b);
    }
    if (rc == 0) {
        p->owed -= w.credits;
        if (type == MP_NET_BYE)
            p->send_seq++;
    }
    return rc;
}

/* Credits owed to a peer that are worth a CREDIT packet of their own. */
static int credit_threshold(void)
{
    return (mp_net.credits + 3) / 4;
}

/* One more consumed buffer of peer's.  A quarter of the window owed goes back at once, in the
 * middle of a batch of completions if need be (CREDIT is injected: no buffer, no re-entry),
 * so the sender never idles while the receiver copies out a whole window of fragments
 * (docs/decisions.md, "Credits at a quarter window"). */
static void owe(int peer)
{
    mp_net_peer *p = &mp_net.peers[peer];
    p->owed++;
    if (p->owed < credit_threshold())
        return;
    if (!mp_net.closing && p->reachable && mp_net_send_ctrl(peer, MP_NET_CREDIT) == 0)
        return;
    if (!p->owed_listed) {
        p->owed_listed = 1;
        mp_net.owed_list[mp_net.nowed++] = peer;
    }
}

/* Explicit credit returns for peers owed a quarter of a window or more that owe() could not
 * send at once (and not since repaid by piggy-backing).  After our BYE no more credits are
 * needed: the peer sends nothing more. */
static void return_credits(void)
{
    for (int i = 0; i < mp_net.nowed;) {
        int peer = mp_net.owed_list[i];
        mp_net_peer *p = &mp_net.peers[peer];
        if (!mp_net.closing && p->owed >= credit_threshold() &&
            (!p->reachable || mp_net_send_ctrl(peer, MP_NET_CREDIT) == MP_AGAIN)) {
            i++;
            continue;
        }
        p->owed_listed = 0;
        mp_net.owed_list[i] = mp_net.owed_list[--mp_net.nowed];
    }
}

static void send_bye_acks(void)
{
    for (int w = 0; w < mp_net.npeers && mp_net.acks_pending; w++) {
        mp_net_peer *p = &mp_net.peers[w];
        if (p->ack_pending && mp_net_send_ctrl(w, MP_NET_BYE_ACK) == 0) {
            p->ack_pending = 0;
            mp_net.acks_pending--;
        }
    }
}

/* Hands one in-order packet to the protocol, then gives its buffer back to the provider. */
static void deliver(int src, mp_net_buf *b, size_t len)
{
    const mp_net_wire *w = (const mp_net_wire *)b->data;
    mp_net_peer *p = &mp_net.peers[src];
    int type = w->type;
    p->recv_seq++;
    if (type == MP_NET_DATA) {
        const mp_hdr *h = (const mp_hdr *)(w + 1);
        const mp_net_key *key = (w->flags & MP_NET_F_KEY) ? (const mp_net_key *)(h + 1) : NULL;
        size_t head = sizeof *w + sizeof *h + (key ? sizeof *key : 0);
        if (MP_UNLIKELY(len != head + h->len))
            mp_fatal("network transport: packet from %s has %zu bytes, header says %zu",
                     mp_net_peer_name(src), len, head + (size_t)h->len);
        if (mp_net.rma)
            mp_net_rma_incoming(src, h, key);
        mp_transport_deliver(src, h, (const char *)b->data + head);
    } else {                                   /* BYE: the last numbered packet of a peer */
        p->bye = 1;
        mp_net.byes++;
        p->ack_pending = 1;
        mp_net.acks_pending++;
    }
    mp_net_post_recv(b);
    if (type == MP_NET_DATA)
        owe(src);
}

/* DATA and BYE packets carry the pair's packet number.  Providers keep send-after-send order
 * of *matching*, but completions may still come out of order (tcp;ofi_rxm completes a large
 * message after the data was pulled, a small one at once), so a packet that completes early
 * waits in its peer's window -- at most credits+1 of them -- until its turn. */
static void on_numbered(int src, mp_net_buf *b, size_t len)
{
    const mp_net_wire *w = (const mp_net_wire *)b->data;
    mp_net_peer *p = &mp_net.peers[src];
    if (w->seq != p->recv_seq) {
        uint32_t ahead = w->seq - p->recv_seq;
        uint32_t slot = w->seq % (uint32_t)mp_net.window;
        if (ahead >= (uint32_t)mp_net.window || p->held[slot] != NULL)
            mp_fatal("network transport: packet %u from %s arrived when %u was expected",
                     w->seq, mp_net_peer_name(src), p->recv_seq);
        p->held[slot] = b;
        p->held_len[slot] = len;
        return;
    }
    deliver(src, b, len);
    for (;;) {
        uint32_t slot = p->recv_seq % (uint32_t)mp_net.window;
        mp_net_buf *next = p->held[slot];
        if (next == NULL)
            break;
        p->held[slot] = NULL;
        deliver(src, next, p->held_len[slot]);
    }
}

static void on_receive(mp_net_buf *b, size_t len)
{
    const mp_net_wire *w = (const mp_net_wire *)b->data;
    if (len < sizeof *w || w->magic != MP_NET_MAGIC || w->src < 0 || w->src >= mp_net.npeers ||
        !mp_net.peers[w->src].remote)
        mp_fatal("network transport: malformed packet of %zu bytes (not from a MemPI rank of "
                 "this job?)", len);
    int src = w->src;
    mp_net_peer *p = &mp_net.peers[src];
    p->credits += w->credits;
    p->heard = 1;
    p->may_beat = 1;
    switch (w->type) {
    case MP_NET_DATA:
    case MP_NET_BYE:
        on_numbered(src, b, len);
        return;
    case MP_NET_CREDIT:
        break;
    case MP_NET_BYE_ACK:
        p->bye_acked = 1;
        mp_net.bye_acks++;
        break;
    default:
        mp_fatal("network transport: unknown packet type %u from %s", w->type,
                 mp_net_peer_name(src));
    }
    mp_net_post_recv(b);
}

static void cq_error(void)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    if (fi_cq_readerr(mp_net.cq, &e, 0) < 0)
        mp_fatal("network transport: completion queue error (unreadable)");
    mp_net_buf *b = e.op_context;
    if (b && b->kind == MP_NET_K_RMA_ASYNC) {  /* mp_net_poll reports it */
        mp_net_rma_async_done(b, e.err ? e.err : FI_EIO);
        return;
    }
    if (b && b->kind == MP_NET_K_RMA) {        /* the RMA wait reports it */
        mp_net.rma_pending--;
        if (mp_net.rma_err == 0)
            mp_net.rma_err = e.err ? e.err : FI_EIO;
        return;
    }
    char detail[256] = "";
    fi_cq_strerror(mp_net.cq, e.prov_errno, e.err_data, detail, sizeof detail);
    if (b && b->kind == MP_NET_K_SEND) {
        mp_note_peer_gone(b->peer);
        mp_fatal("network transport: send to %s failed: %s (%s) -- the rank died or the link "
                 "to its node is down", mp_net_peer_name(b->peer), fi_strerror(e.err), detail);
    }
    mp_fatal("network transport: receive failed: %s (%s)", fi_strerror(e.err), detail);
}

/* Reads up to one batch of completions.  With `defer` (inside an RMA wait, which may run in
 * the middle of the packet handler) arrived packets are queued, not handed over: the
 * protocol is never entered twice.  Their order does not matter, the window restores it. */
int mp_net_cq_batch(int defer)
{
    struct fi_cq_data_entry ent[16];
    ssize_t n = fi_cq_read(mp_net.cq, ent, 16);
    if (n == -FI_EAGAIN)
        return 0;
    if (n == -FI_EAVAIL) {
        cq_error();
        return 1;
    }
    if (n < 0)
        mp_fatal("network transport: fi_cq_read failed: %s", fi_strerror((int)-n));
    for (ssize_t i = 0; i < n; i++) {
        mp_net_buf *b = ent[i].op_context;
        switch (b->kind) {
        case MP_NET_K_RECV:
            if (defer) {
                int slot = (mp_net.deferred_head + mp_net.ndeferred++) % mp_net.nrecv;
                mp_net.deferred[slot].b = b;
                mp_net.deferred[slot].len = ent[i].len;
            } else {
                on_receive(b, ent[i].len);
            }
            break;
        case MP_NET_K_SEND:
            send_buf_release(b);
            break;
        case MP_NET_K_RMA_ASYNC:
            mp_net_rma_async_done(b, 0);
            break;
        default:
            mp_net.rma_pending--;
        }
    }
    return (int)n;
}

int mp_net_poll(int skip_world)
{
    (void)skip_world;                 /* no direct receive over the network */
    if (!mp_net.active)
        return 0;
    int events = 0;
    while (mp_net.ndeferred > 0) {
        mp_net_buf *b = mp_net.deferred[mp_net.deferred_head].b;
        size_t len = mp_net.deferred[mp_net.deferred_head].len;
        mp_net.deferred_head = (mp_net.deferred_head + 1) % mp_net.nrecv;
        mp_net.ndeferred--;
        on_receive(b, len);
        events++;
    }
    int n;
    while ((n = mp_net_cq_batch(0)) > 0) {
        events += n;
        if (n < 16)
            break;
    }
    mp_net_rma_async_run();
    if (mp_net.nowed)
        return_credits();
    if (mp_net.acks_pending)
        send_bye_acks();
    if (mp_net.timeout > 0 && (++mp_net.polls & 63) == 0)
        mp_net_check_liveness();
    return events;
}

mp_transport mp_net_transport = {
    .name = "net",
    .send = net_send,
    .poll = mp_net_poll,
};
#endif

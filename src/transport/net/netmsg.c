/* netmsg.c -- the network transport's data path: send, poll, credits.  MemPI, BSD-3-Clause.
 *
 * send() packs wire header + point-to-point header + payload (through the datatype engine,
 * straight from the user's buffer) into an idle send buffer and posts it with fi_send, or
 * with fi_inject when the whole packet fits the provider's inject size (control packets: no
 * buffer, no completion).  No credit, no idle buffer, or a provider queue that is full all
 * answer MP_AGAIN before anything changed, so the point-to-point layer simply retries after
 * progress: nothing is dropped and per-pair order is kept.
 *
 * Coalescing (MEMPI_NET_COALESCE): a message of at most MP_NET_BATCH_ITEM_MAX bytes that
 * finds its peer without credit is appended to that peer's batch -- a send buffer holding
 * messages packed behind one wire header -- and counts as sent.  While a batch exists every
 * message to that peer goes into it or waits (MP_AGAIN), so per-pair order is kept; the
 * batch leaves as one numbered BATCH packet with the first credit that comes back (poll, or
 * the next send).  A streaming sender thus moves a whole buffer of small messages per credit
 * where it moved one, and the receiver reads them with one completion.  At most half the send
 * buffers are batches, so DATA packets of other peers and BYE still find buffers.  Nothing
 * waits for the batch but itself: the receiver consumes every packet when it polls and owes
 * the credit back (below), and finalize waits for every send buffer, batches included, before
 * its BYE.
 *
 * poll() reads the completion queue: a send completion returns its buffer, a receive
 * completion applies the returned credits, checks the packet number, hands the packet to the
 * protocol (mp_transport_deliver), reposts the buffer and owes the sender one credit.  Credits owed
 * go back on our next DATA packet to that peer, or in an explicit CREDIT packet once a
 * quarter of the window is owed (see net.h for why that never deadlocks), for as long as the
 * peer needs them (needs_credits): a world peer may still flush a batch after our own BYE, and
 * it closes only after our BYE_ACK, which follows every CREDIT we sent it.
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

/* Bytes a message of `len` payload bytes takes in a batch (with a key, if it gets one). */
static size_t item_size(size_t len, int with_key)
{
    size_t n = sizeof(mp_net_item) + sizeof(mp_hdr) + (with_key ? sizeof(mp_net_key) : 0) + len;
    return (n + 7) & ~(size_t)7;
}

/* Whether a message of `len` payload bytes can join peer's batch (starting one if need be). */
static int batch_takes(const mp_net_peer *p, size_t len)
{
    if (!mp_net.coalesce || len > MP_NET_BATCH_ITEM_MAX)
        return 0;
    size_t used = p->batch ? p->batch_len : sizeof(mp_net_wire);
    if (used + item_size(len, 1) > mp_net.buf_size)
        return 0;
    return p->batch || (mp_net.nsend_free > 0 && 2 * (mp_net.nbatches + 1) <= mp_net.nsend);
}

/* Appends one message to peer's batch (batch_takes said it fits). */
static void batch_add(int peer, const mp_hdr *h, const mp_net_key *key,
                      const mp_payload *payload)
{
    mp_net_peer *p = &mp_net.peers[peer];
    if (p->batch == NULL) {
        p->batch = send_buf();
        p->batch_len = sizeof(mp_net_wire);
        mp_net.nbatches++;
    }
    char *at = p->batch->data + p->batch_len;
    mp_net_item it = { key ? MP_NET_F_KEY : 0, 0 };
    memcpy(at, &it, sizeof it);
    memcpy(at + sizeof it, h, sizeof *h);
    size_t head = sizeof it + sizeof *h;
    if (key) {
        memcpy(at + head, key, sizeof *key);
        head += sizeof *key;
    }
    mp_payload_copy(at + head, payload);
    p->batch_len += item_size(h->len, key != NULL);
    mp_stat.net_batched_msgs++;
}

/* Sends peer's batch if it has a credit; 0, or MP_AGAIN (the batch stays). */
static int batch_flush(int peer)
{
    mp_net_peer *p = &mp_net.peers[peer];
    if (p->credits == 0)
        return MP_AGAIN;
    mp_net_wire w = { MP_NET_MAGIC, MP_NET_BATCH, 0, take_owed(p), p->wire_src, p->send_seq };
    memcpy(p->batch->data, &w, sizeof w);
    int rc = post(peer, p->batch, NULL, p->batch_len);
    if (rc != 0)
        return rc;
    p->credits--;
    p->send_seq++;
    p->owed -= w.credits;
    p->batch = NULL;
    mp_net.nbatches--;
    mp_stat.net_batches++;
    return 0;
}

/* Batches whose peers have credit again (called by poll while any batch exists). */
static void batch_flush_all(void)
{
    for (int w = 0; w < mp_net.npeers && mp_net.nbatches; w++)
        if (mp_net.peers[w].batch && mp_net.peers[w].credits > 0)
            (void)batch_flush(w);
}

static int net_send(int world_peer, const mp_hdr *hdr, const mp_payload *payload)
{
    mp_net_peer *p = &mp_net.peers[world_peer];
    size_t len = payload ? payload->len : 0;
    int batching = p->credits == 0 || p->batch != NULL;
    if (batching && !batch_takes(p, len)) {
        /* It cannot join: behind the batch (sent first, to keep the order) or no credit. */
        if (p->batch == NULL || batch_flush(world_peer) != 0 || p->credits == 0)
            return MP_AGAIN;
        batching = 0;
    }
    mp_hdr h = *hdr;
    h.len = (uint32_t)len;
    mp_net_key key;
    mp_net_reg *made = NULL;
    int with_key = 0;
    if (mp_net.rma && (with_key = mp_net_rma_outgoing(world_peer, &h, &key, &made)) < 0)
        return 0;                      /* an SREQ we do not serve: as if lost, which is safe */
    if (batching) {
        batch_add(world_peer, &h, with_key ? &key : NULL, payload);
        if (mp_net.rma)
            mp_net_rma_sent(world_peer, &h, made);
        if (p->credits > 0)
            (void)batch_flush(world_peer);  /* else when a credit arrives (poll) */
        return 0;
    }
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

/* Whether peer may still send us packets that need credits: a world peer until its BYE (it
 * may flush a batch after our own BYE), a process of another job until our finalize (it takes
 * no part in the goodbye, and after MPI_Comm_disconnect nothing of its is in flight). */
static int needs_credits(const mp_net_peer *p)
{
    return p->foreign ? !mp_net.closing : !p->bye;
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
    if (needs_credits(p) && p->reachable && mp_net_send_ctrl(peer, MP_NET_CREDIT) == 0)
        return;
    if (!p->owed_listed) {
        p->owed_listed = 1;
        mp_net.owed_list[mp_net.nowed++] = peer;
    }
}

/* Explicit credit returns for peers owed a quarter of a window or more that owe() could not
 * send at once (and not since repaid by piggy-backing), while they need them (above). */
static void return_credits(void)
{
    for (int i = 0; i < mp_net.nowed;) {
        int peer = mp_net.owed_list[i];
        mp_net_peer *p = &mp_net.peers[peer];
        if (needs_credits(p) && p->owed >= credit_threshold() &&
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

/* Hands one message -- its mp_hdr at `at`, then its key (with_key), then its payload; at most
 * `avail` bytes -- to the protocol; returns the bytes it took. */
static size_t deliver_msg(int src, const char *at, size_t avail, int with_key)
{
    const mp_hdr *h = (const mp_hdr *)at;
    const mp_net_key *key = with_key ? (const mp_net_key *)(h + 1) : NULL;
    size_t head = sizeof *h + (key ? sizeof *key : 0);
    if (MP_UNLIKELY(avail < head || avail - head < h->len))
        mp_fatal("network transport: packet from %s has %zu bytes left for a message, its "
                 "header says %zu", mp_net_peer_name(src), avail,
                 avail < sizeof *h ? sizeof *h : head + (size_t)h->len);
    if (mp_net.rma)
        mp_net_rma_incoming(src, h, key);
    mp_transport_deliver(src, h, at + head);
    return head + h->len;
}

/* The messages of a BATCH packet, in the order they were packed. */
static void deliver_batch(int src, const char *data, size_t len)
{
    size_t off = sizeof(mp_net_wire);
    while (off < len) {
        mp_net_item it;
        if (MP_UNLIKELY(len - off < sizeof it))
            mp_fatal("network transport: batch from %s ends inside a message (%zu of %zu bytes)",
                     mp_net_peer_name(src), off, len);
        memcpy(&it, data + off, sizeof it);
        off += sizeof it;
        size_t took = deliver_msg(src, data + off, len - off, it.flags & MP_NET_F_KEY);
        off += ((sizeof it + took + 7) & ~(size_t)7) - sizeof it;
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
        size_t took = deliver_msg(src, b->data + sizeof *w, len - sizeof *w,
                                  w->flags & MP_NET_F_KEY);
        if (MP_UNLIKELY(took != len - sizeof *w))
            mp_fatal("network transport: packet from %s has %zu bytes, header says %zu",
                     mp_net_peer_name(src), len, sizeof *w + took);
    } else if (type == MP_NET_BATCH) {
        deliver_batch(src, b->data, len);
    } else {                                   /* BYE: the last numbered packet of a peer */
        p->bye = 1;
        mp_net.byes++;
        p->ack_pending = 1;
        mp_net.acks_pending++;
    }
    mp_net_post_recv(b);
    if (type != MP_NET_BYE)
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
    case MP_NET_BATCH:
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
    if (mp_net.nbatches)
        batch_flush_all();
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

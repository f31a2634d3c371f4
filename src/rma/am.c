/* am.c -- one-sided active messages: the message path, replies, lock grants, notifications.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Window packets are transport packets of the RMA class (transport.h): the same 48-byte
 * header, fields given window meanings (win.h, enum mp_rma_pkt): ctx is the window id, src
 * the sender's rank in the window.  The transport keeps every pair's packets in order; this
 * file keeps that order above it: packets to a process that the transport could not take go
 * into that process's queue, and nothing overtakes a queued packet.  A user call that sends
 * waits for the queue to drain (driving progress, so the peer's traffic to us drains too); a
 * packet handler never waits -- it queues -- and a gated progress hook sends what is queued.
 * A queued packet owns a copy of its payload, or borrows window memory that stays valid for
 * the epoch (the data of a reply to a get).
 *
 * The target's side runs in its progress engine: data is written into, read from or
 * accumulated into its own memory (accumulates under its accumulate lock, win.h), lock
 * requests are granted at once or queued on the window until a release, and every answer is
 * a packet back to the origin naming the origin's reply record (cookie).  Replies to one
 * request may be several DATA packets (a get larger than a packet); the record counts bytes.
 */
#include "rma/win.h"
#include <stdlib.h>
#include <string.h>

typedef struct queued {
    struct queued *next;
    mp_hdr hdr;
    const void *data;
    size_t len;
    void *owned;                      /* freed once sent (a copy of data) */
} queued;

typedef struct peer_queue {
    queued *head, *tail;
} peer_queue;

static peer_queue *queues;            /* per process id */
static int nqueues;
static int nqueued;                   /* packets queued in all (gates the progress hook) */
static mp_win *lock_waiters;          /* windows with remote lock requests not granted */
static int nlock_waiters;             /* gates the progress hook too */
static int hook_gate;                 /* nqueued || nlock_waiters */

static void update_gate(void)
{
    hook_gate = nqueued > 0 || nlock_waiters > 0;
}

size_t mp_rma_max_payload(int world)
{
    return mp_transport_of(world)->max_payload;
}

void mp_rma_hdr(mp_hdr *h, int type, const mp_win *win)
{
    *h = (mp_hdr){ .type = (uint8_t)type, .ctx = win->ctx, .src = win->comm->rank };
}

mp_rma_reply *mp_rma_reply_new(unsigned *due, mp_rma_opstate *op)
{
    mp_rma_reply *r = mp_calloc(1, sizeof *r);
    r->due = due;
    r->op = op;
    if (op)
        op->parts++;
    return r;
}

void mp_rma_op_part_done(mp_rma_opstate *op)
{
    if (--op->parts > 0)
        return;
    for (int i = 0; i < 2; i++)
        if (op->held[i])
            mp_datatype_release(op->held[i]);
    if (op->req) {
        mp_status_empty(&op->req->status);
        mp_request_complete(op->req);
    }
    free(op);
}

/* ---- sending in order ------------------------------------------------------------------ */

static void enqueue(int world, const mp_hdr *h, const void *data, size_t len, int copy)
{
    queued *q = mp_malloc(sizeof *q);
    q->next = NULL;
    q->hdr = *h;
    q->len = len;
    q->owned = NULL;
    q->data = data;
    if (copy && len) {
        q->owned = mp_malloc(len);
        memcpy(q->owned, data, len);
        q->data = q->owned;
    }
    peer_queue *pq = &queues[world];
    if (pq->tail)
        pq->tail->next = q;
    else
        pq->head = q;
    pq->tail = q;
    nqueued++;
    update_gate();
}

static int try_send(int world, const mp_hdr *h, const void *data, size_t len)
{
    mp_payload pl = { data, 0, NULL, 0, len };
    mp_hdr copy = *h;
    copy.len = (uint32_t)len;
    return mp_transport_of(world)->send(world, &copy, len ? &pl : NULL);
}

static int drain(int world)
{
    peer_queue *pq = &queues[world];
    int sent = 0;
    while (pq->head) {
        queued *q = pq->head;
        if (try_send(world, &q->hdr, q->data, q->len) == MP_AGAIN)
            break;
        pq->head = q->next;
        if (!pq->head)
            pq->tail = NULL;
        free(q->owned);
        free(q);
        nqueued--;
        sent++;
    }
    update_gate();
    return sent;
}

void mp_rma_send(int world, const mp_hdr *h, const void *data, size_t len)
{
    unsigned spins = 0;
    for (;;) {
        if (!queues[world].head && try_send(world, h, data, len) != MP_AGAIN)
            return;
        if (mp_progress() == 0)       /* drains our queue (hook) and the peer's traffic */
            mp_idle(&spins);
    }
}

/* From packet handlers: never wait. */
static void reply_send(int world, const mp_hdr *h, const void *data, size_t len, int copy)
{
    if (!queues[world].head && try_send(world, h, data, len) != MP_AGAIN)
        return;
    enqueue(world, h, data, len, copy);
}

static void send_ack(int world, const mp_win *win, uint64_t cookie)
{
    mp_hdr h;
    mp_rma_hdr(&h, MP_PKT_RMA_ACK, win);
    h.cookie = cookie;
    reply_send(world, &h, NULL, 0, 0);
}

/* ---- the target's side ----------------------------------------------------------------- */

static char *target_memory(const mp_win *win, const mp_hdr *h, size_t len, int world)
{
    if (!mp_win_region_ok(win, h->addr, len))
        mp_fatal("one-sided operation from rank %d on %zu bytes at 0x%llx is outside the "
                 "memory of this window (window id %d)", world, len,
                 (unsigned long long)h->addr, win->ctx);
    return (char *)(uintptr_t)h->addr;
}

/* A get: the data goes back in packets of at most a transport payload, borrowed from the
 * window memory (valid until the origin's epoch ends, which needs these packets first). */
static void on_get(int world, mp_win *win, const mp_hdr *h)
{
    size_t bytes = h->size, max = mp_rma_max_payload(world);
    const char *src = target_memory(win, h, bytes, world);
    for (size_t off = 0; off < bytes || (bytes == 0 && off == 0); off += max) {
        size_t len = bytes - off < max ? bytes - off : max;
        mp_hdr r;
        mp_rma_hdr(&r, MP_PKT_RMA_DATA, win);
        r.cookie = h->cookie;
        r.addr = off;
        reply_send(world, &r, src + off, len, 0);
        if (bytes == 0)
            break;
    }
}

static void on_accumulate(int world, mp_win *win, const mp_hdr *h, const void *payload)
{
    char *dst = target_memory(win, h, mp_rma_span((MPI_Datatype)h->size, h->len), world);
    mp_acc_lock(win->my_ctl);
    mp_rma_apply((MPI_Op)h->tag, (MPI_Datatype)h->size, dst, payload, h->len);
    mp_acc_unlock(win->my_ctl);
}

/* Get-accumulate, fetch-and-op and compare-and-swap: the old data goes back in one packet
 * (the origin never asks for more than one packet's worth). */
static void on_fetch(int world, mp_win *win, const mp_hdr *h, const void *payload)
{
    size_t bytes = h->type == MP_PKT_RMA_CAS ? h->len / 2 : h->size;
    MPI_Datatype basic = (MPI_Datatype)h->seq;
    char *dst = target_memory(win, h, mp_rma_span(basic, bytes), world);
    char *old = mp_malloc(bytes ? bytes : 1);
    mp_acc_lock(win->my_ctl);
    if (h->type == MP_PKT_RMA_CAS) {
        mp_rma_cas(basic, dst, payload, (const char *)payload + bytes, old);
    } else {
        mp_rma_fetch_old(basic, dst, bytes, old);
        mp_rma_apply((MPI_Op)h->tag, basic, dst, payload, h->len);
    }
    mp_acc_unlock(win->my_ctl);
    mp_hdr r;
    mp_rma_hdr(&r, MP_PKT_RMA_DATA, win);
    r.cookie = h->cookie;
    reply_send(world, &r, old, bytes, 1);
    free(old);
}

/* A remote origin looks up our attached memory: count, then base/size pairs, one packet. */
static void on_regions(int world, mp_win *win, const mp_hdr *h)
{
    size_t cap = mp_rma_max_payload(world) / sizeof(uint64_t);
    uint64_t *list = mp_malloc(cap * sizeof(uint64_t));
    size_t n = mp_win_dyn_list(win, list + 1, (cap - 1) / 2);
    list[0] = n;
    mp_hdr r;
    mp_rma_hdr(&r, MP_PKT_RMA_DATA, win);
    r.cookie = h->cookie;
    size_t shown = n <= (cap - 1) / 2 ? n : 0;
    reply_send(world, &r, list, (1 + 2 * shown) * sizeof(uint64_t), 1);
    free(list);
}

static void grant_or_queue(mp_win *win, int world, int origin, int exclusive, uint64_t cookie)
{
    /* Readers first (win.h): a shared request never waits behind a queued exclusive one. */
    if ((!exclusive || !win->lock_waiting) && mp_winlock_try(win->my_ctl, exclusive)) {
        send_ack(world, win, cookie);
        return;
    }
    mp_lock_req *q = mp_malloc(sizeof *q);
    q->next = NULL;
    q->origin = origin;
    q->exclusive = exclusive;
    q->cookie = cookie;
    mp_lock_req **tail = &win->lock_waiting;
    while (*tail)
        tail = &(*tail)->next;
    *tail = q;
    if (!win->next_waiting && lock_waiters != win) {
        win->next_waiting = lock_waiters;
        lock_waiters = win;
        nlock_waiters++;
        update_gate();
    }
}

/* Grants every queued request the lock word admits now, oldest first; one that must wait
 * does not hold back the shared ones behind it (readers first, win.h). */
int mp_rma_grant_waiting(mp_win *win)
{
    int granted = 0;
    for (mp_lock_req **pp = &win->lock_waiting; *pp;) {
        mp_lock_req *q = *pp;
        if (!mp_winlock_try(win->my_ctl, q->exclusive)) {
            pp = &q->next;
            continue;
        }
        *pp = q->next;
        send_ack(win->t[q->origin].world, win, q->cookie);
        free(q);
        granted++;
    }
    return granted;
}

static int retry_lock_waiters(void)
{
    int events = 0;
    for (mp_win **pp = &lock_waiters; *pp;) {
        mp_win *w = *pp;
        events += mp_rma_grant_waiting(w);
        if (!w->lock_waiting) {
            *pp = w->next_waiting;
            w->next_waiting = NULL;
            nlock_waiters--;
        } else {
            pp = &w->next_waiting;
        }
    }
    update_gate();
    return events;
}

/* ---- the origin's side: replies -------------------------------------------------------- */

static void on_data(const mp_hdr *h, const void *payload)
{
    mp_rma_reply *r = (mp_rma_reply *)(uintptr_t)h->cookie;
    if (h->len)
        mp_unpack(r->buf, r->count, r->dt, r->stream_off + h->addr, payload, h->len);
    r->got += h->len;
    if (r->got < r->bytes)
        return;
    if (r->landed)
        *r->landed = r->got;
    (*r->due)--;
    if (r->op)
        mp_rma_op_part_done(r->op);
    free(r);
}

static void on_ack(const mp_hdr *h)
{
    mp_rma_reply *r = (mp_rma_reply *)(uintptr_t)h->cookie;
    (*r->due)--;
    free(r);
}

/* ---- dispatch -------------------------------------------------------------------------- */

static void on_packet(int world, const mp_hdr *h, const void *payload)
{
    mp_win *win = mp_win_of_ctx(h->ctx);
    if (!win)
        mp_fatal("protocol error: one-sided packet %d from rank %d for unknown window id %d",
                 h->type, world, h->ctx);
    switch (h->type) {
    case MP_PKT_RMA_PUT:
        if (h->len)
            memcpy(target_memory(win, h, h->len, world), payload, h->len);
        break;
    case MP_PKT_RMA_ACC:
        on_accumulate(world, win, h, payload);
        break;
    case MP_PKT_RMA_GET:
        on_get(world, win, h);
        break;
    case MP_PKT_RMA_GACC:
    case MP_PKT_RMA_CAS:
        on_fetch(world, win, h, payload);
        break;
    case MP_PKT_RMA_DATA:
        on_data(h, payload);
        break;
    case MP_PKT_RMA_FLUSH:
        send_ack(world, win, h->cookie);
        break;
    case MP_PKT_RMA_LOCK:
        grant_or_queue(win, world, h->src, h->flags & MP_RMA_F_EXCL, h->cookie);
        break;
    case MP_PKT_RMA_UNLOCK:
        mp_winlock_release(win->my_ctl, h->flags & MP_RMA_F_EXCL);
        send_ack(world, win, h->cookie);
        mp_rma_grant_waiting(win);
        break;
    case MP_PKT_RMA_ACK:
        on_ack(h);
        break;
    case MP_PKT_RMA_POST:
        win->t[h->src].posts++;
        break;
    case MP_PKT_RMA_COMPLETE:
        win->completes++;
        break;
    case MP_PKT_RMA_REGIONS:
        on_regions(world, win, h);
        break;
    default:
        mp_fatal("protocol error: unknown one-sided packet type %d from rank %d", h->type, world);
    }
}

static int rma_progress(void)
{
    int events = 0;
    if (nqueued)
        for (int w = 0; w < nqueues && nqueued; w++)
            if (queues[w].head)
                events += drain(w);
    if (nlock_waiters)
        events += retry_lock_waiters();
    return events;
}

/* Queues of processes that joined the table (other jobs: core/procs.c). */
static void queues_grow(int old_n, int new_n)
{
    queues = mp_realloc(queues, sizeof *queues * (size_t)new_n);
    memset(queues + old_n, 0, sizeof *queues * (size_t)(new_n - old_n));
    nqueues = new_n;
}

int mp_rma_init(void)
{
    queues = NULL;
    queues_grow(0, mp_world.size);
    mp_procs_on_grow(queues_grow);
    mp_transport_set_handler(MP_PKT_CLASS_RMA, on_packet);
    mp_progress_register_gated(rma_progress, &hook_gate);
    return mp_rma_async_start();
}

void mp_rma_finalize(void)
{
    mp_rma_async_stop();
}

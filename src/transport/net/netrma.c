/* netrma.c -- single copy over the network: fi_read rendezvous, fi_write for SREQ.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * When the provider offers FI_RMA (net, tcp;ofi_rxm, net;ofi_rxm and udp;ofi_rxd do) the
 * transport sets `single_copy` and the point-to-point layer behaves exactly as over shared
 * memory: an RTS carries the sender's buffer address and the receiver pulls the message with
 * read(); an SREQ carries the receive buffer's address and the sender pushes with write()
 * before RWDONE.  Messages above mp_net_rma_limit() (net.c: by default none over TCP sockets
 * while the machine has a core per rank) are declined here and take the CTS+FRAG pipeline.
 * The protocol knows nothing of memory registration; this file adds it at the edge:
 *
 *   outgoing RTS   register the (contiguous: pt2pt packs non-contiguous data first) send
 *                  buffer for FI_REMOTE_READ and append its key (mp_net_key) to the packet.
 *                  Above the limit, or if registration fails, the packet goes with addr = 0,
 *                  which makes the receiver answer CTS: the pipelined FRAG rendezvous.
 *   outgoing SREQ  register the receive buffer for FI_REMOTE_WRITE, append the key.  An SREQ
 *                  for at most MEMPI_NET_EAGER_MAX bytes or above the limit, or whose
 *                  registration fails, is not sent at all: dropping an SREQ is always safe
 *                  (docs/protocol.md, rule 2).
 *   incoming key   remembered per peer ("theirs"); read()/write() find the registration that
 *                  covers the requested remote range and compute the target address (virtual
 *                  address or offset, FI_MR_VIRT_ADDR) and key (provider-chosen or requested,
 *                  FI_MR_PROV_KEY).
 *
 * When a registration ends -- the rule that makes it safe to deregister:
 *   our RTS buffer     FIN or CTS arrives for its cookie, or CANCEL_REP with CANCELLED: the
 *                      receiver will not read it any more (it reads before it sends FIN).
 *   our SREQ buffer    RWDONE or SRCANCEL_ACK for its cookie, or the first message from that
 *                      peer with seq >= the SREQ's first_seq on the same (context, tag): by the
 *                      SR rules that message answered the SREQ, so the sender will never write.
 *   their keys         mirror images on the other side (we send FIN / CTS / CANCEL_REP, RWDONE
 *                      / SRCANCEL_ACK, or a first packet that resolves their SREQ); an SREQ
 *                      the protocol drops at arrival because a message already answered it is
 *                      not remembered (a short history of sent envelopes mirrors rule 2).
 *
 Registrations come from netmr.c, which caches them where a stale one cannot be wrong
 * (software providers) and otherwise registers per transfer; "made" and "dropped" above mean
 * taken from and given back to it.
 *
 * read_start() posts one contiguous read and returns (see there); it serves rendezvous into
 * contiguous receive buffers.  read()/write() are synchronous: the operation is posted
 * (in batches of at most iov_limit local segments, one remote range each) and we poll the
 * completion queue until it is done.  That wait may run inside the packet handler, so
 * packets that complete meanwhile are queued and handed over by the next poll, never
 * re-entering the protocol.  The write waits for its completion before RWDONE is sent, and
 * the endpoint is opened with send-after-write ordering, so RWDONE never overtakes the data.
 */
#include "transport/net/net.h"

#ifdef MEMPI_HAVE_LIBFABRIC
#include <stdlib.h>
#include <string.h>

#define MP_NET_RMA_BATCH 16           /* operations in flight in one read() / write() */

static int tags_overlap(int a, int b)
{
    return a == MPI_ANY_TAG || b == MPI_ANY_TAG || a == b;
}

static int seq_at_least(uint32_t seq, uint32_t first)
{
    return (uint32_t)(seq - first) < 0x80000000u;
}

static void stage_forget(const mp_net_reg *r);

static void reg_free(mp_net_reg *r)
{
    stage_forget(r);
    if (r->mr)
        mp_net_mr_put(r->mr);
    free(r);
}

/* Removes from `list` the registrations for which drop(r, arg) is true. */
static void drop_if(mp_net_reg **list, int (*drop)(const mp_net_reg *, const mp_hdr *),
                    const mp_hdr *h)
{
    for (mp_net_reg **pp = list; *pp;) {
        mp_net_reg *r = *pp;
        if (drop(r, h)) {
            *pp = r->next;
            reg_free(r);
        } else {
            pp = &r->next;
        }
    }
}

static int is_rndv_of(const mp_net_reg *r, const mp_hdr *h)
{
    return !r->is_sreq && r->cookie == h->cookie;
}

static int is_sreq_of(const mp_net_reg *r, const mp_hdr *h)
{
    return r->is_sreq && r->cookie == h->cookie;
}

/* A first packet (message h->seq on h->ctx, h->tag) answers the SREQs it could match. */
static int answers_sreq(const mp_net_reg *r, const mp_hdr *h)
{
    return r->is_sreq && r->ctx == h->ctx && tags_overlap(r->tag, h->tag) &&
           seq_at_least(h->seq, r->first_seq);
}

static int first_packet(int type)
{
    return type == MP_PKT_EAGER || type == MP_PKT_RTS || type == MP_PKT_RWDONE ||
           type == MP_PKT_NULLMSG;
}

/* The registrations a packet ends, on either side.  `list` is ours for incoming packets,
 * theirs for outgoing ones: the same packet ends the same transfer on both sides. */
static void ended_by(mp_net_reg **list, const mp_hdr *h)
{
    switch (h->type) {
    case MP_PKT_FIN:
    case MP_PKT_CTS:
        drop_if(list, is_rndv_of, h);
        break;
    case MP_PKT_CANCEL_REP:
        if (h->flags & MP_HDR_CANCELLED)
            drop_if(list, is_rndv_of, h);
        break;
    case MP_PKT_RWDONE:
    case MP_PKT_SRCANCEL_ACK:
        drop_if(list, is_sreq_of, h);
        break;
    }
    if (first_packet(h->type))
        drop_if(list, answers_sreq, h);
}

static int flush_writes(void);

int mp_net_rma_outgoing(int peer, mp_hdr *h, mp_net_key *key, mp_net_reg **made)
{
    int sreq = h->type == MP_PKT_SREQ;
    if (h->type == MP_PKT_RWDONE && flush_writes() != MPI_SUCCESS)
        mp_fatal("network transport: remote write to %s failed", mp_net_peer_name(peer));
    if (h->type != MP_PKT_RTS && !sreq)
        return 0;
    if (sreq && h->size <= mp_net_transport.eager_max)
        return -1;                     /* eager is faster than a write round for these */
    if (h->addr == 0 || h->size == 0)
        return sreq ? -1 : 0;
    mp_net_reg *r = NULL;
    if (h->size <= mp_net_rma_limit()) {   /* else the pipeline is faster (net.c) */
        r = mp_calloc(1, sizeof *r);
        r->mr = mp_net_mr_get(h->addr, h->size, sreq ? FI_REMOTE_WRITE : FI_REMOTE_READ, key);
    }
    if (r == NULL || r->mr == NULL) {
        free(r);
        if (sreq)
            return -1;
        h->addr = 0;                   /* the receiver will ask for the FRAG pipeline */
        return 0;
    }
    r->cookie = h->cookie;
    r->addr = h->addr;
    r->size = h->size;
    r->is_sreq = sreq;
    r->ctx = h->ctx;
    r->tag = h->tag;
    r->first_seq = h->seq;
    *made = r;
    return 1;
}

void mp_net_rma_unsent(mp_net_reg *made)
{
    if (made)
        reg_free(made);
}

void mp_net_rma_sent(int peer, const mp_hdr *h, mp_net_reg *made)
{
    mp_net_peer *p = &mp_net.peers[peer];
    if (made) {
        mp_net_mr_sent(made->mr);
        made->next = p->mine;
        p->mine = made;
    }
    if (first_packet(h->type)) {
        p->sent[p->sent_pos].ctx = h->ctx;
        p->sent[p->sent_pos].tag = h->tag;
        p->sent[p->sent_pos].seq = h->seq;
        p->sent_pos = (p->sent_pos + 1) % MP_NET_SENT_HISTORY;
        if (p->sent_used < MP_NET_SENT_HISTORY)
            p->sent_used++;
        p->sent_next[mp_track_index(h->ctx)] = h->seq + 1;
    }
    ended_by(&p->theirs, h);
}

/* Mirror of the protocol's rule 2: will the sender drop this SREQ at once because a message
 * it already sent answered it (or it cannot tell)?  Messages are numbered per track of the
 * pair (docs/protocol.md, rule 1), so this looks at the SREQ's track: more than the
 * protocol's history sent on it since first_seq, or a matching one among the packets we
 * remember.  Whenever this says yes the protocol drops it too (it numbered at least what we
 * sent).  A message numbered but not yet handed to us is seen later by ended_by, which drops
 * the key then.  Two cases leak a key entry (our metadata only, nothing registered here):
 * the protocol's history overflowed on messages it numbered but we have not sent yet, or the
 * answering message left our memory of sent packets (other tracks' packets came after it);
 * a later matching message or finalize frees it. */
static int sreq_already_answered(const mp_net_peer *p, const mp_hdr *h)
{
    uint32_t sent = p->sent_next[mp_track_index(h->ctx)] - h->seq;
    if (sent > MP_NET_SENT_HISTORY)
        return 1;
    for (unsigned i = 0; i < p->sent_used; i++)
        if (p->sent[i].ctx == h->ctx && seq_at_least(p->sent[i].seq, h->seq) &&
            p->sent[i].seq - h->seq < sent && tags_overlap(h->tag, p->sent[i].tag))
            return 1;
    return 0;
}

void mp_net_rma_incoming(int peer, const mp_hdr *h, const mp_net_key *key)
{
    mp_net_peer *p = &mp_net.peers[peer];
    ended_by(&p->mine, h);
    if (key == NULL || (h->type == MP_PKT_SREQ && sreq_already_answered(p, h)))
        return;
    mp_net_reg *r = mp_calloc(1, sizeof *r);
    r->cookie = h->cookie;
    r->addr = h->addr;
    r->size = h->size;
    r->key = *key;
    r->is_sreq = h->type == MP_PKT_SREQ;
    r->ctx = h->ctx;
    r->tag = h->tag;
    r->first_seq = h->seq;
    r->next = p->theirs;
    p->theirs = r;
}

static const mp_net_reg *find_theirs(int peer, uint64_t addr, size_t len)
{
    for (const mp_net_reg *r = mp_net.peers[peer].theirs; r; r = r->next)
        if (addr >= r->addr && addr - r->addr <= r->size && len <= r->size - (addr - r->addr))
            return r;
    return NULL;
}

/* Polls until the operations in flight completed, without entering the protocol.  The wait
 * keeps the big lock (mp_idle_nested): it runs in the middle of a send (RWDONE's write) or a
 * match (the rendezvous read), and another thread let in here could overtake that send, or
 * poll, take our completion into its batch and, in a packet handler, wait for its own read
 * with ours counted in rma_pending but never reported -- a hang (core/progress.c). */
static void rma_wait(void)
{
    unsigned spins = 0;
    while (mp_net.rma_pending > 0) {
        if (mp_net_cq_batch(1) == 0)
            mp_idle_nested(&spins);
        if (mp_net.timeout > 0 && (++mp_net.polls & 63) == 0)
            mp_net_check_liveness();
    }
}

static int net_rma(int peer, uint64_t remote, const struct iovec *iov, int niov, int write)
{
    size_t total = 0;
    for (int i = 0; i < niov; i++)
        total += iov[i].iov_len;
    if (total == 0)
        return MPI_SUCCESS;
    const mp_net_reg *r = find_theirs(peer, remote, total);
    if (r == NULL)
        return mp_error_code(MPI_ERR_INTERN, "network transport: %s %zu bytes at 0x%llx of %s: "
                             "no registration of that rank covers them", write ? "write" : "read",
                             total, (unsigned long long)remote, mp_net_peer_name(peer));
    uint64_t target = r->key.base + (remote - r->addr);
    uint64_t rkey = r->key.key;
    size_t limit = mp_net.info->tx_attr->iov_limit ? mp_net.info->tx_attr->iov_limit : 1;
    mp_net_buf ctx[MP_NET_RMA_BATCH];
    int used = 0;
    mp_net.rma_err = 0;
    for (int i = 0; i < niov && mp_net.rma_err == 0;) {
        if (used == MP_NET_RMA_BATCH) {        /* contexts are reused only when all are back */
            rma_wait();
            used = 0;
            continue;
        }
        int n = niov - i < (int)limit ? niov - i : (int)limit;
        size_t len = 0;
        for (int k = 0; k < n; k++)
            len += iov[i + k].iov_len;
        struct fi_rma_iov riov = { target, len, rkey };
        memset(&ctx[used], 0, sizeof ctx[used]);
        ctx[used].kind = MP_NET_K_RMA;
        ctx[used].peer = peer;
        struct fi_msg_rma msg = { .msg_iov = &iov[i], .desc = NULL, .iov_count = (size_t)n,
                                  .addr = mp_net.peers[peer].addr, .rma_iov = &riov,
                                  .rma_iov_count = 1, .context = &ctx[used].ctx };
        ssize_t rc = write ? fi_writemsg(mp_net.ep, &msg, FI_COMPLETION)
                           : fi_readmsg(mp_net.ep, &msg, FI_COMPLETION);
        if (rc == -FI_EAGAIN) {
            if (mp_net_cq_batch(1) == 0) {
                unsigned spins = 0;
                mp_idle_nested(&spins);   /* keeps the lock: see rma_wait */
            }
            continue;
        }
        if (rc != 0) {
            mp_net.rma_err = (int)-rc;
            break;
        }
        mp_net.rma_pending++;
        used++;
        target += len;
        i += n;
    }
    rma_wait();
    if (mp_net.rma_err)
        return mp_error_code(MPI_ERR_OTHER, "network transport: %s of %zu bytes %s %s failed: %s",
                             write ? "fi_write" : "fi_read", total, write ? "to" : "from",
                             mp_net_peer_name(peer), fi_strerror(mp_net.rma_err));
    return MPI_SUCCESS;
}

/* read_start: one contiguous range, posted and left in flight, so that the next message's
 * rendezvous can start before this one's data arrived (the synchronous read leaves the link
 * idle for a round trip per message).  Completions are only recorded in the completion queue
 * loop, which may run nested inside a packet handler; mp_net_poll reports them afterwards.
 * Measured between two namespace nodes, medians of 8 interleaved runs: one rank per node,
 * streaming 256 KiB / 1 MiB / 4 MiB 1.27x / 1.10x / 1.07x faster than the synchronous read;
 * 2 nodes x 4 ranks on 2 cores, allgather 64 KiB 1.6x and allreduce 1 MiB 1.2x slower (why
 * is not understood: both ways yield the core between polls).  So MEMPI_NET_ASYNC_READ=auto
 * uses it only when the machine's ranks do not outnumber its cores. */
typedef struct rma_async rma_async;
struct rma_async {
    mp_net_buf b;                     /* first: its ctx is the operation's context */
    void (*done)(void *arg, int err);
    void *arg;
    size_t len;
    rma_async *next;
};
static rma_async *async_done_head, *async_done_tail;

static int net_read_start(int peer, uint64_t remote, void *local, size_t len,
                          void (*done)(void *arg, int err), void *arg)
{
    if (mp_net.async_read == 0 || (mp_net.async_read < 0 && mp_wait_oversubscribed()))
        return MP_AGAIN;
    const mp_net_reg *r = len ? find_theirs(peer, remote, len) : NULL;
    if (r == NULL)
        return MP_AGAIN;              /* the synchronous read reports what is wrong */
    rma_async *a = mp_calloc(1, sizeof *a);
    a->b.kind = MP_NET_K_RMA_ASYNC;
    a->b.peer = peer;
    a->done = done;
    a->arg = arg;
    a->len = len;
    struct iovec iov = { local, len };
    struct fi_rma_iov riov = { r->key.base + (remote - r->addr), len, r->key.key };
    struct fi_msg_rma msg = { .msg_iov = &iov, .iov_count = 1, .addr = mp_net.peers[peer].addr,
                              .rma_iov = &riov, .rma_iov_count = 1, .context = &a->b.ctx };
    if (fi_readmsg(mp_net.ep, &msg, FI_COMPLETION) != 0) {
        free(a);
        return MP_AGAIN;
    }
    mp_net.async_pending++;
    mp_net.async_reads++;
    return MPI_SUCCESS;
}

void mp_net_rma_async_done(mp_net_buf *b, int fi_err)
{
    rma_async *a = (rma_async *)b;
    a->b.err = fi_err;
    a->next = NULL;
    if (async_done_tail)
        async_done_tail->next = a;
    else
        async_done_head = a;
    async_done_tail = a;
}

void mp_net_rma_async_run(void)
{
    while (async_done_head) {
        rma_async *a = async_done_head;
        async_done_head = a->next;
        if (async_done_head == NULL)
            async_done_tail = NULL;
        mp_net.async_pending--;
        int err = a->b.err == 0 ? MPI_SUCCESS
                : mp_error_code(MPI_ERR_OTHER, "network transport: fi_read of %zu bytes from %s "
                                "failed: %s", a->len, mp_net_peer_name(a->b.peer),
                                fi_strerror(a->b.err));
        void (*done)(void *, int) = a->done;
        void *arg = a->arg;
        free(a);
        done(arg, err);
    }
}

/* Fine-grained datatypes.  The protocol hands us a non-contiguous buffer 64 segments at a
 * time, which as network operations would cost one round trip per 64 segments.  Instead:
 *   read   the first small read of a remote registration fetches up to MP_NET_PREFETCH bytes
 *          of it at once into a staging buffer, and later reads of that range are served from
 *          there (the sender may not touch its buffer until FIN, so the copy stays true);
 *          it is forgotten when the registration ends.
 *   write  small writes to consecutive remote addresses are gathered in the staging buffer
 *          and written as one when the next one does not follow on, the buffer is full, or
 *          the RWDONE that announces the data is about to be sent (mp_net_rma_outgoing).
 * "Small" is under MP_NET_RMA_SEGMENT bytes per segment on average. */
#define MP_NET_RMA_SEGMENT 16384
#define MP_NET_PREFETCH ((size_t)4 << 20)

static struct {
    char *buf;
    const mp_net_reg *reg;            /* read: the registration the staged bytes are from */
    int peer;
    uint64_t start;                   /* remote address of buf[0] */
    size_t len;
} stage;

static int fragmented(const struct iovec *iov, int niov, size_t *total)
{
    *total = 0;
    for (int i = 0; i < niov; i++)
        *total += iov[i].iov_len;
    return niov > 1 && *total / (size_t)niov < MP_NET_RMA_SEGMENT;
}

static char *stage_buf(void)
{
    if (stage.buf == NULL)
        stage.buf = mp_malloc(MP_NET_PREFETCH);
    return stage.buf;
}

static void stage_forget(const mp_net_reg *r)
{
    if (stage.reg == r)
        stage.reg = NULL, stage.len = 0;
}

static int flush_writes(void)
{
    if (stage.reg != NULL || stage.len == 0)
        return MPI_SUCCESS;
    struct iovec one = { stage.buf, stage.len };
    stage.len = 0;
    return net_rma(stage.peer, stage.start, &one, 1, 1);
}

static int net_read(int peer, uint64_t remote, const struct iovec *local, int niov)
{
    size_t total;
    if (!fragmented(local, niov, &total) || total > MP_NET_PREFETCH)
        return net_rma(peer, remote, local, niov, 0);
    int err = flush_writes();
    if (err)
        return err;
    const mp_net_reg *r = find_theirs(peer, remote, total);
    if (r == NULL || stage.reg != r || stage.peer != peer || remote < stage.start ||
        remote + total > stage.start + stage.len) {
        if (r == NULL)
            return net_rma(peer, remote, local, niov, 0);   /* reports the error */
        size_t left = r->size - (remote - r->addr);
        struct iovec one = { stage_buf(), left < MP_NET_PREFETCH ? left : MP_NET_PREFETCH };
        stage.reg = NULL;
        if ((err = net_rma(peer, remote, &one, 1, 0)) != MPI_SUCCESS)
            return err;
        stage.reg = r, stage.peer = peer, stage.start = remote, stage.len = one.iov_len;
    }
    const char *from = stage.buf + (remote - stage.start);
    for (int i = 0; i < niov; i++) {
        memcpy(local[i].iov_base, from, local[i].iov_len);
        from += local[i].iov_len;
    }
    return MPI_SUCCESS;
}

static int net_write(int peer, uint64_t remote, const struct iovec *local, int niov)
{
    size_t total;
    int err;
    if (stage.reg != NULL)            /* staged read bytes: drop, the buffer is needed */
        stage.reg = NULL, stage.len = 0;
    int follows = stage.len > 0 && stage.peer == peer && remote == stage.start + stage.len;
    if (!follows && (err = flush_writes()) != MPI_SUCCESS)
        return err;
    if (!fragmented(local, niov, &total) || total > MP_NET_PREFETCH) {
        if ((err = flush_writes()) != MPI_SUCCESS)
            return err;
        return net_rma(peer, remote, local, niov, 1);
    }
    if (stage.len + total > MP_NET_PREFETCH && (err = flush_writes()) != MPI_SUCCESS)
        return err;
    if (stage.len == 0)
        stage.peer = peer, stage.start = remote;
    char *to = stage_buf() + stage.len;
    for (int i = 0; i < niov; i++) {
        memcpy(to, local[i].iov_base, local[i].iov_len);
        to += local[i].iov_len;
    }
    stage.len += total;
    return MPI_SUCCESS;
}

void mp_net_rma_init(void)
{
    if (!(mp_net.info->caps & FI_RMA) || (mp_net.info->domain_attr->mr_mode & FI_MR_LOCAL))
        return;                        /* FRAG pipeline (FI_MR_LOCAL: local segments would
                                          need registering too; not done yet) */
    mp_net.rma = 1;
    mp_net.next_key = 1;
    mp_net_mr_init();
    mp_net.deferred = mp_calloc((size_t)mp_net.nrecv, sizeof *mp_net.deferred);
    mp_net_transport.read = net_read;
    mp_net_transport.read_start = net_read_start;
    mp_net_transport.write = net_write;
    mp_net_transport.single_copy = 1;
}

void mp_net_rma_finalize(void)
{
    for (int w = 0; w < mp_net.npeers && mp_net.peers; w++) {
        mp_net_reg **lists[2] = { &mp_net.peers[w].mine, &mp_net.peers[w].theirs };
        for (int k = 0; k < 2; k++)
            while (*lists[k]) {
                mp_net_reg *r = *lists[k];
                *lists[k] = r->next;
                reg_free(r);
            }
    }
    mp_net_mr_finalize();
    free(mp_net.deferred);
    mp_net.deferred = NULL;
    free(stage.buf);
    memset(&stage, 0, sizeof stage);
    mp_net.rma = 0;
}
#endif

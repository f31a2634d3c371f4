/* shm.c -- the shared-memory transport: send into a peer's inbox, poll our own.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Sending writes one cell in the receiver's inbox (shm.h): of our fast ring there if we have
 * one, else of its shared queue, where after MEMPI_SHM_RING_AFTER packets we claim and
 * announce a ring.  A payload that does not fit the cell goes into a chunk of our own pool
 * and the cell names it.  The sender packs straight from the user's buffer (through the
 * datatype engine) into shared memory: one copy in, one copy out.  A full ring or queue or an
 * exhausted pool returns MP_AGAIN; the caller keeps the message queued and retries after
 * progress, so nothing is dropped and order per pair is kept.
 *
 * Polling visits our fast rings from a rotating position (fairness) and our shared queue, and
 * hands at most a few packets per lane per call to the point-to-point handler.
 */
#include "transport/shm/shm.h"
#include "transport/shm/wait.h"
#include <string.h>

/* Takes a free chunk of our pool (mp_shm_chunk_find), or returns -1. */
static int64_t chunk_alloc(void)
{
    int64_t idx = mp_shm_chunk_find();
    if (idx < 0)
        return -1;
    atomic_store_explicit(&mp_shm_chunk(mp_shm.me, (uint32_t)idx)->busy, 1, memory_order_relaxed);
    if ((uint32_t)idx >= mp_shm.pool_hot)
        mp_shm.pool_hot = (uint32_t)idx + 1;
    mp_shm.pool_next = (uint32_t)idx + 1;
    return idx;
}

/* The producer's half of the ring protocol (shm.h): the free cell of our fast ring to peer,
 * or NULL when the ring is full. */
static inline mp_cell *free_cell(int peer)
{
    mp_cell *cell = mp_shm.send_ring[peer] + (mp_shm.send_pos[peer] & mp_shm.mask);
    return atomic_load_explicit(&cell->full, memory_order_acquire) ? NULL : cell;
}

/* Fills a free cell (ring cell, or queue cell we own) with hdr and payload.  The payload's
 * chunk, if any, was filled already (chunk: its index + 1, 0 for an inline payload). */
static inline void fill(mp_cell *cell, const mp_hdr *hdr, const mp_payload *payload,
                        uint32_t chunk)
{
    size_t len = payload ? payload->len : 0;
    if (chunk)
        cell->chunk = chunk;
    else
        mp_cell_inline_payload(cell, payload);
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
}

/* A payload larger than a cell goes into one of our chunks first: its index + 1, 0 when the
 * payload fits the cell, -1 when the pool is exhausted. */
static inline int64_t stage_payload(const mp_payload *payload)
{
    if (!payload || payload->len <= MP_CELL_INLINE)
        return 0;
    int64_t idx = chunk_alloc();
    if (idx < 0)
        return -1;
    mp_payload_copy(mp_shm_chunk(mp_shm.me, (uint32_t)idx) + 1, payload);
    return idx + 1;
}

static inline void unstage(int64_t chunk)
{
    if (chunk > 0)   /* never published: only we know it, relaxed like its setting */
        atomic_store_explicit(&mp_shm_chunk(mp_shm.me, (uint32_t)(chunk - 1))->busy, 0,
                              memory_order_relaxed);
}

/* The producers' claim on peer's shared queue (shm.h): a queue cell now ours and its
 * position's lap in *lap, or NULL when the queue is full. */
static mp_cell *queue_claim(int peer, uint32_t *lap)
{
    mp_inbox *box = mp_shm_inbox(peer);
    mp_cell *q = mp_shm_queue(peer);
    uint32_t qmask = mp_shm.seg->queue - 1;
    uint32_t pos = atomic_load_explicit(&box->tail, memory_order_relaxed);
    for (;;) {
        mp_cell *cell = q + (pos & qmask);
        uint32_t w = atomic_load_explicit(&cell->full, memory_order_acquire);
        int32_t d = (int32_t)(w - (pos & ~qmask));
        if (d == 0) {
            if (atomic_compare_exchange_weak_explicit(&box->tail, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                *lap = pos & ~qmask;
                return cell;
            }
        } else if (d < 0) {
            return NULL;
        } else {
            pos = atomic_load_explicit(&box->tail, memory_order_relaxed);
        }
    }
}

static inline void queue_publish(mp_cell *cell, uint32_t lap)
{
    cell->hdr.reserved = (uint16_t)mp_shm.me;
    atomic_store_explicit(&cell->full, lap + 1, memory_order_release);
}

/* Remembers that peer's queue was full (a wait must not sleep on it: wait.c), or not. */
static inline void set_blocked(int peer, int b)
{
    if (mp_shm.blocked[peer] != b) {
        mp_shm.blocked[peer] = (uint8_t)b;
        mp_shm.nblocked += b ? 1 : -1;
    }
}

/* Sends through peer's shared queue; on the way, claims and announces a fast ring once we sent
 * enough packets (returns 1 when the ring is ours: the caller sends through it). */
static int queue_send(int peer, int world_peer, const mp_hdr *hdr, const mp_payload *payload)
{
    if (mp_shm.lane[peer] == MP_LANE_QUEUE && mp_shm.queued[peer] >= mp_cfg.shm_ring_after) {
        uint32_t k = atomic_fetch_add_explicit(&mp_shm_inbox(peer)->rings_used, 1,
                                               memory_order_relaxed);
        mp_shm.lane[peer] = k < mp_shm.seg->rings ? MP_LANE_CLAIMED : MP_LANE_NO_RING;
        mp_shm.claimed[peer] = k;
    }
    int announce = mp_shm.lane[peer] == MP_LANE_CLAIMED;
    int64_t chunk = announce ? 0 : stage_payload(payload);
    if (chunk < 0)
        return MP_AGAIN;
    uint32_t lap;
    mp_cell *cell = mp_shm_queue_full(peer) ? NULL : queue_claim(peer, &lap);
    if (cell == NULL) {
        unstage(chunk);
        set_blocked(peer, 1);
        return MP_AGAIN;
    }
    set_blocked(peer, 0);
    if (announce) {
        cell->chunk = MP_CELL_RING;
        cell->hdr.addr = mp_shm.claimed[peer];
        queue_publish(cell, lap);
        mp_shm.send_ring[peer] = mp_shm_ring(peer, mp_shm.claimed[peer]);
        mp_shm.fast_to[mp_shm.nfast_to++] = peer;
        return 1;                             /* no wake-up: the packet follows in the ring */
    }
    fill(cell, hdr, payload, (uint32_t)chunk);
    queue_publish(cell, lap);
    mp_shm.queued[peer]++;
    mp_shm_wake_check(peer, world_peer);      /* wakes the peer if it sleeps (wait.c) */
    return 0;
}

static int shm_send(int world_peer, const mp_hdr *hdr, const mp_payload *payload)
{
    int peer = mp_world.procs[world_peer].local;
    if (MP_UNLIKELY(mp_shm.send_ring[peer] == NULL)) {
        int r = queue_send(peer, world_peer, hdr, payload);
        if (r != 1)
            return r;
    }
    mp_cell *cell = free_cell(peer);
    if (cell == NULL)
        return MP_AGAIN;
    int64_t chunk = stage_payload(payload);
    if (chunk < 0)
        return MP_AGAIN;
    fill(cell, hdr, payload, (uint32_t)chunk);
    atomic_store_explicit(&cell->full, 1, memory_order_release);
    mp_shm.send_pos[peer]++;
    mp_shm_wake_check(peer, world_peer);      /* wakes the peer if it sleeps (wait.c) */
    return 0;
}

/* The fast path's packet: raw bytes, no datatype engine (mp_payload_copy's memcpy branch). */
static int shm_send_bytes(int world_peer, const mp_hdr *hdr, const void *data, size_t len)
{
    mp_payload raw = { data, 0, NULL, 0, len };
    return shm_send(world_peer, hdr, &raw);
}

static inline const void *payload_of(int sender, const mp_cell *cell)
{
    return cell->chunk ? (const void *)(mp_shm_chunk(sender, cell->chunk - 1) + 1)
                       : (const void *)cell->data;
}

/* The consumer's release of a cell's chunk (mp_chunk), then of the cell: a ring cell goes
 * back to full = 0, a queue cell (ring NULL) to the stamp of its next lap. */
static inline void release(int sender, mp_cell *cell, uint32_t qlap)
{
    if (cell->chunk && cell->chunk != MP_CELL_RING)
        atomic_store_explicit(&mp_shm_chunk(sender, cell->chunk - 1)->busy, 0,
                              memory_order_release);
    atomic_store_explicit(&cell->full, qlap, memory_order_release);
}

/* Consumes the announcement in queue cell `cell` (our head): sender's fast ring is read
 * from now on. */
static void take_ring(mp_cell *cell)
{
    int sender = cell->hdr.reserved;
    uint32_t lap = mp_shm.head & ~mp_shm.qmask;
    mp_shm.recv_ring[sender] = mp_shm_ring(mp_shm.me, (uint32_t)cell->hdr.addr);
    mp_shm.fast_from[mp_shm.nfast_from++] = sender;
    mp_shm.head++;
    release(sender, cell, lap + mp_shm.qmask + 1);
}

/* Direct receive (pt2pt's blocking receive reads one sender's lane itself), under the
 * protocols of shm.h: peek is the consumer's acquire of the oldest cell -- of the sender's
 * ring, or of our queue when its head is the sender's -- and consume releases the chunk and
 * the cell exactly as a poll does. */
static const mp_hdr *shm_peek(int world_src, const void **payload)
{
    int sender = mp_world.procs[world_src].local;
    if (!mp_shm.recv_ring[sender]) {
        mp_cell *cell = mp_shm_queue_ready();
        if (!cell || cell->hdr.reserved != sender)
            return NULL;
        if (cell->chunk != MP_CELL_RING) {
            *payload = payload_of(sender, cell);
            return &cell->hdr;
        }
        take_ring(cell);
    }
    mp_cell *cell = mp_shm.recv_ring[sender] + (mp_shm.recv_pos[sender] & mp_shm.mask);
    if (!atomic_load_explicit(&cell->full, memory_order_acquire))
        return NULL;
    *payload = payload_of(sender, cell);
    return &cell->hdr;
}

static void shm_consume(int world_src)
{
    int sender = mp_world.procs[world_src].local;
    if (!mp_shm.recv_ring[sender]) {
        mp_cell *cell = mp_shm.queue + (mp_shm.head & mp_shm.qmask);
        uint32_t lap = mp_shm.head & ~mp_shm.qmask;
        mp_shm.head++;
        release(sender, cell, lap + mp_shm.qmask + 1);
        return;
    }
    mp_cell *cell = mp_shm.recv_ring[sender] + (mp_shm.recv_pos[sender] & mp_shm.mask);
    mp_shm.recv_pos[sender]++;
    release(sender, cell, 0);
}

/* A sender's packets travel through its fast ring once it claimed one (and a payload that
 * fits the cell needs no chunk of the shared pool); we read a sender's ring once we took its
 * announcement.  Rings are never given back, so the answer only ever turns to 1. */
static int shm_lane_private(int world, int send, size_t len)
{
    int peer = mp_world.procs[world].local;
    return send ? mp_shm.send_ring[peer] != NULL && len <= MP_CELL_INLINE
                : mp_shm.recv_ring[peer] != NULL;
}

#define MP_POLL_BURST 8

static inline int poll_ring(int sender)
{
    int events = 0;
    mp_cell *ring = mp_shm.recv_ring[sender];
    uint32_t pos = mp_shm.recv_pos[sender];
    while (events < MP_POLL_BURST) {
        mp_cell *cell = ring + (pos & mp_shm.mask);
        if (!atomic_load_explicit(&cell->full, memory_order_acquire))
            break;
        /* Advance first: the handler may poll again (it never does today, but a
         * re-entrant poll must not see this cell twice). */
        mp_shm.recv_pos[sender] = ++pos;
        mp_transport_deliver(mp_world.local_world[sender], &cell->hdr, payload_of(sender, cell));
        release(sender, cell, 0);
        events++;
    }
    return events;
}

/* Our shared queue, up to a burst, stopping at a packet of local rank skip (-1: none). */
static int poll_queue(int skip)
{
    int events = 0;
    mp_cell *cell;
    while (events < MP_POLL_BURST && (cell = mp_shm_queue_ready()) != NULL) {
        int sender = cell->hdr.reserved;
        if (sender == skip)
            break;
        if (cell->chunk == MP_CELL_RING) {
            take_ring(cell);
            continue;
        }
        uint32_t lap = mp_shm.head & ~mp_shm.qmask;
        mp_shm.head++;                        /* first, as in poll_ring */
        mp_transport_deliver(mp_world.local_world[sender], &cell->hdr, payload_of(sender, cell));
        release(sender, cell, lap + mp_shm.qmask + 1);
        events++;
    }
    return events;
}

/* Is a packet waiting that a poll skipping local rank skip would take?  The common answer of
 * a poll is "no": this scan gives it in a few instructions per lane. */
static inline int any_arrived(int skip)
{
    const mp_cell *head = mp_shm_queue_ready();
    if (head && head->hdr.reserved != skip)
        return 1;
    for (int i = 0; i < mp_shm.nfast_from; i++) {
        int s = mp_shm.fast_from[i];
        const mp_cell *cell = mp_shm.recv_ring[s] + (mp_shm.recv_pos[s] & mp_shm.mask);
        if (atomic_load_explicit(&cell->full, memory_order_acquire) && s != skip)
            return 1;
    }
    return 0;
}

static __attribute__((noinline)) int poll_all(int skip)
{
    int n = mp_shm.nfast_from, events = 0;
    int start = mp_shm.poll_start < n ? mp_shm.poll_start : 0;
    for (int i = 0; i < n; i++) {
        int k = start + i;
        if (k >= n)
            k -= n;
        int s = mp_shm.fast_from[k];
        if (s != skip)
            events += poll_ring(s);
    }
    mp_shm.poll_start = start + 1 < n ? start + 1 : 0;
    return events + poll_queue(skip);
}

/* Polls every lane except those of world rank skip_world (-1: none).  The scan is inline
 * and the handling out of line, so an empty poll saves the latter's register spills. */
static int shm_poll(int skip_world)
{
    int skip = skip_world >= 0 && mp_world.procs[skip_world].tp == &mp_shm_transport ?
               mp_world.procs[skip_world].local : -1;
    return any_arrived(skip) ? poll_all(skip) : 0;
}

mp_transport mp_shm_transport = {
    .name = "shm",
    .send = shm_send,
    .send_bytes = shm_send_bytes,
    .peek = shm_peek,
    .consume = shm_consume,
    .lane_private = shm_lane_private,
    .read = mp_cma_read,
    .write = mp_cma_write,
    .readv = mp_cma_readv,
    .writev = mp_cma_writev,
    .poll = shm_poll,
    .shares_memory = 1,
    .wakes_sleepers = 1,
};

/* Sense-reversing barrier over the node's ranks.  The last arrival resets the count and then
 * bumps the generation with release; waiters acquire the generation.  Waiters keep polling
 * their queues so that peers blocked on a full queue towards them can finish first. */
void mp_node_barrier(void)
{
    mp_seg *s = mp_shm.seg;
    unsigned gen = atomic_load_explicit(&s->bar_gen, memory_order_acquire);
    unsigned arrived = atomic_fetch_add_explicit(&s->bar_count, 1, memory_order_acq_rel) + 1;
    if (arrived == s->nlocal) {
        atomic_store_explicit(&s->bar_count, 0, memory_order_relaxed);
        atomic_store_explicit(&s->bar_gen, gen + 1, memory_order_release);
        mp_shm_wake_all();                    /* waiters may sleep (watching bar_gen) */
        return;
    }
    unsigned spins = 0;
    mp_shm_watch(&s->bar_gen, gen);
    while (atomic_load_explicit(&s->bar_gen, memory_order_acquire) == gen) {
        if (mp_transport_has_handler(MP_PKT_CLASS_P2P))   /* not before pt2pt is up */
            shm_poll(-1);
        mp_idle_packet(&spins);               /* may sleep: the last arrival wakes us */
    }
    mp_shm_watch(NULL, 0);
}

int mp_shm_init(void)
{
    int err = mp_segment_create_or_attach();
    if (err)
        return err;
    mp_shm_transport.max_payload = mp_shm.seg->chunk_size;
    mp_shm_transport.eager_max = mp_cfg.eager_max;
    int cma = 0;
    if (mp_cfg.cma != 0)
        cma = mp_cma_probe();
    else
        mp_node_barrier();
    if (mp_cfg.cma == 1 && !cma)
        return mp_error_code(MPI_ERR_OTHER, "MEMPI_CMA=1 but the kernel refuses "
                             "process_vm_readv between the ranks of this node");
    mp_shm.cma = cma;
    mp_shm_transport.single_copy = cma;
    mp_shm_transport.copy_unlocked = cma;
    mp_shm_transport.split_open = cma ? mp_split_open : NULL;
    mp_shm_transport.split_copy = cma ? mp_split_copy : NULL;
    if (mp_cfg.verbose && mp_world.rank == 0)
        fprintf(stderr, "MemPI: shm transport: %d local ranks, %u cells/queue, %zu chunks of %zu "
                "bytes/rank, single copy %s, segment %.1f MiB\n", mp_shm.nlocal,
                mp_shm.seg->cells, (size_t)mp_shm.seg->chunks, (size_t)mp_shm.seg->chunk_size,
                cma ? "on" : "off", (double)mp_shm.seg->total / 1048576.0);
    return MPI_SUCCESS;
}

void mp_shm_abandon(void)
{
    mp_segment_abandon();
}

void mp_shm_finalize(void)
{
    mp_segment_detach();
}

void *mp_coll_slot(int local)
{
    return (char *)mp_shm.seg + mp_shm.seg->off_coll + (size_t)local * mp_shm.seg->coll_slot;
}

size_t mp_coll_slot_size(void)
{
    return mp_shm.seg->coll_slot;
}

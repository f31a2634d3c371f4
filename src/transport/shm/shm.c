/* shm.c -- the shared-memory transport: send into a peer's FIFO, poll our own FIFOs.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Sending writes one cell of ring(receiver <- me); a payload that does not fit the cell goes
 * into a chunk of our own pool and the cell names it.  The sender packs straight from the
 * user's buffer (through the datatype engine) into shared memory: one copy in, one copy out.
 * A full ring or an exhausted pool returns MP_AGAIN; the caller keeps the message queued and
 * retries after progress, so nothing is dropped and order per pair is kept.
 *
 * Polling visits every sender's ring starting from a rotating position (fairness), and hands
 * at most a few packets per ring per call to the point-to-point handler.
 */
#include "transport/shm/shm.h"
#include "transport/shm/wait.h"
#include <string.h>

/* Finds a free chunk of our pool, or returns -1. */
static int64_t chunk_alloc(void)
{
    uint32_t n = (uint32_t)mp_shm.seg->chunks;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = (mp_shm.pool_next + i) % n;
        mp_chunk *c = mp_shm_chunk(mp_shm.me, idx);
        if (atomic_load_explicit(&c->busy, memory_order_acquire) == 0) {
            atomic_store_explicit(&c->busy, 1, memory_order_relaxed);
            mp_shm.pool_next = idx + 1;
            return idx;
        }
    }
    return -1;
}

/* The producer's half of the ring protocol (shm.h): the free cell of ring(peer <- me), or
 * NULL when the ring is full. */
static inline mp_cell *free_cell(int peer)
{
    mp_cell *cell = mp_shm.send_ring[peer] + (mp_shm.send_pos[peer] & mp_shm.mask);
    return atomic_load_explicit(&cell->full, memory_order_acquire) ? NULL : cell;
}

static inline void publish(int peer, int world_peer, mp_cell *cell, const mp_hdr *hdr, size_t len)
{
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
    atomic_store_explicit(&cell->full, 1, memory_order_release);
    mp_shm.send_pos[peer]++;
    mp_shm_wake_check(peer, world_peer);      /* wakes the peer if it sleeps (wait.c) */
}

static int shm_send(int world_peer, const mp_hdr *hdr, const mp_payload *payload)
{
    int peer = mp_world.procs[world_peer].local;
    mp_cell *cell = free_cell(peer);
    if (cell == NULL)
        return MP_AGAIN;
    size_t len = payload ? payload->len : 0;
    if (!mp_cell_inline_payload(cell, payload)) {
        int64_t idx = chunk_alloc();
        if (idx < 0)
            return MP_AGAIN;
        mp_payload_copy(mp_shm_chunk(mp_shm.me, (uint32_t)idx) + 1, payload);
        cell->chunk = (uint32_t)idx + 1;
    }
    publish(peer, world_peer, cell, hdr, len);
    return 0;
}

/* The fast path's packet: raw bytes, no datatype engine (mp_payload_copy's memcpy branch). */
static int shm_send_bytes(int world_peer, const mp_hdr *hdr, const void *data, size_t len)
{
    mp_payload raw = { data, 0, NULL, 0, len };
    return shm_send(world_peer, hdr, &raw);
}

/* Direct receive (pt2pt's blocking receive reads one sender's ring itself), under the ring
 * protocol of shm.h: peek is the consumer's acquire of `full` on the oldest cell, consume
 * releases the chunk and the cell exactly as a poll does. */
static const mp_hdr *shm_peek(int world_src, const void **payload)
{
    int sender = mp_world.procs[world_src].local;
    mp_cell *cell = mp_shm.recv_ring[sender] + (mp_shm.recv_pos[sender] & mp_shm.mask);
    if (!atomic_load_explicit(&cell->full, memory_order_acquire))
        return NULL;
    *payload = cell->chunk ? (const void *)(mp_shm_chunk(sender, cell->chunk - 1) + 1)
                           : (const void *)cell->data;
    return &cell->hdr;
}

static void shm_consume(int world_src)
{
    int sender = mp_world.procs[world_src].local;
    mp_cell *cell = mp_shm.recv_ring[sender] + (mp_shm.recv_pos[sender] & mp_shm.mask);
    mp_shm.recv_pos[sender]++;
    if (cell->chunk)
        atomic_store_explicit(&mp_shm_chunk(sender, cell->chunk - 1)->busy, 0,
                              memory_order_release);
    atomic_store_explicit(&cell->full, 0, memory_order_release);
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
        mp_chunk *chunk = cell->chunk ? mp_shm_chunk(sender, cell->chunk - 1) : NULL;
        const void *payload = chunk ? (const void *)(chunk + 1) : (const void *)cell->data;
        /* Advance first: the handler may poll again (it never does today, but a
         * re-entrant poll must not see this cell twice). */
        mp_shm.recv_pos[sender] = ++pos;
        mp_transport_deliver(mp_world.local_world[sender], &cell->hdr, payload);
        if (chunk)
            atomic_store_explicit(&chunk->busy, 0, memory_order_release);
        atomic_store_explicit(&cell->full, 0, memory_order_release);
        events++;
    }
    return events;
}

/* Is a packet waiting in a ring other than skip's?  The common answer of a poll is "no":
 * this scan gives it in a few instructions per ring. */
static inline int any_arrived(int skip)
{
    for (int s = 0; s < mp_shm.nlocal; s++) {
        const mp_cell *cell = mp_shm.recv_ring[s] + (mp_shm.recv_pos[s] & mp_shm.mask);
        if (atomic_load_explicit(&cell->full, memory_order_acquire) && s != skip)
            return 1;
    }
    return 0;
}

static __attribute__((noinline)) int poll_rings(int skip)
{
    int n = mp_shm.nlocal, events = 0;
    int start = mp_shm.poll_start;
    for (int i = 0; i < n; i++) {
        int s = start + i;
        if (s >= n)
            s -= n;
        if (s != skip)
            events += poll_ring(s);
    }
    mp_shm.poll_start = start + 1 < n ? start + 1 : 0;
    return events;
}

/* Polls every ring except the one of world rank skip_world (-1: none).  The scan is inline
 * and the handling out of line, so an empty poll saves the latter's register spills. */
static int shm_poll(int skip_world)
{
    int skip = skip_world >= 0 && mp_world.procs[skip_world].tp == &mp_shm_transport ?
               mp_world.procs[skip_world].local : -1;
    return any_arrived(skip) ? poll_rings(skip) : 0;
}

mp_transport mp_shm_transport = {
    .name = "shm",
    .send = shm_send,
    .send_bytes = shm_send_bytes,
    .peek = shm_peek,
    .consume = shm_consume,
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

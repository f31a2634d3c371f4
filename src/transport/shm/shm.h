/* shm.h -- internals of the shared-memory transport.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * One segment per node holds, for every local rank r, an inbox: one shared receive queue that
 * every sender may use (many producers, one consumer), and a few per-sender fast rings that r
 * hands out on demand -- the papers' Memory-Based FIFO, one single-producer ring per sender,
 * for the peers that talk to r most.  Small payloads travel inside the cell; larger ones in a
 * chunk of the sender's pool, which the cell names.  Every part is per rank, so the segment
 * grows linearly with the ranks per node (P inboxes, P pools, P collective slots), and a page
 * costs memory only once somebody touches it: an idle queue or an unclaimed ring costs none.
 *
 *   +---------+------------+-------------+----------------------+-----------------------+---------+
 *   | seg hdr | rank areas | inbox hdrs  | inbox[r]: queue,rings| pools[s] (chunks of s)| coll[s] |
 *   +---------+------------+-------------+----------------------+-----------------------+---------+
 *
 * Lanes and order.  A sender s starts talking to r through r's shared queue.  After
 * MEMPI_SHM_RING_AFTER packets it claims one of r's MEMPI_SHM_RINGS fast rings (a
 * fetch_add on the inbox's counter; none left: s stays on the queue for good) and announces
 * the ring with a last packet through the queue; every later packet from s to r goes through
 * the ring.  r starts reading s's ring only when it consumes that announcement, so it has
 * consumed all of s's earlier queue packets by then: the pair's order holds across the switch.
 * Rings are never given back (a ring's pages stay with the pair until the job ends), so the
 * fast lanes are bounded by MEMPI_SHM_RINGS per receiver.
 *
 * coll[s] is a slot per rank that the collective layer owns (mp_shm_coll_slot, transport.h):
 * the shared-memory collectives write their contribution there and peers read it directly.
 */
#ifndef MP_SHM_H
#define MP_SHM_H

#include "transport/transport.h"

#define MP_CELL_SIZE   128
#define MP_SHM_MAGIC   0x4d656d5049534d31ull   /* "MemPISM1" */

/* A ring cell.  Protocol (single producer = sender s, single consumer = receiver r):
 *   - s may write a cell only when it observes full == 0 with an acquire load (pairs with r's
 *     release store below, so r's reads of the previous contents happened before s's writes);
 *   - s writes chunk, hdr and data, then publishes with a release store full = 1;
 *   - r observes full == 1 with an acquire load (so it sees hdr, data and the chunk's data),
 *     hands the packet up, then releases the chunk (see mp_chunk) and stores full = 0 with
 *     release.
 * Each side keeps its own position in private memory, so the only shared line a message
 * touches is the cell itself (and the chunk for large payloads).  The shared queue of an
 * inbox uses the same cells with `full` holding a position stamp instead (see mp_inbox). */
typedef struct mp_cell {
    atomic_uint full;
    uint32_t chunk;                       /* 0: payload inline, else pool chunk index + 1 */
    mp_hdr hdr;
    unsigned char data[MP_CELL_SIZE - 8 - sizeof(mp_hdr)];
} mp_cell;
#define MP_CELL_INLINE (MP_CELL_SIZE - 8 - sizeof(mp_hdr))
_Static_assert(sizeof(mp_cell) == MP_CELL_SIZE, "a ring cell is two cache lines");
_Static_assert(offsetof(mp_cell, hdr) == 8, "the header follows full and chunk");

/* A payload that fits goes inside the free cell (returns 1: the cell names no chunk); a larger
 * one is the caller's to put into one of its sender's chunks (returns 0). */
static inline int mp_cell_inline_payload(mp_cell *cell, const mp_payload *payload)
{
    if (payload && payload->len > MP_CELL_INLINE)
        return 0;
    cell->chunk = 0;
    mp_payload_copy(cell->data, payload);
    return 1;
}

/* Header of a pool chunk, followed by the chunk's data.  `busy` is set to 1 by the owning
 * sender (relaxed: only it ever sets it, and the cell's release store publishes it along with
 * the data) and cleared by the receiver with a release store once it copied the data out; the
 * sender reuses a chunk only after observing busy == 0 with an acquire load. */
typedef struct mp_chunk {
    atomic_uint busy;
    char pad[MP_CACHELINE - sizeof(atomic_uint)];
} mp_chunk;
_Static_assert(sizeof(mp_chunk) == MP_CACHELINE, "chunk data starts on its own cache line");

/* A shared copy (two cores, one transfer; split.c) that its owner publishes in its rank area.
 * The owner is the side that knows both buffers first (the sender of a remote write, the
 * receiver of a rendezvous pull); the helper is the other side, told by a packet.  The
 * transfer of `len` bytes is cut into chunks whose size both sides compute from `len` alone.
 *   claim  (ticket << 32) | next chunk to claim.  The owner publishes a new transfer by storing
 *          (ticket << 32) | 0 with release, after resetting `done` and `err`; each side claims
 *          chunk k with a compare-and-swap k -> k + 1 that also checks the ticket (acquire on
 *          success: the helper then sees the reset `done`).  A helper whose packet names an
 *          older ticket fails the check and claims nothing, so a late or stale packet is
 *          harmless; no chunk is copied twice or skipped.
 *   done   bytes copied, added by each side after its last chunk with a release fetch_add; the
 *          owner waits for done == len with acquire loads, so every byte the helper moved
 *          (its process_vm_* calls returned) happened before the owner reports completion
 *          and before it publishes the next ticket.  A helper touches the slot only between
 *          a successful claim and its add to `done`, which the owner waits for, so the slot is
 *          never reused under it.
 *   err    a helper's failed copy (MPI error class), stored relaxed before its add to done.
 *   offer  written only by the slot's rank, for the other direction: 1 while it is idle in a
 *          wait and may help a peer's copy (mp_split_offer, split.c states when).  An owner
 *          reads it (relaxed) once, when it decides whether to share a copy; it is a hint, so
 *          a stale value only makes a transfer share or not, never wrong. */
typedef struct mp_split_slot {
    _Atomic uint64_t claim;
    _Atomic uint64_t done;
    atomic_int err;
    atomic_int offer;
    char pad[MP_CACHELINE - 24];
} mp_split_slot;
_Static_assert(sizeof(mp_split_slot) == MP_CACHELINE, "one cache line per shared copy");

typedef struct mp_rank_area {
    atomic_uint futex;                    /* wake word for the sleeping waiting policy */
    atomic_uint sleeping;
    int32_t pid;
    int32_t world_rank;
    uint64_t probe_addr;                  /* address of a magic word, for the single-copy probe */
    char pad[MP_CACHELINE - 24];
    mp_split_slot split;                  /* on its own line: the wake words stay quiet */
} mp_rank_area;
_Static_assert(sizeof(mp_rank_area) == 2 * MP_CACHELINE, "two cache lines per rank");

/* A rank's inbox: the header below (in an array of them, so that the headers of many ranks
 * share pages), and, page-aligned elsewhere, `queue` cells of the shared queue followed by
 * `rings` fast rings of `cells` cells each.  Fresh (zero) pages are a valid empty inbox.
 *
 * The shared queue is a bounded many-producer, single-consumer array queue (Vyukov's bounded
 * queue with a single consumer).  Positions are unsigned 32-bit counters; the cell of position
 * p is cell[p % Q], and lap(p) = p - p % Q.  The cell's `full` word holds its state as a
 * position stamp: lap(p) means free for position p, lap(p) + 1 means the packet of position
 * p is published, lap(p) + Q (= lap(p + Q)) means consumed, free for position p + Q.  Zero pages
 * are thus "free for positions 0..Q-1" without initialisation.
 *   - A producer reads `tail` (relaxed) as p and the cell's stamp w with an acquire load (pairs
 *     with the consumer's release below: the consumer's reads of the previous lap happened
 *     before anything the producer writes).  w == lap(p): the cell is free; the producer
 *     claims position p with a compare-and-swap tail p -> p+1 (relaxed: the claim orders
 *     nothing by itself, the stamps do) and, having won, owns the cell.  (int32)(w - lap(p))
 *     < 0: the cell still holds or awaits the previous lap's packet -- the queue is full,
 *     MP_AGAIN.  > 0: another producer took p meanwhile; read tail again.
 *   - The owner writes chunk, hdr (with hdr.reserved = its local rank) and data, then stores
 *     w = lap(p) + 1 with release.
 *   - The consumer keeps its position h privately, reads the stamp of cell[h % Q] with
 *     acquire; lap(h) + 1 means the packet is there (and its hdr, data and chunk are visible).
 *     It hands the packet up, releases the chunk (mp_chunk), then stores lap(h) + Q with
 *     release, and advances h.  A producer that claimed a cell and has not published yet holds
 *     the packets behind it back until it does (a bounded delay, never a loss).
 *   Positions wrap at 2^32; Q is a power of two, so laps stay consistent across the wrap.  A
 *   producer stalled between reading tail and its compare-and-swap for 2^32 claims by others
 *   could be fooled (ABA): not a practical concern.
 * The fast rings follow the single-producer ring protocol of mp_cell.  `rings_used` counts
 * the rings handed out: a sender takes index k = fetch_add(rings_used, 1) (relaxed: the ring
 * is zero and nobody else ever uses index k; k >= rings means none is left) and announces k
 * through the queue (a cell whose chunk is MP_CELL_RING, k in hdr.addr).  The receiver reads
 * ring k only after it consumed the announcement (acquire on its stamp), and the sender writes
 * ring k's cells under the ring protocol, so no other ordering is needed. */
typedef struct mp_inbox {
    atomic_uint tail;                     /* next queue position producers claim */
    char pad0[MP_CACHELINE - sizeof(atomic_uint)];
    atomic_uint rings_used;               /* fast rings handed out (may exceed `rings`) */
    char pad1[MP_CACHELINE - sizeof(atomic_uint)];
} mp_inbox;
_Static_assert(sizeof(mp_inbox) == 2 * MP_CACHELINE, "producers' tail and the ring counter on their own lines");
#define MP_CELL_RING 0xffffffffu          /* chunk value of a queue cell announcing a fast ring */

typedef struct mp_seg {
    uint64_t magic;
    uint32_t nlocal, cells;
    uint64_t chunk_size, chunks;
    uint64_t off_ranks, off_inbox_hdr, off_inbox, off_pools, off_coll, total;
    uint64_t inbox_stride;                /* bytes of cells per inbox (page multiple) */
    uint32_t queue, rings;                /* shared queue cells; fast rings per inbox */
    uint64_t coll_slot;                   /* bytes per rank of the collective area */
    atomic_uint attached;
    atomic_uint cma_ok;
    char pad0[MP_CACHELINE];
    atomic_uint bar_count;                /* barrier: arrivals in the current generation */
    char pad1[MP_CACHELINE - sizeof(atomic_uint)];
    atomic_uint bar_gen;                  /* barrier: generation, bumped by the last arrival */
    char pad2[MP_CACHELINE - sizeof(atomic_uint)];
} mp_seg;
_Static_assert(offsetof(mp_seg, bar_gen) - offsetof(mp_seg, bar_count) == MP_CACHELINE,
               "the barrier's words live on separate cache lines");

/* A sender's lane towards one receiver (mp_shm_state.lane). */
enum { MP_LANE_QUEUE, MP_LANE_CLAIMED, MP_LANE_NO_RING };

typedef struct mp_shm_state {
    mp_seg *seg;
    size_t map_size;
    int nlocal, me;
    uint32_t mask;                        /* cells - 1 (fast rings) */
    uint32_t qmask;                       /* queue - 1 */
    size_t chunk_stride;                  /* sizeof(mp_chunk) + chunk size */
    mp_inbox *inbox;                      /* ours */
    mp_cell *queue;                       /* our inbox's shared queue */
    uint32_t head;                        /* our next queue position to consume */
    /* sender side, per peer: */
    mp_cell **send_ring;                  /* [peer] our fast ring in its inbox, NULL: queue */
    uint32_t *send_pos;                   /* [peer] next cell index in send_ring[peer] */
    uint32_t *queued;                     /* [peer] packets sent through its queue */
    uint32_t *claimed;                    /* [peer] ring index taken, until announced */
    uint8_t *lane;                        /* [peer] MP_LANE_* while send_ring[peer] is NULL */
    uint8_t *blocked;                     /* [peer] its queue was full at our last try */
    int nblocked;
    int *fast_to;                         /* peers whose ring we own, nfast_to of them */
    int nfast_to;
    /* receiver side, per sender: */
    mp_cell **recv_ring;                  /* [sender] its fast ring in our inbox, NULL: none */
    uint32_t *recv_pos;                   /* [sender] next cell index in recv_ring[sender] */
    int *fast_from;                       /* senders with a ring in our inbox, nfast_from */
    int nfast_from;
    uint32_t pool_next;                   /* where the chunk search starts */
    uint32_t pool_hot;                    /* chunks [0, pool_hot) are in use (mp_shm_chunk_find) */
    int poll_start;
    int cma;
} mp_shm_state;
extern mp_shm_state mp_shm;

static inline mp_rank_area *mp_shm_rank(int local)
{
    return (mp_rank_area *)((char *)mp_shm.seg + mp_shm.seg->off_ranks) + local;
}

static inline mp_inbox *mp_shm_inbox(int receiver)
{
    return (mp_inbox *)((char *)mp_shm.seg + mp_shm.seg->off_inbox_hdr) + receiver;
}

static inline mp_cell *mp_shm_queue(int receiver)
{
    return (mp_cell *)((char *)mp_shm.seg + mp_shm.seg->off_inbox +
                       (size_t)receiver * mp_shm.seg->inbox_stride);
}

/* Fast ring k of receiver's inbox. */
static inline mp_cell *mp_shm_ring(int receiver, uint32_t k)
{
    return mp_shm_queue(receiver) + mp_shm.seg->queue + (size_t)k * mp_shm.seg->cells;
}

static inline mp_chunk *mp_shm_chunk(int owner, uint32_t index)
{
    size_t pool_bytes = (size_t)mp_shm.seg->chunks * mp_shm.chunk_stride;
    return (mp_chunk *)((char *)mp_shm.seg + mp_shm.seg->off_pools +
                        (size_t)owner * pool_bytes + (size_t)index * mp_shm.chunk_stride);
}

/* A free chunk of our pool, or -1.  The search keeps to a hot window of the pool's first
 * pool_hot chunks (rotating from pool_next, so a streaming sender usually finds the next one
 * free at once) and widens it only when all of them are busy: the pool's pages are touched
 * only as far as the most chunks ever in flight at once. */
static inline int64_t mp_shm_chunk_find(void)
{
    uint32_t hot = mp_shm.pool_hot, n = (uint32_t)mp_shm.seg->chunks;
    for (uint32_t i = 0; i < hot; i++) {
        uint32_t idx = (mp_shm.pool_next + i) % hot;
        if (atomic_load_explicit(&mp_shm_chunk(mp_shm.me, idx)->busy, memory_order_acquire) == 0)
            return idx;
    }
    for (uint32_t idx = hot; idx < n; idx++)
        if (atomic_load_explicit(&mp_shm_chunk(mp_shm.me, idx)->busy, memory_order_acquire) == 0)
            return idx;
    return -1;
}

/* Shared queue, consumer side: our oldest queue cell if its packet is published, else NULL. */
static inline mp_cell *mp_shm_queue_ready(void)
{
    mp_cell *cell = mp_shm.queue + (mp_shm.head & mp_shm.qmask);
    uint32_t lap = mp_shm.head & ~mp_shm.qmask;
    return atomic_load_explicit(&cell->full, memory_order_acquire) == lap + 1 ? cell : NULL;
}

/* Shared queue, producer side: is receiver's queue full right now? */
static inline int mp_shm_queue_full(int receiver)
{
    uint32_t pos = atomic_load_explicit(&mp_shm_inbox(receiver)->tail, memory_order_relaxed);
    mp_cell *cell = mp_shm_queue(receiver) + (pos & (mp_shm.seg->queue - 1));
    uint32_t w = atomic_load_explicit(&cell->full, memory_order_acquire);
    return (int32_t)(w - (pos & ~(mp_shm.seg->queue - 1))) < 0;
}

extern mp_transport mp_shm_transport;
int  mp_shm_init(void);                   /* maps the node segment (shm.c) */
void mp_shm_finalize(void);
void mp_shm_abandon(void);                /* MPI_Init failed: leave nothing in /dev/shm */
extern mp_sleeper mp_shm_sleeper;         /* the progress engine's sleeper (wait.c) */

void mp_conn_finalize(void);             /* conn.c: channels to other jobs */

int  mp_segment_create_or_attach(void);   /* segment.c */
void mp_segment_layout(mp_seg *s, int nlocal);  /* sizes and offsets from mp_cfg */
void mp_shm_attach_mapped(mp_seg *seg, size_t size, int me);  /* local state over a mapping */
void mp_segment_detach(void);
void mp_segment_abandon(void);          /* MPI_Init failed: remove the name if still there */
int  mp_cma_probe(void);                  /* cma.c: 1 if single copy works with every peer */
int  mp_cma_read(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov);
int  mp_cma_write(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov);
int  mp_cma_readv(int world_peer, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote);
int  mp_cma_writev(int world_peer, const struct iovec *local, int nlocal,
                   const struct iovec *remote, int nremote);
int  mp_split_open(int world_peer, size_t len, uint32_t *ticket);   /* split.c */
int  mp_split_copy(int world_peer, int owner, uint32_t ticket, int write, uint64_t remote_addr,
                   void *local, size_t len, size_t *helped);

#endif

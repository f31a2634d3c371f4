/* shm.h -- internals of the shared-memory transport.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * One segment per node holds, for every ordered pair of local ranks (sender s, receiver r), a
 * small ring of cells: the papers' Memory-Based FIFO, one queue per sender in each receiver.
 * Small payloads travel inside the cell; larger ones in a chunk of the sender's pool, which the
 * cell names.  Memory: P*P small rings (MEMPI_SHM_CELLS x 128 B each) plus P pools -- linear in
 * P for the bulk, with a small quadratic term (8 KiB per pair by default).
 *
 *   +----------+-------------+---------------------------+-----------------------+-----------+
 *   | seg hdr  | rank areas  | rings[r][s] (r: receiver) | pools[s] (chunks of s)| coll[s]   |
 *   +----------+-------------+---------------------------+-----------------------+-----------+
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
 * touches is the cell itself (and the chunk for large payloads). */
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

typedef struct mp_rank_area {
    atomic_uint futex;                    /* wake word for the sleeping waiting policy */
    atomic_uint sleeping;
    int32_t pid;
    int32_t world_rank;
    uint64_t probe_addr;                  /* address of a magic word, for the single-copy probe */
    char pad[MP_CACHELINE - 24];
} mp_rank_area;
_Static_assert(sizeof(mp_rank_area) == MP_CACHELINE, "one cache line per rank");

typedef struct mp_seg {
    uint64_t magic;
    uint32_t nlocal, cells;
    uint64_t chunk_size, chunks;
    uint64_t off_ranks, off_rings, off_pools, off_coll, total;
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

typedef struct mp_shm_state {
    mp_seg *seg;
    size_t map_size;
    int nlocal, me;
    uint32_t mask;                        /* cells - 1 */
    size_t chunk_stride;                  /* sizeof(mp_chunk) + chunk size */
    uint32_t *send_pos;                   /* [peer] next cell index in ring(peer <- me) */
    uint32_t *recv_pos;                   /* [sender] next cell index in ring(me <- sender) */
    mp_cell **send_ring;                  /* [peer] ring(peer <- me), computed once */
    mp_cell **recv_ring;                  /* [sender] ring(me <- sender), computed once */
    uint32_t pool_next;                   /* where the chunk search starts */
    int poll_start;
    int cma;
} mp_shm_state;
extern mp_shm_state mp_shm;

static inline mp_rank_area *mp_shm_rank(int local)
{
    return (mp_rank_area *)((char *)mp_shm.seg + mp_shm.seg->off_ranks) + local;
}

static inline mp_cell *mp_shm_ring(int receiver, int sender)
{
    size_t ring_bytes = (size_t)mp_shm.seg->cells * MP_CELL_SIZE;
    return (mp_cell *)((char *)mp_shm.seg + mp_shm.seg->off_rings +
                       ((size_t)receiver * (size_t)mp_shm.nlocal + (size_t)sender) * ring_bytes);
}

static inline mp_chunk *mp_shm_chunk(int owner, uint32_t index)
{
    size_t pool_bytes = (size_t)mp_shm.seg->chunks * mp_shm.chunk_stride;
    return (mp_chunk *)((char *)mp_shm.seg + mp_shm.seg->off_pools +
                        (size_t)owner * pool_bytes + (size_t)index * mp_shm.chunk_stride);
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

#endif

/* transport.h -- the one door to the transports.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A transport moves bytes to a peer and knows nothing of MPI matching or windows.  Layers above
 * (point-to-point, one-sided, collectives) reach a transport only through this header: they see
 * the vtable of the transport that serves a world rank (mp_transport_of), the registry functions
 * below, and node-level services (the node barrier, shared mappings, the collective slots).  No
 * file outside src/transport/ includes a transport's private header (tests/check-layers).
 *
 * Packets are made of a fixed header (mp_hdr, carried verbatim) and a payload described as a
 * byte range of a (buffer, count, datatype) stream, so a transport packs straight into its
 * queue memory with no intermediate copy.  A transport hands each arrived packet to the
 * handler registered for the packet's class (mp_transport_set_handler): the type byte's top two
 * bits pick the class, so point-to-point and one-sided packets share the queues of a pair
 * without sharing a handler.
 *
 * The vtable, per peer:
 *   send        an eager packet into the receiver's queue for this sender (the papers'
 *               Memory-Based FIFO).  Ordered per sender->receiver pair across all classes.
 *               Returns MP_AGAIN when the queue or the pool is full; never drops.
 *   send_bytes  the same for a contiguous payload (the small-message fast path: no datatype
 *               engine).  Optional.
 *   peek        the oldest packet from one sender, left in place (NULL hdr: none), and
 *   consume     releasing it: a blocking receive reads that queue itself.  Optional.
 *   read/write  single copy between address spaces: the peer's contiguous range at remote_addr
 *               from/to local segments (rendezvous pull, remote write).  Synchronous;
 *               available when `single_copy` is set.
 *   read_start  optional asynchronous read of one contiguous range (see below).
 *   readv/writev  single copy with segments on both sides (one-sided operations on a peer's
 *               memory that is not mapped here).  Optional; same-host peers only.
 *   split_open/split_copy  optional two-core single copy (see below).
 *   poll        hands arrived packets to the handlers; packets from `skip_world` stay queued.
 * Each transport reports its own limits (max payload per packet, eager threshold), so
 * crossovers differ by location, as MPI-StarT found they must.
 *
 * Services of the shared-memory transport that upper layers use directly: the node barrier,
 * each local rank's collective slot in the node segment, and shared mappings for windows
 * (created owner-only under an unpredictable name, unlinked as soon as every rank mapped them).
 */
#ifndef MP_TRANSPORT_H
#define MP_TRANSPORT_H

#include "core/core.h"
#include "datatype/datatype.h"
#include <string.h>
#include <sys/uio.h>

#define MP_AGAIN (-11)

/* Packet classes: the top two bits of the type byte. */
enum { MP_PKT_CLASS_P2P = 0, MP_PKT_CLASS_RMA = 1, MP_PKT_CLASSES = 4 };
#define MP_PKT_CLASS(type) ((unsigned)(type) >> 6)

/* Packet types of the point-to-point protocol (docs/protocol.md). */
enum mp_pkt_type {
    MP_PKT_EAGER = 1,     /* first (or only) packet of an eager message */
    MP_PKT_FRAG,          /* continuation data: of the current eager message (cookie 0) or
                             of a pipelined rendezvous (cookie = receiver's request) */
    MP_PKT_RTS,           /* rendezvous ready-to-send: addr = sender's buffer */
    MP_PKT_CTS,           /* clear-to-send when single copy is unavailable */
    MP_PKT_FIN,           /* receiver finished reading a rendezvous message */
    MP_PKT_ACK,           /* synchronous send matched */
    MP_PKT_SREQ,          /* request for sending (receive posted first): addr = receive
                             buffer, size = its capacity, seq = first sequence number the
                             receive can match, cookie = the receive request */
    MP_PKT_RWDONE,        /* remote write finished: data is in the receive buffer; a first
                             packet (carries seq, tag, src, size), cookie = receive request */
    MP_PKT_NULLMSG,       /* a cancelled send's sequence number, consumed with no message */
    MP_PKT_SRCANCEL,      /* receiver withdraws its SREQ (cookie = receive request, ctx =
                             its context) */
    MP_PKT_SRCANCEL_ACK,  /* sender: the SREQ is gone (used, stale or removed) */
    MP_PKT_CANCEL_REQ,    /* sender asks to withdraw an unmatched message (cookie = send req) */
    MP_PKT_CANCEL_REP,    /* receiver's answer: flags & MP_HDR_CANCELLED if it was withdrawn */
    MP_PKT_SPLIT,         /* owner of a single copy asks the peer to share it: cookie = the
                             peer's request, addr = owner's buffer, size = bytes, seq = ticket */
    MP_PKT_P2P_LAST = MP_PKT_SPLIT,
    MP_PKT_RMA_FIRST = MP_PKT_CLASS_RMA << 6   /* one-sided packets: src/rma/ */
};
enum {
    MP_HDR_SYNC = 1,      /* sender wants an ACK when matched */
    MP_HDR_CANCELLED = 2  /* CANCEL_REP: the message was withdrawn */
};

/* The header of every packet, 48 bytes on every transport.  One-sided packets give some
 * fields their own meaning (src/rma/rma_am.c), never another size. */
typedef struct mp_hdr {
    uint8_t  type;
    uint8_t  flags;
    uint16_t reserved;
    int32_t  ctx;         /* context id on the wire */
    int32_t  src;         /* sender's rank in the communicator's local group */
    int32_t  tag;
    uint32_t seq;         /* message sequence number on its track of the pair (below) */
    uint32_t len;         /* payload bytes in this packet */
    uint64_t size;        /* total bytes of the message */
    uint64_t cookie;      /* request identity on the side that will use it */
    uint64_t addr;        /* a buffer address (RTS, SREQ) or a second cookie (CTS) */
} mp_hdr;
_Static_assert(sizeof(mp_hdr) == 48, "mp_hdr is a wire header: 48 bytes on every transport");

/* Point-to-point messages are numbered (seq) per track of a sender->receiver pair, not per
 * pair (docs/protocol.md, rule 1): MPI orders one communicator's messages only.  The track
 * of a wire context: context ids come in pairs (a communicator's point-to-point context and
 * its collective one, comm/comm.h), so both share their communicator's track and
 * consecutive communicators get different ones.  A transport that looks into the protocol's
 * numbering (the network's SREQ mirror) compares numbers of one track only. */
#define MP_TRACKS 8
static inline unsigned mp_track_index(int ctx)
{
    return ((unsigned)ctx >> 1) & (MP_TRACKS - 1);
}
_Static_assert(MP_PKT_P2P_LAST < MP_PKT_RMA_FIRST, "packet classes overlap");

/* Payload of a packet: bytes [offset, offset+len) of the packed stream of (buf, count, dt). */
typedef struct mp_payload {
    const void *buf;
    MPI_Aint count;
    const mp_datatype *dt;  /* NULL: raw bytes at buf */
    size_t offset, len;
} mp_payload;
/* Copies a payload's bytes to dst (len bytes; nothing for NULL), packing non-contiguous types:
 * what every transport does to put a payload into its buffers (inline: it is on the send
 * path of every eager message). */
static inline void mp_payload_copy(void *dst, const mp_payload *p)
{
    if (p == NULL || p->len == 0)
        return;
    if (p->dt == NULL)
        memcpy(dst, (const char *)p->buf + p->offset, p->len);
    else if (p->dt->is_contig)
        memcpy(dst, (const char *)p->buf + p->dt->true_lb + p->offset, p->len);
    else
        mp_pack(p->buf, p->count, p->dt, p->offset, dst, p->len);
}

typedef struct mp_transport {
    const char *name;
    int (*send)(int world_peer, const mp_hdr *hdr, const mp_payload *payload);
    int (*send_bytes)(int world_peer, const mp_hdr *hdr, const void *data, size_t len);
    const mp_hdr *(*peek)(int world_src, const void **payload);
    void (*consume)(int world_src);
    int (*read)(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov);
    int (*write)(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov);
    /* Optional: start reading one contiguous range and return at once; done(arg, err) runs
     * later from the transport's poll, never inside a packet handler.  Anything but
     * MPI_SUCCESS means nothing was started (use read). */
    int (*read_start)(int world_peer, uint64_t remote_addr, void *local, size_t len,
                      void (*done)(void *arg, int err), void *arg);
    int (*readv)(int world_peer, const struct iovec *local, int nlocal,
                 const struct iovec *remote, int nremote);
    int (*writev)(int world_peer, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote);
    /* Optional: one contiguous transfer copied by both sides at once.  The owner (the side
     * that does the copy anyway) calls split_open; MP_AGAIN means "copy alone" (the transfer
     * is below MEMPI_SPLIT_COPY_MIN, split copies are off, or the node's ranks outnumber its
     * cores).  Otherwise it tells the peer (ticket, its buffer's address, len) in a packet and
     * calls split_copy(owner = 1), which copies chunks until none is left and returns when the
     * helper's chunks are done too.  The helper, on that packet, calls split_copy(owner = 0)
     * with the owner's address: it copies chunks until none is left and returns without
     * waiting; a packet that comes late claims nothing.  write: local -> remote.  Both return
     * an MPI error code (the helper's failure reaches the owner's call); the helper's call
     * adds the bytes it copied to *helped (the owner passes NULL). */
    int (*split_open)(int world_peer, size_t len, uint32_t *ticket);
    int (*split_copy)(int world_peer, int owner, uint32_t ticket, int write, uint64_t remote_addr,
                      void *local, size_t len, size_t *helped);
    int (*poll)(int skip_world);
    /* Optional, with send_bytes and peek: 1 when a send_bytes of len bytes to world (send =
     * 1), or a peek and consume of world's packets (send = 0), touches no state of this
     * process but world's own lane -- so that callers outside the big lock (pt2pt's lanes)
     * need only a lock per peer and direction; 0 when it may touch state shared by all peers
     * (then they also take one lock per direction for the whole transport).  The answer may
     * change from 0 to 1, never back; it is asked with the peer's lock held. */
    int (*lane_private)(int world, int send, size_t len);
    size_t max_payload;   /* data bytes per packet */
    size_t eager_max;     /* largest message sent eagerly */
    int single_copy;      /* read/write available */
    int copy_unlocked;    /* read/write/split_copy touch no library state: they may
                             run while another thread holds the big lock */
    int shares_memory;    /* the peer can map our shared mappings (mp_shared_*) */
    int wakes_sleepers;   /* a packet sent through it ends the receiver's futex sleep */
} mp_transport;

/* ---- the registry (transport.c) ------------------------------------------------------- */

/* Picks the transport of every world rank (same host: shm, else net), initialises the ones in
 * use (collective over the job) and registers their polls and the sleeper with the progress
 * engine.  mp_transports_abandon: MPI_Init failed, leave nothing in /dev/shm. */
int  mp_transports_init(void);
void mp_transports_finalize(void);   /* after the last packet was handed over; collective */
void mp_transports_abandon(void);

static inline mp_transport *mp_transport_of(int world)
{
    return (mp_transport *)mp_world.procs[world].tp;
}

/* Called by transports for each arrived packet.  The payload is valid only during the call. */
typedef void (*mp_packet_handler)(int world_src, const mp_hdr *hdr, const void *payload);
void mp_transport_set_handler(int cls, mp_packet_handler handler);
int  mp_transport_has_handler(int cls);    /* a layer took packets of this class */
extern mp_packet_handler mp_packet_handlers[MP_PKT_CLASSES];
static inline void mp_transport_deliver(int world_src, const mp_hdr *hdr, const void *payload)
{
    mp_packet_handlers[MP_PKT_CLASS(hdr->type)](world_src, hdr, payload);
}

/* ---- node services of the shared-memory transport -------------------------------------- */

/* Barrier over this host's ranks (start-up, finalize); polls packets meanwhile. */
void mp_node_barrier(void);

/* Two-core copies (shm/split.c): 1 while this rank waits idle, so that a local peer's large
 * copy to or from it may be shared with it; 0 when the wait ends.  The caller decides what
 * counts as idle (pt2pt.c: a one-directional wait with nothing of its own to copy). */
void mp_split_offer(int on);

/* The collective layer's slot of local rank `local` in the node segment (mp_coll_slot_size
 * bytes, page aligned, zero at start).  Its protocol is the coll layer's (src/coll/shm.c). */
void  *mp_coll_slot(int local);
size_t mp_coll_slot_size(void);

/* Sleeping in the collective layer's waits.  A rank waiting for a word of a slot to change
 * names it with mp_coll_watch (a 32-bit word) or mp_coll_watch_stamp (64 bits) and then idles
 * with mp_idle_packet: the sleep ends when the word differs from `old` or a packet arrives
 * (NULL: watch nothing).  Whoever changes such a word calls mp_coll_wake right after its
 * release store, for the local ranks that may wait for it (entries equal to this rank's own
 * index are skipped): the sender's half of transport/shm/wait.c's protocol. */
void mp_coll_watch(atomic_uint *word, unsigned old);
void mp_coll_watch_stamp(const _Atomic uint64_t *word, uint64_t old);
void mp_coll_wake(const int *local, int n);

/* Shared mappings for windows.  mp_shared_create makes a zeroed mapping of `size` bytes
 * (mode 0600, "/mempi-<job>-<random>") and returns its name; the ranks of this host that
 * share it call mp_shared_attach with that name; once all of them mapped it, one calls
 * mp_shared_unlink.  A size of 0 maps nothing.  Errors are MPI error codes with messages. */
#define MP_SHARED_NAME_MAX 80
int  mp_shared_create(size_t size, char name[MP_SHARED_NAME_MAX], void **addr);
int  mp_shared_attach(const char *name, size_t size, void **addr);
void mp_shared_unlink(const char *name);
void mp_shared_unmap(void *addr, size_t size);

/* ---- channels to other jobs' processes on this host (shm/conn.c) ----------------------- */

/* A connection between this process's group and a group of `nsenders` processes of another
 * job: every process creates an inbox with one slot per sender (shared memory whose address
 * goes to the other group: a memfd opened through /proc, never a name left in /dev/shm),
 * maps the inbox of each peer and sends into its own slot there (mp_conn_attach, which makes
 * process `id` reachable through a channel), and once both groups attached gives up the means
 * of opening its inbox (mp_conn_inbox_done; also right on an error).  Channels and inboxes
 * are unmapped at MPI_Finalize. */
typedef struct mp_conn_inbox mp_conn_inbox;
int  mp_conn_inbox_create(int nsenders, char name[MP_SHARED_NAME_MAX], mp_conn_inbox **out);
int  mp_conn_attach(int id, mp_conn_inbox *mine, int my_slot, const char *peer_name,
                    int peer_slot);
void mp_conn_inbox_done(mp_conn_inbox *in);

/* ---- the network transport's interface, for other hosts' connections (net/net.c) ------- */

/* In a job that uses the network transport (its ranks span hosts): the IP address of this
 * process's endpoint (port field 0), so a listening socket there is reachable from every host
 * the job reaches; returns 0.  Otherwise -1: a job on one host has no network interface it may
 * listen on. */
struct sockaddr_storage;
int  mp_net_local_address(struct sockaddr_storage *sa, unsigned *len);

/* Processes of other jobs on other hosts are reached through the network transport.
 * mp_net_address: this process's endpoint address (in a job on one host the endpoint is
 * opened now, at its first connection to another host; MPI error code).  mp_net_attach:
 * process `id` (already in the process table) is reached at `addr`, and its table names us
 * `my_id_there` (what our packets carry as their source).  Such peers take no part in the
 * goodbye of MPI_Finalize and in liveness checks: their job ends on its own. */
#define MP_NET_ADDRESS_MAX 128
int  mp_net_address(unsigned char addr[MP_NET_ADDRESS_MAX], int *len);
int  mp_net_prepare(int id);          /* before our address goes out: buffers for its packets */
int  mp_net_attach(int id, const unsigned char *addr, int len, int my_id_there);
/* For the network transport: it started after MPI_Init (poll it; waits may not sleep). */
void mp_transport_net_started(void);

#endif

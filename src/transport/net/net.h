/* net.h -- private state of the network transport (libfabric).  MemPI, BSD-3-Clause.
 *
 * Every packet on the wire is a 16-byte mp_net_wire, then (for DATA) the point-to-point
 * header and payload exactly as the shm transport carries them; an RTS or SREQ whose buffer
 * was registered for fi_read / fi_write carries the remote key (mp_net_key) between the two
 * (flag MP_NET_F_KEY; see netrma.c).  The wire header adds what a
 * network needs and shared memory does not: the sender's world rank (an RDM endpoint receives
 * from anyone into any posted buffer), a per-pair packet number that checks the provider kept
 * send-after-send order, and returned credits.
 *
 * Flow control is by credits.  At start every rank posts, for each remote peer, `credits` +
 * MP_NET_RESERVE receive buffers into one shared pool, and every peer may have at most
 * `credits` DATA packets unconsumed here.  A consumed buffer is reposted at once and its
 * credit is owed back to the sender: piggy-backed on the next DATA packet we send it, or as an
 * explicit CREDIT packet as soon as a quarter of the window is owed (half a window made a
 * sender streaming 64 KiB fragments wait for the receiver's copies: see netmsg.c, owe).
 * Small messages that find no credit are not refused: they are packed one after another into
 * one send buffer per peer (a BATCH packet, MEMPI_NET_COALESCE), which leaves as one numbered
 * packet -- one credit, one receive buffer, one system call on each side -- when a credit
 * comes back; a buffer fills with up to 64 KiB of messages, so a window of credits carries
 * far more small messages than it has buffers.
 * CREDIT, BYE and BYE_ACK packets need no credit: at most four CREDIT packets (each returns
 * >= a quarter of the window, and no more than a window can be outstanding) plus one BYE and
 * one BYE_ACK can be in flight per peer, which the reserve covers, with one liveness
 * heartbeat (sent only after the peer was heard from since the previous one, so a silent
 * peer never has more than one waiting).  So no
 * packet is ever dropped or left in the provider's unexpected queue, and two ranks that flood
 * each other both keep draining: a rank out of credits still polls and returns credits.
 */
#ifndef MP_NET_H
#define MP_NET_H

#include "transport/transport.h"

/* The transport (its vtable is filled by mp_net_init).  mp_net_init does nothing in a job on
 * one host; built without libfabric it fails there with a message saying what to install. */
extern mp_transport mp_net_transport;
int  mp_net_init(void);             /* after mp_shm_init; collective over the job */
void mp_net_finalize(void);         /* after the last packet was handed over; collective */

#ifdef MEMPI_HAVE_LIBFABRIC
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

/* fabric.c: dlopen libfabric.so.1 (multi-host jobs only); MPI error code */
int mp_fabric_load(void);
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define MP_NET_MAGIC   0x6d704e74u    /* "mpNt" */
#define MP_NET_INJECT  1024           /* inject size asked of the provider (and stack packets) */
#define MP_NET_RESERVE 8              /* receive buffers per peer beyond its credits (7 used) */

enum { MP_NET_DATA = 1, MP_NET_CREDIT, MP_NET_BYE, MP_NET_BYE_ACK, MP_NET_BATCH };
enum { MP_NET_F_KEY = 1 };            /* DATA: an mp_net_key follows the mp_hdr */

/* A BATCH packet is an mp_net_wire and then messages, each an mp_net_item, its mp_hdr, its key
 * (flag MP_NET_F_KEY) and its payload, padded to 8 bytes so that every header is aligned. */
typedef struct mp_net_item {
    uint32_t flags;                   /* MP_NET_F_KEY */
    uint32_t reserved;
} mp_net_item;
_Static_assert(sizeof(mp_net_item) == 8, "a batch item header is 8 bytes");
#define MP_NET_BATCH_ITEM_MAX 8192    /* larger messages are never packed into a batch */

typedef struct mp_net_wire {
    uint32_t magic;
    uint8_t  type;                    /* MP_NET_DATA, MP_NET_CREDIT, MP_NET_BYE, ... */
    uint8_t  flags;                   /* MP_NET_F_KEY */
    uint16_t credits;                 /* buffers of the sender's that we may fill again */
    int32_t  src;                     /* sender's world rank */
    uint32_t seq;                     /* DATA, BYE: per sender->receiver packet number */
} mp_net_wire;
_Static_assert(sizeof(mp_net_wire) == 16, "the wire header is 16 bytes");

/* The remote key of a buffer a peer exposed to us (RTS: its send buffer, SREQ: its receive
 * buffer), sent after the mp_hdr.  Remote address of byte i of the buffer = base + i. */
typedef struct mp_net_key {
    uint64_t key;
    uint64_t base;                    /* hdr.addr with FI_MR_VIRT_ADDR, else 0 (offsets) */
} mp_net_key;
_Static_assert(sizeof(mp_net_key) == 16, "a key trailer is 16 bytes");

enum { MP_NET_K_SEND, MP_NET_K_RECV, MP_NET_K_RMA, MP_NET_K_RMA_ASYNC };

/* A buffer the provider owns while a send or receive is posted on it; also the context of a
 * read or write (kind MP_NET_K_RMA, data unused). */
typedef struct mp_net_buf {
    struct fi_context ctx;            /* first: the provider's per-operation context */
    int kind;                         /* MP_NET_K_* */
    int peer;                         /* sends: destination world rank */
    char *data;
    void *desc;                       /* receive buffers: the registration of their pool */
    int pending;                      /* RMA: operations not yet completed */
    int err;                          /* RMA: an operation failed (fi errno) */
} mp_net_buf;

/* A registration: one of our buffers a peer may read or write (`mine`), or one of the
 * peer's that we may (`!mine`).  See netrma.c for when each is made and dropped. */
typedef struct mp_net_mr mp_net_mr;  /* a registration of a user buffer (netmr.c) */

typedef struct mp_net_reg {
    struct mp_net_reg *next;
    uint64_t cookie;                  /* the pt2pt request the RTS / SREQ named */
    uint64_t addr, size;              /* hdr.addr, hdr.size */
    mp_net_mr *mr;                    /* mine */
    mp_net_key key;                   /* theirs */
    int is_sreq;                      /* SREQ: resolved by the first matching message */
    int32_t ctx, tag;
    uint32_t first_seq;
} mp_net_reg;

/* First packets sent to a peer that the SREQ mirror (netrma.c) remembers: the protocol's
 * history depth (MP_HISTORY in pt2pt), so that "more than this were sent since" agrees. */
#define MP_NET_SENT_HISTORY 64

typedef struct mp_net_peer {
    fi_addr_t addr;
    int remote;                       /* reached by this transport */
    int credits;                      /* DATA packets we may still send to it */
    int owed;                         /* its credits we hold: reposted buffers not returned */
    int owed_listed;                  /* in mp_net.owed_list */
    uint32_t send_seq, recv_seq;
    mp_net_buf **held;                /* window: packets that completed before their turn */
    size_t *held_len;
    int heard;                        /* a packet arrived since the last liveness check */
    int may_beat;                     /* a packet arrived since our last heartbeat to it */
    double last_heard;                /* time of the liveness check that saw it alive */
    int foreign;                      /* a process of another job (dynamic processes) */
    int32_t wire_src;                 /* our id in its process table: the wire's src */
    int reachable;                    /* its address is known (a foreign peer's packets may
                                         arrive before: credits for it wait) */
    int bye;                          /* its BYE arrived */
    int bye_acked;                    /* its BYE_ACK (for our BYE) arrived */
    int ack_pending;                  /* we still owe it a BYE_ACK */
    mp_net_reg *mine, *theirs;        /* registrations (netrma.c) */
    mp_net_buf *batch;                /* messages waiting for a credit, packed (netmsg.c) */
    size_t batch_len;                 /* bytes of the batch so far, its wire header included */
    struct { int32_t ctx, tag; uint32_t seq; } sent[MP_NET_SENT_HISTORY];
                                      /* the last first packets sent to it, all tracks */
    unsigned sent_pos, sent_used;     /* where the next one goes in sent[]; entries in use */
    uint32_t sent_next[MP_TRACKS];    /* per track: the sequence number after the last sent */
} mp_net_peer;

typedef struct mp_net_state {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_mr *mr;                /* the buffer pools, when the provider wants FI_MR_LOCAL */
    void *desc;
    char *pool;                       /* send and receive buffers, one allocation */
    size_t pool_size;
    size_t buf_size;                  /* wire header + mp_hdr + max payload */
    size_t inject_size;
    mp_net_buf *bufs;
    int nsend, nrecv;
    mp_net_buf **send_free;           /* stack of idle send buffers */
    int nsend_free;
    int nbatches;                     /* peers holding a batch (each holds one send buffer) */
    int coalesce;                     /* MEMPI_NET_COALESCE */
    mp_net_peer *peers;               /* npeers entries, indexed by process id */
    int npeers;                       /* the world's size, then every process id attached */
    int nremote;                      /* remote world peers (they take part in BYE) */
    struct { char *pool; struct fid_mr *mr; struct mp_net_buf *bufs; } *extra;
                                      /* receive buffers of foreign peers, a pool each */
    int nextra;
    int *owed_list;                   /* peers that may need an explicit CREDIT */
    int nowed;
    int credits;                      /* window per peer */
    int window;                       /* credits + 1: numbered packets a peer can have out */
    int byes, bye_acks;               /* BYE and BYE_ACK packets received */
    int acks_pending;                 /* BYE_ACKs we could not send yet */
    int closing;                      /* our BYE went out: no more heartbeats */
    int active;
    double timeout;                   /* MEMPI_NET_TIMEOUT in seconds, 0: no liveness checks */
    double last_check, last_beat;
    unsigned polls;
    int rma;                          /* fi_read / fi_write single copy is on */
    uint64_t next_key;                /* requested keys, when the provider does not pick */
    struct { mp_net_buf *b; size_t len; } *deferred;  /* receives completed during an RMA wait */
    int ndeferred, deferred_head;
    int rma_pending, rma_err;         /* the RMA wait's operations in flight, first error */
    int async_read;                   /* MEMPI_NET_ASYNC_READ: -1 auto, 0 off, 1 on */
    size_t rma_max;                   /* MEMPI_NET_RMA_MAX: larger messages use the pipeline */
#define MP_NET_RMA_MAX_AUTO ((size_t)-2) /* decided per message (mp_net_rma_limit) */
    int over_sockets;                 /* the provider runs over TCP/UDP sockets */
    int async_pending;                /* read_start operations not yet reported done */
    uint64_t async_reads;             /* read_start operations started (MEMPI_VERBOSE) */
} mp_net_state;
extern mp_net_state mp_net;

int  mp_net_post_recv(mp_net_buf *b);
int  mp_net_poll(int skip_world);
int  mp_net_send_ctrl(int peer, int type);  /* CREDIT / BYE; 0 or MP_AGAIN */
void mp_net_check_liveness(void);
const char *mp_net_peer_name(int world);    /* "rank 3 (host 1)" for messages */
size_t mp_net_rma_limit(void);              /* largest rendezvous moved by RMA now */
int  mp_net_cq_batch(int defer);            /* one batch of completions; events */

/* netmr.c: registrations of user buffers, cached where that is safe (MEMPI_NET_MR_CACHE) */
int  mp_net_mr_settings(void);              /* takes MEMPI_NET_MR_CACHE's bound; MPI error code */
void mp_net_mr_init(void);                  /* decides whether the provider allows the cache */
void mp_net_mr_describe(char *out, size_t len);
/* A registration covering [addr, addr + size) with (at least) `access`, its key in *key;
 * NULL if the provider refused.  Held until mp_net_mr_put. */
mp_net_mr *mp_net_mr_get(uint64_t addr, uint64_t size, uint64_t access, mp_net_key *key);
void mp_net_mr_sent(mp_net_mr *mr);         /* its key went out: counts a hit or miss */
void mp_net_mr_put(mp_net_mr *mr);
void mp_net_mr_finalize(void);              /* every registration was put */

/* netrma.c */
void mp_net_rma_init(void);                 /* sets the transport's read/write if possible */
void mp_net_rma_finalize(void);
/* An outgoing DATA packet: may register a buffer (RTS, SREQ) and fill *key, drop
 * registrations the packet ends.  Returns 1 to send it with a key, 0 without, -1 to swallow
 * it (an SREQ we cannot or will not serve).  *h may be edited (RTS addr = 0: pipeline). */
int  mp_net_rma_outgoing(int peer, mp_hdr *h, mp_net_key *key, mp_net_reg **made);
void mp_net_rma_unsent(mp_net_reg *made);     /* the provider refused the packet */
void mp_net_rma_async_done(mp_net_buf *b, int fi_err);  /* completion of a read_start */
void mp_net_rma_async_run(void);            /* reports finished read_starts (poll, not nested) */
void mp_net_rma_sent(int peer, const mp_hdr *h, mp_net_reg *made);
/* An incoming DATA packet, before the protocol sees it (key: its trailer or NULL). */
void mp_net_rma_incoming(int peer, const mp_hdr *h, const mp_net_key *key);
#endif

#endif

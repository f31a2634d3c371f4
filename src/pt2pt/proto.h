/* proto.h -- private state of the point-to-point protocol.  MemPI, BSD-3-Clause.
 *
 * Between two processes messages are ordered per *track*: every wire context belongs to one
 * of MP_TRACKS tracks (mp_track_index), and MPI orders only messages of one communicator, so
 * tracks need no order among themselves.  Per peer (world rank) and track the sender keeps a
 * sequence counter and a FIFO of sends that are not yet fully handed to the transport; only
 * the head of that FIFO transmits, which keeps the track's order of first packets equal to
 * the order of MPI send calls, while a send stuck at the head of one track (a remote write
 * copying, a full ring in the middle of a message) holds up no other communicator's.  The
 * receiver keeps the next expected sequence number per peer and track (checked on every first
 * packet) and the message whose eager fragments are still arriving on it.  Control packets
 * (replies naming a request) are not numbered and wait in one FIFO per peer.
 *
 * Queues are doubly linked through mp_request.next/prev (posted receives, pending sends) and
 * through mp_unexp.next/prev (unexpected messages, in arrival order).
 */
#ifndef MP_PROTO_H
#define MP_PROTO_H

#include "pt2pt/pt2pt.h"
#include "transport/transport.h"

/* Protocol states of a request (mp_request.state). */
enum {
    MP_ST_SEND_EAGER = 1,   /* first/further eager packets still to hand to the transport */
    MP_ST_SEND_RTS,         /* ready-to-send still to hand to the transport */
    MP_ST_SEND_STREAM,      /* CTS received: fragments addressed to the receiver's request */
    MP_ST_WAIT_ACK,         /* synchronous eager send: waiting for the match */
    MP_ST_WAIT_FIN,         /* rendezvous: waiting for the receiver's FIN or CTS */
    MP_ST_RECV_POSTED,      /* in the posted queue */
    MP_ST_RECV_FRAGS,       /* matched, fragments still arriving */
    MP_ST_RECV_WAIT_UNEXP,  /* matched an unexpected eager message still arriving */
    MP_ST_RECV_READING,     /* matched a rendezvous: the transport is reading (read_start) */
    MP_ST_SEND_RWDONE,      /* remote write done (or to do): RWDONE still to hand over */
    MP_ST_SEND_NULL,        /* cancelled before transmission: NULLMSG still to hand over */
    MP_ST_DONE
};

typedef struct mp_unexp mp_unexp;
struct mp_unexp {
    mp_unexp *next, *prev;
    int type;               /* MP_PKT_EAGER or MP_PKT_RTS */
    int world_src;
    int ctx, src, tag;
    uint32_t seq;
    int flags;
    size_t size, received;  /* eager: bytes arrived so far */
    uint64_t cookie, addr;  /* sender's request and buffer (RTS, sync) */
    unsigned char *data;    /* eager payload copy */
    mp_request *waiting;    /* receive that matched while fragments still arrive */
};

typedef struct mp_ctrl mp_ctrl;   /* a control packet the transport could not take yet */
struct mp_ctrl {
    mp_ctrl *next;
    mp_hdr hdr;
};

/* A request for sending that arrived from a receiver and waits for the matching send. */
typedef struct mp_sreq mp_sreq;
struct mp_sreq {
    mp_sreq *next;
    int ctx, tag;           /* tag may be MPI_ANY_TAG */
    uint32_t first_seq;     /* the receive can match messages from this sequence number on */
    size_t capacity;
    uint64_t cookie, addr;
};

/* Envelopes of the last MP_HISTORY messages sent to a peer, to tell whether a request for
 * sending that arrives late was already answered by an eager or rendezvous message. */
#define MP_HISTORY 64
typedef struct mp_envelope { int ctx, tag; } mp_envelope;

/* One track of a peer (see the top of this file).  Track 0 lives in the peer; the others are
 * allocated at their first use with that peer (mp_track_of). */
typedef struct mp_track {
    uint32_t send_seq;
    uint32_t recv_seq;
    mp_request *send_head, *send_tail;   /* pending sends, FIFO */
    mp_request *in_req;                  /* eager fragments go to this receive ... */
    mp_unexp *in_unexp;                  /* ... or to this unexpected message */
    mp_sreq *sreqs;                      /* pending requests for sending, arrival order */
    uint8_t copying;                     /* a thread writes send_head's data into the peer,
                                            maybe without the big lock (copy.c) */
    mp_envelope history[MP_HISTORY];     /* [seq % MP_HISTORY] */
} mp_track;

typedef struct mp_peer {
    size_t fast_limit;                   /* fast paths (fast.c) take messages < this; 0: none */
    mp_ctrl *ctrl_head, *ctrl_tail;      /* pending control packets */
    mp_transport *tp;
    unsigned turn;                       /* the track whose sends go first next (send.c) */
    mp_track *more[MP_TRACKS - 1];       /* tracks 1..: NULL until first used */
    mp_track track0;
    /* Lanes (binding/lane.c) sending to and receiving from this peer through the transport:
     * leaf locks (core.h), apart from the fields above and from each other (the array of
     * peers is allocated with malloc's alignment, so padding rather than aligned types). */
    char lane_pad0[MP_CACHELINE];
    atomic_int lane_send;
    char lane_pad1[MP_CACHELINE - sizeof(atomic_int)];
    atomic_int lane_recv;
} mp_peer;

mp_track *mp_track_new(mp_peer *peer, unsigned index);   /* pt2pt.c: allocates track `index` */
/* The track of peer that carries context ctx. */
static inline mp_track *mp_track_of(mp_peer *peer, int ctx)
{
    unsigned i = mp_track_index(ctx);
    if (MP_LIKELY(i == 0))
        return &peer->track0;
    mp_track *t = peer->more[i - 1];
    return MP_LIKELY(t != NULL) ? t : mp_track_new(peer, i);
}
/* Track i of peer if it was ever used, else NULL (for walks over all of a peer's tracks). */
static inline mp_track *mp_track_at(mp_peer *peer, unsigned i)
{
    return i == 0 ? &peer->track0 : peer->more[i - 1];
}

/* The matching queues of one wire context (match.c): its posted receives and its unexpected
 * messages.  MPI matches within a communicator only, so each context has its own pair and a
 * message or receive never walks past another communicator's entries. */
typedef struct mp_mq {
    mp_request *posted_head, *posted_tail;
    mp_unexp *unexp_head, *unexp_tail;
} mp_mq;

/* Contexts' queues live in a table of pages of MP_MQ_PAGE contexts each, a page allocated at
 * the first use of one of its contexts.  Wire contexts are below 2^17 (comm/comm.h); the
 * table takes any below MP_MQ_CTX_LIMIT, and a packet naming a context beyond it is a
 * protocol error. */
#define MP_MQ_PAGE      256
#define MP_MQ_CTX_LIMIT (1 << 20)

typedef struct mp_pt2pt_state {
    mp_peer *peers;
    mp_mq *mq_pages[MP_MQ_CTX_LIMIT / MP_MQ_PAGE];   /* NULL: no context of it used yet */
} mp_pt2pt_state;
extern mp_pt2pt_state mp_p2p;

/* match.c.  Every queue holds the entries of one context only, so the functions that take
 * a context's queues (mp_mq_of) compare source and tag alone. */
mp_mq *mp_mq_page_in(int ctx);       /* the slow half of mp_mq_of: allocates the page */
/* The queues of context ctx (created empty at its first use).  A context beyond the table --
 * a corrupt packet; communicators still without one are refused by the binding -- stops the
 * job. */
static inline mp_mq *mp_mq_of(int ctx)
{
    mp_mq *page;
    if (MP_LIKELY((unsigned)ctx < MP_MQ_CTX_LIMIT) &&
        MP_LIKELY((page = mp_p2p.mq_pages[(unsigned)ctx / MP_MQ_PAGE]) != NULL))
        return &page[(unsigned)ctx % MP_MQ_PAGE];
    return mp_mq_page_in(ctx);
}
/* The queues of context ctx if they exist, else NULL (no entry was ever queued on it): for
 * lanes, which allocate nothing shared (lane.c). */
static inline mp_mq *mp_mq_find(int ctx)
{
    mp_mq *page;
    if ((unsigned)ctx >= MP_MQ_CTX_LIMIT ||
        (page = mp_p2p.mq_pages[(unsigned)ctx / MP_MQ_PAGE]) == NULL)
        return NULL;
    return &page[(unsigned)ctx % MP_MQ_PAGE];
}
mp_request *mp_match_posted(mp_mq *q, int src, int tag);            /* removes it */
int mp_posted_count(void);           /* receives in the posted queues of all contexts */
mp_unexp   *mp_match_unexpected(mp_mq *q, int src, int tag, int remove);
int         mp_posted_earlier_could_match(const mp_mq *q, int src, int tag,
                                          const mp_request *stop);
void        mp_posted_append(mp_mq *q, mp_request *req);
void        mp_posted_remove(mp_request *req);
void        mp_unexp_append(mp_mq *q, mp_unexp *u);
void        mp_unexp_remove(mp_mq *q, mp_unexp *u);
void        mp_unexp_remove_in_lane(mp_mq *q, mp_unexp *u, mp_stats *ls);   /* lane.c */

/* The message a send or receive request describes (the fields every kind of them sets). */
static inline void mp_request_set_message(mp_request *req, const void *buf, MPI_Aint count,
                                          mp_datatype *dt, int peer, int tag, mp_comm *comm)
{
    req->buf = (void *)buf;
    req->count = count;
    req->dt = dt;
    req->peer = peer;
    req->tag = tag;
    req->comm = comm;
}

/* MPI's envelope rule, the one every matching decision uses: a receive for (want_src,
 * want_tag) on a context, where the source and tag may be wildcards, takes a message of that
 * context sent by src with tag.  A context's queues hold only its own entries (match.c);
 * mp_envelope_matches is the rule for a packet of any context (the direct receive). */
static inline int mp_source_tag_match(int want_src, int want_tag, int src, int tag)
{
    return (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

static inline int mp_envelope_matches(int want_ctx, int want_src, int want_tag,
                                      int ctx, int src, int tag)
{
    return want_ctx == ctx && mp_source_tag_match(want_src, want_tag, src, tag);
}

/* The packet builders.  A message's first packet names its envelope, its place in the
 * pair's order and its size; a control packet names the request it concerns (cookie) and
 * one more word (addr).  Every other field is zero. */
static inline void mp_hdr_message(mp_hdr *h, int type, int ctx, int src, int tag, uint32_t seq,
                                  size_t size)
{
    *h = (mp_hdr){ .type = (uint8_t)type, .ctx = ctx, .src = src, .tag = tag, .seq = seq,
                   .size = size };
}

static inline void mp_hdr_control(mp_hdr *h, int type, uint64_t cookie, uint64_t addr)
{
    *h = (mp_hdr){ .type = (uint8_t)type, .cookie = cookie, .addr = addr };
}

/* The status of a received or probed message (status may be MPI_STATUS_IGNORE); MPI_ERROR
 * is not the receiver's to write (mp_status_copy). */
static inline void mp_status_message(MPI_Status *status, int src, int tag, size_t size)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = src;
    status->MPI_TAG = tag;
    status->count_hi_and_cancelled = 0;
    mp_status_set_bytes(status, (MPI_Count)size);
}

/* fast.c: sends and receives without a request (docs/protocol.md, fast paths).  Each returns
 * MP_AGAIN, having changed nothing, when the caller must take the normal path; the receives
 * go in order: mp_recv_arrived, then, if it returns MP_NO_MATCH, mp_recv_direct.  Their
 * forms for lanes are in pt2pt.h. */
#define MP_NO_MATCH 1
int  mp_send_fast(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                  mp_comm *comm, int ctx_offset);
int  mp_recv_direct(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                    mp_comm *comm, int ctx_offset, MPI_Status *status, unsigned *spins);
int  mp_recv_arrived(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                     mp_comm *comm, int ctx_offset, MPI_Status *status);
void mp_fast_init_peer(mp_peer *peer, int world);

/* send.c */
/* Counts a message in the statistics by protocol; with mp_send_number (sendreq.c) every
 * message sent takes it, whichever path sends it. */
enum { MP_PROTO_EAGER, MP_PROTO_SENDREQ, MP_PROTO_RNDV };
void mp_stat_sent(int proto, size_t bytes);
/* copy.c */
/* Single copy of a whole message: the peer's contiguous range at remote_addr to (read) or
 * from (write) the first `bytes` of (buf, count, dt), in as many transport calls as the
 * segments need.  MPI error code. */
int  mp_copy_message(int write, int world_peer, uint64_t remote_addr, void *buf, MPI_Aint count,
                     const mp_datatype *dt, size_t bytes);
/* The same for a message the peer may help copy (the two-core copy, docs/protocol.md):
 * if the transport opens a shared copy, the peer's request `peer_cookie` gets MP_PKT_SPLIT
 * and both sides copy chunks; returns when all bytes are there.  MPI error code. */
int  mp_copy_shared(int write, int world_peer, uint64_t remote_addr, uint64_t peer_cookie,
                    void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes);
/* mp_copy_shared from a progress hook: without the big lock where the poll allows it and
 * the transport and buffer can (copy.c states what the caller must have made safe). */
int  mp_copy_in_hook(int write, int world_peer, uint64_t remote_addr, uint64_t peer_cookie,
                     void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes);
/* Whether copies with world_peer go to the hook: MPI_THREAD_MULTIPLE, threads have met in
 * the library, and the transport copies unlocked.  mp_pull_later queues the pull of a matched
 * rendezvous into a contiguous receive (the hook pulls `bytes`, sends FIN and completes it);
 * mp_help_later this rank's part of a peer's two-core copy (MP_PKT_SPLIT). */
int  mp_copy_deferred(int world_peer);
void mp_pull_later(mp_request *req, int world_peer, uint64_t peer_cookie, uint64_t remote_addr,
                   size_t bytes);
void mp_help_later(int world_peer, uint32_t ticket, int write, uint64_t remote_addr,
                   void *local, size_t bytes);
void mp_copy_init(void);
void mp_split_on_packet(int world, const mp_hdr *hdr);  /* recv.c: help a peer's copy */
/* send.c */
void mp_send_queue(mp_peer *peer, mp_request *req);   /* appends to req's track, tries to
                                                         transmit */
void mp_send_ctrl(int world_peer, const mp_hdr *hdr);
int  mp_send_flush(void);                             /* retries pending work; events */

/* sendreq.c: the papers' request-for-sending protocol (docs/protocol.md) */
/* Numbers a new message on a track of a peer: its sequence number, remembered with its
 * envelope so a late SREQ can tell whether this message answered it (rule 2). */
uint32_t mp_send_number(mp_track *track, int ctx, int tag);
void mp_sendreq_maybe_post(mp_request *req);             /* receiver: after posting */
void mp_sendreq_on_sreq(int world, const mp_hdr *hdr);   /* sender: an SREQ arrived */
int  mp_sendreq_take(mp_track *track, mp_request *req);  /* sender: use one for req? */
void mp_sendreq_on_cancel(int world, const mp_hdr *hdr); /* sender: SRCANCEL arrived */

/* cancel.c */
int  mp_cancel(mp_request *req);
void mp_cancel_on_packet(int world, const mp_hdr *hdr);

/* recv.c */
void mp_recv_on_packet(int world_src, const mp_hdr *hdr, const void *payload);
void mp_recv_match_unexp(mp_request *req, mp_unexp *u);  /* a receive meets an unexpected msg */
void mp_deliver(mp_request *req, size_t offset, const void *data, size_t len);
void mp_recv_complete(mp_request *req);
/* A whole eager message h into req, its matched receive, which it fits; completes req. */
void mp_recv_take_whole(mp_request *req, const mp_hdr *h, const void *payload);

/* lane.c: lanes (binding/lane.c) enter the transport under leaf locks: the peer's for the
 * direction, and the transport's for it too when the call may touch more than that peer's
 * lane (tp->lane_private); returns what mp_lane_transport_exit needs. */
int  mp_lane_transport_enter(mp_transport *tp, int world, mp_peer *peer, int send, size_t len);
void mp_lane_transport_exit(mp_peer *peer, int send, int shared);
/* The earliest posted receive of q that takes the whole eager message h, if it is a plain
 * one that a lane or a fast path may complete: no layer waits for it with a hook, its type
 * needs no reference dropped, nothing else is under way on it (request for sending, cancel),
 * and the message fits (no truncation error to record).  NULL otherwise. */
mp_request *mp_posted_plain_match(mp_mq *q, const mp_hdr *h);
/* An eager message of another track than `track` at the head of a source's ring: in a lane,
 * whose owner may be about to take it, so the lane waits as if the ring were empty. */
static inline int mp_of_another_track(const mp_hdr *h, unsigned track)
{
    return h->type == MP_PKT_EAGER && mp_track_index(h->ctx) != track;
}

/* failed.c: operations with processes that are gone.  mp_p2p_failed_peer: the failed process
 * a send or receive addresses (-2: a wildcard receive nobody can satisfy), else -1. */
int  mp_p2p_failed_peer(const mp_request *req);
void mp_p2p_fail_request(mp_request *req, int failed);
void mp_p2p_failed_init(void);
void mp_send_reply(int world, int type, uint64_t cookie, uint64_t addr);
void mp_ack_if_sync(int world, const mp_hdr *first);   /* a synchronous send was matched */
void mp_send_complete(mp_request *req);
void mp_op_hold_type(mp_request *req);     /* derived types outlive MPI_Type_free */
void mp_op_release_type(mp_request *req);

#endif

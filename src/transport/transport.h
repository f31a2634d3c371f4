/* transport.h -- the channel interface between point-to-point and the transports.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A transport moves bytes to a peer and knows nothing of MPI matching.  The point-to-point
 * layer hands it packets made of a fixed header (mp_hdr, carried verbatim) and a payload
 * described as a byte range of a (buffer, count, datatype) stream, so the transport can pack
 * straight into its queue memory with no intermediate copy.
 *
 *   send        an eager packet into the receiver's queue for this sender (the papers'
 *               Memory-Based FIFO).  Ordered per sender->receiver pair.  Returns MP_AGAIN when
 *               the queue or the pool is full; never drops.
 *   read/write  single copy between address spaces (rendezvous pull, remote write);
 *               MP_AGAIN-free, synchronous, available when `single_copy` is set.
 *   poll        hands arrived packets to the handler installed with mp_transport_set_handler.
 *
 * Each transport reports its own limits (max payload per packet, eager threshold), so
 * crossovers differ by location, as MPI-StarT found they must.
 */
#ifndef MP_TRANSPORT_H
#define MP_TRANSPORT_H

#include "core/core.h"
#include "datatype/datatype.h"
#include <sys/uio.h>

#define MP_AGAIN (-11)

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
    MP_PKT_SRCANCEL,      /* receiver withdraws its SREQ (cookie = receive request) */
    MP_PKT_SRCANCEL_ACK,  /* sender: the SREQ is gone (used, stale or removed) */
    MP_PKT_CANCEL_REQ,    /* sender asks to withdraw an unmatched message (cookie = send req) */
    MP_PKT_CANCEL_REP,    /* receiver's answer: flags & MP_HDR_CANCELLED if it was withdrawn */
};
enum {
    MP_HDR_SYNC = 1,      /* sender wants an ACK when matched */
    MP_HDR_CANCELLED = 2  /* CANCEL_REP: the message was withdrawn */
};

typedef struct mp_hdr {
    uint8_t  type;
    uint8_t  flags;
    uint16_t reserved;
    int32_t  ctx;         /* context id on the wire */
    int32_t  src;         /* sender's rank in the communicator's local group */
    int32_t  tag;
    uint32_t seq;         /* per sender->receiver pair message sequence number */
    uint32_t len;         /* payload bytes in this packet */
    uint64_t size;        /* total bytes of the message */
    uint64_t cookie;      /* request identity on the side that will use it */
    uint64_t addr;        /* a buffer address (RTS, SREQ) or a second cookie (CTS) */
} mp_hdr;

/* Payload of a packet: bytes [offset, offset+len) of the packed stream of (buf, count, dt). */
typedef struct mp_payload {
    const void *buf;
    MPI_Aint count;
    const mp_datatype *dt;  /* NULL: raw bytes at buf */
    size_t offset, len;
} mp_payload;

typedef struct mp_transport {
    const char *name;
    int (*send)(int world_peer, const mp_hdr *hdr, const mp_payload *payload);
    int (*read)(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov);
    int (*write)(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov);
    /* Optional: start reading one contiguous range and return at once; done(arg, err) runs
     * later from the transport's poll, never inside a packet handler.  Anything but
     * MPI_SUCCESS means nothing was started (use read). */
    int (*read_start)(int world_peer, uint64_t remote_addr, void *local, size_t len,
                      void (*done)(void *arg, int err), void *arg);
    int (*poll)(void);
    size_t max_payload;   /* data bytes per packet */
    size_t eager_max;     /* largest message sent eagerly */
    int single_copy;      /* read/write available */
} mp_transport;

/* Called by transports for each arrived packet.  The payload is valid only during the call. */
typedef void (*mp_packet_handler)(int world_src, const mp_hdr *hdr, const void *payload);
extern mp_packet_handler mp_on_packet;

extern mp_transport mp_shm_transport;

/* The network transport (transport/net/): ranks on other hosts, through a libfabric RDM
 * endpoint.  mp_net_init does nothing in a job on one host; built without libfabric it fails
 * there with a message saying what to install. */
extern mp_transport mp_net_transport;
int  mp_net_init(void);             /* after mp_shm_init; collective over the job */
void mp_net_finalize(void);         /* after the last packet was handed over; collective */

/* Transport set-up, in MPI_Init order.  mp_shm_init maps the node segment. */
int  mp_shm_init(void);
void mp_shm_finalize(void);
void mp_shm_abandon(void);          /* MPI_Init failed: leave nothing in /dev/shm */
void mp_shm_barrier(void);          /* all local ranks; used at init and finalize */
int  mp_transports_poll(void);
/* Same, leaving the packets from world rank `world` where they are (pt2pt's direct receive
 * reads that queue itself). */
int  mp_transports_poll_except(int world);
/* The collective layer's slot of local rank `local` in the node segment (mp_shm_coll_slot_size
 * bytes, page aligned, zero at start).  Its protocol is the coll layer's (src/coll/). */
void  *mp_shm_coll_slot(int local);
size_t mp_shm_coll_slot_size(void);

/* Called by the waiting policy before sleeping / after waking (futex). */
void mp_shm_wake(int world_peer);

#endif

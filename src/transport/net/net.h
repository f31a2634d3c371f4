/* net.h -- private state of the network transport (libfabric).  MemPI, BSD-3-Clause.
 *
 * Every packet on the wire is a 16-byte mp_net_wire, then (for DATA) the point-to-point
 * header and payload exactly as the shm transport carries them.  The wire header adds what a
 * network needs and shared memory does not: the sender's world rank (an RDM endpoint receives
 * from anyone into any posted buffer), a per-pair packet number that checks the provider kept
 * send-after-send order, and returned credits.
 *
 * Flow control is by credits.  At start every rank posts, for each remote peer, `credits` +
 * MP_NET_RESERVE receive buffers into one shared pool, and every peer may have at most
 * `credits` DATA packets unconsumed here.  A consumed buffer is reposted at once and its
 * credit is owed back to the sender: piggy-backed on the next DATA packet we send it, or as an
 * explicit CREDIT packet once half the window is owed.  CREDIT, BYE and BYE_ACK packets need
 * no credit: at most two CREDIT packets (each returns >= half the window, and no more than a
 * window can be outstanding) plus one BYE and one BYE_ACK can be in flight per peer, which the
 * reserve covers, with one liveness heartbeat (sent only after the peer was heard from since
 * the previous one, so a silent peer never has more than one waiting).  So no
 * packet is ever dropped or left in the provider's unexpected queue, and two ranks that flood
 * each other both keep draining: a rank out of credits still polls and returns credits.
 */
#ifndef MP_NET_H
#define MP_NET_H

#include "transport/transport.h"

#ifdef MEMPI_HAVE_LIBFABRIC
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#define MP_NET_MAGIC   0x6d704e74u    /* "mpNt" */
#define MP_NET_RESERVE 6              /* receive buffers per peer beyond its credits (5 used) */

enum { MP_NET_DATA = 1, MP_NET_CREDIT, MP_NET_BYE, MP_NET_BYE_ACK };

typedef struct mp_net_wire {
    uint32_t magic;
    uint16_t type;                    /* MP_NET_DATA, MP_NET_CREDIT, MP_NET_BYE */
    uint16_t credits;                 /* buffers of the sender's that we may fill again */
    int32_t  src;                     /* sender's world rank */
    uint32_t seq;                     /* DATA, BYE: per sender->receiver packet number */
} mp_net_wire;

/* A buffer the provider owns while a send or receive is posted on it. */
typedef struct mp_net_buf {
    struct fi_context ctx;            /* first: the provider's per-operation context */
    int is_recv;
    int peer;                         /* sends: destination world rank */
    char *data;
} mp_net_buf;

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
    int bye;                          /* its BYE arrived */
    int bye_acked;                    /* its BYE_ACK (for our BYE) arrived */
    int ack_pending;                  /* we still owe it a BYE_ACK */
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
    mp_net_peer *peers;               /* world size entries */
    int nremote;
    int *owed_list;                   /* peers that may need an explicit CREDIT */
    int nowed;
    int credits;                      /* window per peer */
    int window;                       /* credits + 1: numbered packets a peer can have out */
    int byes, bye_acks;               /* BYE and BYE_ACK packets received */
    int acks_pending;                 /* BYE_ACKs we could not send yet */
    int closing;                      /* our BYE went out: no more CREDIT packets */
    int active;
    double timeout;                   /* MEMPI_NET_TIMEOUT in seconds, 0: no liveness checks */
    double last_check, last_beat;
    unsigned polls;
} mp_net_state;
extern mp_net_state mp_net;

int  mp_net_post_recv(mp_net_buf *b);
int  mp_net_poll(void);
int  mp_net_send_ctrl(int peer, int type);  /* CREDIT / BYE; 0 or MP_AGAIN */
void mp_net_check_liveness(void);
const char *mp_net_peer_name(int world);    /* "rank 3 (host 1)" for messages */
#endif

#endif

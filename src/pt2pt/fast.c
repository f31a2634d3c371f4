/* fast.c -- sends and receives without a request object, over shared memory.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Send, MPI_Isend and MPI_Recv of small messages between two ranks of a node are
 * dominated by bookkeeping: a request to allocate, queue, complete and recycle on both sides.
 * These paths skip it when doing so cannot change what the program observes (docs/protocol.md,
 * "Fast paths"); otherwise they return MP_AGAIN having changed nothing, and the caller takes
 * the normal path.
 *
 *   mp_send_fast   one EAGER packet written straight into the peer's ring when the message
 *                  fits one packet, is contiguous, and nothing is queued to that peer on
 *                  the communicator's track (no earlier send waiting, no request for sending
 *                  to answer) nor as a control packet: the packet then takes exactly the
 *                  place in the track's order that the normal path would give it.  A full
 *                  ring falls back.  MPI_Isend takes it too (mp_isend_user): the send is
 *                  then complete at the call and the user gets the shared completed send
 *                  request (core/request.c).  A message to this process whose receive is
 *                  posted, with nothing of its track still in the ring, is copied into that
 *                  receive instead (the ring would deliver it there next).
 *   mp_recv_arrived takes a message that already arrived whole and waits unexpected, when it
 *                  is the one the receive matches (the earliest-arrived match, as in the
 *                  normal path) and fits the buffer: copied out, ACKed if synchronous.
 *   mp_recv_direct reads the source's ring itself when no earlier posted receive could take
 *                  a message from that source with this tag and no unexpected message
 *                  matches: the first matching message from the source is then this
 *                  receive's, by MPI's matching order.  It consumes the oldest packet of the
 *                  ring only if that is a complete matching EAGER message with its track's
 *                  expected sequence number; anything else (another tag or context, a rendezvous,
 *                  fragments, a message longer than the buffer) is left in place for the
 *                  normal path.  While the ring is empty it spins, and every POLL_EVERY spins
 *                  polls everything else (other rings, queued sends, schedules) -- never the
 *                  source's ring, so the source's messages cannot reach the unexpected queue
 *                  behind its back; receives that progress may post are posted after this
 *                  one and come after it in matching order.  When the spin stage of the
 *                  waiting policy is over it falls back, and the normal path's wait goes on
 *                  from there (yield, sleep) rather than spinning again.
 *
 * Both paths use the transport's inline operations (send_bytes, peek/consume: shared memory
 * has them) and the general path's packet builder, numbering, statistics and matching rule,
 * so the protocol is written once.
 *
 * Under MPI_THREAD_MULTIPLE both paths run under the big lock, which the entry point holds
 * from before the checks to after the packet: no other thread can post a receive, queue a
 * send or poll a ring in between.  The direct receive must therefore never let go of it while
 * it spins -- its polls are mp_poll_except_holding, which does not step aside -- and it gives
 * up (falls back to the normal path, whose wait releases the lock) as soon as another thread
 * is blocked on the lock, so one thread's spin never shuts the others out.
 *
 * A lane (binding/lane.c) runs the same paths without the big lock, holding its track's
 * stripe instead: the *_in_lane forms.  They differ where the big lock's guarantees end: the
 * transport is entered under leaf locks (pt2pt/lane.c), nothing shared is allocated (a
 * context without queues has nothing queued: mp_mq_find), a synchronous message is left
 * alone (its ACK is a control packet), statistics go to the stripe's block, and the direct
 * receive polls nothing else -- it spins on the source's ring, a bounded number of times,
 * treating another track's message at the head as not there yet (that track's own lane
 * takes it), until a thread takes the big lock.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

#define POLL_EVERY 16   /* spins of the direct receive between two full polls */

/* Both paths need the transport's inline operations (send_bytes; peek and consume). */
void mp_fast_init_peer(mp_peer *peer, int world)
{
    mp_transport *tp = mp_transport_of(world);
    peer->fast_limit = 0;
    if (!tp->send_bytes || !tp->peek || !tp->consume)
        return;
    size_t one_packet = tp->eager_max < tp->max_payload ? tp->eager_max : tp->max_payload;
    peer->fast_limit = one_packet + 1;
}

static inline int world_of(const mp_comm *comm, int rank)
{
    return comm->is_inter ? comm->remote_world[rank] : comm->world[rank];
}

static void stat_sent_in_lane(mp_stats *ls, size_t bytes)
{
    mp_lane_stat_add(&ls->msgs_sent, 1);
    mp_lane_stat_add(&ls->bytes_sent, bytes);
    mp_lane_stat_add(&ls->eager_msgs, 1);
    mp_lane_stat_add(&ls->eager_bytes, bytes);
}

/* A message to this process whose receive is posted, when nothing of its track is on the
 * way to us (every numbered message was consumed): the ring would hand it straight to that
 * receive, so it is copied there at once, numbered on both sides as if it went through. */
static int to_posted_self(const mp_hdr *h, mp_track *t, const void *buf, mp_datatype *dt,
                          mp_stats *lane)
{
    if (t->send_seq != t->recv_seq || t->in_req || t->in_unexp)
        return MP_AGAIN;
    mp_mq *q = mp_mq_find(h->ctx);
    mp_request *r = q && q->posted_head ? mp_posted_plain_match(q, h) : NULL;
    if (r == NULL)
        return MP_AGAIN;
    mp_posted_remove(r);
    mp_send_number(t, h->ctx, h->tag);
    t->recv_seq++;
    mp_recv_take_whole(r, h, (const char *)buf + dt->true_lb);
    if (lane)
        stat_sent_in_lane(lane, h->size);
    else
        mp_stat_sent(MP_PROTO_EAGER, h->size);
    return MPI_SUCCESS;
}

/* The paths below are written once for both callers and inlined into each (always_inline),
 * so that the big lock's path carries no test of `lane`. */
#define MP_FAST_PATH static inline __attribute__((always_inline))

MP_FAST_PATH int send_fast(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                           mp_comm *comm, int ctx_offset, mp_stats *lane)
{
    int world = world_of(comm, dest);
    mp_peer *peer = &mp_p2p.peers[world];
    size_t bytes = mp_datatype_bytes(dt, count);
    int ctx = comm->ctx + ctx_offset;
    if (bytes >= peer->fast_limit || !dt->is_contig || peer->ctrl_head)
        return MP_AGAIN;
    mp_track *t = mp_track_of(peer, ctx);
    if (t->send_head || t->sreqs)
        return MP_AGAIN;
    /* standard mode: cookie 0, the receiver never answers this message */
    mp_hdr h;
    mp_hdr_message(&h, MP_PKT_EAGER, ctx, comm->rank, tag, t->send_seq, bytes);
    h.len = (uint32_t)bytes;
    if (world == mp_world.rank && to_posted_self(&h, t, buf, dt, lane) == MPI_SUCCESS)
        return MPI_SUCCESS;
    int shared = lane ? mp_lane_transport_enter(peer->tp, world, peer, 1, bytes) : 0;
    int sent = peer->tp->send_bytes(world, &h, (const char *)buf + dt->true_lb, bytes);
    if (lane)
        mp_lane_transport_exit(peer, 1, shared);
    if (sent != 0)
        return MP_AGAIN;
    mp_send_number(t, ctx, tag);
    if (lane)
        stat_sent_in_lane(lane, bytes);
    else
        mp_stat_sent(MP_PROTO_EAGER, bytes);
    return MPI_SUCCESS;
}

int mp_send_fast(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                 mp_comm *comm, int ctx_offset)
{
    return send_fast(buf, count, dt, dest, tag, comm, ctx_offset, NULL);
}

_Static_assert(MP_LANE_STRIPES == MP_TRACKS, "one lane stripe per track");

unsigned mp_lane_stripe_of(const mp_comm *comm)
{
    return mp_track_index(comm->ctx + MP_CTX_PT2PT);
}

unsigned mp_lane_stripe_of_request(const mp_request *req)
{
    return mp_track_index(req->ctx);
}

int mp_send_fast_in_lane(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                         mp_comm *comm, unsigned stripe)
{
    return send_fast(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, mp_lane_stats(stripe)) ==
           MPI_SUCCESS ? MPI_SUCCESS : MP_LANE_GIVE_UP;
}

/* A standard-mode send is complete once its data left the user's buffer, so an MPI_Isend that
 * the fast path hands over needs no request of its own. */
int mp_isend_user(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
                  mp_comm *comm, mp_request **out)
{
    if (dest != MPI_PROC_NULL &&
        mp_send_fast(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT) == MPI_SUCCESS) {
        *out = mp_request_done_send();
        return MPI_SUCCESS;
    }
    return mp_isend(buf, count, dt, dest, tag, comm, MP_CTX_PT2PT, MP_MODE_STANDARD, out);
}

/* A blocking receive whose message already arrived whole (an eager message, every fragment
 * in, unexpected) and fits: the normal path would match it at once and copy it out, so this
 * does the same without a request.  MP_NO_MATCH: nothing that matches has arrived.  A lane
 * leaves synchronous messages (their ACK is a control packet) to the big lock's holder. */
MP_FAST_PATH int recv_arrived(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                              mp_comm *comm, int ctx_offset, MPI_Status *status, mp_stats *lane)
{
    int ctx = comm->ctx + ctx_offset;
    mp_mq *q = lane ? mp_mq_find(ctx) : mp_mq_of(ctx);
    mp_unexp *u = q && q->unexp_head ? mp_match_unexpected(q, source, tag, 0) : NULL;
    if (u == NULL)
        return MP_NO_MATCH;
    if (u->type != MP_PKT_EAGER || u->received < u->size || u->size > mp_datatype_bytes(dt, count))
        return MP_AGAIN;
    if (lane) {
        if (u->flags & MP_HDR_SYNC)
            return MP_AGAIN;
        mp_unexp_remove_in_lane(q, u, lane);
    } else {
        mp_unexp_remove(q, u);
        if (u->flags & MP_HDR_SYNC)
            mp_send_reply(u->world_src, MP_PKT_ACK, u->cookie, 0);
    }
    if (u->size > 0 && dt->is_contig)
        memcpy((char *)buf + dt->true_lb, u->data, u->size);
    else if (u->size > 0)
        mp_unpack(buf, count, dt, 0, u->data, u->size);
    mp_status_message(status, u->src, u->tag, u->size);
    free(u->data);
    free(u);
    return MPI_SUCCESS;
}

int mp_recv_arrived(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                    mp_comm *comm, int ctx_offset, MPI_Status *status)
{
    return recv_arrived(buf, count, dt, source, tag, comm, ctx_offset, status, NULL);
}

/* The oldest packet from the source, if it is a whole eager message this receive takes:
 * the envelope matches, it is the next message of its track, and it fits. */
static int takes(const mp_hdr *h, const mp_track *t, int ctx, int source, int tag,
                 size_t capacity)
{
    return h->type == MP_PKT_EAGER && mp_envelope_matches(ctx, source, tag, h->ctx, h->src, h->tag) &&
           h->len == h->size && h->size <= capacity && h->seq == t->recv_seq;
}

/* The source's oldest packet if this receive takes it (copied out, consumed): MPI_SUCCESS;
 * MP_AGAIN when another packet is at the head; MP_NO_MATCH when the lane is empty. */
MP_FAST_PATH int take_head(mp_peer *peer, int world, mp_track *t, void *buf, mp_datatype *dt,
                           int ctx, int source, int tag, size_t capacity, MPI_Status *status,
                           int lane)
{
    const void *payload;
    mp_transport *tp = peer->tp;
    int shared = lane ? mp_lane_transport_enter(tp, world, peer, 0, 0) : 0;
    const mp_hdr *h = tp->peek(world, &payload);
    int rc = h == NULL || (lane && mp_of_another_track(h, mp_track_index(ctx))) ? MP_NO_MATCH
                                                                             : MP_AGAIN;
    if (h && takes(h, t, ctx, source, tag, capacity) && !(lane && (h->flags & MP_HDR_SYNC))) {
        mp_ack_if_sync(world, h);
        if (h->len)
            memcpy((char *)buf + dt->true_lb, payload, h->len);
        mp_status_message(status, h->src, h->tag, h->size);
        t->recv_seq++;
        tp->consume(world);
        rc = MPI_SUCCESS;
    }
    if (lane)
        mp_lane_transport_exit(peer, 0, shared);
    return rc;
}

/* Called only when no unexpected message matches (recv_arrived said MP_NO_MATCH).  *spins:
 * the fruitless polls it spent, for the normal path's wait to go on from.  A lane polls
 * nothing else (that needs the big lock), so it spins at most LANE_SPINS times and gives up
 * as soon as a thread takes the big lock. */
#define LANE_SPINS 1024
MP_FAST_PATH int recv_direct(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                             mp_comm *comm, int ctx_offset, MPI_Status *status, unsigned *spins,
                             int lane)
{
    int world = world_of(comm, source);
    mp_peer *peer = &mp_p2p.peers[world];
    size_t capacity = mp_datatype_bytes(dt, count);
    int ctx = comm->ctx + ctx_offset;
    if (peer->fast_limit == 0 || !dt->is_contig)
        return MP_AGAIN;
    mp_track *t = mp_track_of(peer, ctx);
    if (t->in_req || t->in_unexp)
        return MP_AGAIN;
    /* The normal path would send a request for sending (sendreq.c): keep its remote write. */
    if (mp_cfg.sendreq && capacity >= mp_cfg.sendreq_min && peer->tp->single_copy)
        return MP_AGAIN;
    mp_mq *q = lane ? mp_mq_find(ctx) : mp_mq_of(ctx);
    if (q && q->posted_head && mp_posted_earlier_could_match(q, source, tag, NULL))
        return MP_AGAIN;
    for (;;) {
        int rc = take_head(peer, world, t, buf, dt, ctx, source, tag, capacity, status, lane);
        if (rc != MP_NO_MATCH)
            return rc;
        if (!mp_idle_spin(spins))
            return MP_AGAIN;
        if (lane) {
            if (*spins >= LANE_SPINS || mp_lane_writer_waiting())
                return MP_AGAIN;
            continue;
        }
        if (MP_UNLIKELY(mp_thread_multiple) && mp_lock_waited())
            return MP_AGAIN;
        if (*spins % POLL_EVERY == 0)
            mp_poll_except_holding(world);
    }
}

int mp_recv_direct(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                   mp_comm *comm, int ctx_offset, MPI_Status *status, unsigned *spins)
{
    return recv_direct(buf, count, dt, source, tag, comm, ctx_offset, status, spins, 0);
}

/* Both receives in a lane: what arrived, else the head of the source's lane. */
int mp_recv_in_lane(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                    mp_comm *comm, MPI_Status *status, unsigned stripe)
{
    int rc = recv_arrived(buf, count, dt, source, tag, comm, MP_CTX_PT2PT, status,
                          mp_lane_stats(stripe));
    if (rc == MP_NO_MATCH && source >= 0) {
        unsigned spins = 0;
        rc = recv_direct(buf, count, dt, source, tag, comm, MP_CTX_PT2PT, status, &spins, 1);
    }
    return rc == MPI_SUCCESS ? MPI_SUCCESS : MP_LANE_GIVE_UP;
}

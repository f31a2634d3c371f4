/* lane.c -- the point-to-point side of lanes: the transport shared between them, and
 * nonblocking receives posted and completed in a lane.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A lane (binding/lane.c; core/progress.c, "Lanes") holds the stripe of one track, and with
 * it everything of that track: each peer's sequence numbers and send queue for it, and the
 * matching queues of the contexts on it.  What lanes of different stripes share is the
 * transport (rings and the chunk pool), which they enter under leaf locks
 * (mp_lane_transport_enter), and the request pool, which has its own (core/request.c).
 *
 *   mp_irecv_in_lane  MPI_Irecv: takes a message that arrived whole and waits unexpected, as
 *                     the general path would, or else posts the receive -- unless the general
 *                     path would do more (a request for sending, a derived type to hold, a
 *                     failed peer to check, queues not yet made).
 *   mp_drain_in_lane  MPI_Wait and friends: consumes from one source's ring the packets a
 *                     posted receive takes -- a whole eager message, next in its track,
 *                     matched to the earliest posted receive it fits, as mp_recv_on_packet
 *                     would -- and completes those receives.  A packet of another track is
 *                     taken when that track's stripe can be had too (a try), so that threads
 *                     whose messages share one ring do not wait for each other to read it.
 *                     It stops at the first packet that needs more (a message nobody posted
 *                     for, which would become unexpected; a synchronous one, whose ACK is a
 *                     control packet; fragments, rendezvous, replies): the lock's holder
 *                     takes those.
 * Like every lane call, both change nothing when they give up.
 */
#include "pt2pt/proto.h"

/* Order: the peer's lock, then the transport's.  Under the big lock no lane runs, so the
 * general path takes none of them. */
static atomic_int send_side, recv_side;

int mp_lane_transport_enter(mp_transport *tp, int world, mp_peer *peer, int send, size_t len)
{
    mp_leaf_lock(send ? &peer->lane_send : &peer->lane_recv);
    int shared = !tp->lane_private || !tp->lane_private(world, send, len);
    if (shared)
        mp_leaf_lock(send ? &send_side : &recv_side);
    return shared;
}

void mp_lane_transport_exit(mp_peer *peer, int send, int shared)
{
    if (shared)
        mp_leaf_unlock(send ? &send_side : &recv_side);
    mp_leaf_unlock(send ? &peer->lane_send : &peer->lane_recv);
}

int mp_irecv_in_lane(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
                     mp_comm *comm, unsigned stripe, mp_request **out)
{
    int ctx = comm->ctx + MP_CTX_PT2PT;
    size_t bytes = mp_datatype_bytes(dt, count);
    mp_mq *q = mp_mq_find(ctx);
    if (q == NULL || !dt->is_builtin || MP_UNLIKELY(mp_world.nprocs > mp_world.size) ||
        (mp_cfg.sendreq && bytes >= mp_cfg.sendreq_min))
        return MP_LANE_GIVE_UP;
    mp_unexp *u = q->unexp_head ? mp_match_unexpected(q, source, tag, 0) : NULL;
    if (u && (u->type != MP_PKT_EAGER || u->received < u->size || u->size > bytes ||
              (u->flags & MP_HDR_SYNC)))
        return MP_LANE_GIVE_UP;
    mp_request *req = mp_request_alloc_in_lane(MP_REQ_RECV, stripe);
    mp_request_set_message(req, buf, count, dt, source, tag, comm);
    req->ctx = ctx;
    req->bytes = bytes;
    if (u) {
        mp_unexp_remove_in_lane(q, u, mp_lane_stats(stripe));
        mp_recv_match_unexp(req, u);
    } else {
        req->state = MP_ST_RECV_POSTED;
        mp_posted_append(q, req);
    }
    *out = req;
    return MPI_SUCCESS;
}

mp_request *mp_posted_plain_match(mp_mq *q, const mp_hdr *h)
{
    for (mp_request *r = q->posted_head; r; r = r->next)
        if (mp_source_tag_match(r->peer, r->tag, h->src, h->tag))
            return r->on_complete == NULL && !r->dt_held && r->dt->is_contig &&
                   !r->cancel_pending && !r->sreq_out && h->size <= r->bytes ? r : NULL;
    return NULL;
}

/* h, the source's oldest packet, if a posted receive of its track takes it (copied, consumed,
 * completed): MPI_SUCCESS, else MP_AGAIN. */
static int take_into_posted(mp_peer *peer, int world, const mp_hdr *h, const void *payload)
{
    if (h->type != MP_PKT_EAGER || h->len != h->size || (h->flags & MP_HDR_SYNC))
        return MP_AGAIN;
    mp_track *t = mp_track_of(peer, h->ctx);
    mp_mq *q = mp_mq_find(h->ctx);
    mp_request *r = q && !t->in_req && !t->in_unexp && h->seq == t->recv_seq
                    ? mp_posted_plain_match(q, h) : NULL;
    if (r == NULL)
        return MP_AGAIN;
    mp_posted_remove(r);
    mp_recv_take_whole(r, h, payload);
    t->recv_seq++;
    peer->tp->consume(world);
    return MPI_SUCCESS;
}

/* The source's oldest packet, if a posted receive takes it: MPI_SUCCESS; MP_NO_MATCH when
 * there is none, or it is another track's that this lane could not take (whose lane may);
 * MP_AGAIN when only the lock's holder can handle it.  A message of another track is taken
 * when that track's stripe is free (a try: lanes never wait for each other's stripes), so
 * threads whose messages share a ring do not wait for each other's turn to read it. */
static int take_posted(mp_peer *peer, int world, unsigned stripe)
{
    const void *payload;
    mp_transport *tp = peer->tp;
    int shared = mp_lane_transport_enter(tp, world, peer, 0, 0);
    const mp_hdr *h = tp->peek(world, &payload);
    int rc = MP_NO_MATCH;
    if (h != NULL && !mp_of_another_track(h, stripe)) {
        rc = take_into_posted(peer, world, h, payload);
    } else if (h != NULL && mp_lane_try(mp_track_index(h->ctx))) {
        if (take_into_posted(peer, world, h, payload) == MPI_SUCCESS)
            rc = MPI_SUCCESS;
        mp_lane_exit(mp_track_index(h->ctx));
    }
    mp_lane_transport_exit(peer, 0, shared);
    return rc;
}

int mp_drain_in_lane(int world, unsigned stripe)
{
    mp_peer *peer = &mp_p2p.peers[world];
    if (peer->fast_limit == 0)             /* no peek and consume: the lock's poll reads it */
        return -1;
    int taken = 0, rc;
    while ((rc = take_posted(peer, world, stripe)) == MPI_SUCCESS)
        taken++;
    return rc == MP_AGAIN && taken == 0 ? -1 : taken;
}

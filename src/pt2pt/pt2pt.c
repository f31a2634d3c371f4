/* pt2pt.c -- point-to-point operations over the protocol: post, wait, probe.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points the layers above use.  A receive first looks in the unexpected queue (the
 * message may already be here) and otherwise joins the posted queue, where the packet handler
 * will find it.  Waiting is the progress engine's job: poll transports, retry queued sends,
 * apply the waiting policy.  Blocking sends and receives first try the request-free paths of
 * fast.c, which either finish the operation or leave everything as it was.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

void mp_send_init_queues(void);
int  mp_send_pending(void);
const int *mp_send_pending_gate(void);

void mp_send_grow_queues(int old_n, int new_n);

mp_track *mp_track_new(mp_peer *peer, unsigned index)
{
    mp_track *t = mp_calloc(1, sizeof *t);
    peer->more[index - 1] = t;
    return t;
}

/* Peers of processes that joined the table (other jobs: core/procs.c). */
static void peers_grow(int old_n, int new_n)
{
    mp_p2p.peers = mp_realloc(mp_p2p.peers, sizeof(mp_peer) * (size_t)new_n);
    memset(mp_p2p.peers + old_n, 0, sizeof(mp_peer) * (size_t)(new_n - old_n));
    for (int w = old_n; w < new_n; w++) {
        mp_p2p.peers[w].tp = mp_world.procs[w].tp;
        mp_fast_init_peer(&mp_p2p.peers[w], w);
    }
    mp_send_grow_queues(old_n, new_n);
}

int mp_pt2pt_init(void)
{
    mp_p2p.peers = NULL;
    mp_send_init_queues();
    peers_grow(0, mp_world.size);
    mp_procs_on_grow(peers_grow);
    mp_transport_set_handler(MP_PKT_CLASS_P2P, mp_recv_on_packet);
    mp_progress_register_gated(mp_send_flush, mp_send_pending_gate());
    mp_copy_init();
    mp_p2p_failed_init();
    return MPI_SUCCESS;
}

/* Finalize: hand every queued packet to the transport before the closing barrier. */
void mp_pt2pt_finalize(void)
{
    unsigned spins = 0;
    while (mp_send_pending()) {
        if (mp_progress() == 0)
            mp_idle_packet(&spins);
    }
}

int mp_irecv(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
             mp_comm *comm, int ctx_offset, mp_request **out)
{
    mp_request *req = mp_request_alloc(MP_REQ_RECV);
    *out = req;
    mp_request_set_message(req, buf, count, dt, source, tag, comm);
    req->ctx = comm->ctx + ctx_offset;
    req->bytes = mp_datatype_bytes(dt, count);
    if (source == MPI_PROC_NULL) {
        mp_status_empty(&req->status);
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->state = MP_ST_DONE;
        mp_request_complete(req);
        return MPI_SUCCESS;
    }
    mp_op_hold_type(req);
    mp_mq *q = mp_mq_of(req->ctx);
    mp_unexp *u = mp_match_unexpected(q, source, tag, 1);
    if (u) {
        mp_recv_match_unexp(req, u);
        return MPI_SUCCESS;
    }
    int failed;
    if (MP_UNLIKELY(mp_world.nprocs > mp_world.size) && (failed = mp_p2p_failed_peer(req)) != -1) {
        mp_p2p_fail_request(req, failed);
        return MPI_SUCCESS;
    }
    req->state = MP_ST_RECV_POSTED;
    mp_posted_append(q, req);
    mp_sendreq_maybe_post(req);
    return MPI_SUCCESS;
}

/* The two-core copy's rule (transport/shm/split.c): a rank blocked until `nsends` send and
 * `nrecvs` receive requests complete has nothing of its own to copy, and may offer its core
 * to a peer's large copy, when it waits in one direction only: for receives while none of its
 * sends is in progress (a send of ours may still take a request for sending and write), or
 * for sends while no receive of ours is posted (a rendezvous arriving for it would be pulled
 * by us).  Exchanges -- MPI_Sendrecv, collectives -- wait with offer 0 whatever this says. */
int mp_wait_may_offer(int nsends, int nrecvs)
{
    if (nrecvs && !nsends)
        return !mp_requests_sending();
    if (nsends && !nrecvs)
        return mp_posted_count() == 0;
    return 0;
}

void mp_wait_offer(int on)
{
    mp_split_offer(on);
}

static int wait_kind_offers(const mp_request *req)
{
    return mp_wait_may_offer(req->kind == MP_REQ_SEND, req->kind == MP_REQ_RECV);
}

/* Waits (after `spins` spins already spent), offering help while it waits if `offer`, copies
 * the status out and frees the request. */
static int wait_one(mp_request *req, MPI_Status *status, int offer, unsigned spins)
{
    if (!mp_request_is_done(req)) {
        if (offer)
            mp_split_offer(1);
        mp_wait_request_after(req, spins);
        if (offer)
            mp_split_offer(0);
    }
    int err = req->status.MPI_ERROR;
    mp_status_copy(status, &req->status);
    mp_request_free(req);
    return err;
}

int mp_wait(mp_request *req, MPI_Status *status)
{
    return wait_one(req, status, wait_kind_offers(req), 0);
}

int mp_wait_exchange(mp_request *req, MPI_Status *status)
{
    return wait_one(req, status, 0, 0);
}

int mp_waitall(int n, mp_request **reqs, MPI_Status *statuses)
{
    int err = MPI_SUCCESS, nsends = 0, nrecvs = 0;
    for (int i = 0; i < n; i++) {
        nsends += reqs[i]->kind == MP_REQ_SEND;
        nrecvs += reqs[i]->kind == MP_REQ_RECV;
    }
    int offer = nsends + nrecvs == n && mp_wait_may_offer(nsends, nrecvs);
    for (int i = 0; i < n; i++) {
        int e = wait_one(reqs[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i],
                         offer, 0);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
    }
    return err;
}

int mp_send(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
            mp_comm *comm, int ctx_offset, int mode)
{
    if ((mode == MP_MODE_STANDARD || mode == MP_MODE_READY) && dest != MPI_PROC_NULL &&
        mp_send_fast(buf, count, dt, dest, tag, comm, ctx_offset) == MPI_SUCCESS)
        return MPI_SUCCESS;
    mp_request *req;
    int err = mp_isend(buf, count, dt, dest, tag, comm, ctx_offset, mode, &req);
    if (err)
        return err;
    return mp_wait(req, MPI_STATUS_IGNORE);
}

int mp_recv(void *buf, MPI_Aint count, mp_datatype *dt, int source, int tag,
            mp_comm *comm, int ctx_offset, MPI_Status *status)
{
    unsigned spins = 0;
    int arrived = source == MPI_PROC_NULL ? MP_AGAIN :
                  mp_recv_arrived(buf, count, dt, source, tag, comm, ctx_offset, status);
    if (arrived == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (arrived == MP_NO_MATCH && source >= 0 &&
        mp_recv_direct(buf, count, dt, source, tag, comm, ctx_offset, status, &spins) ==
            MPI_SUCCESS)
        return MPI_SUCCESS;
    mp_request *req;
    int err = mp_irecv(buf, count, dt, source, tag, comm, ctx_offset, &req);
    if (err)
        return err;
    return wait_one(req, status, wait_kind_offers(req), spins);
}

int mp_sendrecv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, int dest, int stag,
                void *rbuf, MPI_Aint rcount, mp_datatype *rdt, int source, int rtag,
                mp_comm *comm, int ctx_offset, MPI_Status *status)
{
    mp_request *rreq, *sreq;
    int err = mp_irecv(rbuf, rcount, rdt, source, rtag, comm, ctx_offset, &rreq);
    if (err)
        return err;
    err = mp_isend(sbuf, scount, sdt, dest, stag, comm, ctx_offset, MP_MODE_STANDARD, &sreq);
    if (err) {
        mp_wait_exchange(rreq, MPI_STATUS_IGNORE);
        return err;
    }
    int e1 = mp_wait_exchange(sreq, MPI_STATUS_IGNORE);
    int e2 = mp_wait_exchange(rreq, status);
    return e2 != MPI_SUCCESS ? e2 : e1;
}

int mp_iprobe(int source, int tag, mp_comm *comm, int ctx_offset, MPI_Status *status)
{
    mp_progress();
    mp_unexp *u = mp_match_unexpected(mp_mq_of(comm->ctx + ctx_offset), source, tag, 0);
    if (!u)
        return 0;
    mp_status_message(status, u->src, u->tag, u->size);
    return 1;
}

int mp_improbe(int source, int tag, mp_comm *comm, int ctx_offset, mp_request **msg,
               MPI_Status *status)
{
    mp_progress();
    mp_unexp *u = mp_match_unexpected(mp_mq_of(comm->ctx + ctx_offset), source, tag, 1);
    if (!u)
        return 0;
    mp_request *m = mp_request_alloc(MP_REQ_PROBE);
    m->msg = u;
    m->comm = comm;
    mp_status_message(status, u->src, u->tag, u->size);
    *msg = m;
    return 1;
}

int mp_imrecv(void *buf, MPI_Aint count, mp_datatype *dt, mp_request *msg, mp_request **out)
{
    mp_unexp *u = msg->msg;
    mp_request *req = mp_request_alloc(MP_REQ_RECV);
    req->buf = buf;
    req->count = count;
    req->dt = dt;
    req->peer = u->src;
    req->tag = u->tag;
    req->comm = msg->comm;
    req->ctx = u->ctx;
    req->bytes = mp_datatype_bytes(dt, count);
    mp_op_hold_type(req);
    mp_request_free(msg);
    *out = req;
    mp_recv_match_unexp(req, u);
    return MPI_SUCCESS;
}

/* MPI_Isendrecv: a send and a receive as one request, complete when both parts are; its
 * status is the receive's.  Parts report through on_complete; a part that finished inside
 * mp_isend/mp_irecv is accounted for at once (completion never races with this code: it
 * only happens inside progress, on this thread). */
static void pair_release(mp_request *whole)
{
    if (--whole->parts_left == 0) {
        free(whole->owned_tmp);
        whole->owned_tmp = NULL;
        mp_request_complete(whole);
    }
}

static void pair_part_done(mp_request *part)
{
    mp_request *whole = part->owner;
    if (part->kind == MP_REQ_RECV)
        whole->status = part->status;
    mp_request_free(part);
    pair_release(whole);
}

static void pair_attach(mp_request *whole, mp_request *part)
{
    part->owner = whole;
    if (mp_request_is_done(part))
        pair_part_done(part);
    else
        part->on_complete = pair_part_done;
}

int mp_isendrecv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, int dest, int stag,
                 void *rbuf, MPI_Aint rcount, mp_datatype *rdt, int source, int rtag,
                 mp_comm *comm, void *owned_tmp, mp_request **out)
{
    mp_request *whole = mp_request_alloc(MP_REQ_PAIR), *r, *s;
    whole->comm = comm;
    whole->owned_tmp = owned_tmp;
    whole->parts_left = 3;                /* two parts + this function's own reference */
    *out = whole;
    int err = mp_irecv(rbuf, rcount, rdt, source, rtag, comm, MP_CTX_PT2PT, &r);
    if (err == MPI_SUCCESS) {
        pair_attach(whole, r);
        err = mp_isend(sbuf, scount, sdt, dest, stag, comm, MP_CTX_PT2PT, MP_MODE_STANDARD, &s);
        if (err == MPI_SUCCESS)
            pair_attach(whole, s);
        else
            whole->parts_left--;
    } else {
        whole->parts_left -= 2;
    }
    pair_release(whole);
    return err;
}

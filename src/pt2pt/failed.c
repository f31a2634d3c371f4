/* failed.c -- point-to-point with a process that is gone: what waits for it ends with an error.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * core/procs.c marks a process of another job failed when its launcher reports the job dead
 * (core/failboard.h) and no communicator holding it has a fatal error handler.  Then:
 *   - receives posted for it (its rank as the source; MPI_ANY_SOURCE when every process that
 *     could send on the communicator is gone), the receive its fragments were filling and
 *     the sends queued for it complete with an error naming it (mp_procs_failure_code);
 *   - messages it sent before it died stay receivable: a receive first matches what arrived;
 *   - later sends to it and receives from it complete at once with that error, and the fast
 *     paths (fast.c) step aside for it (fast_limit 0) so those checks see every operation.
 * A send already handed over and waiting for the dead receiver's answer (a synchronous
 * send's ACK, a rendezvous's FIN) is not tracked per peer, so it keeps waiting.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>

static int world_of(const mp_comm *comm, int rank)
{
    return comm->is_inter ? comm->remote_world[rank] : comm->world[rank];
}

/* 1 if every process that could match source MPI_ANY_SOURCE on comm is gone. */
static int all_senders_failed(const mp_comm *comm)
{
    int n = comm->is_inter ? comm->remote_size : comm->size;
    for (int r = 0; r < n; r++) {
        int w = world_of(comm, r);
        if (!mp_world.procs[w].failed && (comm->is_inter || r != comm->rank))
            return 0;
    }
    return 1;
}

int mp_p2p_failed_peer(const mp_request *req)
{
    if (req->peer == MPI_ANY_SOURCE)
        return req->kind == MP_REQ_RECV && all_senders_failed(req->comm) ? -2 : -1;
    int w = world_of(req->comm, req->peer);
    return mp_world.procs[w].failed ? w : -1;
}

/* Completes an operation with the failed process w (any failed sender for -2) with an error. */
void mp_p2p_fail_request(mp_request *req, int w)
{
    int code = w >= 0 ? mp_procs_failure_code(w)
                      : mp_error_code(MPI_ERR_OTHER, "every process that could send on this "
                                      "communicator is gone");
    if (req->kind == MP_REQ_RECV) {
        req->status.MPI_SOURCE = req->peer;
        req->status.MPI_TAG = req->tag;
        mp_status_set_bytes(&req->status, 0);
        req->error = code;
        mp_recv_complete(req);
    } else {
        req->status.MPI_ERROR = code;
        mp_send_complete(req);
    }
}

/* The receives of one context that wait for failed process w, or for any source while
 * none is left. */
static void fail_posted(mp_mq *q, int w)
{
    for (mp_request *r = q->posted_head, *next; r; r = next) {
        next = r->next;
        int f = mp_p2p_failed_peer(r);
        if (f == w || f == -2) {
            mp_posted_remove(r);
            mp_p2p_fail_request(r, f);
        }
    }
}

/* A track's receive in progress and queued sends to failed process w end with its error. */
static void fail_track(mp_track *t, int w)
{
    if (t->in_req) {
        mp_request *r = t->in_req;
        t->in_req = NULL;
        mp_p2p_fail_request(r, w);
    }
    mp_request *r = t->send_head;
    if (t->copying && r) {                /* its writer (copy.c) finds the failure itself */
        t->send_tail = r;
        r = r->next;
        t->send_tail->next = NULL;
    } else {
        t->send_head = t->send_tail = NULL; /* mp_send_flush drops the idle peer */
    }
    while (r) {
        mp_request *next = r->next;
        r->next = NULL;
        mp_p2p_fail_request(r, w);
        r = next;
    }
}

static void proc_failed(int w)
{
    mp_peer *peer = &mp_p2p.peers[w];
    peer->fast_limit = 0;
    for (int p = 0; p < MP_MQ_CTX_LIMIT / MP_MQ_PAGE; p++) {
        for (int i = 0; mp_p2p.mq_pages[p] && i < MP_MQ_PAGE; i++)
            fail_posted(&mp_p2p.mq_pages[p][i], w);
    }
    while (peer->ctrl_head) {
        mp_ctrl *c = peer->ctrl_head;
        peer->ctrl_head = c->next;
        free(c);
    }
    peer->ctrl_tail = NULL;
    for (unsigned i = 0; i < MP_TRACKS; i++) {
        mp_track *t = mp_track_at(peer, i);
        if (t)
            fail_track(t, w);
    }
}

void mp_p2p_failed_init(void)
{
    mp_procs_on_fail(proc_failed);
}

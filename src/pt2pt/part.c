/* part.c -- partitioned communication (MPI_Psend_init, MPI_Precv_init, MPI_Pready*, MPI_Parrived).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A partitioned request (kind MP_REQ_PART) is a persistent request whose data moves as one
 * ordinary message of all partitions (partitions x count elements of the datatype) once every
 * partition of a round is ready; MPI_Parrived reports a partition only when that message is
 * in the user buffer.  Because the whole buffer travels as one message, the two sides may
 * split it into different numbers of partitions: only the total type signature has to match,
 * which is what the standard requires.  The message takes every protocol of point-to-point
 * (eager, request for sending with its remote write when the receive was started first,
 * rendezvous).
 *
 * Matching.  MPI 4.0 matches a partitioned send with a partitioned receive in the order of
 * their initialisation calls, per (communicator, peer, tag); wildcards are not allowed.
 * MPI_Precv_init therefore sends its peer a tiny handshake naming a *receive id* unique in the
 * receiving process, and MPI_Psend_init posts the receive of that handshake -- the
 * non-overtaking rule of point-to-point pairs the k-th send initialisation with the k-th
 * receive initialisation.  Every round's data message then carries the receive id as its tag,
 * so data of different partitioned requests can never cross, whatever order the rounds'
 * partitions become ready in.  A send whose partitions are all ready before the handshake
 * arrived waits on a list that a progress hook serves, so it leaves as soon as the handshake
 * is in, even while its process is blocked in some other MPI call.
 *
 * All of this traffic uses the communicator's collective context (ctx + 1), which no user
 * receive can match.  Its tags are disjoint from the collective and comm layers' tags (which
 * stay below 1 << 29): handshakes use the negative tags -2 - tag (MPI_ANY_TAG is -1; the
 * single user tag that does not fit there, MP_TAG_UB, uses 1 << 29), data messages
 * 1 << 30 | receive id.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

#define PART_DATA_TAG_BIT (1 << 30)
#define PART_ID_MASK      (PART_DATA_TAG_BIT - 1)

typedef struct mp_part {
    int is_send;
    int partitions;
    int data_tag;                     /* tag of the data messages (receive id based) */
    int active;                       /* started and not yet completed by Wait/Test */
    int launched;                     /* send: the round's data message has been started */
    int nready;                       /* send: partitions marked ready this round */
    int pending;                      /* send: on the pending list, waiting for the handshake */
    int *hs_payload;                  /* the handshake's receive id (heap: outlives a freed
                                         receive until its send completes) */
    mp_request *hs;                   /* send: the handshake's receive */
    unsigned char *ready;             /* send: per partition, marked ready this round */
    mp_request *req;                  /* the partitioned request owning this state */
    struct mp_part *next_pending;
} mp_part;

static int next_receive_id;
static mp_part *pending_head;
static int pending_count;             /* gate of the progress hook */

static int handshake_tag(int tag)
{
    return tag < MP_TAG_UB ? -2 - tag : 1 << 29;
}

static mp_part *part_of(const mp_request *req)
{
    return (mp_part *)req->part;
}

static int launch(mp_request *req)
{
    mp_part *p = part_of(req);
    p->data_tag = PART_DATA_TAG_BIT | (*p->hs_payload & PART_ID_MASK);
    p->launched = 1;
    return mp_isend(req->buf, req->count * p->partitions, req->dt, req->peer, p->data_tag,
                    req->comm, MP_CTX_COLL, MP_MODE_STANDARD, &req->inner);
}

/* A failed launch has no inner request; its error waits in req->status for Wait/Test. */
static void launch_or_record(mp_request *req)
{
    int err = launch(req);
    if (err != MPI_SUCCESS) {
        req->inner = NULL;
        req->status.MPI_ERROR = err;
    }
}

static void pending_remove(mp_part *p)
{
    for (mp_part **pp = &pending_head; *pp; pp = &(*pp)->next_pending)
        if (*pp == p) {
            *pp = p->next_pending;
            p->pending = 0;
            pending_count--;
            return;
        }
}

/* Progress hook: sends whose handshake has arrived since all their partitions became ready. */
static int serve_pending(void)
{
    int n = 0;
    mp_part **pp = &pending_head;
    while (*pp) {
        mp_part *p = *pp;
        if (mp_request_is_done(p->hs)) {
            *pp = p->next_pending;
            p->pending = 0;
            pending_count--;
            launch_or_record(p->req);
            n++;
        } else {
            pp = &p->next_pending;
        }
    }
    return n;
}

static void free_handshake(mp_request *hs)
{
    free(hs->owner);
    mp_request_free(hs);
}

/* The handshake request is released (with its payload) once complete, now or later. */
static void release_handshake(mp_request *hs)
{
    if (hs == NULL)
        return;
    if (mp_request_is_done(hs)) {
        free_handshake(hs);
        return;
    }
    hs->on_complete = free_handshake;
    if (hs->kind == MP_REQ_RECV)
        mp_cancel(hs);
}

int mp_part_init(int is_send, void *buf, int partitions, MPI_Aint count, mp_datatype *dt,
                 int peer, int tag, mp_comm *comm, mp_request **out)
{
    static mp_datatype *int_dt;
    if (int_dt == NULL)
        int_dt = mp_datatype_get(MPI_INT);
    mp_request *req = mp_persistent_new(MP_REQ_PART, buf, count, dt, peer, tag, comm,
                                        MP_MODE_STANDARD);
    mp_part *p = mp_calloc(1, sizeof *p);
    req->part = p;
    p->req = req;
    p->is_send = is_send;
    p->partitions = partitions;
    p->ready = mp_calloc((size_t)partitions, 1);
    p->hs_payload = mp_calloc(1, sizeof(int));
    int err = MPI_SUCCESS;
    if (peer == MPI_PROC_NULL) {
        *p->hs_payload = 0;
    } else if (is_send) {
        mp_progress_register_gated(serve_pending, &pending_count);
        err = mp_irecv(p->hs_payload, 1, int_dt, peer, handshake_tag(tag), comm, MP_CTX_COLL,
                       &p->hs);
        if (err == MPI_SUCCESS)
            p->hs->owner = p->hs_payload;
    } else {
        *p->hs_payload = next_receive_id;
        next_receive_id = (next_receive_id + 1) & PART_ID_MASK;
        p->data_tag = PART_DATA_TAG_BIT | *p->hs_payload;
        mp_request *hs;
        err = mp_isend(p->hs_payload, 1, int_dt, peer, handshake_tag(tag), comm, MP_CTX_COLL,
                       MP_MODE_STANDARD, &hs);
        if (err == MPI_SUCCESS) {
            hs->owner = p->hs_payload;
            release_handshake(hs);    /* the send finishes by itself; nothing waits for it */
        }
        p->hs_payload = NULL;         /* owned by the handshake send from here on */
    }
    if (err != MPI_SUCCESS) {
        p->hs = NULL;
        mp_part_free(req);
        return err;
    }
    *out = req;
    return MPI_SUCCESS;
}

int mp_part_start(mp_request *req)
{
    mp_part *p = part_of(req);
    p->active = 1;
    p->launched = 0;
    p->nready = 0;
    req->status.MPI_ERROR = MPI_SUCCESS;
    if (req->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (p->is_send) {
        memset(p->ready, 0, (size_t)p->partitions);
        return MPI_SUCCESS;
    }
    int err = mp_irecv(req->buf, req->count * p->partitions, req->dt, req->peer, p->data_tag,
                       req->comm, MP_CTX_COLL, &req->inner);
    if (err != MPI_SUCCESS) {
        req->inner = NULL;
        p->active = 0;
    }
    return err;
}

int mp_part_is_send(const mp_request *req)
{
    return part_of(req)->is_send;
}

int mp_part_partitions(const mp_request *req)
{
    return part_of(req)->partitions;
}

int mp_part_active(const mp_request *req)
{
    return part_of(req)->active;
}

int mp_part_is_ready(const mp_request *req, int partition)
{
    return part_of(req)->ready[partition];
}

int mp_part_ready(mp_request *req, int partition)
{
    mp_part *p = part_of(req);
    p->ready[partition] = 1;
    if (++p->nready < p->partitions || req->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (mp_request_is_done(p->hs)) {
        launch_or_record(req);
        return req->status.MPI_ERROR;
    }
    p->pending = 1;
    p->next_pending = pending_head;
    pending_head = p;
    pending_count++;
    return MPI_SUCCESS;
}

int mp_part_done(const mp_request *req)
{
    const mp_part *p = part_of(req);
    if (!p->active || req->peer == MPI_PROC_NULL)
        return 1;
    if (req->inner == NULL)           /* not launched yet, or its launch failed */
        return p->is_send && p->launched;
    return mp_request_is_done(req->inner);
}

int mp_part_arrived(const mp_request *req)
{
    const mp_part *p = part_of(req);
    if (!p->active || req->peer == MPI_PROC_NULL)
        return 1;
    return req->inner != NULL && mp_request_is_done(req->inner);
}

void mp_part_status(const mp_request *req, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    if (req->inner == NULL) {
        mp_status_empty(status);
        if (req->peer == MPI_PROC_NULL)
            status->MPI_SOURCE = MPI_PROC_NULL;
        return;
    }
    mp_status_copy(status, &req->inner->status);
    if (!part_of(req)->is_send)
        status->MPI_TAG = req->tag;   /* the user's tag, not the data tag */
}

int mp_part_finish(mp_request *req, MPI_Status *status)
{
    int err = req->inner ? req->inner->status.MPI_ERROR : req->status.MPI_ERROR;
    part_of(req)->active = 0;
    mp_part_status(req, status);
    if (req->inner != NULL) {
        mp_request_free(req->inner);
        req->inner = NULL;
    }
    return err;
}

void mp_part_free(mp_request *req)
{
    mp_part *p = part_of(req);
    if (p->pending)
        pending_remove(p);
    if (req->inner != NULL) {
        if (mp_request_is_done(req->inner))
            mp_request_free(req->inner);
        else
            req->inner->on_complete = mp_request_free;
        req->inner = NULL;
    }
    if (p->hs != NULL)
        release_handshake(p->hs);     /* frees hs_payload with it */
    else
        free(p->hs_payload);
    free(p->ready);
    free(p);
    req->part = NULL;
    mp_persistent_free(req);
}

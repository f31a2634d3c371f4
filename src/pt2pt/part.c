/* part.c -- partitioned communication (MPI_Psend_init, MPI_Precv_init, MPI_Pready*, MPI_Parrived).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A partitioned request (kind MP_REQ_PART) is a persistent request whose data moves as
 * ordinary point-to-point messages, one per *unit*: a unit is a run of consecutive partitions
 * of the receive side (one partition each, unless there are more than MAX_UNITS of them, when
 * units group them evenly).  Units are defined by the receiver, which knows its own
 * partitioning when it starts a round and posts one receive per unit; MPI_Parrived of a
 * partition is true once its unit is in the buffer.  The sender learns the receiver's
 * partitioning from the handshake (below) and sends each unit as soon as every one of its own
 * partitions that overlaps the unit's bytes is ready -- so partitions readied early travel
 * early, in the order they become ready.  The two sides may partition differently (only the
 * total type signature has to match, as the standard requires): a unit whose byte range
 * starts or ends inside one of the sender's elements is packed into a temporary and sent as
 * bytes; otherwise it leaves straight from the user buffer.  Each unit takes every protocol
 * of point-to-point (eager, request for sending with its remote write when the receive was
 * started first, rendezvous).  The last unit also carries whatever the sender has beyond the
 * receiver's size, so a longer send truncates as point-to-point would.  A unit with no bytes
 * of the sender (a shorter send) leaves with the sender's last ready partition.
 *
 * Matching.  MPI 4.0 matches a partitioned send with a partitioned receive in the order of
 * their initialisation calls, per (communicator, peer, tag); wildcards are not allowed.
 * MPI_Precv_init therefore sends its peer a handshake naming a *receive id* unique in the
 * receiving process and its partitioning, and MPI_Psend_init posts the receive of that
 * handshake -- the non-overtaking rule of point-to-point pairs the k-th send initialisation
 * with the k-th receive initialisation.  Every unit's data message carries the receive id and
 * the unit number as its tag, so data of different partitioned requests, and different units,
 * can never cross, whatever order partitions become ready in; a round's messages are matched
 * before the next round's (same tags, non-overtaking).  A sender that has ready partitions
 * before its handshake arrived waits on a list that a progress hook serves, so its units leave
 * as soon as the handshake is in, even while its process is blocked in another MPI call.
 *
 * All of this traffic uses the communicator's collective context (ctx + 1), which no user
 * receive can match.  Its tags are disjoint from the collective and comm layers' tags (which
 * stay below 1 << 29): handshakes use the negative tags -2 - tag (MPI_ANY_TAG is -1; the
 * single user tag that does not fit there, MP_TAG_UB, uses 1 << 29), data messages
 * 1 << 30 | receive id << UNIT_BITS | unit.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

#define PART_DATA_TAG_BIT (1 << 30)
#define UNIT_BITS         12
#define MAX_UNITS         (1 << UNIT_BITS)
#define PART_ID_MASK      ((PART_DATA_TAG_BIT >> UNIT_BITS) - 1)

/* The handshake, receiver to sender. */
enum { HS_ID, HS_PARTITIONS, HS_PART_BYTES, HS_WORDS };

typedef struct mp_part {
    int is_send;
    int partitions;
    int data_tag;                     /* tag of unit 0's data message */
    int active;                       /* started and not yet completed by Wait/Test */
    int pending;                      /* send: on the pending list, waiting for the handshake */
    int known;                        /* the units are laid out (send: the handshake is in) */
    int units;                        /* data messages per round */
    int64_t group;                    /* receive partitions per unit */
    int64_t unit_bytes;               /* bytes of a full unit */
    int64_t bytes;                    /* this side's total bytes */
    int nready;                       /* send: partitions marked ready this round */
    int nlaunched;                    /* send: units started this round */
    int64_t *hs_payload;              /* the handshake (heap: outlives a freed receive until
                                         its send completes) */
    mp_request *hs;                   /* send: the handshake's receive */
    unsigned char *ready;             /* send: per partition, marked ready this round */
    int64_t *missing;                 /* send: per unit, overlapping partitions not ready */
    mp_request **unit_req;            /* per unit, this round's message (NULL: not started) */
    unsigned char *launched;          /* send: per unit, started this round */
    void **packed;                    /* send: per unit, its packed bytes, if it needed them */
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

/* ---- units ----------------------------------------------------------------------------- */

/* Lays out the units of a receiver with `partitions` partitions of `part_bytes` bytes. */
static void lay_out(mp_part *p, int64_t partitions, int64_t part_bytes)
{
    p->group = part_bytes == 0 ? partitions : (partitions + MAX_UNITS - 1) / MAX_UNITS;
    if (p->group < 1)
        p->group = 1;
    p->units = (int)((partitions + p->group - 1) / p->group);
    if (p->units < 1)
        p->units = 1;
    p->unit_bytes = p->group * part_bytes;
    p->unit_req = mp_calloc((size_t)p->units, sizeof *p->unit_req);
    if (p->is_send) {
        p->missing = mp_calloc((size_t)p->units, sizeof *p->missing);
        p->launched = mp_calloc((size_t)p->units, 1);
        p->packed = mp_calloc((size_t)p->units, sizeof *p->packed);
    }
    p->known = 1;
}

/* Sender: bytes [*a, *b) of its stream that unit u carries. */
static void unit_range(const mp_part *p, int u, int64_t *a, int64_t *b)
{
    int64_t lo = (int64_t)u * p->unit_bytes;
    int64_t hi = u == p->units - 1 ? p->bytes : lo + p->unit_bytes;
    *a = lo < p->bytes ? lo : p->bytes;
    *b = hi < p->bytes ? hi : p->bytes;
    if (*b < *a)
        *b = *a;
}

/* Sender: the units that the bytes of partition i overlap, [*first, *last]. */
static int unit_span(const mp_part *p, int i, int *first, int *last)
{
    int64_t pb = p->bytes / p->partitions;
    if (pb == 0)
        return 0;
    int64_t lo = (int64_t)i * pb, hi = lo + pb - 1;
    int64_t f = p->unit_bytes ? lo / p->unit_bytes : 0, l = p->unit_bytes ? hi / p->unit_bytes : 0;
    *first = (int)(f < p->units - 1 ? f : p->units - 1);
    *last = (int)(l < p->units - 1 ? l : p->units - 1);
    return 1;
}

static void launch_unit(mp_request *req, int u)
{
    mp_part *p = part_of(req);
    int64_t a, b;
    unit_range(p, u, &a, &b);
    p->launched[u] = 1;
    p->nlaunched++;
    const mp_datatype *dt = req->dt;
    int tag = p->data_tag | u;
    int err;
    if (dt->size == 0 || (a % dt->size == 0 && b % dt->size == 0)) {
        MPI_Aint first = dt->size ? (MPI_Aint)(a / dt->size) : 0;
        MPI_Aint n = dt->size ? (MPI_Aint)((b - a) / dt->size) : 0;
        err = mp_isend((const char *)req->buf + first * dt->extent, n, req->dt, req->peer, tag,
                       req->comm, MP_CTX_COLL, MP_MODE_STANDARD, &p->unit_req[u]);
    } else {                          /* the unit starts or ends inside an element */
        p->packed[u] = mp_malloc((size_t)(b - a) + 1);
        mp_pack(req->buf, req->count * p->partitions, req->dt, (size_t)a, p->packed[u],
                (size_t)(b - a));
        err = mp_isend(p->packed[u], (MPI_Aint)(b - a), mp_datatype_get(MPI_BYTE), req->peer, tag,
                       req->comm, MP_CTX_COLL, MP_MODE_STANDARD, &p->unit_req[u]);
    }
    if (err != MPI_SUCCESS) {         /* its error waits in req->status for Wait/Test */
        p->unit_req[u] = NULL;
        if (req->status.MPI_ERROR == MPI_SUCCESS)
            req->status.MPI_ERROR = err;
    }
}

/* Sender: partition i became ready (or was ready when the units were laid out). */
static void partition_ready(mp_request *req, int i)
{
    mp_part *p = part_of(req);
    int first, last;
    if (unit_span(p, i, &first, &last))
        for (int u = first; u <= last; u++)
            if (--p->missing[u] == 0 && !p->launched[u])
                launch_unit(req, u);
    if (p->nready == p->partitions)   /* units with no bytes of ours leave last */
        for (int u = 0; u < p->units; u++)
            if (!p->launched[u])
                launch_unit(req, u);
}

/* Sender: a new round's count of not-ready partitions per unit. */
static void reset_missing(mp_part *p)
{
    for (int u = 0; u < p->units; u++) {
        int64_t a, b, pb = p->bytes / p->partitions;
        unit_range(p, u, &a, &b);
        p->missing[u] = b > a && pb > 0 ? (b - 1) / pb - a / pb + 1 : -1;
        p->launched[u] = 0;
    }
    p->nlaunched = 0;
}

/* Sender: the handshake is in; lay out the units and send those already complete. */
static void handshake_arrived(mp_request *req)
{
    mp_part *p = part_of(req);
    p->data_tag = PART_DATA_TAG_BIT | (int)((p->hs_payload[HS_ID] & PART_ID_MASK) << UNIT_BITS);
    lay_out(p, p->hs_payload[HS_PARTITIONS], p->hs_payload[HS_PART_BYTES]);
    reset_missing(p);
    if (!p->active)
        return;
    for (int i = 0; i < p->partitions; i++)
        if (p->ready[i])
            partition_ready(req, i);
}

/* ---- the pending list ------------------------------------------------------------------ */

static void pending_add(mp_part *p)
{
    if (p->pending)
        return;
    p->pending = 1;
    p->next_pending = pending_head;
    pending_head = p;
    pending_count++;
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

/* Progress hook: sends whose handshake has arrived since partitions became ready. */
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
            handshake_arrived(p->req);
            n++;
        } else {
            pp = &p->next_pending;
        }
    }
    return n;
}

/* ---- the handshake --------------------------------------------------------------------- */

/* on_complete of a message whose buffer (owner) was allocated for it. */
static void free_with_owner(mp_request *r)
{
    free(r->owner);
    mp_request_free(r);
}

/* The handshake request is released (with its payload) once complete, now or later. */
static void release_handshake(mp_request *hs)
{
    if (hs == NULL)
        return;
    if (mp_request_is_done(hs)) {
        free_with_owner(hs);
        return;
    }
    hs->on_complete = free_with_owner;
    if (hs->kind == MP_REQ_RECV)
        mp_cancel(hs);
}

/* ---- the interface (pt2pt.h) ----------------------------------------------------------- */

int mp_part_init(int is_send, void *buf, int partitions, MPI_Aint count, mp_datatype *dt,
                 int peer, int tag, mp_comm *comm, mp_request **out)
{
    mp_datatype *i64 = mp_datatype_get(MPI_INT64_T);
    mp_request *req = mp_persistent_new(MP_REQ_PART, buf, count, dt, peer, tag, comm,
                                        MP_MODE_STANDARD);
    mp_part *p = mp_calloc(1, sizeof *p);
    req->part = p;
    p->req = req;
    p->is_send = is_send;
    p->partitions = partitions;
    p->bytes = (int64_t)mp_datatype_bytes(dt, count) * partitions;
    p->hs_payload = mp_calloc(HS_WORDS, sizeof(int64_t));
    int err = MPI_SUCCESS;
    if (is_send) {
        p->ready = mp_calloc((size_t)partitions, 1);
        if (peer != MPI_PROC_NULL) {
            mp_progress_register_gated(serve_pending, &pending_count);
            err = mp_irecv(p->hs_payload, HS_WORDS, i64, peer, handshake_tag(tag), comm,
                           MP_CTX_COLL, &p->hs);
            if (err == MPI_SUCCESS)
                p->hs->owner = p->hs_payload;
        }
    } else {
        int id = next_receive_id;
        next_receive_id = (next_receive_id + 1) & PART_ID_MASK;
        p->data_tag = PART_DATA_TAG_BIT | id << UNIT_BITS;
        lay_out(p, partitions, (int64_t)mp_datatype_bytes(dt, count));
        if (peer != MPI_PROC_NULL) {
            p->hs_payload[HS_ID] = id;
            p->hs_payload[HS_PARTITIONS] = partitions;
            p->hs_payload[HS_PART_BYTES] = (int64_t)mp_datatype_bytes(dt, count);
            mp_request *hs;
            err = mp_isend(p->hs_payload, HS_WORDS, i64, peer, handshake_tag(tag), comm,
                           MP_CTX_COLL, MP_MODE_STANDARD, &hs);
            if (err == MPI_SUCCESS) {
                hs->owner = p->hs_payload;
                release_handshake(hs);   /* the send finishes by itself; nothing waits for it */
            }
            p->hs_payload = NULL;        /* owned by the handshake send from here on */
        }
    }
    if (err != MPI_SUCCESS) {
        p->hs = NULL;
        mp_part_free(req);
        return err;
    }
    *out = req;
    return MPI_SUCCESS;
}

/* Frees a round's messages (with their packed bytes) now, or when each completes. */
static void drop_units(mp_part *p)
{
    if (p->unit_req == NULL)
        return;
    for (int u = 0; u < p->units; u++) {
        mp_request *r = p->unit_req[u];
        void *packed = p->packed ? p->packed[u] : NULL;
        p->unit_req[u] = NULL;
        if (p->packed)
            p->packed[u] = NULL;
        if (r == NULL) {
            free(packed);
        } else if (mp_request_is_done(r)) {
            mp_request_free(r);
            free(packed);
        } else {
            r->owner = packed;
            r->on_complete = free_with_owner;
        }
    }
}

int mp_part_start(mp_request *req)
{
    mp_part *p = part_of(req);
    p->active = 1;
    p->nready = 0;
    req->status.MPI_ERROR = MPI_SUCCESS;
    if (req->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (p->is_send) {
        memset(p->ready, 0, (size_t)p->partitions);
        if (p->known)
            reset_missing(p);
        return MPI_SUCCESS;
    }
    const mp_datatype *dt = req->dt;
    for (int u = 0; u < p->units; u++) {
        int64_t first = (int64_t)u * p->group;
        int64_t n = first + p->group <= p->partitions ? p->group : p->partitions - first;
        int err = mp_irecv((char *)req->buf + first * req->count * dt->extent,
                           (MPI_Aint)(n * req->count), req->dt, req->peer, p->data_tag | u,
                           req->comm, MP_CTX_COLL, &p->unit_req[u]);
        if (err != MPI_SUCCESS) {
            p->unit_req[u] = NULL;
            for (int v = 0; v < u; v++)
                mp_cancel(p->unit_req[v]);
            drop_units(p);
            p->active = 0;
            return err;
        }
    }
    return MPI_SUCCESS;
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
    p->nready++;
    if (req->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (p->known) {
        partition_ready(req, partition);
    } else if (mp_request_is_done(p->hs)) {
        if (p->pending)
            pending_remove(p);
        handshake_arrived(req);       /* counts this partition with the others ready */
    } else {
        pending_add(p);
    }
    return req->status.MPI_ERROR;
}

static int unit_done(const mp_part *p, int u)
{
    return p->unit_req[u] == NULL || mp_request_is_done(p->unit_req[u]);
}

int mp_part_done(const mp_request *req)
{
    const mp_part *p = part_of(req);
    if (!p->active || req->peer == MPI_PROC_NULL)
        return 1;
    if (p->is_send && (!p->known || p->nlaunched < p->units))
        return 0;
    for (int u = 0; u < p->units; u++)
        if (!unit_done(p, u))
            return 0;
    return 1;
}

int mp_part_arrived(const mp_request *req, int partition)
{
    const mp_part *p = part_of(req);
    if (!p->active || req->peer == MPI_PROC_NULL)
        return 1;
    return unit_done(p, (int)(partition / p->group));
}

void mp_part_status(const mp_request *req, MPI_Status *status)
{
    const mp_part *p = part_of(req);
    if (status == MPI_STATUS_IGNORE)
        return;
    mp_status_empty(status);
    if (req->peer == MPI_PROC_NULL) {
        status->MPI_SOURCE = MPI_PROC_NULL;
        return;
    }
    if (p->is_send || p->unit_req == NULL || p->unit_req[0] == NULL)
        return;
    MPI_Count bytes = 0;
    for (int u = 0; u < p->units; u++)
        if (p->unit_req[u] != NULL)
            bytes += mp_status_bytes(&p->unit_req[u]->status);
    mp_status_copy(status, &p->unit_req[0]->status);
    mp_status_set_bytes(status, bytes);
    status->MPI_TAG = req->tag;       /* the user's tag, not the data tag */
}

int mp_part_finish(mp_request *req, MPI_Status *status)
{
    mp_part *p = part_of(req);
    int err = req->status.MPI_ERROR;
    for (int u = 0; err == MPI_SUCCESS && p->unit_req && u < p->units; u++)
        if (p->unit_req[u] != NULL)
            err = p->unit_req[u]->status.MPI_ERROR;
    p->active = 0;
    mp_part_status(req, status);
    drop_units(p);
    return err;
}

void mp_part_free(mp_request *req)
{
    mp_part *p = part_of(req);
    if (p->pending)
        pending_remove(p);
    drop_units(p);
    if (p->hs != NULL)
        release_handshake(p->hs);     /* frees hs_payload with it */
    else
        free(p->hs_payload);
    free(p->ready);
    free(p->missing);
    free(p->unit_req);
    free(p->launched);
    free(p->packed);
    free(p);
    req->part = NULL;
    mp_persistent_free(req);
}

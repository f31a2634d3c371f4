/* bsend.c -- buffered sends through an attached buffer.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Bsend packs the message into an attached buffer and returns at once; an internal send
 * of the packed bytes then runs like any other.  MPI 4.1 lets a buffer be attached to the
 * process (MPI_Buffer_attach), to a session or to a communicator; a buffered send on a
 * communicator uses the communicator's buffer if one is attached, else that of the session
 * the communicator comes from, else the process's (MPI 4.1 3.6).  Each is an mp_bbuf.
 *
 * A user buffer is managed first-fit over a list of blocks in address order; each block costs
 * MPI_BSEND_OVERHEAD bytes of accounting, as the standard's sizing rule (MPI_Pack_size +
 * MPI_BSEND_OVERHEAD per message) promises users.  With MPI_BUFFER_AUTOMATIC each message gets
 * its own heap block instead, so a buffered send never fails for space.  A block is reclaimed
 * once its internal send has completed.  Too little space is an error (MPI_ERR_BUFFER) that
 * names the need and what is free, never a hang.
 *
 * Flushing waits until every message buffered so far has left (MPI_Buffer_flush and the
 * communicator and session forms).  The nonblocking form returns a request that completes
 * when the last of those internal sends does: each block carries a sequence number, a pending
 * flush the number of the last block it waits for, and every internal send's completion
 * checks the pending flushes of its buffer.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>

typedef struct mp_bblock mp_bblock;
struct mp_bblock {
    mp_bblock *next;
    size_t offset, size;      /* in the attached buffer, overhead included */
    void *heap;               /* automatic mode: the block's own memory */
    uint64_t seq;
    mp_bbuf *owner;
    mp_request *send;
};

typedef struct mp_bflush mp_bflush;
struct mp_bflush {
    mp_bflush *next;
    uint64_t upto;            /* complete once no block with seq <= upto is pending */
    mp_request *req;
};

struct mp_bbuf {
    char *attached;           /* NULL: nothing attached */
    size_t size;
    int automatic;            /* MPI_BUFFER_AUTOMATIC */
    mp_bblock *blocks;        /* in offset order (automatic: in creation order) */
    uint64_t next_seq;
    mp_bflush *flushes;
};

static mp_bbuf process_buf;

mp_bbuf *mp_bbuf_process(void)
{
    return &process_buf;
}

mp_bbuf *mp_bbuf_new(void)
{
    return mp_calloc(1, sizeof(mp_bbuf));
}

int mp_bbuf_attached(const mp_bbuf *b)
{
    return b != NULL && (b->attached != NULL || b->automatic);
}

static int pending_upto(const mp_bbuf *b, uint64_t upto)
{
    for (const mp_bblock *k = b->blocks; k; k = k->next)
        if (k->seq <= upto && !mp_request_is_done(k->send))
            return 1;
    return 0;
}

/* Runs when an internal send completes: the flushes it was the last wait of complete. */
static void block_sent(mp_request *send)
{
    mp_bblock *k = send->owner;
    mp_bbuf *b = k->owner;
    for (mp_bflush **pp = &b->flushes; *pp;) {
        mp_bflush *f = *pp;
        if (!pending_upto(b, f->upto)) {
            *pp = f->next;
            mp_request_complete(f->req);
            free(f);
        } else {
            pp = &f->next;
        }
    }
}

static void reclaim(mp_bbuf *b)
{
    for (mp_bblock **pp = &b->blocks; *pp;) {
        mp_bblock *k = *pp;
        if (mp_request_is_done(k->send)) {
            mp_request_free(k->send);
            *pp = k->next;
            free(k->heap);
            free(k);
        } else {
            pp = &k->next;
        }
    }
}

/* First fit: returns the offset of a free range of `need` bytes, or -1. */
static long find_space(mp_bbuf *b, size_t need, mp_bblock ***link)
{
    size_t at = 0;
    mp_bblock **pp = &b->blocks;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->offset - at >= need) {
            *link = pp;
            return (long)at;
        }
        at = (*pp)->offset + (*pp)->size;
    }
    if (b->size >= at && b->size - at >= need) {
        *link = pp;
        return (long)at;
    }
    return -1;
}

int mp_bbuf_attach(mp_bbuf *b, void *buf, size_t size)
{
    if (mp_bbuf_attached(b))
        return mp_error_code(MPI_ERR_BUFFER, "a buffer is already attached (%s)",
                             b->automatic ? "MPI_BUFFER_AUTOMATIC" : "detach it first");
    if (buf == MPI_BUFFER_AUTOMATIC) {
        b->automatic = 1;
        b->size = 0;
        return MPI_SUCCESS;
    }
    b->attached = buf;
    b->size = size;
    return MPI_SUCCESS;
}

int mp_bbuf_flush(mp_bbuf *b)
{
    unsigned spins = 0;
    for (reclaim(b); b->blocks; reclaim(b))
        if (mp_progress() == 0)
            mp_idle(&spins);
    return MPI_SUCCESS;
}

int mp_bbuf_iflush(mp_bbuf *b, mp_request **out)
{
    mp_request *req = mp_request_alloc(MP_REQ_SEND);
    mp_status_empty(&req->status);
    *out = req;
    reclaim(b);
    if (!b->blocks) {
        mp_request_complete(req);
        return MPI_SUCCESS;
    }
    mp_bflush *f = mp_malloc(sizeof *f);
    f->upto = b->next_seq - 1;
    f->req = req;
    f->next = b->flushes;
    b->flushes = f;
    return MPI_SUCCESS;
}

int mp_bbuf_detach(mp_bbuf *b, void **buf, size_t *size)
{
    if (!mp_bbuf_attached(b))
        return mp_error_code(MPI_ERR_BUFFER, "no buffer is attached");
    mp_bbuf_flush(b);
    *buf = b->automatic ? MPI_BUFFER_AUTOMATIC : b->attached;
    *size = b->size;
    b->attached = NULL;
    b->size = 0;
    b->automatic = 0;
    return MPI_SUCCESS;
}

void mp_bbuf_free(mp_bbuf *b)
{
    if (b == NULL)
        return;
    mp_bbuf_flush(b);
    free(b);
}

int mp_bsend_attach(void *buf, size_t size)
{
    return mp_bbuf_attach(&process_buf, buf, size);
}

int mp_bsend_detach(void **buf, size_t *size)
{
    if (!mp_bbuf_attached(&process_buf)) {    /* MPI-3 programs detach without attaching */
        *buf = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    return mp_bbuf_detach(&process_buf, buf, size);
}

/* The buffer a buffered send on comm goes through. */
static mp_bbuf *buffer_of(const mp_comm *comm)
{
    if (mp_bbuf_attached(comm->bbuf))
        return comm->bbuf;
    if (mp_bbuf_attached(comm->session_bbuf))
        return comm->session_bbuf;
    return &process_buf;
}

int mp_ibsend(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
              mp_comm *comm, mp_request **out)
{
    mp_bbuf *b = buffer_of(comm);
    size_t bytes = mp_datatype_bytes(dt, count);
    size_t need = bytes + MPI_BSEND_OVERHEAD;   /* exactly what the standard promises users */
    mp_bblock **link = NULL;
    char *space;
    void *heap = NULL;
    long at = 0;
    reclaim(b);
    if (b->automatic) {
        heap = mp_malloc(bytes ? bytes : 1);
        space = heap;
        for (link = &b->blocks; *link; link = &(*link)->next) { }
    } else {
        at = find_space(b, need, &link);
        if (at < 0) {
            mp_progress();
            reclaim(b);
            at = find_space(b, need, &link);
        }
        if (at < 0) {
            size_t used = 0;
            for (mp_bblock *k = b->blocks; k; k = k->next)
                used += k->size;
            return mp_error_code(MPI_ERR_BUFFER, "buffered send of %zu bytes needs %zu bytes "
                                 "of attached buffer; %zu of %zu are in use%s", bytes, need,
                                 used, b->size, b->attached ? "" : " (no buffer attached)");
        }
        space = b->attached + at;
    }
    mp_pack(buf, count, dt, 0, space, bytes);
    mp_bblock *k = mp_calloc(1, sizeof *k);
    int err = mp_isend(space, (MPI_Aint)bytes, mp_datatype_get(MPI_BYTE), dest, tag, comm,
                       MP_CTX_PT2PT, MP_MODE_STANDARD, &k->send);
    if (err) {
        free(heap);
        free(k);
        return err;
    }
    k->offset = (size_t)at;
    k->size = b->automatic ? 0 : need;
    k->heap = heap;
    k->seq = b->next_seq++;
    k->owner = b;
    k->next = *link;
    *link = k;
    /* Watch for completion only once the block is listed: a send already done needs none. */
    if (!mp_request_is_done(k->send)) {
        k->send->owner = k;
        k->send->on_complete = block_sent;
    }
    /* The user's request is complete at once: the data is in the attached buffer. */
    mp_request *req = mp_request_alloc(MP_REQ_SEND);
    mp_status_empty(&req->status);
    mp_request_complete(req);
    *out = req;
    return MPI_SUCCESS;
}

/* bsend.c -- buffered sends through the user's attached buffer.  MemPI, BSD-3-Clause.
 *
 * MPI_Bsend packs the message into the attached buffer and returns at once; an internal send
 * of the packed bytes then runs like any other.  The buffer is managed first-fit over a list
 * of blocks in address order; each block costs MPI_BSEND_OVERHEAD bytes of accounting, as the
 * standard's sizing rule (MPI_Pack_size + MPI_BSEND_OVERHEAD per message) promises users.
 * A block is reclaimed once its internal send has completed.  Too little space is an error
 * (MPI_ERR_BUFFER) that names the need and what is free, never a hang.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>

typedef struct mp_bblock mp_bblock;
struct mp_bblock {
    mp_bblock *next;
    size_t offset, size;      /* in the attached buffer, overhead included */
    mp_request *send;
};

static char *attached;
static size_t attached_size;
static mp_bblock *blocks;     /* in offset order */

static void reclaim(void)
{
    for (mp_bblock **pp = &blocks; *pp;) {
        mp_bblock *b = *pp;
        if (mp_request_is_done(b->send)) {
            mp_request_free(b->send);
            *pp = b->next;
            free(b);
        } else {
            pp = &b->next;
        }
    }
}

/* First fit: returns the offset of a free range of `need` bytes, or -1. */
static long find_space(size_t need, mp_bblock ***link)
{
    size_t at = 0;
    mp_bblock **pp = &blocks;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->offset - at >= need) {
            *link = pp;
            return (long)at;
        }
        at = (*pp)->offset + (*pp)->size;
    }
    if (attached_size >= at && attached_size - at >= need) {
        *link = pp;
        return (long)at;
    }
    return -1;
}

int mp_bsend_attach(void *buf, size_t size)
{
    if (attached)
        return mp_error_code(MPI_ERR_BUFFER, "a buffer of %zu bytes is already attached", attached_size);
    attached = buf;
    attached_size = size;
    return MPI_SUCCESS;
}

int mp_bsend_detach(void **buf, size_t *size)
{
    unsigned spins = 0;
    for (reclaim(); blocks; reclaim())
        if (mp_progress() == 0)
            mp_idle(&spins);
    *buf = attached;
    *size = attached_size;
    attached = NULL;
    attached_size = 0;
    return MPI_SUCCESS;
}

int mp_ibsend(const void *buf, MPI_Aint count, mp_datatype *dt, int dest, int tag,
              mp_comm *comm, mp_request **out)
{
    size_t bytes = mp_datatype_bytes(dt, count);
    size_t need = bytes + MPI_BSEND_OVERHEAD;   /* exactly what the standard promises users */
    mp_bblock **link;
    reclaim();
    long at = find_space(need, &link);
    if (at < 0) {
        mp_progress();
        reclaim();
        at = find_space(need, &link);
    }
    if (at < 0) {
        size_t used = 0;
        for (mp_bblock *b = blocks; b; b = b->next)
            used += b->size;
        return mp_error_code(MPI_ERR_BUFFER, "buffered send of %zu bytes needs %zu bytes of "
                             "attached buffer; %zu of %zu are in use%s", bytes, need, used,
                             attached_size, attached ? "" : " (no buffer attached)");
    }
    char *space = attached + at;
    mp_pack(buf, count, dt, 0, space, bytes);
    mp_request *send;
    int err = mp_isend(space, (MPI_Aint)bytes, mp_datatype_get(MPI_BYTE), dest, tag, comm,
                       MP_CTX_PT2PT, MP_MODE_STANDARD, &send);
    if (err)
        return err;
    mp_bblock *b = mp_malloc(sizeof *b);
    b->offset = (size_t)at;
    b->size = need;
    b->send = send;
    b->next = *link;
    *link = b;
    /* The user's request is complete at once: the data is in the attached buffer. */
    mp_request *req = mp_request_alloc(MP_REQ_SEND);
    mp_status_empty(&req->status);
    mp_request_complete(req);
    *out = req;
    return MPI_SUCCESS;
}

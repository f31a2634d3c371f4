/* request.c -- request objects, their handles, and status encoding.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Requests are recycled through a free list: a send or receive on the fast path must not call
 * malloc.  A request only gets an integer handle (a slot in mp_request_table) when it is handed
 * to the user; internal requests of collectives never pay for one.
 *
 * Completion is published with a release store of `done`; whoever observes done with an acquire
 * load also sees the received data and the status.  This matters once several threads wait on
 * requests (MPI_THREAD_MULTIPLE) and for the progress hooks of nonblocking collectives.
 *
 * Status counts are byte counts split MPICH-style: count_lo holds the low 32 bits,
 * count_hi_and_cancelled holds the high bits shifted left by one and the cancelled flag in bit 0.
 * A request keeps its error in its own status's MPI_ERROR; the user's status never gets it
 * from here (mp_status_copy), because only multiple-completion calls that return
 * MPI_ERR_IN_STATUS may write that field (MPI 4.0 3.2.5).
 */
#include "core/core.h"
#include <string.h>

mp_table mp_request_table = { .type = MP_OBJ_REQUEST, .lock = ATOMIC_FLAG_INIT };

static mp_request *free_requests;

/* The free list is shared by all threads of the process.  Under MPI_THREAD_MULTIPLE every
 * caller already holds the big lock (entry points, and the progress engine for the hooks that
 * complete and recycle requests), so taking it again is an increment of the holder's depth:
 * cheaper than a lock of its own, and still correct for a caller that does not hold it.
 * Below that level mp_lock is one branch. */
static void free_list_lock(void)
{
    mp_lock();
}

static void free_list_unlock(void)
{
    mp_unlock();
}

/* Send requests allocated and not yet complete: pt2pt's waits ask whether this rank still
 * has a send of its own in progress (transport/shm/split.c: who may help a peer's copy). */
static atomic_int open_sends;

static void count_open_send(int d)
{
    if (MP_UNLIKELY(mp_thread_multiple))
        atomic_fetch_add_explicit(&open_sends, d, memory_order_relaxed);
    else
        atomic_store_explicit(&open_sends, atomic_load_explicit(&open_sends, memory_order_relaxed)
                              + d, memory_order_relaxed);
}

int mp_requests_sending(void)
{
    return atomic_load_explicit(&open_sends, memory_order_relaxed) > 0;
}

/* A send complete at the call has nothing to wait for and no status to give but success, so
 * every such send shares this request (as MPICH does): MPI_Wait and MPI_Test find it done,
 * finishing it resets the user's handle and frees nothing, MPI_Cancel finds it complete.
 * Its fields never change after the first use, which sets them under the big lock -- at the
 * latest in MPI_Init under MPI_THREAD_MULTIPLE (mp_lanes_init), before lanes read them. */
static mp_request done_send;

mp_request *mp_request_done_send(void)
{
    if (MP_UNLIKELY(done_send.handle == 0)) {
        done_send.magic = MP_REQ_MAGIC;
        done_send.kind = MP_REQ_SEND;
        done_send.status.MPI_ERROR = MPI_SUCCESS;
        atomic_store_explicit(&done_send.done, 1, memory_order_relaxed);
        done_send.handle = mp_table_insert(&mp_request_table, &done_send);
        if (done_send.handle == 0)
            mp_fatal("too many live requests");
    }
    return &done_send;
}

/* Lanes (progress.c, "Lanes") allocate and free requests beside each other, never beside the
 * big lock's holder: among themselves they take this leaf lock instead of the big lock. */
static atomic_int lane_free_lock;

static void pool_lock(int in_lane)
{
    if (in_lane)
        mp_leaf_lock(&lane_free_lock);
    else
        free_list_lock();
}

static void pool_unlock(int in_lane)
{
    if (in_lane)
        mp_leaf_unlock(&lane_free_lock);
    else
        free_list_unlock();
}

static mp_request *pop_free(int in_lane)
{
    pool_lock(in_lane);
    mp_request *req = free_requests;
    if (req != NULL)
        free_requests = req->next;
    pool_unlock(in_lane);
    return req;
}

static void push_free(mp_request *req, int in_lane)
{
    pool_lock(in_lane);
    req->next = free_requests;
    free_requests = req;
    pool_unlock(in_lane);
}

static mp_request *request_init(mp_request *req, int kind)
{
    memset(req, 0, sizeof *req);
    req->magic = MP_REQ_MAGIC;
    req->kind = (uint8_t)kind;
    req->status.MPI_ERROR = MPI_SUCCESS;
    if (kind == MP_REQ_SEND)
        count_open_send(1);
    return req;
}

static mp_request *request_new(int kind, int in_lane)
{
    mp_request *req = pop_free(in_lane);
    return request_init(req ? req : mp_malloc(sizeof *req), kind);
}

/* Takes req out of use (its handle too); the caller recycles the object. */
static void request_retire(mp_request *req)
{
    if (req->handle != 0)
        mp_table_remove(&mp_request_table, req->handle);
    req->handle = 0;
    MP_ASSERT(req->magic == MP_REQ_MAGIC);
    req->magic = 0;
}

static void request_release(mp_request *req, int in_lane)
{
    if (MP_UNLIKELY(req == &done_send))
        return;
    request_retire(req);
    push_free(req, in_lane);
}

mp_request *mp_request_alloc(int kind)
{
    return request_new(kind, 0);
}

void mp_request_free(mp_request *req)
{
    request_release(req, 0);
}

/* Each stripe keeps a few free requests of its own, touched only by the lane that holds the
 * stripe, so that threads in lanes of different stripes share neither the pool's lock nor
 * the handle table's: a request cached here keeps its handle, whose slot still points to it
 * but finds it retired (magic 0: mp_request_get says NULL, so the freed handle is invalid as
 * before), and the next receive of the lane hands the same handle out again. */
#define LANE_CACHE 64
static struct { mp_request *head; int n; } __attribute__((aligned(MP_CACHELINE)))
    lane_cache[MP_LANE_STRIPES];

mp_request *mp_request_alloc_in_lane(int kind, unsigned stripe)
{
    mp_request *req = lane_cache[stripe].head;
    if (req == NULL)
        return request_new(kind, 1);
    lane_cache[stripe].head = req->next;
    lane_cache[stripe].n--;
    int handle = req->handle;
    request_init(req, kind);
    req->handle = handle;
    return req;
}

void mp_request_free_in_lane(mp_request *req, unsigned stripe)
{
    if (lane_cache[stripe].n >= LANE_CACHE || req == &done_send) {
        request_release(req, 1);
        return;
    }
    MP_ASSERT(req->magic == MP_REQ_MAGIC);
    req->magic = 0;
    req->next = lane_cache[stripe].head;
    lane_cache[stripe].head = req;
    lane_cache[stripe].n++;
}

int mp_request_is_done_send(const mp_request *req)
{
    return req == &done_send;
}

int mp_request_handle(mp_request *req)
{
    if (req->handle == 0) {
        req->handle = mp_table_insert(&mp_request_table, req);
        if (req->handle == 0)
            mp_fatal("too many live requests");
    }
    return req->handle;
}

mp_request *mp_request_get(MPI_Request handle)
{
    mp_request *req = mp_table_lookup(&mp_request_table, handle);
    return req && req->magic == MP_REQ_MAGIC ? req : NULL;   /* not one a lane cached */
}

void mp_request_complete(mp_request *req)
{
    /* on_complete is read first: once done is visible, its waiter may free req */
    void (*hook)(mp_request *) = req->on_complete;
    if (req->kind == MP_REQ_SEND)
        count_open_send(-1);
    atomic_store_explicit(&req->done, 1, memory_order_release);
    if (hook)
        hook(req);
    if (MP_UNLIKELY(mp_thread_multiple))
        mp_wake_local_sleepers();        /* its waiter may sleep in another thread */
}

void mp_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    st->count_lo = (int)(bytes & 0xffffffff);
    st->count_hi_and_cancelled = (int)((((unsigned long long)bytes >> 32) << 1) |
                                       ((unsigned)st->count_hi_and_cancelled & 1u));
}

MPI_Count mp_status_bytes(const MPI_Status *st)
{
    unsigned long long lo = (unsigned)st->count_lo;
    unsigned long long hi = (unsigned)st->count_hi_and_cancelled >> 1;
    return (MPI_Count)((hi << 32) | lo);
}

void mp_status_set_cancelled(MPI_Status *st, int flag)
{
    st->count_hi_and_cancelled = (st->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
}

int mp_status_cancelled(const MPI_Status *st)
{
    return st->count_hi_and_cancelled & 1;
}

void mp_status_empty(MPI_Status *st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->count_lo = 0;
    st->count_hi_and_cancelled = 0;
}

void mp_status_copy(MPI_Status *dst, const MPI_Status *src)
{
    if (dst == MPI_STATUS_IGNORE)
        return;
    dst->count_lo = src->count_lo;
    dst->count_hi_and_cancelled = src->count_hi_and_cancelled;
    dst->MPI_SOURCE = src->MPI_SOURCE;
    dst->MPI_TAG = src->MPI_TAG;
}

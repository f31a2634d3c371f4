/* dynamic.c -- memory attached to dynamic windows, and checking accesses against it.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A dynamic window has no memory of its own: each rank attaches and detaches regions, and
 * origins address the target's memory by absolute address.  An access to memory the target
 * has not attached is an error the origin must report (MPI_ERR_RMA_RANGE) before anything
 * moves, so an origin needs to know the target's regions:
 *
 *   - each rank keeps its list (attach/detach) and publishes it in a directory in the host
 *     segment (win.h, mp_win_dir: a seqlock written only by its owner), so origins on its
 *     host read it without the target's help -- passive target stays passive;
 *   - an origin on another host asks the target (REGIONS, answered by its progress engine,
 *     which serves that origin's operations anyway).
 * The origin keeps what it saw per target and looks again when an access misses it (the
 * target may have attached more since) and at every new epoch.  A target with more regions
 * than one directory or one packet lists is not checked at the origin; the target then
 * checks every arriving address itself (mp_win_region_ok) and ends the job on a bad one.
 */
#include "rma/win.h"
#include <stdlib.h>

/* ---- the owner's list and directory ---------------------------------------------------- */

static void publish(mp_win *win)
{
    mp_win_dir *d = win->my_dir;
    if (!d)
        return;
    unsigned s = atomic_load_explicit(&d->seq, memory_order_relaxed);
    atomic_store_explicit(&d->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);       /* odd seq before the entries change */
    unsigned n = 0;
    for (mp_win_region *r = win->regions; r; r = r->next, n++) {
        if (n == MP_WIN_DIR_MAX) {
            n = MP_WIN_DIR_MAX + 1;
            break;
        }
        atomic_store_explicit(&d->base[n], r->base, memory_order_relaxed);
        atomic_store_explicit(&d->size[n], r->size, memory_order_relaxed);
    }
    atomic_store_explicit(&d->n, n, memory_order_relaxed);
    atomic_store_explicit(&d->seq, s + 2, memory_order_release);
}

int mp_win_attach(const char *F, mp_win *win, void *base, MPI_Aint size)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return mp_error_code(MPI_ERR_RMA_FLAVOR, "%s: the window was not created with "
                             "MPI_Win_create_dynamic", F);
    uintptr_t b = (uintptr_t)base;
    for (mp_win_region *r = win->regions; r; r = r->next)
        if (b < r->base + r->size && r->base < b + (uintptr_t)size)
            return mp_error_code(MPI_ERR_RMA_ATTACH, "%s: memory at %p (%ld bytes) overlaps "
                                 "memory already attached at %p", F, base, (long)size,
                                 (void *)r->base);
    mp_win_region *r = mp_malloc(sizeof *r);
    r->base = b;
    r->size = (size_t)size;
    r->next = win->regions;
    win->regions = r;
    publish(win);
    return MPI_SUCCESS;
}

int mp_win_detach(const char *F, mp_win *win, const void *base)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return mp_error_code(MPI_ERR_RMA_FLAVOR, "%s: the window was not created with "
                             "MPI_Win_create_dynamic", F);
    for (mp_win_region **pp = &win->regions; *pp; pp = &(*pp)->next)
        if ((*pp)->base == (uintptr_t)base) {
            mp_win_region *r = *pp;
            *pp = r->next;
            free(r);
            publish(win);
            return MPI_SUCCESS;
        }
    return mp_error_code(MPI_ERR_RMA_ATTACH, "%s: no memory is attached at %p", F, base);
}

size_t mp_win_dyn_list(const mp_win *win, uint64_t *pairs, size_t cap)
{
    size_t n = 0;
    for (const mp_win_region *r = win->regions; r; r = r->next, n++)
        if (n < cap) {
            pairs[2 * n] = r->base;
            pairs[2 * n + 1] = r->size;
        }
    return n;
}

int mp_win_region_ok(const mp_win *win, uint64_t addr, size_t len)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return addr >= (uint64_t)(uintptr_t)win->base &&
               addr + len <= (uint64_t)(uintptr_t)win->base + (uint64_t)win->size;
    for (const mp_win_region *r = win->regions; r; r = r->next)
        if (addr >= r->base && addr + len <= r->base + r->size)
            return 1;
    return len == 0;
}

void mp_win_dyn_release(mp_win *win)
{
    while (win->regions) {
        mp_win_region *r = win->regions;
        win->regions = r->next;
        free(r);
    }
    mp_win_dyn_forget(win);
}

/* ---- the origin's view ----------------------------------------------------------------- */

void mp_win_dyn_forget(mp_win *win)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC || !win->t)
        return;
    for (int r = 0; r < win->comm->size; r++) {
        free(win->t[r].seen);
        win->t[r].seen = NULL;
    }
}

/* A consistent copy of a directory on our host (the owner may be rewriting it). */
static void read_dir(mp_win_target *t)
{
    mp_win_dir *d = t->dir;
    uint64_t *pairs = mp_malloc(2 * MP_WIN_DIR_MAX * sizeof(uint64_t));
    for (;;) {
        unsigned s1 = atomic_load_explicit(&d->seq, memory_order_acquire);
        unsigned n = atomic_load_explicit(&d->n, memory_order_relaxed);
        for (unsigned i = 0; i < n && i < MP_WIN_DIR_MAX; i++) {
            pairs[2 * i] = atomic_load_explicit(&d->base[i], memory_order_relaxed);
            pairs[2 * i + 1] = atomic_load_explicit(&d->size[i], memory_order_relaxed);
        }
        atomic_thread_fence(memory_order_acquire);
        if (!(s1 & 1) && atomic_load_explicit(&d->seq, memory_order_relaxed) == s1) {
            t->nseen = n > MP_WIN_DIR_MAX ? -1 : (int)n;
            break;
        }
    }
    free(t->seen);
    t->seen = pairs;
}

/* Asks a target on another host (REGIONS): count, then pairs. */
static void ask_target(mp_win *win, mp_win_target *t)
{
    size_t cap = mp_rma_max_payload(t->world);
    uint64_t *reply = mp_malloc(cap);
    size_t landed = 0;
    mp_rma_reply *r = mp_rma_reply_new(&t->data_due, NULL);
    r->buf = reply;
    r->count = (MPI_Aint)cap;
    r->dt = mp_datatype_get(MPI_BYTE);
    r->landed = &landed;
    t->data_due++;
    mp_hdr h;
    mp_rma_hdr(&h, MP_PKT_RMA_REGIONS, win);
    h.cookie = (uint64_t)(uintptr_t)r;
    mp_rma_send(t->world, &h, NULL, 0);
    mp_rma_wait_zero(&t->data_due);
    size_t n = landed >= sizeof(uint64_t) ? (size_t)reply[0] : 0;
    size_t shown = (landed / sizeof(uint64_t) - 1) / 2;
    free(t->seen);
    t->nseen = n > shown ? -1 : (int)n;
    t->seen = mp_malloc((2 * shown + 1) * sizeof(uint64_t));
    for (size_t i = 0; i < 2 * shown; i++)
        t->seen[i] = reply[1 + i];
    free(reply);
}

static int covered(const mp_win_target *t, uint64_t lo, uint64_t hi)
{
    if (t->nseen < 0)
        return 1;                     /* too many to tell: the target checks */
    for (int i = 0; i < t->nseen; i++)
        if (lo >= t->seen[2 * i] && hi <= t->seen[2 * i] + t->seen[2 * i + 1])
            return 1;
    return 0;
}

int mp_win_dyn_check(const char *F, mp_win *win, int r, uint64_t lo, uint64_t hi)
{
    mp_win_target *t = &win->t[r];
    if (r == win->comm->rank)
        return mp_win_region_ok(win, lo, hi - lo) ? MPI_SUCCESS :
               mp_error_code(MPI_ERR_RMA_RANGE, "%s: bytes [0x%llx, 0x%llx) of this process are "
                             "not attached to the dynamic window", F, (unsigned long long)lo,
                             (unsigned long long)hi);
    if (t->seen && covered(t, lo, hi))
        return MPI_SUCCESS;
    if (t->dir)
        read_dir(t);
    else
        ask_target(win, t);
    if (covered(t, lo, hi))
        return MPI_SUCCESS;
    return mp_error_code(MPI_ERR_RMA_RANGE, "%s: bytes [0x%llx, 0x%llx) of target rank %d are "
                         "not attached to the dynamic window", F, (unsigned long long)lo,
                         (unsigned long long)hi, r);
}

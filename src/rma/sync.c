/* sync.c -- epochs: fence, post/start/complete/wait, locks, flush.  MemPI, BSD-3-Clause.
 *
 * docs/rma.md states the protocols; the rules they rest on:
 *   - Operations on direct and copy targets are complete when the call that issued them
 *     returns (memory operations or synchronous single copies), so completing them needs only
 *     the memory ordering of whatever synchronization follows (a release store, a packet).
 *   - Operations on message targets travel, in issue order, in the same per-pair FIFO as
 *     every other window packet of that pair (am.c).  A packet that follows them -- FLUSH,
 *     UNLOCK, COMPLETE -- is handled by the target after them, so its answer (or its mere
 *     arrival, for COMPLETE) proves they were applied.  Gets complete when their data came.
 * Hence:
 *   flush(t)        message target: FLUSH and wait for its ACK; then wait for get data.
 *   flush_local(t)  wait for get data (puts copied their data when issued).
 *   unlock(t)       direct/copy: release the lock word; message: UNLOCK, wait for its ACK.
 *   complete        COMPLETE to every target of the access group, wait for get data.
 *   wait            until every origin of the exposure group sent COMPLETE.
 *   fence           flush all, then a barrier; the epoch that follows is open to all.
 * Epoch state is checked at every call; a call in the wrong state is MPI_ERR_RMA_SYNC and
 * changes nothing.
 */
#include "rma/win.h"
#include <sched.h>
#include <stdlib.h>

/* ---- lock words (win.h) ---------------------------------------------------------------- */

int mp_winlock_try(mp_win_ctl *ctl, int exclusive)
{
    unsigned v = atomic_load_explicit(&ctl->lock, memory_order_relaxed);
    for (;;) {
        unsigned want;
        if (exclusive) {
            if (v)
                return 0;
            want = MP_LOCK_EXCL;
        } else {
            if (v & MP_LOCK_EXCL)
                return 0;
            want = v + 1;
        }
        if (atomic_compare_exchange_weak_explicit(&ctl->lock, &v, want, memory_order_acquire,
                                                  memory_order_relaxed))
            return 1;
    }
}

void mp_winlock_release(mp_win_ctl *ctl, int exclusive)
{
    if (exclusive)
        atomic_store_explicit(&ctl->lock, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&ctl->lock, 1, memory_order_release);
}

/* Holders of the accumulate lock only touch memory (never wait for a peer), so spinning is
 * bounded; yielding keeps it short when the holder shares our core. */
void mp_acc_lock(mp_win_ctl *ctl)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(&ctl->acc, 1, memory_order_acquire)) {
        while (atomic_load_explicit(&ctl->acc, memory_order_relaxed)) {
            if (++spins % 64 == 0)
                sched_yield();
        }
    }
}

void mp_acc_unlock(mp_win_ctl *ctl)
{
    atomic_store_explicit(&ctl->acc, 0, memory_order_release);
}

void mp_rma_wait_zero(const unsigned *count)
{
    unsigned spins = 0;
    while (*count) {
        if (mp_progress() == 0)
            mp_idle_packet(&spins);
    }
}

/* ---- helpers --------------------------------------------------------------------------- */

static int sync_error(const char *F, const char *why)
{
    return mp_error_code(MPI_ERR_RMA_SYNC, "%s: %s", F, why);
}

static int bad_rank(const char *F, const mp_win *win, int rank)
{
    return mp_error_code(MPI_ERR_RANK, "%s: invalid rank %d in a window of %d processes", F,
                         rank, win->comm->size);
}

/* Everything issued to rank r is complete at the target (local: at the origin only). */
static void flush_target(mp_win *win, int r, int local)
{
    mp_win_target *t = &win->t[r];
    if (t->path == MP_PATH_MSG && t->unflushed && !local) {
        mp_hdr h;
        mp_rma_hdr(&h, MP_PKT_RMA_FLUSH, win);
        t->acks_due++;
        h.cookie = (uint64_t)(uintptr_t)mp_rma_reply_new(&t->acks_due, NULL);
        mp_rma_send(t->world, &h, NULL, 0);
        t->unflushed = 0;
    }
    mp_rma_wait_zero(&t->data_due);
    mp_rma_wait_zero(&t->acks_due);
    atomic_thread_fence(memory_order_release);   /* direct stores before what follows */
}

static void flush_all(mp_win *win, int local)
{
    for (int r = 0; r < win->comm->size; r++)
        flush_target(win, r, local);
}

/* A lock of rank r's window for this process, blocking until granted. */
static void lock_target(mp_win *win, int r, int type)
{
    mp_win_target *t = &win->t[r];
    int exclusive = type == MPI_LOCK_EXCLUSIVE;
    t->lock_type = type;
    if (t->path == MP_PATH_MSG) {
        mp_hdr h;
        mp_rma_hdr(&h, MP_PKT_RMA_LOCK, win);
        h.flags = exclusive ? MP_RMA_F_EXCL : 0;
        t->acks_due++;
        h.cookie = (uint64_t)(uintptr_t)mp_rma_reply_new(&t->acks_due, NULL);
        mp_rma_send(t->world, &h, NULL, 0);
        return;                       /* the caller waits for the grants */
    }
    unsigned spins = 0;
    while (!mp_winlock_try(t->ctl, exclusive)) {
        if (mp_progress() == 0)
            mp_idle(&spins);          /* a release rings nothing: never sleep */
    }
}

static void unlock_target(mp_win *win, int r)
{
    mp_win_target *t = &win->t[r];
    int exclusive = t->lock_type == MPI_LOCK_EXCLUSIVE;
    if (t->path == MP_PATH_MSG) {
        mp_hdr h;
        mp_rma_hdr(&h, MP_PKT_RMA_UNLOCK, win);
        h.flags = exclusive ? MP_RMA_F_EXCL : 0;
        t->acks_due++;
        h.cookie = (uint64_t)(uintptr_t)mp_rma_reply_new(&t->acks_due, NULL);
        mp_rma_send(t->world, &h, NULL, 0);
        t->unflushed = 0;             /* the UNLOCK's answer covers them */
    } else {
        mp_winlock_release(t->ctl, exclusive);
        mp_rma_grant_waiting(win);    /* our own remote waiters, if r is us */
    }
    t->lock_type = 0;
}

/* ---- fence ----------------------------------------------------------------------------- */

int mp_win_fence(const char *F, mp_win *win, int assert)
{
    if (win->access != MP_EPOCH_NONE && win->access != MP_EPOCH_FENCE)
        return sync_error(F, "a lock or access (start) epoch is open on this window");
    if (win->exposed)
        return sync_error(F, "an exposure (post) epoch is open on this window");
    if (!(assert & MPI_MODE_NOPRECEDE))
        flush_all(win, 0);
    atomic_thread_fence(memory_order_seq_cst);
    int err = mp_barrier(win->comm);
    atomic_thread_fence(memory_order_seq_cst);
    win->access = (assert & MPI_MODE_NOSUCCEED) ? MP_EPOCH_NONE : MP_EPOCH_FENCE;
    win->fence_busy = 0;
    mp_win_dyn_forget(win);
    return err;
}

/* ---- post / start / complete / wait ---------------------------------------------------- */

/* Window ranks of the members of `group` (which must be a subgroup of the window's). */
static int group_ranks(const char *F, mp_win *win, mp_group *group, int **out)
{
    int *ranks = mp_malloc(sizeof(int) * (size_t)(group->size > 0 ? group->size : 1));
    int *map = mp_group_world_map(mp_comm_local_group(win->comm));
    for (int i = 0; i < group->size; i++) {
        ranks[i] = map[group->world[i]];
        if (ranks[i] == MPI_UNDEFINED) {
            free(map);
            free(ranks);
            return mp_error_code(MPI_ERR_GROUP, "%s: member %d of the group (world rank %d) is "
                                 "not in the window's group", F, i, group->world[i]);
        }
    }
    free(map);
    *out = ranks;
    return MPI_SUCCESS;
}

int mp_win_post(const char *F, mp_win *win, mp_group *group, int assert)
{
    if (win->exposed)
        return sync_error(F, "an exposure epoch is already open (MPI_Win_post without "
                             "MPI_Win_wait)");
    int *ranks, err = group_ranks(F, win, group, &ranks);
    if (err)
        return err;
    win->exposed = 1;
    win->post_size = group->size;
    atomic_thread_fence(memory_order_release);
    if (!(assert & MPI_MODE_NOCHECK)) {
        mp_hdr h;
        mp_rma_hdr(&h, MP_PKT_RMA_POST, win);
        for (int i = 0; i < group->size; i++)
            mp_rma_send(win->t[ranks[i]].world, &h, NULL, 0);
    }
    free(ranks);
    return MPI_SUCCESS;
}

int mp_win_start(const char *F, mp_win *win, mp_group *group, int assert)
{
    if (win->access != MP_EPOCH_NONE && win->access != MP_EPOCH_FENCE)
        return sync_error(F, "an access epoch is already open on this window");
    int *ranks, err = group_ranks(F, win, group, &ranks);
    if (err)
        return err;
    for (int i = 0; i < group->size; i++) {
        mp_win_target *t = &win->t[ranks[i]];
        t->in_start = 1;
        if (assert & MPI_MODE_NOCHECK)
            continue;
        unsigned spins = 0;
        while (t->posts == 0) {       /* its POST is a packet: waiting may sleep */
            if (mp_progress() == 0)
                mp_idle_packet(&spins);
        }
        t->posts--;
    }
    atomic_thread_fence(memory_order_acquire);
    free(ranks);
    win->access = MP_EPOCH_START;
    mp_win_dyn_forget(win);
    return MPI_SUCCESS;
}

int mp_win_complete(const char *F, mp_win *win)
{
    if (win->access != MP_EPOCH_START)
        return sync_error(F, "no access epoch was started (MPI_Win_start)");
    atomic_thread_fence(memory_order_release);
    mp_hdr h;
    mp_rma_hdr(&h, MP_PKT_RMA_COMPLETE, win);
    for (int r = 0; r < win->comm->size; r++) {
        mp_win_target *t = &win->t[r];
        if (!t->in_start)
            continue;
        mp_rma_send(t->world, &h, NULL, 0);   /* after every operation to it */
        t->unflushed = 0;
        t->in_start = 0;
        mp_rma_wait_zero(&t->data_due);
    }
    win->access = MP_EPOCH_NONE;
    return MPI_SUCCESS;
}

static int exposure_over(mp_win *win)
{
    return win->completes >= (unsigned)win->post_size;
}

static void end_exposure(mp_win *win)
{
    win->completes -= (unsigned)win->post_size;
    win->exposed = 0;
    win->post_size = 0;
    atomic_thread_fence(memory_order_acquire);
}

int mp_win_wait(const char *F, mp_win *win)
{
    if (!win->exposed)
        return sync_error(F, "no exposure epoch was opened (MPI_Win_post)");
    unsigned spins = 0;
    while (!exposure_over(win)) {
        if (mp_progress() == 0)
            mp_idle_packet(&spins);
    }
    end_exposure(win);
    return MPI_SUCCESS;
}

int mp_win_test(const char *F, mp_win *win, int *flag)
{
    if (!win->exposed)
        return sync_error(F, "no exposure epoch was opened (MPI_Win_post)");
    if (!exposure_over(win))
        mp_progress();
    *flag = exposure_over(win);
    if (*flag)
        end_exposure(win);
    return MPI_SUCCESS;
}

/* ---- passive target -------------------------------------------------------------------- */

int mp_win_lock(const char *F, mp_win *win, int type, int rank, int assert)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->comm->size)
        return bad_rank(F, win, rank);
    if (win->no_locks)
        return sync_error(F, "the window was created with the info hint no_locks=true");
    if (win->access == MP_EPOCH_LOCK_ALL || win->access == MP_EPOCH_START)
        return sync_error(F, "another kind of access epoch is open on this window");
    if (win->t[rank].lock_type)
        return sync_error(F, "this process already holds a lock on that rank's window");
    lock_target(win, rank, type);
    mp_rma_wait_zero(&win->t[rank].acks_due);
    mp_win_dyn_forget(win);
    win->access = MP_EPOCH_LOCK;
    win->nlocked++;
    return MPI_SUCCESS;
}

int mp_win_unlock(const char *F, mp_win *win, int rank)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->comm->size)
        return bad_rank(F, win, rank);
    if (win->access != MP_EPOCH_LOCK || !win->t[rank].lock_type)
        return sync_error(F, "this process holds no lock on that rank's window "
                             "(MPI_Win_lock)");
    mp_win_target *t = &win->t[rank];
    mp_rma_wait_zero(&t->data_due);
    atomic_thread_fence(memory_order_release);
    unlock_target(win, rank);
    mp_rma_wait_zero(&t->acks_due);
    if (--win->nlocked == 0)
        win->access = MP_EPOCH_NONE;
    return MPI_SUCCESS;
}

int mp_win_lock_all(const char *F, mp_win *win, int assert)
{
    if (win->no_locks)
        return sync_error(F, "the window was created with the info hint no_locks=true");
    if (win->access != MP_EPOCH_NONE && win->access != MP_EPOCH_FENCE)
        return sync_error(F, "an access epoch is already open on this window");
    for (int r = 0; r < win->comm->size; r++)
        lock_target(win, r, MPI_LOCK_SHARED);
    for (int r = 0; r < win->comm->size; r++)
        mp_rma_wait_zero(&win->t[r].acks_due);
    win->access = MP_EPOCH_LOCK_ALL;
    mp_win_dyn_forget(win);
    return MPI_SUCCESS;
}

int mp_win_unlock_all(const char *F, mp_win *win)
{
    if (win->access != MP_EPOCH_LOCK_ALL)
        return sync_error(F, "no MPI_Win_lock_all epoch is open on this window");
    atomic_thread_fence(memory_order_release);
    for (int r = 0; r < win->comm->size; r++) {
        mp_rma_wait_zero(&win->t[r].data_due);
        unlock_target(win, r);
    }
    for (int r = 0; r < win->comm->size; r++)
        mp_rma_wait_zero(&win->t[r].acks_due);
    win->access = MP_EPOCH_NONE;
    return MPI_SUCCESS;
}

int mp_win_flush(const char *F, mp_win *win, int rank, int local)
{
    if (win->access != MP_EPOCH_LOCK && win->access != MP_EPOCH_LOCK_ALL)
        return sync_error(F, "flush needs a passive-target epoch (MPI_Win_lock or "
                             "MPI_Win_lock_all)");
    if (rank == -1) {
        flush_all(win, local);
        return MPI_SUCCESS;
    }
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->comm->size)
        return bad_rank(F, win, rank);
    if (win->access == MP_EPOCH_LOCK && !win->t[rank].lock_type)
        return sync_error(F, "this process holds no lock on that rank's window");
    flush_target(win, rank, local);
    return MPI_SUCCESS;
}

int mp_win_sync(const char *F, mp_win *win)
{
    if (win->access != MP_EPOCH_LOCK && win->access != MP_EPOCH_LOCK_ALL)
        return sync_error(F, "MPI_Win_sync needs a passive-target epoch (MPI_Win_lock or "
                             "MPI_Win_lock_all)");
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

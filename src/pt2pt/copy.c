/* copy.c -- the single copies of large messages, and running them outside the big lock.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A rendezvous pull and a remote write move a whole message between two address spaces with
 * the transport's read/write (process_vm_readv/writev through shared memory), shared with the
 * peer when it offers to help (the two-core copy, transport split_open/split_copy).
 *
 * Under MPI_THREAD_MULTIPLE one big lock serializes the library (core/progress.c), and a copy
 * of megabytes under it would stop every other thread of the process for milliseconds -- a
 * thread working on another communicator could not even complete a small message.  So the
 * copies whose transport touches no library state while copying (copy_unlocked) run from the
 * progress hooks with the lock released (mp_lock_drop_in_hook decides whether the poll allows
 * it; otherwise they copy holding it, which is always correct).  Three things make that safe:
 *
 *   - Rendezvous pulls leave the packet handler.  A handler runs with the packet's queue cell
 *     still held and with later packets of the same peer not yet handled; another thread must
 *     not poll that queue in between.  So under MPI_THREAD_MULTIPLE a matched rendezvous
 *     whose copy could run unlocked is put on the deferred list (state MP_ST_RECV_READING)
 *     and copy_progress, a hook, pulls it: the request is off every queue by then, its
 *     matching decided, and only its waiter looks at it (its `done` flag).
 *   - A remote write stays at the head of its track's send queue to the peer while it
 *     copies, the track marked `copying`: other threads queue sends on that track behind it
 *     (its RWDONE keeps its place in the track's order), flush_peer skips the track's sends
 *     (control packets, and sends on the peer's other tracks, still go: they may overtake
 *     it), a withdrawal of its request for sending still finds it there (sendreq.c), a
 *     cancel finds its bytes taken (done_bytes) and leaves it, and a peer failure leaves it
 *     to the copying thread (failed.c).  mp_send_queue leaves such
 *     sends to the hook rather than writing them in the entry point (send.c).
 *   - Helping a peer's two-core copy leaves the packet handler too (the same list): the
 *     helper claims chunks from the owner's slot, so a help that runs late finds none left
 *     and touches nothing (split.c).
 *
 * Non-contiguous buffers copy unlocked too (alone: the two-core copy needs one range): the
 * segment walk reads only the datatype's program, fixed at commit, and the request holds a
 * reference on its type, so an MPI_Type_free by another thread meanwhile frees nothing.
 * Copies are deferred only once threads have met in the library (mp_copy_deferred: some
 * thread had to wait for the lock): a program that asked for MPI_THREAD_MULTIPLE but calls MPI
 * from one thread at a time -- every mpi4py program -- keeps the copy where it was, in the
 * call that can do it (an MPI_Isend's remote write, an MPI_Irecv's pull of a rendezvous that
 * arrived first), so its data moves before the wait.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

/* A copy left for the hook: a rendezvous pull into a matched receive (`pull`), or this rank's
 * part of a peer's two-core copy (MP_PKT_SPLIT: pull == NULL). */
typedef struct deferred {
    struct deferred *next;
    mp_request *pull;
    int world_peer, write;
    uint32_t ticket;
    uint64_t remote_addr;
    void *local;
    size_t bytes;
} deferred;
static deferred *deferred_head, *deferred_tail;
static int ndeferred;                      /* the hook's gate */

int mp_copy_message(int write, int world_peer, uint64_t remote_addr, void *buf, MPI_Aint count,
                    const mp_datatype *dt, size_t bytes)
{
    mp_transport *tp = mp_transport_of(world_peer);
    struct iovec iov[64];
    size_t done = 0;
    while (done < bytes) {
        size_t covered;
        int n;
        if (dt->is_contig) {
            iov[0].iov_base = (char *)buf + dt->true_lb + done;
            iov[0].iov_len = bytes - done;
            n = 1;
            covered = bytes - done;
        } else {
            n = mp_segments(buf, count, dt, done, bytes - done, iov, 64, &covered);
        }
        int err = write ? tp->write(world_peer, remote_addr + done, iov, n)
                        : tp->read(world_peer, remote_addr + done, iov, n);
        if (err != MPI_SUCCESS)
            return err;
        done += covered;
    }
    return MPI_SUCCESS;
}

/* Opens a two-core copy of `bytes` at `local` and tells the peer's request `peer_cookie`
 * (MP_PKT_SPLIT): 1 and the ticket if the transport shares this one, else 0. */
static int open_shared(int world_peer, uint64_t peer_cookie, void *local, size_t bytes,
                       uint32_t *ticket)
{
    mp_transport *tp = mp_transport_of(world_peer);
    if (!tp->split_open || tp->split_open(world_peer, bytes, ticket) != MPI_SUCCESS)
        return 0;
    mp_hdr h;
    mp_hdr_control(&h, MP_PKT_SPLIT, peer_cookie, (uint64_t)(uintptr_t)local);
    h.size = bytes;
    h.seq = *ticket;
    mp_send_ctrl(world_peer, &h);
    mp_stat.split_msgs++;
    return 1;
}

/* The copy itself, once open_shared said whether the peer helps: it touches no library state
 * of the transports that copy unlocked, so it may run without the big lock. */
static int run_copy(int shared, uint32_t ticket, int write, int world_peer, uint64_t remote_addr,
                    void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes)
{
    if (shared)
        return mp_transport_of(world_peer)->split_copy(world_peer, 1, ticket, write, remote_addr,
                                                       (char *)buf + dt->true_lb, bytes, NULL);
    return mp_copy_message(write, world_peer, remote_addr, buf, count, dt, bytes);
}

int mp_copy_shared(int write, int world_peer, uint64_t remote_addr, uint64_t peer_cookie,
                   void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes)
{
    uint32_t ticket = 0;
    int shared = dt->is_contig &&
                 open_shared(world_peer, peer_cookie, (char *)buf + dt->true_lb, bytes, &ticket);
    return run_copy(shared, ticket, write, world_peer, remote_addr, buf, count, dt, bytes);
}

/* Takes the big lock back after mp_lock_drop_in_hook let it go, and counts the copy. */
static void lock_back(int dropped, const mp_lock_saved *saved)
{
    if (dropped) {
        mp_lock_retake_in_hook(saved);
        mp_stat.unlocked_copies++;
    }
}

int mp_copy_in_hook(int write, int world_peer, uint64_t remote_addr, uint64_t peer_cookie,
                    void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes)
{
    if (!mp_transport_of(world_peer)->copy_unlocked)
        return mp_copy_shared(write, world_peer, remote_addr, peer_cookie, buf, count, dt, bytes);
    uint32_t ticket = 0;
    int shared = dt->is_contig &&
                 open_shared(world_peer, peer_cookie, (char *)buf + dt->true_lb, bytes, &ticket);
    mp_lock_saved saved;
    int dropped = mp_lock_drop_in_hook(&saved);
    int err = run_copy(shared, ticket, write, world_peer, remote_addr, buf, count, dt, bytes);
    lock_back(dropped, &saved);
    return err;
}

int mp_copy_deferred(int world_peer)
{
    return MP_UNLIKELY(mp_thread_multiple) && mp_lock_contended_ever() &&
           mp_transport_of(world_peer)->copy_unlocked;
}

/* Both kinds of deferred copy wait in one FIFO, drained by one hook. */
static void defer(deferred *d)
{
    d->next = NULL;
    if (deferred_tail)
        deferred_tail->next = d;
    else
        deferred_head = d;
    deferred_tail = d;
    ndeferred++;
}

void mp_pull_later(mp_request *req, int world_peer, uint64_t peer_cookie, uint64_t remote_addr,
                   size_t bytes)
{
    req->state = MP_ST_RECV_READING;
    req->world_peer = world_peer;
    req->peer_req = peer_cookie;
    deferred *d = mp_malloc(sizeof *d);
    *d = (deferred){ .pull = req, .world_peer = world_peer, .remote_addr = remote_addr,
                     .bytes = bytes };
    defer(d);
}

void mp_help_later(int world_peer, uint32_t ticket, int write, uint64_t remote_addr,
                   void *local, size_t bytes)
{
    deferred *d = mp_malloc(sizeof *d);
    *d = (deferred){ .world_peer = world_peer, .write = write, .ticket = ticket,
                     .remote_addr = remote_addr, .local = local, .bytes = bytes };
    defer(d);
}

/* A pull: the whole message into the receive, then FIN and completion. */
static void pull(const deferred *d)
{
    mp_request *req = d->pull;
    int err = mp_copy_in_hook(0, d->world_peer, d->remote_addr, req->peer_req, req->buf,
                              req->count, req->dt, d->bytes);
    if (err != MPI_SUCCESS && req->error == MPI_SUCCESS)
        req->error = err;
    mp_send_reply(d->world_peer, MP_PKT_FIN, req->peer_req, 0);
    mp_recv_complete(req);
}

/* A help claims chunks from the owner's slot (transport split_copy): one that comes late,
 * after the owner took every chunk and completed the request, claims none and touches
 * nothing, so the request behind `local` may be gone by then. */
static void help(const deferred *d)
{
    mp_lock_saved saved;
    size_t helped = 0;
    int dropped = mp_lock_drop_in_hook(&saved);
    mp_transport_of(d->world_peer)->split_copy(d->world_peer, 0, d->ticket, d->write,
                                               d->remote_addr, d->local, d->bytes, &helped);
    lock_back(dropped, &saved);
    mp_stat.split_help_bytes += helped;
}

/* The hook: each copy is taken off the list before it runs, so threads that poll while the
 * lock is released take the next ones and copy in parallel. */
static int copy_progress(void)
{
    int events = 0;
    while (deferred_head) {
        deferred *d = deferred_head;
        deferred_head = d->next;
        if (!deferred_head)
            deferred_tail = NULL;
        ndeferred--;
        if (d->pull)
            pull(d);
        else
            help(d);
        free(d);
        events++;
    }
    return events;
}

void mp_copy_init(void)
{
    deferred_head = deferred_tail = NULL;
    ndeferred = 0;
    mp_progress_register_gated(copy_progress, &ndeferred);
}

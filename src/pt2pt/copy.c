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
 *     whose copy could run unlocked is put on the pull list (state MP_ST_RECV_READING) and
 *     pull_progress, a hook, copies it: the request is off every queue by then, its
 *     matching decided, and only its waiter looks at it (its `done` flag).
 *   - A remote write stays at the head of its peer's send queue while it copies, the peer
 *     marked `copying`: other threads queue sends to that peer behind it (its RWDONE keeps
 *     its place in the pair's order), flush_peer skips the peer's sends (control packets
 *     still go: they may overtake sends), a withdrawal of its request for sending still finds
 *     it there (sendreq.c), a cancel finds its bytes taken (done_bytes) and leaves it, and a
 *     peer failure leaves it to the copying thread (failed.c).  mp_send_queue leaves such
 *     sends to the hook rather than writing them in the entry point (send.c).
 *   - Helping a peer's two-core copy leaves the packet handler too (the help list): the
 *     helper claims chunks from the owner's slot, so a help that runs late finds none left
 *     and touches nothing (split.c).
 *
 * Non-contiguous buffers copy under the lock: the segment walk reads the datatype's state.
 * Copies are deferred only once threads have met in the library (mp_copies_deferred: some
 * thread had to wait for the lock): a program that asked for MPI_THREAD_MULTIPLE but calls MPI
 * from one thread at a time -- every mpi4py program -- keeps the copy where it was, in the
 * call that can do it (an MPI_Isend's remote write, an MPI_Irecv's pull of a rendezvous that
 * arrived first), so its data moves before the wait.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>
#include <string.h>

static mp_request *pull_head, *pull_tail;   /* matched rendezvous receives to pull, FIFO */

/* A peer's two-core copy this rank was asked to help with (MP_PKT_SPLIT), not yet helped. */
typedef struct help {
    struct help *next;
    int world_peer, write;
    uint32_t ticket;
    uint64_t remote_addr;
    void *local;
    size_t bytes;
} help;
static help *help_head, *help_tail;

static int pending;                        /* pulls + helps: the hook's gate */

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

int mp_copy_shared(int write, int world_peer, uint64_t remote_addr, uint64_t peer_cookie,
                   void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes)
{
    uint32_t ticket;
    void *local = (char *)buf + dt->true_lb;
    if (!dt->is_contig || !open_shared(world_peer, peer_cookie, local, bytes, &ticket))
        return mp_copy_message(write, world_peer, remote_addr, buf, count, dt, bytes);
    return mp_transport_of(world_peer)->split_copy(world_peer, 1, ticket, write, remote_addr,
                                                   local, bytes, NULL);
}

int mp_copy_in_hook(int write, int world_peer, uint64_t remote_addr, uint64_t peer_cookie,
                    void *buf, MPI_Aint count, const mp_datatype *dt, size_t bytes)
{
    mp_transport *tp = mp_transport_of(world_peer);
    if (!tp->copy_unlocked || !dt->is_contig)
        return mp_copy_shared(write, world_peer, remote_addr, peer_cookie, buf, count, dt, bytes);
    void *local = (char *)buf + dt->true_lb;
    uint32_t ticket;
    int shared = open_shared(world_peer, peer_cookie, local, bytes, &ticket);
    mp_lock_saved saved;
    int dropped = mp_lock_drop_in_hook(&saved);
    int err;
    if (shared) {
        err = tp->split_copy(world_peer, 1, ticket, write, remote_addr, local, bytes, NULL);
    } else {
        struct iovec iov = { local, bytes };
        err = write ? tp->write(world_peer, remote_addr, &iov, 1)
                    : tp->read(world_peer, remote_addr, &iov, 1);
    }
    if (dropped) {
        mp_lock_retake_in_hook(&saved);
        mp_stat.unlocked_copies++;
    }
    return err;
}

int mp_copies_deferred(void)
{
    return MP_UNLIKELY(mp_thread_multiple) && mp_lock_contended_ever();
}

int mp_pull_deferred(const mp_request *req, int world_peer)
{
    return mp_copies_deferred() && req->dt->is_contig && mp_transport_of(world_peer)->copy_unlocked;
}

int mp_help_deferred(int world_peer)
{
    return mp_copies_deferred() && mp_transport_of(world_peer)->copy_unlocked;
}

void mp_pull_later(mp_request *req, int world_peer, uint64_t peer_cookie, uint64_t remote_addr,
                   size_t bytes)
{
    req->state = MP_ST_RECV_READING;
    req->world_peer = world_peer;
    req->peer_req = peer_cookie;
    req->remote_addr = remote_addr;
    req->done_bytes = bytes;              /* the bytes to pull */
    req->next = NULL;
    if (pull_tail)
        pull_tail->next = req;
    else
        pull_head = req;
    pull_tail = req;
    pending++;
}

void mp_help_later(int world_peer, uint32_t ticket, int write, uint64_t remote_addr,
                   void *local, size_t bytes)
{
    help *h = mp_malloc(sizeof *h);
    *h = (help){ NULL, world_peer, write, ticket, remote_addr, local, bytes };
    if (help_tail)
        help_tail->next = h;
    else
        help_head = h;
    help_tail = h;
    pending++;
}

/* Helping claims chunks from the owner's slot (transport split_copy): a help that comes late,
 * after the owner took every chunk and completed the request, claims none and touches
 * nothing, so the request behind `local` may be gone by then. */
static int help_one(void)
{
    help *h = help_head;
    help_head = h->next;
    if (!help_head)
        help_tail = NULL;
    pending--;
    mp_transport *tp = mp_transport_of(h->world_peer);
    mp_lock_saved saved;
    size_t helped = 0;
    int dropped = mp_lock_drop_in_hook(&saved);
    tp->split_copy(h->world_peer, 0, h->ticket, h->write, h->remote_addr, h->local, h->bytes,
                   &helped);
    if (dropped) {
        mp_lock_retake_in_hook(&saved);
        mp_stat.unlocked_copies++;
    }
    mp_stat.split_help_bytes += helped;
    free(h);
    return 1;
}

/* The hook: each pull is taken off the list before its copy, so threads that poll while the
 * lock is released take the next ones and copy in parallel. */
static int pull_progress(void)
{
    int events = 0;
    while (help_head)
        events += help_one();
    while (pull_head) {
        mp_request *req = pull_head;
        pull_head = req->next;
        if (!pull_head)
            pull_tail = NULL;
        pending--;
        req->next = NULL;
        int err = mp_copy_in_hook(0, req->world_peer, req->remote_addr, req->peer_req, req->buf,
                                  req->count, req->dt, req->done_bytes);
        if (err != MPI_SUCCESS && req->error == MPI_SUCCESS)
            req->error = err;
        mp_send_reply(req->world_peer, MP_PKT_FIN, req->peer_req, 0);
        mp_recv_complete(req);
        events++;
    }
    return events;
}

void mp_copy_init(void)
{
    pull_head = pull_tail = NULL;
    help_head = help_tail = NULL;
    pending = 0;
    mp_progress_register_gated(pull_progress, &pending);
}

/* split.c -- one large single copy done by two cores at once.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * process_vm_readv/writev move data at the speed of one core, well below what the memory
 * system gives two.  When both sides of a large transfer are inside MPI -- a receiver waiting
 * in the receive it announced with a request for sending while the sender writes into it, a
 * sender waiting for the FIN of a rendezvous the receiver pulls -- both can copy: the side that
 * copies anyway (the owner) publishes the transfer in its rank area's slot (mp_split_slot,
 * shm.h, states the protocol and its memory ordering), tells the peer in a packet, and both
 * claim chunks from the slot's counter until none is left, the owner writing or reading with
 * its own local buffer and the helper doing the opposite direction with its own.  The owner
 * completes the operation only when the helper's chunks are done.
 *
 * Sharing pays only when the helper's core would otherwise idle.  In an exchange -- a
 * sendrecv, a step of an all-to-all, a halo swap -- each side already copies one transfer of
 * its own, both cores are busy, and sharing each other's transfers only adds coordination
 * and cache-line traffic.  So with MEMPI_SPLIT_COPY=auto an owner shares only with a helper
 * that *offers*: a rank offers (mp_split_offer, the `offer` word of its slot) while it is
 * blocked in a wait that is one-directional and leaves it nothing of its own to copy --
 * MPI_Recv, MPI_Send, MPI_Wait or MPI_Waitall on receives only while it has no send in
 * progress, or on sends only while it has no receive posted -- and never inside MPI_Sendrecv,
 * MPI_Isendrecv or a collective (pt2pt.c's waits decide; a rank that does not know cannot
 * offer).  The owner reads the word once, when it opens the transfer.  The offer is a hint:
 * a helper that left its wait after the owner read it still helps when it next polls, or
 * claims nothing.  MEMPI_SPLIT_COPY=1 shares regardless (tests), 0 never.
 *
 * Falling back is free: a helper busy elsewhere reads the packet late and finds nothing left
 * to claim, and the owner then has copied everything itself.  When the node's ranks outnumber
 * its cores (MEMPI_SPLIT_COPY=auto) the helper is rarely running at the same time and the
 * owner would wait for it, so the owner copies alone.  Chunks are a power of two of at least
 * MIN_CHUNK bytes and at most MAX_CHUNKS per transfer, so a syscall always moves enough bytes
 * to hide its fixed cost and the side that finishes first waits at most one chunk.
 *
 * One slot per rank suffices: an owner publishes, copies and waits for its helper in one call
 * without polling, so it never owns two transfers at once.  Threads of one process under
 * MPI_THREAD_MULTIPLE copy without the big lock (copy_unlocked), so two of them could open
 * transfers at once: `owning` admits one owner per process (acquire on open, release when its
 * helper is done, so the next owner's resets of the slot follow the last one's reads); the
 * other copies alone.  While an owner waits it checks now and then that the helper still
 * exists (a killed peer would never add its bytes).
 */
#include "transport/shm/shm.h"
#include <errno.h>
#include <sched.h>
#include <signal.h>

#define MIN_CHUNK  (64u * 1024u)
#define MAX_CHUNKS 16u
#define LIVENESS_EVERY 4096u   /* waiting owner: spins between checks that the helper lives */

static uint32_t next_ticket;       /* written by the owner only */
static atomic_int owning;          /* a thread of this process owns the slot's transfer */

static size_t chunk_size(size_t len)
{
    size_t c = MIN_CHUNK;
    while ((len + c - 1) / c > MAX_CHUNKS)
        c *= 2;
    return c;
}

static mp_split_slot *slot_of(int world_peer, int owner)
{
    int local = owner ? mp_shm.me : mp_world.procs[world_peer].local;
    return &mp_shm_rank(local)->split;
}

/* Only auto mode reads offers, so only it writes them (the word's line then stays quiet). */
void mp_split_offer(int on)
{
    if (mp_cfg.split_copy < 0 && mp_shm.seg && mp_shm.cma)
        atomic_store_explicit(&mp_shm_rank(mp_shm.me)->split.offer, on, memory_order_relaxed);
}

static int peer_offers(int world_peer)
{
    mp_split_slot *h = &mp_shm_rank(mp_world.procs[world_peer].local)->split;
    return atomic_load_explicit(&h->offer, memory_order_relaxed);
}

int mp_split_open(int world_peer, size_t len, uint32_t *ticket)
{
    if (mp_cfg.split_copy == 0 || len < mp_cfg.split_copy_min || len < 2 * (size_t)MIN_CHUNK ||
        mp_world.procs[world_peer].tp != &mp_shm_transport || world_peer == mp_world.rank ||
        (mp_cfg.split_copy < 0 && (mp_wait_oversubscribed() || !peer_offers(world_peer))))
        return MP_AGAIN;
    int idle = 0;
    if (!atomic_compare_exchange_strong_explicit(&owning, &idle, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return MP_AGAIN;
    mp_split_slot *s = slot_of(world_peer, 1);
    if (++next_ticket == 0)
        next_ticket = 1;
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    atomic_store_explicit(&s->err, MPI_SUCCESS, memory_order_relaxed);
    atomic_store_explicit(&s->claim, (uint64_t)next_ticket << 32, memory_order_release);
    *ticket = next_ticket;
    return MPI_SUCCESS;
}

/* Claims the next chunk of transfer `ticket`: its index, or -1 when none is left (or the
 * slot holds another transfer by now). */
static int64_t claim(mp_split_slot *s, uint32_t ticket, uint64_t nchunks)
{
    uint64_t w = atomic_load_explicit(&s->claim, memory_order_relaxed);
    for (;;) {
        if ((uint32_t)(w >> 32) != ticket || (w & 0xffffffffu) >= nchunks)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&s->claim, &w, w + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return (int64_t)(w & 0xffffffffu);
    }
}

/* The owner waits for the helper's chunks; a helper that died never finishes them. */
static int wait_helper(mp_split_slot *s, int world_peer, size_t len)
{
    pid_t pid = mp_shm_rank(mp_world.procs[world_peer].local)->pid;
    for (unsigned spins = 1; atomic_load_explicit(&s->done, memory_order_acquire) < len; spins++) {
        if (spins % LIVENESS_EVERY)
            continue;
        if (kill(pid, 0) != 0 && errno == ESRCH) {
            mp_note_peer_gone(world_peer);
            return mp_error_code(MPI_ERR_OTHER, "single copy shared with rank %d failed: its "
                                 "process (pid %d) no longer exists", world_peer, (int)pid);
        }
        sched_yield();
    }
    if (atomic_load_explicit(&s->err, memory_order_relaxed) != MPI_SUCCESS)
        return mp_error_code(MPI_ERR_OTHER, "single copy shared with rank %d failed on its "
                             "side", world_peer);
    return MPI_SUCCESS;
}

int mp_split_copy(int world_peer, int owner, uint32_t ticket, int write, uint64_t remote_addr,
                  void *local, size_t len, size_t *helped)
{
    mp_split_slot *s = slot_of(world_peer, owner);
    size_t chunk = chunk_size(len);
    uint64_t nchunks = (len + chunk - 1) / chunk;
    size_t copied = 0;
    int err = MPI_SUCCESS;
    int64_t k;
    while ((k = claim(s, ticket, nchunks)) >= 0) {
        size_t off = (size_t)k * chunk;
        size_t n = len - off < chunk ? len - off : chunk;
        struct iovec iov = { (char *)local + off, n };
        if (err == MPI_SUCCESS)   /* after a failure, claim the rest so the owner stops */
            err = write ? mp_cma_write(world_peer, remote_addr + off, &iov, 1)
                        : mp_cma_read(world_peer, remote_addr + off, &iov, 1);
        copied += n;
    }
    if (owner) {
        if (copied)
            atomic_fetch_add_explicit(&s->done, copied, memory_order_release);
        int herr = wait_helper(s, world_peer, len);
        atomic_store_explicit(&owning, 0, memory_order_release);
        return err != MPI_SUCCESS ? err : herr;
    }
    if (copied) {
        if (err != MPI_SUCCESS)
            atomic_store_explicit(&s->err, MPI_ERR_OTHER, memory_order_relaxed);
        *helped += copied;
        atomic_fetch_add_explicit(&s->done, copied, memory_order_release);
    }
    return err;
}

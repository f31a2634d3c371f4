/* wait.c -- futex sleep and wake-up of local ranks.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A rank that has waited long enough (the policy is core/progress.c's) sleeps on the `futex`
 * word of its rank area in the node segment; a sender that delivers a packet to it wakes it.
 * The hard part is to lose no wake-up without making the sender pay when nobody sleeps.
 *
 * Words, in the receiver R's rank area (mp_rank_area, shm.h):
 *   sleeping   number of R's threads that announced they are about to sleep or sleep
 *   futex      wake counter: every wake-up adds one, sleepers wait for it to change
 *
 * The protocol (cell = the ring or queue cell a sender S fills for R):
 *
 *   sleeper (R)                                  sender (S), mp_shm_wake_check (wait.h)
 *   S1 fetch_add(sleeping, 1, relaxed)           W1 store(cell.full, 1, release)   [shm_send]
 *   S2 HEAVY FENCE                               W2 LIGHT FENCE
 *   S3 v = load(futex, acquire)                  W3 if load(sleeping, relaxed) != 0:
 *   S4 load(full, acquire) of the queue's and    W4    fetch_add(futex, 1, release);
 *      every fast ring's next cell; load(watched       FUTEX_WAKE(futex, all)
 *      word, acquire)
 *      -> anything there: withdraw, don't sleep
 *   S5 FUTEX_WAIT(futex, v, timeout)
 *   S6 fetch_sub(sleeping, 1, relaxed)
 *
 * S1/S2/S4 against W1/W2/W3 is Dekker's store-buffering pattern: with a full fence between the
 * store and the load on both sides, at least one side sees the other's store -- either S4 sees
 * the packet (R does not sleep) or W3 sees the announcement (S wakes R).  If W3 saw it, W4
 * follows; either S3 read W4's increment, and then (release W4 / acquire S3) S4 also sees W1, so
 * R does not sleep; or S3 read an older value, and then the kernel's compare in S5 fails
 * (EAGAIN) if W4's increment came first, or R is already queued on the futex when W4's
 * FUTEX_WAKE runs (the futex bucket lock orders the two).  No wake-up is lost.
 *
 * The fences.  A seq_cst fence on every send would cost ~20-30 cycles per packet (an mfence)
 * whether or not anyone sleeps, so the fences are asymmetric: the sleeper, which is about to
 * give up the core anyway, issues membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) as its HEAVY
 * FENCE, which runs a full memory barrier on every CPU currently running a process that
 * registered for it (and a CPU that is not running one passes a barrier when it switches to
 * one).  Wherever that barrier falls in S's W1..W3 it orders them as a fence would, so the
 * LIGHT FENCE only needs to stop the compiler (atomic_signal_fence).  This is the
 * asymmetric-fence technique of userspace RCU.  Every rank registers at start-up
 * (mp_shm_wait_init); a process that could not register keeps mp_shm_wake_fence = 1 and
 * fences itself (seq_cst, pairs with the sleeper's membarrier, which includes a full barrier
 * on the caller); a sleeper whose kernel lacks membarrier uses a seq_cst fence, which pairs
 * with senders that fence.  Registration takes effect before mp_shm_wake_fence drops to 0
 * (the kernel synchronises registration with concurrent membarrier calls), so a sender never
 * skips its fence while a sleeper's membarrier could miss it.  When the job's policy never
 * sleeps (MEMPI_WAIT=spin, yield), nobody needs fences at all; when it sleeps at every wait
 * (MEMPI_WAIT=sleep), a membarrier per sleep (a system call) costs more than a fence per send, so
 * both sides use plain seq_cst fences.  (The policy is the job's: ranks given different
 * MEMPI_WAIT values could pair a fence-less sender with a fence-only sleeper, which the
 * timeout below turns into delays, not hangs.)  The common send thus costs a
 * compiler barrier and one relaxed load of R's rank-area line, which R writes only when it
 * sleeps, so the line stays shared in S's cache.
 *
 * Safety net: every sleep has a bounded timeout (MEMPI_SLEEP_TIMEOUT, a few
 * milliseconds).  Whatever the argument above does not cover -- a flag set by another thread
 * of this process, a peer freeing the ring cell we wait for, a kernel that registers some
 * ranks and not others -- costs at most one timeout, never a hang.  The waits that are not
 * woken by packets avoid sleeping: a rank blocked on a full ring or pool yields instead
 * (MP_SLEEP_BLOCKED), the node barrier watches its generation word and its last arrival wakes
 * everyone (mp_shm_wake_all).  The shared-memory collectives (coll/shm.c) sleep the same way,
 * watching the word of a peer's collective slot they wait for (a cell's stamp or its count of
 * readers, mp_coll_watch*); the rank that stores that word is the sender above, W1 being its
 * release store, and runs W2-W4 for the ranks that may wait for it (mp_coll_wake).
 *
 * Other deliveries: rendezvous reads and remote writes (CMA) are always followed by a packet
 * (FIN, RWDONE) to the rank that waits for them, so "a packet arrived" covers them.
 */
#include "transport/shm/wait.h"
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int mp_shm_wake_fence = 1;            /* until registered: senders fence themselves */
static int heavy_fence_is_membarrier;
/* The word the calling thread's wait watches (S4): per thread, since under
 * MPI_THREAD_MULTIPLE threads of one process may wait in collectives on different
 * communicators at once.  Only set on the way to a sleep, so the cost of thread-local access
 * in a shared library does not matter. */
static _Thread_local atomic_uint *watch_word;      /* node barrier generation, or NULL */
static _Thread_local unsigned watch_old;
static _Thread_local const _Atomic uint64_t *watch_stamp;   /* a collective cell's stamp */
static _Thread_local uint64_t watch_stamp_old;

static long sys_membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

static long sys_futex(atomic_uint *word, int op, unsigned val, const struct timespec *ts)
{
    /* Not FUTEX_PRIVATE_FLAG: the word is shared between processes. */
    return syscall(SYS_futex, (unsigned *)word, op, val, ts, NULL, 0);
}

int mp_shm_wait_init(int sleeps)
{
    if (sleeps == MP_SLEEPS_NEVER) {
        mp_shm_wake_fence = 0;            /* no sleeper ever needs the ordering */
        return 1;
    }
    if (sleeps == MP_SLEEPS_OFTEN)        /* a fence per send is cheaper than a membarrier */
        return 0;                         /* per sleep: keep mp_shm_wake_fence = 1 */
    long cmds = sys_membarrier(MEMBARRIER_CMD_QUERY);
    if (cmds < 0)
        return 0;
    heavy_fence_is_membarrier = (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0;
    if ((cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
        sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0)
        mp_shm_wake_fence = 0;
    return heavy_fence_is_membarrier && !mp_shm_wake_fence;
}

static void heavy_fence(void)
{
    if (heavy_fence_is_membarrier && sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0)
        return;
    atomic_thread_fence(memory_order_seq_cst);
}

static void wake_area(mp_rank_area *area)
{
    atomic_fetch_add_explicit(&area->futex, 1, memory_order_release);
    sys_futex(&area->futex, FUTEX_WAKE, INT_MAX, NULL);
}

void mp_shm_wake(int world_peer)
{
    wake_area(mp_shm_rank(mp_world.procs[world_peer].local));
}

void mp_shm_wake_self(void)
{
    wake_area(mp_shm_rank(mp_shm.me));
}

void mp_shm_wake_all(void)
{
    atomic_thread_fence(memory_order_seq_cst);   /* after the caller's release store */
    for (int p = 0; p < mp_shm.nlocal; p++)
        if (atomic_load_explicit(&mp_shm_rank(p)->sleeping, memory_order_relaxed))
            wake_area(mp_shm_rank(p));
}

void mp_shm_watch(atomic_uint *word, unsigned old)
{
    watch_word = word;
    watch_old = old;
}

void mp_coll_watch(atomic_uint *word, unsigned old)
{
    mp_shm_watch(word, old);
}

void mp_coll_watch_stamp(const _Atomic uint64_t *word, uint64_t old)
{
    watch_stamp = word;
    watch_stamp_old = old;
}

/* The sender's half (W2-W4) for words of the collective slots, one fence for all. */
void mp_coll_wake(const int *local, int n)
{
    if (MP_UNLIKELY(mp_shm_wake_fence))
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++)
        if (local[i] != mp_shm.me &&
            MP_UNLIKELY(atomic_load_explicit(&mp_shm_rank(local[i])->sleeping,
                                             memory_order_relaxed)))
            wake_area(mp_shm_rank(local[i]));
}

/* Is a packet waiting in our shared queue or one of our fast rings, or did the watched word
 * change?  (S4) */
static int something_arrived(void)
{
    if (mp_shm_queue_ready())
        return 1;
    for (int i = 0; i < mp_shm.nfast_from; i++) {
        int s = mp_shm.fast_from[i];
        mp_cell *cell = mp_shm.recv_ring[s] + (mp_shm.recv_pos[s] & mp_shm.mask);
        if (atomic_load_explicit(&cell->full, memory_order_acquire))
            return 1;
    }
    if (watch_stamp && atomic_load_explicit(watch_stamp, memory_order_acquire) != watch_stamp_old)
        return 1;
    return watch_word && atomic_load_explicit(watch_word, memory_order_acquire) != watch_old;
}

/* Are we possibly waiting for a peer to free a cell of a full ring or queue, or a chunk of our
 * pool?  The peer that frees it does not wake us, so such a wait must not sleep.  Queues are
 * checked only where our last send found them full (shm.c marks them), so that a sleeper
 * touches no inbox it never sent to. */
static int blocked_on_peer(void)
{
    for (int i = 0; i < mp_shm.nfast_to; i++) {
        int p = mp_shm.fast_to[i];
        mp_cell *cell = mp_shm.send_ring[p] + (mp_shm.send_pos[p] & mp_shm.mask);
        if (atomic_load_explicit(&cell->full, memory_order_relaxed))
            return 1;
    }
    for (int p = 0; mp_shm.nblocked && p < mp_shm.nlocal; p++) {
        if (!mp_shm.blocked[p])
            continue;
        if (mp_shm_queue_full(p))
            return 1;
        mp_shm.blocked[p] = 0;                /* room again: the retry will not block */
        mp_shm.nblocked--;
    }
    return mp_shm_chunk_find() < 0;          /* usually stops at the first chunk */
}

int mp_shm_sleep_prepare(unsigned *word)
{
    if (mp_shm.seg == NULL || blocked_on_peer())
        return MP_SLEEP_BLOCKED;
    if (something_arrived())                   /* cheap early answer, no fence needed */
        return MP_SLEEP_READY;
    mp_rank_area *me = mp_shm_rank(mp_shm.me);
    atomic_fetch_add_explicit(&me->sleeping, 1, memory_order_relaxed);       /* S1 */
    heavy_fence();                                                           /* S2 */
    *word = atomic_load_explicit(&me->futex, memory_order_acquire);          /* S3 */
    if (something_arrived()) {                                               /* S4 */
        atomic_fetch_sub_explicit(&me->sleeping, 1, memory_order_relaxed);
        return MP_SLEEP_READY;
    }
    return MP_SLEEP_OK;
}

int mp_shm_sleep_commit(unsigned word, unsigned timeout_us)
{
    mp_rank_area *me = mp_shm_rank(mp_shm.me);
    struct timespec ts = { (time_t)(timeout_us / 1000000u), (long)(timeout_us % 1000000u) * 1000 };
    long rc = sys_futex(&me->futex, FUTEX_WAIT, word, &ts);                  /* S5 */
    int timed_out = rc != 0 && errno == ETIMEDOUT;
    atomic_fetch_sub_explicit(&me->sleeping, 1, memory_order_relaxed);       /* S6 */
    return !timed_out;
}

mp_sleeper mp_shm_sleeper = {
    .init = mp_shm_wait_init,
    .prepare = mp_shm_sleep_prepare,
    .commit = mp_shm_sleep_commit,
    .wake_self = mp_shm_wake_self,
};

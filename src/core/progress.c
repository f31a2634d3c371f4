/* progress.c -- the progress engine and the waiting policy.  MemPI, BSD-3-Clause.
 *
 * One engine polls every transport and then the hooks registered by upper layers (queued
 * sends, schedules of nonblocking collectives).
 *
 * Every blocking call -- waits, blocking sends and receives, probes, collectives, the node
 * barrier, finalize -- waits in one place: it polls, and after each fruitless poll calls
 * mp_idle(&spins), which escalates through three stages:
 *
 *   spin    pause and poll again, for `spin_polls` fruitless polls: the common case, where
 *           the peer answers within microseconds, pays nothing else;
 *   yield   sched_yield after every poll, for `yield_ns` nanoseconds: with more ranks than
 *           cores the rank we wait for probably needs our core, and yielding hands it over
 *           in about a microsecond;
 *   sleep   the sleeper's futex (the shm transport's, in the node segment: see
 *           transport/shm/wait.c), woken by the next packet delivered to us or after
 *           MEMPI_SLEEP_TIMEOUT (2 ms; a safety net, tests raise it so that a lost wake-up
 *           hangs): a long wait gives the core away entirely.
 *
 * MEMPI_WAIT picks the stages: spin (spin only), yield (spin, then yield forever), sleep
 * (spin, then sleep), auto (all three; the default).  The lengths depend on whether this
 * node's ranks outnumber the cores available to the job (placement.c: affinity mask and
 * cgroup CPU quota): with a core each, spin MEMPI_SPIN polls (a rank's own core is free to
 * burn) and sleep only after AUTO_YIELD_NS_OWN_CORE of waiting, when a wake-up's tens of
 * microseconds are noise; oversubscribed, do not spin at all (OVERSUB_SPIN: the rank we wait
 * for most likely waits for our core, so every extra poll only delays the hand-over), yield for AUTO_YIELD_NS_OVERSUB, then sleep.  An explicit
 * MEMPI_SPIN is always honoured.
 *
 * Sleeping is only for waits that a delivered packet ends ("wake me on packet"): request
 * waits (mp_wait_request, except generalized requests, which a user thread completes) and
 * callers that say so with mp_idle_packet; the node barrier watches its own word
 * (mp_shm_watch), the shared-memory collectives the word of a peer's slot they wait for
 * (mp_coll_watch*, whose writers wake them).  Plain mp_idle and mp_wait_flag never sleep --
 * their callers may wait for a flag some peer stores without waking anyone, or for the
 * network, neither of which rings our futex -- they spin, then yield.  A rank blocked on a full queue
 * yields instead of sleeping too (the peer that drains it does not wake us), and when some
 * ranks of the job are reached through the network nothing sleeps, because network arrivals
 * do not ring the futex either.
 *
 * A rank that polls without blocking -- MPI_Test or MPI_Iprobe in a loop -- never calls
 * mp_idle, so mp_progress itself yields the core after `test_polls` fruitless polls in a
 * row when the node is oversubscribed (or the policy is yield/sleep): such a rank does not
 * starve the peers that share its core.
 *
 * MPI_THREAD_MULTIPLE: one big recursive lock.  The binding's entry points of point-to-point,
 * requests, collectives and communicator creation take it (MP_BIG_LOCK), and so does the
 * progress engine itself (mp_progress, and every poll of a wait), so a caller that forgot it
 * still cannot poll concurrently.  With one thread active it must cost next to nothing (mpi4py
 * asks for MPI_THREAD_MULTIPLE by default), so it is not a pthread mutex: the lock is a word
 * holding the owner's thread id (its thread pointer), taken with one compare-and-swap and
 * given back with one release store.  Re-entry (a user error handler or callback calling MPI,
 * or the engine's own polls inside an entry point) compares the word with the caller's id --
 * only the owner can have stored it -- and increments a depth that only the owner touches.
 * A thread that finds the lock taken spins briefly, yields a few times, then sleeps on a futex
 * word that every release bumps; a release wakes one sleeper when it sees any, without a
 * fence, so a sleeper may rarely miss one and wake on its timeout instead (release_word).  The fast paths of
 * point-to-point, the argument cache and the request pool run under the lock like everything
 * else (fast.c, args.c, request.c say what each relies on).  A wait must not keep the lock
 * while nothing happens, or the thread that could complete its request (posting the matching
 * receive, say) never gets in:
 *   - yielding and sleeping release it entirely (whatever the depth) and take it back after
 *     -- except in a nested wait: inside a poll (a transport handler waiting for its
 *     provider) or in mp_idle_nested (a transport waiting for its provider in the middle of a
 *     send or a match that an entry point started).  There the state is half-way and the lock
 *     stays.  The rule: only a wait at the top of a blocking call, where the library's state
 *     is whole, may let go of the lock; a wait below it may not.  Letting go there lets
 *     another thread act on the half-way state: a send whose sequence number is taken but
 *     which is not yet in its peer's queue is overtaken by the next send to that peer (the
 *     receiver stops: "message N+1 arrived when N was expected") or, when that send is queued
 *     behind a full transport, the first one's queueing overwrites it (lost: a hang); and a
 *     poll by another thread may take the completion of our RMA operation into its batch of
 *     completions and then, inside a packet handler, wait for all RMA operations to end --
 *     for ever, since ours is reported only when that handler returns;
 *   - a progress hook may let go of the lock around one large copy (mp_lock_drop_in_hook;
 *     point-to-point's single copies through shared memory), so that threads working on
 *     other communicators progress while it copies -- only in a poll that a wait at the top
 *     of a call started (the state is whole there, as when it yields) and only in the hooks,
 *     which run after the transports' packets were handled.  The hook makes its own state
 *     safe to share first (docs/protocol.md, "Threads"); the holder's poll state (`polling`,
 *     `hooks_may_drop`) is saved and cleared, so the next holder does not inherit it;
 *   - a poll that finds other threads blocked on the lock (`lock_waiters`) first steps aside:
 *     it releases the lock and yields until one of them got it (`lock_grants` moved) or a
 *     bounded number of yields passed.  Without that hand-over the polling thread would
 *     re-take the lock before a blocked thread runs, in the spin stage for ever.  A caller
 *     whose own checks must hold across the poll (the direct receive) polls with
 *     mp_poll_except_holding, which never steps aside, and stops spinning instead as soon as
 *     a thread is blocked on the lock (mp_lock_waited).
 * Requests: completion is a release store of `done`, read with acquire (request.c), and the
 * flag of a request is only read by its own waiter, under the lock or not.  A thread that
 * sleeps counts itself in `local_sleepers` before it reads the futex word, while it still
 * holds the lock; whoever completes a request or polls events later (under the lock, hence
 * after the sleeper's count) wakes the process's own futex when someone sleeps, so a thread
 * whose request another thread's progress completed does not sleep on.  Without the lock
 * (lower levels, a single thread) this is moot; a caller that polls without the lock under
 * MPI_THREAD_MULTIPLE could miss a wake-up in a narrow window, which the sleep timeout covers.
 * Below MPI_THREAD_MULTIPLE every one of these steps is a branch on mp_thread_multiple.  The
 * state of the lock's holder (depth, `polling`, the count of fruitless tests) is plain
 * globals, not thread-locals: in a shared library each access to a thread-local is a call to
 * __tls_get_addr.
 *
 * Lanes: readers of the big lock.  A small blocking MPI_Send or MPI_Recv on a communicator
 * needs only its track's state and the transport (binding/lane.c says exactly what), so once
 * threads have met in the library it first tries a lane: it takes the try-lock of its
 * track's stripe (one of MP_LANE_STRIPES), then checks that no thread holds the big lock.
 * Lanes of different stripes run at once; a thread that takes the lock -- the writer -- waits
 * after its compare-and-swap until every stripe is free (wait_lanes), and a lane that spins
 * watches lock_owner and gives up as soon as a writer appears.  The pair (writer: CAS of
 * lock_owner, then loads of the stripes; lane: CAS of its stripe, then load of lock_owner) is
 * sequentially consistent on both sides, so they cannot miss each other (Dekker); the
 * writer's zero load is an acquire of the lane's release of its stripe, and
 * a lane's zero load of lock_owner an acquire of the last writer's release, so each side sees
 * all the other did.  A lane never waits for the lock and never blocks a writer for longer
 * than a packet's copy: what it cannot finish alone it leaves untouched to the big lock.
 * With one thread lanes stay shut (a lane costs a thread more than the lock's one
 * compare-and-swap); the cost to the writer is a load of each stripe per acquisition.
 *
 * Hooks may be registered with a gate: an int the hook's owner keeps non-zero while the hook
 * has work (point-to-point: queued sends).  A poll reads the gate and calls the hook only
 * when it is set, so an idle layer costs a load and a branch per poll, not a call.
 */
#include "core/core.h"
#include "core/placement.h"
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MP_MAX_HOOKS 12
#define MP_MAX_SOURCES 4
#define OVERSUB_SPIN             0u             /* polls before yielding when oversubscribed */
#define AUTO_YIELD_NS_OVERSUB    200000ull      /* yield this long before sleeping */
#define AUTO_YIELD_NS_OWN_CORE   20000000ull
#define NEVER                    UINT64_MAX

static struct {
    mp_progress_hook hook;
    const int *gate;          /* NULL: always call */
} hooks[MP_MAX_HOOKS];
static int nhooks;
static mp_poll_fn sources[MP_MAX_SOURCES];   /* the transports in use (transport.c) */
static int nsources;
static const mp_sleeper *sleeper;            /* NULL until the transports are up */

/* The policy in force; the initial values (spin, then yield) serve the start-up barrier
 * before mp_wait_policy_init has run. */
static struct {
    int spin_forever;
    unsigned spin_polls;      /* fruitless polls in the spin stage */
    uint64_t yield_ns;        /* length of the yield stage; NEVER = do not sleep */
    unsigned test_polls;      /* fruitless non-blocking polls before mp_progress yields; 0 = never */
    int oversubscribed;       /* this machine's ranks outnumber its cores */
} policy = { 0, 4000, NEVER, 0, 0 };

int mp_wait_oversubscribed(void)
{
    return policy.oversubscribed;
}

/* Fruitless mp_progress calls since the last event, of all threads: under
 * MPI_THREAD_MULTIPLE only the holder of the big lock touches it. */
static unsigned fruitless_tests;
static atomic_ulong sleeps, sleep_timeouts;  /* reported with MEMPI_VERBOSE=1 at exit */
static atomic_int local_sleepers;      /* MPI_THREAD_MULTIPLE: threads asleep (counted before
                                          the futex word is read, see the top) */
static _Thread_local uint64_t yield_start;

/* ---- the big lock (see the top) ------------------------------------------------------ */
int mp_thread_multiple;
/* The holder's thread id (pthread_self; 0 = free).  Only the holder writes lock_depth and
 * polling, so they need no atomics: the acquire and release of lock_owner order them. */
static _Atomic uintptr_t lock_owner;
static int lock_depth;                 /* the holder's nesting */
static int polling;                    /* the holder is inside poll_all or a nested wait
                                          (mp_idle_nested): a wait keeps the lock */
static int hooks_may_drop;             /* the holder's poll was started by a wait at the top
                                          of a call: its hooks may let go (mp_lock_drop_in_hook) */
static atomic_int lock_waiters;        /* threads in lock_contended (relaxed: a hint) */
static atomic_uint lock_grants;        /* contended acquisitions so far (relaxed: a hint) */
static atomic_uint lock_gen;           /* releases so far: the futex word of sleeping waiters */
static atomic_int lock_sleepers;       /* waiters asleep on lock_gen, or about to be */
/* Lanes: readers of the big lock (see "Lanes" at the top).  lane_stripe[i] is 1 while a
 * thread is inside a lane of stripe i, or about to enter one: the try-lock of the stripe and
 * the lane's announcement to writers at once, a cache line each so that lanes of different
 * stripes share nothing.  mp_lanes_open_word is set once threads have met in the library
 * (relaxed: a hint, read by every point-to-point entry point that has a lane). */
static struct { atomic_int taken; char pad[MP_CACHELINE - sizeof(atomic_int)]; }
    lane_stripe[MP_LANE_STRIPES] __attribute__((aligned(MP_CACHELINE)));
atomic_int mp_lanes_open_word;
#define STEP_ASIDE_YIELDS 64           /* bound of a hand-over that no waiter takes */
#define LOCK_SPINS        128          /* pauses before a blocked thread starts yielding */
#define LANE_ENTER_SPINS  256          /* pauses a lane waits for its stripe */
#define LOCK_YIELDS       16           /* yields before it sleeps on lock_gen */
#define LOCK_SLEEP_NS     500000L      /* a missed wake-up costs at most this */

/* The thread pointer is the cheapest unique id of a thread: one register read where the
 * compiler knows it (it is pthread_self's value on x86-64 glibc, but any unique value does). */
static inline uintptr_t self_id(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && __GNUC__ >= 11
    return (uintptr_t)__builtin_thread_pointer();
#else
    return (uintptr_t)pthread_self();
#endif
}

static inline int held_by(uintptr_t self)
{
    return atomic_load_explicit(&lock_owner, memory_order_relaxed) == self;
}

/* Gives the lock back.  Only the holder writes lock_gen, so bumping it needs no atomic
 * read-modify-write; a waiter that read the old value before it went to sleep is not put to
 * sleep by the kernel (FUTEX_WAIT compares).  The check for sleepers is not fenced against the
 * release: a waiter that counts itself in the same instant may sleep through this release,
 * which its timeout (LOCK_SLEEP_NS) bounds -- the price of a release without a fence. */
static inline void release_word(void)
{
    unsigned gen = atomic_load_explicit(&lock_gen, memory_order_relaxed);
    atomic_store_explicit(&lock_gen, gen + 1, memory_order_relaxed);
    atomic_store_explicit(&lock_owner, 0, memory_order_release);
    if (MP_UNLIKELY(atomic_load_explicit(&lock_sleepers, memory_order_relaxed)))
        syscall(SYS_futex, (unsigned *)&lock_gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Lanes (see the top): the new holder of the lock waits until no thread is inside a lane.
 * Its compare-and-swap of lock_owner and these loads are sequentially consistent, as are a
 * lane's compare-and-swap of its stripe and its load of lock_owner, so of a writer and a lane
 * entering at once at least one sees the other: the writer waits, or the lane backs off.
 * Reading zero here (acquire) also orders the lanes' work before the writer's. */
static __attribute__((noinline)) void wait_lane(unsigned i)
{
    for (unsigned spins = 0;
         atomic_load_explicit(&lane_stripe[i].taken, memory_order_seq_cst); spins++) {
        if (spins < LOCK_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();         /* a lane's thread lost its core: give it back */
        }
    }
}

/* Opens the lanes, under the big lock or before threads exist.  What lanes read but never
 * make -- the shared completed send request -- is made first. */
static void open_lanes(void)
{
    (void)mp_request_done_send();
    atomic_store_explicit(&mp_lanes_open_word, 1, memory_order_relaxed);
}

/* Only once lanes are open: a lane that entered read mp_lanes_open_word == 1, which the
 * thread that opened them stored while it held the lock (lock_contended) or before any thread
 * existed (mp_lanes_init), so a writer whose acquisition follows that release reads 1 too;
 * one that acquired earlier is seen by the lane (its owner word is set). */
static inline void wait_lanes(void)
{
    if (!mp_lanes_open())
        return;
    for (unsigned i = 0; i < MP_LANE_STRIPES; i++)
        if (MP_UNLIKELY(atomic_load_explicit(&lane_stripe[i].taken, memory_order_seq_cst)))
            wait_lane(i);
}

/* Another thread holds the lock: spin briefly (its critical sections are short), yield the
 * core to it a few times, then sleep on lock_gen until a release (or the timeout). */
static __attribute__((noinline)) void lock_contended(uintptr_t self)
{
    atomic_fetch_add_explicit(&lock_waiters, 1, memory_order_relaxed);
    for (unsigned i = 0;; i++) {
        uintptr_t none = 0;
        if (atomic_load_explicit(&lock_owner, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&lock_owner, &none, self,
                                                  memory_order_seq_cst, memory_order_relaxed))
            break;
        if (i < LOCK_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else if (i < LOCK_SPINS + LOCK_YIELDS) {
            sched_yield();
        } else {
            unsigned gen = atomic_load_explicit(&lock_gen, memory_order_acquire);
            atomic_fetch_add_explicit(&lock_sleepers, 1, memory_order_seq_cst);
            if (atomic_load_explicit(&lock_owner, memory_order_seq_cst) != 0) {
                struct timespec limit = { 0, LOCK_SLEEP_NS };
                syscall(SYS_futex, (unsigned *)&lock_gen, FUTEX_WAIT_PRIVATE, gen, &limit,
                        NULL, 0);
            }
            atomic_fetch_sub_explicit(&lock_sleepers, 1, memory_order_relaxed);
        }
    }
    wait_lanes();
    lock_depth = 1;
    atomic_fetch_sub_explicit(&lock_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&lock_grants, 1, memory_order_relaxed);
    if (mp_cfg.lanes && !atomic_load_explicit(&mp_lanes_open_word, memory_order_relaxed))
        open_lanes();                                                    /* threads met */
}

void mp_lock_slow(void)
{
    uintptr_t self = self_id();
    if (held_by(self)) {               /* only this thread can have stored its own id */
        lock_depth++;
        return;
    }
    uintptr_t none = 0;
    if (MP_LIKELY(atomic_compare_exchange_strong_explicit(&lock_owner, &none, self,
                                                          memory_order_seq_cst,
                                                          memory_order_relaxed))) {
        wait_lanes();
        lock_depth = 1;
        return;
    }
    lock_contended(self);
}

void mp_unlock_slow(void)
{
    MP_ASSERT(held_by(self_id()) && lock_depth > 0);
    if (--lock_depth == 0)
        release_word();
}

void mp_lanes_init(void)
{
    if (mp_thread_multiple && mp_cfg.lanes == 1)
        open_lanes();
}

int mp_lane_try(unsigned stripe)
{
    int free_word = 0;
    if (!atomic_compare_exchange_strong_explicit(&lane_stripe[stripe].taken, &free_word, 1,
                                                 memory_order_seq_cst, memory_order_relaxed))
        return 0;
    if (MP_LIKELY(atomic_load_explicit(&lock_owner, memory_order_seq_cst) == 0))
        return 1;
    atomic_store_explicit(&lane_stripe[stripe].taken, 0, memory_order_release);
    return 0;
}

/* A stripe another lane holds is held briefly (one small call), so waiting a little for it
 * beats taking the big lock, which waits for all lanes; never while a writer waits. */
int mp_lane_enter(unsigned stripe)
{
    for (unsigned spins = 0;; spins++) {
        if (atomic_load_explicit(&lane_stripe[stripe].taken, memory_order_relaxed) == 0 &&
            mp_lane_try(stripe))
            return 1;
        if (spins == LANE_ENTER_SPINS || atomic_load_explicit(&lock_owner, memory_order_relaxed))
            return 0;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

void mp_lane_exit(unsigned stripe)
{
    atomic_store_explicit(&lane_stripe[stripe].taken, 0, memory_order_release);
}

int mp_lane_writer_waiting(void)
{
    return atomic_load_explicit(&lock_owner, memory_order_relaxed) != 0;
}

void mp_leaf_lock(atomic_int *word)
{
    for (unsigned spins = 0;;) {
        int free_word = 0;
        if (atomic_load_explicit(word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(word, &free_word, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        if (++spins < LOCK_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();         /* its holder lost its core */
        }
    }
}

int mp_lock_waited(void)
{
    return atomic_load_explicit(&lock_waiters, memory_order_relaxed) != 0;
}

int mp_lock_release(void)
{
    if (!held_by(self_id()))
        return 0;
    int depth = lock_depth;
    lock_depth = 0;
    release_word();
    return depth;
}

void mp_lock_reacquire(int depth)
{
    if (depth > 0) {
        mp_lock_slow();
        lock_depth = depth;
    }
}

int mp_lock_contended_ever(void)
{
    return atomic_load_explicit(&lock_grants, memory_order_relaxed) != 0;
}

int mp_lock_drop_in_hook(mp_lock_saved *saved)
{
    if (!MP_UNLIKELY(mp_thread_multiple) || !hooks_may_drop || !held_by(self_id()))
        return 0;
    saved->polling = polling;
    saved->hooks_may_drop = hooks_may_drop;
    polling = 0;
    hooks_may_drop = 0;
    saved->depth = mp_lock_release();
    return 1;
}

void mp_lock_retake_in_hook(const mp_lock_saved *saved)
{
    mp_lock_reacquire(saved->depth);
    polling = saved->polling;
    hooks_may_drop = saved->hooks_may_drop;
}

/* For a wait inside a poll (a transport handler that waits for its provider): the lock
 * stays -- the poll's state is half-way -- and other threads wait a little longer. */
static int release_for_wait(void)
{
    if (!held_by(self_id()) || polling)
        return 0;
    return mp_lock_release();
}

int mp_lock_step_out(size_t bytes)
{
    return MP_UNLIKELY(mp_thread_multiple) && bytes >= MP_LOCK_STEP_OUT_MIN ? release_for_wait()
                                                                           : 0;
}

void mp_lock_step_in(int depth, uint64_t *counter)
{
    if (depth) {
        mp_lock_reacquire(depth);
        (*counter)++;
    }
}

/* Other threads wait for the lock: let one of them in before polling again. */
static void step_aside(void)
{
    unsigned grants = atomic_load_explicit(&lock_grants, memory_order_relaxed);
    int depth = release_for_wait();
    if (depth == 0)
        return;
    for (int i = 0; i < STEP_ASIDE_YIELDS; i++) {
        if (atomic_load_explicit(&lock_grants, memory_order_relaxed) != grants ||
            atomic_load_explicit(&lock_waiters, memory_order_relaxed) == 0)
            break;
        sched_yield();
    }
    mp_lock_reacquire(depth);
}

void mp_wake_local_sleepers(void)
{
    if (atomic_load_explicit(&local_sleepers, memory_order_relaxed))
        sleeper->wake_self();
}

void mp_progress_add_source(mp_poll_fn poll)
{
    if (nsources == MP_MAX_SOURCES)
        mp_fatal("too many progress sources");
    sources[nsources++] = poll;
}

void mp_progress_set_sleeper(const mp_sleeper *s)
{
    sleeper = s;
}

void mp_progress_register_gated(mp_progress_hook hook, const int *gate)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i].hook == hook)
            return;
    if (nhooks == MP_MAX_HOOKS)
        mp_fatal("too many progress hooks");
    hooks[nhooks].hook = hook;
    hooks[nhooks].gate = gate;
    nhooks++;
}

void mp_progress_register(mp_progress_hook hook)
{
    mp_progress_register_gated(hook, NULL);
}

/* One poll of the transports (all but skip_world's packets; -1: all) and the hooks. */
static inline int poll_once(int skip_world)
{
    int events = 0;
    for (int i = 0; i < nsources; i++)
        events += sources[i](skip_world);
    for (int i = 0; i < nhooks; i++)
        if (!hooks[i].gate || *hooks[i].gate)
            events += hooks[i].hook();
    return events;
}

/* MPI_THREAD_MULTIPLE: one poll by the holder of the big lock, letting blocked threads in
 * first unless the caller may not let go of it (see the top). */
static inline int poll_held(int skip_world, int may_step_aside)
{
    if (may_step_aside && polling == 0 &&
        atomic_load_explicit(&lock_waiters, memory_order_relaxed))
        step_aside();
    int saved_may_drop = hooks_may_drop;  /* a poll inside a hook may not drop */
    hooks_may_drop = may_step_aside && polling == 0;
    polling++;
    int events = poll_once(skip_world);
    polling--;
    hooks_may_drop = saved_may_drop;
    if (events && MP_UNLIKELY(atomic_load_explicit(&local_sleepers, memory_order_relaxed)))
        sleeper->wake_self();
    return events;
}

static __attribute__((noinline)) int poll_locked(int skip_world, int may_step_aside)
{
    mp_lock_slow();
    int events = poll_held(skip_world, may_step_aside);
    mp_unlock_slow();
    return events;
}

/* Below MPI_THREAD_MULTIPLE no lock, and no other thread of ours can sleep. */
static inline int poll_all_except(int skip_world)
{
    if (MP_UNLIKELY(mp_thread_multiple))
        return poll_locked(skip_world, 1);
    return poll_once(skip_world);
}

static int poll_all(void)
{
    return poll_all_except(-1);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void yield_core(void)
{
    if (MP_UNLIKELY(mp_thread_multiple)) {
        int depth = release_for_wait();
        sched_yield();
        mp_lock_reacquire(depth);
    } else {
        sched_yield();
    }
}

static void sleep_until_delivery(void)
{
    unsigned word;
    /* counted before the sleeper's prepare reads the futex word (see the top) */
    atomic_fetch_add_explicit(&local_sleepers, 1, memory_order_seq_cst);
    int verdict = sleeper ? sleeper->prepare(&word) : MP_SLEEP_BLOCKED;
    if (verdict == MP_SLEEP_OK) {
        int depth = MP_UNLIKELY(mp_thread_multiple) ? release_for_wait() : 0;
        atomic_fetch_add_explicit(&sleeps, 1, memory_order_relaxed);
        if (!sleeper->commit(word, mp_cfg.sleep_timeout_us))
            atomic_fetch_add_explicit(&sleep_timeouts, 1, memory_order_relaxed);
        mp_lock_reacquire(depth);
    } else if (verdict == MP_SLEEP_BLOCKED) {
        yield_core();
    }
    atomic_fetch_sub_explicit(&local_sleepers, 1, memory_order_relaxed);
}

/* After a non-blocking poll (MPI_Test loops): give the core away now and then. */
static inline void count_test(int events)
{
    if (events)
        fruitless_tests = 0;
    else if (policy.test_polls && ++fruitless_tests >= policy.test_polls) {
        fruitless_tests = 0;
        yield_core();
    }
}

static __attribute__((noinline)) int progress_locked(void)
{
    mp_lock_slow();
    int events = poll_held(-1, 1);
    count_test(events);
    mp_unlock_slow();
    return events;
}

int mp_progress(void)
{
    if (MP_UNLIKELY(mp_thread_multiple))
        return progress_locked();
    int events = poll_once(-1);
    count_test(events);
    return events;
}

/* For waits that poll something narrower than mp_progress (pt2pt's direct receive): one
 * step of the spin stage, or 0 when that stage is over and the caller must wait the general
 * way (mp_idle*, which yields and sleeps). */
int mp_idle_spin(unsigned *spins)
{
    if (!policy.spin_forever && *spins >= policy.spin_polls)
        return 0;
    (*spins)++;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return 1;
}

/* The stage is kept in *spins: below spin_polls we spin; from there on we yield, until
 * yield_ns have passed since the first yield, and then sleep (*spins = UINT_MAX). */
static void idle(unsigned *spins, int may_sleep)
{
    /* a blocking wait manages the core itself (the counter belongs to the lock's holder) */
    if (fruitless_tests && (!MP_UNLIKELY(mp_thread_multiple) || held_by(self_id())))
        fruitless_tests = 0;
    if (mp_idle_spin(spins))
        return;
    if (*spins == UINT32_MAX && may_sleep) {
        sleep_until_delivery();
        return;
    }
    if (*spins == policy.spin_polls) {          /* entering the yield stage */
        *spins = policy.spin_polls + 1;
        yield_start = policy.yield_ns == NEVER || !may_sleep ? 0 : now_ns();
        if (yield_start && policy.yield_ns == 0) {  /* MEMPI_WAIT=sleep: no yield stage */
            *spins = UINT32_MAX;
            sleep_until_delivery();
            return;
        }
    } else if (yield_start && now_ns() - yield_start >= policy.yield_ns) {
        *spins = UINT32_MAX;                    /* sleep from the next fruitless poll on */
    }
    yield_core();
}

int mp_poll_except(int world)
{
    return poll_all_except(world);
}

int mp_poll_except_holding(int world)
{
    if (MP_UNLIKELY(mp_thread_multiple))
        return poll_locked(world, 0);
    return poll_once(world);
}

void mp_idle(unsigned *spins)
{
    idle(spins, 0);
}

/* A wait nested inside an operation keeps the big lock, as inside a poll (see the top). */
void mp_idle_nested(unsigned *spins)
{
    if (MP_UNLIKELY(mp_thread_multiple) && held_by(self_id())) {
        polling++;
        idle(spins, 0);
        polling--;
        return;
    }
    idle(spins, 0);
}

/* For waits that only a packet delivered to this rank (or progress made because of one) can
 * end: these may sleep. */
void mp_idle_packet(unsigned *spins)
{
    idle(spins, 1);
}

static void wait_flag(atomic_int *flag, int may_sleep, unsigned spins)
{
    while (!atomic_load_explicit(flag, memory_order_acquire)) {
        if (poll_all() == 0)
            idle(&spins, may_sleep);
    }
}

void mp_wait_flag(atomic_int *flag)
{
    wait_flag(flag, 0, 0);             /* any flag: whoever sets it may not wake us */
}

int mp_wait_request_after(mp_request *req, unsigned spins)
{
    /* A generalized request is completed by a user thread, not by a packet: never sleep. */
    wait_flag(&req->done, req->kind != MP_REQ_GREQ, spins);
    return req->status.MPI_ERROR;
}

int mp_wait_request(mp_request *req)
{
    return mp_wait_request_after(req, 0);
}

static void report_sleeps(void)
{
    fprintf(stderr, "MemPI: rank %d slept %lu times, %lu sleeps ended by the timeout\n",
            mp_world.rank, atomic_load(&sleeps), atomic_load(&sleep_timeouts));
}

/* Decides the stages from MEMPI_WAIT, MEMPI_SPIN and the cores available to the job against
 * the ranks on this node (see the top of the file). */
void mp_wait_policy_init(void)
{
    int cores = mp_cores_available();
    int remote = sleeper == NULL || !sleeper->complete;   /* some arrivals ring nothing */
    int competing = mp_nodes_machine_size();   /* namespace nodes of one machine count too */
    int oversubscribed = cores > 0 && competing > cores;
    policy.oversubscribed = oversubscribed;
    int spin_given = mp_config_source("MEMPI_SPIN") != MP_CFG_FROM_DEFAULT;
    unsigned spin = spin_given || !oversubscribed ? mp_cfg.spin_count : OVERSUB_SPIN;
    policy.spin_forever = 0;
    policy.spin_polls = spin;
    policy.test_polls = oversubscribed ? (spin > 2 ? spin : 2) : 0;
    switch (mp_cfg.wait_policy) {
    case MP_WAIT_SPIN:
        policy.spin_forever = 1;
        policy.yield_ns = NEVER;
        policy.test_polls = 0;
        break;
    case MP_WAIT_YIELD:
        policy.yield_ns = NEVER;
        policy.test_polls = spin > 2 ? spin : 2;
        break;
    case MP_WAIT_SLEEP:
        policy.yield_ns = 0;
        policy.test_polls = spin > 2 ? spin : 2;
        break;
    default:
        policy.yield_ns = oversubscribed ? AUTO_YIELD_NS_OVERSUB : AUTO_YIELD_NS_OWN_CORE;
        break;
    }
    if (remote && policy.yield_ns != NEVER)
        policy.yield_ns = NEVER;    /* yield instead (a network wake-up is future work) */
    int sleeps = policy.yield_ns == NEVER ? MP_SLEEPS_NEVER :
                 policy.yield_ns == 0 ? MP_SLEEPS_OFTEN : MP_SLEEPS_RARELY;
    int cheap = sleeper ? sleeper->init(sleeps) : 1;
    if (mp_cfg.verbose)
        atexit(report_sleeps);
    if (mp_cfg.verbose && mp_world.rank == 0) {
        char spin_text[32], yield_text[48];
        if (policy.spin_forever)
            snprintf(spin_text, sizeof spin_text, "forever");
        else
            snprintf(spin_text, sizeof spin_text, "%u polls", policy.spin_polls);
        if (policy.spin_forever)
            snprintf(yield_text, sizeof yield_text, "never yield");
        else if (policy.yield_ns == NEVER)
            snprintf(yield_text, sizeof yield_text, "then yield");
        else
            snprintf(yield_text, sizeof yield_text, "then yield %.3f ms, then sleep",
                     (double)policy.yield_ns / 1e6);
        fprintf(stderr, "MemPI: waiting policy: spin %s, %s (%d ranks on these cores, %d "
                "cores%s%s); senders %s\n", spin_text, yield_text, competing, cores,
                oversubscribed ? ", oversubscribed" : "", remote ? ", remote ranks: no sleep" : "",
                policy.yield_ns == NEVER ? "never wake anyone" :
                cheap ? "check for sleepers without a fence (membarrier)" :
                        "fence before checking for sleepers");
    }
}

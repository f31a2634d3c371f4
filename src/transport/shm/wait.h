/* wait.h -- futex sleep and wake-up of local ranks, the sender's side inline.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The waiting policy (core/progress.c) decides *when* a blocked rank sleeps; this file and
 * wait.c decide *how*: a rank sleeps on the `futex` word of its rank area in the node segment,
 * and whoever delivers something to it (a packet into one of its rings, the last arrival of the
 * node barrier) wakes it.  The protocol and its memory orderings are documented once, in
 * wait.c; the sender's half is mp_shm_wake_check below, inline because it runs after every
 * packet.
 */
#ifndef MP_SHM_WAIT_H
#define MP_SHM_WAIT_H

#include "transport/shm/shm.h"

/* 1 while this process's senders must issue a seq_cst fence between publishing a cell and
 * reading the receiver's `sleeping` word; 0 once membarrier(GLOBAL_EXPEDITED) is registered,
 * when sleepers supply the fence for us (see wait.c). */
extern int mp_shm_wake_fence;

/* Sender's half of the lost-wake-up protocol; call right after the release store that
 * publishes a cell to local rank `peer` (world rank `world_peer`).  Costs a compiler barrier
 * and one relaxed load of a line that nobody writes while `peer` is awake. */
static inline void mp_shm_wake_check(int peer, int world_peer)
{
    if (MP_UNLIKELY(mp_shm_wake_fence))
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);   /* keep the compiler from hoisting the load */
    if (MP_UNLIKELY(atomic_load_explicit(&mp_shm_rank(peer)->sleeping, memory_order_relaxed)))
        mp_shm_wake(world_peer);
}

/* Chooses the fences, once, after the segment is mapped, from how often the job's policy
 * sleeps: NEVER (no fences at all), RARELY (membarrier: sleepers pay, senders do not; this
 * process registers for it), OFTEN (a seq_cst fence on both sides).  Returns 1 when sends
 * need no fence. */
enum { MP_SLEEPS_NEVER = 0, MP_SLEEPS_RARELY, MP_SLEEPS_OFTEN };
int  mp_shm_wait_init(int sleeps);

/* Sleeping in two steps, so that the caller can drop its own locks in between:
 * mp_shm_sleep_prepare announces this thread as a sleeper and checks, after the announcement,
 * that nothing has arrived; on MP_SLEEP_OK it stored the futex word's value in *word and the
 * caller must call mp_shm_sleep_commit(*word, ...), which sleeps until a sender wakes us or
 * `timeout_us` passes and withdraws the announcement.  Other answers withdraw it at once:
 *   MP_SLEEP_READY    a packet is waiting, or the watched word changed: poll, do not sleep;
 *   MP_SLEEP_BLOCKED  this rank waits for a peer to free a cell of a full ring or a chunk of
 *                     our pool, which does not wake us: yield instead of sleeping. */
enum { MP_SLEEP_READY = 0, MP_SLEEP_OK = 1, MP_SLEEP_BLOCKED = 2 };
int  mp_shm_sleep_prepare(unsigned *word);
int  mp_shm_sleep_commit(unsigned word, unsigned timeout_us);   /* 0 if it timed out */

/* Makes mp_shm_sleep_prepare also answer MP_SLEEP_READY when *word != old (the node
 * barrier's generation); word NULL stops watching. */
void mp_shm_watch(atomic_uint *word, unsigned old);

/* Wakes every local rank that sleeps (the last arrival of the node barrier). */
void mp_shm_wake_all(void);

/* Wakes this process's own sleeping threads (MPI_THREAD_MULTIPLE: a thread that completed
 * another thread's request). */
void mp_shm_wake_self(void);

/* Defined by the waiting policy (core/progress.c): mp_idle for waits that only a packet
 * delivered to this rank can end, so they may sleep.  To move to core.h next to mp_idle. */
void mp_idle_packet(unsigned *spins);

#endif

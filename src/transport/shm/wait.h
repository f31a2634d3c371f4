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

void mp_shm_wake(int world_peer);

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

/* The sleeper's operations (core.h, mp_sleeper): fences chosen once from how often the job's
 * policy sleeps; sleeping in two steps, prepare and commit, so that the caller can drop its
 * own locks in between.  mp_shm_sleeper (shm.h) bundles them for the progress engine. */
int  mp_shm_wait_init(int sleeps);
int  mp_shm_sleep_prepare(unsigned *word);
int  mp_shm_sleep_commit(unsigned word, unsigned timeout_us);   /* 0 if it timed out */

/* Makes mp_shm_sleep_prepare also answer MP_SLEEP_READY when *word != old (the node
 * barrier's generation); word NULL stops watching. */
void mp_shm_watch(atomic_uint *word, unsigned old);

/* Wakes world rank world_peer (a local rank) if it sleeps; every local sleeper (the last
 * arrival of the node barrier); this process's own sleeping threads (MPI_THREAD_MULTIPLE: a
 * thread that completed another thread's request). */
void mp_shm_wake_all(void);
void mp_shm_wake_self(void);

#endif

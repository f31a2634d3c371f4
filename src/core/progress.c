/* progress.c -- the progress engine and the waiting policy.  MemPI, BSD-3-Clause.
 *
 * One engine polls every transport and then the hooks registered by upper layers (schedules
 * of nonblocking collectives).  Blocking calls wait with mp_wait_flag / mp_wait_request: they
 * poll, and after MEMPI_SPIN fruitless polls start giving the core away with sched_yield, so
 * that with more ranks than cores the rank we wait for gets to run.  The policy `auto` yields
 * immediately after a short spin when local ranks outnumber the cores this process may use.
 * (Sleeping on a futex in the segment is the next step of this policy; see issue 8.)
 */
#include "core/core.h"
#include "transport/transport.h"
#include <sched.h>

#define MP_MAX_HOOKS 8
static mp_progress_hook hooks[MP_MAX_HOOKS];
static int nhooks;
static unsigned spin_limit = 4000;

int mp_thread_multiple;
pthread_mutex_t mp_big_lock = PTHREAD_MUTEX_INITIALIZER;

void mp_progress_register(mp_progress_hook hook)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == hook)
            return;
    if (nhooks == MP_MAX_HOOKS)
        mp_fatal("too many progress hooks");
    hooks[nhooks++] = hook;
}

int mp_progress(void)
{
    int events = mp_transports_poll();
    for (int i = 0; i < nhooks; i++)
        events += hooks[i]();
    return events;
}

/* Decides how long to spin before yielding, from MEMPI_WAIT, MEMPI_SPIN and the number of
 * cores available to this process (affinity mask) against the ranks on this node. */
void mp_wait_policy_init(void)
{
    cpu_set_t set;
    int cores = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = CPU_COUNT(&set);
    int oversubscribed = cores > 0 && mp_world.local_size > cores;
    switch (mp_cfg.wait_policy) {
    case MP_WAIT_SPIN:  spin_limit = ~0u; break;
    case MP_WAIT_YIELD: spin_limit = 0; break;
    case MP_WAIT_SLEEP: spin_limit = 0; break;
    default:            spin_limit = oversubscribed ? 16 : mp_cfg.spin_count; break;
    }
    if (mp_cfg.verbose && mp_world.rank == 0)
        fprintf(stderr, "MemPI: waiting policy: spin %u polls then yield (%d local ranks, %d cores)\n",
                spin_limit, mp_world.local_size, cores);
}

void mp_idle(unsigned *spins)
{
    if (*spins < spin_limit) {
        (*spins)++;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    if (mp_thread_multiple) {
        pthread_mutex_unlock(&mp_big_lock);
        sched_yield();
        pthread_mutex_lock(&mp_big_lock);
    } else {
        sched_yield();
    }
}

void mp_wait_flag(atomic_int *flag)
{
    unsigned spins = 0;
    while (!atomic_load_explicit(flag, memory_order_acquire)) {
        if (mp_progress() == 0)
            mp_idle(&spins);
    }
}

int mp_wait_request(mp_request *req)
{
    mp_wait_flag(&req->done);
    return req->status.MPI_ERROR;
}

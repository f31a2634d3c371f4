/* progress_thread.c -- MEMPI_ASYNC_PROGRESS: a thread that drives progress in the background.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Passive-target operations on a target reached by messages are applied by the target's
 * progress engine, which runs only inside MPI calls.  A target that computes for a long time
 * would hold its origins up; with MEMPI_ASYNC_PROGRESS=1 every rank runs this thread, which
 * polls while the application computes.  Targets on the origin's host need none (their
 * windows are reached by memory operations or single copy), so it is off by default.
 *
 * The thread makes the library multi-threaded whatever level the program asked for: the big
 * lock (core/progress.c) is switched on before the thread starts, and the thread takes it for
 * every poll.  Between fruitless polls it sleeps IDLE_NS, so an idle rank costs little CPU
 * while a busy target still answers within tens of microseconds.
 */
#include "rma/win.h"
#include <time.h>

#define IDLE_NS 20000L

static pthread_t thread;
static atomic_int running, stop;

static void *progress_main(void *arg)
{
    (void)arg;
    struct timespec idle = { 0, IDLE_NS };
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        if (mp_progress() == 0)
            nanosleep(&idle, NULL);
    }
    return NULL;
}

int mp_rma_async_start(void)
{
    if (!mp_cfg.async_progress)
        return MPI_SUCCESS;
    mp_thread_multiple = 1;
    if (pthread_create(&thread, NULL, progress_main, NULL) != 0)
        return mp_error_code(MPI_ERR_OTHER, "MEMPI_ASYNC_PROGRESS=1: cannot start the "
                             "progress thread");
    atomic_store_explicit(&running, 1, memory_order_relaxed);
    return MPI_SUCCESS;
}

void mp_rma_async_stop(void)
{
    if (!atomic_load_explicit(&running, memory_order_relaxed))
        return;
    atomic_store_explicit(&stop, 1, memory_order_release);
    int depth = mp_lock_release();   /* the thread may be waiting for the lock */
    pthread_join(thread, NULL);
    mp_lock_reacquire(depth);
    atomic_store_explicit(&running, 0, memory_order_relaxed);
}

/* coll.c -- start-up and shutdown of the collective layer.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Init registers the schedule progress hook that drives nonblocking collectives (the
 * MEMPI_COLL_* variables are rows of the configuration table, loaded before: select.c).
 * Per-communicator state is created lazily by the first collective and freed through
 * mp_coll_comm_free.
 */
#include "coll/coll_impl.h"

int mp_coll_init(void)
{
    mp_comm_on_release(mp_coll_comm_free);
    return mp_sched_init();
}

void mp_coll_finalize(void)
{
}

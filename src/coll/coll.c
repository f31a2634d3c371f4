/* coll.c -- start-up and shutdown of the collective layer.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Init parses the MEMPI_COLL_* variables (strictly: a bad value fails MPI_Init with a message
 * naming the variable) and registers the schedule progress hook that drives nonblocking
 * collectives.  Per-communicator state is created lazily by the first collective and freed
 * through mp_coll_comm_free.
 */
#include "coll/coll_impl.h"

int mp_coll_init(void)
{
    mp_comm_on_release(mp_coll_comm_free);
    int err = mp_coll_select_init();
    if (err != MPI_SUCCESS)
        return err;
    return mp_sched_init();
}

void mp_coll_finalize(void)
{
}

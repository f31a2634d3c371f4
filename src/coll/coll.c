/* coll.c -- start-up and shutdown of the collective layer.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Init first parses the MEMPI_COLL_* variables (strictly, with the other MEMPI_* ones:
 * a bad value fails MPI_Init with a message naming the variable), and once the processes are
 * connected registers the schedule progress hook that drives nonblocking collectives and the
 * release of per-communicator state.  That state is created lazily by the first collective
 * and freed through mp_coll_comm_free.
 */
#include "coll/coll_impl.h"

int mp_coll_config_load(void)
{
    return mp_coll_select_init();
}

int mp_coll_init(void)
{
    mp_comm_on_release(mp_coll_comm_free);
    return mp_sched_init();
}

void mp_coll_finalize(void)
{
}

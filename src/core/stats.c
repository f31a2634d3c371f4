/* stats.c -- what a run did (MEMPI_STATS).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Counters are plain per-process integers bumped on the protocol paths (a message is counted
 * once, by its sender, under the protocol that delivered it).  At MPI_Finalize every rank
 * sends its counters to rank 0 over the point-to-point layer, which prints job totals and,
 * with MEMPI_STATS=2, one line per rank.
 */
#include "core/core.h"

mp_stats mp_stat;

/* stats.c -- what a run did (MEMPI_STATS).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Counters are plain per-process integers bumped on the protocol paths (a message is counted
 * once, by its sender, under the protocol that delivered it); calls done in lanes count in
 * their stripe's block instead, and readers take the sum (mp_stat_field, mp_stats_total).
 * At MPI_Finalize every rank sends its counters to rank 0 over the point-to-point layer,
 * which prints job totals and, with MEMPI_STATS=2, one line per rank.
 */
#include "core/core.h"

mp_stats mp_stat;

/* The lanes' counters (core.h): a block per stripe, on cache lines of its own, written only by
 * the lane that holds the stripe (relaxed atomic loads and stores, no read-modify-write), and
 * added to mp_stat's when read.  A lane's decrement of a gauge (unexpected_msgs) may leave its
 * block below zero; the sum wraps back. */
static struct { mp_stats s; } __attribute__((aligned(MP_CACHELINE))) lane_blocks[MP_LANE_STRIPES];

mp_stats *mp_lane_stats(unsigned stripe)
{
    return &lane_blocks[stripe].s;
}

uint64_t mp_stat_field(size_t offset)
{
    uint64_t v = *(const uint64_t *)((const char *)&mp_stat + offset);
    for (int i = 0; i < MP_LANE_STRIPES; i++)
        v += __atomic_load_n((const uint64_t *)((const char *)&lane_blocks[i].s + offset),
                             __ATOMIC_RELAXED);
    return v;
}

void mp_stats_total(mp_stats *out)
{
    _Static_assert(sizeof(mp_stats) % sizeof(uint64_t) == 0, "mp_stats is all uint64_t");
    for (size_t off = 0; off < sizeof(mp_stats); off += sizeof(uint64_t))
        *(uint64_t *)((char *)out + off) = mp_stat_field(off);
}

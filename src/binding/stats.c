/* stats.c -- the MEMPI_STATS report at MPI_Finalize.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends its counters (core/stats.c) to rank 0 over the collective context of
 * MPI_COMM_WORLD; rank 0 prints job totals -- messages, bytes, MB/s and messages/s over the
 * time since MPI_Init, the share of bytes each protocol delivered (the papers' "Remote Write
 * availability rate" is the send-request share), the largest unexpected queue, the network
 * transport's buffer registrations (new ones, and registration cache hits) and the packets in
 * which it sent several messages queued behind flow control -- and, with
 * MEMPI_STATS=2, one line per rank.
 */
#include "binding/binding.h"
#include <string.h>

#define NSTAT (sizeof(mp_stats) / sizeof(uint64_t))

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_line(const char *who, const mp_stats *s, double secs)
{
    fprintf(stderr,
            "MemPI stats %s: %llu msgs, %llu bytes, %.2f MB/s, %.0f msgs/s over %.3f s; "
            "remote write %.1f%% of bytes (%llu msgs), eager %.1f%% (%llu), rendezvous %.1f%% (%llu); "
            "max unexpected %llu msgs / %llu bytes; "
            "net buffer registrations %llu new, %llu reused; "
            "net batches %llu of %llu msgs; "
            "one-sided %llu operations, %llu bytes\n",
            who, (unsigned long long)s->msgs_sent, (unsigned long long)s->bytes_sent,
            secs > 0 ? (double)s->bytes_sent / secs / 1e6 : 0.0,
            secs > 0 ? (double)s->msgs_sent / secs : 0.0, secs,
            pct(s->sendreq_bytes, s->bytes_sent), (unsigned long long)s->sendreq_msgs,
            pct(s->eager_bytes, s->bytes_sent), (unsigned long long)s->eager_msgs,
            pct(s->rndv_bytes, s->bytes_sent), (unsigned long long)s->rndv_msgs,
            (unsigned long long)s->unexpected_max_msgs, (unsigned long long)s->unexpected_max_bytes,
            (unsigned long long)s->net_mr_misses, (unsigned long long)s->net_mr_hits,
            (unsigned long long)s->net_batches, (unsigned long long)s->net_batched_msgs,
            (unsigned long long)s->rma_ops, (unsigned long long)s->rma_bytes);
}

void mp_stats_report(void)
{
    double secs = mp_wtime() - mp_world.wtime_base;
    mp_comm *w = mp_world.comm_world;
    mp_datatype *u64 = mp_datatype_get(MPI_UINT64_T);
    mp_stats mine;                         /* snapshot before the report's own traffic */
    mp_stats_total(&mine);
    if (w->rank != 0) {
        mp_send(&mine, NSTAT, u64, 0, 0x5747, w, MP_CTX_COLL, MP_MODE_STANDARD);
        return;
    }
    mp_stats total = mine, one;
    if (mp_cfg.stats >= 2)
        print_line("rank 0", &mine, secs);
    for (int r = 1; r < w->size; r++) {
        mp_recv(&one, NSTAT, u64, r, 0x5747, w, MP_CTX_COLL, MPI_STATUS_IGNORE);
        if (mp_cfg.stats >= 2) {
            char who[32];
            snprintf(who, sizeof who, "rank %d", r);
            print_line(who, &one, secs);
        }
        uint64_t *t = (uint64_t *)&total, *o = (uint64_t *)&one;
        for (size_t i = 0; i < NSTAT; i++) {
            if (&t[i] == &total.unexpected_max_msgs || &t[i] == &total.unexpected_max_bytes)
                t[i] = t[i] > o[i] ? t[i] : o[i];
            else
                t[i] += o[i];
        }
    }
    print_line("job", &total, secs);
}

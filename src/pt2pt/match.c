/* match.c -- MPI message matching: the posted-receive and unexpected-message queues.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Matching compares (context, source, tag), with MPI_ANY_SOURCE and MPI_ANY_TAG as wildcards
 * on the receive side only.  Both queues are searched from the head, so a receive matches the
 * earliest-arrived message and a message matches the earliest-posted receive: together with
 * the FIFO order of first packets on each track of a pair (proto.h) -- a context's messages
 * all travel on one track -- this is exactly MPI's non-overtaking rule.
 *
 * Every wire context has its own pair of queues (mp_mq, proto.h), since a receive can only
 * ever take a message of its own context: the order within a context is what MPI defines, and
 * there is none between contexts to keep.  So a communicator's matching costs what its own
 * queues hold, however many receives or unexpected messages other communicators (another
 * thread's, a library's) have queued.  The queues of a context exist from its first message
 * or receive on -- a message may arrive for a communicator this process has not finished
 * creating -- and stay (empty) when the communicator is freed, for the next one to get the id.
 */
#include "pt2pt/proto.h"
#include <stdlib.h>

mp_pt2pt_state mp_p2p;

mp_mq *mp_mq_page_in(int ctx)
{
    if ((unsigned)ctx >= MP_MQ_CTX_LIMIT)
        mp_fatal("protocol error: point-to-point on context %d, which no communicator may have "
                 "(limit %d)", ctx, MP_MQ_CTX_LIMIT);
    mp_mq **page = &mp_p2p.mq_pages[(unsigned)ctx / MP_MQ_PAGE];
    if (*page == NULL)
        *page = mp_calloc(MP_MQ_PAGE, sizeof **page);
    return &(*page)[(unsigned)ctx % MP_MQ_PAGE];
}

/* Only a count (for mp_wait_may_offer), kept per track on cache lines of their own: a
 * track's count changes only under its stripe or the big lock, which exclude each other, so
 * plain relaxed updates do, and lanes of different stripes share no line. */
static struct { atomic_int n; } __attribute__((aligned(MP_CACHELINE))) posted_count[MP_TRACKS];

static void count_posted(int ctx, int d)
{
    atomic_int *n = &posted_count[mp_track_index(ctx)].n;
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + d,
                          memory_order_relaxed);
}

int mp_posted_count(void)
{
    int sum = 0;
    for (unsigned i = 0; i < MP_TRACKS; i++)
        sum += atomic_load_explicit(&posted_count[i].n, memory_order_relaxed);
    return sum;
}

void mp_posted_append(mp_mq *q, mp_request *req)
{
    req->next = NULL;
    req->prev = q->posted_tail;
    if (q->posted_tail)
        q->posted_tail->next = req;
    else
        q->posted_head = req;
    q->posted_tail = req;
    count_posted(req->ctx, 1);
}

static void posted_unlink(mp_mq *q, mp_request *req)
{
    if (req->prev)
        req->prev->next = req->next;
    else
        q->posted_head = req->next;
    if (req->next)
        req->next->prev = req->prev;
    else
        q->posted_tail = req->prev;
    req->next = req->prev = NULL;
    count_posted(req->ctx, -1);
}

void mp_posted_remove(mp_request *req)
{
    posted_unlink(mp_mq_of(req->ctx), req);
}

/* Could a receive posted before `stop` (NULL: any posted receive) take a message from `src`
 * with tag `tag` on q's context?  Tags overlap when equal or either is MPI_ANY_TAG (`tag` may
 * be MPI_ANY_TAG for a receive asking about itself).  The rule behind SREQ eligibility and the
 * direct receive: if no earlier receive could, the source's first matching message is ours. */
int mp_posted_earlier_could_match(const mp_mq *q, int src, int tag, const mp_request *stop)
{
    for (const mp_request *r = q->posted_head; r && r != stop; r = r->next)
        if ((r->peer == src || r->peer == MPI_ANY_SOURCE) &&
            (r->tag == tag || r->tag == MPI_ANY_TAG || tag == MPI_ANY_TAG))
            return 1;
    return 0;
}

mp_request *mp_match_posted(mp_mq *q, int src, int tag)
{
    for (mp_request *r = q->posted_head; r; r = r->next)
        if (mp_source_tag_match(r->peer, r->tag, src, tag)) {
            posted_unlink(q, r);
            return r;
        }
    return NULL;
}

void mp_unexp_append(mp_mq *q, mp_unexp *u)
{
    u->next = NULL;
    u->prev = q->unexp_tail;
    if (q->unexp_tail)
        q->unexp_tail->next = u;
    else
        q->unexp_head = u;
    q->unexp_tail = u;
    mp_stat.unexpected_msgs++;
    mp_stat.unexpected_bytes += u->size;
    /* lanes take messages off the queues too, counting in blocks of their own */
    uint64_t msgs = mp_lanes_open() ? mp_stat_field(offsetof(mp_stats, unexpected_msgs))
                                    : mp_stat.unexpected_msgs;
    uint64_t bytes = mp_lanes_open() ? mp_stat_field(offsetof(mp_stats, unexpected_bytes))
                                     : mp_stat.unexpected_bytes;
    if (msgs > mp_stat.unexpected_max_msgs)
        mp_stat.unexpected_max_msgs = msgs;
    if (bytes > mp_stat.unexpected_max_bytes)
        mp_stat.unexpected_max_bytes = bytes;
    mp_t_event(MP_T_EVENT_UNEXPECTED, u->world_src, u->src, u->tag, u->ctx, u->size);
}

static void unexp_unlink(mp_mq *q, mp_unexp *u)
{
    if (u->prev)
        u->prev->next = u->next;
    else
        q->unexp_head = u->next;
    if (u->next)
        u->next->prev = u->prev;
    else
        q->unexp_tail = u->prev;
    u->next = u->prev = NULL;
}

void mp_unexp_remove(mp_mq *q, mp_unexp *u)
{
    unexp_unlink(q, u);
    mp_stat.unexpected_msgs--;
    mp_stat.unexpected_bytes -= u->size;
}

/* In a lane (binding/lane.c) the counters are the stripe's block, ls. */
void mp_unexp_remove_in_lane(mp_mq *q, mp_unexp *u, mp_stats *ls)
{
    unexp_unlink(q, u);
    mp_lane_stat_add(&ls->unexpected_msgs, (uint64_t)-1);
    mp_lane_stat_add(&ls->unexpected_bytes, (uint64_t)0 - u->size);
}

mp_unexp *mp_match_unexpected(mp_mq *q, int src, int tag, int remove)
{
    for (mp_unexp *u = q->unexp_head; u; u = u->next)
        if (mp_source_tag_match(src, tag, u->src, u->tag)) {
            if (remove)
                mp_unexp_remove(q, u);
            return u;
        }
    return NULL;
}

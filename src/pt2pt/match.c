/* match.c -- MPI message matching: the posted-receive and unexpected-message queues.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Matching compares (context, source, tag), with MPI_ANY_SOURCE and MPI_ANY_TAG as wildcards
 * on the receive side only.  Both queues are searched from the head, so a receive matches the
 * earliest-arrived message and a message matches the earliest-posted receive: together with
 * the per-pair FIFO order of first packets this is exactly MPI's non-overtaking rule.
 */
#include "pt2pt/proto.h"

mp_pt2pt_state mp_p2p;

void mp_posted_append(mp_request *req)
{
    req->next = NULL;
    req->prev = mp_p2p.posted_tail;
    if (mp_p2p.posted_tail)
        mp_p2p.posted_tail->next = req;
    else
        mp_p2p.posted_head = req;
    mp_p2p.posted_tail = req;
}

void mp_posted_remove(mp_request *req)
{
    if (req->prev)
        req->prev->next = req->next;
    else
        mp_p2p.posted_head = req->next;
    if (req->next)
        req->next->prev = req->prev;
    else
        mp_p2p.posted_tail = req->prev;
    req->next = req->prev = NULL;
}

/* Could a receive posted before `stop` (NULL: any posted receive) take a message from `src`
 * with tag `tag` on `ctx`?  Tags overlap when equal or either is MPI_ANY_TAG (`tag` may be
 * MPI_ANY_TAG for a receive asking about itself).  The rule behind SREQ eligibility and the
 * direct receive: if no earlier receive could, the source's first matching message is ours. */
int mp_posted_earlier_could_match(int ctx, int src, int tag, const mp_request *stop)
{
    for (const mp_request *q = mp_p2p.posted_head; q && q != stop; q = q->next)
        if (q->ctx == ctx && (q->peer == src || q->peer == MPI_ANY_SOURCE) &&
            (q->tag == tag || q->tag == MPI_ANY_TAG || tag == MPI_ANY_TAG))
            return 1;
    return 0;
}

mp_request *mp_match_posted(int ctx, int src, int tag)
{
    for (mp_request *r = mp_p2p.posted_head; r; r = r->next)
        if (mp_envelope_matches(r->ctx, r->peer, r->tag, ctx, src, tag)) {
            mp_posted_remove(r);
            return r;
        }
    return NULL;
}

void mp_unexp_append(mp_unexp *u)
{
    u->next = NULL;
    u->prev = mp_p2p.unexp_tail;
    if (mp_p2p.unexp_tail)
        mp_p2p.unexp_tail->next = u;
    else
        mp_p2p.unexp_head = u;
    mp_p2p.unexp_tail = u;
    mp_stat.unexpected_msgs++;
    mp_stat.unexpected_bytes += u->size;
    if (mp_stat.unexpected_msgs > mp_stat.unexpected_max_msgs)
        mp_stat.unexpected_max_msgs = mp_stat.unexpected_msgs;
    if (mp_stat.unexpected_bytes > mp_stat.unexpected_max_bytes)
        mp_stat.unexpected_max_bytes = mp_stat.unexpected_bytes;
    mp_t_event(MP_T_EVENT_UNEXPECTED, u->world_src, u->src, u->tag, u->ctx, u->size);
}

void mp_unexp_remove(mp_unexp *u)
{
    if (u->prev)
        u->prev->next = u->next;
    else
        mp_p2p.unexp_head = u->next;
    if (u->next)
        u->next->prev = u->prev;
    else
        mp_p2p.unexp_tail = u->prev;
    u->next = u->prev = NULL;
    mp_stat.unexpected_msgs--;
    mp_stat.unexpected_bytes -= u->size;
}

mp_unexp *mp_match_unexpected(int ctx, int src, int tag, int remove)
{
    for (mp_unexp *u = mp_p2p.unexp_head; u; u = u->next)
        if (mp_envelope_matches(ctx, src, tag, u->ctx, u->src, u->tag)) {
            if (remove)
                mp_unexp_remove(u);
            return u;
        }
    return NULL;
}

/* p2p_match.c -- unit test of the matching queues.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Checks the rules that make MPI's non-overtaking order hold: a message matches the
 * earliest-posted compatible receive; a receive matches the earliest-arrived compatible
 * message; wildcards apply on the receive side only; contexts never mix (each has its own
 * queues); removal keeps the queues consistent; the unexpected-queue statistics follow.
 */
#include "pt2pt/proto.h"
#include <stdio.h>
#include <stdlib.h>

static int failures;
#define EXPECT(cond) do { if (!(cond)) { printf("FAIL line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

static void *made[128];          /* every object the test allocates, freed at the end */
static int nmade;

static mp_request *posted(int ctx, int src, int tag)
{
    mp_request *r = calloc(1, sizeof *r);
    made[nmade++] = r;
    r->ctx = ctx;
    r->peer = src;
    r->tag = tag;
    mp_posted_append(mp_mq_of(ctx), r);
    return r;
}

static mp_unexp *arrived(int ctx, int src, int tag, size_t size)
{
    mp_unexp *u = calloc(1, sizeof *u);
    made[nmade++] = u;
    u->ctx = ctx;
    u->src = src;
    u->tag = tag;
    u->size = size;
    mp_unexp_append(mp_mq_of(ctx), u);
    return u;
}

int main(void)
{
    /* earliest compatible posted receive wins; wildcards match */
    mp_request *a = posted(0, MPI_ANY_SOURCE, 5);
    mp_request *b = posted(0, 1, MPI_ANY_TAG);
    mp_request *c = posted(0, 1, 5);
    EXPECT(mp_match_posted(mp_mq_of(0), 1, 5) == a);
    EXPECT(mp_match_posted(mp_mq_of(0), 1, 5) == b);
    EXPECT(mp_match_posted(mp_mq_of(0), 1, 5) == c);
    EXPECT(mp_match_posted(mp_mq_of(0), 1, 5) == NULL);
    EXPECT(mp_mq_of(0)->posted_head == NULL && mp_mq_of(0)->posted_tail == NULL);
    EXPECT(mp_posted_count() == 0);

    /* contexts never mix; a message's envelope has no wildcards */
    mp_request *d = posted(2, 0, 1);
    EXPECT(mp_match_posted(mp_mq_of(0), 0, 1) == NULL);
    EXPECT(mp_match_posted(mp_mq_of(3), 0, 1) == NULL);
    EXPECT(mp_match_posted(mp_mq_of(2), 0, 1) == d);

    /* removal from the middle keeps order */
    mp_request *e = posted(0, 0, 0), *f = posted(0, 0, 0), *g = posted(0, 0, 0);
    mp_posted_remove(f);
    EXPECT(mp_match_posted(mp_mq_of(0), 0, 0) == e);
    EXPECT(mp_match_posted(mp_mq_of(0), 0, 0) == g);

    /* unexpected: earliest compatible arrival, probe does not remove */
    mp_unexp *u1 = arrived(0, 3, 7, 10), *u2 = arrived(0, 2, 7, 20), *u3 = arrived(0, 3, 8, 30);
    EXPECT(mp_stat.unexpected_msgs == 3 && mp_stat.unexpected_bytes == 60);
    EXPECT(mp_match_unexpected(mp_mq_of(0), MPI_ANY_SOURCE, 8, 0) == u3);
    EXPECT(mp_match_unexpected(mp_mq_of(0), 2, MPI_ANY_TAG, 1) == u2);
    EXPECT(mp_match_unexpected(mp_mq_of(0), MPI_ANY_SOURCE, MPI_ANY_TAG, 1) == u1);
    EXPECT(mp_match_unexpected(mp_mq_of(1), MPI_ANY_SOURCE, MPI_ANY_TAG, 1) == NULL);
    EXPECT(mp_match_unexpected(mp_mq_of(0), 3, MPI_ANY_TAG, 1) == u3);
    EXPECT(mp_mq_of(0)->unexp_head == NULL && mp_stat.unexpected_msgs == 0 && mp_stat.unexpected_bytes == 0);
    EXPECT(mp_stat.unexpected_max_msgs == 3 && mp_stat.unexpected_max_bytes == 60);

    /* every context has its own queues: contexts on other pages of the table, entries of
     * one context interleaved with another's keep their order, and the posted count spans
     * them all */
    const int far = 3 * MP_MQ_PAGE + 7, farther = 40 * MP_MQ_PAGE + 1;
    mp_request *p1 = posted(far, 1, 9), *q1 = posted(farther, 1, 9);
    mp_request *p2 = posted(far, MPI_ANY_SOURCE, 9), *q2 = posted(farther, 1, MPI_ANY_TAG);
    EXPECT(mp_posted_count() == 4);
    EXPECT(mp_mq_of(far)->posted_head == p1 && mp_mq_of(far)->posted_tail == p2);
    EXPECT(mp_mq_of(far + 1)->posted_head == NULL);
    EXPECT(mp_posted_earlier_could_match(mp_mq_of(far), 2, 9, p2) == 0);
    EXPECT(mp_posted_earlier_could_match(mp_mq_of(far), 1, MPI_ANY_TAG, p2) == 1);
    EXPECT(mp_posted_earlier_could_match(mp_mq_of(farther), 1, 3, NULL) == 1);
    EXPECT(mp_match_posted(mp_mq_of(farther), 1, 3) == q2);
    EXPECT(mp_match_posted(mp_mq_of(far), 2, 9) == p2);
    EXPECT(mp_match_posted(mp_mq_of(farther), 1, 9) == q1);
    EXPECT(mp_match_posted(mp_mq_of(far), 1, 9) == p1);
    EXPECT(mp_posted_count() == 0 && mp_mq_of(far)->posted_head == NULL &&
           mp_mq_of(farther)->posted_tail == NULL);
    mp_unexp *v1 = arrived(far, 0, 1, 1), *w1 = arrived(farther, 0, 1, 2);
    mp_unexp *v2 = arrived(far, 0, 1, 3);
    EXPECT(mp_match_unexpected(mp_mq_of(farther), 0, 1, 1) == w1);
    EXPECT(mp_match_unexpected(mp_mq_of(farther), 0, 1, 1) == NULL);
    EXPECT(mp_match_unexpected(mp_mq_of(far), MPI_ANY_SOURCE, MPI_ANY_TAG, 1) == v1);
    EXPECT(mp_match_unexpected(mp_mq_of(far), 0, 1, 1) == v2);
    EXPECT(mp_stat.unexpected_msgs == 0);

    for (int i = 0; i < nmade; i++)
        free(made[i]);
    printf("%s\n", failures ? "p2p_match: FAILED" : "p2p_match: ok");
    return failures ? 1 : 0;
}

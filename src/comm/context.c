/* context.c -- context ids: per-parent pools of ids, refilled by a one-round agreement.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Each process keeps a mask of MP_CTX_IDS ids, bit set = free here.  Id i means wire contexts
 * 2i (point-to-point) and 2i+1 (collectives); id 0 is MPI_COMM_WORLD and id 1 MPI_COMM_SELF.
 * The one rule everything below keeps: at every process, no two live communicators (nor a
 * communicator and an id reserved or pooled for one) share an id.  Then a packet's (receiver,
 * context) names one communicator.  Communicators whose members are disjoint may share an id
 * (the colors of one split), since no process holds both.
 *
 * Pools: no agreement per creation.  A creation collective over *all* of a parent P -- dup,
 * idup, split, split_type, create, and on an intercommunicator also merge and the subset
 * forms -- takes its ids from a pool that P's members keep in step: every id in it was
 * claimed at every member of P by one agreement (below), and the members take from it in the
 * same order, because MPI makes them call P's collectives in the same order.  So every
 * member hands the k-th creation the same id, without a message.  A member that gets no
 * communicator (color MPI_UNDEFINED, outside create's group) takes the id all the same and
 * gives it back at once: it is then free at that member only, which is safe, since every
 * communicator that will hold the id excludes that member.  A pool is refilled, when a
 * creation finds it short, by an agreement over P that claims a block of ids (2, 4, 8 ... up
 * to BLOCK_MAX; only what the creation needs once the common free space is below LOW_SPACE).
 * The block sizes depend only on P's history, so the refills happen at the same creation on
 * every member.  Freed ids never go back to a pool: an id comes into one only from an
 * agreement, which sees every member's mask, so a member that has not yet freed an old
 * communicator keeps its id out.  The ids left in a pool return to the mask when P's own id
 * is released (MPI_Comm_free of P; every member of P then takes nothing more from it).
 *
 * Two pools per parent, one for blocking creations and one for MPI_Comm_idup: programs
 * interleave blocking and nonblocking collectives differently on different ranks (as they do
 * for collective tags, sched.c), and the order within each class is the same everywhere.  An
 * idup takes its tag in P's nonblocking collective sequence at the call, whether or not it
 * will need it.  Its ids may have to wait for a refill: idups waiting on a pool are queued in
 * call order and served in that order, and the first one that a refill leaves short starts
 * the next refill with its own tag.  Which idup refills, and which ids each gets, therefore
 * depend only on the order of the calls and on the refills' results (the same everywhere),
 * not on when a refill completes at this process.
 *
 * Creations that are not collective over a whole parent -- MPI_Comm_create_group (only the
 * group's members call it), MPI_Comm_create_from_group, MPI_Intercomm_create(_from_groups)
 * -- run an agreement for their own ids.  MPI_COMM_WORLD and MPI_COMM_SELF have pools like
 * any communicator.
 *
 * Agreements run over a binomial tree of their members, each round a reduction to the root
 * and a broadcast back (one "phase"), at most two phases per round:
 *   1. every member contributes its free mask minus the ids *reserved* here, and reserves
 *      speculatively the first SPEC ids of it at or after a point that depends only on the
 *      agreement (its parent's id, tag and round), which it contributes as a list.  The root
 *      has the AND of the masks and the intersection of the lists.  If the intersection holds
 *      enough ids, they are reserved at every member for this agreement: the root takes the
 *      block from it and the broadcast is final -- every member claims those ids and drops the
 *      rest of its reservation.  One round trip.
 *   2. Otherwise the root proposes candidates from the AND; every member drops its
 *      speculation, votes yes for each candidate still free and unreserved here, reserving
 *      it; the AND of the votes comes back and every member claims the candidates all voted
 *      for (if they are enough), drops the rest, and else starts a new round.
 * Safety: a reserved id is offered to no other agreement -- snapshots exclude it, other votes
 * refuse it, other speculations skip it -- so an id is claimed by one agreement only, and only
 * if every member reserved it for that one.
 * Liveness: an agreement never waits for another.  Speculative reservations are held while
 * the round waits for late members, but they only steer other agreements elsewhere: another
 * agreement's snapshot leaves them out, and one of its votes fails at most once per collision,
 * the next round's snapshot leaving them out too.  Vote reservations live through phase 2
 * only, which waits for nothing but votes that every member gives at once.  So a round fails
 * only when another agreement reserved a candidate at some member meanwhile; later rounds
 * start their picks at a pseudo-random point, so two agreements that collided once almost
 * never collide again.  (A protocol that held the whole mask for a one-phase round made
 * threads creating communicators at once across two nodes retry without end, and an agreement
 * waiting for a member stuck in a second agreement behind the first could never finish.)
 * Members speculate only while LOW_SPACE ids are free here, and an empty AND is reported as
 * exhaustion even when reservations of other agreements in flight caused it: near exhaustion
 * they are few.  Concurrent agreements (threads) start their speculation at different points,
 * since their tags or parents differ, so they rarely meet; when they do, phase 2 settles it.
 *
 * Trees.  An intracommunicator agreement runs over ranks[0..n-1] of its parent, rooted at
 * index 0; an intercommunicator agreement runs over both groups' trees, the root of the group
 * whose leader has the higher world rank hanging below the other root across a bridge (the
 * peer communicator of MPI_Intercomm_create, the intercommunicator itself for its pools, or
 * MPI_COMM_WORLD for MPI_Intercomm_create_from_groups).  Between a pair every round sends
 * mask, vote (up) and decision, result (down) in one order on one tag, and the receiver posts
 * them in the same order, so the single tag is unambiguous.  A blocking agreement uses the tag
 * its caller names; an idup's refill the idup's position in the parent's nonblocking
 * collective sequence (sched.c), so it composes with Ibarrier/Iallreduce... in any
 * interleaving the standard allows (an intercommunicator's also one in its hidden local
 * communicator's sequence).
 *
 * Driving.  A blocking agreement is advanced by its caller's wait (agree_blocking) and by the
 * progress hook; a nonblocking one by the hook alone, which finishes it.  Both are listed (so
 * a root avoids proposing another's candidate), and the list, the pools and every agreement's
 * state are touched only under the big lock (binding calls and the progress engine).
 *
 * Locking: ctx_lock protects the masks and the count of ids in use; it is never held while
 * communicating.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "datatype/datatype.h"

#define NWORDS (MP_CTX_IDS / 32)
enum {
    SPEC = 64,                        /* ids a member reserves speculatively per round */
    BLOCK_MAX = 32,                   /* ids one agreement claims at most (a pool's refill) */
    LOW_SPACE = 1024                  /* fewer free ids: no speculation, no spare ids */
};

static uint32_t free_mask[NWORDS];
static uint32_t reserved[NWORDS];     /* ids reserved here by an agreement in flight */
static int live_ids;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

static void pools_forget(int id);

void mp_ctx_init(void)
{
    memset(free_mask, 0xff, sizeof free_mask);
    free_mask[0] &= ~3u;              /* ids 0 and 1: MPI_COMM_WORLD, MPI_COMM_SELF */
    memset(reserved, 0, sizeof reserved);
    live_ids = 2;
}

static int is_set(const uint32_t *w, int id)
{
    return (w[id / 32] >> (id % 32)) & 1;
}

/* ---- the mask at this process: the steps of a round (also unit-tested) ---- */

void mp_ctx_snapshot(uint32_t *words)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < NWORDS; i++)
        words[i] = free_mask[i] & ~reserved[i];
    pthread_mutex_unlock(&ctx_lock);
}

int mp_ctx_reserve_run(int start, int max, int *ids)
{
    int got = 0, avail = 0;
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < NWORDS; i++)
        avail += __builtin_popcount(free_mask[i] & ~reserved[i]);
    for (int k = 0; avail >= LOW_SPACE && k < MP_CTX_IDS && got < max; k++) {
        int id = (start + k) % MP_CTX_IDS;
        if (is_set(free_mask, id) && !is_set(reserved, id)) {
            reserved[id / 32] |= 1u << (id % 32);
            ids[got++] = id;
        }
    }
    pthread_mutex_unlock(&ctx_lock);
    return got;
}

uint32_t mp_ctx_reserve(const int *ids, int count)
{
    uint32_t yes = 0;
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < count; i++)
        if (is_set(free_mask, ids[i]) && !is_set(reserved, ids[i])) {
            reserved[ids[i] / 32] |= 1u << (ids[i] % 32);
            yes |= 1u << i;
        }
    pthread_mutex_unlock(&ctx_lock);
    return yes;
}

void mp_ctx_settle(const int *ids, int count, int claim)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < count; i++) {
        uint32_t bit = 1u << (ids[i] % 32);
        reserved[ids[i] / 32] &= ~bit;
        if (claim) {
            free_mask[ids[i] / 32] &= ~bit;
            live_ids++;
        }
    }
    pthread_mutex_unlock(&ctx_lock);
}

int mp_ctx_exhausted_error(void)
{
    return mp_error_code(MPI_ERR_OTHER, "out of context ids: %d are in use (at most %d)",
                         mp_ctx_live(), MP_CTX_IDS);
}

static void release_id(int id)
{
    pthread_mutex_lock(&ctx_lock);
    if (!is_set(free_mask, id)) {
        free_mask[id / 32] |= 1u << (id % 32);
        live_ids--;
    }
    pthread_mutex_unlock(&ctx_lock);
}

void mp_ctx_release(int ctx)
{
    int id = ctx / 2;
    if (id < 2 || id >= MP_CTX_IDS)
        return;
    pools_forget(id);                 /* a parent's pools end with its id */
    release_id(id);
}

int mp_ctx_live(void)
{
    pthread_mutex_lock(&ctx_lock);
    int n = live_ids;
    pthread_mutex_unlock(&ctx_lock);
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Agreements (see the top)                                                                   */
/* ------------------------------------------------------------------------------------------ */
/* States: what the transfers now outstanding are. */
enum {
    AG_UP,                            /* receiving my children's masks and speculations */
    AG_UP_SENT,                       /* sending my subtree's to my parent */
    AG_DOWN_RECV,                     /* receiving the root's decision from my parent */
    AG_DOWN_FWD,                      /* sending it to my children */
    AG_VOTE_UP, AG_VOTE_SENT, AG_RESULT_RECV, AG_RESULT_FWD,   /* phase 2, the same way */
    AG_DONE
};
enum { MAX_TREE = 34 };               /* children of a binomial tree node + parent */
enum { DOWN_FINAL, DOWN_CAND };       /* the decision: ids claimed, or candidates to vote on */

/* Phase 1 up: a free mask (minus reservations) and a speculation, ANDed over a subtree. */
typedef struct up_msg {
    uint32_t words[NWORDS];
    int32_t nspec, spec[SPEC];
} up_msg;

/* Phase 1 down: FINAL (n ids claimed; n == 0: exhausted) or CAND (n candidates). */
typedef struct down_msg {
    int32_t kind, n, ids[BLOCK_MAX];
} down_msg;

/* A tree neighbour: a rank of a communicator, messages on one of its contexts. */
typedef struct tree_peer {
    mp_comm *comm;
    int rank, tag, offset;            /* offset: MP_CTX_COLL, or MP_CTX_PT2PT across a bridge */
} tree_peer;

typedef void (ag_done_fn)(void *arg, int err, const int *ids, int n);

/* One agreement in flight at this process (see the top). */
typedef struct agreement agreement;
struct agreement {
    agreement *next;
    mp_comm *parent, *local;          /* referenced until the agreement ends */
    int tag, round;
    int need, want;                   /* ids it must claim, and would like to */
    uint32_t seed;                    /* equal at all members: where speculation starts */
    int owned;                        /* blocking: its caller waits for it and finishes it */
    int has_up, nkids;
    tree_peer up, kids[MAX_TREE];
    int state, error;
    up_msg *mine;                     /* my mask and speculation, then my subtree's */
    up_msg *kid_up;                   /* nkids of them */
    int spec[SPEC], nspec;            /* my speculation: reserved here this round */
    down_msg down;
    uint32_t vote, voted;             /* the vote (then the AND); voted: reserved by mine */
    uint32_t kid_votes[MAX_TREE];
    mp_request *reqs[MAX_TREE];
    int nreqs;
    ag_done_fn *done;
    void *arg;
};

static agreement *agreements;
static int in_hook;
static int listed;                 /* agreements != NULL: the progress hook's gate */

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

static mp_datatype *bytes_dt(void)
{
    return mp_datatype_get(MPI_BYTE);
}

static void ag_note(agreement *a, int err)
{
    if (err && !a->error)
        a->error = err;
}

static void ag_send(agreement *a, const void *buf, size_t bytes, const tree_peer *p)
{
    mp_request *r = NULL;
    ag_note(a, mp_isend(buf, (MPI_Aint)bytes, bytes_dt(), p->rank, p->tag, p->comm,
                        p->offset, MP_MODE_STANDARD, &r));
    if (r)
        a->reqs[a->nreqs++] = r;
}

static void ag_recv(agreement *a, void *buf, size_t bytes, const tree_peer *p)
{
    mp_request *r = NULL;
    ag_note(a, mp_irecv(buf, (MPI_Aint)bytes, bytes_dt(), p->rank, p->tag, p->comm,
                        p->offset, &r));
    if (r)
        a->reqs[a->nreqs++] = r;
}

static void ag_send_kids(agreement *a, const void *buf, size_t bytes)
{
    for (int k = 0; k < a->nkids; k++)
        ag_send(a, buf, bytes, &a->kids[k]);
}

/* Reaps the finished transfers; 1 when none is left. */
static int ag_reqs_done(agreement *a)
{
    int j = 0;
    for (int i = 0; i < a->nreqs; i++) {
        if (mp_request_is_done(a->reqs[i]))
            ag_note(a, mp_wait(a->reqs[i], MPI_STATUS_IGNORE));
        else
            a->reqs[j++] = a->reqs[i];
    }
    a->nreqs = j;
    return j == 0;
}

/* Where this round's speculation (and the root's first pick) starts: equal at all members. */
static int ag_start(const agreement *a)
{
    return (int)(mix(a->seed ^ (uint32_t)a->round * 0x9e3779b9u) % MP_CTX_IDS);
}

/* Whether id is a poor candidate at this root: claimed or reserved here since the snapshot,
 * or proposed by another agreement outstanding here (which would likely win the vote). */
static int ag_taken_here(const agreement *a, int id)
{
    pthread_mutex_lock(&ctx_lock);
    int taken = !is_set(free_mask, id) || is_set(reserved, id);
    pthread_mutex_unlock(&ctx_lock);
    if (taken)
        return 1;
    for (const agreement *o = agreements; o; o = o->next)
        if (o != a && o->down.kind == DOWN_CAND && o->state != AG_DONE)
            for (int i = 0; i < o->down.n; i++)
                if (o->down.ids[i] == id)
                    return 1;
    return 0;
}

/* Phase 2 candidates from the agreed mask: up to `want` ids from this round's starting point
 * (round 0: where the speculation started; later rounds pseudo-random, wrapping), avoiding
 * ids taken here since the snapshot or proposed by other agreements outstanding at this root
 * if possible.  Sets down.n = 0 if fewer than `need` are free. */
static void ag_pick(agreement *a, const uint32_t *words, int want)
{
    int start = ag_start(a), got = 0, nfall = 0, fall[BLOCK_MAX];
    if (a->round > 0)
        start = (int)(mix((uint32_t)start ^ (uint32_t)mp_world.rank * 97u) % MP_CTX_IDS);
    for (int k = 0; k < MP_CTX_IDS && got < want; k++) {
        int id = (start + k) % MP_CTX_IDS;
        if (!is_set(words, id))
            continue;
        if (!ag_taken_here(a, id))
            a->down.ids[got++] = id;
        else if (nfall < BLOCK_MAX)
            fall[nfall++] = id;
    }
    for (int i = 0; got < a->need && i < nfall; i++)
        a->down.ids[got++] = fall[i];
    a->down.n = got >= a->need ? got : 0;
}

/* The root's decision at the end of phase 1. */
static void ag_decide(agreement *a)
{
    int avail = 0;
    for (int i = 0; i < NWORDS; i++)
        avail += __builtin_popcount(a->mine->words[i]);
    int want = avail < LOW_SPACE ? a->need : a->want;
    if (a->mine->nspec >= a->need) {
        a->down.kind = DOWN_FINAL;
        a->down.n = a->mine->nspec < want ? a->mine->nspec : want;
        memcpy(a->down.ids, a->mine->spec, sizeof(int) * (size_t)a->down.n);
    } else {
        ag_pick(a, a->mine->words, want);
        a->down.kind = a->down.n ? DOWN_CAND : DOWN_FINAL;   /* FINAL with none: exhausted */
    }
}

/* Drops my speculation, claiming those of its ids listed in ids[0..n-1]. */
static void ag_drop_spec(agreement *a, const int *ids, int n)
{
    int keep[SPEC], nkeep = 0, drop[SPEC], ndrop = 0;
    for (int i = 0; i < a->nspec; i++) {
        int listed_here = 0;
        for (int j = 0; j < n && !listed_here; j++)
            listed_here = ids[j] == a->spec[i];
        if (listed_here)
            keep[nkeep++] = a->spec[i];
        else
            drop[ndrop++] = a->spec[i];
    }
    mp_ctx_settle(keep, nkeep, 1);
    mp_ctx_settle(drop, ndrop, 0);
    a->nspec = 0;
}

/* Ends phase 2 at this process: candidates reserved by my vote are claimed if `claim` has
 * their bit, dropped otherwise. */
static void ag_drop_vote(agreement *a, uint32_t claim)
{
    int keep[BLOCK_MAX], nkeep = 0, drop[BLOCK_MAX], ndrop = 0;
    for (int i = 0; i < a->down.n; i++) {
        if (!(a->voted & (1u << i)))
            continue;
        if (claim & (1u << i))
            keep[nkeep++] = a->down.ids[i];
        else
            drop[ndrop++] = a->down.ids[i];
    }
    mp_ctx_settle(keep, nkeep, 1);
    mp_ctx_settle(drop, ndrop, 0);
    a->voted = 0;
}

static void ag_start_round(agreement *a)
{
    a->down.kind = -1;
    a->down.n = 0;
    a->voted = 0;
    mp_ctx_snapshot(a->mine->words);  /* before the speculation: phase 2 may pick those */
    a->nspec = mp_ctx_reserve_run(ag_start(a), SPEC, a->spec);
    a->mine->nspec = a->nspec;
    memcpy(a->mine->spec, a->spec, sizeof(int) * (size_t)a->nspec);
    for (int k = 0; k < a->nkids; k++)
        ag_recv(a, &a->kid_up[k], sizeof(up_msg), &a->kids[k]);
    a->state = AG_UP;
}

/* Folds my children's contributions into mine: AND of masks, intersection of lists. */
static void ag_fold_up(agreement *a)
{
    up_msg *m = a->mine;
    for (int k = 0; k < a->nkids; k++) {
        const up_msg *c = &a->kid_up[k];
        for (int i = 0; i < NWORDS; i++)
            m->words[i] &= c->words[i];
        int n = 0;
        for (int i = 0; i < m->nspec; i++) {
            int found = 0;
            for (int j = 0; j < c->nspec && j < SPEC && !found; j++)
                found = c->spec[j] == m->spec[i];
            if (found)
                m->spec[n++] = m->spec[i];
        }
        m->nspec = n;
    }
}

/* The decision has reached this process (and left for my children). */
static void ag_decided(agreement *a)
{
    if (a->down.kind == DOWN_FINAL) {
        ag_drop_spec(a, a->down.ids, a->down.n);   /* claims them: all are in my speculation */
        if (a->down.n == 0)           /* every member learns it: nothing left to try */
            ag_note(a, mp_ctx_exhausted_error());
        a->state = AG_DONE;
        return;
    }
    ag_drop_spec(a, NULL, 0);
    a->vote = a->voted = mp_ctx_reserve(a->down.ids, a->down.n);
    for (int k = 0; k < a->nkids; k++)
        ag_recv(a, &a->kid_votes[k], sizeof(uint32_t), &a->kids[k]);
    a->state = AG_VOTE_UP;
}

/* End of phase 2: claim the candidates all voted for if they are enough, else a new round.
 * The final list keeps their order, so it is the same at every member. */
static void ag_end_round(agreement *a)
{
    int n = 0;
    uint32_t all = a->error ? 0 : a->vote;
    if (__builtin_popcount(all) < a->need)
        all = 0;
    ag_drop_vote(a, all);
    if (a->error) {
        a->state = AG_DONE;
        return;
    }
    if (all) {
        for (int i = 0; i < a->down.n; i++)
            if (all & (1u << i))
                a->down.ids[n++] = a->down.ids[i];
        a->down.n = n;
        a->down.kind = DOWN_FINAL;
        a->state = AG_DONE;
        return;
    }
    a->round++;
    ag_start_round(a);
}

/* A transfer failed: nothing sensible to agree on; whatever is reserved here goes back. */
static void ag_abandon(agreement *a)
{
    ag_drop_spec(a, NULL, 0);
    ag_drop_vote(a, 0);
    a->down.kind = DOWN_FINAL;
    a->down.n = 0;
    a->state = AG_DONE;
}

/* Moves one agreement on as far as it goes without waiting. */
static void ag_advance(agreement *a)
{
    while (a->state != AG_DONE && ag_reqs_done(a)) {
        if (a->error) {
            ag_abandon(a);
            break;
        }
        switch (a->state) {
        case AG_UP:
            ag_fold_up(a);
            if (a->has_up) {
                ag_send(a, a->mine, sizeof(up_msg), &a->up);
                a->state = AG_UP_SENT;
            } else {
                ag_decide(a);
                ag_send_kids(a, &a->down, sizeof a->down);
                a->state = AG_DOWN_FWD;
            }
            break;
        case AG_UP_SENT:
            ag_recv(a, &a->down, sizeof a->down, &a->up);
            a->state = AG_DOWN_RECV;
            break;
        case AG_DOWN_RECV:
            ag_send_kids(a, &a->down, sizeof a->down);
            a->state = AG_DOWN_FWD;
            break;
        case AG_DOWN_FWD:
            ag_decided(a);
            break;
        case AG_VOTE_UP:
            for (int k = 0; k < a->nkids; k++)
                a->vote &= a->kid_votes[k];
            if (a->has_up) {
                ag_send(a, &a->vote, sizeof a->vote, &a->up);
                a->state = AG_VOTE_SENT;
            } else {
                ag_send_kids(a, &a->vote, sizeof a->vote);
                a->state = AG_RESULT_FWD;
            }
            break;
        case AG_VOTE_SENT:
            ag_recv(a, &a->vote, sizeof a->vote, &a->up);
            a->state = AG_RESULT_RECV;
            break;
        case AG_RESULT_RECV:
            ag_send_kids(a, &a->vote, sizeof a->vote);
            a->state = AG_RESULT_FWD;
            break;
        case AG_RESULT_FWD:
            ag_end_round(a);
            break;
        }
    }
}

static void ag_finish(agreement *a)
{
    int ids[BLOCK_MAX], n = a->error ? 0 : a->down.n;
    memcpy(ids, a->down.ids, sizeof(int) * (size_t)n);
    mp_comm *parent = a->parent, *local = a->local;
    ag_done_fn *done = a->done;
    void *arg = a->arg;
    int err = a->error;
    free(a->mine);
    free(a->kid_up);
    free(a);
    done(arg, err, ids, n);           /* may start another agreement */
    mp_comm_release(parent);
    if (local)
        mp_comm_release(local);
}

/* Progress hook: advances every outstanding agreement, finishes the completed nonblocking
 * ones (a blocking one is finished by its caller). */
static int ag_progress(void)
{
    if (in_hook || !agreements)
        return 0;
    in_hook = 1;
    int events = 0;
    agreement **pp = &agreements;
    while (*pp) {
        agreement *a = *pp;
        int was_done = a->state == AG_DONE;
        ag_advance(a);
        if (a->state == AG_DONE && !a->owned) {
            *pp = a->next;
            ag_finish(a);
            events++;
            continue;
        }
        events += a->state == AG_DONE && !was_done;
        pp = &a->next;
    }
    listed = agreements != NULL;
    in_hook = 0;
    return events;
}

/* Binomial tree over ranks[0..n-1] of comm (ranks NULL: comm's ranks 0..n-1) rooted at index
 * 0, this process at index me: my parent clears my lowest set bit, my children add the
 * powers of two below it. */
static void ag_tree(agreement *a, mp_comm *comm, const int *ranks, int n, int me, int tag)
{
    int low = me ? me & -me : 1 << 30;
    if (me) {
        a->has_up = 1;
        a->up = (tree_peer){ comm, ranks ? ranks[me - low] : me - low, tag, MP_CTX_COLL };
    }
    for (int m = 1; m < low && me + m < n; m <<= 1)
        a->kids[a->nkids++] = (tree_peer){ comm, ranks ? ranks[me + m] : me + m, tag, MP_CTX_COLL };
}

/* Joins the other group's tree at the roots: the root that comes later in the order of all
 * processes (mp_procs_before: world rank within one job) hangs below the other, so both roots
 * decide alike, also across jobs.  Only a root's `other` is meaningful. */
static void ag_bridge(agreement *a, int me, tree_peer other)
{
    if (me != 0)
        return;
    const mp_comm *c = other.comm;
    int other_world = c->is_inter ? c->remote_world[other.rank] : c->world[other.rank];
    if (mp_procs_before(mp_world.rank, other_world)) {
        a->kids[a->nkids++] = other;
    } else {
        a->has_up = 1;
        a->up = other;
    }
}

/* Starts the first round and lists the agreement, unless a nonblocking one is over at once
 * (a communicator of one process) and we are not inside the hook: then it is finished. */
static void ag_launch(agreement *a)
{
    static int registered;
    if (!registered) {
        mp_progress_register_gated(ag_progress, &listed);   /* idle polls skip it */
        registered = 1;
    }
    a->mine = mp_malloc(sizeof(up_msg));
    a->kid_up = mp_malloc(sizeof(up_msg) * (size_t)(a->nkids ? a->nkids : 1));
    ag_start_round(a);
    int was = in_hook;
    in_hook = 1;
    ag_advance(a);                    /* leaves send their contribution now */
    in_hook = was;
    if (a->state == AG_DONE && !was && !a->owned) {
        ag_finish(a);
        return;
    }
    a->next = NULL;                   /* (if done inside the hook, the hook finishes it) */
    agreement **pp = &agreements;
    while (*pp)
        pp = &(*pp)->next;
    *pp = a;
    listed = 1;
}

static agreement *ag_new(mp_comm *parent, int need, int want, int tag, uint32_t seed)
{
    agreement *a = mp_calloc(1, sizeof *a);
    a->parent = parent;
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    a->tag = tag;
    a->need = need;
    a->want = want < need ? need : want > BLOCK_MAX ? BLOCK_MAX : want;
    a->seed = seed;
    a->down.kind = -1;
    return a;
}

/* Agreement over all of an intracommunicator, or over both groups of an intercommunicator
 * (messages on its hidden local communicator with local_tag, the leaders meeting on the
 * intercommunicator with tag). */
static agreement *ag_over(mp_comm *comm, int need, int want, int tag, int local_tag)
{
    agreement *a = ag_new(comm, need, want, tag,
                          mix((uint32_t)comm->ctx * 2654435761u ^ (uint32_t)tag));
    if (!comm->is_inter) {
        ag_tree(a, comm, NULL, comm->size, comm->rank, tag);
        return a;
    }
    mp_comm *local = mp_intercomm_local(comm);
    a->local = local;
    atomic_fetch_add_explicit(&local->refs, 1, memory_order_relaxed);
    ag_tree(a, local, NULL, local->size, local->rank, local_tag);
    ag_bridge(a, local->rank, (tree_peer){ comm, 0, tag, MP_CTX_COLL });
    return a;
}

/* ---- blocking agreements ---- */

typedef struct blocking_result {
    int err, n, ids[BLOCK_MAX];
} blocking_result;

static void blocking_done(void *arg, int err, const int *ids, int n)
{
    blocking_result *r = arg;
    r->err = err;
    r->n = n;
    memcpy(r->ids, ids, sizeof(int) * (size_t)n);
}

/* Runs an agreement to its end in this call: the ids claimed go to ids[] (*n of them).  The
 * wait advances it itself as well as through the progress hook, which may be gated off or be
 * this call's caller. */
static int agree_blocking(agreement *a, int *ids, int *n)
{
    blocking_result r = { MPI_SUCCESS, 0, { 0 } };
    a->owned = 1;
    a->done = blocking_done;
    a->arg = &r;
    ag_launch(a);
    unsigned spins = 0;
    for (;;) {
        int events = mp_poll_except(-1);
        ag_advance(a);
        if (a->state == AG_DONE)
            break;
        if (events == 0)
            mp_idle_packet(&spins);
    }
    for (agreement **pp = &agreements; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    listed = agreements != NULL;
    ag_finish(a);
    memcpy(ids, r.ids, sizeof(int) * (size_t)r.n);
    *n = r.n;
    return r.err;
}

/* Claims exactly `count` ids through a blocking agreement; ctx_out gets wire contexts. */
static int agree_exact(agreement *a, int count, int *ctx_out)
{
    int ids[BLOCK_MAX], n = 0, err = agree_blocking(a, ids, &n);
    if (err)
        return err;
    for (int i = 0; i < n; i++) {
        if (i < count)
            ctx_out[i] = 2 * ids[i];
        else
            release_id(ids[i]);       /* (want == count: never more) */
    }
    return MPI_SUCCESS;
}

int mp_ctx_agree(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                 int *ctx_out)
{
    agreement *a = ag_new(parent, count, count, tag,
                          mix((uint32_t)parent->ctx * 2654435761u ^ (uint32_t)tag));
    ag_tree(a, parent, ranks, n, me, tag);
    return agree_exact(a, count, ctx_out);
}

int mp_ctx_agree_bridged(mp_comm *local, const int *ranks, int me, int tag,
                         const mp_ctx_bridge *b, int count, int *ctx_out)
{
    /* the seed depends on nothing but the tree tag: both groups' locals have other ids */
    agreement *a = ag_new(local, count, count, tag, mix((uint32_t)tag));
    ag_tree(a, local, ranks, local->size, me, tag);
    ag_bridge(a, me, (tree_peer){ b->comm, b->peer, b->tag, b->offset });
    return agree_exact(a, count, ctx_out);
}

/* ------------------------------------------------------------------------------------------ */
/* Pools (see the top)                                                                        */
/* ------------------------------------------------------------------------------------------ */
enum { POOL_BLOCKING, POOL_NONBLOCKING };
enum { POOL_CAP = BLOCK_MAX + 2 };    /* a refill lands on at most need - 1 leftover ids */

/* A nonblocking creation waiting for its ids. */
typedef struct take take;
struct take {
    take *next;
    int need, tag, local_tag;
    mp_ctx_done_fn *done;
    void *arg;
};

typedef struct pool pool;
struct pool {
    pool *next;                       /* hash chain */
    int id, cls;                      /* the parent's id; POOL_BLOCKING or POOL_NONBLOCKING */
    int ids[POOL_CAP], n;             /* claimed here and at every member, handed out in order */
    int grow;                         /* ids the next refill asks for */
    mp_comm *parent;                  /* (each waiting creation holds a reference on it) */
    take *head, *tail;                /* nonblocking: waiting creations, in call order */
    int refilling;                    /* an agreement for this pool is in flight */
    int closed;                       /* the parent's id went back: end once idle */
};

enum { POOL_HASH = 256 };
static pool *pool_hash[POOL_HASH];

static pool *pool_of(mp_comm *parent, int cls)
{
    int id = parent->ctx / 2;
    pool **pp = &pool_hash[id % POOL_HASH];
    for (pool *p = *pp; p; p = p->next)
        if (p->id == id && p->cls == cls)
            return p;
    pool *p = mp_calloc(1, sizeof *p);
    p->id = id;
    p->cls = cls;
    p->grow = 2;
    p->parent = parent;
    p->next = *pp;
    *pp = p;
    return p;
}

/* Ends a closed pool that nothing waits on: its ids go back to the mask. */
static void pool_end_if_idle(pool *p)
{
    if (!p->closed || p->refilling || p->head)
        return;
    for (int i = 0; i < p->n; i++)
        release_id(p->ids[i]);
    free(p);
}

/* The parent whose id this was is gone (MPI_Comm_free, or a creation that failed). */
static void pools_forget(int id)
{
    pool **pp = &pool_hash[id % POOL_HASH];
    while (*pp) {
        pool *p = *pp;
        if (p->id != id) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        p->closed = 1;
        pool_end_if_idle(p);
    }
}

static void pool_append(pool *p, const int *ids, int n)
{
    for (int i = 0; i < n; i++) {
        if (p->n < POOL_CAP)
            p->ids[p->n++] = ids[i];
        else
            release_id(ids[i]);       /* (cannot happen: a refill asks for what fits) */
    }
}

/* Takes `need` ids from the front of the pool as wire contexts. */
static void pool_pop(pool *p, int need, int *ctx)
{
    for (int i = 0; i < need; i++)
        ctx[i] = 2 * p->ids[i];
    p->n -= need;
    memmove(p->ids, p->ids + need, sizeof(int) * (size_t)p->n);
}

/* What the next refill asks for: the shortfall, rounded up to the growing block size. */
static int pool_want(pool *p, int shortfall)
{
    int want = p->grow > shortfall ? p->grow : shortfall;
    if (p->grow < BLOCK_MAX)
        p->grow *= 2;
    return want;
}

int mp_ctx_take(mp_comm *parent, int count, int *ctx_out)
{
    pool *p = pool_of(parent, POOL_BLOCKING);
    if (p->n < count) {
        int shortfall = count - p->n, ids[BLOCK_MAX], n = 0;
        agreement *a = ag_over(parent, shortfall, pool_want(p, shortfall), MP_TAG_CTX_REDUCE,
                               MP_TAG_CTX_REDUCE);
        int err = agree_blocking(a, ids, &n);
        if (err)
            return err;
        pool_append(p, ids, n);
    }
    pool_pop(p, count, ctx_out);
    return MPI_SUCCESS;
}

static void pool_refill(pool *p);

/* Serves waiting creations in call order while the pool has their ids; the first one left
 * short starts the next refill. */
static void pool_serve(pool *p)
{
    while (p->head && !p->refilling) {
        take *t = p->head;
        if (p->n < t->need) {
            pool_refill(p);
            return;
        }
        int ctx[2] = { -1, -1 };
        pool_pop(p, t->need, ctx);
        p->head = t->next;
        if (!p->head)
            p->tail = NULL;
        t->done(t->arg, MPI_SUCCESS, ctx);
        mp_comm_release(p->parent);   /* the take's reference */
        free(t);
    }
    pool_end_if_idle(p);
}

static void pool_refilled(void *arg, int err, const int *ids, int n)
{
    pool *p = arg;
    p->refilling = 0;
    if (err) {                        /* the same at every member: the head fails */
        take *t = p->head;
        p->head = t->next;
        if (!p->head)
            p->tail = NULL;
        int ctx[2] = { -1, -1 };
        t->done(t->arg, err, ctx);
        mp_comm_release(p->parent);
        free(t);
    }
    pool_append(p, ids, n);
    pool_serve(p);
}

/* Starts the refill for the head of the queue, on the tags it took at its call. */
static void pool_refill(pool *p)
{
    take *t = p->head;
    int shortfall = t->need - p->n;
    agreement *a = ag_over(p->parent, shortfall, pool_want(p, shortfall), t->tag, t->local_tag);
    a->done = pool_refilled;
    a->arg = p;
    p->refilling = 1;
    ag_launch(a);                     /* may finish at once (one process): pool_refilled */
}

void mp_ctx_take_start(mp_comm *parent, int count, mp_ctx_done_fn *done, void *arg)
{
    take *t = mp_calloc(1, sizeof *t);
    t->need = count;
    t->tag = mp_coll_nonblocking_tag(parent);    /* at the call, needed or not */
    if (parent->is_inter)
        t->local_tag = mp_coll_nonblocking_tag(mp_intercomm_local(parent));
    t->done = done;
    t->arg = arg;
    pool *p = pool_of(parent, POOL_NONBLOCKING);
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    if (p->tail)
        p->tail->next = t;
    else
        p->head = t;
    p->tail = t;
    pool_serve(p);
}

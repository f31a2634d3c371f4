/* context.c -- context ids: a bitmask of free ids agreed with a bitwise AND.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Each process keeps a mask of MP_CTX_IDS ids, bit set = free here.  Id i means wire contexts
 * 2i (point-to-point) and 2i+1 (collectives); id 0 is MPI_COMM_WORLD and id 1 MPI_COMM_SELF.
 * With 32768 ids, tens of thousands of communicators can be live at once.
 *
 * Every agreement -- blocking (MPI_Comm_dup, split, create, intercommunicators) or
 * nonblocking (MPI_Comm_idup) -- runs the same rounds over a binomial tree of its members,
 * each round in two phases, each phase a reduction to the root and a broadcast back:
 *   1. every member contributes its free mask minus the ids *reserved* here (below); the root
 *      picks candidate id(s) from the AND and broadcasts them;
 *   2. every member votes yes if the candidates are still free and not reserved here -- and
 *      then reserves them; the AND of the votes is broadcast; all yes: every member claims
 *      the ids (a member with claim == 0 -- split with MPI_UNDEFINED -- only takes part);
 *      otherwise the reservations are dropped and a new round starts.
 * Safety: a reserved id is offered to no other agreement -- snapshots exclude it, other votes
 * refuse it -- so an id is claimed by one agreement only, and only if every member reserved it
 * for that one.
 * Liveness: nothing is held while waiting for other members.  A reservation lives only
 * through phase 2 of one round, and phase 2 waits for nothing but votes, which every member
 * gives at once (it already contributed to phase 1).  So a round fails only when another
 * agreement reserved the same candidate at some member in the meantime; the first round picks
 * the lowest id that the root has not seen taken or proposed meanwhile, later rounds the
 * lowest at or after a pseudo-random point, so two agreements that collided once almost
 * never collide again.  (The protocol this replaced took the whole mask for a one-phase round
 * and made everyone retry when a member's mask was taken by another thread: three threads
 * creating communicators at once across two nodes retried 100,000 times a second without end,
 * and an agreement waiting for a member that was itself stuck in a second agreement behind the
 * first could never finish.)  An empty AND is reported as exhaustion even if reservations
 * caused it: they are few and short-lived.
 *
 * Trees.  An intracommunicator agreement runs over ranks[0..n-1] of its parent, rooted at
 * index 0; an intercommunicator agreement runs over both groups' trees, the root of the group
 * whose leader has the higher world rank hanging below the other root across a bridge (the
 * peer communicator of MPI_Intercomm_create, the intercommunicator itself, or MPI_COMM_WORLD
 * for MPI_Intercomm_create_from_groups).  Between a pair every round sends mask, vote (up)
 * and candidates, result (down) in one order on one tag, and the receiver posts them in the
 * same order, so the single tag is unambiguous.  A blocking agreement uses the tag its caller
 * names; a nonblocking one the call's position in the parent's nonblocking collective
 * sequence (sched.c), so it composes with Ibarrier/Iallreduce... in any interleaving the
 * standard allows (an intercommunicator's also use its hidden local communicator).
 *
 * Driving.  A blocking agreement is advanced by its caller's wait (agree_blocking) and by the
 * progress hook; a nonblocking one by the hook alone, which finishes it.  Both are listed (so
 * a root avoids proposing another's candidate), and the list, like every agreement's state,
 * is touched only under the big lock (binding calls and the progress engine).
 *
 * Locking: ctx_lock protects the masks and the live count; it is never held while
 * communicating.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "datatype/datatype.h"

#define NWORDS (MP_CTX_IDS / 32)
enum { PICK_EXHAUSTED = -2 };

static uint32_t free_mask[NWORDS];
static uint32_t reserved[NWORDS];     /* ids an agreement voted for here */
static int live_ids;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;


void mp_ctx_init(void)
{
    memset(free_mask, 0xff, sizeof free_mask);
    free_mask[0] &= ~3u;              /* ids 0 and 1: MPI_COMM_WORLD, MPI_COMM_SELF */
    memset(reserved, 0, sizeof reserved);
    live_ids = 2;
}

/* ---- the mask at this process: the steps of a round (also unit-tested) ---- */

void mp_ctx_snapshot(uint32_t *words)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < NWORDS; i++)
        words[i] = free_mask[i] & ~reserved[i];
    pthread_mutex_unlock(&ctx_lock);
}

int mp_ctx_reserve(const int *ids, int count)
{
    int yes = 1;
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < count; i++) {
        uint32_t bit = 1u << (ids[i] % 32);
        yes = yes && (free_mask[ids[i] / 32] & bit) && !(reserved[ids[i] / 32] & bit);
    }
    for (int i = 0; yes && i < count; i++)
        reserved[ids[i] / 32] |= 1u << (ids[i] % 32);
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
    return mp_error_code(MPI_ERR_OTHER, "out of context ids: %d communicators are live "
                         "(at most %d)", mp_ctx_live(), MP_CTX_IDS);
}

void mp_ctx_release(int ctx)
{
    int id = ctx / 2;
    if (id < 2 || id >= MP_CTX_IDS)
        return;
    pthread_mutex_lock(&ctx_lock);
    if (!(free_mask[id / 32] & (1u << (id % 32)))) {
        free_mask[id / 32] |= 1u << (id % 32);
        live_ids--;
    }
    pthread_mutex_unlock(&ctx_lock);
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
    AG_MASK_UP,                       /* receiving my children's masks */
    AG_MASK_SENT,                     /* sending my subtree's AND to my parent */
    AG_CAND_RECV,                     /* receiving the candidates from my parent */
    AG_CAND_FWD,                      /* sending them to my children */
    AG_VOTE_UP, AG_VOTE_SENT, AG_RESULT_RECV, AG_RESULT_FWD,   /* the same for the votes */
    AG_DONE
};
enum { MAX_TREE = 34 };               /* children of a binomial tree node + parent */

/* A tree neighbour: a rank of a communicator, messages on one of its contexts. */
typedef struct tree_peer {
    mp_comm *comm;
    int rank, tag, offset;            /* offset: MP_CTX_COLL, or MP_CTX_PT2PT across a bridge */
} tree_peer;

/* One agreement in flight at this process (see the top). */
typedef struct agreement agreement;
struct agreement {
    agreement *next;
    mp_comm *parent, *local;          /* referenced until the agreement ends */
    int tag, count, round;
    int claim;                        /* 0: take part without claiming the ids */
    int owned;                        /* blocking: its caller waits for it and finishes it */
    int has_up, nkids;
    tree_peer up, kids[MAX_TREE];
    int state, error;
    uint32_t *words;                  /* my mask, then the AND of my subtree */
    uint32_t *kid_words;              /* nkids masks */
    int cand[2], vote, kid_votes[MAX_TREE];
    int reserved;                     /* the candidates are reserved here (this round) */
    mp_request *reqs[MAX_TREE];
    int nreqs;
    mp_ctx_done_fn *done;
    void *arg;
};

static agreement *agreements;
static int in_hook;
static int listed;                 /* agreements != NULL: the progress hook's gate */

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

/* Whether id is a poor candidate at this root: claimed or reserved here since the snapshot,
 * or proposed by another agreement outstanding here (which would likely win the vote). */
static int ag_taken_here(const agreement *a, int id)
{
    pthread_mutex_lock(&ctx_lock);
    uint32_t bit = 1u << (id % 32);
    int taken = !(free_mask[id / 32] & bit) || (reserved[id / 32] & bit);
    pthread_mutex_unlock(&ctx_lock);
    if (taken)
        return 1;
    for (const agreement *o = agreements; o; o = o->next)
        if (o != a && (o->cand[0] == id || (o->count > 1 && o->cand[1] == id)))
            return 1;
    return 0;
}

/* Candidates for this round from the agreed mask: the lowest free ids, or from round 1 on the
 * lowest at or after a pseudo-random start (wrapping).  Ids taken here since the snapshot or
 * proposed by other agreements outstanding at this root are avoided if possible (several
 * idups started together would otherwise all propose the same lowest id and all but one
 * retry).  cand[0] = PICK_EXHAUSTED if there are not enough. */
static void ag_pick(agreement *a, const uint32_t *words)
{
    int start = 0, got = 0, nfall = 0, fall[2] = { -1, -1 };
    if (a->round > 0) {
        uint32_t x = (uint32_t)a->tag * 2654435761u ^ (uint32_t)a->parent->ctx * 40503u ^
                     (uint32_t)a->round * 0x9e3779b9u ^ (uint32_t)mp_world.rank * 97u;
        x ^= x >> 15; x *= 0x2c1b3c6du; x ^= x >> 12;
        start = (int)(x % MP_CTX_IDS);
    }
    for (int k = 0; k < MP_CTX_IDS && got < a->count; k++) {
        int id = (start + k) % MP_CTX_IDS;
        if (!(words[id / 32] & (1u << (id % 32))))
            continue;
        if (!ag_taken_here(a, id))
            a->cand[got++] = id;
        else if (nfall < 2)
            fall[nfall++] = id;
    }
    for (int i = 0; got < a->count && i < nfall; i++)
        a->cand[got++] = fall[i];
    if (got < a->count)
        a->cand[0] = PICK_EXHAUSTED;
}

static void ag_start_round(agreement *a)
{
    a->cand[0] = a->cand[1] = -1;
    mp_ctx_snapshot(a->words);
    for (int k = 0; k < a->nkids; k++)
        ag_recv(a, a->kid_words + (size_t)k * NWORDS, sizeof(uint32_t) * NWORDS, &a->kids[k]);
    a->state = AG_MASK_UP;
}

/* Phase 2 at this process: vote for the candidates and reserve them. */
static void ag_vote(agreement *a)
{
    a->vote = mp_ctx_reserve(a->cand, a->count);
    a->reserved = a->vote;
    for (int k = 0; k < a->nkids; k++)
        ag_recv(a, &a->kid_votes[k], sizeof(int), &a->kids[k]);
    a->state = AG_VOTE_UP;
}

/* End of a round: claim (result yes) or drop the reservations. */
static void ag_end_round(agreement *a)
{
    if (a->reserved)
        mp_ctx_settle(a->cand, a->count, a->vote && !a->error && a->claim);
    a->reserved = 0;
    if (a->error || a->vote) {
        a->state = AG_DONE;
        return;
    }
    a->round++;
    ag_start_round(a);
}

/* Moves one agreement on as far as it goes without waiting. */
static void ag_advance(agreement *a)
{
    while (a->state != AG_DONE && ag_reqs_done(a)) {
        if (a->error) {               /* a transfer failed: nothing sensible to agree on */
            ag_end_round(a);          /* (ends the agreement) */
            break;
        }
        switch (a->state) {
        case AG_MASK_UP:
            for (int k = 0; k < a->nkids; k++)
                for (int i = 0; i < NWORDS; i++)
                    a->words[i] &= a->kid_words[(size_t)k * NWORDS + i];
            if (a->has_up) {
                ag_send(a, a->words, sizeof(uint32_t) * NWORDS, &a->up);
                a->state = AG_MASK_SENT;
            } else {
                ag_pick(a, a->words);
                ag_send_kids(a, a->cand, sizeof a->cand);
                a->state = AG_CAND_FWD;
            }
            break;
        case AG_MASK_SENT:
            ag_recv(a, a->cand, sizeof a->cand, &a->up);
            a->state = AG_CAND_RECV;
            break;
        case AG_CAND_RECV:
            ag_send_kids(a, a->cand, sizeof a->cand);
            a->state = AG_CAND_FWD;
            break;
        case AG_CAND_FWD:
            if (a->cand[0] < 0) {     /* every member learns it: nothing left to try */
                a->error = mp_ctx_exhausted_error();
                a->state = AG_DONE;
                break;
            }
            ag_vote(a);
            break;
        case AG_VOTE_UP:
            for (int k = 0; k < a->nkids; k++)
                a->vote &= a->kid_votes[k];
            if (a->has_up) {
                ag_send(a, &a->vote, sizeof(int), &a->up);
                a->state = AG_VOTE_SENT;
            } else {
                ag_send_kids(a, &a->vote, sizeof(int));
                a->state = AG_RESULT_FWD;
            }
            break;
        case AG_VOTE_SENT:
            ag_recv(a, &a->vote, sizeof(int), &a->up);
            a->state = AG_RESULT_RECV;
            break;
        case AG_RESULT_RECV:
            ag_send_kids(a, &a->vote, sizeof(int));
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
    int ctx[2] = { -1, -1 };
    if (!a->error)
        for (int i = 0; i < a->count; i++)
            ctx[i] = 2 * a->cand[i];
    mp_comm *parent = a->parent, *local = a->local;
    a->done(a->arg, a->error, ctx);
    free(a->words);
    free(a->kid_words);
    free(a);
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

/* Joins the other group's tree at the roots: the root whose world rank is higher hangs below
 * the other (both roots decide alike).  Only a root's `other` is meaningful. */
static void ag_bridge(agreement *a, int me, tree_peer other)
{
    if (me != 0)
        return;
    const mp_comm *c = other.comm;
    int other_world = c->is_inter ? c->remote_world[other.rank] : c->world[other.rank];
    if (mp_world.rank < other_world) {
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
    a->words = mp_malloc(sizeof(uint32_t) * NWORDS);
    a->kid_words = mp_malloc(sizeof(uint32_t) * NWORDS * (size_t)(a->nkids ? a->nkids : 1));
    ag_start_round(a);
    int was = in_hook;
    in_hook = 1;
    ag_advance(a);                    /* leaves send their mask now */
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

static agreement *ag_new(mp_comm *parent, int count, int tag, int claim, mp_ctx_done_fn *done,
                         void *arg)
{
    agreement *a = mp_calloc(1, sizeof *a);
    a->parent = parent;
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    a->tag = tag;
    a->count = count;
    a->claim = claim;
    a->done = done;
    a->arg = arg;
    return a;
}

/* ---- blocking agreements ---- */

typedef struct blocking_result {
    int err, ctx[2];
} blocking_result;

static void blocking_done(void *arg, int err, const int *ctx)
{
    blocking_result *r = arg;
    r->err = err;
    r->ctx[0] = ctx[0];
    r->ctx[1] = ctx[1];
}

/* Runs an agreement to its end in this call.  The wait advances it itself as well as through
 * the progress hook, which may be gated off or be this call's caller. */
static int agree_blocking(agreement *a, int *ctx_out)
{
    blocking_result r = { MPI_SUCCESS, { -1, -1 } };
    int count = a->count;
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
    if (!r.err)
        for (int i = 0; i < count; i++)
            ctx_out[i] = r.ctx[i];
    return r.err;
}

int mp_ctx_agree_ex(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                    int claim, int *ctx_out)
{
    agreement *a = ag_new(parent, count, tag, claim, NULL, NULL);
    ag_tree(a, parent, ranks, n, me, tag);
    return agree_blocking(a, ctx_out);
}

int mp_ctx_agree(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                 int *ctx_out)
{
    return mp_ctx_agree_ex(parent, ranks, n, me, tag, count, 1, ctx_out);
}

int mp_ctx_agree_bridged(mp_comm *local, const int *ranks, int me, int tag,
                         const mp_ctx_bridge *b, int count, int claim, int *ctx_out)
{
    agreement *a = ag_new(local, count, tag, claim, NULL, NULL);
    ag_tree(a, local, ranks, local->size, me, tag);
    ag_bridge(a, me, (tree_peer){ b->comm, b->peer, b->tag, b->offset });
    return agree_blocking(a, ctx_out);
}

/* ---- nonblocking agreements (MPI_Comm_idup) ---- */

void mp_ctx_agree_start(mp_comm *parent, mp_ctx_done_fn *done, void *arg)
{
    agreement *a = ag_new(parent, 1, mp_coll_nonblocking_tag(parent), 1, done, arg);
    ag_tree(a, parent, NULL, parent->size, parent->rank, a->tag);
    ag_launch(a);
}

/* Intercommunicator: one tree over both groups.  Each group's tree runs over its hidden local
 * communicator, with a tag taken in that communicator's nonblocking sequence (the members of
 * a group call idup on the intercommunicator in one order, so they agree on it); the roots
 * meet across the intercommunicator.  Two ids free in both groups are chosen: the
 * intercommunicator's and the one both sides use for their hidden local communicators
 * (disjoint members, so one id can serve both). */
void mp_ctx_agree_start_inter(mp_comm *inter, mp_comm *local, mp_ctx_done_fn *done, void *arg)
{
    agreement *a = ag_new(inter, 2, mp_coll_nonblocking_tag(inter), 1, done, arg);
    a->local = local;
    atomic_fetch_add_explicit(&local->refs, 1, memory_order_relaxed);
    ag_tree(a, local, NULL, local->size, local->rank, mp_coll_nonblocking_tag(local));
    ag_bridge(a, local->rank, (tree_peer){ inter, 0, a->tag, MP_CTX_COLL });
    ag_launch(a);
}

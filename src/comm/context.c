/* context.c -- context ids: a bitmask of free ids agreed with a bitwise AND.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Each process keeps a mask of MP_CTX_IDS ids, bit set = free here.  Id i means wire contexts
 * 2i (point-to-point) and 2i+1 (collectives); id 0 is MPI_COMM_WORLD and id 1 MPI_COMM_SELF.
 * To create a communicator the participants AND their masks (mp_xfer_reduce_and to index 0),
 * index 0 picks the lowest free id(s) and broadcasts them, and every member clears them.  With
 * 32768 ids, tens of thousands of communicators can be live at once.
 *
 * Blocking agreements.  Between contributing its mask and learning the result a process must
 * not hand the same id to another creation, so a blocking agreement "holds" the mask for that
 * whole round.  A creation that finds the mask held by another (another thread) contributes
 * all zeros and a 0 in the extra "had the mask" word; the AND then tells every participant to
 * retry, so nobody claims an id that some member could not vouch for.  Holders release the
 * mask after every round, and a process waits for the mask to be released before retrying.
 * A blocking round never waits for anything but its members' arrival, which a correct
 * program guarantees, so holding is safe.
 *
 * Nonblocking agreements (MPI_Comm_idup) cannot hold the mask: a round stays in flight until
 * every member has called idup, which may be after this process has run other blocking
 * creations (rank 0: Comm_idup(c), Send(1), Wait; rank 1: Recv(0), Comm_idup(c), Wait is
 * legal).  Holding would make those creations retry forever.  So a nonblocking round has two
 * phases, each a reduction to index 0 and a broadcast over a binomial tree, driven by the
 * progress engine (nb_progress):
 *   1. every member contributes its free mask minus the ids *reserved* (below); index 0
 *      picks a candidate id from the AND and broadcasts it;
 *   2. every member votes: yes if the candidate is still free, not reserved and the mask is
 *      not held by a blocking round here -- and then reserves it; the AND of the votes is
 *      broadcast; all yes: every member claims the id; otherwise the reservations are dropped
 *      and a new round starts.
 * Safety: a reserved id is offered to no other agreement: snapshots (blocking and
 * nonblocking) exclude it, other votes refuse it, and a blocking round whose snapshot predates
 * the reservation cannot claim it because votes are refused while a blocking round holds the
 * mask.  So an id is claimed by one agreement only, and only if every member reserved it for
 * that one.
 * Liveness: rounds never block (a member always answers at once), so a round fails only if a
 * blocking round held the mask at some member during the vote (bounded by that blocking
 * call) or another agreement reserved the same candidate at some member.  The first round
 * picks the lowest id (the usual, uncontended case) that the root has not seen taken or
 * proposed meanwhile; later rounds pick the lowest id at or after a pseudo-random point, so
 * two agreements that collided once almost never collide again.  Several idups outstanding on
 * one communicator or on overlapping ones thus finish in any completion order.  (An empty AND
 * is reported as exhaustion even if reservations caused it: they are few and short-lived.)
 *
 * Messages of a nonblocking agreement travel on the parent's collective context with one
 * tag: the call's position in the parent's nonblocking collective sequence (sched.c), so it
 * composes with Ibarrier/Iallreduce... in any interleaving the standard allows (an
 * intercommunicator's also use its hidden local communicator: mp_ctx_agree_start_inter).
 * Between a pair every round sends mask, vote (up) and candidates, result (down) in one order
 * and the receiver posts them in the same order, so the single tag is unambiguous.
 *
 * Locking: ctx_lock protects the masks, the holder flag and the live count; it is never held
 * while communicating.  The list of nonblocking agreements is touched only under the big lock
 * (binding calls and the progress engine).
 */
#include "comm/comm.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "datatype/datatype.h"

#define NWORDS (MP_CTX_IDS / 32)
enum { PICK_RETRY = -1, PICK_EXHAUSTED = -2 };

static uint32_t free_mask[NWORDS];
static uint32_t reserved[NWORDS];     /* ids a nonblocking agreement voted for here */
static int mask_held;
static int live_ids;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;


void mp_ctx_init(void)
{
    memset(free_mask, 0xff, sizeof free_mask);
    free_mask[0] &= ~3u;              /* ids 0 and 1: MPI_COMM_WORLD, MPI_COMM_SELF */
    memset(reserved, 0, sizeof reserved);
    mask_held = 0;
    live_ids = 2;
}

/* Takes the mask and copies it into words[0..NWORDS-1] with words[NWORDS] = 1, or, if
 * another creation holds it, fills zeros.  Returns whether the mask was taken. */
int mp_ctx_contribute(uint32_t *words)
{
    pthread_mutex_lock(&ctx_lock);
    int took = !mask_held;
    if (took) {
        mask_held = 1;
        for (int i = 0; i < NWORDS; i++)
            words[i] = free_mask[i] & ~reserved[i];
    } else {
        memset(words, 0, sizeof free_mask);
    }
    words[NWORDS] = (uint32_t)took;
    pthread_mutex_unlock(&ctx_lock);
    return took;
}

/* Picks the `count` lowest free ids in an agreed mask (ids[i] = PICK_RETRY if some member
 * lacked the mask, PICK_EXHAUSTED if not enough are free). */
void mp_ctx_pick(const uint32_t *words, int count, int *ids)
{
    if (!words[NWORDS]) {
        ids[0] = PICK_RETRY;
        return;
    }
    int got = 0;
    for (int w = 0; w < NWORDS && got < count; w++) {
        uint32_t bits = words[w];
        while (bits && got < count) {
            int b = __builtin_ctz(bits);
            bits &= bits - 1;
            ids[got++] = w * 32 + b;
        }
    }
    if (got < count)
        ids[0] = PICK_EXHAUSTED;
}

/* Ends a round: claims the picked ids (when `claim`), releases the mask if we held it. */
void mp_ctx_finish(int took, const int *ids, int count, int claim)
{
    pthread_mutex_lock(&ctx_lock);
    if (claim && ids[0] >= 0)
        for (int i = 0; i < count; i++) {
            free_mask[ids[i] / 32] &= ~(1u << (ids[i] % 32));
            live_ids++;
        }
    if (took)
        mask_held = 0;
    pthread_mutex_unlock(&ctx_lock);
}

/* Waits a little before a retry, letting the holder's communication progress. */
void mp_ctx_backoff(void)
{
    mp_progress();
    sched_yield();
}

int mp_ctx_exhausted_error(void)
{
    return mp_error_code(MPI_ERR_OTHER, "out of context ids: %d communicators are live "
                         "(at most %d)", mp_ctx_live(), MP_CTX_IDS);
}

int mp_ctx_agree_ex(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                    int claim, int *ctx_out)
{
    uint32_t *words = mp_malloc(sizeof(uint32_t) * (NWORDS + 1));
    int ids[2] = { PICK_RETRY, PICK_RETRY }, err;
    for (;;) {
        int took = mp_ctx_contribute(words);
        err = mp_xfer_reduce_and(parent, ranks, n, me, tag, words, NWORDS + 1);
        if (!err && me == 0)
            mp_ctx_pick(words, count, ids);
        if (!err)
            err = mp_xfer_bcast(parent, ranks, n, me, tag, ids, sizeof ids);
        mp_ctx_finish(took, ids, count, claim && !err);
        if (err)
            break;
        if (ids[0] == PICK_RETRY) {
            mp_ctx_backoff();
            continue;
        }
        if (ids[0] == PICK_EXHAUSTED)
            err = mp_ctx_exhausted_error();
        break;
    }
    free(words);
    if (!err)
        for (int i = 0; i < count; i++)
            ctx_out[i] = 2 * ids[i];
    return err;
}

int mp_ctx_agree(mp_comm *parent, const int *ranks, int n, int me, int tag, int count,
                 int *ctx_out)
{
    return mp_ctx_agree_ex(parent, ranks, n, me, tag, count, 1, ctx_out);
}

void mp_ctx_claim(int ctx)
{
    int id = ctx / 2;
    pthread_mutex_lock(&ctx_lock);
    if (free_mask[id / 32] & (1u << (id % 32))) {
        free_mask[id / 32] &= ~(1u << (id % 32));
        live_ids++;
    }
    pthread_mutex_unlock(&ctx_lock);
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
/* Nonblocking agreement (MPI_Comm_idup)                                                     */
/* ------------------------------------------------------------------------------------------ */
/* States: what the transfers now outstanding are. */
enum {
    NB_MASK_UP,                       /* receiving my children's masks */
    NB_MASK_SENT,                     /* sending my subtree's AND to my parent */
    NB_CAND_RECV,                     /* receiving the candidates from my parent */
    NB_CAND_FWD,                      /* sending them to my children */
    NB_VOTE_UP, NB_VOTE_SENT, NB_RESULT_RECV, NB_RESULT_FWD,   /* the same for the votes */
    NB_DONE
};
enum { MAX_TREE = 34 };               /* children of a binomial tree node + parent */

/* A tree neighbour: a rank of a communicator, messages on its collective context. */
typedef struct nb_peer {
    mp_comm *comm;
    int rank, tag;
} nb_peer;

struct mp_ctx_nb {
    struct mp_ctx_nb *next;
    mp_comm *parent, *local;          /* referenced until the agreement ends */
    int tag, count, round;
    int has_up, nkids;
    nb_peer up, kids[MAX_TREE];
    int state, error;
    uint32_t *words;                  /* my mask, then the AND of my subtree */
    uint32_t *kid_words;              /* nkids masks */
    int cand[2], vote, kid_votes[MAX_TREE], reserved_ids[2];
    mp_request *reqs[MAX_TREE];
    int nreqs;
    mp_ctx_done_fn *done;
    void *arg;
};

static mp_ctx_nb *nb_head;
static int nb_in_hook;
static int nb_listed;                 /* nb_head != NULL: the progress hook's gate */

static mp_datatype *bytes_dt(void)
{
    return mp_datatype_get(MPI_BYTE);
}

static void nb_note(mp_ctx_nb *a, int err)
{
    if (err && !a->error)
        a->error = err;
}

static void nb_send(mp_ctx_nb *a, const void *buf, size_t bytes, const nb_peer *p)
{
    mp_request *r = NULL;
    nb_note(a, mp_isend(buf, (MPI_Aint)bytes, bytes_dt(), p->rank, p->tag, p->comm,
                        MP_CTX_COLL, MP_MODE_STANDARD, &r));
    if (r)
        a->reqs[a->nreqs++] = r;
}

static void nb_recv(mp_ctx_nb *a, void *buf, size_t bytes, const nb_peer *p)
{
    mp_request *r = NULL;
    nb_note(a, mp_irecv(buf, (MPI_Aint)bytes, bytes_dt(), p->rank, p->tag, p->comm,
                        MP_CTX_COLL, &r));
    if (r)
        a->reqs[a->nreqs++] = r;
}

static void nb_send_kids(mp_ctx_nb *a, const void *buf, size_t bytes)
{
    for (int k = 0; k < a->nkids; k++)
        nb_send(a, buf, bytes, &a->kids[k]);
}

/* Reaps the finished transfers; 1 when none is left. */
static int nb_reqs_done(mp_ctx_nb *a)
{
    int j = 0;
    for (int i = 0; i < a->nreqs; i++) {
        if (mp_request_is_done(a->reqs[i]))
            nb_note(a, mp_wait(a->reqs[i], MPI_STATUS_IGNORE));
        else
            a->reqs[j++] = a->reqs[i];
    }
    a->nreqs = j;
    return j == 0;
}

/* Whether id is a poor candidate at this root: claimed or reserved here since the snapshot,
 * or proposed by another agreement outstanding here (which would likely win the vote). */
static int nb_taken_here(const mp_ctx_nb *a, int id)
{
    pthread_mutex_lock(&ctx_lock);
    uint32_t bit = 1u << (id % 32);
    int taken = !(free_mask[id / 32] & bit) || (reserved[id / 32] & bit);
    pthread_mutex_unlock(&ctx_lock);
    if (taken)
        return 1;
    for (const mp_ctx_nb *o = nb_head; o; o = o->next)
        if (o != a && (o->cand[0] == id || (o->count > 1 && o->cand[1] == id)))
            return 1;
    return 0;
}

/* Candidates for this round from the agreed mask: the lowest free ids, or from round 1 on the
 * lowest at or after a pseudo-random start (wrapping).  Ids taken here since the snapshot or
 * proposed by other agreements outstanding at this root are avoided if possible (several
 * idups started together would otherwise all propose the same lowest id and all but one
 * retry).  cand[0] = PICK_EXHAUSTED if there are not enough. */
static void nb_pick(mp_ctx_nb *a, const uint32_t *words)
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
        if (!nb_taken_here(a, id))
            a->cand[got++] = id;
        else if (nfall < 2)
            fall[nfall++] = id;
    }
    for (int i = 0; got < a->count && i < nfall; i++)
        a->cand[got++] = fall[i];
    if (got < a->count)
        a->cand[0] = PICK_EXHAUSTED;
}

static void nb_start_round(mp_ctx_nb *a)
{
    a->cand[0] = a->cand[1] = -1;
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < NWORDS; i++)
        a->words[i] = free_mask[i] & ~reserved[i];
    pthread_mutex_unlock(&ctx_lock);
    for (int k = 0; k < a->nkids; k++)
        nb_recv(a, a->kid_words + (size_t)k * NWORDS, sizeof(uint32_t) * NWORDS, &a->kids[k]);
    a->state = NB_MASK_UP;
}

/* Phase 2 at this process: vote for the candidates and reserve them. */
static void nb_vote(mp_ctx_nb *a)
{
    a->reserved_ids[0] = a->reserved_ids[1] = -1;
    pthread_mutex_lock(&ctx_lock);
    a->vote = !mask_held;
    for (int i = 0; i < a->count; i++) {
        int id = a->cand[i];
        uint32_t bit = 1u << (id % 32);
        a->vote = a->vote && (free_mask[id / 32] & bit) && !(reserved[id / 32] & bit);
    }
    for (int i = 0; a->vote && i < a->count; i++) {
        reserved[a->cand[i] / 32] |= 1u << (a->cand[i] % 32);
        a->reserved_ids[i] = a->cand[i];
    }
    pthread_mutex_unlock(&ctx_lock);
    for (int k = 0; k < a->nkids; k++)
        nb_recv(a, &a->kid_votes[k], sizeof(int), &a->kids[k]);
    a->state = NB_VOTE_UP;
}

/* End of a round: claim (result yes) or drop the reservations. */
static void nb_end_round(mp_ctx_nb *a)
{
    pthread_mutex_lock(&ctx_lock);
    for (int i = 0; i < 2; i++) {
        int id = a->reserved_ids[i];
        if (id < 0)
            continue;
        reserved[id / 32] &= ~(1u << (id % 32));
        if (a->vote && !a->error) {
            free_mask[id / 32] &= ~(1u << (id % 32));
            live_ids++;
        }
        a->reserved_ids[i] = -1;
    }
    pthread_mutex_unlock(&ctx_lock);
    if (a->error || a->vote) {
        a->state = NB_DONE;
        return;
    }
    a->round++;
    nb_start_round(a);
}

/* Moves one agreement on as far as it goes without waiting. */
static void nb_advance(mp_ctx_nb *a)
{
    while (a->state != NB_DONE && nb_reqs_done(a)) {
        if (a->error) {               /* a transfer failed: nothing sensible to agree on */
            nb_end_round(a);
            a->state = NB_DONE;
            break;
        }
        switch (a->state) {
        case NB_MASK_UP:
            for (int k = 0; k < a->nkids; k++)
                for (int i = 0; i < NWORDS; i++)
                    a->words[i] &= a->kid_words[(size_t)k * NWORDS + i];
            if (a->has_up) {
                nb_send(a, a->words, sizeof(uint32_t) * NWORDS, &a->up);
                a->state = NB_MASK_SENT;
            } else {
                nb_pick(a, a->words);
                nb_send_kids(a, a->cand, sizeof a->cand);
                a->state = NB_CAND_FWD;
            }
            break;
        case NB_MASK_SENT:
            nb_recv(a, a->cand, sizeof a->cand, &a->up);
            a->state = NB_CAND_RECV;
            break;
        case NB_CAND_RECV:
            nb_send_kids(a, a->cand, sizeof a->cand);
            a->state = NB_CAND_FWD;
            break;
        case NB_CAND_FWD:
            if (a->cand[0] < 0) {     /* every member learns it: nothing left to try */
                a->error = mp_ctx_exhausted_error();
                a->state = NB_DONE;
                break;
            }
            nb_vote(a);
            break;
        case NB_VOTE_UP:
            for (int k = 0; k < a->nkids; k++)
                a->vote &= a->kid_votes[k];
            if (a->has_up) {
                nb_send(a, &a->vote, sizeof(int), &a->up);
                a->state = NB_VOTE_SENT;
            } else {
                nb_send_kids(a, &a->vote, sizeof(int));
                a->state = NB_RESULT_FWD;
            }
            break;
        case NB_VOTE_SENT:
            nb_recv(a, &a->vote, sizeof(int), &a->up);
            a->state = NB_RESULT_RECV;
            break;
        case NB_RESULT_RECV:
            nb_send_kids(a, &a->vote, sizeof(int));
            a->state = NB_RESULT_FWD;
            break;
        case NB_RESULT_FWD:
            nb_end_round(a);
            break;
        }
    }
}

static void nb_finish(mp_ctx_nb *a)
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

/* Progress hook: advances every outstanding agreement, finishes the completed ones. */
static int nb_progress(void)
{
    if (nb_in_hook || !nb_head)
        return 0;
    nb_in_hook = 1;
    int events = 0;
    mp_ctx_nb **pp = &nb_head;
    while (*pp) {
        mp_ctx_nb *a = *pp;
        nb_advance(a);
        if (a->state == NB_DONE) {
            *pp = a->next;
            nb_finish(a);
            events++;
        } else {
            pp = &a->next;
        }
    }
    nb_listed = nb_head != NULL;
    nb_in_hook = 0;
    return events;
}

/* Binomial tree over the ranks of `local` rooted at rank 0: my parent clears my lowest set
 * bit, my children add the powers of two below it. */
static void nb_tree(mp_ctx_nb *a, mp_comm *local, int tag)
{
    int me = local->rank, n = local->size;
    int low = me ? me & -me : 1 << 30;
    if (me) {
        a->has_up = 1;
        a->up = (nb_peer){ local, me - low, tag };
    }
    for (int m = 1; m < low && me + m < n; m <<= 1)
        a->kids[a->nkids++] = (nb_peer){ local, me + m, tag };
}

static void nb_launch(mp_ctx_nb *a)
{
    static int registered;
    if (!registered) {
        mp_progress_register_gated(nb_progress, &nb_listed);   /* idle polls skip it */
        registered = 1;
    }
    a->reserved_ids[0] = a->reserved_ids[1] = -1;
    a->words = mp_malloc(sizeof(uint32_t) * NWORDS);
    a->kid_words = mp_malloc(sizeof(uint32_t) * NWORDS * (size_t)(a->nkids ? a->nkids : 1));
    nb_start_round(a);
    int was = nb_in_hook;
    nb_in_hook = 1;
    nb_advance(a);                    /* leaves send their mask now */
    nb_in_hook = was;
    if (a->state == NB_DONE && !was) {
        nb_finish(a);
        return;
    }
    a->next = NULL;                   /* (if done inside the hook, the hook finishes it) */
    mp_ctx_nb **pp = &nb_head;
    while (*pp)
        pp = &(*pp)->next;
    *pp = a;
    nb_listed = 1;
}

static mp_ctx_nb *nb_new(mp_comm *parent, int count, mp_ctx_done_fn *done, void *arg)
{
    mp_ctx_nb *a = mp_calloc(1, sizeof *a);
    a->parent = parent;
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    a->tag = mp_coll_nonblocking_tag(parent);
    a->count = count;
    a->done = done;
    a->arg = arg;
    return a;
}

void mp_ctx_agree_start(mp_comm *parent, mp_ctx_done_fn *done, void *arg)
{
    mp_ctx_nb *a = nb_new(parent, 1, done, arg);
    nb_tree(a, parent, a->tag);
    nb_launch(a);
}

/* Intercommunicator: one tree over both groups.  Each group's tree runs over its hidden local
 * communicator, with a tag taken in that communicator's nonblocking sequence (the members of
 * a group call idup on the intercommunicator in one order, so they agree on it); the root of
 * the group whose rank 0 has the higher world rank hangs below the other root, across the
 * intercommunicator.  Two ids free in both groups are chosen: the intercommunicator's and
 * the one both sides use for their hidden local communicators (disjoint members, so one id
 * can serve both). */
void mp_ctx_agree_start_inter(mp_comm *inter, mp_comm *local, mp_ctx_done_fn *done, void *arg)
{
    mp_ctx_nb *a = nb_new(inter, 2, done, arg);
    a->local = local;
    atomic_fetch_add_explicit(&local->refs, 1, memory_order_relaxed);
    nb_tree(a, local, mp_coll_nonblocking_tag(local));
    if (local->rank == 0) {
        nb_peer other = { inter, 0, a->tag };
        if (inter->world[0] < inter->remote_world[0])
            a->kids[a->nkids++] = other;
        else {
            a->has_up = 1;
            a->up = other;
        }
    }
    nb_launch(a);
}

/* sched.c -- schedules: the one executor behind every blocking and nonblocking collective.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A schedule is a flat array of steps built by an algorithm before anything moves:
 *
 *     SEND / RECV       a point-to-point transfer on the communicator's collective context
 *     REDUCE / COPY     local work on buffers that earlier steps filled
 *     FENCE             wait until every step before it has completed
 *
 * Execution walks the array: transfers are posted as nonblocking requests, local steps run
 * when reached, a fence waits for the transfers posted so far.  Builders therefore put a
 * fence between a receive and the reduce that reads it, and list receives before sends in a
 * phase so the receive is posted first (the write protocol then delivers straight into it).
 *
 * Blocking collectives call mp_sched_run: post, wait, continue, free.  Nonblocking ones call
 * mp_sched_start: the schedule goes on a list that a progress hook advances -- it tests the
 * requests of the current phase and moves on when they are all done -- and completes the
 * user request with mp_request_complete at the end.  The hook guards against re-entry
 * because posting a transfer may itself drive progress.  Persistent ones (persist.c) call
 * mp_sched_persist once and mp_sched_restart at every MPI_Start: the same walk from step 0,
 * and the schedule (steps, scratch buffers, held objects) survives its completion.
 *
 * Tags: a collective is identified by its position in the communicator's collective sequence.
 * Every call's messages carry one tag, made of a tag class and the call's position among the
 * calls of that class on the communicator:
 *
 *     tag = class << 26 | (position mod 2^26)
 *     class  BLOCKING     every blocking collective, whatever its algorithm (message, shm,
 *                         node-aware mixes; an shm-only call takes no position)
 *            NONBLOCKING  every I-collective, numbered when it starts
 *            PERSISTENT   every MPI_*_init call, numbered at init; each MPI_Start of the
 *                         request reuses the tag
 *
 * Why not one sequence for all calls?  The standard asks that every rank call the collectives
 * of a communicator in one order, and under that rule one sequence would do.  But programs
 * (mpi4py's test suite among them) also start a nonblocking collective on one rank *before* a
 * blocking one and on another rank *after* it -- "Iallreduce; Barrier" against "Barrier;
 * Iallreduce" -- and expect it to work, as it does in MPICH.  With one sequence the barrier's
 * messages then meet the Iallreduce's (the tags cross), which truncates or deadlocks.  With
 * per-class sequences, the blocking calls are numbered in the same order on every rank (a rank
 * cannot run two of them at once), and so are the nonblocking ones, so both interleavings
 * agree on every tag, and a conforming program still never has two live calls with one tag.
 * The position is taken when the schedule runs or starts (mp_sched_run / mp_sched_start), not
 * when it is built, so the class is known; a schedule discarded on error still takes its place.
 *
 * A persistent request's tag stays the same from one start to the next.  That is safe: a rank
 * starts the request again only after its previous run completed locally, and between one
 * pair the messages of run k are sent, and the receives of run k posted, before those of run
 * k+1, so the point-to-point order matches them run by run.
 *
 * Calls that need several tags (Cartesian neighbourhoods, mp_sched_reserve_tags) take
 * several consecutive positions of their class; every rank reserves the same number.
 */
#include "coll/coll_impl.h"
#include <stdlib.h>
#include <string.h>

enum { ST_SEND, ST_RECV, ST_PING, ST_PONG, ST_REDUCE, ST_COPY, ST_FENCE };

typedef struct step {
    int kind;
    int peer;
    int tagoff;                       /* added to the schedule's tag (see mp_sched_reserve_tags) */
    const void *src;
    void *dst;
    MPI_Aint count, dcount;
    mp_datatype *dt, *ddt;
    MPI_Op op;
} step;

struct mp_sched {
    mp_comm *comm;
    int tag;                          /* -1 until the schedule takes its position */
    int ntags;                        /* positions it takes (mp_sched_reserve_tags) */
    int persistent;                   /* kept after completion, restarted by MPI_Start */
    step *steps;
    int nsteps, cap;
    int next;                         /* first step not yet started */
    mp_request **reqs;                /* transfers of the current phase */
    int nreqs, cap_reqs;
    void **tmps;                      /* scratch allocations */
    int ntmps, cap_tmps;
    mp_datatype **held_dts;
    int nheld, cap_held;
    MPI_Op held_op;                   /* the user op of the reductions, and its object */
    mp_op *held_obj;
    mp_request *req;                  /* nonblocking: the user's request */
    mp_sched *next_active;
    int error;
};

#define GROW(arr, n, cap) do {                                         \
        if ((n) == (cap)) {                                            \
            (cap) = (cap) ? 2 * (cap) : 16;                            \
            (arr) = mp_realloc((arr), (size_t)(cap) * sizeof *(arr));  \
        }                                                              \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Building                                                                                   */
/* ------------------------------------------------------------------------------------------ */
mp_sched *mp_sched_new(mp_comm *comm)
{
    mp_sched *s = mp_calloc(1, sizeof *s);
    s->comm = comm;
    s->tag = -1;
    s->ntags = 1;
    s->held_op = MPI_OP_NULL;
    return s;
}

#define TAG_SEQ_BITS 26
#define TAG_SEQ_MASK ((1u << TAG_SEQ_BITS) - 1)

/* Takes the schedule's position in the sequence of its class (once). */
static void take_tag(mp_sched *s, int cls)
{
    if (s->tag >= 0)
        return;
    mp_coll_state *cs = mp_coll_state_of(s->comm);
    s->tag = (int)((unsigned)cls << TAG_SEQ_BITS | (cs->seq[cls] & TAG_SEQ_MASK));
    cs->seq[cls] += (unsigned)s->ntags;
}

int mp_coll_nonblocking_tag(mp_comm *comm)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    int tag = (int)((unsigned)MP_TAGS_NONBLOCKING << TAG_SEQ_BITS |
                    (cs->seq[MP_TAGS_NONBLOCKING] & TAG_SEQ_MASK));
    cs->seq[MP_TAGS_NONBLOCKING]++;
    return tag;
}

/* The tag of a transfer: the class bits stay, the position moves by tagoff (mod 2^26). */
static int step_tag(const mp_sched *s, int tagoff)
{
    unsigned t = (unsigned)s->tag;
    return (int)((t & ~TAG_SEQ_MASK) | ((t + (unsigned)tagoff) & TAG_SEQ_MASK));
}

static step *add(mp_sched *s, int kind)
{
    GROW(s->steps, s->nsteps, s->cap);
    step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    return st;
}

void mp_sched_send(mp_sched *s, const void *buf, MPI_Aint count, mp_datatype *dt, int peer)
{
    if (count == 0 || dt->size == 0)
        return;
    step *st = add(s, ST_SEND);
    st->src = buf; st->count = count; st->dt = dt; st->peer = peer;
}

void mp_sched_recv(mp_sched *s, void *buf, MPI_Aint count, mp_datatype *dt, int peer)
{
    if (count == 0 || dt->size == 0)
        return;
    step *st = add(s, ST_RECV);
    st->dst = buf; st->count = count; st->dt = dt; st->peer = peer;
}

void mp_sched_send_tagged(mp_sched *s, const void *buf, MPI_Aint count, mp_datatype *dt,
                          int peer, int tagoff)
{
    mp_sched_send(s, buf, count, dt, peer);
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind == ST_SEND && count > 0 && dt->size > 0)
        s->steps[s->nsteps - 1].tagoff = tagoff;
}

void mp_sched_recv_tagged(mp_sched *s, void *buf, MPI_Aint count, mp_datatype *dt, int peer,
                          int tagoff)
{
    mp_sched_recv(s, buf, count, dt, peer);
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind == ST_RECV && count > 0 && dt->size > 0)
        s->steps[s->nsteps - 1].tagoff = tagoff;
}

/* The call takes tags tag .. tag+n-1: n positions of its class.  Every rank calls this with
 * the same n (it depends only on the communicator), so every rank still agrees on the tag of
 * every later collective. */
void mp_sched_reserve_tags(mp_sched *s, int n)
{
    if (n > s->ntags)
        s->ntags = n;
}

int mp_sched_tag(const mp_sched *s) { return s->tag; }

void mp_sched_ping(mp_sched *s, int peer) { add(s, ST_PING)->peer = peer; }
void mp_sched_pong(mp_sched *s, int peer) { add(s, ST_PONG)->peer = peer; }

void mp_sched_reduce(mp_sched *s, const void *in, void *inout, MPI_Aint count, mp_datatype *dt,
                     MPI_Op op)
{
    if (count == 0)
        return;
    step *st = add(s, ST_REDUCE);
    st->src = in; st->dst = inout; st->count = count; st->dt = dt; st->op = op;
}

void mp_sched_copy(mp_sched *s, const void *src, MPI_Aint scount, mp_datatype *sdt, void *dst,
                   MPI_Aint dcount, mp_datatype *ddt)
{
    if (scount == 0 || sdt->size == 0)
        return;
    step *st = add(s, ST_COPY);
    st->src = src; st->count = scount; st->dt = sdt;
    st->dst = dst; st->dcount = dcount; st->ddt = ddt;
}

void mp_sched_fence(mp_sched *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != ST_FENCE)
        add(s, ST_FENCE);
}

void *mp_sched_alloc(mp_sched *s, size_t bytes)
{
    GROW(s->tmps, s->ntmps, s->cap_tmps);
    void *p = mp_malloc(bytes ? bytes : 1);
    s->tmps[s->ntmps++] = p;
    return p;
}

void *mp_sched_tmp(mp_sched *s, MPI_Aint count, const mp_datatype *dt)
{
    if (count <= 0)
        return mp_sched_alloc(s, 1);
    MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
    MPI_Aint true_ext = dt->true_ub - dt->true_lb;
    size_t span = (size_t)(true_ext + (count - 1) * ext);
    char *p = mp_sched_alloc(s, span);
    /* element 0's data starts at true_lb: shift so the first byte lands on p.  A negative
     * extent lays later elements below the first. */
    if (dt->extent < 0)
        p += (count - 1) * ext;
    return p - dt->true_lb;
}

void mp_sched_hold_dt(mp_sched *s, mp_datatype *dt)
{
    if (!dt || dt->is_builtin)
        return;
    GROW(s->held_dts, s->nheld, s->cap_held);
    mp_datatype_retain(dt);
    s->held_dts[s->nheld++] = dt;
}

void mp_sched_hold_op(mp_sched *s, MPI_Op op)
{
    if (s->held_op == MPI_OP_NULL && !mp_op_is_builtin(op)) {
        s->held_obj = mp_op_hold(op);
        s->held_op = op;
    }
}

mp_sched *mp_sched_for(mp_comm *comm, mp_request **req, mp_datatype *dt1, mp_datatype *dt2,
                       MPI_Op op)
{
    mp_sched *s = mp_sched_new(comm);
    if (req) {
        mp_sched_hold_dt(s, dt1);
        mp_sched_hold_dt(s, dt2);
        if (op != MPI_OP_NULL)
            mp_sched_hold_op(s, op);
    }
    return s;
}

static void sched_free(mp_sched *s)
{
    for (int i = 0; i < s->ntmps; i++)
        free(s->tmps[i]);
    for (int i = 0; i < s->nheld; i++)
        mp_datatype_release(s->held_dts[i]);
    mp_op_drop(s->held_obj);
    free(s->tmps);
    free(s->held_dts);
    free(s->steps);
    free(s->reqs);
    free(s);
}

void mp_sched_discard(mp_sched *s, int is_blocking)
{
    take_tag(s, is_blocking ? MP_TAGS_BLOCKING : MP_TAGS_NONBLOCKING);
    sched_free(s);
}

/* ------------------------------------------------------------------------------------------ */
/* Executing                                                                                  */
/* ------------------------------------------------------------------------------------------ */
static void note_error(mp_sched *s, int err)
{
    if (err != MPI_SUCCESS && s->error == MPI_SUCCESS)
        s->error = err;
}

static void post(mp_sched *s, step *st)
{
    mp_request *r = NULL;
    int err = MPI_SUCCESS;
    static char dummy;
    int tag = step_tag(s, st->tagoff);
    switch (st->kind) {
    case ST_SEND:
        err = mp_isend(st->src, st->count, st->dt, st->peer, tag, s->comm, MP_CTX_COLL,
                       MP_MODE_STANDARD, &r);
        break;
    case ST_RECV:
        err = mp_irecv(st->dst, st->count, st->dt, st->peer, tag, s->comm, MP_CTX_COLL, &r);
        break;
    case ST_PING:
        err = mp_isend(&dummy, 0, mp_datatype_get(MPI_BYTE), st->peer, s->tag, s->comm,
                       MP_CTX_COLL, MP_MODE_STANDARD, &r);
        break;
    case ST_PONG:
        err = mp_irecv(&dummy, 0, mp_datatype_get(MPI_BYTE), st->peer, s->tag, s->comm,
                       MP_CTX_COLL, &r);
        break;
    }
    note_error(s, err);
    if (r) {
        GROW(s->reqs, s->nreqs, s->cap_reqs);
        s->reqs[s->nreqs++] = r;
    }
}

static void run_local(mp_sched *s, step *st)
{
    if (st->kind == ST_REDUCE)
        note_error(s, mp_reduce_local_held(st->src, st->dst, st->count, st->dt, st->op,
                                           st->op == s->held_op ? s->held_obj : NULL));
    else
        note_error(s, mp_datatype_copy(st->src, st->count, st->dt, st->dst, st->dcount, st->ddt));
}

/* Starts steps up to (and consuming) the next fence.  Returns 1 if the schedule has reached
 * its end, 0 if it stopped at a fence with transfers outstanding. */
static int advance(mp_sched *s)
{
    while (s->next < s->nsteps) {
        step *st = &s->steps[s->next++];
        if (st->kind == ST_FENCE) {
            if (s->nreqs > 0)
                return 0;
            continue;
        }
        if (st->kind == ST_REDUCE || st->kind == ST_COPY) {
            run_local(s, st);
        } else {
            post(s, st);
        }
    }
    return s->nreqs == 0;
}

static void finish_reqs_blocking(mp_sched *s)
{
    for (int i = 0; i < s->nreqs; i++)
        note_error(s, mp_wait_exchange(s->reqs[i], MPI_STATUS_IGNORE));
    s->nreqs = 0;
}

int mp_sched_run(mp_sched *s)
{
    take_tag(s, MP_TAGS_BLOCKING);
    for (;;) {
        int end = advance(s);
        finish_reqs_blocking(s);
        if (end && s->next >= s->nsteps)
            break;
    }
    int err = s->error;
    sched_free(s);
    return err;
}

/* Nonblocking: completed requests of the current phase are reaped without blocking. */
static int phase_done(mp_sched *s)
{
    int j = 0;
    for (int i = 0; i < s->nreqs; i++) {
        if (mp_request_is_done(s->reqs[i]))
            note_error(s, mp_wait_exchange(s->reqs[i], MPI_STATUS_IGNORE));
        else
            s->reqs[j++] = s->reqs[i];
    }
    s->nreqs = j;
    return j == 0;
}

static mp_sched *active_head;
static int in_hook;

static void complete(mp_sched *s)
{
    mp_request *req = s->req;
    mp_comm *comm = s->comm;
    mp_status_empty(&req->status);
    req->status.MPI_ERROR = s->error;
    s->req = NULL;
    if (!s->persistent)
        sched_free(s);
    mp_comm_release(comm);
    mp_request_complete(req);
}

/* Progress hook: advance every active schedule as far as it can go without waiting. */
static int sched_progress(void)
{
    if (in_hook || !active_head)
        return 0;
    in_hook = 1;
    int events = 0;
    mp_sched **pp = &active_head;
    while (*pp) {
        mp_sched *s = *pp;
        int finished = 0;
        while (phase_done(s)) {
            if (s->next >= s->nsteps) {
                finished = 1;
                break;
            }
            advance(s);               /* posts the next phase; may run to the end */
        }
        if (finished) {
            *pp = s->next_active;
            complete(s);
            events++;
        } else {
            pp = &s->next_active;
        }
    }
    in_hook = 0;
    return events;
}

/* Starts a run from the first step: the first phase is posted now (receives early; small
 * collectives may even finish here), the rest is left to the progress hook. */
static int launch(mp_sched *s, mp_request **out)
{
    mp_request *req = mp_request_alloc(MP_REQ_COLL);
    if (!req) {
        if (!s->persistent)
            sched_free(s);
        return mp_error_code(MPI_ERR_INTERN, "nonblocking collective: out of requests");
    }
    req->comm = s->comm;
    s->req = req;
    s->next = 0;
    s->nreqs = 0;
    s->error = MPI_SUCCESS;
    atomic_fetch_add_explicit(&s->comm->refs, 1, memory_order_relaxed);
    *out = req;
    int was_in_hook = in_hook;
    in_hook = 1;
    int end = advance(s);
    in_hook = was_in_hook;
    if (end && s->nreqs == 0 && s->next >= s->nsteps) {
        complete(s);
        return MPI_SUCCESS;
    }
    s->next_active = NULL;
    mp_sched **pp = &active_head;
    while (*pp)                      /* append: older schedules progress first */
        pp = &(*pp)->next_active;
    *pp = s;
    return MPI_SUCCESS;
}

int mp_sched_start(mp_sched *s, mp_request **out)
{
    take_tag(s, MP_TAGS_NONBLOCKING);
    return launch(s, out);
}

void mp_sched_persist(mp_sched *s)
{
    s->persistent = 1;
    take_tag(s, MP_TAGS_PERSISTENT);
}

int mp_sched_restart(mp_sched *s, mp_request **out) { return launch(s, out); }

int mp_sched_active(const mp_sched *s) { return s->req != NULL; }

void mp_sched_free(mp_sched *s) { sched_free(s); }

int mp_sched_init(void)
{
    static int registered;
    if (!registered) {
        mp_progress_register(sched_progress);
        registered = 1;
    }
    return MPI_SUCCESS;
}

/* lane.c -- MPI_Send and MPI_Recv beside the big lock.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Under MPI_THREAD_MULTIPLE one lock serializes the library (core/progress.c), yet threads
 * that exchange small messages on different communicators need none of each other's state:
 * a blocking send's single packet touches its track's sequence number and history and the
 * transport's send side; a receive whose message arrived, or is at the head of the source's
 * lane, touches its context's matching queues, its track's expected sequence number and the
 * transport's receive side.  Such a call runs in a *lane*: a reader of the big lock that
 * holds the stripe of its communicator's track (core.h), so lanes of different tracks run at
 * once and the holder of the big lock runs alone.
 *
 * What a lane touches, and what guards it:
 *   - its track of each peer and the matching queues of the contexts on that track: the
 *     stripe (a communicator's contexts share its track: mp_track_index);
 *   - the transport: leaf locks per peer and direction, and one per direction for the whole
 *     transport when the call may touch more than that peer's lane (pt2pt/fast.c,
 *     transport_enter), since lanes of different tracks share rings and the chunk pool;
 *   - the statistics: the stripe's own block (core/stats.c);
 *   - everything else it only reads -- handle tables, communicators, datatypes, the
 *     configuration -- and only the big lock's holder writes it, which no lane runs beside.
 * A lane allocates nothing shared (no queue page: a context without one has nothing queued),
 * sends no control packet, raises no error and never waits for the big lock: whenever the
 * call needs any of that -- an invalid argument, MPI_PROC_NULL, an intercommunicator, a
 * synchronous message, a full ring, a packet of another kind at the head, a writer arriving
 * while it spins -- it gives up having changed nothing, and the entry point goes on under the
 * big lock, where the same call takes the general path (and reports the error).  The entry
 * points that try a lane first say so in their description (lane= in pt2pt.spec and
 * request.spec).
 *
 * Nonblocking calls: MPI_Isend runs in a lane when the fast path hands the message over at the
 * call (the user gets the shared completed send request); MPI_Irecv when the receive can be
 * matched to a message that arrived whole, or posted (pt2pt/lane.c).  MPI_Wait, MPI_Test,
 * MPI_Waitall and MPI_Testall run in one when every request is MPI_REQUEST_NULL, the shared
 * completed send request, or a plain receive of one stripe's contexts: the lane takes the
 * packets those receives wait for from their sources' rings (mp_drain_in_lane) and spins as
 * a blocking receive does, then finishes all of them, or gives up -- when a request is still
 * open after the spins (or, for a test, after one pass: the general path's test also makes
 * progress on everything else) or completed with an error (the general path reports it).
 * Receives it completed before giving up stay complete, for the general path to finish.
 */
#include "binding/binding.h"

#define LANE_WAIT_SPINS 1024   /* fruitless passes of a wait before it gives up */

/* The call's communicator and datatype when it is one a lane can do: initialized library,
 * a ready intracommunicator, a valid committed contiguous type, a rank of the group (or
 * MPI_ANY_SOURCE when allow_any), a tag (or MPI_ANY_TAG), a buffer. */
static int resolve(const void *buf, MPI_Aint count, MPI_Datatype type_h, int rank, int tag,
                   MPI_Comm comm_h, int allow_any, mp_comm **comm, mp_datatype **dt)
{
    if (!mp_world.initialized || mp_world.finalized || count < 0)
        return 0;
    mp_comm *c = mp_comm_get(comm_h);
    mp_datatype *d = mp_datatype_get(type_h);
    if (c == NULL || c->ctx < 0 || c->is_inter || d == NULL || !mp_datatype_user_valid(d) ||
        type_h == MPI_LB || type_h == MPI_UB || !(d->committed || d->is_builtin) || !d->is_contig)
        return 0;
    if (!((unsigned)rank < (unsigned)c->size || (allow_any && rank == MPI_ANY_SOURCE)))
        return 0;
    if (!((unsigned)tag <= (unsigned)MP_TAG_UB || (allow_any && tag == MPI_ANY_TAG)))
        return 0;
    if (buf == NULL && count != 0 && d->size != 0)
        return 0;
    *comm = c;
    *dt = d;
    return 1;
}

/* Resolves the call's arguments (resolve) and runs in the lane of the communicator's stripe,
 * if it can get in: the stripe, or -1 to give up.  A live handle's object and its fields
 * are not written while the handle is in use, except the context of a communicator an
 * MPI_Comm_idup completes: checked again inside, where no writer runs. */
static int enter(const void *buf, MPI_Aint count, MPI_Datatype type_h, int rank, int tag,
                 MPI_Comm comm_h, int allow_any, mp_comm **comm, mp_datatype **dt)
{
    if (!resolve(buf, count, type_h, rank, tag, comm_h, allow_any, comm, dt))
        return -1;
    int ctx = (*comm)->ctx;
    unsigned stripe = mp_lane_stripe_of(*comm);
    if (!mp_lane_enter(stripe))
        return -1;
    if ((*comm)->ctx != ctx) {
        mp_lane_exit(stripe);
        return -1;
    }
    return (int)stripe;
}

static void leave(int stripe, int rc)
{
    if (rc == MPI_SUCCESS)
        mp_lane_stat_add(&mp_lane_stats((unsigned)stripe)->lane_calls, 1);
    mp_lane_exit((unsigned)stripe);
}

int mp_lane_send(const void *buf, MPI_Aint count, MPI_Datatype type_h, int dest, int tag,
                 MPI_Comm comm_h)
{
    mp_comm *comm;
    mp_datatype *dt;
    int stripe = enter(buf, count, type_h, dest, tag, comm_h, 0, &comm, &dt);
    if (stripe < 0)
        return MP_LANE_GIVE_UP;
    int rc = mp_send_fast_in_lane(buf, count, dt, dest, tag, comm, (unsigned)stripe);
    leave(stripe, rc);
    return rc;
}

int mp_lane_recv(void *buf, MPI_Aint count, MPI_Datatype type_h, int source, int tag,
                 MPI_Comm comm_h, MPI_Status *status)
{
    mp_comm *comm;
    mp_datatype *dt;
    int stripe = enter(buf, count, type_h, source, tag, comm_h, 1, &comm, &dt);
    if (stripe < 0)
        return MP_LANE_GIVE_UP;
    int rc = mp_recv_in_lane(buf, count, dt, source, tag, comm, status, (unsigned)stripe);
    leave(stripe, rc);
    return rc;
}

int mp_lane_isend(const void *buf, MPI_Aint count, MPI_Datatype type_h, int dest, int tag,
                  MPI_Comm comm_h, MPI_Request *request)
{
    mp_comm *comm;
    mp_datatype *dt;
    int stripe;
    if (request == NULL || (stripe = enter(buf, count, type_h, dest, tag, comm_h, 0, &comm,
                                           &dt)) < 0)
        return MP_LANE_GIVE_UP;
    int rc = mp_send_fast_in_lane(buf, count, dt, dest, tag, comm, (unsigned)stripe);
    if (rc == MPI_SUCCESS)
        *request = mp_request_handle(mp_request_done_send());
    leave(stripe, rc);
    return rc;
}

int mp_lane_irecv(void *buf, MPI_Aint count, MPI_Datatype type_h, int source, int tag,
                  MPI_Comm comm_h, MPI_Request *request)
{
    mp_comm *comm;
    mp_datatype *dt;
    mp_request *req;
    int stripe;
    if (request == NULL || (stripe = enter(buf, count, type_h, source, tag, comm_h, 1, &comm,
                                           &dt)) < 0)
        return MP_LANE_GIVE_UP;
    int rc = mp_irecv_in_lane(buf, count, dt, source, tag, comm, (unsigned)stripe, &req);
    if (rc == MPI_SUCCESS)
        *request = mp_request_handle(req);
    leave(stripe, rc);
    return rc;
}

/* The requests of a completion call, when a lane can finish them: *stripe is the stripe of
 * their receives' contexts (-1: no receive among them).  Only the request's kind, context
 * and hook are read here, which do not change while the user holds the handle. */
static int completable(int count, const MPI_Request reqs[], int *stripe)
{
    *stripe = -1;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        mp_request *r = mp_request_get(reqs[i]);
        if (r == NULL)                     /* a bad handle: the general path reports it */
            return 0;
        if (mp_request_is_done_send(r))
            continue;
        if (r->kind != MP_REQ_RECV || r->on_complete != NULL)
            return 0;
        int s = (int)mp_lane_stripe_of_request(r);
        if (*stripe >= 0 && s != *stripe)
            return 0;
        *stripe = s;
    }
    return 1;
}

/* One step over the receives among reqs, from *first, the first one not known complete:
 * drains that receive's source and moves *first past what is complete.  1 when all are
 * complete without error, 0 when *first is not complete, -1 when the head of its source's
 * ring needs the big lock or a request failed (the general path reports it).  A fruitless
 * step costs one drain however many requests there are. */
static int pass(int count, const MPI_Request reqs[], unsigned stripe, int *first, int *taken)
{
    *taken = 0;
    for (; *first < count; (*first)++) {
        mp_request *r = reqs[*first] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[*first]);
        if (r == NULL || mp_request_is_done_send(r))
            continue;
        if (!mp_request_is_done(r)) {
            if (r->peer < 0 || r->comm->is_inter)
                return 0;                  /* a wildcard: filled by a source's drain, if any */
            int n = mp_drain_in_lane(r->comm->world[r->peer], stripe);
            if (n < 0)
                return -1;
            *taken += n;
            if (!mp_request_is_done(r))
                return 0;
        }
        if (r->status.MPI_ERROR != MPI_SUCCESS)
            return -1;
    }
    return 1;
}

/* Hands out the statuses and retires the requests, all complete and without error (pass). */
static void finish(int count, MPI_Request reqs[], MPI_Status statuses[], unsigned stripe)
{
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
        if (r == NULL) {
            if (st != MPI_STATUS_IGNORE)
                mp_status_empty(st);
            continue;
        }
        mp_status_copy(st, &r->status);
        mp_request_free_in_lane(r, stripe);
        reqs[i] = MPI_REQUEST_NULL;
    }
}

/* MPI_Waitall (wait) and MPI_Testall (!wait) in a lane; MPI_Wait and MPI_Test are the case
 * count 1. */
static int complete_all(int count, MPI_Request reqs[], MPI_Status statuses[], int wait)
{
    int stripe;
    if (!mp_world.initialized || mp_world.finalized || count < 0 || (count > 0 && reqs == NULL) ||
        !completable(count, reqs, &stripe))
        return MP_LANE_GIVE_UP;
    if (stripe < 0) {                      /* nothing but null and completed sends */
        finish(count, reqs, statuses, 0);
        return MPI_SUCCESS;
    }
    if (!mp_lane_enter((unsigned)stripe))
        return MP_LANE_GIVE_UP;
    int rc = MP_LANE_GIVE_UP, taken, first = 0;
    for (unsigned spins = 0;;) {
        int done = pass(count, reqs, (unsigned)stripe, &first, &taken);
        if (done > 0) {
            finish(count, reqs, statuses, (unsigned)stripe);
            rc = MPI_SUCCESS;
            break;
        }
        if (done < 0 || !wait)
            break;
        if (taken)
            continue;
        if (!mp_idle_spin(&spins) || spins >= LANE_WAIT_SPINS || mp_lane_writer_waiting())
            break;
    }
    leave(stripe, rc);
    return rc;
}

int mp_lane_wait(MPI_Request *request, MPI_Status *status)
{
    return request ? complete_all(1, request, status, 1) : MP_LANE_GIVE_UP;
}

int mp_lane_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (request == NULL || flag == NULL || complete_all(1, request, status, 0) != MPI_SUCCESS)
        return MP_LANE_GIVE_UP;
    *flag = 1;
    return MPI_SUCCESS;
}

int mp_lane_waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    return complete_all(count, reqs, statuses, 1);
}

int mp_lane_testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (flag == NULL || complete_all(count, reqs, statuses, 0) != MPI_SUCCESS)
        return MP_LANE_GIVE_UP;
    *flag = 1;
    return MPI_SUCCESS;
}

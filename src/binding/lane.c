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
 * points that try a lane first say so in their description (lane= in pt2pt.spec).
 */
#include "binding/binding.h"

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

/* Runs in the lane of comm's stripe, if it can get in: the stripe, or -1.  The handles were
 * resolved before (a live handle's object and its fields are not written while the handle is
 * in use, except the context of a communicator an MPI_Comm_idup completes: checked again
 * inside, where no writer runs). */
static int enter(const mp_comm *comm, int ctx)
{
    unsigned stripe = mp_lane_stripe_of(comm);
    if (!mp_lane_enter(stripe))
        return -1;
    if (comm->ctx != ctx) {
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
    int stripe;
    if (!resolve(buf, count, type_h, dest, tag, comm_h, 0, &comm, &dt) ||
        (stripe = enter(comm, comm->ctx)) < 0)
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
    int stripe;
    if (!resolve(buf, count, type_h, source, tag, comm_h, 1, &comm, &dt) ||
        (stripe = enter(comm, comm->ctx)) < 0)
        return MP_LANE_GIVE_UP;
    int rc = mp_recv_in_lane(buf, count, dt, source, tag, comm, status, (unsigned)stripe);
    leave(stripe, rc);
    return rc;
}

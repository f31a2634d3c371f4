/* persist.c -- persistent collectives (MPI-4: MPI_Bcast_init, MPI_Allreduce_init, ...).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A persistent collective is a nonblocking collective whose schedule is built once and run
 * many times.  The init call goes through the same entry point as the I-form (mp_ibcast, ...)
 * with *req already holding an inactive request of kind MP_REQ_PCOLL; mp_coll_finish sees it
 * and attaches the built schedule here instead of starting it.  Builders only append steps
 * and never touch user buffers while building, so a schedule run again from its first step
 * does the whole collective again, on the buffers' contents at that time.
 *
 * The request follows the model of persistent point-to-point requests (src/pt2pt/persistent.c)
 * so that the completion functions need nothing new: the persistent request is inactive
 * (done, inner == NULL) until MPI_Start; MPI_Start runs the schedule with a fresh request of
 * kind MP_REQ_COLL as req->inner; Wait/Test finish that inner request and leave the persistent
 * one inactive again.  The persistent request owns the schedule (req->sched) and a reference
 * on the communicator; the schedule holds the datatypes and the op.
 *
 * Tags: the schedule takes its position in the communicator's persistent sequence at init,
 * and every start reuses it (sched.c explains why that is safe), so starts of different
 * persistent requests need not be ordered like other collectives.
 */
#include "coll/coll_impl.h"

mp_request *mp_coll_persistent_new(mp_comm *comm)
{
    mp_request *req = mp_request_alloc(MP_REQ_PCOLL);
    if (!req)
        return NULL;
    req->comm = comm;
    req->sched = NULL;
    req->inner = NULL;
    atomic_fetch_add_explicit(&comm->refs, 1, memory_order_relaxed);
    mp_status_empty(&req->status);
    atomic_store_explicit(&req->done, 1, memory_order_relaxed);   /* inactive */
    return req;
}

int mp_coll_persist(mp_sched *s, int err, mp_request *req)
{
    mp_sched_persist(s);              /* takes the init call's position, even on error */
    if (err != MPI_SUCCESS) {
        mp_sched_free(s);
        return err;
    }
    req->sched = s;
    return MPI_SUCCESS;
}

int mp_coll_start(mp_request *req)
{
    mp_sched *s = req->sched;
    if (!s)
        return mp_error_code(MPI_ERR_REQUEST, "persistent collective request has no operation");
    if (req->inner || mp_sched_active(s))
        return mp_error_code(MPI_ERR_REQUEST, "persistent collective request is already active");
    int err = mp_sched_restart(s, &req->inner);
    if (err != MPI_SUCCESS)
        req->inner = NULL;
    return err;
}

int mp_coll_persistent_free(mp_request *req)
{
    mp_sched *s = req->sched;
    if (req->inner) {
        if (!mp_request_is_done(req->inner))
            return mp_error_code(MPI_ERR_REQUEST, "persistent collective request is active "
                                 "(complete it before freeing it)");
        mp_request_free(req->inner);
        req->inner = NULL;
    }
    if (s)
        mp_sched_free(s);
    req->sched = NULL;
    mp_comm_release(req->comm);
    mp_request_free(req);
    return MPI_SUCCESS;
}

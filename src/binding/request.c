/* request.c -- completion of user requests: Wait/Test in all their forms, Request_free,
 * Cancel, generalized requests.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/request.spec; these functions raise their
 * errors themselves (eh=self), because the handler is the communicator of the request that
 * failed, which only they know.
 * Three kinds of user request reach these functions:
 *   ordinary   (sends, receives, nonblocking collectives): complete when `done` is set;
 *              finishing frees them and resets the user's handle to MPI_REQUEST_NULL;
 *   persistent (MPI_*_init): inactive counts as complete with an empty status; finishing
 *              frees the active operation (req->inner) and keeps the handle; partitioned
 *              requests (MPI_Psend_init, MPI_Precv_init) are persistent ones whose state
 *              pt2pt/part.c keeps;
 *   generalized (MPI_Grequest_start): complete when MPI_Grequest_complete was called;
 *              finishing calls the user's query and free functions.
 * Every function below is written once in terms of req_done() and req_finish(), so the
 * any/some/all variants cannot disagree about what "complete" means.
 */
#include "binding/binding.h"
#include "io/io.h"
#include <stdlib.h>

typedef struct mp_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
} mp_greq;

static int is_persistent(const mp_request *r)
{
    return r->kind == MP_REQ_PSEND || r->kind == MP_REQ_PRECV || r->kind == MP_REQ_PCOLL ||
           r->kind == MP_REQ_PART;
}

/* Active means "could still complete": inactive persistent requests are not active. */
static int req_active(const mp_request *r)
{
    if (r->kind == MP_REQ_PART)
        return mp_part_active(r);
    return !is_persistent(r) || r->inner != NULL;
}

static int req_done(const mp_request *r)
{
    if (r->kind == MP_REQ_PART)
        return mp_part_done(r);
    if (is_persistent(r))
        return r->inner == NULL || mp_request_is_done(r->inner);
    return mp_request_is_done(r);
}

/* Hands a complete request's status to the user and retires it; returns the request's
 * error, which the status does not get (mp_status_copy). */
static int req_finish(mp_request *r, MPI_Request *handle, MPI_Status *status)
{
    int err;
    if (r->kind == MP_REQ_PART)
        return mp_part_finish(r, status);
    if (is_persistent(r)) {
        if (r->inner == NULL) {
            if (status != MPI_STATUS_IGNORE)
                mp_status_empty(status);
            return MPI_SUCCESS;
        }
        err = r->inner->status.MPI_ERROR;
        mp_status_copy(status, &r->inner->status);
        mp_request_free(r->inner);
        r->inner = NULL;
        return err;
    }
    if (r->kind == MP_REQ_GREQ) {
        mp_greq *g = r->greq;
        MPI_Status st;
        mp_status_empty(&st);
        st.MPI_SOURCE = MPI_UNDEFINED;
        st.MPI_TAG = MPI_UNDEFINED;
        err = g->query ? g->query(g->extra, &st) : MPI_SUCCESS;
        int ferr = g->free_fn ? g->free_fn(g->extra) : MPI_SUCCESS;
        if (err == MPI_SUCCESS)
            err = ferr;
        mp_status_copy(status, &st);
        free(g);
    } else {
        err = r->status.MPI_ERROR;
        mp_status_copy(status, &r->status);
    }
    mp_request_free(r);
    *handle = MPI_REQUEST_NULL;
    return err;
}

/* Resolves a handle; MPI_REQUEST_NULL gives NULL with no error. */
static int lookup(const char *F, MPI_Request h, mp_request **out)
{
    *out = NULL;
    if (h == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    mp_request *r = mp_request_get(h);
    if (r == NULL || r->kind == MP_REQ_PROBE)
        return mp_error(NULL, MPI_ERR_REQUEST, F, "invalid request handle 0x%x", (unsigned)h);
    *out = r;
    return MPI_SUCCESS;
}

/* Every handle of an array (count and array checked by the description). */
static int check_array(const char *F, int count, const MPI_Request reqs[])
{
    int err;
    for (int i = 0; i < count; i++) {
        mp_request *r;
        if ((err = lookup(F, reqs[i], &r)))
            return err;
    }
    return MPI_SUCCESS;
}

static mp_comm *err_comm(const mp_request *r)
{
    const mp_request *op = is_persistent(r) && r->inner ? r->inner : r;
    return op->comm;
}

/* A failed request's error goes through its communicator's handler, a file access's through
 * its file's (MPI 4.0 9.3; MPI_FILE_NULL's when the file was closed meanwhile).  owner: the
 * file of an MP_REQ_FILE request, taken before the request is finished. */
static void *err_file(const mp_request *r)
{
    return r->kind == MP_REQ_FILE ? r->owner : NULL;
}

static int raise_req(mp_comm *comm, void *file, const char *F, int err)
{
    if (err == MPI_SUCCESS)
        return err;
    return file ? mp_io_raise(mp_io_get((MPI_File)file), err, F) : mp_error_raise(comm, err, F);
}

static MPI_Status *status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

static void empty_status(MPI_Status *st)
{
    if (st != MPI_STATUS_IGNORE)
        mp_status_empty(st);
}

/* Waits for r; `offer`: this rank may help a peer's large copy meanwhile (pt2pt.h,
 * mp_wait_may_offer). */
static void wait_done(mp_request *r, int offer)
{
    unsigned spins = 0;
    if (req_done(r))
        return;
    if (offer)
        mp_wait_offer(1);
    /* A generalized request is completed by user code, not by a packet: never sleep for it. */
    while (!req_done(r))
        if (mp_progress() == 0) {
            if (r->kind == MP_REQ_GREQ)
                mp_idle(&spins);
            else
                mp_idle_packet(&spins);
        }
    if (offer)
        mp_wait_offer(0);
}

/* Waits for (flag NULL) or tests one request. */
static inline int complete_one(const char *F, MPI_Request *request, int *flag,
                               MPI_Status *status)
{
    mp_request *r;
    int err = lookup(F, *request, &r);
    if (err)
        return err;
    if (r == NULL) {
        if (flag)
            *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!flag) {
        wait_done(r, mp_wait_may_offer(r->kind == MP_REQ_SEND, r->kind == MP_REQ_RECV));
    } else {
        if (!req_done(r))
            mp_progress();
        if (!(*flag = req_done(r)))
            return MPI_SUCCESS;
    }
    mp_comm *comm = err_comm(r);
    void *file = err_file(r);
    return raise_req(comm, file, F, req_finish(r, request, status));
}

int mp_do_wait(const char *F, MPI_Request *request, MPI_Status *status)
{
    return complete_one(F, request, NULL, status);
}

int mp_do_test(const char *F, MPI_Request *request, int *flag, MPI_Status *status)
{
    return complete_one(F, request, flag, status);
}

/* Finishes the complete requests reqs[at[k]] (at == NULL: reqs[k]; null handles give empty
 * statuses) into statuses[k], k < n.  The statuses' MPI_ERROR fields are written if and only
 * if one of them failed (MPI 4.0 3.2.5), and then the call returns exactly MPI_ERR_IN_STATUS
 * (3.7.5), which programs compare with ==; the specific codes stay in the statuses. */
static int finish_list(const char *F, int n, MPI_Request reqs[], const int at[],
                       MPI_Status statuses[])
{
    mp_comm *bad = NULL;
    void *bad_file = NULL;
    for (int k = 0; k < n; k++) {
        int i = at ? at[k] : k, e = MPI_SUCCESS;
        mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
        MPI_Status *st = status_at(statuses, k);
        if (r == NULL) {
            empty_status(st);
        } else {
            mp_comm *comm = err_comm(r);
            void *file = err_file(r);
            e = req_finish(r, &reqs[i], st);
            if (e != MPI_SUCCESS && bad == NULL) {
                bad = comm;
                bad_file = file;
                for (int j = 0; j < k && statuses != MPI_STATUSES_IGNORE; j++)
                    statuses[j].MPI_ERROR = MPI_SUCCESS;
            }
        }
        if (bad && st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = e;
    }
    return bad ? raise_req(bad, bad_file, F, MPI_ERR_IN_STATUS) : MPI_SUCCESS;
}

int mp_do_waitall(const char *F, int count, MPI_Request reqs[], MPI_Status statuses[])
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    int nsends = 0, nrecvs = 0, others = 0;
    for (int i = 0; i < count; i++) {
        mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
        if (r && !req_done(r)) {
            nsends += r->kind == MP_REQ_SEND;
            nrecvs += r->kind == MP_REQ_RECV;
            others += r->kind != MP_REQ_SEND && r->kind != MP_REQ_RECV;
        }
    }
    int offer = !others && mp_wait_may_offer(nsends, nrecvs);
    for (int i = 0; i < count; i++) {
        mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
        if (r)
            wait_done(r, offer);
    }
    return finish_list(F, count, reqs, NULL, statuses);
}

int mp_do_testall(const char *F, int count, MPI_Request reqs[], int *flag,
                  MPI_Status statuses[])
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    mp_progress();
    for (int i = 0; i < count; i++) {
        mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
        if (r && !req_done(r)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_list(F, count, reqs, NULL, statuses);
}

/* reqs[i] if it is an active request (not null, not an inactive persistent one), else NULL. */
static mp_request *active_at(MPI_Request reqs[], int i)
{
    mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
    return r && req_active(r) ? r : NULL;
}

/* One scan for Waitany/Testany: index of a complete active request, -1 if none is complete,
 * -2 if no request is active. */
static int scan_any(int count, MPI_Request reqs[])
{
    int any = 0;
    for (int i = 0; i < count; i++) {
        mp_request *r = active_at(reqs, i);
        any |= r != NULL;
        if (r && req_done(r))
            return i;
    }
    return any ? -1 : -2;
}

static int finish_one(const char *F, MPI_Request reqs[], int i, int *index, MPI_Status *status)
{
    mp_request *r = mp_request_get(reqs[i]);
    mp_comm *comm = err_comm(r);
    void *file = err_file(r);
    *index = i;
    return raise_req(comm, file, F, req_finish(r, &reqs[i], status));
}

int mp_do_waitany(const char *F, int count, MPI_Request reqs[], int *index,
                  MPI_Status *status)
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    unsigned spins = 0;
    for (;;) {
        int i = scan_any(count, reqs);
        if (i == -2) {
            *index = MPI_UNDEFINED;
            empty_status(status);
            return MPI_SUCCESS;
        }
        if (i >= 0)
            return finish_one(F, reqs, i, index, status);
        if (mp_progress() == 0)
            mp_idle(&spins);
    }
}

int mp_do_testany(const char *F, int count, MPI_Request reqs[], int *index, int *flag,
                  MPI_Status *status)
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    mp_progress();
    int i = scan_any(count, reqs);
    if (i == -2) {
        *flag = 1;
        *index = MPI_UNDEFINED;
        empty_status(status);
        return MPI_SUCCESS;
    }
    *flag = i >= 0;
    if (i < 0) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return finish_one(F, reqs, i, index, status);
}

/* Finishes all complete active requests; *outcount = how many, MPI_UNDEFINED if none active. */
static int some(const char *F, int count, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], int wait)
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    unsigned spins = 0;
    mp_progress();
    for (;;) {
        int any = 0, n = 0;
        for (int i = 0; i < count; i++) {
            mp_request *r = active_at(reqs, i);
            any |= r != NULL;
            if (r && req_done(r))
                indices[n++] = i;
        }
        if (!any) {
            *outcount = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        if (n > 0 || !wait) {
            *outcount = n;
            return finish_list(F, n, reqs, indices, statuses);
        }
        if (mp_progress() == 0)
            mp_idle(&spins);
    }
}

int mp_do_waitsome(const char *F, int incount, MPI_Request reqs[], int *outcount,
                   int indices[], MPI_Status statuses[])
{
    return some(F, incount, reqs, outcount, indices, statuses, 1);
}

int mp_do_testsome(const char *F, int incount, MPI_Request reqs[], int *outcount,
                   int indices[], MPI_Status statuses[])
{
    return some(F, incount, reqs, outcount, indices, statuses, 0);
}

/* The status a complete active request will finish with, leaving the request as it is. */
static void peek_status(mp_request *r, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    if (r->kind == MP_REQ_GREQ) {
        mp_greq *g = r->greq;
        MPI_Status st;
        mp_status_empty(&st);
        if (g->query)
            g->query(g->extra, &st);
        mp_status_copy(status, &st);
    } else if (r->kind == MP_REQ_PART) {
        mp_part_status(r, status);
    } else {
        mp_status_copy(status, is_persistent(r) ? &r->inner->status : &r->status);
    }
}

int mp_do_request_get_status(const char *F, MPI_Request request, int *flag,
                             MPI_Status *status)
{
    mp_request *r;
    int err = lookup(F, request, &r);
    if (err)
        return err;
    if (r == NULL || !req_active(r)) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!req_done(r))
        mp_progress();
    *flag = req_done(r);
    if (*flag)
        peek_status(r, status);
    return MPI_SUCCESS;
}

/* MPI 4.1's Request_get_status_any/all/some: Testany/all/some without finishing anything.
 * A null or inactive request counts as one with an empty status, as in the Test forms. */
static mp_request *peek_at(const MPI_Request reqs[], int i)
{
    mp_request *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mp_request_get(reqs[i]);
    return r && req_active(r) ? r : NULL;
}

int mp_do_request_get_status_any(const char *F, int count, const MPI_Request reqs[],
                                 int *index, int *flag, MPI_Status *status)
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    mp_progress();
    int any = 0;
    for (int i = 0; i < count; i++) {
        mp_request *r = peek_at(reqs, i);
        any |= r != NULL;
        if (r && req_done(r)) {
            *flag = 1;
            *index = i;
            peek_status(r, status);
            return MPI_SUCCESS;
        }
    }
    *flag = !any;
    *index = MPI_UNDEFINED;
    if (!any && status != MPI_STATUS_IGNORE) {   /* empty, its error field too (as MPICH) */
        empty_status(status);
        status->MPI_ERROR = MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

int mp_do_request_get_status_all(const char *F, int count, const MPI_Request reqs[],
                                 int *flag, MPI_Status statuses[])
{
    int err = check_array(F, count, reqs);
    if (err)
        return err;
    mp_progress();
    for (int i = 0; i < count; i++) {
        mp_request *r = peek_at(reqs, i);
        if (r && !req_done(r)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    for (int i = 0; statuses != MPI_STATUSES_IGNORE && i < count; i++) {
        mp_request *r = peek_at(reqs, i);
        if (r)
            peek_status(r, &statuses[i]);
        else
            empty_status(&statuses[i]);
    }
    return MPI_SUCCESS;
}

int mp_do_request_get_status_some(const char *F, int incount, const MPI_Request reqs[],
                                  int *outcount, int indices[], MPI_Status statuses[])
{
    int err = check_array(F, incount, reqs);
    if (err)
        return err;
    mp_progress();
    int any = 0, n = 0;
    for (int i = 0; i < incount; i++) {
        mp_request *r = peek_at(reqs, i);
        any |= r != NULL;
        if (r && req_done(r)) {
            if (statuses != MPI_STATUSES_IGNORE)
                peek_status(r, &statuses[n]);
            indices[n++] = i;
        }
    }
    *outcount = any ? n : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static void free_when_complete(mp_request *r)
{
    mp_request_free(r);
}

/* The description resolves the request and resets the handle when this succeeds. */
int mp_do_request_free(const char *F, mp_request *r)
{
    int err;
    if (r->kind == MP_REQ_PCOLL) {        /* persistent collective: src/coll/persist.c */
        if ((err = mp_coll_persistent_free(r)))
            return mp_error_raise(r->comm, err, F);
    } else if (r->kind == MP_REQ_PART) {  /* src/pt2pt/part.c */
        if (mp_part_active(r) && !mp_part_done(r))
            return mp_error(r->comm, MPI_ERR_REQUEST, F, "partitioned request 0x%x is active "
                            "and not complete", (unsigned)r->handle);
        mp_part_free(r);
    } else if (is_persistent(r)) {
        mp_request *inner = r->inner;
        if (inner) {                      /* the operation goes on; free it when it ends */
            if (mp_request_is_done(inner))
                mp_request_free(inner);
            else
                inner->on_complete = free_when_complete;
        }
        mp_persistent_free(r);
    } else if (r->kind == MP_REQ_GREQ) {
        mp_greq *g = r->greq;
        if (g->free_fn)
            g->free_fn(g->extra);
        free(g);
        mp_request_free(r);
    } else if (mp_request_is_done(r)) {
        mp_request_free(r);
    } else {
        mp_table_remove(&mp_request_table, r->handle);
        r->handle = 0;
        r->on_complete = free_when_complete;
    }
    return MPI_SUCCESS;
}

int mp_do_cancel(const char *F, mp_request *r)
{
    if (r->kind == MP_REQ_GREQ) {
        mp_greq *g = r->greq;
        return g->cancel ? g->cancel(g->extra, mp_request_is_done(r)) : MPI_SUCCESS;
    }
    if (is_persistent(r) && r->kind != MP_REQ_PCOLL)
        return r->inner ? mp_cancel(r->inner) : MPI_SUCCESS;
    if (r->kind == MP_REQ_SEND || r->kind == MP_REQ_RECV)
        return mp_cancel(r);
    if (r->kind == MP_REQ_FILE)
        return mp_io_cancel(r);
    return MPI_SUCCESS;                    /* collectives cannot be cancelled */
}

int mp_do_grequest_start(const char *F, MPI_Grequest_query_function *query_fn,
                         MPI_Grequest_free_function *free_fn,
                         MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                         mp_request **req)
{
    mp_greq *g = mp_malloc(sizeof *g);
    g->query = query_fn;
    g->free_fn = free_fn;
    g->cancel = cancel_fn;
    g->extra = extra_state;
    mp_request *r = mp_request_alloc(MP_REQ_GREQ);
    r->greq = g;
    r->comm = mp_world.comm_world;
    *req = r;
    return MPI_SUCCESS;
}

int mp_do_grequest_complete(const char *F, MPI_Request request)
{
    mp_request *r;
    int err = lookup(F, request, &r);
    if (err)
        return err;
    if (r == NULL || r->kind != MP_REQ_GREQ)
        return mp_error(NULL, MPI_ERR_REQUEST, F, "request 0x%x is not a generalized request",
                        (unsigned)request);
    mp_request_complete(r);
    return MPI_SUCCESS;
}

/* rma.c -- what the one-sided entry points do beyond their description.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * src/binding/rma.spec describes every one-sided function; most call the rma layer
 * (src/rma/rma.h) directly.  What is left here: the creation calls, which publish the new
 * window's handle; the error handlers of windows; and the operations,
 * whose arguments that need no window state (types, counts, the target rank and
 * displacement, the op) are checked by op_args before the layer checks the rest.  Like the
 * layer, these functions return error codes and raise nothing: the generated entry point
 * raises through the window's handler, or the communicator's for a creation.
 */
#include "binding/binding.h"
#include "rma/rma.h"

/* ---- creation ---------------------------------------------------------------------------- */

/* The handle of a created window for the caller (w is read after the creation returned). */
static int publish(int err, mp_win *const *w, MPI_Win *win)
{
    if (!err)
        *win = mp_win_handle(*w);
    return err;
}

int mp_do_win_create(const char *F, void *base, MPI_Aint size, MPI_Aint disp_unit,
                     MPI_Info info, mp_comm *comm, MPI_Win *win)
{
    mp_win *w = NULL;
    return publish(mp_win_create(F, base, size, disp_unit, info, comm, &w), &w, win);
}

static int allocate(const char *F, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                    mp_comm *comm, int shared, void *baseptr, MPI_Win *win)
{
    mp_win *w = NULL;
    void *base = NULL;
    int err = mp_win_allocate(F, size, disp_unit, info, comm, shared, &base, &w);
    *(void **)baseptr = base;
    return publish(err, &w, win);
}

int mp_do_win_allocate(const char *F, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                       mp_comm *comm, void *baseptr, MPI_Win *win)
{
    return allocate(F, size, disp_unit, info, comm, 0, baseptr, win);
}

int mp_do_win_allocate_shared(const char *F, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                              mp_comm *comm, void *baseptr, MPI_Win *win)
{
    return allocate(F, size, disp_unit, info, comm, 1, baseptr, win);
}

int mp_do_win_create_dynamic(const char *F, MPI_Info info, mp_comm *comm, MPI_Win *win)
{
    mp_win *w = NULL;
    return publish(mp_win_create_dynamic(F, info, comm, &w), &w, win);
}

/* ---- error handlers ------------------------------------------------------------------------ */

int mp_do_win_set_errhandler(const char *F, mp_win *win, MPI_Errhandler eh)
{
    if (mp_errhandler_check(eh, MP_EH_WIN))
        return mp_err(F, MPI_ERR_ARG, "invalid window error handler 0x%x", (unsigned)eh);
    mp_errhandler_retain(eh);
    mp_win_set_errhandler(win, eh);
    return MPI_SUCCESS;
}

int mp_do_win_get_errhandler(const char *F, mp_win *win, MPI_Errhandler *eh)
{
    mp_errhandler_retain(mp_win_errhandler(win));
    *eh = mp_win_errhandler(win);
    return MPI_SUCCESS;
}

/* The handler is called with `code` and the call itself succeeds. */
int mp_do_win_call_errhandler(const char *F, mp_win *win, int code)
{
    mp_win_raise(win, code, F);
    return MPI_SUCCESS;
}

/* ---- operations -------------------------------------------------------------------------- */

/* Every operation's common checks; fills the datatypes of `a` from the handles.  The origin
 * arguments of an accumulate with MPI_NO_OP are ignored, as the standard says. */
static int op_args(const char *F, mp_win *w, mp_rma_args *a, MPI_Datatype odt,
                   MPI_Datatype tdt, MPI_Datatype rdt)
{
    int err;
    int accumulate = a->kind != MP_RMA_PUT && a->kind != MP_RMA_GET;
    if (accumulate && !mp_op_valid(a->op))
        return mp_err(F, MPI_ERR_OP, "invalid operation handle 0x%x", (unsigned)a->op);
    a->origin_dt = mp_datatype_get(MPI_BYTE);
    if (!(accumulate && a->op == MPI_NO_OP) &&
        (err = mp_datatype_check(F, odt, a->origin_count, &a->origin_dt)))
        return err;
    if ((err = mp_datatype_check(F, tdt, a->target_count, &a->target_dt)))
        return err;
    if (rdt != MPI_DATATYPE_NULL &&
        (err = mp_datatype_check(F, rdt, a->result_count, &a->result_dt)))
        return err;
    if (a->target != MPI_PROC_NULL && (a->target < 0 || a->target >= mp_win_comm(w)->size))
        return mp_err(F, MPI_ERR_RANK, "invalid target rank %d in a window of %d processes",
                      a->target, mp_win_comm(w)->size);
    if (a->disp < 0)
        return mp_err(F, MPI_ERR_DISP, "invalid target displacement %ld (must be >= 0)",
                      (long)a->disp);
    return MPI_SUCCESS;
}

/* req: NULL, or the request form's (MPI_Rput ...) request to set; a request the layer made
 * for a failed call is freed. */
static int run_op(const char *F, mp_win *w, mp_rma_args *a, MPI_Datatype odt,
                  MPI_Datatype tdt, MPI_Datatype rdt, mp_request **req)
{
    int err = op_args(F, w, a, odt, tdt, rdt);
    if (err)
        return err;
    err = mp_rma_op(F, w, a, req);
    if (err && req && *req) {
        mp_request_free(*req);
        *req = NULL;
    }
    return err;
}

static int put_get(const char *F, int kind, const void *oaddr, MPI_Aint ocount,
                   MPI_Datatype odt, int target, MPI_Aint disp, MPI_Aint tcount,
                   MPI_Datatype tdt, mp_win *win, mp_request **req)
{
    mp_rma_args a = { .kind = kind, .origin = oaddr, .get_buf = (void *)oaddr,
                      .origin_count = ocount, .target = target, .disp = disp,
                      .target_count = tcount };
    return run_op(F, win, &a, odt, tdt, MPI_DATATYPE_NULL, req);
}

int mp_do_put(const char *F, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt, int target,
              MPI_Aint disp, MPI_Aint tcount, MPI_Datatype tdt, mp_win *win, mp_request **req)
{
    return put_get(F, MP_RMA_PUT, oaddr, ocount, odt, target, disp, tcount, tdt, win, req);
}

int mp_do_get(const char *F, void *oaddr, MPI_Aint ocount, MPI_Datatype odt, int target,
              MPI_Aint disp, MPI_Aint tcount, MPI_Datatype tdt, mp_win *win, mp_request **req)
{
    return put_get(F, MP_RMA_GET, oaddr, ocount, odt, target, disp, tcount, tdt, win, req);
}

int mp_do_accumulate(const char *F, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt,
                     int target, MPI_Aint disp, MPI_Aint tcount, MPI_Datatype tdt, MPI_Op op,
                     mp_win *win, mp_request **req)
{
    mp_rma_args a = { .kind = MP_RMA_ACC, .origin = oaddr, .origin_count = ocount,
                      .target = target, .disp = disp, .target_count = tcount, .op = op };
    return run_op(F, win, &a, odt, tdt, MPI_DATATYPE_NULL, req);
}

int mp_do_get_accumulate(const char *F, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt,
                         void *raddr, MPI_Aint rcount, MPI_Datatype rdt, int target,
                         MPI_Aint disp, MPI_Aint tcount, MPI_Datatype tdt, MPI_Op op,
                         mp_win *win, mp_request **req)
{
    mp_rma_args a = { .kind = MP_RMA_GET_ACC, .origin = oaddr, .origin_count = ocount,
                      .result = raddr, .result_count = rcount, .target = target, .disp = disp,
                      .target_count = tcount, .op = op };
    return run_op(F, win, &a, odt, tdt, rdt, req);
}

int mp_do_fetch_and_op(const char *F, const void *oaddr, void *raddr, MPI_Datatype dt,
                       int target, MPI_Aint disp, MPI_Op op, mp_win *win)
{
    mp_rma_args a = { .kind = MP_RMA_FOP, .origin = oaddr, .origin_count = 1, .result = raddr,
                      .result_count = 1, .target = target, .disp = disp, .target_count = 1,
                      .op = op };
    return run_op(F, win, &a, dt, dt, dt, NULL);
}

int mp_do_compare_and_swap(const char *F, const void *oaddr, const void *caddr, void *raddr,
                           MPI_Datatype dt, int target, MPI_Aint disp, mp_win *win)
{
    mp_rma_args a = { .kind = MP_RMA_CAS, .origin = oaddr, .origin_count = 1, .compare = caddr,
                      .result = raddr, .result_count = 1, .target = target, .disp = disp,
                      .target_count = 1, .op = MPI_REPLACE };
    return run_op(F, win, &a, dt, dt, dt, NULL);
}

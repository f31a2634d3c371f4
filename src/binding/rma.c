/* rma.c -- one-sided entry points: windows, put/get/accumulates, synchronization.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Thin checks over src/rma/.  Arguments that need no window state (handles, counts, types,
 * pointers) are checked here; the layer checks what depends on the window (epochs, ranges,
 * the datatypes against the operation).  Errors of a call on a valid window go through the
 * window's error handler (mp_win_raise); errors before there is one (an invalid window
 * handle, a failed creation) through the communicator's, or MPI_COMM_WORLD's.  A creation
 * that fails leaves MPI_WIN_NULL in the output handle.  The large-count _c forms share the
 * checking functions of the int forms.
 */
#include "binding/binding.h"
#include "rma/rma.h"
#include <stdarg.h>
#include <string.h>

static int win_arg(const char *F, MPI_Win h, mp_win **out)
{
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    *out = mp_win_get(h);
    if (!*out)
        return mp_error(NULL, MPI_ERR_WIN, F, "invalid window handle 0x%x%s", (unsigned)h,
                        h == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");
    return MPI_SUCCESS;
}

static int win_error(mp_win *win, int cls, const char *F, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int win_error(mp_win *win, int cls, const char *F, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mp_win_raise(win, mp_error_code(cls, "%s: %s", F, text), F);
}

static int win_ptr(mp_win *win, const char *F, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : win_error(win, MPI_ERR_ARG, F, "%s is NULL", name);
}

static int win_type(mp_win *win, const char *F, MPI_Datatype h, MPI_Aint count,
                    mp_datatype **out)
{
    int err = mp_datatype_check(F, h, count, out);
    return err ? mp_win_raise(win, err, F) : MPI_SUCCESS;
}

/* ---- creation and free ----------------------------------------------------------------- */

static int create_args(const char *F, MPI_Comm comm_h, MPI_Aint size, MPI_Aint disp_unit,
                       MPI_Info info, const void *out, mp_comm **comm)
{
    int err;
    if ((err = mp_arg_comm(F, comm_h, comm)))
        return err;
    if (!out)
        return mp_error(*comm, MPI_ERR_ARG, F, "win is NULL");
    if (size < 0)
        return mp_error(*comm, MPI_ERR_SIZE, F, "invalid size %ld (must be >= 0)", (long)size);
    if (disp_unit <= 0)
        return mp_error(*comm, MPI_ERR_DISP, F, "invalid disp_unit %ld (must be > 0)",
                        (long)disp_unit);
    if (info != MPI_INFO_NULL && !mp_info_get(info))
        return mp_error(*comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    return MPI_SUCCESS;
}

static int publish(const char *F, mp_comm *comm, int err, mp_win *w, MPI_Win *win)
{
    *win = err ? MPI_WIN_NULL : mp_win_handle(w);
    return mp_ret(comm, F, err);
}

static int win_create(const char *F, void *base, MPI_Aint size, MPI_Aint disp_unit,
                      MPI_Info info, MPI_Comm comm_h, MPI_Win *win)
{
    MP_BIG_LOCK();
    mp_comm *comm;
    mp_win *w = NULL;
    int err = create_args(F, comm_h, size, disp_unit, info, win, &comm);
    if (err) {
        if (win)
            *win = MPI_WIN_NULL;
        return err;
    }
    if (size > 0 && !base)
        return publish(F, comm, mp_error_code(MPI_ERR_ARG, "%s: base is NULL for a window of "
                                              "%ld bytes", F, (long)size), NULL, win);
    err = mp_win_create(F, base, size, disp_unit, info, comm, &w);
    return publish(F, comm, err, w, win);
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return win_create("MPI_Win_create", base, size, disp_unit, info, comm, win);
}
#pragma weak MPI_Win_create = PMPI_Win_create

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win *win)
{
    return win_create("MPI_Win_create_c", base, size, disp_unit, info, comm, win);
}
#pragma weak MPI_Win_create_c = PMPI_Win_create_c

static int win_allocate(const char *F, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        MPI_Comm comm_h, void *baseptr, MPI_Win *win, int shared)
{
    MP_BIG_LOCK();
    mp_comm *comm;
    mp_win *w = NULL;
    int err = create_args(F, comm_h, size, disp_unit, info, win, &comm);
    if (!err && !baseptr)
        err = mp_error(comm, MPI_ERR_ARG, F, "baseptr is NULL");
    if (err) {
        if (win)
            *win = MPI_WIN_NULL;
        return err;
    }
    void *base = NULL;
    err = mp_win_allocate(F, size, disp_unit, info, comm, shared, &base, &w);
    *(void **)baseptr = base;
    return publish(F, comm, err, w, win);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    return win_allocate("MPI_Win_allocate", size, disp_unit, info, comm, baseptr, win, 0);
}
#pragma weak MPI_Win_allocate = PMPI_Win_allocate

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return win_allocate("MPI_Win_allocate_c", size, disp_unit, info, comm, baseptr, win, 0);
}
#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return win_allocate("MPI_Win_allocate_shared", size, disp_unit, info, comm, baseptr, win,
                        1);
}
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return win_allocate("MPI_Win_allocate_shared_c", size, disp_unit, info, comm, baseptr,
                        win, 1);
}
#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm_h, MPI_Win *win)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_create_dynamic";
    mp_comm *comm;
    mp_win *w = NULL;
    int err = create_args(F, comm_h, 0, 1, info, win, &comm);
    if (err) {
        if (win)
            *win = MPI_WIN_NULL;
        return err;
    }
    err = mp_win_create_dynamic(F, info, comm, &w);
    return publish(F, comm, err, w, win);
}
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic

int PMPI_Win_free(MPI_Win *win)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_free";
    mp_win *w;
    int err;
    if ((err = mp_arg_out(F, NULL, win, "win")) || (err = win_arg(F, *win, &w)))
        return err;
    err = mp_win_free(F, w);
    if (err)
        return mp_win_raise(w, err, F);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_free = PMPI_Win_free

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_attach";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)))
        return err;
    if (size < 0)
        return win_error(w, MPI_ERR_SIZE, F, "invalid size %ld (must be >= 0)", (long)size);
    if (size > 0 && !base)
        return win_error(w, MPI_ERR_ARG, F, "base is NULL");
    return mp_win_raise(w, mp_win_attach(F, w, base, size), F);
}
#pragma weak MPI_Win_attach = PMPI_Win_attach

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_detach";
    mp_win *w;
    int err = win_arg(F, win, &w);
    return err ? err : mp_win_raise(w, mp_win_detach(F, w, base), F);
}
#pragma weak MPI_Win_detach = PMPI_Win_detach

static int shared_query(const char *F, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void *baseptr)
{
    MP_BIG_LOCK();
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, size, "size")) ||
        (err = win_ptr(w, F, disp_unit, "disp_unit")) || (err = win_ptr(w, F, baseptr, "baseptr")))
        return err;
    return mp_win_raise(w, mp_win_shared_query(F, w, rank, size, disp_unit, (void **)baseptr), F);
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint du = 0;
    int err = shared_query("MPI_Win_shared_query", win, rank, size, &du, baseptr);
    if (!err && disp_unit)
        *disp_unit = (int)du;
    return err;
}
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}
#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c

/* ---- queries, names, attributes, info, error handlers ---------------------------------- */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_get_group";
    MP_OUT_NULL(group, MPI_GROUP_NULL);
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, group, "group")))
        return err;
    mp_group *g = mp_comm_local_group(mp_win_comm(w));
    if (!mp_group_publish(g))
        return win_error(w, MPI_ERR_NO_MEM, F, "too many groups");
    mp_group_retain(g);
    *group = g->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_group = PMPI_Win_get_group

int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_set_name";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, name, "win_name")))
        return err;
    snprintf(mp_win_name(w), MPI_MAX_OBJECT_NAME, "%s", name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_name = PMPI_Win_set_name

int PMPI_Win_get_name(MPI_Win win, char *name, int *resultlen)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_get_name";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, name, "win_name")) ||
        (err = win_ptr(w, F, resultlen, "resultlen")))
        return err;
    strcpy(name, mp_win_name(w));
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_name = PMPI_Win_get_name

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy, MPI_Win_delete_attr_function *del,
                           int *keyval, void *extra)
{
    static const char *const F = "MPI_Win_create_keyval";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = mp_arg_out(F, NULL, keyval, "win_keyval")))
        return err;
    if (mp_keyval_create(MP_OBJ_WIN, (mp_attr_copy_fn *)(void *)copy,
                         (mp_attr_delete_fn *)(void *)del, extra, keyval))
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many keyvals");
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Win_free_keyval(int *keyval)
{
    static const char *const F = "MPI_Win_free_keyval";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = mp_arg_out(F, NULL, keyval, "win_keyval")))
        return err;
    if (mp_keyval_is_predefined(*keyval))
        return mp_error(NULL, MPI_ERR_KEYVAL, F, "cannot free the predefined keyval 0x%x",
                        (unsigned)*keyval);
    if (mp_keyval_free(MP_OBJ_WIN, keyval))
        return mp_error(NULL, MPI_ERR_KEYVAL, F, "invalid window keyval 0x%x", (unsigned)*keyval);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *value)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_set_attr";
    mp_win *w;
    int err = win_arg(F, win, &w);
    return err ? err : mp_win_raise(w, mp_win_set_attr(F, w, keyval, value), F);
}
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_get_attr";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, value, "attribute_val")) ||
        (err = win_ptr(w, F, flag, "flag")))
        return err;
    return mp_win_raise(w, mp_win_get_attr(F, w, keyval, (void **)value, flag), F);
}
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_delete_attr";
    mp_win *w;
    int err = win_arg(F, win, &w);
    return err ? err : mp_win_raise(w, mp_win_delete_attr(F, w, keyval), F);
}
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_set_info";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)))
        return err;
    if (info != MPI_INFO_NULL && !mp_info_get(info))
        return win_error(w, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    return mp_win_raise(w, mp_win_set_info(F, w, info), F);
}
#pragma weak MPI_Win_set_info = PMPI_Win_set_info

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_get_info";
    MP_OUT_NULL(info, MPI_INFO_NULL);
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, info, "info_used")))
        return err;
    return mp_win_raise(w, mp_win_get_info(F, w, info), F);
}
#pragma weak MPI_Win_get_info = PMPI_Win_get_info

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *out)
{
    static const char *const F = "MPI_Win_create_errhandler";
    MP_OUT_NULL(out, MPI_ERRHANDLER_NULL);
    int err;
    if ((err = mp_arg_initialized(F)) || (err = mp_arg_out(F, NULL, out, "errhandler")))
        return err;
    if (!fn)
        return mp_error(NULL, MPI_ERR_ARG, F, "win_errhandler_fn is NULL");
    if (mp_errhandler_create(MP_EH_WIN, (mp_errhandler_fn *)(void *)fn, out))
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many error handlers");
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler eh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_set_errhandler";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)))
        return err;
    if (mp_errhandler_check(eh, MP_EH_WIN))
        return win_error(w, MPI_ERR_ARG, F, "invalid window error handler 0x%x", (unsigned)eh);
    mp_errhandler_retain(eh);
    mp_win_set_errhandler(w, eh);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *eh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_get_errhandler";
    MP_OUT_NULL(eh, MPI_ERRHANDLER_NULL);
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, eh, "errhandler")))
        return err;
    mp_errhandler_retain(mp_win_errhandler(w));
    *eh = mp_win_errhandler(w);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler

int PMPI_Win_call_errhandler(MPI_Win win, int code)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_call_errhandler";
    mp_win *w;
    int err = win_arg(F, win, &w);
    if (err)
        return err;
    mp_win_raise(w, code, F);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler

/* ---- operations ------------------------------------------------------------------------ */

/* Every operation's common checks; fills the datatypes of `a` from the handles.  The
 * origin arguments of an accumulate with MPI_NO_OP are ignored, as the standard says. */
static int op_args(const char *F, mp_win **w, MPI_Win win, mp_rma_args *a, MPI_Datatype odt,
                   MPI_Datatype tdt, MPI_Datatype rdt, int rform, MPI_Request *request)
{
    int err;
    if ((err = win_arg(F, win, w)))
        return err;
    if (rform && !request)
        return win_error(*w, MPI_ERR_REQUEST, F, "invalid request pointer NULL");
    int accumulate = a->kind != MP_RMA_PUT && a->kind != MP_RMA_GET;
    if (accumulate && !mp_op_valid(a->op))
        return win_error(*w, MPI_ERR_OP, F, "invalid operation handle 0x%x", (unsigned)a->op);
    a->origin_dt = mp_datatype_get(MPI_BYTE);
    if (!(accumulate && a->op == MPI_NO_OP) &&
        (err = win_type(*w, F, odt, a->origin_count, &a->origin_dt)))
        return err;
    if ((err = win_type(*w, F, tdt, a->target_count, &a->target_dt)))
        return err;
    if (rdt != MPI_DATATYPE_NULL && (err = win_type(*w, F, rdt, a->result_count, &a->result_dt)))
        return err;
    if (a->target != MPI_PROC_NULL &&
        (a->target < 0 || a->target >= mp_win_comm(*w)->size))
        return win_error(*w, MPI_ERR_RANK, F, "invalid target rank %d in a window of %d "
                         "processes", a->target, mp_win_comm(*w)->size);
    if (a->disp < 0)
        return win_error(*w, MPI_ERR_DISP, F, "invalid target displacement %ld (must be >= 0)",
                         (long)a->disp);
    return MPI_SUCCESS;
}

/* rform: the request form (MPI_Rput ...), which must be given a request pointer. */
static int run_op(const char *F, MPI_Win win, mp_rma_args *a, MPI_Datatype odt,
                  MPI_Datatype tdt, MPI_Datatype rdt, int rform, MPI_Request *request)
{
    MP_BIG_LOCK();
    mp_win *w;
    int err = op_args(F, &w, win, a, odt, tdt, rdt, rform, request);
    if (err) {
        if (request)
            *request = MPI_REQUEST_NULL;
        return err;
    }
    mp_request *r = NULL;
    err = mp_rma_op(F, w, a, rform ? &r : NULL);
    if (rform)
        *request = err || !r ? MPI_REQUEST_NULL : mp_request_handle(r);
    if (err && r)
        mp_request_free(r);
    return mp_win_raise(w, err, F);
}

static int put_get(const char *F, int kind, const void *oaddr, MPI_Aint ocount,
                   MPI_Datatype odt, int target, MPI_Aint disp, MPI_Aint tcount,
                   MPI_Datatype tdt, MPI_Win win, int rform, MPI_Request *request)
{
    mp_rma_args a = { .kind = kind, .origin = oaddr, .get_buf = (void *)oaddr,
                      .origin_count = ocount, .target = target, .disp = disp,
                      .target_count = tcount };
    return run_op(F, win, &a, odt, tdt, MPI_DATATYPE_NULL, rform, request);
}

int PMPI_Put(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
             int tcount, MPI_Datatype tdt, MPI_Win win)
{
    return put_get("MPI_Put", MP_RMA_PUT, oaddr, ocount, odt, target, disp, tcount, tdt,
                   win, 0, NULL);
}
#pragma weak MPI_Put = PMPI_Put

int PMPI_Put_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    return put_get("MPI_Put_c", MP_RMA_PUT, oaddr, ocount, odt, target, disp, tcount, tdt,
                   win, 0, NULL);
}
#pragma weak MPI_Put_c = PMPI_Put_c

int PMPI_Rput(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
              int tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *request)
{
    return put_get("MPI_Rput", MP_RMA_PUT, oaddr, ocount, odt, target, disp, tcount, tdt, win,
                   1, request);
}
#pragma weak MPI_Rput = PMPI_Rput

int PMPI_Rput_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target,
                MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Win win,
                MPI_Request *request)
{
    return put_get("MPI_Rput_c", MP_RMA_PUT, oaddr, ocount, odt, target, disp, tcount, tdt,
                   win, 1, request);
}
#pragma weak MPI_Rput_c = PMPI_Rput_c

int PMPI_Get(void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
             MPI_Datatype tdt, MPI_Win win)
{
    return put_get("MPI_Get", MP_RMA_GET, oaddr, ocount, odt, target, disp, tcount, tdt,
                   win, 0, NULL);
}
#pragma weak MPI_Get = PMPI_Get

int PMPI_Get_c(void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    return put_get("MPI_Get_c", MP_RMA_GET, oaddr, ocount, odt, target, disp, tcount, tdt,
                   win, 0, NULL);
}
#pragma weak MPI_Get_c = PMPI_Get_c

int PMPI_Rget(void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
              MPI_Datatype tdt, MPI_Win win, MPI_Request *request)
{
    return put_get("MPI_Rget", MP_RMA_GET, oaddr, ocount, odt, target, disp, tcount, tdt, win,
                   1, request);
}
#pragma weak MPI_Rget = PMPI_Rget

int PMPI_Rget_c(void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *request)
{
    return put_get("MPI_Rget_c", MP_RMA_GET, oaddr, ocount, odt, target, disp, tcount, tdt,
                   win, 1, request);
}
#pragma weak MPI_Rget_c = PMPI_Rget_c

static int accumulate(const char *F, const void *oaddr, MPI_Aint ocount, MPI_Datatype odt,
                      void *raddr, MPI_Aint rcount, MPI_Datatype rdt, int target, MPI_Aint disp,
                      MPI_Aint tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                      int rform, MPI_Request *request, int fetch)
{
    mp_rma_args a = { .kind = fetch ? MP_RMA_GET_ACC : MP_RMA_ACC, .origin = oaddr,
                      .origin_count = ocount, .result = raddr, .result_count = rcount,
                      .target = target, .disp = disp, .target_count = tcount, .op = op };
    return run_op(F, win, &a, odt, tdt, fetch ? rdt : MPI_DATATYPE_NULL, rform, request);
}

int PMPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                    int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Accumulate", oaddr, ocount, odt, NULL, 0, MPI_DATATYPE_NULL, target,
                      disp, tcount, tdt, op, win, 0, NULL, 0);
}
#pragma weak MPI_Accumulate = PMPI_Accumulate

int PMPI_Accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Accumulate_c", oaddr, ocount, odt, NULL, 0, MPI_DATATYPE_NULL,
                      target, disp, tcount, tdt, op, win, 0, NULL, 0);
}
#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c

int PMPI_Raccumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                     int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return accumulate("MPI_Raccumulate", oaddr, ocount, odt, NULL, 0, MPI_DATATYPE_NULL, target,
                      disp, tcount, tdt, op, win, 1, request, 0);
}
#pragma weak MPI_Raccumulate = PMPI_Raccumulate

int PMPI_Raccumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target,
                       MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    return accumulate("MPI_Raccumulate_c", oaddr, ocount, odt, NULL, 0, MPI_DATATYPE_NULL,
                      target, disp, tcount, tdt, op, win, 1, request, 0);
}
#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c

int PMPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr,
                        int rcount, MPI_Datatype rdt, int target, MPI_Aint disp, int tcount,
                        MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Get_accumulate", oaddr, ocount, odt, raddr, rcount, rdt, target,
                      disp, tcount, tdt, op, win, 0, NULL, 1);
}
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate

int PMPI_Get_accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                          MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp,
                          MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Get_accumulate_c", oaddr, ocount, odt, raddr, rcount, rdt, target,
                      disp, tcount, tdt, op, win, 0, NULL, 1);
}
#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c

int PMPI_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr,
                         int rcount, MPI_Datatype rdt, int target, MPI_Aint disp, int tcount,
                         MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return accumulate("MPI_Rget_accumulate", oaddr, ocount, odt, raddr, rcount, rdt, target,
                      disp, tcount, tdt, op, win, 1, request, 1);
}
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate

int PMPI_Rget_accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                           MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp,
                           MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                           MPI_Request *request)
{
    return accumulate("MPI_Rget_accumulate_c", oaddr, ocount, odt, raddr, rcount, rdt, target,
                      disp, tcount, tdt, op, win, 1, request, 1);
}
#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c

int PMPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int target, MPI_Aint disp,
                      MPI_Op op, MPI_Win win)
{
    mp_rma_args a = { .kind = MP_RMA_FOP, .origin = oaddr, .origin_count = 1, .result = raddr,
                      .result_count = 1, .target = target, .disp = disp, .target_count = 1,
                      .op = op };
    return run_op("MPI_Fetch_and_op", win, &a, dt, dt, dt, 0, NULL);
}
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op

int PMPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
                          int target, MPI_Aint disp, MPI_Win win)
{
    mp_rma_args a = { .kind = MP_RMA_CAS, .origin = oaddr, .origin_count = 1, .compare = caddr,
                      .result = raddr, .result_count = 1, .target = target, .disp = disp,
                      .target_count = 1, .op = MPI_REPLACE };
    return run_op("MPI_Compare_and_swap", win, &a, dt, dt, dt, 0, NULL);
}
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap

/* ---- synchronization ------------------------------------------------------------------- */

static int group_arg(mp_win *w, const char *F, MPI_Group h, mp_group **out)
{
    *out = mp_group_get(h);
    return *out ? MPI_SUCCESS : win_error(w, MPI_ERR_GROUP, F, "invalid group handle 0x%x",
                                          (unsigned)h);
}

static int assert_arg(mp_win *w, const char *F, int assert, int allowed)
{
    if (assert & ~allowed)
        return win_error(w, MPI_ERR_ASSERT, F, "invalid assert 0x%x for this call", assert);
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_fence";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) ||
        (err = assert_arg(w, F, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                                        MPI_MODE_NOSUCCEED)))
        return err;
    return mp_win_raise(w, mp_win_fence(F, w, assert), F);
}
#pragma weak MPI_Win_fence = PMPI_Win_fence

static int pscw_open(const char *F, MPI_Group group, int assert, MPI_Win win, int post)
{
    MP_BIG_LOCK();
    mp_win *w;
    mp_group *g;
    int err;
    int allowed = post ? MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT : MPI_MODE_NOCHECK;
    if ((err = win_arg(F, win, &w)) || (err = group_arg(w, F, group, &g)) ||
        (err = assert_arg(w, F, assert, allowed)))
        return err;
    return mp_win_raise(w, post ? mp_win_post(F, w, g, assert) : mp_win_start(F, w, g, assert),
                        F);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return pscw_open("MPI_Win_post", group, assert, win, 1);
}
#pragma weak MPI_Win_post = PMPI_Win_post

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return pscw_open("MPI_Win_start", group, assert, win, 0);
}
#pragma weak MPI_Win_start = PMPI_Win_start

/* The window calls that take only the window. */
enum { W_COMPLETE, W_WAIT, W_UNLOCK_ALL, W_FLUSH_ALL, W_FLUSH_LOCAL_ALL, W_SYNC };

static int win_only(const char *F, MPI_Win win, int which)
{
    MP_BIG_LOCK();
    mp_win *w;
    int err = win_arg(F, win, &w);
    if (err)
        return err;
    switch (which) {
    case W_COMPLETE:        err = mp_win_complete(F, w); break;
    case W_WAIT:            err = mp_win_wait(F, w); break;
    case W_UNLOCK_ALL:      err = mp_win_unlock_all(F, w); break;
    case W_FLUSH_ALL:       err = mp_win_flush(F, w, -1, 0); break;
    case W_FLUSH_LOCAL_ALL: err = mp_win_flush(F, w, -1, 1); break;
    default:                err = mp_win_sync(F, w); break;
    }
    return mp_win_raise(w, err, F);
}

int PMPI_Win_complete(MPI_Win win) { return win_only("MPI_Win_complete", win, W_COMPLETE); }
#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_wait(MPI_Win win) { return win_only("MPI_Win_wait", win, W_WAIT); }
#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_unlock_all(MPI_Win win) { return win_only("MPI_Win_unlock_all", win, W_UNLOCK_ALL); }
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_flush_all(MPI_Win win) { return win_only("MPI_Win_flush_all", win, W_FLUSH_ALL); }
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    return win_only("MPI_Win_flush_local_all", win, W_FLUSH_LOCAL_ALL);
}
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_sync(MPI_Win win) { return win_only("MPI_Win_sync", win, W_SYNC); }
#pragma weak MPI_Win_sync = PMPI_Win_sync

int PMPI_Win_test(MPI_Win win, int *flag)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_test";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = win_ptr(w, F, flag, "flag")))
        return err;
    return mp_win_raise(w, mp_win_test(F, w, flag), F);
}
#pragma weak MPI_Win_test = PMPI_Win_test

int PMPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_lock";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = assert_arg(w, F, assert, MPI_MODE_NOCHECK)))
        return err;
    if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE)
        return win_error(w, MPI_ERR_LOCKTYPE, F, "invalid lock type %d (MPI_LOCK_SHARED or "
                         "MPI_LOCK_EXCLUSIVE)", type);
    return mp_win_raise(w, mp_win_lock(F, w, type, rank, assert), F);
}
#pragma weak MPI_Win_lock = PMPI_Win_lock

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Win_lock_all";
    mp_win *w;
    int err;
    if ((err = win_arg(F, win, &w)) || (err = assert_arg(w, F, assert, MPI_MODE_NOCHECK)))
        return err;
    return mp_win_raise(w, mp_win_lock_all(F, w, assert), F);
}
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all

/* The window calls that take a rank. */
enum { R_UNLOCK, R_FLUSH, R_FLUSH_LOCAL };

static int win_rank(const char *F, int rank, MPI_Win win, int which)
{
    MP_BIG_LOCK();
    mp_win *w;
    int err = win_arg(F, win, &w);
    if (err)
        return err;
    err = which == R_UNLOCK ? mp_win_unlock(F, w, rank)
                            : mp_win_flush(F, w, rank, which == R_FLUSH_LOCAL);
    return mp_win_raise(w, err, F);
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    return win_rank("MPI_Win_unlock", rank, win, R_UNLOCK);
}
#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_flush(int rank, MPI_Win win) { return win_rank("MPI_Win_flush", rank, win, R_FLUSH); }
#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return win_rank("MPI_Win_flush_local", rank, win, R_FLUSH_LOCAL);
}
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local

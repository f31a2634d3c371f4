/* errhandler.c -- user error handler objects and their dispatch.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The predefined handlers (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT) are
 * builtin handles that the core's mp_error() handles itself.  User handlers are objects in a
 * handle table, reference counted: the user's handle is one reference, every communicator
 * (window, file) using the handler another, so MPI_Errhandler_free on a handler still in use
 * keeps it alive until the last user lets go.  The handle stays valid while the object lives.
 *
 * The core calls mp_errhandler_invoke_hook for a non-predefined handler; this layer installs
 * errhandler_invoke there at init.  The user function gets a pointer to a copy of the
 * communicator handle and to the error code, as the standard's C binding says.  A handler
 * created by MPICH's C++ binding (libmpichcxx.so.12) is called through the caller that binding
 * registered (MPII_Errhandler_set_cxx, binding/mpich.c), which turns the handle into a C++
 * object for the user's function.
 */
#include "comm/comm.h"
#include <stdlib.h>

typedef struct mp_errhandler {
    int handle;
    int kind;                         /* MP_EH_COMM, MP_EH_WIN, ... */
    mp_errhandler_fn *fn;
    mp_errhandler_caller *caller;     /* MPICH's C++ binding calls fn for us; else NULL */
    atomic_int refs;
} mp_errhandler;

static mp_table eh_table = { .type = MP_OBJ_ERRHANDLER, .lock = ATOMIC_FLAG_INIT };

static int is_predefined(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

int mp_errhandler_create(int kind, mp_errhandler_fn *fn, MPI_Errhandler *out)
{
    mp_errhandler *eh = mp_calloc(1, sizeof *eh);
    eh->kind = kind;
    eh->fn = fn;
    atomic_init(&eh->refs, 1);
    eh->handle = mp_table_insert(&eh_table, eh);
    if (!eh->handle) {
        free(eh);
        return MPI_ERR_NO_MEM;
    }
    *out = eh->handle;
    return MPI_SUCCESS;
}

int mp_errhandler_check(MPI_Errhandler h, int kind)
{
    if (is_predefined(h))
        return MPI_SUCCESS;
    mp_errhandler *eh = mp_table_lookup(&eh_table, h);
    if (!eh || (kind && eh->kind != kind))
        return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

void mp_errhandler_retain(MPI_Errhandler h)
{
    mp_errhandler *eh = is_predefined(h) ? NULL : mp_table_lookup(&eh_table, h);
    if (eh)
        atomic_fetch_add_explicit(&eh->refs, 1, memory_order_relaxed);
}

void mp_errhandler_release(MPI_Errhandler h)
{
    mp_errhandler *eh = is_predefined(h) ? NULL : mp_table_lookup(&eh_table, h);
    if (eh && atomic_fetch_sub_explicit(&eh->refs, 1, memory_order_acq_rel) == 1) {
        mp_table_remove(&eh_table, eh->handle);
        free(eh);
    }
}

void mp_errhandler_set_caller(MPI_Errhandler h, mp_errhandler_caller *caller)
{
    mp_errhandler *eh = is_predefined(h) ? NULL : mp_table_lookup(&eh_table, h);
    if (eh)
        eh->caller = caller;
}

/* The user function gets a pointer to a copy of the code; MPICH's C++ caller also the kind
 * of object, numbered as MPICH numbers them (comm 0, file 1, window 2). */
static void run(mp_errhandler *eh, void *obj_handle, int code)
{
    int c = code;
    if (eh->caller)
        eh->caller(eh->kind == MP_EH_FILE ? 1 : eh->kind == MP_EH_WIN ? 2 : 0, obj_handle, &c,
                   eh->fn);
    else
        eh->fn(obj_handle, &c);
}

int mp_errhandler_call(MPI_Errhandler h, void *obj_handle, int code)
{
    if (h == MPI_ERRORS_RETURN)
        return MPI_SUCCESS;
    mp_errhandler *eh = is_predefined(h) ? NULL : mp_table_lookup(&eh_table, h);
    if (!eh) {
        const char *msg = mp_error_message(code);
        fprintf(stderr, "MemPI: rank %d: %s (error class %d)\n", mp_world.rank, msg,
                mp_error_class_of(code));
        mp_abort_job(mp_error_class_of(code), msg);
    }
    run(eh, obj_handle, code);
    return MPI_SUCCESS;
}

int mp_errhandler_raise(MPI_Errhandler eh, int handle, int code, const char *func)
{
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT)
        mp_error_fatal(code, func);
    mp_errhandler_call(eh, &handle, code);
    return code;
}

static int errhandler_invoke(mp_comm *comm, int h, int code)
{
    mp_errhandler *eh = mp_table_lookup(&eh_table, h);
    if (!eh)
        return 0;
    MPI_Comm handle = comm->handle;
    run(eh, &handle, code);
    return 1;
}

void mp_errhandler_layer_init(void)
{
    mp_errhandler_invoke_hook = errhandler_invoke;
}

int mp_errhandler_live(void)
{
    return mp_table_live(&eh_table);
}

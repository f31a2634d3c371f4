/* errhandler.c -- error handlers of communicators, error classes, codes and strings,
 * MPI_Alloc_mem.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/errhandler.spec: the MPI-2 names and the
 * MPI-1 ones (MPI_Errhandler_create/set/get) share these functions.  The core keeps the codes
 * and messages (src/core/error.c); MemPI serves MPI_Alloc_mem from the heap (no
 * registration is needed by its transports).
 *
 * The handler stored in a communicator holds one reference; MPI_Comm_get_errhandler hands
 * the user a new reference (freed with MPI_Errhandler_free), as the standard requires.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

int mp_new_errhandler(const char *F, int kind, mp_errhandler_fn *fn, MPI_Errhandler *out)
{
    if (mp_errhandler_create(kind, fn, out))
        return mp_err(F, MPI_ERR_NO_MEM, "too many error handlers");
    return MPI_SUCCESS;
}

int mp_do_comm_set_errhandler(const char *F, mp_comm *comm, MPI_Errhandler eh)
{
    if (mp_errhandler_check(eh, MP_EH_COMM))
        return mp_err(F, MPI_ERR_ARG, "invalid communicator error handler 0x%x%s", (unsigned)eh,
                      eh == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    mp_errhandler_retain(eh);
    mp_errhandler_release(comm->errhandler);
    comm->errhandler = eh;
    return MPI_SUCCESS;
}

int mp_do_comm_get_errhandler(const char *F, mp_comm *comm, MPI_Errhandler *out)
{
    mp_errhandler_retain(comm->errhandler);
    *out = comm->errhandler;
    return MPI_SUCCESS;
}

int mp_do_errhandler_free(const char *F, MPI_Errhandler *eh)
{
    if (mp_errhandler_check(*eh, 0))
        return mp_err(F, MPI_ERR_ARG, "invalid error handler 0x%x%s", (unsigned)*eh,
                      *eh == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    mp_errhandler_release(*eh);
    *eh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int mp_do_comm_call_errhandler(const char *F, mp_comm *comm, int code)
{
    if (comm->errhandler == MPI_ERRORS_RETURN)
        return MPI_SUCCESS;
    if (comm->errhandler == MPI_ERRORS_ARE_FATAL || comm->errhandler == MPI_ERRORS_ABORT) {
        mp_error_raise(comm, code, F);     /* prints and ends the job */
        return MPI_SUCCESS;
    }
    MPI_Comm handle = comm->handle;
    return mp_errhandler_call(comm->errhandler, &handle, code);
}

int mp_do_error_string(const char *F, int code, char *string, int *resultlen)
{
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", mp_error_message(code));
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

int mp_do_add_error_class(const char *F, int *cls)
{
    if (mp_error_add_class(cls))
        return mp_err(F, MPI_ERR_OTHER, "too many user error classes");
    return MPI_SUCCESS;
}

int mp_do_add_error_code(const char *F, int cls, int *code)
{
    int err = mp_error_add_code(cls, code);
    if (err)
        return mp_err(F, err, err == MPI_ERR_ARG ? "invalid error class %d"
                                                 : "too many user error codes (class %d)", cls);
    return MPI_SUCCESS;
}

int mp_do_add_error_string(const char *F, int code, const char *string)
{
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return mp_err(F, MPI_ERR_ARG, "string of length %zu exceeds MPI_MAX_ERROR_STRING - 1 "
                      "(%d)", strlen(string), MPI_MAX_ERROR_STRING - 1);
    if (mp_error_add_string(code, string))
        return mp_err(F, MPI_ERR_ARG, "error code %d is not a user-defined class or code", code);
    return MPI_SUCCESS;
}

/* what: 0 a class, 1 a code, 2 the string of a class or code. */
int mp_do_remove_error(const char *F, int what, int value)
{
    static const char *const names[] = { "error class", "error code", "error class or code" };
    int err = what == 0 ? mp_error_remove_class(value)
              : what == 1 ? mp_error_remove_code(value) : mp_error_remove_string(value);
    if (err == MPI_ERR_ARG)
        return mp_err(F, MPI_ERR_ARG, "invalid %s %d: not a user-defined one (or already "
                      "removed)", names[what], value);
    if (err)
        return mp_err(F, MPI_ERR_OTHER, "%s %d still has %s: remove %s first", names[what],
                      value, what == 0 ? "a string or error codes" : "a string",
                      what == 0 ? "them" : "it");
    return MPI_SUCCESS;
}

int mp_do_alloc_mem(const char *F, MPI_Aint size, MPI_Info info, void *baseptr)
{
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        return mp_err(F, MPI_ERR_NO_MEM, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

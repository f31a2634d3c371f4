/* errhandler.c -- error handler and error code entry points; MPI_Alloc_mem/MPI_Free_mem.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Error handlers of communicators (MPI-2 names and the MPI-1 names MPI_Errhandler_create/
 * set/get), calling a communicator's handler, error classes and strings (the core keeps
 * the codes and messages, src/core/error.c), and memory allocation, which MemPI serves
 * from the heap (no registration is needed by its transports).
 *
 * The handler stored in a communicator holds one reference; MPI_Comm_get_errhandler hands
 * the user a new reference (freed with MPI_Errhandler_free), as the standard requires.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

static int arg_ptr(const char *F, mp_comm *comm, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : mp_error(comm, MPI_ERR_ARG, F, "%s is NULL", name);
}

static int create_errhandler(const char *F, MPI_Comm_errhandler_function *fn,
                             MPI_Errhandler *out)
{
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, out, "errhandler")))
        return err;
    if (!fn)
        return mp_error(NULL, MPI_ERR_ARG, F, "comm_errhandler_fn is NULL");
    if (mp_errhandler_create(MP_EH_COMM, (mp_errhandler_fn *)(void *)fn, out))
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many error handlers");
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *out)
{
    MP_OUT_NULL(out, MPI_ERRHANDLER_NULL);
    return create_errhandler("MPI_Comm_create_errhandler", fn, out);
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

int PMPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *out)
{
    MP_OUT_NULL(out, MPI_ERRHANDLER_NULL);
    return create_errhandler("MPI_Errhandler_create", fn, out);
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create

static int set_errhandler(const char *F, MPI_Comm h, MPI_Errhandler eh)
{
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)))
        return err;
    if (mp_errhandler_check(eh, MP_EH_COMM))
        return mp_error(comm, MPI_ERR_ARG, F, "invalid communicator error handler 0x%x%s",
                        (unsigned)eh, eh == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    mp_errhandler_retain(eh);
    mp_errhandler_release(comm->errhandler);
    comm->errhandler = eh;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    return set_errhandler("MPI_Comm_set_errhandler", comm, eh);
}
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler eh)
{
    return set_errhandler("MPI_Errhandler_set", comm, eh);
}
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set

static int get_errhandler(const char *F, MPI_Comm h, MPI_Errhandler *out)
{
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_ptr(F, comm, out, "errhandler")))
        return err;
    mp_errhandler_retain(comm->errhandler);
    *out = comm->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *out)
{
    MP_OUT_NULL(out, MPI_ERRHANDLER_NULL);
    return get_errhandler("MPI_Comm_get_errhandler", comm, out);
}
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *out)
{
    MP_OUT_NULL(out, MPI_ERRHANDLER_NULL);
    return get_errhandler("MPI_Errhandler_get", comm, out);
}
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get

int PMPI_Errhandler_free(MPI_Errhandler *eh)
{
    static const char *const F = "MPI_Errhandler_free";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, eh, "errhandler")))
        return err;
    if (mp_errhandler_check(*eh, 0))
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid error handler 0x%x%s", (unsigned)*eh,
                        *eh == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    mp_errhandler_release(*eh);
    *eh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free

int PMPI_Comm_call_errhandler(MPI_Comm h, int code)
{
    static const char *const F = "MPI_Comm_call_errhandler";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)))
        return err;
    if (comm->errhandler == MPI_ERRORS_RETURN)
        return MPI_SUCCESS;
    if (comm->errhandler == MPI_ERRORS_ARE_FATAL || comm->errhandler == MPI_ERRORS_ABORT) {
        mp_error_raise(comm, code, F);     /* prints and ends the job */
        return MPI_SUCCESS;
    }
    MPI_Comm handle = comm->handle;
    return mp_errhandler_call(comm->errhandler, &handle, code);
}
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler

int PMPI_Error_class(int code, int *cls)
{
    static const char *const F = "MPI_Error_class";
    int err;
    if ((err = arg_ptr(F, NULL, cls, "errorclass")))
        return err;
    if (code < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid error code %d", code);
    *cls = mp_error_class_of(code);
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_class = PMPI_Error_class

int PMPI_Error_string(int code, char *string, int *resultlen)
{
    static const char *const F = "MPI_Error_string";
    int err;
    if ((err = arg_ptr(F, NULL, string, "string")) ||
        (err = arg_ptr(F, NULL, resultlen, "resultlen")))
        return err;
    if (code < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid error code %d", code);
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", mp_error_message(code));
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_string = PMPI_Error_string

int PMPI_Add_error_class(int *cls)
{
    static const char *const F = "MPI_Add_error_class";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, cls, "errorclass")))
        return err;
    if (mp_error_add_class(cls))
        return mp_error(NULL, MPI_ERR_OTHER, F, "too many user error classes");
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_class = PMPI_Add_error_class

int PMPI_Add_error_code(int cls, int *code)
{
    static const char *const F = "MPI_Add_error_code";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, code, "errorcode")))
        return err;
    if ((err = mp_error_add_code(cls, code)))
        return mp_error(NULL, err, F, err == MPI_ERR_ARG ? "invalid error class %d"
                                                         : "too many user error codes (class %d)",
                        cls);
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_code = PMPI_Add_error_code

int PMPI_Add_error_string(int code, const char *string)
{
    static const char *const F = "MPI_Add_error_string";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, string, "string")))
        return err;
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return mp_error(NULL, MPI_ERR_ARG, F, "string of length %zu exceeds "
                        "MPI_MAX_ERROR_STRING - 1 (%d)", strlen(string), MPI_MAX_ERROR_STRING - 1);
    if (mp_error_add_string(code, string))
        return mp_error(NULL, MPI_ERR_ARG, F,
                        "error code %d is not a user-defined class or code", code);
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_string = PMPI_Add_error_string

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char *const F = "MPI_Alloc_mem";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, baseptr, "baseptr")))
        return err;
    if (size < 0)
        return mp_error(NULL, MPI_ERR_SIZE, F, "invalid size %ld", (long)size);
    if (info != MPI_INFO_NULL && !mp_info_get(info))
        return mp_error(NULL, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem

int PMPI_Free_mem(void *base)
{
    static const char *const F = "MPI_Free_mem";
    int err;
    if ((err = mp_arg_initialized(F)))
        return err;
    free(base);
    return MPI_SUCCESS;
}
#pragma weak MPI_Free_mem = PMPI_Free_mem

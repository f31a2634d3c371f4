/* callbacks.c -- Fortran calls that register user procedures: operations, error handlers, generalized requests.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Where the Fortran procedure has exactly the C calling sequence, it is handed to the C
 * function as is:
 *   - a user reduction (INVEC, INOUTVEC, LEN, DATATYPE) is called by C as
 *     fn(void *, void *, int *, MPI_Datatype *), all by reference: identical;
 *   - an error handler (COMM, ERROR_CODE) is called as fn(MPI_Comm *, int *, ...): identical
 *     for the integer handles.  A file error handler gets a pointer to a C MPI_File, which a
 *     Fortran procedure cannot use, so file handlers are called through a caller that passes
 *     the Fortran file handle.
 * Generalized requests need trampolines: the Fortran procedures return IERROR through an
 * argument and take EXTRA_STATE and COMPLETE by reference.  EXTRA_STATE is the caller's own
 * variable, as in MPICH: the record keeps its address, so what the callbacks do to it the
 * program sees (a free function that counts, a query that reads what the program updated).
 * The record is freed by the free trampoline, which MPI calls exactly once per request.
 */
#include "fortran/fortran.h"
#include "core/core.h"
#include "comm/comm.h"
#include <stdlib.h>

void mp_f_op_create(void *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror);
void mp_f_op_create(void *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    *ierror = PMPI_Op_create((MPI_User_function *)fn, mp_f_is_true(commute), (MPI_Op *)op);
}
MP_F_EXPORT(mp_f_op_create, "op_create", "OP_CREATE")

void mp_f_comm_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void mp_f_comm_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn,
                                          (MPI_Errhandler *)errhandler);
}
MP_F_EXPORT(mp_f_comm_create_errhandler, "comm_create_errhandler", "COMM_CREATE_ERRHANDLER")
MP_F_EXPORT(mp_f_comm_create_errhandler, "errhandler_create", "ERRHANDLER_CREATE")

void mp_f_win_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void mp_f_win_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = PMPI_Win_create_errhandler((MPI_Win_errhandler_function *)fn,
                                         (MPI_Errhandler *)errhandler);
}
MP_F_EXPORT(mp_f_win_create_errhandler, "win_create_errhandler", "WIN_CREATE_ERRHANDLER")

void mp_f_session_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void mp_f_session_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = PMPI_Session_create_errhandler((MPI_Session_errhandler_function *)fn,
                                             (MPI_Errhandler *)errhandler);
}
MP_F_EXPORT(mp_f_session_create_errhandler, "session_create_errhandler", "SESSION_CREATE_ERRHANDLER")

/* File error handlers: the Fortran procedure is the handler's function, called through a
 * caller (the comm layer's hook, as MPICH's C++ binding uses it) that passes the Fortran file
 * handle and the code by reference instead of a pointer to the C MPI_File. */
typedef void (mp_f_file_eh)(MPI_Fint *file, MPI_Fint *code);
static void mp_f_file_eh_caller(int kind, void *obj_handle, int *code, mp_errhandler_fn *fn)
{
    MPI_Fint f = PMPI_File_c2f(*(MPI_File *)obj_handle), c = *code;
    ((mp_f_file_eh *)(void *)fn)(&f, &c);
    *code = c;
}

void mp_f_file_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void mp_f_file_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    *ierror = PMPI_File_create_errhandler((MPI_File_errhandler_function *)fn,
                                          (MPI_Errhandler *)errhandler);
    if (*ierror == MPI_SUCCESS)
        mp_errhandler_set_caller(*errhandler, mp_f_file_eh_caller);
}
MP_F_EXPORT(mp_f_file_create_errhandler, "file_create_errhandler", "FILE_CREATE_ERRHANDLER")

/* MPI_REGISTER_DATAREP (and mpi_f08's MPI_Register_datarep_c): the extent function (DATATYPE, EXTENT, EXTRA_STATE, IERROR) goes
 * through a trampoline with a record that lives as long as the registration (the process).
 * Conversion functions other than MPI_CONVERSION_FN_NULL are passed on as non-NULL markers:
 * the library refuses views on such representations, so they are never called. */
typedef void (mp_f_extent_fn)(MPI_Fint *type, MPI_Aint *extent, MPI_Aint *extra,
                              MPI_Fint *ierror);
typedef struct mp_f_datarep { mp_f_extent_fn *extent; MPI_Aint *extra; } mp_f_datarep;
void mp_f_conversion_fn_null(MPI_Fint *ierror);

static int mp_f_extent_tramp(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    mp_f_datarep *r = state;
    MPI_Fint t = (MPI_Fint)type, ierr = MPI_SUCCESS;
    r->extent(&t, extent, r->extra, &ierr);
    return ierr;
}

static int mp_f_conversion_marker(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                                  MPI_Offset position, void *extra)
{
    return MPI_ERR_UNSUPPORTED_DATAREP;
}

static int mp_f_conversion_marker_c(void *userbuf, MPI_Datatype type, MPI_Count count,
                                    void *filebuf, MPI_Offset position, void *extra)
{
    return MPI_ERR_UNSUPPORTED_DATAREP;
}

/* Both forms; large says whether the conversion functions take MPI_Count counts (the
 * mpi_f08 MPI_Register_datarep_c). */
static void register_datarep(const char *datarep, void *read_fn, void *write_fn,
                             void *extent_fn, MPI_Aint *extra, MPI_Fint *ierror,
                             size_t datarep_len, int large)
{
    char *name = mp_f_str_in(datarep, datarep_len, 1);
    mp_f_datarep *r = mp_malloc(sizeof *r);
    r->extent = (mp_f_extent_fn *)extent_fn;
    r->extra = extra;
    void *null = (void *)mp_f_conversion_fn_null;
    if (large)
        *ierror = PMPI_Register_datarep_c(name, read_fn == null ? NULL : mp_f_conversion_marker_c,
                                          write_fn == null ? NULL : mp_f_conversion_marker_c,
                                          mp_f_extent_tramp, r);
    else
        *ierror = PMPI_Register_datarep(name, read_fn == null ? NULL : mp_f_conversion_marker,
                                        write_fn == null ? NULL : mp_f_conversion_marker,
                                        mp_f_extent_tramp, r);
    if (*ierror != MPI_SUCCESS)
        free(r);
    free(name);
}

void mp_f_register_datarep(const char *datarep, void *read_fn, void *write_fn, void *extent_fn,
                           MPI_Aint *extra, MPI_Fint *ierror, size_t datarep_len);
void mp_f_register_datarep(const char *datarep, void *read_fn, void *write_fn, void *extent_fn,
                           MPI_Aint *extra, MPI_Fint *ierror, size_t datarep_len)
{
    register_datarep(datarep, read_fn, write_fn, extent_fn, extra, ierror, datarep_len, 0);
}
MP_F_EXPORT(mp_f_register_datarep, "register_datarep", "REGISTER_DATAREP")

void mp_f_register_datarep_c(const char *datarep, void *read_fn, void *write_fn,
                             void *extent_fn, MPI_Aint *extra, MPI_Fint *ierror,
                             size_t datarep_len);
void mp_f_register_datarep_c(const char *datarep, void *read_fn, void *write_fn,
                             void *extent_fn, MPI_Aint *extra, MPI_Fint *ierror,
                             size_t datarep_len)
{
    register_datarep(datarep, read_fn, write_fn, extent_fn, extra, ierror, datarep_len, 1);
}
MP_F_EXPORT(mp_f_register_datarep_c, "register_datarep_c", "REGISTER_DATAREP_C")

/* ---- Generalized requests ---- */
typedef void (mp_f_query_fn)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void (mp_f_free_fn)(MPI_Aint *extra, MPI_Fint *ierror);
typedef void (mp_f_cancel_fn)(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);
typedef struct mp_f_greq {
    mp_f_query_fn *query;
    mp_f_free_fn *free;
    mp_f_cancel_fn *cancel;
    MPI_Aint *extra;                  /* the EXTRA_STATE variable the program passed */
} mp_f_greq;

static int mp_f_greq_query(void *extra_state, MPI_Status *status)
{
    mp_f_greq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(g->extra, (MPI_Fint *)status, &ierr);
    return ierr;
}

static int mp_f_greq_free(void *extra_state)
{
    mp_f_greq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int mp_f_greq_cancel(void *extra_state, int complete)
{
    mp_f_greq *g = extra_state;
    MPI_Fint ierr = MPI_SUCCESS, fcomplete = mp_f_logical(complete);
    g->cancel(g->extra, &fcomplete, &ierr);
    return ierr;
}

void mp_f_grequest_start(void *query, void *freefn, void *cancel, MPI_Aint *extra,
                         MPI_Fint *request, MPI_Fint *ierror);
void mp_f_grequest_start(void *query, void *freefn, void *cancel, MPI_Aint *extra,
                         MPI_Fint *request, MPI_Fint *ierror)
{
    mp_f_greq *g = mp_malloc(sizeof *g);
    g->query = (mp_f_query_fn *)query;
    g->free = (mp_f_free_fn *)freefn;
    g->cancel = (mp_f_cancel_fn *)cancel;
    g->extra = extra;
    int err = PMPI_Grequest_start(mp_f_greq_query, mp_f_greq_free, mp_f_greq_cancel, g,
                                  (MPI_Request *)request);
    if (err != MPI_SUCCESS) free(g);
    *ierror = err;
}
MP_F_EXPORT(mp_f_grequest_start, "grequest_start", "GREQUEST_START")

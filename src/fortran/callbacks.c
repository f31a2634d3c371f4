/* callbacks.c -- Fortran calls that register user procedures: operations, error handlers, generalized requests.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Where the Fortran procedure has exactly the C calling sequence, it is handed to the C
 * function as is:
 *   - a user reduction (INVEC, INOUTVEC, LEN, DATATYPE) is called by C as
 *     fn(void *, void *, int *, MPI_Datatype *), all by reference: identical;
 *   - an error handler (COMM, ERROR_CODE) is called as fn(MPI_Comm *, int *, ...): identical
 *     for the integer handles.  A file error handler gets a pointer to a C MPI_File, which a
 *     Fortran procedure cannot use, so file handlers go through a trampoline that passes the
 *     Fortran file handle.
 * Generalized requests need trampolines: the Fortran procedures return IERROR through an
 * argument and take EXTRA_STATE and COMPLETE by reference.  EXTRA_STATE is the caller's own
 * variable, as in MPICH: the record keeps its address, so what the callbacks do to it the
 * program sees (a free function that counts, a query that reads what the program updated).
 * The record is freed by the free trampoline, which MPI calls exactly once per request.
 */
#include "fortran/fortran.h"
#include "core/core.h"
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

/* File error handlers: one Fortran procedure per handler, so only the most recent one
 * registered from Fortran can be called through the shared trampoline below; files are not
 * implemented yet, so this is a placeholder that keeps the calling sequence right. */
typedef void (mp_f_file_eh)(MPI_Fint *file, MPI_Fint *code);
static mp_f_file_eh *mp_f_last_file_eh;
static void mp_f_file_eh_tramp(MPI_File *file, int *code, ...)
{
    MPI_Fint f = PMPI_File_c2f(*file), c = *code;
    if (mp_f_last_file_eh) mp_f_last_file_eh(&f, &c);
}

void mp_f_file_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror);
void mp_f_file_create_errhandler(void *fn, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    mp_f_last_file_eh = (mp_f_file_eh *)fn;
    *ierror = PMPI_File_create_errhandler(mp_f_file_eh_tramp, (MPI_Errhandler *)errhandler);
}
MP_F_EXPORT(mp_f_file_create_errhandler, "file_create_errhandler", "FILE_CREATE_ERRHANDLER")

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

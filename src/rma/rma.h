/* rma.h -- the one-sided layer's interface: windows, operations, synchronization.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * One-sided communication is the papers' remote write exposed to programs.  A window is a
 * range of memory in every process of a communicator; an origin process moves data to and
 * from a target's window without the target taking part.  This layer decides, per target, how
 * (docs/rma.md has the whole protocol):
 *
 *   direct   the target's window is mapped here (MPI_Win_allocate(_shared) on one host, or
 *            the origin itself): put and get are memcpy, accumulates run on the memory under
 *            the target's accumulate lock -- no message at all;
 *   copy     same host, memory not mapped (MPI_Win_create, dynamic windows): single copy
 *            into or out of the target process (the transport's readv/writev);
 *   message  otherwise (another host, or single copy refused): active messages handled by the
 *            target's progress engine (the papers' remote write path).
 * Locks are words in a small control area that the ranks of one host share; remote origins
 * ask the target's progress engine for them.  Passive-target operations therefore progress
 * without the target's help whenever the target is direct or copy; targets reached by
 * messages need MEMPI_ASYNC_PROGRESS=1 to progress while they compute.
 *
 * The functions take checked arguments (the binding checks handles and values that need no
 * window state); they check what depends on the window -- epochs, ranges, the target's
 * datatype -- and return MPI error codes whose messages name the function.  None invokes an
 * error handler: the binding does, through the window's (mp_win_raise).
 */
#ifndef MP_RMA_H
#define MP_RMA_H

#include "core/core.h"
#include "datatype/datatype.h"

typedef struct mp_win mp_win;

/* ---- windows (window.c) --------------------------------------------------------------- */
mp_win *mp_win_get(MPI_Win handle);           /* NULL for an invalid handle or MPI_WIN_NULL */
int  mp_win_handle(const mp_win *win);

/* Collective over comm.  base is the caller's memory (create) or receives the new memory's
 * address (allocate, allocate_shared).  info may be MPI_INFO_NULL. */
int  mp_win_create(const char *F, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                   mp_comm *comm, mp_win **out);
int  mp_win_allocate(const char *F, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                     mp_comm *comm, int shared, void **base, mp_win **out);
int  mp_win_create_dynamic(const char *F, MPI_Info info, mp_comm *comm, mp_win **out);
int  mp_win_free(const char *F, mp_win *win);  /* collective; fails inside an epoch */
int  mp_win_attach(const char *F, mp_win *win, void *base, MPI_Aint size);
int  mp_win_detach(const char *F, mp_win *win, const void *base);
int  mp_win_shared_query(const char *F, mp_win *win, int rank, MPI_Aint *size,
                         MPI_Aint *disp_unit, void **base);

/* Queries and settings. */
mp_comm *mp_win_comm(const mp_win *win);      /* the window's group, for MPI_Win_get_group */
int   mp_win_errhandler(const mp_win *win);
void  mp_win_set_errhandler(mp_win *win, int errhandler);   /* takes over one reference */
char *mp_win_name(mp_win *win);               /* MPI_MAX_OBJECT_NAME bytes */
int   mp_win_get_attr(const char *F, mp_win *win, int keyval, void **value, int *flag);
int   mp_win_set_attr(const char *F, mp_win *win, int keyval, void *value);
int   mp_win_delete_attr(const char *F, mp_win *win, int keyval);
int   mp_win_set_info(const char *F, mp_win *win, MPI_Info info);
int   mp_win_get_info(const char *F, mp_win *win, MPI_Info *info);   /* a new info object */
int   mp_win_live(void);                      /* windows not freed (leak tests) */

/* Routes an error code through the window's error handler (no-op for MPI_SUCCESS). */
int  mp_win_raise(mp_win *win, int code, const char *func);

/* ---- operations (ops.c) ---------------------------------------------------------------- */
/* One description serves every operation; fields that do not apply are ignored.  `req`
 * non-NULL asks for the request form (MPI_Rput ...): *req is set to a request that completes
 * when the operation is complete at the origin. */
enum mp_rma_kind { MP_RMA_PUT, MP_RMA_GET, MP_RMA_ACC, MP_RMA_GET_ACC, MP_RMA_FOP, MP_RMA_CAS };
typedef struct mp_rma_args {
    int kind;
    const void *origin;               /* put, accumulates: data; get: NULL */
    void *get_buf;                    /* get: destination */
    MPI_Aint origin_count;
    mp_datatype *origin_dt;
    void *result;                     /* get_accumulate, fetch_and_op, cas: old target data */
    MPI_Aint result_count;
    mp_datatype *result_dt;
    const void *compare;              /* cas */
    int target;                       /* rank in the window's group, or MPI_PROC_NULL */
    MPI_Aint disp;
    MPI_Aint target_count;
    mp_datatype *target_dt;
    MPI_Op op;
} mp_rma_args;
int  mp_rma_op(const char *F, mp_win *win, const mp_rma_args *a, mp_request **req);

/* ---- synchronization (sync.c) ---------------------------------------------------------- */
int  mp_win_fence(const char *F, mp_win *win, int assert);
int  mp_win_post(const char *F, mp_win *win, mp_group *group, int assert);
int  mp_win_start(const char *F, mp_win *win, mp_group *group, int assert);
int  mp_win_complete(const char *F, mp_win *win);
int  mp_win_wait(const char *F, mp_win *win);
int  mp_win_test(const char *F, mp_win *win, int *flag);
int  mp_win_lock(const char *F, mp_win *win, int type, int rank, int assert);
int  mp_win_unlock(const char *F, mp_win *win, int rank);
int  mp_win_lock_all(const char *F, mp_win *win, int assert);
int  mp_win_unlock_all(const char *F, mp_win *win);
int  mp_win_flush(const char *F, mp_win *win, int rank, int local);   /* rank -1: all */
int  mp_win_sync(const char *F, mp_win *win);

/* ---- layer life cycle ------------------------------------------------------------------ */
int  mp_rma_init(void);                       /* at MPI_Init: packet handler, progress */
void mp_rma_finalize(void);                   /* stops the asynchronous progress thread */

#endif

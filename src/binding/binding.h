/* binding.h -- what the MPI_* entry points share.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are generated (tools/gen-bindings) from include/mpi.h's prototypes and
 * one description per function or family in src/binding/<family>.spec.  A generated entry
 * point takes the big lock, checks its arguments with the mp_chk_* functions below, resolves
 * handles to objects, calls what the description names, and on failure routes the code
 * through one error handler; the handles it creates are null until the call succeeds:
 *
 *     int PMPI_Win_fence(int assert, MPI_Win win_in)
 *     {
 *         MP_BIG_LOCK();
 *         static const char *const F = "MPI_Win_fence";
 *         mp_win *win = NULL;
 *         int err;
 *         if (MP_UNLIKELY((err = mp_chk_win(F, win_in, &win)) ||
 *                         (err = mp_chk_assert(F, assert, ...)) ||
 *                         (err = mp_win_fence(F, win, assert))))
 *             return mp_win_raise(win, err, F);
 *         return MPI_SUCCESS;
 *     }
 *     #pragma weak MPI_Win_fence = PMPI_Win_fence
 *
 * The hand-written mp_do_* functions (declared in the generated binding_gen.h) hold what is
 * specific to a function.  Like the checkers and the lower layers, they return error codes
 * that no handler has seen (mp_err formats one); the entry point raises them.
 */
#ifndef MP_BINDING_H
#define MP_BINDING_H

#include "core/core.h"
#include "datatype/datatype.h"
#include "pt2pt/pt2pt.h"
#include "comm/comm.h"
#include "coll/coll.h"

typedef struct mp_win mp_win;

enum {
    MP_ALLOW_PROC_NULL = 1,           /* MPI_PROC_NULL accepted */
    MP_ALLOW_ANY       = 2            /* MPI_ANY_SOURCE / MPI_ANY_TAG accepted */
};

/* A count or displacement array as the caller gave it: int (MPI_X), MPI_Count or MPI_Aint
 * (MPI_X_c) elements. */
enum { MP_COUNTS_INT, MP_COUNTS_COUNT, MP_COUNTS_AINT };
typedef struct mp_counts {
    const void *p;
    int kind;
} mp_counts;
/* The first n entries as MPI_Aint (zeros when c.p is NULL); the caller frees the array. */
MPI_Aint *mp_counts_widen(mp_counts c, MPI_Aint n);

/* An error code of class cls with the message "func: <fmt>", raised through no handler. */
int mp_err(const char *func, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Argument checks: MPI_SUCCESS or an error code (not raised) naming func and the argument.
 * The two that every call makes are inline compares with the message out of line. */
int mp_chk_initialized_fail(const char *func);
int mp_chk_out_fail(const char *func, const char *name);
static inline int mp_chk_initialized(const char *func)     /* MPI_Init called, not finalized */
{
    return MP_LIKELY(mp_world.initialized && !mp_world.finalized) ? MPI_SUCCESS
                                                                   : mp_chk_initialized_fail(func);
}
static inline int mp_chk_out(const char *func, const void *p, const char *name)   /* not NULL */
{
    return MP_LIKELY(p != NULL) ? MPI_SUCCESS : mp_chk_out_fail(func, name);
}
int mp_chk_comm(const char *func, MPI_Comm h, mp_comm **out);
/* A communicator that MPI_Comm_idup is still creating has no context id yet: the calls that
 * would communicate on it (erroneous before the idup completes) -- point-to-point, probes,
 * collectives, disconnect, the creation of communicators, windows and files from it -- and
 * MPI_Comm_free get MPI_ERR_COMM naming the argument `name` (the spec check ready(p)); local
 * calls (queries, names, attributes, error handlers) do not check.  Inline: every collective
 * call makes this check. */
int mp_chk_comm_ready_fail(const char *func, const mp_comm *c, const char *name);
static inline int mp_chk_comm_ready(const char *func, const mp_comm *c, const char *name)
{
    return MP_UNLIKELY(c->ctx < 0) ? mp_chk_comm_ready_fail(func, c, name) : MPI_SUCCESS;
}
int mp_chk_win(const char *func, MPI_Win h, mp_win **out);
int mp_chk_group(const char *func, MPI_Group h, const char *name, mp_group **out);
int mp_chk_info(const char *func, MPI_Info h);          /* valid or MPI_INFO_NULL */
int mp_chk_info_obj(const char *func, MPI_Info h, mp_info **out);   /* valid, not NULL */
/* A datatype argument `name`: valid; committed unless MP_TYPE_UNCOMMITTED; MPI_LB/MPI_UB only
 * with MP_TYPE_MARKERS; MPI_DATATYPE_NULL (*out = NULL) only with MP_TYPE_NULL_OK. */
enum { MP_TYPE_UNCOMMITTED = 1, MP_TYPE_MARKERS = 2, MP_TYPE_NULL_OK = 4 };
int mp_chk_type(const char *func, MPI_Datatype h, const char *name, int flags,
                mp_datatype **out);
/* A request (not MPI_REQUEST_NULL, not a matched-probe message): MPI_ERR_REQUEST. */
int mp_chk_request(const char *func, MPI_Request h, mp_request **out);
int mp_chk_count(const char *func, MPI_Aint count);
/* valid, committed (predefined types always are), not MPI_LB/MPI_UB; count >= 0 */
int mp_chk_datatype(const char *func, MPI_Datatype h, MPI_Aint count, mp_datatype **out);
/* rank in the communicator's (remote, for intercommunicators) group */
int mp_chk_rank(const char *func, const mp_comm *comm, int rank, int allow);
int mp_chk_root(const char *func, const mp_comm *comm, int root);
int mp_chk_tag(const char *func, int tag, int allow);
int mp_chk_buffer(const char *func, const void *buf, MPI_Aint count, const mp_datatype *dt);
int mp_chk_not_in_place(const char *func, const void *buf);
int mp_chk_assert(const char *func, int assert, int allowed);       /* MPI_MODE_* bits */
/* A new inactive persistent collective request for an MPI_<coll>_init call. */
int mp_chk_coll_persistent(const char *func, mp_comm *comm, mp_request **req);
/* All arguments of a point-to-point call in one call (the hot path: a few compares when the
 * call looks like the previous one), with the messages of the checkers above.  *comm and *dt
 * are always set, NULL until resolved, so callers need not initialize them. */
int mp_chk_p2p(const char *func, const void *buf, MPI_Aint count, MPI_Datatype dtype, int rank,
               int tag, MPI_Comm comm_h, int allow_rank, int allow_tag, mp_comm **comm,
               mp_datatype **dt);

/* The lane attempts of MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Test,
 * MPI_Waitall and MPI_Testall (lane.c): MPI_SUCCESS when the call was done
 * in a lane, MP_LANE_GIVE_UP (nothing changed, nothing reported) when the entry point must
 * take the big lock and go the usual way. */
int mp_lane_send(const void *buf, MPI_Aint count, MPI_Datatype type_h, int dest, int tag,
                 MPI_Comm comm_h);
int mp_lane_recv(void *buf, MPI_Aint count, MPI_Datatype type_h, int source, int tag,
                 MPI_Comm comm_h, MPI_Status *status);
int mp_lane_isend(const void *buf, MPI_Aint count, MPI_Datatype type_h, int dest, int tag,
                  MPI_Comm comm_h, MPI_Request *request);
int mp_lane_irecv(void *buf, MPI_Aint count, MPI_Datatype type_h, int source, int tag,
                  MPI_Comm comm_h, MPI_Request *request);
int mp_lane_wait(MPI_Request *request, MPI_Status *status);
int mp_lane_test(MPI_Request *request, int *flag, MPI_Status *status);
int mp_lane_waitall(int count, MPI_Request reqs[], MPI_Status statuses[]);
int mp_lane_testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]);

/* A file argument (io.c): MPI_ERR_FILE unless a live file; MPI_FILE_NULL (*out = NULL) only
 * with null_ok. */
typedef struct mp_file mp_file;
int mp_chk_file(const char *func, MPI_File h, int null_ok, mp_file **out);
/* Raises a failure of MPI_File_open: the communicator's faults (invalid: MPI_COMM_WORLD's
 * handler; an intercommunicator: its own), the rest through MPI_FILE_NULL's. */
int mp_file_open_raise(mp_comm *comm, int err, const char *func);
/* The data access functions of io.spec: form MP_IO_BLOCKING (status), MP_IO_NONBLOCKING
 * (*req set) or MP_IO_BEGIN (a split collective's begin); write, where (enum mp_io_where),
 * coll and offset as in io/io.h's mp_io_args.  Set-size-like calls: op after the checks. */
enum { MP_IO_BLOCKING, MP_IO_NONBLOCKING, MP_IO_BEGIN };
int mp_do_file_data(const char *F, mp_file *f, int form, int write, int where, int coll,
                    MPI_Offset offset, const void *buf, MPI_Aint count, mp_datatype *dt,
                    MPI_Status *status, mp_request **req);
int mp_do_file_resize(const char *F, mp_file *f, MPI_Offset size,
                      int (*op)(const char *, mp_file *, MPI_Offset));

/* mp_chk_comm raised through MPI_COMM_WORLD's handler (for eh=self implementations). */
int mp_arg_comm(const char *func, MPI_Comm h, mp_comm **out);

/* A session (MPI_ERR_SESSION): valid only while the library runs. */
int mp_chk_session(const char *func, MPI_Session h, mp_session **out);

/* The world model and sessions share one library instance (init.c).  mp_session_start starts
 * it unless it runs (at thread level `required`) and reports the level it runs at;
 * mp_session_stop stops it after the last session when the world model is not active.
 * mp_world_model says where the world model is (MPI_Initialized, MPI_Finalized). */
enum { MP_WORLD_NONE, MP_WORLD_ACTIVE, MP_WORLD_DONE };
int  mp_session_start(const char *func, int required, int *provided);
void mp_session_stop(void);
void mp_ports_close_all(void);       /* port.c: MPI_Finalize closes the ports left open */
int  mp_spawn_connect_parent(void);  /* port.c: MPI_Init of a spawned process */
int  mp_world_model(void);

/* An object's name (MPI_MAX_OBJECT_NAME bytes at dst) set from the user's string, and read
 * back with its length: MPI_Comm/Type/Win_set_name and _get_name. */
int mp_set_name(char *dst, const char *name);
int mp_get_name(const char *src, char *name, int *resultlen);

/* A new user error handler of kind MP_EH_* (errhandler.c). */
int mp_new_errhandler(const char *F, int kind, mp_errhandler_fn *fn, MPI_Errhandler *out);

/* Argument checks of the datatype functions (datatype*.c), which raise their errors
 * themselves, through MPI_COMM_WORLD's handler, naming the argument `what`. */
int mp_dtarg_type(const char *func, const char *what, MPI_Datatype h, int flags,
                  mp_datatype **out);                   /* flags: MP_TYPE_* */
int mp_dtarg_nonneg(const char *func, const char *what, MPI_Aint v);
int mp_dtarg_ptr(const char *func, const char *what, const void *p);
/* Registers a new type for the user and stores its handle (releases it on failure). */
int mp_dtarg_new(const char *func, mp_datatype *dt, MPI_Datatype *newtype);
/* Subarray and darray with MPI_Aint sizes, shared by the int and _c forms; large != 0
 * records the sizes as large counts (MPI_Type_get_contents_c). */
int mp_dtarg_subarray(const char *F, int ndims, const MPI_Aint *sizes, const MPI_Aint *subsizes,
                      const MPI_Aint *starts, int order, MPI_Datatype oldtype,
                      MPI_Datatype *newtype, int large);
int mp_dtarg_darray(const char *F, int size, int rank, int ndims, const MPI_Aint *gsizes,
                    const int *distribs, const int *dargs, const int *psizes, int order,
                    MPI_Datatype oldtype, MPI_Datatype *newtype, int large);
/* The indexed constructors, described in datatype.spec: block lengths bl (indexed_block: one
 * blocklength), displacements in elements (idispl) or bytes (adispl); the _c form takes
 * MPI_Count arrays (displs in elements when `elements`, else bytes) and, when every value
 * fits an int, builds the int form's type so that its contents read back as those. */
int mp_dtarg_indexed(const char *F, int combiner, int count, const int *bl, const int *idispl,
                     const MPI_Aint *adispl, MPI_Datatype oldtype, MPI_Datatype *newtype);
int mp_dtarg_indexed_block(const char *F, int combiner, int count, int blocklength,
                           const int *idispl, const MPI_Aint *adispl, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int mp_dtarg_indexed_c(const char *F, int combiner, MPI_Count count, const MPI_Count *bl,
                       MPI_Count blocklength, const MPI_Count *displs, int elements,
                       MPI_Datatype oldtype, MPI_Datatype *newtype);
/* MPI_Type_get_contents(_c) without the large counts. */
int mp_contents(const char *F, mp_datatype *dt, MPI_Count max_integers,
                MPI_Count max_addresses, MPI_Count max_datatypes, int array_of_integers[],
                MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);

/* The MEMPI_STATS report at MPI_Finalize (stats.c): gathers every rank's counters. */
void mp_stats_report(void);

/* Keyvals of object kind MP_OBJ_* (attr.c): create, and free (not a predefined one). */
int mp_new_keyval(const char *F, int objtype, mp_attr_copy_fn *copy, mp_attr_delete_fn *del,
                  void *extra, int *keyval);
int mp_free_keyval(const char *F, int objtype, int *keyval);
/* Attributes of communicators and datatypes with the value in a given language form
 * (comm/comm.h, MP_ATTR_*): what MPI_Comm_set_attr/get_attr do for C, and the Fortran
 * bindings for INTEGER(KIND=MPI_ADDRESS_KIND) and MPI-1 INTEGER values.  fetch stores a
 * void *, an MPI_Aint or an int into *value, by kind.  The mp_do_ forms take the object and
 * raise nothing; the others are the Fortran binding's entry points (the big lock, the
 * handle's checks, the error raised). */
int mp_do_comm_attr_put(const char *F, mp_comm *comm, int keyval, MPI_Aint value, int kind);
int mp_do_comm_attr_fetch(const char *F, mp_comm *comm, int keyval, void *value, int *flag,
                          int kind);
int mp_do_comm_attr_delete(const char *F, mp_comm *comm, int keyval);
int mp_do_type_attr_put(const char *F, mp_datatype *dt, MPI_Datatype h, int keyval,
                        MPI_Aint value, int kind);
int mp_do_type_attr_fetch(const char *F, mp_datatype *dt, int keyval, void *value, int *flag,
                          int kind);
int mp_do_type_attr_delete(const char *F, mp_datatype *dt, MPI_Datatype h, int keyval);
int mp_comm_attr_put(const char *F, MPI_Comm comm, int keyval, MPI_Aint value, int kind);
int mp_comm_attr_fetch(const char *F, MPI_Comm comm, int keyval, void *value, int *flag,
                       int kind);
int mp_type_attr_put(const char *F, MPI_Datatype type, int keyval, MPI_Aint value, int kind);
int mp_type_attr_fetch(const char *F, MPI_Datatype type, int keyval, void *value, int *flag,
                       int kind);
/* Routes an error code from a lower layer through comm's handler (no-op for MPI_SUCCESS). */
static inline int mp_ret(mp_comm *comm, const char *func, int err)
{
    return MP_LIKELY(err == MPI_SUCCESS) ? MPI_SUCCESS : mp_error_raise(comm, err, func);
}

#include "binding_gen.h"

/* MPI 4.1 entry points whose descriptions pass handles as well as objects. */
int mp_do_type_get_value_index(const char *F, MPI_Datatype value, MPI_Datatype index,
                               MPI_Datatype *pair);
int mp_do_remove_error(const char *F, int what, int value);
int mp_do_bbuf_attach(const char *F, mp_bbuf *b, void *buffer, MPI_Aint size);
int mp_do_bbuf_detach(const char *F, mp_bbuf *b, void *buffer_addr, MPI_Aint *size);
mp_bbuf *mp_comm_bbuf(mp_comm *comm);
int mp_t_info(int rc, MPI_Info *info);

#endif

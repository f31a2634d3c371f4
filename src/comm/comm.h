/* comm.h -- the comm layer's interface: groups, communicators, topologies, attributes,
 * error handlers and info.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The plain structs (mp_comm, mp_group) live in core/core.h because every layer reads them;
 * this layer implements what creates, changes and destroys them.
 */
#ifndef MP_COMM_H
#define MP_COMM_H

#include "core/core.h"
#include "pt2pt/pt2pt.h"

/* Called by MPI_Init after the core and pt2pt are up, and by MPI_Finalize. */
int  mp_comm_layer_init(void);
/* MPI_Finalize calls this FIRST (while communication still works): it runs the attribute
 * delete callbacks of MPI_COMM_SELF (newest first, as the standard requires), then those of
 * MPI_COMM_WORLD, and frees the layer's tables. */
void mp_comm_layer_finalize(void);

/* ---------------------------------------------------------------------------------------------
 * Groups (group.c).  A group is an ordered list of world ranks.  Objects created here start
 * with one reference and no handle; mp_group_publish() gives them a user-visible handle.
 * mp_group_get() (core) resolves handles, including MPI_GROUP_EMPTY.
 * ------------------------------------------------------------------------------------------- */
mp_group *mp_group_create(int size, int *world);  /* takes ownership of world (malloc'd) */
mp_group *mp_group_copy_of(int size, const int *world);
int       mp_group_publish(mp_group *g);          /* assigns (once) and returns a handle */
void      mp_group_retain(mp_group *g);           /* no-op for MPI_GROUP_EMPTY */
void      mp_group_release(mp_group *g);          /* core (object.c): frees at zero */
int       mp_group_rank_of_world(const mp_group *g, int world_rank); /* or MPI_UNDEFINED */
/* world rank -> group rank (MPI_UNDEFINED if absent), mp_world.nprocs entries, malloc'd */
int      *mp_group_world_map(const mp_group *g);
mp_group *mp_comm_local_group(mp_comm *comm);     /* comm->group, built on first use */
mp_group *mp_comm_remote_group(mp_comm *comm);    /* comm->remote_group, built on first use */

/* ---------------------------------------------------------------------------------------------
 * Context ids (context.c).  Every communicator created after MPI_Init gets an even id
 * c >= 4 and uses wire contexts c (point-to-point) and c+1 (collectives).  At every process no
 * two live communicators share an id.  A creation collective over all of a parent takes its
 * ids from the parent's pool, which its members keep in step (no message); other creations,
 * and a pool's refills, agree on ids free at all their members (AND of per-process masks).
 * ------------------------------------------------------------------------------------------- */
#define MP_CTX_IDS 32768                          /* ids 0..MP_CTX_IDS-1 -> ctx = 2*id */
/* `count` ids (1 or 2) as wire contexts (2 * id) into ctx_out[], for a communicator created by
 * a blocking call collective over all of `parent` (both groups of an intercommunicator), in
 * the order the members make such calls.  A member that gets no communicator gives the ids
 * back with mp_ctx_release.  Returns an MPI error code. */
int  mp_ctx_take(mp_comm *parent, int count, int *ctx_out);
/* The same for MPI_Comm_idup: takes the call's position in parent's nonblocking collective
 * sequence now (and in its hidden local communicator's, for an intercommunicator), then calls
 * done(arg, err, ctx) once, from this call or from the progress engine, with ctx[0..count-1]
 * the wire contexts (-1 on error).  Nonblocking takes keep their own order, apart from the
 * blocking ones. */
typedef void (mp_ctx_done_fn)(void *arg, int err, const int *ctx);
void mp_ctx_take_start(mp_comm *parent, int count, mp_ctx_done_fn *done, void *arg);
/* Agreement among the ranks `ranks[0..n-1]` of `parent` (this process is ranks[me]); the
 * messages travel on parent's collective context with tag `tag`.  Claims `count` ids (1 or 2)
 * into ctx_out[] as wire contexts.  For creations that are not collective over a whole parent
 * (MPI_Comm_create_group, MPI_Comm_create_from_group).  Returns an MPI error code. */
int  mp_ctx_agree(mp_comm *parent, const int *ranks, int n, int me, int tag,
                  int count, int *ctx_out);
/* Where the leaders of an intercommunicator's two groups meet: the other leader is rank
 * `peer` of `comm`, messages carry `tag` on comm's context `offset` (MP_CTX_PT2PT or
 * MP_CTX_COLL). */
typedef struct mp_ctx_bridge {
    mp_comm *comm;
    int peer, tag, offset;
} mp_ctx_bridge;
/* Agreement over two groups (MPI_Intercomm_create): this group's members are
 * ranks[0..local->size-1] of `local` (index 0 its leader; this process is ranks[me]),
 * messages with `tag` on local's collective context, and the leaders meet through b.  The ids
 * are free in both groups. */
int  mp_ctx_agree_bridged(mp_comm *local, const int *ranks, int me, int tag,
                          const mp_ctx_bridge *b, int count, int *ctx_out);
void mp_ctx_init(void);
/* The wire context of the bridges between two roots of a dynamic connection (dynamic.c):
 * beyond every id's, so no communicator ever has it. */
#define MP_CTX_DYN_BRIDGE (2 * MP_CTX_IDS)
/* The id of wire context ctx goes back (the ids left in its communicator's pools too). */
void mp_ctx_release(int ctx);
int  mp_ctx_live(void);                            /* number of ids in use (for tests) */
int  mp_ctx_exhausted_error(void);
/* The mask at this process, as every agreement round uses it (words: MP_CTX_IDS / 32):
 * snapshot = free and not reserved; reserve_run = reserve up to max free, unreserved ids at or
 * after start (wrapping) into ids[], none while fewer than a few thousand are free; reserve =
 * the vote, reserving each of ids[] that is free and unreserved (bit i of the result: ids[i]
 * reserved); settle = drop the reservation of ids[], claiming them if claim. */
void     mp_ctx_snapshot(uint32_t *words);
int      mp_ctx_reserve_run(int start, int max, int *ids);
uint32_t mp_ctx_reserve(const int *ids, int count);
void     mp_ctx_settle(const int *ids, int count, int claim);

/* Internal collectives over ranks[0..n-1] of an intracommunicator (xfer.c). */
int  mp_xfer_bcast(mp_comm *c, const int *ranks, int n, int me, int tag, void *buf,
                   size_t bytes);
int  mp_xfer_allgather(mp_comm *c, const int *ranks, int n, int me, int tag, const void *item,
                       size_t item_bytes, void *all);
int  mp_xfer_exchange(mp_comm *c, int peer, int tag, int ctx_offset, const void *sbuf,
                      void *rbuf, size_t bytes);
int *mp_xfer_all_ranks(int n);
/* comm's ranks with `leader` moved to index 0 (a tree order for mp_xfer_*); *me = this
 * process's index (intercomm.c). */
int *mp_comm_leader_first(mp_comm *comm, int leader, int *me);

/* ---------------------------------------------------------------------------------------------
 * Communicators (comm.c, intercomm.c)
 * ------------------------------------------------------------------------------------------- */
/* Internal tags used by the comm layer on a communicator's collective context.  They stay
 * above 1<<28 so they never collide with the collective layer's tags. */
#define MP_TAG_COMM_BASE  (1 << 28)
enum {
    MP_TAG_CTX_REDUCE = MP_TAG_COMM_BASE, MP_TAG_CTX_BCAST, MP_TAG_SPLIT, MP_TAG_INTER,
    MP_TAG_MERGE, MP_TAG_DYN, MP_TAG_TOPO = MP_TAG_COMM_BASE + 0x100, /* and +1 (dist graph exchange) */
    MP_TAG_GROUP_CREATE = MP_TAG_COMM_BASE + 0x10000,     /* + (user tag & 0xffff) */
    MP_TAG_FROM_GROUP = MP_TAG_COMM_BASE + 0x20000        /* + (stringtag hash & 0xffff) */
};

/* Builds a new communicator over `world` (takes ownership) inheriting parent's error handler,
 * with context ctx; publishes a handle. */
mp_comm *mp_comm_build(mp_comm *parent, int ctx, int size, int rank, int *world);
int  mp_comm_dup_internal(mp_comm *comm, mp_comm **out);   /* no attribute copy, no info */
/* MPI_Comm_idup in two steps: prepare builds the new object (handle
 * published, no context id yet: the caller copies attributes now); start begins the
 * agreement and, if req is not NULL, returns a request completed when the communicator is
 * usable (req->error set on failure, the object then freed).  With req == NULL the process
 * still takes part -- the other members need it -- but the result is freed at the end; the
 * same if no request can be allocated (then an error code is returned). */
mp_comm *mp_comm_idup_prepare(mp_comm *comm);
int  mp_comm_idup_start(mp_comm *comm, mp_comm *newc, mp_request **req);
/* Collective over comm: new communicator of the members with color == color (MPI_UNDEFINED:
 * *out = NULL), ordered by (key, old rank). */
int  mp_comm_split_internal(mp_comm *comm, int color, int key, mp_comm **out);
/* Runs delete callbacks, drops the handle and the reference. */
int  mp_comm_free_internal(mp_comm *comm);
int  mp_comm_create_internal(mp_comm *comm, mp_group *g, mp_comm **out);
int  mp_comm_create_group_internal(mp_comm *comm, mp_group *g, int tag, mp_comm **out);
int  mp_comm_compare_internal(mp_comm *a, mp_comm *b);   /* MPI_IDENT ... MPI_UNEQUAL */
int  mp_intercomm_dup(mp_comm *inter, mp_comm **out);
void mp_intercomm_set_local(mp_comm *inter, mp_comm *local);
/* The hidden intracommunicator of an intercommunicator's local group (collectives and merge
 * use it); NULL for intracommunicators. */
mp_comm *mp_intercomm_local(mp_comm *inter);
int  mp_intercomm_create(mp_comm *local, int local_leader, mp_comm *peer, int remote_leader,
                         int tag, mp_comm **out);
int  mp_intercomm_merge(mp_comm *inter, int high, mp_comm **out);
/* The intercommunicator of a dynamic connection (dynamic.c): local = comm's group, remote =
 * process ids remote[0..n-1] (copied), context ids ctx[0..1] agreed by both groups. */
mp_comm *mp_intercomm_build(mp_comm *comm, const int *ctx, const int *remote, int n);

/* Dynamic processes (dynamic.c).  mp_dyn_connect is collective over comm; the root's
 * `io(arg, out, nout, in, nin)` writes nout bytes to the other group's root and then reads
 * nin bytes from it (0, or an errno); it is called without the big lock.  A failed exchange
 * is an error of class io_class on every process of both groups. */
typedef int (mp_dyn_io)(void *arg, const void *out, size_t nout, void *in, size_t nin);
int  mp_dyn_connect(mp_comm *comm, int root, mp_dyn_io *io, void *arg, int io_class,
                    mp_comm **out);
/* MPI-4 creation from groups alone (no parent communicator; every MemPI process is in
 * MPI_COMM_WORLD, whose collective context carries the messages, tagged by a hash of
 * stringtag).  The caller must be a member of g / local_group. */
int  mp_comm_from_group(mp_group *g, const char *stringtag, mp_comm **out);
int  mp_intercomm_from_groups(mp_group *local_group, int local_leader, mp_group *remote_group,
                              int remote_leader, const char *stringtag, mp_comm **out);
/* Collective over an intercommunicator: the intercommunicator between this side's members
 * with color `color` (ordered by key, then rank) and the other side's members with the same
 * color; *out = NULL for MPI_UNDEFINED or when the other side has no such member. */
int  mp_intercomm_subset(mp_comm *inter, int color, int key, mp_comm **out);

/* ---------------------------------------------------------------------------------------------
 * Topologies (topo.c): comm->topo
 * ------------------------------------------------------------------------------------------- */
struct mp_topo {
    int kind;                         /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    /* cartesian */
    int ndims;
    int *dims, *periods;
    /* graph: nnodes, index[nnodes], edges[index[nnodes-1]] */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: this process's in/out neighbours and weights */
    int indeg, outdeg, weighted;
    int *in, *inw, *out, *outw;
};
void mp_topo_free(mp_topo *t);
mp_topo *mp_topo_copy(const mp_topo *t);
/* Neighbour lists for neighbourhood collectives, in the standard's order (cartesian: for each
 * dimension -1 then +1, MPI_PROC_NULL at open edges).  The arrays are malloc'd and the caller
 * frees them.  MPI_ERR_TOPOLOGY if comm has no topology. */
int  mp_topo_neighbors(mp_comm *comm, int *indeg, int **in, int *outdeg, int **out);
int  mp_cart_rank_of(const mp_topo *t, const int *coords, int *rank);  /* periodic wrap */
void mp_cart_coords_of(const mp_topo *t, int rank, int *coords);
int  mp_cart_shift_of(const mp_topo *t, int rank, int d, int disp, int *src, int *dst);
/* MPI_Dims_create's free part: n >= 1 as k >= 1 non-increasing factors "as close to each other
 * as possible" -- the smallest largest-minus-smallest, then the smallest sum, then the
 * lexicographically largest, which is MPICH's answer for every n <= 20000, k <= 6. */
void mp_dims_balanced(int n, int k, int *dims);

/* ---------------------------------------------------------------------------------------------
 * Attributes (attr.c).  Keyvals are typed by the object kind they attach to (MP_OBJ_COMM,
 * MP_OBJ_DATATYPE, MP_OBJ_WIN).  Lists are newest first.
 * ------------------------------------------------------------------------------------------- */
/* How an attribute value was set, which decides what a get in each language sees (MPI 4.0
 * 19.3.7): from C a pointer (MP_ATTR_PTR); from Fortran an INTEGER(KIND=MPI_ADDRESS_KIND)
 * (MP_ATTR_AINT) or, through the MPI-1 MPI_ATTR_PUT, a default INTEGER (MP_ATTR_INT,
 * sign-extended to the word).  C gets a pointer value as is and a pointer to the stored
 * integer otherwise; Fortran gets the word as an integer, MPI_ATTR_GET its low bits. */
enum { MP_ATTR_PTR, MP_ATTR_AINT, MP_ATTR_INT };
struct mp_attr {
    struct mp_attr *next;
    int keyval;
    int kind;                         /* MP_ATTR_*: how it was set */
    MPI_Aint word;                    /* the pointer or integer; callbacks get it as void * */
    int i32;                          /* MP_ATTR_INT: the INTEGER C's pointer points to */
};
typedef int (mp_attr_copy_fn)(int obj, int keyval, void *extra, void *in, void *out, int *flag);
typedef int (mp_attr_delete_fn)(int obj, int keyval, void *value, void *extra);
/* Creates a keyval for objects of kind objtype. */
int  mp_keyval_create(int objtype, mp_attr_copy_fn *copy, mp_attr_delete_fn *del, void *extra,
                      int *keyval);
/* MPI_ERR_KEYVAL unless keyval is a keyval for objtype the user has not freed; flags add
 * the predefined ones (MP_KEYVAL_PREDEFINED) and keyvals the user freed while attributes still
 * use them (MP_KEYVAL_FREED: those still reach their attributes, MPI 4.0 7.7.2). */
enum { MP_KEYVAL_PREDEFINED = 1, MP_KEYVAL_FREED = 2 };
int  mp_keyval_check(int objtype, int keyval, int flags);
int  mp_keyval_free(int objtype, int *keyval);
int  mp_keyval_is_predefined(int keyval);         /* MPI_TAG_UB, MPI_WIN_BASE, ... */
int  mp_keyval_live(void);                        /* live keyvals (leak tests) */
/* Values of the predefined communicator attributes (binding/attr.c): sets *value to a
 * pointer to static storage and *flag. */
int  mp_attr_predefined(int keyval, void **value, int *flag);
/* Sets/gets/deletes one attribute; the callbacks get `handle` as the object.  Return MPI
 * error codes (a callback's own return code passes through).  set takes the value as a word
 * and the MP_ATTR_* kind it came as; get stores into *value a void * (want MP_ATTR_PTR), an
 * MPI_Aint (MP_ATTR_AINT) or an int (MP_ATTR_INT) as the attribute's kind says it reads in
 * that form.  get and delete accept a keyval freed while in use, set does not. */
int  mp_attr_set(int objtype, int handle, mp_attr **list, int keyval, MPI_Aint word, int kind);
int  mp_attr_get(int objtype, mp_attr *list, int keyval, int want, void *value, int *flag);
int  mp_attr_delete(int objtype, int handle, mp_attr **list, int keyval);
/* Callers through which MPICH's C++ binding (libmpichcxx.so.12, MPII_Keyval_set_proxy) runs
 * a keyval's callbacks: the user function is passed first, then the usual arguments, with
 * the attribute's kind (0: a pointer, as MPI_*_set_attr stores it) before the value. */
typedef int (mp_attr_copy_proxy)(mp_attr_copy_fn *user, int obj, int keyval, void *extra,
                                 int kind, void *in, void *out, int *flag);
typedef int (mp_attr_delete_proxy)(mp_attr_delete_fn *user, int obj, int keyval, int kind,
                                   void *value, void *extra);
void mp_keyval_set_proxy(int keyval, mp_attr_copy_proxy *copy, mp_attr_delete_proxy *del);
/* Object duplication: runs the copy callbacks of src's attributes and builds *dst.  On error
 * *dst is left empty (attributes copied so far are deleted). */
int  mp_attr_copy_all(int objtype, int old_handle, int new_handle, mp_attr *src, mp_attr **dst);
/* Object destruction: runs every delete callback (newest first) and empties the list; stops
 * at, and returns, the first callback error (the remaining attributes stay). */
int  mp_attr_delete_all(int objtype, int handle, mp_attr **list);

/* ---------------------------------------------------------------------------------------------
 * Error handlers (errhandler.c).  User handlers are objects of MP_OBJ_ERRHANDLER; the
 * predefined ones are builtin handles.  comm->errhandler holds a handle and one reference.
 * ------------------------------------------------------------------------------------------- */
enum { MP_EH_COMM = 1, MP_EH_WIN, MP_EH_FILE, MP_EH_SESSION };
typedef void (mp_errhandler_fn)(void *obj_handle, int *code, ...);
int  mp_errhandler_create(int kind, mp_errhandler_fn *fn, MPI_Errhandler *out);
/* MPI_SUCCESS if h is a predefined handler or a live user handler of kind `kind`. */
int  mp_errhandler_check(MPI_Errhandler h, int kind);
void mp_errhandler_retain(MPI_Errhandler h);      /* no-op for predefined handlers */
void mp_errhandler_release(MPI_Errhandler h);
/* Calls handler h for an object (MPI_Comm_call_errhandler and friends); obj_handle points to
 * the object's handle.  Predefined handlers: ERRORS_RETURN returns, the others abort. */
int  mp_errhandler_call(MPI_Errhandler h, void *obj_handle, int code);
/* Raises code through handler eh of an object other than a communicator (a window, a session)
 * whose int handle is `handle`: MPI_ERRORS_RETURN returns it, the fatal handlers end the job
 * naming func, a user handler gets a pointer to the handle.  Returns code. */
int  mp_errhandler_raise(MPI_Errhandler eh, int handle, int code, const char *func);
/* MPICH's C++ binding calls its handlers through `caller` (kind 0 comm, 1 file, 2 window; a
 * pointer to the handle, to the code, and the user function): MPII_Errhandler_set_cxx. */
typedef void (mp_errhandler_caller)(int kind, void *obj_handle, int *code, mp_errhandler_fn *fn);
void mp_errhandler_set_caller(MPI_Errhandler h, mp_errhandler_caller *caller);
void mp_errhandler_layer_init(void);              /* installs the core's hook */
int  mp_errhandler_live(void);                    /* live user handlers (leak tests) */

/* ---------------------------------------------------------------------------------------------
 * Sessions (session.c): MPI 4.0 11.3 objects with an error handler and info, and the process
 * sets every session sees (mpi://WORLD, mpi://SELF, mpix://SHARED, mpix://NODE/<n>).
 * ------------------------------------------------------------------------------------------- */
typedef struct mp_session {
    int handle;
    int errhandler;                   /* a handle with one reference */
    MPI_Info info;                    /* info_used: the caller's hints, thread_level provided */
    mp_bbuf *bbuf;                    /* MPI_Session_attach_buffer's, for its communicators */
} mp_session;
mp_session *mp_session_create(MPI_Info info, int errhandler, int thread_level); /* NULL: full */
mp_session *mp_session_get(MPI_Session h);       /* NULL if not a live session */
void        mp_session_destroy(mp_session *s);
void        mp_session_set_errhandler(mp_session *s, int errhandler);  /* takes a reference */
/* Routes an error code through the session's handler (s NULL: as an error of no object). */
int         mp_session_raise(mp_session *s, int code, const char *func);
int         mp_session_live(void);
int         mp_pset_count(void);
/* The name of process set n (0 <= n < mp_pset_count()) into name[len], as snprintf. */
int         mp_pset_name(int n, char *name, size_t len);
int         mp_pset_find(const char *name);       /* index, or -1 */
mp_group   *mp_pset_group(int n);                 /* a new group (one reference) */

/* ---------------------------------------------------------------------------------------------
 * Info (info.c).  An info object is an ordered list of (key, value) strings.
 * ------------------------------------------------------------------------------------------- */
typedef struct mp_info mp_info;
mp_info    *mp_info_get(MPI_Info h);              /* also MPI_INFO_ENV; NULL if bad/NULL */
const char *mp_info_value(MPI_Info h, const char *key);  /* NULL if absent or h is NULL */
int         mp_info_dup_handle(MPI_Info h, MPI_Info *out);  /* MPI_INFO_NULL stays NULL */
void        mp_info_free_handle(MPI_Info h);      /* no-op for MPI_INFO_NULL / ENV */
mp_info    *mp_info_alloc(void);
int         mp_info_publish(mp_info *info);       /* assigns a handle (0 if the table is full) */
void        mp_info_destroy(mp_info *info);       /* drops the handle too */
int         mp_info_find(const mp_info *info, const char *key);  /* index or -1 */
void        mp_info_put(mp_info *info, const char *key, const char *value);
int         mp_info_remove(mp_info *info, const char *key);      /* 1 if it was there */
int         mp_info_count(const mp_info *info);
const char *mp_info_key(const mp_info *info, int n);
const char *mp_info_val(const mp_info *info, int n);
mp_info    *mp_info_clone(const mp_info *info);
int         mp_info_is_env(const mp_info *info);
int         mp_info_live(void);                   /* live user info objects (leak tests) */

#endif

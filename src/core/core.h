/* core.h -- the core layer's interface: objects, requests, progress, errors, configuration.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Everything above the core (datatype, transport, pt2pt, comm, coll, binding) includes this
 * header.  It defines the plain structs that every layer shares -- communicators, requests,
 * processes -- and the services the core offers: handle tables, error reporting through a
 * communicator's error handler, the progress engine with its waiting policy, MEMPI_* variables,
 * statistics and the PMI client.
 *
 * Internal names use the prefix mp_.  Handles follow MPICH's integer layout (bits 31-30 kind,
 * 29-26 object type, the rest an index): predefined objects are "builtin" kind with MPICH's exact
 * values, objects created at run time use the "indirect" kind with an index into a handle table.
 */
#ifndef MP_CORE_H
#define MP_CORE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include "core/pmi.h"

#define MP_CACHELINE 64
#define MP_TAG_UB    0x7fffffff  /* largest tag; value of the MPI_TAG_UB attribute */
#define MP_LIKELY(x)   __builtin_expect(!!(x), 1)
#define MP_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---------------------------------------------------------------------------------------------
 * Handles
 * ------------------------------------------------------------------------------------------- */
enum mp_objtype {                     /* MPICH's object type numbers (bits 29-26) */
    MP_OBJ_COMM = 1, MP_OBJ_GROUP = 2, MP_OBJ_DATATYPE = 3, MP_OBJ_FILE = 4,
    MP_OBJ_ERRHANDLER = 5, MP_OBJ_OP = 6, MP_OBJ_INFO = 7, MP_OBJ_WIN = 8,
    MP_OBJ_KEYVAL = 9, MP_OBJ_ATTR = 10, MP_OBJ_REQUEST = 11,
    MP_OBJ_SESSION = 14               /* MPI_SESSION_NULL is 0x38000000 */
};
#define MP_HANDLE_KIND(h)    (((unsigned)(h)) >> 30)
#define MP_HANDLE_TYPE(h)    ((((unsigned)(h)) >> 26) & 0xf)
#define MP_HANDLE_INDEX(h)   (((unsigned)(h)) & 0x03ffffff)
#define MP_KIND_BUILTIN  1u
#define MP_KIND_DIRECT   2u
#define MP_KIND_DYNAMIC  3u           /* MPICH calls this kind "indirect" */
#define MP_MAKE_HANDLE(type, index) \
    ((int)((MP_KIND_DYNAMIC << 30) | ((unsigned)(type) << 26) | (unsigned)(index)))

/* A handle table maps the index of a run-time handle to its object.  Storage is chunked so a
 * pointer to a slot never moves (lookups need no lock); allocation and release take a short
 * spin lock so MPI_THREAD_MULTIPLE callers may create objects concurrently. */
#define MP_TABLE_CHUNK  1024
#define MP_TABLE_CHUNKS 4096
typedef struct mp_table {
    void **chunks[MP_TABLE_CHUNKS];
    int   *free_list;                 /* stack of released indices */
    int    free_count, free_cap;
    int    next_index;                /* indices below this have been handed out once */
    int    type;                      /* enum mp_objtype */
    atomic_flag lock;
} mp_table;

int   mp_table_insert(mp_table *t, void *obj);            /* returns handle, or 0 when full */
void *mp_table_lookup(const mp_table *t, int handle);     /* NULL if not a live handle of t */
void  mp_table_remove(mp_table *t, int handle);
int   mp_table_live(const mp_table *t);                   /* number of live objects */

/* ---------------------------------------------------------------------------------------------
 * Processes and communicators
 * ------------------------------------------------------------------------------------------- */
struct mp_transport;
typedef struct mp_proc {              /* one per process this one can reach (see procs.c) */
    int node;                         /* node id: 0 .. mp_world.nnodes-1 for the world; processes
                                         of other jobs get ids of their own above those */
    int local;                        /* index among the ranks of its node (the world), or the
                                         transport's index of the peer (other jobs) */
    struct mp_transport *tp;          /* transport that reaches it */
    int failed;                       /* its job died (procs.c): operations with it fail */
} mp_proc;

typedef struct mp_attr mp_attr;       /* defined by the comm layer */
typedef struct mp_topo mp_topo;       /* defined by the comm layer */

typedef struct mp_bbuf mp_bbuf;      /* pt2pt/bsend.c */
typedef struct mp_group {
    int handle;
    int size;
    int rank;                         /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;                       /* group rank -> world rank */
    atomic_int refs;
    struct mp_bbuf *session_bbuf;     /* a process set's group: its session's send buffer */
} mp_group;

typedef struct mp_comm {
    int handle;
    int rank, size;                   /* in the local group */
    int ctx;                          /* context id of point-to-point traffic; ctx+1 is
                                         reserved for collectives on this communicator */
    int *world;                       /* local group rank -> world rank (shares group->world) */
    mp_group *group;
    int is_inter;
    int is_spawn_parent;              /* a spawned process's intercommunicator to its parents */
    int remote_size;
    int *remote_world;                /* intercommunicators: remote rank -> world rank */
    mp_group *remote_group;
    int errhandler;                   /* MPI_Errhandler handle */
    char name[MPI_MAX_OBJECT_NAME];
    mp_attr *attrs;
    mp_topo *topo;
    int info;                         /* MPI_Info handle or MPI_INFO_NULL */
    atomic_int refs;
    /* Node layout of the local group, filled by mp_comm_layout(): collectives use it. */
    int nnodes;                       /* number of distinct nodes among the ranks */
    int *node_of;                     /* rank -> node index within this communicator */
    int *node_leader;                 /* node index -> lowest rank on that node */
    int my_node, local_rank, local_size;
    void *coll_state;                 /* owned by the coll layer */
    /* Buffered sends (pt2pt/bsend.c): the buffer attached to this communicator (NULL until
     * MPI_Comm_attach_buffer), and that of the session it derives from (NULL: none). */
    struct mp_bbuf *bbuf, *session_bbuf;
} mp_comm;

/* The process-wide state of the job. */
typedef struct mp_world_state {
    int rank, size;                   /* in MPI_COMM_WORLD */
    int nnodes, node;                 /* number of nodes, this process's node (logical: may be
                                         simulated with MEMPI_NODE_SIZE) */
    int host;                         /* physical host index: ranks sharing memory */
    int local_rank, local_size;       /* among the ranks of this node */
    int *local_world;                 /* local index -> world rank */
    mp_proc *procs;                   /* nprocs entries: the world's ranks first */
    int nprocs;                       /* size + processes of other jobs (procs.c) */
    mp_comm *comm_world, *comm_self;
    int initialized, finalized;
    int thread_level;
    pthread_t main_thread;
    int appnum;
    double wtime_base;
} mp_world_state;
extern mp_world_state mp_world;

extern mp_table mp_comm_table, mp_group_table, mp_request_table;

mp_comm *mp_comm_get(MPI_Comm handle);   /* NULL if invalid (also for MPI_COMM_NULL) */
mp_group *mp_group_get(MPI_Group handle);
/* Builds a communicator object over the given world ranks; used for WORLD/SELF at start and
 * by the comm layer.  Takes ownership of `world` (malloc'd). */
mp_comm *mp_comm_new(int ctx, int size, int rank, int *world);
void     mp_comm_layout(mp_comm *comm);  /* computes nnodes/node_of/... from mp_world.procs */
void     mp_comm_release(mp_comm *comm);  /* drop a reference; frees at zero */
/* Layers that keep state on communicators (coll_state) free it from a hook run when the last
 * reference goes: the core knows no layer above it. */
void     mp_comm_on_release(void (*hook)(mp_comm *comm));
void     mp_group_release(mp_group *group); /* drop a reference; frees at zero */

/* The process table (core/procs.c).  Process ids 0..size-1 are MPI_COMM_WORLD's ranks;
 * connecting to another job (MPI_Comm_accept/connect/spawn/join) appends its processes, which
 * keep their id until MPI_Finalize.  Everything that takes a "world rank" takes a process id.
 * A process is named across jobs by its job's id (the launcher's MEMPI_JOB_ID or PMI key-value
 * space name) and its rank in that job's MPI_COMM_WORLD. */
#define MP_JOB_ID_MAX 64
/* mp_procs_add appends a process (tp unset: the caller's transport sets it); once every new
 * entry has its transport, mp_procs_grown(old nprocs) runs the layers' hooks. */
int  mp_procs_add(const char *job, int job_rank, int node);
void mp_procs_grown(int old_n);
int  mp_procs_find(const char *job, int job_rank);            /* process id, or -1 */
const char *mp_procs_job(int id);                             /* the job id of process id */
int  mp_procs_job_rank(int id);                               /* its rank in that job */
/* An order of all processes that every job agrees on (job id, then rank in the job; within
 * one job: world rank order), for decisions two groups must make alike. */
int  mp_procs_before(int a, int b);
const char *mp_procs_my_job(void);                            /* "" when the launcher gave none */
int  mp_procs_new_node(void);                                 /* a node id never used before */
/* Layers that keep per-process arrays grow them from a hook, run by mp_procs_grown with the
 * old and new sizes (outside any packet handler). */
void mp_procs_on_grow(void (*hook)(int old_n, int new_n));
/* Processes of a job that MemPI's mpiexec reported dead (core/failboard.h; read by a progress
 * hook once other jobs' processes are known).  If a communicator holding one has a fatal
 * handler the job ends naming it; else the hooks run per failed process (point-to-point
 * completes what waits for it with an error) and later operations with it fail.  The
 * message names the process and the launcher's account of the death; NULL while alive. */
const char *mp_procs_failure(int id);
void mp_procs_on_fail(void (*hook)(int id));
/* A new MPI_ERR_OTHER code naming the failed process id and the launcher's account. */
int  mp_procs_failure_code(int id);
/* The launcher's account if it reported job `job` dead, else NULL (lock-free: a spawn's root
 * asks while it waits for the children without the big lock, after one call with it). */
const char *mp_procs_job_failed(const char *job);
void mp_procs_finalize(void);

/* Node layout (core/nodes.c): which ranks share a host (memory), from the launcher's
 * PMI_process_mapping or, without one, from each rank's host identity.  Fills mp_world.procs
 * (node, local), host, nnodes, node, local_rank, local_size, local_world; the caller picks
 * each rank's transport from mp_nodes_host_of. */
int  mp_nodes_setup(void);
int  mp_nodes_parse_mapping(const char *s, int size, int *host_out);  /* hosts, -1 malformed */
int  mp_nodes_host_of(int world);     /* physical host index of a world rank */
int  mp_nodes_nhosts(void);           /* number of physical hosts in the job */
/* A string equal on two processes exactly when they share memory and a network stack. */
void mp_nodes_host_identity(char *buf, size_t len);
/* Ranks of the job that compete for this rank's processors: its host's, plus those of other
 * hosts on the same machine and CPU set (network namespaces, containers).  >= local_size. */
int  mp_nodes_machine_size(void);

/* Hardware levels below the node (hwres.c, through hwloc when it is there): level indices
 * 0..mp_hw_levels()-1 named as hwloc names them ("Package", "L3Cache", "NUMANode", "Core").
 * mp_hw_find_level takes a name with or without "hwloc://", any case (-1: none such);
 * mp_hw_instance is the index of the one instance this process is restricted to, -1 when it
 * is not restricted to one, -2 when the level is unknown here (no hwloc). */
int  mp_hw_levels(void);
const char *mp_hw_level_name(int level);
int  mp_hw_find_level(const char *name);
int  mp_hw_instance(int level);

/* ---------------------------------------------------------------------------------------------
 * Requests
 * ------------------------------------------------------------------------------------------- */
enum mp_req_kind {
    MP_REQ_SEND = 1, MP_REQ_RECV, MP_REQ_PSEND, MP_REQ_PRECV, MP_REQ_GREQ, MP_REQ_COLL,
    MP_REQ_PROBE,
    MP_REQ_PCOLL,                     /* persistent collective (src/coll/persist.c) */
    MP_REQ_PAIR,                      /* MPI_Isendrecv: a send and a receive (pt2pt.c) */
    MP_REQ_RMA,                       /* request-based one-sided operation (src/rma/) */
    MP_REQ_PART,                      /* partitioned send or receive (src/pt2pt/part.c) */
    MP_REQ_FILE                       /* nonblocking file access (src/io/aio.c) */
};
enum mp_send_mode { MP_MODE_STANDARD = 0, MP_MODE_SYNC, MP_MODE_READY, MP_MODE_BUFFERED };

typedef struct mp_datatype mp_datatype;   /* datatype/datatype.h */

/* A request: a header every kind has, then the state of its kind in an anonymous union, so
 * that each field means one thing.  Which union member is live follows from `kind` alone:
 *   SEND, RECV     one message (the point-to-point protocol's state, pt2pt/proto.h);
 *   PSEND, PRECV   the saved arguments (the same fields) and `inner`, the active operation;
 *   PART           the same, plus `part`, the partitioned state (pt2pt/part.c);
 *   PCOLL          `sched`, the kept schedule, and `inner`;
 *   COLL           nothing: a nonblocking collective's schedule points at its request;
 *   PROBE          `msg`, the matched message of MPI_Mprobe;
 *   GREQ           `greq`, the generalized request's callbacks;
 *   PAIR           `parts_left` and `owned_tmp` of MPI_Isendrecv;
 *   RMA            `rma`, the one-sided operation (src/rma/);
 *   FILE           nothing: the I/O layer keeps the access (src/io/aio.c, coll.c).
 * A request is recycled through a free list (core/request.c); `magic` is MP_REQ_MAGIC from
 * allocation to release, which debug builds check on every request named by a peer's cookie. */
#define MP_REQ_MAGIC 0x52657175u      /* "Requ" */
typedef struct mp_request mp_request;
struct mp_request {
    uint32_t magic;
    uint8_t kind;                     /* enum mp_req_kind */
    int handle;                       /* 0 until the request is exposed to the user */
    atomic_int done;                  /* set with release when the operation is complete */
    MPI_Status status;                /* count in bytes is kept in status (see mp_status_*) */
    mp_comm *comm;
    mp_request *next, *prev;          /* links of the one queue that holds it, if any */
    mp_request *inner;                /* persistent kinds: the active operation, or NULL */
    void (*on_complete)(mp_request *req);  /* run at completion, for the layer that set it */
    void *owner;                      /* on_complete's context */

    union {
        struct {                      /* SEND, RECV (and PSEND, PRECV: the arguments) */
            void *buf;
            MPI_Aint count;
            mp_datatype *dt;
            int peer;                 /* rank in comm (receives: source, may be a wildcard) */
            int tag;
            int ctx;                  /* context id on the wire */
            size_t bytes;             /* packed size of the whole message */
            uint8_t mode;             /* enum mp_send_mode */
            uint8_t sreq_out;         /* receive: a request for sending is outstanding */
            uint8_t cancel_pending;   /* a cancel handshake is under way */
            uint8_t dt_held;          /* the operation holds a reference on dt */
            uint8_t ack_after;        /* send: answer SRCANCEL once its RWDONE is handed over */
            uint8_t acked;            /* synchronous send: the ACK came before the last packet */
            uint32_t seq;             /* sequence number on its track (pt2pt/proto.h) */
            int world_peer;           /* world rank of the peer (sends; matched receives) */
            int state;                /* protocol state (pt2pt/proto.h) */
            int error;                /* first error seen (e.g. MPI_ERR_TRUNCATE) */
            size_t done_bytes;        /* bytes moved so far (fragments) */
            size_t msg_bytes;         /* receive: bytes the sender will deliver */
            void *tmp;                /* packed copy of a non-contiguous message */
            uint64_t peer_req;        /* the peer's request our packets are addressed to:
                                         the receive an RWDONE or FRAG stream fills, the
                                         send a FIN ends */
            uint64_t remote_addr;     /* send taking an SREQ: the receive buffer in the peer */
            void *part;               /* PART: partitions, readiness, handshake (part.c) */
        };
        void *msg;                    /* PROBE: the message (pt2pt's mp_unexp) */
        void *greq;                   /* GREQ: the callbacks (binding/request.c) */
        void *sched;                  /* PCOLL: the schedule (coll/sched.c) */
        struct {                      /* PAIR */
            int parts_left;           /* parts not complete, plus one while being started */
            void *owned_tmp;          /* freed at completion */
        };
        void *rma;                    /* RMA: the operation (src/rma/) */
    };
};

/* Debug builds (make DEBUG=1) check invariants with MP_ASSERT; release builds compile them
 * away.  A failed assertion ends the job with the condition, file and line. */
#ifdef MP_DEBUG
void mp_assert_fail(const char *cond, const char *file, int line) __attribute__((noreturn));
#define MP_ASSERT(c) ((c) ? (void)0 : mp_assert_fail(#c, __FILE__, __LINE__))
#else
#define MP_ASSERT(c) ((void)0)
#endif

/* The request a peer's packet names by the cookie we gave it. */
static inline mp_request *mp_request_of_cookie(uint64_t cookie)
{
    mp_request *req = (mp_request *)(uintptr_t)cookie;
    MP_ASSERT(req != NULL && req->magic == MP_REQ_MAGIC);
    return req;
}
static inline uint64_t mp_request_cookie(const mp_request *req)
{
    return (uint64_t)(uintptr_t)req;
}

mp_request *mp_request_alloc(int kind);
void        mp_request_free(mp_request *req);    /* release object and handle */
/* The completed send request: one object, never freed (mp_request_free leaves it alone),
 * with a handle of its own, for sends that completed at the call (pt2pt/fast.c). */
mp_request *mp_request_done_send(void);
int         mp_request_is_done_send(const mp_request *req);
/* The same from inside a lane (mp_lane_enter) holding `stripe`, which must not take the big
 * lock. */
mp_request *mp_request_alloc_in_lane(int kind, unsigned stripe);
void        mp_request_free_in_lane(mp_request *req, unsigned stripe);
int         mp_request_handle(mp_request *req);  /* assigns a user-visible handle on first use */
mp_request *mp_request_get(MPI_Request handle);  /* NULL if not a live request handle */
void        mp_request_complete(mp_request *req); /* marks done (release), runs on_complete */
int         mp_requests_sending(void);   /* some send request of this rank is not complete */
static inline int mp_request_is_done(const mp_request *req)
{
    return atomic_load_explicit(&req->done, memory_order_acquire);
}

/* Status helpers: counts are stored in bytes, MPICH-style across count_lo/count_hi. */
void      mp_status_set_bytes(MPI_Status *st, MPI_Count bytes);
MPI_Count mp_status_bytes(const MPI_Status *st);
void      mp_status_set_cancelled(MPI_Status *st, int flag);
int       mp_status_cancelled(const MPI_Status *st);
/* The standard's "empty" status and a request's status handed to the user: neither writes
 * MPI_ERROR, which only a multiple-completion call returning MPI_ERR_IN_STATUS may set
 * (MPI 4.0 3.2.5).  mp_status_copy ignores dst == MPI_STATUS_IGNORE. */
void      mp_status_empty(MPI_Status *st);
void      mp_status_copy(MPI_Status *dst, const MPI_Status *src);

/* ---------------------------------------------------------------------------------------------
 * Progress engine and waiting policy
 * ------------------------------------------------------------------------------------------- */
/* Event sources: every transport in use registers its poll at start-up (transport.c); a
 * poll hands arrived packets up and returns how many, leaving those of `skip_world` (-1:
 * none) queued. */
typedef int (*mp_poll_fn)(int skip_world);
void mp_progress_add_source(mp_poll_fn poll);

/* How a waiting rank gives its core away until something is delivered: the shm transport's
 * futex in the node segment (transport/shm/wait.c documents the protocol).  `complete` says
 * whether every delivery that can end a wait rings it (not when some peers are reached
 * through the network): if not, nothing sleeps. */
enum { MP_SLEEPS_NEVER = 0, MP_SLEEPS_RARELY, MP_SLEEPS_OFTEN };   /* the policy, for init */
enum { MP_SLEEP_READY = 0, MP_SLEEP_OK = 1, MP_SLEEP_BLOCKED = 2 };
typedef struct mp_sleeper {
    /* picks the fences from how often the policy sleeps; 1 when senders need none */
    int  (*init)(int sleeps);
    /* announces a sleep; MP_SLEEP_OK with the futex value in *word, MP_SLEEP_READY when
     * something arrived meanwhile (poll again), MP_SLEEP_BLOCKED when the wait is for a peer
     * to free queue space, which rings nothing (yield instead) */
    int  (*prepare)(unsigned *word);
    int  (*commit)(unsigned word, unsigned timeout_us);   /* sleeps; 0 if it timed out */
    void (*wake_self)(void);          /* wakes this process's sleeping threads */
    int  complete;
} mp_sleeper;
void mp_progress_set_sleeper(const mp_sleeper *sleeper);

/* Polls every transport once and runs the progress hooks; returns the number of events. */
int  mp_progress(void);
/* Layers above register work that must advance in the background (nonblocking collectives). */
typedef int (*mp_progress_hook)(void);
void mp_progress_register(mp_progress_hook hook);
/* Same, called only while *gate != 0 (the owner keeps it non-zero while it has work; read
 * by this thread's polls only, so a plain int). */
void mp_progress_register_gated(mp_progress_hook hook, const int *gate);
/* Waits until *flag becomes non-zero, driving progress and applying the waiting policy. */
void mp_wait_flag(atomic_int *flag);
/* The waiting policy in steps: call mp_idle(&spins) once per fruitless poll. */
void mp_idle(unsigned *spins);
/* Like mp_idle, but may sleep on the futex: only for waits that a packet arrival ends. */
void mp_idle_packet(unsigned *spins);
/* Like mp_idle, but never lets go of the big lock: for a wait nested inside an operation whose
 * state is half-way (a transport waiting for its provider in the middle of a send, a match or
 * a packet handler).  See core/progress.c, "nested waits". */
void mp_idle_nested(unsigned *spins);
int  mp_wait_request(mp_request *req);   /* progress until done */
/* Same, for a wait that already spent `spins` fruitless polls in mp_idle_spin: it goes on
 * from that point of the waiting policy instead of spinning from the start again. */
int  mp_wait_request_after(mp_request *req, unsigned spins);
/* One poll of everything but the packets from world rank `world` (they stay queued), without
 * mp_progress's yielding of non-blocking polls. */
int  mp_poll_except(int world);
/* Same, never letting go of the big lock (mp_poll_except may step aside for threads blocked
 * on it): for a caller whose checks must stay true across the poll (pt2pt's direct receive). */
int  mp_poll_except_holding(int world);
/* For waits that poll something narrower than mp_poll: a spin-stage step, 0 once the spin
 * stage is over (then wait with mp_idle* / mp_wait_request, which yield and sleep). */
int  mp_idle_spin(unsigned *spins);
void mp_wait_policy_init(void);         /* after the node layout is known */
int  mp_wait_oversubscribed(void);      /* the machine's ranks outnumber its cores */

/* The big lock (MPI_THREAD_MULTIPLE only; progress.c explains the design).  One recursive
 * lock serializes every MPI call that touches shared state -- point-to-point, requests,
 * collectives, communicator creation -- and the progress engine; waits give it up while they
 * yield or sleep.  Uncontended it costs a compare-and-swap to take and a release store to
 * give back; re-entry costs an increment.  Below MPI_THREAD_MULTIPLE mp_lock/mp_unlock are one
 * predictable branch on mp_thread_multiple, which is set once in MPI_Init_thread before any
 * other call. */
extern int mp_thread_multiple;
void mp_lock_slow(void);
void mp_unlock_slow(void);
static inline void mp_lock(void)   { if (MP_UNLIKELY(mp_thread_multiple)) mp_lock_slow(); }
static inline void mp_unlock(void) { if (MP_UNLIKELY(mp_thread_multiple)) mp_unlock_slow(); }
/* Some thread is blocked on the big lock (a hint, for a holder that spins: it should wait
 * the way that lets go of the lock instead). */
int  mp_lock_waited(void);
/* Releases the lock entirely if this thread holds it (any depth), returns the depth to give
 * back to mp_lock_reacquire.  For waits: other threads must be able to progress meanwhile. */
int  mp_lock_release(void);
void mp_lock_reacquire(int depth);
/* For long work on memory only the caller's operation uses (a collective's copy or fold, a
 * put or get, a file access's system calls): if it moves MP_LOCK_STEP_OUT_MIN bytes or more,
 * releases the lock as a wait would -- under MPI_THREAD_MULTIPLE, held, and not inside a poll,
 * whose state is half-way -- and returns the depth to give back to mp_lock_step_in, which
 * takes the lock again and counts the work in *counter (an mp_stat field); 0: the work runs
 * holding it.  Below the bound taking the lock back (a compare-and-swap) is not worth it. */
#define MP_LOCK_STEP_OUT_MIN ((size_t)16 * 1024)
int  mp_lock_step_out(size_t bytes);
void mp_lock_step_in(int depth, uint64_t *counter);
/* A progress hook's large copy without the lock: 1 if the lock was released (the caller's
 * poll was started by a wait at the top of a call, under MPI_THREAD_MULTIPLE), then the
 * caller takes it back with mp_lock_retake_in_hook; 0 if it must copy holding it.  The caller
 * first leaves its own state so that other threads may act on it (progress.c). */
typedef struct mp_lock_saved { int depth, polling, hooks_may_drop; } mp_lock_saved;
/* Some thread has had to wait for the big lock since MPI_Init (a hint): the program's threads
 * meet in the library, so long work under the lock would hold them up. */
int  mp_lock_contended_ever(void);
int  mp_lock_drop_in_hook(mp_lock_saved *saved);
void mp_lock_retake_in_hook(const mp_lock_saved *saved);
/* Lanes: point-to-point calls that run beside each other instead of under the big lock
 * (progress.c, "Lanes"; docs/protocol.md, "Threads").  A lane is a reader of the big lock that
 * also holds one of MP_LANE_STRIPES stripes -- the stripe of its communicator's track -- so
 * lanes of different tracks run at once and the holder of the big lock runs alone.
 * Entering is a try: when the big lock is held (or being taken) or the stripe is taken, the
 * caller takes the big lock the usual way instead.  A lane never blocks and
 * never takes the big lock: it does what it can or gives up, having changed nothing.  Lanes
 * open once threads have met in the library (MEMPI_LANES=0 keeps them shut). */
#define MP_LANE_STRIPES 8
extern atomic_int mp_lanes_open_word;
static inline int mp_lanes_open(void)
{
    return MP_UNLIKELY(atomic_load_explicit(&mp_lanes_open_word, memory_order_relaxed));
}
/* Enters a lane of `stripe`: 1 if in (leave with mp_lane_exit), 0 if the big lock is held
 * or being taken, or another lane kept the stripe for longer than a short spin. */
void mp_lanes_init(void);              /* MPI_Init, once the thread level is known */
int  mp_lane_enter(unsigned stripe);
int  mp_lane_try(unsigned stripe);     /* the same without waiting for another lane */
void mp_lane_exit(unsigned stripe);
/* Some thread holds or is taking the big lock: a lane that spins must give up. */
int  mp_lane_writer_waiting(void);
/* A leaf spin lock (0 free, 1 taken) for state that lanes of different stripes share; no
 * other lock may be taken while one is held. */
void mp_leaf_lock(atomic_int *word);
static inline void mp_leaf_unlock(atomic_int *word)
{
    atomic_store_explicit(word, 0, memory_order_release);
}
/* Holds the lock from here to the end of the enclosing block, whatever path leaves it: the
 * binding's entry points start with MP_BIG_LOCK(); so no early return can forget to unlock. */
static inline int  mp_lock_scope_enter(void) { mp_lock(); return 1; }
static inline void mp_lock_scope_exit(int *held) { (void)held; mp_unlock(); }
#define MP_BIG_LOCK() \
    int mp_big_lock_held_ __attribute__((cleanup(mp_lock_scope_exit), unused)) = mp_lock_scope_enter()
/* Wakes threads of this process asleep in a wait (called when a request completes). */
void mp_wake_local_sleepers(void);

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */
/* Raises an error of class `cls` on `comm` (NULL = MPI_COMM_WORLD or, before init, fatal):
 * formats "FUNC: message", records it so MPI_Error_string returns it for the returned code,
 * and invokes the communicator's error handler.  Returns the error code to hand back to the
 * caller (only reached when the handler returns). */
int  mp_error(mp_comm *comm, int cls, const char *func, const char *fmt, ...)
         __attribute__((format(printf, 4, 5)));
/* Same, for an error code already formatted (e.g. from a lower layer). */
int  mp_error_raise(mp_comm *comm, int code, const char *func);
/* What the fatal predefined handlers do: print the error (naming func) and end the job.
 * For objects with handlers of their own (windows, files). */
void mp_error_fatal(int code, const char *func) __attribute__((noreturn));
/* Creates an error code carrying the message, without invoking any handler. */
int  mp_error_code(int cls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int  mp_error_class_of(int code);
const char *mp_error_message(int code);   /* specific message of a code, or class text */
const char *mp_error_class_text(int cls);
int  mp_unsupported(const char *func);   /* MPI_ERR_UNSUPPORTED_OPERATION, clear message */
int  mp_unsupported_on(mp_comm *comm, const char *func);   /* ... through comm's handler */
/* User-defined error classes and codes (MPI_Add_error_class/code/string). */
int  mp_error_add_class(int *cls);
int  mp_error_add_code(int cls, int *code);
int  mp_error_add_string(int code, const char *text);   /* MPI_ERR_ARG if not addable */
int  mp_error_last_used(void);                          /* MPI_LASTUSEDCODE */
/* MPI 4.1 removal: MPI_ERR_ARG if not a live user-defined one, MPI_ERR_OTHER if a string (or,
 * for a class, a code) still depends on it. */
int  mp_error_remove_string(int code);
int  mp_error_remove_code(int code);
int  mp_error_remove_class(int cls);
/* Hook for the comm layer: calls a user errhandler (returns 0 if `eh` is not a user one). */
extern int (*mp_errhandler_invoke_hook)(mp_comm *comm, int eh, int code);
void mp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void mp_abort_job(int code, const char *msg) __attribute__((noreturn));
/* A peer's process is known to be gone (single copy found no such process, the network saw
 * its endpoint close): a later mp_abort_job first lets the launcher report that death. */
void mp_note_peer_gone(int world_rank);

/* ---------------------------------------------------------------------------------------------
 * Configuration: MEMPI_* variables (config.c).  One declarative table: each row names a
 * variable, its type, range or choices, default, the field it sets, its scope and meaning.
 * mp_config_load reads every row once, at MPI_Init; code reads the fields, never getenv.
 * Layers that own variables keep their rows and register them with mp_config_add before the
 * load (the collective layer's MEMPI_COLL_<NAME>); mempi-info and the README's table are
 * printed from the rows.
 * ------------------------------------------------------------------------------------------- */
typedef enum mp_config_type {
    MP_CFG_SIZE,                      /* size_t: bytes, "4096", "64k", "1M" */
    MP_CFG_INT,                       /* int */
    MP_CFG_BOOL,                      /* int: 0 or 1 */
    MP_CFG_CHOICE,                    /* int: index in choices + base (case-insensitive) */
    MP_CFG_STRING                     /* const char *, as given */
} mp_config_type;

enum {
    MP_CFG_ALL_EQ  = 1,               /* scope: all ranks must give the same value (else: local) */
    MP_CFG_RUNTIME = 2,               /* the field may change after MPI_Init (read at each use) */
    MP_CFG_AUTO    = 4,               /* SIZE: also "auto", stored as MP_CFG_SIZE_AUTO */
    MP_CFG_POW2    = 8,               /* SIZE/INT: a power of two */
    MP_CFG_EMPTY   = 16               /* an empty value means the default */
};
#define MP_CFG_SIZE_AUTO ((size_t)-2)

typedef struct mp_config_var {
    const char *name;                 /* e.g. "MEMPI_EAGER_MAX" */
    mp_config_type type;
    int flags;                        /* MP_CFG_* above */
    const char *defval;               /* parses like a value (checked by tests/unit/config_fuzz) */
    long long lo, hi;                 /* SIZE, INT: inclusive range */
    const char *const *choices;       /* CHOICE: NULL-terminated */
    int base;                         /* CHOICE: the field gets index + base */
    void *field;                      /* size_t*, int* or const char** by type */
    /* Irregular syntax (NULL: by type): 0 and the field set, or -1; `expect` says what a
     * valid value looks like in the error message. */
    int (*parse)(const char *value, void *field);
    const char *expect;
    const char *meaning;
} mp_config_var;

typedef struct mp_config_bound { size_t entries, bytes; } mp_config_bound;  /* one of them, or 0 */

/* The fields of the core table.  Each layer reads its own; names follow the variables. */
typedef struct mp_config {
    size_t eager_max;                 /* MEMPI_EAGER_MAX: largest eager message (bytes) */
    size_t shm_cells;                 /* MEMPI_SHM_CELLS: cells per fast ring (one sender) */
    size_t shm_queue;                 /* MEMPI_SHM_QUEUE: cells of each rank's shared queue */
    size_t shm_rings;                 /* MEMPI_SHM_RINGS: fast rings per receiving rank */
    size_t shm_ring_after;            /* MEMPI_SHM_RING_AFTER: queue packets before a ring */
    size_t shm_chunk;                 /* MEMPI_SHM_CHUNK: bytes per pool chunk (fragment size) */
    size_t shm_chunks;                /* MEMPI_SHM_CHUNKS: pool chunks per rank */
    int    cma;                       /* MEMPI_CMA: -1 auto, 0 off, 1 on */
    int    split_copy;                /* MEMPI_SPLIT_COPY: -1 auto, 0 off, 1 on */
    size_t split_copy_min;            /* MEMPI_SPLIT_COPY_MIN: smallest shared single copy */
    int    sendreq;                   /* MEMPI_SENDREQ: send requests (SR) on/off */
    int    lanes;                     /* MEMPI_LANES: point-to-point lanes beside the big lock:
                                         -1 auto (once threads meet), 0 off, 1 on */
    size_t sendreq_min;               /* MEMPI_SENDREQ_MIN: smallest buffer worth an SR */
    int    wait_policy;               /* MEMPI_WAIT: MP_WAIT_* */
    unsigned spin_count;              /* MEMPI_SPIN: polls before yielding */
    unsigned sleep_timeout_us;        /* MEMPI_SLEEP_TIMEOUT: bound of one futex sleep */
    int    bind;                      /* MEMPI_BIND: MP_BIND_* (core/placement.h) */
    int    report_bindings;           /* MEMPI_REPORT_BINDINGS */
    int    stats;                     /* MEMPI_STATS */
    int    verbose;                   /* MEMPI_VERBOSE: 1 start-up, 2 also every collective */
    int    node_size;                 /* MEMPI_NODE_SIZE: simulate nodes of this many ranks */
    size_t coll_shm_slot;             /* MEMPI_COLL_SHM_SLOT: bytes per rank for shm collectives */
    int    async_progress;            /* MEMPI_ASYNC_PROGRESS: a progress thread per rank */
    int    pmi;                       /* MEMPI_PMI: 0 as the launcher says, 1, 2 */
    const char *tuning;               /* MEMPI_TUNING: file of defaults ("" none) */
    const char *net_provider;         /* MEMPI_NET_PROVIDER ("" = best available) */
    const char *mpiexec;              /* MEMPI_MPIEXEC ("" = <libdir>/../bin/mpiexec) */
    const char *net_iface;            /* MEMPI_NET_IFACE ("" = the provider's first) */
    size_t net_eager_max;             /* MEMPI_NET_EAGER_MAX */
    size_t net_chunk;                 /* MEMPI_NET_CHUNK: data bytes per network packet */
    int    net_credits;               /* MEMPI_NET_CREDITS: packets in flight per peer */
    int    net_rma;                   /* MEMPI_NET_RMA: fi_read/fi_write allowed */
    int    net_coalesce;              /* MEMPI_NET_COALESCE: pack messages behind credits */
    size_t net_rma_max;               /* MEMPI_NET_RMA_MAX: bytes, or MP_CFG_SIZE_AUTO */
    mp_config_bound net_mr_cache;     /* MEMPI_NET_MR_CACHE: entries or bytes, 0 = off */
    int    net_async_read;            /* MEMPI_NET_ASYNC_READ: -1 auto, 0 off, 1 on */
    int    net_timeout;               /* MEMPI_NET_TIMEOUT: seconds, 0 = never */
} mp_config;
extern mp_config mp_cfg;
enum { MP_WAIT_AUTO = 0, MP_WAIT_SPIN, MP_WAIT_YIELD, MP_WAIT_SLEEP };

/* Where a variable's value came from. */
enum { MP_CFG_FROM_DEFAULT, MP_CFG_FROM_TUNING, MP_CFG_FROM_ENV };

/* Adds a layer's rows to the table (once per array; before mp_config_load). */
void mp_config_add(const mp_config_var *rows, int n);
int  mp_config_count(void);                         /* rows of every registered array */
const mp_config_var *mp_config_row(int i);          /* 0 <= i < mp_config_count() */
int  mp_config_index(const char *name, size_t len); /* row index, -1 if unknown */
/* Reads and validates every row (environment, else MEMPI_TUNING file, else default) into its
 * field.  On malformed input every field still gets a value (the default where the given one
 * is bad) and the first error is returned; its message names the variable and the value. */
int  mp_config_load(void);
const char *mp_config_current(const char *name);   /* the text in effect: env, file, default */
int  mp_config_source(const char *name);            /* MP_CFG_FROM_* */
/* The value range of a row as text ("auto|0|1", "size 0-1G", ...), for messages and docs. */
void mp_config_describe_values(const mp_config_var *v, char *out, size_t len);
/* Strict parsers used for every outside input: return 0 on success, -1 on malformed input. */
int  mp_parse_size(const char *s, size_t *out);    /* "4096", "64k", "1M" */
int  mp_parse_int(const char *s, long lo, long hi, long *out);
int  mp_parse_choice(const char *s, const char *const *choices, int *out);

/* MEMPI_TUNING files (tuning.c): `NAME = VALUE` defaults for MEMPI_* variables. */
enum { MP_TUNING_MAX = 64, MP_TUNING_VALUE_MAX = 256, MP_TUNING_LINE_MAX = 1024,
       MP_TUNING_FILE_MAX = 65536 };
typedef struct mp_tuning {
    int n;
    int var[MP_TUNING_MAX];                   /* row index (mp_config_row) */
    char value[MP_TUNING_MAX][MP_TUNING_VALUE_MAX];
} mp_tuning;
extern mp_tuning mp_tuned;                    /* the file named by MEMPI_TUNING, if any */
/* Pure parser (fuzzed): 0, or -1 with "line N: why" in err. */
int  mp_tuning_parse(const char *text, size_t len, mp_tuning *t, char *err, size_t errlen);
int  mp_tuning_load(const char *path);        /* fills mp_tuned; MPI error code */
const char *mp_tuning_value(const char *name);

/* ---------------------------------------------------------------------------------------------
 * Statistics (MEMPI_STATS)
 * ------------------------------------------------------------------------------------------- */
typedef struct mp_stats {
    uint64_t msgs_sent, bytes_sent;
    uint64_t eager_msgs, eager_bytes;
    uint64_t sendreq_msgs, sendreq_bytes;     /* delivered by remote write */
    uint64_t rndv_msgs, rndv_bytes;
    uint64_t split_msgs, split_help_bytes;    /* copies shared by two cores (owner's count);
                                                 bytes this rank copied as the helper */
    uint64_t unexpected_max_msgs, unexpected_max_bytes;
    uint64_t unexpected_msgs, unexpected_bytes;  /* current */
    uint64_t net_mr_hits, net_mr_misses;      /* keys sent for reused / new registrations */
    uint64_t net_batches, net_batched_msgs;   /* network BATCH packets sent, messages in them */
    uint64_t rma_ops, rma_bytes;              /* one-sided operations issued, their bytes */
    uint64_t unlocked_copies;                 /* single copies run without the big lock */
    uint64_t unlocked_coll_copies;            /* collectives' copies and folds run so */
    uint64_t unlocked_rma_copies;             /* puts and gets run so */
    uint64_t unlocked_io_accesses;            /* blocking file accesses run so */
    uint64_t lane_calls;                      /* sends and receives done in a lane */
} mp_stats;
extern mp_stats mp_stat;
/* A lane (MPI_THREAD_MULTIPLE, see mp_lane_enter) counts in its stripe's block instead of
 * mp_stat, with mp_lane_stat_add; readers of the counters take the sums. */
mp_stats *mp_lane_stats(unsigned stripe);
static inline void mp_lane_stat_add(uint64_t *field, uint64_t delta)
{
    __atomic_store_n(field, __atomic_load_n(field, __ATOMIC_RELAXED) + delta, __ATOMIC_RELAXED);
}
uint64_t mp_stat_field(size_t offset);      /* mp_stat's field at offset plus the lanes' */
void     mp_stats_total(mp_stats *out);     /* all of them */

/* ---------------------------------------------------------------------------------------------
 * The MPI_T tool interface (mpit.c): control variables are the configuration rows, performance
 * variables the statistics above.  Every function returns MPI_SUCCESS or an MPI_T_ERR_* code
 * (MPI_T_ERR_NOT_INITIALIZED outside MPI_T_init_thread/MPI_T_finalize) and is thread safe.
 * ------------------------------------------------------------------------------------------- */
int mp_t_init(int required, int *provided);
/* Events (MPI 4.0 15.3.8) that point-to-point raises while a tool has a callback for them. */
enum { MP_T_EVENT_UNEXPECTED, MP_T_EVENT_RNDV_START, MP_T_NEVENTS };
extern atomic_int mp_t_event_wanted[MP_T_NEVENTS];
void mp_t_event_raise(int event, int world_peer, int peer, int tag, int ctx, size_t bytes);
static inline void mp_t_event(int event, int world_peer, int peer, int tag, int ctx,
                              size_t bytes)
{
    if (atomic_load_explicit(&mp_t_event_wanted[event], memory_order_relaxed))
        mp_t_event_raise(event, world_peer, peer, tag, ctx, bytes);
}
int mp_t_event_get_num(int *num);
int mp_t_event_get_info(int index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype types[], MPI_Aint displs[], int *num_elements,
                        MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind);
int mp_t_event_get_index(const char *name, int *index);
int mp_t_event_handle_alloc(int index, MPI_T_event_registration *reg);
int mp_t_event_handle_free(MPI_T_event_registration reg, void *user_data,
                           MPI_T_event_free_cb_function *free_cb);
int mp_t_event_register_callback(MPI_T_event_registration reg, int safety, void *user_data,
                                 MPI_T_event_cb_function *cb);
int mp_t_event_set_dropped_handler(MPI_T_event_registration reg,
                                   MPI_T_event_dropped_cb_function *dropped);
int mp_t_event_reg_check(MPI_T_event_registration reg, int safety);   /* safety 0: any */
/* what: 0 read element `element` into buf, 1 copy, 2 time stamp, 3 source index. */
int mp_t_event_instance(MPI_T_event_instance e, int what, int element, void *buf);
int mp_t_source_get_num(int *num);
int mp_t_source_get_info(int index, char *name, int *name_len, char *desc, int *desc_len,
                         MPI_T_source_order *ordering, MPI_Count *ticks, MPI_Count *max_ticks);
int mp_t_source_get_timestamp(int index, MPI_Count *timestamp);
int mp_t_finalize(void);
int mp_t_cvar_get_num(int *num);
int mp_t_cvar_get_info(int index, char *name, int *name_len, int *verbosity,
                       MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                       int *bind, int *scope);
int mp_t_cvar_get_index(const char *name, int *index);
int mp_t_cvar_handle_alloc(int index, MPI_T_cvar_handle *handle, int *count);
int mp_t_cvar_handle_free(MPI_T_cvar_handle *handle);
int mp_t_cvar_read(MPI_T_cvar_handle handle, void *buf);
int mp_t_cvar_write(MPI_T_cvar_handle handle, const void *buf);
int mp_t_enum_get_info(MPI_T_enum e, int *num, char *name, int *name_len);
int mp_t_enum_get_item(MPI_T_enum e, int index, int *value, char *name, int *name_len);
int mp_t_pvar_get_num(int *num);
int mp_t_pvar_get_info(int index, char *name, int *name_len, int *verbosity, int *var_class,
                       MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                       int *bind, int *readonly, int *continuous, int *atomic);
int mp_t_pvar_get_index(const char *name, int var_class, int *index);
int mp_t_pvar_session_create(MPI_T_pvar_session *session);
int mp_t_pvar_session_free(MPI_T_pvar_session *session);
int mp_t_pvar_handle_alloc(MPI_T_pvar_session session, int index, MPI_T_pvar_handle *handle,
                           int *count);
int mp_t_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
int mp_t_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int mp_t_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int mp_t_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int mp_t_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf, int reset);
int mp_t_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
int mp_t_category_get_num(int *num);
int mp_t_category_get_info(int cat, char *name, int *name_len, char *desc, int *desc_len,
                           int *num_cvars, int *num_pvars, int *num_categories);
int mp_t_category_get_index(const char *name, int *cat);
/* kind: 0 control variables, 1 performance variables, 2 subcategories, 3 events */
int mp_t_category_get_members(int cat, int kind, int len, int *indices);
int mp_t_category_num_events(int cat, int *num);
int mp_t_category_changed(int *update_number);
int mp_t_no_events(int rc);           /* rc once initialised: MemPI has no events */
int mp_t_none(int *num);              /* *num = 0 (events, event sources) */

/* ---------------------------------------------------------------------------------------------
 * Time and misc
 * ------------------------------------------------------------------------------------------- */
double mp_wtime(void);
void  *mp_malloc(size_t n);           /* aborts the job with a clear message when out of memory */
void  *mp_calloc(size_t n, size_t m);
void  *mp_realloc(void *p, size_t n);
char  *mp_strdup(const char *s);
int    mp_random_bytes(void *buf, size_t n);

#endif

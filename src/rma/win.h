/* win.h -- private state of the one-sided layer.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A window keeps, per rank of its group, how this process reaches that rank's window memory
 * (the target's path), where that memory is, and the origin-side state of the epochs towards
 * it.  The ranks of one host share a segment for the window: a control area of two cache
 * lines per rank (its passive-target lock word and its accumulate lock), followed, for
 * MPI_Win_allocate and MPI_Win_allocate_shared, by every rank's window memory.
 *
 * Lock words (docs/rma.md):
 *   lock   passive-target lock of one rank's window: bit 31 exclusive holder, bits 0-30
 *          shared holders.  Shared requests are granted whenever no exclusive lock is held
 *          (readers first): a process may hold shared locks while it waits for more
 *          (MPI_Win_lock_all, several MPI_Win_lock), so holding readers back for a waiting
 *          writer could close a cycle of waits between two such processes.  Acquired with a compare-and-swap (acquire order) by the origin itself
 *          when the target is on its host, by the target's progress engine on behalf of a
 *          remote origin; released with a release store (exclusive) or fetch_sub (shared),
 *          so everything the holder wrote is visible to the next holder.
 *   acc    serializes every accumulate-family update of one rank's window, whoever performs
 *          it (an origin on the host through the mapping or single copy, the target's
 *          progress engine for messages): exchange 1 with acquire, store 0 with release.
 *          One mechanism for all paths is what makes accumulates atomic with respect to
 *          each other, per element, as the standard requires.
 */
#ifndef MP_RMA_WIN_H
#define MP_RMA_WIN_H

#include "rma/rma.h"
#include "transport/transport.h"
#include "comm/comm.h"
#include "coll/coll.h"

#define MP_LOCK_EXCL  0x80000000u

typedef struct mp_win_ctl {
    atomic_uint lock;
    char pad0[MP_CACHELINE - sizeof(atomic_uint)];
    atomic_uint acc;
    char pad1[MP_CACHELINE - sizeof(atomic_uint)];
} mp_win_ctl;
_Static_assert(sizeof(mp_win_ctl) == 2 * MP_CACHELINE, "lock words on their own lines");

/* The memory a rank attached to a dynamic window, published in the host segment for the
 * origins of its host (seqlock, dynamic.c): `seq` is odd while the owner rewrites the
 * entries; a reader that sees the same even value before and after copying them has a
 * consistent copy.  n == MP_WIN_DIR_MAX + 1: more regions than the directory lists. */
#define MP_WIN_DIR_MAX 64
typedef struct mp_win_dir {
    atomic_uint seq;
    atomic_uint n;
    char pad[MP_CACHELINE - 2 * sizeof(atomic_uint)];
    _Atomic uint64_t base[MP_WIN_DIR_MAX];
    _Atomic uint64_t size[MP_WIN_DIR_MAX];
} mp_win_dir;
_Static_assert(sizeof(mp_win_dir) % MP_CACHELINE == 0, "a directory fills whole cache lines");

enum { MP_PATH_DIRECT = 1, MP_PATH_COPY, MP_PATH_MSG };
enum { MP_EPOCH_NONE = 0, MP_EPOCH_FENCE, MP_EPOCH_LOCK, MP_EPOCH_LOCK_ALL, MP_EPOCH_START };

typedef struct mp_win_target {
    int path;                         /* MP_PATH_* */
    int world;                        /* world rank */
    char *mapped;                     /* DIRECT: its window memory as mapped here */
    uint64_t base;                    /* its window's address in its own process */
    MPI_Aint size;
    MPI_Aint disp_unit;
    mp_win_ctl *ctl;                  /* its lock words, when it shares our host */
    mp_win_dir *dir;                  /* dynamic windows: its directory, on our host */
    uint64_t *seen;                   /* dynamic windows: its attached memory as last seen,
                                         base/size pairs; NULL: not seen in this epoch */
    int nseen;                        /* pairs in seen; -1: too many to check */
    /* origin-side state towards it */
    int lock_type;                    /* MPI_LOCK_SHARED / EXCLUSIVE held, or 0 */
    int in_start;                     /* member of the current access group (start) */
    unsigned posts;                   /* its POSTs not yet consumed by a start */
    unsigned unflushed;               /* message-path operations since its last flush */
    unsigned data_due;                /* replies carrying data still to come (get ...) */
    unsigned acks_due;                /* flush / lock / unlock answers still to come */
} mp_win_target;

typedef struct mp_win_region {        /* memory attached to a dynamic window */
    struct mp_win_region *next;
    uintptr_t base;
    size_t size;
} mp_win_region;

typedef struct mp_lock_req {          /* a remote origin's lock request we could not grant */
    struct mp_lock_req *next;
    int origin;                       /* rank in the window */
    int exclusive;
    uint64_t cookie;
} mp_lock_req;

struct mp_win {
    int handle;
    int ctx;                          /* window id on the wire: comm's context id */
    mp_comm *comm;                    /* private duplicate of the creating communicator */
    int flavor;                       /* MPI_WIN_FLAVOR_* */
    void *base;
    MPI_Aint size;
    MPI_Aint disp_unit;
    int disp_unit_int;                /* the MPI_WIN_DISP_UNIT attribute's int */
    int model;                        /* MPI_WIN_UNIFIED */
    mp_win_target *t;                 /* comm->size entries */
    void *seg;                        /* this host's segment (control area, data) */
    size_t seg_size;
    int seg_shared;                   /* seg is a shared mapping (else private memory) */
    mp_win_ctl *my_ctl;
    mp_win_dir *my_dir;               /* dynamic windows: our directory */
    int no_locks;                     /* info no_locks = true */
    MPI_Info info;                    /* the hints, as the user set them */
    mp_attr *attrs;
    int errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    mp_win_region *regions;           /* dynamic windows */
    /* epochs (sync.c) */
    int access;                       /* MP_EPOCH_* of our access epoch */
    int nlocked;                      /* targets locked by MPI_Win_lock */
    int fence_busy;                   /* operations issued since the last fence */
    int exposed;                      /* an exposure epoch (post) is open */
    int post_size;                    /* origins of the open exposure epoch */
    unsigned completes;               /* their COMPLETE messages so far */
    mp_lock_req *lock_waiting;        /* target side: requests not granted yet */
    mp_win *next_waiting;             /* in the list of windows with waiting requests */
};

/* window.c */
mp_win *mp_win_of_ctx(int ctx);       /* for arriving packets */

/* dynamic.c: memory attached to dynamic windows */
int  mp_win_region_ok(const mp_win *win, uint64_t addr, size_t len);   /* target side */
/* Origin side: MPI_ERR_RMA_RANGE unless [lo, hi) of rank r is attached memory. */
int  mp_win_dyn_check(const char *F, mp_win *win, int r, uint64_t lo, uint64_t hi);
void mp_win_dyn_forget(mp_win *win);  /* a new epoch: look the targets' memory up again */
size_t mp_win_dyn_list(const mp_win *win, uint64_t *pairs, size_t cap);  /* all regions */
void mp_win_dyn_release(mp_win *win);

/* sync.c: lock words (shared with am.c, which grants remote origins' requests) */
int  mp_winlock_try(mp_win_ctl *ctl, int exclusive);
void mp_winlock_release(mp_win_ctl *ctl, int exclusive);
void mp_acc_lock(mp_win_ctl *ctl);
void mp_acc_unlock(mp_win_ctl *ctl);
/* Drives progress until *count == 0 (replies we wait for end the wait: it may sleep). */
void mp_rma_wait_zero(const unsigned *count);

/* apply.c: accumulate arithmetic on memory of this process */
/* target[i] = target[i] op in[i] for the `bytes` bytes of basic elements at target (a run of
 * one target segment); MPI_REPLACE copies, MPI_NO_OP does nothing. */
void mp_rma_apply(MPI_Op op, MPI_Datatype basic, void *target, const void *in, size_t bytes);
/* Bytes of memory that `bytes` of packed basic elements cover (pair types have padding). */
size_t mp_rma_span(MPI_Datatype basic, size_t bytes);
/* The packed form of those elements, as a fetching operation returns them. */
void mp_rma_fetch_old(MPI_Datatype basic, const void *target, size_t bytes, void *old);
/* *result = *target; *target = new if *target == *compare (one basic element). */
void mp_rma_cas(MPI_Datatype basic, void *target, const void *compare, const void *value,
                void *result);

/* am.c: active messages (the message path and every notification) */
enum mp_rma_pkt {
    MP_PKT_RMA_PUT = MP_PKT_RMA_FIRST,  /* addr: target address; payload: data */
    MP_PKT_RMA_ACC,                     /* + tag: op, size: basic type */
    MP_PKT_RMA_GET,                     /* addr; size: bytes; cookie: reply record */
    MP_PKT_RMA_GACC,                    /* addr; payload: operand (none for NO_OP); size:
                                           bytes; tag: op; seq: basic type; cookie */
    MP_PKT_RMA_CAS,                     /* addr; payload: compare, value; seq: basic type */
    MP_PKT_RMA_DATA,                    /* reply: cookie; addr: offset in the reply; data */
    MP_PKT_RMA_FLUSH,                   /* cookie: answered with ACK after all before it */
    MP_PKT_RMA_LOCK,                    /* flags: exclusive; cookie: ACK when granted */
    MP_PKT_RMA_UNLOCK,                  /* flags: exclusive; cookie: ACK once released */
    MP_PKT_RMA_ACK,                     /* cookie */
    MP_PKT_RMA_POST,                    /* target -> origin: an exposure epoch opened */
    MP_PKT_RMA_COMPLETE,                /* origin -> target: its access epoch ended */
    MP_PKT_RMA_REGIONS,                 /* cookie: DATA back with the attached memory */
};
enum { MP_RMA_F_EXCL = 1 };

/* What a reply names by its cookie: a get's or a fetching accumulate's destination, or a
 * notification we wait for.  op, if set, counts its replies (the request of MPI_Rget ...). */
typedef struct mp_rma_opstate {
    int parts;                        /* replies still to come */
    mp_request *req;                  /* completed when parts reaches 0, or NULL */
    mp_datatype *held[2];             /* datatypes referenced until then */
} mp_rma_opstate;

typedef struct mp_rma_reply {
    unsigned *due;                    /* the target's counter this reply decrements */
    void *buf;                        /* data replies: destination stream ... */
    MPI_Aint count;
    mp_datatype *dt;
    size_t stream_off, bytes, got;    /* ... its bytes [stream_off, +bytes); 0: one packet */
    size_t *landed;                   /* if set, receives `got` when the reply is complete */
    mp_rma_opstate *op;
} mp_rma_reply;

/* Sends one packet to the target of `t`, in order with everything sent to that process
 * before; from user calls it waits (driving progress) while the transport is full. */
void mp_rma_send(int world, const mp_hdr *h, const void *data, size_t len);
/* Header of a window packet: type, window id, our rank in the window. */
void mp_rma_hdr(mp_hdr *h, int type, const mp_win *win);
mp_rma_reply *mp_rma_reply_new(unsigned *due, mp_rma_opstate *op);
void mp_rma_op_part_done(mp_rma_opstate *op);
/* Grants what it can of the remote lock requests waiting on `win` (after a release). */
int mp_rma_grant_waiting(mp_win *win);   /* how many requests it granted */
size_t mp_rma_max_payload(int world);

/* progress_thread.c */
int  mp_rma_async_start(void);
void mp_rma_async_stop(void);

#endif

/* coll_impl.h -- private interface of the collective layer: schedules, teams, algorithms.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every collective algorithm is written once, as a *builder* that appends steps to a
 * schedule (mp_sched): send, receive, local reduce, local copy, and fences that separate
 * phases.  The blocking collective builds the schedule and runs it to completion on the
 * spot; the nonblocking one hands the same schedule to the progress engine (sched.c).  So an
 * algorithm exists in exactly one place and both forms are tested by the same code.
 *
 * Algorithms run over a *team*: an ordered subset of the communicator's ranks (all of them,
 * the ranks of one node, or the node leaders).  Node-aware algorithms are compositions of
 * flat algorithms over these teams; they never need a new communicator or context id.
 * Within one collective call every message carries the same tag (the call's position in the
 * communicator's sequence of blocking, nonblocking or persistent collectives: sched.c), and
 * the traffic class MP_CTX_COLL keeps it away from user messages.
 * Two messages between the same pair within one call are matched in posting order, which
 * the point-to-point layer's non-overtaking rule guarantees.
 */
#ifndef MP_COLL_IMPL_H
#define MP_COLL_IMPL_H

#include "coll/coll.h"

/* ---------------------------------------------------------------------------------------------
 * Teams
 * ------------------------------------------------------------------------------------------- */
typedef struct mp_team {
    int size, rank;                   /* rank: my index in the team, -1 if not a member */
    const int *map;                   /* team index -> communicator rank; NULL = identity */
} mp_team;

static inline int mp_team_peer(const mp_team *t, int i) { return t->map ? t->map[i] : i; }

/* The three tag classes: a collective's tag is its position among the calls of its class on
 * the communicator (sched.c explains why the classes are separate). */
enum { MP_TAGS_BLOCKING, MP_TAGS_NONBLOCKING, MP_TAGS_PERSISTENT, MP_TAGS_N };

/* Per-communicator state of the coll layer (comm->coll_state), created on first use. */
typedef struct mp_coll_state {
    unsigned seq[MP_TAGS_N];          /* calls so far of each tag class (see sched.c) */
    int nnodes;                       /* nodes among the ranks (1 if no layout is known) */
    int *node_ranks;                  /* ranks of my node, ascending */
    int *leaders;                     /* node leaders in node order */
    int *pos_in_node;                 /* rank -> index among the ranks of its node */
    int *node_count;                  /* node -> number of ranks on it */
    int blocked;                      /* every node is a run of consecutive ranks, nodes in
                                         ascending order: node-aware reductions keep the
                                         rank order, so non-commutative ops may use them */
    int shm_usable;                   /* shm collectives possible: 0 unknown, 1 yes, -1 no */
    struct mp_shm_comm *shm;          /* their state (shm.c), created on first use */
} mp_coll_state;

mp_coll_state *mp_coll_state_of(mp_comm *comm);
mp_team mp_team_all(mp_comm *comm);
mp_team mp_team_node(mp_comm *comm);          /* the ranks on my node */
mp_team mp_team_leaders(mp_comm *comm);       /* one rank per node; rank -1 if not a leader */
/* Node-aware algorithms need more than one node and at least one node with several ranks. */
int mp_coll_node_aware_useful(mp_comm *comm);
int mp_coll_node_of(mp_comm *comm, int rank);  /* node index of a rank */

/* ---------------------------------------------------------------------------------------------
 * Schedules (sched.c)
 * ------------------------------------------------------------------------------------------- */
typedef struct mp_sched mp_sched;

mp_sched *mp_sched_new(mp_comm *comm);
/* Data transfers of zero bytes are dropped: both sides know the size from the arguments. */
void mp_sched_send(mp_sched *s, const void *buf, MPI_Aint count, mp_datatype *dt, int peer);
void mp_sched_recv(mp_sched *s, void *buf, MPI_Aint count, mp_datatype *dt, int peer);
/* Same with the tag moved by tagoff (0 <= tagoff < n of mp_sched_reserve_tags): for calls
 * that send several messages between one pair which must not match in posting order
 * (Cartesian neighbourhoods where the -1 and +1 neighbour are the same process). */
void mp_sched_send_tagged(mp_sched *s, const void *buf, MPI_Aint count, mp_datatype *dt,
                          int peer, int tagoff);
void mp_sched_recv_tagged(mp_sched *s, void *buf, MPI_Aint count, mp_datatype *dt, int peer,
                          int tagoff);
void mp_sched_reserve_tags(mp_sched *s, int n);
int  mp_sched_tag(const mp_sched *s);         /* the call's (first) tag; -1 before it runs */
/* Zero-byte synchronisation messages (barrier). */
void mp_sched_ping(mp_sched *s, int peer);
void mp_sched_pong(mp_sched *s, int peer);
/* inout = in op inout (in holds the lower-ranked operand) */
void mp_sched_reduce(mp_sched *s, const void *in, void *inout, MPI_Aint count, mp_datatype *dt,
                     MPI_Op op);
void mp_sched_copy(mp_sched *s, const void *src, MPI_Aint scount, mp_datatype *sdt, void *dst,
                   MPI_Aint dcount, mp_datatype *ddt);
/* Steps after a fence start only when every step before it has completed. */
void mp_sched_fence(mp_sched *s);
/* Scratch buffers owned by the schedule: room for count elements of dt, returned as the
 * address to pass with (count, dt) -- i.e. already shifted by the type's lower bound. */
void *mp_sched_tmp(mp_sched *s, MPI_Aint count, const mp_datatype *dt);
void *mp_sched_alloc(mp_sched *s, size_t bytes);
/* Keeps objects alive until the schedule ends (nonblocking calls). */
void mp_sched_hold_dt(mp_sched *s, mp_datatype *dt);
void mp_sched_hold_op(mp_sched *s, MPI_Op op);
/* The schedule of a collective entry point: a nonblocking or persistent call (req != NULL)
 * holds its types and op (NULL, MPI_OP_NULL: none) until it ends. */
mp_sched *mp_sched_for(mp_comm *comm, mp_request **req, mp_datatype *dt1, mp_datatype *dt2,
                       MPI_Op op);
/* Runs to completion and frees the schedule; returns the first error. */
int  mp_sched_run(mp_sched *s);
/* Starts in the background: *out is a request of kind MP_REQ_COLL completed by progress. */
int  mp_sched_start(mp_sched *s, mp_request **out);
/* Discards a schedule that was built but not run (it still takes its place in the sequence
 * of its class: is_blocking tells which). */
void mp_sched_discard(mp_sched *s, int is_blocking);
/* Persistent collectives: mp_sched_persist takes the schedule's tag from the persistent class
 * now (the init call's position); mp_sched_restart runs it again from its first step, in the
 * background like mp_sched_start, and leaves it built when it completes; mp_sched_free
 * releases it (not while a run is active). */
void mp_sched_persist(mp_sched *s);
int  mp_sched_restart(mp_sched *s, mp_request **out);
int  mp_sched_active(const mp_sched *s);
void mp_sched_free(mp_sched *s);
int  mp_sched_init(void);

/* ---------------------------------------------------------------------------------------------
 * Selection (select.c)
 * ------------------------------------------------------------------------------------------- */
enum mp_coll_id {
    MP_COLL_BARRIER, MP_COLL_BCAST, MP_COLL_REDUCE, MP_COLL_ALLREDUCE, MP_COLL_ALLGATHER,
    MP_COLL_ALLGATHERV, MP_COLL_GATHER, MP_COLL_GATHERV, MP_COLL_SCATTER, MP_COLL_SCATTERV,
    MP_COLL_ALLTOALL, MP_COLL_ALLTOALLV, MP_COLL_ALLTOALLW, MP_COLL_REDUCE_SCATTER,
    MP_COLL_REDUCE_SCATTER_BLOCK, MP_COLL_SCAN, MP_COLL_EXSCAN, MP_COLL_NCOLL
};

/* What the selection rules look at. */
typedef struct mp_coll_args {
    size_t bytes;                     /* bytes per rank (the natural "message size") */
    MPI_Aint count;                   /* elements (reductions) */
    int commutative;
    int blocking;                     /* the shm algorithms serve blocking calls only */
    int shm_fits;                     /* reductions: the type suits the shm algorithm */
} mp_coll_args;

/* Returns the algorithm index for collective `coll` (enum values of each family below). */
int mp_coll_select(int coll, mp_comm *comm, const mp_coll_args *a);
/* Every family calls mp_coll_ran with the algorithm that actually runs, after its own
 * fallbacks; MEMPI_VERBOSE=2 prints it (select.c). */
void mp_coll_trace(mp_comm *comm, int coll, int alg);
static inline void mp_coll_ran(mp_comm *comm, int coll, int alg)
{
    if (mp_cfg.verbose >= 2)
        mp_coll_trace(comm, coll, alg);
}

enum { MP_BARRIER_DISSEMINATION, MP_BARRIER_NODE, MP_BARRIER_SHM };
enum { MP_BCAST_BINOMIAL, MP_BCAST_SCATTER_ALLGATHER, MP_BCAST_TWO_STAGE, MP_BCAST_LINEAR,
       MP_BCAST_SHM };
enum { MP_REDUCE_BINOMIAL, MP_REDUCE_LINEAR, MP_REDUCE_NODE, MP_REDUCE_SHM };
enum { MP_ALLREDUCE_RECURSIVE_DOUBLING, MP_ALLREDUCE_RABENSEIFNER, MP_ALLREDUCE_RING,
       MP_ALLREDUCE_REDUCE_BCAST, MP_ALLREDUCE_BTREE4, MP_ALLREDUCE_SHM };
enum { MP_ALLGATHER_RING, MP_ALLGATHER_RECURSIVE_DOUBLING, MP_ALLGATHER_BRUCK,
       MP_ALLGATHER_GATHER_BCAST, MP_ALLGATHER_BTREE4STAR, MP_ALLGATHER_SHM };
enum { MP_ALLGATHERV_RING, MP_ALLGATHERV_GATHERV_BCAST, MP_ALLGATHERV_BTREE4STAR };
enum { MP_GATHER_BINOMIAL, MP_GATHER_LINEAR };
enum { MP_SCATTER_BINOMIAL, MP_SCATTER_LINEAR };
enum { MP_ALLTOALL_PAIRWISE, MP_ALLTOALL_BRUCK, MP_ALLTOALL_LINEAR, MP_ALLTOALL_SHM };
enum { MP_ALLTOALLV_PAIRWISE, MP_ALLTOALLV_LINEAR, MP_ALLTOALLV_SHM };
enum { MP_REDUCE_SCATTER_REDUCE_SCATTERV, MP_REDUCE_SCATTER_PAIRWISE };
enum { MP_SCAN_RECURSIVE_DOUBLING, MP_SCAN_LINEAR };

/* The call may run a shm algorithm: blocking, on a communicator whose ranks share this host
 * (and for reductions a type that suits).  Selection uses it for the default rule and to
 * ignore a forced "shm" that cannot serve the call. */
int mp_coll_shm_call_ok(mp_comm *comm, const mp_coll_args *a, int reduction);

/* ---------------------------------------------------------------------------------------------
 * Shared-memory intra-node algorithms (shm.c): blocking calls only, on communicators for which
 * mp_coll_shm_usable() holds; reductions need mp_coll_shm_reduce_fits(dt).
 * ------------------------------------------------------------------------------------------- */
struct mp_shm_comm;
/* An all-to-all in the w form: block i of the send buffer is (sc[i], st[i]) at sbase + sd[i]
 * (bytes; sbase may be MPI_IN_PLACE), the block from rank i goes to (rc[i], rt[i]) at
 * rbase + rd[i] (alltoall.c turns every variant into this). */
typedef struct mp_a2a_args {
    const char *sbase; const MPI_Aint *sc, *sd; mp_datatype *const *st;
    char *rbase; const MPI_Aint *rc, *rd; mp_datatype *const *rt;
} mp_a2a_args;
int    mp_coll_shm_alltoall_fits(mp_comm *comm);   /* single copy, a table entry per rank fits */
int    mp_coll_shm_alltoall(const mp_a2a_args *x, mp_comm *comm);
int    mp_coll_shm_usable(mp_comm *comm);
int    mp_coll_shm_reduce_fits(const mp_datatype *dt);
size_t mp_coll_shm_cell_capacity(void);
void   mp_coll_shm_comm_free(mp_coll_state *cs);
int mp_coll_shm_barrier(mp_comm *comm);
int mp_coll_shm_bcast(void *buf, MPI_Aint count, mp_datatype *dt, int root, mp_comm *comm);
int mp_coll_shm_reduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt,
                       MPI_Op op, int root, mp_comm *comm);
int mp_coll_shm_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt,
                          MPI_Op op, mp_comm *comm);
int mp_coll_shm_allgather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                          MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm);
/* Node-local halves for the node-aware algorithms (blocking calls, mp_coll_shm_node_usable:
 * also on communicators that span several hosts):
 * members are the ranks of my node in node order, member 0 its leader.  arrive returns at
 * the leader once every member has arrived (at once elsewhere); release returns once the
 * leader has called it.  node_reduce leaves the node's result (in node order) at member 0's
 * `out`; node_bcast spreads member `member`'s buffer. */
int mp_coll_shm_node_usable(mp_comm *comm);
int mp_coll_shm_node_arrive(mp_comm *comm);
int mp_coll_shm_node_release(mp_comm *comm);
int mp_coll_shm_node_bcast(void *buf, MPI_Aint count, mp_datatype *dt, int member,
                           mp_comm *comm);
int mp_coll_shm_node_reduce(const void *in, void *out, MPI_Aint count, mp_datatype *dt,
                            MPI_Op op, mp_comm *comm);

/* ---------------------------------------------------------------------------------------------
 * Builders shared between families (team-relative ranks; root is a team index)
 * ------------------------------------------------------------------------------------------- */
void mp_build_bcast_binomial(mp_sched *s, const mp_team *t, void *buf, MPI_Aint count,
                             mp_datatype *dt, int root);
/* Recursive doubling; every combine is (lower team rank's block) op (higher's), whatever op. */
void mp_build_allreduce_rd(mp_sched *s, const mp_team *t, void *acc, MPI_Aint count,
                           mp_datatype *dt, MPI_Op op);
/* Binomial reduction tree rooted at member lroot; members' acc buffers hold their input and
 * are clobbered.  Returns the buffer holding the result at lroot (acc or a scratch). */
void *mp_build_reduce_tree(mp_sched *s, const mp_team *t, void *acc, MPI_Aint count,
                           mp_datatype *dt, MPI_Op op, int lroot, int commutative);
void mp_build_reduce_to(mp_sched *s, const mp_team *t, void *acc, void *result, MPI_Aint count,
                        mp_datatype *dt, MPI_Op op, int root, int commutative);
void mp_build_barrier_dissemination(mp_sched *s, const mp_team *t);
void mp_build_allgatherv_btree4star(mp_sched *s, mp_comm *comm, void *rbuf,
                                    const MPI_Aint *counts, const MPI_Aint *displs,
                                    mp_datatype *dt);
/* Block i (rcounts[i] elements of dt at buf + displs[i]*extent) is initially only at
 * member i; afterwards every member has all blocks. */
void mp_build_allgatherv_ring(mp_sched *s, const mp_team *t, void *buf, const MPI_Aint *counts,
                              const MPI_Aint *displs, mp_datatype *dt);
/* Gathers blocks (counts[i] elements at displs[i]) to the team's root; the root's own block
 * must already be in place. */
/* The linear gather (gather != 0) or scatter of both kinds of communicator (gather.c): the
 * root -- comm->rank == root, MPI_ROOT across an intercommunicator, where MPI_PROC_NULL does
 * nothing -- receives or sends one block per (remote) member, counts[i] elements at displs[i]
 * in the v-forms, else `count` elements at i * count, of `all`; every other rank sends or
 * receives its `one` block.  The root of an intracommunicator copies its own block between
 * `one` and `all` instead, unless `one` is MPI_IN_PLACE. */
int mp_build_rooted(mp_sched *s, mp_comm *comm, int gather, const void *one, MPI_Aint one_count,
                    mp_datatype *one_dt, const void *all, MPI_Aint count,
                    const MPI_Aint *counts, const MPI_Aint *displs, mp_datatype *dt, int root);
void mp_build_gatherv_linear(mp_sched *s, const mp_team *t, void *buf, const MPI_Aint *counts,
                             const MPI_Aint *displs, mp_datatype *dt, int root);

/* ---------------------------------------------------------------------------------------------
 * Intercommunicator forms (inter.c)
 * ------------------------------------------------------------------------------------------- */
int mp_build_inter_barrier(mp_sched *s, mp_comm *comm);
int mp_build_inter_bcast(mp_sched *s, mp_comm *comm, void *buf, MPI_Aint count, mp_datatype *dt,
                         int root);
int mp_build_inter_reduce(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                          MPI_Aint count, mp_datatype *dt, MPI_Op op, int root);
int mp_build_inter_allreduce(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                             MPI_Aint count, mp_datatype *dt, MPI_Op op);
int mp_build_inter_allgather(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                             mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt);
int mp_build_inter_allgatherv(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                              mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                              const MPI_Aint *displs, mp_datatype *rdt);
int mp_build_inter_alltoall(mp_sched *s, mp_comm *comm, const void *sbuf, MPI_Aint scount,
                            mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt);
int mp_build_inter_alltoallv(mp_sched *s, mp_comm *comm, const void *sbuf,
                             const MPI_Aint *scounts, const MPI_Aint *sdispls, mp_datatype *sdt,
                             void *rbuf, const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                             mp_datatype *rdt);
int mp_build_inter_alltoallw(mp_sched *s, mp_comm *comm, const void *sbuf,
                             const MPI_Aint *scounts, const MPI_Aint *sdispls,
                             mp_datatype *const *sdts, void *rbuf, const MPI_Aint *rcounts,
                             const MPI_Aint *rdispls, mp_datatype *const *rdts);
int mp_build_inter_reduce_scatter(mp_sched *s, mp_comm *comm, const void *sbuf, void *rbuf,
                                  const MPI_Aint *rcounts, mp_datatype *dt, MPI_Op op);

/* persist.c: attaches a built schedule (or, if err, just its tag position) to an inactive
 * persistent request from mp_coll_persistent_new. */
int mp_coll_persist(mp_sched *s, int err, mp_request *req);

/* Ends every collective entry point: run now (req == NULL), start in the background, or
 * keep the schedule in the persistent request *req (an init call). */
static inline int mp_coll_finish(mp_sched *s, int err, mp_request **req)
{
    if (req && *req && (*req)->kind == MP_REQ_PCOLL)
        return mp_coll_persist(s, err, *req);
    if (err != MPI_SUCCESS) {
        mp_sched_discard(s, req == NULL);
        return err;
    }
    return req ? mp_sched_start(s, req) : mp_sched_run(s);
}

static inline MPI_Aint mp_pof2_floor(MPI_Aint n)
{
    MPI_Aint p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Address of element `i` of a buffer of dt (elements are `extent` apart). */
static inline void *mp_elem(const void *buf, MPI_Aint i, const mp_datatype *dt)
{
    return (char *)buf + i * dt->extent;
}

#endif

/* coll.h -- the collective layer's interface.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Collective operations on communicators.  Internal callers (the comm layer, MPI_Finalize)
 * use these directly; the bindings check arguments and then call them.  All return MPI error
 * codes and never invoke error handlers.
 */
#ifndef MP_COLL_H
#define MP_COLL_H

#include "core/core.h"
#include "datatype/datatype.h"
#include "pt2pt/pt2pt.h"

/* Takes the next position in comm's nonblocking collective sequence, as an I-collective does
 * when it starts, and returns its tag (sched.c): for nonblocking operations of other layers
 * that talk on comm's collective context (MPI_Comm_idup's context-id agreement). */
int mp_coll_nonblocking_tag(mp_comm *comm);

/* ---------------------------------------------------------------------------------------------
 * Collectives.  Buffers, counts and types follow the MPI standard; MPI_IN_PLACE is accepted
 * wherever the standard allows it.  The caller (binding) has validated arguments; these only
 * move data.  Every collective is a schedule: the nonblocking form (below) starts it and
 * returns a request completed by the progress engine; the blocking form is the nonblocking one
 * without a request, which runs the schedule on the spot.
 * ------------------------------------------------------------------------------------------- */
#define mp_barrier(comm) mp_ibarrier(comm, NULL)
#define mp_bcast(buf, count, dt, root, comm) mp_ibcast(buf, count, dt, root, comm, NULL)
#define mp_reduce(sbuf, rbuf, count, dt, op, root, comm) \
    mp_ireduce(sbuf, rbuf, count, dt, op, root, comm, NULL)
#define mp_allreduce(sbuf, rbuf, count, dt, op, comm) \
    mp_iallreduce(sbuf, rbuf, count, dt, op, comm, NULL)
#define mp_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm) \
    mp_iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL)
#define mp_allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm) \
    mp_iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, NULL)
#define mp_gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm) \
    mp_igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, NULL)
#define mp_gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm) \
    mp_igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm, NULL)
#define mp_scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm) \
    mp_iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, NULL)
#define mp_scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm) \
    mp_iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, NULL)
#define mp_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm) \
    mp_ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, NULL)
#define mp_alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm) \
    mp_ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, NULL)
#define mp_alltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm) \
    mp_ialltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm, NULL)
#define mp_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm) \
    mp_ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, NULL)
#define mp_reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm) \
    mp_ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm, NULL)
#define mp_scan(sbuf, rbuf, count, dt, op, comm) mp_iscan(sbuf, rbuf, count, dt, op, comm, NULL)
#define mp_exscan(sbuf, rbuf, count, dt, op, comm) \
    mp_iexscan(sbuf, rbuf, count, dt, op, comm, NULL)

/* The nonblocking forms (alltoallw: displacements in bytes, one type per peer). */
int mp_ibarrier(mp_comm *comm, mp_request **req);
int mp_ibcast(void *buf, MPI_Aint count, mp_datatype *dt, int root, mp_comm *comm,
              mp_request **req);
int mp_ireduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
               int root, mp_comm *comm, mp_request **req);
int mp_iallreduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
                  mp_comm *comm, mp_request **req);
int mp_iallgather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                  MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req);
int mp_iallgatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                   const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt,
                   mp_comm *comm, mp_request **req);
int mp_igather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
               MPI_Aint rcount, mp_datatype *rdt, int root, mp_comm *comm, mp_request **req);
int mp_igatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt, int root,
                mp_comm *comm, mp_request **req);
int mp_iscatter(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                MPI_Aint rcount, mp_datatype *rdt, int root, mp_comm *comm, mp_request **req);
int mp_iscatterv(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *displs,
                 mp_datatype *sdt, void *rbuf, MPI_Aint rcount, mp_datatype *rdt, int root,
                 mp_comm *comm, mp_request **req);
int mp_ialltoall(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                 MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req);
int mp_ialltoallv(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                  mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                  const MPI_Aint *rdispls, mp_datatype *rdt, mp_comm *comm, mp_request **req);
int mp_ialltoallw(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                  mp_datatype *const *sdts, void *rbuf, const MPI_Aint *rcounts,
                  const MPI_Aint *rdispls, mp_datatype *const *rdts, mp_comm *comm,
                  mp_request **req);
int mp_ireduce_scatter(const void *sbuf, void *rbuf, const MPI_Aint *rcounts, mp_datatype *dt,
                       MPI_Op op, mp_comm *comm, mp_request **req);
int mp_ireduce_scatter_block(const void *sbuf, void *rbuf, MPI_Aint rcount, mp_datatype *dt,
                             MPI_Op op, mp_comm *comm, mp_request **req);
int mp_iscan(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
             mp_comm *comm, mp_request **req);
int mp_iexscan(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt, MPI_Op op,
               mp_comm *comm, mp_request **req);

/* Persistent collectives (persist.c).  An init call is the I-form called with *req set to
 * mp_coll_persistent_new(comm) (an inactive request of kind MP_REQ_PCOLL): the schedule is
 * built and kept there instead of started.  Every other caller of an I-form must pass *req ==
 * NULL.  mp_coll_start runs the kept schedule again (MPI_Start), with req->inner as the
 * active operation; mp_coll_persistent_free frees the request (MPI_ERR_REQUEST if a run is
 * still under way). */
mp_request *mp_coll_persistent_new(mp_comm *comm);
int  mp_coll_start(mp_request *req);
int  mp_coll_persistent_free(mp_request *req);

/* Neighbourhood collectives (neighbor.c) on a communicator with a topology: blocks follow
 * the order of mp_topo_neighbors (MPI_PROC_NULL neighbours keep their block, untouched).
 * req == NULL runs the blocking form.  The w form takes byte displacements and a type per
 * neighbour; MPI_ERR_TOPOLOGY if comm has no topology. */
int mp_ineighbor_allgather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                           MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req);
int mp_ineighbor_allgatherv(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                            const MPI_Aint *rcounts, const MPI_Aint *displs, mp_datatype *rdt,
                            mp_comm *comm, mp_request **req);
int mp_ineighbor_alltoall(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                          MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm, mp_request **req);
int mp_ineighbor_alltoallv(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                           mp_datatype *sdt, void *rbuf, const MPI_Aint *rcounts,
                           const MPI_Aint *rdispls, mp_datatype *rdt, mp_comm *comm,
                           mp_request **req);
int mp_ineighbor_alltoallw(const void *sbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                           mp_datatype *const *sdts, void *rbuf, const MPI_Aint *rcounts,
                           const MPI_Aint *rdispls, mp_datatype *const *rdts, mp_comm *comm,
                           mp_request **req);

/* The layer's rows of the configuration table (MEMPI_COLL_<NAME>, select.c): registered with
 * mp_config_add before mp_config_load. */
extern const mp_config_var mp_coll_config_vars[];
extern const int mp_coll_config_nvars;

/* ---------------------------------------------------------------------------------------------
 * Reduction operations (op.c).  Predefined ops have MPICH's handle values; user ops live in
 * a handle table.  mp_reduce_local computes inout[i] = in[i] op inout[i] -- the order matters
 * for non-commutative user operations: `in` holds the operand of LOWER rank.
 * ------------------------------------------------------------------------------------------- */
typedef struct mp_op {
    int handle;
    void (*fn)(void *, void *, int *, MPI_Datatype *);              /* MPI_User_function */
    void (*fn_c)(void *, void *, MPI_Count *, MPI_Datatype *);      /* MPI_User_function_c */
    /* MPICH's C++ binding (MPII_Op_set_cxx): calls fn for us, with the count and the type by
     * value and fn last; NULL for ops from C and Fortran. */
    void (*cxx_call)(const void *, void *, int, MPI_Datatype, void (*)(void *, void *, int *,
                                                                      MPI_Datatype *));
    int commute;
    atomic_int refs;
} mp_op;

int  mp_reduce_local(const void *in, void *inout, MPI_Aint count, mp_datatype *dt, MPI_Op op);
/* MPI_SUCCESS if `op` is a valid operation defined for `dt`, else an error code (MPI_ERR_OP)
 * whose message names func, the op and the type. */
int  mp_op_check(const char *func, MPI_Op op, const mp_datatype *dt);
/* The same for a reduction (collectives, MPI_Reduce_local): MPI_REPLACE and MPI_NO_OP, which
 * belong to one-sided accumulates, are refused too. */
int  mp_op_check_reduction(const char *func, MPI_Op op, const mp_datatype *dt);
int  mp_op_valid(MPI_Op op);               /* live handle (predefined or user) */
/* Registers MPICH's C++ caller for a user op (see mp_op.cxx_call); ignored for others. */
void mp_op_set_cxx_call(MPI_Op op, void (*call)(void));
int  mp_op_is_builtin(MPI_Op op);
int  mp_op_commutative(MPI_Op op);         /* 1 for predefined and commutative user ops */
int  mp_op_create(void *fn, int big_count, int commute, MPI_Op *out);
int  mp_op_free(MPI_Op *op);               /* MPI_ERR_OP for predefined or invalid */
/* Pins a user op while a nonblocking or persistent collective uses it: the handle may be
 * freed (and reused by MPI_Op_create) before the collective ends, so the caller keeps the
 * object and reduces with mp_reduce_local_held.  NULL for predefined ops. */
mp_op *mp_op_hold(MPI_Op op);
void mp_op_drop(mp_op *o);
/* mp_reduce_local with a held user op (held == NULL: look `op` up as usual). */
int  mp_reduce_local_held(const void *in, void *inout, MPI_Aint count, mp_datatype *dt,
                          MPI_Op op, const mp_op *held);
const char *mp_op_name(MPI_Op op);         /* "MPI_SUM", or "user op" */

/* Frees the coll layer's per-communicator state (comm->coll_state); the core calls it when a
 * communicator is destroyed. */
void mp_coll_comm_free(mp_comm *comm);

int  mp_coll_init(void);
void mp_coll_finalize(void);

#endif

/* binding.h -- shared helpers of the MPI_* entry points.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every entry point follows one shape:
 *
 *     int PMPI_Send(...)
 *     {
 *         static const char *const F = "MPI_Send";
 *         mp_comm *comm; mp_datatype *dt; int err;
 *         if ((err = mp_arg_comm(F, comm_h, &comm)))            return err;
 *         if ((err = mp_arg_datatype(F, comm, dtype, count, &dt))) return err;
 *         if ((err = mp_arg_rank(F, comm, dest, MP_ALLOW_PROC_NULL))) return err;
 *         ...
 *         return mp_ret(comm, F, mp_send(...));
 *     }
 *     #pragma weak MPI_Send = PMPI_Send
 *
 * The mp_arg_* checkers raise the error through the right error handler themselves (via
 * mp_error) and return the code, so the entry point just returns it.  mp_ret() passes an error
 * code coming back from a lower layer through the communicator's handler.
 */
#ifndef MP_BINDING_H
#define MP_BINDING_H

#include "core/core.h"
#include "datatype/datatype.h"
#include "pt2pt/pt2pt.h"
#include "comm/comm.h"
#include "coll/coll.h"

enum {
    MP_ALLOW_PROC_NULL = 1,           /* MPI_PROC_NULL accepted */
    MP_ALLOW_ANY       = 2            /* MPI_ANY_SOURCE / MPI_ANY_TAG accepted */
};

/* Fails with MPI_ERR_OTHER-free checks of library state: MPI_Init called, not finalized. */
int mp_arg_initialized(const char *func);
int mp_arg_comm(const char *func, MPI_Comm h, mp_comm **out);
int mp_arg_datatype(const char *func, mp_comm *comm, MPI_Datatype h, MPI_Aint count,
                    mp_datatype **out);
int mp_arg_count(const char *func, mp_comm *comm, MPI_Aint count);
/* rank in the communicator's (remote, for intercommunicators) group */
int mp_arg_rank(const char *func, mp_comm *comm, int rank, int allow);
int mp_arg_root(const char *func, mp_comm *comm, int root);
int mp_arg_tag(const char *func, mp_comm *comm, int tag, int allow);
int mp_arg_buffer(const char *func, mp_comm *comm, const void *buf, MPI_Aint count,
                  const mp_datatype *dt);
int mp_arg_request_ptr(const char *func, mp_comm *comm, const void *req);
/* All arguments of a point-to-point call in one call (the hot path: a few compares when the
 * call looks like the previous one), with the messages of the checkers above. */
int mp_arg_p2p(const char *func, const void *buf, MPI_Aint count, MPI_Datatype dtype, int rank,
               int tag, MPI_Comm comm_h, int allow_rank, int allow_tag, mp_comm **comm,
               mp_datatype **dt);
/* A handle a call creates is the null handle until the call succeeds: every creator sets it
 * first, so a failing call, checked argument or not, leaves it at MPI_COMM_NULL,
 * MPI_REQUEST_NULL... (as MPICH does) and a program that ignores the error code meets a null
 * handle, not garbage.  Handles of this ABI are ints (MPI_File aside). */
#define MP_OUT_NULL(p, null) do { if ((p) != NULL) *(p) = (null); } while (0)
/* An output argument the caller must provide (e.g. rank in MPI_Comm_rank). */
int mp_arg_out(const char *func, mp_comm *comm, const void *p, const char *name);
/* The MEMPI_STATS report at MPI_Finalize (stats.c): gathers every rank's counters. */
void mp_stats_report(void);

/* Attributes of communicators and datatypes with the value in a given language form
 * (comm/comm.h, MP_ATTR_*): what MPI_Comm_set_attr/get_attr do for C, and the Fortran
 * bindings for INTEGER(KIND=MPI_ADDRESS_KIND) and MPI-1 INTEGER values.  fetch stores a
 * void *, an MPI_Aint or an int into *value, by kind. */
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

#endif

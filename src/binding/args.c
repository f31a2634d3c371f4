/* args.c -- argument checks shared by all entry points.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each checker raises the error itself, through the error handler of the communicator the
 * call is about, with a message that names the function, the argument and the value, and
 * returns the code for the entry point to return.  On the fast path each check is a compare
 * or two.
 */
#include "binding/binding.h"

int mp_arg_initialized(const char *func)
{
    if (MP_LIKELY(mp_world.initialized && !mp_world.finalized))
        return MPI_SUCCESS;
    return mp_error(NULL, MPI_ERR_OTHER, func, "called %s MPI_Init",
                    mp_world.finalized ? "after MPI_Finalize, not before" : "before");
}

int mp_arg_comm(const char *func, MPI_Comm h, mp_comm **out)
{
    if (MP_UNLIKELY(!mp_world.initialized || mp_world.finalized))
        return mp_arg_initialized(func);
    mp_comm *c = mp_comm_get(h);
    if (MP_UNLIKELY(c == NULL))
        return mp_error(NULL, MPI_ERR_COMM, func, h == MPI_COMM_NULL ?
                        "invalid communicator MPI_COMM_NULL" : "invalid communicator 0x%x",
                        (unsigned)h);
    *out = c;
    return MPI_SUCCESS;
}

int mp_arg_count(const char *func, mp_comm *comm, MPI_Aint count)
{
    if (MP_LIKELY(count >= 0))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_COUNT, func, "invalid count %ld (must be >= 0)", (long)count);
}

int mp_arg_datatype(const char *func, mp_comm *comm, MPI_Datatype h, MPI_Aint count,
                    mp_datatype **out)
{
    int err = mp_arg_count(func, comm, count);
    if (err)
        return err;
    mp_datatype *dt = mp_datatype_get(h);
    if (MP_UNLIKELY(dt == NULL || !mp_datatype_user_valid(dt) || h == MPI_LB || h == MPI_UB))
        return mp_error(comm, MPI_ERR_TYPE, func, h == MPI_DATATYPE_NULL ?
                        "invalid datatype MPI_DATATYPE_NULL" : "invalid datatype 0x%x",
                        (unsigned)h);
    if (MP_UNLIKELY(!dt->committed && !dt->is_builtin))
        return mp_error(comm, MPI_ERR_TYPE, func, "datatype 0x%x is not committed (call "
                        "MPI_Type_commit first)", (unsigned)h);
    *out = dt;
    return MPI_SUCCESS;
}

int mp_arg_rank(const char *func, mp_comm *comm, int rank, int allow)
{
    int size = comm->is_inter ? comm->remote_size : comm->size;
    if (MP_LIKELY(rank >= 0 && rank < size))
        return MPI_SUCCESS;
    if (rank == MPI_PROC_NULL && (allow & MP_ALLOW_PROC_NULL))
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE && (allow & MP_ALLOW_ANY))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_RANK, func, "invalid rank %d in a communicator of size %d",
                    rank, size);
}

int mp_arg_root(const char *func, mp_comm *comm, int root)
{
    if (comm->is_inter) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size))
            return MPI_SUCCESS;
        return mp_error(comm, MPI_ERR_ROOT, func, "invalid root %d in an intercommunicator "
                        "whose remote group has size %d", root, comm->remote_size);
    }
    if (MP_LIKELY(root >= 0 && root < comm->size))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_ROOT, func, "invalid root %d in a communicator of size %d",
                    root, comm->size);
}

int mp_arg_tag(const char *func, mp_comm *comm, int tag, int allow)
{
    if (MP_LIKELY(tag >= 0 && tag <= MP_TAG_UB))
        return MPI_SUCCESS;
    if (tag == MPI_ANY_TAG && (allow & MP_ALLOW_ANY))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_TAG, func, "invalid tag %d (must be 0..%d%s)", tag, MP_TAG_UB,
                    (allow & MP_ALLOW_ANY) ? " or MPI_ANY_TAG" : "");
}

int mp_arg_buffer(const char *func, mp_comm *comm, const void *buf, MPI_Aint count,
                  const mp_datatype *dt)
{
    if (MP_LIKELY(buf != NULL || count == 0 || dt->size == 0))
        return MPI_SUCCESS;
    /* A NULL buffer is legal with absolute addresses (MPI_BOTTOM) in a derived type. */
    if (!dt->is_builtin && dt->true_lb != 0)
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_BUFFER, func, "invalid buffer NULL for %ld elements",
                    (long)count);
}

int mp_arg_request_ptr(const char *func, mp_comm *comm, const void *req)
{
    if (MP_LIKELY(req != NULL))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_ARG, func, "invalid request pointer NULL");
}

/* The last builtin datatype that passed mp_arg_p2p.  Builtin types live for the whole job,
 * so a hit needs no further check.  Not used under MPI_THREAD_MULTIPLE (two plain words
 * written by concurrent callers could pair one handle with another's type). */
static MPI_Datatype p2p_type_handle = MPI_DATATYPE_NULL;
static mp_datatype *p2p_type;

static inline mp_datatype *p2p_type_fast(MPI_Datatype h)
{
    return h == p2p_type_handle && !MP_UNLIKELY(mp_thread_multiple) ? p2p_type : NULL;
}

/* The full sequence of checks: the error messages of the separate checkers. */
static __attribute__((noinline)) int p2p_checks(const char *func, const void *buf,
                                                MPI_Aint count, MPI_Datatype dtype, int rank,
                                                int tag, MPI_Comm comm_h, int allow_rank,
                                                int allow_tag, mp_comm **comm, mp_datatype **dt)
{
    int err;
    if ((err = mp_arg_comm(func, comm_h, comm)) ||
        (err = mp_arg_datatype(func, *comm, dtype, count, dt)) ||
        (err = mp_arg_rank(func, *comm, rank, allow_rank)) ||
        (err = mp_arg_tag(func, *comm, tag, allow_tag)) ||
        (err = mp_arg_buffer(func, *comm, buf, count, *dt)))
        return err;
    if ((*dt)->is_builtin && !mp_thread_multiple) {
        p2p_type_handle = dtype;
        p2p_type = *dt;
    }
    return MPI_SUCCESS;
}

int mp_arg_p2p(const char *func, const void *buf, MPI_Aint count, MPI_Datatype dtype, int rank,
               int tag, MPI_Comm comm_h, int allow_rank, int allow_tag, mp_comm **comm,
               mp_datatype **dt)
{
    /* The common case in a few compares: an initialized library, MPI_COMM_WORLD, the type of
     * the previous call, a rank of the group, a tag, a buffer.  Anything else (wildcards,
     * MPI_PROC_NULL, other communicators and types, every error) takes the full checks. */
    mp_comm *c = mp_world.comm_world;
    mp_datatype *d = p2p_type_fast(dtype);
    if (MP_LIKELY(comm_h == MPI_COMM_WORLD && d != NULL && mp_world.initialized &&
                  !mp_world.finalized && count >= 0 && (unsigned)rank < (unsigned)c->size &&
                  (unsigned)tag <= (unsigned)MP_TAG_UB && (buf != NULL || count == 0))) {
        *comm = c;
        *dt = d;
        return MPI_SUCCESS;
    }
    return p2p_checks(func, buf, count, dtype, rank, tag, comm_h, allow_rank, allow_tag, comm, dt);
}

int mp_arg_out(const char *func, mp_comm *comm, const void *p, const char *name)
{
    if (MP_LIKELY(p != NULL))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_ARG, func, "invalid argument %s: NULL pointer", name);
}

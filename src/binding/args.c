/* args.c -- argument checks shared by all entry points.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The mp_chk_* checkers return an error code whose message names the function, the argument
 * and the value, and invoke no error handler: the generated entry point (tools/gen-bindings)
 * raises a failure once, through the handler its description names.  On the fast path each
 * check is a compare or two; mp_chk_p2p checks a whole point-to-point call in a few compares
 * when it looks like the previous one.
 */
#include "binding/binding.h"
#include "rma/rma.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int mp_err(const char *func, int cls, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mp_error_code(cls, "%s: %s", func, text);
}

int mp_chk_initialized_fail(const char *func)
{
    return mp_err(func, MPI_ERR_OTHER, "called %s MPI_Init",
                  mp_world.finalized ? "after MPI_Finalize, not before" : "before");
}

int mp_chk_comm(const char *func, MPI_Comm h, mp_comm **out)
{
    if (MP_UNLIKELY(!mp_world.initialized || mp_world.finalized))
        return mp_chk_initialized(func);
    mp_comm *c = mp_comm_get(h);
    if (MP_UNLIKELY(c == NULL))
        return mp_err(func, MPI_ERR_COMM, h == MPI_COMM_NULL ? "invalid communicator "
                      "MPI_COMM_NULL" : "invalid communicator 0x%x", (unsigned)h);
    *out = c;
    return MPI_SUCCESS;
}

int mp_chk_win(const char *func, MPI_Win h, mp_win **out)
{
    int err = mp_chk_initialized(func);
    if (err)
        return err;
    *out = mp_win_get(h);
    if (!*out)
        return mp_err(func, MPI_ERR_WIN, "invalid window handle 0x%x%s", (unsigned)h,
                      h == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : "");
    return MPI_SUCCESS;
}

int mp_chk_group(const char *func, MPI_Group h, const char *name, mp_group **out)
{
    mp_group *g = h == MPI_GROUP_NULL ? NULL : mp_group_get(h);
    if (!g)
        return mp_err(func, MPI_ERR_GROUP, "invalid %s 0x%x%s", name, (unsigned)h,
                      h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    *out = g;
    return MPI_SUCCESS;
}

int mp_chk_info(const char *func, MPI_Info h)
{
    if (h == MPI_INFO_NULL || mp_info_get(h))
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_INFO, "invalid info handle 0x%x", (unsigned)h);
}

int mp_chk_info_obj(const char *func, MPI_Info h, mp_info **out)
{
    *out = h == MPI_INFO_NULL ? NULL : mp_info_get(h);
    if (!*out)
        return mp_err(func, MPI_ERR_INFO, "invalid info handle 0x%x%s", (unsigned)h,
                      h == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
    return MPI_SUCCESS;
}

int mp_chk_type(const char *func, MPI_Datatype h, const char *name, int flags,
                mp_datatype **out)
{
    mp_datatype *dt = mp_datatype_get(h);
    *out = NULL;
    if (h == MPI_DATATYPE_NULL)
        return (flags & MP_TYPE_NULL_OK) ? MPI_SUCCESS
             : mp_err(func, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", name);
    if (dt == NULL || !mp_datatype_user_valid(dt))
        return mp_err(func, MPI_ERR_TYPE, "%s 0x%x is not a valid datatype", name, (unsigned)h);
    if (!(flags & MP_TYPE_MARKERS) && (h == MPI_LB || h == MPI_UB))
        return mp_err(func, MPI_ERR_TYPE, "%s is the bound marker %s, which only "
                      "MPI_Type_struct accepts", name, dt->name);
    if (!(flags & MP_TYPE_UNCOMMITTED) && !dt->committed)
        return mp_err(func, MPI_ERR_TYPE, "%s 0x%x is not committed (call MPI_Type_commit "
                      "first)", name, (unsigned)h);
    *out = dt;
    return MPI_SUCCESS;
}

int mp_chk_request(const char *func, MPI_Request h, mp_request **out)
{
    if (h == MPI_REQUEST_NULL)
        return mp_err(func, MPI_ERR_REQUEST, "invalid request MPI_REQUEST_NULL");
    *out = mp_request_get(h);
    if (*out == NULL || (*out)->kind == MP_REQ_PROBE)
        return mp_err(func, MPI_ERR_REQUEST, "invalid request handle 0x%x", (unsigned)h);
    return MPI_SUCCESS;
}

int mp_chk_session(const char *func, MPI_Session h, mp_session **out)
{
    *out = mp_world.initialized && !mp_world.finalized ? mp_session_get(h) : NULL;
    if (*out == NULL)
        return mp_err(func, MPI_ERR_SESSION, "invalid session 0x%x", (unsigned)h);
    return MPI_SUCCESS;
}

int mp_chk_count(const char *func, MPI_Aint count)
{
    if (MP_LIKELY(count >= 0))
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_COUNT, "invalid count %ld (must be >= 0)", (long)count);
}

int mp_chk_datatype(const char *func, MPI_Datatype h, MPI_Aint count, mp_datatype **out)
{
    int err = mp_chk_count(func, count);
    if (err)
        return err;
    mp_datatype *dt = mp_datatype_get(h);
    if (MP_UNLIKELY(dt == NULL || !mp_datatype_user_valid(dt) || h == MPI_LB || h == MPI_UB))
        return mp_err(func, MPI_ERR_TYPE, h == MPI_DATATYPE_NULL ? "invalid datatype "
                      "MPI_DATATYPE_NULL" : "invalid datatype 0x%x", (unsigned)h);
    if (MP_UNLIKELY(!dt->committed && !dt->is_builtin))
        return mp_err(func, MPI_ERR_TYPE, "datatype 0x%x is not committed (call "
                      "MPI_Type_commit first)", (unsigned)h);
    *out = dt;
    return MPI_SUCCESS;
}

int mp_chk_rank(const char *func, const mp_comm *comm, int rank, int allow)
{
    int size = comm->is_inter ? comm->remote_size : comm->size;
    if (MP_LIKELY(rank >= 0 && rank < size))
        return MPI_SUCCESS;
    if (rank == MPI_PROC_NULL && (allow & MP_ALLOW_PROC_NULL))
        return MPI_SUCCESS;
    if (rank == MPI_ANY_SOURCE && (allow & MP_ALLOW_ANY))
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_RANK, "invalid rank %d in a communicator of size %d", rank,
                  size);
}

int mp_chk_root(const char *func, const mp_comm *comm, int root)
{
    if (comm->is_inter) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size))
            return MPI_SUCCESS;
        return mp_err(func, MPI_ERR_ROOT, "invalid root %d in an intercommunicator whose "
                      "remote group has size %d", root, comm->remote_size);
    }
    if (MP_LIKELY(root >= 0 && root < comm->size))
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_ROOT, "invalid root %d in a communicator of size %d", root,
                  comm->size);
}

int mp_chk_tag(const char *func, int tag, int allow)
{
    if (MP_LIKELY(tag >= 0 && tag <= MP_TAG_UB))
        return MPI_SUCCESS;
    if (tag == MPI_ANY_TAG && (allow & MP_ALLOW_ANY))
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_TAG, "invalid tag %d (must be 0..%d%s)", tag, MP_TAG_UB,
                  (allow & MP_ALLOW_ANY) ? " or MPI_ANY_TAG" : "");
}

int mp_chk_buffer(const char *func, const void *buf, MPI_Aint count, const mp_datatype *dt)
{
    if (MP_LIKELY(buf != NULL || count == 0 || dt->size == 0))
        return MPI_SUCCESS;
    /* A NULL buffer is legal with absolute addresses (MPI_BOTTOM) in a derived type. */
    if (!dt->is_builtin && dt->true_lb != 0)
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_BUFFER, "invalid buffer NULL for %ld elements", (long)count);
}

int mp_chk_out_fail(const char *func, const char *name)
{
    return mp_err(func, MPI_ERR_ARG, "%s is NULL", name);
}

int mp_chk_not_in_place(const char *func, const void *buf)
{
    if (buf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed");
}

int mp_chk_assert(const char *func, int assert, int allowed)
{
    if (!(assert & ~allowed))
        return MPI_SUCCESS;
    return mp_err(func, MPI_ERR_ASSERT, "invalid assert 0x%x for this call", assert);
}

int mp_chk_coll_persistent(const char *func, mp_comm *comm, mp_request **req)
{
    *req = mp_coll_persistent_new(comm);
    return *req ? MPI_SUCCESS : mp_err(func, MPI_ERR_NO_MEM, "no memory for a request");
}

/* The last builtin datatype that passed mp_chk_p2p.  Builtin types live for the whole job,
 * so a hit needs no further check.  Every caller holds the big lock under
 * MPI_THREAD_MULTIPLE (the entry points take it before their checks), so the two words are
 * always written and read together. */
static MPI_Datatype p2p_type_handle = MPI_DATATYPE_NULL;
static mp_datatype *p2p_type;

static inline mp_datatype *p2p_type_fast(MPI_Datatype h)
{
    return h == p2p_type_handle ? p2p_type : NULL;
}

/* The context id is -1 until the idup's agreement completes: a message on it would name no
 * communicator, and its collective context (-1 + 1) would be MPI_COMM_WORLD's, where a
 * creation from it would run its context-id agreement. */
int mp_chk_comm_ready_fail(const char *func, const mp_comm *c, const char *name)
{
    return mp_err(func, MPI_ERR_COMM, "%s 0x%x is not usable yet: the MPI_Comm_idup that "
                  "creates it has not completed", name, (unsigned)c->handle);
}

/* The full sequence of checks: the error messages of the separate checkers. */
static __attribute__((noinline)) int p2p_checks(const char *func, const void *buf,
                                                MPI_Aint count, MPI_Datatype dtype, int rank,
                                                int tag, MPI_Comm comm_h, int allow_rank,
                                                int allow_tag, mp_comm **comm, mp_datatype **dt)
{
    int err;
    *comm = NULL;
    *dt = NULL;
    if ((err = mp_chk_comm(func, comm_h, comm)) ||
        (err = mp_chk_comm_ready(func, *comm, "comm")) ||
        (err = mp_chk_datatype(func, dtype, count, dt)) ||
        (err = mp_chk_rank(func, *comm, rank, allow_rank)) ||
        (err = mp_chk_tag(func, tag, allow_tag)) ||
        (err = mp_chk_buffer(func, buf, count, *dt)))
        return err;
    if ((*dt)->is_builtin) {
        p2p_type_handle = dtype;
        p2p_type = *dt;
    }
    return MPI_SUCCESS;
}

int mp_chk_p2p(const char *func, const void *buf, MPI_Aint count, MPI_Datatype dtype, int rank,
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

int mp_set_name(char *dst, const char *name)
{
    snprintf(dst, MPI_MAX_OBJECT_NAME, "%s", name);
    return MPI_SUCCESS;
}

int mp_get_name(const char *src, char *name, int *resultlen)
{
    strcpy(name, src);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* MPI 4.1 7.8: a null handle's name is the handle's own name.  Other handles are resolved
 * here, their errors raised through MPI_COMM_WORLD's handler (there is no object). */
int mp_do_comm_get_name(const char *F, MPI_Comm comm, char *comm_name, int *resultlen)
{
    mp_comm *c;
    if (comm == MPI_COMM_NULL)
        return mp_get_name("MPI_COMM_NULL", comm_name, resultlen);
    int err = mp_chk_comm(F, comm, &c);
    return err ? mp_error_raise(NULL, err, F) : mp_get_name(c->name, comm_name, resultlen);
}

int mp_do_win_get_name(const char *F, MPI_Win win, char *win_name, int *resultlen)
{
    mp_win *w;
    if (win == MPI_WIN_NULL)
        return mp_get_name("MPI_WIN_NULL", win_name, resultlen);
    int err = mp_chk_win(F, win, &w);
    return err ? mp_error_raise(NULL, err, F) : mp_get_name(mp_win_name(w), win_name, resultlen);
}

MPI_Aint *mp_counts_widen(mp_counts c, MPI_Aint n)
{
    MPI_Aint *w = mp_malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    for (MPI_Aint i = 0; i < n; i++)
        w[i] = !c.p ? 0
             : c.kind == MP_COUNTS_INT ? ((const int *)c.p)[i]
             : c.kind == MP_COUNTS_COUNT ? (MPI_Aint)((const MPI_Count *)c.p)[i]
             : ((const MPI_Aint *)c.p)[i];
    return w;
}

/* ---- raising forms ------------------------------------------------------------------------ */

int mp_arg_comm(const char *func, MPI_Comm h, mp_comm **out)
{
    return mp_error_raise(NULL, mp_chk_comm(func, h, out), func);
}

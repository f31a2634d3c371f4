/* shared.c -- the shared file pointer: one counter in a window hidden in the file object.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The pointer (in etypes of the current view) is an MPI_Offset in a one-sided window that
 * rank 0 of the file's group allocates at open; every process moves it with an atomic
 * fetch-and-op under a shared lock (src/rma/: on one host a load/add/store under the window's
 * accumulate lock in shared memory, across hosts an active message that rank 0's progress
 * engine serves).  An independent shared access fetches and adds its own size, so concurrent
 * accesses get disjoint ranges in some serial order, as MPI 4.0 14.4.4 requires.  Setting the
 * pointer (set_view, seek_shared) is collective: rank 0 replaces the value, then a barrier.
 */
#include "io/io_impl.h"
#include "coll/coll.h"
#include <string.h>

int mp_io_shared_init(const char *F, mp_file *f, MPI_Offset initial)
{
    void *base = NULL;
    MPI_Aint size = f->comm->rank == 0 ? (MPI_Aint)sizeof(MPI_Offset) : 0;
    int err = mp_win_allocate(F, size, 1, MPI_INFO_NULL, f->comm, 0, &base, &f->shwin);
    if (err) {
        f->shwin = NULL;
        return err;
    }
    if (f->comm->rank == 0)
        memcpy(base, &initial, sizeof initial);   /* the caller's next collective orders it */
    return MPI_SUCCESS;
}

void mp_io_shared_free(mp_file *f)
{
    if (f->shwin)
        mp_win_free("MPI_File_close", f->shwin);
    f->shwin = NULL;
}

static int fop(const char *F, mp_file *f, MPI_Offset value, MPI_Op op, MPI_Offset *old)
{
    mp_datatype *dt = mp_datatype_get(MPI_INT64_T);
    int64_t in = value, out = 0;
    mp_rma_args a = { .kind = MP_RMA_FOP, .origin = &in, .origin_count = 1, .origin_dt = dt,
                      .result = &out, .result_count = 1, .result_dt = dt, .target = 0,
                      .disp = 0, .target_count = 1, .target_dt = dt, .op = op };
    int err = mp_win_lock(F, f->shwin, MPI_LOCK_SHARED, 0, 0);
    if (err)
        return err;
    err = mp_rma_op(F, f->shwin, &a, NULL);
    int uerr = mp_win_unlock(F, f->shwin, 0);
    if (old)
        *old = (MPI_Offset)out;
    return err ? err : uerr;
}

int mp_io_shared_fetch_add(const char *F, mp_file *f, MPI_Offset add, MPI_Offset *old)
{
    return fop(F, f, add, add ? MPI_SUM : MPI_NO_OP, old);
}

int mp_io_shared_set(const char *F, mp_file *f, MPI_Offset value)
{
    mp_io_coll_drain(f);              /* f's collectives run in the order they were called */
    int err = f->comm->rank == 0 ? fop(F, f, value, MPI_REPLACE, NULL) : MPI_SUCCESS;
    int berr = mp_barrier(f->comm);
    return err ? err : berr;
}

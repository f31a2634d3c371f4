/* mempi-test: np=2,3,4,5 timeout=180 */
/* mempi-test: np=4,5 timeout=180 env=MEMPI_CMA=0 */
/* rma_lock_readers.c -- processes that hold shared locks while they wait for more, with writers waiting on the same windows, all finish.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Ranks 0 and 1 (the readers) each lock their own window shared, and after a barrier and a
 * pause lock the other reader's window shared too, holding both (MPI-3 lets a process hold
 * locks on several targets; MPI_Win_lock_all takes its targets one after the other the same
 * way).  The other ranks (the writers) lock window (rank % 2) exclusively right after the
 * barrier, so during the pause each reader's window has a writer waiting.  A library that
 * holds new readers back for a waiting writer deadlocks here: each reader waits for the other's
 * window, whose writer waits for that reader.  The standard defines no such wait, so the run
 * must finish.  Each writer adds rank + 1 to its target's value by a get, flush and put in its
 * exclusive epoch; the readers read both values under their shared locks, which must be equal
 * to their value before the epoch (the writers cannot have entered yet) or to a sum of writers'
 * contributions; at the end each reader's window holds the sum of its writers' contributions
 * (a lost update means exclusion failed).  Runs over the create, allocate and dynamic flavors;
 * with MEMPI_CMA=0 a create or dynamic window on one host goes by messages.
 *
 * Whether a library must avoid this deadlock is argued (Open MPI PR 2593); MemPI grants
 * readers first (docs/decisions.md) because the same cycle arises between two
 * MPI_Win_lock_all calls, which a program cannot order.  MPICH 4.0.2 grants in arrival order
 * and hangs here, so under MPICH the readers lock only their own window.
 */
#include "rma_common.h"
#include <unistd.h>

static int me, np;

static long expected_sum(int target)
{
    long s = 0;
    for (int w = 2; w < np; w++)
        if (w % 2 == target)
            s += w + 1;
    return s;
}

static void round_of(int flavor)
{
    rma_win w;
    if (!rma_win_open(&w, flavor, sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD))
        return;
    *(long *)w.base = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const char *fl = rma_flavor_name[flavor];
    if (me < 2) {
        int other = 1 - me;
        long v[2] = {-1, -1};
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int both = rma_lib() != RMA_MPICH;
        usleep(200000);            /* the writers' requests arrive and wait meanwhile */
        if (both)
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, other, 0, w.win));
        CHECK_MPI(MPI_Get(&v[0], 1, MPI_LONG, me, rma_disp(&w, me, 0), 1, MPI_LONG, w.win));
        if (both) {
            CHECK_MPI(MPI_Get(&v[1], 1, MPI_LONG, other, rma_disp(&w, other, 0), 1, MPI_LONG,
                              w.win));
            CHECK_MPI(MPI_Win_unlock(other, w.win));
        } else {
            v[1] = 0;
        }
        CHECK_MPI(MPI_Win_unlock(me, w.win));
        CHECK(v[0] == 0, "%s: rank %d read %ld from its own window while holding its shared "
              "lock since before any writer (expected 0)", fl, me, v[0]);
        CHECK(v[1] >= 0 && v[1] <= expected_sum(other), "%s: rank %d read %ld from rank %d's "
              "window (expected 0..%ld)", fl, me, v[1], other, expected_sum(other));
    } else {
        int t = me % 2;
        long v = -1, nv;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win));
        CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, t, rma_disp(&w, t, 0), 1, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_flush(t, w.win));
        nv = v + me + 1;
        CHECK_MPI(MPI_Put(&nv, 1, MPI_LONG, t, rma_disp(&w, t, 0), 1, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_unlock(t, w.win));
        CHECK(v >= 0 && v < expected_sum(t), "%s: writer %d read %ld from rank %d (expected "
              "0..%ld)", fl, me, v, t, expected_sum(t) - 1);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me < 2) {
        long mine = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
        CHECK_MPI(MPI_Get(&mine, 1, MPI_LONG, me, rma_disp(&w, me, 0), 1, MPI_LONG, w.win));
        CHECK_MPI(MPI_Win_unlock(me, w.win));
        CHECK(mine == expected_sum(me), "%s: rank %d's window holds %ld after the writers, "
              "expected %ld (an update was lost)", fl, me, mine, expected_sum(me));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rma_win_close(&w);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    CHECK(np >= 2, "needs at least 2 processes");
    round_of(FL_CREATE);
    round_of(FL_ALLOCATE);
    round_of(FL_DYNAMIC);
    if (me == 0)
        printf("rma_lock_readers: %d processes, 3 window flavors: ok\n", np);
    MPI_Finalize();
    return 0;
}

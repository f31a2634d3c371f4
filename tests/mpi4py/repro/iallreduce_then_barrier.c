/* iallreduce_then_barrier.c -- a pending Iallreduce on one rank must not be matched by another rank's Barrier.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Status 2026-11-25: fixed on main (a84b643: collective tags by position in per-class sequences,
 * src/coll/sched.c); prints "ok" at np 5.
 *
 * Reduced from mpi4py's test_ulfm.TestULFMWorld.testIAgree (error at every np >= 2).
 * Without ULFM, mpi4py implements MPI_Comm_iagree as MPI_Iallreduce_c(MPI_BAND)
 * (src/lib-mpi/mpiulfm.h), and the test has the root start the agreement BEFORE a
 * barrier while the other ranks enter the barrier first:
 *
 *     root:   Iallreduce ; Test ; Barrier ; Wait
 *     others: Barrier ; Iallreduce ; Wait
 *
 * Strictly the standard asks every rank to call collectives in the same order, so the
 * program is erroneous; but MPICH 4.0.2 runs it (its barrier never matches a
 * nonblocking collective's messages) and mpi4py's suite relies on it.
 *
 * MemPI 0.1.0: passes under MPI_Init (the blocking barrier uses the shared-segment
 * flags), FAILS under MPI_Init_thread(MPI_THREAD_MULTIPLE) -- which is how mpi4py
 * initialises -- because the barrier then runs over messages whose tag is the
 * communicator's collective sequence number (src/coll/sched.c): the non-root's barrier
 * receive (its 6th collective) matches the root's 6th collective, the Iallreduce ->
 * MPI_ERR_TRUNCATE "message of 4 bytes from rank 0 (tag 6) truncated to the 0 bytes
 * of the receive buffer" at np 2, 3, 4; at np=5 the same mix-up DEADLOCKS instead (all
 * ranks in MPI_Barrier or MPI_Wait; mpi4py's test hangs there too, on every rank).
 * Possible fixes: a tag space per collective kind (or one for
 * blocking and one for nonblocking calls), as MPICH does; or the shm barrier under
 * THREAD_MULTIPLE too.
 *
 * Build/run:  build/bin/mpicc -o /tmp/r tests/mpi4py/repro/iallreduce_then_barrier.c
 *             build/bin/mpiexec -n 2 /tmp/r        (also -n 3, -n 5)
 * Exits 0 and prints "ok" on success; MPI_Abort with the error string on failure;
 * use mpiexec --timeout 30 for the np=5 deadlock.
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, flag, ibuf, done, err, bad = 0;
    MPI_Request req;
    MPI_Comm comm;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);   /* as mpi4py does */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);             /* the test works on a duplicate */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < 5; i++) {                    /* first part of the test: in order */
        ibuf = i;
        MPI_Iallreduce_c(&ibuf, &flag, 1, MPI_INT, MPI_BAND, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (flag != i)
            fprintf(stderr, "rank %d: in-order iallreduce gave %d, expected %d\n", rank, flag, i), bad = 1;
    }
    for (int root = 0; root < size; root++) {
        MPI_Barrier(comm);
        ibuf = rank == root ? 0xB : 0xD;             /* 1011 and 1101: BAND gives 1001 */
        if (rank == root) {
            MPI_Iallreduce_c(&ibuf, &flag, 1, MPI_INT, MPI_BAND, comm, &req);
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);   /* the test asserts it is not done */
            err = MPI_Barrier(comm);
        } else {
            usleep(20000);   /* as slow as Python: the root's message arrives first */
            err = MPI_Barrier(comm);
            if (err == MPI_SUCCESS)
                MPI_Iallreduce_c(&ibuf, &flag, 1, MPI_INT, MPI_BAND, comm, &req);
        }
        if (err != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(err, msg, &len);
            fprintf(stderr, "rank %d, root %d: MPI_Barrier failed: %s\n", rank, root, msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (flag != 0x9) {
            fprintf(stderr, "rank %d, root %d: flag %#x, expected 0x9\n", rank, root, flag);
            bad = 1;
        }
    }
    MPI_Comm_free(&comm);
    MPI_Finalize();
    if (rank == 0 && !bad)
        printf("ok\n");
    return bad;
}

/* bsend_overhead.c -- a buffer of MPI_BSEND_OVERHEAD + size bytes must hold one buffered send of size bytes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Status 2026-11-25: fixed on main (src/pt2pt/bsend.c); prints "ok" at np 3.
 *
 * Reduced from mpi4py's test_p2p_buf.TestP2PBuf*.testPersistent / testSendRecv /
 * testProcNull (every np, 16 tests).  mpi4py attaches exactly MPI_BSEND_OVERHEAD + n bytes
 * for one n-byte buffered send, which the standard guarantees to be enough (MPI-4.1
 * section 3.6.1: the buffer needed for a message is its packed size plus
 * MPI_BSEND_OVERHEAD).  MemPI 0.1.0 refuses it: "buffered send of 1 bytes needs 112 bytes
 * of attached buffer; 0 of 97 are in use" -- its per-message cost (96 + the data rounded
 * up to 16) exceeds MPI_BSEND_OVERHEAD (96) for any size that is not a multiple of 16.
 * The failing test then never detaches, so the next tests fail with "a buffer of 97
 * bytes is already attached".  Fix: count the rounding inside MPI_BSEND_OVERHEAD (e.g.
 * a header of at most 96 - 15 bytes), or do not round the data.
 *
 * Every rank sends to itself on MPI_COMM_SELF.  (An earlier version used rank 0 of
 * MPI_COMM_WORLD as source and destination on every rank, so at np >= 2 rank 1 waited in
 * MPI_Recv for a message nobody sent: a hang of the reproducer, not of MemPI.)  The full
 * test, with Ibsend, Bsend_init and ring/detach patterns, is tests/mpi/p2p_bsend.c.
 *
 * Build/run:  build/bin/mpicc -o /tmp/r tests/mpi4py/repro/bsend_overhead.c
 *             build/bin/mpiexec -n 2 /tmp/r          prints "ok", exit 0 on success
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int n = 0; n <= 64; n++) {
        int size = MPI_BSEND_OVERHEAD + n, got = -1, err;
        char *buf = malloc((size_t)size), *det, out[64] = {0}, in[64];
        void *detached;
        MPI_Buffer_attach(buf, size);
        err = MPI_Bsend(out, n, MPI_BYTE, 0, 7, MPI_COMM_SELF);
        if (err != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(err, msg, &len);
            fprintf(stderr, "MPI_Bsend of %d bytes into a buffer of MPI_BSEND_OVERHEAD+%d: %s\n",
                    n, n, msg);
            bad = 1;
        } else {
            MPI_Recv(in, n, MPI_BYTE, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        }
        MPI_Buffer_detach(&detached, &got);
        det = detached;
        if (det != buf || got != size)
            fprintf(stderr, "MPI_Buffer_detach gave %p/%d, expected %p/%d\n",
                    (void *)det, got, (void *)buf, size), bad = 1;
        free(buf);
    }
    MPI_Finalize();
    if (!bad)
        printf("ok\n");
    return bad;
}

/* mempi-test: np=2 timeout=180 */
/* p2p_large.c -- one message beyond 2 GiB (an int count of a large contiguous type).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Rank 0 sends 1 element of a 2 GiB + 4 KiB contiguous type; rank 1 receives it first into a
 * posted receive (remote write or rendezvous) and then once more unexpected, and checks a
 * pattern at every 4 KiB page, the status counts (bytes beyond INT_MAX through
 * MPI_Get_count_c / MPI_Get_elements_x) and MPI_Get_count in bytes = MPI_UNDEFINED.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const size_t bytes = ((size_t)1 << 31) + 4096;
    MPI_Datatype big;
    MPI_Type_contiguous((int)(bytes / 8), MPI_DOUBLE, &big);
    MPI_Type_commit(&big);
    char *buf = malloc(bytes);
    CHECK(buf != NULL, "no memory for %zu bytes", bytes);
    for (int round = 0; round < 2 && rank < 2; round++) {
        if (rank == 0) {
            for (size_t i = 0; i < bytes; i += 4096)
                memcpy(buf + i, &(size_t){ i ^ (size_t)round }, sizeof(size_t));
            int go;
            MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, big, 1, 2, MPI_COMM_WORLD);
        } else {
            memset(buf, 0, bytes);
            MPI_Request r;
            MPI_Status st;
            int go = 1;
            if (round == 0) {              /* posted first */
                MPI_Irecv(buf, 1, big, 0, 2, MPI_COMM_WORLD, &r);
                MPI_Send(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
                MPI_Wait(&r, &st);
            } else {                       /* arrives first */
                MPI_Send(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
                MPI_Probe(0, 2, MPI_COMM_WORLD, &st);
                MPI_Recv(buf, 1, big, 0, 2, MPI_COMM_WORLD, &st);
            }
            MPI_Count n;
            int c;
            MPI_Get_count_c(&st, MPI_BYTE, &n);
            CHECK(n == (MPI_Count)bytes, "count %lld bytes", (long long)n);
            MPI_Get_count(&st, MPI_BYTE, &c);
            CHECK(c == MPI_UNDEFINED, "int byte count should be MPI_UNDEFINED, got %d", c);
            MPI_Get_count(&st, big, &c);
            CHECK(c == 1, "count of the big type %d", c);
            for (size_t i = 0; i < bytes; i += 4096) {
                size_t v;
                memcpy(&v, buf + i, sizeof v);
                CHECK(v == (i ^ (size_t)round), "round %d: page at %zu wrong", round, i);
            }
        }
    }
    if (rank == 1)
        printf("p2p_large: %zu-byte message received posted-first and unexpected\n", bytes);
    free(buf);
    MPI_Type_free(&big);
    MPI_Finalize();
    return 0;
}

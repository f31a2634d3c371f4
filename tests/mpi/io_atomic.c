/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_atomic.c -- atomic mode with conflicting writers and readers.  MemPI, BSD-3-Clause (see
 * LICENSE).
 *
 * Every rank repeatedly writes its rank into all M ints of one shared region and reads the
 * region back, through a view whose filetype has a hole after every int -- so each access is
 * M separate pieces of the file, which interleave with other ranks' pieces unless atomic
 * mode serializes whole accesses.  In atomic mode every read must find all M ints equal (one
 * writer's whole write), and the final content must be one rank's value everywhere.  The
 * atomicity flag must read back as set.
 */
#include "io_common.h"

enum { M = 256, ROUNDS = 30 };

int main(int argc, char **argv)
{
    int me, np;
    io_init(&argc, &argv, &me, &np);
    MPI_File fh = io_create("atomic", MPI_INFO_NULL);
    MPI_Datatype ft;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    int flag;
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity flag %d", flag);
    int mine[M], got[M];
    for (int i = 0; i < M; i++)
        mine[i] = me + 1;
    CHECK_MPI(MPI_File_write_at_all(fh, 0, mine, M, MPI_INT, MPI_STATUS_IGNORE));
    for (int round = 0; round < ROUNDS; round++) {
        CHECK_MPI(MPI_File_write_at(fh, 0, mine, M, MPI_INT, MPI_STATUS_IGNORE));
        MPI_Status st;
        CHECK_MPI(MPI_File_read_at(fh, 0, got, M, MPI_INT, &st));
        int n;
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == M, "read %d ints", n);
        for (int i = 1; i < M; i++)
            CHECK(got[i] == got[0] && got[0] >= 1 && got[0] <= np,
                  "round %d: a read saw a mixed region (int 0 = %d, int %d = %d)", round,
                  got[0], i, got[i]);
    }
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_read_at_all(fh, 0, got, M, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 1; i < M; i++)
        CHECK(got[i] == got[0], "final region mixed at %d", i);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
    io_done();
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=2,3,5 timeout=180 */
/* mempi-test: np=4 timeout=180 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=3 timeout=180 env=MEMPI_ASYNC_PROGRESS=1 */
/* coll_thread_levels.c -- collectives between processes that asked for different thread
 * levels.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI lets every process ask for its own level.  Here ranks 0, 3, 6, ... ask for
 * MPI_THREAD_MULTIPLE and the others for MPI_THREAD_SINGLE, FUNNELED or SERIALIZED (the rank
 * comes from the launcher's PMI_RANK, read before MPI_Init_thread).  Collectives on
 * MPI_COMM_WORLD, a duplicate and a split must still agree on their algorithm: each one's
 * result is checked, for sizes from 8 bytes to beyond the single-copy threshold.  A library
 * whose collectives depended on the caller's thread level would have ranks waiting in
 * different algorithms (a hang, which the timeout turns into a failure, or a mismatch).
 * With MEMPI_ASYNC_PROGRESS=1 every rank runs a progress thread, which makes the library
 * multi-threaded whatever the level: collectives then run beside that thread's polls.
 */
#include <mpi.h>
#include "check.h"
#include <stdlib.h>

#define BIG (64 * 1024)                /* doubles: 512 KiB */

static double val(int r, int round, long i) { return (double)(r * 7919L + round * 31L + i % 1009); }

static void rounds_on(MPI_Comm c, double *a, double *b)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    static const long counts[] = { 1, 100, 4000, BIG };
    for (int round = 0; round < 16; round++) {
        long cnt = counts[round % 4];
        CHECK_MPI(MPI_Barrier(c));
        int root = round % n;
        for (long i = 0; i < cnt; i++)
            a[i] = me == root ? val(root, round, i) : 0;
        CHECK_MPI(MPI_Bcast(a, (int)cnt, MPI_DOUBLE, root, c));
        for (long i = 0; i < cnt; i++)
            CHECK(a[i] == val(root, round, i), "round %d: bcast[%ld] = %g", round, i, a[i]);
        for (long i = 0; i < cnt; i++)
            a[i] = val(me, round, i);
        CHECK_MPI(MPI_Allreduce(a, b, (int)cnt, MPI_DOUBLE, MPI_SUM, c));
        for (long i = 0; i < cnt; i++) {
            double want = 0;
            for (int r = 0; r < n; r++)
                want += val(r, round, i);
            CHECK(b[i] == want, "round %d: allreduce[%ld] = %g, expected %g", round, i, b[i],
                  want);
        }
        long g = cnt > 4000 ? 4000 : cnt;
        CHECK_MPI(MPI_Allgather(a, (int)g, MPI_DOUBLE, b, (int)g, MPI_DOUBLE, c));
        for (int r = 0; r < n; r++)
            for (long i = 0; i < g; i++)
                CHECK(b[r * g + i] == val(r, round, i), "round %d: allgather block %d [%ld] = %g",
                      round, r, i, b[r * g + i]);
    }
}

int main(int argc, char **argv)
{
    const char *e = getenv("PMI_RANK");
    if (!e)
        e = getenv("SLURM_PROCID");
    int guess = e ? atoi(e) : 0;
    static const int levels[] = { MPI_THREAD_MULTIPLE, MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                                  MPI_THREAD_MULTIPLE, MPI_THREAD_SERIALIZED, MPI_THREAD_SINGLE };
    int want = levels[guess % 6], provided, rank, size;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided >= want, "asked for level %d, got %d", want, provided);
    double *a = malloc(sizeof(double) * BIG), *b = malloc(sizeof(double) * BIG * (size_t)size);
    CHECK(a && b, "out of memory");
    rounds_on(MPI_COMM_WORLD, a, b);
    MPI_Comm dup, split;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    rounds_on(dup, a, b);
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split));
    rounds_on(split, a, b);
    CHECK_MPI(MPI_Comm_free(&split));
    CHECK_MPI(MPI_Comm_free(&dup));
    int levels_seen[2] = { provided == MPI_THREAD_MULTIPLE, provided != MPI_THREAD_MULTIPLE }, all[2];
    CHECK_MPI(MPI_Allreduce(levels_seen, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    /* under our launcher both kinds take part (PMI_RANK is set) */
    if (getenv("PMI_RANK") && size > 1)
        CHECK(all[0] >= 1 && all[1] >= 1, "levels: %d multiple, %d other", all[0], all[1]);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}

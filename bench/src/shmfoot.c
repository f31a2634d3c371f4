/* shmfoot.c -- shared memory touched per node after an all-to-all, and start-up time.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Usage: shmfoot init    MPI_Init + MPI_Finalize only; rank 0 prints the Init span
 *                        (latest return from MPI_Init minus earliest entry, wall clock)
 *        shmfoot foot    MPI_Alltoall of 8 bytes per pair, then a point-to-point all-to-all
 *                        (every rank Isends 8 bytes to every other and Irecvs from each, so
 *                        every ordered pair of ranks exchanges a message whatever algorithm
 *                        the library's MPI_Alltoall uses), a barrier, and then every rank reads
 *                        /proc/self/smaps: the sum over the shared mappings (VmFlags "sh") of
 *                        Pss and Rss.  Summed over the ranks, Pss counts each resident shared
 *                        page once: the node's shared memory touched.  Rank 0 prints it, the
 *                        largest Rss of one rank, and the size of the shared mappings.
 * The same source builds against any MPI (bench/src/shmfoot.sh runs all three libraries).
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime under -std=c11 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sums Pss, Rss and Size (KiB) of this process's shared mappings. */
static void shared_kib(double out[3])
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    double pss = 0, rss = 0, size = 0, m_pss = 0, m_rss = 0, m_size = 0;
    out[0] = out[1] = out[2] = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        double v;
        if (sscanf(line, "Pss: %lf", &v) == 1)
            m_pss = v;
        else if (sscanf(line, "Rss: %lf", &v) == 1)
            m_rss = v;
        else if (sscanf(line, "Size: %lf", &v) == 1)
            m_size = v;
        else if (strncmp(line, "VmFlags:", 8) == 0) {
            if (strstr(line, " sh")) {
                pss += m_pss;
                rss += m_rss;
                size += m_size;
            }
            m_pss = m_rss = m_size = 0;
        }
    }
    fclose(f);
    out[0] = pss;
    out[1] = rss;
    out[2] = size;
}

int main(int argc, char **argv)
{
    double t0 = now();
    MPI_Init(&argc, &argv);
    double t1 = now();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "foot";
    double first, last;
    MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (strcmp(mode, "init") == 0) {
        if (rank == 0)
            printf("shmfoot init np %d init_span_s %.4f\n", size, last - first);
        MPI_Finalize();
        return 0;
    }
    long *sb = malloc(sizeof(long) * (size_t)size), *rb = malloc(sizeof(long) * (size_t)size);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    for (int i = 0; i < size; i++)
        sb[i] = (long)rank * 100000 + i;
    MPI_Alltoall(sb, 1, MPI_LONG, rb, 1, MPI_LONG, MPI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < size; i++)
        bad += rb[i] != (long)i * 100000 + rank;
    int n = 0;
    for (int k = 1; k < size; k++) {         /* every ordered pair, in a skewed order */
        int from = (rank - k + size) % size;
        MPI_Irecv(&rb[from], 1, MPI_LONG, from, 7, MPI_COMM_WORLD, &req[n++]);
    }
    for (int k = 1; k < size; k++) {
        int to = (rank + k) % size;
        MPI_Isend(&sb[to], 1, MPI_LONG, to, 7, MPI_COMM_WORLD, &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < size; i++)
        bad += i != rank && rb[i] != (long)i * 100000 + rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double mine[4], sum[4], max[4];
    shared_kib(mine);
    mine[3] = bad;
    MPI_Reduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, max, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("shmfoot foot np %d node_pss_mib %.2f max_rank_rss_mib %.2f max_rank_shared_size_mib "
               "%.1f errors %.0f\n", size, sum[0] / 1024, max[1] / 1024, max[2] / 1024, sum[3]);
    free(sb);
    free(rb);
    free(req);
    MPI_Finalize();
    return 0;
}

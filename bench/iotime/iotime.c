/* iotime.c -- times one collective MPI-IO access in a loop (issue 22's two-phase patterns).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * usage: iotime PATTERN WRITE BYTES ITERS [TAG [CB [CB_NODES]]]
 *   PATTERN 0: a 2-D array of doubles block-distributed over a px x py grid (subarray
 *   filetype), 1: rank r owns 1 KiB blocks r, r+P, ..., 2: rank r owns the r-th of P
 *   contiguous parts -- bench/src/io.c's io2d, iostr and iocont;
 *   WRITE 1 times MPI_File_write_at_all, 0 MPI_File_read_at_all; the file is
 *   iotime-TAG.dat in $IOTIME_DIR (default /dev/shm); CB sets romio_cb_write and romio_cb_read (automatic, enable,
 *   disable), CB_NODES > 0 sets cb_nodes.
 * Every iteration starts after a barrier and counts the slowest rank.  It prints the median,
 * the minimum and the maximum time of one access, and the CPU time (user + system) per
 * access summed over the ranks, which is less disturbed by a loaded machine than wall time.
 * Unlike bench/src/io.c it needs no bench harness, so the same binary runs under MemPI,
 * MPICH and Open MPI (build it with each library's mpicc) and with LD_LIBRARY_PATH pointing
 * at another MemPI build.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "../src/io_block.h"

static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, r;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (argc < 5) {
        if (r == 0)
            fprintf(stderr, "usage: %s PATTERN WRITE BYTES ITERS [TAG [CB [CB_NODES]]]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int pat = atoi(argv[1]), w = atoi(argv[2]), it = atoi(argv[4]);
    long size = atol(argv[3]);
    const char *cb = argc > 6 ? argv[6] : "automatic";
    char path[256];
    const char *dir = getenv("IOTIME_DIR");
    snprintf(path, sizeof path, "%s/iotime-%s.dat", dir && *dir ? dir : "/dev/shm",
             argc > 5 ? argv[5] : "x");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    if (argc > 7 && atoi(argv[7]) > 0)
        MPI_Info_set(info, "cb_nodes", argv[7]);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh)) {
        fprintf(stderr, "cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Info_free(&info);
    MPI_Datatype ft, mt;
    int count;
    if (pat == 0) {
        ft = io_block_2d(P, r, size, &count);
        mt = MPI_DOUBLE;
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    } else if (pat == 2) {
        ft = MPI_BYTE;
        count = (int)(size / P);
        mt = MPI_BYTE;
        MPI_File_set_view(fh, (MPI_Offset)r * count, MPI_BYTE, MPI_BYTE, "native",
                          MPI_INFO_NULL);
    } else {
        MPI_Datatype blk;
        MPI_Type_contiguous(1024, MPI_BYTE, &blk);
        MPI_Type_create_resized(blk, 0, (MPI_Aint)1024 * P, &ft);
        MPI_Type_free(&blk);
        MPI_Type_commit(&ft);
        count = (int)(size / P / 1024 * 1024);
        mt = MPI_BYTE;
        MPI_File_set_view(fh, (MPI_Offset)r * 1024, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    }
    if (pat != 2)
        MPI_Type_free(&ft);
    char *buf = malloc((size_t)size + 16);
    memset(buf, 'x', (size_t)size);
    MPI_File_write_at_all(fh, 0, buf, count, mt, MPI_STATUS_IGNORE);   /* what reads read */
    double *ts = malloc(sizeof(double) * (size_t)it), c0 = cpu_seconds();
    for (int i = 0; i < it; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime(), d, m;
        if (w)
            MPI_File_write_at_all(fh, 0, buf, count, mt, MPI_STATUS_IGNORE);
        else
            MPI_File_read_at_all(fh, 0, buf, count, mt, MPI_STATUS_IGNORE);
        d = MPI_Wtime() - t;
        MPI_Reduce(&d, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        ts[i] = m;
    }
    double cpu = (cpu_seconds() - c0) / it * 1e3, cpus;
    MPI_Reduce(&cpu, &cpus, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0) {
        qsort(ts, (size_t)it, sizeof *ts, cmp_double);
        printf("%s %s np%d %ld B cb %s: median %.2f ms min %.2f max %.2f cpu %.2f ms\n",
               pat == 2 ? "cont" : pat ? "str" : "2d", w ? "w" : "r", P, size, cb, ts[it / 2] * 1e3, ts[0] * 1e3,
               ts[it - 1] * 1e3, cpus);
    }
    MPI_File_close(&fh);
    if (r == 0)
        unlink(path);
    free(ts);
    free(buf);
    MPI_Finalize();
    return 0;
}

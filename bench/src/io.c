/* io.c -- MPI-IO collective write and read bandwidth, on tmpfs and on the disk.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Three patterns, each written with MPI_File_write_at_all and read with
 * MPI_File_read_at_all through a file view, for a total of `size` bytes over
 * all ranks:
 *   io2d_*   a 2-D array of doubles block-distributed over a px x py grid
 *            (MPI_Type_create_subarray filetype; the pattern parallel HDF5
 *            produces for a hyperslab per rank);
 *   iostr_*  an interleaved strided pattern: rank r owns 1 KiB blocks
 *            r, r + P, r + 2P, ... (a resized contiguous filetype);
 *   iocont_* every rank one contiguous part, in rank order (the contiguous
 *            collective case);
 * and ioseq_w, a dd-style baseline measured by rank 0 alone: the same total
 * written with pwrite in 1 MiB pieces to a file of its own, without MPI-IO.
 * Each name ends in _tmpfs (/dev/shm) or _disk ($BENCH_IO_DISK, else
 * /var/tmp), and ends with _w or _r.  Reported: MB/s (total bytes / time of
 * the slowest rank).  Writes go to the page cache (no sync), as dd's do
 * without conv=fsync, so disk numbers show the file system's write path, not
 * the device.  The files are removed at the end.
 */
#include "bench.h"
#include "io_block.h"
#include <fcntl.h>
#include <unistd.h>

enum { STRIDE_BLOCK = 1024, SEQ_PIECE = 1 << 20 };

typedef struct io_ctx {
    MPI_File fh;
    char *buf;
    int count;                        /* doubles (2d) or bytes */
    MPI_Datatype mtype;
    int write;
    int fd;                           /* ioseq: rank 0's descriptor */
    long size;
} io_ctx;

static void io_op(void *arg, long iters)
{
    io_ctx *c = arg;
    for (long i = 0; i < iters; i++) {
        if (c->write)
            MPI_File_write_at_all(c->fh, 0, c->buf, c->count, c->mtype, MPI_STATUS_IGNORE);
        else
            MPI_File_read_at_all(c->fh, 0, c->buf, c->count, c->mtype, MPI_STATUS_IGNORE);
    }
}

static void seq_op(void *arg, long iters)
{
    io_ctx *c = arg;
    if (bench.rank != 0)
        return;
    for (long i = 0; i < iters; i++)
        for (long off = 0; off < c->size; off += SEQ_PIECE) {
            long n = c->size - off < SEQ_PIECE ? c->size - off : SEQ_PIECE;
            if (pwrite(c->fd, c->buf + off, (size_t)n, off) != n) {
                perror("pwrite");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
}

/* The view of pattern p (0 2d, 1 strided, 2 contiguous) for `size` bytes in all. */
static int set_view(MPI_File fh, int p, long size, int *count, MPI_Datatype *mtype)
{
    int P = bench.nprocs, r = bench.rank;
    MPI_Datatype ft;
    if (p == 0) {
        ft = io_block_2d(P, r, size, count);
        *mtype = MPI_DOUBLE;
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    } else if (p == 1) {
        MPI_Datatype blk;
        MPI_Type_contiguous(STRIDE_BLOCK, MPI_BYTE, &blk);
        MPI_Type_create_resized(blk, 0, (MPI_Aint)STRIDE_BLOCK * P, &ft);
        MPI_Type_free(&blk);
        MPI_Type_commit(&ft);
        *count = (int)(size / P / STRIDE_BLOCK * STRIDE_BLOCK);
        *mtype = MPI_BYTE;
        MPI_File_set_view(fh, (MPI_Offset)r * STRIDE_BLOCK, MPI_BYTE, ft, "native",
                          MPI_INFO_NULL);
    } else {
        *count = (int)(size / P);
        *mtype = MPI_BYTE;
        MPI_File_set_view(fh, (MPI_Offset)r * *count, MPI_BYTE, MPI_BYTE, "native",
                          MPI_INFO_NULL);
        return 0;
    }
    MPI_Type_free(&ft);
    return 0;
}

int main(int argc, char **argv)
{
    static const long full[] = { 4L << 20, 32L << 20, 128L << 20 };
    static const long fast[] = { 4L << 20, 32L << 20 };
    static const char *pname[] = { "io2d", "iostr", "iocont" };
    bench_init(&argc, &argv);
    const char *disk = getenv("BENCH_IO_DISK");
    const char *dirs[2] = { "/dev/shm", disk && *disk ? disk : "/var/tmp" };
    static const char *fsname[2] = { "tmpfs", "disk" };
    const long *sizes = bench.quick ? fast : full;
    int nsizes = bench.quick ? 2 : 3;
    char *buf = bench_alloc((size_t)sizes[nsizes - 1]);
    memset(buf, 'x', (size_t)sizes[nsizes - 1]);
    int stop = 0;
    for (int fs = 0; fs < 2 && !stop; fs++) {
        char path[512], seqpath[520];
        snprintf(path, sizeof path, "%s/bench-io-%d.dat", dirs[fs], (int)getpid());
        MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
        snprintf(seqpath, sizeof seqpath, "%s.seq", path);
        for (int i = 0; i < nsizes && !stop; i++) {
            long size = sizes[i];
            char name[32];
            io_ctx c = { .buf = buf, .size = size, .fd = -1 };
            /* dd-style baseline */
            snprintf(name, sizeof name, "ioseq_w_%s", fsname[fs]);
            if ((stop = bench_skip_if_over_budget(name, size)))
                break;
            if (bench.rank == 0)
                c.fd = open(seqpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            double t = bench_measure(seq_op, &c);
            bench_report(name, size, size / t / 1e6, "MB/s");
            if (bench.rank == 0) {
                close(c.fd);
                unlink(seqpath);
            }
            for (int p = 0; p < 3 && !stop; p++)
                for (int w = 1; w >= 0 && !stop; w--) {
                    snprintf(name, sizeof name, "%s_%s_%s", pname[p], w ? "w" : "r", fsname[fs]);
                    if ((stop = bench_skip_if_over_budget(name, size)))
                        break;
                    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                                      MPI_INFO_NULL, &c.fh) != MPI_SUCCESS) {
                        if (bench.rank == 0) printf("# cannot open %s\n", path);
                        stop = 1;
                        break;
                    }
                    set_view(c.fh, p, size, &c.count, &c.mtype);
                    c.write = w;
                    if (!w)        /* the file holds the data the reads want */
                        MPI_File_write_at_all(c.fh, 0, buf, c.count, c.mtype, MPI_STATUS_IGNORE);
                    int bytes;
                    MPI_Type_size(c.mtype, &bytes);
                    long total = 0, mine = (long)c.count * bytes;
                    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
                    t = bench_measure(io_op, &c);
                    bench_report(name, size, total / t / 1e6, "MB/s");
                    MPI_File_close(&c.fh);
                }
        }
        if (bench.rank == 0)
            unlink(path);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}

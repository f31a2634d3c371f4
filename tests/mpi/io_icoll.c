/* mempi-test: np=1,2,3,5 timeout=180 */
/* io_icoll.c -- nonblocking collective accesses (MPI_File_iwrite_at_all ...) and split
 * collectives progress on their own.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Rank 0 starts each collective access before any other rank can: the others wait for a
 * message rank 0 sends only after its call returned (and after MPI_Test found its request
 * still incomplete, since nobody else has entered).  An access that completes in the
 * initiating call, or blocks there, hangs this test (the timeout fails it).  Every form is
 * used: iwrite_at_all, iread_at_all, iwrite_all and iread_all (the individual pointer moves
 * at initiation), write_at_all_begin/end, read_all_begin/end; two accesses outstanding at once
 * followed by a blocking collective of the same file, completed by MPI_Waitall in reverse
 * order.  The view interleaves the ranks' blocks, with 24-byte and 1500-byte blocks; every
 * byte read is checked, and so is the whole file.  Each runs twice: with romio_cb_write and
 * romio_cb_read = enable (the two-phase exchange, also on one host), where the ordering is
 * checked, and with the default hints, where a group on one host accesses independently (the
 * I/O thread's), so an access may complete before the others start theirs and only the data
 * is checked.  MPICH's ROMIO finishes these accesses in the initiating call, so the ordering
 * part runs on MemPI only; the data checks run everywhere.
 */
#include "io_common.h"

enum { NBLK = 16 };
static int me, np;
static int ordered;                   /* the exchange is forced: check the ordering */

static unsigned char value(int rank, int b, int k, int gen)
{
    return (unsigned char)((rank * 31 + b * 7 + k + gen * 101) & 0xff);
}

/* Rank 0 has started its access as `req`: it must still be incomplete, then the others are
 * told to start theirs.  The others wait for the word first. */
static void go(MPI_Request *req, MPI_Status *st, const char *what)
{
    if (!io_is_mempi() || np == 1)
        return;
    if (me == 0) {
        int flag = 0;                 /* split collectives have no request to test */
        if (*req != MPI_REQUEST_NULL)
            CHECK_MPI(MPI_Test(req, &flag, st));
        CHECK(!ordered || !flag, "%s: complete before the other ranks started it", what);
        for (int r = 1; r < np; r++)
            CHECK_MPI(MPI_Send(&r, 1, MPI_INT, r, 7, MPI_COMM_WORLD));
    }
}

/* go, then the request's completion (MPI_Test may have completed it, with its status). */
static void go_wait(MPI_Request *req, MPI_Status *st, const char *what)
{
    go(req, st, what);
    if (*req != MPI_REQUEST_NULL)
        CHECK_MPI(MPI_Wait(req, st));
}

static void wait_word(void)
{
    if (!io_is_mempi() || np == 1 || me == 0)
        return;
    int w;
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == me, "word %d", w);
}

static void check_count(MPI_Status *st, int want, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(n == want, "%s: count %d, expected %d", what, n, want);
}

static void run(int blk, int exchange)
{
    char name[32];
    snprintf(name, sizeof name, "icoll%d-%d", blk, exchange);
    MPI_Info info;
    MPI_Info_create(&info);
    if (exchange) {
        MPI_Info_set(info, "romio_cb_write", "enable");
        MPI_Info_set(info, "romio_cb_read", "enable");
    }
    ordered = exchange;
    MPI_File fh = io_create(name, info);
    MPI_Info_free(&info);
    MPI_Datatype vec, ft;
    MPI_Type_vector(NBLK, blk, np * blk, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)np * blk * NBLK, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * blk, MPI_BYTE, ft, "native",
                                MPI_INFO_NULL));
    int n = blk * NBLK;
    unsigned char *mine = malloc((size_t)n), *back = malloc((size_t)n), *b2 = malloc((size_t)n);
    for (int b = 0; b < NBLK; b++)
        for (int k = 0; k < blk; k++)
            mine[b * blk + k] = value(me, b, k, 0);
    MPI_Request req = MPI_REQUEST_NULL, r2;
    MPI_Status st;

    /* iwrite_at_all, then iread_at_all */
    wait_word();
    CHECK_MPI(MPI_File_iwrite_at_all(fh, 0, mine, n, MPI_BYTE, &req));
    go_wait(&req, &st, "iwrite_at_all");
    check_count(&st, n, "iwrite_at_all");
    memset(back, 0, (size_t)n);
    wait_word();
    CHECK_MPI(MPI_File_iread_at_all(fh, 0, back, n, MPI_BYTE, &req));
    go_wait(&req, &st, "iread_at_all");
    check_count(&st, n, "iread_at_all");
    CHECK(memcmp(back, mine, (size_t)n) == 0, "iread_at_all: data differs");

    /* individual pointer: iwrite_all of the second copy of the filetype; the pointer moves
     * at initiation */
    for (int i = 0; i < n; i++)
        mine[i] = value(me, i / blk, i % blk, 1);
    CHECK_MPI(MPI_File_seek(fh, n, MPI_SEEK_SET));
    wait_word();
    CHECK_MPI(MPI_File_iwrite_all(fh, mine, n, MPI_BYTE, &req));
    MPI_Offset p;
    CHECK_MPI(MPI_File_get_position(fh, &p));
    CHECK(p == 2 * n, "iwrite_all: position %lld after initiation, expected %d", (long long)p,
          2 * n);
    go_wait(&req, &st, "iwrite_all");
    check_count(&st, n, "iwrite_all");
    CHECK_MPI(MPI_File_seek(fh, n, MPI_SEEK_SET));
    memset(back, 0, (size_t)n);
    wait_word();
    CHECK_MPI(MPI_File_iread_all(fh, back, n, MPI_BYTE, &req));
    go_wait(&req, &st, "iread_all");
    check_count(&st, n, "iread_all");
    CHECK(memcmp(back, mine, (size_t)n) == 0, "iread_all: data differs");

    /* split collectives: a write of the third copy, a read of the first */
    for (int i = 0; i < n; i++)
        mine[i] = value(me, i / blk, i % blk, 2);
    wait_word();
    CHECK_MPI(MPI_File_write_at_all_begin(fh, 2 * n, mine, n, MPI_BYTE));
    req = MPI_REQUEST_NULL;
    go(&req, &st, "write_at_all_begin");
    CHECK_MPI(MPI_File_write_at_all_end(fh, mine, &st));
    check_count(&st, n, "write_at_all_end");
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(back, 0, (size_t)n);
    wait_word();
    CHECK_MPI(MPI_File_read_all_begin(fh, back, n, MPI_BYTE));
    go(&req, &st, "read_all_begin");
    CHECK_MPI(MPI_File_read_all_end(fh, back, &st));
    check_count(&st, n, "read_all_end");
    for (int i = 0; i < n; i++)
        CHECK(back[i] == value(me, i / blk, i % blk, 0), "read_all_end: byte %d is %d", i,
              back[i]);

    /* two outstanding, then a blocking collective of the file, then both completed */
    for (int i = 0; i < n; i++)
        mine[i] = value(me, i / blk, i % blk, 3);
    CHECK_MPI(MPI_File_iwrite_at_all(fh, 3 * n, mine, n, MPI_BYTE, &req));
    CHECK_MPI(MPI_File_iread_at_all(fh, 2 * n, b2, n, MPI_BYTE, &r2));
    memset(back, 0, (size_t)n);
    CHECK_MPI(MPI_File_read_at_all(fh, n, back, n, MPI_BYTE, &st));
    check_count(&st, n, "read_at_all behind two");
    for (int i = 0; i < n; i++)
        CHECK(back[i] == value(me, i / blk, i % blk, 1), "read_at_all behind two: byte %d", i);
    MPI_Request both[2] = { r2, req };
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, both, sts));
    check_count(&sts[0], n, "iread_at_all of two");
    check_count(&sts[1], n, "iwrite_at_all of two");
    for (int i = 0; i < n; i++)
        CHECK(b2[i] == value(me, i / blk, i % blk, 2), "iread_at_all of two: byte %d", i);

    /* the whole file, every byte: four copies of the filetype */
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    long size = 4L * np * n;
    unsigned char *all = malloc((size_t)size);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)size, MPI_BYTE, &st));
    check_count(&st, (int)size, "whole file");
    for (long i = 0; i < size; i++) {
        long copy = i / ((long)np * n), in = i % ((long)np * n);
        int b = (int)(in / ((long)np * blk)), r = (int)(in % ((long)np * blk) / blk);
        int k = (int)(in % blk);
        CHECK(all[i] == value(r, b, k, (int)copy), "file byte %ld is %d, expected %d", i,
              all[i], value(r, b, k, (int)copy));
    }
    free(all);
    free(mine);
    free(back);
    free(b2);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    for (int exchange = 1; exchange >= 0; exchange--) {
        run(24, exchange);
        run(1500, exchange);
    }
    io_done();
    MPI_Finalize();
    return 0;
}

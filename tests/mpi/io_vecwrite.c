/* mempi-test: np=1,2,3,5 timeout=180 */
/* io_vecwrite.c -- two-phase collective writes whose windows the aggregators write straight
 * from their own data and the data received (pwritev).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank owns blocks of BLK bytes, rank r blocks r, r + np, ... (an interleaved view with
 * no holes), and writes them collectively with buffering forced on.  The hint sets make many
 * rounds (windows of a few blocks), windows that cut blocks (pieces of every size, so some
 * windows take the copying path and some the vector), one aggregator, the default number
 * (on one host one per core) and one per rank, blocking,
 * nonblocking (MPI_File_iwrite_all, tested while the ranks exchange messages) and split
 * collective writes, and views whose blocks overlap (the aggregator must fall back to its
 * copy: no byte may be written twice or shifted); and _ordered writes and reads through a
 * view with holes, buffered and not, with a rank whose call is bad.  After each access every rank reads the
 * whole file independently and checks every byte: the owner's pattern of that pass, so a
 * piece written twice, shifted or from the wrong place in a receive buffer shows.
 */
#include "io_common.h"

enum { NB = 48 };                     /* blocks per rank */
static int me, np;

static unsigned char value(long off, int pass, int owner)
{
    return (unsigned char)((off * 7 + owner * 13 + pass * 29) & 0xff);
}

/* The filetype: one block of blk bytes every `every` blocks. */
static MPI_Datatype strided(long blk, int every)
{
    MPI_Datatype b, ft;
    MPI_Type_contiguous((int)blk, MPI_BYTE, &b);
    MPI_Type_create_resized(b, 0, (MPI_Aint)blk * every, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&b);
    return ft;
}

/* Writes my NB blocks of pass `pass` (how: 0 blocking, 1 nonblocking, 2 split). */
static void write_blocks(MPI_File fh, long blk, int pass, int how)
{
    size_t n = (size_t)blk * NB;
    unsigned char *buf = malloc(n);
    for (long b = 0; b < NB; b++) {
        long at = (b * np + me) * blk;
        for (long k = 0; k < blk; k++)
            buf[b * blk + k] = value(at + k, pass, me);
    }
    MPI_Status st;
    int count = -1;
    if (how == 0) {
        CHECK_MPI(MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_BYTE, &st));
    } else if (how == 1) {
        MPI_Request r;
        int done = 0, token = me, got = -1;
        CHECK_MPI(MPI_File_iwrite_at_all(fh, 0, buf, (int)n, MPI_BYTE, &r));
        /* the access progresses inside other MPI calls */
        CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % np, 5, &got, 1, MPI_INT,
                               (me + np - 1) % np, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == (me + np - 1) % np, "token %d", got);
        while (!done)
            CHECK_MPI(MPI_Test(&r, &done, &st));
    } else {
        CHECK_MPI(MPI_File_write_at_all_begin(fh, 0, buf, (int)n, MPI_BYTE));
        CHECK_MPI(MPI_File_write_at_all_end(fh, buf, &st));
    }
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)n, "pass %d: count %d, expected %zu", pass, count, n);
    free(buf);
}

/* Every byte of the file holds the pass's value of its owner (owner_of). */
static void check_file(MPI_File fh, long size, int pass, int (*owner_of)(long off, long blk),
                       long blk, const char *name)
{
    unsigned char *all = malloc((size_t)size + 1);
    MPI_Status st;
    int n;
    CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)size + 1, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == (int)size, "%s pass %d: file holds %d bytes, expected %ld", name, pass, n, size);
    for (long i = 0; i < size; i++) {
        int o = owner_of(i, blk);
        CHECK(all[i] == value(i, pass, o), "%s pass %d: byte %ld is %d, expected %d (rank %d)",
              name, pass, i, all[i], value(i, pass, o), o);
    }
    free(all);
}

static int interleaved_owner(long off, long blk) { return (int)(off / blk % np); }

/* Interleaved blocks of blk bytes under the hints, in three passes (blocking, nonblocking,
 * split). */
static void run(const char *name, long blk, const char *cb_buffer, const char *cb_nodes)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    if (cb_buffer)
        MPI_Info_set(info, "cb_buffer_size", cb_buffer);
    if (cb_nodes)
        MPI_Info_set(info, "cb_nodes", cb_nodes);
    MPI_File fh = io_create(name, info);
    MPI_Datatype ft = strided(blk, np);
    for (int pass = 0; pass < 3; pass++) {
        CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * blk, MPI_BYTE, ft, "native", info));
        write_blocks(fh, blk, pass, pass);
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info));
        MPI_Barrier(MPI_COMM_WORLD);
        check_file(fh, blk * NB * np, pass, interleaved_owner, blk, name);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_close(&fh));
}

/* Overlapping views: rank r's blocks start r * blk / 2 into the file, blk bytes every
 * blk / 2 * np ... so neighbours' blocks overlap by half.  Each byte must hold the value
 * some writer gave it (which one the standard leaves open), and the bytes no block covers
 * beyond the last one stay unwritten. */
static void overlapping(void)
{
    long blk = 8192, step = blk / 2;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "65536");
    MPI_File fh = io_create("overlap", info);
    MPI_Datatype b, ft;
    MPI_Type_contiguous((int)blk, MPI_BYTE, &b);
    MPI_Type_create_resized(b, 0, (MPI_Aint)step * np, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&b);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * step, MPI_BYTE, ft, "native", info));
    size_t n = (size_t)blk * NB;
    unsigned char *buf = malloc(n);
    for (long k = 0; k < NB; k++)
        for (long j = 0; j < blk; j++) {
            long at = k * step * np + me * step + j;
            buf[k * blk + j] = value(at, 7, me);
        }
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)n, "overlap: count %d", count);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info));
    MPI_Barrier(MPI_COMM_WORLD);
    long size = (NB - 1) * step * np + (np - 1) * step + blk;
    unsigned char *all = malloc((size_t)size + 1);
    CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)size + 1, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int)size, "overlap: file holds %d bytes, expected %ld", count, size);
    for (long i = 0; i < size; i++) {
        int ok = 0;
        /* the writers covering i: rank r, block k with k*step*np + r*step <= i < ... + blk */
        for (int r = 0; r < np && !ok; r++)
            for (long k = 0; k < NB && !ok; k++) {
                long at = k * step * np + r * step;
                ok = i >= at && i < at + blk && all[i] == value(i, 7, r);
            }
        CHECK(ok, "overlap: byte %ld is %d, which no writer gave it", i, all[i]);
    }
    free(all);
    free(buf);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_close(&fh));
}

/* _ordered through a common view with holes (blocks of blk bytes every 2 blk), with
 * buffering forced on and off: rank r's blocks are stream blocks r*NB ... (r+1)*NB - 1, i.e.
 * file blocks 2 (r*NB + k); the odd blocks stay zero.  Read back with read_ordered.  A second
 * pass, through the view shifted by one block, fills the odd blocks (the aggregators'
 * read-modify-write must keep the even ones); before it the ranks make an ordered call in
 * which the last one writes 3 bytes, no whole number of the view's 4-byte etypes (the others
 * nothing): it gets an error, nobody waits for it for ever, and the file works on. */
static void ordered(const char *cb)
{
    long blk = 4096;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    MPI_Info_set(info, "cb_buffer_size", "65536");
    char name[32];
    snprintf(name, sizeof name, "ordered-%s", cb);
    MPI_File fh = io_create(name, info);
    MPI_Datatype ft = strided(blk, 2);
    size_t n = (size_t)blk * NB;
    unsigned char *buf = malloc(n), *back = malloc(n);
    for (int pass = 0; pass < 2; pass++) {
        for (long k = 0; k < NB; k++)
            for (long j = 0; j < blk; j++)
                buf[k * blk + j] = value((2 * ((long)me * NB + k) + pass) * blk + j, pass, me);
        if (pass == 1 && np > 1) {    /* the last rank's call is bad: 3 bytes of 4-byte etypes */
            CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", info));
            int err = MPI_File_write_ordered(fh, buf, me == np - 1 ? 3 : 0, MPI_BYTE,
                                             MPI_STATUS_IGNORE);
            CHECK(me != np - 1 || err != MPI_SUCCESS, "a bad ordered write succeeded");
        }
        CHECK_MPI(MPI_File_set_view(fh, pass * blk, MPI_BYTE, ft, "native", info));
        MPI_Status st;
        int count;
        CHECK_MPI(MPI_File_write_ordered(fh, buf, (int)n, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n, "ordered %s: count %d", cb, count);
        MPI_Offset at;
        CHECK_MPI(MPI_File_get_position_shared(fh, &at));
        CHECK(at == (MPI_Offset)n * np, "ordered %s: shared pointer at %lld", cb, (long long)at);
        MPI_Barrier(MPI_COMM_WORLD);
        long size = (2 * (long)NB * np - 1 + pass) * blk;
        unsigned char *all = malloc((size_t)size + 1);
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info));
        CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)size + 1, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)size, "ordered %s: file holds %d bytes, expected %ld", cb, count,
              size);
        for (long i = 0; i < size; i++) {
            long b = i / blk;
            int owner = (int)(b / 2 / NB);
            int want = b % 2 ? (pass ? value(i, 1, owner) : 0) : value(i, 0, owner);
            CHECK(all[i] == want, "ordered %s pass %d: byte %ld is %d, expected %d", cb, pass,
                  i, all[i], want);
        }
        free(all);
        CHECK_MPI(MPI_File_set_view(fh, pass * blk, MPI_BYTE, ft, "native", info));
        memset(back, 0, n);
        CHECK_MPI(MPI_File_read_ordered(fh, back, (int)n, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n && memcmp(back, buf, n) == 0, "ordered %s: read back %d bytes, "
              "%s", cb, count, memcmp(back, buf, n) ? "different" : "the same");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(buf);
    free(back);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    run("rounds", 4096, "65536", "1");        /* 16 blocks a window, vectors, many rounds */
    run("cut", 3000, "10000", "2");           /* windows cut blocks: both paths */
    run("aggs", 8192, "1048576", NULL);       /* the default aggregators, few rounds */
    char v[16];
    snprintf(v, sizeof v, "%d", np);
    run("every", 2048, "20480", v);           /* every rank an aggregator */
    if (np > 1)                               /* one rank's tiles cannot overlap */
        overlapping();
    ordered("enable");
    ordered("disable");
    io_done();
    MPI_Finalize();
    return 0;
}

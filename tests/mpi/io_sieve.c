/* mempi-test: np=1,2,3,5 timeout=180 */
/* io_sieve.c -- data sieving of independent noncontiguous writes by concurrent writers of
 * interleaved views, and the I/O hints reported by MPI_File_get_info.  MemPI, BSD-3-Clause
 * (see LICENSE).
 *
 * The file is a sequence of periods; in each period rank r owns a block of 3 + r bytes, and
 * 2 bytes after every block belong to nobody (they keep rank 0's background).  Every rank but
 * 0 writes its blocks through a view (an hindexed filetype resized to the period) with
 * independent MPI_File_write_at calls, ROUNDS times with new values, concurrently and without
 * synchronization between rounds; rank 0 writes its blocks one by one through the byte view
 * (plain, unsieved writes next to the others' sieved ones).  A sieved write reads and
 * rewrites whole buffers of ind_wr_buffer_size bytes (here 64 or 1000) that hold the other
 * ranks' blocks: without the byte-range lock that every writer takes, a rank's
 * read-modify-write puts back stale bytes over another rank's newer ones, and the final check
 * of every byte fails.  Hints: romio_ds_write = enable, automatic (default), disable; a second
 * file without background checks that sieved writes past the end of the file leave the size at
 * the last byte written and zeros in the gaps.  get_info must report the hints used (and
 * striping_unit and access_style as given).  Passes on MPICH 4.0 (ROMIO) too, with these
 * checks made for MemPI only: ROMIO's unsieved writes take no lock, so a sieving
 * neighbour's read-modify-write can undo them (rank 0 writes through the view there); its
 * sieved writes past the end of the file fill the gaps with stale buffer bytes (the zero
 * check); it does not report access_style.
 */
#include "io_common.h"

enum { PERIODS = 150, ROUNDS = 12, GAP = 2 };
static int me, np;

static long blen(int r) { return 3 + r; }
static long period(void)
{
    long p = 0;
    for (int r = 0; r < np; r++)
        p += blen(r) + GAP;
    return p;
}
static long pre(int r)
{
    long p = 0;
    for (int q = 0; q < r; q++)
        p += blen(q) + GAP;
    return p;
}
static unsigned char value(int round, int r, long k, long j)
{
    return (unsigned char)(1 + (round * 31 + r * 57 + k * 13 + j * 7) % 250);
}
static unsigned char background(long i) { return (unsigned char)(251 + i % 5); }

/* The byte expected at file offset i after the last round; -1: a gap (background or 0). */
static int expected(long i)
{
    long P = period(), k = i / P, in = i % P;
    if (k >= PERIODS)
        return -1;
    for (int r = 0; r < np; r++)
        if (in >= pre(r) && in < pre(r) + blen(r))
            return value(ROUNDS - 1, r, k, in - pre(r));
    return -1;
}

static void write_rounds(MPI_File fh)
{
    long P = period(), n = blen(me) * PERIODS;
    unsigned char *buf = malloc((size_t)n);
    MPI_Datatype ft = MPI_DATATYPE_NULL;
    /* ROMIO's unsieved writes take no lock, so there rank 0 writes through the view too */
    int plain = me == 0 && io_is_mempi();
    if (!plain) {
        MPI_Aint disp = pre(me);
        int len = (int)blen(me);
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_create_hindexed(1, &len, &disp, MPI_BYTE, &t));
        CHECK_MPI(MPI_Type_create_resized(t, 0, P, &ft));
        CHECK_MPI(MPI_Type_commit(&ft));
        MPI_Type_free(&t);
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    } else {
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (long k = 0; k < PERIODS; k++)
            for (long j = 0; j < blen(me); j++)
                buf[k * blen(me) + j] = value(round, me, k, j);
        MPI_Status st;
        int count;
        if (!plain) {
            CHECK_MPI(MPI_File_write_at(fh, 0, buf, (int)n, MPI_BYTE, &st));
            CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == n, "round %d: wrote %d bytes, expected %ld", round, count, n);
        } else {
            for (long k = 0; k < PERIODS; k++) {
                CHECK_MPI(MPI_File_write_at(fh, k * P + pre(0), buf + k * blen(0),
                                            (int)blen(0), MPI_BYTE, &st));
                CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
                CHECK(count == blen(0), "round %d: wrote %d bytes, expected %ld", round,
                      count, blen(0));
            }
        }
    }
    free(buf);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    if (ft != MPI_DATATYPE_NULL)
        MPI_Type_free(&ft);
}

/* Every byte of the file: sync, barrier, sync (MPI 4.0 14.6.1), then read it all. */
static void verify(MPI_File fh, long size, int with_background, const char *what)
{
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Offset got;
    CHECK_MPI(MPI_File_get_size(fh, &got));
    CHECK(got == size, "%s: file size %lld, expected %ld", what, (long long)got, size);
    unsigned char *all = malloc((size_t)size);
    CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)size, MPI_BYTE, MPI_STATUS_IGNORE));
    for (long i = 0; i < size; i++) {
        int e = expected(i);
        int want = e >= 0 ? e : with_background ? background(i) : 0;
        if (e < 0 && !with_background && !io_is_mempi())
            continue;                 /* ROMIO's sieved writes past the end leave garbage */
        EXPECT(all[i] == want, "%s: byte %ld is %d, expected %d (%s)", what, i, all[i], want,
               e >= 0 ? "a block" : "a gap");
        if (check_failures > 10)
            break;
    }
    CHECK(check_failures == 0, "%s: %d wrong bytes", what, check_failures);
    free(all);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static void run(const char *mode, const char *bufsize)
{
    char name[64];
    MPI_Info info;
    MPI_Info_create(&info);
    if (mode)
        MPI_Info_set(info, "romio_ds_write", mode);
    MPI_Info_set(info, "ind_wr_buffer_size", bufsize);
    /* with background: the gaps must keep it */
    snprintf(name, sizeof name, "bg_%s_%s", mode ? mode : "auto", bufsize);
    MPI_File fh = io_create(name, info);
    long size = period() * PERIODS + 9;
    io_fill_background(fh, size, background);
    write_rounds(fh);
    verify(fh, size, 1, name);
    CHECK_MPI(MPI_File_close(&fh));
    /* a new file: its size is the end of the last block, the gaps read as zeros */
    snprintf(name, sizeof name, "new_%s_%s", mode ? mode : "auto", bufsize);
    fh = io_create(name, info);
    write_rounds(fh);
    long last = (PERIODS - 1) * period() + pre(np - 1) + blen(np - 1);
    verify(fh, last, 0, name);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
}

static void info_is(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, want) == 0, "get_info: %s is '%s', expected '%s'", key,
          flag ? v : "(absent)", want);
}

static void hints(void)
{
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "enable");
    MPI_Info_set(info, "ind_wr_buffer_size", "1000");
    MPI_Info_set(info, "striping_unit", "4096");
    MPI_Info_set(info, "access_style", "write_mostly,sequential");
    MPI_File fh = io_create("hints", info);
    CHECK_MPI(MPI_File_get_info(fh, &got));
    info_is(got, "romio_ds_write", "enable");
    info_is(got, "ind_wr_buffer_size", "1000");
    info_is(got, "striping_unit", "4096");
    MPI_Info_free(&got);
    if (io_is_mempi()) {          /* ROMIO drops access_style */
        CHECK_MPI(MPI_File_get_info(fh, &got));
        info_is(got, "access_style", "write_mostly,sequential");
        MPI_Info_free(&got);
        /* the values MemPI uses for hints that were not given */
        MPI_File_set_info(fh, info);
        CHECK_MPI(MPI_File_get_info(fh, &got));
        info_is(got, "romio_ds_read", "automatic");
        info_is(got, "cb_buffer_size", "16777216");
        MPI_Info_free(&got);
        MPI_Info_set(info, "romio_ds_write", "disable");
        CHECK_MPI(MPI_File_set_info(fh, info));
        CHECK_MPI(MPI_File_get_info(fh, &got));
        info_is(got, "romio_ds_write", "disable");
        MPI_Info_free(&got);
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    run("enable", "64");
    run("enable", "1000");
    run(NULL, "64");
    run("disable", "64");
    hints();
    io_done();
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=180 */
/* mempi-test: np=1,2,3,5 timeout=180 env=IO_DIRECT_BIG=65536 */
/* io_direct.c -- collective accesses that each rank does on its own (a group on one host),
 * next to a sieving writer of another file handle.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The file is a sequence of periods; in each period every rank of the group G (ranks 1..np-1
 * from 3 ranks on, else all) owns a block of BIG bytes, and rank 0 -- from 3 ranks on, not in
 * G -- owns SMALL bytes after them.  G writes its blocks through an interleaved view, ROUNDS
 * times with new values, with MPI_File_write_at_all and MPI_File_iwrite_at_all in turn;
 * meanwhile rank 0, through a file handle of its own (MPI_COMM_SELF) with romio_ds_write =
 * enable and an ind_wr_buffer_size that holds the whole file, keeps writing its small pieces
 * with sieved independent writes until G's last round is done: each read-modify-write
 * rewrites all of G's bytes.  Blocks are BIG = 3000 bytes, or $IO_DIRECT_BIG (the second
 * variant: 64 KiB).  On one host G's ranks write blocks of 64 KiB and more themselves (one
 * pwrite each, in the caller or the I/O thread) under a shared byte-range lock that excludes
 * the sieving writer's exclusive one; smaller blocks go through an aggregator, whose span
 * write holds an exclusive lock.  Without the locks a read-modify-write puts back G's bytes
 * of an older round, which G's reading back its blocks after every round, or the final check
 * of every byte, finds.  Then G reads its blocks with MPI_File_read_at_all (every byte and the
 * count checked), and three blocks a rank reaching past the end of the file (the count is
 * what lies below it).  Passes on MPICH 4.0 (ROMIO) too, with two parts made for MemPI only:
 * ROMIO's collective writes take no byte-range lock, so there the sieving writer starts only
 * after G's last round (concurrently it undoes whole rounds of G's writes), and it counts the
 * whole request of a collective read past the end of the file.
 */
#include "io_common.h"

enum { ROUNDS = 100, SMALL = 8, GROUP_BYTES = 180000 };
static int me, np;
static int BIG = 3000, PERIODS = 60;  /* PERIODS: GROUP_BYTES of blocks per rank, 4 or more */

static unsigned char value(int round, int r, long k, long j)
{
    return (unsigned char)(1 + (round * 31 + r * 57 + k * 13 + j * 7) % 250);
}

/* G's ranks 0..ng-1 (world ranks), then rank 0's small piece when it is apart */
static int ng, apart;
static long period(void) { return (long)ng * BIG + (apart ? SMALL : 0); }
static long rank_off(int g) { return (long)g * BIG; }

/* A view of len bytes at disp of every period */
static MPI_Datatype view_of(MPI_Aint disp, int len)
{
    MPI_Datatype t, ft;
    CHECK_MPI(MPI_Type_create_hindexed(1, &len, &disp, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_create_resized(t, 0, period(), &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_Type_free(&t);
    return ft;
}

static void group_rounds(MPI_Comm g, int gi, const char *path)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(g, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype ft = view_of(rank_off(gi), BIG);   /* block gi of every period */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    long n = (long)BIG * PERIODS;
    unsigned char *buf = malloc((size_t)n), *back = malloc((size_t)n);
    MPI_Status st;
    int count;
    for (int round = 0; round < ROUNDS; round++) {
        for (long k = 0; k < PERIODS; k++)
            for (long j = 0; j < BIG; j++)
                buf[k * BIG + j] = value(round, gi + apart, k, j);
        if (round % 2) {              /* the nonblocking form (the I/O thread's) */
            MPI_Request r;
            CHECK_MPI(MPI_File_iwrite_at_all(fh, 0, buf, (int)n, MPI_BYTE, &r));
            CHECK_MPI(MPI_Wait(&r, &st));
        } else {
            CHECK_MPI(MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_BYTE, &st));
        }
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == n, "round %d: wrote %d bytes, expected %ld", round, count, n);
        /* my own bytes, at once: nobody else writes them */
        CHECK_MPI(MPI_File_read_at(fh, 0, back, (int)n, MPI_BYTE, &st));
        for (long i = 0; i < n; i++)
            EXPECT(back[i] == buf[i], "round %d: byte %ld of my blocks is %d after my write, "
                   "expected %d", round, i, back[i], buf[i]);
        CHECK(check_failures == 0, "round %d: %d wrong bytes", round, check_failures);
    }
    if (apart && gi == 0)             /* the sieving writer may stop */
        CHECK_MPI(MPI_Send(&gi, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
    memset(back, 0, (size_t)n);
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, (int)n, MPI_BYTE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == n, "read_at_all: %d bytes, expected %ld", count, n);
    CHECK(memcmp(back, buf, (size_t)n) == 0, "read_at_all: data differs");
    /* three blocks from period PERIODS - 2 on: the third lies past the end of the file */
    memset(back, 0, (size_t)n);
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)BIG * (PERIODS - 2), back, 3 * BIG,
                                   MPI_BYTE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 2 * BIG || !io_is_mempi(), "read_at_all past the end: %d bytes, expected %d",
          count, 2 * BIG);
    CHECK(memcmp(back, buf + (long)BIG * (PERIODS - 2), 2 * BIG) == 0,
          "read_at_all past the end: data differs");
    free(buf);
    free(back);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
}

static void sieving_rounds(const char *path)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "enable");
    char whole[32];
    snprintf(whole, sizeof whole, "%ld", period() * PERIODS);
    MPI_Info_set(info, "ind_wr_buffer_size", whole);       /* the whole file */
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    MPI_Datatype ft = view_of((MPI_Aint)ng * BIG, SMALL);   /* after G's blocks */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    long n = (long)SMALL * PERIODS;
    unsigned char *buf = malloc((size_t)n);
    for (long k = 0; k < PERIODS; k++)
        for (long j = 0; j < SMALL; j++)
            buf[k * SMALL + j] = value(ROUNDS - 1, 0, k, j);
    /* until G has finished its last round: every G write falls during one of my
     * read-modify-writes of the whole file */
    MPI_Request done;
    int flag = 0, w;
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &done));
    if (!io_is_mempi())
        CHECK_MPI(MPI_Wait(&done, MPI_STATUS_IGNORE));
    for (int round = 0; round == 0 || !flag; round++) {
        MPI_Status st;
        int count;
        CHECK_MPI(MPI_File_write_at(fh, 0, buf, (int)n, MPI_BYTE, &st));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == n, "sieved round %d: wrote %d bytes, expected %ld", round, count, n);
        if (done != MPI_REQUEST_NULL)
            CHECK_MPI(MPI_Test(&done, &flag, MPI_STATUS_IGNORE));
        else
            flag = 1;
    }
    free(buf);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    const char *big = getenv("IO_DIRECT_BIG");
    if (big && atoi(big) > 0)
        BIG = atoi(big);
    PERIODS = GROUP_BYTES / BIG < 4 ? 4 : GROUP_BYTES / BIG;
    apart = np >= 3;
    ng = apart ? np - 1 : np;
    const char *path = io_path("direct");
    long size = period() * PERIODS;
    if (me == 0) {                    /* the file exists, zeros, before anyone writes */
        MPI_File fh;
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                                MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_set_size(fh, apart ? size : 0));
        CHECK_MPI(MPI_File_close(&fh));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Comm g;
    int in_g = !apart || me > 0;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in_g ? 0 : MPI_UNDEFINED, me, &g));
    if (in_g) {
        int gi;
        MPI_Comm_rank(g, &gi);
        group_rounds(g, gi, path);
        MPI_Comm_free(&g);
    } else {
        sieving_rounds(path);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {                    /* every byte */
        unsigned char *all = malloc((size_t)size);
        FILE *fp = fopen(path, "rb");
        CHECK(fp != NULL, "cannot open %s", path);
        CHECK(fread(all, 1, (size_t)size, fp) == (size_t)size, "short file");
        CHECK(fgetc(fp) == EOF, "the file is longer than %ld bytes", size);
        fclose(fp);
        for (long i = 0; i < size; i++) {
            long k = i / period(), in = i % period();
            int want = in < (long)ng * BIG
                           ? value(ROUNDS - 1, (int)(in / BIG) + apart, k, in % BIG)
                           : value(ROUNDS - 1, 0, k, in - (long)ng * BIG);
            EXPECT(all[i] == want, "byte %ld (period %ld, %s) is %d, expected %d", i, k,
                   in < (long)ng * BIG ? "a group block" : "rank 0's piece", all[i], want);
            if (check_failures > 10)
                break;
        }
        CHECK(check_failures == 0, "%d wrong bytes", check_failures);
        free(all);
    }
    io_done();
    MPI_Finalize();
    return 0;
}

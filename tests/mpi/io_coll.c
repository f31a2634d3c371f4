/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_coll.c -- collective reads and writes under collective-buffering hints: small buffers
 * (many rounds), several aggregators, and buffering disabled.  MemPI, BSD-3-Clause (see
 * LICENSE).
 *
 * The file is first filled with a background pattern; then every rank writes, collectively
 * through a strided view, blocks of its own bytes with holes between them and between ranks.
 * Every byte of the file is checked: written blocks hold the writer's pattern, holes still
 * hold the background (an aggregator's read-modify-write must not lose them).  The data is
 * read back collectively through the same view, and a collective read that runs past the end
 * of the file must count only the bytes that exist.  Five hint sets: none; cb_buffer_size=64
 * with cb_nodes=2 (many rounds, two aggregators); cb_buffer_size=100 with cb_nodes = the
 * group size; striping_unit=24 with cb_nodes=2 and cb_buffer_size=50 (file domains and
 * windows aligned to 24 bytes); romio_cb_write/romio_cb_read=disable; and with blocks of
 * 1500 bytes and no hints, whose collective reads on one host each rank does alone.
 */
#include "io_common.h"

enum { GAP = 3, NBLK = 40 };
static int me, np, blk = 5;   /* bytes per block */

static unsigned char background(long i) { return (unsigned char)(i % 251); }
/* the byte at file offset i if some rank wrote it, else -1 */
static int written(long i)
{
    long stride = (long)np * (blk + GAP), in = i % stride, b = i / stride;
    int r = (int)(in / (blk + GAP));
    if (b >= NBLK || in % (blk + GAP) >= blk)
        return -1;
    return (r * 37 + (int)b * 11 + (int)(in % (blk + GAP))) & 0xff;
}

static void run(MPI_Info info, const char *name)
{
    long size = (long)np * (blk + GAP) * NBLK + 17;
    MPI_File fh = io_create(name, info);
    io_fill_background(fh, size, background);
    MPI_Datatype vec, ft;
    MPI_Type_vector(NBLK, blk, np * (blk + GAP), MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)np * (blk + GAP) * NBLK, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * (blk + GAP), MPI_BYTE, ft, "native", info));
    unsigned char *mine = malloc((size_t)blk * NBLK), *back = malloc((size_t)blk * NBLK + 8);
    for (int b = 0; b < NBLK; b++)
        for (int k = 0; k < blk; k++)
            mine[b * blk + k] = (unsigned char)((me * 37 + b * 11 + k) & 0xff);
    MPI_Status st;
    int n;
    CHECK_MPI(MPI_File_write_all(fh, mine, blk * NBLK, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == blk * NBLK, "%s: write_all count %d", name, n);
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    /* every byte, with the default view */
    unsigned char *all = malloc((size_t)size);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info));
    CHECK_MPI(MPI_File_read_at_all(fh, 0, all, (int)size, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == size, "%s: read_at_all of the whole file got %d of %ld bytes", name, n, size);
    for (long i = 0; i < size; i++) {
        int w = written(i);
        CHECK(all[i] == (w >= 0 ? w : background(i)), "%s: byte %ld is %d, expected %d (%s)",
              name, i, all[i], w >= 0 ? w : background(i), w >= 0 ? "written" : "a hole");
    }
    free(all);
    /* back through the view, collectively; 8 bytes more than there are for the last rank */
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * (blk + GAP), MPI_BYTE, ft, "native", info));
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, blk * NBLK, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == blk * NBLK && memcmp(back, mine, (size_t)blk * NBLK) == 0, "%s: read back through "
          "the view: %d bytes, %s", name, n, n == blk * NBLK ? "data differs" : "short");
    /* past the end: count the bytes of stream range [blk*NBLK-2, +10) that lie below the
     * end of the file, up to the first that does not */
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)blk * NBLK - 2, back, 10, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &n);
    long want = 0;
    for (long s = blk * NBLK - 2; s < blk * NBLK + 8; s++, want++) {
        long off = (long)me * (blk + GAP) + s / (blk * NBLK) * (long)np * (blk + GAP) * NBLK +
                   (s % (blk * NBLK)) / blk * (long)np * (blk + GAP) + s % blk;
        if (off >= size)
            break;
    }
    /* MPICH 4.0's ROMIO counts the whole request of a collective read */
    CHECK(n == want || (!io_is_mempi() && n == 10),
          "%s: read past the end: %d bytes, expected %ld", name, n, want);
    MPI_Type_free(&ft);
    free(mine);
    free(back);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    run(MPI_INFO_NULL, "default");
    MPI_Info info;
    char v[16];
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "64");
    MPI_Info_set(info, "cb_nodes", "2");
    run(info, "small");
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "100");
    snprintf(v, sizeof v, "%d", np);
    MPI_Info_set(info, "cb_nodes", v);
    run(info, "many");
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "striping_unit", "24");
    MPI_Info_set(info, "cb_nodes", "2");
    MPI_Info_set(info, "cb_buffer_size", "50");
    run(info, "striped");
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    run(info, "off");
    MPI_Info_free(&info);
    blk = 1500;                       /* large pieces: on one host reads go direct (coll.c) */
    run(MPI_INFO_NULL, "large");
    io_done();
    MPI_Finalize();
    return 0;
}

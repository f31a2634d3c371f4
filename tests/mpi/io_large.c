/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_large.c -- a sparse file beyond 2 GiB and 4 GiB: offsets, sizes, views, pointers.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Little data at large offsets, so the test is fast and the file stays sparse: every rank
 * writes a block across 2^31 and one across 2^32 with explicit offsets (independent), then a
 * collective write through an interleaved view whose displacement is beyond 2^33, then a
 * shared-pointer write in rank order from beyond 2^32 etypes of ints (2^34 bytes).  The size
 * must be the end of the last byte written; every block reads back, the holes read as zeros;
 * MPI_File_get_byte_offset and MPI_File_get_position count past 32 bits; set_size grows the
 * file and a read at its end counts what exists; MPI_File_seek_shared refuses targets that
 * differ only above bit 31 (MemPI only; MPICH 4.0 passes the rest).
 */
#include "io_common.h"
#include <stdint.h>

enum { B = 16 };                      /* ints per block */
static int me, np;
static const MPI_Offset G2 = (MPI_Offset)1 << 31, G4 = (MPI_Offset)1 << 32,
                        G8 = (MPI_Offset)1 << 33;

static int value(int blk, int r, int i) { return blk * 1000000 + r * 1000 + i + 1; }

static void check_block(MPI_File fh, MPI_Offset off, int blk, int r, const char *what)
{
    int got[B];
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_read_at(fh, off, got, B, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == B, "%s: read %d ints at %lld", what, count, (long long)off);
    for (int i = 0; i < B; i++)
        CHECK(got[i] == value(blk, r, i), "%s: int %d at %lld is %d, expected %d", what, i,
              (long long)off, got[i], value(blk, r, i));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    MPI_File fh = io_create("large", MPI_INFO_NULL);
    int v[B];
    MPI_Offset at2 = G2 - 32 + (MPI_Offset)me * 128, at4 = G4 - 8 + (MPI_Offset)me * 128;
    for (int i = 0; i < B; i++)
        v[i] = value(0, me, i);
    CHECK_MPI(MPI_File_write_at(fh, at2, v, B, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < B; i++)
        v[i] = value(1, me, i);
    CHECK_MPI(MPI_File_write_at(fh, at4, v, B, MPI_INT, MPI_STATUS_IGNORE));

    /* collective, interleaved: rank r's ints at disp + 4 * (k * np + r) */
    MPI_Datatype one, ft;
    CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &one));
    CHECK_MPI(MPI_Type_create_resized(one, 0, (MPI_Aint)(np * sizeof(int)), &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_Type_free(&one);
    MPI_Offset disp = G8 + 5;
    CHECK_MPI(MPI_File_set_view(fh, disp + (MPI_Offset)me * 4, MPI_INT, ft, "native",
                                MPI_INFO_NULL));
    for (int i = 0; i < B; i++)
        v[i] = value(2, me, i);
    CHECK_MPI(MPI_File_write_at_all(fh, 0, v, B, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Offset byte;
    CHECK_MPI(MPI_File_get_byte_offset(fh, 3, &byte));
    CHECK(byte == disp + (MPI_Offset)me * 4 + 3 * np * 4, "byte offset %lld", (long long)byte);
    int back[B];
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, B, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < B; i++)
        CHECK(back[i] == v[i], "collective read: int %d is %d", i, back[i]);

    /* shared pointer, in rank order, from beyond 2^32 ints */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    /* targets that differ only above bit 31 are different (an erroneous call, after which
     * MPICH 4.0's ROMIO leaves its collectives mismatched: MemPI only) */
    if (np > 1 && io_is_mempi())
        CHECK_CLASS(MPI_File_seek_shared(fh, me == 0 ? G4 + 1 : 1, MPI_SEEK_SET),
                    MPI_ERR_NOT_SAME);
    MPI_Offset sh = G4 + 100;
    CHECK_MPI(MPI_File_seek_shared(fh, sh, MPI_SEEK_SET));
    for (int i = 0; i < B; i++)
        v[i] = value(3, me, i);
    CHECK_MPI(MPI_File_write_ordered(fh, v, B, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == sh + (MPI_Offset)B * np, "shared position %lld, expected %lld",
          (long long)pos, (long long)(sh + (MPI_Offset)B * np));
    CHECK_MPI(MPI_File_seek(fh, G4 + 7, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == G4 + 7, "individual position %lld", (long long)pos);
    CHECK_MPI(MPI_File_get_byte_offset(fh, pos, &byte));
    CHECK(byte == 4 * (G4 + 7), "byte offset %lld", (long long)byte);

    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Offset size, end = 4 * (sh + (MPI_Offset)B * np);
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == end, "size %lld, expected %lld", (long long)size, (long long)end);

    /* everything back through a byte view, every rank checks every rank's blocks */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    for (int r = 0; r < np; r++) {
        check_block(fh, G2 - 32 + (MPI_Offset)r * 128, 0, r, "across 2^31");
        check_block(fh, G4 - 8 + (MPI_Offset)r * 128, 1, r, "across 2^32");
        check_block(fh, 4 * (sh + (MPI_Offset)B * r), 3, r, "ordered");
        for (int i = 0; i < B; i++) {
            int x = -1;
            CHECK_MPI(MPI_File_read_at(fh, disp + 4 * ((MPI_Offset)i * np + r), &x, 1, MPI_INT,
                                       MPI_STATUS_IGNORE));
            CHECK(x == value(2, r, i), "collective block of rank %d: int %d is %d", r, i, x);
        }
    }
    unsigned char hole[256];
    CHECK_MPI(MPI_File_read_at(fh, G4 + 4096, hole, sizeof hole, MPI_BYTE, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < sizeof hole; i++)
        CHECK(hole[i] == 0, "hole byte %zu is %d", i, hole[i]);

    /* set_size beyond 5 GiB; a read at the end counts what exists */
    MPI_Offset big = 5 * ((MPI_Offset)1 << 30) + 3;
    if (big < end)
        big = end + 3;
    CHECK_MPI(MPI_File_set_size(fh, big));
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == big, "size after set_size %lld, expected %lld", (long long)size,
          (long long)big);
    MPI_Status st;
    int count;
    CHECK_MPI(MPI_File_read_at(fh, big - 2, hole, 10, MPI_BYTE, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 2, "read at the end of a %lld-byte file counted %d bytes", (long long)big,
          count);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
    io_done();
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_datarep.c -- "external32" views of types whose external32 size differs from the native
 * one, and user data representations with conversion functions.  MemPI, BSD-3-Clause (see
 * LICENSE).
 *
 * external32 (MPI 4.0 14.5.2): MPI_LONG is 4 bytes big-endian in the file, long double 16
 * (IEEE binary128).  Every rank writes its longs through an interleaved MPI_Type_vector
 * filetype resized to np * 4 bytes (byte arguments are taken as file bytes, MPI 4.0 14.5)
 * -- independently, collectively (two-phase) and nonblocking; the raw bytes of the file
 * are checked through a native byte view (each long as a big-endian int32 at its slot) and
 * read back through the view.  An MPI_Type_create_hvector filetype keeps its byte stride as
 * given (no scaling); a contiguous one counts in elements (4-byte longs in the file).  MPI_File_get_type_extent answers the file extents.  A long double
 * round trip checks the binary128 bytes of 1.5 and -0.25.  Types made by large-count
 * constructors (MPI_Type_vector_c with a stride, MPI_Type_create_indexed_block_c with a
 * displacement beyond INT_MAX elements) scale those by the 4-byte file longs too (sparse
 * file past 2^33 bytes).
 * User representation "wide" (MPI_Register_datarep, and "wide_c" with MPI_Register_datarep_c)
 * stores every int as an 8-byte little-endian integer: its extent function says 8 for
 * MPI_INT, its write conversion widens and its read conversion narrows.  A vector view in it
 * spaces the file elements 8 bytes apart; the file's bytes and the read-back are checked.
 * MemPI only: MPICH 4.0's ROMIO gives MPI_LONG 8 bytes in external32 (the standard's table
 * says 4) and refuses user representations in views.
 */
#include "io_common.h"
#include <stdint.h>

enum { K = 24 };
static int me, np;

static long lval(int k) { return (long)k * 1000003L - 77777L; }   /* fits in 32 bits */

static void be32(const unsigned char *p, long want, const char *what, int k)
{
    uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    CHECK((int32_t)v == (int32_t)want, "%s: long %d is %d in the file, expected %ld", what, k,
          (int32_t)v, want);
}

/* The whole file as bytes (a native byte view), after sync-barrier-sync. */
static unsigned char *file_bytes(MPI_File fh, MPI_Offset *size)
{
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_get_size(fh, size));
    unsigned char *b = malloc((size_t)*size + 1);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_read_at(fh, 0, b, (int)*size, MPI_BYTE, MPI_STATUS_IGNORE));
    return b;
}

static void longs(int mode)
{
    static const char *names[] = { "independent", "collective", "nonblocking" };
    MPI_File fh = io_create(names[mode], MPI_INFO_NULL);
    MPI_Datatype vec, ft;
    CHECK_MPI(MPI_Type_vector(1, 1, np, MPI_LONG, &vec));
    /* resized takes bytes, which stay as given: the file's extent of np longs */
    CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)np * 4, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_Type_free(&vec);
    /* displacement in file bytes: 4 per preceding rank */
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 4, MPI_LONG, ft, "external32",
                                MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == 4, "external32 extent of MPI_LONG is %ld, expected 4", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, ft, &ext));
    CHECK(ext == 4 * np, "external32 extent of the filetype is %ld, expected %d", (long)ext,
          4 * np);
    long v[K];
    for (int i = 0; i < K; i++)
        v[i] = lval(i * np + me);
    MPI_Status st;
    int count;
    if (mode == 0) {
        CHECK_MPI(MPI_File_write_at(fh, 0, v, K, MPI_LONG, &st));
    } else if (mode == 1) {
        CHECK_MPI(MPI_File_write_at_all(fh, 0, v, K, MPI_LONG, &st));
    } else {
        MPI_Request r;
        CHECK_MPI(MPI_File_iwrite_at(fh, 0, v, K, MPI_LONG, &r));
        CHECK_MPI(MPI_Wait(&r, &st));
    }
    CHECK_MPI(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK(count == K, "%s write: count %d", names[mode], count);
    MPI_Offset size;
    unsigned char *b = file_bytes(fh, &size);
    CHECK(size == (MPI_Offset)4 * K * np, "%s: file of %lld bytes, expected %d", names[mode],
          (long long)size, 4 * K * np);
    for (int k = 0; k < K * np; k++)
        be32(b + 4 * k, lval(k), names[mode], k);
    free(b);
    /* back through the view, one more than exists */
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 4, MPI_LONG, ft, "external32",
                                MPI_INFO_NULL));
    long back[K + 1];
    memset(back, 0, sizeof back);
    if (mode == 2) {
        MPI_Request r;
        CHECK_MPI(MPI_File_iread_at(fh, 0, back, K + 1, MPI_LONG, &r));
        CHECK_MPI(MPI_Wait(&r, &st));
    } else if (mode == 1) {
        CHECK_MPI(MPI_File_read_at_all(fh, 0, back, K + 1, MPI_LONG, &st));
    } else {
        CHECK_MPI(MPI_File_read_at(fh, 0, back, K + 1, MPI_LONG, &st));
    }
    CHECK_MPI(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK(count == K, "%s read past the end: count %d, expected %d", names[mode], count, K);
    for (int i = 0; i < K; i++)
        CHECK(back[i] == v[i], "%s read: long %d is %ld, expected %ld", names[mode], i,
              back[i], v[i]);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
}

/* hvector: the byte stride stays 16 in the file, the blocks are 4-byte longs */
static void hvector(void)
{
    char name[32];
    snprintf(name, sizeof name, "hvec%d", me);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, io_path(name), MPI_MODE_RDWR | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh));
    MPI_Datatype ft;
    CHECK_MPI(MPI_Type_create_hvector(3, 1, 16, MPI_LONG, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, ft, "external32", MPI_INFO_NULL));
    long v[3] = { lval(1), lval(2), lval(3) };
    CHECK_MPI(MPI_File_write_at(fh, 0, v, 3, MPI_LONG, MPI_STATUS_IGNORE));
    MPI_Offset size;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == 36, "hvector file of %lld bytes, expected 36", (long long)size);
    unsigned char b[36];
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_read_at(fh, 0, b, 36, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++)
        be32(b + 16 * i, v[i], "hvector", i);
    MPI_Type_free(&ft);
    MPI_Datatype three;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_LONG, &three));
    CHECK_MPI(MPI_Type_commit(&three));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
    MPI_Aint e3;
    CHECK_MPI(MPI_File_get_type_extent(fh, three, &e3));
    CHECK(e3 == 12, "external32 extent of 3 contiguous longs is %ld, expected 12", (long)e3);
    MPI_Type_free(&three);
    /* long double: IEEE binary128, big-endian */
    long double ld[2] = { 1.5L, -0.25L }, ldb[2] = { 0, 0 };
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, "external32",
                                MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG_DOUBLE, &ext));
    CHECK(ext == 16, "external32 extent of MPI_LONG_DOUBLE is %ld", (long)ext);
    CHECK_MPI(MPI_File_write_at(fh, 0, ld, 2, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at(fh, 0, ldb, 2, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
    CHECK(ldb[0] == 1.5L && ldb[1] == -0.25L, "long double round trip: %Lg %Lg", ldb[0],
          ldb[1]);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char q[32];
    CHECK_MPI(MPI_File_read_at(fh, 0, q, 32, MPI_BYTE, MPI_STATUS_IGNORE));
    static const unsigned char want[32] = { 0x3f, 0xff, 0x80, [16] = 0xbf, 0xfd };
    for (int i = 0; i < 32; i++)
        CHECK(q[i] == want[i], "binary128 byte %d is 0x%02x, expected 0x%02x", i, q[i],
              want[i]);
    CHECK_MPI(MPI_File_close(&fh));
}

/* external32 views of types made by large-count constructors (a stride and a displacement
 * beyond INT_MAX elements): the element counts scale with the file extent of MPI_LONG (4
 * bytes), so the second long lands at 4 * 3000000000 bytes, in a sparse file. */
static void large_counts(void)
{
    const MPI_Count far = 3000000000LL;
    char name[32];
    snprintf(name, sizeof name, "large%d", me);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, io_path(name), MPI_MODE_RDWR | MPI_MODE_CREATE |
                            MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_Datatype vec, idx;
    CHECK_MPI(MPI_Type_vector_c(2, 1, far, MPI_LONG, &vec));
    const MPI_Count displs[2] = { 1, far + 1 };
    CHECK_MPI(MPI_Type_create_indexed_block_c(2, 1, displs, MPI_LONG, &idx));
    MPI_Type_commit(&vec);
    MPI_Type_commit(&idx);
    struct { MPI_Datatype t; MPI_Offset first; const char *what; } cases[2] = {
        { vec, 0, "vector_c" }, { idx, 4, "indexed_block_c" } };
    for (int c = 0; c < 2; c++) {
        CHECK_MPI(MPI_File_set_size(fh, 0));
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, cases[c].t, "external32", MPI_INFO_NULL));
        MPI_Aint ext;
        CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
        CHECK(ext == 4, "%s: external32 extent of MPI_LONG %ld", cases[c].what, (long)ext);
        long v[2] = { lval(5 + c), lval(9 + c) }, back[2] = { 0, 0 };
        MPI_Status st;
        int n;
        CHECK_MPI(MPI_File_write_at(fh, 0, v, 2, MPI_LONG, &st));
        MPI_Get_count(&st, MPI_LONG, &n);
        CHECK(n == 2, "%s: wrote %d longs", cases[c].what, n);
        MPI_Offset size, second = cases[c].first + (MPI_Offset)far * 4;
        CHECK_MPI(MPI_File_get_size(fh, &size));
        CHECK(size == second + 4, "%s: file of %lld bytes, expected %lld", cases[c].what,
              (long long)size, (long long)(second + 4));
        CHECK_MPI(MPI_File_read_at(fh, 0, back, 2, MPI_LONG, &st));
        CHECK(back[0] == v[0] && back[1] == v[1], "%s: read back %ld %ld", cases[c].what,
              back[0], back[1]);
        unsigned char b[4];
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        CHECK_MPI(MPI_File_read_at(fh, cases[c].first, b, 4, MPI_BYTE, MPI_STATUS_IGNORE));
        be32(b, v[0], cases[c].what, 0);
        CHECK_MPI(MPI_File_read_at(fh, second, b, 4, MPI_BYTE, MPI_STATUS_IGNORE));
        be32(b, v[1], cases[c].what, 1);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    CHECK_MPI(MPI_File_close(&fh));
}

/* "wide": an int is 8 little-endian bytes in the file */
static int wide_extent(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    MPI_Aint lb;
    MPI_Type_get_extent(type, &lb, extent);
    if (type == MPI_INT)
        *extent = 8;
    return MPI_SUCCESS;
}
static int conversions;
static int wide_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *state)
{
    CHECK(type == MPI_INT, "write conversion called for another type");
    const int *in = (const int *)userbuf + position;
    unsigned char *out = filebuf;
    for (int i = 0; i < count; i++) {
        int64_t w = in[i];
        for (int b = 0; b < 8; b++)
            out[8 * i + b] = (unsigned char)((uint64_t)w >> (8 * b));
    }
    conversions++;
    return MPI_SUCCESS;
}
static int wide_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *state)
{
    CHECK(type == MPI_INT, "read conversion called for another type");
    int *out = (int *)userbuf + position;
    const unsigned char *in = filebuf;
    for (int i = 0; i < count; i++) {
        uint64_t w = 0;
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)in[8 * i + b] << (8 * b);
        out[i] = (int)(int64_t)w;
    }
    conversions++;
    return MPI_SUCCESS;
}
static int wide_write_c(void *u, MPI_Datatype t, MPI_Count c, void *f, MPI_Offset p, void *s)
{
    return wide_write(u, t, (int)c, f, p, s);
}
static int wide_read_c(void *u, MPI_Datatype t, MPI_Count c, void *f, MPI_Offset p, void *s)
{
    return wide_read(u, t, (int)c, f, p, s);
}

static void user_rep(const char *rep)
{
    char name[32];
    snprintf(name, sizeof name, "user-%s", rep);
    MPI_File fh = io_create(name, MPI_INFO_NULL);
    MPI_Datatype vec, ft;
    CHECK_MPI(MPI_Type_vector(1, 1, np, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)np * 8, &ft));
    CHECK_MPI(MPI_Type_commit(&ft));
    MPI_Type_free(&vec);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 8, MPI_INT, ft, rep, MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK(ext == 8, "%s: extent of MPI_INT %ld, expected 8", rep, (long)ext);
    int v[K], back[K];
    for (int i = 0; i < K; i++)
        v[i] = -(i * np + me) * 7919 - 1, back[i] = 0;
    conversions = 0;
    MPI_Status st;
    CHECK_MPI(MPI_File_write_at(fh, 0, v, K, MPI_INT, &st));
    int count;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == K && conversions > 0, "%s write: count %d, %d conversions", rep, count,
          conversions);
    MPI_Offset size;
    unsigned char *b = file_bytes(fh, &size);
    CHECK(size == (MPI_Offset)8 * K * np, "%s: file of %lld bytes", rep, (long long)size);
    for (int k = 0; k < K * np; k++) {
        int64_t w = 0;
        for (int j = 0; j < 8; j++)
            w |= (int64_t)((uint64_t)b[8 * k + j] << (8 * j));
        CHECK(w == -(int64_t)k * 7919 - 1, "%s: file int %d is %lld", rep, k, (long long)w);
    }
    free(b);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 8, MPI_INT, ft, rep, MPI_INFO_NULL));
    conversions = 0;
    CHECK_MPI(MPI_File_read_at(fh, 0, back, K, MPI_INT, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == K && conversions > 0, "%s read: count %d, %d conversions", rep, count,
          conversions);
    for (int i = 0; i < K; i++)
        CHECK(back[i] == v[i], "%s read: int %d is %d, expected %d", rep, i, back[i], v[i]);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    if (!io_is_mempi()) {         /* ROMIO: 8-byte external32 longs, no user representations */
        io_done();
        MPI_Finalize();
        return 0;
    }
    for (int mode = 0; mode < 3; mode++)
        longs(mode);
    hvector();
    large_counts();
    CHECK_MPI(MPI_Register_datarep("wide", wide_read, wide_write, wide_extent, NULL));
    CHECK_MPI(MPI_Register_datarep_c("wide_c", wide_read_c, wide_write_c, wide_extent, NULL));
    user_rep("wide");
    user_rep("wide_c");
    io_done();
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_view.c -- file views with vector and subarray filetypes, noncontiguous memory, view
 * queries, seeks, and view errors.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * 1. Interleaved: rank r's view is a vector of B-int blocks strided P*B ints from r*B ints;
 *    every rank writes NB blocks collectively (write_all), then every rank reads the whole
 *    file with the default view and checks every int (value = global index * 10 + writer).
 * 2. 2-D blocks: a global R x C int array split over a P x 1 grid of row blocks and then by
 *    columns into two halves, written as a subarray filetype with write_at_all from memory
 *    described by a vector type with gaps; read back whole and checked, and read again
 *    through the same view into noncontiguous memory.
 * 3. external32: ints and doubles round trip, and the file holds big-endian bytes.
 * 4. MPI_Register_datarep: duplicates refused, the extent function used.
 * 5. get_view, get_type_extent, get_byte_offset, seek (SET, CUR, END) and get_position on a
 *    view, and the errors: filetype not a whole number of etypes, negative displacement,
 *    unknown data representation.
 */
#include "io_common.h"

static int me, np;

static void check_whole(MPI_File fh, int n, int (*expect)(int))
{
    int *all = malloc(sizeof(int) * (size_t)n);
    MPI_Status st;
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st));
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == n, "read %d of %d ints", got, n);
    for (int i = 0; i < n; i++)
        CHECK(all[i] == expect(i), "int %d is %d, expected %d", i, all[i], expect(i));
    free(all);
}

enum { B = 3, NB = 7 };
static int interleaved(int i) { return i * 10 + (i / B) % np; }

static void test_interleaved(void)
{
    MPI_File fh = io_create("inter", MPI_INFO_NULL);
    MPI_Datatype vec, ft;
    MPI_Type_vector(NB, B, B * np, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * B * np * NB, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * B * me, MPI_INT, ft, "native",
                                MPI_INFO_NULL));
    int buf[B * NB];
    for (int k = 0; k < B * NB; k++) {
        int global = (k / B) * B * np + me * B + k % B;
        buf[k] = global * 10 + me;
    }
    MPI_Status st;
    CHECK_MPI(MPI_File_write_all(fh, buf, B * NB, MPI_INT, &st));
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == B * NB, "write_all count %d", got);
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == B * NB, "position after write_all %lld", (long long)pos);
    /* byte offset of etype 4 of my view: block 1, element 1 */
    MPI_Offset bo;
    CHECK_MPI(MPI_File_get_byte_offset(fh, B + 1, &bo));
    CHECK(bo == (MPI_Offset)sizeof(int) * (B * np + me * B + 1), "byte offset %lld",
          (long long)bo);
    /* view queries */
    MPI_Offset disp;
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    CHECK(disp == (MPI_Offset)sizeof(int) * B * me && et == MPI_INT && strcmp(rep, "native") == 0,
          "get_view: disp %lld rep %s", (long long)disp, rep);
    int tsize;
    MPI_Aint lb, ext;
    MPI_Type_size(ft2, &tsize);
    MPI_Type_get_extent(ft2, &lb, &ext);
    CHECK(tsize == (int)sizeof(int) * B * NB && ext == (MPI_Aint)sizeof(int) * B * np * NB,
          "filetype from get_view: size %d extent %ld", tsize, (long)ext);
    MPI_Type_free(&ft2);
    MPI_Aint fext;
    CHECK_MPI(MPI_File_get_type_extent(fh, ft, &fext));
    CHECK(fext == ext, "get_type_extent %ld", (long)fext);
    /* read my part back through the view, starting with a seek */
    CHECK_MPI(MPI_File_seek(fh, B, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_seek(fh, -1, MPI_SEEK_CUR));
    int back[B * NB];
    memset(back, -1, sizeof back);
    CHECK_MPI(MPI_File_read(fh, back, B * NB - (B - 1), MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == B * NB - (B - 1), "read count %d", got);
    for (int k = 0; k < got; k++)
        CHECK(back[k] == buf[k + B - 1], "read through view: [%d] = %d, expected %d", k,
              back[k], buf[k + B - 1]);
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK(pos == B * NB, "seek to end: position %lld, expected %d", (long long)pos, B * NB);
    MPI_Barrier(MPI_COMM_WORLD);
    check_whole(fh, B * np * NB, interleaved);
    MPI_Type_free(&ft);
    CHECK_MPI(MPI_File_close(&fh));
}

enum { R = 6, C = 8 };
static int grid(int i) { return 1000 + i; }

static void test_subarray(void)
{
    MPI_File fh = io_create("grid", MPI_INFO_NULL);
    int rows = R * np;                      /* R rows per rank, in two column halves */
    for (int half = 0; half < 2; half++) {
        int sizes[2] = { rows, C }, sub[2] = { R, C / 2 }, starts[2] = { R * me, half * C / 2 };
        MPI_Datatype ft, mem;
        MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &ft);
        MPI_Type_commit(&ft);
        /* memory: R rows of C/2 ints, each followed by a gap of 1 int */
        MPI_Type_vector(R, C / 2, C / 2 + 1, MPI_INT, &mem);
        MPI_Type_commit(&mem);
        int buf[R * (C / 2 + 1)];
        for (int i = 0; i < R; i++)
            for (int j = 0; j <= C / 2; j++)
                buf[i * (C / 2 + 1) + j] = j == C / 2 ? -7 :
                    grid((R * me + i) * C + half * C / 2 + j);
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
        MPI_Status st;
        CHECK_MPI(MPI_File_write_at_all(fh, 0, buf, 1, mem, &st));
        int got;
        MPI_Get_count(&st, mem, &got);
        CHECK(got == 1, "write_at_all of one vector: count %d", got);
        MPI_Get_elements(&st, MPI_INT, &got);
        CHECK(got == R * C / 2, "elements %d", got);
        /* read back through the view into noncontiguous memory */
        int back[R * (C / 2 + 1)];
        for (int k = 0; k < R * (C / 2 + 1); k++)
            back[k] = -7;
        CHECK_MPI(MPI_File_read_at_all(fh, 0, back, 1, mem, &st));
        for (int k = 0; k < R * (C / 2 + 1); k++)
            CHECK(back[k] == buf[k], "subarray read back [%d] = %d, expected %d", k, back[k],
                  buf[k]);
        MPI_Type_free(&ft);
        MPI_Type_free(&mem);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_whole(fh, R * np * C, grid);
    CHECK_MPI(MPI_File_close(&fh));
}

/* external32: ints written through an external32 view are big-endian in the file and come
 * back unchanged through the same view; doubles too. */
static void test_external32(void)
{
    MPI_File fh = io_create("ext32", MPI_INFO_NULL);
    enum { E = 16 };
    int v[E], back[E];
    double d[E], dback[E];
    for (int k = 0; k < E; k++) {
        v[k] = 0x01020304 + (me * E + k) * 0x100;
        d[k] = 1.5 * (me * E + k) - 7;
    }
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    CHECK(strcmp(rep, "external32") == 0, "datarep %s", rep);
    CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)me * E, v, E, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)me * E, back, E, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(memcmp(back, v, sizeof v) == 0, "external32 ints did not come back");
    /* the bytes in the file are big-endian */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[4 * E];
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)me * E * 4, raw, 4 * E, MPI_BYTE,
                                   MPI_STATUS_IGNORE));
    for (int k = 0; k < E; k++) {
        unsigned x = (unsigned)raw[4 * k] << 24 | (unsigned)raw[4 * k + 1] << 16 |
                     (unsigned)raw[4 * k + 2] << 8 | raw[4 * k + 3];
        CHECK(x == (unsigned)v[k], "int %d in the file is 0x%x, expected big-endian 0x%x", k, x,
              (unsigned)v[k]);
    }
    /* doubles, at a displacement after the ints */
    MPI_Offset base = (MPI_Offset)np * E * 4;
    CHECK_MPI(MPI_File_set_view(fh, base, MPI_DOUBLE, MPI_DOUBLE, "external32", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)me * E, d, E, MPI_DOUBLE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)me * E, dback, E, MPI_DOUBLE,
                                   MPI_STATUS_IGNORE));
    CHECK(memcmp(dback, d, sizeof d) == 0, "external32 doubles did not come back");
    CHECK_MPI(MPI_File_close(&fh));
}

static int extent_calls;
static int twice_extent(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    MPI_Aint lb;
    extent_calls++;
    MPI_Type_get_extent(type, &lb, extent);
    *extent *= *(int *)state;
    return MPI_SUCCESS;
}

/* a registered representation: a second registration fails MPI_ERR_DUP_DATAREP, and the
 * extent function answers MPI_File_get_type_extent */
static void test_datarep(void)
{
    static int factor = 2;
    CHECK_MPI(MPI_Register_datarep("io-view-rep", MPI_CONVERSION_FN_NULL,
                                   MPI_CONVERSION_FN_NULL, twice_extent, &factor));
    CHECK_CLASS(MPI_Register_datarep("io-view-rep", MPI_CONVERSION_FN_NULL,
                                     MPI_CONVERSION_FN_NULL, twice_extent, &factor),
                MPI_ERR_DUP_DATAREP);
    MPI_File fh = io_create("rep", MPI_INFO_NULL);
    /* MemPI takes a representation without conversion functions in a view; MPICH 4.0's
     * ROMIO refuses every user representation there */
    int err = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "io-view-rep", MPI_INFO_NULL);
    if (io_is_mempi() || err == MPI_SUCCESS) {
        CHECK_MPI(err);
        MPI_Aint e = 0;
        CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &e));
        CHECK(e == 2 * (MPI_Aint)sizeof(int) && extent_calls > 0, "extent %ld from the "
              "representation's function (%d calls)", (long)e, extent_calls);
    } else {
        CHECK(io_class(err) == MPI_ERR_UNSUPPORTED_DATAREP, "set_view with a user "
              "representation failed with class %d", io_class(err));
    }
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_errors(void)
{
    MPI_File fh = io_create("err", MPI_INFO_NULL);
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_BYTE, &three);
    MPI_Type_commit(&three);
    int err = MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL);
    CHECK(err != MPI_SUCCESS, "a filetype of 3 bytes over an int etype was accepted");
    err = MPI_File_set_view(fh, -8, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    CHECK(err != MPI_SUCCESS, "a negative displacement was accepted");
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL),
                MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_Type_free(&three);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    test_interleaved();
    test_subarray();
    test_external32();
    test_datarep();
    test_errors();
    io_done();
    MPI_Finalize();
    return 0;
}

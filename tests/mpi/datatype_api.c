/* mempi-test: np=1,2 timeout=60 */
/* datatype_api.c -- every datatype query function on every constructor.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Checks sizes, extents, true extents, envelopes and contents exactly as the standard
 * defines them, names, MPI_Type_match_size, addresses, MPI_Pack/Unpack (including
 * MPI_PACKED round trips and position arithmetic), external32 byte order, the deprecated
 * MPI-1 functions with MPI_LB/MPI_UB markers, and error reporting with MPI_ERRORS_RETURN.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void extent_is(MPI_Datatype t, MPI_Aint size, MPI_Aint lb, MPI_Aint extent,
                      MPI_Aint tlb, MPI_Aint textent, int line)
{
    int s;
    MPI_Aint l, e, tl, te;
    MPI_Count sx, lx, ex;
    MPI_Type_size(t, &s);
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_get_true_extent(t, &tl, &te);
    MPI_Type_size_x(t, &sx);
    MPI_Type_get_extent_x(t, &lx, &ex);
    EXPECT(s == size && l == lb && e == extent && tl == tlb && te == textent && sx == size &&
           lx == lb && ex == extent,
           "line %d: size %d lb %ld extent %ld true %ld/%ld, expected %ld %ld %ld %ld/%ld",
           line, s, (long)l, (long)e, (long)tl, (long)te, (long)size, (long)lb,
           (long)extent, (long)tlb, (long)textent);
}
#define EXTENT(t, s, l, e, tl, te) extent_is(t, s, l, e, tl, te, __LINE__)

static void envelope_is(MPI_Datatype t, int ni, int na, int nd, int comb, int line)
{
    int a, b, c, d;
    MPI_Type_get_envelope(t, &a, &b, &c, &d);
    EXPECT(a == ni && b == na && c == nd && d == comb,
           "line %d: envelope %d %d %d combiner %d, expected %d %d %d %d", line,
           a, b, c, d, ni, na, nd, comb);
}
#define ENVELOPE(t, ni, na, nd, comb) envelope_is(t, ni, na, nd, comb, __LINE__)

static void check_constructors(void)
{
    MPI_Datatype t, u;
    int ints[32];
    MPI_Aint aints[8];
    MPI_Datatype types[8];

    MPI_Type_contiguous(3, MPI_INT, &t);
    EXTENT(t, 12, 0, 12, 0, 12);
    ENVELOPE(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    MPI_Type_get_contents(t, 1, 0, 1, ints, aints, types);
    EXPECT(ints[0] == 3 && types[0] == MPI_INT, "%s", "ints[0] == 3 && types[0] == MPI_INT");
    MPI_Type_free(&t);
    EXPECT(t == MPI_DATATYPE_NULL, "%s", "t == MPI_DATATYPE_NULL");

    MPI_Type_vector(3, 2, -4, MPI_DOUBLE, &t);
    /* blocks at 0, -32, -64 (elements), each 2 doubles */
    EXTENT(t, 48, -64, 80, -64, 80);
    ENVELOPE(t, 3, 0, 1, MPI_COMBINER_VECTOR);
    MPI_Type_get_contents(t, 3, 0, 1, ints, aints, types);
    EXPECT(ints[0] == 3 && ints[1] == 2 && ints[2] == -4 && types[0] == MPI_DOUBLE,
           "%s", "ints[0] == 3 && ints[1] == 2 && ints[2] == -4 && types[0] == MPI_DOUBLE");
    MPI_Type_free(&t);

    MPI_Type_create_hvector(2, 1, 100, MPI_SHORT, &t);
    EXTENT(t, 4, 0, 102, 0, 102);
    ENVELOPE(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    MPI_Type_get_contents(t, 2, 1, 1, ints, aints, types);
    EXPECT(ints[0] == 2 && ints[1] == 1 && aints[0] == 100 && types[0] == MPI_SHORT,
           "%s", "ints[0] == 2 && ints[1] == 1 && aints[0] == 100 && types[0] == MPI_SHORT");
    MPI_Type_free(&t);

    int bl[3] = { 1, 0, 2 }, di[3] = { 5, 0, -2 };
    MPI_Type_indexed(3, bl, di, MPI_INT, &t);
    EXTENT(t, 12, -8, 32, -8, 32);
    ENVELOPE(t, 7, 0, 1, MPI_COMBINER_INDEXED);
    MPI_Type_get_contents(t, 7, 0, 1, ints, aints, types);
    EXPECT(ints[0] == 3 && ints[1] == 1 && ints[2] == 0 && ints[3] == 2 && ints[4] == 5 &&
          ints[5] == 0 && ints[6] == -2, "%s", "ints[0] == 3 && ints[1] == 1 && ints[2] == 0 && ints[3] == 2 && ints[4] == 5 && ints[5] == 0 && ints[6] == -2");
    MPI_Type_free(&t);

    MPI_Aint da[2] = { 16, 0 };
    int bl2[2] = { 1, 1 };
    MPI_Type_create_hindexed(2, bl2, da, MPI_DOUBLE, &t);
    EXTENT(t, 16, 0, 24, 0, 24);
    ENVELOPE(t, 3, 2, 1, MPI_COMBINER_HINDEXED);
    MPI_Type_get_contents(t, 3, 2, 1, ints, aints, types);
    EXPECT(ints[0] == 2 && aints[0] == 16 && aints[1] == 0,
           "%s", "ints[0] == 2 && aints[0] == 16 && aints[1] == 0");
    MPI_Type_free(&t);

    int dib[3] = { 0, 3, 6 };
    MPI_Type_create_indexed_block(3, 2, dib, MPI_FLOAT, &t);
    EXTENT(t, 24, 0, 32, 0, 32);
    ENVELOPE(t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    MPI_Type_free(&t);

    MPI_Aint dhb[2] = { 0, 40 };
    MPI_Type_create_hindexed_block(2, 3, dhb, MPI_CHAR, &t);
    EXTENT(t, 6, 0, 43, 0, 43);
    ENVELOPE(t, 2, 2, 1, MPI_COMBINER_HINDEXED_BLOCK);
    MPI_Type_free(&t);

    /* struct { char c; double d; } pads to 16 like the C struct */
    int sbl[2] = { 1, 1 };
    MPI_Aint sd[2] = { 0, 8 };
    MPI_Datatype st[2] = { MPI_CHAR, MPI_DOUBLE };
    MPI_Type_create_struct(2, sbl, sd, st, &t);
    EXTENT(t, 9, 0, 16, 0, 16);
    ENVELOPE(t, 3, 2, 2, MPI_COMBINER_STRUCT);
    MPI_Type_get_contents(t, 3, 2, 2, ints, aints, types);
    EXPECT(ints[0] == 2 && ints[1] == 1 && aints[1] == 8 && types[0] == MPI_CHAR &&
          types[1] == MPI_DOUBLE, "%s", "ints[0] == 2 && ints[1] == 1 && aints[1] == 8 && types[0] == MPI_CHAR && types[1] == MPI_DOUBLE");
    /* struct {double; int} = MPI_DOUBLE_INT's layout */
    MPI_Aint sd2[2] = { 0, 8 };
    MPI_Datatype st2[2] = { MPI_DOUBLE, MPI_INT };
    MPI_Type_create_struct(2, sbl, sd2, st2, &u);
    EXTENT(u, 12, 0, 16, 0, 12);
    EXTENT(MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
    MPI_Type_free(&u);

    /* get_contents returns a derived type handle that the caller must free */
    MPI_Type_contiguous(2, t, &u);
    MPI_Type_free(&t);
    MPI_Type_get_contents(u, 1, 0, 1, ints, aints, types);
    EXTENT(types[0], 9, 0, 16, 0, 16);
    MPI_Type_free(&types[0]);
    EXTENT(u, 18, 0, 32, 0, 32);
    MPI_Type_free(&u);

    MPI_Type_create_resized(MPI_INT, -4, 16, &t);
    EXTENT(t, 4, -4, 16, 0, 4);
    ENVELOPE(t, 0, 2, 1, MPI_COMBINER_RESIZED);
    MPI_Type_get_contents(t, 0, 2, 1, ints, aints, types);
    EXPECT(aints[0] == -4 && aints[1] == 16 && types[0] == MPI_INT,
           "%s", "aints[0] == -4 && aints[1] == 16 && types[0] == MPI_INT");
    MPI_Type_dup(t, &u);
    ENVELOPE(u, 0, 0, 1, MPI_COMBINER_DUP);
    EXTENT(u, 4, -4, 16, 0, 4);
    MPI_Type_get_contents(u, 0, 0, 1, ints, aints, types);
    EXTENT(types[0], 4, -4, 16, 0, 4);
    MPI_Type_free(&types[0]);
    MPI_Type_free(&t);
    MPI_Type_free(&u);

    int sizes[2] = { 4, 6 }, subs[2] = { 2, 3 }, starts[2] = { 1, 2 };
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
    /* rows 1-2, columns 2-4 of a 4x6 int array: first at 8, last at 2*6+4 = 16 */
    EXTENT(t, 24, 0, 96, 32, 36);
    ENVELOPE(t, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    MPI_Type_get_contents(t, 8, 0, 1, ints, aints, types);
    EXPECT(ints[0] == 2 && ints[1] == 4 && ints[2] == 6 && ints[3] == 2 && ints[4] == 3 &&
          ints[5] == 1 && ints[6] == 2 && ints[7] == MPI_ORDER_C, "%s", "ints[0] == 2 && ints[1] == 4 && ints[2] == 6 && ints[3] == 2 && ints[4] == 3 && ints[5] == 1 && ints[6] == 2 && ints[7] == MPI_ORDER_C");
    MPI_Type_free(&t);

    int gs[2] = { 4, 4 }, dist[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
    int dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, 1 }, ps[2] = { 2, 2 };
    MPI_Type_create_darray(4, 3, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t);
    /* rank 3 = coords (1,1): rows 2-3, columns 1 and 3 */
    EXTENT(t, 16, 0, 64, 36, 28);
    ENVELOPE(t, 12, 0, 1, MPI_COMBINER_DARRAY);
    {
        int a[16], out[4], pos = 0;
        for (int i = 0; i < 16; i++)
            a[i] = i;
        MPI_Type_commit(&t);
        MPI_Pack(a, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD);
        EXPECT(pos == 16 && out[0] == 9 && out[1] == 11 && out[2] == 13 && out[3] == 15,
               "%s", "pos == 16 && out[0] == 9 && out[1] == 11 && out[2] == 13 && out[3] == 15");
    }
    MPI_Type_free(&t);

    ENVELOPE(MPI_INT, 0, 0, 0, MPI_COMBINER_NAMED);
    ENVELOPE(MPI_DOUBLE_INT, 0, 0, 0, MPI_COMBINER_NAMED);
}

static void check_deprecated(void)
{
    /* MPI-1: struct with MPI_LB and MPI_UB markers */
    int bl[3] = { 1, 1, 1 };
    MPI_Aint d[3] = { -8, 0, 24 };
    MPI_Datatype ty[3] = { MPI_LB, MPI_INT, MPI_UB }, t, v;
    MPI_Aint ext, lb, ub, addr1, addr2;
    MPI_Type_struct(3, bl, d, ty, &t);
    MPI_Type_extent(t, &ext);
    MPI_Type_lb(t, &lb);
    MPI_Type_ub(t, &ub);
    EXPECT(ext == 32 && lb == -8 && ub == 24, "%s", "ext == 32 && lb == -8 && ub == 24");
    /* markers are sticky through further constructors */
    MPI_Type_contiguous(2, t, &v);
    MPI_Type_lb(v, &lb);
    MPI_Type_ub(v, &ub);
    EXPECT(lb == -8 && ub == 56, "%s", "lb == -8 && ub == 56");
    MPI_Type_free(&v);
    MPI_Type_hvector(2, 1, 64, t, &v);
    MPI_Type_extent(v, &ext);
    EXPECT(ext == 96, "%s", "ext == 96");
    MPI_Type_free(&v);
    int hb[1] = { 2 };
    MPI_Aint hd[1] = { 4 };
    MPI_Type_hindexed(1, hb, hd, MPI_INT, &v);
    MPI_Type_extent(v, &ext);
    EXPECT(ext == 8, "%s", "ext == 8");
    MPI_Type_free(&v);
    MPI_Type_free(&t);

    double x[4];
    MPI_Address(&x[0], &addr1);
    MPI_Get_address(&x[3], &addr2);
    EXPECT(MPI_Aint_diff(addr2, addr1) == 24, "%s", "MPI_Aint_diff(addr2, addr1) == 24");
    EXPECT(MPI_Aint_add(addr1, 24) == addr2, "%s", "MPI_Aint_add(addr1, 24) == addr2");
}

static void check_names_and_match(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    EXPECT(strcmp(name, "MPI_DOUBLE") == 0 && len == 10,
           "%s", "strcmp(name, \"MPI_DOUBLE\") == 0 && len == 10");
    MPI_Type_get_name(MPI_2INT, name, &len);
    EXPECT(strcmp(name, "MPI_2INT") == 0, "%s", "strcmp(name, \"MPI_2INT\") == 0");
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_get_name(t, name, &len);
    EXPECT(len == 0 && name[0] == 0, "%s", "len == 0 && name[0] == 0");
    MPI_Type_set_name(t, "pair of ints");
    MPI_Type_get_name(t, name, &len);
    EXPECT(strcmp(name, "pair of ints") == 0 && len == 12,
           "%s", "strcmp(name, \"pair of ints\") == 0 && len == 12");
    MPI_Type_free(&t);

    MPI_Datatype m;
    int s;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
    MPI_Type_size(m, &s);
    EXPECT(s == 8, "%s", "s == 8");
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m);
    MPI_Type_size(m, &s);
    EXPECT(s == 4, "%s", "s == 4");
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m);
    MPI_Type_size(m, &s);
    EXPECT(s == 16, "%s", "s == 16");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m) != MPI_SUCCESS,
           "%s", "MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m) != MPI_SUCCESS");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* a few predefined sizes */
    MPI_Type_size(MPI_C_DOUBLE_COMPLEX, &s);
    EXPECT(s == 16, "%s", "s == 16");
    MPI_Type_size(MPI_INT64_T, &s);
    EXPECT(s == 8, "%s", "s == 8");
    MPI_Type_size(MPI_SHORT_INT, &s);
    EXPECT(s == 6, "%s", "s == 6");
    MPI_Type_size(MPI_LONG_DOUBLE_INT, &s);
    EXPECT(s == (int)sizeof(long double) + 4, "%s", "s == (int)sizeof(long double) + 4");
}

static void check_pack(void)
{
    MPI_Datatype col;
    double m[4][5];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            m[i][j] = i * 10 + j;
    MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    int psize, pos = 0;
    MPI_Pack_size(2, col, MPI_COMM_WORLD, &psize);
    EXPECT(psize == 64, "%s", "psize == 64");
    char buf[100];
    int header = 77;
    MPI_Pack(&header, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(&m[0][2], 1, col, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    EXPECT(pos == 36, "%s", "pos == 36");
    double out[4];
    int h2, upos = 0;
    MPI_Unpack(buf, pos, &upos, &h2, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(buf, pos, &upos, out, 4, MPI_DOUBLE, MPI_COMM_WORLD);
    EXPECT(h2 == 77 && out[0] == 2 && out[1] == 12 && out[3] == 32 && upos == 36,
           "%s", "h2 == 77 && out[0] == 2 && out[1] == 12 && out[3] == 32 && upos == 36");
    /* unpack into a column of another matrix */
    double z[4][5];
    memset(z, 0, sizeof z);
    upos = 4;
    MPI_Unpack(buf, pos, &upos, &z[0][4], 1, col, MPI_COMM_WORLD);
    EXPECT(z[0][4] == 2 && z[3][4] == 32 && z[3][3] == 0,
           "%s", "z[0][4] == 2 && z[3][4] == 32 && z[3][3] == 0");
    /* too small an output buffer */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pos = 0;
    int err = MPI_Pack(&m[0][0], 1, col, buf, 16, &pos, MPI_COMM_WORLD);
    int cls;
    MPI_Error_class(err, &cls);
    EXPECT(err != MPI_SUCCESS,
           "%s", "err != MPI_SUCCESS");    /* MemPI: MPI_ERR_TRUNCATE; the standard names no class */

    /* external32: big-endian ints and doubles, position is an MPI_Aint */
    int v[2] = { 0x01020304, 5 };
    unsigned char ext[64];
    MPI_Aint epos = 0, esize;
    MPI_Pack_external_size("external32", 2, MPI_INT, &esize);
    EXPECT(esize == 8, "%s", "esize == 8");
    MPI_Pack_external("external32", v, 2, MPI_INT, ext, sizeof ext, &epos);
    EXPECT(epos == 8 && ext[0] == 1 && ext[3] == 4 && ext[7] == 5,
           "%s", "epos == 8 && ext[0] == 1 && ext[3] == 4 && ext[7] == 5");
    MPI_Pack_external("external32", &m[0][1], 1, col, ext, sizeof ext, &epos);
    EXPECT(epos == 40 && ext[8] == 0x3f && ext[9] == 0xf0,
           "%s", "epos == 40 && ext[8] == 0x3f && ext[9] == 0xf0");   /* 1.0 */
    int v2[2];
    double c2[4];
    epos = 0;
    MPI_Unpack_external("external32", ext, 40, &epos, v2, 2, MPI_INT);
    MPI_Unpack_external("external32", ext, 40, &epos, c2, 4, MPI_DOUBLE);
    EXPECT(v2[0] == v[0] && v2[1] == 5 && c2[0] == 1 && c2[3] == 31 && epos == 40,
           "%s", "v2[0] == v[0] && v2[1] == 5 && c2[0] == 1 && c2[3] == 31 && epos == 40");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&col);
}

static void check_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = MPI_INT, u;
    int cls, err;
    err = MPI_Type_free(&t);
    MPI_Error_class(err, &cls);
    EXPECT(err != MPI_SUCCESS && cls == MPI_ERR_TYPE,
           "%s", "err != MPI_SUCCESS && cls == MPI_ERR_TYPE");
    err = MPI_Type_contiguous(-1, MPI_INT, &u);
    MPI_Error_class(err, &cls);
    EXPECT(err != MPI_SUCCESS && cls == MPI_ERR_COUNT,
           "%s", "err != MPI_SUCCESS && cls == MPI_ERR_COUNT");
    err = MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &u);
    MPI_Error_class(err, &cls);
    EXPECT(err != MPI_SUCCESS && cls == MPI_ERR_TYPE,
           "%s", "err != MPI_SUCCESS && cls == MPI_ERR_TYPE");
    /* uncommitted type in communication */
    MPI_Type_contiguous(2, MPI_INT, &u);
    int a[2] = { 1, 2 }, pos = 0;
    char buf[16];
    err = MPI_Pack(a, 1, u, buf, 16, &pos, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    EXPECT(err != MPI_SUCCESS && cls == MPI_ERR_TYPE,
           "%s", "err != MPI_SUCCESS && cls == MPI_ERR_TYPE");
    MPI_Type_commit(&u);
    EXPECT(MPI_Pack(a, 1, u, buf, 16, &pos, MPI_COMM_WORLD) == MPI_SUCCESS,
           "%s", "MPI_Pack(a, 1, u, buf, 16, &pos, MPI_COMM_WORLD) == MPI_SUCCESS");
    /* a freed handle is invalid */
    MPI_Datatype saved = u;
    MPI_Type_free(&u);
    err = MPI_Type_commit(&saved);
    EXPECT(err != MPI_SUCCESS, "%s", "err != MPI_SUCCESS");
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    err = MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL);
    MPI_Error_string(err, msg, &len);
    EXPECT(err != MPI_SUCCESS && strstr(msg, "MPI_Type_get_contents") != NULL,
           "%s", "err != MPI_SUCCESS && strstr(msg, \"MPI_Type_get_contents\") != NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_constructors();
    check_deprecated();
    check_names_and_match();
    check_pack();
    check_errors();
    CHECK(check_failures == 0, "datatype_api: %d failed expectations", check_failures);
    MPI_Finalize();
    return 0;
}

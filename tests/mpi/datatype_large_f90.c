/* mempi-test: np=1,2,3 timeout=60 */
/* datatype_large_f90.c -- Fortran 90 parameterized types and large-count constructors.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * F90 types: MPI_Type_create_f90_{integer,real,complex} return predefined types that report
 * MPI_COMBINER_F90_* with their (p, r) from the envelope and contents, are cached per (p, r),
 * cannot be freed, have the layout of the matching named type and communicate with it.
 *
 * Large counts: the _c constructors accept counts beyond INT_MAX.  The types are only
 * described (no buffer of that size exists): sizes, extents, true extents, the int queries
 * reporting MPI_UNDEFINED, the large-count envelope and contents, and a small pack through a
 * prefix of a huge type's stream (MPI_Pack only touches what it is asked to pack).
 */
#include <mpi.h>
#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void f90_envelope(MPI_Datatype t, int comb, int p, int r)
{
    int ni, na, nd, c, ints[2] = { -1, -1 };
    EXPECT(MPI_Type_get_envelope(t, &ni, &na, &nd, &c) == MPI_SUCCESS,
           "%s", "MPI_Type_get_envelope(t, &ni, &na, &nd, &c) == MPI_SUCCESS");
    EXPECT(c == comb && na == 0 && nd == 0, "%s", "c == comb && na == 0 && nd == 0");
    EXPECT(ni == (comb == MPI_COMBINER_F90_INTEGER ? 1 : 2),
           "%s", "ni == (comb == MPI_COMBINER_F90_INTEGER ? 1 : 2)");
    EXPECT(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL) == MPI_SUCCESS,
           "%s", "MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL) == MPI_SUCCESS");
    if (comb == MPI_COMBINER_F90_INTEGER)
        EXPECT(ints[0] == r, "%s", "ints[0] == r");
    else
        EXPECT(ints[0] == p && ints[1] == r, "%s", "ints[0] == p && ints[1] == r");
    MPI_Count cni, cna, cnc, cnd;
    EXPECT(MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &c) == MPI_SUCCESS,
           "%s", "MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, &c) == MPI_SUCCESS");
    EXPECT(c == comb && cni == ni && cna == 0 && cnc == 0 && cnd == 0,
           "%s", "c == comb && cni == ni && cna == 0 && cnc == 0 && cnd == 0");
}

static void check_f90(void)
{
    MPI_Datatype a, b, t;
    int size;
    MPI_Aint lb, ext;

    EXPECT(MPI_Type_create_f90_integer(9, &a) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_integer(9, &a) == MPI_SUCCESS");
    EXPECT(MPI_Type_create_f90_integer(9, &b) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_integer(9, &b) == MPI_SUCCESS");
    EXPECT(a == b, "%s", "a == b");                                  /* cached per r */
    EXPECT(a != MPI_INTEGER4, "%s", "a != MPI_INTEGER4");
    MPI_Type_size(a, &size);
    EXPECT(size == 4, "%s", "size == 4");
    f90_envelope(a, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, 9);
    EXPECT(MPI_Type_create_f90_integer(2, &t) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_integer(2, &t) == MPI_SUCCESS");
    MPI_Type_size(t, &size);
    EXPECT(size == 1 && t != a, "%s", "size == 1 && t != a");
    EXPECT(MPI_Type_create_f90_integer(18, &t) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_integer(18, &t) == MPI_SUCCESS");
    MPI_Type_size(t, &size);
    EXPECT(size == 8, "%s", "size == 8");

    EXPECT(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &a) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_real(6, MPI_UNDEFINED, &a) == MPI_SUCCESS");
    MPI_Type_size(a, &size);
    EXPECT(size == 4, "%s", "size == 4");
    f90_envelope(a, MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED);
    EXPECT(MPI_Type_create_f90_real(15, 300, &b) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_real(15, 300, &b) == MPI_SUCCESS");
    MPI_Type_get_extent(b, &lb, &ext);
    EXPECT(lb == 0 && ext == 8, "%s", "lb == 0 && ext == 8");
    f90_envelope(b, MPI_COMBINER_F90_REAL, 15, 300);
    EXPECT(MPI_Type_create_f90_real(15, 300, &t) == MPI_SUCCESS && t == b,
           "%s", "MPI_Type_create_f90_real(15, 300, &t) == MPI_SUCCESS && t == b");
    EXPECT(MPI_Type_create_f90_real(15, 301, &t) == MPI_SUCCESS && t != b,
           "%s", "MPI_Type_create_f90_real(15, 301, &t) == MPI_SUCCESS && t != b");  /* other (p, r) */

    EXPECT(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &a) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &a) == MPI_SUCCESS");
    MPI_Type_size(a, &size);
    EXPECT(size == 16, "%s", "size == 16");
    f90_envelope(a, MPI_COMBINER_F90_COMPLEX, 15, MPI_UNDEFINED);
    EXPECT(MPI_Type_create_f90_complex(MPI_UNDEFINED, 30, &b) == MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_complex(MPI_UNDEFINED, 30, &b) == MPI_SUCCESS");
    MPI_Type_size(b, &size);
    EXPECT(size == 8, "%s", "size == 8");

    /* predefined: freeing fails and leaves the handle usable; dup works and is freeable */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    t = a;
    int err = MPI_Type_free(&t), cls = -1;
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_TYPE && t == a, "%s", "cls == MPI_ERR_TYPE && t == a");
    EXPECT(MPI_Type_create_f90_real(1000, 1, &t) != MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_real(1000, 1, &t) != MPI_SUCCESS");
    EXPECT(MPI_Type_create_f90_integer(100, &t) != MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_integer(100, &t) != MPI_SUCCESS");
    EXPECT(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) != MPI_SUCCESS,
           "%s", "MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) != MPI_SUCCESS");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Datatype d;
    EXPECT(MPI_Type_dup(a, &d) == MPI_SUCCESS, "%s", "MPI_Type_dup(a, &d) == MPI_SUCCESS");
    MPI_Type_size(d, &size);
    EXPECT(size == 16, "%s", "size == 16");
    MPI_Type_free(&d);

    /* usable without commit in communication; matches the named type; reductions */
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Type_create_f90_real(15, 300, &b);
    double x[3] = { rank + 0.5, rank + 1.5, -rank }, sum[3];
    EXPECT(MPI_Allreduce(x, sum, 3, b, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
           "%s", "MPI_Allreduce(x, sum, 3, b, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS");
    double s = 0;
    for (int i = 0; i < np; i++)
        s += i;
    EXPECT(sum[0] == s + 0.5 * np && sum[1] == s + 1.5 * np && sum[2] == -s,
           "%s", "sum[0] == s + 0.5 * np && sum[1] == s + 1.5 * np && sum[2] == -s");
    if (np >= 2 && rank < 2) {
        double y[3] = { 0 };
        MPI_Status st;
        int cnt = -1;
        if (rank == 0) {
            MPI_Send(x, 3, b, 1, 7, MPI_COMM_WORLD);
        } else {
            MPI_Recv(y, 3, MPI_REAL8, 0, 7, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_REAL8, &cnt);
            EXPECT(cnt == 3 && st.MPI_SOURCE == 0 && st.MPI_TAG == 7,
                   "%s", "cnt == 3 && st.MPI_SOURCE == 0 && st.MPI_TAG == 7");
            EXPECT(y[0] == 0.5 && y[1] == 1.5 && y[2] == 0,
                   "%s", "y[0] == 0.5 && y[1] == 1.5 && y[2] == 0");
        }
    }
}

static void large_envelope(MPI_Datatype t, int comb, MPI_Count ni, MPI_Count nc,
                           MPI_Count nd, const MPI_Count *want, int line)
{
    MPI_Count a, b, c, d;
    int k;
    EXPECT(MPI_Type_get_envelope_c(t, &a, &b, &c, &d, &k) == MPI_SUCCESS,
           "%s", "MPI_Type_get_envelope_c(t, &a, &b, &c, &d, &k) == MPI_SUCCESS");
    if (k != comb || a != ni || b != 0 || c != nc || d != nd) {
        EXPECT(0, "line %d: envelope_c %lld %lld %lld %lld comb %d", line, (long long)a,
               (long long)b, (long long)c, (long long)d, k);
        return;
    }
    int ints[8];
    MPI_Count lc[16];
    MPI_Datatype types[4];
    EXPECT(MPI_Type_get_contents_c(t, 8, 0, 16, 4, ints, NULL, lc, types) == MPI_SUCCESS,
           "%s", "MPI_Type_get_contents_c(t, 8, 0, 16, 4, ints, NULL, lc, types) == MPI_SUCCESS");
    for (MPI_Count i = 0; i < nc; i++)
        EXPECT(lc[i] == want[i], "line %d: large count %lld = %lld, expected %lld", line,
               (long long)i, (long long)lc[i], (long long)want[i]);
    for (MPI_Count i = 0; i < nd; i++) {
        int kk;
        MPI_Count x1, x2, x3, x4;
        MPI_Type_get_envelope_c(types[i], &x1, &x2, &x3, &x4, &kk);
        if (kk != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    /* the int forms cannot express large counts */
    int i1, i2, i3, i4;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Type_get_envelope(t, &i1, &i2, &i3, &i4), cls = -1;
    MPI_Error_class(err, &cls);
    EXPECT(cls == MPI_ERR_TYPE, "%s", "cls == MPI_ERR_TYPE");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void sizes(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                  MPI_Count tlb, MPI_Count textent, int line)
{
    MPI_Count s, l, e, tl, te;
    int is;
    MPI_Aint al, ae;
    MPI_Type_size_c(t, &s);
    MPI_Type_get_extent_c(t, &l, &e);
    MPI_Type_get_true_extent_c(t, &tl, &te);
    MPI_Type_size(t, &is);
    MPI_Type_get_extent(t, &al, &ae);
    if (s != size || l != lb || e != extent || tl != tlb || te != textent ||
        is != (size > 0x7fffffff ? MPI_UNDEFINED : (int)size) || al != lb || ae != extent)
        EXPECT(0, "line %d: size %lld lb %lld extent %lld true %lld/%lld int size %d",
               line, (long long)s, (long long)l, (long long)e, (long long)tl, (long long)te, is);
}
#define SIZES(t, s, l, e, tl, te) sizes(t, s, l, e, tl, te, __LINE__)

static void check_large(void)
{
    const MPI_Count big = 2149580798LL;              /* the count mpi4py's test uses */
    MPI_Datatype t, u, v;
    MPI_Count c3[3];

    EXPECT(MPI_Type_contiguous_c(big, MPI_BYTE, &t) == MPI_SUCCESS,
           "%s", "MPI_Type_contiguous_c(big, MPI_BYTE, &t) == MPI_SUCCESS");
    MPI_Type_commit(&t);
    SIZES(t, big, 0, big, 0, big);
    large_envelope(t, MPI_COMBINER_CONTIGUOUS, 0, 1, 1, &big, __LINE__);

    /* a vector of doubles: 3e9 blocks of 1 with stride 2 (48 GB of extent) */
    const MPI_Count n = 3000000000LL;
    EXPECT(MPI_Type_vector_c(n, 1, 2, MPI_DOUBLE, &u) == MPI_SUCCESS,
           "%s", "MPI_Type_vector_c(n, 1, 2, MPI_DOUBLE, &u) == MPI_SUCCESS");
    MPI_Type_commit(&u);
    SIZES(u, 8 * n, 0, 8 * (2 * n - 1), 0, 8 * (2 * n - 1));
    c3[0] = n, c3[1] = 1, c3[2] = 2;
    large_envelope(u, MPI_COMBINER_VECTOR, 0, 3, 1, c3, __LINE__);
    /* pack the first 4 elements of a 2-element-ish prefix: only the bytes asked for are read */
    double src[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    MPI_Datatype small;
    MPI_Type_vector_c(4, 1, 2, MPI_DOUBLE, &small);      /* fits: int contents */
    MPI_Type_commit(&small);
    int ni, na, nd, comb;
    EXPECT(MPI_Type_get_envelope(small, &ni, &na, &nd, &comb) == MPI_SUCCESS,
           "%s", "MPI_Type_get_envelope(small, &ni, &na, &nd, &comb) == MPI_SUCCESS");
    EXPECT(comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1,
           "%s", "comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1");
    double out[4];
    int pos = 0;
    EXPECT(MPI_Pack(src, 1, small, out, sizeof out, &pos, MPI_COMM_WORLD) == MPI_SUCCESS,
           "%s", "MPI_Pack(src, 1, small, out, sizeof out, &pos, MPI_COMM_WORLD) == MPI_SUCCESS");
    EXPECT(pos == 32 && out[0] == 0 && out[1] == 2 && out[2] == 4 && out[3] == 6,
           "%s", "pos == 32 && out[0] == 0 && out[1] == 2 && out[2] == 4 && out[3] == 6");
    MPI_Type_free(&small);

    /* hvector with negative stride, a count beyond int */
    EXPECT(MPI_Type_create_hvector_c(n, 2, -24, MPI_INT, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_create_hvector_c(n, 2, -24, MPI_INT, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    SIZES(v, 8 * n, -24 * (n - 1), 24 * (n - 1) + 8, -24 * (n - 1), 24 * (n - 1) + 8);
    c3[0] = n, c3[1] = 2, c3[2] = -24;
    large_envelope(v, MPI_COMBINER_HVECTOR, 0, 3, 1, c3, __LINE__);
    MPI_Type_free(&v);

    /* contiguous of the huge contiguous: 2 * big bytes */
    EXPECT(MPI_Type_contiguous_c(2, t, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_contiguous_c(2, t, &v) == MPI_SUCCESS");   /* int contents */
    MPI_Type_commit(&v);
    SIZES(v, 2 * big, 0, 2 * big, 0, 2 * big);
    MPI_Type_free(&v);

    /* indexed with a block length beyond int */
    MPI_Count bl[2] = { big, 3 }, dl[2] = { 5, -10 };
    EXPECT(MPI_Type_indexed_c(2, bl, dl, MPI_SHORT, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_indexed_c(2, bl, dl, MPI_SHORT, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    SIZES(v, 2 * (big + 3), -20, 2 * (5 + big) + 20, -20, 2 * (5 + big) + 20);
    MPI_Count want5[5] = { 2, big, 3, 5, -10 };
    large_envelope(v, MPI_COMBINER_INDEXED, 0, 5, 1, want5, __LINE__);
    MPI_Type_free(&v);

    /* hindexed_block and indexed_block with a count of 1 and a huge block length */
    MPI_Count hd[1] = { 100 };
    EXPECT(MPI_Type_create_hindexed_block_c(1, big, hd, MPI_CHAR, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_create_hindexed_block_c(1, big, hd, MPI_CHAR, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    SIZES(v, big, 100, big, 100, big);
    MPI_Count want3[3] = { 1, big, 100 };
    large_envelope(v, MPI_COMBINER_HINDEXED_BLOCK, 0, 3, 1, want3, __LINE__);
    MPI_Type_free(&v);
    EXPECT(MPI_Type_create_indexed_block_c(1, big, hd, MPI_INT, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_create_indexed_block_c(1, big, hd, MPI_INT, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    SIZES(v, 4 * big, 400, 4 * big, 400, 4 * big);
    MPI_Type_free(&v);

    /* struct of the huge vector and a double */
    MPI_Count sbl[2] = { 1, big }, sd[2] = { 0, -8 };
    MPI_Datatype st[2] = { u, MPI_CHAR };
    EXPECT(MPI_Type_create_struct_c(2, sbl, sd, st, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_create_struct_c(2, sbl, sd, st, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    MPI_Count ub = 8 * (2 * n - 1);
    if (big - 8 > ub)
        ub = big - 8;
    SIZES(v, 8 * n + big, -8, ub + 8 + ((ub + 8) % 8 ? 8 - (ub + 8) % 8 : 0), -8, ub + 8);
    MPI_Count want5b[5] = { 2, 1, big, 0, -8 };
    large_envelope(v, MPI_COMBINER_STRUCT, 0, 5, 2, want5b, __LINE__);
    /* elements of a received struct_c: n doubles and big chars (the type signature) */
    MPI_Status status;
    MPI_Count elems = -1;
    MPI_Status_set_elements_x(&status, MPI_BYTE, 8 * n + big);
    EXPECT(MPI_Get_elements_x(&status, v, &elems) == MPI_SUCCESS && elems == n + big,
           "%s", "MPI_Get_elements_x(&status, v, &elems) == MPI_SUCCESS && elems == n + big");
    MPI_Status_set_elements_x(&status, MPI_BYTE, 8 * n + 8);
    EXPECT(MPI_Get_elements_x(&status, v, &elems) == MPI_SUCCESS && elems == n + 8,
           "%s", "MPI_Get_elements_x(&status, v, &elems) == MPI_SUCCESS && elems == n + 8");
    MPI_Type_free(&v);

    /* subarray of a 3e9 x 4 array of chars: 1e9 x 2 starting at (5, 1) */
    MPI_Count sz[2] = { n, 4 }, sub[2] = { 1000000000LL, 2 }, start[2] = { 5, 1 };
    EXPECT(MPI_Type_create_subarray_c(2, sz, sub, start, MPI_ORDER_C, MPI_CHAR, &v)
          == MPI_SUCCESS, "%s", "MPI_Type_create_subarray_c(2, sz, sub, start, MPI_ORDER_C, MPI_CHAR, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    SIZES(v, 2000000000LL, 0, 4 * n, 21, 4 * (1000000000LL - 1) + 2);
    MPI_Count want6[6] = { n, 4, 1000000000LL, 2, 5, 1 };
    large_envelope(v, MPI_COMBINER_SUBARRAY, 2, 6, 1, want6, __LINE__);
    MPI_Type_free(&v);

    /* resized to a huge extent */
    EXPECT(MPI_Type_create_resized_c(MPI_INT, -big, 2 * big, &v) == MPI_SUCCESS,
           "%s", "MPI_Type_create_resized_c(MPI_INT, -big, 2 * big, &v) == MPI_SUCCESS");
    MPI_Type_commit(&v);
    SIZES(v, 4, -big, 2 * big, 0, 4);
    MPI_Type_free(&v);

    /* negative large count: MPI_ERR_COUNT; nothing printed (checked by the harness) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls = -1;
    MPI_Error_class(MPI_Type_contiguous_c(-big, MPI_BYTE, &v), &cls);
    EXPECT(cls == MPI_ERR_COUNT, "%s", "cls == MPI_ERR_COUNT");
    MPI_Error_class(MPI_Type_vector_c(big, -1, 2, MPI_BYTE, &v), &cls);
    EXPECT(cls == MPI_ERR_ARG, "%s", "cls == MPI_ERR_ARG");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Type_free(&u);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_f90();
    check_large();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(check_failures == 0, "datatype_large_f90: %d failed expectations", check_failures);
    MPI_Finalize();
    return 0;
}

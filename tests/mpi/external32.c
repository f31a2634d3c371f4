/* mempi-test: np=1,2 timeout=60 */
/* external32.c -- MPI_Pack_external/Unpack_external against the standard's table.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI 4.0 15.5.2: external32 is big-endian, two's complement, IEEE binary32/64/128, with
 * the sizes of its table -- among them MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2,
 * MPI_LONG_DOUBLE 16 (binary128), MPI_C_BOOL 1, MPI_AINT, MPI_COUNT and MPI_OFFSET 8, the
 * complex types a pair of floats of their part's size.
 *
 * For every predefined type: MPI_Pack_external_size of one element is the table's size;
 * packing a known value gives exactly the expected bytes (negative integers, 1.5 and -2.0,
 * true, 'A'); unpacking those bytes gives the value back (sign extension of a 4-byte
 * MPI_LONG, zero extension of MPI_UNSIGNED_LONG).  Then a struct of mixed types, a vector
 * and MPI_BYTE through positions, and the large-count _c forms.
 */
#include "check.h"
#include <string.h>
#include <stddef.h>
#include <wchar.h>

enum kind { SINT, UINT, F32, F64, F80, F128, C32, C64, C80, C128, BOOL, LOGI, CHR, WCH,
            P_F32, P_F64, P_LONG, P_SHORT, P_F80, P_INT, P_R32, P_R64 };
typedef struct tdesc { MPI_Datatype t; const char *name; int xsize, kind, nsize; } tdesc;
#define T(h, x, k, n) { h, #h, x, k, n }
static const tdesc types[] = {
    T(MPI_PACKED, 1, UINT, 1), T(MPI_BYTE, 1, UINT, 1), T(MPI_CHAR, 1, CHR, 1),
    T(MPI_UNSIGNED_CHAR, 1, UINT, 1), T(MPI_SIGNED_CHAR, 1, SINT, 1),
    T(MPI_WCHAR, 2, WCH, sizeof(wchar_t)), T(MPI_SHORT, 2, SINT, 2),
    T(MPI_UNSIGNED_SHORT, 2, UINT, 2), T(MPI_INT, 4, SINT, 4), T(MPI_LONG, 4, SINT, sizeof(long)),
    T(MPI_UNSIGNED, 4, UINT, 4), T(MPI_UNSIGNED_LONG, 4, UINT, sizeof(long)),
    T(MPI_LONG_LONG_INT, 8, SINT, 8), T(MPI_UNSIGNED_LONG_LONG, 8, UINT, 8),
    T(MPI_FLOAT, 4, F32, 4), T(MPI_DOUBLE, 8, F64, 8), T(MPI_LONG_DOUBLE, 16, F80, sizeof(long double)),
    T(MPI_C_BOOL, 1, BOOL, 1), T(MPI_INT8_T, 1, SINT, 1), T(MPI_INT16_T, 2, SINT, 2),
    T(MPI_INT32_T, 4, SINT, 4), T(MPI_INT64_T, 8, SINT, 8), T(MPI_UINT8_T, 1, UINT, 1),
    T(MPI_UINT16_T, 2, UINT, 2), T(MPI_UINT32_T, 4, UINT, 4), T(MPI_UINT64_T, 8, UINT, 8),
    T(MPI_AINT, 8, SINT, 8), T(MPI_COUNT, 8, SINT, 8), T(MPI_OFFSET, 8, SINT, 8),
    T(MPI_C_COMPLEX, 8, C32, 8), T(MPI_C_FLOAT_COMPLEX, 8, C32, 8),
    T(MPI_C_DOUBLE_COMPLEX, 16, C64, 16),
    T(MPI_C_LONG_DOUBLE_COMPLEX, 32, C80, 2 * sizeof(long double)),
    T(MPI_CHARACTER, 1, CHR, 1), T(MPI_LOGICAL, 4, LOGI, 4), T(MPI_INTEGER, 4, SINT, 4),
    T(MPI_REAL, 4, F32, 4), T(MPI_DOUBLE_PRECISION, 8, F64, 8), T(MPI_COMPLEX, 8, C32, 8),
    T(MPI_DOUBLE_COMPLEX, 16, C64, 16),
    T(MPI_INTEGER1, 1, SINT, 1), T(MPI_INTEGER2, 2, SINT, 2), T(MPI_INTEGER4, 4, SINT, 4),
    T(MPI_INTEGER8, 8, SINT, 8), T(MPI_REAL4, 4, F32, 4), T(MPI_REAL8, 8, F64, 8),
    T(MPI_REAL16, 16, F128, 16), T(MPI_COMPLEX8, 8, C32, 8), T(MPI_COMPLEX16, 16, C64, 16),
    T(MPI_COMPLEX32, 32, C128, 32),
    T(MPI_CXX_BOOL, 1, BOOL, 1), T(MPI_CXX_FLOAT_COMPLEX, 8, C32, 8),
    T(MPI_CXX_DOUBLE_COMPLEX, 16, C64, 16),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, 32, C80, 2 * sizeof(long double)),
    /* pair types: their two members' sizes */
    T(MPI_FLOAT_INT, 8, P_F32, 0), T(MPI_DOUBLE_INT, 12, P_F64, 0), T(MPI_LONG_INT, 8, P_LONG, 0),
    T(MPI_SHORT_INT, 6, P_SHORT, 0), T(MPI_LONG_DOUBLE_INT, 20, P_F80, 0),
    T(MPI_2INT, 8, P_INT, 0), T(MPI_2INTEGER, 8, P_INT, 0), T(MPI_2REAL, 8, P_R32, 0),
    T(MPI_2DOUBLE_PRECISION, 16, P_R64, 0),
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* IEEE big-endian encodings of 1.5 and -2.0 */
static const unsigned char b32_15[4] = { 0x3f, 0xc0, 0, 0 }, b32_m2[4] = { 0xc0, 0, 0, 0 };
static const unsigned char b64_15[8] = { 0x3f, 0xf8 }, b64_m2[8] = { 0xc0 };
static const unsigned char b128_15[16] = { 0x3f, 0xff, 0x80 }, b128_m2[16] = { 0xc0 };

struct pf { float v; int i; };   struct pd { double v; int i; };
struct pl { long v; int i; };    struct ps { short v; int i; };
struct pld { long double v; int i; };

static unsigned char *be(unsigned char *p, long long v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
    return p + n;
}

static unsigned char *put(unsigned char *p, const unsigned char *b, int n)
{
    memcpy(p, b, (size_t)n);
    return p + n;
}

/* The native value (in nat, zeroed first) and its expected external32 bytes; returns the
 * number of expected bytes. */
static int sample(const tdesc *d, unsigned char *nat, unsigned char *ext)
{
    unsigned char *e = ext;
    memset(nat, 0, 64);
    switch (d->kind) {
    case SINT:                                  /* -2: sign extension both ways */
        if (d->nsize == 1) *(signed char *)nat = -2;
        else if (d->nsize == 2) *(short *)nat = -2;
        else if (d->nsize == 4) *(int *)nat = -2;
        else *(long long *)nat = -2;
        e = be(e, -2, d->xsize);
        break;
    case UINT:                                  /* the top bit set: no sign extension */
        if (d->nsize == 1) *(unsigned char *)nat = 0xfe;
        else if (d->nsize == 2) *(unsigned short *)nat = 0xfffe;
        else if (d->nsize == 4) *(unsigned *)nat = 0xfffffffeu;
        else if (d->xsize == 4) *(unsigned long *)nat = 0xfffffffeul;   /* UNSIGNED_LONG */
        else *(unsigned long long *)nat = 0xfffffffffffffffeull;
        e = be(e, -2, d->xsize);
        break;
    case CHR: *nat = 'A'; *e++ = 'A'; break;
    case WCH: *(wchar_t *)nat = 0x263a; e = be(e, 0x263a, 2); break;
    case BOOL: *(_Bool *)nat = 1; *e++ = 1; break;
    case LOGI: *(int *)nat = 1; e = be(e, 1, 4); break;
    case F32: *(float *)nat = 1.5f; e = put(e, b32_15, 4); break;
    case F64: *(double *)nat = 1.5; e = put(e, b64_15, 8); break;
    case F80: *(long double *)nat = 1.5L; e = put(e, b128_15, 16); break;
    case F128: *(__float128 *)nat = 1.5Q; e = put(e, b128_15, 16); break;
    case C32: ((float *)nat)[0] = 1.5f; ((float *)nat)[1] = -2.0f;
        e = put(put(e, b32_15, 4), b32_m2, 4); break;
    case C64: ((double *)nat)[0] = 1.5; ((double *)nat)[1] = -2.0;
        e = put(put(e, b64_15, 8), b64_m2, 8); break;
    case C80: ((long double *)nat)[0] = 1.5L; ((long double *)nat)[1] = -2.0L;
        e = put(put(e, b128_15, 16), b128_m2, 16); break;
    case C128: ((__float128 *)nat)[0] = 1.5Q; ((__float128 *)nat)[1] = -2.0Q;
        e = put(put(e, b128_15, 16), b128_m2, 16); break;
    case P_F32: ((struct pf *)nat)->v = 1.5f; ((struct pf *)nat)->i = -2;
        e = be(put(e, b32_15, 4), -2, 4); break;
    case P_F64: ((struct pd *)nat)->v = 1.5; ((struct pd *)nat)->i = -2;
        e = be(put(e, b64_15, 8), -2, 4); break;
    case P_LONG: ((struct pl *)nat)->v = -3; ((struct pl *)nat)->i = -2;
        e = be(be(e, -3, 4), -2, 4); break;
    case P_SHORT: ((struct ps *)nat)->v = -3; ((struct ps *)nat)->i = -2;
        e = be(be(e, -3, 2), -2, 4); break;
    case P_F80: ((struct pld *)nat)->v = 1.5L; ((struct pld *)nat)->i = -2;
        e = be(put(e, b128_15, 16), -2, 4); break;
    case P_INT: ((int *)nat)[0] = -3; ((int *)nat)[1] = -2; e = be(be(e, -3, 4), -2, 4); break;
    case P_R32: ((float *)nat)[0] = 1.5f; ((float *)nat)[1] = -2.0f;
        e = put(put(e, b32_15, 4), b32_m2, 4); break;
    case P_R64: ((double *)nat)[0] = 1.5; ((double *)nat)[1] = -2.0;
        e = put(put(e, b64_15, 8), b64_m2, 8); break;
    }
    return (int)(e - ext);
}

/* Compares the value bytes of two natives (padding and the unused bytes of an 80-bit long
 * double ignored). */
static int same_native(const tdesc *d, const unsigned char *a, const unsigned char *b)
{
    switch (d->kind) {
    case F80: return *(const long double *)a == *(const long double *)b;
    case C80: return ((const long double *)a)[0] == ((const long double *)b)[0] &&
                     ((const long double *)a)[1] == ((const long double *)b)[1];
    case P_F32: return !memcmp(a, b, 4) && ((const struct pf *)a)->i == ((const struct pf *)b)->i;
    case P_F64: return !memcmp(a, b, 8) && ((const struct pd *)a)->i == ((const struct pd *)b)->i;
    case P_LONG: return ((const struct pl *)a)->v == ((const struct pl *)b)->v &&
                        ((const struct pl *)a)->i == ((const struct pl *)b)->i;
    case P_SHORT: return ((const struct ps *)a)->v == ((const struct ps *)b)->v &&
                         ((const struct ps *)a)->i == ((const struct ps *)b)->i;
    case P_F80: return ((const struct pld *)a)->v == ((const struct pld *)b)->v &&
                       ((const struct pld *)a)->i == ((const struct pld *)b)->i;
    default: {
        int size;
        MPI_Type_size(d->t, &size);
        return !memcmp(a, b, (size_t)size);
    }
    }
}

static void hex(char *out, const unsigned char *p, int n)
{
    for (int i = 0; i < n && i < 40; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

static void one_type(const tdesc *d)
{
    _Alignas(64) unsigned char nat[64], back[64], ext[64], want[64];
    MPI_Aint size, pos = 0;
    int n = sample(d, nat, want);
    CHECK(n == d->xsize, "%s: the test's expected bytes (%d) disagree with its table (%d)",
          d->name, n, d->xsize);
    CHECK_MPI(MPI_Pack_external_size("external32", 1, d->t, &size));
    CHECK(size == d->xsize, "MPI_Pack_external_size(%s) = %ld, the standard's table says %d",
          d->name, (long)size, d->xsize);
    memset(ext, 0xa5, sizeof ext);
    CHECK_MPI(MPI_Pack_external("external32", nat, 1, d->t, ext, sizeof ext, &pos));
    CHECK(pos == d->xsize, "MPI_Pack_external(%s) advanced position by %ld, want %d", d->name,
          (long)pos, d->xsize);
    char g[100] = "", w[100] = "";
    hex(g, ext, d->xsize);
    hex(w, want, d->xsize);
    CHECK(memcmp(ext, want, (size_t)d->xsize) == 0, "MPI_Pack_external(%s): %s, want %s",
          d->name, g, w);
    /* the other way, from the expected bytes */
    memset(back, 0, sizeof back);
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", want, d->xsize, &pos, back, 1, d->t));
    CHECK(pos == d->xsize, "MPI_Unpack_external(%s) position %ld", d->name, (long)pos);
    CHECK(same_native(d, back, nat), "MPI_Unpack_external(%s) of %s did not give the value back",
          d->name, w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < NTYPES; i++)
        one_type(&types[i]);

    /* values at the edges of the 4-byte MPI_LONG */
    long lv[4] = { 2147483647L, -2147483647L - 1, -1, 123456 }, lb[4];
    unsigned char buf[256];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", lv, 4, MPI_LONG, buf, sizeof buf, &pos));
    CHECK(pos == 16 && buf[0] == 0x7f && buf[4] == 0x80 && buf[8] == 0xff && buf[11] == 0xff,
          "MPI_LONG limits: position %ld", (long)pos);
    pos = 0;
    CHECK_MPI(MPI_Unpack_external("external32", buf, 16, &pos, lb, 4, MPI_LONG));
    CHECK(memcmp(lv, lb, sizeof lv) == 0, "MPI_LONG limits round trip: %ld %ld %ld %ld", lb[0],
          lb[1], lb[2], lb[3]);

    /* a struct of mixed types, three of them, after a leading byte */
    struct s { char c; long l; double d; long double ld; int i; } in[3], out[3];
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (int k = 0; k < 3; k++) {
        in[k].c = (char)('a' + k);
        in[k].l = -100000L * (k + 1);
        in[k].d = 0.25 * (k + 1);
        in[k].ld = -1.0L / 3 * (k + 1);
        in[k].i = 7 - k;
    }
    int bl[5] = { 1, 1, 1, 1, 1 };
    MPI_Aint disp[5] = { offsetof(struct s, c), offsetof(struct s, l), offsetof(struct s, d),
                         offsetof(struct s, ld), offsetof(struct s, i) };
    MPI_Datatype mt[5] = { MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_INT }, st, st2;
    CHECK_MPI(MPI_Type_create_struct(5, bl, disp, mt, &st));
    CHECK_MPI(MPI_Type_create_resized(st, 0, sizeof(struct s), &st2));
    CHECK_MPI(MPI_Type_commit(&st2));
    MPI_Aint xs;
    CHECK_MPI(MPI_Pack_external_size("external32", 3, st2, &xs));
    CHECK(xs == 3 * (1 + 4 + 8 + 16 + 4), "struct external size %ld, want %d", (long)xs,
          3 * 33);
    unsigned char one = 0xee;
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", &one, 1, MPI_BYTE, buf, sizeof buf, &pos));
    CHECK_MPI(MPI_Pack_external("external32", in, 3, st2, buf, sizeof buf, &pos));
    CHECK(pos == 1 + 99, "struct pack position %ld", (long)pos);
    CHECK(buf[1] == 'a' && buf[2] == 0xff && buf[5] == 0x60 && buf[6] == 0x3f && buf[6 + 8] == 0xbf,
          "struct bytes: %02x %02x %02x %02x %02x", buf[1], buf[2], buf[5], buf[6], buf[14]);
    pos = 1;
    CHECK_MPI(MPI_Unpack_external("external32", buf, 100, &pos, out, 3, st2));
    CHECK(pos == 100, "struct unpack position %ld", (long)pos);
    for (int k = 0; k < 3; k++)
        CHECK(out[k].c == in[k].c && out[k].l == in[k].l && out[k].d == in[k].d &&
              out[k].ld == in[k].ld && out[k].i == in[k].i, "struct element %d round trip", k);
    /* not enough room: the external size counts, not the native one */
    pos = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Pack_external("external32", in, 3, st2, buf, 98, &pos), MPI_ERR_TRUNCATE);
    pos = 0;
    CHECK_MPI(MPI_Pack_external("external32", in, 3, st2, buf, 99, &pos));

    /* a strided vector of MPI_UNSIGNED_LONG, and the _c forms */
    unsigned long uv[6] = { 1, 0, 0xfffffffful, 0, 5, 0 }, ub[6] = { 0 };
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_UNSIGNED_LONG, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    MPI_Count cpos = 0, csize;
    CHECK_MPI(MPI_Pack_external_size_c("external32", 1, vec, &csize));
    CHECK(csize == 12, "vector of 3 MPI_UNSIGNED_LONG: external size %lld", (long long)csize);
    CHECK_MPI(MPI_Pack_external_c("external32", uv, 1, vec, buf, sizeof buf, &cpos));
    CHECK(cpos == 12 && buf[3] == 1 && buf[4] == 0xff && buf[11] == 5, "vector bytes");
    cpos = 0;
    CHECK_MPI(MPI_Unpack_external_c("external32", buf, 12, &cpos, ub, 1, vec));
    CHECK(ub[0] == 1 && ub[2] == 0xfffffffful && ub[4] == 5 && ub[1] == 0, "vector round trip");

    MPI_Type_free(&vec);
    MPI_Type_free(&st);
    MPI_Type_free(&st2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("external32: OK (%d predefined types)\n", NTYPES);
    MPI_Finalize();
    return 0;
}

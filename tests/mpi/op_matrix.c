/* mempi-test: np=1,2,3,5 timeout=120 */
/* op_matrix.c -- every predefined operation on every predefined datatype.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI 4.0 6.9.2 defines which predefined op applies to which group of basic types:
 *   MPI_MAX, MPI_MIN          C integer, Fortran integer, floating point, multi-language
 *   MPI_SUM, MPI_PROD         the same and complex
 *   MPI_LAND, MPI_LOR, LXOR   C integer, logical
 *   MPI_BAND, MPI_BOR, BXOR   C integer, Fortran integer, byte, multi-language
 *   MPI_MINLOC, MPI_MAXLOC    the value-index pair types
 * (multi-language: MPI_AINT, MPI_OFFSET, MPI_COUNT).  MPI_REPLACE and MPI_NO_OP belong to
 * one-sided accumulates only.  MemPI accepts, as MPICH does and programs ported from it
 * expect, three more: MPI_CHAR as a C integer, and the logical operations on Fortran
 * integers and on the multi-language types.
 *
 * For each pair, through MPI_Reduce_local and MPI_Allreduce: an accepted pair must compute
 * the right value (6 op 3, a logical true op true, a pair (6,0) op (3,1)); a refused one
 * must fail with MPI_ERR_OP and a message that names the function, the operation and the
 * datatype.  Types the standard puts in no group (MPI_WCHAR, MPI_CHARACTER, MPI_PACKED)
 * take no predefined operation.
 */
#include "check.h"
#include <string.h>

enum kind { SI, UI, FLT, DBL, LDBL, F128, CFLT, CDBL, CLDBL, CF128, BOOL, FLOG, CHR,
            P_FLT, P_DBL, P_LONG, P_SHORT, P_LDBL, P_INT, P_REAL, P_DP };
enum { CINT = 1, FINT = 2, FLOATG = 4, LOGIC = 8, CPLX = 16, BYTEG = 32, MULTI = 64,
       PAIR = 128, NONE = 0 };

typedef struct tdesc { MPI_Datatype t; const char *name; int group, kind, size; } tdesc;
#define T(h, g, k, s) { h, #h, g, k, s }
static const tdesc types[] = {
    T(MPI_CHAR, CINT, SI, 1), T(MPI_SIGNED_CHAR, CINT, SI, 1), T(MPI_UNSIGNED_CHAR, CINT, UI, 1),
    T(MPI_SHORT, CINT, SI, 2), T(MPI_UNSIGNED_SHORT, CINT, UI, 2), T(MPI_INT, CINT, SI, 4),
    T(MPI_UNSIGNED, CINT, UI, 4), T(MPI_LONG, CINT, SI, 8), T(MPI_UNSIGNED_LONG, CINT, UI, 8),
    T(MPI_LONG_LONG_INT, CINT, SI, 8), T(MPI_UNSIGNED_LONG_LONG, CINT, UI, 8),
    T(MPI_INT8_T, CINT, SI, 1), T(MPI_INT16_T, CINT, SI, 2), T(MPI_INT32_T, CINT, SI, 4),
    T(MPI_INT64_T, CINT, SI, 8), T(MPI_UINT8_T, CINT, UI, 1), T(MPI_UINT16_T, CINT, UI, 2),
    T(MPI_UINT32_T, CINT, UI, 4), T(MPI_UINT64_T, CINT, UI, 8),
    T(MPI_INTEGER, FINT, SI, 4), T(MPI_INTEGER1, FINT, SI, 1), T(MPI_INTEGER2, FINT, SI, 2),
    T(MPI_INTEGER4, FINT, SI, 4), T(MPI_INTEGER8, FINT, SI, 8),
    T(MPI_FLOAT, FLOATG, FLT, 4), T(MPI_DOUBLE, FLOATG, DBL, 8),
    T(MPI_LONG_DOUBLE, FLOATG, LDBL, 16), T(MPI_REAL, FLOATG, FLT, 4),
    T(MPI_DOUBLE_PRECISION, FLOATG, DBL, 8), T(MPI_REAL4, FLOATG, FLT, 4),
    T(MPI_REAL8, FLOATG, DBL, 8), T(MPI_REAL16, FLOATG, F128, 16),
    T(MPI_C_BOOL, LOGIC, BOOL, 1), T(MPI_CXX_BOOL, LOGIC, BOOL, 1), T(MPI_LOGICAL, LOGIC, FLOG, 4),
    T(MPI_C_FLOAT_COMPLEX, CPLX, CFLT, 8), T(MPI_C_DOUBLE_COMPLEX, CPLX, CDBL, 16),
    T(MPI_C_LONG_DOUBLE_COMPLEX, CPLX, CLDBL, 32), T(MPI_CXX_FLOAT_COMPLEX, CPLX, CFLT, 8),
    T(MPI_CXX_DOUBLE_COMPLEX, CPLX, CDBL, 16), T(MPI_CXX_LONG_DOUBLE_COMPLEX, CPLX, CLDBL, 32),
    T(MPI_COMPLEX, CPLX, CFLT, 8), T(MPI_DOUBLE_COMPLEX, CPLX, CDBL, 16),
    T(MPI_COMPLEX8, CPLX, CFLT, 8), T(MPI_COMPLEX16, CPLX, CDBL, 16),
    T(MPI_COMPLEX32, CPLX, CF128, 32),
    T(MPI_BYTE, BYTEG, UI, 1),
    T(MPI_AINT, MULTI, SI, 8), T(MPI_OFFSET, MULTI, SI, 8), T(MPI_COUNT, MULTI, SI, 8),
    T(MPI_FLOAT_INT, PAIR, P_FLT, 0), T(MPI_DOUBLE_INT, PAIR, P_DBL, 0),
    T(MPI_LONG_INT, PAIR, P_LONG, 0), T(MPI_SHORT_INT, PAIR, P_SHORT, 0),
    T(MPI_LONG_DOUBLE_INT, PAIR, P_LDBL, 0), T(MPI_2INT, PAIR, P_INT, 0),
    T(MPI_2INTEGER, PAIR, P_INT, 0), T(MPI_2REAL, PAIR, P_REAL, 0),
    T(MPI_2DOUBLE_PRECISION, PAIR, P_DP, 0),
    T(MPI_WCHAR, NONE, CHR, 4), T(MPI_CHARACTER, NONE, CHR, 1), T(MPI_PACKED, NONE, CHR, 1),
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

typedef struct odesc { MPI_Op op; const char *name; int groups; long want; } odesc;
#define O(h, g, w) { h, #h, g, w }
static const odesc ops[] = {
    O(MPI_MAX, CINT | FINT | FLOATG | MULTI, 6), O(MPI_MIN, CINT | FINT | FLOATG | MULTI, 3),
    O(MPI_SUM, CINT | FINT | FLOATG | CPLX | MULTI, 9),
    O(MPI_PROD, CINT | FINT | FLOATG | CPLX | MULTI, 18),
    O(MPI_LAND, CINT | LOGIC | FINT | MULTI, 1), O(MPI_LOR, CINT | LOGIC | FINT | MULTI, 1),
    O(MPI_LXOR, CINT | LOGIC | FINT | MULTI, 0),
    O(MPI_BAND, CINT | FINT | BYTEG | MULTI, 2), O(MPI_BOR, CINT | FINT | BYTEG | MULTI, 7),
    O(MPI_BXOR, CINT | FINT | BYTEG | MULTI, 5),
    O(MPI_MINLOC, PAIR, 3), O(MPI_MAXLOC, PAIR, 6),
    O(MPI_REPLACE, NONE, 0), O(MPI_NO_OP, NONE, 0),
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

struct pf { float v; int i; };   struct pd { double v; int i; };
struct pl { long v; int i; };    struct ps { short v; int i; };
struct pld { long double v; int i; };

/* Stores v (and the pair index i) as one element of the type. */
static void put(const tdesc *d, void *p, long v, int i)
{
    memset(p, 0, 64);
    switch (d->kind) {
    case SI: case UI:
        if (d->size == 1) *(signed char *)p = (signed char)v;
        else if (d->size == 2) *(short *)p = (short)v;
        else if (d->size == 4) *(int *)p = (int)v;
        else *(long long *)p = v;
        break;
    case FLT: *(float *)p = (float)v; break;
    case DBL: *(double *)p = (double)v; break;
    case LDBL: *(long double *)p = (long double)v; break;
    case F128: *(__float128 *)p = (__float128)v; break;
    case CFLT: *(float _Complex *)p = (float)v; break;
    case CDBL: *(double _Complex *)p = (double)v; break;
    case CLDBL: *(long double _Complex *)p = (long double)v; break;
    case CF128: *(__float128 *)p = (__float128)v; break;
    case BOOL: *(_Bool *)p = v != 0; break;
    case FLOG: *(int *)p = v != 0; break;
    case P_FLT: ((struct pf *)p)->v = (float)v; ((struct pf *)p)->i = i; break;
    case P_DBL: ((struct pd *)p)->v = (double)v; ((struct pd *)p)->i = i; break;
    case P_LONG: ((struct pl *)p)->v = v; ((struct pl *)p)->i = i; break;
    case P_SHORT: ((struct ps *)p)->v = (short)v; ((struct ps *)p)->i = i; break;
    case P_LDBL: ((struct pld *)p)->v = (long double)v; ((struct pld *)p)->i = i; break;
    case P_INT: ((int *)p)[0] = (int)v; ((int *)p)[1] = i; break;
    case P_REAL: ((float *)p)[0] = (float)v; ((float *)p)[1] = (float)i; break;
    case P_DP: ((double *)p)[0] = (double)v; ((double *)p)[1] = (double)i; break;
    default: break;
    }
}

/* The element's value (real part for complex) and, for pairs, its index. */
static long get(const tdesc *d, const void *p, int *i)
{
    *i = -1;
    switch (d->kind) {
    case SI: return d->size == 1 ? *(const signed char *)p : d->size == 2 ? *(const short *)p :
                    d->size == 4 ? *(const int *)p : *(const long long *)p;
    case UI: return d->size == 1 ? *(const unsigned char *)p : d->size == 2 ?
                    *(const unsigned short *)p : d->size == 4 ? (long)*(const unsigned *)p :
                    (long)*(const unsigned long long *)p;
    case FLT: case CFLT: return (long)*(const float *)p;
    case DBL: case CDBL: return (long)*(const double *)p;
    case LDBL: case CLDBL: return (long)*(const long double *)p;
    case F128: case CF128: return (long)*(const __float128 *)p;
    case BOOL: return *(const _Bool *)p;
    case FLOG: return *(const int *)p;
    case P_FLT: *i = ((const struct pf *)p)->i; return (long)((const struct pf *)p)->v;
    case P_DBL: *i = ((const struct pd *)p)->i; return (long)((const struct pd *)p)->v;
    case P_LONG: *i = ((const struct pl *)p)->i; return ((const struct pl *)p)->v;
    case P_SHORT: *i = ((const struct ps *)p)->i; return ((const struct ps *)p)->v;
    case P_LDBL: *i = ((const struct pld *)p)->i; return (long)((const struct pld *)p)->v;
    case P_INT: *i = ((const int *)p)[1]; return ((const int *)p)[0];
    case P_REAL: *i = (int)((const float *)p)[1]; return (long)((const float *)p)[0];
    case P_DP: *i = (int)((const double *)p)[1]; return (long)((const double *)p)[0];
    default: return 0;
    }
}

static int rank, size;

static void expect_refused(const char *call, int rc, const tdesc *d, const odesc *o)
{
    int cls = -1, len;
    char msg[MPI_MAX_ERROR_STRING], tname[MPI_MAX_OBJECT_NAME];
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "%s(%s, %s) returned %d (class %d), want MPI_ERR_OP", call,
          d->name, o->name, rc, cls);
    MPI_Error_string(rc, msg, &len);
    MPI_Type_get_name(d->t, tname, &len);
    CHECK(strstr(msg, call) && strstr(msg, o->name) && strstr(msg, tname),
          "%s(%s, %s): the message \"%s\" must name the call, the op and the type (%s)", call,
          d->name, o->name, msg, tname);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    _Alignas(64) unsigned char a[64], b[64], out[64];
    int accepted = 0, refused = 0;

    for (int ti = 0; ti < NTYPES; ti++)
        for (int oi = 0; oi < NOPS; oi++) {
            const tdesc *d = &types[ti];
            const odesc *o = &ops[oi];
            int ok = (o->groups & d->group) != 0;
            int logical_op = o->op == MPI_LAND || o->op == MPI_LOR || o->op == MPI_LXOR;
            /* inputs: 6 and 3 (true and true for logical types), pairs (6,0) and (3,1) */
            long va = d->group == LOGIC ? 1 : 6, vb = d->group == LOGIC ? 1 : 3;
            long want = o->want;
            if (d->group == LOGIC)
                want = o->op == MPI_LXOR ? 0 : 1;
            else if (logical_op)
                want = o->op == MPI_LXOR ? 0 : 1;

            put(d, a, va, 0);
            put(d, b, vb, 1);
            int rc = MPI_Reduce_local(a, b, 1, d->t, o->op);
            if (!ok) {
                expect_refused("MPI_Reduce_local", rc, d, o);
            } else {
                int idx;
                CHECK(rc == MPI_SUCCESS, "MPI_Reduce_local(%s, %s) failed: %s", d->name,
                      o->name, check_error_string(rc));
                long got = get(d, b, &idx);
                CHECK(got == want, "MPI_Reduce_local(%s, %s): %ld, want %ld", d->name, o->name,
                      got, want);
                if (d->group == PAIR)
                    CHECK(idx == (o->op == MPI_MINLOC ? 1 : 0), "MPI_Reduce_local(%s, %s): "
                          "index %d", d->name, o->name, idx);
            }

            /* every rank contributes 6 on rank 0 and 3 elsewhere (pairs: index = rank) */
            put(d, a, rank == 0 ? va : vb, rank);
            rc = MPI_Allreduce(a, out, 1, d->t, o->op, MPI_COMM_WORLD);
            if (!ok) {
                expect_refused("MPI_Allreduce", rc, d, o);
                refused++;
                continue;
            }
            CHECK(rc == MPI_SUCCESS, "MPI_Allreduce(%s, %s) failed: %s", d->name, o->name,
                  check_error_string(rc));
            accepted++;
            if (size > 2 || size == 1)
                continue;              /* sums and products of more ranks: checked above */
            int idx;
            long got = get(d, out, &idx);
            CHECK(got == want, "MPI_Allreduce(%s, %s) on 2 ranks: %ld, want %ld", d->name,
                  o->name, got, want);
        }
    CHECK(accepted + refused == NTYPES * NOPS, "matrix incomplete");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("op_matrix: OK (%d pairs accepted, %d refused)\n", accepted, refused);
    MPI_Finalize();
    return 0;
}

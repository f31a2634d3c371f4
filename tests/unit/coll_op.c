/* mempi-test: timeout=60 */
/* coll_op.c -- unit test of the reduction kernels and the op table.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every predefined op on representative types of every class, against values computed here;
 * the standard's "op not defined for this type" cases must be refused; MINLOC/MAXLOC ties keep
 * the lower index; integer overflow wraps; user ops are called with the user's datatype and
 * non-commutativity is reported; a strided derived type reduces through its basic type.
 */
#include "coll/coll.h"
#include <complex.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static mp_datatype *T(MPI_Datatype h) { return mp_datatype_get(h); }

static int calls;
static MPI_Datatype seen;
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    calls++; seen = *dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = ((int *)in)[i] * 10 + ((int *)inout)[i];
}

int main(void)
{
    if (mp_datatype_init() != MPI_SUCCESS) { fprintf(stderr, "datatype init failed\n"); return 1; }
    /* integers: every op */
    struct { MPI_Op op; int a, b, want; } it[] = {
        { MPI_MAX, 3, -5, 3 }, { MPI_MIN, 3, -5, -5 }, { MPI_SUM, 3, -5, -2 }, { MPI_PROD, 3, -5, -15 },
        { MPI_LAND, 3, 0, 0 }, { MPI_LOR, 0, 7, 1 }, { MPI_LXOR, 2, 7, 0 }, { MPI_BAND, 6, 3, 2 },
        { MPI_BOR, 6, 3, 7 }, { MPI_BXOR, 6, 3, 5 }, { MPI_REPLACE, 9, 1, 9 }, { MPI_NO_OP, 9, 1, 1 },
    };
    for (size_t k = 0; k < sizeof it / sizeof it[0]; k++) {
        int a = it[k].a, b = it[k].b;
        /* MPI_REPLACE and MPI_NO_OP: one-sided accumulates only, refused for reductions */
        int one_sided = it[k].op == MPI_REPLACE || it[k].op == MPI_NO_OP;
        EXPECT(mp_op_check("t", it[k].op, T(MPI_INT)) == MPI_SUCCESS);
        EXPECT((mp_op_check_reduction("t", it[k].op, T(MPI_INT)) == MPI_SUCCESS) == !one_sided);
        EXPECT(mp_reduce_local(&a, &b, 1, T(MPI_INT), it[k].op) == MPI_SUCCESS);
        if (b != it[k].want) { fprintf(stderr, "%s on int: got %d want %d\n", mp_op_name(it[k].op), b, it[k].want); failures++; }
    }
    /* other widths and signedness */
    { signed char a = 100, b = 100; mp_reduce_local(&a, &b, 1, T(MPI_SIGNED_CHAR), MPI_SUM); EXPECT(b == (signed char)200); }
    { unsigned short a = 65535, b = 2; mp_reduce_local(&a, &b, 1, T(MPI_UNSIGNED_SHORT), MPI_PROD); EXPECT(b == 65534); }
    { long long a = 1LL << 40, b = 3; mp_reduce_local(&a, &b, 1, T(MPI_LONG_LONG), MPI_MAX); EXPECT(b == 1LL << 40); }
    { unsigned long a = 0xf0, b = 0x3c; mp_reduce_local(&a, &b, 1, T(MPI_UNSIGNED_LONG), MPI_BXOR); EXPECT(b == 0xcc); }
    { int64_t a = -4, b = 9; mp_reduce_local(&a, &b, 1, T(MPI_INT64_T), MPI_MIN); EXPECT(b == -4); }
    { int a = 5, b = 6; mp_reduce_local(&a, &b, 1, T(MPI_INTEGER), MPI_SUM); EXPECT(b == 11); }
    { MPI_Aint a = 5, b = 6; mp_reduce_local(&a, &b, 1, T(MPI_AINT), MPI_BOR); EXPECT(b == 7); }
    { unsigned char a = 0x0f, b = 0xff; mp_reduce_local(&a, &b, 1, T(MPI_BYTE), MPI_BAND); EXPECT(b == 0x0f); }
    /* floating point and complex */
    { double a[3] = { 1.5, -2, 4 }, b[3] = { 2, 2, 2 };
      mp_reduce_local(a, b, 3, T(MPI_DOUBLE), MPI_PROD); EXPECT(b[0] == 3 && b[1] == -4 && b[2] == 8); }
    { float a = 1.25f, b = 2; mp_reduce_local(&a, &b, 1, T(MPI_REAL), MPI_MAX); EXPECT(b == 2); }
    { long double a = 1.5L, b = 0.25L; mp_reduce_local(&a, &b, 1, T(MPI_LONG_DOUBLE), MPI_SUM); EXPECT(b == 1.75L); }
    { double _Complex a = 1 + 2 * I, b = 3 - I;
      mp_reduce_local(&a, &b, 1, T(MPI_C_DOUBLE_COMPLEX), MPI_PROD); EXPECT(creal(b) == 5 && cimag(b) == 5); }
    { float _Complex a = 1 + 2 * I, b = 3 - I;
      mp_reduce_local(&a, &b, 1, T(MPI_COMPLEX), MPI_SUM); EXPECT(crealf(b) == 4 && cimagf(b) == 1); }
    /* logical */
    { _Bool a = 1, b = 0; mp_reduce_local(&a, &b, 1, T(MPI_C_BOOL), MPI_LOR); EXPECT(b == 1); }
    { int a = 1, b = 1; mp_reduce_local(&a, &b, 1, T(MPI_LOGICAL), MPI_LXOR); EXPECT(b == 0); }
    /* pairs: ties keep the lower index */
    { struct { double v; int i; } a[2] = { { 1, 5 }, { 2, 9 } }, b[2] = { { 1, 3 }, { 2, 1 } };
      mp_reduce_local(a, b, 2, T(MPI_DOUBLE_INT), MPI_MINLOC); EXPECT(b[0].v == 1 && b[0].i == 3 && b[1].i == 1); }
    { int a[4] = { 7, 2, 3, 0 }, b[4] = { 7, 4, 9, 1 };
      mp_reduce_local(a, b, 2, T(MPI_2INT), MPI_MAXLOC); EXPECT(b[0] == 7 && b[1] == 2 && b[2] == 9 && b[3] == 1); }
    { struct { short v; int i; } a = { -3, 8 }, b = { 4, 2 };
      mp_reduce_local(&a, &b, 1, T(MPI_SHORT_INT), MPI_MINLOC); EXPECT(b.v == -3 && b.i == 8); }
    /* combinations the standard does not define */
    EXPECT(mp_op_check("t", MPI_SUM, T(MPI_BYTE)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", MPI_BAND, T(MPI_DOUBLE)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", MPI_LAND, T(MPI_C_DOUBLE_COMPLEX)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", MPI_MAX, T(MPI_C_FLOAT_COMPLEX)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", MPI_MINLOC, T(MPI_INT)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", MPI_SUM, T(MPI_2INT)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", (MPI_Op)0x5800000f, T(MPI_INT)) != MPI_SUCCESS);
    EXPECT(mp_op_check("t", MPI_OP_NULL, T(MPI_INT)) != MPI_SUCCESS);
    EXPECT(mp_op_commutative(MPI_SUM) == 1);
    /* user ops */
    MPI_Op op;
    EXPECT(mp_op_create((void *)user_fn, 0, 0, &op) == MPI_SUCCESS);
    EXPECT(mp_op_valid(op) && !mp_op_is_builtin(op) && mp_op_commutative(op) == 0);
    { int a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };
      EXPECT(mp_reduce_local(a, b, 3, T(MPI_INT), op) == MPI_SUCCESS);
      EXPECT(calls == 1 && seen == MPI_INT && b[0] == 14 && b[2] == 36); }
    MPI_Op keep = op;
    EXPECT(mp_op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL);
    EXPECT(!mp_op_valid(keep));
    MPI_Op b = MPI_SUM;
    EXPECT(mp_op_free(&b) != MPI_SUCCESS);
    if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=300 */
/* mempi-test: np=3,5 timeout=300 env=MEMPI_CMA=0 */
/* rma_ops.c -- every predefined operation on every type it applies to, overlapping from all ranks, against a sequential model; accumulate ordering.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * For each valid (type, op) pair -- int, long, unsigned char with all arithmetic, logical and
 * bitwise ops; MPI_BYTE with the bitwise ops; double and float with SUM, PROD, MAX, MIN;
 * double and float complex with SUM and PROD; MPI_2INT, DOUBLE_INT, LONG_INT, FLOAT_INT and
 * SHORT_INT with MAXLOC and MINLOC; and every type with REPLACE and NO_OP -- every rank
 * applies its contribution to N elements of every rank's window at once (so each location is
 * updated concurrently by all ranks): MPI_Accumulate on region A, MPI_Get_accumulate on
 * region B, MPI_Fetch_and_op on one element, under lock_all (concurrent, shared) and again
 * under fence.  Values are small integers (powers of two for products), so every order of
 * floating-point operations gives the same value (up to the sign of a zero, so floating-point
 * values are compared with ==).  Checked:
 *   - the final value of each element is the fold of the initial value with all P
 *     contributions (the ops are commutative; MAXLOC/MINLOC break ties by the lower index);
 *     for REPLACE it is one of the contributions, for NO_OP the initial value;
 *   - each value fetched by Get_accumulate / Fetch_and_op is the fold of the initial value
 *     with the contributions of some subset of the other ranks (all 2^(P-1) are tried):
 *     the read and the update of one element are one atomic step.
 * Bulk atomicity: every rank adds to 3000 ints and doubles, ten times, under a shared lock.
 *
 * Ordering (the default accumulate_ordering rar,raw,war,waw, same origin and target): 50
 * REPLACE accumulates to one location without a flush leave the last value; a NO_OP
 * Get_accumulate after them reads it; 50 Rget_accumulate REPLACE, all in flight, each fetch
 * the value the previous one wrote; and when all ranks do this to the same location at once,
 * the final value is the last value of some rank.  MPI_NO_OP is not allowed in
 * MPI_Accumulate (standard, 12.3.4), so region A is skipped for it.
 */
#include "rma_common.h"
#include <complex.h>

static int me, np;

enum { K_INT, K_LONG, K_UCHAR, K_BYTE, K_DOUBLE, K_FLOAT, K_DCPLX, K_FCPLX, K_2INT, K_DBLINT,
       K_LONGINT, K_FLTINT, K_SHORTINT, K_COUNT };
static const char *const kname[K_COUNT] = {"MPI_INT", "MPI_LONG", "MPI_UNSIGNED_CHAR", "MPI_BYTE",
    "MPI_DOUBLE", "MPI_FLOAT", "MPI_C_DOUBLE_COMPLEX", "MPI_C_FLOAT_COMPLEX", "MPI_2INT",
    "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_FLOAT_INT", "MPI_SHORT_INT"};
enum { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_MAXLOC,
       O_MINLOC, O_REPLACE, O_NOOP, O_COUNT };
static const char *const oname[O_COUNT] = {"MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN", "MPI_LAND",
    "MPI_LOR", "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC",
    "MPI_REPLACE", "MPI_NO_OP"};

typedef struct { int v, i; } s2int;
typedef struct { double v; int i; } sdblint;
typedef struct { long v; int i; } slongint;
typedef struct { float v; int i; } sfltint;
typedef struct { short v; int i; } sshortint;

static MPI_Datatype ktype(int k)
{
    switch (k) {
    case K_INT: return MPI_INT;
    case K_LONG: return MPI_LONG;
    case K_UCHAR: return MPI_UNSIGNED_CHAR;
    case K_BYTE: return MPI_BYTE;
    case K_DOUBLE: return MPI_DOUBLE;
    case K_FLOAT: return MPI_FLOAT;
    case K_DCPLX: return MPI_C_DOUBLE_COMPLEX;
    case K_FCPLX: return MPI_C_FLOAT_COMPLEX;
    case K_2INT: return MPI_2INT;
    case K_DBLINT: return MPI_DOUBLE_INT;
    case K_LONGINT: return MPI_LONG_INT;
    case K_FLTINT: return MPI_FLOAT_INT;
    default: return MPI_SHORT_INT;
    }
}

static MPI_Op mpiop(int o)
{
    static const MPI_Op ops[O_COUNT] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR,
        MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    return ops[o];
}

/* The standard's table of which op applies to which type (plus REPLACE and NO_OP: any). */
static int valid(int k, int o)
{
    if (o == O_REPLACE || o == O_NOOP) return 1;
    if (k >= K_2INT) return o == O_MAXLOC || o == O_MINLOC;
    if (o == O_MAXLOC || o == O_MINLOC) return 0;
    if (k == K_BYTE) return o == O_BAND || o == O_BOR || o == O_BXOR;
    if (k == K_DCPLX || k == K_FCPLX) return o == O_SUM || o == O_PROD;
    if (k == K_DOUBLE || k == K_FLOAT) return o <= O_MIN;
    return 1;
}

static size_t ext(int k)
{
    MPI_Aint lb, e;
    CHECK_MPI(MPI_Type_get_extent(ktype(k), &lb, &e));
    return (size_t)e;
}

/* Element i's value: `who` < 0 is the target t's initial value, else rank who's contribution. */
static void gen(int k, int o, int who, int t, long i, void *out)
{
    long x;    /* an integer every kind can hold exactly */
    int init = who < 0;
    int r = init ? t : who;
    switch (o) {
    case O_SUM: x = init ? i % 7 + t : r * 3 + i % 4 - 1; break;
    case O_PROD: x = init ? 1 + i % 2 : (r % 3 == 0 ? 2 : r % 3 == 1 ? -1 : 1); break;
    case O_MAX: case O_MIN: x = init ? (i * 13 + t * 7) % 50 - 25 : (r * 17 + i * 5) % 41 - 20; break;
    case O_LAND: case O_LOR: case O_LXOR:
        x = init ? ((i + t) % 3 == 0 ? 0 : i % 2 ? 3 : -2) : ((r + i) % 2 ? 0 : 5); break;
    case O_BAND: case O_BOR: case O_BXOR:
        x = init ? (i * 37 + t * 11) & 0xff : (1L << ((r * 3 + i) % 8)) | (0x10 << (r % 4));
        if (k == K_LONG) x |= init ? (long)(i + 1) << 33 : (long)(r + 1) << 40;
        if (k == K_INT) x |= init ? (i + 1) << 20 : (r + 1) << 24;
        break;
    case O_MAXLOC: case O_MINLOC: x = init ? (i * 3 + t) % 4 : (r * 5 + i) % 4; break;
    default: x = init ? 40 + i % 30 : 100 + r * 20 + i % 10; break;   /* REPLACE, NO_OP */
    }
    if ((k == K_UCHAR || k == K_BYTE) && x < 0) x = -x;   /* unsigned kinds: stay in range */
    int idx = init ? 100 + t : r;
    switch (k) {
    case K_INT: *(int *)out = (int)x; break;
    case K_LONG: *(long *)out = x; break;
    case K_UCHAR: case K_BYTE: *(unsigned char *)out = (unsigned char)x; break;
    case K_DOUBLE: *(double *)out = o == O_PROD && x == 1 && !init ? 0.5 : (double)x; break;
    case K_FLOAT: *(float *)out = o == O_PROD && x == 1 && !init ? 0.5f : (float)x; break;
    case K_DCPLX: *(double complex *)out = (double)x + (double)((r + i) % 3 - 1) * I; break;
    case K_FCPLX: *(float complex *)out = (float)x + (float)((r + i) % 3 - 1) * I; break;
    case K_2INT: *(s2int *)out = (s2int){(int)x, idx}; break;
    case K_DBLINT: *(sdblint *)out = (sdblint){(double)x, idx}; break;
    case K_LONGINT: *(slongint *)out = (slongint){x, idx}; break;
    case K_FLTINT: *(sfltint *)out = (sfltint){(float)x, idx}; break;
    case K_SHORTINT: *(sshortint *)out = (sshortint){(short)x, idx}; break;
    }
}

#define ARITH(T) do { T *a = acc; T b = *(const T *)in; switch (o) { \
    case O_SUM: *a = (T)(*a + b); break; case O_PROD: *a = (T)(*a * b); break; \
    case O_MAX: if (b > *a) *a = b; break; case O_MIN: if (b < *a) *a = b; break; \
    default: break; } } while (0)
#define INTOPS(T) do { T *a = acc; T b = *(const T *)in; switch (o) { \
    case O_LAND: *a = (T)(*a && b); break; case O_LOR: *a = (T)(*a || b); break; \
    case O_LXOR: *a = (T)(!*a != !b); break; case O_BAND: *a = (T)(*a & b); break; \
    case O_BOR: *a = (T)(*a | b); break; case O_BXOR: *a = (T)(*a ^ b); break; \
    default: ARITH(T); } } while (0)
#define LOC(S) do { S *a = acc; const S *b = in; \
    if (o == O_MAXLOC ? b->v > a->v : b->v < a->v) *a = *b; \
    else if (b->v == a->v && b->i < a->i) a->i = b->i; } while (0)

/* acc = acc op in, as MPI applies op at the target (target value first). */
static void apply(int k, int o, void *acc, const void *in)
{
    if (o == O_NOOP) return;
    if (o == O_REPLACE) { memcpy(acc, in, ext(k)); return; }
    switch (k) {
    case K_INT: INTOPS(int); break;
    case K_LONG: INTOPS(long); break;
    case K_UCHAR: case K_BYTE: INTOPS(unsigned char); break;
    case K_DOUBLE: ARITH(double); break;
    case K_FLOAT: ARITH(float); break;
    case K_DCPLX:
        if (o == O_SUM) *(double complex *)acc += *(const double complex *)in;
        else *(double complex *)acc *= *(const double complex *)in;
        break;
    case K_FCPLX:
        if (o == O_SUM) *(float complex *)acc += *(const float complex *)in;
        else *(float complex *)acc *= *(const float complex *)in;
        break;
    case K_2INT: LOC(s2int); break;
    case K_DBLINT: LOC(sdblint); break;
    case K_LONGINT: LOC(slongint); break;
    case K_FLTINT: LOC(sfltint); break;
    case K_SHORTINT: LOC(sshortint); break;
    }
}

/* Equality of values: floating point by ==, since the sign of a zero product depends on the
 * order of the factors; pair types field by field (their padding is never written). */
static int same(int k, const void *a, const void *b)
{
    switch (k) {
    case K_DOUBLE: return *(const double *)a == *(const double *)b;
    case K_FLOAT: return *(const float *)a == *(const float *)b;
    case K_DCPLX: return *(const double complex *)a == *(const double complex *)b;
    case K_FCPLX: return *(const float complex *)a == *(const float complex *)b;
    case K_DBLINT: return ((const sdblint *)a)->v == ((const sdblint *)b)->v && ((const sdblint *)a)->i == ((const sdblint *)b)->i;
    case K_LONGINT: return ((const slongint *)a)->v == ((const slongint *)b)->v && ((const slongint *)a)->i == ((const slongint *)b)->i;
    case K_FLTINT: return ((const sfltint *)a)->v == ((const sfltint *)b)->v && ((const sfltint *)a)->i == ((const sfltint *)b)->i;
    case K_SHORTINT: return ((const sshortint *)a)->v == ((const sshortint *)b)->v && ((const sshortint *)a)->i == ((const sshortint *)b)->i;
    default: return !memcmp(a, b, ext(k));
    }
}

/* The fold of target t's initial element j with the contributions (element i) of the ranks
 * in mask, in rank order. */
static void fold(int k, int o, int t, long j, long i, unsigned mask, void *out)
{
    unsigned char c[32];
    gen(k, o, -1, t, j, out);
    for (int r = 0; r < np; r++)
        if (mask >> r & 1) {
            gen(k, o, r, t, i, c);
            apply(k, o, out, c);
        }
}

#define N 5

static void one_pair(int k, int o, int fence)
{
    const size_t e = ext(k);
    const long nel = 2 * N + 1;         /* region A [0,N), region B [N,2N), FOP at 2N */
    rma_win w;
    rma_win_open(&w, FL_ALLOCATE, nel * (MPI_Aint)e, (int)e, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Datatype dt = ktype(k);
    MPI_Op op = mpiop(o);
    unsigned char *obuf = malloc(e * N * np), *res = malloc(e * (N + 1) * np), want[32], c[32];
    CHECK(obuf && res, "out of memory");
    RMA_LOCAL_BEGIN(&w, me);
    for (long j = 0; j < nel; j++)
        gen(k, o, -1, me, j, w.base + j * e);
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    if (fence) CHECK_MPI(MPI_Win_fence(0, w.win));
    else CHECK_MPI(MPI_Win_lock_all(0, w.win));
    for (int t = 0; t < np; t++) {
        unsigned char *ob = obuf + e * N * t, *rs = res + e * (N + 1) * t;
        for (long i = 0; i < N; i++)
            gen(k, o, me, t, i, ob + i * e);
        if (o != O_NOOP)
            CHECK_MPI(MPI_Accumulate(ob, N, dt, t, 0, N, dt, op, w.win));
        CHECK_MPI(MPI_Get_accumulate(ob, N, dt, rs, N, dt, t, N, N, dt, op, w.win));
        CHECK_MPI(MPI_Fetch_and_op(ob, rs + N * e, dt, t, 2 * N, op, w.win));
    }
    if (fence) CHECK_MPI(MPI_Win_fence(0, w.win));
    else CHECK_MPI(MPI_Win_unlock_all(w.win));

    /* fetched values: the fold with some subset of the other ranks */
    for (int t = 0; t < np; t++)
        for (long i = 0; i <= N; i++) {
            const unsigned char *got = res + e * (N + 1) * t + i * e;
            long j = i < N ? N + i : 2 * N, ci = i < N ? i : 0;
            int ok = 0;
            for (unsigned mask = 0; mask < 1u << np && !ok; mask++)
                if (!(mask >> me & 1)) {
                    fold(k, o, t, j, ci, mask, want);
                    ok = same(k, got, want);
                }
            CHECK(ok, "%s %s (%s): %s from rank %d element %ld fetched a value no order of the "
                  "other ranks' updates gives", kname[k], oname[o], fence ? "fence" : "lock_all",
                  i < N ? "Get_accumulate" : "Fetch_and_op", t, j);
        }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* final values at this rank */
    unsigned all = (1u << np) - 1;
    RMA_LOCAL_BEGIN(&w, me);
    for (long j = 0; j < nel; j++) {
        const unsigned char *got = (unsigned char *)w.base + j * e;
        long ci = j < N ? j : j < 2 * N ? j - N : 0;
        int ok = 0;
        if (o == O_REPLACE) {
            for (int r = 0; r < np && !ok; r++) {
                gen(k, o, r, me, ci, c);
                ok = same(k, got, c);
            }
        } else {
            fold(k, o, me, j, ci, j < N && o == O_NOOP ? 0 : all, want);
            ok = same(k, got, want);
        }
        CHECK(ok, "%s %s (%s): element %ld of rank %d is not the fold of all %d updates",
              kname[k], oname[o], fence ? "fence" : "lock_all", j, me, np);
    }
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rma_win_close(&w);
    free(obuf);
    free(res);
}

/* Ten rounds of adding to 3000 ints and doubles from every rank under shared locks. */
static void bulk(void)
{
    enum { BN = 3000, ROUNDS = 10 };
    rma_win wi, wd;
    rma_win_open(&wi, FL_ALLOCATE, BN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    rma_win_open(&wd, FL_CREATE, BN * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD);
    RMA_LOCAL_BEGIN(&wi, me); memset(wi.base, 0, BN * sizeof(int)); RMA_LOCAL_END(&wi, me);
    RMA_LOCAL_BEGIN(&wd, me); memset(wd.base, 0, BN * sizeof(double)); RMA_LOCAL_END(&wd, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int *ai = malloc(BN * sizeof(int));
    double *ad = malloc(BN * sizeof(double));
    for (int i = 0; i < BN; i++) { ai[i] = me + 1 + i % 3; ad[i] = (me + 1) * 0.25 + i % 5; }
    for (int round = 0; round < ROUNDS; round++)
        for (int t = 0; t < np; t++) {
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, wi.win));
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, wd.win));
            CHECK_MPI(MPI_Accumulate(ai, BN, MPI_INT, t, 0, BN, MPI_INT, MPI_SUM, wi.win));
            CHECK_MPI(MPI_Accumulate(ad, BN, MPI_DOUBLE, t, 0, BN, MPI_DOUBLE, MPI_SUM, wd.win));
            CHECK_MPI(MPI_Win_unlock(t, wd.win));
            CHECK_MPI(MPI_Win_unlock(t, wi.win));
        }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    RMA_LOCAL_BEGIN(&wi, me);
    RMA_LOCAL_BEGIN(&wd, me);
    for (int i = 0; i < BN; i++) {
        long si = 0;
        double sd = 0;
        for (int r = 0; r < np; r++) { si += r + 1 + i % 3; sd += (r + 1) * 0.25 + i % 5; }
        CHECK(((int *)wi.base)[i] == ROUNDS * si, "bulk int sum at %d: %d, expected %ld", i,
              ((int *)wi.base)[i], ROUNDS * si);
        CHECK(((double *)wd.base)[i] == ROUNDS * sd, "bulk double sum at %d: %g, expected %g", i,
              ((double *)wd.base)[i], ROUNDS * sd);
    }
    RMA_LOCAL_END(&wd, me);
    RMA_LOCAL_END(&wi, me);
    free(ai); free(ad);
    rma_win_close(&wi);
    rma_win_close(&wd);
}

/* Default accumulate ordering, one origin to one target, and all origins to one location. */
static void ordering(void)
{
    enum { M = 50 };
    rma_win w;
    rma_win_open(&w, FL_ALLOCATE, (np + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
    RMA_LOCAL_BEGIN(&w, me); memset(w.base, 0, (np + 1) * sizeof(long)); RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int t = (me + 1) % np;
    long vals[2 * M + 1], fetched[M], last = -1, shared_vals[M];
    MPI_Request reqs[M];
    for (int j = 0; j <= 2 * M; j++) vals[j] = me * 1000L + j;
    for (int j = 0; j < M; j++) shared_vals[j] = me * 1000L + 500 + j;
    CHECK_MPI(MPI_Win_lock_all(0, w.win));
    for (int j = 1; j <= M; j++) {
        CHECK_MPI(MPI_Accumulate(&vals[j], 1, MPI_LONG, t, me, 1, MPI_LONG, MPI_REPLACE, w.win));
        CHECK_MPI(MPI_Accumulate(&shared_vals[j - 1], 1, MPI_LONG, 0, np, 1, MPI_LONG, MPI_REPLACE, w.win));
    }
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, &last, 1, MPI_LONG, t, me, 1, MPI_LONG,
                                 MPI_NO_OP, w.win));
    for (int j = 0; j < M; j++)
        CHECK_MPI(MPI_Rget_accumulate(&vals[M + 1 + j], 1, MPI_LONG, &fetched[j], 1, MPI_LONG, t, me,
                                      1, MPI_LONG, MPI_REPLACE, w.win, &reqs[j]));
    CHECK_MPI(MPI_Waitall(M, reqs, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Win_unlock_all(w.win));
    CHECK(last == vals[M], "NO_OP after %d REPLACE accumulates read %ld, expected %ld", M, last, vals[M]);
    for (int j = 0; j < M; j++)
        CHECK(fetched[j] == vals[M + j], "Rget_accumulate %d of a REPLACE chain fetched %ld, expected %ld",
              j, fetched[j], vals[M + j]);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    RMA_LOCAL_BEGIN(&w, me);
    long *mem = (long *)w.base, s = (me + np - 1) % np;
    CHECK(mem[s] == s * 1000L + 2 * M, "rank %ld's REPLACE chain left %ld, expected %ld", s, mem[s],
          s * 1000L + 2 * M);
    if (me == 0) {
        int ok = 0;
        for (int r = 0; r < np; r++) ok |= mem[np] == r * 1000L + 500 + M - 1;
        CHECK(ok, "all ranks' REPLACE chains into one location left %ld, not the last value of "
              "any rank", mem[np]);
    }
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    rma_win_close(&w);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    CHECK(np <= 16, "at most 16 ranks (subsets of the other ranks are enumerated)");
    int pairs = 0;
    for (int k = 0; k < K_COUNT; k++)
        for (int o = 0; o < O_COUNT; o++)
            if (valid(k, o)) {
                one_pair(k, o, 0);
                one_pair(k, o, 1);
                pairs++;
            }
    bulk();
    ordering();
    if (me == 0)
        printf("rma_ops: %d (type, op) pairs, bulk sums and accumulate ordering passed on %d ranks\n",
               pairs, np);
    MPI_Finalize();
    return 0;
}

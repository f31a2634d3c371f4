/* mempi-test: np=1,2,3,5 timeout=300 */
/* mempi-test: np=2,3 timeout=300 env=MEMPI_CMA=0 */
/* rma_dtype.c -- derived datatypes on both origin and target of put, get, accumulate and get_accumulate.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Eight layouts of n ints, each built with MPI type constructors and, independently, listed
 * as the int offsets it selects (in type-map order): contiguous; vector (6 of every 9);
 * indexed (blocks of 1, 2, 3, ... with growing gaps); indexed_block (pairs every 3); a
 * struct of MPI_INT blocks only (the standard allows accumulate on it: one basic type); a
 * resized pair of ints with an extent of 5 ints, repeated by count; a 2-D subarray; and an
 * hvector of vectors.  For pairs of different layouts (origin type != target type, same
 * signature) each rank, in one epoch to its right neighbour, puts into region 0 of the
 * target window, gets from region 1, accumulates (MPI_SUM) into region 2 and
 * get-accumulates into region 3, alternately under lock_all and under fence, for n = 240
 * and n = 24000 (past any eager limit).  Checked against the offset lists: every element a
 * type selects holds the right value, every element it skips (holes in the target window,
 * holes in the origin's get and result buffers) keeps its sentinel.
 */
#include "rma_common.h"

static int me, np;

enum { L_CONTIG, L_VECTOR, L_INDEXED, L_IBLOCK, L_STRUCT, L_RESIZED, L_SUBARRAY, L_HVECVEC, L_COUNT };
static const char *const lname[L_COUNT] = {"contiguous", "vector", "indexed", "indexed_block",
    "struct", "resized", "subarray", "hvector(vector)"};

typedef struct layout {
    MPI_Datatype type;   /* committed */
    int count;           /* of type */
    long n;              /* ints selected */
    long *off;           /* their offsets, in type-map order */
    long span;           /* ints from the buffer start past the last one selected */
} layout;

static void build(layout *L, int kind, long n)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, tmp;
    L->n = n;
    L->count = 1;
    L->off = malloc(sizeof(long) * (size_t)n);
    CHECK(L->off, "out of memory");
    long k = 0;
    switch (kind) {
    case L_CONTIG:
        CHECK_MPI(MPI_Type_contiguous((int)n, MPI_INT, &t));
        for (k = 0; k < n; k++) L->off[k] = k;
        break;
    case L_VECTOR:    /* n/6 blocks of 6, stride 9 */
        CHECK_MPI(MPI_Type_vector((int)(n / 6), 6, 9, MPI_INT, &t));
        for (long b = 0; b < n / 6; b++)
            for (int j = 0; j < 6; j++) L->off[k++] = b * 9 + j;
        break;
    case L_INDEXED: { /* blocks of 1,2,3,...,7,1,2,... with gaps of 1,2,3 */
        int nb = 0, lens[20000], displs[20000];
        long pos = 0;
        for (long left = n; left > 0; nb++) {
            int len = nb % 7 + 1;
            if (len > left) len = (int)left;
            lens[nb] = len;
            displs[nb] = (int)pos;
            for (int j = 0; j < len; j++) L->off[k++] = pos + j;
            pos += len + nb % 3 + 1;
            left -= len;
        }
        CHECK_MPI(MPI_Type_indexed(nb, lens, displs, MPI_INT, &t));
        break;
    }
    case L_IBLOCK: {  /* pairs every 3 ints, the pair order reversed in blocks of 4 */
        int nb = (int)(n / 2), *displs = malloc(sizeof(int) * (size_t)nb);
        for (int b = 0; b < nb; b++) {
            int p = (b / 4) * 4 + 3 - b % 4;     /* type-map order need not be increasing */
            displs[b] = 3 * p;
            L->off[k++] = 3L * p;
            L->off[k++] = 3L * p + 1;
        }
        CHECK_MPI(MPI_Type_create_indexed_block(nb, 2, displs, MPI_INT, &t));
        free(displs);
        break;
    }
    case L_STRUCT: {  /* blocks of 8 MPI_INT every 11 ints */
        int nb = (int)(n / 8), *lens = malloc(sizeof(int) * (size_t)nb);
        MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)nb);
        MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)nb);
        for (int b = 0; b < nb; b++) {
            lens[b] = 8;
            d[b] = (MPI_Aint)(11L * b * (long)sizeof(int));
            ty[b] = MPI_INT;
            for (int j = 0; j < 8; j++) L->off[k++] = 11L * b + j;
        }
        CHECK_MPI(MPI_Type_create_struct(nb, lens, d, ty, &t));
        free(lens); free(d); free(ty);
        break;
    }
    case L_RESIZED:   /* 2 ints, extent 5 ints, count n/2 */
        CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &tmp));
        CHECK_MPI(MPI_Type_create_resized(tmp, 0, 5 * (MPI_Aint)sizeof(int), &t));
        CHECK_MPI(MPI_Type_free(&tmp));
        L->count = (int)(n / 2);
        for (long j = 0; j < n / 2; j++) { L->off[k++] = 5 * j; L->off[k++] = 5 * j + 1; }
        break;
    case L_SUBARRAY: { /* rows of 30, a (n/20) x 20 block at (4, 5) */
        int rows = (int)(n / 20), sizes[2] = {rows + 8, 30}, sub[2] = {rows, 20}, start[2] = {4, 5};
        CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t));
        for (long r = 0; r < rows; r++)
            for (int c = 0; c < 20; c++) L->off[k++] = (r + 4) * 30 + 5 + c;
        break;
    }
    case L_HVECVEC: { /* vector of 4 blocks of 3 (stride 5), n/12 of them 25 ints apart */
        CHECK_MPI(MPI_Type_vector(4, 3, 5, MPI_INT, &tmp));
        CHECK_MPI(MPI_Type_create_hvector((int)(n / 12), 1, 25 * (MPI_Aint)sizeof(int), tmp, &t));
        CHECK_MPI(MPI_Type_free(&tmp));
        for (long h = 0; h < n / 12; h++)
            for (int b = 0; b < 4; b++)
                for (int j = 0; j < 3; j++) L->off[k++] = 25 * h + 5 * b + j;
        break;
    }
    }
    CHECK(k == n, "layout %s selects %ld ints, expected %ld", lname[kind], k, n);
    CHECK_MPI(MPI_Type_commit(&t));
    L->type = t;
    L->span = 0;
    for (long j = 0; j < n; j++)
        if (L->off[j] + 1 > L->span) L->span = L->off[j] + 1;
    int tsize = 0;
    CHECK_MPI(MPI_Type_size(t, &tsize));
    CHECK((long)tsize * L->count == n * (long)sizeof(int), "layout %s: MPI_Type_size %d x %d, "
          "expected %ld ints", lname[kind], tsize, L->count, n);
}

static void unbuild(layout *L)
{
    CHECK_MPI(MPI_Type_free(&L->type));
    free(L->off);
}

static int init_val(int t, long i) { return t * 1000000 + (int)(i % 999983); }
static int data_val(int r, long j) { return (r + 1) * 10000 + (int)(j % 9973) * 7 + 3; }
#define SENT (-99)

static void one_pair(int lo, int lt, long n, int fence)
{
    layout O, Tg;
    build(&O, lo, n);
    build(&Tg, lt, n);
    const long region = Tg.span + 16;
    const int t = (me + 1) % np, s = (me + np - 1) % np;
    rma_win w;
    rma_win_open(&w, (lo + lt) % 2 ? FL_CREATE : FL_ALLOCATE, 4 * region * (MPI_Aint)sizeof(int),
                 sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    int *mem = (int *)w.base;
    RMA_LOCAL_BEGIN(&w, me);
    for (long i = 0; i < 4 * region; i++) mem[i] = init_val(me, i);
    RMA_LOCAL_END(&w, me);
    int *obuf = malloc(sizeof(int) * (size_t)O.span), *gbuf = malloc(sizeof(int) * (size_t)O.span);
    int *rbuf = malloc(sizeof(int) * (size_t)O.span);
    for (long i = 0; i < O.span; i++) { obuf[i] = SENT; gbuf[i] = rbuf[i] = SENT; }
    for (long j = 0; j < n; j++) obuf[O.off[j]] = data_val(me, j);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Win win = w.win;
    if (fence) CHECK_MPI(MPI_Win_fence(0, win));
    else CHECK_MPI(MPI_Win_lock_all(0, win));
    CHECK_MPI(MPI_Put(obuf, O.count, O.type, t, 0, Tg.count, Tg.type, win));
    CHECK_MPI(MPI_Get(gbuf, O.count, O.type, t, region, Tg.count, Tg.type, win));
    CHECK_MPI(MPI_Accumulate(obuf, O.count, O.type, t, 2 * region, Tg.count, Tg.type, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(obuf, O.count, O.type, rbuf, O.count, O.type, t, 3 * region,
                                 Tg.count, Tg.type, MPI_SUM, win));
    if (fence) CHECK_MPI(MPI_Win_fence(0, win));
    else CHECK_MPI(MPI_Win_unlock_all(win));

    const char *how = fence ? "fence" : "lock_all";
    /* origin side: get and result buffers, holes untouched */
    for (long i = 0; i < O.span; i++) { gbuf[i] -= SENT; rbuf[i] -= SENT; }  /* 0 = untouched */
    for (long j = 0; j < n; j++) {
        long oi = O.off[j];
        int want = init_val(t, region + Tg.off[j]);
        CHECK(gbuf[oi] + SENT == want, "%s -> %s, n=%ld, %s: MPI_Get element %ld (origin offset %ld) "
              "= %d, expected %d", lname[lo], lname[lt], n, how, j, oi, gbuf[oi] + SENT, want);
        want = init_val(t, 3 * region + Tg.off[j]);
        CHECK(rbuf[oi] + SENT == want, "%s -> %s, n=%ld, %s: Get_accumulate result %ld = %d, "
              "expected %d", lname[lo], lname[lt], n, how, j, rbuf[oi] + SENT, want);
        gbuf[oi] = rbuf[oi] = 0;
    }
    for (long i = 0; i < O.span; i++)
        CHECK(gbuf[i] == 0 && rbuf[i] == 0, "%s -> %s, n=%ld, %s: origin hole %ld of a get or "
              "result buffer was written", lname[lo], lname[lt], n, how, i);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* target side: what origin s did to this rank's regions (every rank uses the same
     * layouts); pos[i] is the type-map position of target offset i, or -1 in a hole */
    long *pos = malloc(sizeof(long) * (size_t)region);
    for (long i = 0; i < region; i++) pos[i] = -1;
    for (long j = 0; j < n; j++) pos[Tg.off[j]] = j;
    RMA_LOCAL_BEGIN(&w, me);
    for (int reg = 0; reg < 4; reg++)
        for (long i = 0; i < region; i++) {
            long a = reg * region + i;
            int want = init_val(me, a);
            if (pos[i] >= 0 && reg != 1) {
                int d = data_val(s, pos[i]);
                want = reg == 0 ? d : want + d;
            }
            CHECK(mem[a] == want, "%s -> %s, n=%ld, %s: target region %d element %ld = %d, "
                  "expected %d%s", lname[lo], lname[lt], n, how, reg, i, mem[a], want,
                  pos[i] >= 0 ? "" : " (a hole of the target type)");
        }
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    free(pos); free(obuf); free(gbuf); free(rbuf);
    unbuild(&O); unbuild(&Tg);
    rma_win_close(&w);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    int pairs = 0;
    static const long ns[] = {240, 24000};
    for (int si = 0; si < 2; si++)
        for (int lo = 0; lo < L_COUNT; lo++)
            for (int step = 1; step <= 3; step += 2) {
                int lt = (lo + step) % L_COUNT;
                one_pair(lo, lt, ns[si], (lo + si) % 2);
                pairs++;
            }
    if (me == 0)
        printf("rma_dtype: %d origin/target layout pairs passed on %d ranks\n", pairs, np);
    MPI_Finalize();
    return 0;
}

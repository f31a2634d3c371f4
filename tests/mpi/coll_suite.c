/* mempi-test: skip (included by coll_alg_*.c, which choose the algorithms through env=) */
/* coll_suite.c -- every collective against a naive reference.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each collective runs over several sizes (0 elements up to ~1 MB per rank), two layouts
 * (MPI_INT, and a strided derived type whose holes must stay untouched), MPI_IN_PLACE where
 * the standard allows it, several roots, a commutative predefined op and a non-commutative
 * user op (composition of affine maps mod a prime, which detects any reordering), and the
 * nonblocking forms (several in flight at once).  Expected values are computed locally from
 * the formula every rank used for its input.  The coll_alg_*.c files include this one and
 * force algorithms with MEMPI_COLL_* (and simulate nodes with MEMPI_NODE_SIZE).
 */
#include <mpi.h>
#include "check.h"
#include "coll_forced.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static MPI_Datatype vec;             /* 2 ints (at 0 and 2) per element, extent 3 ints */
static MPI_Op affine;                /* non-commutative: (m,c) pairs composed in rank order */
static MPI_Datatype pair;            /* contiguous 2 ints, for the affine op */
#define HOLE (-7777)
#define P 1000003

static int val(int r, long i) { return (int)((r * 7919L + i * 31L) % 100003L); }

/* ---- buffers of `n` elements in layout `lay` (0 = int, 1 = vec) ---- */
static int *alloc_lay(int lay, long n) { return malloc(sizeof(int) * (size_t)((lay ? 3 : 1) * n + 1)); }
static void put(int *b, int lay, long i, int v)
{
    if (lay) { b[3 * i] = v; b[3 * i + 1] = HOLE; b[3 * i + 2] = v ^ 0x5a5a; }
    else b[i] = v;
}
static int ok_at(const int *b, int lay, long i, int v)
{
    if (lay) return b[3 * i] == v && b[3 * i + 1] == HOLE && b[3 * i + 2] == (v ^ 0x5a5a);
    return b[i] == v;
}
static int got_at(const int *b, int lay, long i) { return lay ? b[3 * i] : b[i]; }
static MPI_Datatype T(int lay) { return lay ? vec : MPI_INT; }
/* reduction on vec: both ints of an element are summed; value 2 is v ^ 0x5a5a per rank, so for
 * sums we only check that holes survive and the first int is right */
static int ok_sum_at(const int *b, int lay, long i, int v) { return (lay ? b[3 * i] : b[i]) == v && (!lay || b[3 * i + 1] == HOLE); }

static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {   /* apply a, then b */
        long m = (long)a[2 * k] * b[2 * k] % P;
        long c = ((long)a[2 * k + 1] * b[2 * k] + b[2 * k + 1]) % P;
        b[2 * k] = (int)m; b[2 * k + 1] = (int)c;
    }
}
static void aff(int r, long i, int *m, int *c) { *m = 2 + (r * 13 + (int)i) % 97; *c = (r * 5 + (int)i * 3) % 89; }
/* fold of ranks lo..hi (inclusive) in order */
static void aff_fold(int lo, int hi, long i, int *m, int *c)
{
    long M = 1, C = 0;
    for (int r = lo; r <= hi; r++) {
        int mr, cr; aff(r, i, &mr, &cr);
        C = (C * mr + cr) % P; M = M * mr % P;
    }
    *m = (int)M; *c = (int)C;
}

static const long sizes[] = { 0, 1, 3, 17, 1000, 40000 };
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* ------------------------------------------------------------------------------------------ */
static void test_barrier(void)
{
    for (int k = 0; k < 5; k++)
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request rq;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (rq != MPI_REQUEST_NULL) FAIL("Ibarrier request not reset");
}

static void test_bcast(int nb)
{
    for (int s = 0; s < NSIZES; s++)
        for (int lay = 0; lay < 2; lay++)
            for (int root = 0; root < size; root += (size > 2 ? size / 2 : 1)) {
                long n = sizes[s] * (lay ? 1 : 3);
                int *b = alloc_lay(lay, n);
                for (long i = 0; i < n; i++) put(b, lay, i, rank == root ? val(root, i) : -1);
                if (nb) { MPI_Request rq; CHECK_MPI(MPI_Ibcast(b, (int)n, T(lay), root, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                else CHECK_MPI(MPI_Bcast(b, (int)n, T(lay), root, MPI_COMM_WORLD));
                for (long i = 0; i < n; i++)
                    if (!ok_at(b, lay, i, val(root, i))) FAIL("bcast n=%ld lay=%d root=%d i=%ld got %d", n, lay, root, i, got_at(b, lay, i));
                free(b);
            }
    /* a few MB once */
    long n = 1 << 20;
    int *b = malloc(sizeof(int) * n);
    for (long i = 0; i < n; i++) b[i] = rank == size - 1 ? val(7, i) : 0;
    CHECK_MPI(MPI_Bcast(b, (int)n, MPI_INT, size - 1, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++) if (b[i] != val(7, i)) FAIL("bcast 4MB i=%ld", i);
    free(b);
}

static long sum_val(long i) { long t = 0; for (int r = 0; r < size; r++) t += val(r, i); return t; }

static void test_allreduce(int nb)
{
    for (int s = 0; s < NSIZES; s++) {
        long n = sizes[s];
        for (int lay = 0; lay < 2; lay++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int *in = alloc_lay(lay, n), *out = alloc_lay(lay, n);
                for (long i = 0; i < n; i++) { put(in, lay, i, val(rank, i)); put(out, lay, i, HOLE); }
                if (lay) for (long i = 0; i < n; i++) out[3 * i + 1] = HOLE;
                const void *sb = in; void *rb = out;
                if (inplace) { sb = MPI_IN_PLACE; rb = in; }
                if (nb) { MPI_Request rq; CHECK_MPI(MPI_Iallreduce(sb, rb, (int)n, T(lay), MPI_SUM, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                else CHECK_MPI(MPI_Allreduce(sb, rb, (int)n, T(lay), MPI_SUM, MPI_COMM_WORLD));
                for (long i = 0; i < n; i++)
                    if (!ok_sum_at(rb, lay, i, (int)sum_val(i))) FAIL("allreduce sum n=%ld lay=%d inplace=%d i=%ld got %d want %ld", n, lay, inplace, i, got_at(rb, lay, i), sum_val(i));
                free(in); free(out);
            }
        /* non-commutative user op */
        int *a = malloc(sizeof(int) * (2 * n + 1));
        for (long i = 0; i < n; i++) aff(rank, i, &a[2 * i], &a[2 * i + 1]);
        if (nb) { MPI_Request rq; CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, a, (int)n, pair, affine, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
        else CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, a, (int)n, pair, affine, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++) {
            int m, c; aff_fold(0, size - 1, i, &m, &c);
            if (a[2 * i] != m || a[2 * i + 1] != c) FAIL("allreduce affine n=%ld i=%ld got (%d,%d) want (%d,%d)", n, i, a[2*i], a[2*i+1], m, c);
        }
        free(a);
        /* MAX on double */
        double *d = malloc(sizeof(double) * (n + 1)), *e = malloc(sizeof(double) * (n + 1));
        for (long i = 0; i < n; i++) d[i] = (double)((rank * 37 + i) % size) + 0.5;
        CHECK_MPI(MPI_Allreduce(d, e, (int)n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++) if (e[i] != size - 1 + 0.5 && size > 1) FAIL("allreduce max i=%ld got %g", i, e[i]);
        free(d); free(e);
    }
    /* MINLOC on MPI_DOUBLE_INT */
    struct { double v; int i; } di[3], dr[3];
    for (int k = 0; k < 3; k++) { di[k].v = (double)((rank + k) % size); di[k].i = rank; }
    CHECK_MPI(MPI_Allreduce(di, dr, 3, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) { int want = (size - k % size) % size; if (dr[k].v != 0.0 || dr[k].i != want) FAIL("minloc k=%d got (%g,%d) want (0,%d)", k, dr[k].v, dr[k].i, want); }
    CHECK_MPI(MPI_Allreduce(di, dr, 3, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) { int want = (2 * size - 1 - k) % size; if (dr[k].v != size - 1 || dr[k].i != want) FAIL("maxloc k=%d got (%g,%d) want (%d,%d)", k, dr[k].v, dr[k].i, size - 1, want); }
}

static void test_reduce(int nb)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < size; root += (size > 2 ? size / 2 : 1)) {
            long n = sizes[s];
            for (int lay = 0; lay < 2; lay++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    int *in = alloc_lay(lay, n), *out = alloc_lay(lay, n);
                    for (long i = 0; i < n; i++) { put(in, lay, i, val(rank, i)); put(out, lay, i, HOLE); }
                    const void *sb = in; void *rb = out;
                    if (inplace && rank == root) { sb = MPI_IN_PLACE; rb = in; }
                    if (nb) { MPI_Request rq; CHECK_MPI(MPI_Ireduce(sb, rb, (int)n, T(lay), MPI_SUM, root, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                    else CHECK_MPI(MPI_Reduce(sb, rb, (int)n, T(lay), MPI_SUM, root, MPI_COMM_WORLD));
                    if (rank == root)
                        for (long i = 0; i < n; i++)
                            if (!ok_sum_at(rb, lay, i, (int)sum_val(i))) FAIL("reduce n=%ld lay=%d root=%d i=%ld got %d", n, lay, root, i, got_at(rb, lay, i));
                    free(in); free(out);
                }
            int *a = malloc(sizeof(int) * (2 * n + 1)), *b = malloc(sizeof(int) * (2 * n + 1));
            for (long i = 0; i < n; i++) aff(rank, i, &a[2 * i], &a[2 * i + 1]);
            CHECK_MPI(MPI_Reduce(a, b, (int)n, pair, affine, root, MPI_COMM_WORLD));
            if (rank == root)
                for (long i = 0; i < n; i++) {
                    int m, c; aff_fold(0, size - 1, i, &m, &c);
                    if (b[2 * i] != m || b[2 * i + 1] != c) FAIL("reduce affine n=%ld root=%d i=%ld", n, root, i);
                }
            free(a); free(b);
        }
}

static void test_scan(int nb)
{
    for (int s = 0; s < NSIZES; s++) {
        long n = sizes[s];
        for (int ex = 0; ex < 2; ex++) {
            int *a = malloc(sizeof(int) * (2 * n + 1)), *b = malloc(sizeof(int) * (2 * n + 1));
            for (long i = 0; i < n; i++) aff(rank, i, &a[2 * i], &a[2 * i + 1]);
            if (nb) { MPI_Request rq; CHECK_MPI((ex ? MPI_Iexscan : MPI_Iscan)(a, b, (int)n, pair, affine, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
            else CHECK_MPI((ex ? MPI_Exscan : MPI_Scan)(a, b, (int)n, pair, affine, MPI_COMM_WORLD));
            if (!ex || rank > 0)
                for (long i = 0; i < n; i++) {
                    int m, c; aff_fold(0, ex ? rank - 1 : rank, i, &m, &c);
                    if (b[2 * i] != m || b[2 * i + 1] != c) FAIL("%s affine n=%ld i=%ld got (%d,%d) want (%d,%d)", ex ? "exscan" : "scan", n, i, b[2*i], b[2*i+1], m, c);
                }
            /* in place, commutative */
            int *x = malloc(sizeof(int) * (n + 1));
            for (long i = 0; i < n; i++) x[i] = val(rank, i);
            CHECK_MPI((ex ? MPI_Exscan : MPI_Scan)(MPI_IN_PLACE, x, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            if (!ex || rank > 0)
                for (long i = 0; i < n; i++) {
                    long t = 0; for (int r = 0; r <= (ex ? rank - 1 : rank); r++) t += val(r, i);
                    if (x[i] != (int)t) FAIL("%s in place n=%ld i=%ld", ex ? "exscan" : "scan", n, i);
                }
            free(a); free(b); free(x);
        }
    }
}

static void test_gather_family(int nb)
{
    for (int s = 0; s < NSIZES - 1; s++)
        for (int lay = 0; lay < 2; lay++)
            for (int root = 0; root < size; root += (size > 2 ? size / 2 : 1))
                for (int inplace = 0; inplace < 2; inplace++) {
                    long n = sizes[s];
                    int *mine = alloc_lay(lay, n), *all = alloc_lay(lay, n * size);
                    for (long i = 0; i < n; i++) put(mine, lay, i, val(rank, i));
                    for (long i = 0; i < n * size; i++) put(all, lay, i, -1);
                    /* gather */
                    const void *sb = mine;
                    if (inplace && rank == root) { sb = MPI_IN_PLACE; for (long i = 0; i < n; i++) put(all, lay, rank * n + i, val(rank, i)); }
                    MPI_Request rq;
                    if (nb) { CHECK_MPI(MPI_Igather(sb, (int)n, T(lay), all, (int)n, T(lay), root, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                    else CHECK_MPI(MPI_Gather(sb, (int)n, T(lay), all, (int)n, T(lay), root, MPI_COMM_WORLD));
                    if (rank == root)
                        for (int r = 0; r < size; r++) for (long i = 0; i < n; i++)
                            if (!ok_at(all, lay, r * n + i, val(r, i))) FAIL("gather n=%ld lay=%d root=%d r=%d i=%ld", n, lay, root, r, i);
                    /* scatter back something different */
                    for (long i = 0; i < n * size; i++) put(all, lay, i, val(root + 1, i));
                    for (long i = 0; i < n; i++) put(mine, lay, i, -1);
                    void *rb = mine;
                    if (inplace && rank == root) rb = MPI_IN_PLACE;
                    if (nb) { CHECK_MPI(MPI_Iscatter(all, (int)n, T(lay), rb, (int)n, T(lay), root, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                    else CHECK_MPI(MPI_Scatter(all, (int)n, T(lay), rb, (int)n, T(lay), root, MPI_COMM_WORLD));
                    if (rb != MPI_IN_PLACE)
                        for (long i = 0; i < n; i++) if (!ok_at(mine, lay, i, val(root + 1, rank * n + i))) FAIL("scatter n=%ld lay=%d root=%d i=%ld got %d", n, lay, root, i, got_at(mine, lay, i));
                    /* allgather */
                    for (long i = 0; i < n; i++) put(mine, lay, i, val(rank, i));
                    for (long i = 0; i < n * size; i++) put(all, lay, i, -1);
                    sb = mine;
                    if (inplace) { sb = MPI_IN_PLACE; for (long i = 0; i < n; i++) put(all, lay, rank * n + i, val(rank, i)); }
                    if (nb) { CHECK_MPI(MPI_Iallgather(sb, (int)n, T(lay), all, (int)n, T(lay), MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                    else CHECK_MPI(MPI_Allgather(sb, (int)n, T(lay), all, (int)n, T(lay), MPI_COMM_WORLD));
                    for (int r = 0; r < size; r++) for (long i = 0; i < n; i++)
                        if (!ok_at(all, lay, r * n + i, val(r, i))) FAIL("allgather n=%ld lay=%d inplace=%d r=%d i=%ld got %d", n, lay, inplace, r, i, got_at(all, lay, r * n + i));
                    free(mine); free(all);
                }
}

/* v-forms: rank r contributes (r % 3) * k elements (some zero), placed in reverse rank order */
static void test_v_family(int nb)
{
    for (int k = 0; k < 3; k++) {
        long unit = k == 0 ? 1 : (k == 1 ? 5 : 3000);
        int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
        long total = 0;
        for (int r = size - 1; r >= 0; r--) { counts[r] = (int)((r % 3) * unit); displs[r] = (int)total; total += counts[r] + 1; }
        for (int lay = 0; lay < 2; lay++) {
            int *mine = alloc_lay(lay, counts[rank]), *all = alloc_lay(lay, total);
            for (long i = 0; i < counts[rank]; i++) put(mine, lay, i, val(rank, i));
            for (long i = 0; i < total; i++) put(all, lay, i, -1);
            MPI_Request rq;
            if (nb) { CHECK_MPI(MPI_Iallgatherv(mine, counts[rank], T(lay), all, counts, displs, T(lay), MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
            else CHECK_MPI(MPI_Allgatherv(mine, counts[rank], T(lay), all, counts, displs, T(lay), MPI_COMM_WORLD));
            for (int r = 0; r < size; r++) {
                for (long i = 0; i < counts[r]; i++) if (!ok_at(all, lay, displs[r] + i, val(r, i))) FAIL("allgatherv unit=%ld lay=%d r=%d i=%ld", unit, lay, r, i);
                if (!ok_at(all, lay, displs[r] + counts[r], -1)) FAIL("allgatherv wrote a gap");
            }
            int root = size / 2;
            for (long i = 0; i < total; i++) put(all, lay, i, -1);
            if (nb) { CHECK_MPI(MPI_Igatherv(mine, counts[rank], T(lay), all, counts, displs, T(lay), root, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
            else CHECK_MPI(MPI_Gatherv(mine, counts[rank], T(lay), all, counts, displs, T(lay), root, MPI_COMM_WORLD));
            if (rank == root) for (int r = 0; r < size; r++) for (long i = 0; i < counts[r]; i++)
                if (!ok_at(all, lay, displs[r] + i, val(r, i))) FAIL("gatherv r=%d i=%ld", r, i);
            for (long i = 0; i < total; i++) put(all, lay, i, val(99, i));
            for (long i = 0; i < counts[rank]; i++) put(mine, lay, i, -1);
            if (nb) { CHECK_MPI(MPI_Iscatterv(all, counts, displs, T(lay), mine, counts[rank], T(lay), root, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
            else CHECK_MPI(MPI_Scatterv(all, counts, displs, T(lay), mine, counts[rank], T(lay), root, MPI_COMM_WORLD));
            for (long i = 0; i < counts[rank]; i++) if (!ok_at(mine, lay, i, val(99, displs[rank] + i))) FAIL("scatterv i=%ld", i);
            free(mine); free(all);
        }
        free(counts); free(displs);
    }
}

static void test_alltoall(int nb)
{
    for (int s = 0; s < NSIZES - 1; s++)
        for (int lay = 0; lay < 2; lay++)
            for (int inplace = 0; inplace < 2; inplace++) {
                long n = sizes[s];
                int *sb = alloc_lay(lay, n * size), *rb = alloc_lay(lay, n * size);
                for (int d = 0; d < size; d++) for (long i = 0; i < n; i++) put(sb, lay, d * n + i, val(rank * 100 + d, i));
                for (long i = 0; i < n * size; i++) put(rb, lay, i, -1);
                void *src = sb, *dst = rb;
                if (inplace) { src = MPI_IN_PLACE; dst = sb; }
                MPI_Request rq;
                if (nb) { CHECK_MPI(MPI_Ialltoall(src, (int)n, T(lay), dst, (int)n, T(lay), MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
                else CHECK_MPI(MPI_Alltoall(src, (int)n, T(lay), dst, (int)n, T(lay), MPI_COMM_WORLD));
                for (int r = 0; r < size; r++) for (long i = 0; i < n; i++)
                    if (!ok_at(dst, lay, r * n + i, val(r * 100 + rank, i))) FAIL("alltoall n=%ld lay=%d inplace=%d r=%d i=%ld", n, lay, inplace, r, i);
                free(sb); free(rb);
            }
    /* alltoallv: rank r sends (r + d) % 3 elements to d; alltoallw with byte displacements */
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size), *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    int st = 0, rt = 0;
    for (int d = 0; d < size; d++) { sc[d] = (rank + d) % 3 * 7; sd[d] = st; st += sc[d] + 2; rc[d] = (d + rank) % 3 * 7; rd[d] = rt; rt += rc[d] + 1; }
    int *s = malloc(sizeof(int) * (st + 1)), *r = malloc(sizeof(int) * (rt + 1));
    for (int d = 0; d < size; d++) for (int i = 0; i < sc[d]; i++) s[sd[d] + i] = val(rank * 100 + d, i);
    for (int i = 0; i < rt; i++) r[i] = -1;
    MPI_Request rq;
    if (nb) { CHECK_MPI(MPI_Ialltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    else CHECK_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++) {
        for (int i = 0; i < rc[q]; i++) if (r[rd[q] + i] != val(q * 100 + rank, i)) FAIL("alltoallv from %d i=%d", q, i);
        if (r[rd[q] + rc[q]] != -1) FAIL("alltoallv wrote a gap");
    }
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
    for (int d = 0; d < size; d++) { types[d] = MPI_INT; sd[d] *= (int)sizeof(int); rd[d] *= (int)sizeof(int); }
    for (int i = 0; i < rt; i++) r[i] = -1;
    if (nb) { CHECK_MPI(MPI_Ialltoallw(s, sc, sd, types, r, rc, rd, types, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    else CHECK_MPI(MPI_Alltoallw(s, sc, sd, types, r, rc, rd, types, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++) for (int i = 0; i < rc[q]; i++)
        if (r[rd[q] / (int)sizeof(int) + i] != val(q * 100 + rank, i)) FAIL("alltoallw from %d i=%d", q, i);
    free(s); free(r); free(sc); free(sd); free(rc); free(rd); free(types);
}

static void test_reduce_scatter(int nb)
{
    for (int s = 0; s < NSIZES - 1; s++) {
        long n = sizes[s];
        int *counts = malloc(sizeof(int) * size);
        long total = 0;
        for (int r = 0; r < size; r++) { counts[r] = (int)(n * ((r % 2) + 1)); total += counts[r]; }
        long off = 0; for (int r = 0; r < rank; r++) off += counts[r];
        for (int inplace = 0; inplace < 2; inplace++) {
            int *in = malloc(sizeof(int) * (total + 1)), *out = malloc(sizeof(int) * (total + 1));
            for (long i = 0; i < total; i++) in[i] = val(rank, i);
            MPI_Request rq;
            void *sb = inplace ? MPI_IN_PLACE : (void *)in, *rb = inplace ? in : out;
            if (nb) { CHECK_MPI(MPI_Ireduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
            else CHECK_MPI(MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            for (long i = 0; i < counts[rank]; i++) if (((int *)rb)[i] != (int)sum_val(off + i)) FAIL("reduce_scatter n=%ld inplace=%d i=%ld", n, inplace, i);
            free(in); free(out);
        }
        /* block form with a commutative op (the pairwise algorithm's case) */
        int *c = malloc(sizeof(int) * (n * size + 1)), *d = malloc(sizeof(int) * (n + 1));
        for (long i = 0; i < n * size; i++) c[i] = val(rank, i);
        if (nb) { MPI_Request rq; CHECK_MPI(MPI_Ireduce_scatter_block(c, d, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
        else CHECK_MPI(MPI_Reduce_scatter_block(c, d, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++) if (d[i] != (int)sum_val(rank * n + i)) FAIL("reduce_scatter_block sum n=%ld i=%ld", n, i);
        free(c); free(d);
        /* block form with the non-commutative op */
        int *a = malloc(sizeof(int) * (2 * n * size + 1)), *b = malloc(sizeof(int) * (2 * n + 1));
        for (long i = 0; i < n * size; i++) aff(rank, i, &a[2 * i], &a[2 * i + 1]);
        if (nb) { MPI_Request rq; CHECK_MPI(MPI_Ireduce_scatter_block(a, b, (int)n, pair, affine, MPI_COMM_WORLD, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
        else CHECK_MPI(MPI_Reduce_scatter_block(a, b, (int)n, pair, affine, MPI_COMM_WORLD));
        for (long i = 0; i < n; i++) {
            int m, c; aff_fold(0, size - 1, rank * n + i, &m, &c);
            if (b[2 * i] != m || b[2 * i + 1] != c) FAIL("reduce_scatter_block affine i=%ld", i);
        }
        free(a); free(b); free(counts);
    }
}

/* several nonblocking collectives in flight at once, completed in reverse order */
static void test_overlap(void)
{
    int n = 1000, x[1000], y[1000], z[1000];
    for (int i = 0; i < n; i++) { x[i] = val(rank, i); z[i] = rank == 0 ? i : -1; }
    MPI_Request rq[3];
    CHECK_MPI(MPI_Iallreduce(x, y, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Ibcast(z, n, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rq[2]));
    MPI_Status st[3];
    CHECK_MPI(MPI_Wait(&rq[2], &st[2]));
    CHECK_MPI(MPI_Waitall(2, rq, st));
    for (int i = 0; i < n; i++) if (y[i] != (int)sum_val(i) || z[i] != i) FAIL("overlap i=%d", i);
}

int main(int argc, char **argv)
{
    coll_forced_begin();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(affine_fn, 0, &affine);
    int commute = 1;
    MPI_Op_commutative(affine, &commute);
    if (commute) FAIL("Op_commutative says the affine op commutes");
    for (int nb = 0; nb < 2; nb++) {
        test_barrier();
        test_bcast(nb);
        test_allreduce(nb);
        test_reduce(nb);
        test_scan(nb);
        test_gather_family(nb);
        test_v_family(nb);
        test_alltoall(nb);
        test_reduce_scatter(nb);
    }
    test_overlap();
    MPI_Op_free(&affine);
    if (affine != MPI_OP_NULL) FAIL("Op_free did not reset the handle");
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    /* recursive doubling needs a power-of-two process count; elsewhere it falls back */
    static const char *const not_pof2[] = { "allgather=recursive_doubling", NULL };
    coll_forced_end((size & (size - 1)) ? not_pof2 : NULL);
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,4,5 timeout=240 */
/* mempi-test: np=2,3,5 timeout=240 env=MEMPI_COLL_ALLTOALL=shm,MEMPI_COLL_ALLTOALLV=shm,MEMPI_COLL_ALLTOALLW=shm */
/* mempi-test: np=3,4 timeout=240 env=MEMPI_COLL_ALLTOALL=shm,MEMPI_COLL_ALLTOALLV=shm,MEMPI_COLL_ALLTOALLW=shm,MEMPI_COLL_SHM_SLOT=8192 */
/* mempi-test: np=2,5 timeout=240 env=MEMPI_COLL_ALLTOALL=pairwise,MEMPI_COLL_ALLTOALLV=pairwise,MEMPI_COLL_ALLTOALLW=pairwise */
/* coll_alltoall_shm.c -- MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw of small to large blocks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Aimed at the shared-memory all-to-all (src/coll/shm.c: one table publication, small blocks
 * inline in the cell, large ones pulled by single copy), which the default rule picks for
 * blocking calls on one node; the forced runs use it at every size (and with 8 KiB slots, so
 * the table leaves little room inline and small blocks are pulled too), the pairwise run
 * gives the same cases to the message schedules.  coll_forced.h proves that a forced
 * algorithm ran.  Cases, each block's bytes a function of (source, destination, index):
 *   - alltoall of MPI_INT, 1 to 300000 elements per block (inline, pulled, above 1 MiB);
 *   - alltoall with MPI_IN_PLACE;
 *   - alltoallv with uneven counts, zero counts and scattered, reversed displacements, from
 *     the send buffer and in place;
 *   - derived types: a strided vector on the send side against contiguous receives (alltoall)
 *     and alltoallw with a different pair of types per peer (vector, contiguous, resized);
 *   - a nonblocking MPI_Ialltoall of large blocks (message schedules) between blocking ones;
 *   - receive slots bigger than the data stay untouched around the blocks.
 */
#include "check.h"
#include "coll_forced.h"

static int rank, size;

static int val(int src, int dst, long i)
{
    return (int)((src * 1000003L + dst * 7919L + i * 31L) & 0x7fffffff);
}

/* Regular alltoall of `count` ints per block, from a send buffer or in place. */
static void regular(int count, int in_place)
{
    size_t n = (size_t)count * size;
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));
    CHECK(s && r, "out of memory");
    for (int d = 0; d < size; d++)
        for (int i = 0; i < count; i++)
            (in_place ? r : s)[(size_t)d * count + i] = val(rank, d, i);
    if (!in_place)
        for (size_t i = 0; i < n; i++)
            r[i] = -1;
    CHECK_MPI(MPI_Alltoall(in_place ? MPI_IN_PLACE : s, count, MPI_INT, r, count, MPI_INT,
                           MPI_COMM_WORLD));
    for (int src = 0; src < size; src++)
        for (int i = 0; i < count; i++)
            if (r[(size_t)src * count + i] != val(src, rank, i))
                FAIL("alltoall count %d%s: from %d element %d is %d, expected %d", count,
                     in_place ? " in place" : "", src, i, r[(size_t)src * count + i],
                     val(src, rank, i));
    free(s);
    free(r);
}

/* Elements rank `src` sends rank `dst` in the v cases: uneven, some zero, some large. */
static int vcount(int src, int dst, int scale)
{
    if ((src + 2 * dst) % 4 == 1)
        return 0;
    return ((src * 7 + dst * 13) % 5 + 1) * scale + src + dst;
}

/* alltoallv; displacements run backwards with gaps of 3 elements, which must stay -1.  In
 * place the receive layout describes both directions, so the counts must be symmetric. */
static void vector(int scale, int in_place)
{
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    CHECK(sc && sd && rc && rd, "out of memory");
    int stot = 0, rtot = 0;
    for (int p = size - 1; p >= 0; p--) {
        int lo = rank < p ? rank : p, hi = rank < p ? p : rank;
        sc[p] = in_place ? vcount(lo, hi, scale) : vcount(rank, p, scale);
        sd[p] = stot;
        stot += sc[p] + 3;
        rc[p] = in_place ? sc[p] : vcount(p, rank, scale);
        rd[p] = rtot;
        rtot += rc[p] + 3;
    }
    int *s = malloc(sizeof(int) * (size_t)(stot + 1)), *r = malloc(sizeof(int) * (size_t)(rtot + 1));
    CHECK(s && r, "out of memory");
    for (int i = 0; i < stot; i++)
        s[i] = -1;
    for (int i = 0; i < rtot; i++)
        r[i] = -1;
    for (int p = 0; p < size; p++)
        for (int i = 0; i < sc[p]; i++)
            (in_place ? r + rd[p] : s + sd[p])[i] = val(rank, p, i);
    if (in_place)
        CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, r, rc, rd, MPI_INT,
                                MPI_COMM_WORLD));
    else
        CHECK_MPI(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++) {
        for (int i = 0; i < rc[p]; i++)
            if (r[rd[p] + i] != val(p, rank, i))
                FAIL("alltoallv scale %d%s: from %d element %d of %d is %d, expected %d", scale,
                     in_place ? " in place" : "", p, i, rc[p], r[rd[p] + i], val(p, rank, i));
        for (int g = 0; g < 3; g++)
            CHECK(r[rd[p] + rc[p] + g] == -1, "alltoallv scale %d: gap after block %d written",
                  scale, p);
    }
    free(s); free(r); free(sc); free(sd); free(rc); free(rd);
}

/* Alltoall from a strided send type (every other int) into contiguous ints. */
static void strided(int count)
{
    MPI_Datatype vec, vecr;
    CHECK_MPI(MPI_Type_vector(count, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * count) * (MPI_Aint)sizeof(int), &vecr));
    CHECK_MPI(MPI_Type_commit(&vecr));
    size_t n = (size_t)count * size;
    int *s = malloc(2 * n * sizeof(int)), *r = malloc(n * sizeof(int));
    CHECK(s && r, "out of memory");
    for (size_t i = 0; i < 2 * n; i++)
        s[i] = -7;
    for (int d = 0; d < size; d++)
        for (int i = 0; i < count; i++)
            s[(size_t)d * 2 * count + 2 * (size_t)i] = val(rank, d, i);
    CHECK_MPI(MPI_Alltoall(s, 1, vecr, r, count, MPI_INT, MPI_COMM_WORLD));
    for (int src = 0; src < size; src++)
        for (int i = 0; i < count; i++)
            CHECK(r[(size_t)src * count + i] == val(src, rank, i),
                  "strided alltoall count %d: from %d element %d is %d, expected %d", count, src,
                  i, r[(size_t)src * count + i], val(src, rank, i));
    MPI_Type_free(&vec);
    MPI_Type_free(&vecr);
    free(s);
    free(r);
}

/* Alltoallw: peer p gets a vector (p odd) or contiguous ints from us, and we receive from p
 * into contiguous ints (p even) or a vector with stride 3; byte displacements. */
static void wform(int count)
{
    MPI_Datatype v2, v3;
    CHECK_MPI(MPI_Type_vector(count, 1, 2, MPI_INT, &v2));
    CHECK_MPI(MPI_Type_vector(count, 1, 3, MPI_INT, &v3));
    CHECK_MPI(MPI_Type_commit(&v2));
    CHECK_MPI(MPI_Type_commit(&v3));
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * size), *rt = malloc(sizeof(MPI_Datatype) * size);
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    CHECK(st && rt && sc && sd && rc && rd, "out of memory");
    size_t slot = (size_t)3 * count + 1;        /* ints per peer slot on both sides */
    int *s = malloc(sizeof(int) * slot * size), *r = malloc(sizeof(int) * slot * size);
    CHECK(s && r, "out of memory");
    for (size_t i = 0; i < slot * size; i++) {
        s[i] = -3;
        r[i] = -1;
    }
    for (int p = 0; p < size; p++) {
        int odd = p & 1;
        st[p] = odd ? v2 : MPI_INT;
        sc[p] = odd ? 1 : count;
        sd[p] = (int)(sizeof(int) * slot * (size_t)(size - 1 - p));
        for (int i = 0; i < count; i++)
            s[slot * (size_t)(size - 1 - p) + (size_t)(odd ? 2 * i : i)] = val(rank, p, i);
        int even = !(p & 1);
        rt[p] = even ? MPI_INT : v3;
        rc[p] = even ? count : 1;
        rd[p] = (int)(sizeof(int) * slot * (size_t)p);
    }
    CHECK_MPI(MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++) {
        int stride = (p & 1) ? 3 : 1;
        const int *b = r + slot * (size_t)p;
        for (int i = 0; i < count; i++)
            CHECK(b[stride * i] == val(p, rank, i), "alltoallw count %d: from %d element %d is "
                  "%d, expected %d", count, p, i, b[stride * i], val(p, rank, i));
        for (size_t k = 0; k < slot; k++)
            if (k % (size_t)stride != 0 || k >= (size_t)stride * count)
                CHECK(b[k] == -1, "alltoallw count %d: int %zu of the slot from %d was written",
                      count, k, p);
    }
    MPI_Type_free(&v2);
    MPI_Type_free(&v3);
    free(st); free(rt); free(sc); free(sd); free(rc); free(rd); free(s); free(r);
}

/* A nonblocking alltoall (message schedules) of large blocks; the test checks its data. */
static void nonblocking(int count)
{
    size_t n = (size_t)count * size;
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));
    CHECK(s && r, "out of memory");
    for (int d = 0; d < size; d++)
        for (int i = 0; i < count; i++)
            s[(size_t)d * count + i] = val(rank, d, i);
    MPI_Request rq;
    MPI_Status st;
    CHECK_MPI(MPI_Ialltoall(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    for (int src = 0; src < size; src++)
        for (int i = 0; i < count; i++)
            CHECK(r[(size_t)src * count + i] == val(src, rank, i),
                  "ialltoall: from %d element %d wrong", src, i);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    coll_forced_begin();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int counts[] = { 1, 100, 1000, 9000, 70000, 300000 };
    for (int rep = 0; rep < 2; rep++)
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            regular(counts[i], 0);
            regular(counts[i], 1);
        }
    const int scales[] = { 0, 10, 3000, 100000 };
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        vector(scales[i], 0);
        vector(scales[i], 1);
    }
    strided(5);
    strided(40000);
    wform(7);
    wform(50000);
    nonblocking(40000);
    regular(70000, 0);
    coll_forced_end(NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("coll_alltoall_shm: OK\n");
    return 0;
}

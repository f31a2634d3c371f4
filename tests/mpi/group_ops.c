/* mempi-test: np=1,2,3,4,5,8 timeout=60 */
/* group_ops.c -- every MPI_Group_* operation, checked against a direct computation.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;

/* The members of g as world ranks, in order. */
static int members(MPI_Group g, MPI_Group wg, int *out)
{
    int n;
    MPI_Group_size(g, &n);
    int *r = malloc(sizeof(int) * (n + 1));
    for (int i = 0; i < n; i++)
        r[i] = i;
    MPI_Group_translate_ranks(g, n, r, wg, out);
    free(r);
    return n;
}

static void expect(MPI_Group g, MPI_Group wg, int n, const int *want, const char *what)
{
    int got[64];
    int m = members(g, wg, got);
    CHECK(m == n, "%s: size %d expected %d", what, m, n);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: member %d is %d expected %d", what, i, got[i], want[i]);
    int rank, myidx = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (want[i] == wrank)
            myidx = i;
    MPI_Group_rank(g, &rank);
    CHECK(rank == myidx, "%s: rank %d expected %d", what, rank, myidx);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int all[64], want[64], n;
    for (int i = 0; i < wsize; i++)
        all[i] = i;
    expect(wg, wg, wsize, all, "world");

    /* incl reversed; excl the evens */
    int rev[64];
    for (int i = 0; i < wsize; i++)
        rev[i] = wsize - 1 - i;
    MPI_Group grev, godd, geven;
    MPI_Group_incl(wg, wsize, rev, &grev);
    expect(grev, wg, wsize, rev, "incl reversed");
    int evens[64], ne = 0;
    for (int i = 0; i < wsize; i += 2)
        evens[ne++] = i;
    MPI_Group_excl(wg, ne, evens, &godd);
    n = 0;
    for (int i = 1; i < wsize; i += 2)
        want[n++] = i;
    expect(godd, wg, n, want, "excl evens");
    MPI_Group_incl(wg, ne, evens, &geven);
    expect(geven, wg, ne, evens, "incl evens");

    /* compare */
    int res;
    MPI_Group_compare(wg, wg, &res);
    CHECK(res == MPI_IDENT, "compare ident %d", res);
    MPI_Group_compare(wg, grev, &res);
    CHECK(res == (wsize == 1 ? MPI_IDENT : MPI_SIMILAR), "compare similar %d", res);
    MPI_Group_compare(wg, geven, &res);
    CHECK(res == (wsize == 1 ? MPI_IDENT : MPI_UNEQUAL), "compare unequal %d", res);

    /* union / intersection / difference */
    MPI_Group gu, gi, gd;
    MPI_Group_union(godd, geven, &gu);
    n = 0;
    for (int i = 1; i < wsize; i += 2) want[n++] = i;
    for (int i = 0; i < wsize; i += 2) want[n++] = i;
    expect(gu, wg, n, want, "union");
    MPI_Group_intersection(grev, geven, &gi);
    n = 0;
    for (int i = wsize - 1; i >= 0; i--) if (i % 2 == 0) want[n++] = i;
    expect(gi, wg, n, want, "intersection");
    MPI_Group_difference(grev, geven, &gd);
    n = 0;
    for (int i = wsize - 1; i >= 0; i--) if (i % 2) want[n++] = i;
    expect(gd, wg, n, want, "difference");
    MPI_Group empty;
    MPI_Group_difference(wg, wg, &empty);
    CHECK(empty == MPI_GROUP_EMPTY, "empty difference is not MPI_GROUP_EMPTY");
    int sz, rk;
    MPI_Group_size(MPI_GROUP_EMPTY, &sz);
    MPI_Group_rank(MPI_GROUP_EMPTY, &rk);
    CHECK(sz == 0 && rk == MPI_UNDEFINED, "empty size %d rank %d", sz, rk);

    /* range_incl / range_excl, including a descending range */
    int top3 = (wsize - 1) / 3 * 3;      /* multiples of 3 descending, then 1 mod 3 */
    int ranges[2][3] = { { top3, 0, -3 }, { 1, wsize - 1, 3 } };
    int nr = wsize > 1 ? 2 : 1;
    MPI_Group gri, gre;
    MPI_Group_range_incl(wg, nr, ranges, &gri);
    n = 0;
    char seen[64] = { 0 };
    for (int i = top3; i >= 0; i -= 3) { want[n++] = i; seen[i] = 1; }
    int dup_free = 1;
    if (nr == 2)
        for (int i = 1; i <= wsize - 1; i += 3) { if (seen[i]) dup_free = 0; want[n++] = i; seen[i] = 1; }
    if (dup_free) {
        expect(gri, wg, n, want, "range_incl");
        MPI_Group_range_excl(wg, nr, ranges, &gre);
        int m = 0;
        for (int i = 0; i < wsize; i++) if (!seen[i]) want[m++] = i;
        expect(gre, wg, m, want, "range_excl");
        if (gre != MPI_GROUP_EMPTY) MPI_Group_free(&gre);
    }
    if (gri != MPI_GROUP_EMPTY) MPI_Group_free(&gri);

    /* translate with MPI_PROC_NULL and absent members */
    int in[2] = { MPI_PROC_NULL, 0 }, out[2];
    MPI_Group_translate_ranks(wg, 2, in, godd, out);
    CHECK(out[0] == MPI_PROC_NULL && out[1] == MPI_UNDEFINED, "translate %d %d", out[0], out[1]);

    /* group of a split communicator */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    MPI_Group hg;
    MPI_Comm_group(half, &hg);
    n = 0;
    for (int i = wsize - 1; i >= 0; i--) if (i % 2 == wrank % 2) want[n++] = i;
    expect(hg, wg, n, want, "comm group of split");
    MPI_Group_free(&hg);
    MPI_Comm_free(&half);

    MPI_Group_free(&grev);
    if (godd != MPI_GROUP_EMPTY) MPI_Group_free(&godd);
    MPI_Group_free(&geven);
    MPI_Group_free(&gu);
    MPI_Group_free(&gi);
    if (gd != MPI_GROUP_EMPTY) MPI_Group_free(&gd);
    CHECK(gu == MPI_GROUP_NULL, "free did not reset handle");
    MPI_Group_free(&wg);
    MPI_Finalize();
    return 0;
}

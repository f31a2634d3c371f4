/* mempi-test: np=2,3,4,5,8 timeout=90 */
/* comm_inter_split.c -- MPI_Comm_split, MPI_Comm_split_type and MPI_Comm_create on
 * intercommunicators.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The intercommunicator joins the even world ranks (side 0) and the odd ones (side 1).  For
 * each operation the test computes, from the world ranks alone, which processes must end up
 * in the local and remote groups of each result and in which order, checks the groups, the
 * ranks and MPI_COMM_NULL exactly, and then sends between every pair of the new
 * intercommunicator (data and status) and runs a collective on it.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;

typedef int (*fn)(int w);            /* color or key of world rank w */

static int side(int w) { return w % 2; }

/* node_of[w]: the lowest world rank on world rank w's node (node_map). */
static int *node_of;
static int color_node(int w) { return node_of[w]; }

static int *node_map(void)
{
    MPI_Comm node;
    int lowest, *map = malloc(sizeof(int) * wsize);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Allreduce(&wrank, &lowest, 1, MPI_INT, MPI_MIN, node);
    MPI_Allgather(&lowest, 1, MPI_INT, map, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return map;
}

/* World ranks of side s with color c, ordered by (key, rank in the side). */
static int expect(int s, fn color, fn key, int c, int *out)
{
    int n = 0;
    for (int w = s; w < wsize; w += 2)
        if (color(w) == c)
            out[n++] = w;
    for (int i = 1; i < n; i++)           /* insertion sort: stable, so ties keep rank order */
        for (int j = i; j > 0 && key(out[j - 1]) > key(out[j]); j--) {
            int t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* The world ranks of a group, in group order. */
static void world_of(MPI_Group g, int n, int *out)
{
    MPI_Group wg;
    int *r = malloc(sizeof(int) * (n ? n : 1));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        r[i] = i;
    MPI_Group_translate_ranks(g, n, r, wg, out);
    MPI_Group_free(&wg);
    free(r);
}

/* Every local rank sends to every remote rank; checks data and status. */
static void all_pairs(MPI_Comm inter, const int *rworld, int salt)
{
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    int *out = malloc(sizeof(int) * rsize), *in = malloc(sizeof(int) * rsize);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * rsize);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * rsize);
    for (int r = 0; r < rsize; r++) {
        out[r] = salt * 1000 + wrank;
        in[r] = -1;
        MPI_Irecv(&in[r], 1, MPI_INT, r, salt, inter, &req[r]);
        MPI_Isend(&out[r], 1, MPI_INT, r, salt, inter, &req[rsize + r]);
    }
    MPI_Waitall(2 * rsize, req, st);
    for (int r = 0; r < rsize; r++) {
        CHECK(in[r] == salt * 1000 + rworld[r], "from remote %d got %d, expected %d", r, in[r],
              salt * 1000 + rworld[r]);
        CHECK(st[r].MPI_SOURCE == r && st[r].MPI_TAG == salt, "status %d/%d", st[r].MPI_SOURCE,
              st[r].MPI_TAG);
    }
    /* a collective: the sum over the remote group */
    int sum = 0, want = 0;
    for (int r = 0; r < rsize; r++)
        want += rworld[r];
    MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == want, "allreduce %d, expected %d", sum, want);
    free(out);
    free(in);
    free(req);
    free(st);
}

/* Checks one result against the expectation for this process. */
static void verify(MPI_Comm nc, fn color, fn key, int salt)
{
    int c = color(wrank);
    int *lw = malloc(sizeof(int) * wsize), *rw = malloc(sizeof(int) * wsize);
    int nl = c == MPI_UNDEFINED ? 0 : expect(side(wrank), color, key, c, lw);
    int nr = c == MPI_UNDEFINED ? 0 : expect(1 - side(wrank), color, key, c, rw);
    if (nl == 0 || nr == 0) {
        CHECK(nc == MPI_COMM_NULL, "expected MPI_COMM_NULL (color %d, %d local, %d remote)", c,
              nl, nr);
        free(lw);
        free(rw);
        return;
    }
    CHECK(nc != MPI_COMM_NULL, "expected a communicator (color %d)", c);
    int flag, size, rsize, rank;
    MPI_Comm_test_inter(nc, &flag);
    MPI_Comm_size(nc, &size);
    MPI_Comm_remote_size(nc, &rsize);
    MPI_Comm_rank(nc, &rank);
    CHECK(flag && size == nl && rsize == nr, "inter %d size %d/%d remote %d/%d", flag, size, nl,
          rsize, nr);
    CHECK(lw[rank] == wrank, "rank %d is world %d, expected %d", rank, lw[rank], wrank);
    int *got = malloc(sizeof(int) * wsize);
    MPI_Group g;
    MPI_Comm_group(nc, &g);
    world_of(g, nl, got);
    MPI_Group_free(&g);
    for (int i = 0; i < nl; i++)
        CHECK(got[i] == lw[i], "local group[%d] = %d, expected %d", i, got[i], lw[i]);
    MPI_Comm_remote_group(nc, &g);
    world_of(g, nr, got);
    MPI_Group_free(&g);
    for (int i = 0; i < nr; i++)
        CHECK(got[i] == rw[i], "remote group[%d] = %d, expected %d", i, got[i], rw[i]);
    all_pairs(nc, rw, salt);
    /* the result works as a parent again */
    MPI_Comm d;
    MPI_Comm_dup(nc, &d);
    all_pairs(d, rw, salt + 1);
    MPI_Comm_free(&d);
    free(got);
    free(lw);
    free(rw);
}

static int color_pairs(int w) { return (w / 2) % 2 + 7 * (w >= 8); }
static int key_rev(int w) { return -w; }
static int key_zero(int w) { (void)w; return 0; }
static int color_one_out(int w) { return w == 1 ? MPI_UNDEFINED : 5; }
static int color_side0_only(int w) { return side(w) == 0 ? 0 : MPI_UNDEFINED; }
/* create: side 0 takes its even local ranks in reverse order, side 1 all in reverse */
static int in_create(int w) { return side(w) == 0 && (w / 2) % 2 ? MPI_UNDEFINED : 0; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm local, inter, nc;
    MPI_Comm_split(MPI_COMM_WORLD, side(wrank), wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side(wrank) ? 0 : 1, 99, &inter);

    MPI_Comm_split(inter, color_pairs(wrank), key_rev(wrank), &nc);
    verify(nc, color_pairs, key_rev, 10);
    if (nc != MPI_COMM_NULL)
        MPI_Comm_free(&nc);

    MPI_Comm_split(inter, color_one_out(wrank), key_zero(wrank), &nc);
    verify(nc, color_one_out, key_zero, 20);
    if (nc != MPI_COMM_NULL)
        MPI_Comm_free(&nc);

    MPI_Comm_split(inter, color_side0_only(wrank), wrank, &nc);
    CHECK(nc == MPI_COMM_NULL, "one side all MPI_UNDEFINED must give MPI_COMM_NULL");

    /* split_type: the result joins, on each side, the processes of this node (all of them
     * on one node; on a cluster, ranks of other nodes are in other results) */
    node_of = node_map();
    MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc);
    verify(nc, color_node, key_zero, 30);
    free(node_of);
    MPI_Comm_free(&nc);
    MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &nc);
    CHECK(nc == MPI_COMM_NULL, "split_type MPI_UNDEFINED");

    /* create: each side passes a subgroup of its local group */
    MPI_Group lg, sub;
    int lsize, n = 0, *ranks;
    MPI_Comm_group(inter, &lg);
    MPI_Comm_size(inter, &lsize);
    ranks = malloc(sizeof(int) * lsize);
    for (int r = lsize - 1; r >= 0; r--)
        if (in_create(2 * r + side(wrank)) == 0)
            ranks[n++] = r;
    MPI_Group_incl(lg, n, ranks, &sub);
    MPI_Comm_create(inter, sub, &nc);
    verify(nc, in_create, key_rev, 40);
    if (nc != MPI_COMM_NULL)
        MPI_Comm_free(&nc);
    MPI_Group_free(&sub);
    /* an empty group on one side: MPI_COMM_NULL everywhere */
    MPI_Comm_create(inter, side(wrank) ? MPI_GROUP_EMPTY : lg, &nc);
    CHECK(nc == MPI_COMM_NULL, "create with an empty side must give MPI_COMM_NULL");
    MPI_Group_free(&lg);
    free(ranks);

    /* many rounds: context ids are returned when the results are freed */
    for (int i = 0; i < 300; i++) {
        MPI_Comm_split(inter, wrank % 2 ? 0 : i % 2, wrank, &nc);
        if (nc != MPI_COMM_NULL)
            MPI_Comm_free(&nc);
    }

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

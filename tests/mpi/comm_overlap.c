/* mempi-test: np=2,3,4,5,8 timeout=120 */
/* comm_overlap.c -- concurrent creation on overlapping groups gives distinct, working contexts.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Each rank i builds, with MPI_Comm_create_group, the pair communicators {i, i+1} and
 * {i-1, i} (even ranks right pair first, odd ranks left pair first, so neighbouring creations
 * run at the same time on different processes), and dups them from overlapping windows of
 * three ranks created with MPI_Comm_split (w0 and w1 of one process overlap in members
 * with other processes' w0/w1, so their creations run concurrently on different groups).  Then every communicator carries traffic received
 * with MPI_ANY_SOURCE/MPI_ANY_TAG, which would catch two live communicators of one process
 * sharing a context id.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;

static MPI_Comm pair(MPI_Group world, int a, int tag)
{
    int ranks[2] = { a, a + 1 };
    MPI_Group g;
    MPI_Comm c;
    MPI_Group_incl(world, 2, ranks, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, tag, &c);
    MPI_Group_free(&g);
    return c;
}

/* everyone in c sends its world rank + salt to everyone else; receives use wildcards */
static void talk(MPI_Comm c, int salt)
{
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    MPI_Group g, wg;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * s);
    int *vals = malloc(sizeof(int) * s), mine = wrank * 1000 + salt;
    for (int p = 0; p < s; p++)
        if (p != r)
            MPI_Isend(&mine, 1, MPI_INT, p, salt, c, &rq[p]);
        else
            rq[p] = MPI_REQUEST_NULL;
    for (int k = 0; k < s - 1; k++) {
        int v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st);
        int w;
        MPI_Group_translate_ranks(g, 1, &st.MPI_SOURCE, wg, &w);
        CHECK(st.MPI_TAG == salt && v == w * 1000 + salt,
              "cross-talk: got %d tag %d from %d (world %d), salt %d", v, st.MPI_TAG,
              st.MPI_SOURCE, w, salt);
    }
    for (int p = 0; p < s; p++)
        MPI_Wait(&rq[p], MPI_STATUS_IGNORE);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(rq);
    free(vals);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);

    for (int round = 0; round < 20; round++) {
        MPI_Comm left = MPI_COMM_NULL, right = MPI_COMM_NULL;
        int has_left = wrank > 0, has_right = wrank + 1 < wsize;
        if (wrank % 2 == 0) {
            if (has_right) right = pair(wg, wrank, round);
            if (has_left) left = pair(wg, wrank - 1, round);
        } else {
            if (has_left) left = pair(wg, wrank - 1, round);
            if (has_right) right = pair(wg, wrank, round);
        }
        /* windows of three: split twice with overlapping colors */
        MPI_Comm w0, w1;
        MPI_Comm_split(MPI_COMM_WORLD, wrank / 3, wrank, &w0);
        MPI_Comm_split(MPI_COMM_WORLD, (wrank + 1) / 3, wrank, &w1);
        MPI_Comm d0, d1;
        /* (blocking collectives must be called in the same order by all processes) */
        MPI_Comm_dup(w0, &d0);
        MPI_Comm_dup(w1, &d1);
        /* traffic on everything at once; a shared context would mismatch */
        if (left != MPI_COMM_NULL) talk(left, 100 + wrank - 1);   /* salt names the pair */
        if (right != MPI_COMM_NULL) talk(right, 100 + wrank);
        talk(w0, 3);
        talk(w1, 4);
        talk(d0, 5);
        talk(d1, 6);
        if (left != MPI_COMM_NULL) MPI_Comm_free(&left);
        if (right != MPI_COMM_NULL) MPI_Comm_free(&right);
        MPI_Comm_free(&w0);
        MPI_Comm_free(&w1);
        MPI_Comm_free(&d0);
        MPI_Comm_free(&d1);
    }
    MPI_Group_free(&wg);
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=2,3,4,5,8 timeout=60 */
/* comm_intercomm.c -- Intercomm_create/merge, remote size/group, dup, pt2pt over intercomms.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;

/* Every rank of the local group sends to every rank of the remote group and checks all data. */
static void all_pairs(MPI_Comm inter, int salt)
{
    int rank, size, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    int *out = malloc(sizeof(int) * rsize), *in = malloc(sizeof(int) * rsize);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * rsize);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * rsize);
    for (int r = 0; r < rsize; r++) {
        out[r] = salt * 100000 + wrank * 100 + r;
        MPI_Irecv(&in[r], 1, MPI_INT, r, salt, inter, &reqs[r]);
        MPI_Isend(&out[r], 1, MPI_INT, r, salt, inter, &reqs[rsize + r]);
    }
    MPI_Waitall(2 * rsize, reqs, st);
    /* the remote rank r has some world rank; get it through the remote group */
    MPI_Group rg, wg;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int r = 0; r < rsize; r++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &r, wg, &w);
        CHECK(in[r] == salt * 100000 + w * 100 + rank, "from remote %d got %d", r, in[r]);
        CHECK(st[r].MPI_SOURCE == r && st[r].MPI_TAG == salt, "status src %d tag %d",
              st[r].MPI_SOURCE, st[r].MPI_TAG);
    }
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    free(out); free(in); free(reqs); free(st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* groups: the first third (at least 1) and the rest, so sizes differ */
    int nlow = wsize / 3 > 0 ? wsize / 3 : 1;
    int low = wrank < nlow;
    MPI_Comm local;
    MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &local);
    int remote_leader = low ? nlow : 0;       /* in MPI_COMM_WORLD */
    MPI_Comm inter;
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 42, &inter);

    int flag, size, rsize, rank;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "test_inter false");
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);
    CHECK(size == (low ? nlow : wsize - nlow), "size %d", size);
    CHECK(rsize == (low ? wsize - nlow : nlow), "remote size %d", rsize);
    CHECK(rank == (low ? wrank : wrank - nlow), "rank %d", rank);
    all_pairs(inter, 1);

    /* dup of an intercommunicator */
    MPI_Comm idup;
    MPI_Comm_dup(inter, &idup);
    int res;
    MPI_Comm_compare(inter, idup, &res);
    CHECK(res == MPI_CONGRUENT, "compare(inter, dup) = %d", res);
    MPI_Comm_test_inter(idup, &flag);
    CHECK(flag, "dup not inter");
    all_pairs(idup, 2);

    /* merge: low group with high = 0 goes first */
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, low ? 0 : 1, &merged);
    MPI_Comm_rank(merged, &rank);
    MPI_Comm_size(merged, &size);
    CHECK(size == wsize && rank == wrank, "merged rank %d size %d", rank, size);
    MPI_Comm_test_inter(merged, &flag);
    CHECK(!flag, "merged is inter");
    int sum = 0;
    for (int peer = 0; peer < size; peer++) {
        int v = rank, got;
        MPI_Sendrecv(&v, 1, MPI_INT, peer, 3, &got, 1, MPI_INT, peer, 3, merged, MPI_STATUS_IGNORE);
        CHECK(got == peer, "merged got %d from %d", got, peer);
        sum += got;
    }
    /* merge the other way round: high group first */
    MPI_Comm merged2;
    MPI_Intercomm_merge(idup, low ? 1 : 0, &merged2);
    MPI_Comm_rank(merged2, &rank);
    CHECK(rank == (low ? wsize - nlow + wrank : wrank - nlow), "merged2 rank %d", rank);

    /* intercomm from the merged comm's halves, using a different peer comm and tag */
    MPI_Comm inter2;
    MPI_Intercomm_create(local, size > 0 ? (low ? nlow - 1 : 0) : 0, merged, low ? nlow : nlow - 1, 7, &inter2);
    all_pairs(inter2, 3);

    MPI_Comm_free(&inter2);
    MPI_Comm_free(&merged2);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}

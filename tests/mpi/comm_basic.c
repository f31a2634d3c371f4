/* mempi-test: np=1,2,3,4,5,8 timeout=60 */
/* comm_basic.c -- Comm_dup/split/create/create_group/compare/names/free with traffic.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

/* A ring exchange on comm checks that point-to-point works and is isolated. */
static void ring(MPI_Comm comm, int salt)
{
    int rank, size, got = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int val = rank * 1000 + salt;
    MPI_Status st;
    MPI_Sendrecv(&val, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, comm, &st);
    CHECK(got == from * 1000 + salt, "ring got %d expected %d", got, from * 1000 + salt);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 7, "ring status %d %d", st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* dup: congruent, isolated from the parent */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int res, r, s;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
    MPI_Comm_compare(dup, dup, &res);
    CHECK(res == MPI_IDENT, "compare(dup, dup) = %d", res);
    MPI_Comm_rank(dup, &r);
    MPI_Comm_size(dup, &s);
    CHECK(r == wrank && s == wsize, "dup rank/size %d/%d", r, s);
    /* a message on dup must not match a receive on world */
    if (wsize > 1) {
        int a = 11, b = 22, x = 0, y = 0;
        if (wrank == 0) {
            MPI_Send(&a, 1, MPI_INT, 1, 0, dup);
            MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (wrank == 1) {
            MPI_Recv(&y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
            CHECK(x == 11 && y == 22, "isolation x=%d y=%d", x, y);
        }
    }
    ring(dup, 1);

    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
    MPI_Comm_get_name(dup, name, &len);
    CHECK(len == 0, "dup name '%s'", name);
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "dup name '%s'", name);

    /* split by parity, reversed key */
    MPI_Comm half;
    MPI_Comm_split(dup, wrank % 2, wsize - wrank, &half);
    MPI_Comm_rank(half, &r);
    MPI_Comm_size(half, &s);
    int expect_size = (wsize + 1 - wrank % 2) / 2;
    CHECK(s == expect_size, "split size %d expected %d", s, expect_size);
    /* highest world rank of my parity gets rank 0 */
    int expect_rank = (wsize - 1 - wrank) / 2;
    if ((wsize - 1) % 2 != wrank % 2)
        expect_rank = (wsize - 2 - wrank) / 2;
    CHECK(r == expect_rank, "split rank %d expected %d", r, expect_rank);
    ring(half, 2);
    MPI_Comm_compare(half, MPI_COMM_WORLD, &res);
    CHECK(wsize == 1 ? res == MPI_CONGRUENT : res == MPI_UNEQUAL, "compare(half, world) = %d", res);

    /* split with MPI_UNDEFINED */
    MPI_Comm some;
    MPI_Comm_split(MPI_COMM_WORLD, wrank == 0 ? MPI_UNDEFINED : 5, 0, &some);
    if (wrank == 0)
        CHECK(some == MPI_COMM_NULL, "undefined color gave a communicator");
    else {
        MPI_Comm_size(some, &s);
        CHECK(s == wsize - 1, "split size %d", s);
        ring(some, 3);
        MPI_Comm_free(&some);
    }

    /* similar: same members, reversed order */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev);
    MPI_Comm_compare(rev, MPI_COMM_WORLD, &res);
    CHECK(res == (wsize == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(rev, world) = %d", res);
    ring(rev, 4);

    /* Comm_create with the even ranks */
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int range[1][3] = { { 0, wsize - 1, 2 } };
    MPI_Group_range_incl(wg, 1, range, &eg);
    MPI_Comm even;
    MPI_Comm_create(MPI_COMM_WORLD, eg, &even);
    if (wrank % 2) {
        CHECK(even == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        MPI_Comm_rank(even, &r);
        CHECK(r == wrank / 2, "create rank %d", r);
        ring(even, 5);
        MPI_Comm_free(&even);
    }

    /* Comm_create_group: only the even ranks call it */
    if (wrank % 2 == 0) {
        MPI_Comm eg2;
        MPI_Comm_create_group(MPI_COMM_WORLD, eg, 99, &eg2);
        MPI_Comm_rank(eg2, &r);
        MPI_Comm_size(eg2, &s);
        CHECK(r == wrank / 2 && s == (wsize + 1) / 2, "create_group rank %d size %d", r, s);
        ring(eg2, 6);
        MPI_Comm_free(&eg2);
    }
    MPI_Group_free(&eg);
    MPI_Group_free(&wg);

    /* test_inter, topology none */
    int flag;
    MPI_Comm_test_inter(half, &flag);
    CHECK(!flag, "test_inter on intracomm");

    /* idup */
    MPI_Comm idup;
    MPI_Request req;
    MPI_Comm_idup(half, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL, "request not freed");
    ring(idup, 7);
    MPI_Comm_free(&idup);

    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL, "free did not reset handle");
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=120 */
/* comm_from_group_threads.c -- MPI_THREAD_MULTIPLE: two threads per process create
 * communicators from groups (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups)
 * at the same time with distinct stringtags, while the main thread creates and frees
 * communicators with MPI_Comm_dup.  mpi4py always runs under THREAD_MULTIPLE; these entry
 * points must hold the library lock like every other.  Every new communicator carries a
 * ring exchange checked for data and status.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 20 };
static int wrank, wsize;
static MPI_Group world_group;

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

static void *intra_side(void *arg)
{
    char tag[64];
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        snprintf(tag, sizeof tag, "intra-%d", i);
        CHECK(MPI_Comm_create_from_group(world_group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c)
              == MPI_SUCCESS, "Comm_create_from_group round %d", i);
        ring(c, i);
        MPI_Comm_free(&c);
    }
    return arg;
}

/* Even world ranks against odd ones (with one process: nothing to do). */
static void *inter_side(void *arg)
{
    if (wsize < 2)
        return arg;
    int n[2] = { (wsize + 1) / 2, wsize / 2 }, *r[2];
    MPI_Group g[2];
    for (int s = 0; s < 2; s++) {
        r[s] = malloc(sizeof(int) * (size_t)n[s]);
        for (int i = 0; i < n[s]; i++)
            r[s][i] = 2 * i + s;
        MPI_Group_incl(world_group, n[s], r[s], &g[s]);
        free(r[s]);
    }
    int side = wrank % 2;
    char tag[64];
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm ic;
        snprintf(tag, sizeof tag, "inter-%d", i);
        CHECK(MPI_Intercomm_create_from_groups(g[side], 0, g[1 - side], 0, tag, MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &ic) == MPI_SUCCESS,
              "Intercomm_create_from_groups round %d", i);
        int rsize, mine = wrank, sum = -1, want = 0;
        MPI_Comm_remote_size(ic, &rsize);
        CHECK(rsize == n[1 - side], "remote size %d", rsize);
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic);     /* sum over the other side */
        for (int k = 1 - side; k < wsize; k += 2)
            want += k;
        CHECK(sum == want, "intercomm allreduce gave %d, expected %d", sum, want);
        MPI_Comm_free(&ic);
    }
    MPI_Group_free(&g[0]);
    MPI_Group_free(&g[1]);
    return arg;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm base;
    MPI_Comm_dup(MPI_COMM_WORLD, &base);
    pthread_t t[2];
    pthread_create(&t[0], NULL, intra_side, NULL);
    pthread_create(&t[1], NULL, inter_side, NULL);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm d;
        MPI_Comm_dup(base, &d);
        ring(d, 500 + i);
        MPI_Comm_free(&d);
    }
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    MPI_Comm_free(&base);
    MPI_Group_free(&world_group);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

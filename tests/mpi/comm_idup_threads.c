/* mempi-test: np=1,2,3,5 timeout=120 */
/* comm_idup_threads.c -- MPI_THREAD_MULTIPLE: one thread runs blocking Comm_dup/free on one
 * communicator while another runs Comm_idup/Wait/free on another, so nonblocking context-id
 * agreements interleave with blocking ones and each must settle its reservation without
 * the other's (docs/architecture.md, "Context ids").  Every new communicator carries a ring
 * exchange checked for data and status.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 40 };
static int wrank, wsize;
static MPI_Comm ca, cb;

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
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 7, "ring status %d %d", st.MPI_SOURCE,
          st.MPI_TAG);
}

static void *blocking_side(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm d;
        MPI_Comm_dup(ca, &d);
        ring(d, i);
        MPI_Comm_free(&d);
    }
    return arg;
}

static void *nonblocking_side(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm d[2];
        MPI_Request r[2];
        MPI_Comm_idup(cb, &d[0], &r[0]);
        MPI_Comm_idup(cb, &d[1], &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        ring(d[0], 100 + i);
        ring(d[1], 200 + i);
        MPI_Comm_free(&d[0]);
        MPI_Comm_free(&d[1]);
    }
    return arg;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &ca);
    MPI_Comm_dup(MPI_COMM_WORLD, &cb);
    pthread_t t;
    pthread_create(&t, NULL, blocking_side, NULL);
    nonblocking_side(NULL);
    pthread_join(t, NULL);
    ring(ca, 1);
    ring(cb, 2);
    MPI_Comm_free(&ca);
    MPI_Comm_free(&cb);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("comm_idup_threads ok\n");
    MPI_Finalize();
    return 0;
}

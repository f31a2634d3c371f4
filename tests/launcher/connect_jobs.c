/* connect_jobs.c -- two separately started jobs meet through the name service and talk.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Helper of check-connect.  `connect_jobs server NAME` opens a port on rank 0, publishes it
 * as NAME and accepts over MPI_COMM_WORLD; `connect_jobs client NAME` looks NAME up (retrying
 * until the server published it) and connects over its MPI_COMM_WORLD.  Then, on the
 * intercommunicator: every rank sends its world rank + 1000 * side to every remote rank and
 * checks what it gets (point-to-point across jobs, all pairs); a large message each way
 * between the roots (rendezvous); an intercommunicator broadcast from the server's root; a
 * merge (server first) with an allreduce whose sum both sides know; then disconnect.  Prints
 * "ok" from each job's rank 0.
 */
#include <mpi.h>
#include "../mpi/check.h"
#include <time.h>

int main(int argc, char **argv)
{
    int rank, size, rsize, server;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter, merged;
    MPI_Init(&argc, &argv);
    CHECK(argc == 3, "usage: connect_jobs server|client NAME");
    server = strcmp(argv[1], "server") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (server) {
        if (rank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            CHECK_MPI(MPI_Publish_name(argv[2], MPI_INFO_NULL, port));
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
        if (rank == 0) {
            CHECK_MPI(MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port));
            CHECK_MPI(MPI_Close_port(port));
        }
    } else {
        if (rank == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            struct timespec ts = { 0, 20000000 };
            for (int i = 0; i < 3000 && MPI_Lookup_name(argv[2], MPI_INFO_NULL, port); i++)
                nanosleep(&ts, NULL);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            CHECK(port[0], "the server never published %s", argv[2]);
        }
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    }
    MPI_Comm_remote_size(inter, &rsize);
    int side = server ? 0 : 1;
    int *in = malloc(sizeof(int) * (size_t)rsize);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
    int mine = rank + 1000 * side;
    for (int r = 0; r < rsize; r++) {
        MPI_Irecv(&in[r], 1, MPI_INT, r, 9, inter, &reqs[r]);
        MPI_Isend(&mine, 1, MPI_INT, r, 9, inter, &reqs[rsize + r]);
    }
    MPI_Waitall(2 * rsize, reqs, MPI_STATUSES_IGNORE);
    for (int r = 0; r < rsize; r++)
        CHECK(in[r] == r + 1000 * (1 - side), "from remote %d got %d", r, in[r]);
    enum { BIG = 1 << 20 };
    double *big = malloc(sizeof(double) * BIG);
    if (rank == 0) {
        for (int i = 0; i < BIG; i++)
            big[i] = i * (side + 1.5);
        MPI_Sendrecv_replace(big, BIG, MPI_DOUBLE, 0, 11, 0, 11, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < BIG; i++)
            CHECK(big[i] == i * (2 - side + 0.5), "big[%d] = %g", i, big[i]);
    }
    free(big);
    int value = server ? 4242 : 0;
    MPI_Bcast(&value, 1, MPI_INT, server ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, inter);
    CHECK(value == 4242, "intercomm bcast gave %d", value);
    CHECK_MPI(MPI_Intercomm_merge(inter, !server, &merged));
    int mrank, msize, sum = 0, contrib = 1 + side;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size + rsize, "merged size %d", msize);
    CHECK(mrank == (server ? rank : rsize + rank), "merged rank %d", mrank);
    MPI_Allreduce(&contrib, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == (server ? size + 2 * rsize : rsize + 2 * size), "allreduce gave %d", sum);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    free(in);
    free(reqs);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

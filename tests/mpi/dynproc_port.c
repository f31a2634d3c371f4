/* mempi-test: np=1,2,3,5 timeout=60 */
/* dynproc_port.c -- Open_port/Close_port work; accept/connect fail at once on both sides.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The pattern of mpi4py's test_dynproc: rank 0 opens a port and sends its name to rank 1,
 * then accepts on MPI_COMM_SELF while the other ranks connect over their own communicator.
 * Dynamic processes are missing in MemPI, so both MPI_Comm_accept and MPI_Comm_connect must
 * return MPI_ERR_UNSUPPORTED_OPERATION -- on every rank, without waiting for anyone (the test
 * ends with a barrier that a rank stuck in accept/connect would never reach; the test
 * harness's timeout catches that).  Also: port names are distinct, Close_port releases a
 * port once, and rejects names it never opened.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank;

static int error_class(int err)
{
    int cls;
    MPI_Error_class(err, &cls);
    return cls;
}

static void ports_alone(void)
{
    char a[MPI_MAX_PORT_NAME], b[MPI_MAX_PORT_NAME];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    CHECK(MPI_Open_port(MPI_INFO_NULL, a) == MPI_SUCCESS, "Open_port failed");
    CHECK(MPI_Open_port(MPI_INFO_NULL, b) == MPI_SUCCESS, "second Open_port failed");
    CHECK(a[0] != '\0' && strlen(a) < MPI_MAX_PORT_NAME, "port name '%s'", a);
    CHECK(strcmp(a, b) != 0, "two open ports share the name '%s'", a);
    CHECK(MPI_Close_port(a) == MPI_SUCCESS, "Close_port of '%s' failed", a);
    int err = MPI_Close_port(a);
    CHECK(error_class(err) == MPI_ERR_PORT, "closing '%s' twice gave class %d", a, error_class(err));
    err = MPI_Close_port("no such port");
    CHECK(error_class(err) == MPI_ERR_PORT, "closing an unknown port gave class %d", error_class(err));
    CHECK(MPI_Close_port(b) == MPI_SUCCESS, "Close_port of '%s' failed", b);
    err = MPI_Open_port(MPI_INFO_NULL, NULL);
    CHECK(error_class(err) == MPI_ERR_ARG, "Open_port(NULL) gave class %d", error_class(err));
}

/* mpi4py's testAcceptConnect: every rank must get UNSUPPORTED and go on. */
static void accept_connect(int size)
{
    MPI_Group world, rest;
    MPI_Comm others, inter = MPI_COMM_NULL;
    int zero = 0, err;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &zero, &rest);
    MPI_Comm_create(MPI_COMM_WORLD, rest, &others);
    if (wrank == 0) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "Open_port failed");
        if (size > 1)
            MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        CHECK(error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "Comm_accept gave class %d",
              error_class(err));
        CHECK(MPI_Close_port(port) == MPI_SUCCESS, "Close_port failed");
    } else {
        if (wrank == 1)
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(wrank != 1 || strncmp(port, "mempi-port:", 11) == 0, "received port '%s'", port);
        err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, others, &inter);
        CHECK(error_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "Comm_connect gave class %d",
              error_class(err));
        MPI_Comm_free(&others);
    }
    CHECK(inter == MPI_COMM_NULL, "a failed accept/connect returned a communicator");
    MPI_Group_free(&rest);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    ports_alone();
    accept_connect(size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

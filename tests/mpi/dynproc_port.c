/* mempi-test: np=1,2,3,5 timeout=60 */
/* dynproc_port.c -- ports, accept/connect within one job, and the name service.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The pattern of mpi4py's test_dynproc: rank 0 opens a port and sends its name to rank 1,
 * then accepts on MPI_COMM_SELF while the other ranks connect over their own communicator.
 * The intercommunicator must carry small and large messages both ways, merge (with the
 * acceptor's "high" flag putting it last) and disconnect; a dead port fails with
 * MPI_ERR_PORT on every connecting rank.  Also: port names are distinct, Close_port releases
 * a port once and rejects names it never opened, and the name service publishes, finds (from
 * every rank), refuses a second publish and a second unpublish (MPI_ERR_SERVICE), and
 * reports an unknown name with MPI_ERR_NAME.  A job on one host gets Unix-socket ports, one
 * across hosts TCP ports (reachable from the other hosts), where the acceptor ignores a
 * connection that does not show the port's token.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

static int wrank, several_hosts;

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
    /* a job on one host never listens on the network; one across hosts must be reachable */
    const char *kind = several_hosts ? "mempi-port:tcp:" : "mempi-port:unix:";
    CHECK(strncmp(a, kind, strlen(kind)) == 0, "port '%s' is not a %s port", a, kind);
    CHECK(MPI_Close_port(a) == MPI_SUCCESS, "Close_port of '%s' failed", a);
    int err = MPI_Close_port(a);
    CHECK(error_class(err) == MPI_ERR_PORT, "closing '%s' twice gave class %d", a, error_class(err));
    err = MPI_Close_port("no such port");
    CHECK(error_class(err) == MPI_ERR_PORT, "closing an unknown port gave class %d", error_class(err));
    CHECK(MPI_Close_port(b) == MPI_SUCCESS, "Close_port of '%s' failed", b);
    err = MPI_Open_port(MPI_INFO_NULL, NULL);
    CHECK(error_class(err) == MPI_ERR_ARG, "Open_port(NULL) gave class %d", error_class(err));
}

/* A stranger on the network connects to a TCP port first and sends 16 wrong bytes (the
 * token): the acceptor must drop it and still accept the real connection. */
static void stranger(const char *port)
{
    char serv[32] = "";
    const char *p = port + strlen("mempi-port:tcp:"), *colon = strchr(p, ':');
    CHECK(colon && (size_t)(colon - p) < sizeof serv, "TCP port name '%s'", port);
    memcpy(serv, p, (size_t)(colon - p));
    const char *host = strchr(colon + 1, ':');
    CHECK(host != NULL, "TCP port name '%s' has no address", port);
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                              .ai_socktype = SOCK_STREAM }, *ai = NULL;
    CHECK(getaddrinfo(host + 1, serv, &hints, &ai) == 0, "address of '%s'", port);
    int fd = socket(ai->ai_family, SOCK_STREAM, 0);
    CHECK(fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0, "connect to '%s'", port);
    CHECK(write(fd, "0123456789abcdef", 16) == 16, "write to '%s'", port);
    freeaddrinfo(ai);
    close(fd);
}

/* mpi4py's testAcceptConnect: rank 0 accepts on MPI_COMM_SELF, the others connect over their
 * own communicator; data both ways, a merge, then a disconnect. */
static void accept_connect(int size)
{
    MPI_Group world, rest;
    MPI_Comm others, inter = MPI_COMM_NULL, merged;
    int zero = 0, rsize = -1, isinter = 0;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &zero, &rest);
    MPI_Comm_create(MPI_COMM_WORLD, rest, &others);
    if (size == 1)
        goto done;
    if (wrank == 0) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "Open_port failed");
        MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
        CHECK(MPI_Close_port(port) == MPI_SUCCESS, "Close_port failed");
    } else {
        if (wrank == 1)
            MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(wrank != 1 || strncmp(port, "mempi-port:", 11) == 0, "received port '%s'", port);
        if (wrank == 1 && several_hosts)
            stranger(port);
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, others, &inter));
    }
    MPI_Comm_test_inter(inter, &isinter);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(isinter && rsize == (wrank == 0 ? size - 1 : 1), "intercomm remote size %d", rsize);
    /* the acceptor sends every connector its rank + 100; each answers with its rank */
    if (wrank == 0) {
        for (int r = 0; r < size - 1; r++) {
            int v = r + 100, back = -1;
            MPI_Status st;
            MPI_Send(&v, 1, MPI_INT, r, 3, inter);
            MPI_Recv(&back, 1, MPI_INT, MPI_ANY_SOURCE, 4, inter, &st);
            CHECK(back == st.MPI_SOURCE * 2 && st.MPI_TAG == 4, "got %d from %d", back,
                  st.MPI_SOURCE);
        }
    } else {
        int v = -1, me;
        MPI_Comm_rank(inter, &me);
        MPI_Recv(&v, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
        CHECK(v == me + 100, "got %d, expected %d", v, me + 100);
        v = me * 2;
        MPI_Send(&v, 1, MPI_INT, 0, 4, inter);
    }
    /* a large message (rendezvous) each way */
    enum { BIG = 300000 };
    int *big = malloc(sizeof(int) * BIG);
    if (wrank == 0) {
        for (int i = 0; i < BIG; i++)
            big[i] = i ^ 0x5a5a;
        MPI_Send(big, BIG, MPI_INT, size - 2, 5, inter);
        memset(big, 0, sizeof(int) * BIG);
        MPI_Recv(big, BIG, MPI_INT, size - 2, 6, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < BIG; i++)
            CHECK(big[i] == i * 3, "big[%d] = %d back", i, big[i]);
    } else if (wrank == size - 1) {
        MPI_Recv(big, BIG, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < BIG; i++)
            CHECK(big[i] == (i ^ 0x5a5a), "big[%d] = %d", i, big[i]);
        for (int i = 0; i < BIG; i++)
            big[i] = i * 3;
        MPI_Send(big, BIG, MPI_INT, 0, 6, inter);
    }
    free(big);
    /* merge: the acceptor asks to go high, so it is last */
    int mrank = -1, msize = -1, sum = 0, one = 1;
    CHECK_MPI(MPI_Intercomm_merge(inter, wrank == 0, &merged));
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size && mrank == (wrank == 0 ? size - 1 : wrank - 1),
          "merged rank %d of %d", mrank, msize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == size, "allreduce over the merged communicator gave %d", sum);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "disconnect left a handle");
    /* a port nobody listens on: connect fails with MPI_ERR_PORT on every rank at once */
    if (wrank != 0) {
        int err = MPI_Comm_connect("mempi-port:unix:/nonexistent/port", MPI_INFO_NULL, 0,
                                   others, &inter);
        CHECK(error_class(err) == MPI_ERR_PORT && inter == MPI_COMM_NULL,
              "connect to a dead port gave class %d", error_class(err));
    }
done:
    if (others != MPI_COMM_NULL)
        MPI_Comm_free(&others);
    MPI_Group_free(&rest);
    MPI_Group_free(&world);
}

/* The name service: publish, look up from another rank, unpublish; unknown names fail. */
static void names(void)
{
    char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "", service[64];
    int err;
    long id = (long)getppid();        /* rank 0's: each host has its own launcher proxy */
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(service, sizeof service, "mempi-test-%ld", id);
    if (wrank == 0) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
        err = MPI_Publish_name(service, MPI_INFO_NULL, port);
        CHECK(err != MPI_SUCCESS, "publishing a name twice succeeded");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
    CHECK(strncmp(found, "mempi-port:", 11) == 0, "lookup gave '%s'", found);
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0) {
        CHECK(strcmp(found, port) == 0, "lookup gave '%s', published '%s'", found, port);
        CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        err = MPI_Unpublish_name(service, MPI_INFO_NULL, port);
        CHECK(error_class(err) == MPI_ERR_SERVICE, "second unpublish gave class %d",
              error_class(err));
        CHECK_MPI(MPI_Close_port(port));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    err = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    CHECK(error_class(err) == MPI_ERR_NAME, "lookup of an unpublished name gave class %d",
          error_class(err));
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    several_hosts = check_several_hosts(MPI_COMM_WORLD);
    ports_alone();
    accept_connect(size);
    names();
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=60 */
/* dynproc_join.c -- MPI_Comm_join between ranks of one job; a foreign peer fails at once.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Ranks pair up (0-1, 2-3, ...; an odd last rank has no partner): the even rank listens on
 * a TCP socket of the loopback interface, sends its port number to the odd rank, which
 * connects; both call MPI_Comm_join on their end.  The result must be an intercommunicator
 * of one local and one remote process through which data flows both ways (checked with a
 * bcast from each side and a sendrecv), and the socket must still work afterwards.  Twice
 * over the same socket, so two joins of one pair get different communicators.
 * A socket whose other end is not MemPI (a socketpair with garbage waiting in it) must fail
 * with an error at once, not wait.  mpi4py's testJoin runs the pair 0-1 while the other
 * ranks wait in a barrier: every rank ends in a barrier here too.
 */
#include <mpi.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: line %d: ", wrank, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int wrank;

/* Connected TCP socket to the partner: the lower rank listens. */
static int connect_pair(int partner)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = 0, fd;
    if (wrank < partner) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0,
              "cannot listen on the loopback interface");
        CHECK(getsockname(l, (struct sockaddr *)&a, &len) == 0, "getsockname");
        port = ntohs(a.sin_port);
        MPI_Send(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        MPI_Recv(&port, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        a.sin_port = htons((unsigned short)port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to port %d", port);
    }
    CHECK(fd >= 0, "accept failed");
    return fd;
}

static void check_intercomm(MPI_Comm ic, int partner, int round)
{
    int flag, size, rsize, rank;
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &rank);
    CHECK(flag && size == 1 && rsize == 1 && rank == 0, "join gave inter=%d size=%d remote=%d rank=%d",
          flag, size, rsize, rank);
    /* each side broadcasts its world rank to the other */
    int mine[2] = { wrank, round }, got[2] = { -1, -1 };
    if (wrank < partner) {
        MPI_Bcast(mine, 2, MPI_INT, MPI_ROOT, ic);
        MPI_Bcast(got, 2, MPI_INT, 0, ic);
    } else {
        MPI_Bcast(got, 2, MPI_INT, 0, ic);
        MPI_Bcast(mine, 2, MPI_INT, MPI_ROOT, ic);
    }
    CHECK(got[0] == partner && got[1] == round, "bcast over the join gave %d/%d", got[0], got[1]);
    int back = -1;
    MPI_Sendrecv(&wrank, 1, MPI_INT, 0, 5, &back, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
    CHECK(back == partner, "sendrecv over the join gave %d", back);
}

static void foreign_peer(void)
{
    int sv[2], err, cls;
    char junk[256];
    memset(junk, 'x', sizeof junk);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    CHECK(write(sv[1], junk, sizeof junk) == (ssize_t)sizeof junk, "write");
    MPI_Comm ic = MPI_COMM_NULL;
    err = MPI_Comm_join(sv[0], &ic);
    MPI_Error_class(err, &cls);
    CHECK(err != MPI_SUCCESS && cls == MPI_ERR_OTHER && ic == MPI_COMM_NULL,
          "join with a foreign peer gave class %d", cls);
    err = MPI_Comm_join(-1, &ic);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "join(-1) gave class %d", cls);
    close(sv[0]);
    close(sv[1]);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    foreign_peer();
    int partner = wrank ^ 1;
    if (partner < size) {
        int fd = connect_pair(partner);
        MPI_Comm ic[2];
        for (int round = 0; round < 2; round++) {
            CHECK(MPI_Comm_join(fd, &ic[round]) == MPI_SUCCESS, "MPI_Comm_join round %d failed", round);
            check_intercomm(ic[round], partner, round);
        }
        int cmp;
        MPI_Comm_compare(ic[0], ic[1], &cmp);
        CHECK(cmp == MPI_CONGRUENT, "the two joins compare as %d", cmp);
        MPI_Comm_free(&ic[0]);
        MPI_Comm_free(&ic[1]);
        /* the socket is quiescent and still usable */
        char c = (char)('a' + wrank), d = 0;
        CHECK(write(fd, &c, 1) == 1 && read(fd, &d, 1) == 1 && d == 'a' + partner,
              "socket after join read '%c'", d);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

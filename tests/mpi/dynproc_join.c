/* mempi-test: np=1,2,3,5 timeout=60 */
/* dynproc_join.c -- MPI_Comm_join between ranks of one job; a foreign peer fails at once.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Ranks pair up (0-1, 2-3, ...; an odd last rank has no partner): the even rank listens on
 * a TCP socket -- of the loopback interface when its partner shares its node, else of its
 * first other IPv4 address (a pair may span two nodes of a cluster) -- and sends address and
 * port to the odd rank, which connects; both call MPI_Comm_join on their end.  The result must be an intercommunicator
 * of one local and one remote process through which data flows both ways (checked with a
 * bcast from each side and a sendrecv), and the socket must still work afterwards.  Twice
 * over the same socket, so two joins of one pair get different communicators.
 * A socket whose other end is not MemPI (a socketpair with garbage waiting in it) must fail
 * with an error at once, not wait.  mpi4py's testJoin runs the pair 0-1 while the other
 * ranks wait in a barrier: every rank ends in a barrier here too.
 */
#include <mpi.h>
#include "check.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int wrank;

/* Whether world rank other shares this process's node (collective over the world). */
static int same_node(int other)
{
    MPI_Comm node;
    MPI_Group wg, ng;
    int there = MPI_UNDEFINED;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(node, &ng);
    if (other >= 0)
        MPI_Group_translate_ranks(wg, 1, &other, ng, &there);
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    MPI_Comm_free(&node);
    return there != MPI_UNDEFINED;
}

/* The address a partner can reach this process at: loopback on the same node, else this
 * node's first IPv4 address that is not loopback (network byte order). */
static uint32_t reachable_address(int partner_local)
{
    if (partner_local)
        return htonl(INADDR_LOOPBACK);
    struct ifaddrs *list, *i;
    uint32_t addr = 0;
    CHECK(getifaddrs(&list) == 0, "getifaddrs");
    for (i = list; i && addr == 0; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !(i->ifa_flags & IFF_LOOPBACK))
            addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
    freeifaddrs(list);
    CHECK(addr != 0, "the partner is on another node, and this node has no IPv4 address");
    return addr;
}

/* Connected TCP socket to the partner: the lower rank listens. */
static int connect_pair(int partner, int partner_local)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    unsigned where[2];                  /* address (network order), port */
    int fd;
    if (wrank < partner) {
        a.sin_addr.s_addr = reachable_address(partner_local);
        int l = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0,
              "cannot listen on %s", inet_ntoa(a.sin_addr));
        CHECK(getsockname(l, (struct sockaddr *)&a, &len) == 0, "getsockname");
        where[0] = a.sin_addr.s_addr;
        where[1] = ntohs(a.sin_port);
        MPI_Send(where, 2, MPI_UNSIGNED, partner, 1, MPI_COMM_WORLD);
        fd = accept(l, NULL, NULL);
        close(l);
    } else {
        MPI_Recv(where, 2, MPI_UNSIGNED, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        a.sin_addr.s_addr = where[0];
        a.sin_port = htons((unsigned short)where[1]);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to %s port %u",
              inet_ntoa(a.sin_addr), where[1]);
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
    int local = same_node(partner < size ? partner : -1);
    if (partner < size) {
        int fd = connect_pair(partner, local);
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

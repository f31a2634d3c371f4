/* mempi-test: np=1,2,3,5 timeout=180 */
/* mempi-test: np=2,3 timeout=180 env=MEMPI_SENDREQ=0,MEMPI_EAGER_MAX=64 */
/* part_early.c -- partitions readied early travel early: a receive partition arrives while the sender still holds the others back.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends to the next and receives from the previous one (np=1: to itself).  In
 * each case the sender readies only the partitions that cover one receive partition k (and a
 * few after it), tells the receiver so by an ordinary message, and waits for the receiver's
 * answer before readying the rest.  The receiver calls MPI_Parrived(k) until it is true --
 * which can only happen if the ready partitions left before the others -- checks partition
 * k's data, checks that a partition whose data the sender has not readied has not arrived,
 * answers, and then waits for the whole message and checks every element and the status.
 * Cases: equal partitioning; a receiver with half as many partitions; a sender whose elements
 * (two doubles) straddle the receiver's partition boundaries; partitions of 128 KiB (above
 * the eager limit: request for sending or rendezvous) readied out of order; 10000 partitions
 * of one double.  A library that sends a round only when every partition is ready hangs
 * here, which the timeout reports.  MPI does not require early travel; MemPI promises it
 * (README, partitioned communication); MPICH 4.0.2 sends a round only when it is complete and
 * hangs here.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int rank, size, next, prev;

typedef struct {
    const char *name;
    int sparts, scount, swidth;       /* sender: partitions x count elements of swidth doubles */
    int rparts, rcount;               /* receiver: partitions x count doubles */
    int k, ahead;                     /* watched receive partition; receive partitions readied */
    int quiet;                        /* a receive partition whose data stays held back */
} early_case;

static double value(int who, int round, long i)
{
    return who * 1e7 + round * 1e6 + (double)i;
}

static void run_case(const early_case *c, MPI_Datatype stype, int round)
{
    long total = (long)c->rparts * c->rcount, per_s = (long)c->scount * c->swidth;
    CHECK(total == c->sparts * per_s, "%s: test sizes differ", c->name);
    double *sbuf = malloc(sizeof(double) * total), *rbuf = malloc(sizeof(double) * total);
    MPI_Request sreq, rreq;
    MPI_Status st;
    for (long i = 0; i < total; i++) {
        sbuf[i] = value(rank, round, i);
        rbuf[i] = -1;
    }
    CHECK_MPI(MPI_Precv_init(rbuf, c->rparts, c->rcount, MPI_DOUBLE, prev, 9, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &rreq));
    CHECK_MPI(MPI_Psend_init(sbuf, c->sparts, c->scount, stype, next, 9, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Start(&sreq));

    /* sender partitions under receive partitions [k, k + ahead) */
    int first = (int)((long)c->k * c->rcount / per_s);
    int last = (int)(((long)(c->k + c->ahead) * c->rcount - 1) / per_s);
    for (int p = last; p >= first; p--)
        CHECK_MPI(MPI_Pready(p, sreq));
    int token = round, got = -1, flag = 0;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, next, 10, MPI_COMM_WORLD));

    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, prev, 10, MPI_COMM_WORLD, &st));
    CHECK(got == round && st.MPI_SOURCE == prev, "%s: token %d from %d", c->name, got,
          st.MPI_SOURCE);
    do
        CHECK_MPI(MPI_Parrived(rreq, c->k, &flag));
    while (!flag);
    for (long i = (long)c->k * c->rcount; i < (long)(c->k + 1) * c->rcount; i++)
        CHECK(rbuf[i] == value(prev, round, i), "%s: element %ld is %g after Parrived(%d), "
              "expected %g", c->name, i, rbuf[i], c->k, value(prev, round, i));
    CHECK_MPI(MPI_Parrived(rreq, c->quiet, &flag));
    CHECK(!flag, "%s: partition %d arrived although the sender has not readied its data",
          c->name, c->quiet);
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, prev, 11, MPI_COMM_WORLD));

    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, next, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int p = 0; p < c->sparts; p++)
        if (p < first || p > last)
            CHECK_MPI(MPI_Pready(p, sreq));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    int n = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &n));
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 9 && n == total, "%s: status source %d tag %d "
          "count %d, expected %d 9 %ld", c->name, st.MPI_SOURCE, st.MPI_TAG, n, prev, total);
    for (long i = 0; i < total; i++)
        CHECK(rbuf[i] == value(prev, round, i), "%s: element %ld is %g, expected %g", c->name,
              i, rbuf[i], value(prev, round, i));
    CHECK_MPI(MPI_Request_free(&rreq));
    CHECK_MPI(MPI_Request_free(&sreq));
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Datatype pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    static const early_case cases[] = {
        {"equal partitions", 6, 1000, 1, 6, 1000, 2, 1, 5},
        {"receiver coarser", 8, 300, 1, 4, 600, 1, 1, 3},
        {"elements straddle", 3, 10, 2, 12, 5, 1, 1, 11},
        {"128 KiB partitions", 4, 16384, 1, 4, 16384, 3, 1, 0},
        {"10000 partitions", 10000, 1, 1, 10000, 1, 0, 8, 9999},
    };
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run_case(&cases[i], cases[i].swidth == 2 ? pair : MPI_DOUBLE, round);
    CHECK_MPI(MPI_Type_free(&pair));
    if (rank == 0)
        printf("part_early: %d processes: ok\n", size);
    MPI_Finalize();
    return 0;
}

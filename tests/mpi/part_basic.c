/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_SENDREQ=0,MEMPI_EAGER_MAX=64 */
/* part_basic.c -- partitioned communication (MPI 4.0 chapter 4) around a ring.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends to the next and receives from the previous one (at np=1: to itself).
 * Checked: data and status over several rounds with different partition counts on the two
 * sides (8 x n against 4 x 2n), partitions readied out of order by Pready, Pready_range and
 * Pready_list; MPI_Parrived false before any partition was readied anywhere and true (with the
 * data in the buffer) at the end; two partitioned requests with one tag between one pair
 * matched in initialisation order although the second is readied and started first; a large
 * derived-datatype message; a send whose partitions are all ready before the receive exists,
 * while its process blocks in MPI_Recv (the send must still leave); MPI_PROC_NULL; Testall and
 * Request_free; the errors the standard names, under MPI_ERRORS_RETURN.  Cross-check:
 * mpicc.mpich -DMPICH_402 (MPICH 4.0.2 rejects MPI_Parrived on an inactive request, which
 * MPI 4.0 allows, and its MPI_Testall fails on partitioned requests: Waitall there; it
 * crashes on MPI_PROC_NULL and leaves the handle of a failed MPI_Psend_init unset).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, next, prev;

static int value(int who, int round, int i)
{
    return who * 1000003 + round * 7919 + i;
}

static void check_status(const MPI_Status *st, int source, int tag, int nints)
{
    int n;
    CHECK(st->MPI_SOURCE == source, "status source %d, expected %d", st->MPI_SOURCE, source);
    CHECK(st->MPI_TAG == tag, "status tag %d, expected %d", st->MPI_TAG, tag);
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(n == nints, "status count %d, expected %d", n, nints);
}

/* 8 partitions of n ints sent, 4 of 2n received; several rounds. */
static void test_rounds(void)
{
    enum { N = 300, SP = 8, RP = 4, ROUNDS = 5 };
    int *sbuf = malloc(sizeof(int) * N * SP), *rbuf = malloc(sizeof(int) * N * SP);
    MPI_Request sreq, rreq;
    MPI_Status st;
    CHECK_MPI(MPI_Precv_init(rbuf, RP, 2 * N, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rreq));
    CHECK_MPI(MPI_Psend_init(sbuf, SP, N, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N * SP; i++)
            rbuf[i] = -1;
        CHECK_MPI(MPI_Start(&rreq));
        CHECK_MPI(MPI_Start(&sreq));
        int flag = 1;
        CHECK_MPI(MPI_Parrived(rreq, 0, &flag));
        CHECK(flag == 0, "round %d: partition 0 arrived before any was readied", round);
        MPI_Barrier(MPI_COMM_WORLD);           /* nobody readies before everyone checked */
        for (int p = SP - 1; p >= 0; p--) {    /* fill and ready in reverse order */
            for (int i = 0; i < N; i++)
                sbuf[p * N + i] = value(rank, round, p * N + i);
            if (round % 3 == 0)
                CHECK_MPI(MPI_Pready(p, sreq));
            else if (round % 3 == 1 && p % 2 == 0)
                CHECK_MPI(MPI_Pready_range(p, p + 1, sreq));
            else if (round % 3 == 2 && p == 0) {
                int list[SP];
                for (int k = 0; k < SP; k++)
                    list[k] = (k * 5) % SP;    /* a permutation */
                CHECK_MPI(MPI_Pready_list(SP, list, sreq));
            }
        }
        for (int p = 0; p < RP; p++) {         /* Parrived true means the data is there */
            do
                CHECK_MPI(MPI_Parrived(rreq, p, &flag));
            while (!flag);
            for (int i = p * 2 * N; i < (p + 1) * 2 * N; i++)
                CHECK(rbuf[i] == value(prev, round, i), "round %d: element %d is %d after "
                      "Parrived(%d), expected %d", round, i, rbuf[i], p, value(prev, round, i));
        }
        CHECK_MPI(MPI_Wait(&rreq, &st));
        check_status(&st, prev, 5, N * SP);
        CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        CHECK(rreq != MPI_REQUEST_NULL && sreq != MPI_REQUEST_NULL, "persistent handles kept");
#ifndef MPICH_402                               /* MPICH 4.0.2 raises an error here */
        flag = 0;
        CHECK_MPI(MPI_Parrived(rreq, 1, &flag));   /* inactive: MPI 4.0 says flag = true */
        CHECK(flag == 1, "Parrived on an inactive request gave 0");
        flag = 0;
        CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
        CHECK(flag == 1, "Parrived on MPI_REQUEST_NULL gave 0");
#endif
    }
    CHECK_MPI(MPI_Request_free(&rreq));
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK(rreq == MPI_REQUEST_NULL && sreq == MPI_REQUEST_NULL, "Request_free resets handles");
    free(sbuf);
    free(rbuf);
}

/* Two partitioned pairs with one tag: A initialised before B on both sides, B started and
 * readied first; A's data must land in A's receive buffer. */
static void test_init_order(void)
{
    enum { N = 64 };
    int sa[N], sb[N], ra[N], rb[N];
    MPI_Request s[2], r[2];
    MPI_Status st[2];
    for (int i = 0; i < N; i++) {
        sa[i] = value(rank, 1, i);
        sb[i] = value(rank, 2, i);
        ra[i] = rb[i] = -1;
    }
    CHECK_MPI(MPI_Psend_init(sa, 2, N / 2, MPI_INT, next, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s[0]));
    CHECK_MPI(MPI_Precv_init(ra, 1, N, MPI_INT, prev, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    CHECK_MPI(MPI_Psend_init(sb, 4, N / 4, MPI_INT, next, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s[1]));
    CHECK_MPI(MPI_Precv_init(rb, 2, N / 2, MPI_INT, prev, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    CHECK_MPI(MPI_Start(&r[1]));
    CHECK_MPI(MPI_Start(&s[1]));
    CHECK_MPI(MPI_Pready_range(0, 3, s[1]));
    CHECK_MPI(MPI_Wait(&r[1], &st[1]));       /* B completes while A has not even started */
    check_status(&st[1], prev, 9, N);
    for (int i = 0; i < N; i++)
        CHECK(rb[i] == value(prev, 2, i), "B element %d is %d, expected %d", i, rb[i],
              value(prev, 2, i));
    CHECK_MPI(MPI_Startall(1, &r[0]));
    CHECK_MPI(MPI_Startall(1, &s[0]));
    CHECK_MPI(MPI_Pready(1, s[0]));
    CHECK_MPI(MPI_Pready(0, s[0]));
    int done = 0;
    MPI_Request all[3] = { r[0], s[0], s[1] };
#ifdef MPICH_402                               /* its Testall fails on these requests */
    CHECK_MPI(MPI_Waitall(3, all, MPI_STATUSES_IGNORE));
    done = 1;
#endif
    while (!done)
        CHECK_MPI(MPI_Testall(3, all, &done, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(ra[i] == value(prev, 1, i), "A element %d is %d, expected %d", i, ra[i],
              value(prev, 1, i));
    for (int k = 0; k < 2; k++) {
        CHECK_MPI(MPI_Request_free(&s[k]));
        CHECK_MPI(MPI_Request_free(&r[k]));
    }
}

/* 1 MiB of every other int (a vector type), 16 partitions each side. */
static void test_large_vector(void)
{
    enum { PARTS = 16, PER = 1 << 14 };         /* ints per partition */
    MPI_Datatype vec;
    MPI_Type_vector(PER, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *sbuf = malloc(sizeof(int) * 2 * PER * PARTS), *rbuf = malloc(sizeof(int) * PER * PARTS);
    for (int i = 0; i < 2 * PER * PARTS; i++)
        sbuf[i] = (i % 2) ? -7 : value(rank, 3, i / 2);
    for (int i = 0; i < PER * PARTS; i++)
        rbuf[i] = -1;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(vec, &lb, &extent);
    MPI_Datatype vec_r;                         /* one partition = 2*PER ints of the buffer */
    MPI_Type_create_resized(vec, 0, 2 * PER * (MPI_Aint)sizeof(int), &vec_r);
    MPI_Type_commit(&vec_r);
    MPI_Request sreq, rreq;
    MPI_Status st;
    CHECK_MPI(MPI_Psend_init(sbuf, PARTS, 1, vec_r, next, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(rbuf, PARTS, PER, MPI_INT, prev, 11, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rreq));
    MPI_Request both[2] = { rreq, sreq };
    CHECK_MPI(MPI_Startall(2, both));
    for (int p = 0; p < PARTS; p++)
        CHECK_MPI(MPI_Pready((p * 7) % PARTS, sreq));
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, both, sts));
    st = sts[0];
    check_status(&st, prev, 11, PER * PARTS);
    for (int i = 0; i < PER * PARTS; i++)
        if (rbuf[i] != value(prev, 3, i)) {
            FAIL("vector element %d is %d, expected %d", i, rbuf[i], value(prev, 3, i));
            break;
        }
    CHECK_MPI(MPI_Request_free(&both[0]));
    CHECK_MPI(MPI_Request_free(&both[1]));
    MPI_Type_free(&vec);
    MPI_Type_free(&vec_r);
    free(sbuf);
    free(rbuf);
}

/* The send is complete on the sender's side (all partitions ready) before the receiver
 * initialises its receive, and the sender then blocks in MPI_Recv: the data must leave
 * while it waits there. */
static void test_ready_before_receiver(void)
{
    enum { N = 5000 };
    int *sbuf = malloc(sizeof(int) * N), *rbuf = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) {
        sbuf[i] = value(rank, 4, i);
        rbuf[i] = -1;
    }
    MPI_Request sreq, rreq;
    MPI_Status st;
    int go = 0, ack = 0;
    CHECK_MPI(MPI_Psend_init(sbuf, 5, N / 5, MPI_INT, next, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Start(&sreq));
    CHECK_MPI(MPI_Pready_range(0, 4, sreq));
    MPI_Send(&go, 1, MPI_INT, next, 14, MPI_COMM_WORLD);
    MPI_Recv(&go, 1, MPI_INT, prev, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_MPI(MPI_Precv_init(rbuf, 1, N, MPI_INT, prev, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    check_status(&st, prev, 13, N);
    for (int i = 0; i < N; i++)
        CHECK(rbuf[i] == value(prev, 4, i), "element %d is %d, expected %d", i, rbuf[i],
              value(prev, 4, i));
    MPI_Send(&ack, 1, MPI_INT, prev, 15, MPI_COMM_WORLD);
    MPI_Recv(&ack, 1, MPI_INT, next, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&sreq));
    CHECK_MPI(MPI_Request_free(&rreq));
    free(sbuf);
    free(rbuf);
}

static void test_proc_null(void)
{
    int buf[4] = { 1, 2, 3, 4 };
    MPI_Request sreq, rreq;
    MPI_Status st;
    CHECK_MPI(MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &sreq));
    CHECK_MPI(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rreq));
    CHECK_MPI(MPI_Start(&sreq));
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Pready_range(0, 1, sreq));
    CHECK_MPI(MPI_Wait(&sreq, &st));
    CHECK_MPI(MPI_Wait(&rreq, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL receive: source %d", st.MPI_SOURCE);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "PROC_NULL receive: count %d", n);
    CHECK(buf[0] == 1 && buf[3] == 4, "PROC_NULL receive changed the buffer");
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
}

static void test_errors(void)
{
    int buf[8];
    MPI_Request sreq, rreq, req;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Psend_init(buf, 2, 4, MPI_INT, next, MPI_ANY_TAG, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req), MPI_ERR_TAG);
#ifndef MPICH_402
    CHECK(req == MPI_REQUEST_NULL, "failed Psend_init left a request");
#endif
    CHECK_CLASS(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Psend_init(buf, 2, 4, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Psend_init(buf, 2, -1, MPI_INT, next, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
                MPI_ERR_COUNT);
    CHECK_MPI(MPI_Psend_init(buf, 2, 4, MPI_INT, next, 21, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    CHECK_MPI(MPI_Precv_init(buf, 2, 4, MPI_INT, prev, 21, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    CHECK_CLASS(MPI_Pready(0, sreq), MPI_ERR_REQUEST);          /* inactive */
    CHECK_MPI(MPI_Start(&sreq));
    CHECK_CLASS(MPI_Start(&sreq), MPI_ERR_REQUEST);             /* already active */
    CHECK_CLASS(MPI_Pready(2, sreq), MPI_ERR_ARG);              /* out of range */
    CHECK_CLASS(MPI_Pready(-1, sreq), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_range(1, 0, sreq), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(0, rreq), MPI_ERR_REQUEST);          /* a receive */
    int flag;
    CHECK_CLASS(MPI_Parrived(sreq, 0, &flag), MPI_ERR_REQUEST); /* a send */
    CHECK_CLASS(MPI_Parrived(rreq, 5, &flag), MPI_ERR_ARG);
    CHECK_MPI(MPI_Pready(0, sreq));
    CHECK_CLASS(MPI_Pready(0, sreq), MPI_ERR_ARG);              /* twice in a round */
    CHECK_MPI(MPI_Pready(1, sreq));
    CHECK_MPI(MPI_Start(&rreq));
    CHECK_MPI(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    test_rounds();
    test_init_order();
    test_large_vector();
    test_ready_before_receiver();
#ifndef MPICH_402                               /* MPICH 4.0.2 (UCX) crashes in Psend_init */
    test_proc_null();
#endif
#ifndef MPICH_402                               /* MPICH 4.0.2: MPI_ERR_OTHER for most */
    test_errors();
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && check_failures == 0)
        printf("part_basic: ok\n");
    MPI_Finalize();
    return check_failures != 0;
}

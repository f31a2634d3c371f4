/* mempi-test: np=2,3,5 timeout=120 */
/* mempi-test: np=2,3,5 timeout=120 env=MEMPI_COLL_BARRIER=dissemination,MEMPI_COLL_ALLREDUCE=recursive_doubling,MEMPI_COLL_BCAST=binomial */
/* mempi-test: np=3,5 timeout=120 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=2,5 timeout=120 env=COLL_ORDER_THREAD_MULTIPLE=1 */
/* coll_order.c -- blocking and nonblocking collectives interleaved, started and completed in different orders on different ranks.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * 1. mpi4py's testIAgree pattern (tests/mpi4py/repro/iallreduce_then_barrier.c): one rank
 *    starts an Iallreduce before a Barrier, the others after it.  Collectives are numbered
 *    per class (blocking / nonblocking, src/coll/sched.c), so the two calls cannot take each
 *    other's messages.
 * 2. Several nonblocking collectives of different kinds outstanding at once, blocking ones
 *    called while they are in flight, and the nonblocking ones completed in a different order
 *    on every rank (reverse, rotated, Testany, Waitsome), with sizes that use eager and
 *    rendezvous transfers.
 * 3. Blocking collectives placed before a nonblocking one on some ranks and after it on
 *    others, for several kinds (the class rule again, beyond barrier).
 * 4. A user op freed while a nonblocking collective still uses it.
 * Each data result is checked against a local reference and each status must be empty.
 * The configurations force message barriers (env), simulate nodes, and use
 * MPI_THREAD_MULTIPLE (which turns the shared-memory collectives off, as under mpi4py).
 */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include "check.h"
#include "coll_forced.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void check_empty(const MPI_Status *st, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    /* no MPI_ERROR: single-completion calls do not write it (MPI 4.0 3.2.5) */
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG || n != 0)
        FAIL("%s: status not empty (source %d tag %d count %d)", what, st->MPI_SOURCE,
             st->MPI_TAG, n);
}

static int val(int r, long i, int k) { return (int)((r * 7919L + i * 31L + k * 1009L) % 100003L); }

/* ---- 1: the mpi4py pattern ---------------------------------------------------------------- */
static void agree_pattern(MPI_Comm comm)
{
    for (int root = 0; root < size; root++) {
        int ibuf = rank == root ? 0xB : 0xD, flag = -1, done;
        MPI_Request req;
        MPI_Status st;
        CHECK_MPI(MPI_Barrier(comm));
        if (rank == root) {
            CHECK_MPI(MPI_Iallreduce(&ibuf, &flag, 1, MPI_INT, MPI_BAND, comm, &req));
            CHECK_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
            if (done && size > 1)
                FAIL("Iallreduce complete before the other ranks started it");
            CHECK_MPI(MPI_Barrier(comm));
        } else {
            usleep(5000);
            CHECK_MPI(MPI_Barrier(comm));
            CHECK_MPI(MPI_Iallreduce(&ibuf, &flag, 1, MPI_INT, MPI_BAND, comm, &req));
        }
        CHECK_MPI(MPI_Wait(&req, &st));
        check_empty(&st, "agree Iallreduce");
        int expect = size == 1 ? 0xB : 0x9;      /* 1011 & 1101 */
        if (flag != expect)
            FAIL("agree root %d: flag %#x, expected %#x", root, flag, expect);
    }
}

/* ---- 2: many outstanding nonblocking collectives ------------------------------------------ */
enum { K_BCAST, K_ALLREDUCE, K_ALLTOALL, K_GATHER, K_BARRIER, K_SCAN, K_RSB, K_ALLGATHER, NK };

typedef struct op {
    int *sbuf, *rbuf;
    long n;
    MPI_Request req;
    int checked;
} op;

static void start_op(op *o, int kind, long n, int round, MPI_Comm comm)
{
    long per = kind == K_ALLTOALL || kind == K_GATHER || kind == K_RSB || kind == K_ALLGATHER
                   ? n * size : n;
    o->n = n;
    o->checked = 0;
    o->sbuf = malloc(sizeof(int) * (size_t)(per + 1));
    o->rbuf = malloc(sizeof(int) * (size_t)(per + 1));
    for (long i = 0; i < per; i++) {
        o->sbuf[i] = val(rank, i, kind + round);
        o->rbuf[i] = -1;
    }
    int root = round % size, c = (int)n;
    switch (kind) {
    case K_BCAST:
        if (rank != root)
            for (long i = 0; i < n; i++) o->sbuf[i] = -1;
        CHECK_MPI(MPI_Ibcast(o->sbuf, c, MPI_INT, root, comm, &o->req));
        break;
    case K_ALLREDUCE:
        CHECK_MPI(MPI_Iallreduce(o->sbuf, o->rbuf, c, MPI_INT, MPI_SUM, comm, &o->req));
        break;
    case K_ALLTOALL:
        CHECK_MPI(MPI_Ialltoall(o->sbuf, c, MPI_INT, o->rbuf, c, MPI_INT, comm, &o->req));
        break;
    case K_GATHER:
        CHECK_MPI(MPI_Igather(o->sbuf, c, MPI_INT, o->rbuf, c, MPI_INT, root, comm, &o->req));
        break;
    case K_BARRIER:
        CHECK_MPI(MPI_Ibarrier(comm, &o->req));
        break;
    case K_SCAN:
        CHECK_MPI(MPI_Iscan(o->sbuf, o->rbuf, c, MPI_INT, MPI_SUM, comm, &o->req));
        break;
    case K_RSB:
        CHECK_MPI(MPI_Ireduce_scatter_block(o->sbuf, o->rbuf, c, MPI_INT, MPI_SUM, comm, &o->req));
        break;
    case K_ALLGATHER:
        CHECK_MPI(MPI_Iallgather(o->sbuf, c, MPI_INT, o->rbuf, c, MPI_INT, comm, &o->req));
        break;
    }
}

static void check_op(op *o, int kind, int round)
{
    long n = o->n;
    int root = round % size;
    for (long i = 0; i < n && kind != K_BARRIER; i++) {
        long want = 0, got;
        switch (kind) {
        case K_BCAST:
            got = o->sbuf[i]; want = val(root, i, kind + round);
            break;
        case K_ALLREDUCE:
            got = o->rbuf[i];
            for (int r = 0; r < size; r++) want += val(r, i, kind + round);
            break;
        case K_SCAN:
            got = o->rbuf[i];
            for (int r = 0; r <= rank; r++) want += val(r, i, kind + round);
            break;
        case K_RSB:
            got = o->rbuf[i];
            for (int r = 0; r < size; r++) want += val(r, rank * n + i, kind + round);
            break;
        default:
            for (int p = 0; p < size; p++) {
                if (kind == K_GATHER && rank != root)
                    break;
                long idx = p * n + i;
                got = o->rbuf[idx];
                want = kind == K_ALLTOALL ? val(p, rank * n + i, kind + round)
                                          : val(p, i, kind + round);
                if (got != want)
                    FAIL("kind %d round %d n %ld: block %d element %ld is %ld, expected %ld",
                         kind, round, n, p, i, got, want);
            }
            continue;
        }
        if (got != want)
            FAIL("kind %d round %d n %ld: element %ld is %ld, expected %ld", kind, round, n, i,
                 got, want);
    }
    free(o->sbuf);
    free(o->rbuf);
    o->checked = 1;
}

/* A blocking collective in the middle of the nonblocking ones: an allreduce of rank+k. */
static void blocking_allreduce(MPI_Comm comm, int k)
{
    int in = rank + k, out = -1;
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm));
    if (out != size * (size - 1) / 2 + size * k)
        FAIL("blocking allreduce k=%d gave %d", k, out);
}

static void many_outstanding(MPI_Comm comm, int round, long n)
{
    op ops[NK];
    MPI_Request reqs[NK];
    MPI_Status sts[NK];
    for (int k = 0; k < NK; k++) {
        start_op(&ops[k], k, n, round, comm);
        reqs[k] = ops[k].req;
        if (k == 2)
            blocking_allreduce(comm, round);      /* blocking calls with 2..NK in flight */
        if (k == 5) {
            CHECK_MPI(MPI_Barrier(comm));
            int b = rank == 0 ? 4242 + round : 0;
            CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, 0, comm));
            if (b != 4242 + round) FAIL("blocking bcast gave %d", b);
        }
    }
    /* complete in a rank-dependent order */
    int how = (rank + round) % 4;
    if (how == 0) {                                   /* reverse */
        for (int k = NK - 1; k >= 0; k--) {
            CHECK_MPI(MPI_Wait(&reqs[k], &sts[k]));
            check_empty(&sts[k], "Wait");
            check_op(&ops[k], k, round);
        }
    } else if (how == 1) {                            /* rotated by rank */
        for (int j = 0; j < NK; j++) {
            int k = (j + rank) % NK;
            CHECK_MPI(MPI_Wait(&reqs[k], &sts[k]));
            check_empty(&sts[k], "Wait");
            check_op(&ops[k], k, round);
            if (j == NK / 2)
                blocking_allreduce(comm, 1000 + round);   /* wait here with others pending */
        }
    } else if (how == 2) {                            /* whichever finishes first */
        for (int j = 0; j < NK; j++) {
            int k, flag = 0;
            MPI_Status st;
            while (!flag)
                CHECK_MPI(MPI_Testany(NK, reqs, &k, &flag, &st));
            if (k == MPI_UNDEFINED) FAIL("Testany gave MPI_UNDEFINED with requests left");
            check_empty(&st, "Testany");
            check_op(&ops[k], k, round);
        }
    } else {                                          /* batches */
        int left = NK;
        while (left > 0) {
            int outc, idx[NK];
            CHECK_MPI(MPI_Waitsome(NK, reqs, &outc, idx, sts));
            if (outc == MPI_UNDEFINED || outc < 1) FAIL("Waitsome gave %d", outc);
            for (int j = 0; j < outc; j++) {
                check_empty(&sts[j], "Waitsome");
                check_op(&ops[idx[j]], idx[j], round);
            }
            left -= outc;
        }
    }
    if (how != 1)
        blocking_allreduce(comm, 1000 + round);       /* same position in every rank's order */
    for (int k = 0; k < NK; k++)
        if (!ops[k].checked || reqs[k] != MPI_REQUEST_NULL)
            FAIL("operation %d not completed", k);
}

/* ---- 3: a blocking call before a nonblocking one on some ranks, after it on others -------- */
static void crossed(MPI_Comm comm, int round)
{
    long n = round % 2 ? 20000 : 3;          /* rendezvous and eager */
    int *a = malloc(sizeof(int) * (size_t)n), *b = malloc(sizeof(int) * (size_t)n);
    int *g = malloc(sizeof(int) * (size_t)size), x = rank * 3 + round;
    MPI_Request rq;
    int root = (round + 1) % size;
    for (long i = 0; i < n; i++) a[i] = rank == root ? val(root, i, round) : -1;
    for (int i = 0; i < size; i++) g[i] = -1;
    int early = (rank + round) % 2;
    if (early)
        CHECK_MPI(MPI_Ibcast(a, (int)n, MPI_INT, root, comm, &rq));
    CHECK_MPI(MPI_Allgather(&x, 1, MPI_INT, g, 1, MPI_INT, comm));
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, b, 0, MPI_INT, MPI_SUM, comm));   /* zero bytes */
    if (!early)
        CHECK_MPI(MPI_Ibcast(a, (int)n, MPI_INT, root, comm, &rq));
    for (int i = 0; i < size; i++)
        if (g[i] != i * 3 + round) FAIL("crossed allgather[%d] = %d", i, g[i]);
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rq, &st));
    check_empty(&st, "crossed Ibcast");
    for (long i = 0; i < n; i++)
        if (a[i] != val(root, i, round)) FAIL("crossed Ibcast element %ld is %d", i, a[i]);
    free(a); free(b); free(g);
}

/* ---- 4: a user op freed (and its handle perhaps reused) while an Iallreduce uses it ------- */
static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i]) ((int *)inout)[i] = ((int *)in)[i];
}

static void user_min(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] < ((int *)inout)[i]) ((int *)inout)[i] = ((int *)in)[i];
}

static void freed_op(MPI_Comm comm)
{
    MPI_Op mx, mn;
    MPI_Request rq;
    int in[64], out[64];
    for (int i = 0; i < 64; i++) in[i] = (rank * 7 + i) % (size + 3);
    CHECK_MPI(MPI_Op_create(user_max, 1, &mx));
    CHECK_MPI(MPI_Iallreduce(in, out, 64, MPI_INT, mx, comm, &rq));
    CHECK_MPI(MPI_Op_free(&mx));
    CHECK_MPI(MPI_Op_create(user_min, 1, &mn));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 64; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            if ((r * 7 + i) % (size + 3) > want) want = (r * 7 + i) % (size + 3);
        if (out[i] != want) FAIL("Iallreduce with a freed op: element %d is %d, expected %d", i, out[i], want);
    }
    CHECK_MPI(MPI_Op_free(&mn));
}

int main(int argc, char **argv)
{
    int provided;
    const char *tm = getenv("COLL_ORDER_THREAD_MULTIPLE");
    coll_forced_begin();
    if (tm && *tm == '1') {
        CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
        if (provided != MPI_THREAD_MULTIPLE) FAIL("provided %d", provided);
    } else {
        CHECK_MPI(MPI_Init(&argc, &argv));
    }
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    agree_pattern(comm);
    static const long ns[] = { 1, 5, 3000, 17000 };
    for (int round = 0; round < 8; round++)
        many_outstanding(comm, round, ns[round % 4]);
    for (int round = 0; round < 6; round++)
        crossed(comm, round);
    agree_pattern(MPI_COMM_WORLD);
    freed_op(comm);
    CHECK_MPI(MPI_Comm_free(&comm));
    coll_forced_end(NULL);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}

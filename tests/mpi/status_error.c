/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2,5 timeout=120 env=STATUS_ERROR_THREADS=3 */
/* status_error.c -- the MPI_ERROR field of statuses and MPI_ERR_IN_STATUS.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI 4.0 3.2.5: "message-passing calls do not modify the value of the error code field of
 * status variables.  This field may be updated only by the functions in Section 3.7.5 which
 * return multiple statuses.  The field is updated if and only if such function returns with
 * an error code of MPI_ERR_IN_STATUS."  And 3.7.5: MPI_Waitall (Testall, Waitsome,
 * Testsome) "will return in such case the error code MPI_ERR_IN_STATUS" -- exactly that
 * value, which programs compare with ==.
 *
 * Part 1: requests that fail (a generalized request whose query function returns an error,
 * a receive truncated by a longer message from the left neighbour) completed together with
 * ones that succeed by Waitall, Testall, Waitsome and Testsome: the call returns exactly
 * MPI_ERR_IN_STATUS, each status holds its own request's code (MPI_SUCCESS for the good
 * ones, the truncation class for the truncated one).
 *
 * Part 2: every single-completion call (Recv, Sendrecv, Probe, Iprobe, Mprobe, Improbe,
 * Mrecv, Imrecv, Wait, Test, Waitany, Testany, Request_get_status, also on null requests and
 * MPI_PROC_NULL) and every multiple-completion call that succeeds must leave a value the
 * program stored in MPI_ERROR untouched -- while the other fields are right.  With
 * STATUS_ERROR_THREADS=n part 2 runs in n threads at once under MPI_THREAD_MULTIPLE, each on
 * its own duplicate of MPI_COMM_WORLD.
 */
#include "check.h"
#include <pthread.h>
#include <string.h>

#define SENTINEL 0x5eed
static int rank, size, left, right;

static int query_fn(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 7;
    st->MPI_TAG = 8;
    return *(int *)extra;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

static MPI_Request greq(int *code)
{
    MPI_Request r;
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, code, &r));
    CHECK_MPI(MPI_Grequest_complete(r));
    return r;
}

static void fill(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0x77, sizeof st[i]);
        st[i].MPI_ERROR = SENTINEL;
    }
}

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

/* ---- part 1 ---------------------------------------------------------------------------- */
static void check_multi(const char *what, int rc, MPI_Status *st, int bad)
{
    CHECK(rc == MPI_ERR_IN_STATUS, "%s returned %d (class %d), want exactly MPI_ERR_IN_STATUS "
          "(%d)", what, rc, error_class(rc), MPI_ERR_IN_STATUS);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS, "%s: status 0 error %d, want MPI_SUCCESS", what,
          st[0].MPI_ERROR);
    CHECK(error_class(st[1].MPI_ERROR) == bad, "%s: status 1 error %d (class %d), want class "
          "%d", what, st[1].MPI_ERROR, error_class(st[1].MPI_ERROR), bad);
    CHECK(st[0].MPI_SOURCE == 7 && st[1].MPI_SOURCE == 7, "%s: sources %d %d", what,
          st[0].MPI_SOURCE, st[1].MPI_SOURCE);
}

static void part1(void)
{
    static int ok = MPI_SUCCESS, other = MPI_ERR_OTHER;
    MPI_Request r[2];
    MPI_Status st[2];
    int rc, flag, outcount, idx[2];

    r[0] = greq(&ok); r[1] = greq(&other); fill(st, 2);
    rc = MPI_Waitall(2, r, st);
    check_multi("MPI_Waitall", rc, st, MPI_ERR_OTHER);
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "Waitall left requests");

    r[0] = greq(&ok); r[1] = greq(&other); fill(st, 2);
    rc = MPI_Testall(2, r, &flag, st);
    CHECK(flag, "Testall of complete generalized requests: flag 0");
    check_multi("MPI_Testall", rc, st, MPI_ERR_OTHER);

    r[0] = greq(&ok); r[1] = greq(&other); fill(st, 2);
    rc = MPI_Waitsome(2, r, &outcount, idx, st);
    CHECK(outcount == 2 && idx[0] == 0 && idx[1] == 1, "Waitsome: outcount %d", outcount);
    check_multi("MPI_Waitsome", rc, st, MPI_ERR_OTHER);

    r[0] = greq(&ok); r[1] = greq(&other); fill(st, 2);
    rc = MPI_Testsome(2, r, &outcount, idx, st);
    CHECK(outcount == 2 && idx[0] == 0 && idx[1] == 1, "Testsome: outcount %d", outcount);
    check_multi("MPI_Testsome", rc, st, MPI_ERR_OTHER);

    /* a real receive truncated: 4 ints into a buffer of 1, next to a good receive */
    int out[4] = { rank, rank, rank, rank }, in[2] = { -1, -1 };
    MPI_Request s[2];
    CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, left, 21, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, left, 22, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Isend(out, 4, MPI_INT, right, 21, MPI_COMM_WORLD, &s[0]));
    CHECK_MPI(MPI_Isend(out, 1, MPI_INT, right, 22, MPI_COMM_WORLD, &s[1]));
    fill(st, 2);
    rc = MPI_Waitall(2, r, st);
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall with a truncated receive returned %d (class %d)",
          rc, error_class(rc));
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS && error_class(st[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
          "Waitall statuses' errors %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 22 && in[1] == left,
          "good receive: source %d tag %d data %d", st[0].MPI_SOURCE, st[0].MPI_TAG, in[1]);
    fill(st, 2);
    CHECK_MPI(MPI_Waitall(2, s, st));
    CHECK(st[0].MPI_ERROR == SENTINEL && st[1].MPI_ERROR == SENTINEL,
          "successful Waitall wrote MPI_ERROR: %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR);
}

/* ---- part 2 ---------------------------------------------------------------------------- */
typedef struct job { MPI_Comm comm; int id; } job;

#define KEEP(st, what) CHECK((st).MPI_ERROR == SENTINEL, "thread %d: %s overwrote MPI_ERROR " \
                             "(now %d)", id, what, (st).MPI_ERROR)

static void got(const MPI_Status *st, int src, int tag, int n, const char *what, int id)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n,
          "thread %d: %s: status source %d tag %d count %d, want %d %d %d", id, what,
          st->MPI_SOURCE, st->MPI_TAG, count, src, tag, n);
}

static void *part2(void *arg)
{
    job *j = arg;
    MPI_Comm comm = j->comm;
    int id = j->id, flag, index, outcount, idx[2];
    static int ok = MPI_SUCCESS, other = MPI_ERR_OTHER;
    int out[4] = { rank, id, 3, 4 }, in[4];
    MPI_Status st, sts[2];
    MPI_Request r, rs[2];
    MPI_Message msg;

    for (int round = 0; round < 20; round++) {
        /* Recv and Sendrecv (small messages: the fast paths too) */
        CHECK_MPI(MPI_Isend(out, 2, MPI_INT, right, 1, comm, &r));
        fill(&st, 1);
        CHECK_MPI(MPI_Recv(in, 4, MPI_INT, left, 1, comm, &st));
        KEEP(st, "MPI_Recv"); got(&st, left, 1, 2, "MPI_Recv", id);
        fill(&st, 1);
        CHECK_MPI(MPI_Wait(&r, &st));
        KEEP(st, "MPI_Wait (send)");
        fill(&st, 1);
        CHECK_MPI(MPI_Sendrecv(out, 3, MPI_INT, right, 2, in, 4, MPI_INT, left, 2, comm, &st));
        KEEP(st, "MPI_Sendrecv"); got(&st, left, 2, 3, "MPI_Sendrecv", id);

        /* Probe, Iprobe, then the receive */
        CHECK_MPI(MPI_Isend(out, 1, MPI_INT, right, 3, comm, &r));
        fill(&st, 1);
        CHECK_MPI(MPI_Probe(left, 3, comm, &st));
        KEEP(st, "MPI_Probe"); got(&st, left, 3, 1, "MPI_Probe", id);
        flag = 0;
        while (!flag) {
            fill(&st, 1);
            CHECK_MPI(MPI_Iprobe(left, 3, comm, &flag, &st));
            KEEP(st, "MPI_Iprobe");
        }
        got(&st, left, 3, 1, "MPI_Iprobe", id);
        CHECK_MPI(MPI_Recv(in, 4, MPI_INT, left, 3, comm, MPI_STATUS_IGNORE));
        fill(&st, 1);
        flag = 0;
        while (!flag) {
            CHECK_MPI(MPI_Test(&r, &flag, &st));
            KEEP(st, "MPI_Test");
        }

        /* Mprobe + Mrecv, Improbe + Imrecv + Wait */
        CHECK_MPI(MPI_Isend(out, 4, MPI_INT, right, 4, comm, &rs[0]));
        CHECK_MPI(MPI_Isend(out, 2, MPI_INT, right, 5, comm, &rs[1]));
        fill(&st, 1);
        CHECK_MPI(MPI_Mprobe(left, 4, comm, &msg, &st));
        KEEP(st, "MPI_Mprobe"); got(&st, left, 4, 4, "MPI_Mprobe", id);
        fill(&st, 1);
        CHECK_MPI(MPI_Mrecv(in, 4, MPI_INT, &msg, &st));
        KEEP(st, "MPI_Mrecv"); got(&st, left, 4, 4, "MPI_Mrecv", id);
        flag = 0;
        while (!flag) {
            fill(&st, 1);
            CHECK_MPI(MPI_Improbe(left, 5, comm, &flag, &msg, &st));
            KEEP(st, "MPI_Improbe");
        }
        got(&st, left, 5, 2, "MPI_Improbe", id);
        CHECK_MPI(MPI_Imrecv(in, 4, MPI_INT, &msg, &r));
        fill(&st, 1);
        CHECK_MPI(MPI_Wait(&r, &st));
        KEEP(st, "MPI_Wait (Imrecv)"); got(&st, left, 5, 2, "MPI_Imrecv", id);
        fill(sts, 2);
        CHECK_MPI(MPI_Waitall(2, rs, sts));
        KEEP(sts[0], "MPI_Waitall"); KEEP(sts[1], "MPI_Waitall");

        /* Waitany, Testany, Request_get_status, Waitsome, Testsome on receives */
        CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, left, 6, comm, &rs[0]));
        CHECK_MPI(MPI_Irecv(in + 2, 2, MPI_INT, left, 7, comm, &rs[1]));
        CHECK_MPI(MPI_Send(out, 2, MPI_INT, right, 6, comm));
        CHECK_MPI(MPI_Send(out, 1, MPI_INT, right, 7, comm));
        flag = 0;
        while (!flag) {
            fill(&st, 1);
            CHECK_MPI(MPI_Request_get_status(rs[0], &flag, &st));
            KEEP(st, "MPI_Request_get_status");
        }
        got(&st, left, 6, 2, "MPI_Request_get_status", id);
        fill(&st, 1);
        CHECK_MPI(MPI_Waitany(2, rs, &index, &st));
        KEEP(st, "MPI_Waitany");
        flag = 0;
        while (!flag) {
            fill(&st, 1);
            CHECK_MPI(MPI_Testany(2, rs, &index, &flag, &st));
            KEEP(st, "MPI_Testany");
        }
        CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL, "Waitany/Testany left "
              "requests");
        CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, left, 8, comm, &rs[0]));
        CHECK_MPI(MPI_Send(out, 4, MPI_INT, right, 8, comm));
        fill(sts, 2);
        CHECK_MPI(MPI_Waitsome(1, rs, &outcount, idx, sts));
        KEEP(sts[0], "MPI_Waitsome"); got(&sts[0], left, 8, 4, "MPI_Waitsome", id);
        CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, left, 9, comm, &rs[0]));
        CHECK_MPI(MPI_Send(out, 3, MPI_INT, right, 9, comm));
        outcount = 0;
        while (outcount == 0) {
            fill(sts, 2);
            CHECK_MPI(MPI_Testsome(1, rs, &outcount, idx, sts));
            KEEP(sts[0], "MPI_Testsome");
        }
        got(&sts[0], left, 9, 3, "MPI_Testsome", id);
        fill(sts, 2);
        CHECK_MPI(MPI_Testall(1, rs, &flag, sts));         /* only MPI_REQUEST_NULL now */
        KEEP(sts[0], "MPI_Testall (null request)");

        /* null requests and MPI_PROC_NULL: empty statuses, MPI_ERROR kept */
        r = MPI_REQUEST_NULL;
        fill(&st, 1);
        CHECK_MPI(MPI_Wait(&r, &st));
        KEEP(st, "MPI_Wait (MPI_REQUEST_NULL)");
        CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status");
        fill(&st, 1);
        CHECK_MPI(MPI_Test(&r, &flag, &st));
        KEEP(st, "MPI_Test (MPI_REQUEST_NULL)");
        fill(&st, 1);
        CHECK_MPI(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 0, comm, &st));
        KEEP(st, "MPI_Recv (MPI_PROC_NULL)");
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL receive: source %d", st.MPI_SOURCE);
        fill(&st, 1);
        CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, comm, &st));
        KEEP(st, "MPI_Probe (MPI_PROC_NULL)");

        /* generalized requests through Wait: a failing one returns its code and still
         * leaves MPI_ERROR alone */
        r = greq(&ok);
        fill(&st, 1);
        CHECK_MPI(MPI_Wait(&r, &st));
        KEEP(st, "MPI_Wait (generalized request)");
        CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 8, "greq status %d %d", st.MPI_SOURCE,
              st.MPI_TAG);
        r = greq(&other);
        fill(&st, 1);
        int rc = MPI_Wait(&r, &st);
        CHECK(error_class(rc) == MPI_ERR_OTHER, "failing greq: Wait returned %d", rc);
        KEEP(st, "MPI_Wait (failing generalized request)");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *env = getenv("STATUS_ERROR_THREADS");
    int nthreads = env ? atoi(env) : 0, provided;
    if (nthreads > 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    part1();
    MPI_Barrier(MPI_COMM_WORLD);

    int n = nthreads > 0 ? nthreads : 1;
    job jobs[8];
    pthread_t th[8];
    for (int t = 0; t < n && t < 8; t++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm));
        jobs[t].id = t;
    }
    if (nthreads > 0) {
        for (int t = 0; t < n && t < 8; t++)
            pthread_create(&th[t], NULL, part2, &jobs[t]);
        for (int t = 0; t < n && t < 8; t++)
            pthread_join(th[t], NULL);
    } else {
        part2(&jobs[0]);
    }
    for (int t = 0; t < n && t < 8; t++)
        MPI_Comm_free(&jobs[t].comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("status_error: OK\n");
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=2,3,4,8 timeout=120 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_SENDREQ=0 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_SENDREQ_MIN=0,MEMPI_EAGER_MAX=64 */
/* p2p_modes.c -- every point-to-point mode and completion function, with data and status.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Buffered sends through an attached buffer (and the error when it is too small), persistent
 * requests restarted many times, synchronous and ready sends, MPI_Cancel of receives and of
 * unmatched sends, matched probes (and MPI_MESSAGE_NO_PROC), Waitany/Waitsome/Testany/
 * Testsome/Testall/Request_get_status, Request_free of active requests, Sendrecv_replace,
 * truncation reported as MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN, generalized requests.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void test_bsend(int partner)
{
    int n = 1000, bufsize = 4 * (n * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)bufsize);
    int *data = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    MPI_Buffer_attach(buf, bufsize);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < n; i++)
            data[i] = rank * 100000 + k * 1000 + i;
        MPI_Bsend(data, n, MPI_INT, partner, 20 + k, MPI_COMM_WORLD);
        data[0] = -1;                      /* buffered: changing it now must not matter */
    }
    for (int k = 3; k >= 0; k--) {         /* receive in reverse tag order */
        MPI_Status st;
        MPI_Recv(in, n, MPI_INT, partner, 20 + k, MPI_COMM_WORLD, &st);
        for (int i = 0; i < n; i++)
            CHECK(in[i] == partner * 100000 + k * 1000 + i, "bsend data %d[%d]=%d", k, i, in[i]);
    }
    /* a message larger than the attached buffer: MPI_ERR_BUFFER, library still usable */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *big = calloc((size_t)bufsize, sizeof(int));
    int err = MPI_Bsend(big, bufsize, MPI_INT, partner, 30, MPI_COMM_WORLD);
    int cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "oversized bsend gave class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    void *det;
    int detsize;
    MPI_Buffer_detach(&det, &detsize);
    CHECK(det == buf && detsize == bufsize, "detach returned %p/%d", det, detsize);
    free(big);
    free(buf);
    free(data);
    free(in);
}

static void test_persistent(int partner)
{
    double out[300], in[300];
    MPI_Request r[2];
    MPI_Recv_init(in, 300, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Send_init(out, 300, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, &r[1]);
    /* inactive persistent requests complete at once with an empty status */
    int flag = 0;
    MPI_Status st;
    MPI_Test(&r[0], &flag, &st);
    CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "inactive test");
    for (int it = 0; it < 50; it++) {
        for (int i = 0; i < 300; i++)
            out[i] = rank + it * 0.5 + i;
        MPI_Startall(2, r);
        MPI_Status sts[2];
        MPI_Waitall(2, r, sts);
        CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL, "persistent handle lost");
        int count;
        MPI_Get_count(&sts[0], MPI_DOUBLE, &count);
        CHECK(count == 300 && sts[0].MPI_SOURCE == partner && sts[0].MPI_TAG == 7, "persistent status");
        for (int i = 0; i < 300; i++)
            CHECK(in[i] == partner + it * 0.5 + i, "persistent data it %d", it);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    CHECK(r[0] == MPI_REQUEST_NULL, "request_free did not reset the handle");
    /* synchronous and ready persistent sends */
    int v = rank, w = -1;
    MPI_Request rr, sr;
    MPI_Irecv(&w, 1, MPI_INT, partner, 8, MPI_COMM_WORLD, &rr);
    MPI_Barrier(MPI_COMM_WORLD);            /* both receives posted: ready send is legal */
    MPI_Rsend_init(&v, 1, MPI_INT, partner, 8, MPI_COMM_WORLD, &sr);
    MPI_Start(&sr);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    CHECK(w == partner, "rsend_init data");
    MPI_Request_free(&sr);
    MPI_Ssend_init(&v, 1, MPI_INT, partner, 9, MPI_COMM_WORLD, &sr);
    MPI_Start(&sr);
    MPI_Recv(&w, 1, MPI_INT, partner, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    MPI_Request_free(&sr);
}

static void test_cancel(int partner)
{
    /* a receive that nothing will match */
    int x;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, partner, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    int c;
    MPI_Test_cancelled(&st, &c);
    CHECK(c, "receive not cancelled");
    /* a large receive with (possibly) a request for sending outstanding */
    static char big[100000];
    MPI_Irecv(big, sizeof big, MPI_CHAR, partner, 998, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &c);
    CHECK(c, "large receive not cancelled");
    /* an unmatched rendezvous send: cancelling it must either succeed or let it complete,
     * and the receiver must see the message exactly when it was not cancelled */
    static char msg[200000];
    MPI_Isend(msg, sizeof msg, MPI_CHAR, partner, 997, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &c);
    int theirs;
    MPI_Sendrecv(&c, 1, MPI_INT, partner, 996, &theirs, 1, MPI_INT, partner, 996,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int flag;
    MPI_Iprobe(partner, 997, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (!theirs) {
        MPI_Recv(big, sizeof big, MPI_CHAR, partner, 997, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        CHECK(!flag, "a cancelled send was still delivered");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void test_mprobe(int partner)
{
    int a[3] = { rank, rank + 1, rank + 2 }, b[3];
    MPI_Send(a, 3, MPI_INT, partner, 40, MPI_COMM_WORLD);
    MPI_Send(a, 2, MPI_INT, partner, 41, MPI_COMM_WORLD);
    MPI_Message m1, m2;
    MPI_Status st;
    MPI_Mprobe(partner, 41, MPI_COMM_WORLD, &m2, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 2 && st.MPI_TAG == 41, "mprobe status");
    int flag = 0;
    while (!flag)
        MPI_Improbe(MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &flag, &m1, &st);
    CHECK(st.MPI_SOURCE == partner, "improbe source");
    /* a matched message is invisible to later probes */
    MPI_Iprobe(partner, 41, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "matched message still visible");
    MPI_Request r;
    MPI_Imrecv(b, 3, MPI_INT, &m1, &r);
    CHECK(m1 == MPI_MESSAGE_NULL, "imrecv did not reset message");
    MPI_Wait(&r, &st);
    CHECK(b[0] == partner && b[2] == partner + 2, "imrecv data");
    MPI_Mrecv(b, 3, MPI_INT, &m2, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 2 && b[1] == partner + 1, "mrecv data");
    MPI_Message np;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &np, &st);
    CHECK(np == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "no_proc");
    MPI_Mrecv(b, 3, MPI_INT, &np, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "mrecv no_proc");
}

static void test_completion(int partner)
{
    enum { N = 6 };
    int out[N], in[N];
    MPI_Request r[2 * N];
    for (int i = 0; i < N; i++) {
        out[i] = rank * 10 + i;
        MPI_Irecv(&in[i], 1, MPI_INT, partner, 50 + i, MPI_COMM_WORLD, &r[i]);
    }
    for (int i = N - 1; i >= 0; i--)
        MPI_Isend(&out[i], 1, MPI_INT, partner, 50 + i, MPI_COMM_WORLD, &r[N + i]);
    int done = 0, seen[2 * N] = { 0 };
    while (done < 2 * N) {             /* Waitany until all are done */
        int idx;
        MPI_Status st;
        MPI_Waitany(2 * N, r, &idx, &st);
        CHECK(idx >= 0 && idx < 2 * N && !seen[idx] && r[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
        if (idx < N)
            CHECK(st.MPI_TAG == 50 + idx && in[idx] == partner * 10 + idx, "waitany recv %d", idx);
        seen[idx] = 1;
        done++;
    }
    int idx, flag;
    MPI_Waitany(2 * N, r, &idx, MPI_STATUS_IGNORE);
    CHECK(idx == MPI_UNDEFINED, "waitany over null requests");
    MPI_Testany(2 * N, r, &idx, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && idx == MPI_UNDEFINED, "testany over null requests");

    for (int i = 0; i < N; i++) {
        MPI_Irecv(&in[i], 1, MPI_INT, partner, 60 + i, MPI_COMM_WORLD, &r[i]);
        MPI_Isend(&out[i], 1, MPI_INT, partner, 60 + i, MPI_COMM_WORLD, &r[N + i]);
    }
    done = 0;
    while (done < 2 * N) {             /* Waitsome / Testsome */
        int outcount, indices[2 * N];
        MPI_Status sts[2 * N];
        if (done % 2)
            MPI_Testsome(2 * N, r, &outcount, indices, sts);
        else
            MPI_Waitsome(2 * N, r, &outcount, indices, sts);
        CHECK(outcount != MPI_UNDEFINED, "some: undefined while active");
        for (int k = 0; k < outcount; k++)
            CHECK(r[indices[k]] == MPI_REQUEST_NULL, "some: not freed");
        done += outcount;
    }
    int outcount, indices[2 * N];
    MPI_Waitsome(2 * N, r, &outcount, indices, MPI_STATUSES_IGNORE);
    CHECK(outcount == MPI_UNDEFINED, "waitsome over null requests");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == partner * 10 + i, "some data");

    /* Testall only frees when all are done; Request_get_status never frees */
    MPI_Irecv(&in[0], 1, MPI_INT, partner, 70, MPI_COMM_WORLD, &r[0]);
    MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
    CHECK(!flag && r[0] != MPI_REQUEST_NULL, "testall before the message");
    int ready;                         /* both tested before either sends tag 70 */
    MPI_Sendrecv(&rank, 1, MPI_INT, partner, 72, &ready, 1, MPI_INT, partner, 72,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&out[0], 1, MPI_INT, partner, 70, MPI_COMM_WORLD);
    flag = 0;
    while (!flag)
        MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE);
    CHECK(r[0] != MPI_REQUEST_NULL, "get_status freed the request");
    MPI_Testall(1, r, &flag, MPI_STATUSES_IGNORE);
    CHECK(flag && r[0] == MPI_REQUEST_NULL, "testall after completion");

    /* Request_free of an active send: the message is still delivered */
    MPI_Request fr;
    MPI_Isend(&out[1], 1, MPI_INT, partner, 71, MPI_COMM_WORLD, &fr);
    MPI_Request_free(&fr);
    MPI_Recv(&in[1], 1, MPI_INT, partner, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[1] == partner * 10 + 1, "freed send data");
}

static void test_replace_truncate(int partner)
{
    int v[100];
    for (int i = 0; i < 100; i++)
        v[i] = rank * 1000 + i;
    MPI_Status st;
    MPI_Sendrecv_replace(v, 100, MPI_INT, partner, 80, partner, 80, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 100; i++)
        CHECK(v[i] == partner * 1000 + i, "sendrecv_replace data");
    /* truncation: 100 ints into a buffer of 10 */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request r;
    MPI_Isend(v, 100, MPI_INT, partner, 81, MPI_COMM_WORLD, &r);
    int small[11];
    small[10] = -7;
    st.MPI_ERROR = -5;                /* a single-completion call leaves it alone (3.2.5) */
    int err = MPI_Recv(small, 10, MPI_INT, partner, 81, MPI_COMM_WORLD, &st);
    int cls, count;
    MPI_Error_class(err, &cls);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(cls == MPI_ERR_TRUNCATE && st.MPI_ERROR == -5, "truncate class %d, status "
          "error %d", cls, st.MPI_ERROR);
    CHECK(count == 10 && small[9] == rank * 1000 + 9 && small[10] == -7, "truncate data");
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "truncated") != NULL, "truncate message: %s", msg);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* MPI-4 Isendrecv and Isendrecv_replace: one request, status of the receive */
    int w[100];
    MPI_Request rq;
    for (int i = 0; i < 100; i++)
        v[i] = rank * 7 + i;
    MPI_Isendrecv(v, 100, MPI_INT, partner, 82, w, 100, MPI_INT, partner, 82, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 100 && st.MPI_SOURCE == partner && st.MPI_TAG == 82 && w[99] == partner * 7 + 99,
          "isendrecv");
    MPI_Isendrecv_replace(v, 100, MPI_INT, partner, 83, partner, 83, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    CHECK(v[0] == partner * 7 && v[99] == partner * 7 + 99 && st.MPI_TAG == 83, "isendrecv_replace");
    /* MPI-4 large-count forms share the paths of the int forms */
    MPI_Count ccount;
    MPI_Request rc;
    MPI_Irecv_c(w, (MPI_Count)100, MPI_INT, partner, 84, MPI_COMM_WORLD, &rc);
    MPI_Send_c(v, (MPI_Count)100, MPI_INT, partner, 84, MPI_COMM_WORLD);
    MPI_Wait(&rc, &st);
    MPI_Get_count_c(&st, MPI_INT, &ccount);
    CHECK(ccount == 100 && w[5] == rank * 7 + 5 && st.MPI_TAG == 84, /* partner sends back ours */
          "send_c/irecv_c");
    MPI_Sendrecv_c(v, 10, MPI_INT, partner, 85, w, 10, MPI_INT, partner, 85, MPI_COMM_WORLD, &st);
    MPI_Get_count_c(&st, MPI_INT, &ccount);
    CHECK(ccount == 10, "sendrecv_c");
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "a MemPI process has no parent");
}

static int greq_query(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_INT, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 123;
    st->MPI_TAG = 456;
    return MPI_SUCCESS;
}
static int greq_free(void *extra) { *(int *)extra = -1; return MPI_SUCCESS; }
static int greq_cancel(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

static void test_grequest(void)
{
    int state = 5, flag;
    MPI_Request r;
    MPI_Status st;
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &state, &r);
    MPI_Test(&r, &flag, &st);
    CHECK(!flag, "grequest complete too early");
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 5 && st.MPI_SOURCE == 123 && state == -1 && r == MPI_REQUEST_NULL, "grequest");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = rank ^ 1;
    if (partner >= size)
        partner = MPI_PROC_NULL;
    test_grequest();
    if (partner != MPI_PROC_NULL) {
        test_bsend(partner);
        test_mprobe(partner);
        test_completion(partner);
        test_replace_truncate(partner);
    }
    /* the collective-free parts above ran on pairs; these need every rank */
    if (partner == MPI_PROC_NULL)
        partner = rank;                   /* odd rank out talks to itself */
    test_persistent(partner);
    test_cancel(partner);
    if (rank == 0)
        printf("p2p_modes: all modes and completion functions checked on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}

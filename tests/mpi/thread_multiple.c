/* mempi-test: np=2,3 timeout=180 */
/* mempi-test: np=2,3 timeout=180 env=MEMPI_EAGER_MAX=256,MEMPI_SENDREQ_MIN=0 */
/* mempi-test: np=2 timeout=180 env=MEMPI_WAIT=sleep */
/* mempi-test: np=3 timeout=180 env=MEMPI_CMA=0,MEMPI_SHM_CELLS=4 */
/* thread_multiple.c -- concurrent MPI calls from several threads under MPI_THREAD_MULTIPLE.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each rank runs, at the same time:
 *   - NPING threads exchanging around the ring (to rank+1, from rank-1), each with its own
 *     tag, in changing styles: Irecv + Send + Wait, Isend + Recv + Wait, Sendrecv, Issend +
 *     Irecv + Waitall, persistent Send_init/Recv_init + Startall + Testall loop; sizes from 0
 *     to beyond the rendezvous threshold; every few rounds an Allreduce on the thread's own
 *     duplicate of MPI_COMM_WORLD, and now and then an MPI_Comm_dup + Barrier + Comm_free of
 *     it (communicator creation from several threads at once);
 *   - a probe thread: its ring messages (own tag) are taken with Iprobe + Recv, Mprobe +
 *     Mrecv, Improbe + Imrecv + Wait in turn;
 *   - a wildcard thread: on its own communicator, receives with MPI_ANY_SOURCE/MPI_ANY_TAG
 *     what the other ranks' wildcard threads send it (checking per-source order), with
 *     receives tested a few times and then cancelled (taken if they matched meanwhile);
 *     meanwhile it cancels receives nobody sends to and frees active send requests
 *     (MPI_Request_free).
 * and the main thread waits on a generalized request that yet another thread completes.
 * Every message carries (source, thread, round) and a checksum; statuses are checked.
 */
#include <mpi.h>
#include "check.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPING 4
#define ROUNDS 60
#define PROBE_MSGS 80
#define WILD_MSGS 60
#define PROBE_TAG 50
#define MAXN 70000

static int rank, size, next, prev;
static MPI_Comm thread_comm[NPING], wild_comm;

static int msg_size(int t, int r)
{
    static const int sizes[] = { 0, 8, 100, 1000, 5000, 16384, 16400, 65000 };
    return sizes[(t * 3 + r * 5) % 8];
}

static void fill(unsigned char *b, int n, int src, int t, int r)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(src * 131 + t * 31 + r * 7 + i);
}

static void check(const unsigned char *b, int n, int src, int t, int r, const MPI_Status *st,
                  int tag)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n, "thread %d round %d: "
          "status %d/%d/%d, expected %d/%d/%d", t, r, st->MPI_SOURCE, st->MPI_TAG, count, src,
          tag, n);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(src * 131 + t * 31 + r * 7 + i), "thread %d round %d: "
              "byte %d of %d", t, r, i, n);
}

static void *ping(void *arg)
{
    int t = (int)(long)arg, tag = t;
    unsigned char *out = malloc(MAXN), *in = malloc(MAXN);
    MPI_Status st, sts[2];
    MPI_Request rq[2];
    for (int r = 0; r < ROUNDS; r++) {
        int n = msg_size(t, r);
        fill(out, n, rank, t, r);
        memset(in, 0xee, (size_t)n);
        switch ((r + t) % 5) {
        case 0:
            MPI_Irecv(in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Send(out, n, MPI_BYTE, next, tag, MPI_COMM_WORLD);
            MPI_Wait(&rq[0], &st);
            break;
        case 1:
            MPI_Isend(out, n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Recv(in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            break;
        case 2:
            MPI_Sendrecv(out, n, MPI_BYTE, next, tag, in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st);
            break;
        case 3: {
            int outcount, idx[2], left = 2;
            MPI_Issend(out, n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Irecv(in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &rq[1]);
            while (left > 0) {
                MPI_Waitsome(2, rq, &outcount, idx, sts);
                for (int i = 0; i < outcount; i++)
                    if (idx[i] == 1)
                        st = sts[i];
                left -= outcount;
            }
            break;
        }
        default: {
            int flag = 0;
            MPI_Send_init(out, n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Recv_init(in, n, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &rq[1]);
            MPI_Startall(2, rq);
            while (!flag)
                MPI_Testall(2, rq, &flag, sts);
            st = sts[1];
            MPI_Request_free(&rq[0]);
            MPI_Request_free(&rq[1]);
            break;
        }
        }
        check(in, n, prev, t, r, &st, tag);
        if (r % 6 == 5) {
            long v = rank + t, sum;
            MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, thread_comm[t]);
            CHECK(sum == (long)size * (size - 1) / 2 + (long)size * t, "thread %d: Allreduce %ld", t, sum);
        }
        if (r % 20 == 10) {
            MPI_Comm c;
            int csize;
            MPI_Comm_dup(thread_comm[t], &c);
            MPI_Comm_size(c, &csize);
            CHECK(csize == size, "dup of size %d", csize);
            MPI_Barrier(c);
            MPI_Comm_free(&c);
        }
    }
    free(out);
    free(in);
    return NULL;
}

static void *prober(void *arg)
{
    (void)arg;
    const int t = NPING;
    unsigned char *out = malloc(MAXN), *in = malloc(MAXN);
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * PROBE_MSGS);
    unsigned char **bufs = malloc(sizeof(void *) * PROBE_MSGS);
    for (int r = 0; r < PROBE_MSGS; r++) {
        int n = msg_size(t, r);
        bufs[r] = malloc((size_t)n + 1);
        fill(bufs[r], n, rank, t, r);
        MPI_Isend(bufs[r], n, MPI_BYTE, next, PROBE_TAG, MPI_COMM_WORLD, &sreq[r]);
    }
    for (int r = 0; r < PROBE_MSGS; r++) {
        int n = msg_size(t, r), flag = 0, count;
        MPI_Status st, st2;
        MPI_Message msg;
        MPI_Request q;
        switch (r % 3) {
        case 0:
            while (!flag)
                MPI_Iprobe(prev, PROBE_TAG, MPI_COMM_WORLD, &flag, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == n && st.MPI_SOURCE == prev, "Iprobe: %d bytes from %d", count, st.MPI_SOURCE);
            MPI_Recv(in, n, MPI_BYTE, prev, PROBE_TAG, MPI_COMM_WORLD, &st2);
            break;
        case 1:
            MPI_Mprobe(prev, PROBE_TAG, MPI_COMM_WORLD, &msg, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == n, "Mprobe: %d bytes, expected %d", count, n);
            MPI_Mrecv(in, n, MPI_BYTE, &msg, &st2);
            break;
        default:
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, PROBE_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
            MPI_Imrecv(in, n, MPI_BYTE, &msg, &q);
            MPI_Wait(&q, &st2);
            break;
        }
        check(in, n, prev, t, r, &st2, PROBE_TAG);
    }
    MPI_Waitall(PROBE_MSGS, sreq, MPI_STATUSES_IGNORE);
    for (int r = 0; r < PROBE_MSGS; r++)
        free(bufs[r]);
    free(bufs);
    free(sreq);
    free(out);
    free(in);
    return NULL;
}

/* Wildcard receives on wild_comm; cancels, request frees and Test loops meanwhile. */
static void *wild(void *arg)
{
    (void)arg;
    const int t = NPING + 1;
    int expected = WILD_MSGS * (size - 1), got = 0;
    int *last = malloc(sizeof(int) * (size_t)size);
    unsigned char *in = malloc(MAXN);
    unsigned char **bufs = malloc(sizeof(void *) * (size_t)WILD_MSGS * (size_t)size);
    int nb = 0;
    for (int i = 0; i < size; i++)
        last[i] = -1;
    for (int r = 0; r < WILD_MSGS; r++) {
        /* send round r to every other rank; the request is freed while active */
        for (int d = 0; d < size; d++) {
            if (d == rank)
                continue;
            int n = msg_size(t, r);
            MPI_Request q;
            unsigned char *b = bufs[nb++] = malloc((size_t)n + 1);
            fill(b, n, rank, t, r);
            MPI_Isend(b, n, MPI_BYTE, d, r % 7, wild_comm, &q);
            MPI_Request_free(&q);
        }
        /* a receive that nothing matches (tag 1000 is never sent): cancelled */
        MPI_Request c;
        MPI_Status st;
        int flag = 0, cancelled;
        MPI_Irecv(in, 1, MPI_BYTE, MPI_ANY_SOURCE, 1000, wild_comm, &c);
        MPI_Cancel(&c);
        while (!flag)
            MPI_Test(&c, &flag, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled, "receive of tag 1000 not cancelled");
        /* a wildcard receive tested a few times, then cancelled: a message it matched
         * meanwhile is taken, else it must come out cancelled */
        for (int k = 0; k < 2 && got < expected; k++) {
            MPI_Request q;
            MPI_Irecv(in, MAXN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, wild_comm, &q);
            flag = 0;
            for (int i = 0; i < 50 && !flag; i++)
                MPI_Test(&q, &flag, &st);
            if (!flag) {
                MPI_Cancel(&q);
                MPI_Wait(&q, &st);
                MPI_Test_cancelled(&st, &cancelled);
                if (cancelled)
                    continue;
            }
            int src = st.MPI_SOURCE, count;
            CHECK(src >= 0 && src < size && src != rank, "wildcard source %d", src);
            int rr = last[src] + 1;
            MPI_Get_count(&st, MPI_BYTE, &count);
            check(in, count, src, t, rr, &st, rr % 7);
            CHECK(count == msg_size(t, rr), "wildcard message %d from %d: %d bytes", rr, src, count);
            last[src] = rr;
            got++;
        }
    }
    while (got < expected) {
        MPI_Status st;
        int count;
        MPI_Recv(in, MAXN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, wild_comm, &st);
        int src = st.MPI_SOURCE, rr = last[src] + 1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        check(in, count, src, t, rr, &st, rr % 7);
        last[src] = rr;
        got++;
    }
    for (int i = 0; i < size; i++)
        CHECK(i == rank || last[i] == WILD_MSGS - 1, "from %d: %d wildcard messages", i, last[i] + 1);
    /* the freed sends must be complete before their buffers go: a barrier on wild_comm
     * after every rank received everything */
    MPI_Barrier(wild_comm);
    for (int i = 0; i < nb; i++)
        free(bufs[i]);
    free(bufs);
    free(in);
    free(last);
    return NULL;
}

/* Completes a generalized request from another thread while the main thread waits on it. */
static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 3);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int greq_free(void *extra) { (void)extra; return MPI_SUCCESS; }
static int greq_cancel(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

static void *greq_completer(void *arg)
{
    MPI_Request *g = arg;
    int flag;
    for (int i = 0; i < 100; i++)      /* some MPI traffic first: the waiter must keep waiting */
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Grequest_complete(*g);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    for (int t = 0; t < NPING; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]);
    MPI_Comm_dup(MPI_COMM_WORLD, &wild_comm);

    pthread_t th[NPING + 2];
    for (int t = 0; t < NPING; t++)
        pthread_create(&th[t], NULL, ping, (void *)(long)t);
    pthread_create(&th[NPING], NULL, prober, NULL);
    pthread_create(&th[NPING + 1], NULL, wild, NULL);
    MPI_Request g;
    MPI_Status gst;
    pthread_t gth;
    int gcount;
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &g);
    pthread_create(&gth, NULL, greq_completer, &g);
    MPI_Wait(&g, &gst);
    MPI_Get_count(&gst, MPI_BYTE, &gcount);
    CHECK(g == MPI_REQUEST_NULL && gcount == 3, "generalized request: count %d", gcount);
    pthread_join(gth, NULL);
    for (int t = 0; t < NPING + 2; t++)
        pthread_join(th[t], NULL);

    for (int t = 0; t < NPING; t++)
        MPI_Comm_free(&thread_comm[t]);
    MPI_Comm_free(&wild_comm);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a message left over");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("thread_multiple: %d ranks x %d threads, all messages and statuses right\n",
               size, NPING + 2);
    MPI_Finalize();
    return 0;
}

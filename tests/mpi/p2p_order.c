/* mempi-test: np=2,3,5,8 timeout=180 */
/* mempi-test: np=2,3,5 timeout=180 env=MEMPI_SENDREQ=0,MEMPI_EAGER_MAX=256 */
/* mempi-test: np=3,8 timeout=180 env=MEMPI_SHM_CELLS=4,MEMPI_SHM_CHUNKS=4,MEMPI_SHM_CHUNK=1024,MEMPI_EAGER_MAX=0,MEMPI_SENDREQ_MIN=0 */
/* mempi-test: np=2,3,5 timeout=180 env=MEMPI_SENDREQ=1,MEMPI_SENDREQ_MIN=0,MEMPI_EAGER_MAX=64 */
/* mempi-test: np=3,5 timeout=180 env=MEMPI_CMA=0,MEMPI_EAGER_MAX=0,MEMPI_SHM_CELLS=4 */
/* p2p_order.c -- randomized ordering stress: mixed sizes across every protocol threshold,
 * tags, wildcards, probes, matched probes, nonblocking, synchronous and persistent sends and
 * receives, and cancels of sends and receives.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends a seeded random schedule of messages to every other rank (sizes from 0 to
 * beyond the rendezvous threshold, tags 0..3; Isend, Issend, or a persistent Send_init /
 * Ssend_init request of the destination when it is idle).  Some sends are cancelled at once,
 * some a few steps later.  Message k from s carries (s, k, tag, checksum) in its first bytes.
 *
 * Receivers take messages in one of these ways, chosen at random at each step: Iprobe then
 * Recv of exactly the probed (source, tag); Improbe + Mrecv; a persistent receive (wildcard or
 * one source/tag) started and then only tested at later steps (sometimes cancelled); an Irecv
 * that is cancelled right away.  Only one receive is ever outstanding, so the order in which
 * receives complete is the order in which they matched, and the test checks: per (source,
 * tag) the indices increase strictly (non-overtaking), the checksum, that the status names the
 * real source, tag and count, that a cancelled receive received nothing.
 *
 * Completion rules the design relies on (so the test cannot deadlock under correct MPI
 * semantics): nothing ever blocks except (a) MPI_Wait on a receive just cancelled -- it
 * completes either cancelled or with a message already matched, whose sender keeps making
 * progress in its own loop -- and (b) a blocking receive from a source that still owes
 * messages, which is known only from the source's final report, sent after all its sends
 * completed (so they are all matched or buffered).  Sends are completed with Testsome/Test in
 * the same loop that receives, never waited for while receives are outstanding.
 *
 * When a rank's sends are all complete it reports to each destination, on a duplicate of
 * MPI_COMM_WORLD, the indices of its messages that were NOT cancelled (Test_cancelled on the
 * send's status).  The receiver checks it received exactly those: a cancelled send must not
 * be received, a send that was not cancelled must be.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SEEDS
#define SEEDS 3
#endif
#define PER_PEER 40
#define MAXMSG 400000

static int rank, size;
static MPI_Comm ctrl;             /* the final reports travel here, apart from the data */

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static size_t pick_size(unsigned *s)
{
    static const size_t classes[] = { 0, 12, 60, 72, 73, 250, 500, 4096, 16384, 16385, 40000,
                                      300000 };
    size_t base = classes[rnd(s) % (sizeof classes / sizeof classes[0])];
    return base < 16 ? 16 : base + rnd(s) % 64;   /* >= 16: room for the header */
}

/* Message payload: int source, int index, int tag, unsigned checksum of the rest. */
static void make_msg(unsigned char *b, size_t n, int src, int k, int tag)
{
    for (size_t i = 16; i < n; i++)
        b[i] = (unsigned char)(i * 31 + (size_t)k * 7 + (size_t)src);
    unsigned sum = 0;
    for (size_t i = 16; i < n; i++)
        sum = sum * 33 + b[i];
    int hdr[3] = { src, k, tag };
    memcpy(b, hdr, sizeof hdr);
    memcpy(b + 12, &sum, 4);
}

/* ---- sender state ------------------------------------------------------------------ */
typedef struct {
    int nmsg, k;                  /* messages numbered so far */
    unsigned char **out;          /* [k] payload (ordinary sends) */
    int *dest;                    /* [k] */
    int *cancelled;               /* [k] -1 pending, 0 delivered, 1 cancelled */
    MPI_Request *reqs;            /* [k] ordinary send requests */
    int *cancel_at;               /* [k] step at which to cancel, -1 never */
    /* one persistent send per destination: fixed size and mode for the seed */
    MPI_Request *preq;
    unsigned char **pbuf;
    size_t *psize;
    int *pk;                      /* index in flight on the persistent request, -1 idle */
    int pending;                  /* sends not complete yet */
    int reported;
    MPI_Request *report_reqs;
    int **report;
} sender;

/* ---- receiver state ---------------------------------------------------------------- */
typedef struct {
    unsigned char *in;
    int *last_k;                  /* [src * 4 + tag] */
    unsigned char *got;           /* [src * nmsg + k] */
    int *got_from;                /* [src] */
    int **report;                 /* [src] the sender's final report, when it arrived */
    MPI_Request *report_reqs;
    int *report_done;
    int reports;
    MPI_Request pr[2];            /* persistent receives: wildcard, and one (source, tag) */
    unsigned char *pin;
    int active;                   /* index of the started persistent receive, -1 none */
    int active_steps;
} receiver;

static void check_msg(receiver *r, int nmsg, const unsigned char *b, const MPI_Status *st)
{
    int hdr[3], count;
    unsigned sum = 0, want;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count >= 16, "message of %d bytes (source %d tag %d)", count, st->MPI_SOURCE, st->MPI_TAG);
    memcpy(hdr, b, sizeof hdr);
    memcpy(&want, b + 12, 4);
    for (int i = 16; i < count; i++)
        sum = sum * 33 + b[i];
    CHECK(sum == want, "checksum of message %d from %d", hdr[1], hdr[0]);
    CHECK(hdr[0] == st->MPI_SOURCE && hdr[2] == st->MPI_TAG, "status source %d tag %d, payload %d/%d",
          st->MPI_SOURCE, st->MPI_TAG, hdr[0], hdr[2]);
    CHECK(hdr[1] >= 0 && hdr[1] < nmsg, "message index %d", hdr[1]);
    int *last = &r->last_k[hdr[0] * 4 + hdr[2]];
    CHECK(hdr[1] > *last, "message %d from %d tag %d overtook %d", hdr[1], hdr[0], hdr[2], *last);
    *last = hdr[1];
    unsigned char *g = &r->got[(size_t)hdr[0] * (size_t)nmsg + (size_t)hdr[1]];
    CHECK(!*g, "message %d from %d received twice", hdr[1], hdr[0]);
    *g = 1;
    r->got_from[hdr[0]]++;
}

/* A completed receive: nothing if it was cancelled, else check the message. */
static void received(receiver *r, int nmsg, const unsigned char *b, const MPI_Status *st)
{
    int c;
    MPI_Test_cancelled(st, &c);
    if (!c)
        check_msg(r, nmsg, b, st);
}

/* Messages still owed by src, or -1 while its report has not arrived. */
static int owed(const receiver *r, int src)
{
    if (!r->report_done[src])
        return -1;
    return r->report[src][0] - r->got_from[src];
}

static int all_received(const receiver *r)
{
    for (int src = 0; src < size; src++)
        if (src != rank && owed(r, src) != 0)
            return 0;
    return 1;
}

static void pick_pattern(unsigned *s, int *src, int *tag)
{
    *src = MPI_ANY_SOURCE;
    *tag = MPI_ANY_TAG;
    unsigned style = rnd(s) % 4;
    if (style == 1 || style == 3)
        *src = (rank + 1 + (int)(rnd(s) % (unsigned)(size - 1))) % size;
    if (style == 2 || style == 3)
        *tag = (int)(rnd(s) % 4);
}

/* One receiving step; never blocks unless `drain` and a message is known to be owed. */
static void recv_step(receiver *r, int nmsg, unsigned *s, int drain)
{
    MPI_Status st;
    int flag, src, tag;
    if (r->active >= 0) {          /* only the persistent receive is outstanding */
        MPI_Test(&r->pr[r->active], &flag, &st);
        if (!flag && (++r->active_steps > 20 || rnd(s) % 16 == 0)) {
            MPI_Cancel(&r->pr[r->active]);
            MPI_Wait(&r->pr[r->active], &st);
            flag = 1;
        }
        if (flag) {
            received(r, nmsg, r->pin, &st);
            r->active = -1;
        }
        return;
    }
    switch (rnd(s) % 8) {
    case 0: case 1: case 2: {      /* probe, then receive exactly the probed message */
        pick_pattern(s, &src, &tag);
        MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            break;
        int count, count2;
        MPI_Status st2;
        MPI_Get_count(&st, MPI_BYTE, &count);
        MPI_Recv(r->in, MAXMSG, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2);
        MPI_Get_count(&st2, MPI_BYTE, &count2);
        CHECK(count2 == count, "probe said %d bytes, receive got %d", count, count2);
        check_msg(r, nmsg, r->in, &st2);
        break;
    }
    case 3: {                      /* matched probe */
        MPI_Message msg;
        pick_pattern(s, &src, &tag);
        MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, &msg, &st);
        if (!flag)
            break;
        MPI_Status st2;
        MPI_Mrecv(r->in, MAXMSG, MPI_BYTE, &msg, &st2);
        CHECK(msg == MPI_MESSAGE_NULL, "Mrecv left the message handle");
        CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == st.MPI_TAG,
              "Mrecv got %d/%d, probed %d/%d", st2.MPI_SOURCE, st2.MPI_TAG, st.MPI_SOURCE, st.MPI_TAG);
        check_msg(r, nmsg, r->in, &st2);
        break;
    }
    case 4: case 5:                /* start a persistent receive; later steps test it */
        r->active = (int)(rnd(s) % 2);
        r->active_steps = 0;
        MPI_Start(&r->pr[r->active]);
        break;
    case 6: {                      /* a receive cancelled at once */
        MPI_Request q;
        pick_pattern(s, &src, &tag);
        MPI_Irecv(r->in, MAXMSG, MPI_BYTE, src, tag, MPI_COMM_WORLD, &q);
        if (rnd(s) % 2)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Cancel(&q);
        MPI_Wait(&q, &st);
        received(r, nmsg, r->in, &st);
        break;
    }
    default:                       /* blocking receive, only from a source that owes one */
        if (!drain)
            break;
        for (int d = 1; d < size; d++) {
            src = (rank + d) % size;
            if (owed(r, src) > 0) {
                MPI_Recv(r->in, MAXMSG, MPI_BYTE, rnd(s) % 2 ? src : MPI_ANY_SOURCE,
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                check_msg(r, nmsg, r->in, &st);
                break;
            }
        }
        break;
    }
}

static void finish_send(sender *sd, int k, const MPI_Status *st)
{
    int c;
    MPI_Test_cancelled(st, &c);
    sd->cancelled[k] = c;
    sd->pending--;
}

/* Completes what it can of the sends, applies due cancels; never blocks. */
static void send_step(sender *sd, int step)
{
    for (int k = 0; k < sd->k; k++)
        if (sd->cancel_at[k] >= 0 && sd->cancel_at[k] <= step && sd->cancelled[k] < 0) {
            sd->cancel_at[k] = -1;
            if (sd->reqs[k] != MPI_REQUEST_NULL)
                MPI_Cancel(&sd->reqs[k]);
            else
                MPI_Cancel(&sd->preq[sd->dest[k]]);
        }
    int outcount, *idx = malloc(sizeof(int) * (size_t)(sd->k + 1));
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)(sd->k + 1));
    MPI_Testsome(sd->k, sd->reqs, &outcount, idx, sts);
    for (int i = 0; outcount != MPI_UNDEFINED && i < outcount; i++)
        finish_send(sd, idx[i], &sts[i]);
    free(idx);
    free(sts);
    for (int d = 0; d < size; d++) {
        int flag;
        MPI_Status st;
        if (d == rank || sd->pk[d] < 0)
            continue;
        MPI_Test(&sd->preq[d], &flag, &st);
        if (flag) {
            finish_send(sd, sd->pk[d], &st);
            sd->pk[d] = -1;
        }
    }
}

static void send_one(sender *sd, int dest, unsigned *s, int step)
{
    int k = sd->k++, tag = (int)(rnd(s) % 4);
    unsigned how = rnd(s) % 8;
    sd->dest[k] = dest;
    sd->cancelled[k] = -1;
    sd->cancel_at[k] = -1;
    sd->pending++;
    sd->reqs[k] = MPI_REQUEST_NULL;
    if (how >= 6 && sd->pk[dest] < 0) {      /* the destination's persistent send */
        /* its tag is fixed at creation: message k carries that tag */
        int ptag = dest % 4;
        make_msg(sd->pbuf[dest], sd->psize[dest], rank, k, ptag);
        sd->pk[dest] = k;
        MPI_Start(&sd->preq[dest]);
    } else {
        size_t n = pick_size(s);
        sd->out[k] = malloc(n);
        make_msg(sd->out[k], n, rank, k, tag);
        if (how % 3 == 1)
            MPI_Issend(sd->out[k], (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &sd->reqs[k]);
        else
            MPI_Isend(sd->out[k], (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &sd->reqs[k]);
    }
    unsigned c = rnd(s) % 10;
    if (c == 0) {                            /* cancel at once */
        MPI_Cancel(sd->reqs[k] != MPI_REQUEST_NULL ? &sd->reqs[k] : &sd->preq[dest]);
    } else if (c == 1) {
        sd->cancel_at[k] = step + 1 + (int)(rnd(s) % 3);
    }
}

/* All sends complete: tell every destination which of its messages were not cancelled. */
static void send_reports(sender *sd)
{
    for (int d = 0; d < size; d++) {
        if (d == rank)
            continue;
        int *rep = sd->report[d], n = 0;
        for (int k = 0; k < sd->k; k++)
            if (sd->dest[k] == d && !sd->cancelled[k])
                rep[1 + n++] = k;
        rep[0] = n;
        MPI_Isend(rep, 1 + n, MPI_INT, d, 0, ctrl, &sd->report_reqs[d]);
    }
    sd->reported = 1;
}

static void test_reports(receiver *r, int nmsg)
{
    for (int src = 0; src < size; src++) {
        int flag;
        if (src == rank || r->report_done[src])
            continue;
        MPI_Test(&r->report_reqs[src], &flag, MPI_STATUS_IGNORE);
        if (!flag)
            continue;
        r->report_done[src] = 1;
        r->reports++;
        int *rep = r->report[src];
        CHECK(rep[0] >= 0 && rep[0] <= PER_PEER, "report of %d messages from %d", rep[0], src);
        for (int i = 1; i <= rep[0]; i++)
            CHECK(rep[i] >= 0 && rep[i] < nmsg, "report index %d", rep[i]);
    }
}

static void run(unsigned seed)
{
    int nmsg = PER_PEER * (size - 1);
    unsigned s = seed * 7919u + (unsigned)rank * 104729u;
    sender sd;
    receiver rv;
    memset(&sd, 0, sizeof sd);
    memset(&rv, 0, sizeof rv);

    sd.nmsg = nmsg;
    sd.out = calloc((size_t)nmsg, sizeof(void *));
    sd.dest = calloc((size_t)nmsg, sizeof(int));
    sd.cancelled = calloc((size_t)nmsg, sizeof(int));
    sd.reqs = calloc((size_t)nmsg, sizeof(MPI_Request));
    sd.cancel_at = calloc((size_t)nmsg, sizeof(int));
    sd.preq = calloc((size_t)size, sizeof(MPI_Request));
    sd.pbuf = calloc((size_t)size, sizeof(void *));
    sd.psize = calloc((size_t)size, sizeof(size_t));
    sd.pk = calloc((size_t)size, sizeof(int));
    sd.report_reqs = calloc((size_t)size, sizeof(MPI_Request));
    sd.report = calloc((size_t)size, sizeof(int *));
    for (int d = 0; d < size; d++) {
        sd.pk[d] = -1;
        sd.report[d] = calloc(PER_PEER + 1, sizeof(int));
        sd.report_reqs[d] = MPI_REQUEST_NULL;
        if (d == rank)
            continue;
        sd.psize[d] = pick_size(&s);
        sd.pbuf[d] = malloc(sd.psize[d]);
        if (rnd(&s) % 2)
            MPI_Ssend_init(sd.pbuf[d], (int)sd.psize[d], MPI_BYTE, d, d % 4, MPI_COMM_WORLD, &sd.preq[d]);
        else
            MPI_Send_init(sd.pbuf[d], (int)sd.psize[d], MPI_BYTE, d, d % 4, MPI_COMM_WORLD, &sd.preq[d]);
    }

    rv.in = malloc(MAXMSG);
    rv.pin = malloc(MAXMSG);
    rv.last_k = malloc(sizeof(int) * (size_t)size * 4);
    for (int i = 0; i < size * 4; i++)
        rv.last_k[i] = -1;
    rv.got = calloc((size_t)size * (size_t)nmsg, 1);
    rv.got_from = calloc((size_t)size, sizeof(int));
    rv.report = calloc((size_t)size, sizeof(int *));
    rv.report_reqs = calloc((size_t)size, sizeof(MPI_Request));
    rv.report_done = calloc((size_t)size, sizeof(int));
    rv.active = -1;
    for (int src = 0; src < size; src++) {
        rv.report[src] = calloc(PER_PEER + 1, sizeof(int));
        if (src != rank)
            MPI_Irecv(rv.report[src], PER_PEER + 1, MPI_INT, src, 0, ctrl, &rv.report_reqs[src]);
    }
    int one_src = (rank + 1 + (int)(rnd(&s) % (unsigned)(size - 1))) % size;
    MPI_Recv_init(rv.pin, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rv.pr[0]);
    MPI_Recv_init(rv.pin, MAXMSG, MPI_BYTE, one_src, (int)(rnd(&s) % 4), MPI_COMM_WORLD, &rv.pr[1]);

    /* Interleave sending (round robin over peers) with receiving. */
    int step = 0;
    for (int i = 0; i < PER_PEER; i++, step++) {
        for (int d = 1; d < size; d++)
            send_one(&sd, (rank + d) % size, &s, step);
        int nrecv = 1 + (int)(rnd(&s) % 4);
        for (int j = 0; j < nrecv; j++)
            recv_step(&rv, nmsg, &s, 0);
        send_step(&sd, step);
    }
    /* Complete the sends, report, receive the rest; never block on anything not owed. */
    for (;; step++) {
        send_step(&sd, step);
        if (!sd.reported && sd.pending == 0)
            send_reports(&sd);
        test_reports(&rv, nmsg);
        if (sd.reported && rv.reports == size - 1 && all_received(&rv) && rv.active < 0)
            break;
        recv_step(&rv, nmsg, &s, 1);
    }
    /* the messages received are exactly those reported as not cancelled */
    for (int src = 0; src < size; src++) {
        if (src == rank)
            continue;
        int *rep = rv.report[src];
        unsigned char *want = calloc((size_t)nmsg, 1);
        for (int i = 1; i <= rep[0]; i++)
            want[rep[i]] = 1;
        for (int k = 0; k < nmsg; k++)
            CHECK(want[k] || !rv.got[(size_t)src * (size_t)nmsg + (size_t)k], "message %d from "
                  "%d was received although its send was cancelled", k, src);
        free(want);
        for (int i = 1; i <= rep[0]; i++)
            CHECK(rv.got[(size_t)src * (size_t)nmsg + (size_t)rep[i]], "message %d from %d "
                  "was not cancelled but never received", rep[i], src);
        CHECK(rv.got_from[src] == rep[0], "received %d messages from %d, it delivered %d",
              rv.got_from[src], src, rep[0]);
    }
    MPI_Waitall(size, sd.report_reqs, MPI_STATUSES_IGNORE);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "an extra message arrived");

    for (int k = 0; k < sd.k; k++)
        free(sd.out[k]);
    for (int d = 0; d < size; d++) {
        if (d != rank)
            MPI_Request_free(&sd.preq[d]);
        free(sd.pbuf[d]);
        free(sd.report[d]);
        free(rv.report[d]);
    }
    MPI_Request_free(&rv.pr[0]);
    MPI_Request_free(&rv.pr[1]);
    free(sd.out); free(sd.dest); free(sd.cancelled); free(sd.reqs); free(sd.cancel_at);
    free(sd.preq); free(sd.pbuf); free(sd.psize); free(sd.pk); free(sd.report_reqs);
    free(sd.report);
    free(rv.in); free(rv.pin); free(rv.last_k); free(rv.got); free(rv.got_from);
    free(rv.report); free(rv.report_reqs); free(rv.report_done);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &ctrl);
    for (unsigned seed = 1; seed <= SEEDS; seed++)
        run(seed);
    MPI_Comm_free(&ctrl);
    if (rank == 0)
        printf("p2p_order: %d ranks, %d seeds, all messages in order, cancelled ones never "
               "received\n", size, SEEDS);
    MPI_Finalize();
    return 0;
}

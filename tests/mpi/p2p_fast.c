/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2,3 timeout=120 env=MEMPI_SHM_CELLS=4,MEMPI_SHM_CHUNKS=4,MEMPI_SHM_CHUNK=1024 */
/* mempi-test: np=2,5 timeout=120 env=MEMPI_SPIN=0 */
/* p2p_fast.c -- blocking MPI_Send / MPI_Recv mixed with everything that must stay ahead of
 * them, for the request-free fast paths (src/pt2pt/fast.c).  MemPI, BSD-3-Clause.
 *
 * Ranks form a ring (np=1: a rank talks to itself).  Each rank sends its successor a seeded
 * schedule of messages -- sizes inside a cell, in a chunk, beyond the eager limit; tags 0..2 --
 * each by MPI_Send (small ones only), MPI_Isend or MPI_Issend, so blocking sends follow and
 * precede queued nonblocking ones to the same peer.  The predecessor knows the schedule (same
 * seed) and takes each message in one of these ways:
 *   - blocking MPI_Recv with the exact tag, or MPI_ANY_TAG;
 *   - MPI_Probe first (the message is then in the unexpected queue, which a blocking receive
 *     must search before the source's queue), then MPI_Recv;
 *   - an MPI_Irecv from MPI_ANY_SOURCE posted for message k, then a blocking MPI_Recv for
 *     message k+1: with equal tags the earlier-posted wildcard receive must get k; with a
 *     different tag the blocking receive must not take message k;
 *   - the same with the blocking receive first in matching terms: MPI_Irecv(ANY_SOURCE) for
 *     message k+1 posted before a blocking MPI_Recv for message k (different tags).
 * Every message carries (sender, index) and a checksum; the test checks those and the status
 * (source, tag, count).  Finally a truncated blocking receive returns MPI_ERR_TRUNCATE and the
 * next message still arrives intact.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMSG 300
#define MAXMSG 40000
#define SEEDS 3

enum { SEND_BLOCKING, SEND_ISEND, SEND_ISSEND };
enum { RECV_EXACT, RECV_ANYTAG, RECV_PROBE, RECV_WILD_THEN_BLOCKING, RECV_WILD_NEXT_FIRST };

typedef struct { int size, tag, how_send, how_recv, group_end; } plan;

static int rank, size;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

/* The schedule of the messages rank `src` sends to its successor; both sides compute it.
 * group_end: the last message of the group that is sent (and received) in one step. */
static void make_plan(plan *p, int src, unsigned seed)
{
    static const int sizes[] = { 0, 1, 8, 8, 8, 72, 73, 1000, 1000, 20000, MAXMSG };
    unsigned s = seed * 7919u + (unsigned)src * 104729u + 1u;
    for (int k = 0; k < NMSG; k++) {
        p[k].size = sizes[rnd(&s) % (sizeof sizes / sizeof sizes[0])];
        p[k].tag = (int)(rnd(&s) % 3);
        p[k].how_send = p[k].size <= 1000 && rnd(&s) % 3 ? SEND_BLOCKING :
                        rnd(&s) % 4 ? SEND_ISEND : SEND_ISSEND;
        p[k].how_recv = (int)(rnd(&s) % 5);
    }
    for (int k = 0; k < NMSG;) {
        int pair = k + 1 < NMSG && (p[k].how_recv == RECV_WILD_THEN_BLOCKING ||
                                    (p[k].how_recv == RECV_WILD_NEXT_FIRST &&
                                     p[k].tag != p[k + 1].tag));
        if (!pair && p[k].how_recv >= RECV_WILD_THEN_BLOCKING)
            p[k].how_recv = RECV_EXACT;
        p[k].group_end = pair ? k + 1 : k;
        if (pair) {
            p[k + 1].how_recv = RECV_EXACT;
            p[k + 1].group_end = k + 1;
        }
        k = p[k].group_end + 1;
    }
}

static unsigned char fill_byte(int src, int k, int i)
{
    return (unsigned char)(src * 31 + k * 7 + i);
}

static void make_msg(unsigned char *b, int n, int src, int k)
{
    for (int i = 0; i < n; i++)
        b[i] = fill_byte(src, k, i);
    if (n >= 8) {
        memcpy(b, &src, 4);
        memcpy(b + 4, &k, 4);
    }
}

static void check_msg(const unsigned char *b, const MPI_Status *st, const plan *p, int src, int k)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == src, "message %d: source %d, expected %d", k, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == p[k].tag, "message %d: tag %d, expected %d", k, st->MPI_TAG, p[k].tag);
    CHECK(count == p[k].size, "message %d: %d bytes, expected %d", k, count, p[k].size);
    if (p[k].size >= 8) {
        int s, idx;
        memcpy(&s, b, 4);
        memcpy(&idx, b + 4, 4);
        CHECK(s == src && idx == k, "expected message %d from %d, got message %d from %d",
              k, src, idx, s);
    }
    for (int i = p[k].size >= 8 ? 8 : 0; i < p[k].size; i++)
        CHECK(b[i] == fill_byte(src, k, i), "message %d from %d: byte %d corrupt", k, src, i);
}

static void run(unsigned seed)
{
    int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    plan *out = malloc(NMSG * sizeof *out), *in = malloc(NMSG * sizeof *in);
    make_plan(out, rank, seed);
    make_plan(in, src, seed);
    unsigned char **sbuf = malloc(NMSG * sizeof *sbuf);
    unsigned char *r1 = malloc(MAXMSG), *r2 = malloc(MAXMSG);
    MPI_Request *sreq = malloc(NMSG * sizeof *sreq);
    int ks = 0, kr = 0;
    while (ks < NMSG || kr < NMSG) {
        if (ks < NMSG) {                      /* one group of sends */
            int end = out[ks].group_end;
            for (; ks <= end; ks++) {
                sbuf[ks] = malloc(out[ks].size + 1);
                make_msg(sbuf[ks], out[ks].size, rank, ks);
                sreq[ks] = MPI_REQUEST_NULL;
                if (out[ks].how_send == SEND_BLOCKING)
                    MPI_Send(sbuf[ks], out[ks].size, MPI_BYTE, dest, out[ks].tag, MPI_COMM_WORLD);
                else if (out[ks].how_send == SEND_ISEND)
                    MPI_Isend(sbuf[ks], out[ks].size, MPI_BYTE, dest, out[ks].tag,
                              MPI_COMM_WORLD, &sreq[ks]);
                else
                    MPI_Issend(sbuf[ks], out[ks].size, MPI_BYTE, dest, out[ks].tag,
                               MPI_COMM_WORLD, &sreq[ks]);
            }
        }
        if (kr < NMSG) {                      /* one group of receives */
            MPI_Status st, st2;
            MPI_Request rq;
            int k = kr;
            /* Mostly buffers of the message's size: a large buffer makes the library ask the
             * sender for a remote write (docs/protocol.md, rule 8) instead. */
            int c1 = k % 4 ? in[k].size : MAXMSG;
            int c2 = k + 1 < NMSG && (k + 1) % 4 ? in[k + 1].size : MAXMSG;
            switch (in[k].how_recv) {
            case RECV_EXACT:
            case RECV_ANYTAG:
                MPI_Recv(r1, c1, MPI_BYTE, src, in[k].how_recv == RECV_EXACT ? in[k].tag :
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                check_msg(r1, &st, in, src, k);
                break;
            case RECV_PROBE:
                MPI_Probe(src, in[k].tag, MPI_COMM_WORLD, &st);
                CHECK(st.MPI_TAG == in[k].tag, "probe: tag %d", st.MPI_TAG);
                MPI_Recv(r1, c1, MPI_BYTE, src, in[k].tag, MPI_COMM_WORLD, &st);
                check_msg(r1, &st, in, src, k);
                break;
            case RECV_WILD_THEN_BLOCKING:     /* Irecv(ANY_SOURCE) for k, Recv for k+1 */
                MPI_Irecv(r1, c1, MPI_BYTE, MPI_ANY_SOURCE, in[k].tag, MPI_COMM_WORLD, &rq);
                MPI_Recv(r2, c2, MPI_BYTE, src, in[k + 1].tag, MPI_COMM_WORLD, &st2);
                MPI_Wait(&rq, &st);
                check_msg(r1, &st, in, src, k);
                check_msg(r2, &st2, in, src, k + 1);
                break;
            case RECV_WILD_NEXT_FIRST:        /* Irecv(ANY_SOURCE) for k+1, Recv for k */
                MPI_Irecv(r2, c2, MPI_BYTE, MPI_ANY_SOURCE, in[k + 1].tag, MPI_COMM_WORLD,
                          &rq);
                MPI_Recv(r1, c1, MPI_BYTE, src, in[k].tag, MPI_COMM_WORLD, &st);
                MPI_Wait(&rq, &st2);
                check_msg(r1, &st, in, src, k);
                check_msg(r2, &st2, in, src, k + 1);
                break;
            }
            kr = in[k].group_end + 1;
        }
    }
    MPI_Waitall(NMSG, sreq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < NMSG; k++)
        free(sbuf[k]);
    free(sbuf); free(sreq); free(r1); free(r2); free(out); free(in);
}

/* A message longer than the blocking receive's buffer: MPI_ERR_TRUNCATE, the buffer filled,
 * and the pair's next message unaffected. */
static void truncation(void)
{
    int dest = (rank + 1) % size, src = (rank + size - 1) % size;
    unsigned char s1[16], s2[8], r[8];
    make_msg(s1, 16, rank, 1);
    make_msg(s2, 8, rank, 2);
    MPI_Request rq[2];
    MPI_Isend(s1, 16, MPI_BYTE, dest, 5, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(s2, 8, MPI_BYTE, dest, 5, MPI_COMM_WORLD, &rq[1]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status st;
    int err = MPI_Recv(r, 8, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st), cls, count;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive returned class %d", cls);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 8, "truncated receive: count %d", count);
    int idx;
    memcpy(&idx, r + 4, 4);
    CHECK(idx == 1, "truncated receive got message %d", idx);
    err = MPI_Recv(r, 8, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st);
    CHECK(err == MPI_SUCCESS, "receive after the truncated one failed");
    memcpy(&idx, r + 4, 4);
    CHECK(idx == 2, "after truncation got message %d", idx);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (unsigned seed = 1; seed <= SEEDS; seed++)
        run(seed);
    truncation();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_fast: %d ranks, %d seeds x %d messages in order, truncation reported\n",
               size, SEEDS, NMSG);
    MPI_Finalize();
    return 0;
}

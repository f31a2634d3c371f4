/* mempi-test: np=2,5,9,17 timeout=300 */
/* mempi-test: np=5,9,13 timeout=300 env=MEMPI_SHM_QUEUE=4,MEMPI_SHM_RINGS=2,MEMPI_SHM_RING_AFTER=3,MEMPI_SHM_CELLS=4,MEMPI_SHM_CHUNKS=4 */
/* mempi-test: np=5,9 timeout=300 env=MEMPI_SHM_QUEUE=4,MEMPI_SHM_RINGS=0,MEMPI_SHM_CHUNKS=4 */
/* shm_churn.c -- the node segment's lazy lanes under churn: every ordered pair of ranks starts
 * talking at a random moment, through the receiver's shared queue first and (after
 * MEMPI_SHM_RING_AFTER packets, while rings last) through a fast ring.  MemPI, BSD-3-Clause
 * (see LICENSE).
 *
 * Each rank sends ROUNDS messages to every other rank, to destinations in a random order per
 * round, with a random mix of blocking sends (which take the fast path), nonblocking sends,
 * nonblocking synchronous sends and sizes from 0 bytes to 3 chunk-sized fragments; it receives them with
 * MPI_ANY_SOURCE receives (general path), and rank-specific blocking receives (the direct
 * receive that reads a sender's lane itself).  Blocking sends are used only for eager sizes,
 * and synchronous sends only nonblocking, so that the program is safe whatever the order.  Every message carries (sender, index) and a
 * pattern; the receiver checks that each sender's messages arrive in order and intact, and
 * the status (source, tag, count).  The variants shrink the queues, rings and pools so that
 * full queues, the switch to a ring, rings running out and queue-only operation all happen.
 */
#include "check.h"

#define ROUNDS 100
#define MAXLEN (3 * 16384 + 100)

static unsigned rnd_state;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 16;
}

static int len_of(int src, int dst, int i)
{
    unsigned h = (unsigned)(i * 7919 + src * 131 + dst * 17) * 2654435761u;
    switch ((h >> 8) % 8) {
    case 0: return 0;
    case 1: return (int)((h >> 12) % MAXLEN);
    case 2: return (int)((h >> 12) % 2000);
    default: return (int)((h >> 12) % 72);
    }
}

/* The round at which sender src starts talking to dst: both sides compute it. */
static int pair_start(int src, int dst)
{
    return (int)(((unsigned)(src * 131 + dst * 7) * 2654435761u >> 8) % (ROUNDS / 2));
}

static unsigned char byte_of(int src, int i, int k)
{
    return (unsigned char)(src * 29 + i * 7 + k * 3);
}

static void fill(unsigned char *b, int src, int i, int n)
{
    for (int k = 0; k < n; k++)
        b[k] = byte_of(src, i, k);
}

static void verify(const unsigned char *b, int me, int src, int i, const MPI_Status *st)
{
    int n = len_of(src, me, i), count;
    CHECK(st->MPI_SOURCE == src, "message %d: source %d, expected %d", i, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == i, "message from %d: tag %d, expected %d (out of order)", src,
          st->MPI_TAG, i);
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == n, "message %d from %d: %d bytes, expected %d", i, src, count, n);
    for (int k = 0; k < n; k++)
        CHECK(b[k] == byte_of(src, i, k), "message %d from %d: byte %d wrong", i, src, k);
}

int main(int argc, char **argv)
{
    CHECK_MPI(MPI_Init(&argc, &argv));
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    rnd_state = 777u + 31u * (unsigned)me;
    unsigned char *sbuf = malloc((size_t)np * MAXLEN), *rbuf = malloc(MAXLEN);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)np);
    int *order = malloc(sizeof(int) * (size_t)np), *next = calloc((size_t)np, sizeof(int));
    int *start = calloc((size_t)np, sizeof(int));   /* next index expected from each sender */
    CHECK(sbuf && rbuf && reqs && order && next && start, "out of memory");
    /* Each ordered pair starts at a random round (pair_start): before it, the pair is silent. */
    for (int round = 0; round < ROUNDS; round++) {
        int n = 0;
        for (int p = 0; p < np; p++)
            order[n++] = p;
        for (int k = n - 1; k > 0; k--) {
            int j = (int)(rnd() % (unsigned)(k + 1)), t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
        int nreq = 0;
        for (int k = 0; k < np; k++) {
            int p = order[k];
            if (p == me || round < pair_start(me, p))
                continue;
            int i = next[p]++, len = len_of(me, p, i);
            unsigned char *b = sbuf + (size_t)p * MAXLEN;
            fill(b, me, i, len);
            switch (rnd() % 4) {
            case 0:   /* blocking only when eager: ranks sending to each other must not wait */
                if (len <= 64) {
                    CHECK_MPI(MPI_Send(b, len, MPI_BYTE, p, i, MPI_COMM_WORLD));
                    break;
                }
                CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, p, i, MPI_COMM_WORLD, &reqs[nreq++]));
                break;
            case 1:
                CHECK_MPI(MPI_Issend(b, len, MPI_BYTE, p, i, MPI_COMM_WORLD, &reqs[nreq++]));
                break;
            default:
                CHECK_MPI(MPI_Isend(b, len, MPI_BYTE, p, i, MPI_COMM_WORLD, &reqs[nreq++]));
            }
            /* receive something meanwhile, so that blocking sends cannot deadlock */
            int flag = 1;
            while (flag) {
                MPI_Status st;
                CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
                if (flag) {
                    int src = st.MPI_SOURCE;
                    CHECK(st.MPI_TAG == start[src], "from %d: tag %d, expected %d", src,
                          st.MPI_TAG, start[src]);
                    if (rnd() % 2)
                        CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, src, MPI_ANY_TAG,
                                           MPI_COMM_WORLD, &st));
                    else
                        CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, start[src],
                                           MPI_COMM_WORLD, &st));
                    CHECK(st.MPI_SOURCE == src || st.MPI_TAG == start[st.MPI_SOURCE],
                          "message from %d out of order", st.MPI_SOURCE);
                    verify(rbuf, me, st.MPI_SOURCE, start[st.MPI_SOURCE], &st);
                    start[st.MPI_SOURCE]++;
                }
            }
        }
        /* Wait for the sends while receiving whatever comes (blocking direct receives from
         * a random sender that still owes messages, or any source). */
        int done = 0;
        while (!done) {
            CHECK_MPI(MPI_Testall(nreq, reqs, &done, MPI_STATUSES_IGNORE));
            int flag;
            MPI_Status st;
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            if (flag) {
                int src = st.MPI_SOURCE;
                CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, src, start[src], MPI_COMM_WORLD, &st));
                verify(rbuf, me, src, start[src], &st);
                start[src]++;
            }
        }
    }
    /* Everything still owed: src sends us one message per round from pair_start on. */
    for (int src = 0; src < np; src++)
        while (src != me && start[src] < ROUNDS - pair_start(src, me)) {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(rbuf, MAXLEN, MPI_BYTE, src, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            verify(rbuf, me, src, start[src], &st);
            start[src]++;
        }
    int flag;
    MPI_Status st;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "an extra message from %d (tag %d)", st.MPI_SOURCE, st.MPI_TAG);
    long total = 0, mine = 0;
    for (int p = 0; p < np; p++)
        mine += p == me ? 0 : start[p];
    CHECK_MPI(MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (me == 0)
        printf("shm_churn: %d ranks, %ld messages in order and intact\n", np, total);
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(order);
    free(next);
    free(start);
    CHECK_MPI(MPI_Finalize());
    return 0;
}

/* mempi-test: np=2,3,5 timeout=240 env=MEMPI_SPLIT_COPY=1 */
/* mempi-test: np=2,3 timeout=240 env=MEMPI_SPLIT_COPY=1,MEMPI_SPLIT_COPY_MIN=0,MEMPI_EAGER_MAX=1024 */
/* mempi-test: np=2,5 timeout=240 */
/* p2p_split.c -- large single copies shared by sender and receiver (two-core copy).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Ranks pair up (0-1, 2-3, ...; an odd last rank exchanges with itself) and move messages of
 * 128 KiB to 4 MiB (odd sizes, so the last chunk is short) both ways:
 *   - receiver early: the receive is posted before a barrier, the send comes after it (the
 *     request-for-sending path: the sender owns the copy, the waiting receiver helps);
 *   - receiver late: the send is started before the barrier, the receive comes after it
 *     (rendezvous: the receiver pulls and owns the copy, the sender helps from its wait);
 *   - non-contiguous types on the send side, the receive side, and both;
 *   - many messages in flight at once in both directions, with distinct tags and sizes;
 *   - a receive buffer shorter than the message (MPI_ERR_TRUNCATE, the first bytes arrive);
 *   - MPI_Sendrecv exchanges, where both ranks own a copy and help the other's at once when
 *     sharing is forced.
 * Without MEMPI_SPLIT_COPY (auto) the sendrecv exchanges must share no copy at all: a rank
 * inside MPI_Sendrecv (or a collective) copies its own transfer and never offers to help
 * (docs/protocol.md rule 14), so the counter may not move during them.
 * Every byte is checked against a pattern of (message, offset), and every status.  With
 * MEMPI_SPLIT_COPY=1 each rank of a pair must have opened shared copies (the MPI_T counter
 * mempi_split_msgs) whenever single copy is on at all (mempi_sendreq_bytes > 0), so the test
 * cannot pass with the protocol switched off.  Whether the helper gets to copy chunks depends
 * on timing; its share is printed, not checked.
 */
#include "check.h"
#include "counters.h"
#include <stdint.h>

static int rank, size, partner;

static unsigned char pattern(int msg, size_t off)
{
    return (unsigned char)(msg * 131 + off * 7 + (off >> 12) * 13 + 1);
}

static void fill(unsigned char *b, size_t n, int msg)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(msg, i);
}

static void expect_bytes(const unsigned char *b, size_t n, int msg, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(msg, i))
            FAIL("%s: message %d byte %zu is %d, expected %d", what, msg, i, b[i], pattern(msg, i));
}

static void expect_status(const MPI_Status *st, MPI_Datatype t, int count, int tag)
{
    int got;
    CHECK_MPI(MPI_Get_count(st, t, &got));
    CHECK(got == count, "count %d, expected %d", got, count);
    CHECK(st->MPI_SOURCE == partner, "source %d, expected %d", st->MPI_SOURCE, partner);
    CHECK(st->MPI_TAG == tag, "tag %d, expected %d", st->MPI_TAG, tag);
}

/* One message each way; early: receives posted before the barrier, sends after it. */
static void exchange(size_t n, int msg, int early)
{
    unsigned char *s = malloc(n), *r = malloc(n);
    CHECK(s && r, "out of memory");
    fill(s, n, msg + rank);
    memset(r, 0, n);
    MPI_Request rq[2];
    MPI_Status st[2];
    if (early) {
        CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[1]));
    } else {
        CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Irecv(r, (int)n, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[0]));
    }
    CHECK_MPI(MPI_Waitall(2, rq, st));
    expect_status(&st[0], MPI_BYTE, (int)n, msg);
    expect_bytes(r, n, msg + partner, early ? "receiver early" : "receiver late");
    free(s);
    free(r);
}

/* One message each way with MPI_Sendrecv (the pair's copies run at the same time). */
static void sendrecv_exchange(size_t n, int msg)
{
    unsigned char *s = malloc(n), *r = malloc(n);
    CHECK(s && r, "out of memory");
    fill(s, n, msg + rank);
    memset(r, 0, n);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(s, (int)n, MPI_BYTE, partner, msg, r, (int)n, MPI_BYTE, partner, msg,
                           MPI_COMM_WORLD, &st));
    expect_status(&st, MPI_BYTE, (int)n, msg);
    expect_bytes(r, n, msg + partner, "sendrecv");
    free(s);
    free(r);
}

/* A vector of blocks of `blk` bytes with stride 2*blk, or contiguous bytes. */
static MPI_Datatype make_type(int noncontig, int nblk, int blk)
{
    MPI_Datatype t;
    if (noncontig)
        CHECK_MPI(MPI_Type_vector(nblk, blk, 2 * blk, MPI_BYTE, &t));
    else
        CHECK_MPI(MPI_Type_contiguous(nblk * blk, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static void exchange_types(int snc, int rnc, int early, int msg)
{
    enum { NBLK = 300, BLK = 3001 };          /* 900300 bytes of data */
    size_t span = (size_t)2 * NBLK * BLK;
    MPI_Datatype st = make_type(snc, NBLK, BLK), rt = make_type(rnc, NBLK, BLK);
    unsigned char *s = malloc(span), *r = malloc(span), *packed = malloc((size_t)NBLK * BLK);
    CHECK(s && r && packed, "out of memory");
    /* the sent data, packed, is the pattern of (msg + rank) */
    fill(packed, (size_t)NBLK * BLK, msg + rank);
    memset(s, 0xee, span);
    for (int b = 0; b < NBLK; b++)
        memcpy(s + (size_t)b * (snc ? 2 * BLK : BLK), packed + (size_t)b * BLK, BLK);
    memset(r, 0, span);
    MPI_Request rq[2];
    MPI_Status sts[2];
    if (early) {
        CHECK_MPI(MPI_Irecv(r, 1, rt, partner, msg, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Isend(s, 1, st, partner, msg, MPI_COMM_WORLD, &rq[1]));
    } else {
        CHECK_MPI(MPI_Isend(s, 1, st, partner, msg, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Irecv(r, 1, rt, partner, msg, MPI_COMM_WORLD, &rq[0]));
    }
    CHECK_MPI(MPI_Waitall(2, rq, sts));
    expect_status(&sts[0], rt, 1, msg);
    fill(packed, (size_t)NBLK * BLK, msg + partner);
    for (int b = 0; b < NBLK; b++) {
        const unsigned char *at = r + (size_t)b * (rnc ? 2 * BLK : BLK);
        if (memcmp(at, packed + (size_t)b * BLK, BLK) != 0)
            FAIL("types send %s recv %s, receiver %s: block %d differs", snc ? "vector" : "contig",
                 rnc ? "vector" : "contig", early ? "early" : "late", b);
        if (rnc)
            for (int i = 0; i < BLK; i++)
                CHECK(at[BLK + i] == 0, "gap byte %d after block %d was written", i, b);
    }
    free(s);
    free(r);
    free(packed);
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
}

/* K messages each way in flight at once, receives posted in a mixed order. */
static void many_in_flight(int base)
{
    enum { K = 8 };
    unsigned char *s[K], *r[K];
    size_t n[K];
    MPI_Request rq[2 * K];
    MPI_Status st[2 * K];
    for (int k = 0; k < K; k++) {
        n[k] = ((size_t)256 << 10) + (size_t)k * 77777;
        s[k] = malloc(n[k]);
        r[k] = malloc(n[k]);
        CHECK(s[k] && r[k], "out of memory");
        fill(s[k], n[k], base + k + rank);
        memset(r[k], 0, n[k]);
    }
    for (int k = 0; k < K / 2; k++)             /* half the receives early ... */
        CHECK_MPI(MPI_Irecv(r[k], (int)n[k], MPI_BYTE, partner, base + k, MPI_COMM_WORLD, &rq[k]));
    for (int k = 0; k < K; k++)
        CHECK_MPI(MPI_Isend(s[k], (int)n[k], MPI_BYTE, partner, base + k, MPI_COMM_WORLD, &rq[K + k]));
    for (int k = K - 1; k >= K / 2; k--)        /* ... the rest late, in reverse */
        CHECK_MPI(MPI_Irecv(r[k], (int)n[k], MPI_BYTE, partner, base + k, MPI_COMM_WORLD, &rq[k]));
    CHECK_MPI(MPI_Waitall(2 * K, rq, st));
    for (int k = 0; k < K; k++) {
        expect_status(&st[k], MPI_BYTE, (int)n[k], base + k);
        expect_bytes(r[k], n[k], base + k + partner, "many in flight");
        free(s[k]);
        free(r[k]);
    }
}

/* The message is longer than the receive buffer: the buffer fills, MPI_ERR_TRUNCATE. */
static void truncated(int early, int msg)
{
    size_t n = (size_t)3 << 20, cap = ((size_t)1 << 20) + 4321;
    unsigned char *s = malloc(n), *r = malloc(n);
    CHECK(s && r, "out of memory");
    fill(s, n, msg + rank);
    memset(r, 0, n);
    MPI_Request rq[2];
    MPI_Status st;
    if (early) {
        CHECK_MPI(MPI_Irecv(r, (int)cap, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[1]));
    } else {
        CHECK_MPI(MPI_Isend(s, (int)n, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Irecv(r, (int)cap, MPI_BYTE, partner, msg, MPI_COMM_WORLD, &rq[0]));
    }
    CHECK_CLASS(MPI_Wait(&rq[0], &st), MPI_ERR_TRUNCATE);
    CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    expect_status(&st, MPI_BYTE, (int)cap, msg);
    expect_bytes(r, cap, msg + partner, "truncated");
    for (size_t i = cap; i < n; i++)
        CHECK(r[i] == 0, "byte %zu beyond the receive buffer was written", i);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    counters_open();                  /* they count from here on */
    MPI_T_pvar_handle h_opened = counter_start("mempi_split_msgs");
    MPI_T_pvar_handle h_single = counter_start("mempi_sendreq_bytes");
    MPI_T_pvar_handle h_rndv = counter_start("mempi_rndv_bytes");
    MPI_T_pvar_handle h_helped = counter_start("mempi_split_help_bytes");
    partner = rank ^ 1;
    if (partner >= size)
        partner = rank;
    /* Only a partner on this node can share a copy (across hosts the network moves it). */
    MPI_Comm node;
    MPI_Group world_group, node_group;
    int partner_on_node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    CHECK_MPI(MPI_Comm_group(node, &node_group));
    CHECK_MPI(MPI_Group_translate_ranks(world_group, 1, &partner, node_group, &partner_on_node));
    MPI_Group_free(&world_group);
    MPI_Group_free(&node_group);
    MPI_Comm_free(&node);

    const size_t sizes[] = { (size_t)128 << 10, ((size_t)256 << 10) + 1, ((size_t)1 << 20) + 123,
                             ((size_t)4 << 20) - 7 };
    int msg = 1;
    for (int rep = 0; rep < 3; rep++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int early = 0; early < 2; early++)
                exchange(sizes[i], msg++, early);
    for (int snc = 0; snc < 2; snc++)
        for (int rnc = 0; rnc < 2; rnc++)
            for (int early = 0; early < 2; early++)
                exchange_types(snc, rnc, early, msg++);
    for (int rep = 0; rep < 4; rep++) {
        many_in_flight(msg);
        msg += 8;
    }
    truncated(1, msg++);
    truncated(0, msg++);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long before_sendrecv = counter_read(h_opened);
    for (int rep = 0; rep < 3; rep++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            sendrecv_exchange(sizes[i], msg++);
    unsigned long long in_sendrecv = counter_read(h_opened) - before_sendrecv;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    unsigned long long opened = counter_read(h_opened);
    unsigned long long single = counter_read(h_single);
    unsigned long long rndv = counter_read(h_rndv);
    unsigned long long helped = counter_read(h_helped);
    const char *forced = getenv("MEMPI_SPLIT_COPY");
    if (forced && strcmp(forced, "1") == 0 && partner != rank && single > 0 &&
        partner_on_node != MPI_UNDEFINED)
        CHECK(opened > 0, "MEMPI_SPLIT_COPY=1 and single copy is on, but no copy was shared");
    if (!forced)
        CHECK(in_sendrecv == 0, "auto: %llu copies shared inside MPI_Sendrecv, where the peer "
              "copies its own transfer", in_sendrecv);
    if (partner != rank)
        printf("rank %d: %llu shared copies opened, %llu bytes copied as helper\n", rank, opened,
               helped);
    CHECK(rndv > 0, "no rendezvous message was counted: the counters do not work");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    counters_close();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_split: OK\n");
    return 0;
}

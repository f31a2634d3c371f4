/* net_rndv.c -- messages across the eager/rendezvous thresholds between nodes, verified.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Run by check-2x2 with ranks spread over two nodes.  Every rank pairs with the rank half the
 * job away (on the other node under run-job's block placement), and for each size around the
 * network thresholds (MEMPI_NET_EAGER_MAX, MEMPI_NET_CHUNK, MEMPI_SENDREQ_MIN) exchanges:
 *   - receive posted first (request for sending: fi_write into the receive buffer),
 *   - receive posted late (unexpected rendezvous: fi_read of the sender's buffer),
 *   - a strided vector type on both sides (non-contiguous: packed sender, segmented reads),
 *     and vector -> bytes posted first (the sender writes a non-contiguous buffer remotely),
 *   - a synchronous send,
 *   - a window of unexpected rendezvous messages, received out of order (several reads in
 *     flight at once), whose sender overwrites each buffer the moment its send completes: a
 *     send reported complete before the receiver's read finished shows as wrong bytes,
 * checking every byte, the status source/tag and the received count.  Prints "ok" at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static unsigned char pattern(int src, int round, size_t i)
{
    return (unsigned char)(src * 31 + round * 7 + i * 13 + (i >> 8));
}

static void check_status(const MPI_Status *st, int src, int tag, MPI_Datatype dt, int count,
                         const char *what, size_t size)
{
    int got;
    MPI_Get_count(st, dt, &got);
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag || got != count) {
        fprintf(stderr, "%s %zu: status source %d tag %d count %d, expected %d %d %d\n", what,
                size, st->MPI_SOURCE, st->MPI_TAG, got, src, tag, count);
        failures++;
    }
}

static void check_bytes(const unsigned char *b, size_t n, int src, int round, const char *what,
                        size_t size)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(src, round, i)) {
            fprintf(stderr, "%s %zu: byte %zu is %u, expected %u\n", what, size, i, b[i],
                    pattern(src, round, i));
            failures++;
            return;
        }
}

/* Contiguous exchange; `late`: the receive is posted after the peer's send started. */
static void contiguous(int me, int peer, size_t n, int round, int late, int sync)
{
    unsigned char *s = malloc(n + 1), *r = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = pattern(me, round, i);
    memset(r, 0xee, n + 1);
    MPI_Request rq[2];
    MPI_Status st[2];
    const char *what = sync ? "ssend" : late ? "late" : "posted-first";
    if (!late)
        MPI_Irecv(r, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);     /* posted-first: the SREQ is on its way before the send */
    if (sync)
        MPI_Issend(s, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[1]);
    else
        MPI_Isend(s, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[1]);
    if (late) {
        MPI_Barrier(MPI_COMM_WORLD); /* the RTS / eager data is (likely) unexpected by now */
        MPI_Irecv(r, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[0]);
    }
    MPI_Waitall(2, rq, st);
    check_status(&st[0], peer, round, MPI_BYTE, (int)n, what, n);
    check_bytes(r, n, peer, round, what, n);
    if (r[n] != 0xee) {
        fprintf(stderr, "%s %zu: byte past the message overwritten\n", what, n);
        failures++;
    }
    free(s);
    free(r);
}

/* A window of `w` messages of n bytes with tags round..round+w-1, sent before any receive is
 * posted (rendezvous: unexpected RTS), received into separate buffers in reverse tag order
 * with Irecv + Waitany.  Each send buffer is overwritten as soon as Waitany says its send is
 * done, while later reads may still be in flight. */
static void window(int me, int peer, size_t n, int round, int w)
{
    unsigned char **s = malloc(sizeof *s * (size_t)w), **r = malloc(sizeof *r * (size_t)w);
    MPI_Request *sq = malloc(sizeof *sq * (size_t)w), *rq = malloc(sizeof *rq * (size_t)w);
    for (int k = 0; k < w; k++) {
        s[k] = malloc(n);
        r[k] = malloc(n);
        for (size_t i = 0; i < n; i++)
            s[k][i] = pattern(me, round + k, i);
        memset(r[k], 0xee, n);
        MPI_Isend(s[k], (int)n, MPI_BYTE, peer, round + k, MPI_COMM_WORLD, &sq[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);     /* every RTS is (likely) unexpected by now */
    for (int k = w - 1; k >= 0; k--)
        MPI_Irecv(r[k], (int)n, MPI_BYTE, peer, round + k, MPI_COMM_WORLD, &rq[k]);
    for (int left = 2 * w; left > 0; left--) {
        int idx;
        MPI_Status st;
        MPI_Request all[2 * 64];
        for (int k = 0; k < w; k++)
            all[k] = sq[k], all[w + k] = rq[k];
        MPI_Waitany(2 * w, all, &idx, &st);
        if (idx < w) {
            sq[idx] = all[idx];
            memset(s[idx], 0x11, n);   /* the send is done: the buffer is ours again */
        } else {
            int k = idx - w;
            rq[k] = all[idx];
            check_status(&st, peer, round + k, MPI_BYTE, (int)n, "window", n);
            check_bytes(r[k], n, peer, round + k, "window", n);
        }
    }
    for (int k = 0; k < w; k++)
        free(s[k]), free(r[k]);
    free(s);
    free(r);
    free(sq);
    free(rq);
}

/* Every other 3-byte block of a buffer: `blocks` blocks of 3 bytes, stride 5. */
/* rcontig: the receiver takes the packed bytes into a contiguous buffer (posted first, so a
 * request for sending: the sender writes a non-contiguous buffer remotely). */
static void strided(int me, int peer, int blocks, int round, int late, int rcontig)
{
    MPI_Datatype vec;
    MPI_Type_vector(blocks, 3, 5, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    size_t span = (size_t)blocks * 5, n = (size_t)blocks * 3;
    unsigned char *s = malloc(span), *r = malloc(span), *packed = malloc(n);
    size_t k = 0;
    for (size_t i = 0; i < span; i++)
        s[i] = (i % 5 < 3) ? pattern(me, round, k++) : 0x55;
    memset(r, 0xee, span);
    MPI_Request rq[2];
    MPI_Status st[2];
    if (rcontig) {
        MPI_Irecv(packed, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(s, 1, vec, peer, round, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
        check_status(&st[0], peer, round, MPI_BYTE, (int)n, "vector->bytes", n);
        check_bytes(packed, n, peer, round, "vector->bytes", n);
        free(s);
        free(r);
        free(packed);
        MPI_Type_free(&vec);
        return;
    }
    if (!late)
        MPI_Irecv(r, 1, vec, peer, round, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(s, 1, vec, peer, round, MPI_COMM_WORLD, &rq[1]);
    if (late) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Irecv(r, 1, vec, peer, round, MPI_COMM_WORLD, &rq[0]);
    }
    MPI_Waitall(2, rq, st);
    check_status(&st[0], peer, round, vec, 1, "vector", n);
    k = 0;
    for (size_t i = 0; i < span; i++) {
        if (i % 5 < 3)
            packed[k++] = r[i];
        else if (r[i] != 0xee) {
            fprintf(stderr, "vector %zu: gap byte %zu overwritten\n", n, i);
            failures++;
            break;
        }
    }
    check_bytes(packed, n, peer, round, "vector", n);
    free(s);
    free(r);
    free(packed);
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        if (rank == 0)
            fprintf(stderr, "net_rndv: needs an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = (rank + size / 2) % size;
    const size_t sizes[] = { 0, 1, 4095, 4096, 4097, 65535, 65536, 65537, 131072 + 5,
                             262144, 262145, (1 << 20) + 3 };
    int round = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int mode = 0; mode < 3; mode++)
            contiguous(rank, peer, sizes[i], round++, mode == 1, mode == 2);
    window(rank, peer, (1 << 20) + 7, round, 16);
    round += 16;
    window(rank, peer, 65537, round, 64);
    round += 64;
    const int blocks[] = { 1, 1365, 21845, 21846, 100000 };
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        for (int mode = 0; mode < 3; mode++)
            strided(rank, peer, blocks[i], round++, mode == 1, mode == 2);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "net_rndv: %d failures\n" : "net_rndv: ok\n", all);
    MPI_Finalize();
    return all != 0;
}

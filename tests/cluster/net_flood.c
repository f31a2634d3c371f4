/* net_flood.c -- every rank floods every other with small messages no receive waits for.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Run by check-2x2 across two nodes, with the default credit window and with
 * MEMPI_NET_CREDITS=2, so that the network transport's flow control runs out of credits all
 * the time and packs the waiting messages into batches (MEMPI_NET_COALESCE).  Three phases,
 * each checking every byte, the status source and tag, and the received count:
 *   1. flood: each rank starts nonblocking sends of MSGS messages to every other rank (mostly
 *      8 bytes, some 1 KiB, 5000 and 9000 bytes -- the last too large for a batch -- and some
 *      beyond the eager limit), all at once, before any receive is posted; a barrier then
 *      completes while every message waits unexpected (both sides sending, nobody receiving:
 *      a credit scheme that needs a posted receive hangs here).  Then the receives, in order
 *      with the exact tag for half of the peers, MPI_ANY_TAG for the other half, which must
 *      still see each sender's messages in the order sent (non-overtaking);
 *   2. MPI_ANY_SOURCE: the same flood received with MPI_ANY_SOURCE / MPI_ANY_TAG, each sender's
 *      messages again in order;
 *   3. streaming: rank pairs half a job apart (the other node under block placement) send
 *      windows of 64 nonblocking 8-byte and 1 KiB messages against receives posted first,
 *      like the bandwidth benchmark, with an acknowledgement per window.
 * Prints "net_flood: ok" at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSGS 600
#define NTAGS 3

static int failures;

static size_t size_of(int i)
{
    if (i % 97 == 96)
        return 70000;                 /* above the default eager limit: rendezvous */
    if (i % 31 == 30)
        return 9000;                  /* eager, but never packed into a batch */
    if (i % 13 == 12)
        return 5000;
    if (i % 7 == 6)
        return 1024;
    return i % 5 == 4 ? 0 : 8;
}

static unsigned char pattern(int src, int dst, int i, size_t k)
{
    return (unsigned char)(src * 41 + dst * 17 + i * 7 + k * 13 + (k >> 8));
}

static void fill(unsigned char *b, int src, int dst, int i)
{
    size_t n = size_of(i);
    for (size_t k = 0; k < n; k++)
        b[k] = pattern(src, dst, i, k);
}

static void check(const unsigned char *b, const MPI_Status *st, int src, int dst, int i,
                  const char *phase)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != src || st->MPI_TAG != i % NTAGS || count != (int)size_of(i)) {
        fprintf(stderr, "net_flood %s: rank %d message %d from %d: status source %d tag %d "
                "count %d, expected %d %d %zu\n", phase, dst, i, src, st->MPI_SOURCE, st->MPI_TAG,
                count, src, i % NTAGS, size_of(i));
        failures++;
        return;
    }
    for (size_t k = 0; k < size_of(i); k++)
        if (b[k] != pattern(src, dst, i, k)) {
            fprintf(stderr, "net_flood %s: rank %d message %d from %d: byte %zu is %u, "
                    "expected %u\n", phase, dst, i, src, k, b[k], pattern(src, dst, i, k));
            failures++;
            return;
        }
}

/* Starts MSGS sends to every other rank; their buffers and requests are returned. */
static unsigned char **flood(int rank, int size, MPI_Request *req)
{
    unsigned char **out = malloc(sizeof *out * (size_t)size * MSGS);
    int n = 0;
    for (int i = 0; i < MSGS; i++)
        for (int d = 1; d < size; d++) {
            int dst = (rank + d) % size;
            unsigned char *b = malloc(size_of(i) + 1);
            fill(b, rank, dst, i);
            out[n] = b;
            MPI_Isend(b, (int)size_of(i), MPI_BYTE, dst, i % NTAGS, MPI_COMM_WORLD, &req[n++]);
        }
    return out;
}

static void flood_done(unsigned char **out, MPI_Request *req, int n)
{
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    for (int k = 0; k < n; k++)
        free(out[k]);
    free(out);
}

static void phase_in_order(int rank, int size, unsigned char *in)
{
    MPI_Request *req = malloc(sizeof *req * (size_t)size * MSGS);
    unsigned char **out = flood(rank, size, req);
    MPI_Barrier(MPI_COMM_WORLD);      /* every rank's flood is out, nothing received yet */
    for (int d = 1; d < size; d++) {
        int src = (rank - d + size) % size;
        for (int i = 0; i < MSGS; i++) {
            MPI_Status st;
            MPI_Recv(in, 70000, MPI_BYTE, src, d % 2 ? i % NTAGS : MPI_ANY_TAG, MPI_COMM_WORLD,
                     &st);
            check(in, &st, src, rank, i, "in order");
        }
    }
    flood_done(out, req, (size - 1) * MSGS);
    free(req);
}

static void phase_any_source(int rank, int size, unsigned char *in)
{
    MPI_Request *req = malloc(sizeof *req * (size_t)size * MSGS);
    unsigned char **out = flood(rank, size, req);
    int *next = calloc((size_t)size, sizeof *next);
    for (int k = 0; k < (size - 1) * MSGS; k++) {
        MPI_Status st;
        MPI_Recv(in, 70000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int src = st.MPI_SOURCE;
        if (src < 0 || src >= size || src == rank || next[src] >= MSGS) {
            fprintf(stderr, "net_flood any source: rank %d got a message from %d\n", rank, src);
            failures++;
            break;
        }
        check(in, &st, src, rank, next[src]++, "any source");
    }
    flood_done(out, req, (size - 1) * MSGS);
    free(next);
    free(req);
}

static void phase_stream(int rank, int size)
{
    enum { W = 64, ROUNDS = 20 };
    int half = size / 2;
    if (rank >= 2 * half)
        return;                       /* an odd rank out */
    int peer = rank < half ? rank + half : rank - half;
    static unsigned char buf[W][1024];
    MPI_Request req[W];
    for (size_t len = 8; len <= 1024; len *= 128) {
        for (int r = 0; r < ROUNDS; r++) {
            int ack = 0;
            if (rank < half) {
                for (int j = 0; j < W; j++) {
                    memset(buf[j], (unsigned char)(r * W + j), len);
                    MPI_Isend(buf[j], (int)len, MPI_BYTE, peer, j, MPI_COMM_WORLD, &req[j]);
                }
                MPI_Waitall(W, req, MPI_STATUSES_IGNORE);
                MPI_Recv(&ack, 1, MPI_INT, peer, W, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                continue;
            }
            MPI_Status st[W];
            for (int j = 0; j < W; j++)
                MPI_Irecv(buf[j], 1024, MPI_BYTE, peer, j, MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(W, req, st);
            for (int j = 0; j < W; j++) {
                int count;
                MPI_Get_count(&st[j], MPI_BYTE, &count);
                int bad = st[j].MPI_SOURCE != peer || st[j].MPI_TAG != j || count != (int)len;
                for (size_t k = 0; k < len && !bad; k++)
                    bad = buf[j][k] != (unsigned char)(r * W + j);
                if (bad) {
                    fprintf(stderr, "net_flood stream: rank %d round %d message %d of %zu "
                            "bytes from %d is wrong (source %d tag %d count %d)\n", rank, r, j,
                            len, peer, st[j].MPI_SOURCE, st[j].MPI_TAG, count);
                    failures++;
                }
            }
            MPI_Send(&ack, 1, MPI_INT, peer, W, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *in = malloc(70000);
    phase_in_order(rank, size, in);
    phase_any_source(rank, size, in);
    MPI_Barrier(MPI_COMM_WORLD);      /* or phase 2's MPI_ANY_SOURCE takes phase 3's messages */
    phase_stream(rank, size);
    free(in);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "net_flood: %d failures\n" : "net_flood: ok\n", total);
    MPI_Finalize();
    return total != 0;
}

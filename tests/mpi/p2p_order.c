/* mempi-test: np=2,3,5,8 timeout=120 */
/* mempi-test: np=3,8 timeout=120 env=MEMPI_CMA=0 */
/* mempi-test: np=3,8 timeout=120 env=MEMPI_SHM_CELLS=4,MEMPI_SHM_CHUNKS=4,MEMPI_SHM_CHUNK=1024,MEMPI_EAGER_MAX=0 */
/* p2p_order.c -- randomized ordering stress: mixed sizes across every protocol threshold,
 * tags, wildcards, probes, nonblocking and synchronous sends, checksummed payloads.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank sends a seeded random schedule of messages to every other rank (sizes from 0 to
 * beyond the rendezvous threshold, tags 0..3, standard, synchronous and nonblocking modes).
 * Message k from s to r carries (s, k, checksum) in its first bytes.  Receivers drain with a
 * random mix of specific-source, MPI_ANY_SOURCE, MPI_ANY_TAG receives and probes, and check:
 * per (source, tag) the sequence numbers increase strictly (non-overtaking), the payload
 * checksum is right, the status names the real source and tag, and every message arrives.
 * Several seeds per run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SEEDS
#define SEEDS 4
#endif
#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "rank %d: line %d: ", rank, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

static int rank, size;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static size_t pick_size(unsigned *s)
{
    static const size_t classes[] = { 0, 12, 60, 72, 73, 500, 4096, 16384, 16385, 40000, 300000 };
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

static void check_msg(const unsigned char *b, size_t n, const MPI_Status *st, int *last_k)
{
    int hdr[3];
    unsigned sum = 0, want;
    memcpy(hdr, b, sizeof hdr);
    memcpy(&want, b + 12, 4);
    for (size_t i = 16; i < n; i++)
        sum = sum * 33 + b[i];
    CHECK(sum == want, "checksum of message %d from %d", hdr[1], hdr[0]);
    CHECK(hdr[0] == st->MPI_SOURCE && hdr[2] == st->MPI_TAG, "status source %d tag %d, payload %d/%d",
          st->MPI_SOURCE, st->MPI_TAG, hdr[0], hdr[2]);
    int *last = &last_k[hdr[0] * 4 + hdr[2]];
    CHECK(hdr[1] > *last, "message %d from %d tag %d overtook %d", hdr[1], hdr[0], hdr[2], *last);
    *last = hdr[1];
}

static void run(unsigned seed)
{
    const int per_peer = 40;
    int nmsg = per_peer * (size - 1);
    unsigned char **out = malloc(sizeof(void *) * (size_t)nmsg);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)nmsg);
    int nreq = 0, expected = per_peer * (size - 1);
    int *last_k = malloc(sizeof(int) * (size_t)size * 4);
    for (int i = 0; i < size * 4; i++)
        last_k[i] = -1;
    unsigned s = seed * 7919u + (unsigned)rank * 104729u;
    unsigned char *in = malloc(400000);
    int received = 0, k = 0;

    /* Interleave sending (round robin over peers) with receiving. */
    for (int i = 0; i < per_peer; i++) {
        for (int d = 1; d < size; d++) {
            int dest = (rank + d) % size;
            int tag = (int)(rnd(&s) % 4);
            size_t n = pick_size(&s);
            out[k] = malloc(n);
            make_msg(out[k], n, rank, k, tag);
            switch (rnd(&s) % 4) {
            case 0:
                MPI_Isend(out[k], (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &reqs[nreq++]);
                break;
            case 1:
                MPI_Issend(out[k], (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &reqs[nreq++]);
                break;
            default:
                MPI_Isend(out[k], (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &reqs[nreq++]);
                break;
            }
            k++;
        }
        /* receive whatever has arrived, with a random style */
        int flag = 1;
        while (flag && received < expected) {
            MPI_Status st;
            int src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
            unsigned style = rnd(&s) % 4;
            if (style == 1)
                src = (rank + 1 + (int)(rnd(&s) % (unsigned)(size - 1))) % size;
            if (style == 2)
                tag = (int)(rnd(&s) % 4);
            MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st);
            if (flag) {
                int count;
                MPI_Get_count(&st, MPI_BYTE, &count);
                /* receive exactly the probed message (specific source and tag) */
                MPI_Status st2;
                MPI_Recv(in, 400000, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2);
                int count2;
                MPI_Get_count(&st2, MPI_BYTE, &count2);
                CHECK(count2 == count, "probe said %d bytes, receive got %d", count, count2);
                check_msg(in, (size_t)count2, &st2, last_k);
                received++;
            }
        }
    }
    /* drain the rest with blocking wildcard receives */
    while (received < expected) {
        MPI_Status st;
        MPI_Recv(in, 400000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        check_msg(in, (size_t)count, &st, last_k);
        received++;
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "an extra message arrived");
    for (int i = 0; i < k; i++)
        free(out[i]);
    free(out);
    free(reqs);
    free(last_k);
    free(in);
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
    for (unsigned seed = 1; seed <= SEEDS; seed++)
        run(seed);
    if (rank == 0)
        printf("p2p_order: %d ranks, %d seeds, all messages in order\n", size, SEEDS);
    MPI_Finalize();
    return 0;
}

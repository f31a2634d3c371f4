/* mempi-test: np=2,3,4,8 timeout=90 */
/* mempi-test: np=2,3 timeout=90 env=MEMPI_CMA=0 */
/* p2p_basic.c -- point-to-point data, status and order across every protocol size.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Rank pairs (r, r^1) exchange messages of sizes from 0 bytes to 4 MiB (inline cells, pool
 * chunks, multi-fragment eager, rendezvous), blocking and nonblocking, with specific and
 * wildcard sources and tags, and check every byte, the status source/tag/count, and that
 * messages with equal envelopes arrive in send order.  MPI_PROC_NULL and self-sends too.
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((i * 131u + seed * 7u) >> 3);
}

static void verify(const unsigned char *b, size_t n, unsigned seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)((i * 131u + seed * 7u) >> 3))
            CHECK(0, "%s: byte %zu of %zu wrong", what, i, n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const size_t sizes[] = { 0, 1, 7, 8, 64, 72, 100, 1000, 4096, 16383, 16384, 16385,
                                    50000, 65536, 200000, 1 << 20, 4 << 20 };
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    unsigned char *sbuf = malloc(4 << 20), *rbuf = malloc((4 << 20) + 16);
    int partner = rank ^ 1;
    int active = partner < size;

    /* 1. blocking exchange, specific source and tag */
    for (int i = 0; i < nsizes && active; i++) {
        size_t n = sizes[i];
        MPI_Status st;
        fill(sbuf, n, (unsigned)(rank * 100 + i));
        memset(rbuf, 0xee, n + 16);
        if (rank < partner) {
            MPI_Send(sbuf, (int)n, MPI_BYTE, partner, i, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, partner, i, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, partner, i, MPI_COMM_WORLD, &st);
            MPI_Send(sbuf, (int)n, MPI_BYTE, partner, i, MPI_COMM_WORLD);
        }
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n, "size %zu: count %d", n, count);
        CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == i, "size %zu: source %d tag %d", n,
              st.MPI_SOURCE, st.MPI_TAG);
        verify(rbuf, n, (unsigned)(partner * 100 + i), "blocking");
        CHECK(rbuf[n] == 0xee, "size %zu: wrote past the message", n);
    }

    /* 2. nonblocking, all sizes in flight at once, wildcard receives; order by envelope */
    if (active) {
        MPI_Request reqs[2 * 17];
        unsigned char **in = malloc(sizeof(void *) * (size_t)nsizes);
        unsigned char **outb = malloc(sizeof(void *) * (size_t)nsizes);
        for (int i = 0; i < nsizes; i++) {
            in[i] = malloc(sizes[i] + 1);
            outb[i] = malloc(sizes[i] + 1);
            fill(outb[i], sizes[i], (unsigned)(rank * 1000 + i));
            MPI_Irecv(in[i], (int)sizes[i], MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &reqs[i]);
        }
        for (int i = 0; i < nsizes; i++)
            MPI_Isend(outb[i], (int)sizes[i], MPI_BYTE, partner, 5, MPI_COMM_WORLD, &reqs[nsizes + i]);
        MPI_Status sts[2 * 17];
        MPI_Waitall(2 * nsizes, reqs, sts);
        for (int i = 0; i < nsizes; i++) {
            int count;
            MPI_Get_count(&sts[i], MPI_BYTE, &count);
            /* Same envelope: the i-th receive gets the i-th send (non-overtaking). */
            CHECK(count == (int)sizes[i], "nonblocking %d: count %d want %zu", i, count, sizes[i]);
            CHECK(sts[i].MPI_SOURCE == partner && sts[i].MPI_TAG == 5, "nonblocking status");
            verify(in[i], sizes[i], (unsigned)(partner * 1000 + i), "nonblocking");
            CHECK(reqs[i] == MPI_REQUEST_NULL, "request not reset");
            free(in[i]);
            free(outb[i]);
        }
        free(in);
        free(outb);
    }

    /* 3. many small messages, ANY_TAG, order preserved */
    if (active) {
        const int n = 3000;
        int v;
        MPI_Status st;
        if (rank < partner) {
            for (int i = 0; i < n; i++)
                MPI_Send(&i, 1, MPI_INT, partner, i % 7, MPI_COMM_WORLD);
        } else {
            for (int i = 0; i < n; i++) {
                MPI_Recv(&v, 1, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                CHECK(v == i && st.MPI_TAG == i % 7, "order: got %d (tag %d) want %d", v, st.MPI_TAG, i);
            }
        }
    }

    /* 4. self send and MPI_PROC_NULL */
    {
        int x = 42 + rank, y = -1;
        MPI_Status st;
        MPI_Request r;
        MPI_Isend(&x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &r);
        MPI_Recv(&y, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &st);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(y == x && st.MPI_SOURCE == rank, "self send");
        MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0, "proc null status");
    }

    /* 5. synchronous send, and a test loop on a receive */
    if (active) {
        int v = rank, w = -1, flag = 0;
        MPI_Request r;
        if (rank < partner) {
            MPI_Ssend(&v, 1, MPI_INT, partner, 11, MPI_COMM_WORLD);
        } else {
            MPI_Irecv(&w, 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &r);
            while (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            CHECK(w == partner && r == MPI_REQUEST_NULL, "ssend/test");
        }
    }

    /* 6. ring with every rank (odd sizes included), large message */
    {
        size_t n = 300000;
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        fill(sbuf, n, (unsigned)rank);
        MPI_Status st;
        MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, next, 3, rbuf, (int)n, MPI_BYTE, prev, 3, MPI_COMM_WORLD, &st);
        verify(rbuf, n, (unsigned)prev, "ring");
        CHECK(st.MPI_SOURCE == prev, "ring source");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}

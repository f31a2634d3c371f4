/* net_mrcache.c -- the network registration cache against buffer reuse, data verified.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Run by check-2x2 with ranks spread over two nodes; every rank pairs with the rank half the
 * job away (the other node).  Rendezvous messages of 64 KiB to 4 MiB are exchanged in three
 * ways that a registration cache must survive:
 *   same     the same two buffers every time, at varying offsets and sizes (cache hits);
 *   malloc   fresh malloc'ed buffers of varying size, freed after each exchange, so later
 *            buffers reuse the addresses of earlier ones holding other data;
 *   mmap     fresh anonymous mappings, unmapped after each exchange: the next mapping usually
 *            lands at the same address with new pages (a stale registration of a provider
 *            that pinned the old pages would deliver the old bytes).
 * Odd rounds post the receive first (request for sending: the receive buffer is exposed for
 * fi_write), even rounds post it late (rendezvous: the send buffer is exposed for fi_read).
 * Every byte, the byte after the message and the status are checked each time.  Prints
 * "net_mrcache: ok" and how often a buffer came back at an address used before.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { ROUNDS = 24, GUARD = 64 };

static int errors;
static long reuses;

static unsigned char byte_of(int rank, int round, size_t i)
{
    return (unsigned char)((i * 2654435761u >> 13) ^ (unsigned)(rank * 97 + round * 11));
}

/* Sizes from 64 KiB to 4 MiB, some not multiples of a page. */
static size_t size_of(int round)
{
    static const size_t sizes[] = { 65536, 65536 + 4095, 200000, 262144, 1048576 + 17,
                                    3000001, 4194304 };
    return sizes[(round * 5 + 3) % (int)(sizeof sizes / sizeof sizes[0])];
}

/* Remembers the send and receive addresses seen, to count reuse. */
static void note_address(const void *p)
{
    static uintptr_t seen[3 * ROUNDS * 2];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (seen[i] == (uintptr_t)p) {
            reuses++;
            return;
        }
    if (nseen < (int)(sizeof seen / sizeof seen[0]))
        seen[nseen++] = (uintptr_t)p;
}

/* One exchange of n bytes with `peer`: s and r each hold n + GUARD bytes. */
static void exchange(const char *how, int me, int peer, int round, unsigned char *s,
                     unsigned char *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = byte_of(me, round, i);
    memset(r, 0x5a, n + GUARD);
    MPI_Request rq[2];
    MPI_Status st[2];
    int first = round % 2;
    if (first)
        MPI_Irecv(r, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(s, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[0]);
    if (!first) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Irecv(r, (int)n, MPI_BYTE, peer, round, MPI_COMM_WORLD, &rq[1]);
    }
    MPI_Waitall(2, rq, st);
    int count;
    MPI_Get_count(&st[1], MPI_BYTE, &count);
    if (st[1].MPI_SOURCE != peer || st[1].MPI_TAG != round || count != (int)n) {
        fprintf(stderr, "%s round %d: status %d/%d/%d, expected %d/%d/%zu\n", how, round,
                st[1].MPI_SOURCE, st[1].MPI_TAG, count, peer, round, n);
        errors++;
    }
    for (size_t i = 0; i < n; i++)
        if (r[i] != byte_of(peer, round, i)) {
            fprintf(stderr, "%s round %d (%zu bytes at %p): byte %zu is %u, expected %u\n", how,
                    round, n, (void *)r, i, r[i], byte_of(peer, round, i));
            errors++;
            break;
        }
    for (size_t i = n; i < n + GUARD; i++)
        if (r[i] != 0x5a) {
            fprintf(stderr, "%s round %d: byte %zu past the message overwritten\n", how, round,
                    i - n);
            errors++;
            break;
        }
}

static void same_buffers(int me, int peer)
{
    size_t max = 4194304 + 64;
    unsigned char *s = malloc(max + GUARD), *r = malloc(max + GUARD);
    for (int round = 0; round < ROUNDS; round++) {
        size_t off = (size_t)(round % 3) * 24;
        exchange("same", me, peer, round, s + off, r + off, size_of(round));
    }
    free(s);
    free(r);
}

static void malloc_buffers(int me, int peer)
{
    for (int round = 0; round < ROUNDS; round++) {
        size_t n = size_of(round);
        size_t room = n + (size_t)(round % 4) * 40000;   /* receive buffers of other sizes */
        unsigned char *s = malloc(n + GUARD), *r = malloc(room + GUARD);
        note_address(s);
        note_address(r);
        exchange("malloc", me, peer, round, s, r, n);
        free(r);
        free(s);
    }
}

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("net_mrcache: mmap");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    note_address(p);
    return p;
}

static void mmap_buffers(int me, int peer)
{
    for (int round = 0; round < ROUNDS; round++) {
        size_t n = size_of(round / 2);          /* same size twice in a row: same address */
        unsigned char *s = map(n + GUARD), *r = map(n + GUARD);
        exchange("mmap", me, peer, round, s, r, n);
        munmap(r, n + GUARD);
        munmap(s, n + GUARD);
    }
}

/* The rank half the job away: on the other node under run-job's block placement. */
static int peer_on_other_node(int rank)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 == 0)
        return (rank + size / 2) % size;
    if (rank == 0)
        fprintf(stderr, "net_mrcache: needs an even number of ranks, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return -1;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = peer_on_other_node(rank);
    same_buffers(rank, peer);
    malloc_buffers(rank, peer);
    mmap_buffers(rank, peer);
    int all;
    long reused;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&reuses, &reused, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all)
            printf("net_mrcache: %d errors\n", all);
        else
            printf("net_mrcache: ok, %ld buffers at addresses used before\n", reused);
    }
    MPI_Finalize();
    return all != 0;
}

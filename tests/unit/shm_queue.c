/* mempi-test: timeout=60 */
/* shm_queue.c -- the shared-memory FIFO and chunk pool between two real processes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A parent (local rank 0) and a forked child (local rank 1) share an anonymous mapping laid
 * out exactly like a node segment, with deliberately tiny rings and pools (4 cells, 4 chunks
 * of 1 KiB) so that "queue full" and "pool exhausted" happen constantly.  The parent streams
 * 200000 packets of random sizes (inline and chunked payloads) with sequence numbers and
 * checksums, retrying on MP_AGAIN; the child polls and checks that every packet arrives once,
 * in order, intact.  This exercises the acquire/release protocol of mp_cell and mp_chunk
 * (shm.h) on two cores for real, not in one address space.
 */
#include "transport/shm/shm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NPACKETS 200000

static uint32_t expect_seq;
static int bad;

static size_t size_of(uint32_t seq)
{
    uint32_t h = seq * 2654435761u;
    return (h >> 7) % 3 == 0 ? (h >> 9) % 1024 : (h >> 9) % (MP_CELL_INLINE + 1);
}

static unsigned char byte_of(uint32_t seq, size_t i)
{
    return (unsigned char)(seq * 31u + i * 7u);
}

static void on_packet(int world_src, const mp_hdr *h, const void *payload)
{
    const unsigned char *p = payload;
    if (world_src != 0 || h->seq != expect_seq || h->len != size_of(h->seq) ||
        h->type != MP_PKT_EAGER || h->tag != (int32_t)(h->seq ^ 0x5a5a)) {
        if (bad++ < 5)
            fprintf(stderr, "packet %u: got seq %u len %u tag %d\n", expect_seq, h->seq, h->len, h->tag);
        expect_seq = h->seq + 1;
        return;
    }
    for (size_t i = 0; i < h->len; i++)
        if (p[i] != byte_of(h->seq, i)) {
            if (bad++ < 5)
                fprintf(stderr, "packet %u: byte %zu wrong\n", h->seq, i);
            break;
        }
    expect_seq++;
}

int main(void)
{
    setenv("MEMPI_SHM_CELLS", "4", 1);
    setenv("MEMPI_SHM_CHUNKS", "4", 1);
    setenv("MEMPI_SHM_CHUNK", "1024", 1);
    if (mp_config_load() != MPI_SUCCESS) {
        fprintf(stderr, "config failed\n");
        return 1;
    }
    mp_seg layout;
    memset(&layout, 0, sizeof layout);
    mp_segment_layout(&layout, 2);
    mp_seg *seg = mmap(NULL, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (seg == MAP_FAILED)
        return 1;
    memcpy(seg, &layout, sizeof layout);
    static int local_world[2] = { 0, 1 };
    static mp_proc procs[2] = { { 0, 0, &mp_shm_transport }, { 0, 1, &mp_shm_transport } };
    mp_world.local_world = local_world;
    mp_world.procs = procs;
    mp_world.size = 2;
    mp_world.local_size = 2;

    pid_t child = fork();
    if (child == 0) {
        mp_world.rank = 1;
        mp_shm_attach_mapped(seg, layout.total, 1);
        mp_transport_set_handler(MP_PKT_CLASS_P2P, on_packet);
        while (expect_seq < NPACKETS && bad == 0)
            mp_shm_transport.poll(-1);
        _exit(bad ? 1 : 0);
    }
    mp_world.rank = 0;
    mp_shm_attach_mapped(seg, layout.total, 0);
    static unsigned char buf[1024];
    for (uint32_t seq = 0; seq < NPACKETS; seq++) {
        size_t n = size_of(seq);
        for (size_t i = 0; i < n; i++)
            buf[i] = byte_of(seq, i);
        mp_hdr h = { .type = MP_PKT_EAGER, .seq = seq, .tag = (int32_t)(seq ^ 0x5a5a), .size = n };
        mp_payload pl = { buf, (MPI_Aint)n, NULL, 0, n };
        while (mp_shm_transport.send(1, &h, &pl) == MP_AGAIN)
            ;
    }
    int status;
    waitpid(child, &status, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("shm_queue: %d packets through 4-cell rings and 4-chunk pools: %s\n", NPACKETS,
           ok ? "all in order and intact" : "FAILED");
    return ok ? 0 : 1;
}

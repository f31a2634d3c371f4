/* mempi-test: timeout=120 */
/* shm_lanes.c -- the node segment's lanes (shared queue, fast rings) among many processes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * NPROC forked processes share an anonymous mapping laid out like a node segment with tiny
 * lanes (4-cell shared queues, 4-cell rings, 4 chunks of 1 KiB, 2 rings per receiver), so
 * "queue full", "ring full", "pool exhausted" and "no ring left" happen constantly.  Every
 * process sends NPKT packets of random sizes (inline and chunked) to every other one, in a
 * random interleaving, each pair starting at a random time; each sender asks for a fast ring
 * after its own threshold (0, a few, many, never), so senders switch lanes at different
 * moments and some never get a ring.  Receivers take packets both through polls and through
 * the direct receive's peek/consume of a random sender, and check that every packet of every
 * sender arrives once, in order, intact.  Under ASan this also checks every access stays
 * inside the mapping's lanes.
 */
#include "transport/shm/shm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#define NPROC 7
#define NPKT  3000

static uint32_t expect[NPROC];
static int bad, me;
static unsigned rnd_state;

static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 16;
}

static size_t size_of(int src, int dst, uint32_t seq)
{
    uint32_t h = (seq + 977u * (uint32_t)src + 131u * (uint32_t)dst) * 2654435761u;
    return (h >> 7) % 3 == 0 ? (h >> 9) % 1024 : (h >> 9) % (MP_CELL_INLINE + 1);
}

static unsigned char byte_of(int src, uint32_t seq, size_t i)
{
    return (unsigned char)(seq * 31u + i * 7u + (unsigned)src * 13u);
}

static void check(int src, const mp_hdr *h, const void *payload)
{
    const unsigned char *p = payload;
    if (src < 0 || src >= NPROC || src == me || h->seq != expect[src] ||
        h->len != size_of(src, me, h->seq) || h->tag != (int32_t)(h->seq ^ 0x5a5a) ||
        h->src != src) {
        if (bad++ < 5)
            fprintf(stderr, "rank %d: from %d expected packet %u, got seq %u len %u src %d\n", me,
                    src, src >= 0 && src < NPROC ? expect[src] : 0, h->seq, h->len, h->src);
        if (src >= 0 && src < NPROC)
            expect[src] = h->seq + 1;
        return;
    }
    for (size_t i = 0; i < h->len; i++)
        if (p[i] != byte_of(src, h->seq, i)) {
            if (bad++ < 5)
                fprintf(stderr, "rank %d: from %d packet %u byte %zu wrong\n", me, src, h->seq, i);
            break;
        }
    expect[src]++;
}

static void on_packet(int world_src, const mp_hdr *h, const void *payload)
{
    check(world_src, h, payload);
}

static int received_all(void)
{
    for (int s = 0; s < NPROC; s++)
        if (s != me && expect[s] < NPKT)
            return 0;
    return 1;
}

static int run(void)
{
    static unsigned char buf[1024];
    uint32_t sent[NPROC] = { 0 };
    unsigned start[NPROC];
    const size_t thresholds[4] = { 0, 5, 400, (size_t)1 << 30 };
    mp_cfg.shm_ring_after = thresholds[me % 4];
    for (int p = 0; p < NPROC; p++)
        start[p] = rnd() % (NPKT * 2);          /* the pair's first packet comes late */
    unsigned long step = 0;
    int sending = 1;
    while ((sending || !received_all()) && bad == 0) {
        step++;
        sending = 0;
        for (int p = 0; p < NPROC; p++)
            sending |= p != me && sent[p] < NPKT;
        int p = (int)(rnd() % NPROC), moved = 0;
        if (p != me && sent[p] < NPKT && step >= start[p]) {
            uint32_t seq = sent[p];
            size_t n = size_of(me, p, seq);
            for (size_t i = 0; i < n; i++)
                buf[i] = byte_of(me, seq, i);
            mp_hdr h = { .type = MP_PKT_EAGER, .src = me, .seq = seq,
                         .tag = (int32_t)(seq ^ 0x5a5a), .size = n };
            mp_payload pl = { buf, (MPI_Aint)n, NULL, 0, n };
            if (mp_shm_transport.send(p, &h, &pl) == 0)
                moved = ++sent[p];
        }
        if (rnd() % 2) {
            moved |= mp_shm_transport.poll((int)(rnd() % (NPROC + 1)) - 1);   /* skip one or none */
        } else {
            int s = (int)(rnd() % NPROC);
            const void *payload;
            const mp_hdr *h = s == me ? NULL : mp_shm_transport.peek(s, &payload);
            if (h) {
                check(s, h, payload);
                mp_shm_transport.consume(s);
                moved = 1;
            }
        }
        if (!moved && step % 8 == 0)
            sched_yield();                      /* 7 processes on few cores */
    }
    return bad;
}

int main(void)
{
    setenv("MEMPI_SHM_CELLS", "4", 1);
    setenv("MEMPI_SHM_QUEUE", "4", 1);
    setenv("MEMPI_SHM_RINGS", "2", 1);
    setenv("MEMPI_SHM_CHUNKS", "4", 1);
    setenv("MEMPI_SHM_CHUNK", "1024", 1);
    if (mp_config_load() != MPI_SUCCESS) {
        fprintf(stderr, "config failed\n");
        return 1;
    }
    mp_seg layout;
    memset(&layout, 0, sizeof layout);
    mp_segment_layout(&layout, NPROC);
    mp_seg *seg = mmap(NULL, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
    if (seg == MAP_FAILED)
        return 1;
    memcpy(seg, &layout, sizeof layout);
    static int local_world[NPROC];
    static mp_proc procs[NPROC];
    for (int i = 0; i < NPROC; i++) {
        local_world[i] = i;
        procs[i].local = i;
        procs[i].tp = &mp_shm_transport;
    }
    mp_world.local_world = local_world;
    mp_world.procs = procs;
    mp_world.size = NPROC;
    mp_world.local_size = NPROC;
    mp_transport_set_handler(MP_PKT_CLASS_P2P, on_packet);

    pid_t pids[NPROC];
    for (int i = 1; i < NPROC; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            me = i;
            break;
        }
    }
    mp_world.rank = me;
    rnd_state = 12345u + 7919u * (unsigned)me;
    mp_shm_attach_mapped(seg, layout.total, me);
    int result = run();
    if (me != 0)
        _exit(result ? 1 : 0);
    int ok = result == 0;
    for (int i = 1; i < NPROC; i++) {
        int status;
        waitpid(pids[i], &status, 0);
        ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    unsigned used = 0;
    for (int r = 0; r < NPROC; r++) {
        unsigned n = atomic_load(&mp_shm_inbox(r)->rings_used);
        used += n < layout.rings ? n : layout.rings;
    }
    printf("shm_lanes: %d processes, %d packets per ordered pair, %u fast rings taken: %s\n",
           NPROC, NPKT, used, ok ? "all in order and intact" : "FAILED");
    return ok && used > 0 ? 0 : 1;
}

/* mempi-test: timeout=120 */
/* wait_futex.c -- unit test of the futex sleep/wake protocol.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Two processes (fork) share an anonymous mapping laid out like a two-rank node segment and
 * run the real code of transport/shm/wait.c: they ping-pong through the transport's lanes (the
 * receiver's shared queue, then a fast ring: the switch happens mid-way),
 * and the waiting side never spins -- it goes straight to mp_shm_sleep_prepare/commit, so
 * every round trip races a sender's publish + mp_shm_wake_check against a sleeper's
 * announce/re-check/FUTEX_WAIT.  The sleep timeout is long (3 s): a lost wake-up shows as a
 * timed-out sleep, which fails the test.  Random short delays before each send vary the
 * interleavings; the one-way streams spread packets over the receiver's whole way into sleep.
 * Each phase runs with both fence choices of mp_shm_wait_init (membarrier sleepers with
 * fence-less senders, then seq_cst fences on both sides) and ends with the barrier's watched
 * word and mp_shm_wake_all.
 */
#include "transport/shm/wait.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS    20000
#define TIMEOUT_US 3000000u

static unsigned rnd_state;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 16;
}

static void setup(void)
{
    /* tiny lanes, and the switch from the shared queue to a fast ring in the middle of the
     * first phase, so that both lanes' publishes race the sleeper */
    setenv("MEMPI_SHM_CELLS", "4", 1);
    setenv("MEMPI_SHM_QUEUE", "4", 1);
    setenv("MEMPI_SHM_CHUNKS", "4", 1);
    setenv("MEMPI_SHM_CHUNK", "1024", 1);
    setenv("MEMPI_SHM_RING_AFTER", "5000", 1);
    if (mp_config_load() != MPI_SUCCESS) {
        fprintf(stderr, "config failed\n");
        exit(1);
    }
    mp_seg layout;
    memset(&layout, 0, sizeof layout);
    mp_segment_layout(&layout, 2);
    mp_seg *seg = mmap(NULL, layout.total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
    if (seg == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    memcpy(seg, &layout, sizeof layout);
    mp_shm.seg = seg;
    mp_shm.map_size = layout.total;
    mp_world.size = 2;
    mp_world.local_size = 2;
    mp_world.procs = calloc(2, sizeof(mp_proc));
    mp_world.procs[0].local = 0;
    mp_world.procs[1].local = 1;
    mp_world.procs[0].tp = mp_world.procs[1].tp = &mp_shm_transport;
    mp_world.local_world = calloc(2, sizeof(int));
    mp_world.local_world[1] = 1;
}

static void spin_for(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        __asm__ __volatile__("" ::: "memory");
}

/* Through the transport's own send (shared queue, then fast ring), retrying while full. */
static void send_to(int peer, uint32_t value)
{
    spin_for(rnd() % 300);
    mp_hdr h = { .type = MP_PKT_EAGER, .seq = value };
    while (mp_shm_transport.send_bytes(peer, &h, NULL, 0) == MP_AGAIN)
        ;                                      /* the peer frees it right after reading */
}

static pid_t child_pid, parent_pid;

/* After a timed-out sleep: stop at once if the other process has gone. */
static void check_peer_alive(void)
{
    int status;
    if ((child_pid > 0 && waitpid(child_pid, &status, WNOHANG) == child_pid) ||
        (child_pid == 0 && getppid() != parent_pid)) {
        fprintf(stderr, "the other process ended early\n");
        _exit(1);
    }
}

/* Waits by sleeping only; returns the value, counts timeouts. */
static uint32_t recv_from(int peer, int *timeouts)
{
    const mp_hdr *h;
    const void *payload;
    while ((h = mp_shm_transport.peek(peer, &payload)) == NULL) {
        unsigned word;
        int v = mp_shm_sleep_prepare(&word);
        if (v == MP_SLEEP_OK && !mp_shm_sleep_commit(word, TIMEOUT_US)) {
            (*timeouts)++;
            check_peer_alive();
        }
    }
    uint32_t value = h->seq;
    mp_shm_transport.consume(peer);
    return value;
}

static int pingpong(int me, const char *phase)
{
    int timeouts = 0, peer = 1 - me;
    for (uint32_t i = 0; i < ROUNDS; i++) {
        if (me == 0) {
            send_to(peer, i);
            uint32_t v = recv_from(peer, &timeouts);
            if (v != i + 1000000u) {
                fprintf(stderr, "%s: rank 0 round %u got %u\n", phase, i, v);
                return 1;
            }
        } else {
            uint32_t v = recv_from(peer, &timeouts);
            if (v != i) {
                fprintf(stderr, "%s: rank 1 round %u got %u\n", phase, i, v);
                return 1;
            }
            send_to(peer, i + 1000000u);
        }
    }
    if (timeouts) {
        fprintf(stderr, "%s: rank %d: %d sleeps timed out (lost wake-ups)\n", phase, me, timeouts);
        return 1;
    }
    return 0;
}

/* One-way stream: the sender waits a random 0..~20 us before each packet, so packets land
 * anywhere in the receiver's path into sleep (announce, membarrier, re-check, FUTEX_WAIT). */
static int stream(int me, int sender, const char *phase)
{
    int timeouts = 0;
    for (uint32_t i = 0; i < ROUNDS; i++) {
        if (me == sender) {
            spin_for(rnd() % 20000);
            send_to(1 - me, i);
        } else {
            uint32_t v = recv_from(1 - me, &timeouts);
            if (v != i) {
                fprintf(stderr, "%s: rank %d packet %u carries %u\n", phase, me, i, v);
                return 1;
            }
        }
    }
    if (timeouts) {
        fprintf(stderr, "%s: rank %d: %d sleeps timed out (lost wake-ups)\n", phase, me, timeouts);
        return 1;
    }
    return 0;
}

/* Rank 1 sleeps watching a generation word; rank 0 bumps it and calls mp_shm_wake_all. */
static int watched_word(int me)
{
    atomic_uint *gen = &mp_shm.seg->bar_gen;
    int timeouts = 0;
    for (unsigned i = 0; i < ROUNDS / 4; i++) {
        if (me == 0) {
            send_to(1, i);                     /* "ready for round i" */
            unsigned delay = rnd() % 300;
            for (unsigned k = 0; k < delay; k++)
                __asm__ __volatile__("" ::: "memory");
            atomic_store_explicit(gen, i + 1, memory_order_release);
            mp_shm_wake_all();
            (void)recv_from(1, &timeouts);      /* rank 1 saw it */
        } else {
            (void)recv_from(0, &timeouts);
            mp_shm_watch(gen, i);
            while (atomic_load_explicit(gen, memory_order_acquire) == i) {
                unsigned word;
                if (mp_shm_sleep_prepare(&word) == MP_SLEEP_OK &&
                    !mp_shm_sleep_commit(word, TIMEOUT_US)) {
                    timeouts++;
                    check_peer_alive();
                }
            }
            mp_shm_watch(NULL, 0);
            send_to(0, i);
        }
    }
    if (timeouts) {
        fprintf(stderr, "watched word: rank %d: %d sleeps timed out\n", me, timeouts);
        return 1;
    }
    return 0;
}

/* One pair of processes, with the fences of `mode` (see mp_shm_wait_init). */
static int run_pair(int mode)
{
    setup();
    int cheap = mp_shm_wait_init(mode);
    printf("%s: senders %s\n", mode == MP_SLEEPS_OFTEN ? "fences" : "membarrier",
           cheap ? "do not fence" : "fence");
    fflush(stdout);
    parent_pid = getpid();
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    child_pid = child;
    int me = child == 0 ? 1 : 0;
    mp_shm_attach_mapped(mp_shm.seg, mp_shm.map_size, me);   /* positions, ring pointers */
    mp_world.rank = me;
    mp_world.local_rank = me;
    rnd_state = 12345u + (unsigned)me * 777u + (unsigned)mode;
    alarm(100);                                /* never outlive the test driver */
    int bad = pingpong(me, "pingpong") || stream(me, 0, "stream 0->1") ||
              stream(me, 1, "stream 1->0");
    if (!bad && mode == MP_SLEEPS_RARELY) {
        mp_shm_wake_fence = 1;                 /* senders fence as well: also correct */
        bad = pingpong(me, "fencing senders") || stream(me, 0, "fencing stream");
    }
    if (!bad)
        bad = watched_word(me);
    if (me == 1)
        _exit(bad);
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        bad = 1;
    if (atomic_load(&mp_shm_rank(0)->sleeping) || atomic_load(&mp_shm_rank(1)->sleeping)) {
        fprintf(stderr, "sleeping counters not back to 0\n");
        bad = 1;
    }
    return bad;
}

int main(void)
{
    int bad = 0;
    const int modes[] = { MP_SLEEPS_RARELY, MP_SLEEPS_OFTEN };
    for (int i = 0; i < 2; i++) {
        pid_t p = fork();                      /* fresh process: the fences are chosen once */
        if (p == 0)
            _exit(run_pair(modes[i]));
        int status;
        if (p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            bad = 1;
    }
    return bad;
}

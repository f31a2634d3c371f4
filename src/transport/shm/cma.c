/* cma.c -- single copy between processes (Linux cross-memory attach).  MemPI, BSD-3-Clause.
 *
 * process_vm_readv/writev copy directly between two address spaces: the rendezvous pull and
 * the papers' Remote Write.  The kernel may refuse (different users, Yama ptrace_scope,
 * containers without CAP_SYS_PTRACE), so at start every rank reads a magic word from its
 * neighbour and the node agrees on the AND of the results; if any rank cannot, nobody uses
 * single copy and large messages are pipelined through the segment instead.
 */
#include "transport/shm/shm.h"
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

static volatile uint64_t cma_magic = 0x6d656d7069636d61ull;   /* "mempicma" */

int mp_cma_probe(void)
{
    mp_shm_rank(mp_shm.me)->probe_addr = (uint64_t)(uintptr_t)&cma_magic;
    mp_node_barrier();
    int peer = (mp_shm.me + 1) % mp_shm.nlocal;
    mp_rank_area *ra = mp_shm_rank(peer);
    uint64_t got = 0;
    struct iovec local = { &got, sizeof got };
    struct iovec remote = { (void *)(uintptr_t)ra->probe_addr, sizeof got };
    ssize_t n = process_vm_readv(ra->pid, &local, 1, &remote, 1, 0);
    unsigned ok = (n == (ssize_t)sizeof got && got == cma_magic) ? 1u : 0u;
    if (!ok && mp_cfg.verbose)
        fprintf(stderr, "MemPI: rank %d: single copy refused by the kernel (%s); using "
                "pipelined copies through shared memory\n", mp_world.rank,
                n < 0 ? strerror(errno) : "short read");
    if (mp_shm.me == 0)
        atomic_store_explicit(&mp_shm.seg->cma_ok, 1, memory_order_relaxed);
    mp_node_barrier();
    atomic_fetch_and_explicit(&mp_shm.seg->cma_ok, ok, memory_order_relaxed);
    mp_node_barrier();
    return (int)atomic_load_explicit(&mp_shm.seg->cma_ok, memory_order_relaxed);
}

/* A cursor over a segment list: `first` segments done, `skip` bytes of the next one done. */
typedef struct seg_cursor {
    const struct iovec *iov;
    int n, first;
    size_t skip;
} seg_cursor;

/* Copies up to `max` segments from the cursor into out[], the first one trimmed. */
static int cursor_take(const seg_cursor *c, struct iovec *out, int max)
{
    int k = 0;
    for (int i = c->first; i < c->n && k < max; i++, k++) {
        out[k] = c->iov[i];
        if (i == c->first) {
            out[k].iov_base = (char *)out[k].iov_base + c->skip;
            out[k].iov_len -= c->skip;
        }
    }
    return k;
}

static void cursor_advance(seg_cursor *c, size_t bytes)
{
    while (c->first < c->n && bytes > 0) {
        size_t left = c->iov[c->first].iov_len - c->skip;
        if (bytes < left) {
            c->skip += bytes;
            return;
        }
        bytes -= left;
        c->first++;
        c->skip = 0;
    }
    while (c->first < c->n && c->iov[c->first].iov_len == c->skip) {   /* empty segments */
        c->first++;
        c->skip = 0;
    }
}

/* Moves min(local total, remote total) bytes between the segments of `local` and the peer's
 * segments `remote`, in order.  The kernel may transfer less than asked (it stops at a fault,
 * at IOV_MAX segments or at a page limit), so loop on what is left. */
static int cma_transfer(int world_peer, const struct iovec *local, int nlocal,
                        const struct iovec *remote, int nremote, int write)
{
    pid_t pid = mp_shm_rank(mp_world.procs[world_peer].local)->pid;
    seg_cursor lc = { local, nlocal, 0, 0 }, rc = { remote, nremote, 0, 0 };
    cursor_advance(&lc, 0);
    cursor_advance(&rc, 0);
    while (lc.first < lc.n && rc.first < rc.n) {
        struct iovec liov[64], riov[64];
        int nl = cursor_take(&lc, liov, 64), nr = cursor_take(&rc, riov, 64);
        ssize_t got = write ? process_vm_writev(pid, liov, (unsigned long)nl, riov, (unsigned long)nr, 0)
                            : process_vm_readv(pid, liov, (unsigned long)nl, riov, (unsigned long)nr, 0);
        if (got < 0 && errno == ESRCH) {
            mp_note_peer_gone(world_peer);
            return mp_error_code(MPI_ERR_OTHER, "single copy %s rank %d failed: its process "
                                 "(pid %d) no longer exists", write ? "to" : "from",
                                 world_peer, (int)pid);
        }
        if (got <= 0)
            return mp_error_code(MPI_ERR_OTHER, "single copy %s rank %d failed: %s",
                                 write ? "to" : "from", world_peer,
                                 got < 0 ? strerror(errno) : "no progress");
        cursor_advance(&lc, (size_t)got);
        cursor_advance(&rc, (size_t)got);
    }
    return MPI_SUCCESS;
}

static size_t total_bytes(const struct iovec *iov, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += iov[i].iov_len;
    return t;
}

int mp_cma_read(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov)
{
    struct iovec remote = { (void *)(uintptr_t)remote_addr, total_bytes(local, niov) };
    return cma_transfer(world_peer, local, niov, &remote, 1, 0);
}

int mp_cma_write(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov)
{
    struct iovec remote = { (void *)(uintptr_t)remote_addr, total_bytes(local, niov) };
    return cma_transfer(world_peer, local, niov, &remote, 1, 1);
}

int mp_cma_readv(int world_peer, const struct iovec *local, int nlocal,
                 const struct iovec *remote, int nremote)
{
    return cma_transfer(world_peer, local, nlocal, remote, nremote, 0);
}

int mp_cma_writev(int world_peer, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote)
{
    return cma_transfer(world_peer, local, nlocal, remote, nremote, 1);
}

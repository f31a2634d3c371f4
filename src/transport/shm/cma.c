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
    mp_shm_barrier();
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
    mp_shm_barrier();
    atomic_fetch_and_explicit(&mp_shm.seg->cma_ok, ok, memory_order_relaxed);
    mp_shm_barrier();
    return (int)atomic_load_explicit(&mp_shm.seg->cma_ok, memory_order_relaxed);
}

/* Moves all bytes of `local` from/to the peer's contiguous range at remote_addr.  The kernel
 * may transfer less than asked (it stops at a fault or at IOV_MAX pages), so loop. */
static int cma_transfer(int world_peer, uint64_t remote_addr, const struct iovec *local,
                        int niov, int write)
{
    int peer = mp_world.procs[world_peer].local;
    pid_t pid = mp_shm_rank(peer)->pid;
    struct iovec iov[64];
    while (niov > 0) {
        int n = niov < 64 ? niov : 64;
        size_t total = 0;
        for (int i = 0; i < n; i++) {
            iov[i] = local[i];
            total += local[i].iov_len;
        }
        size_t done = 0;
        while (done < total) {
            struct iovec remote = { (void *)(uintptr_t)(remote_addr + done), total - done };
            /* skip the local iovecs already fully transferred */
            size_t skip = done;
            int first = 0;
            while (first < n && skip >= iov[first].iov_len) {
                skip -= iov[first].iov_len;
                first++;
            }
            struct iovec head = iov[first];
            iov[first].iov_base = (char *)iov[first].iov_base + skip;
            iov[first].iov_len -= skip;
            ssize_t got = write ? process_vm_writev(pid, iov + first, (unsigned long)(n - first), &remote, 1, 0)
                                : process_vm_readv(pid, iov + first, (unsigned long)(n - first), &remote, 1, 0);
            iov[first] = head;
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
            done += (size_t)got;
        }
        remote_addr += total;
        local += n;
        niov -= n;
    }
    return MPI_SUCCESS;
}

int mp_cma_read(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov)
{
    return cma_transfer(world_peer, remote_addr, local, niov, 0);
}

int mp_cma_write(int world_peer, uint64_t remote_addr, const struct iovec *local, int niov)
{
    return cma_transfer(world_peer, remote_addr, local, niov, 1);
}

/* join.c -- MPI_Comm_join between two processes of the same job.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * MPI_Comm_join(fd) makes an intercommunicator of the two processes at the ends of a
 * connected socket.  Connecting separate jobs is dynamic processes, which MemPI lacks; two
 * processes of one job need no new connection, only an agreement on who the other is:
 *
 *   1. each side writes a hello (magic, job id, world size, world rank, a nonce) to the
 *      socket, then reads the other's -- both write first and a hello is far smaller than
 *      any socket buffer, so neither blocks the other;
 *   2. both compare the same two hellos, so both reach the same verdict at once: another
 *      job (or a launcher that names no job) is MPI_ERR_UNSUPPORTED_OPERATION
 *      on both sides, never one side waiting for the other;
 *   3. same job: the intercommunicator {me} x {peer} comes from mp_intercomm_from_groups,
 *      whose stringtag names the pair and the lower rank's nonce (a per-process counter), so
 *      concurrent joins of one pair get different tags.
 *
 * The job id is the launcher's MEMPI_JOB_ID (a random hex string per mpiexec job, or per
 * singleton), or under Hydra and Slurm the name of the job's PMI key-value space
 * (mp_pmi_job_id).  The socket is only read and written here, and is left quiescent as the
 * standard requires: each side reads exactly what the other wrote.
 */
#include "binding/binding.h"
#include "core/pmi.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define JOIN_MAGIC "MemPI-join-2"
#define JOIN_JOBID 64

typedef struct {
    char magic[16];
    char job[JOIN_JOBID];       /* NUL-terminated, "" if the job has no id */
    int32_t size, rank;
    uint64_t nonce;
} hello;

static int socket_io(int fd, void *buf, size_t n, int writing)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EPIPE;   /* EOF: the other side closed the socket */
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void my_hello(hello *h)
{
    MP_BIG_LOCK();                      /* the PMI connection is not thread-safe */
    static atomic_uint_fast64_t joins;
    memset(h, 0, sizeof *h);
    memcpy(h->magic, JOIN_MAGIC, sizeof JOIN_MAGIC);
    if (mp_pmi_job_id(h->job, sizeof h->job) < 0)
        h->job[0] = '\0';
    h->job[sizeof h->job - 1] = '\0';
    h->size = mp_world.size;
    h->rank = mp_world.rank;
    h->nonce = atomic_fetch_add_explicit(&joins, 1, memory_order_relaxed);
}

/* The intercommunicator {me} x {peer world rank}. */
static int join_pair(const hello *me, const hello *peer, mp_comm **out)
{
    MP_BIG_LOCK();
    const hello *lo = me->rank < peer->rank ? me : peer;
    char tag[96];
    snprintf(tag, sizeof tag, "mempi-join:%d:%d:%llu", lo->rank,
             me->rank < peer->rank ? peer->rank : me->rank, (unsigned long long)lo->nonce);
    mp_group *lg = mp_group_copy_of(1, &me->rank);
    mp_group *rg = mp_group_copy_of(1, &peer->rank);
    int err = mp_intercomm_from_groups(lg, 0, rg, 0, tag, out);
    mp_group_release(lg);
    mp_group_release(rg);
    return err;
}

/* The entry point (src/binding/env.spec) checks fd and intercomm and holds no lock: the
 * exchange blocks on the socket, and only my_hello and join_pair touch library state. */
int mp_do_comm_join(const char *F, int fd, MPI_Comm *intercomm)
{
    hello me, peer;
    my_hello(&me);
    int e = socket_io(fd, &me, sizeof me, 1);
    if (e == 0)
        e = socket_io(fd, &peer, sizeof peer, 0);
    if (e)
        return mp_err(F, e == EBADF || e == ENOTSOCK ? MPI_ERR_ARG : MPI_ERR_OTHER,
                      "socket %d: %s", fd, strerror(e));
    peer.job[sizeof peer.job - 1] = '\0';
    if (memcmp(peer.magic, JOIN_MAGIC, sizeof JOIN_MAGIC) != 0)
        return mp_err(F, MPI_ERR_OTHER, "the process at the other end of socket %d did not "
                      "call MPI_Comm_join of MemPI", fd);
    if (me.job[0] == '\0' || strcmp(me.job, peer.job) != 0 || me.size != peer.size)
        return mp_err(F, MPI_ERR_UNSUPPORTED_OPERATION, "the process at the other end of "
                      "socket %d is in another MPI job (or the launcher gave no job id); "
                      "joining jobs is dynamic processes, not implemented in MemPI %s", fd,
                      MEMPI_VERSION);
    if (peer.rank == me.rank || peer.rank < 0 || peer.rank >= me.size)
        return mp_err(F, MPI_ERR_ARG, "socket %d connects this process (rank %d) to rank %d "
                      "of its own job; it must connect two different processes", fd, me.rank,
                      (int)peer.rank);
    mp_comm *c;
    int err = join_pair(&me, &peer, &c);
    if (!err)
        *intercomm = c->handle;
    return err;
}

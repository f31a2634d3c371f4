/* conn.c -- shared memory between jobs: the channels of dynamic-process connections.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A process of another job on this host (MPI_Comm_accept/connect/spawn/join, see
 * src/comm/dynamic.c) is not in this job's node segment, so it gets a channel here: the same
 * Memory-Based FIFO as the node segment (a ring of mp_cell per sender -> receiver pair, with
 * the ring protocol of shm.h, and a pool of chunks owned by the sender for payloads that do
 * not fit a cell), but held in the *receiver's inbox*:
 *
 *   - for each connection, every process creates one inbox (mp_conn_inbox_create) with one
 *     slot per process of the other group: a ring and that sender's chunk pool;
 *   - the two groups swap their inboxes' addresses (and which slot is whose), every process
 *     maps the inbox of each peer on its host and sends into its slot there (mp_conn_attach);
 *   - once every process of both groups attached (the connection's closing handshake), each
 *     gives up its means of opening its inbox (mp_conn_inbox_done): from then on only the
 *     mappings keep it.
 *
 * Who removes an inbox, and when.  An inbox never has a name in /dev/shm: it is a memfd
 * (anonymous shared memory) that only its owner holds a descriptor of, and its address is
 * "/proc/<pid>/fd/<fd>#<128 random bits>" -- a peer opens the owner's descriptor through
 * /proc (same user, same host: the host identity includes the mount namespace, so both see
 * one /proc), then checks the random bits, which the owner also wrote into the inbox's
 * header (a recycled pid or descriptor can never pass for it).  The owner closes that
 * descriptor at the closing handshake, on any error of the connection, at MPI_Finalize, or
 * by dying, whichever comes first; the kernel frees the memory when the last mapping goes.
 * So nothing of a connection can outlive its processes in /dev/shm, however a process ends
 * (killed in the middle of MPI_Comm_spawn/connect, under a launcher that sweeps nothing):
 * a named inbox would live on until someone unlinked it, and its owner's launcher may be
 * killed too (a parent's launcher SIGKILLs a spawned job's) or may not be MemPI's (Hydra,
 * Slurm).  Only where memfds do not exist does an inbox get a name ("/mempi-<job>-<random>",
 * created 0600 with O_EXCL, the node segment's naming, so mpiexec's sweep of its job's names
 * covers a kill): its owner unlinks it at the same moments.
 *
 * Geometry is fixed here (not MEMPI_SHM_*: the two jobs may be configured differently), and
 * stored in the inbox header, which the sender checks.
 *
 * A channel lives until MPI_Finalize, even after MPI_Comm_disconnect: the pair keeps its
 * point-to-point sequence numbers, and a later connection between the same two processes
 * reuses it (core/procs.c names a process once).  A peer's futex word is in its own job's
 * node segment, which we do not map, so packets through a channel cannot wake a sleeping
 * receiver: as soon as a process has a channel, its waits stop sleeping (the sleeper is
 * marked incomplete).  Single copy (process_vm_readv) is not used between jobs; rendezvous
 * messages take the pipelined path of a transport without it.
 */
#include "transport/shm/shm.h"
#include "transport/shm/wait.h"
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONN_MAGIC  0x4d656d5049434e31ull   /* "MemPICN1" */
#define CONN_CELLS  64u
#define CONN_CHUNK  16384u
#define CONN_CHUNKS 16u
#define CONN_STRIDE (sizeof(mp_chunk) + CONN_CHUNK)
#define CONN_SLOT   ((size_t)CONN_CELLS * MP_CELL_SIZE + (size_t)CONN_CHUNKS * CONN_STRIDE)
#define CONN_HDR    4096u

#define CONN_TOKEN  16u                    /* random bytes that identify an inbox */

typedef struct inbox_hdr {
    uint64_t magic;
    uint32_t nslots, cells, chunks, chunk;
    unsigned char token[CONN_TOKEN];  /* a memfd inbox's: also in its address */
} inbox_hdr;

struct mp_conn_inbox {
    int fd;                           /* the memfd while peers may open it, else -1 */
    char name[MP_SHARED_NAME_MAX];    /* a named inbox's name, "" once unlinked */
    void *base;
    size_t size;
    int nslots;
};

typedef struct chan {
    int id;                           /* the peer's process id */
    mp_cell *send_ring, *recv_ring;   /* slot in its inbox / slot in ours */
    char *send_pool, *recv_pool;      /* chunks: ours in its inbox / its in our inbox */
    uint32_t send_pos, recv_pos, pool_next;
    void *peer_map;                   /* its inbox, mapped here */
    size_t peer_size;
} chan;

static struct {
    chan *chans;
    int n;
    mp_conn_inbox **inboxes;          /* ours, unmapped at finalize */
    int ninboxes;
    int polling;
} conn;

static mp_cell *slot_ring(void *base, int slot)
{
    return (mp_cell *)((char *)base + CONN_HDR + (size_t)slot * CONN_SLOT);
}

static char *slot_pool(void *base, int slot)
{
    return (char *)slot_ring(base, slot) + (size_t)CONN_CELLS * MP_CELL_SIZE;
}

static mp_chunk *chunk_at(char *pool, uint32_t index)
{
    return (mp_chunk *)(pool + (size_t)index * CONN_STRIDE);
}

/* A memfd inbox of `size` bytes, mapped, and its address (see the top); -1 (errno set) if
 * this system has no memfds or /proc. */
static int memfd_inbox(size_t size, char name[MP_SHARED_NAME_MAX], void **base,
                       unsigned char token[CONN_TOKEN])
{
    char self[32];
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);   /* our pid as /proc sees it */
    if (n <= 0)
        return -1;
    self[n] = '\0';
    if (mp_random_bytes(token, CONN_TOKEN) != 0) {
        errno = EIO;
        return -1;
    }
    int fd = memfd_create("mempi-conn", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0)
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    int len = snprintf(name, MP_SHARED_NAME_MAX, "/proc/%s/fd/%d#", self, fd);
    for (unsigned i = 0; i < CONN_TOKEN && len > 0 && len + 3 < MP_SHARED_NAME_MAX; i++)
        len += snprintf(name + len, MP_SHARED_NAME_MAX - (size_t)len, "%02x", token[i]);
    *base = p;
    return fd;
}

int mp_conn_inbox_create(int nsenders, char name[MP_SHARED_NAME_MAX], mp_conn_inbox **out)
{
    *out = NULL;
    size_t size = CONN_HDR + (size_t)(nsenders > 0 ? nsenders : 1) * CONN_SLOT;
    void *base;
    unsigned char token[CONN_TOKEN] = { 0 };
    int fd = memfd_inbox(size, name, &base, token);
    if (fd < 0) {                     /* no memfds: a named inbox */
        int err = mp_shared_create(size, name, &base);
        if (err)
            return err;
    }
    inbox_hdr *h = base;
    h->magic = CONN_MAGIC;
    h->nslots = (uint32_t)nsenders;
    h->cells = CONN_CELLS;
    h->chunks = CONN_CHUNKS;
    h->chunk = CONN_CHUNK;
    memcpy(h->token, token, CONN_TOKEN);
    mp_conn_inbox *in = mp_calloc(1, sizeof *in);
    in->fd = fd;
    if (fd < 0)
        snprintf(in->name, sizeof in->name, "%s", name);
    in->base = base;
    in->size = size;
    in->nslots = nsenders;
    conn.inboxes = mp_realloc(conn.inboxes, sizeof *conn.inboxes * (size_t)(conn.ninboxes + 1));
    conn.inboxes[conn.ninboxes++] = in;
    *out = in;
    return MPI_SUCCESS;
}

void mp_conn_inbox_done(mp_conn_inbox *in)
{
    if (in && in->fd >= 0) {
        close(in->fd);
        in->fd = -1;
    }
    if (in && in->name[0]) {
        mp_shared_unlink(in->name);
        in->name[0] = '\0';
    }
}

/* Opens a peer's inbox by its address: a memfd's /proc path (checked against the token that
 * follows it) or a name in /dev/shm.  Returns a descriptor, or -1 with errno set. */
static int open_inbox(const char *address, unsigned char token[CONN_TOKEN], int *has_token)
{
    *has_token = 0;
    const char *hash = strchr(address, '#');
    if (strncmp(address, "/proc/", 6) != 0 || hash == NULL)
        return shm_open(address, O_RDWR, 0);
    char path[MP_SHARED_NAME_MAX];
    size_t n = (size_t)(hash - address);
    if (n >= sizeof path || strlen(hash + 1) != 2 * CONN_TOKEN) {
        errno = EINVAL;
        return -1;
    }
    memcpy(path, address, n);
    path[n] = '\0';
    for (unsigned i = 0; i < CONN_TOKEN; i++) {
        unsigned v;
        if (sscanf(hash + 1 + 2 * i, "%2x", &v) != 1) {
            errno = EINVAL;
            return -1;
        }
        token[i] = (unsigned char)v;
    }
    *has_token = 1;
    return open(path, O_RDWR | O_CLOEXEC);
}

static chan *chan_of(int id)
{
    return &conn.chans[mp_world.procs[id].local];
}

static int conn_send(int id, const mp_hdr *hdr, const mp_payload *payload)
{
    chan *c = chan_of(id);
    mp_cell *cell = c->send_ring + (c->send_pos & (CONN_CELLS - 1));
    if (atomic_load_explicit(&cell->full, memory_order_acquire))
        return MP_AGAIN;
    size_t len = payload ? payload->len : 0;
    if (!mp_cell_inline_payload(cell, payload)) {
        uint32_t idx = CONN_CHUNKS;
        for (uint32_t i = 0; i < CONN_CHUNKS; i++) {
            uint32_t k = (c->pool_next + i) % CONN_CHUNKS;
            mp_chunk *ch = chunk_at(c->send_pool, k);
            if (atomic_load_explicit(&ch->busy, memory_order_acquire) == 0) {
                atomic_store_explicit(&ch->busy, 1, memory_order_relaxed);
                idx = k;
                break;
            }
        }
        if (idx == CONN_CHUNKS)
            return MP_AGAIN;
        c->pool_next = idx + 1;
        mp_payload_copy(chunk_at(c->send_pool, idx) + 1, payload);
        cell->chunk = idx + 1;
    }
    cell->hdr = *hdr;
    cell->hdr.len = (uint32_t)len;
    atomic_store_explicit(&cell->full, 1, memory_order_release);
    c->send_pos++;
    return 0;
}

static int poll_chan(chan *c)
{
    int events = 0;
    while (events < 8) {
        mp_cell *cell = c->recv_ring + (c->recv_pos & (CONN_CELLS - 1));
        if (!atomic_load_explicit(&cell->full, memory_order_acquire))
            break;
        mp_chunk *ch = cell->chunk ? chunk_at(c->recv_pool, cell->chunk - 1) : NULL;
        const void *payload = ch ? (const void *)(ch + 1) : (const void *)cell->data;
        c->recv_pos++;
        mp_transport_deliver(c->id, &cell->hdr, payload);
        if (ch)
            atomic_store_explicit(&ch->busy, 0, memory_order_release);
        atomic_store_explicit(&cell->full, 0, memory_order_release);
        events++;
    }
    return events;
}

static int conn_poll(int skip)
{
    int events = 0;
    for (int i = 0; i < conn.n; i++)
        if (conn.chans[i].id != skip)
            events += poll_chan(&conn.chans[i]);
    return events;
}

mp_transport mp_conn_transport = {
    .name = "shm-conn",
    .send = conn_send,
    .poll = conn_poll,
    .max_payload = CONN_CHUNK,
    .single_copy = 0,
    .shares_memory = 0,
    .wakes_sleepers = 0,
};

int mp_conn_attach(int id, mp_conn_inbox *mine, int my_slot, const char *peer_name,
                   int peer_slot)
{
    if (my_slot < 0 || my_slot >= mine->nslots)
        return mp_error_code(MPI_ERR_INTERN, "connection slot %d of %d", my_slot, mine->nslots);
    unsigned char token[CONN_TOKEN];
    int has_token;
    int fd = open_inbox(peer_name, token, &has_token);
    if (fd < 0)
        return mp_error_code(MPI_ERR_OTHER, "cannot open the connection segment %s of process "
                             "%d: %s", peer_name, id, strerror(errno));
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= CONN_HDR)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return mp_error_code(MPI_ERR_OTHER, "cannot map the connection segment %s", peer_name);
    const inbox_hdr *h = p;
    if (h->magic != CONN_MAGIC || h->cells != CONN_CELLS || h->chunks != CONN_CHUNKS ||
        h->chunk != CONN_CHUNK || (has_token && memcmp(h->token, token, CONN_TOKEN) != 0) ||
        peer_slot < 0 || (uint32_t)peer_slot >= h->nslots ||
        CONN_HDR + (size_t)h->nslots * CONN_SLOT > (size_t)st.st_size) {
        munmap(p, (size_t)st.st_size);
        return mp_error_code(MPI_ERR_OTHER, "connection segment %s is not the inbox process %d "
                             "announced, or not one of this MemPI version's", peer_name, id);
    }
    conn.chans = mp_realloc(conn.chans, sizeof(chan) * (size_t)(conn.n + 1));
    chan *c = &conn.chans[conn.n];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->send_ring = slot_ring(p, peer_slot);
    c->send_pool = slot_pool(p, peer_slot);
    c->recv_ring = slot_ring(mine->base, my_slot);
    c->recv_pool = slot_pool(mine->base, my_slot);
    c->peer_map = p;
    c->peer_size = (size_t)st.st_size;
    mp_world.procs[id].local = conn.n++;
    mp_world.procs[id].tp = &mp_conn_transport;
    mp_conn_transport.eager_max = mp_cfg.eager_max;
    if (!conn.polling) {
        conn.polling = 1;
        mp_progress_add_source(conn_poll);
        mp_shm_sleeper.complete = 0;      /* our channels ring no futex (see the top) */
    }
    return MPI_SUCCESS;
}

void mp_conn_finalize(void)
{
    for (int i = 0; i < conn.n; i++)
        munmap(conn.chans[i].peer_map, conn.chans[i].peer_size);
    for (int i = 0; i < conn.ninboxes; i++) {
        mp_conn_inbox_done(conn.inboxes[i]);
        munmap(conn.inboxes[i]->base, conn.inboxes[i]->size);
        free(conn.inboxes[i]);
    }
    free(conn.chans);
    free(conn.inboxes);
    memset(&conn, 0, sizeof conn);
}

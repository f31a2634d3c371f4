/* segment.c -- the node's shared segment: create, attach, unlink.  MemPI, BSD-3-Clause.
 *
 * Local rank 0 creates the segment with O_EXCL and mode 0600 under a name that nobody outside
 * the job can predict ("/mempi-<job id>-<128 random bits>"), publishes the name through the PMI
 * key-value space, and every local rank maps it.  Each rank then increments `attached`; the
 * rank that brings it to the local size unlinks the name.  From that moment the segment lives
 * only as long as some rank maps it, so nothing is left in /dev/shm after any exit, even
 * SIGKILL.  (A rank killed in the short window before everyone attached would leave the name
 * behind; mpiexec removes /dev/shm/mempi-<job id>-* when a job ends for that case.)  A rank
 * whose MPI_Init fails while the name still exists removes it too (mp_segment_abandon): the
 * job is ending, and under other launchers (Hydra, Slurm) nobody else would.
 *
 * A job with one local rank maps anonymous shared memory and never touches /dev/shm.
 */
#include "transport/shm/shm.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

mp_shm_state mp_shm;

/* The segment's name while it may still exist in /dev/shm (empty once unlinked). */
static char linked_name[128];

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

void mp_segment_layout(mp_seg *s, int nlocal)
{
    s->magic = MP_SHM_MAGIC;   /* published to other ranks by the PMI fence that follows */
    s->nlocal = (uint32_t)nlocal;
    s->cells = (uint32_t)mp_cfg.shm_cells;
    s->queue = (uint32_t)mp_cfg.shm_queue;
    /* a receiver never needs more rings than it has senders */
    s->rings = (uint32_t)(mp_cfg.shm_rings < (size_t)nlocal ? mp_cfg.shm_rings : (size_t)nlocal);
    s->chunk_size = mp_cfg.shm_chunk;
    s->chunks = mp_cfg.shm_chunks;
    s->off_ranks = align_up(sizeof(mp_seg), 4096);
    s->off_inbox_hdr = align_up(s->off_ranks + (size_t)nlocal * sizeof(mp_rank_area), 4096);
    s->off_inbox = align_up(s->off_inbox_hdr + (size_t)nlocal * sizeof(mp_inbox), 4096);
    s->inbox_stride = align_up(((size_t)s->queue + (size_t)s->rings * s->cells) * MP_CELL_SIZE,
                               4096);
    s->off_pools = s->off_inbox + (size_t)nlocal * s->inbox_stride;
    size_t pools = (size_t)nlocal * s->chunks * (sizeof(mp_chunk) + s->chunk_size);
    s->off_coll = align_up(s->off_pools + pools, 4096);
    s->coll_slot = align_up(mp_cfg.coll_shm_slot, 4096);
    s->total = s->off_coll + (size_t)nlocal * s->coll_slot;
}

static int make_name(char *name, size_t len)
{
    unsigned char rnd[16];
    char job[64] = "0";
    if (mp_random_bytes(rnd, sizeof rnd) != 0)
        return -1;
    if (mp_pmi_get("MEMPI_JOB_ID", job, sizeof job) != 0 || strspn(job, "0123456789abcdef") != strlen(job))
        snprintf(job, sizeof job, "%d", (int)getpid());
    int n = snprintf(name, len, "/mempi-%s-", job);
    for (size_t i = 0; i < sizeof rnd && (size_t)n + 2 < len; i++)
        n += snprintf(name + n, len - (size_t)n, "%02x", rnd[i]);
    return 0;
}

static int map_anonymous(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return mp_error_code(MPI_ERR_NO_MEM, "cannot map %zu bytes of shared memory: %s",
                             size, strerror(errno));
    mp_shm.seg = p;
    mp_shm.map_size = size;
    return MPI_SUCCESS;
}

/* Creates (O_EXCL, mode 0600, sized and zero-filled) or opens the shared memory object
 * `name` and maps it.  Opening maps the whole object, whose size must be at least min_size. */
static int map_object(const char *name, int create, size_t size, size_t min_size, void **addr,
                      size_t *mapped)
{
    int fd = create ? shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600)
                    : shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return mp_error_code(MPI_ERR_OTHER, "cannot %s shared segment %s: %s",
                             create ? "create" : "open", name, strerror(errno));
    if (create && ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        shm_unlink(name);
        return mp_error_code(MPI_ERR_NO_MEM, "cannot size shared segment to %zu bytes: %s "
                             "(is /dev/shm large enough?)", size, strerror(e));
    }
    if (!create) {
        struct stat st;
        if (fstat(fd, &st) != 0 || (size_t)st.st_size < min_size) {
            close(fd);
            return mp_error_code(MPI_ERR_OTHER, "shared segment %s is malformed", name);
        }
        size = (size_t)st.st_size;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        if (create)
            shm_unlink(name);
        return mp_error_code(MPI_ERR_NO_MEM, "cannot map shared segment (%zu bytes): %s",
                             size, strerror(errno));
    }
    *addr = p;
    *mapped = size;
    return MPI_SUCCESS;
}

static int map_named(const char *name, int create, size_t size)
{
    void *p;
    size_t mapped;
    int err = map_object(name, create, size, sizeof(mp_seg), &p, &mapped);
    if (err)
        return err;
    mp_shm.seg = p;
    mp_shm.map_size = mapped;
    return MPI_SUCCESS;
}

/* Shared mappings for windows (transport.h): the node segment's naming and permissions. */
int mp_shared_create(size_t size, char name[MP_SHARED_NAME_MAX], void **addr)
{
    size_t mapped;
    *addr = NULL;
    if (size == 0) {
        name[0] = '\0';
        return MPI_SUCCESS;
    }
    if (make_name(name, MP_SHARED_NAME_MAX) != 0)
        return mp_error_code(MPI_ERR_OTHER, "no randomness for a shared segment name");
    return map_object(name, 1, size, 0, addr, &mapped);
}

int mp_shared_attach(const char *name, size_t size, void **addr)
{
    size_t mapped;
    *addr = NULL;
    if (size == 0)
        return MPI_SUCCESS;
    int err = map_object(name, 0, 0, size, addr, &mapped);
    if (err == MPI_SUCCESS && mapped != size) {
        munmap(*addr, mapped);
        *addr = NULL;
        return mp_error_code(MPI_ERR_OTHER, "shared segment %s has %zu bytes, expected %zu",
                             name, mapped, size);
    }
    return err;
}

void mp_shared_unlink(const char *name)
{
    if (name[0])
        shm_unlink(name);
}

void mp_shared_unmap(void *addr, size_t size)
{
    if (addr && size)
        munmap(addr, size);
}

/* Private per-process state over a mapped segment (also used by the unit tests).  Nothing in
 * the segment is written here: pages of inboxes nobody sends to stay untouched. */
void mp_shm_attach_mapped(mp_seg *seg, size_t size, int me)
{
    size_t n = seg->nlocal;
    mp_shm.seg = seg;
    mp_shm.map_size = size;
    mp_shm.nlocal = (int)n;
    mp_shm.me = me;
    mp_shm.mask = seg->cells - 1;
    mp_shm.qmask = seg->queue - 1;
    mp_shm.chunk_stride = sizeof(mp_chunk) + seg->chunk_size;
    mp_shm.inbox = mp_shm_inbox(me);
    mp_shm.queue = mp_shm_queue(me);
    mp_shm.head = 0;
    mp_shm.send_ring = mp_calloc(n, sizeof(mp_cell *));
    mp_shm.send_pos = mp_calloc(n, sizeof(uint32_t));
    mp_shm.queued = mp_calloc(n, sizeof(uint32_t));
    mp_shm.claimed = mp_calloc(n, sizeof(uint32_t));
    mp_shm.lane = mp_calloc(n, 1);
    mp_shm.blocked = mp_calloc(n, 1);
    mp_shm.nblocked = 0;
    mp_shm.fast_to = mp_calloc(n, sizeof(int));
    mp_shm.nfast_to = 0;
    mp_shm.recv_ring = mp_calloc(n, sizeof(mp_cell *));
    mp_shm.recv_pos = mp_calloc(n, sizeof(uint32_t));
    mp_shm.fast_from = mp_calloc(n, sizeof(int));
    mp_shm.nfast_from = 0;
    mp_shm.pool_next = 0;
    mp_shm.pool_hot = seg->chunks < 2 ? (uint32_t)seg->chunks : 2;
    mp_shm.poll_start = 0;
}

int mp_segment_create_or_attach(void)
{
    int nlocal = mp_world.local_size, me = mp_world.local_rank, err;
    if (nlocal > 65535)        /* a queue cell names its sender in the 16-bit hdr.reserved */
        return mp_error_code(MPI_ERR_OTHER, "MPI_Init: %d ranks on one host; the shared-memory "
                             "transport supports at most 65535", nlocal);
    mp_seg probe;
    memset(&probe, 0, sizeof probe);
    mp_segment_layout(&probe, nlocal);
    char name[128], key[32];
    snprintf(key, sizeof key, "mempi-shm-%d", mp_world.host);

    if (nlocal == 1) {
        if ((err = map_anonymous(probe.total)))
            return err;
        memcpy(mp_shm.seg, &probe, sizeof probe);
    } else if (me == 0) {
        if (make_name(name, sizeof name) != 0)
            return mp_error_code(MPI_ERR_OTHER, "no randomness for the segment name");
        if ((err = map_named(name, 1, probe.total)))
            return err;
        snprintf(linked_name, sizeof linked_name, "%s", name);
        memcpy(mp_shm.seg, &probe, sizeof probe);   /* fresh pages are zero: all cells empty */
        if (mp_pmi_put(key, name) != 0)
            return mp_error_code(MPI_ERR_OTHER, "PMI put of the segment name failed: %s",
                                 mp_pmi_error());
    }
    if (mp_pmi_fence() != 0)
        return mp_error_code(MPI_ERR_OTHER, "PMI fence failed: %s", mp_pmi_error());
    if (nlocal > 1 && me != 0) {
        if (mp_pmi_get(key, name, sizeof name) != 0)
            return mp_error_code(MPI_ERR_OTHER, "PMI get of the segment name failed: %s",
                                 mp_pmi_error());
        if ((err = map_named(name, 0, 0)))
            return err;
        snprintf(linked_name, sizeof linked_name, "%s", name);
        if (mp_shm.seg->magic != MP_SHM_MAGIC || mp_shm.seg->nlocal != (uint32_t)nlocal ||
            mp_shm.seg->total > mp_shm.map_size)
            return mp_error_code(MPI_ERR_OTHER, "shared segment %s does not match this job "
                                 "(different MEMPI_SHM_* settings across ranks?)", name);
    }
    mp_shm_attach_mapped(mp_shm.seg, mp_shm.map_size, me);

    mp_rank_area *ra = mp_shm_rank(me);
    ra->pid = (int32_t)getpid();
    ra->world_rank = mp_world.rank;
    /* The last rank to attach removes the name: from now on only mappings keep it alive. */
    unsigned n = atomic_fetch_add_explicit(&mp_shm.seg->attached, 1, memory_order_acq_rel) + 1;
    if (nlocal > 1 && n == (unsigned)nlocal)
        shm_unlink(name);
    /* Until all have attached, the name is this rank's to remove if its start-up fails; after
     * that, a late failure finds nothing to remove (the name was unlinked above). */
    if (n == (unsigned)nlocal)
        linked_name[0] = '\0';
    return MPI_SUCCESS;
}

/* MPI_Init is failing: remove the segment's name if it may still exist.  Peers that have not
 * opened it yet fail their own start-up, which the job's end makes moot. */
void mp_segment_abandon(void)
{
    if (linked_name[0])
        shm_unlink(linked_name);
    linked_name[0] = '\0';
}

void mp_segment_detach(void)
{
    if (mp_shm.seg)
        munmap(mp_shm.seg, mp_shm.map_size);
    mp_shm.seg = NULL;
    free(mp_shm.send_ring);
    free(mp_shm.send_pos);
    free(mp_shm.queued);
    free(mp_shm.claimed);
    free(mp_shm.lane);
    free(mp_shm.blocked);
    free(mp_shm.fast_to);
    free(mp_shm.recv_ring);
    free(mp_shm.recv_pos);
    free(mp_shm.fast_from);
}

/* netmr.c -- registrations of user buffers for fi_read / fi_write, and their cache.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * netrma.c exposes a user buffer to a peer for every rendezvous (RTS: remote read) and
 * request for sending (SREQ: remote write).  mp_net_mr_get() hands it a registration that
 * covers the buffer, mp_net_mr_put() says the transfer ended.  In between the registration is
 * pinned by a reference count: it is never closed while a peer may still use its key.
 *
 * The cache (MEMPI_NET_MR_CACHE, default 256 entries) keeps registrations after their last
 * put, so a program that sends from the same buffers again and again registers each once.
 * An entry covers whole pages (the buffer's first page to its last) with remote read and
 * write access, so the same entry serves sends and receives, and any buffer inside those
 * pages.  Lookup is a linear walk of the entries, most recently used first: the cache is
 * small and every lookup is for a message above the eager threshold, whose transfer costs
 * far more than the walk.  Entries no transfer uses are evicted least recently used first
 * whenever the cache holds more than its bound (entries, or bytes of registered range); an
 * entry in use is never evicted, so the bound can be exceeded while transfers are in flight.
 * A new entry also replaces idle entries inside its range (they would never hit again).
 *
 * When is a cached registration correct?  The application may free a buffer and get the
 * same addresses back (malloc, or munmap + mmap) holding other data, or other physical
 * pages, and we do not see it.  For the software providers -- tcp, udp (through ofi_rxm /
 * ofi_rxd), sockets, net -- a registration is only an address range and a key inside this
 * process: the provider copies from / to whatever the virtual addresses hold when the peer's
 * fi_read / fi_write is served.  A stale entry then reads and writes the new buffer, which is
 * exactly right.  Providers that pin physical pages (FI_MR_LOCAL, FI_MR_ALLOCATED,
 * FI_MR_MMU_NOTIFY or FI_MR_HMEM in their mr_mode, or any provider not named above: verbs,
 * efa, psm3, ...) would have a stale entry point at the old pages; for them this cache is
 * off and every transfer registers and deregisters.  libfabric keeps its own cache for those
 * providers underneath fi_mr_reg, which watches the address space (FI_MR_CACHE_MONITOR:
 * userfaultfd or memhooks; FI_MR_CACHE_MAX_SIZE / FI_MR_CACHE_MAX_COUNT bound it, see
 * fi_mr(3)), so they are not left without one; intercepting munmap / free ourselves would be
 * a second, weaker copy of it.
 *
 * Counters (MEMPI_STATS), per packet that carried a key (an RTS or SREQ the provider took):
 * a miss if its registration was made for it, a hit if the registration was reused.  A packet
 * the provider refused and the protocol retries is not counted twice.
 */
#include "transport/net/net.h"

#ifdef MEMPI_HAVE_LIBFABRIC
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mp_net_mr {
    struct mp_net_mr *prev, *next;    /* cached: position in the recency list */
    uint64_t start, end;              /* registered range [start, end) */
    struct fid_mr *mr;
    uint64_t key;
    int refs;                         /* transfers using it */
    int cached;
    int counted;                      /* a packet carried its key: later ones are hits */
};

static struct {
    int on;                           /* the cache is used (setting, provider) */
    uint64_t max_entries, max_bytes;  /* bound: one of them, the other 0 (none) */
    const char *why_off;              /* for MEMPI_VERBOSE */
    mp_net_mr *head, *tail;           /* most / least recently used */
    uint64_t entries, bytes;
    uint64_t page;
} cache;

/* MEMPI_NET_MR_CACHE (parsed by core/config.c): a bound in entries or in bytes, 0 = off. */
int mp_net_mr_settings(void)
{
    cache.max_entries = mp_cfg.net_mr_cache.entries;
    cache.max_bytes = mp_cfg.net_mr_cache.bytes;
    return MPI_SUCCESS;
}

/* Is a registration of this provider nothing but an address range of our process? */
static int provider_keeps_no_pages(void)
{
    static const char *const software[] = { "tcp", "udp", "sockets", "net" };
    uint64_t pins = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_MMU_NOTIFY | FI_MR_HMEM;
    if (mp_net.info->domain_attr->mr_mode & pins)
        return 0;
    const char *name = mp_net.info->fabric_attr->prov_name;
    size_t core = strcspn(name, ";");
    for (size_t i = 0; i < sizeof software / sizeof software[0]; i++)
        if (strlen(software[i]) == core && strncmp(name, software[i], core) == 0)
            return 1;
    return 0;
}

void mp_net_mr_init(void)
{
    long page = sysconf(_SC_PAGESIZE);
    cache.page = page > 0 ? (uint64_t)page : 4096;
    cache.on = 0;
    if (cache.max_entries == 0 && cache.max_bytes == 0)
        cache.why_off = "off (MEMPI_NET_MR_CACHE=0)";
    else if (!provider_keeps_no_pages())
        cache.why_off = "off (the provider pins memory: libfabric's own cache, FI_MR_CACHE_*)";
    else
        cache.on = 1;
}

void mp_net_mr_describe(char *out, size_t len)
{
    if (!cache.on)
        snprintf(out, len, "%s", cache.why_off ? cache.why_off : "off");
    else if (cache.max_entries)
        snprintf(out, len, "%llu entries", (unsigned long long)cache.max_entries);
    else
        snprintf(out, len, "%llu bytes", (unsigned long long)cache.max_bytes);
}

static void unlink_entry(mp_net_mr *e)
{
    *(e->prev ? &e->prev->next : &cache.head) = e->next;
    *(e->next ? &e->next->prev : &cache.tail) = e->prev;
    e->prev = e->next = NULL;
}

static void push_front(mp_net_mr *e)
{
    e->prev = NULL;
    e->next = cache.head;
    *(cache.head ? &cache.head->prev : &cache.tail) = e;
    cache.head = e;
}

static void close_entry(mp_net_mr *e)
{
    if (e->cached) {
        unlink_entry(e);
        cache.entries--;
        cache.bytes -= e->end - e->start;
    }
    fi_close(&e->mr->fid);
    free(e);
}

static int over_bound(void)
{
    return (cache.max_entries && cache.entries > cache.max_entries) ||
           (cache.max_bytes && cache.bytes > cache.max_bytes);
}

/* Evicts idle entries, least recently used first, until the cache is within its bound. */
static void trim(void)
{
    for (mp_net_mr *e = cache.tail; e && over_bound();) {
        mp_net_mr *older = e->prev;
        if (e->refs == 0)
            close_entry(e);
        e = older;
    }
}

/* Idle entries inside [start, end) are superseded by a new entry covering them. */
static void drop_covered(uint64_t start, uint64_t end)
{
    for (mp_net_mr *e = cache.head; e;) {
        mp_net_mr *next = e->next;
        if (e->refs == 0 && e->start >= start && e->end <= end)
            close_entry(e);
        e = next;
    }
}

static mp_net_mr *lookup(uint64_t start, uint64_t end)
{
    for (mp_net_mr *e = cache.head; e; e = e->next)
        if (e->start <= start && end <= e->end)
            return e;
    return NULL;
}

static mp_net_mr *reg_range(uint64_t start, uint64_t end, uint64_t access)
{
    uint64_t mode = mp_net.info->domain_attr->mr_mode;
    uint64_t requested = (mode & FI_MR_PROV_KEY) ? 0 : mp_net.next_key++;
    struct fid_mr *mr;
    if (fi_mr_reg(mp_net.domain, (void *)(uintptr_t)start, end - start, access, 0, requested, 0,
                  &mr, NULL) != 0)
        return NULL;
    uint64_t key = fi_mr_key(mr);
    if (key == FI_KEY_NOTAVAIL) {
        fi_close(&mr->fid);
        return NULL;
    }
    mp_net_mr *e = mp_calloc(1, sizeof *e);
    e->start = start;
    e->end = end;
    e->mr = mr;
    e->key = key;
    return e;
}

/* A cache entry covering the pages of [addr, addr + size): found, or registered and added
 * (unless it alone exceeds a byte bound: then it is returned uncached). */
static mp_net_mr *cached_cover(uint64_t addr, uint64_t size)
{
    uint64_t start = addr & ~(cache.page - 1);
    uint64_t end = (addr + size + cache.page - 1) & ~(cache.page - 1);
    mp_net_mr *e = lookup(start, end);
    if (e != NULL) {
        unlink_entry(e);
        push_front(e);
        return e;
    }
    e = reg_range(start, end, FI_REMOTE_READ | FI_REMOTE_WRITE);
    if (e == NULL || (cache.max_bytes && end - start > cache.max_bytes))
        return e;
    drop_covered(start, end);
    e->cached = 1;
    push_front(e);
    cache.entries++;
    cache.bytes += end - start;
    return e;
}

mp_net_mr *mp_net_mr_get(uint64_t addr, uint64_t size, uint64_t access, mp_net_key *key)
{
    mp_net_mr *e = cache.on ? cached_cover(addr, size) : reg_range(addr, addr + size, access);
    if (e == NULL)
        return NULL;
    e->refs++;
    trim();                            /* after refs++: e itself is never evicted here */
    key->key = e->key;
    key->base = (mp_net.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? addr : addr - e->start;
    return e;
}

void mp_net_mr_sent(mp_net_mr *e)
{
    if (e->counted) {
        mp_stat.net_mr_hits++;
    } else {
        mp_stat.net_mr_misses++;
        e->counted = 1;
    }
}

void mp_net_mr_put(mp_net_mr *e)
{
    if (--e->refs > 0)
        return;
    if (e->cached)
        trim();
    else
        close_entry(e);
}

void mp_net_mr_finalize(void)
{
    while (cache.head)
        close_entry(cache.head);       /* every transfer ended: all idle */
    cache.entries = cache.bytes = 0;
    cache.on = 0;
}
#endif

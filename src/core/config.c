/* config.c -- MEMPI_* variables: the one declarative table and its strict loader.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every variable MemPI reads is a row: name, type (size, int, bool, choice, string), range or
 * choices, default, the field it sets, scope (local, or all ranks must agree), whether the
 * field may change at run time, and one line of meaning.  The core rows are below; a layer
 * that owns variables keeps its rows beside its code and registers them (mp_config_add) before
 * MPI_Init loads the table.  mp_config_load is the only reader of the environment: a value
 * comes from the environment, else from the MEMPI_TUNING file (tuning.c), else from the row's
 * default, and every value goes through the same checks whatever its source.  The rest of the
 * library reads the parsed fields.  mempi-info prints the rows, and its --markdown output is
 * the README's table (`make config-table`; tests/docs/check-config-table fails on drift), so
 * documentation and code cannot drift apart; the type, scope and run-time flag are what the
 * MPI_T interface (mpit.c) exposes for each row as a control variable.
 *
 * Values are outside input: every parser rejects trailing junk, overflow and out-of-range
 * values, and the error names the variable and the value (and the tuning file it came from).
 */
#include "core/core.h"
#include "core/placement.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

mp_config mp_cfg;

/* MEMPI_NET_MR_CACHE: a plain number is entries, a size with a unit (64M, 1G, 1048576b) is
 * bytes of registered range, 0 turns the cache off. */
static int parse_entries_or_bytes(const char *v, void *field)
{
    mp_config_bound *out = field;
    size_t len = strlen(v), bytes;
    long entries;
    char digits[32];
    if (len > 0 && v[len - 1] >= '0' && v[len - 1] <= '9') {
        if (mp_parse_int(v, 0, 1000000, &entries) != 0)
            return -1;
        out->entries = (size_t)entries;
        out->bytes = 0;
        return 0;
    }
    if (len > 1 && (v[len - 1] == 'b' || v[len - 1] == 'B') && v[len - 2] >= '0' &&
        v[len - 2] <= '9') {                     /* "1048576b": bytes without a unit */
        if (len - 1 >= sizeof digits)
            return -1;
        memcpy(digits, v, len - 1);
        digits[len - 1] = '\0';
        v = digits;
    }
    if (mp_parse_size(v, &bytes) != 0)
        return -1;
    out->entries = 0;
    out->bytes = bytes;
    return 0;
}

static const char *const cma_choices[]    = { "auto", "0", "1", NULL };
static const char *const wait_choices[]   = { "auto", "spin", "yield", "sleep", NULL };
static const char *const bind_choices[]   = { "auto", "none", "core", "socket", NULL };
static const char *const pmi_choices[]    = { "", "1", "2", NULL };

#define KB ((long long)1 << 10)
#define MB ((long long)1 << 20)
#define GB ((long long)1 << 30)
#define SIZE(name, flags, def, lo, hi, field, meaning) \
    { name, MP_CFG_SIZE, flags, def, lo, hi, NULL, 0, field, NULL, NULL, meaning }
#define INT(name, flags, def, lo, hi, field, meaning) \
    { name, MP_CFG_INT, flags, def, lo, hi, NULL, 0, field, NULL, NULL, meaning }
#define BOOL(name, flags, def, field, meaning) \
    { name, MP_CFG_BOOL, flags, def, 0, 1, NULL, 0, field, NULL, NULL, meaning }
#define CHOICE(name, flags, def, choices, base, field, meaning) \
    { name, MP_CFG_CHOICE, flags, def, 0, 0, choices, base, field, NULL, NULL, meaning }
#define STRING(name, flags, field, meaning) \
    { name, MP_CFG_STRING, flags, "", 0, 0, NULL, 0, field, NULL, NULL, meaning }

static const mp_config_var core_rows[] = {
    SIZE("MEMPI_EAGER_MAX", 0, "16384", 0, GB, &mp_cfg.eager_max,
         "largest message (bytes) sent eagerly through the shared-memory queues; larger ones use rendezvous"),
    SIZE("MEMPI_SHM_CELLS", MP_CFG_ALL_EQ | MP_CFG_POW2, "64", 4, 65536, &mp_cfg.shm_cells,
         "cells (128 bytes each) in every per-sender fast ring of the node segment"),
    SIZE("MEMPI_SHM_QUEUE", MP_CFG_ALL_EQ | MP_CFG_POW2, "128", 4, 65536, &mp_cfg.shm_queue,
         "cells (128 bytes each) in every rank's shared receive queue, which all senders without a fast ring use"),
    SIZE("MEMPI_SHM_RINGS", MP_CFG_ALL_EQ, "16", 0, 4096, &mp_cfg.shm_rings,
         "per-sender fast rings each rank can hand out (0: the shared queue only)"),
    SIZE("MEMPI_SHM_RING_AFTER", 0, "16", 0, GB, &mp_cfg.shm_ring_after,
         "packets a sender sends through a receiver's shared queue before it asks for a fast ring"),
    SIZE("MEMPI_SHM_CHUNK", MP_CFG_ALL_EQ, "16384", KB, 16 * MB, &mp_cfg.shm_chunk,
         "bytes per pool chunk (rounded up to a multiple of 64); a message fragment carries at most this much data"),
    SIZE("MEMPI_SHM_CHUNKS", MP_CFG_ALL_EQ, "64", 4, 65536, &mp_cfg.shm_chunks,
         "pool chunks owned by each rank for eager data and pipelined copies"),
    CHOICE("MEMPI_CMA", 0, "auto", cma_choices, -1, &mp_cfg.cma,
           "single copy between processes with process_vm_readv/writev (auto probes at start)"),
    CHOICE("MEMPI_SPLIT_COPY", 0, "auto", cma_choices, -1, &mp_cfg.split_copy,
           "large single copies (remote write, rendezvous pull) shared by sender and receiver, both copying chunks (auto: only when the node's ranks do not outnumber its cores)"),
    SIZE("MEMPI_SPLIT_COPY_MIN", 0, "262144", 0, 1024 * GB, &mp_cfg.split_copy_min,
         "smallest single copy (bytes) that sender and receiver share"),
    BOOL("MEMPI_SENDREQ", 0, "1", &mp_cfg.sendreq,
         "receives posted first send a request for sending; the sender writes into the buffer (papers' SR); 0 = NSR"),
    SIZE("MEMPI_SENDREQ_MIN", 0, "4096", 0, 1024 * GB, &mp_cfg.sendreq_min,
         "smallest receive buffer (and message) in bytes for which the request-for-sending protocol is used"),
    CHOICE("MEMPI_LANES", 0, "auto", cma_choices, -1, &mp_cfg.lanes,
           "MPI_THREAD_MULTIPLE: small blocking sends and receives on different communicators run beside each other instead of under the one lock (auto: once threads meet in the library; 1: from MPI_Init; 0: never)"),
    CHOICE("MEMPI_WAIT", 0, "auto", wait_choices, 0, &mp_cfg.wait_policy,
           "waiting policy of blocking calls (auto: spin, then yield, then sleep on a futex; short spin and early sleep when ranks outnumber cores)"),
    INT("MEMPI_SPIN", 0, "4000", 0, 100000000, &mp_cfg.spin_count,
        "fruitless polls before a blocking call stops spinning (default 0 when ranks outnumber cores, unless set in the environment or the MEMPI_TUNING file)"),
    INT("MEMPI_SLEEP_TIMEOUT", 0, "2000", 100, 100000000, &mp_cfg.sleep_timeout_us,
        "microseconds after which a sleeping rank wakes by itself (a safety net: sleepers are woken when what they wait for arrives)"),
    CHOICE("MEMPI_BIND", 0, "auto", bind_choices, MP_BIND_AUTO, &mp_cfg.bind,
           "bind ranks to cores (auto: one core each if the node's ranks fit on the job's cores, else none)"),
    BOOL("MEMPI_REPORT_BINDINGS", 0, "0", &mp_cfg.report_bindings,
         "each rank prints where it is bound at MPI_Init (set by mpiexec --report-bindings)"),
    INT("MEMPI_STATS", MP_CFG_RUNTIME, "0", 0, 2, &mp_cfg.stats,
        "print communication statistics at MPI_Finalize: 0 off, 1 job totals, 2 also per rank"),
    INT("MEMPI_VERBOSE", MP_CFG_RUNTIME, "0", 0, 2, &mp_cfg.verbose,
        "print start-up decisions (transports, single copy, waiting policy) to stderr; 2 also one line per collective call naming the algorithm that ran"),
    SIZE("MEMPI_COLL_SHM_SLOT", MP_CFG_ALL_EQ, "65536", 4 * KB, GB, &mp_cfg.coll_shm_slot,
         "bytes of the node segment per rank for shared-memory collectives (larger data is pipelined)"),
    INT("MEMPI_NODE_SIZE", MP_CFG_ALL_EQ, "0", 0, 1 << 20, &mp_cfg.node_size,
        "simulate nodes of this many consecutive ranks for node-aware algorithms (0 = real nodes)"),
    CHOICE("MEMPI_PMI", 0, "", pmi_choices, 0, &mp_cfg.pmi,
           "PMI wire protocol spoken to the launcher (empty: 2 if the launcher set PMI_VERSION=2, else 1; Slurm's srun --mpi=pmi2 serves both)"),
    STRING("MEMPI_NET_PROVIDER", MP_CFG_ALL_EQ, &mp_cfg.net_provider,
           "libfabric provider of the network transport, e.g. net, tcp, verbs; an exact name (`net`) is taken before a layered one starting with it (`net;ofi_rxm`) (empty: the best available that reaches other hosts, native net first)"),
    STRING("MEMPI_MPIEXEC", 0, &mp_cfg.mpiexec,
           "MemPI's mpiexec, which a process started without a launcher runs to spawn processes (empty: bin/mpiexec beside the library's directory)"),
    STRING("MEMPI_NET_IFACE", 0, &mp_cfg.net_iface,
           "network interface (libfabric domain) of the network transport (empty: the provider's first non-loopback one)"),
    SIZE("MEMPI_NET_EAGER_MAX", 0, "65536", 0, GB, &mp_cfg.net_eager_max,
         "largest message (bytes) sent eagerly to ranks on other hosts; larger ones use rendezvous"),
    SIZE("MEMPI_NET_CHUNK", MP_CFG_ALL_EQ, "65536", KB, 16 * MB, &mp_cfg.net_chunk,
         "bytes of data per network packet (size of each pre-posted receive buffer, minus 64)"),
    INT("MEMPI_NET_CREDITS", MP_CFG_ALL_EQ, "16", 2, 4096, &mp_cfg.net_credits,
        "packets a rank may have in flight to each remote peer (receive buffers posted per peer)"),
    BOOL("MEMPI_NET_COALESCE", 0, "1", &mp_cfg.net_coalesce,
         "small messages that wait for flow-control credits to a remote peer are packed into one packet, which leaves with the next credit (0: each waits for a credit of its own)"),
    STRING("MEMPI_TUNING", 0, &mp_cfg.tuning,
           "file of `MEMPI_<NAME> = value` lines (written by mempi-loggp --tune) giving defaults for the other variables; the environment still wins"),
    BOOL("MEMPI_NET_RMA", 0, "1", &mp_cfg.net_rma,
         "rendezvous and request-for-sending over the network by fi_read/fi_write when the provider has FI_RMA (0: CTS+FRAG pipeline)"),
    SIZE("MEMPI_NET_RMA_MAX", MP_CFG_AUTO, "auto", 0, LLONG_MAX, &mp_cfg.net_rma_max,
         "largest message (bytes) moved by fi_read/fi_write, larger ones stream through the CTS+FRAG pipeline (auto: over TCP sockets -- net, tcp, udp providers -- none while the machine has a core per rank, all when its ranks outnumber its cores; all on other providers)"),
    { "MEMPI_NET_MR_CACHE", MP_CFG_STRING, 0, "256", 0, 0, NULL, 0, &mp_cfg.net_mr_cache,
      parse_entries_or_bytes, "a number of entries such as 256, a size in bytes such as 64M, or 0 for no cache",
      "registrations of user buffers kept for reuse by the network transport: entries (256), bytes with a unit (64M), 0 = off; software providers only (tcp, udp)" },
    CHOICE("MEMPI_NET_ASYNC_READ", 0, "auto", cma_choices, -1, &mp_cfg.net_async_read,
           "rendezvous reads into contiguous receive buffers are left in flight while the next message starts (auto: unless the machine's ranks outnumber its cores, where it is slower)"),
    INT("MEMPI_NET_TIMEOUT", 0, "0", 0, 1000000, &mp_cfg.net_timeout,
        "seconds without a sign of life from a rank on another host before the job ends (0 = never; set it above the longest computation between MPI calls)"),
    BOOL("MEMPI_ASYNC_PROGRESS", 0, "0", &mp_cfg.async_progress,
         "a progress thread per rank, so that one-sided operations from other hosts progress while the target computes (one-sided targets on the same host need none; docs/rma.md)"),
};

/* ---- the registry: the core rows, then each layer's array ---------------------------- */
enum { MAX_TABLES = 8, MAX_ROWS = 256 };
static struct { const mp_config_var *rows; int n; } tables[MAX_TABLES] = {
    { core_rows, (int)(sizeof core_rows / sizeof core_rows[0]) },
};
static int ntables = 1;
static unsigned char source[MAX_ROWS];       /* MP_CFG_FROM_* of each row after the load */

void mp_config_add(const mp_config_var *rows, int n)
{
    for (int t = 0; t < ntables; t++)
        if (tables[t].rows == rows)
            return;
    if (ntables == MAX_TABLES || mp_config_count() + n > MAX_ROWS)
        mp_fatal("mp_config_add: more than %d tables or %d rows", MAX_TABLES, MAX_ROWS);
    tables[ntables].rows = rows;
    tables[ntables].n = n;
    ntables++;
}

int mp_config_count(void)
{
    int n = 0;
    for (int t = 0; t < ntables; t++)
        n += tables[t].n;
    return n;
}

const mp_config_var *mp_config_row(int i)
{
    for (int t = 0; t < ntables; t++) {
        if (i < tables[t].n)
            return &tables[t].rows[i];
        i -= tables[t].n;
    }
    return NULL;
}

int mp_config_index(const char *name, size_t len)
{
    int n = mp_config_count();
    for (int i = 0; i < n; i++) {
        const char *row = mp_config_row(i)->name;
        if (strlen(row) == len && memcmp(row, name, len) == 0)
            return i;
    }
    return -1;
}

/* The text in effect for row i and where it came from. */
static const char *value_of(int i, int *from)
{
    const mp_config_var *v = mp_config_row(i);
    const char *s = getenv(v->name);
    *from = MP_CFG_FROM_ENV;
    if (s == NULL) {
        s = mp_tuning_value(v->name);
        *from = MP_CFG_FROM_TUNING;
    }
    if (s == NULL || (*s == '\0' && (v->flags & MP_CFG_EMPTY))) {
        s = v->defval;
        *from = MP_CFG_FROM_DEFAULT;
    }
    return s;
}

const char *mp_config_current(const char *name)
{
    int i = mp_config_index(name, strlen(name)), from;
    return i < 0 ? NULL : value_of(i, &from);
}

int mp_config_source(const char *name)
{
    int i = mp_config_index(name, strlen(name));
    return i < 0 || i >= MAX_ROWS ? MP_CFG_FROM_DEFAULT : source[i];
}

/* ---- parsers --------------------------------------------------------------------------- */
int mp_parse_int(const char *s, long lo, long hi, long *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int mp_parse_size(const char *s, size_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    unsigned shift = 0;
    if (*end != '\0') {
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'I')   /* accept KiB-style "64Ki" and "64KiB" */
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
        if (*end != '\0')
            return -1;
    }
    if (shift && v > (ULLONG_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int mp_parse_choice(const char *s, const char *const *choices, int *out)
{
    if (s == NULL)
        return -1;
    for (int i = 0; choices[i] != NULL; i++)
        if (strcasecmp(s, choices[i]) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

static int pow2_ok(const mp_config_var *v, unsigned long long n)
{
    return !(v->flags & MP_CFG_POW2) || (n & (n - 1)) == 0;
}

/* String rows hold copies (the environment may change after MPI_Init).  The table is loaded
 * more than once in a process -- by MPI_T_init_thread before MPI_Init, then by MPI_Init -- so
 * each field's copy is remembered and freed when a later load replaces it. */
#define STRING_ROWS 16
static struct { const char **field; char *copy; } string_copies[STRING_ROWS];

static void set_string(const char **field, const char *s)
{
    char *copy = *s ? mp_strdup(s) : NULL;
    *field = copy ? copy : "";
    for (int i = 0; i < STRING_ROWS; i++) {
        if (string_copies[i].field != field && string_copies[i].field != NULL)
            continue;
        free(string_copies[i].copy);
        string_copies[i].field = field;
        string_copies[i].copy = copy;
        return;
    }
    MP_ASSERT(!"more string rows than STRING_ROWS");   /* release builds keep the copy */
}

/* Parses s as row v wants and stores it in the row's field: 0, or -1 if malformed. */
static int load_row(const mp_config_var *v, const char *s)
{
    size_t z;
    long l;
    int c;
    if (v->parse != NULL)
        return v->parse(s, v->field);
    switch (v->type) {
    case MP_CFG_SIZE:
        if ((v->flags & MP_CFG_AUTO) && strcasecmp(s, "auto") == 0) {
            *(size_t *)v->field = MP_CFG_SIZE_AUTO;
            return 0;
        }
        if (mp_parse_size(s, &z) != 0 || z < (unsigned long long)v->lo ||
            z > (unsigned long long)v->hi || !pow2_ok(v, z))
            return -1;
        *(size_t *)v->field = z;
        return 0;
    case MP_CFG_INT:
    case MP_CFG_BOOL:
        if (mp_parse_int(s, (long)v->lo, (long)v->hi, &l) != 0 || !pow2_ok(v, (unsigned long long)l))
            return -1;
        *(int *)v->field = (int)l;
        return 0;
    case MP_CFG_CHOICE:
        if (mp_parse_choice(s, v->choices, &c) != 0)
            return -1;
        *(int *)v->field = c + v->base;
        return 0;
    case MP_CFG_STRING:
        set_string((const char **)v->field, s);
        return 0;
    }
    return -1;
}

static void size_text(long long n, char *out, size_t len)
{
    static const char units[] = "GMk";
    for (int u = 0; u < 3; u++) {
        long long unit = (long long)1 << (10 * (3 - u));
        if (n >= unit && n % unit == 0) {
            snprintf(out, len, "%lld%c", n / unit, units[u]);
            return;
        }
    }
    snprintf(out, len, "%lld", n);
}

void mp_config_describe_values(const mp_config_var *v, char *out, size_t len)
{
    char lo[32], hi[32];
    out[0] = '\0';
    if (v->parse != NULL) {
        snprintf(out, len, "%s", v->expect);
        return;
    }
    size_t k;
    switch (v->type) {
    case MP_CFG_SIZE:
        size_text(v->lo, lo, sizeof lo);
        size_text(v->hi, hi, sizeof hi);
        if (v->hi == LLONG_MAX)
            snprintf(out, len, "%sa size", v->flags & MP_CFG_AUTO ? "auto or " : "");
        else
            snprintf(out, len, "%s%s-%s%s", v->flags & MP_CFG_AUTO ? "auto or " : "", lo, hi,
                     v->flags & MP_CFG_POW2 ? ", a power of two" : "");
        break;
    case MP_CFG_INT:
        snprintf(out, len, "%lld-%lld%s", v->lo, v->hi,
                 v->flags & MP_CFG_POW2 ? ", a power of two" : "");
        break;
    case MP_CFG_BOOL:
        snprintf(out, len, "0|1");
        break;
    case MP_CFG_CHOICE:
        for (int i = 0; v->choices[i] != NULL && (k = strlen(out)) + 1 < len; i++)
            snprintf(out + k, len - k, "%s%s", i ? "|" : "", *v->choices[i] ? v->choices[i] : "empty");
        break;
    case MP_CFG_STRING:
        snprintf(out, len, "any text");
        break;
    }
}

static int bad_value(const mp_config_var *v, const char *value, int from)
{
    char expect[256], range[192];
    const char *file = from == MP_CFG_FROM_TUNING ? mp_cfg.tuning : NULL;
    mp_config_describe_values(v, range, sizeof range);
    if (v->parse != NULL || v->type == MP_CFG_STRING)
        snprintf(expect, sizeof expect, "%s", range);
    else if (v->type == MP_CFG_SIZE)
        snprintf(expect, sizeof expect, "%s; sizes such as 4096, 64k or 1M", range);
    else if (v->type == MP_CFG_INT)
        snprintf(expect, sizeof expect, "an integer %s", range);
    else if (v->type == MP_CFG_BOOL)
        snprintf(expect, sizeof expect, "0 or 1");
    else
        snprintf(expect, sizeof expect, "one of %s", range);
    return mp_error_code(MPI_ERR_OTHER, "invalid value '%s' for %s%s%s%s (expected %s)",
                         value, v->name, file ? " in MEMPI_TUNING file '" : "", file ? file : "",
                         file ? "'" : "", expect);
}

int mp_config_load(void)
{
    int first = MPI_SUCCESS, n = mp_config_count();
    const char *tuning = getenv("MEMPI_TUNING");   /* the file is itself a source of values */
    mp_cfg.tuning = tuning ? tuning : "";
    memset(&mp_tuned, 0, sizeof mp_tuned);
    if (*mp_cfg.tuning != '\0' && (first = mp_tuning_load(mp_cfg.tuning)) != MPI_SUCCESS)
        memset(&mp_tuned, 0, sizeof mp_tuned);
    for (int i = 0; i < n; i++) {
        const mp_config_var *v = mp_config_row(i);
        int from;
        const char *s = value_of(i, &from);
        source[i] = (unsigned char)from;
        if (load_row(v, s) != 0) {
            if (first == MPI_SUCCESS)
                first = bad_value(v, s, from);
            load_row(v, v->defval);
        }
    }
    mp_cfg.shm_chunk = (mp_cfg.shm_chunk + 63) & ~(size_t)63;
    return first;
}

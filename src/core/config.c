/* config.c -- MEMPI_* variables: the one list, strict parsing.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every variable MemPI reads is declared in mp_config_vars with its default and one line of
 * meaning; mempi-info prints that table, so documentation and code cannot drift apart.  Values
 * come from the environment, which is outside input: every parser here rejects trailing junk,
 * overflow and out-of-range values, and the error names the variable and the value.
 * A value comes from the environment, else from the MEMPI_TUNING file (tuning.c), else from
 * the table's default; tuning-file values go through the same checks.
 */
#include "core/core.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

mp_config mp_cfg;

const mp_config_var mp_config_vars[] = {
    { "MEMPI_EAGER_MAX",  "16384",
      "largest message (bytes) sent eagerly through the shared-memory queues; larger ones use rendezvous" },
    { "MEMPI_SHM_CELLS",  "64",
      "cells (128 bytes each) in every sender->receiver queue of the node segment" },
    { "MEMPI_SHM_CHUNK",  "16384",
      "bytes per pool chunk; a message fragment carries at most this much data" },
    { "MEMPI_SHM_CHUNKS", "64",
      "pool chunks owned by each rank for eager data and pipelined copies" },
    { "MEMPI_CMA",        "auto",
      "single copy between processes with process_vm_readv/writev: auto|0|1 (auto probes at start)" },
    { "MEMPI_SENDREQ",    "1",
      "receives posted first send a request for sending; the sender writes into the buffer (papers' SR); 0 = NSR" },
    { "MEMPI_SENDREQ_MIN", "4096",
      "smallest receive buffer (and message) in bytes for which the request-for-sending protocol is used" },
    { "MEMPI_WAIT",       "auto",
      "waiting policy of blocking calls: auto|spin|yield|sleep (auto: spin, then yield, then sleep on a futex; short spin and early sleep when ranks outnumber cores)" },
    { "MEMPI_SPIN",       "4000",
      "fruitless polls before a blocking call stops spinning (default 0 when ranks outnumber cores)" },
    { "MEMPI_BIND",       "auto",
      "bind ranks to cores: auto|none|core|socket (auto: one core each if the node's ranks fit on the job's cores, else none)" },
    { "MEMPI_REPORT_BINDINGS", "0",
      "each rank prints where it is bound at MPI_Init: 0|1 (set by mpiexec --report-bindings)" },
    { "MEMPI_STATS",      "0",
      "print communication statistics at MPI_Finalize: 0 off, 1 job totals, 2 also per rank" },
    { "MEMPI_VERBOSE",    "0",
      "print start-up decisions (transports, single copy, waiting policy) to stderr: 0|1" },
    { "MEMPI_COLL_SHM_SLOT", "65536",
      "bytes of the node segment per rank for shared-memory collectives (larger data is pipelined)" },
    { "MEMPI_NODE_SIZE",  "0",
      "simulate nodes of this many consecutive ranks for node-aware algorithms (0 = real nodes)" },
    { "MEMPI_PMI",         "",
      "PMI wire protocol spoken to the launcher: 1|2 (empty: 2 if the launcher set PMI_VERSION=2, else 1; Slurm's srun --mpi=pmi2 serves both)" },
    { "MEMPI_NET_PROVIDER", "",
      "libfabric provider of the network transport, e.g. net, tcp, verbs; an exact name is taken before a layered one starting with it (empty: the best available that reaches other hosts, native net first)" },
    { "MEMPI_NET_IFACE",    "",
      "network interface (libfabric domain) of the network transport (empty: the provider's first non-loopback one)" },
    { "MEMPI_NET_EAGER_MAX", "65536",
      "largest message (bytes) sent eagerly to ranks on other hosts; larger ones use rendezvous" },
    { "MEMPI_NET_CHUNK",    "65536",
      "bytes of data per network packet (size of each pre-posted receive buffer, minus 64)" },
    { "MEMPI_NET_CREDITS",  "16",
      "packets a rank may have in flight to each remote peer (receive buffers posted per peer)" },
    { "MEMPI_TUNING",       "",
      "file of `MEMPI_<NAME> = value` lines (written by mempi-loggp --tune) giving defaults for the variables above; the environment still wins" },
    { "MEMPI_NET_RMA",      "1",
      "rendezvous and request-for-sending over the network by fi_read/fi_write when the provider has FI_RMA: 0|1 (0: CTS+FRAG pipeline)" },
    { "MEMPI_NET_RMA_MAX",  "auto",
      "largest message (bytes) moved by fi_read/fi_write, larger ones stream through the CTS+FRAG pipeline: a size, or auto (over TCP sockets -- net, tcp, udp providers -- none while the machine has a core per rank, the pipeline being 2.3x faster at 1 MiB, all when its ranks outnumber its cores; all on other providers)" },
    { "MEMPI_NET_MR_CACHE", "256",
      "registrations of user buffers kept for reuse by the network transport: entries (256), bytes with a unit (64M), 0 = off; software providers only (tcp, udp)" },
    { "MEMPI_NET_ASYNC_READ", "auto",
      "rendezvous reads into contiguous buffers left in flight while the next message starts: auto|0|1 (auto: unless the machine's ranks outnumber its cores)" },
    { "MEMPI_ASYNC_PROGRESS", "0",
      "a progress thread per rank, so that one-sided operations from other hosts progress while the target computes: 0|1 (one-sided targets on the same host need none; docs/rma.md)" },
    { "MEMPI_NET_TIMEOUT",  "0",
      "seconds without a sign of life from a rank on another host before the job ends (0 = never; set it above the longest computation between MPI calls)" },
};
const int mp_config_nvars = (int)(sizeof mp_config_vars / sizeof mp_config_vars[0]);

const char *mp_config_current(const char *name)
{
    const char *v = getenv(name);
    if (v != NULL)
        return v;
    if ((v = mp_tuning_value(name)) != NULL)
        return v;
    for (int i = 0; i < mp_config_nvars; i++)
        if (strcmp(mp_config_vars[i].name, name) == 0)
            return mp_config_vars[i].defval;
    return NULL;
}

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

static int bad_value(const char *name, const char *value, const char *expect)
{
    const char *file = getenv(name) == NULL && mp_tuning_value(name) ? getenv("MEMPI_TUNING") : NULL;
    return mp_error_code(MPI_ERR_OTHER, "invalid value '%s' for %s%s%s%s (expected %s)",
                         value, name, file ? " in MEMPI_TUNING file '" : "", file ? file : "",
                         file ? "'" : "", expect);
}

static int load_size(const char *name, size_t lo, size_t hi, size_t *out)
{
    const char *v = mp_config_current(name);
    size_t n;
    if (mp_parse_size(v, &n) != 0 || n < lo || n > hi)
        return bad_value(name, v, "a size in bytes such as 4096, 64k or 1M, within range");
    *out = n;
    return MPI_SUCCESS;
}

static int load_int(const char *name, long lo, long hi, int *out)
{
    const char *v = mp_config_current(name);
    long n;
    if (mp_parse_int(v, lo, hi, &n) != 0) {
        char expect[96];
        snprintf(expect, sizeof expect, "an integer from %ld to %ld", lo, hi);
        return bad_value(name, v, expect);
    }
    *out = (int)n;
    return MPI_SUCCESS;
}

static int load_choice(const char *name, const char *const *choices, const char *expect, int *out)
{
    const char *v = mp_config_current(name);
    if (mp_parse_choice(v, choices, out) != 0)
        return bad_value(name, v, expect);
    return MPI_SUCCESS;
}

int mp_config_load(void)
{
    static const char *const cma_choices[]  = { "auto", "0", "1", NULL };
    static const char *const wait_choices[] = { "auto", "spin", "yield", "sleep", NULL };
    static const char *const bind_choices[] = { "auto", "none", "core", "socket", NULL };
    int err, cma, spin, bind, report_bindings;
    const char *tuning = getenv("MEMPI_TUNING");
    memset(&mp_tuned, 0, sizeof mp_tuned);
    if (tuning != NULL && *tuning != '\0' && (err = mp_tuning_load(tuning)))
        return err;
    if ((err = load_size("MEMPI_EAGER_MAX", 0, (size_t)1 << 30, &mp_cfg.eager_max)) ||
        (err = load_size("MEMPI_SHM_CELLS", 4, 65536, &mp_cfg.shm_cells)) ||
        (err = load_size("MEMPI_SHM_CHUNK", 1024, (size_t)16 << 20, &mp_cfg.shm_chunk)) ||
        (err = load_size("MEMPI_SHM_CHUNKS", 4, 65536, &mp_cfg.shm_chunks)) ||
        (err = load_choice("MEMPI_CMA", cma_choices, "auto, 0 or 1", &cma)) ||
        (err = load_int("MEMPI_SENDREQ", 0, 1, &mp_cfg.sendreq)) ||
        (err = load_size("MEMPI_SENDREQ_MIN", 0, (size_t)1 << 40, &mp_cfg.sendreq_min)) ||
        (err = load_choice("MEMPI_WAIT", wait_choices, "auto, spin, yield or sleep",
                           &mp_cfg.wait_policy)) ||
        (err = load_int("MEMPI_SPIN", 0, 100000000, &spin)) ||
        (err = load_choice("MEMPI_BIND", bind_choices, "auto, none, core or socket", &bind)) ||
        (err = load_int("MEMPI_REPORT_BINDINGS", 0, 1, &report_bindings)) ||
        (err = load_int("MEMPI_STATS", 0, 2, &mp_cfg.stats)) ||
        (err = load_int("MEMPI_VERBOSE", 0, 1, &mp_cfg.verbose)) ||
        (err = load_size("MEMPI_COLL_SHM_SLOT", 4096, (size_t)1 << 30, &mp_cfg.coll_shm_slot)) ||
        (err = load_int("MEMPI_NODE_SIZE", 0, 1 << 20, &mp_cfg.node_size)) ||
        (err = load_int("MEMPI_ASYNC_PROGRESS", 0, 1, &mp_cfg.async_progress)))
        return err;
    mp_cfg.cma = cma == 0 ? -1 : cma - 1;
    mp_cfg.spin_count = (unsigned)spin;
    /* Cells carry the chunk index in 32 bits and the ring index wraps by masking. */
    if (mp_cfg.shm_cells & (mp_cfg.shm_cells - 1))
        return bad_value("MEMPI_SHM_CELLS", mp_config_current("MEMPI_SHM_CELLS"),
                         "a power of two from 4 to 65536");
    mp_cfg.shm_chunk = (mp_cfg.shm_chunk + 63) & ~(size_t)63;
    return MPI_SUCCESS;
}

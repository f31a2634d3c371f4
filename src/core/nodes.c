/* nodes.c -- which ranks share a host: the launcher's process mapping or the host identity.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Two questions decide how a rank reaches another: do they share memory (same *host*: the shm
 * transport), or not (the net transport)?  The answer comes from the launcher first: Hydra,
 * Slurm and MemPI's own mpiexec publish PMI_process_mapping, a compact description of which
 * ranks they started on which host:
 *
 *     (vector,(start,nodes,ppn),(start,nodes,ppn),...)
 *
 * Each block puts `ppn` consecutive ranks on each of the hosts start .. start+nodes-1; the
 * blocks are used in order and the whole vector repeats until every rank has a host (that is
 * how round-robin placement and Hydra's one-host "(vector,(0,1,1))" are written).  The parser
 * is strict: anything else is rejected with an error that quotes the value, because a wrong
 * layout means a segment that half the ranks never map.
 *
 * Without a mapping every rank publishes a host identity -- the kernel's boot id, the inodes
 * of its network and mount namespaces, and the host name -- and ranks with equal identities
 * share a host.  The host name alone is never enough: network namespaces on one machine (the
 * test cluster of tests/cluster/) have the same name but are separate nodes.
 *
 * Hosts are numbered densely in the order of their lowest rank, so rank 0 is on host 0.
 * Logical nodes (mp_proc.node, seen by the node-aware collectives) are the hosts, except that
 * MEMPI_NODE_SIZE=k splits every host into simulated nodes of k consecutive local ranks; that
 * never changes which transport reaches a rank.
 */
#include "core/core.h"
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MP_MAPPING_MAX_ID (1 << 24)   /* largest host id or count accepted in a mapping */

static int *host_of;                  /* world rank -> host index */
static int nhosts;

int mp_nodes_host_of(int world)
{
    return host_of ? host_of[world] : 0;
}

int mp_nodes_nhosts(void)
{
    return nhosts;
}

/* ---- PMI_process_mapping ------------------------------------------------------------------ */

static int parse_lit(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0)
        return -1;
    *p += n;
    return 0;
}

static int parse_num(const char **p, long *out)
{
    const char *s = *p;
    long v = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        if (++digits > 9)
            return -1;
        v = v * 10 + (*s - '0');
        s++;
    }
    if (digits == 0 || v > MP_MAPPING_MAX_ID)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

typedef struct mp_map_block { long start, nodes, ppn; } mp_map_block;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Renumbers raw host ids densely by first appearance; returns the number of hosts. */
static int renumber(int size, int *ids)
{
    int *sorted = mp_malloc(sizeof(int) * (size_t)size);
    memcpy(sorted, ids, sizeof(int) * (size_t)size);
    qsort(sorted, (size_t)size, sizeof(int), cmp_int);
    int ndistinct = 0;
    for (int i = 0; i < size; i++)
        if (i == 0 || sorted[i] != sorted[i - 1])
            sorted[ndistinct++] = sorted[i];
    int *dense = mp_malloc(sizeof(int) * (size_t)ndistinct);
    for (int i = 0; i < ndistinct; i++)
        dense[i] = -1;
    int next = 0;
    for (int r = 0; r < size; r++) {
        int *hit = bsearch(&ids[r], sorted, (size_t)ndistinct, sizeof(int), cmp_int);
        int k = (int)(hit - sorted);
        if (dense[k] < 0)
            dense[k] = next++;
        ids[r] = dense[k];
    }
    free(sorted);
    free(dense);
    return next;
}

/* Parses a PMI_process_mapping value for a job of `size` ranks into host_out[size] (dense host
 * indices, host 0 holds rank 0).  Returns the number of hosts, or -1 on malformed input. */
int mp_nodes_parse_mapping(const char *s, int size, int *host_out)
{
    if (s == NULL || size <= 0)
        return -1;
    const char *p = s;
    mp_map_block *blocks = NULL;
    int nblocks = 0, cap = 0;
    if (parse_lit(&p, "(vector") != 0)
        return -1;
    while (*p == ',') {
        mp_map_block b;
        p++;
        if (parse_lit(&p, "(") || parse_num(&p, &b.start) || parse_lit(&p, ",") ||
            parse_num(&p, &b.nodes) || parse_lit(&p, ",") || parse_num(&p, &b.ppn) ||
            parse_lit(&p, ")") || b.nodes == 0 || b.ppn == 0 ||
            b.start + b.nodes > MP_MAPPING_MAX_ID) {
            free(blocks);
            return -1;
        }
        if (nblocks == cap) {
            cap = cap ? 2 * cap : 8;
            blocks = mp_realloc(blocks, sizeof *blocks * (size_t)cap);
        }
        blocks[nblocks++] = b;
    }
    if (nblocks == 0 || parse_lit(&p, ")") != 0 || *p != '\0') {
        free(blocks);
        return -1;
    }
    /* Every block places at least one rank, so this ends after at most `size` blocks. */
    int rank = 0;
    while (rank < size)
        for (int i = 0; i < nblocks && rank < size; i++)
            for (long n = 0; n < blocks[i].nodes && rank < size; n++)
                for (long k = 0; k < blocks[i].ppn && rank < size; k++)
                    host_out[rank++] = (int)(blocks[i].start + n);
    free(blocks);
    return renumber(size, host_out);
}

/* ---- host identity ------------------------------------------------------------------------ */

static void append_ns_inode(char *buf, size_t len, const char *path)
{
    struct stat st;
    size_t n = strlen(buf);
    if (stat(path, &st) == 0)
        snprintf(buf + n, len - n, "-%llx.%llx", (unsigned long long)st.st_dev,
                 (unsigned long long)st.st_ino);
    else
        snprintf(buf + n, len - n, "-x");
}

/* The kernel's boot id: equal exactly for processes of one running machine (containers and
 * namespaces included). */
static void read_boot_id(char *boot, size_t len)
{
    snprintf(boot, len, "noboot");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(boot, (int)len, f) == NULL)
            snprintf(boot, len, "noboot");
        fclose(f);
    }
    boot[strcspn(boot, "\n")] = '\0';
}

/* PMI values travel in "key=value" lines: keep to a safe alphabet. */
static void pmi_safe(char *buf)
{
    for (char *c = buf; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '.' || *c == '_'))
            *c = '_';
}

void mp_nodes_host_identity(char *buf, size_t len)
{
    char boot[64];
    read_boot_id(boot, sizeof boot);
    snprintf(buf, len, "%s", boot);
    append_ns_inode(buf, len, "/proc/self/ns/net");
    append_ns_inode(buf, len, "/proc/self/ns/mnt");
    char host[128] = "";
    gethostname(host, sizeof host - 1);
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "-%s", host);
    pmi_safe(buf);
}

static int hosts_from_identity(int size, int *out)
{
    char id[256], key[48];
    mp_nodes_host_identity(id, sizeof id);
    snprintf(key, sizeof key, "mempi-hostid-%d", mp_world.rank);
    if (mp_pmi_put(key, id) != 0 || mp_pmi_fence() != 0)
        return mp_error_code(MPI_ERR_OTHER, "PMI exchange of host identities failed: %s",
                             mp_pmi_error());
    /* Ranks with equal identity share a host: compare against the first rank of each host. */
    char (*firsts)[256] = mp_malloc(sizeof *firsts * (size_t)size);
    int nfound = 0;
    for (int r = 0; r < size; r++) {
        char other[256];
        if (r == mp_world.rank) {
            snprintf(other, sizeof other, "%s", id);
        } else {
            snprintf(key, sizeof key, "mempi-hostid-%d", r);
            if (mp_pmi_get(key, other, sizeof other) != 0) {
                free(firsts);
                return mp_error_code(MPI_ERR_OTHER, "PMI get of the host identity of rank %d "
                                     "failed: %s", r, mp_pmi_error());
            }
        }
        int h = 0;
        while (h < nfound && strcmp(firsts[h], other) != 0)
            h++;
        if (h == nfound)
            snprintf(firsts[nfound++], sizeof firsts[0], "%s", other);
        out[r] = h;
    }
    free(firsts);
    return MPI_SUCCESS;
}

/* ---- ranks sharing this machine's processors ----------------------------------------------
 *
 * Hosts are memory domains; the waiting policy and core binding ask another question: how many
 * of the job's ranks compete for the processors this rank runs on?  On a real cluster those are
 * the host's own ranks.  On network namespaces or containers of one machine they are the ranks
 * of all of them: counting only its own host's, each namespace node of 2 ranks on a 2-core
 * machine would spin as if it had the machine to itself, and with 2 such nodes every message
 * waits for a spinning neighbour's full time slice (milliseconds instead of microseconds).
 * So in a job of several hosts the first rank of each publishes its machine -- the boot id and
 * a hash of its CPU affinity mask (containers pinned to disjoint cpusets do not compete) --
 * and hosts with an equal pair count together. */

static int machine_ranks;             /* ranks of the job on this rank's processors */

int mp_nodes_machine_size(void)
{
    return machine_ranks;
}

static void machine_identity(char *buf, size_t len)
{
    char boot[64];
    read_boot_id(boot, sizeof boot);
    uint64_t hash = 1469598103934665603ull;        /* FNV-1a over the affinity mask */
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const unsigned char *b = (const unsigned char *)&set;
        for (size_t i = 0; i < sizeof set; i++)
            hash = (hash ^ b[i]) * 1099511628211ull;
    }
    snprintf(buf, len, "%s-%016llx", boot, (unsigned long long)hash);
    pmi_safe(buf);
}

static int count_machine_ranks(int n, const int *count)
{
    machine_ranks = count[host_of[mp_world.rank]];
    if (nhosts == 1)
        return MPI_SUCCESS;
    char mine[128], other[128], key[48];
    machine_identity(mine, sizeof mine);
    int *first = mp_malloc(sizeof(int) * (size_t)nhosts);
    for (int h = 0; h < nhosts; h++)
        first[h] = -1;
    for (int w = n - 1; w >= 0; w--)
        first[host_of[w]] = w;
    int err = MPI_SUCCESS;
    snprintf(key, sizeof key, "mempi-machine-%d", mp_world.rank);
    if ((first[host_of[mp_world.rank]] == mp_world.rank && mp_pmi_put(key, mine) != 0) ||
        mp_pmi_fence() != 0)
        err = mp_error_code(MPI_ERR_OTHER, "PMI exchange of machine identities failed: %s",
                            mp_pmi_error());
    for (int h = 0; h < nhosts && !err; h++) {
        if (h == host_of[mp_world.rank])
            continue;
        snprintf(key, sizeof key, "mempi-machine-%d", first[h]);
        if (mp_pmi_get(key, other, sizeof other) != 0)
            err = mp_error_code(MPI_ERR_OTHER, "PMI get of the machine identity of rank %d "
                                "failed: %s", first[h], mp_pmi_error());
        else if (strcmp(other, mine) == 0)
            machine_ranks += count[h];
    }
    free(first);
    return err;
}

/* ---- layout ------------------------------------------------------------------------------- */

static int find_hosts(int size, int *out, const char **source)
{
    char mapping[1024];
    if (size == 1) {
        out[0] = 0;
        *source = "single rank";
        return MPI_SUCCESS;
    }
    int rc = mp_pmi_get(MP_PMI_KEY_PROCESS_MAPPING, mapping, sizeof mapping);
    if (rc == 0 && mapping[0] != '\0') {
        if (mp_nodes_parse_mapping(mapping, size, out) < 0)
            return mp_error_code(MPI_ERR_OTHER, "the launcher's PMI_process_mapping '%s' is "
                                 "malformed (expected (vector,(start,nodes,ppn),...))", mapping);
        *source = "PMI_process_mapping";
        return MPI_SUCCESS;
    }
    *source = "host identity";
    return hosts_from_identity(size, out);
}

int mp_nodes_setup(void)
{
    int n = mp_world.size, me = mp_world.rank;
    const char *source = "";
    host_of = mp_malloc(sizeof(int) * (size_t)n);
    int err = find_hosts(n, host_of, &source);
    if (err)
        return err;
    mp_world.procs = mp_calloc((size_t)n, sizeof(mp_proc));
    mp_world.nprocs = n;
    mp_world.local_world = mp_calloc((size_t)n, sizeof(int));

    /* Index of every rank among the ranks of its host, and the hosts' sizes. */
    nhosts = 0;
    for (int w = 0; w < n; w++)
        if (host_of[w] + 1 > nhosts)
            nhosts = host_of[w] + 1;
    int *count = mp_calloc((size_t)nhosts, sizeof(int));
    for (int w = 0; w < n; w++)
        mp_world.procs[w].local = count[host_of[w]]++;

    /* Logical nodes: whole hosts, or groups of MEMPI_NODE_SIZE local ranks within each. */
    int k = mp_cfg.node_size;
    int *base = mp_calloc((size_t)nhosts + 1, sizeof(int));
    for (int h = 0; h < nhosts; h++)
        base[h + 1] = base[h] + (k > 0 ? (count[h] + k - 1) / k : 1);
    for (int w = 0; w < n; w++)
        mp_world.procs[w].node = base[host_of[w]] + (k > 0 ? mp_world.procs[w].local / k : 0);

    mp_world.host = host_of[me];
    mp_world.nnodes = base[nhosts];
    mp_world.node = mp_world.procs[me].node;
    mp_world.local_rank = mp_world.procs[me].local;
    mp_world.local_size = count[mp_world.host];
    for (int w = 0; w < n; w++)
        if (host_of[w] == mp_world.host)
            mp_world.local_world[mp_world.procs[w].local] = w;
    err = count_machine_ranks(n, count);
    if (mp_cfg.verbose && me == 0 && !err)
        fprintf(stderr, "MemPI: node layout from %s: %d ranks on %d host(s), %d logical "
                "node(s); rank 0 shares its host with %d rank(s), its processors with %d\n",
                source, n, nhosts, mp_world.nnodes, mp_world.local_size - 1, machine_ranks - 1);
    free(count);
    free(base);
    return err;
}

/* placement.c -- binding local ranks to cores.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A rank that keeps its own core keeps its caches and never waits for the scheduler to bring
 * it back, so when the node's ranks fit on the cores available to the job, each rank is bound
 * to one core; when they do not fit, binding would only pin two busy ranks to the same core
 * while another sits idle, so nothing is bound and the scheduler balances them
 * (MEMPI_BIND=auto, the default; a node's only rank is not bound either: it gains nothing,
 * and concurrent single-rank jobs would all land on the first CPU).  MEMPI_BIND=core forces one CPU per rank (round robin when
 * oversubscribed), socket binds each rank to all CPUs of its package, none leaves the
 * affinity mask alone.
 *
 * "Available" means the affinity mask the process started with (what the launcher, taskset,
 * a cpuset or a batch system granted), capped by the cgroup CPU quota (cpu.max in cgroup v2,
 * cpu.cfs_quota_us in v1, the tightest over the cgroup and its ancestors): a container limited
 * to 2 CPUs' worth of time on a 64-CPU host has 2 cores for our purposes.  The count is taken
 * once, before binding narrows the mask; the waiting policy (progress.c) uses it too.
 *
 * Topology comes from /sys/devices/system/cpu/cpuN/topology (package and core ids; CPUs with
 * the same pair are hardware threads of one core).  The plan (mp_placement_plan) is a pure
 * function of that table, so every local rank computes the same layout from the same mask
 * without talking to the others, and the unit test can feed it made-up machines.  hwloc would
 * add cache levels and NUMA distances; the package/core view is what the decision needs.
 *
 * mpiexec --report-bindings sets MEMPI_REPORT_BINDINGS=1; each rank then prints one line to
 * stderr: "rank R bound to cores {2}" or "rank R not bound (oversubscribed: 4 ranks, 2 cores)"
 * (or another reason in the parentheses: MEMPI_BIND=none, the only rank on this node, a
 * failed sched_setaffinity).
 */
#include "core/core.h"
#include "core/placement.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static cpu_set_t start_set;
static int start_count = -1;          /* CPUs in start_set; -1 until first looked at */
static int cores_available;

/* ---- the cgroup CPU quota -------------------------------------------------------------- */

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

/* Cores allowed by quota/period, rounded up; INT_MAX when unlimited or unreadable. */
static int quota_cores(long long quota, long long period)
{
    if (quota <= 0 || period <= 0)
        return INT_MAX;
    long long n = (quota + period - 1) / period;
    return n > INT_MAX ? INT_MAX : (int)n;
}

static int limit_in_dir(const char *dir, int v2)
{
    char path[PATH_MAX], line[128];
    long long quota = -1, period = 0;
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        if (read_line(path, line, sizeof line) != 0 || strncmp(line, "max", 3) == 0)
            return INT_MAX;
        if (sscanf(line, "%lld %lld", &quota, &period) != 2)
            return INT_MAX;
    } else {
        snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
        if (read_line(path, line, sizeof line) != 0 || sscanf(line, "%lld", &quota) != 1)
            return INT_MAX;
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        if (read_line(path, line, sizeof line) != 0 || sscanf(line, "%lld", &period) != 1)
            return INT_MAX;
    }
    return quota_cores(quota, period);
}

/* The tightest limit on the way from root/rel up to root. */
static int limit_on_path(const char *root, const char *rel, int v2)
{
    char dir[PATH_MAX];
    int best = INT_MAX;
    snprintf(dir, sizeof dir, "%s%s", root, rel);
    size_t root_len = strlen(root);
    for (;;) {
        size_t n = strlen(dir);
        while (n > root_len && dir[n - 1] == '/')
            dir[--n] = '\0';
        int lim = limit_in_dir(dir, v2);
        if (lim < best)
            best = lim;
        char *slash = strrchr(dir, '/');
        if (n <= root_len || slash == NULL || (size_t)(slash - dir) < root_len)
            break;
        *slash = '\0';
    }
    return best;
}

/* Is `name` one of the comma-separated controllers in `list`? */
static int has_controller(const char *list, size_t len, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && list[j] != ',')
            j++;
        if (j - i == nl && strncmp(list + i, name, nl) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

static int cgroup_cpu_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f == NULL)
        return INT_MAX;
    char line[PATH_MAX];
    int best = INT_MAX;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL)
            continue;
        const char *ctrl = c1 + 1, *rel = c2 + 1;
        size_t ctrl_len = (size_t)(c2 - ctrl);
        int lim = INT_MAX;
        if (ctrl_len == 0 && strncmp(line, "0:", 2) == 0) {
            lim = limit_on_path("/sys/fs/cgroup", rel, 1);
        } else if (has_controller(ctrl, ctrl_len, "cpu")) {
            lim = limit_on_path("/sys/fs/cgroup/cpu,cpuacct", rel, 0);
            int l2 = limit_on_path("/sys/fs/cgroup/cpu", rel, 0);
            if (l2 < lim)
                lim = l2;
        }
        if (lim < best)
            best = lim;
    }
    fclose(f);
    return best;
}

/* ---- what the job may use ---------------------------------------------------------------- */

static void look_at_start_set(void)
{
    if (start_count >= 0)
        return;
    CPU_ZERO(&start_set);
    if (sched_getaffinity(0, sizeof start_set, &start_set) != 0) {
        start_count = 0;
        cores_available = 0;               /* unknown: the waiting policy assumes enough */
        return;
    }
    start_count = CPU_COUNT(&start_set);
    int limit = cgroup_cpu_limit();
    cores_available = limit < start_count ? limit : start_count;
}

int mp_cores_available(void)
{
    look_at_start_set();
    return cores_available;
}

/* ---- the plan ---------------------------------------------------------------------------- */

/* Shares n among k packages in proportion to weight[] by the largest-remainder method (ties
 * to the lower index), so the shares add up to n exactly. */
static void share_out(int n, const int *weight, int k, int *share)
{
    long long total = 0;
    for (int i = 0; i < k; i++)
        total += weight[i];
    int given = 0;
    for (int i = 0; i < k; i++) {
        share[i] = total ? (int)((long long)n * weight[i] / total) : (i == 0 ? n : 0);
        given += share[i];
    }
    char *topped = mp_calloc((size_t)k, 1);   /* fewer than k are left: one each at most */
    while (given < n) {
        int best = 0;
        long long best_rem = -1;
        for (int i = 0; i < k; i++) {
            long long rem = total ? ((long long)n * weight[i]) % total : 0;
            if (!topped[i] && rem > best_rem) {
                best = i;
                best_rem = rem;
            }
        }
        share[best]++;
        topped[best] = 1;
        given++;
    }
    free(topped);
}

static int cmp_in_package(const void *a, const void *b)
{
    const mp_cpu *x = a, *y = b;
    if (x->smt != y->smt)
        return x->smt < y->smt ? -1 : 1;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

int mp_placement_plan(const mp_cpu *cpus, int ncpus, int cores, int nranks, int rank, int mode,
                      int *out)
{
    if (ncpus <= 0 || nranks <= 0 || rank < 0 || rank >= nranks || mode == MP_BIND_NONE)
        return 0;
    if (mode == MP_BIND_AUTO) {
        if (nranks > ncpus || (cores > 0 && nranks > cores))
            return 0;
        mode = MP_BIND_CORE;
    }
    int n = nranks, r = rank;
    if (mode == MP_BIND_CORE && n > ncpus) {
        r = rank % ncpus;
        n = ncpus;
    }
    /* packages, in order of id, with their CPU and first-thread counts */
    int *pkg = mp_malloc(sizeof(int) * 3 * (size_t)ncpus);
    int *weight = pkg + ncpus, *share = pkg + 2 * ncpus;
    int npkg = 0, nprimary = 0;
    for (int i = 0; i < ncpus; i++) {
        int seen = 0;
        for (int k = 0; k < npkg; k++)
            seen |= pkg[k] == cpus[i].package;
        if (!seen) {
            int k = npkg++;
            while (k > 0 && pkg[k - 1] > cpus[i].package) {
                pkg[k] = pkg[k - 1];
                k--;
            }
            pkg[k] = cpus[i].package;
        }
        nprimary += cpus[i].smt == 0;
    }
    int primaries_only = mode == MP_BIND_CORE && n <= nprimary;
    for (int k = 0; k < npkg; k++) {
        weight[k] = 0;
        for (int i = 0; i < ncpus; i++)
            if (cpus[i].package == pkg[k] && (!primaries_only || cpus[i].smt == 0))
                weight[k]++;
    }
    share_out(n, weight, npkg, share);
    int k = 0, first = 0;
    while (k < npkg - 1 && r >= first + share[k]) {
        first += share[k];
        k++;
    }
    mp_cpu *mine = mp_malloc(sizeof(mp_cpu) * (size_t)ncpus);
    int nmine = 0;
    for (int i = 0; i < ncpus; i++)
        if (cpus[i].package == pkg[k])
            mine[nmine++] = cpus[i];
    qsort(mine, (size_t)nmine, sizeof *mine, cmp_in_package);
    int count = 0;
    if (mode == MP_BIND_SOCKET) {
        for (int i = 0; i < nmine; i++)
            out[count++] = mine[i].id;
        /* keep ids ascending for printing */
        for (int i = 1; i < count; i++)
            for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
                int t = out[j];
                out[j] = out[j - 1];
                out[j - 1] = t;
            }
    } else {
        out[count++] = mine[(r - first) % nmine].id;
    }
    free(mine);
    free(pkg);
    return count;
}

/* ---- applying it ------------------------------------------------------------------------- */

static int topology_value(int cpu, const char *what, int fallback)
{
    char path[128], line[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    int v;
    if (read_line(path, line, sizeof line) != 0 || sscanf(line, "%d", &v) != 1 || v < 0)
        return fallback;
    return v;
}

/* The CPUs of the start mask with their package, core and thread index. */
static int read_topology(mp_cpu *cpus)
{
    int n = 0;
    for (int id = 0; id < CPU_SETSIZE && n < start_count; id++) {
        if (!CPU_ISSET(id, &start_set))
            continue;
        mp_cpu c = { id, topology_value(id, "physical_package_id", 0),
                     topology_value(id, "core_id", id), 0 };
        for (int i = 0; i < n; i++)
            c.smt += cpus[i].package == c.package && cpus[i].core == c.core;
        cpus[n++] = c;
    }
    return n;
}

/* "0-3,8,10": runs of three or more as ranges. */
static void format_cpus(const int *ids, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        int j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        int w;
        if (j >= i + 2) {
            w = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", ids[i], ids[j]);
            i = j;
        } else {
            w = snprintf(buf + used, len - used, "%s%d", used ? "," : "", ids[i]);
        }
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

int mp_placement_apply(void)
{
    int mode = mp_cfg.bind;
    look_at_start_set();
    int rank = mp_world.rank, nranks = mp_world.local_size;
    if (start_count <= 0) {
        if (mp_cfg.report_bindings)
            fprintf(stderr, "rank %d not bound (the affinity mask is unreadable)\n", rank);
        return MPI_SUCCESS;
    }
    mp_cpu *cpus = mp_malloc(sizeof(mp_cpu) * (size_t)start_count);
    int *ids = mp_malloc(sizeof(int) * (size_t)start_count);
    int ncpus = read_topology(cpus);
    /* A lone rank gains nothing from binding, and several single-rank jobs (singletons
     * started without mpiexec) would all land on the first CPU. */
    int lone = nranks == 1 && mode == MP_BIND_AUTO;
    /* Other nodes of the job on this machine (namespaces, containers) would bind their ranks
     * to the same first cores as ours: in auto mode leave the scheduler to spread them. */
    int shared = mp_nodes_machine_size() > nranks && mode == MP_BIND_AUTO;
    int count = lone || shared ? 0 : mp_placement_plan(cpus, ncpus, cores_available, nranks,
                                             mp_world.local_rank, mode, ids);
    int err = MPI_SUCCESS;
    char text[256];
    if (count > 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int i = 0; i < count; i++)
            CPU_SET(ids[i], &set);
        format_cpus(ids, count, text, sizeof text);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            int e = errno;
            if (mode != MP_BIND_AUTO)
                err = mp_error_code(MPI_ERR_OTHER, "MEMPI_BIND: cannot bind rank %d to CPUs "
                                    "{%s}: %s", rank, text, strerror(e));
            if (mp_cfg.report_bindings)
                fprintf(stderr, "rank %d not bound (binding to {%s} failed: %s)\n", rank, text,
                        strerror(e));
        } else if (mp_cfg.report_bindings) {
            fprintf(stderr, "rank %d bound to cores {%s}\n", rank, text);
        }
    } else if (mp_cfg.report_bindings) {
        if (mode == MP_BIND_NONE)
            fprintf(stderr, "rank %d not bound (MEMPI_BIND=none)\n", rank);
        else if (lone)
            fprintf(stderr, "rank %d not bound (the only rank on this node)\n", rank);
        else if (shared)
            fprintf(stderr, "rank %d not bound (other nodes of the job share this machine: "
                    "%d ranks on it)\n", rank, mp_nodes_machine_size());
        else
            fprintf(stderr, "rank %d not bound (oversubscribed: %d ranks, %d cores)\n", rank,
                    nranks, cores_available);
    }
    if (mp_cfg.verbose && count > 0 && err == MPI_SUCCESS && rank == 0)
        fprintf(stderr, "MemPI: placement: rank 0 bound to CPUs {%s} (MEMPI_BIND=%s)\n", text,
                mp_config_current("MEMPI_BIND"));
    free(ids);
    free(cpus);
    return err;
}

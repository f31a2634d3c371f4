/* options.c -- mpiexec's command line and MPIEXEC_TIMEOUT, parsed strictly.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Options come before the program; the first word that is not an option (or
 * the word after `--`) is the program.  Anything malformed -- a count that is
 * not a plain positive integer, an --env without NAME=, an unknown option --
 * is reported in one line naming the option and the value, and mpiexec exits
 * with status 2 without starting anything.  Multi-node options are
 * recognised only to say that this launcher does not do that yet.
 */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MEMPI_VERSION
#define MEMPI_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpiexec [options] program [args...]\n"
            "Start an MPI job of N processes on this node (MemPI launcher, PMI-1 server).\n"
            "\n"
            "  -n N, -np N              number of processes (default 1)\n"
            "  --env NAME=VALUE         set an environment variable in every process\n"
            "  -env NAME VALUE          same (also -genv NAME VALUE)\n"
            "  --tag-output, -l         prefix every output line with \"[rank] \"\n"
            "  --timeout S              kill the job after S seconds and exit 124\n"
            "                           (default: $MPIEXEC_TIMEOUT, or none)\n"
            "  -usize N, --universe-size N\n"
            "                           MPI_UNIVERSE_SIZE: how many processes the job and\n"
            "                           the jobs it spawns may use (default: the larger of\n"
            "                           N and this host's online cores, its slots)\n"
            "  --report-bindings        every process prints one line to stderr at\n"
            "                           MPI_Init: the cores it is bound to, or why not\n"
            "                           (sets MEMPI_REPORT_BINDINGS=1; see MEMPI_BIND)\n"
            "  -h, --help               this text\n"
            "  --version                print the version\n"
            "\n"
            "Exit status: 0 if every process exits 0; else the first failing process's\n"
            "exit code, 128+N if it was killed by signal N, 124 on timeout, 2 on bad usage.\n");
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "mpiexec: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see mpiexec --help)\n");
    return 2;
}

static int env_name_is_valid(const char *s, size_t len)
{
    if (len == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* Seconds: digits with an optional fraction, no sign, no exponent. */
static int parse_seconds(const char *s, double *out)
{
    char *end;
    size_t i = 0, digits = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (s[i] == '.')
        for (i++; s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (digits == 0 || s[i] != '\0')
        return -1;
    errno = 0;
    *out = strtod(s, &end);
    if (errno != 0 || *end != '\0' || *out > 1e7)
        return -1;
    return 0;
}

static int add_env(mp_options *opt, const char *name, size_t name_len, const char *value)
{
    char **env = realloc(opt->env, (size_t)(opt->nenv + 1) * sizeof *env);
    if (env == NULL)
        return -1;
    opt->env = env;
    size_t n = name_len + strlen(value) + 2;
    char *s = malloc(n);
    if (s == NULL)
        return -1;
    snprintf(s, n, "%.*s=%s", (int)name_len, name, value);
    opt->env[opt->nenv++] = s;
    return 0;
}

static int is_multinode_option(const char *a)
{
    static const char *const names[] = { "-host", "-hosts", "--host", "--hosts", "-f",
                                          "-hostfile", "--hostfile", "-machinefile",
                                          "--machinefile", "-ppn", "--ppn", NULL };
    for (int i = 0; names[i]; i++)
        if (strcmp(a, names[i]) == 0)
            return 1;
    return 0;
}

/* Several hosts: MemPI's own launcher is single-host, so the job goes to MPICH's Hydra with
 * the same arguments (MemPI speaks Hydra's PMI-1 wire protocol, see docs/architecture.md).
 * Returns only when mpiexec.hydra cannot be started. */
static int hand_to_hydra(char **argv, const char *option)
{
    fflush(stdout);
    fflush(stderr);
    argv[0] = (char *)"mpiexec.hydra";
    execvp("mpiexec.hydra", argv);
    fprintf(stderr, "mpiexec: option %s starts a multi-node job, which MemPI's mpiexec "
                    "hands to MPICH's Hydra launcher, but mpiexec.hydra cannot be run (%s); "
                    "install Debian's mpich package (apt-get install mpich), or start the job "
                    "with srun --mpi=pmi2 under Slurm\n", option, strerror(errno));
    return 2;
}

static int push(char ***list, int *n, const char *s)
{
    char **l = realloc(*list, (size_t)(*n + 2) * sizeof *l);
    if (l == NULL)
        return -1;
    *list = l;
    l[(*n)++] = (char *)s;
    l[*n] = NULL;
    return 0;
}

static mp_app *new_app(mp_options *opt)
{
    mp_app *a = realloc(opt->apps, (size_t)(opt->napps + 1) * sizeof *a);
    if (a == NULL)
        return NULL;
    opt->apps = a;
    memset(&a[opt->napps], 0, sizeof *a);
    a[opt->napps].nprocs = 1;
    return &a[opt->napps++];
}

/* MPI_UNIVERSE_SIZE when -usize is not given: the slots of this host (one per online core),
 * or the job's size when it has more processes than that.  A spawned job gets its parent's. */
static void default_universe(mp_options *opt)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (opt->universe == 0)
        opt->universe = opt->nprocs > cores ? opt->nprocs : cores;
}

/* The launcher of a spawned job (spawn.c starts it): options only, each program given as
 *   -n N [--wdir DIR] [--appenv NAME=VALUE]... --argc K PROGRAM ARG1..ARGK
 * after the job's --spawned, --job-id HEX (chosen by the parent's launcher), --parent-failfd
 * FD (the parent job's failure board, inherited) and --preput KEY=VALUE options.  Not for users: no usage text. */
static int parse_spawned(int argc, char **argv, int i, mp_options *opt)
{
    mp_app *app = NULL;
    long n;
    for (; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (app == NULL && (app = new_app(opt)) == NULL)
            return usage_error("out of memory%s%s", "", "");
        if (next == NULL)
            return usage_error("option %s needs a value%s", a, "");
        if (strcmp(a, "--preput") == 0) {
            if (push(&opt->preput, &opt->npreput, next) < 0)
                return usage_error("out of memory%s%s", "", "");
        } else if (strcmp(a, "--universe-size") == 0) {
            if (mp_pmi_parse_long(next, 1, 1L << 30, &opt->universe) < 0)
                return usage_error("invalid universe size '%s' for %s", next, a);
        } else if (strcmp(a, "--job-id") == 0) {
            if (strlen(next) != 32 || strspn(next, "0123456789abcdef") != 32)
                return usage_error("invalid job id '%s' for %s", next, a);
            opt->job_id = next;
        } else if (strcmp(a, "--parent-failfd") == 0) {
            long fd;
            if (mp_pmi_parse_long(next, 3, 1L << 20, &fd) < 0)
                return usage_error("invalid descriptor '%s' for %s", next, a);
            opt->parent_failfd = (int)fd;
        } else if (strcmp(a, "-n") == 0) {
            if (mp_pmi_parse_long(next, 1, MP_MPIEXEC_MAX_RANKS, &n) < 0)
                return usage_error("invalid process count '%s' for %s", next, a);
            app->nprocs = n;
        } else if (strcmp(a, "--wdir") == 0) {
            app->wdir = next;
        } else if (strcmp(a, "--appenv") == 0) {
            if (strchr(next, '=') == NULL || push(&app->env, &app->nenv, next) < 0)
                return usage_error("option %s needs NAME=VALUE, got '%s'", a, next);
        } else if (strcmp(a, "--argc") == 0) {
            if (mp_pmi_parse_long(next, 0, 1 << 20, &n) < 0 || i + 2 + n > argc)
                return usage_error("invalid argument count '%s' for %s", next, a);
            int count = 0;
            for (long k = 0; k <= n; k++)
                if (push(&app->argv, &count, argv[i + 2 + k]) < 0)
                    return usage_error("out of memory%s%s", "", "");
            i += 2 + (int)n;
            app = NULL;
            continue;
        } else {
            return usage_error("unknown option '%s' of a spawned job%s", a, "");
        }
        i++;
    }
    if (app != NULL || opt->napps == 0)
        return usage_error("a spawned job's last program has no --argc%s%s", "", "");
    opt->nprocs = 0;
    for (int k = 0; k < opt->napps; k++)
        opt->nprocs += opt->apps[k].nprocs;
    if (opt->nprocs > MP_MPIEXEC_MAX_RANKS)
        return usage_error("too many processes%s%s", "", "");
    opt->argv = opt->apps[0].argv;
    default_universe(opt);
    return -1;
}

static int timeout_from_env(mp_options *opt)
{
    const char *s = getenv("MPIEXEC_TIMEOUT");
    if (s == NULL || s[0] == '\0')
        return 0;
    if (parse_seconds(s, &opt->timeout) < 0)
        return usage_error("invalid MPIEXEC_TIMEOUT='%s'%s: expected seconds, e.g. 60 or 2.5", s, "");
    return 0;
}

int mp_options_parse(int argc, char **argv, mp_options *opt, int *done)
{
    int i, have_n = 0, have_timeout = 0;
    long n;

    memset(opt, 0, sizeof *opt);
    opt->nprocs = 1;
    opt->parent_failfd = -1;
    opt->serve_fd = -1;
    *done = 0;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--spawned") == 0) {
            opt->spawned = 1;
            int rc = parse_spawned(argc, argv, i + 1, opt);
            if (rc < 0 && !have_timeout)
                rc = timeout_from_env(opt);
            return rc == 0 ? -1 : rc;
        } else if (strcmp(a, "--serve-singleton") == 0) {
            /* --serve-singleton FD BOARDFD USIZE: a singleton's spawner (src/core/pmi.c runs
             * it, spawn.c serves).  Not for users: no usage text. */
            long fd, board;
            if (argc != i + 4 || mp_pmi_parse_long(argv[i + 1], 3, 1L << 20, &fd) < 0 ||
                mp_pmi_parse_long(argv[i + 2], 3, 1L << 20, &board) < 0 ||
                mp_pmi_parse_long(argv[i + 3], 1, 1L << 30, &opt->universe) < 0)
                return usage_error("--serve-singleton needs FD BOARDFD USIZE%s%s", "", "");
            opt->serve_fd = (int)fd;
            opt->serve_board = (int)board;
            return -1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            *done = 1;
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("mpiexec (MemPI) %s\n", MEMPI_VERSION);
            *done = 1;
            return 0;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 || strcmp(a, "--n") == 0 ||
                   strcmp(a, "--np") == 0) {
            if (next == NULL)
                return usage_error("option %s needs a process count%s", a, "");
            if (have_n)
                return usage_error("option %s given twice%s", a, "");
            if (mp_pmi_parse_long(next, 1, MP_MPIEXEC_MAX_RANKS, &n) < 0 || next[0] == '-')
                return usage_error("invalid process count '%s' for %s (expected 1..4096)", next, a);
            opt->nprocs = n;
            have_n = 1;
            i++;
        } else if (strcmp(a, "--env") == 0 || strcmp(a, "-x") == 0) {
            const char *eq = next ? strchr(next, '=') : NULL;
            if (eq == NULL || !env_name_is_valid(next, (size_t)(eq - next)))
                return usage_error("option %s needs NAME=VALUE, got '%s'", a, next ? next : "");
            if (add_env(opt, next, (size_t)(eq - next), eq + 1) < 0)
                return usage_error("out of memory%s%s", "", "");
            i++;
        } else if (strcmp(a, "-env") == 0 || strcmp(a, "-genv") == 0) {
            if (next == NULL || i + 2 >= argc)
                return usage_error("option %s needs NAME and VALUE%s", a, "");
            if (!env_name_is_valid(next, strlen(next)))
                return usage_error("invalid environment variable name '%s' for %s", next, a);
            if (add_env(opt, next, strlen(next), argv[i + 2]) < 0)
                return usage_error("out of memory%s%s", "", "");
            i += 2;
        } else if (strcmp(a, "--tag-output") == 0 || strcmp(a, "-l") == 0 ||
                   strcmp(a, "-prepend-rank") == 0) {
            opt->tag_output = 1;
        } else if (strcmp(a, "--timeout") == 0 || strcmp(a, "-timeout") == 0) {
            if (next == NULL || parse_seconds(next, &opt->timeout) < 0)
                return usage_error("invalid timeout '%s' for %s (expected seconds, e.g. 60 or 2.5)",
                                   next ? next : "", a);
            have_timeout = 1;
            i++;
        } else if (strcmp(a, "--report-bindings") == 0 || strcmp(a, "-report-bindings") == 0) {
            if (add_env(opt, "MEMPI_REPORT_BINDINGS", strlen("MEMPI_REPORT_BINDINGS"), "1") < 0)
                return usage_error("out of memory%s%s", "", "");
        } else if (strcmp(a, "-usize") == 0 || strcmp(a, "--universe-size") == 0) {
            if (next == NULL || mp_pmi_parse_long(next, 1, 1L << 30, &opt->universe) < 0)
                return usage_error("invalid universe size '%s' for %s (expected a positive "
                                   "count)", next ? next : "", a);
            i++;
        } else if (strcmp(a, "--pmi-port") == 0) {
            opt->pmi_port = 1;
        } else if (is_multinode_option(a)) {
            return hand_to_hydra(argv, a);
        } else {
            return usage_error("unknown option '%s'%s", a, "");
        }
    }
    if (i >= argc)
        return usage_error("no program to run%s%s", "", "");
    if (argv[i][0] == '\0')
        return usage_error("empty program name%s%s", "", "");
    opt->argv = argv + i;
    mp_app *app = new_app(opt);
    if (app == NULL)
        return usage_error("out of memory%s%s", "", "");
    app->nprocs = opt->nprocs;
    app->argv = opt->argv;
    default_universe(opt);
    if (!have_timeout) {
        int rc = timeout_from_env(opt);
        if (rc != 0)
            return rc;
    }
    return -1;
}

void mp_options_free(mp_options *opt)
{
    for (int i = 0; i < opt->nenv; i++)
        free(opt->env[i]);
    free(opt->env);
    opt->env = NULL;
    opt->nenv = 0;
    for (int k = 0; k < opt->napps; k++) {
        if (opt->spawned)
            free(opt->apps[k].argv);
        free(opt->apps[k].env);
    }
    free(opt->apps);
    free(opt->preput);
    opt->apps = NULL;
    opt->napps = 0;
}

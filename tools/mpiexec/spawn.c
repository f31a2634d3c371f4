/* spawn.c -- PMI-1 spawn: MPI_Comm_spawn(_multiple) starts a nested job.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * The request is MPICH's PMI-1 multi-line command, so the library's one client serves under
 * Hydra too: per command of MPI_Comm_spawn_multiple, a block of lines
 *
 *     mcmd=spawn
 *     nprocs=N  execname=PROG  totspawns=T  spawnssofar=I  argcnt=K  arg1=... argK=...
 *     preput_num=P  preput_key_0=... preput_val_0=...   info_num=M  info_key_0=... info_val_0=...
 *     endcmd
 *
 * (one key=value per line, the value raw up to the end of the line), and after the T-th
 * block one answer: cmd=spawn_result rc=0 (or rc=-1 msg=why); ours adds the new job's id
 * (MP_FAILBOARD_JOBKEY), which the parents watch on the failure board while they wait for the
 * children to connect.
 *
 * The children are one new MPI job (their own MPI_COMM_WORLD, key-value space and job id):
 * this mpiexec starts a second mpiexec (itself, /proc/self/exe) with the hidden --spawned
 * options (options.c), one program per command with its process count, the info keys wdir
 * (working directory), path (directories searched for the program), env (NAME=VALUE
 * assignments separated by newlines or spaces), host (only this host: "localhost" or its
 * name; another is refused) and soft (accepted; all maxprocs are started), and the preput
 * keys (PARENT_ROOT_PORT_NAME: the port the parent accepts on) in the new job's store; our
 * --env assignments hold for the children too.  The
 * nested launcher shares our stdout and stderr (the children's output is forwarded like the
 * parents'), dies with us (PR_SET_PDEATHSIG) and gets our signals (mp_spawn_signal); we wait
 * for it like for a rank.  A spawned job that fails -- a child killed, exiting non-zero,
 * aborting -- is ended by its own launcher, which names the child on stderr and posts the
 * same sentence on our job's failure board (src/core/failboard.h; we pass the board's
 * descriptor and the job id we chose for it).  We add one line and leave the parents
 * running: their library reads the board and their error handlers decide -- the default,
 * MPI_ERRORS_ARE_FATAL, ends this job naming the child; MPI_ERRORS_RETURN makes their
 * communication with the dead job return errors (src/comm/dynamic.c).
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct mp_spawned {
    pid_t pid;
    int alive;
    int parent_rank;
    char what[96];
    char job_id[33];              /* the nested job's id (we choose it) */
} mp_spawned;

typedef struct cmd {
    long nprocs;
    char *execname, *wdir, *path, *env, *host;
    char **args;
    int nargs;
} cmd;

typedef struct request {          /* a spawn being received on one connection */
    int in_block;                 /* between mcmd=spawn and endcmd */
    long total;                   /* totspawns (0: unknown yet) */
    cmd *cmds;
    int ncmds;
    char **preput;                /* KEY=VALUE */
    int npreput;
    char *last_key;               /* preput_key_/info_key_ waiting for its value */
    int last_is_info;
    const char *error;
} request;

static request *requests;         /* [conn] */

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void request_clear(request *r)
{
    for (int i = 0; i < r->ncmds; i++) {
        cmd *c = &r->cmds[i];
        free(c->execname);
        free(c->wdir);
        free(c->path);
        free(c->env);
        free(c->host);
        for (int k = 0; k < c->nargs; k++)
            free(c->args[k]);
        free(c->args);
    }
    for (int i = 0; i < r->npreput; i++)
        free(r->preput[i]);
    free(r->cmds);
    free(r->preput);
    free(r->last_key);
    memset(r, 0, sizeof *r);
}

static int grow(void *pp, int n, size_t size)
{
    void **p = pp;
    void *q = realloc(*p, (size_t)(n + 1) * size);
    if (q == NULL)
        return -1;
    *p = q;
    memset((char *)q + (size_t)n * size, 0, size);
    return 0;
}

/* One key=value line of the current block. */
static void block_line(request *r, const char *key, const char *value)
{
    cmd *c = &r->cmds[r->ncmds - 1];
    long v;
    if (strcmp(key, "nprocs") == 0) {
        if (mp_pmi_parse_long(value, 1, MP_MPIEXEC_MAX_RANKS, &v) < 0)
            r->error = "invalid nprocs";
        c->nprocs = v;
    } else if (strcmp(key, "execname") == 0) {
        c->execname = strdup(value);
    } else if (strcmp(key, "totspawns") == 0) {
        if (mp_pmi_parse_long(value, 1, 4096, &v) < 0)
            r->error = "invalid totspawns";
        r->total = v;
    } else if (strncmp(key, "arg", 3) == 0 && key[3] >= '1' && key[3] <= '9') {
        if (grow(&c->args, c->nargs, sizeof *c->args) == 0)
            c->args[c->nargs++] = strdup(value);
    } else if (strncmp(key, "preput_key_", 11) == 0 || strncmp(key, "info_key_", 9) == 0) {
        free(r->last_key);
        r->last_key = strdup(value);
        r->last_is_info = key[0] == 'i';
    } else if ((strncmp(key, "preput_val_", 11) == 0 || strncmp(key, "info_val_", 9) == 0) &&
               r->last_key != NULL) {
        if (!r->last_is_info && r->ncmds > 1) {
            /* every block repeats the job's preput pairs: the first block's count */
        } else if (!r->last_is_info) {
            size_t n = strlen(r->last_key) + strlen(value) + 2;
            char *kv = malloc(n);
            if (kv && grow(&r->preput, r->npreput, sizeof *r->preput) == 0) {
                snprintf(kv, n, "%s=%s", r->last_key, value);
                r->preput[r->npreput++] = kv;
            } else {
                free(kv);
            }
        } else {
            char **slot = strcmp(r->last_key, "wdir") == 0 ? &c->wdir
                        : strcmp(r->last_key, "path") == 0 ? &c->path
                        : strcmp(r->last_key, "env") == 0  ? &c->env
                        : strcmp(r->last_key, "host") == 0 ? &c->host : NULL;
            if (slot) {
                free(*slot);
                *slot = strdup(value);
            }
        }
        free(r->last_key);
        r->last_key = NULL;
    }
    /* spawnssofar, argcnt, preput_num, info_num: implied by the lines themselves */
}

static int is_this_host(const char *host)
{
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    size_t n = strlen(me);
    return strcmp(host, "localhost") == 0 || strcmp(host, me) == 0 ||
           (strncmp(host, me, n) == 0 && host[n] == '.') ||
           (strchr(me, '.') && strncmp(host, me, (size_t)(strchr(me, '.') - me)) == 0 &&
            host[strchr(me, '.') - me] == '\0');
}

/* The program as the child will exec it: found in `path` when the name has no '/'. */
static char *resolve(const cmd *c)
{
    if (c->path == NULL || strchr(c->execname, '/') != NULL)
        return strdup(c->execname);
    const char *p = c->path;
    while (*p) {
        size_t len = strcspn(p, ":");
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, c->execname);
        if (access(buf, X_OK) == 0)
            return strdup(buf);
        p += len + (p[len] == ':');
    }
    return strdup(c->execname);
}

typedef struct argv_list {
    char **v;
    int n;
    int failed;
} argv_list;

static void add(argv_list *a, const char *s)
{
    if (a->failed || grow(&a->v, a->n + 1, sizeof *a->v) < 0 || (s && !(s = strdup(s)))) {
        a->failed = 1;
        return;
    }
    a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
}

static void add_long(argv_list *a, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    add(a, text);
}

/* The nested launcher's command line (options.c, parse_spawned). */
static const char *build_argv(mp_job *job, request *r, const char *job_id, argv_list *a)
{
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return "cannot find mpiexec's own executable";
    self[n] = '\0';
    add(a, self);
    add(a, "--spawned");
    add(a, "--universe-size");                    /* a spawned job shares the universe */
    add_long(a, job->opt->universe);
    add(a, "--job-id");
    add(a, job_id);
    add(a, "--parent-failfd");
    add_long(a, job->board_fd);
    for (int i = 0; i < r->npreput; i++) {
        add(a, "--preput");
        add(a, r->preput[i]);
    }
    for (int i = 0; i < r->ncmds; i++) {
        cmd *c = &r->cmds[i];
        if (c->execname == NULL || c->nprocs < 1)
            return "a command without execname or nprocs";
        if (c->host && !is_this_host(c->host))
            return "info key host names another host; MemPI's mpiexec starts processes on "
                   "this host only";
        add(a, "-n");
        add_long(a, c->nprocs);
        if (c->wdir) {
            add(a, "--wdir");
            add(a, c->wdir);
        }
        if (c->env) {
            for (char *tok = strtok(c->env, " \n"); tok; tok = strtok(NULL, " \n")) {
                if (strchr(tok, '=') == NULL)
                    return "info key env: expected NAME=VALUE assignments";
                add(a, "--appenv");
                add(a, tok);
            }
        }
        add(a, "--argc");
        add_long(a, c->nargs);
        char *prog = resolve(c);
        int found;
        if (prog && strchr(prog, '/') && prog[0] != '/' && c->wdir) {
            char full[8192];
            snprintf(full, sizeof full, "%s/%s", c->wdir, prog);
            found = access(full, X_OK) == 0;
        } else {
            found = prog && mp_find_program(prog) == 0;
        }
        add(a, prog);
        free(prog);
        if (!found)
            return "the program to spawn does not exist or is not executable";
        for (int k = 0; k < c->nargs; k++)
            add(a, c->args[k]);
    }
    return a->failed ? "out of memory" : NULL;
}

static const char *start(mp_job *job, int conn, request *r, char job_id[33])
{
    argv_list a = { NULL, 0, 0 };
    const char *why = mp_make_job_id(job_id) < 0 ? "getrandom failed"
                                                 : build_argv(job, r, job_id, &a);
    if (why == NULL && grow(&job->spawned, job->nspawned, sizeof *job->spawned) < 0)
        why = "out of memory";
    pid_t launcher = getpid(), pid = -1;
    if (why == NULL && (pid = fork()) < 0)
        why = "fork failed";
    if (pid == 0) {
        mp_child_setup(launcher);
        for (int i = 0; i < job->opt->nenv; i++)
            putenv(job->opt->env[i]);     /* --env applies to spawned processes too */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execv(a.v[0], a.v);
        dprintf(2, "mpiexec: cannot start the launcher of a spawned job: %s\n", strerror(errno));
        _exit(127);
    }
    if (why == NULL) {
        setpgid(pid, pid);
        mp_spawned *s = &job->spawned[job->nspawned++];
        s->pid = pid;
        s->alive = 1;
        s->parent_rank = job->conns[conn].rank;
        snprintf(s->what, sizeof s->what, "'%s'%s", r->cmds[0].execname,
                 r->ncmds > 1 ? " and others" : "");
        memcpy(s->job_id, job_id, sizeof s->job_id);
        job->nalive++;
    }
    for (int i = 0; i < a.n; i++)
        free(a.v[i]);
    free(a.v);
    return why;
}

int mp_spawn_line(mp_job *job, int conn, const char *line, size_t len)
{
    if (requests == NULL && (requests = calloc((size_t)job->n, sizeof *requests)) == NULL)
        return 0;
    request *r = &requests[conn];
    if (!r->in_block) {
        if (len != 10 || memcmp(line, "mcmd=spawn", 10) != 0)
            return 0;
        r->in_block = 1;
        if (grow(&r->cmds, r->ncmds, sizeof *r->cmds) < 0)
            r->error = "out of memory";
        else
            r->ncmds++;
        return 1;
    }
    if (len == 6 && memcmp(line, "endcmd", 6) == 0) {
        r->in_block = 0;
        if (r->total == 0 || r->ncmds < r->total)
            return 1;                 /* more blocks follow */
        char job_id[33] = "";
        const char *why = r->error ? r->error : start(job, conn, r, job_id);
        mp_pmi_server_reply_kv(job, conn, "spawn_result", why ? -1 : 0, why,
                               why ? NULL : MP_FAILBOARD_JOBKEY, job_id);
        request_clear(r);
        return 1;
    }
    const char *eq = memchr(line, '=', len);
    if (eq == NULL) {
        r->error = "a spawn line without '='";
        return 1;
    }
    char *key = dup_n(line, (size_t)(eq - line));
    char *value = dup_n(eq + 1, len - (size_t)(eq - line) - 1);
    if (key && value && r->ncmds > 0)
        block_line(r, key, value);
    free(key);
    free(value);
    return 1;
}

int mp_spawn_reaped(mp_job *job, pid_t pid, int status)
{
    for (int i = 0; i < job->nspawned; i++) {
        mp_spawned *s = &job->spawned[i];
        if (s->pid != pid || !s->alive)
            continue;
        s->alive = 0;
        job->nalive--;
        char how[64];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
        else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            snprintf(how, sizeof how, "failed with exit status %d", WEXITSTATUS(status));
        else
            return 1;
        /* The nested launcher posted its own record naming the child, unless it died first;
         * either way the parents' error handlers decide (src/comm/dynamic.c), not we. */
        const char *text;
        if (!mp_failboard_find(job->board, s->job_id, &text)) {
            char own[MP_FAILBOARD_TEXT];
            snprintf(own, sizeof own, "its launcher (pid %ld) %s", (long)pid, how);
            mp_failboard_post(job->board, s->job_id, own);
        }
        fprintf(stderr, "mpiexec%s: the job that rank %d spawned (%s, launcher pid %ld) %s; "
                "its parents were told\n", job->opt->spawned ? " (a job started by "
                "MPI_Comm_spawn)" : "", s->parent_rank, s->what, (long)pid, how);
        fflush(stderr);
        return 1;
    }
    return 0;
}

int mp_failboard_setup(mp_job *job)
{
    job->board_fd = memfd_create("mempi-failboard", 0);     /* the ranks inherit it */
    if (job->board_fd < 0 || ftruncate(job->board_fd, sizeof(mp_failboard)) < 0 ||
        (job->board = mmap(NULL, sizeof(mp_failboard), PROT_READ | PROT_WRITE, MAP_SHARED,
                           job->board_fd, 0)) == MAP_FAILED) {
        fprintf(stderr, "mpiexec: cannot create the failure board: %s\n", strerror(errno));
        return -1;
    }
    atomic_store(&job->board->magic, MP_FAILBOARD_MAGIC);
    int pfd = job->opt->parent_failfd;
    if (pfd >= 0) {
        void *p = mmap(NULL, sizeof(mp_failboard), PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
        if (p == MAP_FAILED || atomic_load(&((mp_failboard *)p)->magic) != MP_FAILBOARD_MAGIC) {
            fprintf(stderr, "mpiexec: descriptor %d is not the parent's failure board\n", pfd);
            return -1;
        }
        job->parent_board = p;
        close(pfd);                   /* the mapping stays; our ranks must not inherit it */
    }
    return 0;
}

void mp_spawn_sweep(const mp_job *job)
{
    for (int i = 0; i < job->nspawned; i++)
        mp_job_sweep(job->spawned[i].job_id);
}

void mp_spawn_signal(mp_job *job, int sig)
{
    for (int i = 0; i < job->nspawned; i++)
        if (job->spawned[i].alive)
            kill(job->spawned[i].pid, sig);
}

/* A singleton (a process started without a launcher) runs `mpiexec --serve-singleton` when it
 * first spawns (src/core/pmi.c): we play its launcher's part for spawning only.  It sends the
 * same mcmd=spawn blocks on the socket it gave us and gets the same answer; we start each
 * nested launcher with the singleton's failure board (it created the memfd, we inherited it)
 * and its universe size, wait for them, post for one that dies before it could, and forward
 * SIGINT/SIGTERM/SIGHUP to them.  The singleton closing the socket (its MPI_Finalize, or its
 * death) ends the service; we exit once the jobs it spawned have ended. */
int mp_spawn_serve(mp_options *opt)
{
    mp_job job;
    mp_rank singleton = { .rank = 0, .conn = 0, .out.fd = -1, .err.fd = -1 };
    mp_conn conn = { .fd = opt->serve_fd, .rank = 0 };
    int finalized = 0;
    memset(&job, 0, sizeof job);
    job.opt = opt;
    job.n = 1;
    job.ranks = &singleton;
    job.conns = &conn;
    job.nconns = 1;
    job.listen_fd = job.stdin_pipe = -1;
    job.board_fd = opt->serve_board;
    job.board = mmap(NULL, sizeof(mp_failboard), PROT_READ | PROT_WRITE, MAP_SHARED,
                     job.board_fd, 0);
    if (job.board == MAP_FAILED || atomic_load(&job.board->magic) != MP_FAILBOARD_MAGIC) {
        fprintf(stderr, "mpiexec: descriptor %d is not the singleton's failure board\n",
                job.board_fd);
        return 1;
    }
    fcntl(conn.fd, F_SETFD, FD_CLOEXEC);      /* the nested launchers must not hold it */
    if (mp_setup_signals(&job) < 0) {
        fprintf(stderr, "mpiexec: cannot set up: %s\n", strerror(errno));
        return 1;
    }
    while (conn.fd >= 0 || job.nalive > 0) {
        struct pollfd p[2] = { { job.sigfd, POLLIN, 0 }, { conn.fd, POLLIN, 0 } };
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        if (p[0].revents) {
            struct signalfd_siginfo si;
            if (read(job.sigfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGCHLD)
                mp_spawn_signal(&job, (int)si.ssi_signo);
            int status;
            pid_t pid;
            while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
                mp_spawn_reaped(&job, pid, status);
        }
        if (conn.fd >= 0 && p[1].revents) {
            ssize_t n = read(conn.fd, conn.in + conn.in_len, sizeof conn.in - conn.in_len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || (conn.in_len += (size_t)n) == sizeof conn.in) {
                mp_pmi_server_close(&job, 0);
                if (!finalized)       /* the singleton died: its children go with it */
                    mp_spawn_signal(&job, SIGKILL);
                continue;
            }
            char *start = conn.in, *nl;
            while (conn.fd >= 0 &&
                   (nl = memchr(start, '\n', conn.in_len - (size_t)(start - conn.in)))) {
                if ((size_t)(nl - start) == 12 && memcmp(start, "cmd=finalize", 12) == 0)
                    finalized = 1;
                else if (!mp_spawn_line(&job, 0, start, (size_t)(nl - start)))
                    mp_pmi_server_reply(&job, 0, "spawn_result", -1,
                                        "a singleton's launcher serves only spawn requests");
                start = nl + 1;
            }
            conn.in_len -= (size_t)(start - conn.in);
            memmove(conn.in, start, conn.in_len);
        }
    }
    mp_spawn_sweep(&job);
    return 0;
}

/* job.c -- the launcher's event loop, failure containment and exit status.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * One poll() loop waits on: a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP),
 * every rank's PMI connection, stdout and stderr pipes, our stdin and rank
 * 0's stdin pipe, and (with --pmi-port) the listening socket.  The loop ends
 * when every rank has been reaped and its output drained.
 *
 * Failure containment.  The first failure -- a rank killed by a signal, a
 * non-zero exit, cmd=abort, a rank exiting after PMI init without
 * cmd=finalize, a PMI protocol error, the timeout -- is reported in ONE
 * stderr line and fixes the exit status; every rank's process group then
 * gets SIGTERM, and KILL_GRACE seconds later SIGKILL.  Both deadlines are
 * poll() timeouts, so the job is gone within about half a second of the
 * failure however the ranks behave (SIGKILL cannot be ignored), and no
 * later failure (the SIGTERMed ranks) is reported.
 *
 * A rank that exits 0 without ever speaking PMI is fine on its own (`mpiexec -n 2 hostname`),
 * but not once another rank has spoken PMI: that rank is in MPI_Init or later, and MPI_Init
 * waits for every rank, so the job could only hang until --timeout.  Whichever of the two
 * events comes second ends the job, naming the rank that never initialised.
 *
 * Before a dead rank is judged, its PMI socket is drained: a cmd=abort or
 * cmd=finalize it wrote just before exiting is therefore always seen, which
 * makes the report deterministic.
 *
 * Output still buffered in pipes is drained after the last rank is reaped,
 * for at most DRAIN_LIMIT seconds (a grandchild may hold a pipe open).
 */
#include "mpiexec.h"

#include <dirent.h>
#include <errno.h>
#include <sys/mman.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KILL_GRACE  0.4   /* seconds between SIGTERM and SIGKILL */
#define DRAIN_LIMIT 1.0   /* seconds to wait for output after the last exit */

double mp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void signal_ranks(mp_job *job, int sig)
{
    for (int i = 0; i < job->n; i++) {
        mp_rank *r = &job->ranks[i];
        if (r->pid <= 0)
            continue;
        /* The group also holds what the rank forked; a rank already reaped
         * may have left such stragglers. */
        kill(-r->pid, sig);
        if (r->alive)
            kill(r->pid, sig);
    }
    mp_spawn_signal(job, sig);
}

void mp_job_fail(mp_job *job, int code, const char *fmt, ...)
{
    va_list ap;
    char text[1024];

    if (job->failed)
        return;
    job->failed = 1;
    job->exit_code = code;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpiexec%s: %s; job terminated\n",
            job->opt->spawned ? " (a job started by MPI_Comm_spawn)" : "", text);
    fflush(stderr);
    if (job->parent_board)            /* tell the parents (spawn.c) */
        mp_failboard_post(job->parent_board, job->job_id, text);
    signal_ranks(job, SIGTERM);
    job->kill_at = mp_now() + KILL_GRACE;
}

static mp_rank *rank_of_pid(mp_job *job, pid_t pid)
{
    for (int i = 0; i < job->n; i++)
        if (job->ranks[i].pid == pid)
            return &job->ranks[i];
    return NULL;
}

/* A rank that never initialised while another one did (see the top of this file). */
static void check_quiet_exit(mp_job *job)
{
    if (job->quiet_exit < 0 || job->first_pmi < 0)
        return;
    const mp_rank *q = &job->ranks[job->quiet_exit];
    mp_job_fail(job, 1, "rank %d (pid %ld) exited with code 0 without calling MPI_Init, while "
                "rank %d called it", q->rank, (long)q->pid, job->first_pmi);
}

void mp_job_spoke_pmi(mp_job *job, mp_rank *r)
{
    if (r->spoke_pmi)
        return;
    r->spoke_pmi = 1;
    if (job->first_pmi < 0)
        job->first_pmi = r->rank;
    check_quiet_exit(job);
}

static void judge_exit(mp_job *job, mp_rank *r, int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        mp_job_fail(job, 128 + sig, "rank %d (pid %ld) was killed by signal %d (%s)", r->rank,
                    (long)r->pid, sig, strsignal(sig));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        mp_job_fail(job, WEXITSTATUS(status), "rank %d (pid %ld) exited with code %d", r->rank,
                    (long)r->pid, WEXITSTATUS(status));
    } else if (r->spoke_pmi && !r->finalized) {
        mp_job_fail(job, 1, "rank %d (pid %ld) exited with code 0 without calling MPI_Finalize",
                    r->rank, (long)r->pid);
    } else if (!r->spoke_pmi && job->opt->spawned) {
        /* its parents wait in MPI_Comm_spawn until every child connected from MPI_Init */
        mp_job_fail(job, 1, "rank %d (pid %ld) exited with code 0 without calling MPI_Init; a "
                    "process started by MPI_Comm_spawn must call it", r->rank, (long)r->pid);
    } else if (!r->spoke_pmi && job->quiet_exit < 0) {
        job->quiet_exit = r->rank;
        check_quiet_exit(job);
    }
}

static void reap(mp_job *job)
{
    int status;
    pid_t pid;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        mp_rank *r = rank_of_pid(job, pid);
        if (r == NULL && mp_spawn_reaped(job, pid, status))
            continue;
        if (r == NULL || !r->alive)
            continue;
        r->alive = 0;
        job->nalive--;
        if (r->conn >= 0 && job->conns[r->conn].fd >= 0) {
            mp_pmi_server_readable(job, r->conn);   /* last words: abort, finalize */
            if (r->conn >= 0)
                mp_pmi_server_close(job, r->conn);
        }
        judge_exit(job, r, status);
    }
}

static void on_signal(mp_job *job)
{
    struct signalfd_siginfo si;
    while (read(job->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(job);
        } else if (++job->signals_seen == 1) {
            signal_ranks(job, sig);   /* forward; the ranks' deaths are then reported */
        } else {
            signal_ranks(job, SIGKILL);   /* asked twice: stop now */
            job->killed = 1;
        }
    }
    reap(job);   /* signalfd merges SIGCHLDs; never miss one */
}

static void on_timer(mp_job *job, double now)
{
    if (job->deadline > 0 && now >= job->deadline && !job->failed) {
        job->deadline = 0;
        mp_job_fail(job, 124, "timeout: the job ran longer than %g s (--timeout / "
                              "MPIEXEC_TIMEOUT); killing all %d ranks",
                    job->opt->timeout, job->n);
        job->exit_code = 124;
    }
    if (job->kill_at > 0 && now >= job->kill_at) {
        job->kill_at = 0;
        job->killed = 1;
        signal_ranks(job, SIGKILL);
    }
}

static int poll_timeout_ms(mp_job *job, double now, double drain_until)
{
    double next = -1;
    if (job->deadline > 0)
        next = job->deadline;
    if (job->kill_at > 0 && (next < 0 || job->kill_at < next))
        next = job->kill_at;
    if (drain_until > 0 && (next < 0 || drain_until < next))
        next = drain_until;
    if (next < 0)
        return -1;
    double ms = (next - now) * 1000.0 + 1.0;
    return ms < 0 ? 0 : ms > 1e9 ? 1000000000 : (int)ms;
}

/* Kinds of poll entries, kept parallel to the pollfd array. */
enum { EV_SIGNAL, EV_PMI, EV_LISTEN, EV_OUT, EV_ERR, EV_STDIN, EV_STDIN_PIPE };

typedef struct watch {
    int kind;
    int index;
} watch;

static int outputs_open(const mp_job *job)
{
    for (int i = 0; i < job->n; i++)
        if (job->ranks[i].out.fd >= 0 || job->ranks[i].err.fd >= 0)
            return 1;
    return 0;
}

static void add(struct pollfd *pfd, watch *w, int *n, int fd, short events, int kind, int index)
{
    pfd[*n].fd = fd;
    pfd[*n].events = events;
    pfd[*n].revents = 0;
    w[*n].kind = kind;
    w[*n].index = index;
    (*n)++;
}

static int build_poll_set(mp_job *job, struct pollfd *pfd, watch *w)
{
    int n = 0;
    add(pfd, w, &n, job->sigfd, POLLIN, EV_SIGNAL, 0);
    if (job->listen_fd >= 0 && job->nconns < job->n)
        add(pfd, w, &n, job->listen_fd, POLLIN, EV_LISTEN, 0);
    for (int i = 0; i < job->nconns; i++)
        if (job->conns[i].fd >= 0)
            add(pfd, w, &n, job->conns[i].fd, POLLIN, EV_PMI, i);
    for (int i = 0; i < job->n; i++) {
        if (job->ranks[i].out.fd >= 0)
            add(pfd, w, &n, job->ranks[i].out.fd, POLLIN, EV_OUT, i);
        if (job->ranks[i].err.fd >= 0)
            add(pfd, w, &n, job->ranks[i].err.fd, POLLIN, EV_ERR, i);
    }
    if (job->stdin_open && job->stdin_pipe >= 0 && job->stdin_len < sizeof job->stdin_buf)
        add(pfd, w, &n, 0, POLLIN, EV_STDIN, 0);
    if (job->stdin_pipe >= 0 && job->stdin_len > 0)
        add(pfd, w, &n, job->stdin_pipe, POLLOUT, EV_STDIN_PIPE, 0);
    return n;
}

static void dispatch(mp_job *job, struct pollfd *p, watch *w)
{
    short ev = p->revents;
    if (ev == 0)
        return;
    switch (w->kind) {
    case EV_SIGNAL:
        on_signal(job);
        break;
    case EV_LISTEN:
        mp_pmi_server_accept(job);
        break;
    case EV_PMI:
        if (job->conns[w->index].fd == p->fd)
            mp_pmi_server_readable(job, w->index);
        break;
    case EV_OUT:
        if (job->ranks[w->index].out.fd == p->fd)
            mp_output_readable(job, &job->ranks[w->index], &job->ranks[w->index].out);
        break;
    case EV_ERR:
        if (job->ranks[w->index].err.fd == p->fd)
            mp_output_readable(job, &job->ranks[w->index], &job->ranks[w->index].err);
        break;
    case EV_STDIN:
        if (job->stdin_open && job->stdin_pipe >= 0)
            mp_stdin_readable(job);
        break;
    case EV_STDIN_PIPE:
        if (ev & (POLLERR | POLLHUP))
            mp_stdin_close(job);
        else
            mp_stdin_writable(job);
        break;
    }
}

static void close_outputs(mp_job *job)
{
    for (int i = 0; i < job->n; i++) {
        mp_output_close(job, &job->ranks[i], &job->ranks[i].out);
        mp_output_close(job, &job->ranks[i], &job->ranks[i].err);
    }
}

/* The library unlinks its node segment (and a window's) as soon as every local rank has
 * mapped it; a rank killed before that moment would leave the name behind.  Such names start
 * with /mempi-<job id>-, and only the job's launchers know the id, so remove whatever still
 * carries it.  A launcher sweeps its own job's names and those of every job it spawned: a
 * nested launcher that we SIGKILLed (a failure, a timeout, a singleton's death) could not
 * sweep its own. */
void mp_job_sweep(const char *job_id)
{
    char prefix[64];
    int n = snprintf(prefix, sizeof prefix, "mempi-%s-", job_id);
    if (job_id[0] == '\0' || n <= 0 || (size_t)n >= sizeof prefix)
        return;
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)n) == 0) {
            char name[300];
            snprintf(name, sizeof name, "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    closedir(d);
}

/* Names the job's processes published and never withdrew (src/binding/port.c's directory
 * ${TMPDIR:-/tmp}/mempi-<uid>/names/<scope>/). */
static void remove_job_names(const mp_job *job)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], path[4400];
    if (!job->owns_name_scope)
        return;
    snprintf(dir, sizeof dir, "%s/mempi-%ld/names/%s", tmp && tmp[0] ? tmp : "/tmp",
             (long)getuid(), job->job_id);
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int mp_job_run(mp_job *job)
{
    size_t cap = 3 + 3 * (size_t)job->n + 2;
    struct pollfd *pfd = calloc(cap, sizeof *pfd);
    watch *w = calloc(cap, sizeof *w);
    double drain_until = 0;

    if (pfd == NULL || w == NULL) {
        fprintf(stderr, "mpiexec: out of memory\n");
        free(pfd);
        free(w);
        signal_ranks(job, SIGKILL);
        return 1;
    }
    if (job->opt->timeout > 0)
        job->deadline = mp_now() + job->opt->timeout;
    reap(job);
    while (job->nalive > 0 || outputs_open(job)) {
        if (job->nalive == 0 && drain_until == 0) {
            drain_until = mp_now() + DRAIN_LIMIT;
            mp_stdin_close(job);
        }
        int n = build_poll_set(job, pfd, w);
        int rc = poll(pfd, (nfds_t)n, poll_timeout_ms(job, mp_now(), drain_until));
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "mpiexec: poll failed: %s\n", strerror(errno));
            signal_ranks(job, SIGKILL);
            break;
        }
        for (int i = 0; rc > 0 && i < n; i++)
            dispatch(job, &pfd[i], &w[i]);
        double now = mp_now();
        on_timer(job, now);
        if (drain_until > 0 && now >= drain_until)
            break;
    }
    close_outputs(job);
    mp_job_sweep(job->job_id);
    mp_spawn_sweep(job);
    remove_job_names(job);
    free(pfd);
    free(w);
    return job->failed ? job->exit_code : 0;
}

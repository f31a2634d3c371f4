/* launch.c -- fork and exec the ranks with their PMI socket and pipes.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * For each rank: a socketpair for PMI (the child's end becomes PMI_FD), a
 * pipe each for stdout and stderr, and for rank 0 a pipe for stdin (others
 * read /dev/null).  Every descriptor is created close-on-exec, and the child
 * clears the flag only on its own PMI end, so a rank inherits nothing of its
 * siblings.  The child makes itself leader of a new process group (the
 * parent does the same setpgid from its side, so the group exists before
 * any kill is aimed at it), asks for SIGKILL should the launcher die,
 * restores the signal mask and SIGPIPE that the launcher changed, sets the
 * PMI_* and MEMPI_LOCAL_* variables, and execs.
 *
 * The program is looked up once before forking so that a typo gives one
 * clear line instead of N copies of "exec failed".
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* 0 if execvp would find `name`, else -1 with errno set. */
int mp_find_program(const char *name)
{
    const char *path = getenv("PATH");
    char buf[4096];

    if (strchr(name, '/') != NULL) {
        if (is_executable_file(name))
            return 0;
        if (errno == 0)
            errno = EACCES;
        return -1;
    }
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        int n = snprintf(buf, sizeof buf, "%.*s%s%s", (int)len, path, len ? "/" : "./", name);
        if (n > 0 && (size_t)n < sizeof buf && is_executable_file(buf))
            return 0;
        path += len + (colon ? 1 : 0);
    }
    errno = ENOENT;
    return -1;
}

static void set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void set_env_long(const char *name, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    setenv(name, text, 1);
}

void mp_child_setup(pid_t launcher)
{
    sigset_t none;

    setpgid(0, 0);
    /* If the launcher itself is SIGKILLed (a test runner's timeout), the
     * ranks must not live on as orphans. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher)
        _exit(127);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
}

/* In the child: never returns. */
static void exec_rank(mp_job *job, int rank, int pmi_fd, int in_fd, int out_fd, int err_fd,
                      pid_t launcher)
{
    const mp_options *opt = job->opt;

    mp_child_setup(launcher);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);

    unsetenv("PMI_FD");
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    if (opt->pmi_port) {
        char port[64];
        snprintf(port, sizeof port, "127.0.0.1:%d", job->port);
        setenv("PMI_PORT", port, 1);
        set_env_long("PMI_ID", rank);
    } else {
        fcntl(pmi_fd, F_SETFD, 0);   /* the one descriptor the rank keeps */
        set_env_long("PMI_FD", pmi_fd);
    }
    set_env_long("PMI_RANK", rank);
    set_env_long("PMI_SIZE", job->n);
    setenv("PMI_SPAWNED", opt->spawned ? "1" : "0", 1);
    set_env_long("MEMPI_LOCAL_RANK", rank);
    set_env_long("MEMPI_LOCAL_SIZE", job->n);
    /* libmpi links libfabric, which loads libinfinipath; its load-time constructor installs
     * a SIGSEGV/SIGBUS/SIGILL/SIGFPE handler that prints a backtrace and calls exit(1), so a
     * crashing rank would look like "exited with code 1" and we could not name the signal.
     * This variable (read by that constructor) keeps the default action; a user who set it
     * in the environment or with --env keeps their value. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    for (int i = 0; i < opt->nenv; i++)
        putenv(opt->env[i]);
    const mp_app *app = &opt->apps[job->ranks[rank].app];
    for (int i = 0; i < app->nenv; i++)
        putenv(app->env[i]);
    if (app->wdir && chdir(app->wdir) != 0) {
        dprintf(2, "mpiexec: rank %d: cannot change to directory '%s': %s\n", rank, app->wdir,
                strerror(errno));
        _exit(127);
    }

    execvp(app->argv[0], app->argv);
    dprintf(2, "mpiexec: rank %d: cannot execute '%s': %s\n", rank, app->argv[0], strerror(errno));
    _exit(127);
}

static void init_stream(mp_stream *s, int fd, int target)
{
    s->fd = fd;
    s->target = target;
    s->buf = NULL;
    s->len = s->cap = 0;
    s->cut = 0;
    set_nonblocking(fd);
}

static int launch_one(mp_job *job, int rank, int devnull)
{
    int sv[2] = { -1, -1 }, outp[2], errp[2], inp[2] = { -1, -1 };
    int in_fd = devnull;
    mp_rank *r = &job->ranks[rank];

    if (!job->opt->pmi_port && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
        return -1;
    if (rank == 0 && job->stdin_open) {
        if (pipe2(inp, O_CLOEXEC) < 0)
            return -1;
        in_fd = inp[0];
    }

    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        exec_rank(job, rank, sv[1], in_fd, outp[1], errp[1], launcher);

    setpgid(pid, pid);   /* also from here: no window where the group is missing */
    r->rank = rank;
    r->pid = pid;
    r->alive = 1;
    job->nalive++;
    close(outp[1]);
    close(errp[1]);
    init_stream(&r->out, outp[0], 1);
    init_stream(&r->err, errp[0], 2);
    if (inp[0] >= 0) {
        close(inp[0]);
        job->stdin_pipe = inp[1];
        set_nonblocking(inp[1]);
    }
    if (!job->opt->pmi_port) {
        close(sv[1]);
        set_nonblocking(sv[0]);
        mp_conn *c = &job->conns[rank];
        c->fd = sv[0];
        c->rank = rank;
        c->in_len = 0;
        r->conn = rank;
        job->nconns = rank + 1;
    }
    return 0;
}

int mp_launch_ranks(mp_job *job)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        fprintf(stderr, "mpiexec: cannot open /dev/null: %s\n", strerror(errno));
        return -1;
    }
    for (int i = 0; i < job->n; i++) {
        if (launch_one(job, i, devnull) < 0) {
            int e = errno;
            close(devnull);
            mp_job_fail(job, 1, "cannot start rank %d of %d: %s", i, job->n, strerror(e));
            return -1;
        }
    }
    close(devnull);
    if (job->stdin_pipe < 0)
        job->stdin_open = 0;
    return 0;
}

/* main.c -- mpiexec: start an MPI job on this node and serve it PMI-1.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Order of start-up: parse options (exit 2 on misuse), look the program up,
 * make sure fds 0-2 exist (so no pipe of ours lands on them), raise the fd
 * limit (three descriptors per rank), route SIGCHLD/SIGINT/SIGTERM/SIGHUP to
 * a signalfd (blocked before the first fork, so no death is missed), prepare
 * the PMI server and its store, fork the ranks, run the event loop.  The exit
 * status is decided in job.c.  Nothing here sleeps: a job of trivial ranks
 * costs a few forks and execs.
 *
 * Design of the pieces: options.c (command line), launch.c (fork/exec),
 * pmi_server.c + kvs.c (PMI-1), output.c (I/O forwarding), job.c (event loop,
 * failure containment within one second).
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

static void ensure_standard_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
    }
}

static int raise_fd_limit(long nprocs)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)(nprocs * 4 + 64);
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
        return 0;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < need) {
        fprintf(stderr, "mpiexec: %ld processes need %lu file descriptors, the limit is %lu\n",
                nprocs, (unsigned long)need, (unsigned long)rl.rlim_cur);
        return -1;
    }
    return 0;
}

int mp_setup_signals(mp_job *job)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);
    job->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    return job->sigfd < 0 ? -1 : 0;
}

/* Forward our stdin only when reading it cannot stop us: a terminal we do
 * not own as the foreground job would send SIGTTIN. */
static int should_forward_stdin(void)
{
    if (isatty(0) && tcgetpgrp(0) != getpgrp())
        return 0;
    return 1;
}

int main(int argc, char **argv)
{
    mp_options opt;
    mp_job job;
    int done, rc;

    rc = mp_options_parse(argc, argv, &opt, &done);
    if (rc >= 0) {
        mp_options_free(&opt);
        return rc;
    }
    if (opt.serve_fd >= 0)
        return mp_spawn_serve(&opt);
    for (int k = 0; k < opt.napps; k++) {
        const char *prog = opt.apps[k].argv[0];
        if (opt.apps[k].wdir == NULL && mp_find_program(prog) < 0) {
            fprintf(stderr, "mpiexec: cannot execute '%s': %s\n", prog, strerror(errno));
            mp_options_free(&opt);
            return 127;
        }
    }
    ensure_standard_fds();
    memset(&job, 0, sizeof job);
    job.opt = &opt;
    job.n = (int)opt.nprocs;
    job.listen_fd = -1;
    job.stdin_pipe = -1;
    job.sigfd = -1;
    job.quiet_exit = job.first_pmi = -1;
    job.ranks = calloc((size_t)job.n, sizeof *job.ranks);
    if (job.ranks == NULL || raise_fd_limit(opt.nprocs) < 0 || mp_setup_signals(&job) < 0 ||
        mp_pmi_server_setup(&job) < 0) {
        if (job.ranks == NULL || job.sigfd < 0)
            fprintf(stderr, "mpiexec: cannot set up: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0, k = 0, first = 0; i < job.n; i++) {
        while (i >= first + opt.apps[k].nprocs)
            first += (int)opt.apps[k++].nprocs;
        job.ranks[i].app = k;
        job.ranks[i].conn = -1;
        job.ranks[i].out.fd = job.ranks[i].err.fd = -1;
    }
    job.stdin_open = should_forward_stdin();

    mp_launch_ranks(&job);   /* on failure it already failed the job */
    rc = mp_job_run(&job);

    mp_kvs_free(job.kvs);
    free(job.conns);
    free(job.ranks);
    free(job.spawned);
    mp_options_free(&opt);
    return rc;
}

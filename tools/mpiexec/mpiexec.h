/* mpiexec.h -- the launcher's shared types: options, ranks, the job.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Process model: one mpiexec process forks N ranks on this node and then runs
 * a single poll() loop (job.c) that serves PMI-1 to every rank (pmi_server.c,
 * store in kvs.c), forwards their stdout/stderr and rank 0's stdin
 * (output.c), and learns of deaths and of SIGINT/SIGTERM/SIGHUP through a
 * signalfd.  There are no threads and no sleeps: everything, including the
 * teardown deadlines, is a poll() timeout.
 *
 * Every rank leads its own process group, so one kill(-pid) reaches the rank
 * and anything it forked.
 */
#ifndef MEMPI_MPIEXEC_H
#define MEMPI_MPIEXEC_H

#include <stddef.h>
#include <sys/types.h>

#include "core/failboard.h"
#include "core/pmi_wire.h"

#define MP_MPIEXEC_MAX_RANKS 4096

/* ---- options.c ---- */
/* One program of the job (MPI_APPNUM is its index): a user's command line has one; a job
 * started for MPI_Comm_spawn_multiple (spawn.c) one per command. */
typedef struct mp_app {
    long nprocs;
    char **argv;          /* program and its arguments, NULL-terminated */
    const char *wdir;     /* working directory, or NULL */
    char **env;           /* this program's own NAME=VALUE strings */
    int nenv;
} mp_app;

typedef struct mp_options {
    long nprocs;          /* of all programs */
    char **argv;          /* the first program and its arguments */
    mp_app *apps;
    int napps;
    int spawned;          /* started by another job's MPI_Comm_spawn (PMI_SPAWNED=1) */
    char **preput;        /* KEY=VALUE strings stored in the key-value space at start */
    int npreput;
    char **env;           /* NAME=VALUE strings from --env / -env */
    int nenv;
    int tag_output;
    double timeout;       /* seconds; 0 = none */
    int pmi_port;         /* serve PMI over TCP (PMI_PORT/PMI_ID) instead of PMI_FD */
    long universe;        /* MPI_UNIVERSE_SIZE: -usize, else the slots (see options.c) */
    const char *job_id;   /* a spawned job: the id its parent's launcher chose, else NULL */
    int parent_failfd;    /* a spawned job: the parent job's failure board, else -1 */
    int serve_fd;         /* --serve-singleton: the singleton's spawn connection, else -1 */
    int serve_board;      /* --serve-singleton: the singleton's failure board */
} mp_options;

/* Parses argv; on a usage error prints one line and returns 2; on -h or
 * --version prints and returns 0 with *done set; else returns -1 (go on). */
int mp_options_parse(int argc, char **argv, mp_options *opt, int *done);
void mp_options_free(mp_options *opt);

/* ---- kvs.c: the job's key-value store ---- */
typedef struct mp_kvs mp_kvs;
mp_kvs *mp_kvs_new(void);
void mp_kvs_free(mp_kvs *kvs);
int mp_kvs_put(mp_kvs *kvs, const char *key, const char *value);   /* -1: exists or no memory */
const char *mp_kvs_get(const mp_kvs *kvs, const char *key);

/* ---- per-rank state ---- */
typedef struct mp_stream {
    int fd;               /* read end of the rank's stdout or stderr pipe, -1 when closed */
    int target;           /* 1 or 2: where we copy it */
    char *buf;            /* --tag-output: partial line kept until its '\n' */
    size_t len, cap;
    int cut;              /* last piece was a forced cut of a long line */
} mp_stream;

typedef struct mp_conn {
    int fd;               /* launcher side of the PMI socket, -1 when closed */
    int rank;             /* -1 until a PMI_PORT client identified itself */
    char in[MP_PMI_WIRE_MAXLINE];
    size_t in_len;
} mp_conn;

typedef struct mp_rank {
    int rank;
    int app;              /* index in opt->apps */
    pid_t pid;
    int alive;            /* not yet reaped */
    int conn;             /* index in job->conns, -1 if none yet */
    int spoke_pmi;        /* sent at least one PMI command */
    int finalized;        /* sent cmd=finalize */
    int in_barrier;
    mp_stream out, err;
} mp_rank;

typedef struct mp_job {
    const mp_options *opt;
    int n;
    mp_rank *ranks;
    int nalive;
    mp_conn *conns;
    int nconns;
    int listen_fd;        /* --pmi-port */
    int port;
    mp_kvs *kvs;
    char kvsname[64];
    char job_id[33];
    int owns_name_scope;  /* MEMPI_NAME_SCOPE is our job id: remove its names at the end */
    int barrier_count;
    /* failure containment */
    int quiet_exit;       /* a rank that exited 0 without a word of PMI, -1 if none */
    int first_pmi;        /* the first rank that spoke PMI, -1 if none */
    int failed;           /* a failure was reported; teardown in progress */
    int exit_code;
    double kill_at;       /* when to send SIGKILL (0 = not armed) */
    int killed;
    double deadline;      /* --timeout (0 = none) */
    int signals_seen;
    /* stdin forwarding to rank 0 */
    int stdin_open;       /* still reading our fd 0 */
    int stdin_pipe;       /* write end to rank 0, -1 when closed */
    char stdin_buf[65536];
    size_t stdin_len;
    int sigfd;
    int stdout_broken, stderr_broken;
    /* jobs started by MPI_Comm_spawn (spawn.c): nested mpiexecs, counted in nalive */
    struct mp_spawned *spawned;
    int nspawned;
    /* failure boards (src/core/failboard.h): this job's, which its ranks read, and, in a
     * spawned job, the parent job's, where a failure of ours is posted */
    mp_failboard *board, *parent_board;
    int board_fd;
} mp_job;

/* ---- main.c ---- */
/* SIGCHLD/SIGINT/SIGTERM/SIGHUP blocked and routed to job->sigfd, SIGPIPE ignored: 0, or -1. */
int mp_setup_signals(mp_job *job);

/* ---- job.c ---- */
double mp_now(void);
void mp_job_fail(mp_job *job, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void mp_job_spoke_pmi(mp_job *job, mp_rank *r);   /* r's first PMI command */
int mp_job_run(mp_job *job);
/* Removes what is left in /dev/shm under the job id's names (/mempi-<job_id>-*). */
void mp_job_sweep(const char *job_id);

/* ---- launch.c ---- */
int mp_launch_ranks(mp_job *job);
/* In a child the launcher forked: own process group, dies with the launcher (SIGKILL),
 * the signal mask and SIGPIPE as before the launcher changed them. */
void mp_child_setup(pid_t launcher);
int mp_find_program(const char *name);

/* ---- pmi_server.c ---- */
int mp_make_job_id(char out[33]);   /* 32 random hex digits */
int mp_pmi_server_setup(mp_job *job);
void mp_pmi_server_readable(mp_job *job, int conn);
void mp_pmi_server_accept(mp_job *job);
void mp_pmi_server_close(mp_job *job, int conn);
/* cmd=<cmd> rc=<rc> [msg=<msg>] to connection conn */
void mp_pmi_server_reply(mp_job *job, int conn, const char *cmd, int rc, const char *msg);
/* the same with one more key=value (NULL: none) */
void mp_pmi_server_reply_kv(mp_job *job, int conn, const char *cmd, int rc, const char *msg,
                            const char *key, const char *value);

/* ---- spawn.c: PMI-1 spawn (mcmd=spawn ... endcmd) ---- */
/* 1 if the line belongs to a spawn request (and was handled), 0 if it is an ordinary one. */
int mp_spawn_line(mp_job *job, int conn, const char *line, size_t len);
/* 1 if pid was a spawned job's launcher (its end is judged here), else 0. */
int mp_spawn_reaped(mp_job *job, pid_t pid, int status);
void mp_spawn_signal(mp_job *job, int sig);
void mp_spawn_sweep(const mp_job *job);   /* mp_job_sweep of every job we spawned */
/* --serve-singleton: serve one singleton's spawn requests until it closes the connection and
 * every job it spawned ended; the exit status. */
int mp_spawn_serve(mp_options *opt);
/* Creates this job's failure board and maps the parent's (a spawned job): 0, or -1. */
int mp_failboard_setup(mp_job *job);

/* ---- output.c ---- */
void mp_output_readable(mp_job *job, mp_rank *r, mp_stream *s);
void mp_output_close(mp_job *job, mp_rank *r, mp_stream *s);
void mp_stdin_readable(mp_job *job);
void mp_stdin_writable(mp_job *job);
void mp_stdin_close(mp_job *job);

#endif /* MEMPI_MPIEXEC_H */

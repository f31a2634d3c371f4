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

#include "core/pmi_wire.h"

#define MP_MPIEXEC_MAX_RANKS 4096

/* ---- options.c ---- */
typedef struct mp_options {
    long nprocs;
    char **argv;          /* program and its arguments (points into main's argv) */
    char **env;           /* NAME=VALUE strings from --env / -env */
    int nenv;
    int tag_output;
    double timeout;       /* seconds; 0 = none */
    int pmi_port;         /* serve PMI over TCP (PMI_PORT/PMI_ID) instead of PMI_FD */
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
} mp_job;

/* ---- job.c ---- */
double mp_now(void);
void mp_job_fail(mp_job *job, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void mp_job_spoke_pmi(mp_job *job, mp_rank *r);   /* r's first PMI command */
int mp_job_run(mp_job *job);

/* ---- launch.c ---- */
int mp_launch_ranks(mp_job *job);
int mp_find_program(const char *name);

/* ---- pmi_server.c ---- */
int mp_pmi_server_setup(mp_job *job);
void mp_pmi_server_readable(mp_job *job, int conn);
void mp_pmi_server_accept(mp_job *job);
void mp_pmi_server_close(mp_job *job, int conn);

/* ---- output.c ---- */
void mp_output_readable(mp_job *job, mp_rank *r, mp_stream *s);
void mp_output_close(mp_job *job, mp_rank *r, mp_stream *s);
void mp_stdin_readable(mp_job *job);
void mp_stdin_writable(mp_job *job);
void mp_stdin_close(mp_job *job);

#endif /* MEMPI_MPIEXEC_H */

/* pmi_server.c -- the launcher's PMI-1 server: one connection per rank.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Why PMI-1: it is what MPICH's Hydra and Slurm serve, so the library has a
 * single client that runs under all of them, and this server is the small
 * reference the tests exercise.
 *
 * Each connection gathers bytes until a '\n', parses the line with the shared
 * pmi_wire module and answers at once; the protocol is lock-step, so a
 * response never waits behind another.  Puts go straight into the store
 * (kvs.c); barrier_in is counted and when all N ranks are in, every rank gets
 * barrier_out -- so a put before a rank's barrier_in is visible to every get
 * after the barrier_out.  The store is pre-filled with PMI_process_mapping
 * (all ranks on this node) and MEMPI_JOB_ID, a fresh random hex string the
 * library can use to name its shared segment unpredictably.
 *
 * A malformed line, an unknown command, or a line too long is a protocol
 * error: the job is terminated with a message naming the rank (PMI-1 says the
 * detecting side aborts).  cmd=abort is recorded as the job's failure.
 *
 * With --pmi-port the server listens on 127.0.0.1 instead and a connection
 * becomes a rank's after Hydra's `cmd=initack pmiid=R` prefix; this exists so
 * the client's PMI_PORT path is tested.
 */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define SERVER_KVSNAME_MAX 256
#define SERVER_KEYLEN_MAX  64
#define SERVER_VALLEN_MAX  1024

int mp_make_job_id(char out[33])
{
    unsigned char bytes[16];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

static int listen_tcp(mp_job *job)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 128) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    job->listen_fd = fd;
    job->port = ntohs(sa.sin_port);
    return 0;
}

int mp_pmi_server_setup(mp_job *job)
{
    char mapping[64];

    job->kvs = mp_kvs_new();
    job->conns = calloc((size_t)job->n, sizeof *job->conns);
    if (job->kvs == NULL || job->conns == NULL) {
        fprintf(stderr, "mpiexec: out of memory\n");
        return -1;
    }
    for (int i = 0; i < job->n; i++) {
        job->conns[i].fd = -1;
        job->conns[i].rank = -1;
    }
    snprintf(job->kvsname, sizeof job->kvsname, "kvs_%ld_0", (long)getpid());
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", job->n);
    if (job->opt->job_id)
        snprintf(job->job_id, sizeof job->job_id, "%s", job->opt->job_id);
    else if (mp_make_job_id(job->job_id) < 0) {
        fprintf(stderr, "mpiexec: getrandom failed: %s\n", strerror(errno));
        return -1;
    }
    if (mp_failboard_setup(job) < 0)
        return -1;
    /* The name service's scope (src/binding/port.c): this job and every job it spawns
     * (nested mpiexecs inherit it from our environment). */
    if (getenv("MEMPI_NAME_SCOPE") == NULL) {
        setenv("MEMPI_NAME_SCOPE", job->job_id, 1);
        job->owns_name_scope = 1;
    }
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", job->board_fd);
    if (mp_kvs_put(job->kvs, "PMI_process_mapping", mapping) < 0 ||
        mp_kvs_put(job->kvs, MP_FAILBOARD_KEY, fd_text) < 0 ||
        mp_kvs_put(job->kvs, "MEMPI_JOB_ID", job->job_id) < 0) {
        fprintf(stderr, "mpiexec: out of memory\n");
        return -1;
    }
    /* a spawned job: what the parent stored for its children (PARENT_ROOT_PORT_NAME) */
    for (int i = 0; i < job->opt->npreput; i++) {
        char *kv = job->opt->preput[i], *eq = strchr(kv, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        int rc = mp_kvs_put(job->kvs, kv, eq + 1);
        *eq = '=';
        if (rc < 0) {
            fprintf(stderr, "mpiexec: cannot store the parent's key '%s'\n", kv);
            return -1;
        }
    }
    if (job->opt->pmi_port && listen_tcp(job) < 0) {
        fprintf(stderr, "mpiexec: cannot listen on 127.0.0.1 for --pmi-port: %s\n",
                strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- replies ------------------------------------------------------------ */

static void protocol_error(mp_job *job, int conn, const char *why, const char *detail)
{
    mp_conn *c = &job->conns[conn];
    if (c->rank >= 0)
        mp_job_fail(job, 1, "rank %d (pid %ld) broke the PMI protocol: %s%s%s", c->rank,
                    (long)job->ranks[c->rank].pid, why, detail ? ": " : "", detail ? detail : "");
    else
        mp_job_fail(job, 1, "an unidentified PMI connection broke the protocol: %s%s%s", why,
                    detail ? ": " : "", detail ? detail : "");
    mp_pmi_server_close(job, conn);
}

/* The socket is non-blocking; a lock-step client always has room for one
 * response, so a full socket means the client is not reading: an error. */
static void send_line(mp_job *job, int conn, mp_pmi_line *line)
{
    const char *err;
    long len = mp_pmi_line_finish(line, &err);
    mp_conn *c = &job->conns[conn];
    size_t off = 0;

    if (len < 0) {
        protocol_error(job, conn, "cannot format the response", err);
        return;
    }
    while (c->fd >= 0 && off < (size_t)len) {
        ssize_t n = send(c->fd, line->buf + off, (size_t)len - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            mp_pmi_server_close(job, conn);   /* the rank is gone; its exit tells the rest */
            return;
        }
        if (n <= 0) {
            protocol_error(job, conn, "client does not read its responses", NULL);
            return;
        }
        off += (size_t)n;
    }
}

void mp_pmi_server_reply_kv(mp_job *job, int conn, const char *cmd, int rc, const char *msg,
                            const char *key, const char *value)
{
    mp_pmi_line line;
    mp_pmi_line_start(&line, cmd);
    mp_pmi_line_add_long(&line, "rc", rc);
    if (msg)
        mp_pmi_line_add(&line, "msg", msg);
    if (key)
        mp_pmi_line_add(&line, key, value);
    send_line(job, conn, &line);
}

void mp_pmi_server_reply(mp_job *job, int conn, const char *cmd, int rc, const char *msg)
{
    mp_pmi_server_reply_kv(job, conn, cmd, rc, msg, NULL, NULL);
}

/* ---- commands ----------------------------------------------------------- */

static void do_init(mp_job *job, int conn, const mp_pmi_msg *m)
{
    long version = 0;
    mp_pmi_line line;
    int ok = mp_pmi_msg_get_long(m, "pmi_version", 0, 1000, &version) == 0 && version == 1;

    mp_pmi_line_start(&line, "response_to_init");
    mp_pmi_line_add(&line, "pmi_version", "1");
    mp_pmi_line_add(&line, "pmi_subversion", "1");
    mp_pmi_line_add_long(&line, "rc", ok ? 0 : -1);
    send_line(job, conn, &line);
}

static void do_maxes(mp_job *job, int conn)
{
    mp_pmi_line line;
    mp_pmi_line_start(&line, "maxes");
    mp_pmi_line_add(&line, "rc", "0");
    mp_pmi_line_add_long(&line, "kvsname_max", SERVER_KVSNAME_MAX);
    mp_pmi_line_add_long(&line, "keylen_max", SERVER_KEYLEN_MAX);
    mp_pmi_line_add_long(&line, "vallen_max", SERVER_VALLEN_MAX);
    send_line(job, conn, &line);
}

static void do_simple(mp_job *job, int conn, const char *cmd, const char *key, const char *value)
{
    mp_pmi_line line;
    mp_pmi_line_start(&line, cmd);
    mp_pmi_line_add(&line, "rc", "0");
    mp_pmi_line_add(&line, key, value);
    send_line(job, conn, &line);
}

static int kvsname_ok(mp_job *job, const mp_pmi_msg *m)
{
    const char *name = mp_pmi_msg_get(m, "kvsname");
    return name != NULL && strcmp(name, job->kvsname) == 0;
}

static void do_put(mp_job *job, int conn, const mp_pmi_msg *m)
{
    const char *key = mp_pmi_msg_get(m, "key"), *value = mp_pmi_msg_get(m, "value");

    if (key == NULL || value == NULL)
        return protocol_error(job, conn, "cmd=put without key= or value=", NULL);
    if (!kvsname_ok(job, m))
        return mp_pmi_server_reply(job, conn, "put_result", -1, "unknown_kvsname");
    if (key[0] == '\0' || strlen(key) >= SERVER_KEYLEN_MAX)
        return mp_pmi_server_reply(job, conn, "put_result", -1, "invalid_key_length");
    if (strlen(value) >= SERVER_VALLEN_MAX)
        return mp_pmi_server_reply(job, conn, "put_result", -1, "value_too_long");
    if (mp_kvs_get(job->kvs, key) != NULL)
        return mp_pmi_server_reply(job, conn, "put_result", -1, "duplicate_key");
    if (mp_kvs_put(job->kvs, key, value) < 0)
        return mp_pmi_server_reply(job, conn, "put_result", -1, "out_of_memory");
    mp_pmi_server_reply(job, conn, "put_result", 0, "success");
}

static void do_get(mp_job *job, int conn, const mp_pmi_msg *m)
{
    const char *key = mp_pmi_msg_get(m, "key"), *value;
    mp_pmi_line line;

    if (key == NULL)
        return protocol_error(job, conn, "cmd=get without key=", NULL);
    if (!kvsname_ok(job, m))
        return mp_pmi_server_reply(job, conn, "get_result", -1, "unknown_kvsname");
    value = mp_kvs_get(job->kvs, key);
    mp_pmi_line_start(&line, "get_result");
    if (value != NULL) {
        mp_pmi_line_add(&line, "rc", "0");
        mp_pmi_line_add(&line, "msg", "success");
        mp_pmi_line_add(&line, "value", value);
    } else {
        mp_pmi_line_add(&line, "rc", "-1");
        mp_pmi_line_add(&line, "msg", "key_not_found");
    }
    send_line(job, conn, &line);
}

static void do_barrier(mp_job *job, int conn)
{
    mp_rank *r = &job->ranks[job->conns[conn].rank];
    mp_pmi_line line;

    if (r->in_barrier)
        return protocol_error(job, conn, "barrier_in twice without barrier_out", NULL);
    r->in_barrier = 1;
    if (++job->barrier_count < job->n)
        return;
    job->barrier_count = 0;
    for (int i = 0; i < job->n; i++) {
        mp_rank *q = &job->ranks[i];
        q->in_barrier = 0;
        if (q->conn >= 0 && job->conns[q->conn].fd >= 0) {
            mp_pmi_line_start(&line, "barrier_out");
            mp_pmi_line_add(&line, "rc", "0");
            send_line(job, q->conn, &line);
        }
    }
}

/* cmd=abort: exitcode is the status to exit with (mapped again: a client other than MemPI's
 * may send a raw code such as 256); MemPI's library adds errorcode (MPI_Abort's argument, or
 * the error class of a fatal error) and fatal=1 when an error handler, not MPI_Abort, ended
 * the rank. */
static void do_abort(mp_job *job, int conn, const mp_pmi_msg *m)
{
    mp_conn *c = &job->conns[conn];
    long code = 1, errorcode;
    const char *msg = mp_pmi_msg_get(m, "message");
    const char *fatal = mp_pmi_msg_get(m, "fatal");

    if (msg == NULL)
        msg = mp_pmi_msg_get(m, "error_msg");
    if (msg == NULL)
        msg = mp_pmi_msg_get(m, "msg");
    if (msg == NULL)
        msg = "";
    if (mp_pmi_msg_get(m, "exitcode") != NULL &&
        mp_pmi_msg_get_long(m, "exitcode", -2147483647L - 1, 2147483647L, &code) < 0)
        code = 1;
    if (mp_pmi_msg_get_long(m, "errorcode", -2147483647L - 1, 2147483647L, &errorcode) < 0)
        errorcode = code;
    if (fatal != NULL && strcmp(fatal, "1") == 0)
        mp_job_fail(job, mp_pmi_exit_status(code), "rank %d (pid %ld) ended because an error was "
                    "fatal%s%s", c->rank, (long)job->ranks[c->rank].pid, msg[0] ? ": " : "", msg);
    else
        mp_job_fail(job, mp_pmi_exit_status(code), "rank %d (pid %ld) called MPI_Abort with code "
                    "%ld%s%s", c->rank, (long)job->ranks[c->rank].pid, errorcode,
                    msg[0] ? ": " : "", msg);
}

/* Hydra's PMI_PORT prefix: identifies the rank of a TCP connection. */
static void do_initack(mp_job *job, int conn, const mp_pmi_msg *m)
{
    mp_conn *c = &job->conns[conn];
    mp_pmi_line line;
    long id;

    if (c->rank >= 0)
        return protocol_error(job, conn, "cmd=initack on an identified connection", NULL);
    if (mp_pmi_msg_get_long(m, "pmiid", 0, job->n - 1, &id) < 0 || job->ranks[id].conn >= 0)
        return protocol_error(job, conn, "cmd=initack with an invalid or duplicate pmiid",
                              mp_pmi_msg_get(m, "pmiid"));
    c->rank = (int)id;
    job->ranks[id].conn = conn;
    mp_pmi_line_start(&line, "initack");
    send_line(job, conn, &line);
    mp_pmi_line_start(&line, "set");
    mp_pmi_line_add_long(&line, "size", job->n);
    send_line(job, conn, &line);
    mp_pmi_line_start(&line, "set");
    mp_pmi_line_add_long(&line, "rank", id);
    send_line(job, conn, &line);
    mp_pmi_line_start(&line, "set");
    mp_pmi_line_add(&line, "debug", "0");
    send_line(job, conn, &line);
}

static void dispatch(mp_job *job, int conn, const mp_pmi_msg *m)
{
    mp_conn *c = &job->conns[conn];
    const char *cmd = mp_pmi_msg_cmd(m);
    char number[32];

    if (strcmp(cmd, "initack") == 0)
        return do_initack(job, conn, m);
    if (c->rank < 0)
        return protocol_error(job, conn, "first command must be cmd=initack", cmd);
    mp_rank *r = &job->ranks[c->rank];
    mp_job_spoke_pmi(job, r);
    if (strcmp(cmd, "init") == 0)
        do_init(job, conn, m);
    else if (strcmp(cmd, "get_maxes") == 0)
        do_maxes(job, conn);
    else if (strcmp(cmd, "get_appnum") == 0) {
        snprintf(number, sizeof number, "%d", r->app);
        do_simple(job, conn, "appnum", "appnum", number);
    }
    else if (strcmp(cmd, "get_my_kvsname") == 0)
        do_simple(job, conn, "my_kvsname", "kvsname", job->kvsname);
    else if (strcmp(cmd, "get_universe_size") == 0) {
        snprintf(number, sizeof number, "%ld", job->opt->universe);
        do_simple(job, conn, "universe_size", "size", number);
    } else if (strcmp(cmd, "put") == 0)
        do_put(job, conn, m);
    else if (strcmp(cmd, "get") == 0)
        do_get(job, conn, m);
    else if (strcmp(cmd, "barrier_in") == 0)
        do_barrier(job, conn);
    else if (strcmp(cmd, "finalize") == 0) {
        r->finalized = 1;
        mp_pmi_server_reply(job, conn, "finalize_ack", 0, NULL);
    } else if (strcmp(cmd, "abort") == 0)
        do_abort(job, conn, m);
    else if (strcmp(cmd, "publish_name") == 0)
        mp_pmi_server_reply(job, conn, "publish_result", -1, "not_supported");
    else if (strcmp(cmd, "unpublish_name") == 0)
        mp_pmi_server_reply(job, conn, "unpublish_result", -1, "not_supported");
    else if (strcmp(cmd, "lookup_name") == 0)
        mp_pmi_server_reply(job, conn, "lookup_result", -1, "not_supported");
    else
        protocol_error(job, conn, "unknown command", cmd);
}

/* ---- connection input --------------------------------------------------- */

static void process_lines(mp_job *job, int conn)
{
    mp_conn *c = &job->conns[conn];
    mp_pmi_msg msg;
    const char *err;
    size_t start = 0;

    while (c->fd >= 0) {
        char *nl = memchr(c->in + start, '\n', c->in_len - start);
        if (nl == NULL)
            break;
        size_t len = (size_t)(nl - (c->in + start));
        if (mp_spawn_line(job, conn, c->in + start, len)) {
            start += len + 1;
            continue;
        }
        if (mp_pmi_wire_parse(c->in + start, len, &msg, &err) < 0) {
            char shown[81];
            snprintf(shown, sizeof shown, "%.*s", (int)(len < 80 ? len : 80), c->in + start);
            for (char *p = shown; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
                    *p = '?';
            protocol_error(job, conn, err, shown);
            return;
        }
        start += len + 1;
        dispatch(job, conn, &msg);
    }
    if (c->fd < 0)
        return;
    c->in_len -= start;
    memmove(c->in, c->in + start, c->in_len);
    if (c->in_len == sizeof c->in)
        protocol_error(job, conn, "request line too long", NULL);
}

void mp_pmi_server_readable(mp_job *job, int conn)
{
    mp_conn *c = &job->conns[conn];
    while (c->fd >= 0) {
        ssize_t n = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            mp_pmi_server_close(job, conn);   /* EOF: the rank closed it or died */
            return;
        }
        c->in_len += (size_t)n;
        process_lines(job, conn);
    }
}

void mp_pmi_server_close(mp_job *job, int conn)
{
    mp_conn *c = &job->conns[conn];
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

void mp_pmi_server_accept(mp_job *job)
{
    for (;;) {
        int fd = accept4(job->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        if (job->nconns == job->n) {
            close(fd);   /* more connections than ranks: not ours */
            continue;
        }
        mp_conn *c = &job->conns[job->nconns++];
        c->fd = fd;
        c->rank = -1;
        c->in_len = 0;
    }
}

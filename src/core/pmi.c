/* pmi.c -- PMI-1 and PMI-2 wire client: init, put/fence/get, abort, finalize.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Why PMI-1 on the wire: it is the one protocol every launcher we care about
 * serves without a library (Hydra over PMI_FD or PMI_PORT, Slurm's pmi2
 * plugin, MemPI's own mpiexec), and it is simple enough to implement
 * strictly in a page of code.
 *
 * Connection: the launcher passes an already connected socket in PMI_FD
 * (rank and size in PMI_RANK / PMI_SIZE), or a TCP address in PMI_PORT with
 * PMI_ID, in which case the client first does Hydra's `cmd=initack pmiid=ID`
 * handshake and learns size and rank from the `cmd=set` lines that follow.
 * With neither, the process is a singleton and the store is a local table
 * pre-filled with the keys a launcher would provide; to spawn, a singleton runs
 * MemPI's mpiexec as its spawner and speaks the spawn wire to it alone
 * (singleton_spawner).
 *
 * Every exchange is lock-step (one request, one response line), done by
 * request(): format the line with pmi_wire, write it all (EINTR, short
 * writes), read one line (EINTR, partial reads, bytes after the '\n' kept for
 * the next call), parse it strictly, check the command name and rc.  Any
 * deviation is an error with a message in mp_pmi_error(); nothing is printed
 * and nothing aborts here -- the caller decides.
 *
 * Puts are sent at once (the server stores them on receipt); the fence is a
 * barrier, after which every earlier put of every rank is visible.
 *
 * PMI-2 (MEMPI_PMI=2 as loaded into mp_cfg.pmi, or PMI_VERSION=2 from the launcher; PMI_FD
 * required):
 * the same calls over the PMI-2 wire protocol (handshake2; framing in
 * pmi_wire.h): fullinit, job-getid, kvs-put / kvs-fence / kvs-get, and
 * info-getjobattr for the launcher's own PMI_* keys such as
 * PMI_process_mapping.  Slurm's `srun --mpi=pmi2` serves both versions (its
 * PMI-1 answers appnum=-1, accepted as 0), so PMI-1 stays the default.
 */
#include "core/core.h"
#include "core/failboard.h"
#include "core/pmi.h"
#include "core/pmi_wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PMI_DEFAULT_KVSNAME_MAX 256
#define PMI_DEFAULT_KEYLEN_MAX  64
#define PMI_DEFAULT_VALLEN_MAX  1024
#define PMI_MAX_RANKS           (1L << 24)

typedef struct local_pair {
    char *key, *value;
} local_pair;

static struct {
    pthread_mutex_t lock;
    int initialized;
    int singleton;
    int fd;
    int rank, size, appnum, universe;
    long kvsname_max, keylen_max, vallen_max;
    char kvsname[PMI_DEFAULT_KVSNAME_MAX];
    char in[MP_PMI_WIRE_MAXLINE];   /* bytes read but not yet consumed */
    size_t in_len;
    local_pair *local;              /* singleton store */
    int nlocal, local_cap;
    char error[512];
    int v2;                         /* PMI-2 wire protocol (see handshake2) */
    char spawned_job[MP_FAILBOARD_JOB];   /* the last spawn's job, where the launcher says */
    int spawner_fd;                 /* a singleton's spawner (singleton_spawner), -1: none */
    pid_t spawner_pid;
} pmi = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .spawner_fd = -1 };

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pmi.error, sizeof pmi.error, fmt, ap);
    va_end(ap);
    return code;
}

const char *mp_pmi_error(void)
{
    return pmi.error[0] ? pmi.error : "no error";
}

int mp_pmi_is_singleton(void)
{
    return pmi.initialized && pmi.singleton;
}

/* MemPI's mpiexec (and a singleton) publish a random job id; other launchers name the job
 * through their key-value space, whose name is unique among the jobs they run: Hydra's is
 * kvs_<pid>_<pgid>_<random>_<host>, Slurm's <jobid>.<step>.  The two kinds cannot collide
 * (the prefix "kvs:" is not hex).  A name too long for the caller's buffer is shortened to
 * its 64-bit FNV-1a hash and its head, so the id stays a fixed-size field on a wire. */
int mp_pmi_job_id(char *value, int maxlen)
{
    if (mp_pmi_get(MP_PMI_KEY_JOB_ID, value, maxlen) == 0)
        return 0;
    if (!pmi.initialized || pmi.kvsname[0] == '\0')
        return fail(MP_PMI_ENOTFOUND, "PMI: the launcher named no job");
    if (maxlen < 24)
        return fail(MP_PMI_EINVAL, "PMI: no room for a job id in %d bytes", maxlen);
    if (snprintf(value, (size_t)maxlen, "kvs:%s", pmi.kvsname) < maxlen)
        return 0;
    uint64_t h = 14695981039346656037ull;
    for (const char *c = pmi.kvsname; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    snprintf(value, (size_t)maxlen, "kvs#%016llx:%s", (unsigned long long)h, pmi.kvsname);
    return 0;
}

/* ---- environment -------------------------------------------------------- */

/* 1 if set and valid, 0 if unset, -1 (error recorded) if malformed. */
static int env_long(const char *name, long min, long max, long *out)
{
    const char *s = getenv(name);
    if (s == NULL)
        return 0;
    if (mp_pmi_parse_long(s, min, max, out) < 0) {
        fail(MP_PMI_EINVAL, "PMI: invalid %s='%s' (expected an integer in [%ld, %ld])", name, s,
             min, max);
        return -1;
    }
    return 1;
}

/* ---- byte transport ----------------------------------------------------- */

static int write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(pmi.fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(pmi.fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(MP_PMI_EFAIL, "PMI: write to launcher (fd %d) failed: %s", pmi.fd,
                        n < 0 ? strerror(errno) : "no progress");
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads one '\n'-terminated line into line[] (without the newline). */
static int read_line(char *line, size_t *len)
{
    for (;;) {
        char *nl = memchr(pmi.in, '\n', pmi.in_len);
        if (nl != NULL) {
            size_t n = (size_t)(nl - pmi.in);
            memcpy(line, pmi.in, n);
            *len = n;
            pmi.in_len -= n + 1;
            memmove(pmi.in, nl + 1, pmi.in_len);
            return 0;
        }
        if (pmi.in_len == sizeof pmi.in)
            return fail(MP_PMI_EFAIL, "PMI: response line from launcher longer than %d bytes",
                        MP_PMI_WIRE_MAXLINE);
        ssize_t n = read(pmi.fd, pmi.in + pmi.in_len, sizeof pmi.in - pmi.in_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(MP_PMI_EFAIL, "PMI: read from launcher (fd %d) failed: %s", pmi.fd,
                        strerror(errno));
        if (n == 0)
            return fail(MP_PMI_EFAIL, "PMI: launcher closed the connection (fd %d)", pmi.fd);
        pmi.in_len += (size_t)n;
    }
}

/* Reads exactly n bytes (PMI-2 framing), the buffered ones first. */
static int read_exact(char *out, size_t n)
{
    while (pmi.in_len < n) {
        ssize_t got = read(pmi.fd, pmi.in + pmi.in_len, sizeof pmi.in - pmi.in_len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fail(MP_PMI_EFAIL, "PMI: read from launcher (fd %d) failed: %s", pmi.fd,
                        strerror(errno));
        if (got == 0)
            return fail(MP_PMI_EFAIL, "PMI: launcher closed the connection (fd %d)", pmi.fd);
        pmi.in_len += (size_t)got;
    }
    memcpy(out, pmi.in, n);
    pmi.in_len -= n;
    memmove(pmi.in, pmi.in + n, pmi.in_len);
    return 0;
}

/* One PMI-2 message: the 6-byte length field, then the body. */
static int read_message2(const char *expect, mp_pmi_msg *msg)
{
    char header[6], body[MP_PMI_WIRE_MAXLINE];
    size_t len;
    const char *err;
    if (read_exact(header, 6) < 0)
        return MP_PMI_EFAIL;
    if (mp_pmi2_wire_length(header, &len) < 0)
        return fail(MP_PMI_EFAIL, "PMI: malformed PMI-2 length field '%.6s' in the response to %s",
                    header, expect);
    if (len + 1 > sizeof body)
        return fail(MP_PMI_EFAIL, "PMI: PMI-2 response to %s of %zu bytes is longer than %d",
                    expect, len, MP_PMI_WIRE_MAXLINE - 1);
    if (read_exact(body, len) < 0)
        return MP_PMI_EFAIL;
    if (mp_pmi2_wire_parse(body, len, msg, &err) < 0)
        return fail(MP_PMI_EFAIL, "PMI: malformed PMI-2 response to %s from launcher: %s",
                    expect, err);
    return 0;
}

static int send_line(mp_pmi_line *line)
{
    const char *err;
    long len = mp_pmi_line_finish(line, &err);
    if (len < 0)
        return fail(MP_PMI_EINVAL, "PMI: cannot format request: %s", err);
    return write_all(line->buf, (size_t)len);
}

/* Reads one response, checks it is cmd=<expect> and, if rc is present, that
 * it is 0 (else returns `rc_error` with the server's msg). */
static int receive(const char *expect, mp_pmi_msg *msg, int rc_error)
{
    char line[MP_PMI_WIRE_MAXLINE];
    size_t len = 0;
    const char *err;
    long rc = 0;

    if (pmi.v2) {
        if (read_message2(expect, msg) < 0)
            return MP_PMI_EFAIL;
    } else {
        if (read_line(line, &len) < 0)
            return MP_PMI_EFAIL;
        if (mp_pmi_wire_parse(line, len, msg, &err) < 0)
            return fail(MP_PMI_EFAIL, "PMI: malformed response to %s from launcher: %s", expect,
                        err);
    }
    if (strcmp(mp_pmi_msg_cmd(msg), expect) != 0)
        return fail(MP_PMI_EFAIL, "PMI: expected cmd=%s from launcher, got cmd=%s", expect,
                    mp_pmi_msg_cmd(msg));
    if (mp_pmi_msg_get(msg, "rc") != NULL && mp_pmi_msg_get_long(msg, "rc", -1000000, 1000000, &rc) < 0)
        return fail(MP_PMI_EFAIL, "PMI: malformed rc in cmd=%s", expect);
    if (rc != 0) {
        const char *why = mp_pmi_msg_get(msg, pmi.v2 ? "errmsg" : "msg");
        return fail(rc_error, "PMI: launcher answered cmd=%s rc=%ld%s%s", expect, rc,
                    why ? ": " : "", why ? why : "");
    }
    return 0;
}

static int request(mp_pmi_line *line, const char *expect, mp_pmi_msg *msg, int rc_error)
{
    int rc = send_line(line);
    return rc < 0 ? rc : receive(expect, msg, rc_error);
}

/* A response field that must be an integer in range. */
static int response_long(const mp_pmi_msg *msg, const char *key, long min, long max, long *out)
{
    if (mp_pmi_msg_get_long(msg, key, min, max, out) < 0)
        return fail(MP_PMI_EFAIL, "PMI: cmd=%s has a missing or invalid %s (expected [%ld, %ld])",
                    mp_pmi_msg_cmd(msg), key, min, max);
    return 0;
}

/* ---- connecting --------------------------------------------------------- */

static int connect_tcp(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
    long port;
    int fd = -1, gai;

    if (colon == NULL || colon == hostport || (size_t)(colon - hostport) >= sizeof host ||
        mp_pmi_parse_long(colon + 1, 1, 65535, &port) < 0)
        return fail(MP_PMI_EINVAL, "PMI: invalid PMI_PORT='%s' (expected host:port)", hostport);
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {   /* [::1]:port */
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    if ((gai = getaddrinfo(host, colon + 1, &hints, &res)) != 0)
        return fail(MP_PMI_EFAIL, "PMI: cannot resolve PMI_PORT host '%s': %s", host,
                    gai_strerror(gai));
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        int rc;
        do
            rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        while (rc < 0 && errno == EINTR);
        if (rc == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return fail(MP_PMI_EFAIL, "PMI: cannot connect to PMI_PORT=%s: %s", hostport,
                    strerror(errno));
    pmi.fd = fd;
    return 0;
}

/* Hydra's PMI_PORT prefix: initack, then size, rank and debug as cmd=set. */
static int port_handshake(long id)
{
    static const char *const fields[3] = { "size", "rank", "debug" };
    mp_pmi_line line;
    mp_pmi_msg msg;
    long value[3];

    mp_pmi_line_start(&line, "initack");
    mp_pmi_line_add_long(&line, "pmiid", id);
    if (request(&line, "initack", &msg, MP_PMI_EFAIL) < 0)
        return MP_PMI_EFAIL;
    for (int i = 0; i < 3; i++) {
        if (receive("set", &msg, MP_PMI_EFAIL) < 0 ||
            response_long(&msg, fields[i], 0, PMI_MAX_RANKS, &value[i]) < 0)
            return MP_PMI_EFAIL;
    }
    if (value[0] < 1 || value[1] >= value[0])
        return fail(MP_PMI_EFAIL, "PMI: launcher sent rank %ld of size %ld", value[1], value[0]);
    pmi.size = (int)value[0];
    pmi.rank = (int)value[1];
    return 0;
}

static int connect_from_env(void)
{
    long fd, rank = 0, size = 0, id;
    int has_fd, has_rank, has_size, has_id;
    const char *port = getenv("PMI_PORT");

    if ((has_fd = env_long("PMI_FD", 0, 1L << 20, &fd)) < 0 ||
        (has_rank = env_long("PMI_RANK", 0, PMI_MAX_RANKS - 1, &rank)) < 0 ||
        (has_size = env_long("PMI_SIZE", 1, PMI_MAX_RANKS, &size)) < 0 ||
        (has_id = env_long("PMI_ID", 0, PMI_MAX_RANKS - 1, &id)) < 0)
        return MP_PMI_EINVAL;
    if (has_fd) {
        if (fcntl((int)fd, F_GETFD) < 0)
            return fail(MP_PMI_EINVAL, "PMI: PMI_FD=%ld is not an open file descriptor", fd);
        pmi.fd = (int)fd;
        fcntl(pmi.fd, F_SETFD, FD_CLOEXEC);   /* a rank's exec'd children must not inherit it */
    } else if (port != NULL) {
        int rc = connect_tcp(port);
        if (rc < 0)
            return rc;
        if (has_id)
            return port_handshake(id);
    } else {
        pmi.singleton = 1;
        return 0;
    }
    if (!has_rank || !has_size)
        return fail(MP_PMI_EINVAL, "PMI: PMI_%s is set but PMI_RANK/PMI_SIZE are not",
                    has_fd ? "FD" : "PORT");
    if (rank >= size)
        return fail(MP_PMI_EINVAL, "PMI: PMI_RANK=%ld is not below PMI_SIZE=%ld", rank, size);
    pmi.rank = (int)rank;
    pmi.size = (int)size;
    return 0;
}

/* ---- the singleton's local store ---------------------------------------- */

static local_pair *local_find(const char *key)
{
    for (int i = 0; i < pmi.nlocal; i++)
        if (strcmp(pmi.local[i].key, key) == 0)
            return &pmi.local[i];
    return NULL;
}

static int local_put(const char *key, const char *value)
{
    if (local_find(key) != NULL)
        return fail(MP_PMI_EINVAL, "PMI: key '%s' was already put", key);
    if (pmi.nlocal == pmi.local_cap) {
        int cap = pmi.local_cap ? 2 * pmi.local_cap : 16;
        local_pair *p = realloc(pmi.local, (size_t)cap * sizeof *p);
        if (p == NULL)
            return fail(MP_PMI_EFAIL, "PMI: out of memory for the local store");
        pmi.local = p;
        pmi.local_cap = cap;
    }
    char *k = strdup(key), *v = strdup(value);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        return fail(MP_PMI_EFAIL, "PMI: out of memory for the local store");
    }
    pmi.local[pmi.nlocal].key = k;
    pmi.local[pmi.nlocal].value = v;
    pmi.nlocal++;
    return 0;
}

static void local_clear(void)
{
    for (int i = 0; i < pmi.nlocal; i++) {
        free(pmi.local[i].key);
        free(pmi.local[i].value);
    }
    free(pmi.local);
    pmi.local = NULL;
    pmi.nlocal = pmi.local_cap = 0;
}

/* What mpiexec would serve, so the library has one code path. */
static int singleton_setup(void)
{
    unsigned char bytes[16];
    char hex[2 * sizeof bytes + 1];
    size_t got = 0;

    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(MP_PMI_EFAIL, "PMI: getrandom failed: %s", strerror(errno));
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    pmi.rank = 0;
    pmi.size = pmi.universe = 1;
    pmi.appnum = 0;
    pmi.kvsname_max = PMI_DEFAULT_KVSNAME_MAX;
    pmi.keylen_max = PMI_DEFAULT_KEYLEN_MAX;
    pmi.vallen_max = PMI_DEFAULT_VALLEN_MAX;
    snprintf(pmi.kvsname, sizeof pmi.kvsname, "singleton_%ld", (long)getpid());
    if (local_put(MP_PMI_KEY_PROCESS_MAPPING, "(vector,(0,1,1))") < 0 ||
        local_put(MP_PMI_KEY_JOB_ID, hex) < 0)
        return MP_PMI_EFAIL;
    return 0;
}

/* ---- the PMI-1 start-up exchange ---------------------------------------- */

/* PMI-2 (MEMPI_PMI=2 or PMI_VERSION=2 in the environment, with PMI_FD): the PMI-1 style
 * init line asks for version 2, then framed messages: fullinit (rank, size, appnum) and
 * job-getid (the key-value space's name).  PMI-2 fixes the limits: keys 64, values 1024. */
static int want_v2(void)
{
    const char *v = getenv("PMI_VERSION");      /* the launcher's word, not a MEMPI_ variable */
    if (mp_cfg.pmi != 0)
        return mp_cfg.pmi == 2;
    return v != NULL && strcmp(v, "2") == 0;
}

static int handshake2(void)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    long v, rank, size;
    const char *id;

    mp_pmi_line_start(&line, "init");
    mp_pmi_line_add(&line, "pmi_version", "2");
    mp_pmi_line_add(&line, "pmi_subversion", "0");
    if (request(&line, "response_to_init", &msg, MP_PMI_EFAIL) < 0)
        return MP_PMI_EFAIL;
    if (mp_pmi_msg_get_long(&msg, "pmi_version", 0, 1000, &v) < 0 || v != 2)
        return fail(MP_PMI_EFAIL, "PMI: launcher does not speak PMI version 2 (pmi_version=%s); "
                    "unset MEMPI_PMI / PMI_VERSION to use PMI-1",
                    mp_pmi_msg_get(&msg, "pmi_version") ? mp_pmi_msg_get(&msg, "pmi_version") : "none");
    pmi.v2 = 1;
    mp_pmi2_line_start(&line, "fullinit");
    if ((id = getenv("PMI_JOBID")) != NULL)      /* Slurm wants it back */
        mp_pmi_line_add(&line, "pmijobid", id);
    mp_pmi_line_add_long(&line, "pmirank", pmi.rank);
    mp_pmi_line_add(&line, "threaded", "FALSE");
    if (request(&line, "fullinit-response", &msg, MP_PMI_EFAIL) < 0 ||
        response_long(&msg, "rank", 0, PMI_MAX_RANKS - 1, &rank) < 0 ||
        response_long(&msg, "size", 1, PMI_MAX_RANKS, &size) < 0 ||
        response_long(&msg, "appnum", -1, 1L << 30, &v) < 0)
        return MP_PMI_EFAIL;
    if (rank != pmi.rank || size != pmi.size)
        return fail(MP_PMI_EFAIL, "PMI: launcher says rank %ld of %ld, the environment %d of %d",
                    rank, size, pmi.rank, pmi.size);
    pmi.appnum = v < 0 ? 0 : (int)v;
    pmi.kvsname_max = PMI_DEFAULT_KVSNAME_MAX;
    pmi.keylen_max = 64;
    pmi.vallen_max = PMI_DEFAULT_VALLEN_MAX;

    mp_pmi2_line_start(&line, "job-getid");
    if (request(&line, "job-getid-response", &msg, MP_PMI_EFAIL) < 0)
        return MP_PMI_EFAIL;
    id = mp_pmi_msg_get(&msg, "jobid");
    if (id == NULL || id[0] == '\0' || strlen(id) >= sizeof pmi.kvsname || strchr(id, ';') != NULL)
        return fail(MP_PMI_EFAIL, "PMI: launcher sent a missing or invalid jobid");
    strcpy(pmi.kvsname, id);
    pmi.universe = 0;
    return 0;
}

static int handshake(void)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    long v, kmax, vmax, nmax;
    const char *name;

    mp_pmi_line_start(&line, "init");
    mp_pmi_line_add(&line, "pmi_version", "1");
    mp_pmi_line_add(&line, "pmi_subversion", "1");
    if (request(&line, "response_to_init", &msg, MP_PMI_EFAIL) < 0)
        return MP_PMI_EFAIL;
    if (mp_pmi_msg_get(&msg, "pmi_version") != NULL &&
        (mp_pmi_msg_get_long(&msg, "pmi_version", 0, 1000, &v) < 0 || v != 1))
        return fail(MP_PMI_EFAIL, "PMI: launcher does not speak PMI version 1 (pmi_version=%s)",
                    mp_pmi_msg_get(&msg, "pmi_version"));

    mp_pmi_line_start(&line, "get_maxes");
    if (request(&line, "maxes", &msg, MP_PMI_EFAIL) < 0 ||
        response_long(&msg, "kvsname_max", 2, 1L << 20, &nmax) < 0 ||
        response_long(&msg, "keylen_max", 2, 1L << 20, &kmax) < 0 ||
        response_long(&msg, "vallen_max", 2, 1L << 20, &vmax) < 0)
        return MP_PMI_EFAIL;
    pmi.kvsname_max = nmax;
    pmi.keylen_max = kmax;
    pmi.vallen_max = vmax;

    /* Slurm's pmi2 plugin, which serves PMI-1 clients too, answers appnum=-1 ("unknown"):
     * a single application, number 0. */
    mp_pmi_line_start(&line, "get_appnum");
    if (request(&line, "appnum", &msg, MP_PMI_EFAIL) < 0 ||
        response_long(&msg, "appnum", -1, 1L << 30, &v) < 0)
        return MP_PMI_EFAIL;
    pmi.appnum = v < 0 ? 0 : (int)v;

    mp_pmi_line_start(&line, "get_my_kvsname");
    if (request(&line, "my_kvsname", &msg, MP_PMI_EFAIL) < 0)
        return MP_PMI_EFAIL;
    name = mp_pmi_msg_get(&msg, "kvsname");
    if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof pmi.kvsname ||
        strchr(name, ' ') != NULL)
        return fail(MP_PMI_EFAIL, "PMI: launcher sent a missing or invalid kvsname");
    strcpy(pmi.kvsname, name);
    pmi.universe = 0;   /* asked for lazily */
    return 0;
}

static void disconnect(void)
{
    if (pmi.fd >= 0)
        close(pmi.fd);
    pmi.fd = -1;
    pmi.in_len = 0;
}

int mp_pmi_init(int *rank, int *size, int *appnum)
{
    int rc = 0;

    pthread_mutex_lock(&pmi.lock);
    if (!pmi.initialized) {
        pmi.error[0] = '\0';
        pmi.singleton = 0;
        rc = connect_from_env();
        pmi.v2 = 0;
        if (rc == 0)
            rc = pmi.singleton ? singleton_setup() : want_v2() ? handshake2() : handshake();
        if (rc < 0) {
            local_clear();
            if (pmi.fd >= 0 && getenv("PMI_FD") == NULL)
                disconnect();   /* our own TCP socket */
            pmi.fd = -1;
        } else {
            pmi.initialized = 1;
        }
    }
    if (rc == 0) {
        if (rank)
            *rank = pmi.rank;
        if (size)
            *size = pmi.size;
        if (appnum)
            *appnum = pmi.appnum;
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* ---- key-value store ---------------------------------------------------- */

/* Keys and values travel as wire values: printable ASCII without spaces
 * (spaces would need escapes that not every PMI server undoes). */
static int check_text(const char *what, const char *s, long max_with_nul, int allow_empty)
{
    size_t n;
    if (s == NULL)
        return fail(MP_PMI_EINVAL, "PMI: %s is NULL", what);
    n = strlen(s);
    if (n == 0 && !allow_empty)
        return fail(MP_PMI_EINVAL, "PMI: %s is empty", what);
    if ((long)n + 1 > max_with_nul)
        return fail(MP_PMI_EINVAL, "PMI: %s of %zu bytes exceeds the launcher's limit of %ld",
                    what, n, max_with_nul - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return fail(MP_PMI_EINVAL, "PMI: %s has a space, control or non-ASCII byte at %zu",
                        what, i);
    return 0;
}

static int check_ready(const char *fn)
{
    if (!pmi.initialized)
        return fail(MP_PMI_EINVAL, "PMI: %s called before mp_pmi_init", fn);
    return 0;
}

int mp_pmi_put(const char *key, const char *value)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    int rc;

    pthread_mutex_lock(&pmi.lock);
    if ((rc = check_ready("mp_pmi_put")) == 0 &&
        (rc = check_text("key", key, pmi.keylen_max, 0)) == 0 &&
        (rc = check_text("value", value, pmi.vallen_max, 1)) == 0) {
        if (pmi.singleton) {
            rc = local_put(key, value);
        } else if (pmi.v2) {
            mp_pmi2_line_start(&line, "kvs-put");
            mp_pmi_line_add(&line, "key", key);
            mp_pmi_line_add(&line, "value", value);
            rc = request(&line, "kvs-put-response", &msg, MP_PMI_EFAIL);
        } else {
            mp_pmi_line_start(&line, "put");
            mp_pmi_line_add(&line, "kvsname", pmi.kvsname);
            mp_pmi_line_add(&line, "key", key);
            mp_pmi_line_add(&line, "value", value);
            rc = request(&line, "put_result", &msg, MP_PMI_EFAIL);
        }
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int mp_pmi_fence(void)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    int rc;

    pthread_mutex_lock(&pmi.lock);
    rc = check_ready("mp_pmi_fence");
    if (rc == 0 && !pmi.singleton && pmi.v2) {
        mp_pmi2_line_start(&line, "kvs-fence");
        rc = request(&line, "kvs-fence-response", &msg, MP_PMI_EFAIL);
    } else if (rc == 0 && !pmi.singleton) {
        mp_pmi_line_start(&line, "barrier_in");
        rc = request(&line, "barrier_out", &msg, MP_PMI_EFAIL);
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

static int copy_value(const char *key, const char *value, char *out, int maxlen)
{
    size_t n = strlen(value);
    if ((long)n + 1 > (long)maxlen)
        return fail(MP_PMI_EINVAL, "PMI: value of key '%s' has %zu bytes, buffer holds %d", key,
                    n, maxlen);
    memcpy(out, value, n + 1);
    return 0;
}

/* PMI-2 get: the launcher's own keys (PMI_process_mapping, ...) are job attributes, the
 * others live in the job's key-value space. */
static int get2(const char *key, char *value, int maxlen)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    int attr = strncmp(key, "PMI_", 4) == 0;
    if (attr) {
        mp_pmi2_line_start(&line, "info-getjobattr");
        mp_pmi_line_add(&line, "key", key);
    } else {
        mp_pmi2_line_start(&line, "kvs-get");
        mp_pmi_line_add(&line, "jobid", pmi.kvsname);
        mp_pmi_line_add_long(&line, "srcid", -1);
        mp_pmi_line_add(&line, "key", key);
    }
    int rc = request(&line, attr ? "info-getjobattr-response" : "kvs-get-response", &msg,
                     MP_PMI_ENOTFOUND);
    if (rc != 0)
        return rc;
    const char *found = mp_pmi_msg_get(&msg, "found"), *v = mp_pmi_msg_get(&msg, "value");
    if (found != NULL && strcasecmp(found, "TRUE") != 0)
        return fail(MP_PMI_ENOTFOUND, "PMI: key '%s' not found", key);
    return v ? copy_value(key, v, value, maxlen)
             : fail(MP_PMI_EFAIL, "PMI: the PMI-2 answer for '%s' has no value", key);
}

int mp_pmi_get(const char *key, char *value, int maxlen)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    const char *v;
    local_pair *p;
    int rc;

    pthread_mutex_lock(&pmi.lock);
    if ((rc = check_ready("mp_pmi_get")) == 0 && (rc = check_text("key", key, pmi.keylen_max, 0)) == 0) {
        if (value == NULL || maxlen < 1) {
            rc = fail(MP_PMI_EINVAL, "PMI: get of '%s' into a buffer of %d bytes", key, maxlen);
        } else if (pmi.singleton) {
            p = local_find(key);
            rc = p ? copy_value(key, p->value, value, maxlen)
                   : fail(MP_PMI_ENOTFOUND, "PMI: key '%s' not found", key);
        } else if (pmi.v2) {
            rc = get2(key, value, maxlen);
        } else {
            mp_pmi_line_start(&line, "get");
            mp_pmi_line_add(&line, "kvsname", pmi.kvsname);
            mp_pmi_line_add(&line, "key", key);
            rc = request(&line, "get_result", &msg, MP_PMI_ENOTFOUND);
            if (rc == 0) {
                v = mp_pmi_msg_get(&msg, "value");
                rc = v ? copy_value(key, v, value, maxlen)
                       : fail(MP_PMI_EFAIL, "PMI: get_result for '%s' has no value", key);
            }
        }
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

int mp_pmi_universe_size(int *n)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    long v;
    int rc;

    pthread_mutex_lock(&pmi.lock);
    rc = check_ready("mp_pmi_universe_size");
    if (rc == 0 && pmi.universe == 0 && (pmi.singleton || pmi.v2)) {
        pmi.universe = pmi.size;   /* PMI-2: no standard attribute; the job's size */
    } else if (rc == 0 && pmi.universe == 0) {
        mp_pmi_line_start(&line, "get_universe_size");
        rc = request(&line, "universe_size", &msg, MP_PMI_EFAIL);
        if (rc == 0)
            rc = response_long(&msg, "size", -1, PMI_MAX_RANKS, &v);
        if (rc == 0)
            pmi.universe = v > 0 ? (int)v : pmi.size;   /* Hydra says -1 for "unknown" */
    }
    if (rc == 0 && n)
        *n = pmi.universe;
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* ---- spawn --------------------------------------------------------------- */

/* Appends "key=value\n" (value raw: PMI-1's spawn block is line-based, not token-based), or
 * under PMI-2 "key=value;" with every ';' of the value doubled (the wire's escape). */
static int spawn_add(char **buf, size_t *len, size_t *cap, const char *key, long index,
                     const char *value)
{
    char k[48];
    if (index >= 0)
        snprintf(k, sizeof k, "%s%ld", key, index);
    else
        snprintf(k, sizeof k, "%s", key);
    if (value == NULL)
        value = "";
    if (strchr(value, '\n'))
        return fail(MP_PMI_EINVAL, "PMI: spawn %s holds a newline", k);
    size_t need = strlen(k) + 2 * strlen(value) + 3;
    if (*len + need > *cap) {
        char *grown = realloc(*buf, (*len + need) * 2);
        if (grown == NULL)
            return fail(MP_PMI_EFAIL, "PMI: out of memory for a spawn request");
        *cap = (*len + need) * 2;
        *buf = grown;
    }
    if (!pmi.v2) {
        *len += (size_t)snprintf(*buf + *len, *cap - *len, "%s%s%s\n", k,
                                 index == -2 ? "" : "=", value);
        return 0;
    }
    *len += (size_t)snprintf(*buf + *len, *cap - *len, "%s=", k);
    for (const char *c = value; *c; c++) {
        if (*c == ';')
            (*buf)[(*len)++] = ';';
        (*buf)[(*len)++] = *c;
    }
    (*buf)[(*len)++] = ';';
    (*buf)[*len] = '\0';
    return 0;
}

static int spawn_add_long(char **buf, size_t *len, size_t *cap, const char *key, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    return spawn_add(buf, len, cap, key, -1, text);
}

/* PMI-2's spawn (Slurm's pmi2 plugin): one message, the job's preput pairs first, then per
 * command subcmd, maxprocs, argc, argv<i> and infokeycount, infokey<i>, infoval<i>. */
static int spawn_body2(char **buf, size_t *len, size_t *cap, int count,
                       const mp_pmi_spawn_cmd *cmds, int npreput,
                       const char *const *preput_key, const char *const *preput_val)
{
    *len = 6;                         /* the length field, written last */
    int rc = spawn_add(buf, len, cap, "cmd", -1, "spawn");
    rc = rc ? rc : spawn_add_long(buf, len, cap, "ncmds", count);
    rc = rc ? rc : spawn_add_long(buf, len, cap, "preputcount", npreput);
    for (int k = 0; k < npreput && rc == 0; k++) {
        rc = spawn_add(buf, len, cap, "ppkey", k, preput_key[k]);
        rc = rc ? rc : spawn_add(buf, len, cap, "ppval", k, preput_val[k]);
    }
    for (int i = 0; i < count && rc == 0; i++) {
        const mp_pmi_spawn_cmd *c = &cmds[i];
        int argc = 0;
        while (c->argv && c->argv[argc])
            argc++;
        rc = spawn_add(buf, len, cap, "subcmd", -1, c->command);
        rc = rc ? rc : spawn_add_long(buf, len, cap, "maxprocs", c->maxprocs);
        rc = rc ? rc : spawn_add_long(buf, len, cap, "argc", argc);
        for (int k = 0; k < argc && rc == 0; k++)
            rc = spawn_add(buf, len, cap, "argv", k, c->argv[k]);
        rc = rc ? rc : spawn_add_long(buf, len, cap, "infokeycount", c->ninfo);
        for (int k = 0; k < c->ninfo && rc == 0; k++) {
            rc = spawn_add(buf, len, cap, "infokey", k, c->info_keys[k]);
            rc = rc ? rc : spawn_add(buf, len, cap, "infoval", k, c->info_vals[k]);
        }
    }
    if (rc == 0 && *len - 6 > 999999)
        rc = fail(MP_PMI_EINVAL, "PMI: a spawn request of %zu bytes is too long", *len - 6);
    if (rc == 0) {
        char head[8];
        snprintf(head, sizeof head, "%-6zu", *len - 6);
        memcpy(*buf, head, 6);
    }
    return rc;
}

/* A singleton spawns through a launcher of its own: MemPI's mpiexec, found next to this
 * library (<libdir>/../bin/mpiexec, by dladdr, symlinks resolved) or named by MEMPI_MPIEXEC, run once as
 * `mpiexec --serve-singleton FD BOARDFD USIZE` (tools/mpiexec/spawn.c).  It gets one end of a
 * socketpair, over which we send the same mcmd=spawn blocks as to a job's launcher, and a
 * failure board we create (a memfd, named in our store under MP_FAILBOARD_KEY as mpiexec
 * names its own), so a spawned job's death reaches us as it reaches a job's ranks.  It is not
 * tied to the thread that started it; it learns our end from the socket: cmd=finalize then
 * EOF (MPI_Finalize) lets the spawned jobs finish, EOF alone (we died) kills them. */
static int singleton_spawner(void)
{
    char exe[4096], lib[4096], fd_text[16], board_text[16], usize[16];
    Dl_info dl;
    int sv[2];

    if (pmi.spawner_fd >= 0)
        return 0;
    if (mp_cfg.mpiexec && mp_cfg.mpiexec[0])
        snprintf(exe, sizeof exe, "%s", mp_cfg.mpiexec);
    else if (dladdr((void *)mp_pmi_spawn, &dl) && dl.dli_fname &&
             realpath(dl.dli_fname, lib) && strrchr(lib, '/'))     /* not a symlink's dir */
        snprintf(exe, sizeof exe, "%.*s/../bin/mpiexec", (int)(strrchr(lib, '/') - lib), lib);
    else
        snprintf(exe, sizeof exe, "mpiexec (the library's own path is unknown)");
    if (access(exe, X_OK) != 0)
        return fail(MP_PMI_EFAIL, "PMI: a process started without a launcher spawns through "
                    "MemPI's mpiexec, and %s is not executable (MEMPI_MPIEXEC names it)", exe);
    int board = memfd_create("mempi-failboard", MFD_CLOEXEC);
    mp_failboard *b = MAP_FAILED;
    if (board < 0 || ftruncate(board, sizeof *b) < 0 ||
        (b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED, board, 0)) == MAP_FAILED ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        int e = errno;
        if (board >= 0)
            close(board);
        return fail(MP_PMI_EFAIL, "PMI: cannot set up a singleton's spawner: %s", strerror(e));
    }
    atomic_store(&b->magic, MP_FAILBOARD_MAGIC);
    munmap(b, sizeof *b);             /* the failure progress hook maps it (core/procs.c) */
    snprintf(fd_text, sizeof fd_text, "%d", sv[1]);
    snprintf(board_text, sizeof board_text, "%d", board);
    snprintf(usize, sizeof usize, "%d", pmi.universe);
    pid_t pid = fork();
    if (pid == 0) {
        fcntl(sv[1], F_SETFD, 0);
        fcntl(board, F_SETFD, 0);
        execl(exe, "mpiexec", "--serve-singleton", fd_text, board_text, usize, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    if (pid < 0) {
        int e = errno;
        close(sv[0]);
        close(board);
        return fail(MP_PMI_EFAIL, "PMI: cannot start %s: %s", exe, strerror(e));
    }
    pmi.spawner_fd = sv[0];
    pmi.spawner_pid = pid;
    return local_put(MP_FAILBOARD_KEY, board_text);
}

int mp_pmi_spawn(int count, const mp_pmi_spawn_cmd *cmds, int npreput,
                 const char *const *preput_key, const char *const *preput_val)
{
    mp_pmi_msg msg;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc;

    pthread_mutex_lock(&pmi.lock);
    rc = check_ready("mp_pmi_spawn");
    if (rc == 0 && pmi.singleton)
        rc = singleton_spawner();
    int job_fd = pmi.fd;
    if (pmi.singleton)
        pmi.fd = pmi.spawner_fd;      /* the spawner speaks the launcher's spawn wire */
    if (rc == 0 && pmi.v2)
        rc = spawn_body2(&buf, &len, &cap, count, cmds, npreput, preput_key, preput_val);
    for (int i = 0; i < count && rc == 0 && !pmi.v2; i++) {
        const mp_pmi_spawn_cmd *c = &cmds[i];
        int argc = 0;
        while (c->argv && c->argv[argc])
            argc++;
        rc = spawn_add(&buf, &len, &cap, "mcmd=spawn", -2, "");
        rc = rc ? rc : spawn_add_long(&buf, &len, &cap, "nprocs", c->maxprocs);
        rc = rc ? rc : spawn_add(&buf, &len, &cap, "execname", -1, c->command);
        rc = rc ? rc : spawn_add_long(&buf, &len, &cap, "totspawns", count);
        rc = rc ? rc : spawn_add_long(&buf, &len, &cap, "spawnssofar", i + 1);
        rc = rc ? rc : spawn_add_long(&buf, &len, &cap, "argcnt", argc);
        for (int k = 0; k < argc && rc == 0; k++)
            rc = spawn_add(&buf, &len, &cap, "arg", k + 1, c->argv[k]);
        rc = rc ? rc : spawn_add_long(&buf, &len, &cap, "preput_num", npreput);
        for (int k = 0; k < npreput && rc == 0; k++) {
            rc = spawn_add(&buf, &len, &cap, "preput_key_", k, preput_key[k]);
            rc = rc ? rc : spawn_add(&buf, &len, &cap, "preput_val_", k, preput_val[k]);
        }
        rc = rc ? rc : spawn_add_long(&buf, &len, &cap, "info_num", c->ninfo);
        for (int k = 0; k < c->ninfo && rc == 0; k++) {
            rc = spawn_add(&buf, &len, &cap, "info_key_", k, c->info_keys[k]);
            rc = rc ? rc : spawn_add(&buf, &len, &cap, "info_val_", k, c->info_vals[k]);
        }
        rc = rc ? rc : spawn_add(&buf, &len, &cap, "endcmd", -2, "");
    }
    if (rc == 0)
        rc = write_all(buf, len);
    if (rc == 0)
        rc = receive(pmi.v2 ? "spawn-response" : "spawn_result", &msg, MP_PMI_EFAIL);
    const char *job = rc == 0 && !pmi.v2 ? mp_pmi_msg_get(&msg, MP_FAILBOARD_JOBKEY) : NULL;
    snprintf(pmi.spawned_job, sizeof pmi.spawned_job, "%s", job ? job : "");
    pmi.fd = job_fd;
    free(buf);
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

const char *mp_pmi_spawned_job(void)
{
    return pmi.spawned_job;
}

void mp_pmi_abort(int code, int fatal, const char *msg)
{
    mp_pmi_line line;
    char text[512];
    size_t i = 0;

    /* No lock: abort may come from a thread while another holds it. */
    if (pmi.initialized && !pmi.singleton && pmi.fd >= 0) {
        for (; msg != NULL && msg[i] != '\0' && i + 1 < sizeof text; i++)
            text[i] = mp_pmi_wire_is_value_char((unsigned char)msg[i]) ? msg[i] : '?';
        text[i] = '\0';
        if (pmi.v2) {
            for (size_t k = 0; k < i; k++)
                if (text[k] == ';')
                    text[k] = ',';   /* Slurm does not undo ";;" */
            mp_pmi2_line_start(&line, "abort");
            mp_pmi_line_add(&line, "isworld", "TRUE");
            mp_pmi_line_add(&line, "msg", text);
        } else {
            mp_pmi_line_start(&line, "abort");
            mp_pmi_line_add_long(&line, "exitcode", mp_pmi_exit_status(code));
            mp_pmi_line_add_long(&line, "errorcode", code);
            if (fatal)
                mp_pmi_line_add(&line, "fatal", "1");
            mp_pmi_line_add(&line, "message", text);
        }
        if (mp_pmi_line_finish(&line, NULL) > 0) {
            /* Best effort: the launcher drains this before it reaps us. */
            const char *p = line.buf;
            size_t left = line.len;
            while (left > 0) {
                ssize_t n = send(pmi.fd, p, left, MSG_NOSIGNAL);
                if (n < 0 && errno == ENOTSOCK)
                    n = write(pmi.fd, p, left);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    break;
                p += n;
                left -= (size_t)n;
            }
        }
    }
    _exit(mp_pmi_exit_status(code));
}

int mp_pmi_finalize(void)
{
    mp_pmi_line line;
    mp_pmi_msg msg;
    int rc = 0;

    pthread_mutex_lock(&pmi.lock);
    if (pmi.initialized) {
        if (!pmi.singleton) {
            if (pmi.v2)
                mp_pmi2_line_start(&line, "finalize");
            else
                mp_pmi_line_start(&line, "finalize");
            rc = request(&line, pmi.v2 ? "finalize-response" : "finalize_ack", &msg, MP_PMI_EFAIL);
            disconnect();
        }
        if (pmi.spawner_fd >= 0) {    /* the jobs we spawned end as they will; then it does */
            static const char bye[] = "cmd=finalize\n";
            pmi.fd = pmi.spawner_fd;
            write_all(bye, sizeof bye - 1);
            close(pmi.spawner_fd);
            pmi.fd = pmi.spawner_fd = -1;
            while (waitpid(pmi.spawner_pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        local_clear();
        pmi.initialized = 0;
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

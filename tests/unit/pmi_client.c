/* pmi_client.c -- unit tests of the PMI-1 client against a scripted fake server.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Each scenario forks a fake launcher on the other end of a socketpair that
 * reads one request line per scripted reply and answers with the reply,
 * either whole or one byte at a time with pauses (partial lines), while a
 * 1 ms interval timer without SA_RESTART makes the client's reads and writes
 * see EINTR.  Hostile replies (garbage, wrong command, missing fields, a line
 * over the limit, a closed socket) must make the call fail with an error
 * text, never crash or hang.
 */
#include "core/core.h"
#include "core/pmi.h"
#include "core/pmi_wire.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "pmi_client:%d: ", __LINE__);                 \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, " [last error: %s]\n", mp_pmi_error());       \
            failures++;                                                    \
        }                                                                  \
    } while (0)

#define INIT_OK                                                            \
    "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",          \
    "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n",      \
    "cmd=appnum rc=0 appnum=0\n",                                          \
    "cmd=my_kvsname rc=0 kvsname=kvs_1_0\n"

static void read_byte(int fd, char *c)
{
    ssize_t n;
    do
        n = read(fd, c, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
        _exit(0);
}

/* A PMI-1 line, or a PMI-2 message (6-byte length field, then the body); a PMI-2 request
 * that does not parse makes the server hang up, so the client's call fails. */
static void read_request(int fd)
{
    char c, head[6], body[MP_PMI_WIRE_MAXLINE];
    static mp_pmi_msg msg;
    read_byte(fd, &c);
    if (c < '0' || c > '9') {
        while (c != '\n')
            read_byte(fd, &c);
        return;
    }
    head[0] = c;
    for (int i = 1; i < 6; i++)
        read_byte(fd, &head[i]);
    size_t len;
    if (mp_pmi2_wire_length(head, &len) < 0 || len >= sizeof body)
        _exit(0);
    for (size_t i = 0; i < len; i++)
        read_byte(fd, &body[i]);
    if (mp_pmi2_wire_parse(body, len, &msg, NULL) < 0)
        _exit(0);
}

static void write_reply(int fd, const char *s, int bytewise)
{
    size_t len = strlen(s);
    if (!bytewise) {
        if (write(fd, s, len) != (ssize_t)len)
            _exit(0);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        if (write(fd, s + i, 1) != 1)
            _exit(0);
        if (i % 5 == 0)
            usleep(300);
    }
}

/* The fake launcher: one reply per request; "<close>" closes the socket. */
static pid_t start_server(int fd, int client_fd, const char *const *replies, int bytewise)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    close(client_fd);   /* else the server never sees the client hang up */
    for (int i = 0; replies[i] != NULL; i++) {
        read_request(fd);
        if (strcmp(replies[i], "<close>") == 0)
            _exit(0);
        write_reply(fd, replies[i], bytewise);
    }
    read_request(fd);   /* wait for the client to be done */
    _exit(0);
}

typedef struct scenario {
    int sv[2];
    pid_t server;
} scenario;

static void begin(scenario *s, const char *const *replies, int bytewise)
{
    char text[16];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, s->sv) < 0) {
        perror("socketpair");
        exit(1);
    }
    s->server = start_server(s->sv[1], s->sv[0], replies, bytewise);
    close(s->sv[1]);
    snprintf(text, sizeof text, "%d", s->sv[0]);
    setenv("PMI_FD", text, 1);
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "3", 1);
}

static void end(scenario *s)
{
    close(s->sv[0]);   /* harmless if finalize closed it already */
    waitpid(s->server, NULL, 0);
}

static void on_alarm(int sig)
{
    (void)sig;
}

static void start_interrupts(void)
{
    struct sigaction sa;
    struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;   /* no SA_RESTART: syscalls see EINTR */
    sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_interrupts(void)
{
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
}

/* Slurm's srun --mpi=pmi2 serves PMI-1 clients with its own answers: appnum=-1, a kvsname
 * "jobid.stepid", barrier_out with rc.  (As in src/plugins/mpi/pmi2/pmi1.c of Slurm.) */
static void test_slurm_session(void)
{
    static const char *const replies[] = {
        "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
        "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024\n",
        "cmd=appnum rc=0 appnum=-1\n",
        "cmd=my_kvsname rc=0 kvsname=4711.0\n",
        "cmd=put_result rc=0\n",
        "cmd=barrier_out rc=0\n",
        "cmd=get_result rc=0 value=v1\n",
        "cmd=get_result rc=1\n",
        "cmd=finalize_ack rc=0\n",
        NULL,
    };
    scenario s;
    int rank = -1, size = -1, appnum = -1;
    char value[64];
    begin(&s, replies, 0);
    CHECK(mp_pmi_init(&rank, &size, &appnum) == 0, "init under Slurm");
    CHECK(rank == 1 && size == 3 && appnum == 0, "rank %d size %d appnum %d", rank, size, appnum);
    CHECK(mp_pmi_put("k", "v1") == 0, "put");
    CHECK(mp_pmi_fence() == 0, "fence");
    CHECK(mp_pmi_get("k", value, sizeof value) == 0 && strcmp(value, "v1") == 0, "get");
    CHECK(mp_pmi_get("missing", value, sizeof value) != 0, "missing key under Slurm");
    CHECK(mp_pmi_finalize() == 0, "finalize");
    end(&s);
}

/* PMI-2 (MEMPI_PMI=2): the PMI-1 init line asks for version 2, then framed messages. */
static void test_pmi2_session(int bytewise)
{
    static const char *const replies[] = {
        "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n",
        "82    cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=3;appnum=-1;",
        "41    cmd=job-getid-response;jobid=4711.0;rc=0;",
        "26    cmd=kvs-put-response;rc=0;",
        "28    cmd=kvs-fence-response;rc=0;",
        "50    cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b c;",
        "38    cmd=kvs-get-response;rc=0;found=FALSE;",
        "68    cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,3));",
        "27    cmd=finalize-response;rc=0;",
        NULL,
    };
    scenario s;
    int rank = -1, size = -1, appnum = -1, n = 0;
    char value[64];
    setenv("MEMPI_PMI", "2", 1);
    setenv("PMI_JOBID", "4711.0", 1);
    CHECK(mp_config_load() == MPI_SUCCESS, "configuration with MEMPI_PMI=2");
    begin(&s, replies, bytewise);
    CHECK(mp_pmi_init(&rank, &size, &appnum) == 0, "PMI-2 init (bytewise=%d)", bytewise);
    CHECK(rank == 1 && size == 3 && appnum == 0, "rank %d size %d appnum %d", rank, size, appnum);
    CHECK(mp_pmi_put("k", "v;1") == 0, "PMI-2 put");
    CHECK(mp_pmi_fence() == 0, "PMI-2 fence");
    CHECK(mp_pmi_get("k", value, sizeof value) == 0 && strcmp(value, "a;b c") == 0,
          "PMI-2 get (escaped ';', space): '%s'", value);
    CHECK(mp_pmi_get("missing", value, sizeof value) == MP_PMI_ENOTFOUND, "PMI-2 missing key");
    CHECK(mp_pmi_get("PMI_process_mapping", value, sizeof value) == 0 &&
          strcmp(value, "(vector,(0,1,3))") == 0, "PMI-2 job attribute: '%s'", value);
    CHECK(mp_pmi_universe_size(&n) == 0 && n == 3, "PMI-2 universe size %d", n);
    CHECK(mp_pmi_finalize() == 0, "PMI-2 finalize");
    end(&s);
    unsetenv("MEMPI_PMI");
    unsetenv("PMI_JOBID");
    mp_config_load();
}

/* PMI-2 requested but the launcher answers with version 1: a clear error, no hang. */
static void test_pmi2_refused(void)
{
    static const char *const replies[] = {
        "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
        NULL,
    };
    scenario s;
    setenv("MEMPI_PMI", "2", 1);
    CHECK(mp_config_load() == MPI_SUCCESS, "configuration with MEMPI_PMI=2");
    begin(&s, replies, 0);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == MP_PMI_EFAIL &&
          strstr(mp_pmi_error(), "version 2") != NULL, "PMI-2 refused: %s", mp_pmi_error());
    end(&s);
    unsetenv("MEMPI_PMI");
    mp_config_load();
}

static void test_good_session(int bytewise)
{
    static const char *const replies[] = {
        INIT_OK,
        "cmd=put_result rc=0 msg=success\n",
        "cmd=barrier_out\n",
        "cmd=get_result rc=0 msg=success value=hello-world\n",
        "cmd=get_result rc=-1 msg=key_not_found\n",
        "cmd=get_result rc=0 value=0123456789\n",
        "cmd=universe_size rc=0 size=3\n",
        "cmd=finalize_ack rc=0\n",
        NULL,
    };
    scenario s;
    int rank = -1, size = -1, appnum = -1, n = 0;
    char value[64];

    begin(&s, replies, bytewise);
    CHECK(mp_pmi_init(&rank, &size, &appnum) == 0, "init (bytewise=%d)", bytewise);
    CHECK(rank == 1 && size == 3 && appnum == 0, "rank %d size %d appnum %d", rank, size, appnum);
    CHECK(!mp_pmi_is_singleton(), "not a singleton");
    CHECK(mp_pmi_put("k", "v") == 0, "put");
    CHECK(mp_pmi_fence() == 0, "fence");
    CHECK(mp_pmi_get("k", value, sizeof value) == 0 && strcmp(value, "hello-world") == 0, "get");
    CHECK(mp_pmi_get("missing", value, sizeof value) == MP_PMI_ENOTFOUND, "missing key");
    CHECK(mp_pmi_get("small", value, 5) == MP_PMI_EINVAL, "value larger than the buffer");
    CHECK(mp_pmi_universe_size(&n) == 0 && n == 3, "universe size %d", n);
    CHECK(mp_pmi_finalize() == 0, "finalize");
    end(&s);
}

/* Local argument checks need no server round trip. */
static void test_argument_checks(void)
{
    static const char *const replies[] = { INIT_OK, "cmd=finalize_ack rc=0\n", NULL };
    char big[2000];
    scenario s;
    char value[8];

    CHECK(mp_pmi_put("k", "v") == MP_PMI_EINVAL, "put before init");
    begin(&s, replies, 0);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == 0, "init");
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(mp_pmi_put("k", big) == MP_PMI_EINVAL, "value over vallen_max");
    CHECK(mp_pmi_put(big + 1900, "v") == MP_PMI_EINVAL, "key over keylen_max");
    CHECK(mp_pmi_put("", "v") == MP_PMI_EINVAL, "empty key");
    CHECK(mp_pmi_put("a key", "v") == MP_PMI_EINVAL, "key with a space");
    CHECK(mp_pmi_put("k", "a\nb") == MP_PMI_EINVAL, "value with a newline");
    CHECK(mp_pmi_put("k", NULL) == MP_PMI_EINVAL, "NULL value");
    CHECK(mp_pmi_get("k", NULL, 8) == MP_PMI_EINVAL, "NULL buffer");
    CHECK(mp_pmi_get("k", value, 0) == MP_PMI_EINVAL, "zero-length buffer");
    CHECK(mp_pmi_finalize() == 0, "finalize");
    end(&s);
}

/* Each hostile reply at the given position must fail init cleanly. */
static void test_bad_init(const char *name, const char *const *replies)
{
    scenario s;
    begin(&s, replies, 0);
    int rc = mp_pmi_init(NULL, NULL, NULL);
    CHECK(rc < 0, "init must fail: %s", name);
    CHECK(strncmp(mp_pmi_error(), "PMI: ", 5) == 0, "error text for %s", name);
    end(&s);
}

static void test_hostile_servers(void)
{
    static char long_line[MP_PMI_WIRE_MAXLINE + 100];
    memset(long_line, 'a', sizeof long_line - 2);
    memcpy(long_line, "cmd=response_to_init x=", 23);
    long_line[sizeof long_line - 2] = '\n';

    const char *const garbage[] = { "this is not pmi\n", NULL };
    const char *const wrong_cmd[] = { "cmd=barrier_out\n", NULL };
    const char *const bad_version[] = { "cmd=response_to_init pmi_version=2 pmi_subversion=0\n", NULL };
    const char *const rc_fail[] = { "cmd=response_to_init rc=-1 msg=go_away\n", NULL };
    const char *const closed[] = { "<close>", NULL };
    const char *const too_long[] = { long_line, NULL };
    const char *const no_maxes[] = { "cmd=response_to_init rc=0\n", "cmd=maxes rc=0 keylen_max=64\n", NULL };
    const char *const bad_maxes[] = { "cmd=response_to_init rc=0\n",
                                      "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=-5\n", NULL };
    const char *const no_kvsname[] = { "cmd=response_to_init rc=0\n",
                                       "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
                                       "cmd=appnum appnum=0\n", "cmd=my_kvsname rc=0\n", NULL };
    const char *const bad_rc[] = { "cmd=response_to_init rc=zero\n", NULL };
    const char *const nul_byte[] = { "cmd=response_to_init rc=0\0 x=1\n", NULL };

    test_bad_init("garbage", garbage);
    test_bad_init("wrong command", wrong_cmd);
    test_bad_init("PMI version 2 only", bad_version);
    test_bad_init("rc=-1", rc_fail);
    test_bad_init("closed connection", closed);
    test_bad_init("line over the limit", too_long);
    test_bad_init("maxes without fields", no_maxes);
    test_bad_init("negative vallen_max", bad_maxes);
    test_bad_init("my_kvsname without kvsname", no_kvsname);
    test_bad_init("non-numeric rc", bad_rc);
    test_bad_init("NUL byte (ends the line early)", nul_byte);
}

static void test_bad_environment(void)
{
    setenv("PMI_FD", "12abc", 1);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == MP_PMI_EINVAL, "PMI_FD=12abc");
    CHECK(strstr(mp_pmi_error(), "PMI_FD") != NULL, "error names PMI_FD");
    setenv("PMI_FD", "999", 1);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == MP_PMI_EINVAL, "PMI_FD not open");
    setenv("PMI_FD", "0", 1);
    setenv("PMI_RANK", "3", 1);
    setenv("PMI_SIZE", "3", 1);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == MP_PMI_EINVAL, "rank >= size");
    unsetenv("PMI_FD");
    setenv("PMI_PORT", "nocolon", 1);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == MP_PMI_EINVAL, "PMI_PORT without port");
    setenv("PMI_PORT", "127.0.0.1:0", 1);
    CHECK(mp_pmi_init(NULL, NULL, NULL) == MP_PMI_EINVAL, "PMI_PORT port 0");
    unsetenv("PMI_PORT");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    int rank = -1, size = -1;
    CHECK(mp_pmi_init(&rank, &size, NULL) == 0 && mp_pmi_is_singleton() && rank == 0 && size == 1,
          "singleton");
    CHECK(mp_pmi_finalize() == 0, "singleton finalize");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_good_session(0);
    test_slurm_session();
    test_pmi2_session(0);
    test_pmi2_refused();
    start_interrupts();
    test_pmi2_session(1);   /* PMI-2 framing split across reads, with EINTR */
    test_good_session(1);   /* partial lines and EINTR */
    test_argument_checks();
    stop_interrupts();
    test_hostile_servers();
    test_bad_environment();
    if (failures) {
        fprintf(stderr, "pmi_client: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}

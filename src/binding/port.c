/* port.c -- ports, MPI_Comm_accept/connect/join/spawn, and the name service.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * A port is a listening stream socket, and only the roots use it: the acceptor's root accepts
 * one connection on it, the connector's root connects to it, and the two swap what
 * src/comm/dynamic.c asks (mp_dyn_connect does everything else, collectively, and calls the
 * root's I/O function without the big lock: accept and connect block until the other side
 * arrives, as the standard says they do).  MPI_Comm_join is the same connection over the
 * caller's socket, between the two processes' MPI_COMM_SELF.  Two kinds of port:
 *   - in a job on one host, a Unix-domain socket in this user's private directory
 *     (${TMPDIR:-/tmp}/mempi-<uid>, mode 0700, checked to be ours and private before use),
 *     under a random name: "mempi-port:unix:<path>".  Such a job never listens on a network
 *     port.
 *   - in a job whose ranks span hosts (it uses the network transport), a TCP socket on the
 *     address of the transport's endpoint (mp_net_local_address), so a process on any host
 *     the fabric reaches can connect: "mempi-port:tcp:<port>:<token>:<numeric address>".
 *     Anyone on that network can reach the socket, so the name carries 16 random bytes (in
 *     hex) that the connector sends first; a connection that does not show them within a few
 *     seconds is closed, and the root goes on accepting.
 *
 * MPI_Close_port closes the socket and removes its file (Unix); it rejects a name this process
 * never opened.  The set of open ports is an array searched linearly (a process opens a
 * handful); the entry points hold the big lock.
 *
 * MPI_Comm_spawn(_multiple): the root opens a port, asks the process manager to start the
 * children with the port's name in their key-value space (PARENT_ROOT_PORT_NAME, MPICH's
 * key, mp_pmi_spawn), broadcasts the outcome, and the group accepts on the port; the
 * children's MPI_Init sees PMI_SPAWNED=1, reads the key and connects over their
 * MPI_COMM_WORLD (mp_spawn_connect_parent), which MPI_Comm_get_parent then returns until it
 * is freed or disconnected.  The process manager interprets the info keys (host, wdir, path,
 * soft, env: tools/mpiexec/spawn.c).  If the manager refuses, every process of the group
 * gets MPI_ERR_SPAWN and every entry of array_of_errcodes says so.  Children that die before
 * they connect (a crash in MPI_Init, an exit without it) would leave the root in accept
 * forever: under MemPI's mpiexec, which names the new job in its answer, the root polls the
 * port and looks for that job on the failure board (core/failboard.h) every CHILD_CHECK_MS,
 * and the group gets MPI_ERR_SPAWN with the launcher's account.
 *
 * Name service: a name is a file named after the service (hex-encoded) holding the port name,
 * created atomically (link(), which never replaces a name).  Its directory is
 * <private directory>/names/<scope>, where the scope is MemPI's mpiexec's MEMPI_NAME_SCOPE,
 * its job id, inherited by the jobs it spawns: the processes of one mpiexec and of its
 * spawned jobs share names, and two such families never collide (mpiexec removes the
 * directory at the end).  Each name is also written, unless taken, to the user-wide
 * <private directory>/names, where lookups go when the scope has no such name: separately
 * started jobs (other mpiexecs, Hydra, singletons) find each other there.  Publishing a name
 * the scope holds: MPI_ERR_SERVICE; unpublishing one it does not: MPI_ERR_SERVICE; looking up
 * an unknown one: MPI_ERR_NAME.
 */
#include "binding/binding.h"
#include "comm/comm.h"
#include "core/pmi.h"
#include "transport/transport.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define PORT_PREFIX "mempi-port:unix:"
#define TCP_PREFIX "mempi-port:tcp:"
#define TOKEN_BYTES 16
#define TOKEN_WAIT_MS 5000            /* a TCP connection shows the token within this */
#define CHILD_CHECK_MS 100            /* a spawn's root looks for its children's death so often */

typedef struct port {
    char name[MPI_MAX_PORT_NAME];
    int fd;
    int tcp;                          /* connections must show the token first */
    unsigned char token[TOKEN_BYTES];
} port;

static struct {
    port *open;
    size_t count, cap;
} ports;

/* The user's private directory (created if missing); sub: "" or a subdirectory to make. */
static int private_dir(const char *F, const char *sub, char *out, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(out, len, "%s/mempi-%ld", tmp, (long)getuid());
    for (int level = 0; level < 2; level++) {
        if (level == 1) {
            if (sub[0] == '\0')
                break;
            size_t n = strlen(out);
            snprintf(out + n, len - n, "/%s", sub);
        }
        struct stat st;
        if (mkdir(out, 0700) != 0 && errno != EEXIST)
            return mp_err(F, MPI_ERR_OTHER, "cannot create directory %s: %s", out,
                          strerror(errno));
        if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
            (st.st_mode & 077))
            return mp_err(F, MPI_ERR_OTHER, "%s is not a directory private to this user "
                          "(mode 0700); remove it", out);
    }
    return MPI_SUCCESS;
}

static long port_find(const char *name)
{
    for (size_t i = 0; i < ports.count; i++)
        if (strncmp(ports.open[i].name, name, MPI_MAX_PORT_NAME) == 0)
            return (long)i;
    return -1;
}

static port *port_add(int fd)
{
    if (ports.count == ports.cap) {
        ports.cap = ports.cap ? 2 * ports.cap : 8;
        ports.open = mp_realloc(ports.open, ports.cap * sizeof *ports.open);
    }
    port *p = &ports.open[ports.count++];
    memset(p, 0, sizeof *p);
    p->fd = fd;
    return p;
}

static void to_hex(const unsigned char *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", in[i]);
}

/* A TCP port on the network transport's address (the job spans hosts). */
static int open_tcp_port(const char *F, struct sockaddr_storage *sa, unsigned salen,
                         char *port_name_out)
{
    unsigned char token[TOKEN_BYTES];
    char host[NI_MAXHOST], serv[NI_MAXSERV], hex[2 * TOKEN_BYTES + 1];
    socklen_t len = salen;
    if (mp_random_bytes(token, sizeof token) != 0)
        return mp_err(F, MPI_ERR_OTHER, "no randomness for a port's token");
    int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;
    if (fd < 0 || bind(fd, (struct sockaddr *)sa, salen) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)sa, &len) != 0 ||
        (rc = getnameinfo((struct sockaddr *)sa, len, host, sizeof host, serv, sizeof serv,
                          NI_NUMERICHOST | NI_NUMERICSERV)) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return mp_err(F, MPI_ERR_OTHER, "cannot listen on a TCP port of the network "
                      "transport's interface: %s", rc ? gai_strerror(rc) : strerror(e));
    }
    to_hex(token, sizeof token, hex);
    port *p = port_add(fd);
    p->tcp = 1;
    memcpy(p->token, token, sizeof token);
    snprintf(p->name, sizeof p->name, TCP_PREFIX "%s:%s:%s", serv, hex, host);
    snprintf(port_name_out, MPI_MAX_PORT_NAME, "%s", p->name);
    return MPI_SUCCESS;
}

int mp_do_open_port(const char *F, MPI_Info info, char *port_name_out)
{
    struct sockaddr_storage ss;
    unsigned sslen = 0;
    if (mp_net_local_address(&ss, &sslen) == 0)
        return open_tcp_port(F, &ss, sslen, port_name_out);
    char dir[MPI_MAX_PORT_NAME], path[MPI_MAX_PORT_NAME];
    int err = private_dir(F, "", dir, sizeof dir);
    if (err)
        return err;
    unsigned char rnd[12];
    if (mp_random_bytes(rnd, sizeof rnd) != 0)
        return mp_err(F, MPI_ERR_OTHER, "no randomness for a port name");
    int n = snprintf(path, sizeof path, "%s/port-", dir);
    for (size_t i = 0; i < sizeof rnd; i++)
        n += snprintf(path + n, sizeof path - (size_t)n, "%02x", rnd[i]);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path || strlen(PORT_PREFIX) + strlen(path) >=
        MPI_MAX_PORT_NAME)
        return mp_err(F, MPI_ERR_OTHER, "the port's path %s is too long (set TMPDIR to a "
                      "shorter directory)", path);
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return mp_err(F, MPI_ERR_OTHER, "cannot listen on %s: %s", path, strerror(e));
    }
    port *p = port_add(fd);
    snprintf(p->name, sizeof p->name, PORT_PREFIX "%s", path);
    snprintf(port_name_out, MPI_MAX_PORT_NAME, "%s", p->name);
    return MPI_SUCCESS;
}

/* Closes a port's socket and removes its file. */
static void port_drop(port *p)
{
    close(p->fd);
    if (!p->tcp)
        unlink(p->name + strlen(PORT_PREFIX));
}

int mp_do_close_port(const char *F, const char *name)
{
    long i = port_find(name);
    if (i < 0)
        return mp_err(F, MPI_ERR_PORT, "port_name \"%.*s\" is not a port this process opened",
                      MPI_MAX_PORT_NAME, name);
    port_drop(&ports.open[i]);
    ports.open[i] = ports.open[--ports.count];
    return MPI_SUCCESS;
}

/* MPI_Finalize: the ports still open go, socket files included. */
void mp_ports_close_all(void)
{
    for (size_t i = 0; i < ports.count; i++)
        port_drop(&ports.open[i]);
    free(ports.open);
    memset(&ports, 0, sizeof ports);
}

/* ---- the roots' socket ---------------------------------------------------------------- */

typedef struct root_link {
    int fd;                           /* the connection, -1 until made */
    int listen_fd;                    /* accept: the port's socket; -1 to connect */
    const unsigned char *token;       /* accept on a TCP port: what connections must show */
    const char *target;               /* connect: the port's name */
    const char *child_job;            /* spawn: the children's job, watched while accepting */
    int io_class;                     /* error class of a failed exchange; 0: by the kind */
} root_link;

static int socket_io(int fd, void *buf, size_t n, int writing)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EPIPE;   /* EOF: the other side closed the socket */
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* 1 if the connection shows `token` within TOKEN_WAIT_MS. */
static int shows_token(int fd, const unsigned char *token)
{
    unsigned char got[TOKEN_BYTES];
    size_t have = 0;
    while (have < sizeof got) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int r = poll(&pf, 1, TOKEN_WAIT_MS);
        if (r < 0 && errno == EINTR)
            continue;
        ssize_t k = r > 0 ? recv(fd, got + have, sizeof got - have, 0) : -1;
        if (k <= 0)
            return 0;
        have += (size_t)k;
    }
    return memcmp(got, token, sizeof got) == 0;
}

static int accept_peer(root_link *l)
{
    for (;;) {
        if (l->child_job) {           /* children that die on the way never connect */
            struct pollfd pf = { .fd = l->listen_fd, .events = POLLIN };
            int r = poll(&pf, 1, CHILD_CHECK_MS);
            if (r <= 0 && mp_procs_job_failed(l->child_job)) {
                errno = ECHILD;
                return -1;
            }
            if (r <= 0)
                continue;
        }
        int fd = accept4(l->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0 || !l->token || shows_token(fd, l->token))
            return fd;
        close(fd);                    /* a stranger on the network: keep waiting */
    }
}

static int from_hex(const char *in, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(in + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

/* Connects to a port by its name (either kind); the socket, or -1 with errno set. */
static int connect_port(const char *name)
{
    if (strncmp(name, PORT_PREFIX, strlen(PORT_PREFIX)) == 0) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", name + strlen(PORT_PREFIX));
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            fd = -1;
        }
        return fd;
    }
    /* mempi-port:tcp:<port>:<token>:<address> */
    char serv[NI_MAXSERV] = "";
    unsigned char token[TOKEN_BYTES];
    const char *p = name + strlen(TCP_PREFIX), *colon;
    if (strncmp(name, TCP_PREFIX, strlen(TCP_PREFIX)) != 0 || !(colon = strchr(p, ':')) ||
        (size_t)(colon - p) >= sizeof serv || strlen(colon + 1) < 2 * TOKEN_BYTES + 2 ||
        colon[1 + 2 * TOKEN_BYTES] != ':' || from_hex(colon + 1, token, sizeof token) != 0) {
        errno = EINVAL;
        return -1;
    }
    memcpy(serv, p, (size_t)(colon - p));
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                              .ai_socktype = SOCK_STREAM }, *ai = NULL;
    if (getaddrinfo(colon + 2 + 2 * TOKEN_BYTES, serv, &hints, &ai) != 0 || ai == NULL) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0 && (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
                    socket_io(fd, token, sizeof token, 1) != 0)) {
        int e = errno;
        close(fd);
        errno = e;
        fd = -1;
    }
    if (fd >= 0)                      /* the exchange is a few small request/answer pairs */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    freeaddrinfo(ai);
    return fd;
}

static int link_io(void *arg, const void *out, size_t nout, void *in, size_t nin)
{
    root_link *l = arg;
    errno = 0;
    if (l->fd < 0 && l->listen_fd >= 0)
        l->fd = accept_peer(l);
    else if (l->fd < 0 && l->target)
        l->fd = connect_port(l->target);
    if (l->fd < 0)
        return errno ? errno : EBADF;
    if (l->token) {
        int one = 1;
        setsockopt(l->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        l->token = NULL;
    }
    int e = socket_io(l->fd, (void *)out, nout, 1);
    return e ? e : socket_io(l->fd, in, nin, 0);
}

static int connect_over(const char *F, mp_comm *comm, int root, root_link *l, MPI_Comm *newcomm)
{
    mp_comm *ic;
    int err = mp_dyn_connect(comm, root, link_io, l, l->io_class ? l->io_class
                             : l->listen_fd == -2 ? MPI_ERR_OTHER : MPI_ERR_PORT, &ic);
    if (l->fd >= 0 && l->listen_fd != -2)
        close(l->fd);
    if (err)
        return err;
    if (!ic->handle) {
        mp_comm_free_internal(ic);
        return mp_err(F, MPI_ERR_NO_MEM, "too many communicators");
    }
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}

int mp_do_comm_accept(const char *F, const char *port_name, MPI_Info info, int root,
                      mp_comm *comm, MPI_Comm *newcomm)
{
    root_link l = { -1, -1, NULL, NULL };
    if (comm->rank == root) {
        long i = port_find(port_name);
        if (i >= 0) {
            l.listen_fd = ports.open[i].fd;
            l.token = ports.open[i].tcp ? ports.open[i].token : NULL;
        }
        /* else: the exchange fails, and the whole group learns it (MPI_ERR_PORT) */
    }
    if (comm->is_inter)
        return mp_err(F, MPI_ERR_COMM, "comm must be an intracommunicator");
    return connect_over(F, comm, root, &l, newcomm);
}

int mp_do_comm_connect(const char *F, const char *port_name, MPI_Info info, int root,
                       mp_comm *comm, MPI_Comm *newcomm)
{
    root_link l = { -1, -1, NULL, NULL };
    if (comm->is_inter)
        return mp_err(F, MPI_ERR_COMM, "comm must be an intracommunicator");
    if (comm->rank == root)
        l.target = port_name;
    return connect_over(F, comm, root, &l, newcomm);
}

/* MPI_Comm_join: the caller's socket, between the two processes' MPI_COMM_SELF.  The entry
 * point holds no lock (the exchange blocks); the connection takes it. */
int mp_do_comm_join(const char *F, int fd, MPI_Comm *intercomm)
{
    MP_BIG_LOCK();
    root_link l = { fd, -2, NULL, NULL };
    return connect_over(F, mp_world.comm_self, 0, &l, intercomm);
}

/* ---- the name service ------------------------------------------------------------------ */

/* The file of `service` in the names directory of `scope` ("" = the user-wide one). */
static int name_path(const char *F, const char *service, const char *scope, char *out,
                     size_t len)
{
    char sub[160];
    snprintf(sub, sizeof sub, "names");
    int err = private_dir(F, sub, out, len);
    if (!err && scope[0]) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "/%s", scope);
        if (mkdir(out, 0700) != 0 && errno != EEXIST)
            err = mp_err(F, MPI_ERR_OTHER, "cannot create directory %s: %s", out,
                         strerror(errno));
    }
    if (err)
        return err;
    size_t n = strlen(out), sl = strlen(service);
    if (sl == 0 || n + 2 + 2 * sl >= len)
        return mp_err(F, MPI_ERR_ARG, "service_name \"%s\" is %s", service,
                      sl ? "too long" : "empty");
    out[n++] = '/';
    for (size_t i = 0; i < sl; i++)
        n += (size_t)snprintf(out + n, len - n, "%02x", (unsigned char)service[i]);
    return MPI_SUCCESS;
}

/* The scope of this job's names: the launcher's MEMPI_NAME_SCOPE (hex), or none. */
static const char *name_scope(void)
{
    const char *s = getenv("MEMPI_NAME_SCOPE");
    return s && s[0] && strlen(s) < 64 && strspn(s, "0123456789abcdef") == strlen(s) ? s : "";
}

/* Writes port_name as `path`, atomically and never over an existing name: 0, or an errno. */
static int publish_file(const char *path, const char *port_name)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t len = strnlen(port_name, MPI_MAX_PORT_NAME);
    int e = 0;
    if (fd < 0 || write(fd, port_name, len) != (ssize_t)len)
        e = errno ? errno : EIO;
    if (fd >= 0)
        close(fd);
    if (!e && link(tmp, path) != 0)       /* link() fails if the name exists */
        e = errno;
    unlink(tmp);
    return e;
}

/* The port name stored as `path`: 0, or -1 if there is none. */
static int read_name(const char *path, char *port_name)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, port_name, MPI_MAX_PORT_NAME - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    port_name[n] = '\0';
    return 0;
}

int mp_do_publish_name(const char *F, const char *service_name, MPI_Info info,
                       const char *port_name)
{
    char path[4096];
    const char *scope = name_scope();
    int err = name_path(F, service_name, scope, path, sizeof path);
    if (err)
        return err;
    int e = publish_file(path, port_name);
    if (e == EEXIST)
        return mp_err(F, MPI_ERR_SERVICE, "service_name \"%s\" is already published",
                      service_name);
    if (e)
        return mp_err(F, MPI_ERR_OTHER, "cannot publish %s: %s", path, strerror(e));
    /* also user-wide, for separately started jobs, unless someone holds the name there */
    if (scope[0] && name_path(F, service_name, "", path, sizeof path) == MPI_SUCCESS)
        publish_file(path, port_name);
    return MPI_SUCCESS;
}

int mp_do_lookup_name(const char *F, const char *service_name, MPI_Info info, char *port_name)
{
    char path[4096];
    const char *scope = name_scope();
    int err = name_path(F, service_name, scope, path, sizeof path);
    if (!err && read_name(path, port_name) == 0)
        return MPI_SUCCESS;
    if (!err && scope[0] && (err = name_path(F, service_name, "", path, sizeof path)) == 0 &&
        read_name(path, port_name) == 0)
        return MPI_SUCCESS;
    return err ? err : mp_err(F, MPI_ERR_NAME, "service_name \"%s\" is not published",
                              service_name);
}

int mp_do_unpublish_name(const char *F, const char *service_name, MPI_Info info,
                         const char *port_name)
{
    char path[4096], cur[MPI_MAX_PORT_NAME];
    const char *scope = name_scope();
    int err = name_path(F, service_name, scope, path, sizeof path);
    if (err)
        return err;
    if (read_name(path, cur) != 0)
        return mp_err(F, MPI_ERR_SERVICE, "service_name \"%s\" is not published",
                      service_name);
    if (strncmp(cur, port_name, MPI_MAX_PORT_NAME) != 0)
        return mp_err(F, MPI_ERR_SERVICE, "service_name \"%s\" is published with another "
                      "port name", service_name);
    unlink(path);
    if (scope[0] && name_path(F, service_name, "", path, sizeof path) == MPI_SUCCESS &&
        read_name(path, cur) == 0 && strncmp(cur, port_name, MPI_MAX_PORT_NAME) == 0)
        unlink(path);
    return MPI_SUCCESS;
}

/* ---- spawning ---------------------------------------------------------------------------- */

#define PARENT_KEY "PARENT_ROOT_PORT_NAME"
#define SPAWN_ENV_KEY "MEMPI_SPAWN_ENV_"      /* + the command's index (MPI_APPNUM) */

/* A spawned process's MPI_Init: the info key env of its command, NAME=VALUE assignments
 * separated by spaces or newlines (as MemPI's mpiexec reads it), set with setenv.  MemPI's
 * mpiexec already set them before the program started; other launchers (Hydra) ignore the
 * key, so there they hold from MPI_Init on: code before MPI_Init and MemPI's own MEMPI_*
 * settings (read earlier) do not see them. */
static void apply_spawn_env(void)
{
    char key[32], hex[2048];
    snprintf(key, sizeof key, "%s%d", SPAWN_ENV_KEY, mp_world.appnum);
    if (mp_pmi_get(key, hex, sizeof hex) != 0 || hex[0] == '-')
        return;
    size_t n = strlen(hex) / 2;
    char *env = mp_malloc(n + 1);
    for (size_t k = 0; k < n; k++) {
        unsigned v = 0;
        sscanf(hex + 2 * k, "%2x", &v);
        env[k] = (char)v;
    }
    env[n] = '\0';
    char *save = NULL;
    for (char *tok = strtok_r(env, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(tok, '=');
        if (eq && eq != tok) {
            *eq = '\0';
            setenv(tok, eq + 1, 1);
        }
    }
    free(env);
}

/* The children's side of the spawn (MPI_COMM_NULL if none).  Kept as a handle, not a
 * pointer: once the communicator is freed or disconnected the handle no longer leads to a
 * communicator marked is_spawn_parent, even if a new communicator reuses the number. */
static MPI_Comm parent_handle = MPI_COMM_NULL;

/* 1 if `dir`/`cmd` (just cmd when dir is NULL) is an executable file. */
static int executable(const char *dir, size_t dirlen, const char *cmd)
{
    char full[4096];
    struct stat st;
    if (dir)
        snprintf(full, sizeof full, "%.*s/%s", (int)dirlen, dir, cmd);
    else
        snprintf(full, sizeof full, "%s", cmd);
    return stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
}

/* Whether the command can start, as the launcher will look for it: a name with a '/' as is
 * (relative to the info key wdir if given), else in the info key path's directories and
 * then $PATH.  Hydra accepts a spawn of a program it cannot start and its children never
 * come, so the root checks first, on its own host (a program that exists only on the
 * children's hosts is refused). */
static int command_found(const char *cmd, const char *wdir, const char *path)
{
    if (strchr(cmd, '/'))
        return executable(cmd[0] != '/' && wdir ? wdir : NULL, wdir ? strlen(wdir) : 0, cmd);
    const char *lists[2] = { path, getenv("PATH") };
    for (int i = 0; i < 2; i++)
        for (const char *p = lists[i]; p && *p;) {
            size_t len = strcspn(p, ":");
            if (len && executable(p, len, cmd))
                return 1;
            p += len + (p[len] == ':');
        }
    return 0;
}

/* The root's request to the process manager; returns an MPI error code (no handler). */
static int spawn_request(const char *F, int count, char **commands, char ***argvs,
                         const int *maxprocs, const MPI_Info *infos, const char *port)
{
    mp_pmi_spawn_cmd *cmds = mp_calloc((size_t)count, sizeof *cmds);
    int err = MPI_SUCCESS;
    for (int i = 0; i < count && !err; i++) {
        mp_info *info = infos ? mp_info_get(infos[i]) : NULL;
        cmds[i].command = commands[i];
        cmds[i].argv = argvs ? argvs[i] : NULL;
        cmds[i].maxprocs = maxprocs[i];
        if (commands[i] == NULL || commands[i][0] == '\0')
            err = mp_error_code(MPI_ERR_SPAWN, "%s: command %d is empty", F, i);
        else if (maxprocs[i] < 1)
            err = mp_error_code(MPI_ERR_SPAWN, "%s: maxprocs %d of command %d (must be >= 1)",
                                F, maxprocs[i], i);
        else if (!command_found(commands[i], infos ? mp_info_value(infos[i], "wdir") : NULL,
                                infos ? mp_info_value(infos[i], "path") : NULL))
            err = mp_error_code(MPI_ERR_SPAWN, "%s: command %d ('%s') does not exist or is not "
                                "executable (looked for on the root's host)", F, i, commands[i]);
        if (info && !err) {
            int n = mp_info_count(info);
            const char **k = mp_calloc((size_t)(n ? n : 1), sizeof *k);
            const char **v = mp_calloc((size_t)(n ? n : 1), sizeof *v);
            for (int j = 0; j < n; j++) {
                k[j] = mp_info_key(info, j);
                v[j] = mp_info_val(info, j);
            }
            cmds[i].ninfo = n;
            cmds[i].info_keys = k;
            cmds[i].info_vals = v;
        }
    }
    /* the port, and per command its info key env (hex: any byte survives every launcher's
     * key-value space), which the children apply in MPI_Init where the launcher did not */
    const char **pk = mp_calloc((size_t)count + 1, sizeof *pk);
    const char **pv = mp_calloc((size_t)count + 1, sizeof *pv);
    pk[0] = PARENT_KEY;
    pv[0] = port;
    for (int i = 0; i < count; i++) {
        const char *env = infos ? mp_info_value(infos[i], "env") : NULL;
        size_t n = env ? strlen(env) : 0;
        char *key = mp_malloc(32), *val = mp_malloc(2 * n + 2);
        snprintf(key, 32, "%s%d", SPAWN_ENV_KEY, i);
        strcpy(val, "-");
        for (size_t k = 0; k < n; k++)
            snprintf(val + 2 * k, 3, "%02x", (unsigned char)env[k]);
        pk[i + 1] = key;
        pv[i + 1] = val;
    }
    if (!err && mp_pmi_spawn(count, cmds, count + 1, pk, pv) != 0)
        err = mp_error_code(MPI_ERR_SPAWN, "%s: the process manager did not start the "
                            "processes: %s", F, mp_pmi_error());
    for (int i = 0; i < count; i++) {
        free((void *)cmds[i].info_keys);
        free((void *)cmds[i].info_vals);
        free((void *)pk[i + 1]);
        free((void *)pv[i + 1]);
    }
    free(pk);
    free(pv);
    free(cmds);
    return err;
}

int mp_do_comm_spawn_multiple(const char *F, int count, char *array_of_commands[],
                              char **array_of_argv[], const int array_of_maxprocs[],
                              const MPI_Info array_of_info[], int root, mp_comm *comm,
                              MPI_Comm *intercomm, int array_of_errcodes[])
{
    if (comm->is_inter)
        return mp_err(F, MPI_ERR_COMM, "comm must be an intracommunicator");
    char port[MPI_MAX_PORT_NAME] = "", child_job[MP_JOB_ID_MAX] = "";
    int outcome[2] = { MPI_SUCCESS, 0 };      /* error code, processes asked for */
    long p = -1;
    if (comm->rank == root) {
        if (count < 1)
            outcome[0] = mp_error_code(MPI_ERR_ARG, "%s: count %d (must be >= 1)", F, count);
        else if ((outcome[0] = mp_do_open_port(F, MPI_INFO_NULL, port)) == MPI_SUCCESS)
            p = port_find(port);
        for (int i = 0; i < count && !outcome[0]; i++)
            outcome[1] += array_of_maxprocs[i];
        if (!outcome[0])
            outcome[0] = spawn_request(F, count, array_of_commands, array_of_argv,
                                       array_of_maxprocs, array_of_info, port);
        if (!outcome[0]) {
            snprintf(child_job, sizeof child_job, "%s", mp_pmi_spawned_job());
            mp_procs_job_failed(child_job);       /* maps the board now, under the lock */
        }
    }
    int err = mp_bcast(outcome, 2, mp_datatype_get(MPI_INT), root, comm);
    if (!err && !outcome[0]) {
        root_link l = { -1, -1, NULL, NULL, child_job[0] ? child_job : NULL, MPI_ERR_SPAWN };
        if (p >= 0) {
            l.listen_fd = ports.open[p].fd;
            l.token = ports.open[p].tcp ? ports.open[p].token : NULL;
        }
        err = connect_over(F, comm, root, &l, intercomm);
        const char *why = err && child_job[0] ? mp_procs_job_failed(child_job) : NULL;
        if (why)
            err = mp_error_code(MPI_ERR_SPAWN, "%s: the spawned processes ended before they "
                                "all connected: %s", F, why);
    } else if (!err) {
        err = comm->rank == root ? outcome[0]
                                 : mp_error_code(MPI_ERR_SPAWN, "%s: the root could not start "
                                                 "the processes", F);
    }
    if (p >= 0)
        mp_do_close_port(F, port);
    if (array_of_errcodes)
        for (int i = 0; i < outcome[1]; i++)
            array_of_errcodes[i] = err;
    return err;
}

int mp_do_comm_spawn(const char *F, const char *command, char *argv[], int maxprocs,
                     MPI_Info info, int root, mp_comm *comm, MPI_Comm *intercomm,
                     int array_of_errcodes[])
{
    char *cmd = (char *)command;
    char **argvs[1] = { argv };
    return mp_do_comm_spawn_multiple(F, 1, &cmd, argvs, &maxprocs, &info, root, comm,
                                     intercomm, array_of_errcodes);
}

/* MPI_Init of a spawned process: connect to the parents (collective over MPI_COMM_WORLD). */
int mp_spawn_connect_parent(void)
{
    const char *spawned = getenv("PMI_SPAWNED");
    if (spawned == NULL || strcmp(spawned, "1") != 0)
        return MPI_SUCCESS;
    apply_spawn_env();
    char port[MPI_MAX_PORT_NAME] = "";
    root_link l = { -1, -1, NULL, NULL };
    if (mp_world.rank == 0 && mp_pmi_get(PARENT_KEY, port, sizeof port) == 0)
        l.target = port;
    MPI_Comm h = MPI_COMM_NULL;
    int err = connect_over("MPI_Init", mp_world.comm_world, 0, &l, &h);
    if (!err) {
        mp_comm_get(h)->is_spawn_parent = 1;
        parent_handle = h;
    }
    return err;
}

int mp_do_comm_get_parent(const char *F, MPI_Comm *parent)
{
    mp_comm *c = mp_comm_get(parent_handle);
    if (!c || !c->is_spawn_parent)
        parent_handle = MPI_COMM_NULL;      /* freed or disconnected */
    *parent = parent_handle;
    return MPI_SUCCESS;
}

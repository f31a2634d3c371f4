/* port.c -- MPI_Open_port and MPI_Close_port: port names without connections.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Dynamic processes are missing (README), so MPI_Comm_accept and MPI_Comm_connect return
 * MPI_ERR_UNSUPPORTED_OPERATION.  Opening a port, though, is only naming: a port name is
 * "mempi-port:<host>:<pid>:<n>", unique per process and call, and this file keeps the set
 * of ports the process has open so that MPI_Close_port can reject a name it never opened.
 *
 * Why have them at all: a server opens a port and sends its name to a client before either
 * calls accept/connect (mpi4py's test_dynproc does).  If MPI_Open_port failed, only the
 * server would see an error and the client would wait forever for the name; with it, both
 * sides reach accept/connect and both fail at once.
 *
 * The set is an array of open port numbers, searched linearly (a process opens a handful of
 * ports); the entry points (src/binding/env.spec) hold the big lock, which serialises access
 * under MPI_THREAD_MULTIPLE.
 */
#include "binding/binding.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    unsigned long *open;        /* numbers of the open ports */
    size_t count, cap;
    unsigned long next;         /* number of the next port */
} ports;

/* Writes the name of port n (at most MPI_MAX_PORT_NAME bytes with the NUL). */
static void port_name(unsigned long n, char *out)
{
    char host[64] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    snprintf(out, MPI_MAX_PORT_NAME, "mempi-port:%s:%ld:%lu", host, (long)getpid(), n);
}

/* Index in ports.open of the open port called name, or -1. */
static long port_find(const char *name)
{
    char want[MPI_MAX_PORT_NAME];
    for (size_t i = 0; i < ports.count; i++) {
        port_name(ports.open[i], want);
        if (strcmp(want, name) == 0)
            return (long)i;
    }
    return -1;
}

int mp_do_open_port(const char *F, MPI_Info info, char *port_name_out)
{
    if (ports.count == ports.cap) {
        size_t cap = ports.cap ? 2 * ports.cap : 8;
        unsigned long *p = realloc(ports.open, cap * sizeof *p);
        if (p == NULL)
            return mp_err(F, MPI_ERR_NO_MEM, "out of memory for %zu ports", cap);
        ports.open = p;
        ports.cap = cap;
    }
    ports.open[ports.count++] = ports.next;
    port_name(ports.next++, port_name_out);
    return MPI_SUCCESS;
}

int mp_do_close_port(const char *F, const char *name)
{
    long i = port_find(name);
    if (i < 0)
        return mp_err(F, MPI_ERR_PORT, "port_name \"%.*s\" is not a port this process opened",
                      MPI_MAX_PORT_NAME, name);
    ports.open[i] = ports.open[--ports.count];
    return MPI_SUCCESS;
}

/* mempi-info.c -- what this MemPI build is and how it is configured.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Prints the version, the build configuration, the transports this build has, and every
 * MEMPI_* variable with its default, its current value (checked as MPI_Init would check it)
 * and its meaning -- straight from the library's one configuration table (core/config.c and
 * the rows the collective layer registers), so the list cannot drift from the code.
 * `--markdown` prints the table as the README's Markdown table, from the defaults alone (the
 * environment plays no part): `make config-table` puts it into README.md.
 */
#include "core/core.h"
#include "coll/coll.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

static int cma_allowed(void)
{
    static int word = 42;
    int got = 0;
    struct iovec l = { &got, sizeof got }, r = { &word, sizeof word };
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)sizeof got && got == 42;
}

static int widest(int w, const char *s)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

/* A Markdown table cell: '|' escaped. */
static void cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

static void markdown(void)
{
    printf("| variable | default | values | scope | meaning |\n");
    printf("|---|---|---|---|---|\n");
    for (int i = 0; i < mp_config_count(); i++) {
        const mp_config_var *v = mp_config_row(i);
        char values[256];
        mp_config_describe_values(v, values, sizeof values);
        printf("| `%s` | ", v->name);
        cell(v->defval);
        printf(" | ");
        cell(values);
        printf(" | %s | ", v->flags & MP_CFG_ALL_EQ ? "all ranks" : "local");
        cell(v->meaning);
        printf(" |\n");
    }
}

static void variables(void)
{
    static const char *const from[] = {                /* by MP_CFG_FROM_* */
        [MP_CFG_FROM_DEFAULT] = "", [MP_CFG_FROM_TUNING] = " (MEMPI_TUNING file)",
        [MP_CFG_FROM_ENV] = " (environment)" };
    printf("\nVariables (name, default, current value, values, scope, meaning):\n");
    /* Columns as wide as their longest entry, so that no name or value shifts the next one. */
    int wname = 0, wdef = 2;
    for (int i = 0; i < mp_config_count(); i++) {
        const mp_config_var *v = mp_config_row(i);
        wname = widest(wname, v->name);
        wdef = widest(wdef, v->defval);
    }
    for (int i = 0; i < mp_config_count(); i++) {
        const mp_config_var *v = mp_config_row(i);
        int src = mp_config_source(v->name);
        char values[256];
        mp_config_describe_values(v, values, sizeof values);
        printf("  %-*s default %-*s current %s%s\n", wname, v->name, wdef,
               *v->defval ? v->defval : "''",
               src == MP_CFG_FROM_DEFAULT ? "(default)" : mp_config_current(v->name), from[src]);
        printf("      %s; %s%s\n      %s\n", values,
               v->flags & MP_CFG_ALL_EQ ? "the same on all ranks" : "per rank",
               v->flags & MP_CFG_RUNTIME ? "; may change at run time" : "", v->meaning);
    }
}

int main(int argc, char **argv)
{
    mp_config_add(mp_coll_config_vars, mp_coll_config_nvars);
    if (argc > 1 && strcmp(argv[1], "--markdown") == 0) {
        markdown();
        return 0;
    }
    if (argc > 1) {
        printf("usage: mempi-info [--markdown]   (prints version, build configuration, "
               "transports and MEMPI_* variables; --markdown: the variables as README's table)\n");
        return strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    printf("MemPI %s\n", MEMPI_VERSION);
    printf("  MPI standard:      %d.%d (MPICH ABI: libmpi.so.12, also libmpich.so.12)\n",
           MPI_VERSION, MPI_SUBVERSION);
    printf("  compiler:          %s\n", __VERSION__);
    printf("  built:             %s %s\n", __DATE__, __TIME__);
#ifdef __SANITIZE_ADDRESS__
    printf("  sanitizer:         address\n");
#endif
    printf("\nTransports:\n");
    printf("  self, shm          shared-memory queues (per-sender FIFOs), single copy: %s\n",
           cma_allowed() ? "process_vm_readv/writev permitted" : "refused by the kernel here");
#ifdef MEMPI_HAVE_LIBFABRIC
    printf("  net                libfabric (ranks on other hosts; MEMPI_NET_PROVIDER picks the provider)\n");
#else
    printf("  net                not built (install libfabric-dev and rebuild for multi-host jobs)\n");
#endif
    int err = mp_config_load();
    variables();
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "mempi-info: MPI_Init would fail: %s\n", mp_error_message(err));
        return 1;
    }
    return 0;
}

/* mempi-info.c -- what this MemPI build is and how it is configured.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Prints the version, the build configuration, the transports this build has, and every
 * MEMPI_* variable with its default, its current value and its meaning -- straight from the
 * library's own table (core/config.c), so the list cannot drift from the code.
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

/* A variable's value from the environment, else the tuning file, else "(default)". */
static const char *current(const char *name)
{
    const char *cur = getenv(name);
    if (cur == NULL)
        cur = mp_tuning_value(name);
    return cur ? cur : "(default)";
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: mempi-info   (prints version, build configuration, transports and "
               "MEMPI_* variables)\n");
        return 0;
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
    const char *tuning = getenv("MEMPI_TUNING");
    int terr = tuning && *tuning ? mp_tuning_load(tuning) : MPI_SUCCESS;
    if (terr != MPI_SUCCESS) {
        fprintf(stderr, "mempi-info: %s\n", mp_error_message(terr));
        return 1;
    }
    printf("\nVariables (name, default, current value (environment, else MEMPI_TUNING file), meaning):\n");
    /* Columns as wide as their longest entry, so that no name or value shifts the next one. */
    int wname = 0, wdef = 0, wcur = 0;
    for (int i = 0; i < mp_config_nvars; i++) {
        const mp_config_var *v = &mp_config_vars[i];
        wname = widest(wname, v->name);
        wdef = widest(wdef, v->defval);
        wcur = widest(wcur, current(v->name));
    }
    for (int i = 0; i < mp_config_nvars; i++) {
        const mp_config_var *v = &mp_config_vars[i];
        printf("  %-*s default %-*s current %-*s %s\n", wname, v->name, wdef, v->defval, wcur,
               current(v->name), v->meaning);
    }
    printf("\n");
    mp_coll_describe(stdout);
    return 0;
}

/* fabric.c -- libfabric, loaded only by jobs that span hosts.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * libmpi does not link libfabric: it opens libfabric.so.1 with dlopen() when MPI_Init finds
 * ranks on other hosts.  Two reasons.  Loading libfabric loads its providers' libraries, and
 * one of them (libinfinipath, for PSM) installs a SIGSEGV handler at load time that turns a
 * crash into `exit 1` plus a backtrace file in the working directory; a single-node job,
 * which never needs the network, must crash visibly and leave nothing behind.  And a
 * single-node job should not pay for loading a dozen libraries it never uses.
 *
 * Only five libfabric functions are real exported symbols; everything else in its API is an
 * inline function that calls through the operation tables these return.  They are defined
 * here with libfabric's own prototypes and forward to the loaded library; with
 * -fvisibility=hidden the definitions stay inside libmpi, so a program that links libfabric
 * itself is not affected.  Before loading, IPATH_NO_BACKTRACE=1 is set (unless the user set
 * it) so the handler stays out of multi-host jobs too.
 */
#include "transport/net/net.h"

#ifdef MEMPI_HAVE_LIBFABRIC
#include <dlfcn.h>
#include <stdlib.h>

static struct {
    void *lib;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} fab;

int mp_fabric_load(void)
{
    if (fab.lib)
        return MPI_SUCCESS;
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    void *lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return mp_error_code(MPI_ERR_OTHER, "this job's ranks are on several hosts, but "
                             "libfabric cannot be loaded (%s); install Debian's libfabric1",
                             dlerror());
    *(void **)&fab.getinfo = dlsym(lib, "fi_getinfo");
    *(void **)&fab.freeinfo = dlsym(lib, "fi_freeinfo");
    *(void **)&fab.dupinfo = dlsym(lib, "fi_dupinfo");
    *(void **)&fab.fabric = dlsym(lib, "fi_fabric");
    *(void **)&fab.strerror = dlsym(lib, "fi_strerror");
    if (!fab.getinfo || !fab.freeinfo || !fab.dupinfo || !fab.fabric || !fab.strerror) {
        dlclose(lib);
        return mp_error_code(MPI_ERR_OTHER, "libfabric.so.1 lacks fi_getinfo, fi_freeinfo, "
                             "fi_dupinfo, fi_fabric or fi_strerror");
    }
    fab.lib = lib;
    return MPI_SUCCESS;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    return fab.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    fab.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return fab.dupinfo(info);
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    return fab.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    return fab.lib ? fab.strerror(errnum) : "libfabric not loaded";
}

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer builds (make SANITIZE=address) only.  libfabric 1.17's "net" provider
 * allocates 24-48 bytes while its progress engine sets up a connection and never frees them,
 * whatever is closed at the end (every fid MemPI opened is closed in mp_net_finalize; the
 * "tcp" provider leaves nothing).  LeakSanitizer reads this hook at exit; the suppression
 * covers only allocations made inside libfabric. */
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
    return "leak:libfabric.so\n";
}
#endif
#endif

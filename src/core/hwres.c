/* hwres.c -- which instance of a hardware resource (package, L3 cache, NUMA node, core) this
 * process is restricted to, through hwloc.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI 4.1's guided splits (MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED) and
 * MPI_Get_hw_resource_info name hardware levels as hwloc does.  libmpi does not link hwloc:
 * the first question opens libhwloc.so.15 (hwloc 2.x) with dlopen() and loads the machine's
 * topology once.  A build without hwloc's header, or a machine without the library, knows no
 * hardware level below the node; callers then treat the level as unknown.
 *
 * A process is restricted to an instance when its CPU binding lies inside that instance's
 * CPU set; an unbound process on a machine with two cores is restricted to its package but
 * to no single core.  Levels are named as hwloc names object types ("Package", "L3Cache",
 * "NUMANode", "Core"), with or without the "hwloc://" prefix MPI 4.1 uses for them, ignoring
 * case.
 */
#include "core/core.h"
#include <dlfcn.h>
#include <pthread.h>
#include <strings.h>
#include <string.h>

#if defined(__has_include) && !defined(MEMPI_NO_HWLOC)   /* the latter: test the fallback */
#if __has_include(<hwloc.h>)
#include <hwloc.h>
#define MP_HAVE_HWLOC_H 1
#endif
#endif

static const struct { const char *name; int type; } levels[] = {
#ifdef MP_HAVE_HWLOC_H
    { "Package", HWLOC_OBJ_PACKAGE }, { "L3Cache", HWLOC_OBJ_L3CACHE },
    { "NUMANode", HWLOC_OBJ_NUMANODE }, { "Core", HWLOC_OBJ_CORE },
#else
    { "Package", 0 }, { "L3Cache", 0 }, { "NUMANode", 0 }, { "Core", 0 },
#endif
};
enum { NLEVELS = sizeof levels / sizeof levels[0] };

/* Per level: the instance index, -1 when not restricted to one, -2 when unknown. */
static int instance[NLEVELS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#ifdef MP_HAVE_HWLOC_H
static void probe(void)
{
    for (int i = 0; i < NLEVELS; i++)
        instance[i] = -2;
    void *lib = dlopen("libhwloc.so.15", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    int (*t_init)(hwloc_topology_t *) = (int (*)(hwloc_topology_t *))dlsym(lib, "hwloc_topology_init");
    int (*t_load)(hwloc_topology_t) = (int (*)(hwloc_topology_t))dlsym(lib, "hwloc_topology_load");
    void (*t_destroy)(hwloc_topology_t) = (void (*)(hwloc_topology_t))dlsym(lib, "hwloc_topology_destroy");
    hwloc_bitmap_t (*b_alloc)(void) = (hwloc_bitmap_t (*)(void))dlsym(lib, "hwloc_bitmap_alloc");
    void (*b_free)(hwloc_bitmap_t) = (void (*)(hwloc_bitmap_t))dlsym(lib, "hwloc_bitmap_free");
    int (*b_included)(hwloc_const_bitmap_t, hwloc_const_bitmap_t) =
        (int (*)(hwloc_const_bitmap_t, hwloc_const_bitmap_t))dlsym(lib, "hwloc_bitmap_isincluded");
    int (*get_cpubind)(hwloc_topology_t, hwloc_bitmap_t, int) =
        (int (*)(hwloc_topology_t, hwloc_bitmap_t, int))dlsym(lib, "hwloc_get_cpubind");
    int (*type_depth)(hwloc_topology_t, hwloc_obj_type_t) =
        (int (*)(hwloc_topology_t, hwloc_obj_type_t))dlsym(lib, "hwloc_get_type_depth");
    unsigned (*nbobjs)(hwloc_topology_t, int) =
        (unsigned (*)(hwloc_topology_t, int))dlsym(lib, "hwloc_get_nbobjs_by_depth");
    hwloc_obj_t (*obj_at)(hwloc_topology_t, int, unsigned) =
        (hwloc_obj_t (*)(hwloc_topology_t, int, unsigned))dlsym(lib, "hwloc_get_obj_by_depth");
    hwloc_topology_t topo;
    if (!t_init || !t_load || !t_destroy || !b_alloc || !b_free || !b_included || !get_cpubind ||
        !type_depth || !nbobjs || !obj_at || t_init(&topo) != 0)
        return;
    hwloc_bitmap_t bound = b_alloc();
    if (t_load(topo) == 0 && bound && get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0) {
        for (int i = 0; i < NLEVELS; i++) {
            int depth = type_depth(topo, (hwloc_obj_type_t)levels[i].type);
            if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
                continue;
            instance[i] = -1;
            unsigned n = nbobjs(topo, depth);
            for (unsigned k = 0; k < n; k++) {
                hwloc_obj_t o = obj_at(topo, depth, k);
                if (o && o->cpuset && b_included(bound, o->cpuset)) {
                    instance[i] = (int)o->logical_index;
                    break;
                }
            }
        }
    }
    if (bound)
        b_free(bound);
    t_destroy(topo);
}
#else
static void probe(void)
{
    for (int i = 0; i < NLEVELS; i++)
        instance[i] = -2;
}
#endif

int mp_hw_levels(void)
{
    return NLEVELS;
}

const char *mp_hw_level_name(int level)
{
    return levels[level].name;
}

int mp_hw_find_level(const char *name)
{
    if (strncasecmp(name, "hwloc://", 8) == 0)
        name += 8;
    for (int i = 0; i < NLEVELS; i++)
        if (strcasecmp(name, levels[i].name) == 0)
            return i;
    return -1;
}

int mp_hw_instance(int level)
{
    pthread_once(&once, probe);
    return instance[level];
}

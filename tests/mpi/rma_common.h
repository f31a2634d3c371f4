/* rma_common.h -- what the one-sided test programs share: the library under test, windows of every flavor, displacements.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The rma_*.c programs are written against the MPI 4.0 standard and are first validated
 * against MPICH (tests/mpi/run-with-mpich), so they must build against any MPI.  Where a
 * peer departs from the standard, a program asks rma_lib() and relaxes only that check, and
 * says so in its header comment; under MemPI every check is strict.
 *
 * rma_win_open() creates a window of any flavor over `bytes` bytes per rank, so one test body
 * runs over MPI_Win_create (malloc'ed memory), MPI_Win_allocate, MPI_Win_allocate_shared and
 * MPI_Win_create_dynamic (malloc'ed memory attached, its address allgathered).  The shared
 * flavor exists only when every rank of the communicator shares a node (it is skipped, on all
 * ranks alike, on namespace nodes).  rma_disp() turns a byte offset in a target's window into
 * the target_disp an RMA call takes: offset / disp_unit, or the attached address plus the
 * offset on a dynamic window (whose disp_unit is 1 and whose displacements are addresses).
 *
 * MPICH 4.0.2 (ch4:ucx) misplaces every remote access to an MPI_Win_allocate window when a
 * rank's size is not a multiple of 16 bytes (a get from rank 1 of 5-int windows reads rank
 * 0's last int): under MPICH the allocate flavor rounds the size up to 16 bytes.  The size a
 * test asks for is what it uses; only the memory behind it grows.
 */
#ifndef MEMPI_TEST_RMA_COMMON_H
#define MEMPI_TEST_RMA_COMMON_H

#include "check.h"
#include <stdint.h>
#include <string.h>

enum { RMA_MEMPI, RMA_MPICH, RMA_OPENMPI, RMA_OTHER };

/* Which library runs the program (from MPI_Get_library_version).  Threads may ask at once:
 * the cache is a relaxed atomic (every thread computes the same answer). */
static __attribute__((unused)) int rma_lib(void)
{
    static int lib = -1;
    int known = __atomic_load_n(&lib, __ATOMIC_RELAXED);
    if (known < 0) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        CHECK_MPI(MPI_Get_library_version(v, &len));
        known = !strncmp(v, "MemPI", 5) ? RMA_MEMPI : !strncmp(v, "MPICH", 5) ? RMA_MPICH
              : strstr(v, "Open MPI") ? RMA_OPENMPI : RMA_OTHER;
        __atomic_store_n(&lib, known, __ATOMIC_RELAXED);
    }
    return known;
}

/* MPI_Init, rank and size of MPI_COMM_WORLD, whose errors are then returned (CHECK_MPI
 * reports them). */
static __attribute__((unused)) void rma_init(int *argc, char ***argv, int *me, int *np)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

enum { FL_CREATE, FL_ALLOCATE, FL_SHARED, FL_DYNAMIC, FL_COUNT };
static const char *const rma_flavor_name[FL_COUNT] = {"create", "allocate", "allocate_shared",
                                                      "create_dynamic"};

typedef struct rma_win {
    MPI_Win win;
    int flavor;
    char *base;         /* this rank's window memory (may be NULL when bytes is 0) */
    MPI_Aint bytes;     /* as asked */
    MPI_Aint size;      /* as passed to MPI: bytes, rounded up under MPICH's allocate */
    int disp_unit;      /* 1 on dynamic windows */
    MPI_Aint *rbase;    /* dynamic: every rank's attached address, else NULL */
    void *mem;          /* malloc'ed memory behind create and dynamic windows */
} rma_win;

/* 1 when every rank of comm shares a node with every other (collective). */
static __attribute__((unused)) int rma_all_on_one_node(MPI_Comm comm)
{
    MPI_Comm node;
    int nsize, csize;
    CHECK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_MPI(MPI_Comm_size(node, &nsize));
    CHECK_MPI(MPI_Comm_size(comm, &csize));
    CHECK_MPI(MPI_Comm_free(&node));
    int mine = nsize == csize, all = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm));
    return all;
}

/* Collective.  Returns 0 (on every rank) when the flavor cannot be made on comm.  The window's
 * error handler is MPI_ERRORS_RETURN, so CHECK_MPI reports a failing call with its message. */
static __attribute__((unused)) int rma_win_open(rma_win *w, int flavor, MPI_Aint bytes,
                                                int disp_unit, MPI_Info info, MPI_Comm comm)
{
    memset(w, 0, sizeof *w);
    w->flavor = flavor;
    w->bytes = w->size = bytes;
    w->disp_unit = flavor == FL_DYNAMIC ? 1 : disp_unit;
    if (flavor == FL_ALLOCATE && rma_lib() == RMA_MPICH)
        w->size = (bytes + 15) / 16 * 16;
    switch (flavor) {
    case FL_CREATE:
        w->mem = w->base = malloc((size_t)bytes + 1);
        CHECK(w->mem, "out of memory");
        CHECK_MPI(MPI_Win_create(w->base, bytes, disp_unit, info, comm, &w->win));
        break;
    case FL_ALLOCATE:
        CHECK_MPI(MPI_Win_allocate(w->size, disp_unit, info, comm, &w->base, &w->win));
        break;
    case FL_SHARED:
        if (!rma_all_on_one_node(comm))
            return 0;
        CHECK_MPI(MPI_Win_allocate_shared(bytes, disp_unit, info, comm, &w->base, &w->win));
        break;
    case FL_DYNAMIC: {
        int n;
        CHECK_MPI(MPI_Comm_size(comm, &n));
        w->mem = w->base = malloc((size_t)bytes + 1);
        w->rbase = malloc(sizeof(MPI_Aint) * (size_t)n);
        CHECK(w->mem && w->rbase, "out of memory");
        CHECK_MPI(MPI_Win_create_dynamic(info, comm, &w->win));
        if (bytes > 0)
            CHECK_MPI(MPI_Win_attach(w->win, w->base, bytes));
        MPI_Aint mine;
        CHECK_MPI(MPI_Get_address(w->base, &mine));
        CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, w->rbase, 1, MPI_AINT, comm));
        break;
    }
    }
    if (bytes > 0)
        CHECK(w->base != NULL, "%s window of %ld bytes has no base", rma_flavor_name[flavor],
              (long)bytes);
    CHECK_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
    return 1;
}

/* Collective. */
static __attribute__((unused)) void rma_win_close(rma_win *w)
{
    if (w->flavor == FL_DYNAMIC && w->bytes > 0)
        CHECK_MPI(MPI_Win_detach(w->win, w->base));
    CHECK_MPI(MPI_Win_free(&w->win));
    CHECK(w->win == MPI_WIN_NULL, "MPI_Win_free left the handle set");
    free(w->mem);
    free(w->rbase);
    memset(w, 0, sizeof *w);
}

/* target_disp addressing byte `off` of target's window. */
static __attribute__((unused)) MPI_Aint rma_disp(const rma_win *w, int target, MPI_Aint off)
{
    if (w->flavor == FL_DYNAMIC)
        return MPI_Aint_add(w->rbase[target], off);
    return off / w->disp_unit;
}

/* Local stores to the own window, made visible to later RMA in any memory model: inside an
 * exclusive lock of the own window (rule 5 of the standard's semantics). */
#define RMA_LOCAL_BEGIN(w, me) CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (me), 0, (w)->win))
#define RMA_LOCAL_END(w, me) CHECK_MPI(MPI_Win_unlock((me), (w)->win))

#endif

/* select.c -- which algorithm each collective uses: the one readable table.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each collective has a list of algorithm names (after "auto", in MP_<COLL>_<ALG> enum order)
 * and a rule function that picks one from the message size, the process count, the
 * commutativity of the op and the node layout.  MEMPI_COLL_<NAME>=<algorithm> (e.g.
 * MEMPI_COLL_ALLREDUCE=ring) overrides the rule: the collective layer's rows of the
 * configuration table are at the end of this file, and core/config.c parses them with every
 * other variable at MPI_Init (an unknown name names the variable, the value and the choices).
 * A forced algorithm whose preconditions do not hold for a particular call (ring allreduce
 * with a non-commutative op, recursive-doubling allgather on 6 ranks, ...) falls back to a
 * general one in the family file, so forcing never produces wrong results.  A forced "shm"
 * that cannot serve a call (nonblocking, ranks on other hosts, a type the shm reductions do
 * not handle) is ignored for that call and the rule decides.  Each family reports the
 * algorithm that actually ran (mp_coll_ran; with MEMPI_VERBOSE=2 one line per call), which is
 * how the tests see a forced algorithm that never runs.
 *
 * Every rank of a call must choose the same algorithm: rules only look at arguments that are
 * equal on all ranks (sizes by the standard's signature rules, process count, layout, op).
 *
 * The thresholds are first guesses for a shared-memory node (2 cores); bench/ measures them.
 */
#include "coll/coll_impl.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*rule_fn)(mp_comm *comm, const mp_coll_args *a);

typedef struct coll_entry {
    const char *name;                 /* "bcast" -> variable MEMPI_COLL_BCAST */
    const char *const *algs;          /* "auto", then the algorithms: algs[enum value + 1] */
    rule_fn rule;
    int forced;                       /* -1 = use the rule */
    int shm;                          /* index of the "shm" algorithm, -1 if none */
    int reduction;                    /* shm needs a suitable type (mp_coll_args.shm_fits) */
} coll_entry;

/* Algorithm names, index = enum value + 1: "auto" (the rule decides) comes first, so each list
 * is also the choices of its MEMPI_COLL_<NAME> row (forced = index - 1, -1 = auto). */
static const char *const barrier_algs[] = { "auto", "dissemination", "node", "shm", NULL };
static const char *const bcast_algs[] = { "auto", "binomial", "scatter_allgather", "two_stage",
                                          "linear", "shm", NULL };
static const char *const reduce_algs[] = { "auto", "binomial", "linear", "node", "shm", NULL };
static const char *const allreduce_algs[] = { "auto", "recursive_doubling", "rabenseifner", "ring",
                                              "reduce_bcast", "btree4", "shm", NULL };
static const char *const allgather_algs[] = { "auto", "ring", "recursive_doubling", "bruck",
                                              "gather_bcast", "btree4star", "shm", NULL };
static const char *const allgatherv_algs[] = { "auto", "ring", "gatherv_bcast", "btree4star",
                                               NULL };
static const char *const gather_algs[] = { "auto", "binomial", "linear", NULL };
static const char *const scatter_algs[] = { "auto", "binomial", "linear", NULL };
static const char *const linear_only[] = { "auto", "linear", NULL };   /* gatherv, scatterv */
static const char *const alltoall_algs[] = { "auto", "pairwise", "bruck", "linear", "shm", NULL };
static const char *const alltoallv_algs[] = { "auto", "pairwise", "linear", "shm", NULL };
static const char *const reduce_scatter_algs[] = { "auto", "reduce_scatterv", "pairwise", NULL };
static const char *const scan_algs[] = { "auto", "recursive_doubling", "linear", NULL };

static int node_aware(mp_comm *comm) { return mp_coll_node_aware_useful(comm); }

/* Largest per-rank message for which the shm algorithm is the default on one node: no limit,
 * since shm.c moves large data by single copy in one or two synchronisations per call
 * (docs/decisions.md, "Shared-memory collectives at every size"); the knobs stay for
 * machines where a crossover shows up. */
#define SHM_BCAST_MAX      ((size_t)-1)
#define SHM_REDUCE_MAX     ((size_t)-1)
#define SHM_ALLREDUCE_MAX  ((size_t)-1)
#define SHM_ALLGATHER_MAX  ((size_t)-1)

int mp_coll_shm_call_ok(mp_comm *comm, const mp_coll_args *a, int reduction)
{
    return a->blocking && (!reduction || a->shm_fits) && mp_coll_shm_usable(comm);
}

/* the default: one node, a call the shm algorithm can serve, not too large */
static int shm_default(mp_comm *c, const mp_coll_args *a, int reduction, size_t max)
{
    return a->bytes <= max && mp_coll_state_of(c)->nnodes == 1 &&
           mp_coll_shm_call_ok(c, a, reduction);
}

/* ---- the rules ------------------------------------------------------------------------- */
static int rule_barrier(mp_comm *c, const mp_coll_args *a)
{
    if (shm_default(c, a, 0, SIZE_MAX))
        return MP_BARRIER_SHM;
    return node_aware(c) ? MP_BARRIER_NODE : MP_BARRIER_DISSEMINATION;
}

static int rule_bcast(mp_comm *c, const mp_coll_args *a)
{
    if (shm_default(c, a, 0, SHM_BCAST_MAX))
        return MP_BCAST_SHM;
    if (node_aware(c))
        return MP_BCAST_TWO_STAGE;           /* each stage picks binomial / scatter by size */
    /* not a->count: the root's and a receiver's counts may differ (same signature) */
    if (a->bytes < 12288 || c->size <= 2)
        return MP_BCAST_BINOMIAL;
    return MP_BCAST_SCATTER_ALLGATHER;
}

static int rule_reduce(mp_comm *c, const mp_coll_args *a)
{
    if (shm_default(c, a, 1, SHM_REDUCE_MAX))
        return MP_REDUCE_SHM;
    if (node_aware(c) && (a->commutative || mp_coll_state_of(c)->blocked))
        return MP_REDUCE_NODE;
    return MP_REDUCE_BINOMIAL;
}

static int rule_allreduce(mp_comm *c, const mp_coll_args *a)
{
    if (shm_default(c, a, 1, SHM_ALLREDUCE_MAX))
        return MP_ALLREDUCE_SHM;
    if (node_aware(c) && (a->commutative || mp_coll_state_of(c)->blocked))
        return MP_ALLREDUCE_BTREE4;
    if (!a->commutative || a->bytes < 2048 || a->count < mp_pof2_floor(c->size))
        return MP_ALLREDUCE_RECURSIVE_DOUBLING;
    if (a->bytes >= (1u << 20) && c->size > 2)
        return MP_ALLREDUCE_RING;
    return MP_ALLREDUCE_RABENSEIFNER;
}

static int rule_allgather(mp_comm *c, const mp_coll_args *a)
{
    size_t total = a->bytes * (size_t)c->size;
    if (shm_default(c, a, 0, SHM_ALLGATHER_MAX))
        return MP_ALLGATHER_SHM;
    if (node_aware(c))
        return MP_ALLGATHER_BTREE4STAR;
    if (total < 81920)
        return (c->size & (c->size - 1)) == 0 ? MP_ALLGATHER_RECURSIVE_DOUBLING
                                              : MP_ALLGATHER_BRUCK;
    return MP_ALLGATHER_RING;
}

static int rule_allgatherv(mp_comm *c, const mp_coll_args *a)
{
    return node_aware(c) ? MP_ALLGATHERV_BTREE4STAR : MP_ALLGATHERV_RING;
}

static int rule_gather(mp_comm *c, const mp_coll_args *a)
{
    return a->bytes <= 4096 ? MP_GATHER_BINOMIAL : MP_GATHER_LINEAR;
}

static int rule_linear(mp_comm *c, const mp_coll_args *a) { return 0; }

static int rule_scatter(mp_comm *c, const mp_coll_args *a)
{
    return a->bytes <= 4096 ? MP_SCATTER_BINOMIAL : MP_SCATTER_LINEAR;
}

/* All-to-all through the shared segment on one node: blocks above SHM_ALLTOALL_MIN (the
 * smaller ones keep the packet algorithms, which move them in the eager packets); alltoallv
 * and alltoallw at every size, since their ranks cannot agree on a size without talking (shm.c
 * moves small blocks inline in its one publication). */
#define SHM_ALLTOALL_MIN ((size_t)32768)
static int shm_alltoall(mp_comm *c, const mp_coll_args *a)
{
    return shm_default(c, a, 0, SIZE_MAX) && mp_coll_shm_alltoall_fits(c);
}

static int rule_alltoall(mp_comm *c, const mp_coll_args *a)
{
    if (a->bytes > SHM_ALLTOALL_MIN && shm_alltoall(c, a))
        return MP_ALLTOALL_SHM;
    if (a->bytes <= 256 && c->size >= 8)
        return MP_ALLTOALL_BRUCK;
    if (a->bytes <= 32768 && c->size <= 8)
        return MP_ALLTOALL_LINEAR;
    return MP_ALLTOALL_PAIRWISE;
}

static int rule_alltoallv(mp_comm *c, const mp_coll_args *a)
{
    if (shm_alltoall(c, a))
        return MP_ALLTOALLV_SHM;
    return c->size <= 8 ? MP_ALLTOALLV_LINEAR : MP_ALLTOALLV_PAIRWISE;
}

static int rule_reduce_scatter(mp_comm *c, const mp_coll_args *a)
{
    if (a->commutative && a->bytes >= 512)
        return MP_REDUCE_SCATTER_PAIRWISE;
    return MP_REDUCE_SCATTER_REDUCE_SCATTERV;
}

static int rule_scan(mp_comm *c, const mp_coll_args *a)
{
    return MP_SCAN_RECURSIVE_DOUBLING;
}

/* ---- the table ------------------------------------------------------------------------- */
#define NO_SHM -1, -1, 0
static coll_entry table[MP_COLL_NCOLL] = {
    [MP_COLL_BARRIER]   = { "barrier",   barrier_algs,   rule_barrier,   -1, MP_BARRIER_SHM, 0 },
    [MP_COLL_BCAST]     = { "bcast",     bcast_algs,     rule_bcast,     -1, MP_BCAST_SHM, 0 },
    [MP_COLL_REDUCE]    = { "reduce",    reduce_algs,    rule_reduce,    -1, MP_REDUCE_SHM, 1 },
    [MP_COLL_ALLREDUCE] = { "allreduce", allreduce_algs, rule_allreduce, -1, MP_ALLREDUCE_SHM, 1 },
    [MP_COLL_ALLGATHER] = { "allgather", allgather_algs, rule_allgather, -1, MP_ALLGATHER_SHM, 0 },
    [MP_COLL_ALLGATHERV] = { "allgatherv", allgatherv_algs, rule_allgatherv, NO_SHM },
    [MP_COLL_GATHER]    = { "gather",    gather_algs,    rule_gather,    NO_SHM },
    [MP_COLL_GATHERV]   = { "gatherv",   linear_only,    rule_linear,    NO_SHM },
    [MP_COLL_SCATTER]   = { "scatter",   scatter_algs,   rule_scatter,   NO_SHM },
    [MP_COLL_SCATTERV]  = { "scatterv",  linear_only,    rule_linear,    NO_SHM },
    [MP_COLL_ALLTOALL]  = { "alltoall",  alltoall_algs,  rule_alltoall,  -1, MP_ALLTOALL_SHM, 0 },
    [MP_COLL_ALLTOALLV] = { "alltoallv", alltoallv_algs, rule_alltoallv, -1, MP_ALLTOALLV_SHM, 0 },
    [MP_COLL_ALLTOALLW] = { "alltoallw", alltoallv_algs, rule_alltoallv, -1, MP_ALLTOALLV_SHM, 0 },
    [MP_COLL_REDUCE_SCATTER] = { "reduce_scatter", reduce_scatter_algs, rule_reduce_scatter, NO_SHM },
    [MP_COLL_REDUCE_SCATTER_BLOCK] = { "reduce_scatter_block", reduce_scatter_algs,
                                       rule_reduce_scatter, NO_SHM },
    [MP_COLL_SCAN]      = { "scan",      scan_algs,      rule_scan,      NO_SHM },
    [MP_COLL_EXSCAN]    = { "exscan",    scan_algs,      rule_scan,      NO_SHM },
};

int mp_coll_select(int coll, mp_comm *comm, const mp_coll_args *a)
{
    const coll_entry *e = &table[coll];
    if (e->forced >= 0 && !(e->forced == e->shm && !mp_coll_shm_call_ok(comm, a, e->reduction)))
        return e->forced;
    return e->rule(comm, a);
}

/* MEMPI_VERBOSE=2: one line per call naming the algorithm that ran, and the forced one if it
 * did not apply (tests/mpi/coll_forced.h counts these lines). */
void mp_coll_trace(mp_comm *comm, int coll, int alg)
{
    const coll_entry *e = &table[coll];
    if (e->forced >= 0 && e->forced != alg)
        fprintf(stderr, "MemPI: rank %d: coll %s %s (size %d; forced %s does not apply)\n",
                mp_world.rank, e->name, e->algs[alg + 1], comm->size, e->algs[e->forced + 1]);
    else
        fprintf(stderr, "MemPI: rank %d: coll %s %s (size %d)\n", mp_world.rank, e->name,
                e->algs[alg + 1], comm->size);
}

/* ---- MEMPI_COLL_<NAME>: the layer's rows of the configuration table --------------------- */
#define ROW(NAME, coll, algs, call) \
    { "MEMPI_COLL_" #NAME, MP_CFG_CHOICE, MP_CFG_ALL_EQ | MP_CFG_RUNTIME | MP_CFG_EMPTY, "auto", \
      0, 0, algs, -1, &table[coll].forced, NULL, NULL, \
      "algorithm of " call " and its nonblocking and persistent forms (auto: chosen per call)" }
const mp_config_var mp_coll_config_vars[] = {
    ROW(BARRIER, MP_COLL_BARRIER, barrier_algs, "MPI_Barrier"),
    ROW(BCAST, MP_COLL_BCAST, bcast_algs, "MPI_Bcast"),
    ROW(REDUCE, MP_COLL_REDUCE, reduce_algs, "MPI_Reduce"),
    ROW(ALLREDUCE, MP_COLL_ALLREDUCE, allreduce_algs, "MPI_Allreduce"),
    ROW(ALLGATHER, MP_COLL_ALLGATHER, allgather_algs, "MPI_Allgather"),
    ROW(ALLGATHERV, MP_COLL_ALLGATHERV, allgatherv_algs, "MPI_Allgatherv"),
    ROW(GATHER, MP_COLL_GATHER, gather_algs, "MPI_Gather"),
    ROW(GATHERV, MP_COLL_GATHERV, linear_only, "MPI_Gatherv"),
    ROW(SCATTER, MP_COLL_SCATTER, scatter_algs, "MPI_Scatter"),
    ROW(SCATTERV, MP_COLL_SCATTERV, linear_only, "MPI_Scatterv"),
    ROW(ALLTOALL, MP_COLL_ALLTOALL, alltoall_algs, "MPI_Alltoall"),
    ROW(ALLTOALLV, MP_COLL_ALLTOALLV, alltoallv_algs, "MPI_Alltoallv"),
    ROW(ALLTOALLW, MP_COLL_ALLTOALLW, alltoallv_algs, "MPI_Alltoallw"),
    ROW(REDUCE_SCATTER, MP_COLL_REDUCE_SCATTER, reduce_scatter_algs, "MPI_Reduce_scatter"),
    ROW(REDUCE_SCATTER_BLOCK, MP_COLL_REDUCE_SCATTER_BLOCK, reduce_scatter_algs,
        "MPI_Reduce_scatter_block"),
    ROW(SCAN, MP_COLL_SCAN, scan_algs, "MPI_Scan"),
    ROW(EXSCAN, MP_COLL_EXSCAN, scan_algs, "MPI_Exscan"),
};
const int mp_coll_config_nvars = (int)(sizeof mp_coll_config_vars / sizeof mp_coll_config_vars[0]);

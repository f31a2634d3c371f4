/* mempi-test: np=1,2,3,4,5,6,7,8,9 timeout=240 */
/* coll_neighbor.c -- neighbourhood collectives on Cartesian, graph and distributed-graph topologies.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Topologies: 1-D periodic ring (size 1 and 2 make the -1 and +1 neighbour the same process),
 * 2-D with one periodic dimension, 2-D open, 3-D periodic (dimensions of size 1 and 2), a
 * symmetric graph with repeated edges and self loops (small np), an asymmetric adjacent
 * distributed graph (weighted), and a distributed graph built with MPI_Dist_graph_create
 * where only some ranks give edges.
 *
 * Every block carries a key naming the edge it travels on, so a block delivered to the wrong
 * slot shows up:
 *   Cartesian  block k sent by s is received in the slot k^1 of its target (what I send to my
 *              -1 neighbour it receives from its +1 neighbour);
 *   graphs     the i-th block from s to d is received in d's slot of the i-th occurrence of
 *              s among d's sources (the standard's rule for repeated edges).
 * Counts of the v/w forms depend on the key (some zero); MPI_PROC_NULL slots must stay
 * untouched.  Each form runs blocking, nonblocking (all five in flight at once), as _c and
 * persistent (_init, started twice).
 */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static MPI_Datatype vec;                /* 2 ints at 0 and 2, extent 3 ints */
#define HOLE (-7777)
#define UNTOUCHED (-1)

typedef struct topo {
    const char *name;
    MPI_Comm comm;
    int cart;
    int me;
    int indeg, outdeg;
    int *in, *out;
    long *inkey, *outkey;               /* edge key of each slot */
} topo;

static int val(long key, long i) { return (int)((key * 131L + i * 7L) % 100003L); }
static long cnt(long key, long unit) { return (key % 4) * unit; }   /* 0..3 units */

static long count_before(const int *a, int j, int x)
{
    long m = 0;
    for (int i = 0; i < j; i++) if (a[i] == x) m++;
    return m;
}

/* keys: Cartesian (sender, sender's slot); graphs (sender, target, occurrence) */
static void make_keys(topo *t)
{
    t->inkey = malloc(sizeof(long) * (t->indeg + 1));
    t->outkey = malloc(sizeof(long) * (t->outdeg + 1));
    for (int k = 0; k < t->outdeg; k++)
        t->outkey[k] = t->cart ? t->me * 64L + k
                               : (t->me * 64L + t->out[k]) * 8 + count_before(t->out, k, t->out[k]) + 7;
    for (int j = 0; j < t->indeg; j++)
        t->inkey[j] = t->in[j] == MPI_PROC_NULL ? -1
                    : t->cart ? t->in[j] * 64L + (j ^ 1)
                              : (t->in[j] * 64L + t->me) * 8 + count_before(t->in, j, t->in[j]) + 7;
}

static void fill_lists(topo *t)
{
    int kind;
    MPI_Comm_rank(t->comm, &t->me);
    CHECK_MPI(MPI_Topo_test(t->comm, &kind));
    if (kind == MPI_CART) {
        int nd;
        CHECK_MPI(MPI_Cartdim_get(t->comm, &nd));
        t->indeg = t->outdeg = 2 * nd;
        t->in = malloc(sizeof(int) * (2 * nd + 1)); t->out = malloc(sizeof(int) * (2 * nd + 1));
        for (int d = 0; d < nd; d++) {
            int s, r;
            CHECK_MPI(MPI_Cart_shift(t->comm, d, 1, &s, &r));
            t->in[2 * d] = t->out[2 * d] = s;
            t->in[2 * d + 1] = t->out[2 * d + 1] = r;
        }
        t->cart = 1;
    } else if (kind == MPI_GRAPH) {
        int n;
        CHECK_MPI(MPI_Graph_neighbors_count(t->comm, t->me, &n));
        t->indeg = t->outdeg = n;
        t->in = malloc(sizeof(int) * (n + 1)); t->out = malloc(sizeof(int) * (n + 1));
        CHECK_MPI(MPI_Graph_neighbors(t->comm, t->me, n, t->in));
        memcpy(t->out, t->in, sizeof(int) * n);
    } else {
        int w;
        CHECK_MPI(MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &w));
        t->in = malloc(sizeof(int) * (t->indeg + 1)); t->out = malloc(sizeof(int) * (t->outdeg + 1));
        int *iw = malloc(sizeof(int) * (t->indeg + 1)), *ow = malloc(sizeof(int) * (t->outdeg + 1));
        CHECK_MPI(MPI_Dist_graph_neighbors(t->comm, t->indeg, t->in, iw, t->outdeg, t->out, ow));
        free(iw); free(ow);
    }
    make_keys(t);
}

/* ---- element layouts: 0 = MPI_INT, 1 = vec (holes must survive) ------------------------ */
static MPI_Datatype T(int lay) { return lay ? vec : MPI_INT; }
static int *alloc_lay(int lay, long n) { return malloc(sizeof(int) * (size_t)((lay ? 3 : 1) * n + 1)); }
static void put(int *b, int lay, long i, int v)
{
    if (lay) { b[3 * i] = v; b[3 * i + 1] = HOLE; b[3 * i + 2] = v ^ 0x5a5a; }
    else b[i] = v;
}
static int ok_at(const int *b, int lay, long i, int v)
{
    if (lay) return b[3 * i] == v && b[3 * i + 1] == HOLE && b[3 * i + 2] == (v ^ 0x5a5a);
    return b[i] == v;
}

enum { BLOCKING, NONBLOCKING, LARGE, PERSISTENT };

/* Persistent form: start the request twice (the second run must work too), then free it. */
static void run_persistent(MPI_Request *rq)
{
    for (int k = 0; k < 2; k++) {
        CHECK_MPI(MPI_Start(rq));
        CHECK_MPI(MPI_Wait(rq, MPI_STATUS_IGNORE));
        if (*rq == MPI_REQUEST_NULL) FAIL("Wait freed a persistent request");
    }
    CHECK_MPI(MPI_Request_free(rq));
}

/* ---- allgather ---------------------------------------------------------------------------- */
static void run_allgather(topo *t, long n, int lay, int mode)
{
    int *sb = alloc_lay(lay, n), *rb = alloc_lay(lay, n * t->indeg);
    for (long i = 0; i < n; i++) put(sb, lay, i, val(t->me, i));
    for (long i = 0; i < n * t->indeg; i++) put(rb, lay, i, UNTOUCHED);
    MPI_Request rq;
    if (mode == BLOCKING) CHECK_MPI(MPI_Neighbor_allgather(sb, (int)n, T(lay), rb, (int)n, T(lay), t->comm));
    else if (mode == LARGE) CHECK_MPI(MPI_Neighbor_allgather_c(sb, n, T(lay), rb, n, T(lay), t->comm));
    else if (mode == PERSISTENT) { CHECK_MPI(MPI_Neighbor_allgather_init(sb, (int)n, T(lay), rb, (int)n, T(lay), t->comm, MPI_INFO_NULL, &rq)); run_persistent(&rq); }
    else { CHECK_MPI(MPI_Ineighbor_allgather(sb, (int)n, T(lay), rb, (int)n, T(lay), t->comm, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    for (int j = 0; j < t->indeg; j++)
        for (long i = 0; i < n; i++) {
            int want = t->in[j] == MPI_PROC_NULL ? UNTOUCHED : val(t->in[j], i);
            if (!ok_at(rb, lay, j * n + i, want))
                FAIL("%s allgather n=%ld lay=%d mode=%d slot %d (from %d) i=%ld: got %d want %d", t->name, n, lay, mode, j, t->in[j], i, lay ? rb[3 * (j * n + i)] : rb[j * n + i], want);
        }
    free(sb); free(rb);
}

/* ---- allgatherv: source s sends (s % 3) * unit elements; slots in reverse order with gaps -- */
static void run_allgatherv(topo *t, long unit, int lay, int mode)
{
    long sc = (t->me % 3) * unit, total = 0;
    int *rc = malloc(sizeof(int) * (t->indeg + 1)), *rd = malloc(sizeof(int) * (t->indeg + 1));
    MPI_Count *rcc = malloc(sizeof(MPI_Count) * (t->indeg + 1));
    MPI_Aint *rdc = malloc(sizeof(MPI_Aint) * (t->indeg + 1));
    for (int j = t->indeg - 1; j >= 0; j--) {
        rc[j] = t->in[j] == MPI_PROC_NULL ? (int)unit : (int)((t->in[j] % 3) * unit);
        rd[j] = (int)total; total += rc[j] + 1;
        rcc[j] = rc[j]; rdc[j] = rd[j];
    }
    int *sb = alloc_lay(lay, sc), *rb = alloc_lay(lay, total);
    for (long i = 0; i < sc; i++) put(sb, lay, i, val(t->me, i));
    for (long i = 0; i < total; i++) put(rb, lay, i, UNTOUCHED);
    MPI_Request rq;
    if (mode == BLOCKING) CHECK_MPI(MPI_Neighbor_allgatherv(sb, (int)sc, T(lay), rb, rc, rd, T(lay), t->comm));
    else if (mode == LARGE) CHECK_MPI(MPI_Neighbor_allgatherv_c(sb, sc, T(lay), rb, rcc, rdc, T(lay), t->comm));
    else if (mode == PERSISTENT) { CHECK_MPI(MPI_Neighbor_allgatherv_init_c(sb, sc, T(lay), rb, rcc, rdc, T(lay), t->comm, MPI_INFO_NULL, &rq)); run_persistent(&rq); }
    else { CHECK_MPI(MPI_Ineighbor_allgatherv(sb, (int)sc, T(lay), rb, rc, rd, T(lay), t->comm, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    for (int j = 0; j < t->indeg; j++) {
        for (long i = 0; i < rc[j]; i++) {
            int want = t->in[j] == MPI_PROC_NULL ? UNTOUCHED : val(t->in[j], i);
            if (!ok_at(rb, lay, rd[j] + i, want)) FAIL("%s allgatherv unit=%ld lay=%d slot %d i=%ld", t->name, unit, lay, j, i);
        }
        if (!ok_at(rb, lay, rd[j] + rc[j], UNTOUCHED)) FAIL("%s allgatherv wrote a gap", t->name);
    }
    free(sb); free(rb); free(rc); free(rd); free(rcc); free(rdc);
}

/* ---- alltoall ----------------------------------------------------------------------------- */
static void run_alltoall(topo *t, long n, int lay, int mode)
{
    int *sb = alloc_lay(lay, n * t->outdeg), *rb = alloc_lay(lay, n * t->indeg);
    for (int k = 0; k < t->outdeg; k++) for (long i = 0; i < n; i++) put(sb, lay, k * n + i, val(t->outkey[k], i));
    for (long i = 0; i < n * t->indeg; i++) put(rb, lay, i, UNTOUCHED);
    MPI_Request rq;
    if (mode == BLOCKING) CHECK_MPI(MPI_Neighbor_alltoall(sb, (int)n, T(lay), rb, (int)n, T(lay), t->comm));
    else if (mode == LARGE) CHECK_MPI(MPI_Neighbor_alltoall_c(sb, n, T(lay), rb, n, T(lay), t->comm));
    else if (mode == PERSISTENT) { CHECK_MPI(MPI_Neighbor_alltoall_init_c(sb, n, T(lay), rb, n, T(lay), t->comm, MPI_INFO_NULL, &rq)); run_persistent(&rq); }
    else { CHECK_MPI(MPI_Ineighbor_alltoall(sb, (int)n, T(lay), rb, (int)n, T(lay), t->comm, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    for (int j = 0; j < t->indeg; j++)
        for (long i = 0; i < n; i++) {
            int want = t->in[j] == MPI_PROC_NULL ? UNTOUCHED : val(t->inkey[j], i);
            if (!ok_at(rb, lay, j * n + i, want))
                FAIL("%s alltoall n=%ld lay=%d mode=%d slot %d (from %d) i=%ld: got %d want %d", t->name, n, lay, mode, j, t->in[j], i, lay ? rb[3 * (j * n + i)] : rb[j * n + i], want);
        }
    free(sb); free(rb);
}

/* ---- alltoallv and alltoallw: counts from the edge key ----------------------------------- */
static void run_alltoallvw(topo *t, long unit, int w, int mode)
{
    int so = t->outdeg, si = t->indeg;
    int *sc = malloc(sizeof(int) * (so + 1)), *sd = malloc(sizeof(int) * (so + 1));
    int *rc = malloc(sizeof(int) * (si + 1)), *rd = malloc(sizeof(int) * (si + 1));
    MPI_Count *scc = malloc(sizeof(MPI_Count) * (so + 1)), *rcc = malloc(sizeof(MPI_Count) * (si + 1));
    MPI_Aint *sda = malloc(sizeof(MPI_Aint) * (so + 1)), *rda = malloc(sizeof(MPI_Aint) * (si + 1));
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (so + 1)), *rt = malloc(sizeof(MPI_Datatype) * (si + 1));
    long stot = 0, rtot = 0;             /* in ints */
    for (int k = 0; k < so; k++) {       /* sends: plain ints, 2 per element of the receiver */
        sc[k] = (int)(2 * cnt(t->outkey[k], unit)); sd[k] = (int)stot; stot += sc[k] + 3;
        scc[k] = sc[k]; sda[k] = w ? sd[k] * (MPI_Aint)sizeof(int) : sd[k]; st[k] = MPI_INT;
    }
    /* receives: v uses MPI_INT; w alternates MPI_INT (2c ints) and vec (c elements) per slot */
    for (int j = si - 1; j >= 0; j--) {
        long c = t->in[j] == MPI_PROC_NULL ? unit : cnt(t->inkey[j], unit);
        int use_vec = w && (j % 2 == 1);
        rc[j] = (int)(use_vec ? c : 2 * c); rt[j] = use_vec ? vec : MPI_INT;
        rd[j] = (int)rtot; rtot += (use_vec ? 3 * c : 2 * c) + 2;
        rcc[j] = rc[j]; rda[j] = w ? rd[j] * (MPI_Aint)sizeof(int) : rd[j];
    }
    int *sb = malloc(sizeof(int) * (stot + 1)), *rb = malloc(sizeof(int) * (rtot + 1));
    for (int k = 0; k < so; k++) for (long i = 0; i < sc[k]; i++) sb[sd[k] + i] = val(t->outkey[k], i);
    for (long i = 0; i < rtot; i++) rb[i] = UNTOUCHED;
    MPI_Request rq;
    if (!w) {
        if (mode == BLOCKING) CHECK_MPI(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, t->comm));
        else if (mode == LARGE) CHECK_MPI(MPI_Neighbor_alltoallv_c(sb, scc, sda, MPI_INT, rb, rcc, rda, MPI_INT, t->comm));
        else if (mode == PERSISTENT) { CHECK_MPI(MPI_Neighbor_alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, t->comm, MPI_INFO_NULL, &rq)); run_persistent(&rq); }
        else { CHECK_MPI(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, t->comm, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    } else {
        if (mode == BLOCKING) CHECK_MPI(MPI_Neighbor_alltoallw(sb, sc, sda, st, rb, rc, rda, rt, t->comm));
        else if (mode == LARGE) CHECK_MPI(MPI_Neighbor_alltoallw_c(sb, scc, sda, st, rb, rcc, rda, rt, t->comm));
        else if (mode == PERSISTENT) { CHECK_MPI(MPI_Neighbor_alltoallw_init(sb, sc, sda, st, rb, rc, rda, rt, t->comm, MPI_INFO_NULL, &rq)); run_persistent(&rq); }
        else { CHECK_MPI(MPI_Ineighbor_alltoallw(sb, sc, sda, st, rb, rc, rda, rt, t->comm, &rq)); CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE)); }
    }
    for (int j = 0; j < si; j++) {
        long c = t->in[j] == MPI_PROC_NULL ? unit : cnt(t->inkey[j], unit);
        int use_vec = rt[j] == vec;
        for (long i = 0; i < 2 * c; i++) {
            int want = t->in[j] == MPI_PROC_NULL ? UNTOUCHED : val(t->inkey[j], i);
            long at = use_vec ? rd[j] + 3 * (i / 2) + 2 * (i % 2) : rd[j] + i;
            if (rb[at] != want) FAIL("%s alltoall%s unit=%ld mode=%d slot %d (from %d) i=%ld: got %d want %d", t->name, w ? "w" : "v", unit, mode, j, t->in[j], i, rb[at], want);
            if (use_vec && i % 2 == 0 && rb[at + 1] != UNTOUCHED) FAIL("%s alltoallw hole written", t->name);
        }
        long end = rd[j] + (use_vec ? 3 * c : 2 * c);
        if (rb[end] != UNTOUCHED) FAIL("%s alltoall%s wrote a gap slot %d", t->name, w ? "w" : "v", j);
    }
    free(sc); free(sd); free(rc); free(rd); free(scc); free(rcc); free(sda); free(rda); free(st); free(rt); free(sb); free(rb);
}

/* all five nonblocking forms in flight at once, completed together */
static void run_overlap(topo *t)
{
    long n = 100;
    int *s1 = malloc(sizeof(int) * n), *r1 = malloc(sizeof(int) * (n * t->indeg + 1));
    int *s2 = malloc(sizeof(int) * (n * t->outdeg + 1)), *r2 = malloc(sizeof(int) * (n * t->indeg + 1));
    for (long i = 0; i < n; i++) s1[i] = val(t->me, i);
    for (int k = 0; k < t->outdeg; k++) for (long i = 0; i < n; i++) s2[k * n + i] = val(t->outkey[k], i);
    for (long i = 0; i < n * t->indeg; i++) r1[i] = r2[i] = UNTOUCHED;
    MPI_Request rq[3];
    CHECK_MPI(MPI_Ineighbor_alltoall(s2, (int)n, MPI_INT, r2, (int)n, MPI_INT, t->comm, &rq[0]));
    CHECK_MPI(MPI_Ibarrier(t->comm, &rq[1]));
    CHECK_MPI(MPI_Ineighbor_allgather(s1, (int)n, MPI_INT, r1, (int)n, MPI_INT, t->comm, &rq[2]));
    CHECK_MPI(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    for (int j = 0; j < t->indeg; j++) for (long i = 0; i < n; i++) {
        int n1 = t->in[j] == MPI_PROC_NULL ? UNTOUCHED : val(t->in[j], i);
        int n2 = t->in[j] == MPI_PROC_NULL ? UNTOUCHED : val(t->inkey[j], i);
        if (r1[j * n + i] != n1 || r2[j * n + i] != n2) FAIL("%s overlap slot %d i=%ld", t->name, j, i);
    }
    free(s1); free(r1); free(s2); free(r2);
}

static void run_all(topo *t)
{
    static const long sizes[] = { 0, 1, 5, 3000 };
    fill_lists(t);
    for (int s = 0; s < 4; s++)
        for (int mode = 0; mode < 4; mode++) {
            for (int lay = 0; lay < 2; lay++) {
                run_allgather(t, sizes[s], lay, mode);
                run_allgatherv(t, sizes[s], lay, mode);
                run_alltoall(t, sizes[s], lay, mode);
            }
            run_alltoallvw(t, sizes[s], 0, mode);
            run_alltoallvw(t, sizes[s], 1, mode);
        }
    run_alltoall(t, 100000, 0, BLOCKING);       /* 400 KB per edge once */
    run_overlap(t);
    free(t->in); free(t->out); free(t->inkey); free(t->outkey);
    CHECK_MPI(MPI_Comm_free(&t->comm));
}

static void cart(const char *name, int nd, const int *periods)
{
    int dims[3] = { 0, 0, 0 };
    CHECK_MPI(MPI_Dims_create(size, nd, dims));
    topo t = { name };
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &t.comm));
    MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
    run_all(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    /* no topology: an error of class MPI_ERR_TOPOLOGY, not a hang */
    int x = 0, y = 0, cls;
    int err = MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    if (cls != MPI_ERR_TOPOLOGY) FAIL("neighbor on a plain communicator: class %d", cls);

    static const int p1[] = { 1 }, p10[] = { 1, 0 }, p00[] = { 0, 0 }, p111[] = { 1, 1, 1 };
    cart("cart1d-periodic", 1, p1);
    cart("cart2d-periodic-open", 2, p10);
    cart("cart2d-open", 2, p00);
    cart("cart3d-periodic", 3, p111);

    /* graph: r -- r+1, r -- r-1, r -- r+h, r -- r-h (h = size/2), repeated edges and self
     * loops at small sizes; symmetric, as MPI_Graph_create's neighbourhoods must be */
    {
        int h = size / 2, deg = size >= 4 ? 4 : 2;
        int *index = malloc(sizeof(int) * size), *edges = malloc(sizeof(int) * size * deg);
        for (int r = 0, e = 0; r < size; r++) {
            edges[e++] = (r + 1) % size; edges[e++] = (r - 1 + size) % size;
            if (deg == 4) { edges[e++] = (r + h) % size; edges[e++] = (r - h + size) % size; }
            index[r] = e;
        }
        topo t = { "graph" };
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &t.comm));
        MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
        run_all(&t);
        free(index); free(edges);
    }
    /* adjacent distributed graph, asymmetric: r sends to r+1 and r+3, receives from r-1, r-3 */
    {
        int src[2] = { (rank - 1 + size) % size, (rank - 3 + 3 * size) % size };
        int dst[2] = { (rank + 1) % size, (rank + 3) % size };
        int w[2] = { 5, 7 };
        topo t = { "distgraph-adjacent" };
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, w, 2, dst, w, MPI_INFO_NULL, 0, &t.comm));
        MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
        run_all(&t);
    }
    /* general distributed graph: rank 0 names the edges r -> 2r+1, the last rank r -> r
     * (self loops) for even r; other ranks name none */
    {
        int n = 0, *srcs = malloc(sizeof(int) * 2 * size), *degs = malloc(sizeof(int) * 2 * size);
        int *dsts = malloc(sizeof(int) * 2 * size);
        if (rank == 0)
            for (int r = 0; r < size; r++) { srcs[n] = r; degs[n] = 1; dsts[n++] = (2 * r + 1) % size; }
        if (rank == size - 1)
            for (int r = 0; r < size; r += 2) { srcs[n] = r; degs[n] = 1; dsts[n++] = r; }
        topo t = { "distgraph" };
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm));
        MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
        run_all(&t);
        free(srcs); free(degs); free(dsts);
    }
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}

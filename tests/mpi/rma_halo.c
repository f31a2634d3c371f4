/* mempi-test: np=1,2,3,4,5 timeout=240 */
/* mempi-test: np=3,5 timeout=240 env=MEMPI_CMA=0 */
/* rma_halo.c -- a 2-D periodic halo exchange written three ways with one-sided calls, against a sequential run.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A 37 x 29 integer grid, periodic, block-distributed over an MPI_Dims_create process grid
 * (blocks of different sizes when the dimensions do not divide), is advanced 6 steps of a
 * five-point stencil modulo a prime.  Each rank's block with a one-cell halo lives in a
 * window; the halo is filled
 *   1. by MPI_Put of the boundary rows and columns (column: a vector type) into the
 *      neighbours' halos between MPI_Win_fence(NOPRECEDE) and fence(NOSTORE|NOSUCCEED), on an
 *      MPI_Win_allocate window (the standard's generic fence example);
 *   2. by MPI_Get of the neighbours' boundaries into the own halo under post/start/complete/
 *      wait with the set of distinct neighbours as groups, on an MPI_Win_create window;
 *   3. with no RMA call at all, when every rank shares a node: MPI_Win_allocate_shared, the
 *      neighbours' blocks read through MPI_Win_shared_query pointers, ordered by
 *      MPI_Win_sync + barrier as in the standard's shared-memory example.
 * Every rank checks its block after the last step against the whole grid advanced
 * sequentially; a neighbour's value that arrives late, at the wrong place or not at all
 * changes the result.
 */
#include "rma_common.h"

#define GR 37
#define GC 29
#define STEPS 6
#define MOD 1000003

static int me, np, dims[2], coords[2], rows, cols, row0, col0;
static int nbr[4];        /* up, down, left, right */
static MPI_Comm cart;

static long long init_val(int i, int j) { return (i * 131 + j * 17) % 1000; }

static void reference(long long g[GR][GC])
{
    static long long n[GR][GC];
    for (int i = 0; i < GR; i++)
        for (int j = 0; j < GC; j++) g[i][j] = init_val(i, j);
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < GR; i++)
            for (int j = 0; j < GC; j++)
                n[i][j] = (g[i][j] + g[(i + GR - 1) % GR][j] + g[(i + 1) % GR][j]
                           + g[i][(j + GC - 1) % GC] + g[i][(j + 1) % GC] + 1) % MOD;
        memcpy(g, n, sizeof n);
    }
}

static void block(int dim, int c, int *start, int *len)
{
    int total = dim == 0 ? GR : GC, d = dims[dim];
    *start = c * (total / d) + (c < total % d ? c : total % d);
    *len = total / d + (c < total % d);
}

/* Block with halo: (rows + 2) x (cols + 2), row-major, stride cols + 2. */
#define AT(a, i, j) (a)[(long)(i) * (cols + 2) + (j)]

/* One stencil step on a halo-filled block, written back into the interior. */
static void step(long long *a, long long *tmp)
{
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++)
            AT(tmp, i, j) = (AT(a, i, j) + AT(a, i - 1, j) + AT(a, i + 1, j) + AT(a, i, j - 1)
                             + AT(a, i, j + 1) + 1) % MOD;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++) AT(a, i, j) = AT(tmp, i, j);
}

static void check_block(const long long *a, long long g[GR][GC], const char *how)
{
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++)
            CHECK(AT(a, i, j) == g[row0 + i - 1][col0 + j - 1], "%s: cell (%d,%d) = %lld, "
                  "sequential %lld", how, row0 + i - 1, col0 + j - 1, AT(a, i, j),
                  g[row0 + i - 1][col0 + j - 1]);
}

static void fill(long long *a)
{
    for (int i = 0; i < rows + 2; i++)
        for (int j = 0; j < cols + 2; j++) AT(a, i, j) = -1;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++) AT(a, i, j) = init_val(row0 + i - 1, col0 + j - 1);
}

/* The neighbours' block shapes, for displacements into their windows. */
static void nbr_shape(int which, int *r, int *c)
{
    int nc[2];
    CHECK_MPI(MPI_Cart_coords(cart, nbr[which], 2, nc));
    int s;
    block(0, nc[0], &s, r);
    block(1, nc[1], &s, c);
}

static void exchange(long long *a, MPI_Win win, MPI_Datatype mycol, int get)
{
    /* row halos: up's bottom boundary row <-> my top halo, etc.  A neighbour in the same
     * column of the process grid has the same number of columns, so rows are contiguous of
     * length cols; a neighbour in the same row has the same number of rows. */
    for (int k = 0; k < 4; k++) {
        int r, c;
        nbr_shape(k, &r, &c);
        MPI_Datatype ncol;
        CHECK_MPI(MPI_Type_vector(r, 1, c + 2, MPI_LONG_LONG, &ncol));
        CHECK_MPI(MPI_Type_commit(&ncol));
        long mine, theirs;    /* element offsets: my boundary / halo, the neighbour's */
        int vertical = k < 2;
        if (!get) {   /* put my boundary into the neighbour's halo */
            mine = k == 0 ? 1L * (cols + 2) + 1 : k == 1 ? (long)rows * (cols + 2) + 1
                 : k == 2 ? 1L * (cols + 2) + 1 : 1L * (cols + 2) + cols;
            theirs = k == 0 ? (long)(r + 1) * (c + 2) + 1 : k == 1 ? 1
                   : k == 2 ? 1L * (c + 2) + c + 1 : 1L * (c + 2);
        } else {      /* get the neighbour's boundary into my halo */
            mine = k == 0 ? 1 : k == 1 ? (long)(rows + 1) * (cols + 2) + 1
                 : k == 2 ? 1L * (cols + 2) : 1L * (cols + 2) + cols + 1;
            theirs = k == 0 ? (long)r * (c + 2) + 1 : k == 1 ? 1L * (c + 2) + 1
                   : k == 2 ? 1L * (c + 2) + c : 1L * (c + 2) + 1;
        }
        if (vertical) {
            if (get) CHECK_MPI(MPI_Get(a + mine, cols, MPI_LONG_LONG, nbr[k], theirs, c, MPI_LONG_LONG, win));
            else CHECK_MPI(MPI_Put(a + mine, cols, MPI_LONG_LONG, nbr[k], theirs, c, MPI_LONG_LONG, win));
        } else {
            if (get) CHECK_MPI(MPI_Get(a + mine, 1, mycol, nbr[k], theirs, 1, ncol, win));
            else CHECK_MPI(MPI_Put(a + mine, 1, mycol, nbr[k], theirs, 1, ncol, win));
        }
        CHECK_MPI(MPI_Type_free(&ncol));
    }
}

static void run_rma(int pscw, long long g[GR][GC])
{
    rma_win w;
    long n = (long)(rows + 2) * (cols + 2);
    rma_win_open(&w, pscw ? FL_CREATE : FL_ALLOCATE, n * (MPI_Aint)sizeof(long long),
                 sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD);
    long long *a = (long long *)w.base, *tmp = malloc(sizeof(long long) * (size_t)n);
    MPI_Datatype mycol;
    CHECK_MPI(MPI_Type_vector(rows, 1, cols + 2, MPI_LONG_LONG, &mycol));
    CHECK_MPI(MPI_Type_commit(&mycol));
    MPI_Group world, nb;
    int uniq[4], nu = 0;
    for (int k = 0; k < 4; k++) {
        int dup = 0;
        for (int u = 0; u < nu; u++) dup |= uniq[u] == nbr[k];
        if (!dup) uniq[nu++] = nbr[k];
    }
    CHECK_MPI(MPI_Comm_group(cart, &world));
    CHECK_MPI(MPI_Group_incl(world, nu, uniq, &nb));
    RMA_LOCAL_BEGIN(&w, me);
    fill(a);
    RMA_LOCAL_END(&w, me);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int s = 0; s < STEPS; s++) {
        if (!pscw) {
            CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
            exchange(a, w.win, mycol, 0);
            CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, w.win));
        } else {
            CHECK_MPI(MPI_Win_post(nb, MPI_MODE_NOPUT, w.win));
            CHECK_MPI(MPI_Win_start(nb, 0, w.win));
            exchange(a, w.win, mycol, 1);
            CHECK_MPI(MPI_Win_complete(w.win));
            CHECK_MPI(MPI_Win_wait(w.win));
        }
        step(a, tmp);
    }
    check_block(a, g, pscw ? "PSCW with gets" : "fence with puts");
    CHECK_MPI(MPI_Group_free(&nb));
    CHECK_MPI(MPI_Group_free(&world));
    CHECK_MPI(MPI_Type_free(&mycol));
    free(tmp);
    rma_win_close(&w);
}

static void run_shared(long long g[GR][GC])
{
    if (!rma_all_on_one_node(MPI_COMM_WORLD))
        return;
    long n = (long)(rows + 2) * (cols + 2);
    long long *a, *nb[4], *tmp = malloc(sizeof(long long) * (size_t)n);
    MPI_Win win;
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    CHECK_MPI(MPI_Win_allocate_shared(n * (MPI_Aint)sizeof(long long), sizeof(long long), info, cart,
                                      &a, &win));
    CHECK_MPI(MPI_Info_free(&info));
    int rs[4], cs[4];
    for (int k = 0; k < 4; k++) {
        MPI_Aint sz;
        int du;
        CHECK_MPI(MPI_Win_shared_query(win, nbr[k], &sz, &du, &nb[k]));
        nbr_shape(k, &rs[k], &cs[k]);
        CHECK(sz == (MPI_Aint)(rs[k] + 2) * (cs[k] + 2) * (MPI_Aint)sizeof(long long) && du == 8,
              "shared query of neighbour %d: size %ld unit %d", nbr[k], (long)sz, du);
    }
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    fill(a);
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(cart));
    for (int s = 0; s < STEPS; s++) {
        CHECK_MPI(MPI_Win_sync(win));
        for (int j = 1; j <= cols; j++) {
            AT(a, 0, j) = nb[0][(long)rs[0] * (cs[0] + 2) + j];
            AT(a, rows + 1, j) = nb[1][1L * (cs[1] + 2) + j];
        }
        for (int i = 1; i <= rows; i++) {
            AT(a, i, 0) = nb[2][(long)i * (cs[2] + 2) + cs[2]];
            AT(a, i, cols + 1) = nb[3][(long)i * (cs[3] + 2) + 1];
        }
        CHECK_MPI(MPI_Win_sync(win));
        CHECK_MPI(MPI_Barrier(cart));    /* everyone has read the old boundaries */
        step(a, tmp);
        CHECK_MPI(MPI_Win_sync(win));
        CHECK_MPI(MPI_Barrier(cart));    /* the new boundaries are in place */
    }
    check_block(a, g, "shared memory with MPI_Win_sync");
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_free(&win));
    free(tmp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int periods[2] = {1, 1};
    CHECK_MPI(MPI_Dims_create(np, 2, dims));
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK_MPI(MPI_Comm_rank(cart, &me));
    int wr;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    CHECK(wr == me, "MPI_Cart_create without reorder renumbered rank %d to %d", wr, me);
    CHECK_MPI(MPI_Cart_coords(cart, me, 2, coords));
    CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &nbr[0], &nbr[1]));
    CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &nbr[2], &nbr[3]));
    block(0, coords[0], &row0, &rows);
    block(1, coords[1], &col0, &cols);
    static long long g[GR][GC];
    reference(g);
    run_rma(0, g);
    run_rma(1, g);
    run_shared(g);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("rma_halo: %d x %d grid on %d x %d ranks, fence, PSCW and shared memory passed\n",
               GR, GC, dims[0], dims[1]);
    CHECK_MPI(MPI_Comm_free(&cart));
    MPI_Finalize();
    return 0;
}

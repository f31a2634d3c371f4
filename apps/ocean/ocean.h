/* ocean.h -- the multigrid solver of OCEAN that its three forms share, minus the communication.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The model: heat in a closed square basin of n x n cells (n a power of 2), stirred by a wind
 * forcing whose integral is zero.  Every time step solves the implicit diffusion equation
 *     (I - a L) u_new = u_old + dt s
 * (L: the 5-point Laplacian with no-flux walls, a = dt nu / h^2) by multigrid V-cycles with
 * red-black Gauss-Seidel smoothing, until the residual is 1e-10 of the right-hand side.  The
 * walls let no heat out and the forcing adds none, so the total heat is conserved: the
 * verification checks that and the residual of the last solve, recomputed from scratch.
 *
 * Grids: level 0 is the n x n grid, level l has n >> l cells per side and a / 4^l.  Cells are
 * cell-centred; restriction averages four fine residuals, prolongation is bilinear.  Rows
 * are partitioned so that each rank has a band of rows and talks to its two neighbours only
 * (the paper's row partitioning): the partition is made on the coarsest level (at least four
 * rows per rank) and refined by doubling, so every coarse row lies on the rank that owns its
 * two fine rows and restriction and prolongation need no communication.
 *
 * A form supplies the communication through ocean_ops: `exchange` makes the rows above and
 * below a level's band (`above`, `below`: neighbours' rows or halo copies, NULL at a wall)
 * current after u changed, and `sum` adds a number over all ranks.
 */
#ifndef APPS_OCEAN_H
#define APPS_OCEAN_H

typedef struct ocean_level {
    long n;                      /* cells per side */
    long lo, hi;                 /* my rows */
    double a;                    /* a / 4^level */
    double *u;                   /* my rows of the unknown (the form allocates them) */
    double *f, *r;               /* my rows of the right-hand side and residual */
    const double *above, *below; /* the row above lo and the row below hi-1, or NULL at a wall */
} ocean_level;

typedef struct ocean_ops {
    void (*exchange)(int level);
    double (*sum)(double mine);
} ocean_ops;

typedef struct ocean {
    int nlevels, nranks;
    long coarsest;               /* cells per side of the coarsest level */
    ocean_level *lv;
    ocean_ops ops;
    double dt;
    int cycles;                  /* V-cycles of the last solve */
} ocean;

/* Levels and my rows of each; allocates f and r (u is left to the form, NULL). */
void ocean_setup(ocean *o, long n, int nranks, int rank);
/* the band of rows [*lo, *hi) that `rank` owns on `level` */
void ocean_band(const ocean *o, int level, int rank, long *lo, long *hi);
void ocean_initial(const ocean *o, double *u0);    /* the starting field on my level-0 rows */
/* The message passing of the mpi and hybrid forms.  ocean_swap_rows swaps boundary rows with
 * the ranks above and below (two MPI_Sendrecv; MPI_PROC_NULL for a neighbour not reached by
 * message): my first row goes up while the row below my band arrives in `below`, my last row
 * goes down while the row above arrives in `above`.  ocean_allreduce is ops.sum by
 * MPI_Allreduce over MPI_COMM_WORLD. */
void ocean_swap_rows(const ocean_level *v, int up, int down, double *above, double *below);
double ocean_allreduce(double mine);

/* The run every form makes, once o->ops and every level's u are set: app.reps repetitions,
 * each from the initial field, of `steps` time steps (the timed part); then the checks: the
 * residual of the last solve, recomputed on rank 0 from all rows gathered with MPI_Gatherv
 * (independent of the form's exchange), and the conservation of heat.  Returns the run's
 * description for app_finish. */
const char *ocean_run(ocean *o, int steps);
void ocean_free(ocean *o);

#endif

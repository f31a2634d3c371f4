/* nbody.h -- the Barnes-Hut pieces of N-BODY that its three forms share: bodies, octrees, forces, checks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * N bodies of a Plummer sphere (G = 1, total mass 1) move under softened gravity, integrated
 * by leapfrog (kick-drift-kick); each force evaluation is Barnes-Hut in 3-D: an octree over
 * the bodies, a cell's monopole (mass, centre of mass) replacing its bodies when its side is
 * less than THETA times its distance.  Bodies are partitioned once, in Morton (space-filling
 * curve) order of their starting positions, so each rank's bodies fill a compact region.
 *
 * Trees are built over a cube common to all ranks from an array of particles (position and
 * mass: bodies, or pseudo-bodies standing for a distant cell): the particles are sorted by
 * Morton key and a cell is a contiguous run of them, split into octants until it holds at
 * most LEAF.  Cells refer to children and particles by index, never by address, so a tree in
 * a shared window reads the same from every process that maps it.
 *
 * A force on a body can sum over several trees (a forest): the sas form walks every rank's
 * tree, the hybrid form its node's trees plus a tree of what other nodes sent.  The mpi form
 * uses locally essential trees: nb_exchange_let selects from a rank's tree what a body
 * inside another rank's bounding box can see -- cells that pass the opening test for every
 * point of the box, as pseudo-bodies, and particles of the cells that do not.
 */
#ifndef APPS_NBODY_H
#define APPS_NBODY_H

enum { LEAF = 8 };
#define THETA 0.5
#define SOFTENING 0.05

typedef struct nb_particle { double x[3], m; } nb_particle;

typedef struct nb_cell {
    double com[3], mass, size;   /* monopole and side length */
    int first, count;            /* its particles in the tree's sorted array */
    int child[8];                /* child cells, -1 for none; a leaf has none */
} nb_cell;

typedef struct nb_box { double lo[3], hi[3]; } nb_box;

/* --n BODIES (default 8192, at least the ranks), --steps S (default 3), --dt (default 0.01);
 * returns my number of bodies */
long nb_options(long *total, int *steps, double *dt);
/* Plummer sphere of n bodies (centre of mass at rest at the origin), ordered by Morton key;
 * fills this rank's slice [app_lo(n,P,r), app_lo(n,P,r+1)): positions and masses, velocities. */
void nb_generate(long n, int nranks, int rank, nb_particle *p, double (*v)[3]);

nb_box nb_bounds(const nb_particle *p, long n);          /* of my bodies (empty: inverted box) */
nb_box nb_union(const nb_box *boxes, int count);         /* the smallest box around them all */
/* Sorts p[0..n) by Morton key in `root` (the cube around the union box) and builds the tree
 * into cells[0..cap); returns the number of cells, or -1 if cap is too small. */
int nb_build(nb_particle *p, int n, const nb_box *root, nb_cell *cells, int cap);
/* nb_build into a private cell array that grows (realloc) until the tree fits */
int nb_build_grow(nb_particle *p, int n, const nb_box *root, nb_cell **cells, int *cap);
/* The message passing of the mpi and hybrid forms.  nb_share_boxes: every rank's bounding box
 * (MPI_Allgather); returns the box around them all.  nb_exchange_let: for every rank q with
 * to[q] set, the locally essential part of my tree for a body anywhere in boxes[q] -- cells far
 * enough from the box as pseudo-bodies, the particles of the others -- goes to q (MPI_Alltoall
 * of the counts, MPI_Alltoallv of the particles, 4 doubles each); what arrives is stored in
 * *recv from index `keep` on (grown with realloc, *cap its capacity).  Returns how many
 * particles arrived. */
nb_box nb_share_boxes(const nb_particle *body, long n, nb_box *boxes);
int nb_exchange_let(const nb_cell *cells, int ncells, const nb_particle *p, const nb_box *boxes, const int *to,
                    nb_particle **recv, int keep, int *cap);
/* Adds the acceleration and potential of one tree at point x (skips a particle at x itself). */
void nb_force(const nb_cell *cells, int ncells, const nb_particle *p, const double x[3], double a[3], double *phi);

/* The simulation every form runs: app.reps repetitions, each from the initial conditions, of
 * `steps` leapfrog steps (kick, drift, forces, kick) -- the timed part -- after one untimed
 * force evaluation; then the checks: energy and momentum drift over the steps, and the last
 * accelerations against direct summation.  `forces` must fill acc and phi (n of them) for
 * the bodies at `body`; returns the run's description for app_finish. */
const char *nb_simulate(long total, long n, nb_particle *body, double (*acc)[3], double *phi, int steps,
                        double dt, void (*forces)(void));

#endif

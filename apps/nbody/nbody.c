/* nbody.c -- Plummer initial conditions, Morton-ordered octree build, locally essential trees, tree forces, checks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * nbody.h gives the method.  The build sorts (key, particle) pairs with qsort and recurses
 * over runs of equal key prefixes; a cell's octant boundaries are found by scanning its run,
 * so a build costs O(n log n) for the sort and O(n * depth) for the scans.  The opening test
 * compares squared quantities: a cell is used whole when size^2 < THETA^2 r^2, r measured
 * from its centre of mass.  nb_exchange_let applies the same test with r the distance from the centre
 * of mass to the nearest point of the other rank's box, which is what makes the selection
 * "essential": any body in that box would open exactly the cells it opens, or fewer.
 *
 * The initial conditions are generated whole on every rank from a hash of the body index
 * (Aarseth, Henon and Wielen's Plummer recipe) and partitioned in Morton order, so every rank
 * count simulates the same system.
 */
#include "nbody.h"
#include "../common/app.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { MAXLEVEL = 21 };   /* 21 bits per coordinate: 63-bit keys */

/* ---- Morton keys ---- */

static uint64_t spread(uint64_t v)   /* 21 bits -> every third bit */
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

static uint64_t morton(const double x[3], const nb_box *cube)
{
    uint64_t key = 0;
    for (int d = 0; d < 3; d++) {
        double u = (x[d] - cube->lo[d]) / (cube->hi[d] - cube->lo[d]) * (double)(1 << MAXLEVEL);
        uint64_t i = u <= 0 ? 0 : u >= (double)((1 << MAXLEVEL) - 1) ? (1 << MAXLEVEL) - 1 : (uint64_t)u;
        key |= spread(i) << (2 - d);
    }
    return key;
}

static nb_box cube_around(const nb_box *b)
{
    double side = 0;
    for (int d = 0; d < 3; d++) side = fmax(side, b->hi[d] - b->lo[d]);
    side = side * 1.0001 + 1e-12;
    nb_box c;
    for (int d = 0; d < 3; d++) {
        double mid = 0.5 * (b->lo[d] + b->hi[d]);
        c.lo[d] = mid - 0.5 * side;
        c.hi[d] = mid + 0.5 * side;
    }
    return c;
}

typedef struct keyed { uint64_t key; nb_particle p; } keyed;
typedef struct keyed_id { uint64_t key; long id; } keyed_id;

static int by_key(const void *a, const void *b)   /* both structs above start with the key */
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---- initial conditions ---- */

long nb_options(long *total, int *steps, double *dt)
{
    *total = app_arg("--n", 8192);
    *steps = (int)app_arg("--steps", 3);
    *dt = app_argf("--dt", 0.01);
    if (*total < app.size) app_refuse("--n must be at least the number of ranks");
    return app_lo(*total, app.size, app.rank + 1) - app_lo(*total, app.size, app.rank);
}

void nb_generate(long n, int nranks, int rank, nb_particle *p, double (*v)[3])
{
    nb_particle *all = app_alloc(sizeof(nb_particle) * (size_t)n);
    double (*vel)[3] = app_alloc(sizeof(double[3]) * (size_t)n), cx[3] = { 0 }, cv[3] = { 0 };
    for (long i = 0; i < n; i++) {
        uint64_t s = (uint64_t)i << 8;
        double u = 1e-3 + 0.99 * app_unit(s++), r = 1.0 / sqrt(pow(u, -2.0 / 3.0) - 1.0);
        double ct = 2 * app_unit(s++) - 1, phi = 2 * APP_PI * app_unit(s++), st = sqrt(1 - ct * ct);
        double q, g;
        do {   /* von Neumann: q with density q^2 (1 - q^2)^3.5 */
            q = app_unit(s++);
            g = 0.1 * app_unit(s++);
        } while (g > q * q * pow(1 - q * q, 3.5));
        double speed = q * sqrt(2.0) * pow(1 + r * r, -0.25);
        double vct = 2 * app_unit(s++) - 1, vphi = 2 * APP_PI * app_unit(s++), vst = sqrt(1 - vct * vct);
        all[i] = (nb_particle){ { r * st * cos(phi), r * st * sin(phi), r * ct }, 1.0 / (double)n };
        vel[i][0] = speed * vst * cos(vphi);
        vel[i][1] = speed * vst * sin(vphi);
        vel[i][2] = speed * vct;
        for (int d = 0; d < 3; d++) { cx[d] += all[i].x[d] / (double)n; cv[d] += vel[i][d] / (double)n; }
    }
    for (long i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) { all[i].x[d] -= cx[d]; vel[i][d] -= cv[d]; }
    nb_box box = nb_bounds(all, n), cube = cube_around(&box);
    keyed_id *order = app_alloc(sizeof(keyed_id) * (size_t)n);
    for (long i = 0; i < n; i++) order[i] = (keyed_id){ morton(all[i].x, &cube), i };
    qsort(order, (size_t)n, sizeof *order, by_key);
    long lo = app_lo(n, nranks, rank), hi = app_lo(n, nranks, rank + 1);
    for (long i = lo; i < hi; i++) {
        p[i - lo] = all[order[i].id];
        memcpy(v[i - lo], vel[order[i].id], sizeof vel[0]);
    }
    free(order);
    free(all);
    free(vel);
}

/* ---- boxes ---- */

nb_box nb_bounds(const nb_particle *p, long n)
{
    nb_box b = { { INFINITY, INFINITY, INFINITY }, { -INFINITY, -INFINITY, -INFINITY } };
    for (long i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            b.lo[d] = fmin(b.lo[d], p[i].x[d]);
            b.hi[d] = fmax(b.hi[d], p[i].x[d]);
        }
    return b;
}

nb_box nb_union(const nb_box *boxes, int count)
{
    nb_box u = boxes[0];
    for (int i = 1; i < count; i++)
        for (int d = 0; d < 3; d++) {
            u.lo[d] = fmin(u.lo[d], boxes[i].lo[d]);
            u.hi[d] = fmax(u.hi[d], boxes[i].hi[d]);
        }
    return u;
}

/* ---- tree build ---- */

typedef struct builder { const keyed *k; nb_cell *cells; int n, cap; } builder;

static int build(builder *b, int first, int count, int level, const double corner[3], double size)
{
    if (b->n >= b->cap) return -1;
    int c = b->n++;
    nb_cell *cell = &b->cells[c];
    *cell = (nb_cell){ .size = size, .first = first, .count = count };
    for (int o = 0; o < 8; o++) cell->child[o] = -1;
    if (count <= LEAF || level == MAXLEVEL) {
        for (int i = first; i < first + count; i++) {
            const nb_particle *p = &b->k[i].p;
            cell->mass += p->m;
            for (int d = 0; d < 3; d++) cell->com[d] += p->m * p->x[d];
        }
    } else {
        int shift = 3 * (MAXLEVEL - 1 - level), at = first, end = first + count;
        for (int o = 0; o < 8; o++) {
            int stop = at;
            while (stop < end && (int)((b->k[stop].key >> shift) & 7) == o) stop++;
            if (stop == at) continue;
            double half = 0.5 * size, sub[3] = { corner[0] + (o & 4 ? half : 0),
                                                 corner[1] + (o & 2 ? half : 0), corner[2] + (o & 1 ? half : 0) };
            int child = build(b, at, stop - at, level + 1, sub, half);
            if (child < 0) return -1;
            cell->child[o] = child;
            cell->mass += b->cells[child].mass;
            for (int d = 0; d < 3; d++) cell->com[d] += b->cells[child].mass * b->cells[child].com[d];
            at = stop;
        }
    }
    for (int d = 0; d < 3; d++) cell->com[d] = cell->mass > 0 ? cell->com[d] / cell->mass : corner[d] + 0.5 * size;
    return c;
}

int nb_build(nb_particle *p, int n, const nb_box *root, nb_cell *cells, int cap)
{
    if (n == 0) return 0;
    nb_box cube = cube_around(root);
    keyed *k = app_alloc(sizeof(keyed) * (size_t)n);
    for (int i = 0; i < n; i++) k[i] = (keyed){ morton(p[i].x, &cube), p[i] };
    qsort(k, (size_t)n, sizeof *k, by_key);
    for (int i = 0; i < n; i++) p[i] = k[i].p;
    builder b = { k, cells, 0, cap };
    int ok = build(&b, 0, n, 0, cube.lo, cube.hi[0] - cube.lo[0]);
    free(k);
    return ok < 0 ? -1 : b.n;
}

int nb_build_grow(nb_particle *p, int n, const nb_box *root, nb_cell **cells, int *cap)
{
    int count;
    while ((count = nb_build(p, n, root, *cells, *cap)) < 0) {
        *cap = *cap ? 2 * *cap : 1024;
        *cells = realloc(*cells, sizeof(nb_cell) * (size_t)*cap);
        if (!*cells) { fprintf(stderr, "nbody: out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    }
    return count;
}

/* ---- locally essential trees and forces ---- */

static void append(nb_particle **out, int *len, int *cap, nb_particle p)
{
    if (*len == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *out = realloc(*out, sizeof(nb_particle) * (size_t)*cap);
        if (!*out) { fprintf(stderr, "nbody: out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    }
    (*out)[(*len)++] = p;
}

static double box_distance2(const double x[3], const nb_box *b)
{
    double s = 0;
    for (int d = 0; d < 3; d++) {
        double e = x[d] < b->lo[d] ? b->lo[d] - x[d] : x[d] > b->hi[d] ? x[d] - b->hi[d] : 0;
        s += e * e;
    }
    return s;
}

static void let(const nb_cell *cells, int c, const nb_particle *p, const nb_box *b, nb_particle **out, int *len, int *cap)
{
    const nb_cell *cell = &cells[c];
    if (cell->size * cell->size < THETA * THETA * box_distance2(cell->com, b)) {
        append(out, len, cap, (nb_particle){ { cell->com[0], cell->com[1], cell->com[2] }, cell->mass });
        return;
    }
    int leaf = 1;
    for (int o = 0; o < 8; o++)
        if (cell->child[o] >= 0) {
            leaf = 0;
            let(cells, cell->child[o], p, b, out, len, cap);
        }
    for (int i = cell->first; leaf && i < cell->first + cell->count; i++) append(out, len, cap, p[i]);
}

nb_box nb_share_boxes(const nb_particle *body, long n, nb_box *boxes)
{
    nb_box mine = nb_bounds(body, n);
    app_phase(APP_RMEM);
    MPI_Allgather(&mine, 6, MPI_DOUBLE, boxes, 6, MPI_DOUBLE, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    return nb_union(boxes, app.size);
}

int nb_exchange_let(const nb_cell *cells, int ncells, const nb_particle *p, const nb_box *boxes, const int *to,
                    nb_particle **recv, int keep, int *cap)
{
    static nb_particle *out;
    static int out_cap;
    int len = 0, received = 0, np = app.size;
    int *sc = app_alloc(sizeof(int) * 4 * (size_t)np), *sd = sc + np, *rc = sd + np, *rd = rc + np;
    for (int q = 0; q < np; q++) {
        int before = len;
        if (to[q] && ncells > 0) let(cells, 0, p, &boxes[q], &out, &len, &out_cap);
        sc[q] = 4 * (len - before);                /* doubles: x, y, z, m */
        sd[q] = 4 * before;
        if (sc[q] > 0) app_count(1, (long)sizeof(double) * sc[q]);
    }
    app_phase(APP_RMEM);
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    for (int q = 0; q < np; q++) { rd[q] = 4 * keep + received; received += rc[q]; }
    received /= 4;
    if (keep + received > *cap) {
        *cap = keep + received;
        *recv = realloc(*recv, sizeof(nb_particle) * (size_t)*cap);
        if (!*recv) { fprintf(stderr, "nbody: out of memory\n"); MPI_Abort(MPI_COMM_WORLD, 3); }
    }
    app_phase(APP_RMEM);
    MPI_Alltoallv(out, sc, sd, MPI_DOUBLE, *recv, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    free(sc);
    return received;
}

static inline void attract(const double x[3], const double y[3], double m, double a[3], double *phi)
{
    double dx = y[0] - x[0], dy = y[1] - x[1], dz = y[2] - x[2], r2 = dx * dx + dy * dy + dz * dz;
    if (r2 == 0) return;
    double inv = 1.0 / sqrt(r2 + SOFTENING * SOFTENING), f = m * inv * inv * inv;
    a[0] += f * dx; a[1] += f * dy; a[2] += f * dz;
    *phi -= m * inv;
}

void nb_force(const nb_cell *cells, int ncells, const nb_particle *p, const double x[3], double a[3], double *phi)
{
    int stack[8 * (MAXLEVEL + 2)], top = 0;
    if (ncells > 0) stack[top++] = 0;
    while (top > 0) {
        const nb_cell *c = &cells[stack[--top]];
        double dx = c->com[0] - x[0], dy = c->com[1] - x[1], dz = c->com[2] - x[2];
        if (c->size * c->size < THETA * THETA * (dx * dx + dy * dy + dz * dz)) {
            attract(x, c->com, c->mass, a, phi);
            continue;
        }
        int leaf = 1;
        for (int o = 0; o < 8; o++)
            if (c->child[o] >= 0) { stack[top++] = c->child[o]; leaf = 0; }
        for (int i = c->first; leaf && i < c->first + c->count; i++) attract(x, p[i].x, p[i].m, a, phi);
    }
}

/* ---- integration and checks ---- */

/* energy and momentum of all bodies (MPI_Allreduce): {E, px, py, pz, sum m|v|} */

static void nb_kick(double (*v)[3], double (*a)[3], long n, double dt)
{
    for (long i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) v[i][d] += dt * a[i][d];
}

static void nb_drift(nb_particle *p, double (*v)[3], long n, double dt)
{
    for (long i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) p[i].x[d] += dt * v[i][d];
}

static void nb_invariants(const nb_particle *p, double (*v)[3], const double *phi, long n, double out[5])
{
    double mine[5] = { 0 };
    for (long i = 0; i < n; i++) {
        double v2 = v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2];
        mine[0] += 0.5 * p[i].m * v2 + 0.5 * p[i].m * phi[i];
        for (int d = 0; d < 3; d++) mine[1 + d] += p[i].m * v[i][d];
        mine[4] += p[i].m * sqrt(v2);
    }
    MPI_Allreduce(mine, out, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* the largest relative difference, over up to 16 of my bodies, between their accelerations a
 * and direct summation over all bodies (gathered with MPI_Allgatherv) */
static double nb_direct_error(const nb_particle *p, double (*a)[3], long n, long total)
{
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *counts = app_alloc(sizeof(int) * (size_t)np), *displs = app_alloc(sizeof(int) * (size_t)np);
    int mine = (int)n * 4;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0, at = 0; q < np; q++) { displs[q] = at; at += counts[q]; }
    nb_particle *all = app_alloc(sizeof(nb_particle) * (size_t)total);
    MPI_Allgatherv(p, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    double worst = 0;
    for (long s = 0; s < 16 && s < n; s++) {
        long i = s * n / (n < 16 ? n : 16);
        double d[3] = { 0, 0, 0 }, phi = 0;
        for (long j = 0; j < total; j++) attract(p[i].x, all[j].x, all[j].m, d, &phi);
        double err = sqrt(pow(a[i][0] - d[0], 2) + pow(a[i][1] - d[1], 2) + pow(a[i][2] - d[2], 2));
        worst = fmax(worst, err / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    free(all); free(counts); free(displs);
    return worst;
}

const char *nb_simulate(long total, long n, nb_particle *body, double (*acc)[3], double *phi, int steps,
                        double dt, void (*forces)(void))
{
    static char text[64];
    double (*vel)[3] = app_alloc(sizeof(double[3]) * (size_t)n), before[5], after[5];
    for (int rep = 0; rep < app.reps; rep++) {
        nb_generate(total, app.size, app.rank, body, vel);
        forces();
        nb_invariants(body, vel, phi, n, before);
        app_rep_begin();
        for (int s = 0; s < steps; s++) {
            nb_kick(vel, acc, n, dt / 2);
            nb_drift(body, vel, n, dt);
            forces();
            nb_kick(vel, acc, n, dt / 2);
        }
        app_rep_end();
    }
    nb_invariants(body, vel, phi, n, after);
    app_verify("energy-drift", fabs(after[0] - before[0]) / fabs(before[0]), 2e-3);
    app_verify("momentum-drift", sqrt(pow(after[1] - before[1], 2) + pow(after[2] - before[2], 2) +
                                      pow(after[3] - before[3], 2)) / before[4], 2e-3);
    app_verify("force-vs-direct-sum", nb_direct_error(body, acc, n, total), 2e-2);
    free(vel);
    snprintf(text, sizeof text, "%ld bodies, %d steps", total, steps);
    return text;
}

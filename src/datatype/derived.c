/* derived.c -- constructing derived datatypes: bounds, size, programs.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every MPI constructor is reduced to one primitive, build(): a list of "placements", each
 * n1 x n2 instances of an old type at disp + i*s1 + j*s2 (i < n1, j < n2).  Contiguous is one
 * placement (n2 = count, s2 = extent), vector one placement with both levels, indexed and
 * struct one placement per block.  build() computes the type's size, bounds (with MPI-1's
 * sticky MPI_LB/MPI_UB markers: once a marker is present, markers alone decide that bound),
 * true bounds, alignment and basic type, and the program: one entry per placement in an
 * indexed node, which mp_prog_indexed normalises to vectors and merged runs.
 *
 * Struct types without an explicit upper bound get their extent rounded up to the strictest
 * alignment of their members, as a C compiler pads a struct (so struct {double; int} has
 * extent 16, like MPI_DOUBLE_INT).
 *
 * Subarray and darray are built from these primitives too: each dimension is an indexed
 * placement of the previous dimension's type resized to that dimension's stride, and the
 * result is resized to the whole global array.  They then record their own contents.
 */
#include "datatype/engine.h"
#include <stdlib.h>
#include <string.h>

typedef struct mp_place {
    MPI_Aint disp;
    MPI_Aint n1, s1;
    MPI_Aint n2, s2;
    mp_datatype *type;
} mp_place;

static MPI_Aint amin(MPI_Aint a, MPI_Aint b) { return a < b ? a : b; }
static MPI_Aint amax(MPI_Aint a, MPI_Aint b) { return a > b ? a : b; }

static void finish_contig(mp_datatype *dt)
{
    const mp_dprog *p = &mp_dt_info(dt)->prog;
    const mp_dnode *root = &p->nodes[p->root];
    dt->is_contig = dt->size == 0 ||
        (root->kind == MP_DN_BLOCK && dt->extent == dt->size && root->disp == dt->true_lb);
}

/* Imports each distinct old type once per construction (struct of 1000 equal members shares
 * one copy of the member's program). */
typedef struct import_cache {
    const mp_datatype *type[16];
    int32_t node[16];
    int n;
} import_cache;

static int32_t import_type(mp_dprog *p, import_cache *c, const mp_datatype *t)
{
    for (int i = 0; i < c->n; i++)
        if (c->type[i] == t)
            return c->node[i];
    int32_t node = mp_prog_import(p, &mp_dt_info(t)->prog);
    if (c->n < 16) {
        c->type[c->n] = t;
        c->node[c->n++] = node;
    }
    return node;
}

static mp_datatype *build(const mp_place *pl, MPI_Aint count, int pad_struct)
{
    mp_datatype *dt = mp_datatype_alloc();
    mp_dtinfo *info = mp_dt_info(dt);
    MPI_Aint lb = 0, ub = 0, mlb = 0, mub = 0, tlb = 0, tub = 0, size = 0, align = 1;
    int any = 0, anydata = 0, basic_set = 0;
    int basic = MPI_DATATYPE_NULL;
    mp_dentry *e = mp_malloc((size_t)(count ? count : 1) * sizeof *e);
    int64_t ne = 0;
    import_cache cache = { .n = 0 };

    for (MPI_Aint i = 0; i < count; i++) {
        const mp_place *q = &pl[i];
        const mp_datatype *t = q->type;
        const mp_dtinfo *ti = mp_dt_info(t);
        if (q->n1 <= 0 || q->n2 <= 0)
            continue;
        MPI_Aint lo = q->disp + amin(0, (q->n1 - 1) * q->s1) + amin(0, (q->n2 - 1) * q->s2);
        MPI_Aint hi = q->disp + amax(0, (q->n1 - 1) * q->s1) + amax(0, (q->n2 - 1) * q->s2);
        if (t->handle == MPI_LB) {
            mlb = info->has_lb ? amin(mlb, lo) : lo;
            info->has_lb = 1;
            continue;
        }
        if (t->handle == MPI_UB) {
            mub = info->has_ub ? amax(mub, hi) : hi;
            info->has_ub = 1;
            continue;
        }
        lb = any ? amin(lb, lo + t->lb) : lo + t->lb;
        ub = any ? amax(ub, hi + t->ub) : hi + t->ub;
        any = 1;
        if (ti->has_lb) {
            mlb = info->has_lb ? amin(mlb, lo + t->lb) : lo + t->lb;
            info->has_lb = 1;
        }
        if (ti->has_ub) {
            mub = info->has_ub ? amax(mub, hi + t->ub) : hi + t->ub;
            info->has_ub = 1;
        }
        align = amax(align, ti->align);
        if (t->size == 0)
            continue;
        tlb = anydata ? amin(tlb, lo + t->true_lb) : lo + t->true_lb;
        tub = anydata ? amax(tub, hi + t->true_ub) : hi + t->true_ub;
        anydata = 1;
        size += q->n1 * q->n2 * t->size;
        if (!basic_set) {
            basic = t->basic;
            basic_set = 1;
        } else if (basic != t->basic) {
            basic = MPI_DATATYPE_NULL;
        }
        int32_t c = import_type(&info->prog, &cache, t);
        if (q->n1 > 1) {
            c = mp_prog_vector(&info->prog, q->n2, q->s2, c, 0);
            e[ne] = (mp_dentry){ .disp = q->disp, .n = q->n1, .stride = q->s1, .child = c };
        } else {
            e[ne] = (mp_dentry){ .disp = q->disp, .n = q->n2, .stride = q->s2, .child = c };
        }
        ne++;
    }
    mp_prog_finish(&info->prog, mp_prog_indexed(&info->prog, ne, e, 0));
    free(e);

    if (info->has_lb)
        lb = mlb;
    if (info->has_ub)
        ub = mub;
    if (!any && !info->has_lb)
        lb = info->has_ub ? amin(0, ub) : 0;
    if (!any && !info->has_ub)
        ub = info->has_lb ? amax(lb, 0) : 0;
    if (pad_struct && !info->has_ub) {
        MPI_Aint ext = ub - lb, rem = ext % align;
        if (rem)
            ub += align - rem;
    }
    dt->size = size;
    dt->lb = lb;
    dt->ub = ub;
    dt->extent = ub - lb;
    dt->true_lb = anydata ? tlb : 0;
    dt->true_ub = anydata ? tub : 0;
    dt->basic = basic;
    info->align = align;
    finish_contig(dt);
    return dt;
}

/* ---------------------------------------------------------------------------------------------
 * Contents (MPI_Type_get_envelope / MPI_Type_get_contents)
 * ------------------------------------------------------------------------------------------- */
void mp_type_set_contents(mp_datatype *dt, int combiner, int nints, const int *ints,
                          int naints, const MPI_Aint *aints, int ntypes, mp_datatype *const *types)
{
    mp_dtinfo *info = mp_dt_info(dt);
    for (int i = 0; i < info->ntypes; i++)
        mp_datatype_release(info->types[i]);
    free(info->ints);
    free(info->aints);
    free(info->types);
    free(info->large);
    info->large = NULL;
    info->nlarge = 0;
    info->combiner = combiner;
    info->nints = nints;
    info->naints = naints;
    info->ntypes = ntypes;
    info->ints = mp_malloc((size_t)(nints ? nints : 1) * sizeof(int));
    info->aints = mp_malloc((size_t)(naints ? naints : 1) * sizeof(MPI_Aint));
    info->types = mp_malloc((size_t)(ntypes ? ntypes : 1) * sizeof(mp_datatype *));
    if (nints)
        memcpy(info->ints, ints, (size_t)nints * sizeof(int));
    if (naints)
        memcpy(info->aints, aints, (size_t)naints * sizeof(MPI_Aint));
    for (int i = 0; i < ntypes; i++) {
        info->types[i] = types[i];
        mp_datatype_retain(types[i]);
    }
}

void mp_type_set_large(mp_datatype *dt, int nlarge, const MPI_Count *large)
{
    mp_dtinfo *info = mp_dt_info(dt);
    free(info->large);
    info->nlarge = nlarge;
    info->large = mp_malloc((size_t)(nlarge ? nlarge : 1) * sizeof(MPI_Count));
    if (nlarge)
        memcpy(info->large, large, (size_t)nlarge * sizeof(MPI_Count));
}

/* ---------------------------------------------------------------------------------------------
 * Constructors.  Arguments are validated by the bindings; strides and displacements here are
 * in bytes.  The result has one reference, is not committed and has no handle.
 * ------------------------------------------------------------------------------------------- */
mp_datatype *mp_type_contiguous(MPI_Aint count, mp_datatype *old)
{
    mp_place pl = { .disp = 0, .n1 = 1, .s1 = 0, .n2 = count, .s2 = old->extent, .type = old };
    return build(&pl, 1, 0);
}

mp_datatype *mp_type_hvector(MPI_Aint count, MPI_Aint blocklen, MPI_Aint stride, mp_datatype *old)
{
    mp_place pl = { .disp = 0, .n1 = count, .s1 = stride, .n2 = blocklen, .s2 = old->extent,
                    .type = old };
    return build(&pl, 1, 0);
}

/* blocklens == NULL: every block has `blocklen` elements. */
mp_datatype *mp_type_hindexed(MPI_Aint count, const MPI_Aint *blocklens, MPI_Aint blocklen,
                              const MPI_Aint *displs, mp_datatype *old)
{
    mp_place *pl = mp_malloc((size_t)(count ? count : 1) * sizeof *pl);
    for (MPI_Aint i = 0; i < count; i++)
        pl[i] = (mp_place){ .disp = displs[i], .n1 = 1, .s1 = 0,
                            .n2 = blocklens ? blocklens[i] : blocklen, .s2 = old->extent,
                            .type = old };
    mp_datatype *dt = build(pl, count, 0);
    free(pl);
    return dt;
}

mp_datatype *mp_type_struct(MPI_Aint count, const MPI_Aint *blocklens, const MPI_Aint *displs,
                            mp_datatype *const *types)
{
    mp_place *pl = mp_malloc((size_t)(count ? count : 1) * sizeof *pl);
    for (MPI_Aint i = 0; i < count; i++)
        pl[i] = (mp_place){ .disp = displs[i], .n1 = 1, .s1 = 0, .n2 = blocklens[i],
                            .s2 = types[i]->extent, .type = types[i] };
    mp_datatype *dt = build(pl, count, 1);
    free(pl);
    return dt;
}

mp_datatype *mp_type_resized(mp_datatype *old, MPI_Aint lb, MPI_Aint extent)
{
    mp_datatype *dt = mp_datatype_alloc();
    mp_dtinfo *info = mp_dt_info(dt), *oi = mp_dt_info(old);
    mp_prog_finish(&info->prog, mp_prog_import(&info->prog, &oi->prog));
    dt->size = old->size;
    dt->lb = lb;
    dt->ub = lb + extent;
    dt->extent = extent;
    dt->true_lb = old->true_lb;
    dt->true_ub = old->true_ub;
    dt->basic = old->basic;
    info->has_lb = info->has_ub = 1;
    info->align = oi->align;
    finish_contig(dt);
    return dt;
}

mp_datatype *mp_type_dup(mp_datatype *old)
{
    mp_datatype *dt = mp_datatype_alloc();
    mp_dtinfo *info = mp_dt_info(dt), *oi = mp_dt_info(old);
    mp_prog_finish(&info->prog, mp_prog_import(&info->prog, &oi->prog));
    dt->size = old->size;
    dt->lb = old->lb;
    dt->ub = old->ub;
    dt->extent = old->extent;
    dt->true_lb = old->true_lb;
    dt->true_ub = old->true_ub;
    dt->basic = old->basic;
    dt->is_contig = old->is_contig;
    dt->committed = old->committed;
    info->has_lb = oi->has_lb;
    info->has_ub = oi->has_ub;
    info->align = oi->align;
    return dt;
}

/* One dimension of a subarray or darray: the runs [start, start+len) of indices (in units of
 * `stride` bytes) owned along this dimension, each an instance of `inner` resized to stride. */
static mp_datatype *dimension(mp_datatype *inner, MPI_Aint stride, MPI_Aint nruns,
                              const MPI_Aint *starts, const MPI_Aint *lens)
{
    mp_datatype *step = mp_type_resized(inner, 0, stride);
    MPI_Aint *displs = mp_malloc((size_t)(nruns ? nruns : 1) * sizeof(MPI_Aint));
    for (MPI_Aint i = 0; i < nruns; i++)
        displs[i] = starts[i] * stride;
    mp_datatype *dt = mp_type_hindexed(nruns, lens, 0, displs, step);
    free(displs);
    mp_datatype_release(step);
    return dt;
}

/* Builds a multi-dimensional selection.  runs[d] lists the owned index runs of dimension d
 * (dimension 0 varies fastest); the result is resized to the whole array. */
static mp_datatype *selection(int ndims, const MPI_Aint *gsizes, MPI_Aint *const *rstart,
                              MPI_Aint *const *rlen, const MPI_Aint *nruns, mp_datatype *old)
{
    mp_datatype *cur = old;
    mp_datatype_retain(cur);
    MPI_Aint stride = old->extent;
    for (int d = 0; d < ndims; d++) {
        mp_datatype *next = dimension(cur, stride, nruns[d], rstart[d], rlen[d]);
        mp_datatype_release(cur);
        cur = next;
        stride *= gsizes[d];
    }
    mp_datatype *dt = mp_type_resized(cur, 0, stride);
    mp_datatype_release(cur);
    return dt;
}

/* order: MPI_ORDER_C (last dimension fastest) or MPI_ORDER_FORTRAN. */
mp_datatype *mp_type_subarray(int ndims, const MPI_Aint *sizes, const MPI_Aint *subsizes,
                              const MPI_Aint *starts, int order, mp_datatype *old)
{
    MPI_Aint *g = mp_malloc((size_t)ndims * sizeof(MPI_Aint));
    MPI_Aint *st = mp_malloc((size_t)ndims * sizeof(MPI_Aint));
    MPI_Aint *ln = mp_malloc((size_t)ndims * sizeof(MPI_Aint));
    MPI_Aint **pst = mp_malloc((size_t)ndims * sizeof(MPI_Aint *));
    MPI_Aint **pln = mp_malloc((size_t)ndims * sizeof(MPI_Aint *));
    MPI_Aint *nr = mp_malloc((size_t)ndims * sizeof(MPI_Aint));
    for (int d = 0; d < ndims; d++) {
        int src = order == MPI_ORDER_C ? ndims - 1 - d : d;
        g[d] = sizes[src];
        st[d] = starts[src];
        ln[d] = subsizes[src];
        pst[d] = &st[d];
        pln[d] = &ln[d];
        nr[d] = 1;
    }
    mp_datatype *dt = selection(ndims, g, pst, pln, nr, old);
    free(g); free(st); free(ln); free(pst); free(pln); free(nr);
    return dt;
}

/* The index runs a process at coordinate `coord` of `procs` owns along a dimension of gsize
 * elements.  Returns the number of runs, or -1 when darg is invalid for the distribution. */
static MPI_Aint darray_runs(MPI_Aint gsize, int distrib, int darg, int procs, int coord,
                            MPI_Aint **start, MPI_Aint **len)
{
    if (distrib == MPI_DISTRIBUTE_NONE) {
        *start = mp_malloc(sizeof(MPI_Aint));
        *len = mp_malloc(sizeof(MPI_Aint));
        (*start)[0] = 0;
        (*len)[0] = gsize;
        return 1;
    }
    MPI_Aint blk;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + procs - 1) / procs : darg;
        if (blk <= 0 || blk * procs < gsize)
            return -1;
        MPI_Aint s = blk * coord, l = amax(0, amin(blk, gsize - s));
        *start = mp_malloc(sizeof(MPI_Aint));
        *len = mp_malloc(sizeof(MPI_Aint));
        (*start)[0] = l ? s : 0;
        (*len)[0] = l;
        return 1;
    }
    blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    if (blk <= 0)
        return -1;
    MPI_Aint cycle = blk * procs, n = 0;
    MPI_Aint max = gsize / cycle + 2;
    *start = mp_malloc((size_t)max * sizeof(MPI_Aint));
    *len = mp_malloc((size_t)max * sizeof(MPI_Aint));
    for (MPI_Aint s = blk * coord; s < gsize; s += cycle) {
        (*start)[n] = s;
        (*len)[n] = amin(blk, gsize - s);
        n++;
    }
    return n;
}

/* Returns NULL when a darg is invalid (caller reports MPI_ERR_ARG). */
mp_datatype *mp_type_darray(int size, int rank, int ndims, const MPI_Aint *gsizes,
                            const int *distribs, const int *dargs, const int *psizes, int order,
                            mp_datatype *old)
{
    int *coords = mp_malloc((size_t)ndims * sizeof(int));
    /* Process grid coordinates in row-major (C) order, whatever the array order. */
    for (int d = ndims - 1, r = rank; d >= 0; d--) {
        coords[d] = r % psizes[d];
        r /= psizes[d];
    }
    (void)size;
    MPI_Aint *g = mp_malloc((size_t)ndims * sizeof(MPI_Aint));
    MPI_Aint **st = mp_calloc((size_t)ndims, sizeof(MPI_Aint *));
    MPI_Aint **ln = mp_calloc((size_t)ndims, sizeof(MPI_Aint *));
    MPI_Aint *nr = mp_malloc((size_t)ndims * sizeof(MPI_Aint));
    mp_datatype *dt = NULL;
    int ok = 1;
    for (int d = 0; d < ndims; d++) {
        int src = order == MPI_ORDER_C ? ndims - 1 - d : d;
        g[d] = gsizes[src];
        nr[d] = darray_runs(gsizes[src], distribs[src], dargs[src], psizes[src], coords[src],
                            &st[d], &ln[d]);
        if (nr[d] < 0)
            ok = 0;
    }
    if (ok)
        dt = selection(ndims, g, st, ln, nr, old);
    for (int d = 0; d < ndims; d++) {
        free(st[d]);
        free(ln[d]);
    }
    free(st); free(ln); free(nr); free(g); free(coords);
    return dt;
}

/* datatype.c -- datatype constructors, commit, free and dup.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/datatype.spec.  Each constructor checks its arguments, converts element strides and displacements to bytes,
 * calls the datatype layer's constructor (datatype/derived.c), records the call's arguments
 * as the type's contents exactly as MPI_Type_get_contents must return them, and registers the
 * new type for a handle.  Datatype errors have no communicator, so they go through
 * MPI_COMM_WORLD's error handler.
 *
 * Handles the user owns are counted separately from internal references (datatype.h,
 * mp_datatype_user_*): MPI_Type_free drops the user's handle at once, while the object lives on until
 * pending operations and types built on it let go.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Shared argument checks
 * ------------------------------------------------------------------------------------------- */
int mp_dtarg_type(const char *func, const char *what, MPI_Datatype h, int flags,
                  mp_datatype **out)
{
    return mp_error_raise(NULL, mp_chk_type(func, h, what, flags, out), func);
}

int mp_dtarg_nonneg(const char *func, const char *what, MPI_Aint v)
{
    if (v >= 0)
        return MPI_SUCCESS;
    return mp_error(NULL, what[0] == 'c' ? MPI_ERR_COUNT : MPI_ERR_ARG, func,
                    "invalid %s %ld (must be >= 0)", what, (long)v);
}

int mp_dtarg_ptr(const char *func, const char *what, const void *p)
{
    if (p != NULL)
        return MPI_SUCCESS;
    return mp_error(NULL, MPI_ERR_ARG, func, "%s is NULL", what);
}

int mp_dtarg_new(const char *func, mp_datatype *dt, MPI_Datatype *newtype)
{
    int err = mp_datatype_register(dt, newtype);
    return err ? mp_error_raise(NULL, err, func) : MPI_SUCCESS;
}

/* Checks a count, an old type and the output pointer: the prologue of most constructors. */
static int common_args(const char *F, MPI_Aint count, MPI_Datatype oldtype, mp_datatype **old,
                       const void *newtype)
{
    int err;
    if ((err = mp_dtarg_nonneg(F, "count", count)))
        return err;
    if ((err = mp_dtarg_ptr(F, "newtype", newtype)))
        return err;
    return mp_dtarg_type(F, "oldtype", oldtype, MP_TYPE_UNCOMMITTED, old);
}

/* The same with one block length for every block (vector, hvector, indexed_block). */
static int block_args(const char *F, MPI_Aint count, MPI_Aint blocklength, MPI_Datatype oldtype,
                      mp_datatype **old, const void *newtype)
{
    int err = common_args(F, count, oldtype, old, newtype);
    return err ? err : mp_dtarg_nonneg(F, "blocklength", blocklength);
}

static int check_blocklens(const char *F, int count, const int *bl)
{
    if (count > 0 && bl == NULL)
        return mp_dtarg_ptr(F, "array_of_blocklengths", bl);
    for (int i = 0; i < count; i++)
        if (bl[i] < 0)
            return mp_error(NULL, MPI_ERR_ARG, F, "array_of_blocklengths[%d] = %d is negative",
                            i, bl[i]);
    return MPI_SUCCESS;
}

static int finish(const char *F, mp_datatype *dt, int combiner, int nints, const int *ints,
                  int naints, const MPI_Aint *aints, int ntypes, mp_datatype *const *types,
                  MPI_Datatype *newtype)
{
    mp_type_set_contents(dt, combiner, nints, ints, naints, aints, ntypes, types);
    return mp_dtarg_new(F, dt, newtype);
}

/* ---------------------------------------------------------------------------------------------
 * Constructors
 * ------------------------------------------------------------------------------------------- */
int mp_do_type_contiguous(const char *F, int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if ((err = common_args(F, count, oldtype, &old, newtype)))
        return err;
    mp_datatype *dt = mp_type_contiguous(count, old);
    return finish(F, dt, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &old, newtype);
}

int mp_do_type_vector(const char *F, int count, int blocklength, int stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err = block_args(F, count, blocklength, oldtype, &old, newtype);
    if (err)
        return err;
    mp_datatype *dt = mp_type_hvector(count, blocklength, (MPI_Aint)stride * old->extent, old);
    int ints[3] = { count, blocklength, stride };
    return finish(F, dt, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &old, newtype);
}

static int hvector(const char *F, int count, int blocklength, MPI_Aint stride,
                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err = block_args(F, count, blocklength, oldtype, &old, newtype);
    if (err)
        return err;
    mp_datatype *dt = mp_type_hvector(count, blocklength, stride, old);
    int ints[2] = { count, blocklength };
    return finish(F, dt, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &old, newtype);
}

int mp_do_type_create_hvector(const char *F, int count, int blocklength, MPI_Aint stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector(F, count, blocklength, stride, oldtype, newtype);
}

int mp_do_type_hvector(const char *F, int count, int blocklength, MPI_Aint stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hvector(F, count, blocklength, stride, oldtype, newtype);
}

/* indexed / hindexed: element displacements (int_displs) or byte displacements (aint). */
int mp_dtarg_indexed(const char *F, int combiner, int count, const int *bl, const int *idispl,
                     const MPI_Aint *adispl, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if ((err = common_args(F, count, oldtype, &old, newtype)) ||
        (err = check_blocklens(F, count, bl)))
        return err;
    if (count > 0 && (err = mp_dtarg_ptr(F, "array_of_displacements",
                                         idispl ? (const void *)idispl : (const void *)adispl)))
        return err;
    size_t n = (size_t)(count ? count : 1);
    MPI_Aint *blen = mp_malloc(n * sizeof(MPI_Aint)), *disp = mp_malloc(n * sizeof(MPI_Aint));
    int *ints = mp_malloc((2 * n + 1) * sizeof(int));
    ints[0] = count;
    for (int i = 0; i < count; i++) {
        blen[i] = bl[i];
        disp[i] = idispl ? (MPI_Aint)idispl[i] * old->extent : adispl[i];
        ints[1 + i] = bl[i];
        if (idispl)
            ints[1 + count + i] = idispl[i];
    }
    mp_datatype *dt = mp_type_hindexed(count, blen, 0, disp, old);
    err = finish(F, dt, combiner, idispl ? 1 + 2 * count : 1 + count, ints,
                 idispl ? 0 : count, adispl, 1, &old, newtype);
    free(blen);
    free(disp);
    free(ints);
    return err;
}

int mp_dtarg_indexed_block(const char *F, int combiner, int count, int blocklength,
                           const int *idispl, const MPI_Aint *adispl, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err = block_args(F, count, blocklength, oldtype, &old, newtype);
    if (err)
        return err;
    if (count > 0 && (err = mp_dtarg_ptr(F, "array_of_displacements",
                                         idispl ? (const void *)idispl : (const void *)adispl)))
        return err;
    size_t n = (size_t)(count ? count : 1);
    MPI_Aint *disp = mp_malloc(n * sizeof(MPI_Aint));
    int *ints = mp_malloc((n + 2) * sizeof(int));
    ints[0] = count;
    ints[1] = blocklength;
    for (int i = 0; i < count; i++) {
        disp[i] = idispl ? (MPI_Aint)idispl[i] * old->extent : adispl[i];
        if (idispl)
            ints[2 + i] = idispl[i];
    }
    mp_datatype *dt = mp_type_hindexed(count, NULL, blocklength, disp, old);
    err = finish(F, dt, combiner, idispl ? 2 + count : 2, ints, idispl ? 0 : count, adispl,
                 1, &old, newtype);
    free(disp);
    free(ints);
    return err;
}

static int create_struct(const char *F, int count, const int *bl, const MPI_Aint *displs,
                         const MPI_Datatype *types, MPI_Datatype *newtype)
{
    int err;
    if ((err = mp_dtarg_nonneg(F, "count", count)) || (err = mp_dtarg_ptr(F, "newtype", newtype))
        || (err = check_blocklens(F, count, bl)))
        return err;
    if (count > 0 && ((err = mp_dtarg_ptr(F, "array_of_displacements", displs)) ||
                      (err = mp_dtarg_ptr(F, "array_of_types", types))))
        return err;
    size_t n = (size_t)(count ? count : 1);
    mp_datatype **t = mp_malloc(n * sizeof *t);
    for (int i = 0; i < count; i++) {
        char what[48];
        snprintf(what, sizeof what, "array_of_types[%d]", i);
        if ((err = mp_dtarg_type(F, what, types[i], MP_TYPE_UNCOMMITTED | MP_TYPE_MARKERS,
                                 &t[i]))) {
            free(t);
            return err;
        }
    }
    MPI_Aint *blen = mp_malloc(n * sizeof(MPI_Aint));
    int *ints = mp_malloc((n + 1) * sizeof(int));
    ints[0] = count;
    for (int i = 0; i < count; i++) {
        blen[i] = bl[i];
        ints[1 + i] = bl[i];
    }
    mp_datatype *dt = mp_type_struct(count, blen, displs, t);
    err = finish(F, dt, MPI_COMBINER_STRUCT, count + 1, ints, count, displs, count, t, newtype);
    free(blen);
    free(ints);
    free(t);
    return err;
}

int mp_do_type_create_struct(const char *F, int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return create_struct(F, count, array_of_blocklengths,
                         array_of_displacements, array_of_types, newtype);
}

int mp_do_type_struct(const char *F, int count, int array_of_blocklengths[],
                      MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[],
                      MPI_Datatype *newtype)
{
    return create_struct(F, count, array_of_blocklengths,
                         array_of_displacements, array_of_types, newtype);
}

int mp_do_type_create_resized(const char *F, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                              MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if ((err = common_args(F, 0, oldtype, &old, newtype)))
        return err;
    mp_datatype *dt = mp_type_resized(old, lb, extent);
    MPI_Aint aints[2] = { lb, extent };
    return finish(F, dt, MPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1, &old, newtype);
}

/* Records a subarray's or darray's contents: ints as the int form has them, or, for the
 * _c forms with sizes beyond int (large != 0), the sizes as large counts and the rest as
 * ints, as MPI_Type_get_contents_c lays them out. */
static int finish_array(const char *F, mp_datatype *dt, int combiner, int nints,
                        const int *ints, int nlarge, const MPI_Aint *large, mp_datatype *old,
                        MPI_Datatype *newtype)
{
    mp_type_set_contents(dt, combiner, nints, ints, 0, NULL, 1, &old);
    if (nlarge) {
        MPI_Count *c = mp_malloc((size_t)nlarge * sizeof(MPI_Count));
        for (int i = 0; i < nlarge; i++)
            c[i] = large[i];
        mp_type_set_large(dt, nlarge, c);
        free(c);
    }
    return mp_dtarg_new(F, dt, newtype);
}

/* The dimensions and storage order of a subarray or darray (checked before the arrays,
 * for the order's sake only after ndims). */
static int array_args(const char *F, int ndims, int order)
{
    if (ndims <= 0)
        return mp_error(NULL, MPI_ERR_DIMS, F, "invalid ndims %d (must be > 0)", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid order %d (must be MPI_ORDER_C or "
                        "MPI_ORDER_FORTRAN)", order);
    return MPI_SUCCESS;
}

int mp_dtarg_subarray(const char *F, int ndims, const MPI_Aint *sizes, const MPI_Aint *subsizes,
                      const MPI_Aint *starts, int order, MPI_Datatype oldtype,
                      MPI_Datatype *newtype, int large)
{
    mp_datatype *old;
    int err;
    if ((err = common_args(F, 0, oldtype, &old, newtype)))
        return err;
    if ((err = array_args(F, ndims, order)) ||
        (err = mp_dtarg_ptr(F, "array_of_sizes", sizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_subsizes", subsizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_starts", starts)))
        return err;
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] <= 0)
            return mp_error(NULL, MPI_ERR_ARG, F, "array_of_sizes[%d] = %ld (must be > 0)", i,
                            (long)sizes[i]);
        if (subsizes[i] < 0 || subsizes[i] > sizes[i])
            return mp_error(NULL, MPI_ERR_ARG, F, "array_of_subsizes[%d] = %ld is outside "
                            "[0, %ld]", i, (long)subsizes[i], (long)sizes[i]);
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
            return mp_error(NULL, MPI_ERR_ARG, F, "array_of_starts[%d] = %ld is outside "
                            "[0, %ld]", i, (long)starts[i], (long)(sizes[i] - subsizes[i]));
    }
    MPI_Aint *a = mp_malloc(3 * (size_t)ndims * sizeof(MPI_Aint));
    int *ints = mp_malloc((3 * (size_t)ndims + 2) * sizeof(int));
    for (int i = 0; i < ndims; i++) {
        a[i] = sizes[i];
        a[ndims + i] = subsizes[i];
        a[2 * ndims + i] = starts[i];
    }
    ints[0] = ndims;
    if (large) {
        ints[1] = order;
    } else {
        for (int i = 0; i < 3 * ndims; i++)
            ints[1 + i] = (int)a[i];
        ints[1 + 3 * ndims] = order;
    }
    mp_datatype *dt = mp_type_subarray(ndims, a, a + ndims, a + 2 * ndims, order, old);
    err = finish_array(F, dt, MPI_COMBINER_SUBARRAY, large ? 2 : 3 * ndims + 2, ints,
                       large ? 3 * ndims : 0, a, old, newtype);
    free(a);
    free(ints);
    return err;
}

int mp_do_type_create_subarray(const char *F, int ndims, const int array_of_sizes[],
                               const int array_of_subsizes[], const int array_of_starts[],
                               int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err;
    if ((err = mp_dtarg_ptr(F, "array_of_sizes", array_of_sizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_subsizes", array_of_subsizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_starts", array_of_starts)))
        return err;
    size_t n = ndims > 0 ? (size_t)ndims : 1;
    MPI_Aint *a = mp_malloc(3 * n * sizeof(MPI_Aint));
    for (int i = 0; i < ndims; i++) {
        a[i] = array_of_sizes[i];
        a[n + i] = array_of_subsizes[i];
        a[2 * n + i] = array_of_starts[i];
    }
    err = mp_dtarg_subarray(F, ndims, a, a + n, a + 2 * n, order, oldtype, newtype, 0);
    free(a);
    return err;
}

int mp_dtarg_darray(const char *F, int size, int rank, int ndims, const MPI_Aint *gsizes,
                    const int *distribs, const int *dargs, const int *psizes, int order,
                    MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    mp_datatype *old;
    int err;
    if ((err = common_args(F, 0, oldtype, &old, newtype)))
        return err;
    if (size <= 0 || rank < 0 || rank >= size)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid rank %d for a process grid of size %d",
                        rank, size);
    if ((err = array_args(F, ndims, order)) ||
        (err = mp_dtarg_ptr(F, "array_of_gsizes", gsizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_distribs", distribs)) ||
        (err = mp_dtarg_ptr(F, "array_of_dargs", dargs)) ||
        (err = mp_dtarg_ptr(F, "array_of_psizes", psizes)))
        return err;
    long grid = 1;
    for (int i = 0; i < ndims; i++) {
        int dist = distribs[i];
        if (gsizes[i] <= 0 || psizes[i] <= 0)
            return mp_error(NULL, MPI_ERR_ARG, F, "array_of_gsizes[%d] = %ld and "
                            "array_of_psizes[%d] = %d must be > 0", i, (long)gsizes[i], i,
                            psizes[i]);
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
            dist != MPI_DISTRIBUTE_NONE)
            return mp_error(NULL, MPI_ERR_ARG, F, "invalid array_of_distribs[%d] = %d", i, dist);
        if (dist == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
            return mp_error(NULL, MPI_ERR_ARG, F, "array_of_psizes[%d] = %d must be 1 for "
                            "MPI_DISTRIBUTE_NONE", i, psizes[i]);
        if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0 &&
            dist != MPI_DISTRIBUTE_NONE)
            return mp_error(NULL, MPI_ERR_ARG, F, "invalid array_of_dargs[%d] = %d", i,
                            dargs[i]);
        grid *= psizes[i];
    }
    if (grid != size)
        return mp_error(NULL, MPI_ERR_ARG, F, "the process grid has %ld processes, size is %d",
                        grid, size);
    /* ints: size, rank, ndims, [gsizes unless large], distribs, dargs, psizes, order */
    int ng = large ? 0 : ndims;
    int *ints = mp_malloc((4 * (size_t)ndims + 4) * sizeof(int)), *p = ints;
    *p++ = size;
    *p++ = rank;
    *p++ = ndims;
    for (int i = 0; i < ng; i++)
        *p++ = (int)gsizes[i];
    for (int i = 0; i < ndims; i++)
        *p++ = distribs[i];
    for (int i = 0; i < ndims; i++)
        *p++ = dargs[i];
    for (int i = 0; i < ndims; i++)
        *p++ = psizes[i];
    *p++ = order;
    mp_datatype *dt = mp_type_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                                     old);
    if (dt == NULL)
        err = mp_error(NULL, MPI_ERR_ARG, F, "a block distribution's darg times the number "
                       "of processes does not cover the global size");
    else
        err = finish_array(F, dt, MPI_COMBINER_DARRAY, (int)(p - ints), ints,
                           large ? ndims : 0, gsizes, old, newtype);
    free(ints);
    return err;
}

int mp_do_type_create_darray(const char *F, int size, int rank, int ndims,
                             const int array_of_gsizes[], const int array_of_distribs[],
                             const int array_of_dargs[], const int array_of_psizes[], int order,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err;
    if ((err = mp_dtarg_ptr(F, "array_of_gsizes", array_of_gsizes)))
        return err;
    MPI_Aint *g = mp_malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(MPI_Aint));
    for (int i = 0; i < ndims; i++)
        g[i] = array_of_gsizes[i];
    err = mp_dtarg_darray(F, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                          array_of_psizes, order, oldtype, newtype, 0);
    free(g);
    return err;
}

/* ---------------------------------------------------------------------------------------------
 * Commit, dup, free
 * ------------------------------------------------------------------------------------------- */
int mp_do_type_commit(const char *F, MPI_Datatype *datatype)
{
    mp_datatype *dt;
    int err;
    if ((err = mp_dtarg_ptr(F, "datatype", datatype)) ||
        (err = mp_dtarg_type(F, "datatype", *datatype, MP_TYPE_UNCOMMITTED, &dt)))
        return err;
    dt->committed = 1;
    return MPI_SUCCESS;
}

int mp_do_type_dup(const char *F, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if ((err = common_args(F, 0, oldtype, &old, newtype)))
        return err;
    mp_datatype *dt = mp_type_dup(old);
    MPI_Datatype h;
    if ((err = finish(F, dt, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old, &h)))
        return err;
    if (old->attrs) {
        err = mp_attr_copy_all(MP_OBJ_DATATYPE, oldtype, h, old->attrs, &dt->attrs);
        if (err) {
            mp_datatype_discard(dt);
            return mp_error_raise(NULL, err, F);
        }
    }
    *newtype = h;
    return MPI_SUCCESS;
}

int mp_do_type_free(const char *F, MPI_Datatype *datatype)
{
    mp_datatype *dt;
    int err;
    if ((err = mp_dtarg_ptr(F, "datatype", datatype)) ||
        (err = mp_dtarg_type(F, "datatype", *datatype,
                             MP_TYPE_UNCOMMITTED | MP_TYPE_MARKERS, &dt)))
        return err;
    if (dt->is_builtin)
        return mp_error(NULL, MPI_ERR_TYPE, F, "cannot free the predefined datatype %s",
                        dt->name);
    if (dt->attrs && mp_datatype_user_count(dt) == 1 &&
        (err = mp_attr_delete_all(MP_OBJ_DATATYPE, dt->handle, &dt->attrs)))
        return mp_error_raise(NULL, err, F);
    *datatype = MPI_DATATYPE_NULL;
    mp_datatype_user_release(dt);
    return MPI_SUCCESS;
}

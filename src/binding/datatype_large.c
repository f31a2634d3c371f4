/* datatype_large.c -- the MPI-4 large-count (_c) datatype constructors, envelope and contents,
 * and MPI_Status_set_elements.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/datatype.spec.
 * The datatype engine is MPI_Count-wide throughout (loop counts, strides, sizes and stream
 * offsets are 64-bit), so a _c constructor may describe more than INT_MAX elements or bytes.
 * When every count argument fits in an int, a _c constructor forwards to its int form, so
 * the type records int contents exactly as that form would (programs that use _c names with
 * small values see the familiar envelope).  Otherwise it builds the type itself and records
 * the counts as large counts laid out as the MPI-4 table for MPI_Type_get_contents_c says;
 * the int MPI_Type_get_envelope/get_contents then fail with MPI_ERR_TYPE for that type,
 * since its contents cannot be expressed without large counts.
 */
#include "binding/binding.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int fits(MPI_Count v) { return v >= INT_MIN && v <= INT_MAX; }

static int all_fit(MPI_Count n, const MPI_Count *a)
{
    for (MPI_Count i = 0; a && i < n; i++)
        if (!fits(a[i]))
            return 0;
    return 1;
}

/* Copies n MPI_Counts into a new int array (every value fits; NULL when n == 0 or src is
 * NULL, as the int forms check their pointers themselves). */
static int *to_ints(MPI_Count n, const MPI_Count *src)
{
    if (n <= 0 || src == NULL)
        return NULL;
    int *a = mp_malloc((size_t)n * sizeof(int));
    for (MPI_Count i = 0; i < n; i++)
        a[i] = (int)src[i];
    return a;
}

static MPI_Aint *to_aints(MPI_Count n, const MPI_Count *src)
{
    return n > 0 && src ? mp_counts_widen((mp_counts){ src, MP_COUNTS_COUNT }, n) : NULL;
}

/* The prologue of the large paths: count >= 0, newtype and oldtype valid. */
static int large_args(const char *F, MPI_Count count, MPI_Datatype oldtype, mp_datatype **old,
                      const void *newtype)
{
    int err;
    if ((err = mp_dtarg_nonneg(F, "count", count)) ||
        (err = mp_dtarg_ptr(F, "newtype", newtype)))
        return err;
    return mp_dtarg_type(F, "oldtype", oldtype, MP_TYPE_UNCOMMITTED, old);
}

static int check_counts(const char *F, const char *what, MPI_Count n, const MPI_Count *a)
{
    if (n > 0 && a == NULL)
        return mp_error(NULL, MPI_ERR_ARG, F, "%s is NULL", what);
    for (MPI_Count i = 0; i < n; i++)
        if (a[i] < 0)
            return mp_error(NULL, MPI_ERR_ARG, F, "%s[%lld] = %lld is negative", what,
                            (long long)i, (long long)a[i]);
    return MPI_SUCCESS;
}

/* Records contents with large counts and registers the new type. */
static int finish_large(const char *F, mp_datatype *dt, int combiner, int nints,
                        const int *ints, MPI_Count nlarge, const MPI_Count *large, int ntypes,
                        mp_datatype *const *types, MPI_Datatype *newtype)
{
    mp_type_set_contents(dt, combiner, nints, ints, 0, NULL, ntypes, types);
    mp_type_set_large(dt, (int)nlarge, large);
    return mp_dtarg_new(F, dt, newtype);
}

/* count, then n1 values of a, then n2 values of b: the large-count array of most combiners */
static MPI_Count *concat(MPI_Count first, MPI_Count n1, const MPI_Count *a, MPI_Count n2,
                         const MPI_Count *b)
{
    MPI_Count *c = mp_malloc((size_t)(1 + n1 + n2) * sizeof(MPI_Count));
    c[0] = first;
    for (MPI_Count i = 0; i < n1; i++)
        c[1 + i] = a[i];
    for (MPI_Count i = 0; i < n2; i++)
        c[1 + n1 + i] = b[i];
    return c;
}

int mp_do_type_contiguous_c(const char *F, MPI_Count count, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if (fits(count))
        return mp_do_type_contiguous(F, (int)count, oldtype, newtype);
    if ((err = large_args(F, count, oldtype, &old, newtype)))
        return err;
    mp_datatype *dt = mp_type_contiguous(count, old);
    return finish_large(F, dt, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, &count, 1, &old, newtype);
}

static int vector_c(const char *F, int combiner, MPI_Count count, MPI_Count blocklength,
                    MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if ((err = large_args(F, count, oldtype, &old, newtype)) ||
        (err = mp_dtarg_nonneg(F, "blocklength", blocklength)))
        return err;
    MPI_Aint bytes = combiner == MPI_COMBINER_VECTOR ? stride * old->extent : stride;
    mp_datatype *dt = mp_type_hvector(count, blocklength, bytes, old);
    MPI_Count c[3] = { count, blocklength, stride };
    return finish_large(F, dt, combiner, 0, NULL, 3, c, 1, &old, newtype);
}

int mp_do_type_vector_c(const char *F, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (fits(count) && fits(blocklength) && fits(stride))
        return mp_do_type_vector(F, (int)count, (int)blocklength, (int)stride, oldtype, newtype);
    return vector_c(F, MPI_COMBINER_VECTOR, count, blocklength, stride,
                    oldtype, newtype);
}

int mp_do_type_create_hvector_c(const char *F, MPI_Count count, MPI_Count blocklength,
                                MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (fits(count) && fits(blocklength))
        return mp_do_type_create_hvector(F, (int)count, (int)blocklength, (MPI_Aint)stride,
                                        oldtype, newtype);
    return vector_c(F, MPI_COMBINER_HVECTOR, count, blocklength,
                    stride, oldtype, newtype);
}

/* indexed, hindexed (bl != NULL) and indexed_block, hindexed_block (bl == NULL): displs
 * in elements of oldtype when `elements`, else in bytes. */
static int indexed_large(const char *F, int combiner, MPI_Count count, const MPI_Count *bl,
                         MPI_Count blocklength, const MPI_Count *displs, int elements,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    mp_datatype *old;
    int err;
    if ((err = large_args(F, count, oldtype, &old, newtype)) ||
        (bl && (err = check_counts(F, "array_of_blocklengths", count, bl))) ||
        (!bl && (err = mp_dtarg_nonneg(F, "blocklength", blocklength))))
        return err;
    if (count > 0 && displs == NULL)
        return mp_error(NULL, MPI_ERR_ARG, F, "array_of_displacements is NULL");
    size_t n = (size_t)(count ? count : 1);
    MPI_Aint *blen = bl ? mp_malloc(n * sizeof(MPI_Aint)) : NULL;
    MPI_Aint *disp = mp_malloc(n * sizeof(MPI_Aint));
    for (MPI_Count i = 0; i < count; i++) {
        if (bl)
            blen[i] = bl[i];
        disp[i] = elements ? displs[i] * old->extent : displs[i];
    }
    mp_datatype *dt = mp_type_hindexed(count, blen, blocklength, disp, old);
    MPI_Count *c = bl ? concat(count, count, bl, count, displs)
                      : concat(count, 1, &blocklength, count, displs);
    err = finish_large(F, dt, combiner, 0, NULL, bl ? 1 + 2 * count : 2 + count, c, 1, &old,
                       newtype);
    free(blen);
    free(disp);
    free(c);
    return err;
}

/* The four indexed constructors with MPI_Count arguments: when every count and element
 * displacement fits an int, the int form (so the type's contents read back as its); else
 * indexed_large. */
int mp_dtarg_indexed_c(const char *F, int combiner, MPI_Count count, const MPI_Count *bl,
                       MPI_Count blocklength, const MPI_Count *displs, int elements,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (!fits(count) || !(bl ? all_fit(count, bl) : fits(blocklength)) ||
        (elements && !all_fit(count, displs)))
        return indexed_large(F, combiner, count, bl, blocklength, displs, elements, oldtype,
                             newtype);
    int n = (int)count, b = (int)blocklength, err, *ib = to_ints(count, bl);
    int *id = elements ? to_ints(count, displs) : NULL;
    MPI_Aint *ad = elements ? NULL : to_aints(count, displs);
    if (bl)
        err = mp_dtarg_indexed(F, combiner, n, ib, id, ad, oldtype, newtype);
    else
        err = mp_dtarg_indexed_block(F, combiner, n, b, id, ad, oldtype, newtype);
    free(ib);
    free(id);
    free(ad);
    return err;
}

int mp_do_type_create_struct_c(const char *F, MPI_Count count,
                               const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[],
                               const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int err;
    if (fits(count) && all_fit(count, array_of_blocklengths)) {
        int *bl = to_ints(count, array_of_blocklengths);
        MPI_Aint *d = to_aints(count, array_of_displacements);
        err = mp_do_type_create_struct(F, (int)count, bl, d, array_of_types, newtype);
        free(bl);
        free(d);
        return err;
    }
    if ((err = mp_dtarg_nonneg(F, "count", count)) ||
        (err = mp_dtarg_ptr(F, "newtype", newtype)) ||
        (err = check_counts(F, "array_of_blocklengths", count, array_of_blocklengths)) ||
        (err = mp_dtarg_ptr(F, "array_of_displacements", array_of_displacements)) ||
        (err = mp_dtarg_ptr(F, "array_of_types", array_of_types)))
        return err;
    mp_datatype **t = mp_malloc((size_t)count * sizeof *t);
    for (MPI_Count i = 0; i < count; i++) {
        char what[48];
        snprintf(what, sizeof what, "array_of_types[%lld]", (long long)i);
        if ((err = mp_dtarg_type(F, what, array_of_types[i],
                                 MP_TYPE_UNCOMMITTED | MP_TYPE_MARKERS, &t[i]))) {
            free(t);
            return err;
        }
    }
    MPI_Aint *bl = to_aints(count, array_of_blocklengths);
    MPI_Aint *d = to_aints(count, array_of_displacements);
    mp_datatype *dt = mp_type_struct(count, bl, d, t);
    MPI_Count *c = concat(count, count, array_of_blocklengths, count, array_of_displacements);
    err = finish_large(F, dt, MPI_COMBINER_STRUCT, 0, NULL, 1 + 2 * count, c, (int)count, t,
                       newtype);
    free(bl);
    free(d);
    free(c);
    free(t);
    return err;
}

int mp_do_type_create_resized_c(const char *F, MPI_Datatype oldtype, MPI_Count lb,
                                MPI_Count extent, MPI_Datatype *newtype)
{
    return mp_do_type_create_resized(F, oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
}

int mp_do_type_create_subarray_c(const char *F, int ndims, const MPI_Count array_of_sizes[],
                                 const MPI_Count array_of_subsizes[],
                                 const MPI_Count array_of_starts[], int order,
                                 MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err;
    if ((err = mp_dtarg_ptr(F, "array_of_sizes", array_of_sizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_subsizes", array_of_subsizes)) ||
        (err = mp_dtarg_ptr(F, "array_of_starts", array_of_starts)))
        return err;
    int n = ndims > 0 ? ndims : 0;
    int large = !all_fit(n, array_of_sizes) || !all_fit(n, array_of_subsizes) ||
                !all_fit(n, array_of_starts);
    MPI_Aint *s = to_aints(n, array_of_sizes), *ss = to_aints(n, array_of_subsizes);
    MPI_Aint *st = to_aints(n, array_of_starts);
    err = mp_dtarg_subarray(F, ndims, s, ss, st, order, oldtype, newtype, large);
    free(s);
    free(ss);
    free(st);
    return err;
}

int mp_do_type_create_darray_c(const char *F, int size, int rank, int ndims,
                               const MPI_Count array_of_gsizes[], const int array_of_distribs[],
                               const int array_of_dargs[], const int array_of_psizes[], int order,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err = mp_dtarg_ptr(F, "array_of_gsizes", array_of_gsizes);
    if (err)
        return err;
    int n = ndims > 0 ? ndims : 0;
    MPI_Aint *g = to_aints(n, array_of_gsizes);
    err = mp_dtarg_darray(F, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                          array_of_psizes, order, oldtype, newtype, !all_fit(n, array_of_gsizes));
    free(g);
    return err;
}


int mp_do_type_get_contents_c(const char *F, MPI_Datatype datatype, MPI_Count max_integers,
                              MPI_Count max_addresses, MPI_Count max_large_counts,
                              MPI_Count max_datatypes, int array_of_integers[],
                              MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                              MPI_Datatype array_of_datatypes[])
{
    mp_datatype *dt;
    int err = mp_dtarg_type(F, "datatype", datatype, MP_TYPE_UNCOMMITTED | MP_TYPE_MARKERS,
                            &dt);
    if (err)
        return err;
    mp_type_contents c;
    mp_type_contents_of(dt, &c);
    const mp_type_contents *info = &c;
    if (info->nlarge == 0)
        return mp_contents(F, dt, max_integers, max_addresses, max_datatypes,
                           array_of_integers, array_of_addresses, array_of_datatypes);
    if (max_large_counts < info->nlarge)
        return mp_error(NULL, MPI_ERR_ARG, F, "array_of_large_counts too small: need %d, "
                        "got %lld", info->nlarge, (long long)max_large_counts);
    if ((err = mp_dtarg_ptr(F, "array_of_large_counts", array_of_large_counts)) ||
        (err = mp_contents(F, dt, max_integers, max_addresses, max_datatypes,
                           array_of_integers, array_of_addresses, array_of_datatypes)))
        return err;
    memcpy(array_of_large_counts, info->large, (size_t)info->nlarge * sizeof(MPI_Count));
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * MPI_Status_set_elements: the status stores bytes, so n elements become the bytes of the first
 * n basic elements of the type's stream (a struct's members differ in size), which
 * MPI_Get_elements and MPI_Get_count then read back.
 * ------------------------------------------------------------------------------------------- */
int mp_do_status_set_elements_x(const char *F, MPI_Status *status, MPI_Datatype datatype,
                                MPI_Count count)
{
    mp_datatype *dt;
    int err;
    if ((err = mp_dtarg_ptr(F, "status", status)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, &dt)) ||
        (err = mp_dtarg_nonneg(F, "count", count)))
        return err;
    MPI_Count bytes = mp_datatype_elements_bytes(dt, count);
    if (bytes < 0 || bytes > ((MPI_Count)1 << 62))
        return mp_error(NULL, MPI_ERR_COUNT, F, "count %lld of %s is too large for a status",
                        (long long)count, dt->name[0] ? dt->name : "the datatype");
    mp_status_set_bytes(status, bytes);
    return MPI_SUCCESS;
}

int mp_do_status_set_elements(const char *F, MPI_Status *status, MPI_Datatype datatype, int count)
{
    return mp_do_status_set_elements_x(F, status, datatype, count);
}

/* MPI 4.1's name, which mpi.h (MPICH 4.0's ABI) does not declare, so it has no description
 * to be generated from: written here, under the big lock like every entry point. */
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MP_BIG_LOCK();
    return mp_do_status_set_elements_x("MPI_Status_set_elements_c", status, datatype, count);
}
#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c

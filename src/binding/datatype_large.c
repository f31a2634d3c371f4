/* datatype_large.c -- the MPI-4 large-count (_c) datatype constructors, envelope and contents,
 * and MPI_Status_set_elements.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The _c constructors forward to the int forms when every count fits in an int, which covers
 * the programs that use them today; larger arguments fail with MPI_ERR_COUNT and a message
 * saying so, rather than being silently truncated.  Types therefore never carry "large
 * counts" in their contents: MPI_Type_get_envelope_c reports num_large_counts = 0.
 */
#include "binding/binding.h"
#include "datatype/engine.h"
#include <limits.h>
#include <stdlib.h>

static int fits(const char *F, const char *what, MPI_Count v)
{
    if (v >= INT_MIN && v <= INT_MAX)
        return MPI_SUCCESS;
    return mp_error(NULL, MPI_ERR_COUNT, F, "%s = %lld does not fit in an int; MemPI's datatype "
                    "constructors support int counts only", what, (long long)v);
}

/* Copies n MPI_Counts into a new int array (NULL when n == 0 or src is NULL). */
static int to_ints(const char *F, const char *what, MPI_Count n, const MPI_Count *src, int **out)
{
    *out = NULL;
    if (n <= 0 || src == NULL)
        return MPI_SUCCESS;
    int *a = mp_malloc((size_t)n * sizeof(int));
    for (MPI_Count i = 0; i < n; i++) {
        int err = fits(F, what, src[i]);
        if (err) {
            free(a);
            return err;
        }
        a[i] = (int)src[i];
    }
    *out = a;
    return MPI_SUCCESS;
}

static MPI_Aint *to_aints(MPI_Count n, const MPI_Count *src)
{
    if (n <= 0 || src == NULL)
        return NULL;
    MPI_Aint *a = mp_malloc((size_t)n * sizeof(MPI_Aint));
    for (MPI_Count i = 0; i < n; i++)
        a[i] = (MPI_Aint)src[i];
    return a;
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int err = fits("MPI_Type_contiguous_c", "count", count);
    return err ? err : PMPI_Type_contiguous((int)count, oldtype, newtype);
}
#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_vector_c";
    int err;
    if ((err = fits(F, "count", count)) || (err = fits(F, "blocklength", blocklength)) ||
        (err = fits(F, "stride", stride)))
        return err;
    return PMPI_Type_vector((int)count, (int)blocklength, (int)stride, oldtype, newtype);
}
#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_create_hvector_c";
    int err;
    if ((err = fits(F, "count", count)) || (err = fits(F, "blocklength", blocklength)))
        return err;
    return PMPI_Type_create_hvector((int)count, (int)blocklength, (MPI_Aint)stride, oldtype,
                                    newtype);
}
#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_indexed_c";
    int *bl, *d, err;
    if ((err = fits(F, "count", count)))
        return err;
    if ((err = to_ints(F, "a block length", count, array_of_blocklengths, &bl)))
        return err;
    if ((err = to_ints(F, "a displacement", count, array_of_displacements, &d))) {
        free(bl);
        return err;
    }
    err = PMPI_Type_indexed((int)count, bl, d, oldtype, newtype);
    free(bl);
    free(d);
    return err;
}
#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_create_hindexed_c";
    int *bl, err;
    if ((err = fits(F, "count", count)) ||
        (err = to_ints(F, "a block length", count, array_of_blocklengths, &bl)))
        return err;
    MPI_Aint *d = to_aints(count, array_of_displacements);
    err = PMPI_Type_create_hindexed((int)count, bl, d, oldtype, newtype);
    free(bl);
    free(d);
    return err;
}
#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_create_indexed_block_c";
    int *d, err;
    if ((err = fits(F, "count", count)) || (err = fits(F, "blocklength", blocklength)) ||
        (err = to_ints(F, "a displacement", count, array_of_displacements, &d)))
        return err;
    err = PMPI_Type_create_indexed_block((int)count, (int)blocklength, d, oldtype, newtype);
    free(d);
    return err;
}
#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_create_hindexed_block_c";
    int err;
    if ((err = fits(F, "count", count)) || (err = fits(F, "blocklength", blocklength)))
        return err;
    MPI_Aint *d = to_aints(count, array_of_displacements);
    err = PMPI_Type_create_hindexed_block((int)count, (int)blocklength, d, oldtype, newtype);
    free(d);
    return err;
}
#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_create_struct_c";
    int *bl, err;
    if ((err = fits(F, "count", count)) ||
        (err = to_ints(F, "a block length", count, array_of_blocklengths, &bl)))
        return err;
    MPI_Aint *d = to_aints(count, array_of_displacements);
    err = PMPI_Type_create_struct((int)count, bl, d, array_of_types, newtype);
    free(bl);
    free(d);
    return err;
}
#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return PMPI_Type_create_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype);
}
#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order,
                                MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *const F = "MPI_Type_create_subarray_c";
    int *s = NULL, *ss = NULL, *st = NULL, err;
    if ((err = to_ints(F, "a size", ndims, array_of_sizes, &s)) ||
        (err = to_ints(F, "a subsize", ndims, array_of_subsizes, &ss)) ||
        (err = to_ints(F, "a start", ndims, array_of_starts, &st)))
        goto out;
    err = PMPI_Type_create_subarray(ndims, s, ss, st, order, oldtype, newtype);
out:
    free(s);
    free(ss);
    free(st);
    return err;
}
#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    int *g, err;
    if ((err = to_ints("MPI_Type_create_darray_c", "a global size", ndims, array_of_gsizes, &g)))
        return err;
    err = PMPI_Type_create_darray(size, rank, ndims, g, array_of_distribs, array_of_dargs,
                                  array_of_psizes, order, oldtype, newtype);
    free(g);
    return err;
}
#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    static const char *const F = "MPI_Type_get_envelope_c";
    int ni, na, nd, err;
    if ((err = mp_dtarg_ptr(F, "num_integers", num_integers)) ||
        (err = mp_dtarg_ptr(F, "num_addresses", num_addresses)) ||
        (err = mp_dtarg_ptr(F, "num_large_counts", num_large_counts)) ||
        (err = mp_dtarg_ptr(F, "num_datatypes", num_datatypes)) ||
        (err = PMPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner)))
        return err;
    *num_integers = ni;
    *num_addresses = na;
    *num_large_counts = 0;
    *num_datatypes = nd;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    (void)max_large_counts;
    (void)array_of_large_counts;
    return PMPI_Type_get_contents(datatype, max_integers > INT_MAX ? INT_MAX : (int)max_integers,
                                  max_addresses > INT_MAX ? INT_MAX : (int)max_addresses,
                                  max_datatypes > INT_MAX ? INT_MAX : (int)max_datatypes,
                                  array_of_integers, array_of_addresses, array_of_datatypes);
}
#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c

/* ---------------------------------------------------------------------------------------------
 * MPI_Status_set_elements: the status stores bytes, so elements become count * size.
 * ------------------------------------------------------------------------------------------- */
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    static const char *const F = "MPI_Status_set_elements_x";
    mp_datatype *dt;
    int err;
    if ((err = mp_dtarg_ptr(F, "status", status)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, &dt)) ||
        (err = mp_dtarg_nonneg(F, "count", count)))
        return err;
    /* count is in basic elements; for a type of one basic type that is count * basic size */
    MPI_Count bytes = count * dt->size;
    if (dt->basic != MPI_DATATYPE_NULL) {
        mp_datatype *b = mp_datatype_get(dt->basic);
        if (b && b->size)
            bytes = count * b->size;
    }
    mp_status_set_bytes(status, bytes);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}
#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c

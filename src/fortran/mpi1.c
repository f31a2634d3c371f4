/* mpi1.c -- MPI-1 Fortran calls whose addresses are default INTEGERs, and MPI_BUFFER_DETACH.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI-1 gave Fortran addresses, extents and displacements as plain INTEGER (4 bytes) where C
 * has MPI_Aint (8 bytes): MPI_ADDRESS, MPI_TYPE_EXTENT/LB/UB, MPI_TYPE_HVECTOR,
 * MPI_TYPE_HINDEXED, MPI_TYPE_STRUCT.  Old codes still call them, so they are converted here
 * through their MPI-2 replacements.  A value that does not fit an INTEGER is reported as
 * MPI_ERR_VALUE_TOO_LARGE rather than silently truncated -- except for MPI_ADDRESS, whose
 * absolute addresses are meant to be used relative to MPI_BOTTOM and so are only usable when
 * they fit anyway (a program doing that on a 64-bit system is already wrong).
 *
 * MPI_BUFFER_DETACH returns the buffer address in C; in Fortran the argument is the buffer
 * itself, so the address is received in a local variable and dropped.
 */
#include "fortran/fortran.h"
#include "core/core.h"
#include <stdlib.h>

static int mp_f_fits(MPI_Aint v)
{
    return v >= -2147483647L - 1 && v <= 2147483647L;
}

static MPI_Fint mp_f_narrow(const char *func, MPI_Aint v, MPI_Fint *out)
{
    if (!mp_f_fits(v))
        return mp_error(NULL, MPI_ERR_VALUE_TOO_LARGE, func,
                        "value %ld does not fit a default INTEGER; use the MPI-2 call", (long)v);
    *out = (MPI_Fint)v;
    return MPI_SUCCESS;
}

void mp_f_address(void *location, MPI_Fint *address, MPI_Fint *ierror);
void mp_f_address(void *location, MPI_Fint *address, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    int err = PMPI_Get_address(mp_f_buf(location), &a);
    if (err == MPI_SUCCESS) *address = (MPI_Fint)a;
    *ierror = err;
}
MP_F_EXPORT(mp_f_address, "address", "ADDRESS")

void mp_f_type_extent(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror);
void mp_f_type_extent(MPI_Fint *datatype, MPI_Fint *extent, MPI_Fint *ierror)
{
    MPI_Aint lb = 0, ext = 0;
    int err = PMPI_Type_get_extent(*datatype, &lb, &ext);
    *ierror = err == MPI_SUCCESS ? mp_f_narrow("MPI_TYPE_EXTENT", ext, extent) : err;
}
MP_F_EXPORT(mp_f_type_extent, "type_extent", "TYPE_EXTENT")

void mp_f_type_lb(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror);
void mp_f_type_lb(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    MPI_Aint lb = 0, ext = 0;
    int err = PMPI_Type_get_extent(*datatype, &lb, &ext);
    *ierror = err == MPI_SUCCESS ? mp_f_narrow("MPI_TYPE_LB", lb, displacement) : err;
}
MP_F_EXPORT(mp_f_type_lb, "type_lb", "TYPE_LB")

void mp_f_type_ub(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror);
void mp_f_type_ub(MPI_Fint *datatype, MPI_Fint *displacement, MPI_Fint *ierror)
{
    MPI_Aint lb = 0, ext = 0;
    int err = PMPI_Type_get_extent(*datatype, &lb, &ext);
    *ierror = err == MPI_SUCCESS ? mp_f_narrow("MPI_TYPE_UB", lb + ext, displacement) : err;
}
MP_F_EXPORT(mp_f_type_ub, "type_ub", "TYPE_UB")

void mp_f_type_hvector(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                       MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror);
void mp_f_type_hvector(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                       MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    *ierror = PMPI_Type_create_hvector(*count, *blocklength, (MPI_Aint)*stride, *oldtype,
                                       (MPI_Datatype *)newtype);
}
MP_F_EXPORT(mp_f_type_hvector, "type_hvector", "TYPE_HVECTOR")

/* Widens n INTEGER displacements; returns a malloc'd array. */
static MPI_Aint *mp_f_widen(const MPI_Fint *d, int n)
{
    MPI_Aint *w = mp_malloc(sizeof(MPI_Aint) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) w[i] = d[i];
    return w;
}

void mp_f_type_hindexed(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                        MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror);
void mp_f_type_hindexed(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                        MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    MPI_Aint *d = mp_f_widen(displacements, *count);
    *ierror = PMPI_Type_create_hindexed(*count, blocklengths, d, *oldtype,
                                        (MPI_Datatype *)newtype);
    free(d);
}
MP_F_EXPORT(mp_f_type_hindexed, "type_hindexed", "TYPE_HINDEXED")

void mp_f_type_struct(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                      MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierror);
void mp_f_type_struct(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                      MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierror)
{
    MPI_Aint *d = mp_f_widen(displacements, *count);
    *ierror = PMPI_Type_create_struct(*count, blocklengths, d, (MPI_Datatype *)types,
                                      (MPI_Datatype *)newtype);
    free(d);
}
MP_F_EXPORT(mp_f_type_struct, "type_struct", "TYPE_STRUCT")

void mp_f_buffer_detach(void *buffer, MPI_Fint *size, MPI_Fint *ierror);
void mp_f_buffer_detach(void *buffer, MPI_Fint *size, MPI_Fint *ierror)
{
    void *addr = NULL;
    (void)buffer;
    *ierror = PMPI_Buffer_detach(&addr, size);
}
MP_F_EXPORT(mp_f_buffer_detach, "buffer_detach", "BUFFER_DETACH")

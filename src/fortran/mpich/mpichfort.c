/* mpichfort.c -- libmpichfort.so.12, the Fortran library MPICH-built programs load, served by MemPI.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Debian's mpif77.mpich and mpif90.mpich link a program against libmpichfort.so.12 (MPICH's
 * Fortran bindings) and libmpich.so.12.  Run with MemPI's lib/ on LD_LIBRARY_PATH, the second
 * is MemPI's libmpi; the first would be MPICH's own, which calls MPICH internals
 * (MPII_Comm_get_attr, MPII_Keyval_set_proxy, MPII_Grequest_set_lang_f77, ...) that MemPI does
 * not have, so the program died at its first attribute call.  This library takes its place.
 *
 * It carries no bindings: libmpi.so.12 (which it depends on) already has every Fortran entry
 * point under the names MPICH's mpif.h and `use mpi` compile into programs (mpi_send_,
 * mpi_comm_get_attr_, ..., the predefined callbacks such as mpi_comm_dup_fn_), and MPICH's
 * common blocks for MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and the other sentinels
 * (src/fortran/sentinels.c), so the dynamic loader binds a program's calls there.  What it
 * adds is what MPICH's `mpi` module compiles into programs and libmpi has no reason to
 * export: the specific procedures behind the generic MPI_SIZEOF, which live in MPICH's module
 * mpi_sizeofs (gfortran's names __mpi_sizeofs_MOD_mpi_sizeof_<kind>[v]; v takes an array).
 * Each sets SIZE to the bytes of one element of its type, as MPICH's do (for CHARACTER, 1
 * whatever the length), and IERROR to MPI_SUCCESS.
 *
 * Not served: MPICH's mpi_f08 module, whose programs call procedures of MPICH's own Fortran
 * library (MemPI's mpi_f08 is another module, built for mpifort); a program built with
 * mpif90.mpich and `use mpi_f08` fails to load, and the loader names the first missing
 * symbol.  It is not part of libmpi (the build compiles src/fortran/mpich/ on its own,
 * mk/mpichfort.mk).
 */
#include <mpi.h>

#define MP_MPICH_SIZEOF(kind, bytes)                                                           \
    void mp_mpich_sizeof_##kind(const void *x, MPI_Fint *size, MPI_Fint *ierror)               \
        __asm__("__mpi_sizeofs_MOD_mpi_sizeof_" #kind) __attribute__((visibility("default")));   \
    void mp_mpich_sizeof_##kind(const void *x, MPI_Fint *size, MPI_Fint *ierror)               \
    {                                                                                          \
        (void)x;                                                                               \
        *size = (bytes);                                                                       \
        *ierror = MPI_SUCCESS;                                                                 \
    }

/* Scalar and array forms of every type MPICH's module covers. */
#define MP_MPICH_SIZEOF2(kind, bytes) MP_MPICH_SIZEOF(kind, bytes) MP_MPICH_SIZEOF(kind##v, bytes)
MP_MPICH_SIZEOF2(ch, 1)           /* CHARACTER */
MP_MPICH_SIZEOF2(l, 4)            /* LOGICAL */
MP_MPICH_SIZEOF2(i, 4)            /* INTEGER */
MP_MPICH_SIZEOF2(i1, 1)           /* INTEGER(KIND=1) */
MP_MPICH_SIZEOF2(i2, 2)           /* INTEGER(KIND=2) */
MP_MPICH_SIZEOF2(i8, 8)           /* INTEGER(KIND=8) */
MP_MPICH_SIZEOF2(r, 4)            /* REAL */
MP_MPICH_SIZEOF2(d, 8)            /* DOUBLE PRECISION */
MP_MPICH_SIZEOF2(cx, 8)           /* COMPLEX */

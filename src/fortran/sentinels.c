/* sentinels.c -- the common blocks behind MPI_BOTTOM, MPI_IN_PLACE and the other Fortran sentinels.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * In Fortran the sentinels cannot be special values: MPI_BOTTOM is passed where a buffer
 * goes, MPI_STATUS_IGNORE where a status array goes.  So mpif.h declares each of them as a
 * variable in a common block of its own, and the entry points recognise them by address
 * (fortran.h).  The library owns the storage: these definitions have the size and alignment
 * gfortran gives the blocks, so whether the linker keeps the program's common symbol or this
 * definition, the program and the library see one object.  Default visibility keeps every
 * access in the library going through the GOT, which is what makes that true.
 *
 *   Fortran name          common block             C symbol
 *   MPI_BOTTOM            /mempif_bottom/          mempif_bottom_
 *   MPI_IN_PLACE          /mempif_in_place/        mempif_in_place_
 *   MPI_STATUS_IGNORE     /mempif_status_ignore/   mempif_status_ignore_    (5 INTEGERs)
 *   MPI_STATUSES_IGNORE   /mempif_statuses_ignore/ mempif_statuses_ignore_  (5 x 1 INTEGERs)
 *   MPI_ERRCODES_IGNORE   /mempif_errcodes_ignore/ mempif_errcodes_ignore_
 *   MPI_UNWEIGHTED        /mempif_unweighted/      mempif_unweighted_
 *   MPI_WEIGHTS_EMPTY     /mempif_weights_empty/   mempif_weights_empty_
 *   MPI_ARGV_NULL         /mempif_argv_null/       mempif_argv_null_        (CHARACTER*1 (1))
 *   MPI_ARGVS_NULL        /mempif_argvs_null/      mempif_argvs_null_       (CHARACTER*1 (1,1))
 *
 * C code that receives a Fortran status (MPI_Status_f2c) compares with MPI_F_STATUS_IGNORE
 * and MPI_F_STATUSES_IGNORE; a constructor points those at the Fortran objects here.
 */
#include "fortran/fortran.h"

MPI_Fint mempif_bottom_;
MPI_Fint mempif_in_place_;
MPI_Fint mempif_status_ignore_[MP_F_STATUS_SIZE];
MPI_Fint mempif_statuses_ignore_[MP_F_STATUS_SIZE];
MPI_Fint mempif_errcodes_ignore_;
MPI_Fint mempif_unweighted_;
MPI_Fint mempif_weights_empty_;
char mempif_argv_null_[1];
char mempif_argvs_null_[1];

__attribute__((constructor)) static void mp_f_sentinels_publish(void)
{
    MPI_F_STATUS_IGNORE = mempif_status_ignore_;
    MPI_F_STATUSES_IGNORE = mempif_statuses_ignore_;
}

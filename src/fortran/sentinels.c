/* sentinels.c -- the common blocks behind MPI_BOTTOM, MPI_IN_PLACE and the other Fortran sentinels.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * In Fortran the sentinels cannot be special values: MPI_BOTTOM is passed where a buffer
 * goes, MPI_STATUS_IGNORE where a status array goes.  So mpif.h declares them as variables in
 * common blocks, and the entry points recognise them by address (fortran.h).  The blocks are
 * MPICH's, member for member, so a Fortran program built with MPICH's mpif.h or `use mpi`
 * (mpif90.mpich) passes the addresses this library compares with, and runs on MemPI
 * unchanged.  The library owns the storage: these definitions have the sizes gfortran gives
 * the blocks, so whether the linker keeps the program's common symbol or this definition, the
 * program and the library see one object.  Default visibility keeps every access in the
 * library going through the GOT, which is what makes that true.
 *
 *   common block (C symbol)   members
 *   /MPIPRIV1/ (mpipriv1_)    MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(5)        28 bytes
 *   /MPIPRIV2/ (mpipriv2_)    MPI_STATUSES_IGNORE(5,1), MPI_ERRCODES_IGNORE(1)      24 bytes
 *   /MPIPRIVC/ (mpiprivc_)    MPI_ARGVS_NULL(1,1), MPI_ARGV_NULL(1)   CHARACTER*1    2 bytes
 *   /MPIFCMB5/ (mpifcmb5_)    MPI_UNWEIGHTED                                         4 bytes
 *   /MPIFCMB9/ (mpifcmb9_)    MPI_WEIGHTS_EMPTY                                      4 bytes
 *
 * C code that receives a Fortran status (MPI_Status_f2c) compares with MPI_F_STATUS_IGNORE
 * and MPI_F_STATUSES_IGNORE; a constructor points those at the Fortran objects here.
 */
#include "fortran/fortran.h"

_Static_assert(sizeof(mp_f_priv1) == 28 && sizeof(mp_f_priv2) == 24 && sizeof(mp_f_privc) == 2,
               "the common blocks must have MPICH's sizes");

mp_f_priv1 mpipriv1_;
mp_f_priv2 mpipriv2_;
mp_f_privc mpiprivc_;
MPI_Fint mpifcmb5_;
MPI_Fint mpifcmb9_;

__attribute__((constructor)) static void mp_f_sentinels_publish(void)
{
    MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
    MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;
}

! mpi.f90 -- the `use mpi` module.  MemPI, BSD-3-Clause (see LICENSE).
!
! The module is mpif.h in module form: the same constants, sentinels (common blocks the
! library recognises by address) and function types, compiled by mk/fortran.mk with the
! project's gfortran into build/include/mpi.mod, where mpifort's -I finds it.
!
! MPI procedures are left with implicit interfaces, as in mpif.h, so that choice buffers of
! any type, kind and rank are accepted the way legacy and NAS-style codes pass them.  The
! module therefore adds no checking over mpif.h; it exists so that `use mpi` programs build
! unchanged.
module mpi
  implicit none
  include 'mpif.h'
end module mpi

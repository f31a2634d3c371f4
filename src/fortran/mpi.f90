! mpi.f90 -- the `use mpi` module.  MemPI, BSD-3-Clause (see LICENSE).
!
! The module is mpif.h in module form: the same constants, sentinels (common blocks the
! library recognises by address) and function types, compiled by mk/fortran.mk with the
! project's gfortran into build/include/mpi.mod, where mpifort's -I finds it.
!
! MPI procedures have explicit interfaces (MPI 4.0 sec. 19.1.3), generated from mpi.h by
! tools/gen-fortran-f08 into mpi_interfaces.inc, included at the end: every argument is
! checked except choice buffers, which gfortran's NO_ARG_CHECK lets take any type, kind and
! rank the way legacy and NAS-style codes pass them (the generator says which few procedures
! stay implicit, and why).  The module adds MPI_SIZEOF, which needs a generic interface: one
! specific per intrinsic type and kind gfortran has (INTEGER 1-16, REAL and COMPLEX 4, 8, 16
! and the x87 kind 10, LOGICAL 1-16, CHARACTER kinds 1 and 4), so that it compiles for every
! variable a program can declare.  The file goes through the C preprocessor (-cpp) for one condition: kind 10
! exists only where gfortran defines __GFC_REAL_10__ (x86).
module mpi
  implicit none
  include 'mpif.h'

  ! MPI_SIZEOF(x, size, ierror): a generic over the intrinsic types; x may be a scalar or an
  ! array of any rank (assumed rank), and size is the bytes of one element (of one character
  ! for CHARACTER).  The specific procedures are in src/fortran/init.c.
  interface MPI_SIZEOF
    subroutine mempi_sizeof_i1(x, size, ierror)
      integer(kind=1), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_i1
    subroutine mempi_sizeof_i2(x, size, ierror)
      integer(kind=2), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_i2
    subroutine mempi_sizeof_i4(x, size, ierror)
      integer(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_i4
    subroutine mempi_sizeof_i8(x, size, ierror)
      integer(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_i8
    subroutine mempi_sizeof_i16(x, size, ierror)
      integer(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_i16
    subroutine mempi_sizeof_r4(x, size, ierror)
      real(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_r4
    subroutine mempi_sizeof_r8(x, size, ierror)
      real(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_r8
    subroutine mempi_sizeof_r16(x, size, ierror)
      real(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_r16
    subroutine mempi_sizeof_c4(x, size, ierror)
      complex(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_c4
    subroutine mempi_sizeof_c8(x, size, ierror)
      complex(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_c8
    subroutine mempi_sizeof_c16(x, size, ierror)
      complex(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_c16
#ifdef __GFC_REAL_10__
    subroutine mempi_sizeof_r10(x, size, ierror)
      real(kind=10), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_r10
    subroutine mempi_sizeof_c10(x, size, ierror)
      complex(kind=10), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_c10
#endif
    subroutine mempi_sizeof_l1(x, size, ierror)
      logical(kind=1), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_l1
    subroutine mempi_sizeof_l2(x, size, ierror)
      logical(kind=2), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_l2
    subroutine mempi_sizeof_l4(x, size, ierror)
      logical(kind=4), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_l4
    subroutine mempi_sizeof_l8(x, size, ierror)
      logical(kind=8), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_l8
    subroutine mempi_sizeof_l16(x, size, ierror)
      logical(kind=16), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_l16
    subroutine mempi_sizeof_ch1(x, size, ierror)
      character(kind=1, len=*), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_ch1
    subroutine mempi_sizeof_ch4(x, size, ierror)
      character(kind=4, len=*), dimension(..), intent(in) :: x
      integer, intent(out) :: size, ierror
    end subroutine mempi_sizeof_ch4
  end interface MPI_SIZEOF

  include 'mpi_interfaces.inc'
end module mpi

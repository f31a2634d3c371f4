! mempi-test: np=1 timeout=60
! f90_sizeof.f90 -- MPI_SIZEOF for every intrinsic type and kind of `use mpi`.  MemPI, BSD-3-Clause (see LICENSE).
!
! MPI_SIZEOF is a generic of the mpi module; a call with a type or kind it has no specific
! for does not compile, so this program (scalars and arrays of every INTEGER, REAL, COMPLEX,
! LOGICAL and CHARACTER kind gfortran has, the x87 REAL/COMPLEX kind included where it
! exists) failing to build is the failure.  The sizes must be the storage size of one
! element (of one character for CHARACTER).
program sizeof_all
  use mpi
  implicit none
  integer, parameter :: rx = selected_real_kind(18)   ! 10 on x86 (x87), else 16
  integer, parameter :: ucs4 = selected_char_kind('ISO_10646')
  integer(kind=1) :: i1, ai1(3)
  integer(kind=2) :: i2, ai2(2, 2)
  integer(kind=4) :: i4, ai4(4)
  integer(kind=8) :: i8, ai8(1, 1, 1)
  integer(kind=16) :: i16
  real(kind=4) :: r4, ar4(5)
  real(kind=8) :: r8, ar8(2)
  real(kind=rx) :: rxv, arx(2)
  real(kind=16) :: r16
  complex(kind=4) :: c4, ac4(2)
  complex(kind=8) :: c8
  complex(kind=rx) :: cx
  complex(kind=16) :: c16
  logical(kind=1) :: l1, al1(4)
  logical(kind=2) :: l2
  logical(kind=4) :: l4, al4(2)
  logical(kind=8) :: l8
  logical(kind=16) :: l16
  logical :: ld
  character :: ch, ach(3)
  character(len=10) :: str
  character(kind=ucs4) :: wc
  integer :: s, ierr, rank

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Sizeof(i1, s, ierr);  call expect(s, storage_size(i1) / 8, 'integer(1)')
  call MPI_Sizeof(ai1, s, ierr); call expect(s, 1, 'integer(1) array')
  call MPI_Sizeof(i2, s, ierr);  call expect(s, 2, 'integer(2)')
  call MPI_Sizeof(ai2, s, ierr); call expect(s, 2, 'integer(2) rank-2 array')
  call MPI_Sizeof(i4, s, ierr);  call expect(s, 4, 'integer(4)')
  call MPI_Sizeof(ai4, s, ierr); call expect(s, 4, 'integer(4) array')
  call MPI_Sizeof(i8, s, ierr);  call expect(s, 8, 'integer(8)')
  call MPI_Sizeof(ai8, s, ierr); call expect(s, 8, 'integer(8) rank-3 array')
  call MPI_Sizeof(i16, s, ierr); call expect(s, 16, 'integer(16)')
  call MPI_Sizeof(r4, s, ierr);  call expect(s, 4, 'real(4)')
  call MPI_Sizeof(ar4, s, ierr); call expect(s, 4, 'real(4) array')
  call MPI_Sizeof(r8, s, ierr);  call expect(s, 8, 'real(8)')
  call MPI_Sizeof(ar8, s, ierr); call expect(s, 8, 'real(8) array')
  call MPI_Sizeof(rxv, s, ierr); call expect(s, storage_size(rxv) / 8, 'real(rx)')
  call MPI_Sizeof(arx, s, ierr); call expect(s, storage_size(rxv) / 8, 'real(rx) array')
  call MPI_Sizeof(r16, s, ierr); call expect(s, 16, 'real(16)')
  call MPI_Sizeof(c4, s, ierr);  call expect(s, 8, 'complex(4)')
  call MPI_Sizeof(ac4, s, ierr); call expect(s, 8, 'complex(4) array')
  call MPI_Sizeof(c8, s, ierr);  call expect(s, 16, 'complex(8)')
  call MPI_Sizeof(cx, s, ierr);  call expect(s, storage_size(cx) / 8, 'complex(rx)')
  call MPI_Sizeof(c16, s, ierr); call expect(s, 32, 'complex(16)')
  call MPI_Sizeof(l1, s, ierr);  call expect(s, 1, 'logical(1)')
  call MPI_Sizeof(al1, s, ierr); call expect(s, 1, 'logical(1) array')
  call MPI_Sizeof(l2, s, ierr);  call expect(s, 2, 'logical(2)')
  call MPI_Sizeof(l4, s, ierr);  call expect(s, 4, 'logical(4)')
  call MPI_Sizeof(al4, s, ierr); call expect(s, 4, 'logical(4) array')
  call MPI_Sizeof(l8, s, ierr);  call expect(s, 8, 'logical(8)')
  call MPI_Sizeof(l16, s, ierr); call expect(s, 16, 'logical(16)')
  call MPI_Sizeof(ld, s, ierr);  call expect(s, storage_size(ld) / 8, 'default logical')
  call MPI_Sizeof(ch, s, ierr);  call expect(s, 1, 'character')
  call MPI_Sizeof(ach, s, ierr); call expect(s, 1, 'character array')
  call MPI_Sizeof(str, s, ierr); call expect(s, 1, 'character(len=10), per character')
  call MPI_Sizeof(wc, s, ierr);  call expect(s, 4, 'character(kind=ISO_10646)')
  if (rank == 0) print *, 'f90_sizeof: OK'
  call MPI_Finalize(ierr)

contains

  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    integer :: e
    if (got /= want .or. ierr /= MPI_SUCCESS) then
       print *, 'MPI_SIZEOF(', what, ') =', got, ', want', want, ' ierr', ierr
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine expect
end program sizeof_all

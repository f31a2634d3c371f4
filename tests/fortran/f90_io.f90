! mempi-test: np=1,2 timeout=60
! f90_io.f90 -- MPI-IO from Fortran: file error handlers and MPI_REGISTER_DATAREP.  MemPI, BSD-3-Clause (see LICENSE).
!
! Two file error handlers are created; the one set on the file must be the one called, with the
! code the failing call returns (the Fortran file handle passes through the library's caller).
! A representation registered from Fortran without conversion functions is usable in a view,
! and its Fortran extent function (EXTRA_STATE by reference) answers MPI_FILE_GET_TYPE_EXTENT.
! Each rank's file is its own (MPI_COMM_SELF), removed at close (MPI_MODE_DELETE_ON_CLOSE).
program f90_io
  use mpi
  implicit none
  integer :: ierr, fh, eh, eh2, rank
  integer(kind=MPI_ADDRESS_KIND) :: extra, ext
  integer :: calls, lastcode
  character(len=64) :: fname
  common /cnt/ calls, lastcode
  external handler, handler2, extfn
  calls = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write (fname, '(a,i0,a,i0)') '/tmp/mempi-f90-io-', getpid(), '-', rank
  call MPI_File_create_errhandler(handler, eh, ierr)
  call MPI_File_create_errhandler(handler2, eh2, ierr)
  call MPI_File_open(MPI_COMM_SELF, trim(fname), &
       MPI_MODE_RDWR + MPI_MODE_CREATE + MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
  call MPI_File_set_errhandler(fh, eh, ierr)
  call MPI_File_seek(fh, -5_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  if (calls /= 1 .or. lastcode /= ierr .or. ierr == 0) stop 'handler 1 not called'
  extra = 3
  call register(extfn, extra, ierr)
  if (ierr /= 0) stop 'register failed'
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, &
       'f-rep', MPI_INFO_NULL, ierr)
  if (ierr /= 0) stop 'set_view failed'
  call MPI_File_get_type_extent(fh, MPI_INTEGER, ext, ierr)
  if (ext /= 12) stop 'extent from the Fortran function wrong'
  call MPI_File_close(fh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Errhandler_free(eh2, ierr)
  if (rank == 0) print *, 'fortran io ok'
  call MPI_Finalize(ierr)
end program f90_io
subroutine handler(f, code)
  integer :: f, code, calls, lastcode
  common /cnt/ calls, lastcode
  calls = calls + 1
  lastcode = code
end subroutine
subroutine handler2(f, code)
  integer :: f, code
  stop 'wrong handler'
end subroutine
subroutine extfn(dt, ext, extra, ierr)
  use mpi
  integer :: dt, ierr
  integer(kind=MPI_ADDRESS_KIND) :: ext, extra
  ext = 4 * extra
  ierr = 0
end subroutine
! mpif.h, not the module: MPICH's mpi module does not declare MPI_CONVERSION_FN_NULL
subroutine register(extfn, extra, ierr)
  implicit none
  include 'mpif.h'
  external extfn
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  call MPI_Register_datarep('f-rep', MPI_CONVERSION_FN_NULL, &
       MPI_CONVERSION_FN_NULL, extfn, extra, ierr)
end subroutine

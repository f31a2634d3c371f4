! mempi-test: np=1,2,3,5 timeout=90
! f08_more.f90 -- I/O, one-sided, completion and datatypes through `use mpi_f08`.  MemPI, BSD-3-Clause (see LICENSE).
!
! MPI-IO with TYPE(MPI_File): a shared file written by every rank at its own offset
! (INTEGER(MPI_OFFSET_KIND)) and read back by the next rank, with a Fortran file error
! handler and a representation registered with a Fortran extent function; one-sided Put and
! Get under fences on a window of an array; Waitsome/Testsome with 1-based indices;
! MPI_ERR_IN_STATUS with per-request MPI_ERROR from Waitall; Type_create_struct with
! INTEGER(MPI_ADDRESS_KIND) displacements from MPI_Get_address; Pack/Unpack; MPI_F_sync_reg; MPI_Sizeof;
! Type_get_name on a predefined handle constant.
module f08_more_cb
  use mpi_f08
  implicit none
  integer :: file_errors = 0
contains
  subroutine on_file_error(file, error_code)
    type(MPI_File) :: file
    integer :: error_code
    file_errors = file_errors + 1
  end subroutine on_file_error
  subroutine extent_fn(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    extent = 4 * extra_state
    ierror = MPI_SUCCESS
  end subroutine extent_fn
end module f08_more_cb

program f08_more
  use mpi_f08
  use f08_more_cb
  implicit none
  integer :: ierr, rank, nprocs, i, fails, left, right, outcount, sz, position, n
  integer :: wbuf(10), rbuf(10), winbuf(8), got(8), idx(4), packed(40), ints(3)
  double precision :: d
  type(MPI_File) :: fh
  type(MPI_Errhandler) :: eh
  type(MPI_Win) :: win
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: statuses(4), status
  type(MPI_Datatype) :: st, types(2)
  integer(kind=MPI_OFFSET_KIND) :: offset
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp(2), base, ext
  integer :: blens(2)
  character(len=64) :: fname
  character(len=MPI_MAX_OBJECT_NAME) :: tname

  fails = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)

  ! MPI-IO: each rank writes 10 integers at its offset; the next rank reads them back.
  fname = '/tmp/mempi-f08-more'
  if (rank == 0) write (fname, '(a,i0)') '/tmp/mempi-f08-more-', getpid()
  call MPI_Bcast(fname, 64, MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, trim(fname), MPI_MODE_RDWR + MPI_MODE_CREATE, &
                     MPI_INFO_NULL, fh)
  call check(fh /= MPI_FILE_NULL, 'File_open')
  call MPI_File_create_errhandler(on_file_error, eh)
  call MPI_File_set_errhandler(fh, eh)
  call MPI_File_seek(fh, -5_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  call check(ierr /= MPI_SUCCESS .and. file_errors == 1, 'Fortran file error handler')
  wbuf = [(rank * 10 + i, i = 1, 10)]
  offset = rank * 40
  call MPI_File_write_at(fh, offset, wbuf, 10, MPI_INTEGER, status)
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 10, 'File_write_at status')
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  rbuf = -1
  call MPI_File_read_at(fh, int(left, MPI_OFFSET_KIND) * 40, rbuf, 10, MPI_INTEGER, MPI_STATUS_IGNORE)
  call check(all(rbuf == [(left * 10 + i, i = 1, 10)]), 'File_read_at data')
  call MPI_File_close(fh)
  call check(fh == MPI_FILE_NULL, 'File_close')
  call MPI_Errhandler_free(eh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(trim(fname), MPI_INFO_NULL)
  call MPI_Register_datarep('f08-rep', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                            extent_fn, 3_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'Register_datarep')

  ! One-sided: Put to the right, Get from the left, under fences.
  winbuf = -1
  winsize = 8 * 4
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  wbuf(1:4) = [(rank * 100 + i, i = 1, 4)]
  call MPI_Put(wbuf, 4, MPI_INTEGER, right, 2_MPI_ADDRESS_KIND, 4, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(winbuf(3:6) == [(left * 100 + i, i = 1, 4)]) .and. winbuf(1) == -1, 'Put data')
  got = -2
  call MPI_Get(got, 2, MPI_INTEGER, left, 2_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(all(got(1:2) == [(mod(left - 1 + nprocs, nprocs) * 100 + i, i = 1, 2)]), 'Get data')
  call MPI_Win_free(win)
  call check(win == MPI_WIN_NULL, 'Win_free')

  ! Waitsome and Testsome: 1-based indices.
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(1))
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(3))
  reqs(4) = MPI_REQUEST_NULL
  outcount = 0
  n = 0
  do while (n < 2)
    call MPI_Waitsome(4, reqs, outcount, idx, statuses)
    call check(outcount >= 1, 'Waitsome outcount')
    do i = 1, outcount
      call check(idx(i) == 1 .or. idx(i) == 3, 'Waitsome index is 1-based')
      call check(statuses(i)%MPI_SOURCE == MPI_PROC_NULL, 'Waitsome status')
    end do
    n = n + outcount
  end do
  call MPI_Testsome(4, reqs, outcount, idx, statuses)
  call check(outcount == MPI_UNDEFINED, 'Testsome with no active request')

  ! MPI_ERR_IN_STATUS: a truncated receive among two.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, right, 11, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(rbuf(5), 5, MPI_INTEGER, right, 12, MPI_COMM_WORLD, reqs(2))
  call MPI_Send(wbuf, 3, MPI_INTEGER, left, 11, MPI_COMM_WORLD)
  call MPI_Send(wbuf, 3, MPI_INTEGER, left, 12, MPI_COMM_WORLD)
  statuses%MPI_ERROR = -7
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(ierr == MPI_ERR_IN_STATUS, 'Waitall: MPI_ERR_IN_STATUS')
  call MPI_Error_class(statuses(1)%MPI_ERROR, n)
  call check(n == MPI_ERR_TRUNCATE, 'truncated request status')
  call check(statuses(2)%MPI_ERROR == MPI_SUCCESS, 'good request status')

  ! A struct datatype from MPI_Get_address displacements.
  call MPI_Get_address(ints, base)
  call MPI_Get_address(d, disp(2))
  disp(1) = 0
  disp(2) = MPI_Aint_diff(disp(2), base)
  blens = [3, 1]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blens, disp, types, st)
  call MPI_Type_commit(st)
  call MPI_Type_size(st, sz)
  call check(sz == 3 * 4 + 8, 'struct size')
  ints = [rank, rank + 1, rank + 2]
  d = rank * 0.5d0
  call MPI_Sendrecv_replace(ints, 1, st, right, 13, left, 13, MPI_COMM_WORLD, status)
  call MPI_F_sync_reg(d)          ! d changed behind the compiler's back, through the datatype
  call check(all(ints == [left, left + 1, left + 2]) .and. d == left * 0.5d0, 'struct data')
  call MPI_Type_free(st)

  ! Pack and Unpack.
  position = 0
  wbuf(1:3) = [7, 8, 9]
  call MPI_Pack(wbuf, 3, MPI_INTEGER, packed, 160, position, MPI_COMM_WORLD)
  call check(position == 12, 'Pack position')
  position = 0
  rbuf = 0
  call MPI_Unpack(packed, 160, position, rbuf, 3, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(rbuf(1:3) == [7, 8, 9]), 'Unpack data')

  ! MPI_Sizeof and names.
  call MPI_Sizeof(d, sz)
  call check(sz == 8, 'MPI_Sizeof double')
  call MPI_Sizeof(ints, sz, ierr)
  call check(sz == 4 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof integer array')
  call MPI_Type_get_name(MPI_DOUBLE_PRECISION, tname, n)
  call check(tname == 'MPI_DOUBLE_PRECISION', 'Type_get_name')
  call MPI_Type_get_extent(MPI_INTEGER, base, ext)
  call check(ext == 4, 'Type_get_extent')

  call finish('f08_more')
contains
  include 'f08_check.inc'
end program f08_more

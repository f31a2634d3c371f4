! mempi-test: np=2,3,4 timeout=60
! f90_types.f90 -- derived datatypes from Fortran.  MemPI, BSD-3-Clause (see LICENSE).
!
! A column and a row of a 2-D array (contiguous and vector types), an indexed type, a struct
! built from MPI_GET_ADDRESS displacements and sent relative to MPI_BOTTOM, TYPE_SIZE and
! TYPE_GET_EXTENT with INTEGER(KIND=MPI_ADDRESS_KIND), and the MPI-1 calls with INTEGER
! addresses (MPI_ADDRESS, MPI_TYPE_EXTENT, MPI_TYPE_STRUCT).
program f90types
  use mpi
  implicit none
  integer, parameter :: n = 6
  integer :: ierr, rank, nprocs, i, j, peer, tcol, trow, tidx, tstruct, tstruct1, sz, ext1
  double precision :: a(n, n), b(n, n)
  integer :: status(MPI_STATUS_SIZE), count
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, addr(3), base
  integer :: blens(3), types(3), idisp(3), iaddr(3)
  integer :: ival
  double precision :: dval(2)
  character(len=4) :: cval
  ! Written by MPI through addresses the compiler cannot see (MPI_BOTTOM, struct
  ! displacements): VOLATILE keeps the optimiser from assuming they did not change.
  integer, volatile :: ival2
  double precision, volatile :: dval2(2)
  character(len=4), volatile :: cval2

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  peer = ieor(rank, 1)
  if (peer >= nprocs) peer = MPI_PROC_NULL

  do j = 1, n
    do i = 1, n
      a(i, j) = rank * 1000 + i * 10 + j
    end do
  end do

  ! Column (contiguous in Fortran) and row (stride n).
  call MPI_Type_contiguous(n, MPI_DOUBLE_PRECISION, tcol, ierr)
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, trow, ierr)
  call MPI_Type_commit(tcol, ierr)
  call MPI_Type_commit(trow, ierr)
  call MPI_Type_size(trow, sz, ierr)
  call check(sz == 8 * n, 'type_size row')
  call MPI_Type_get_extent(trow, lb, extent, ierr)
  call check(lb == 0 .and. extent == 8 * ((n - 1) * n + 1), 'row extent')

  b = -1
  ! send my row 2 into the peer's column 3, and my column 4 into the peer's row 5
  call MPI_Sendrecv(a(2, 1), 1, trow, peer, 1, b(1, 3), 1, tcol, peer, 1, &
                    MPI_COMM_WORLD, status, ierr)
  if (peer /= MPI_PROC_NULL) then
    call MPI_Get_count(status, tcol, count, ierr)
    call check(count == 1, 'get_count derived')
    call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count, ierr)
    call check(count == n, 'get_count basic')
    do i = 1, n
      call check(b(i, 3) == peer * 1000 + 2 * 10 + i, 'row -> column')
    end do
  end if
  call MPI_Sendrecv(a(1, 4), 1, tcol, peer, 2, b(5, 1), 1, trow, peer, 2, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (peer /= MPI_PROC_NULL) then
    do j = 1, n
      call check(b(5, j) == peer * 1000 + j * 10 + 4, 'column -> row')
    end do
  end if

  ! Indexed: the diagonal.
  blens = 1
  call MPI_Type_indexed(3, blens, [0, n + 1, 2 * (n + 1)], MPI_DOUBLE_PRECISION, tidx, ierr)
  call MPI_Type_commit(tidx, ierr)
  b = -1
  call MPI_Sendrecv(a, 1, tidx, peer, 3, b, 1, tidx, peer, 3, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  if (peer /= MPI_PROC_NULL) then
    do i = 1, 3
      call check(b(i, i) == peer * 1000 + i * 11, 'indexed diagonal')
    end do
    call check(b(2, 1) == -1, 'indexed gap untouched')
  end if

  ! Struct with absolute addresses, sent from MPI_BOTTOM.
  ival = 42 + rank
  dval = [1.5d0 * rank, -2d0]
  cval = 'ab' // achar(iachar('0') + mod(rank, 10)) // 'z'
  call MPI_Get_address(ival, addr(1), ierr)
  call MPI_Get_address(dval, addr(2), ierr)
  call MPI_Get_address(cval, addr(3), ierr)
  blens = [1, 2, 4]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_CHARACTER]
  call MPI_Type_create_struct(3, blens, addr, types, tstruct, ierr)
  call MPI_Type_commit(tstruct, ierr)
  call MPI_Get_address(ival2, addr(1), ierr)
  call MPI_Get_address(dval2, addr(2), ierr)
  call MPI_Get_address(cval2, addr(3), ierr)
  call MPI_Type_create_struct(3, blens, addr, types, tstruct1, ierr)
  call MPI_Type_commit(tstruct1, ierr)
  ival2 = -1
  cval2 = '????'
  call MPI_Sendrecv(MPI_BOTTOM, 1, tstruct, peer, 4, MPI_BOTTOM, 1, tstruct1, peer, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (peer /= MPI_PROC_NULL) then
    call check(ival2 == 42 + peer, 'struct int')
    call check(dval2(1) == 1.5d0 * peer .and. dval2(2) == -2d0, 'struct double')
    call check(cval2 == 'ab' // achar(iachar('0') + mod(peer, 10)) // 'z', 'struct char')
  end if
  call MPI_Type_free(tstruct, ierr)
  call MPI_Type_free(tstruct1, ierr)
  call check(tstruct == MPI_DATATYPE_NULL, 'type_free sets null')

  ! MPI-1: INTEGER displacements relative to a base address.
  call MPI_Address(ival, iaddr(1), ierr)
  call MPI_Address(dval, iaddr(2), ierr)
  call MPI_Address(cval, iaddr(3), ierr)
  call MPI_Get_address(ival, base, ierr)
  call check(int(base) == iaddr(1), 'mpi_address matches get_address')
  idisp = iaddr - iaddr(1)
  call MPI_Type_struct(3, blens, idisp, types, tstruct, ierr)
  call MPI_Type_commit(tstruct, ierr)
  call MPI_Type_extent(tstruct, ext1, ierr)
  call check(ext1 >= idisp(3) + 4 .or. ext1 >= idisp(2) + 16, 'mpi-1 extent')
  call MPI_Address(ival2, iaddr(1), ierr)
  call MPI_Address(dval2, iaddr(2), ierr)
  call MPI_Address(cval2, iaddr(3), ierr)
  idisp = iaddr - iaddr(1)
  call MPI_Type_struct(3, blens, idisp, types, tstruct1, ierr)
  call MPI_Type_commit(tstruct1, ierr)
  ival2 = -1
  dval2 = 0
  cval2 = '????'
  call MPI_Sendrecv(ival, 1, tstruct, peer, 5, ival2, 1, tstruct1, peer, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (peer /= MPI_PROC_NULL) then
    call check(ival2 == 42 + peer, 'mpi-1 struct int')
    call check(dval2(1) == 1.5d0 * peer, 'mpi-1 struct double')
    call check(cval2(4:4) == 'z', 'mpi-1 struct char')
  end if
  call MPI_Type_free(tstruct, ierr)
  call MPI_Type_free(tstruct1, ierr)

  call MPI_Type_free(tcol, ierr)
  call MPI_Type_free(trow, ierr)
  call MPI_Type_free(tidx, ierr)
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print *, 'rank', rank, 'FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
      stop 1
    end if
  end subroutine check

end program f90types

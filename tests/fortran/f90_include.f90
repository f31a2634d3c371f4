! mempi-test: np=1,2,3,4 timeout=60
! f90_include.f90 -- free-form source with include 'mpif.h': sentinels, user ops, ABI values.  MemPI, BSD-3-Clause (see LICENSE).
!
! mpif.h must also be valid free-form source.  Checks a few constants against the MPICH ABI
! numbers, MPI_IN_PLACE in gather/scatter/alltoall, MPI_STATUS_IGNORE in WAIT, a
! user-defined reduction written in Fortran (MPI_OP_CREATE with a LOGICAL commute flag and
! MPI_OP_COMMUTATIVE), MPI_UNWEIGHTED in a distributed graph, and MPI_TYPE_MATCH_SIZE.
program f90include
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, i, j, op, g, indeg, outdeg
  integer :: req(2), srcs(1), dsts(1)
  integer, allocatable :: all(:)
  double precision :: v(3), w(3)
  logical :: commute, weighted
  integer :: tsize, t8
  external :: absmax

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! ABI values (MPICH numbering).
  call check(MPI_COMM_WORLD == 1140850688 .and. MPI_COMM_SELF == 1140850689, 'comm handles')
  call check(MPI_INTEGER == 1275069467 .and. MPI_DOUBLE_PRECISION == 1275070495, 'int/dp')
  call check(MPI_REAL == 1275069468 .and. MPI_COMPLEX == 1275070494, 'real/complex')
  call check(MPI_DOUBLE_COMPLEX == 1275072546 .and. MPI_LOGICAL == 1275069469, 'dc/logical')
  call check(MPI_CHARACTER == 1275068698 .and. MPI_2INTEGER == 1275070496, 'char/2int')
  call check(MPI_2DOUBLE_PRECISION == 1275072547 .and. MPI_INTEGER8 == 1275070513, '2dp/i8')
  call check(MPI_REAL8 == 1275070505 .and. MPI_SUM == 1476395011, 'real8/sum')
  call check(MPI_STATUS_SIZE == 5 .and. MPI_SOURCE == 3 .and. MPI_TAG == 4 .and. &
             MPI_ERROR == 5, 'status layout')
  call check(MPI_ANY_SOURCE == -2 .and. MPI_PROC_NULL == -1 .and. MPI_UNDEFINED == -32766, &
             'sentinel values')
  call check(MPI_ADDRESS_KIND == 8 .and. MPI_OFFSET_KIND == 8, 'kinds')

  ! MPI_IN_PLACE at the root of gather and scatter, and in alltoall.
  allocate(all(nprocs))
  all = -1
  all(rank + 1) = rank * rank
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    do i = 1, nprocs
      call check(all(i) == (i - 1) ** 2, 'gather in_place')
    end do
    all = [(10 * i, i = 1, nprocs)]
    call MPI_Scatter(all, 1, MPI_INTEGER, MPI_IN_PLACE, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all(1) == 10, 'scatter in_place root keeps its part')
  else
    call MPI_Gather(all(rank + 1), 1, MPI_INTEGER, i, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Scatter(i, 1, MPI_INTEGER, j, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(j == 10 * (rank + 1), 'scatter')
  end if
  all = [(rank * 100 + i, i = 0, nprocs - 1)]
  call MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    call check(all(i + 1) == i * 100 + rank, 'alltoall in_place')
  end do

  ! A reduction written in Fortran: element-wise maximum of absolute values.
  call MPI_Op_create(absmax, .true., op, ierr)
  call MPI_Op_commutative(op, commute, ierr)
  call check(commute, 'op_commutative')
  v = [dble(rank), -dble(2 * rank), 0.5d0]
  call MPI_Allreduce(v, w, 3, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
  call check(w(1) == nprocs - 1 .and. w(2) == 2 * (nprocs - 1) .and. w(3) == 0.5d0, 'user op')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'op_free')

  ! MPI_STATUS_IGNORE in WAIT.
  call MPI_Irecv(i, 1, MPI_INTEGER, rank, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank + 7, 1, MPI_INTEGER, rank, 2, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
  call check(i == rank + 7 .and. req(1) == MPI_REQUEST_NULL, 'wait status_ignore')

  ! A ring as a distributed graph without weights.
  srcs(1) = mod(rank - 1 + nprocs, nprocs)
  dsts(1) = mod(rank + 1, nprocs)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., g, ierr)
  call check(ierr == MPI_SUCCESS, 'dist_graph_create_adjacent')
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
  call check(indeg == 1 .and. outdeg == 1 .and. .not. weighted, 'dist graph unweighted')
  call MPI_Comm_free(g, ierr)

  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, t8, ierr)
  call MPI_Type_size(t8, tsize, ierr)
  call check(tsize == 8, 'type_match_size')

  deallocate(all)
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

end program f90include

subroutine absmax(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  double precision :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine absmax

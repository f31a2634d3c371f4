! mempi-test: np=1,2,3,5 timeout=90
! f08_coll_sections.f90 -- collectives and array sections through `use mpi_f08`.  MemPI, BSD-3-Clause (see LICENSE).
!
! Collectives with TYPE(*), DIMENSION(..) buffers of several ranks and types: Bcast of a 2-D
! array, Allreduce (also MPI_IN_PLACE), Reduce with MAXLOC on MPI_2DOUBLE_PRECISION,
! Gather/Scatter, Allgatherv, Alltoall, Scan, and a large-count Bcast.  Then noncontiguous
! array sections (MPI_SUBARRAYS_SUPPORTED is .FALSE.): a strided section sent by MPI_Send
! and received into a strided section of a 2-D array (a row), a section reduced with
! Allreduce, both arriving in array element order; and a strided section given to MPI_Isend,
! which must be refused with MPI_ERR_BUFFER (under MPI_ERRORS_RETURN) without touching the
! data, since the call returns before the data moves.
program f08_coll_sections
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, i, j, fails, root, left, right, cls
  integer :: m(4, 3), v(20), w(20), grid(5, 6), counts(64), displs(64)
  integer, allocatable :: gat(:), a2a(:), b2a(:), gv(:)
  double precision :: pair(2, 2), pout(2, 2)
  integer(kind=MPI_COUNT_KIND) :: bigcount
  type(MPI_Status) :: status
  type(MPI_Request) :: req
  logical :: l(2), lout(2)

  fails = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  call check(.not. MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED is .FALSE.')

  ! Bcast of a 2-D array from every root.
  do root = 0, nprocs - 1
    m = -1
    if (rank == root) m = reshape([(root * 100 + i, i = 1, 12)], [4, 3])
    call MPI_Bcast(m, 12, MPI_INTEGER, root, MPI_COMM_WORLD)
    call check(all(m == reshape([(root * 100 + i, i = 1, 12)], [4, 3])), 'Bcast 2-D')
  end do
  ! Large-count Bcast through the generic.
  bigcount = 12
  m = merge(7, -1, rank == 0)
  call MPI_Bcast(m, bigcount, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(m == 7), 'Bcast_c')

  ! Allreduce, with and without MPI_IN_PLACE; LOGICAL reduction.
  v = [(rank + i, i = 1, 20)]
  call MPI_Allreduce(v, w, 20, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(w == [(nprocs * (nprocs - 1) / 2 + nprocs * i, i = 1, 20)]), 'Allreduce')
  call MPI_Allreduce(MPI_IN_PLACE, v, 20, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(v == [(nprocs - 1 + i, i = 1, 20)]), 'Allreduce IN_PLACE')
  l = [rank == 0, .true.]
  call MPI_Allreduce(l, lout, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(lout(1) .eqv. (nprocs == 1) .and. lout(2), 'LAND')

  ! MAXLOC: value and owner.
  pair(1, :) = [dble(mod(rank * 7, nprocs)), dble(-rank)]
  pair(2, :) = [dble(rank), dble(rank)]
  call MPI_Reduce(pair, pout, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call check(pout(1, 2) == 0d0 .and. pout(2, 2) == 0d0, 'MAXLOC second pair')
    call check(pout(1, 1) == dble(maxval([(mod(i * 7, nprocs), i = 0, nprocs - 1)])), 'MAXLOC value')
  end if

  ! Gather, Scatter, Allgatherv, Alltoall, Scan.
  allocate(gat(nprocs), a2a(nprocs), b2a(nprocs), gv(nprocs * (nprocs + 1) / 2))
  call MPI_Gather(rank * 3, 1, MPI_INTEGER, gat, 1, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD)
  if (rank == nprocs - 1) call check(all(gat == [(i * 3, i = 0, nprocs - 1)]), 'Gather')
  gat = [(i * 5, i = 0, nprocs - 1)]
  j = -1
  call MPI_Scatter(gat, 1, MPI_INTEGER, j, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(j == rank * 5, 'Scatter')
  do i = 1, nprocs
    counts(i) = i
    displs(i) = (i - 1) * i / 2
  end do
  v(1:rank + 1) = rank
  call MPI_Allgatherv(v, rank + 1, MPI_INTEGER, gv, counts, displs, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all([(all(gv(displs(i) + 1:displs(i) + i) == i - 1), i = 1, nprocs)]), 'Allgatherv')
  a2a = [(rank * 100 + i, i = 0, nprocs - 1)]
  call MPI_Alltoall(a2a, 1, MPI_INTEGER, b2a, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(b2a == [(i * 100 + rank, i = 0, nprocs - 1)]), 'Alltoall')
  call MPI_Scan(rank + 1, j, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(j == (rank + 1) * (rank + 2) / 2, 'Scan')

  ! A strided section sent and received into a row of a 2-D array (both noncontiguous).
  v = [(rank * 100 + i, i = 1, 20)]
  grid = -1
  call MPI_Sendrecv(v(1:20:4), 5, MPI_INTEGER, right, 1, grid(:, 2), 5, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, status)
  call check(all(grid(:, 2) == [(left * 100 + i, i = 1, 20, 4)]), 'strided Sendrecv into column')
  call check(status%MPI_SOURCE == left, 'strided Sendrecv status')
  grid = -1
  if (nprocs > 1) then
    if (mod(rank, 2) == 0) then
      call MPI_Send(v(2:17:3), 6, MPI_INTEGER, right, 2, MPI_COMM_WORLD)
      call MPI_Recv(grid(2, :), 6, MPI_INTEGER, left, 2, MPI_COMM_WORLD, status)
    else
      call MPI_Recv(grid(2, :), 6, MPI_INTEGER, left, 2, MPI_COMM_WORLD, status)
      call MPI_Send(v(2:17:3), 6, MPI_INTEGER, right, 2, MPI_COMM_WORLD)
    end if
    call check(all(grid(2, :) == [(left * 100 + i, i = 2, 17, 3)]), 'strided Recv into a row')
    call check(all(grid(1, :) == -1) .and. all(grid(3:, :) == -1), 'row receive left the rest')
  end if
  ! Allreduce of a section into a section.
  w = 0
  call MPI_Allreduce(v(20:1:-2), w(1:20:2), 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(w(1:20:2) == [(nprocs * (nprocs - 1) / 2 * 100 + nprocs * i, i = 20, 1, -2)]), &
             'Allreduce of reversed section')
  call check(all(w(2:20:2) == 0), 'Allreduce section: gaps untouched')

  ! A nonblocking call cannot take a noncontiguous section.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Isend(v(1:20:2), 10, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req, ierr)
  call check(ierr /= MPI_SUCCESS, 'Isend of a section refused')
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_BUFFER, 'Isend of a section: MPI_ERR_BUFFER')
  call MPI_Isend(v(1:10), 10, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req, ierr)
  call check(ierr == MPI_SUCCESS, 'Isend of a contiguous section')
  call MPI_Recv(w, 20, MPI_INTEGER, left, 3, MPI_COMM_WORLD, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(w(1:10) == [(left * 100 + i, i = 1, 10)]), 'contiguous section data')

  call finish('f08_coll_sections')
contains
  include 'f08_check.inc'
end program f08_coll_sections

! mempi-test: np=1,2,3,4,6 timeout=90
! f90_coll.f90 -- free-form collectives through `use mpi`.  MemPI, BSD-3-Clause (see LICENSE).
!
! Broadcast, reduce and allreduce (also with MPI_IN_PLACE), MAXLOC on MPI_2DOUBLE_PRECISION,
! LOGICAL reductions on MPI_LOGICAL, DOUBLE COMPLEX sums, gather/scatter/allgather(v),
! alltoall(v), reduce_scatter_block, scan, and MPI_INTEGER8/MPI_REAL8 -- each checked against
! the value every rank can compute on its own.
program f90coll
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, j, root
  integer :: ibuf(10), iout(10)
  double precision :: d(4), dsum(4), pair(2, 3), pout(2, 3)
  double complex :: z(2), zs(2)
  logical :: l(2), lout(2)
  integer, allocatable :: gat(:), sc(:), counts(:), displs(:), a2a(:), b2a(:)
  integer, allocatable :: scounts(:), sdispls(:), rcounts(:), rdispls(:)
  integer(kind=8) :: i8, i8sum
  real(kind=8) :: r8(3)
  real :: r4(2), r4out(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! Broadcast from every root in turn.
  do root = 0, nprocs - 1
    ibuf = -1
    if (rank == root) ibuf = [(root * 100 + i, i = 1, 10)]
    call MPI_Bcast(ibuf, 10, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(all(ibuf == [(root * 100 + i, i = 1, 10)]), 'bcast')
  end do

  ! Reduce (sum) to the last rank, allreduce (max, min, prod).
  d = [(dble(rank + i), i = 1, 4)]
  dsum = 0
  call MPI_Reduce(d, dsum, 4, MPI_DOUBLE_PRECISION, MPI_SUM, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (rank == nprocs - 1) then
    do i = 1, 4
      call check(dsum(i) == dble(nprocs * (nprocs - 1) / 2 + nprocs * i), 'reduce sum')
    end do
  end if
  call MPI_Allreduce(rank, j, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(j == nprocs - 1, 'allreduce max')
  call MPI_Allreduce(rank + 5, j, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  call check(j == 5, 'allreduce min')
  r4 = [real(rank + 1), 2.0]
  call MPI_Allreduce(r4, r4out, 2, MPI_REAL, MPI_PROD, MPI_COMM_WORLD, ierr)
  call check(abs(r4out(2) - 2.0**nprocs) < 1e-3, 'allreduce prod real')

  ! MPI_IN_PLACE: allreduce and reduce at the root.
  d = [(dble(rank * i), i = 1, 4)]
  call MPI_Allreduce(MPI_IN_PLACE, d, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 4
    call check(d(i) == dble(i * nprocs * (nprocs - 1) / 2), 'allreduce in_place')
  end do
  ibuf(1:3) = [rank, 1, 2 * rank]
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, ibuf, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call check(ibuf(1) == nprocs * (nprocs - 1) / 2 .and. ibuf(2) == nprocs .and. &
               ibuf(3) == nprocs * (nprocs - 1), 'reduce in_place')
  else
    call MPI_Reduce(ibuf, iout, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if

  ! MAXLOC / MINLOC on (value, index) pairs.
  do i = 1, 3
    pair(1, i) = dble(mod(rank * 7 + i, nprocs))
    pair(2, i) = dble(rank)
  end do
  call MPI_Allreduce(pair, pout, 3, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  do i = 1, 3
    call check(pout(1, i) == dble(nprocs - 1), 'maxloc value')
    call check(mod(nint(pout(2, i)) * 7 + i, nprocs) == nprocs - 1, 'maxloc index')
  end do
  call MPI_Allreduce(pair, pout, 3, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  do i = 1, 3
    call check(pout(1, i) == 0d0, 'minloc value')
  end do

  ! LOGICAL reductions.
  l = [.true., rank == 0]
  call MPI_Allreduce(l, lout, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call check(lout(1) .and. (lout(2) .eqv. (nprocs == 1)), 'land')
  call MPI_Allreduce(l, lout, 2, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lout(1) .and. lout(2), 'lor')

  ! DOUBLE COMPLEX sum.
  z = [dcmplx(rank, 1), dcmplx(1, -rank)]
  call MPI_Allreduce(z, zs, 2, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(zs(1) == dcmplx(nprocs * (nprocs - 1) / 2, nprocs), 'complex sum 1')
  call check(zs(2) == dcmplx(nprocs, -nprocs * (nprocs - 1) / 2), 'complex sum 2')

  ! INTEGER8 and REAL8.
  i8 = 2_8**40 + rank
  call MPI_Allreduce(i8, i8sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(i8sum == nprocs * 2_8**40 + nprocs * (nprocs - 1) / 2, 'integer8 sum')
  r8 = [1d0, dble(rank), 0.5d0]
  call MPI_Allreduce(MPI_IN_PLACE, r8, 3, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(r8(1) == nprocs .and. r8(3) == 0.5d0 * nprocs, 'real8 sum')

  ! Gather / scatter / allgather / allgatherv.
  allocate(gat(2 * nprocs), sc(2 * nprocs), counts(nprocs), displs(nprocs))
  call MPI_Gather([rank, -rank], 2, MPI_INTEGER, gat, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 0, nprocs - 1
      call check(gat(2 * i + 1) == i .and. gat(2 * i + 2) == -i, 'gather')
    end do
  end if
  sc = [(i * 3, i = 1, 2 * nprocs)]
  call MPI_Scatter(sc, 2, MPI_INTEGER, iout, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call check(iout(1) == (2 * rank + 1) * 3 .and. iout(2) == (2 * rank + 2) * 3, 'scatter')
  gat = -1
  call MPI_Allgather([rank, rank + 1], 2, MPI_INTEGER, gat, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    call check(gat(2 * i + 1) == i .and. gat(2 * i + 2) == i + 1, 'allgather')
  end do
  ! allgatherv in place: rank i contributes i+1 ... no, one value at displacement i.
  gat = -1
  gat(rank + 1) = 10 * rank
  counts = 1
  displs = [(i, i = 0, nprocs - 1)]
  call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gat, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    call check(gat(i + 1) == 10 * i, 'allgatherv in_place')
  end do

  ! Alltoall and alltoallv (rank r sends r+1 values to everyone).
  allocate(a2a(nprocs), b2a(nprocs * nprocs + nprocs))
  a2a = [(rank * 100 + i, i = 0, nprocs - 1)]
  call MPI_Alltoall(a2a, 1, MPI_INTEGER, b2a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    call check(b2a(i + 1) == i * 100 + rank, 'alltoall')
  end do
  deallocate(a2a)
  allocate(a2a(nprocs * (rank + 1)), scounts(nprocs), sdispls(nprocs), rcounts(nprocs), rdispls(nprocs))
  a2a = rank
  scounts = rank + 1
  sdispls = [((rank + 1) * i, i = 0, nprocs - 1)]
  rcounts = [(i + 1, i = 0, nprocs - 1)]
  rdispls(1) = 0
  do i = 2, nprocs
    rdispls(i) = rdispls(i - 1) + rcounts(i - 1)
  end do
  b2a = -1
  call MPI_Alltoallv(a2a, scounts, sdispls, MPI_INTEGER, b2a, rcounts, rdispls, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    do j = 1, i + 1
      call check(b2a(rdispls(i + 1) + j) == i, 'alltoallv')
    end do
  end do

  ! Scan and reduce_scatter_block.
  call MPI_Scan(rank + 1, j, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(j == (rank + 1) * (rank + 2) / 2, 'scan')
  deallocate(sc)
  allocate(sc(nprocs))
  sc = [(i, i = 1, nprocs)]
  call MPI_Reduce_scatter_block(sc, j, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(j == (rank + 1) * nprocs, 'reduce_scatter_block')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  deallocate(gat, sc, counts, displs, a2a, b2a, scounts, sdispls, rcounts, rdispls)
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

end program f90coll

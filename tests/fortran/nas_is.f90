! mempi-test: np=1,2,3,4,5 timeout=120
! nas_is.f90 -- an IS-style bucketed integer sort, free-form with `use mpi`.  MemPI, BSD-3-Clause (see LICENSE).
!
! As in the NAS IS benchmark: every rank makes NKEYS keys in [0, MAXKEY) from the NPB
! generator (the average of four uniform numbers, so the keys bunch in the middle), sends
! each key to the rank owning its range (counts with MPI_ALLTOALL, keys with MPI_ALLTOALLV,
! so ranks receive unequal amounts), and sorts locally by counting.  Verified: each rank's
! keys are sorted and inside its range; the last key of rank r is <= the first of rank r+1
! (MPI_SENDRECV; an empty rank sends -1); the global histogram of keys before and
! after the exchange is the same (so the result is a permutation of the input); the key
! count and the sum of keys (MPI_INTEGER8) are preserved.  Two iterations, as IS does, with
! keys changed between them.
program nasis
  use mpi
  implicit none
  integer, parameter :: nkeys = 4000, maxkey = 2048
  integer :: ierr, rank, nprocs, it, i, p, k, nrecv, lo, hi
  integer, allocatable :: keys(:), sendbuf(:), recvbuf(:), sorted(:)
  integer, allocatable :: scount(:), rcount(:), sdispl(:), rdispl(:), fill(:)
  integer :: hist(0:maxkey-1), ghist(0:maxkey-1), hist2(0:maxkey-1), ghist2(0:maxkey-1)
  integer :: cnt(0:maxkey-1), prevmax, st(MPI_STATUS_SIZE), total, gtotal
  integer(kind=8) :: ksum(2), gksum(2)
  double precision :: seed, a, x(4)
  logical :: ok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  ok = .true.
  allocate(keys(nkeys), sendbuf(nkeys), scount(0:nprocs-1), rcount(0:nprocs-1), &
           sdispl(0:nprocs-1), rdispl(0:nprocs-1), fill(0:nprocs-1))

  ! Each rank's own stream: seed skipped ahead by rank (simple, deterministic).
  a = 1220703125.d0
  seed = 314159265.d0
  do i = 1, rank * 7 + 1
    x(1) = randlc(seed, a)
  end do
  do i = 1, nkeys
    x(1) = randlc(seed, a); x(2) = randlc(seed, a)
    x(3) = randlc(seed, a); x(4) = randlc(seed, a)
    keys(i) = int(dble(maxkey) * (x(1) + x(2) + x(3) + x(4)) / 4.d0)
  end do

  do it = 1, 2
    ! IS modifies two keys per iteration.
    keys(it) = it
    keys(it + 10) = maxkey - it

    hist = 0
    do i = 1, nkeys
      hist(keys(i)) = hist(keys(i)) + 1
    end do
    call MPI_Allreduce(hist, ghist, maxkey, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

    ! Bucket by owner: rank p owns [p*maxkey/nprocs, (p+1)*maxkey/nprocs).
    scount = 0
    do i = 1, nkeys
      p = owner(keys(i))
      scount(p) = scount(p) + 1
    end do
    sdispl(0) = 0
    do p = 1, nprocs - 1
      sdispl(p) = sdispl(p - 1) + scount(p - 1)
    end do
    fill = sdispl
    do i = 1, nkeys
      p = owner(keys(i))
      sendbuf(fill(p) + 1) = keys(i)
      fill(p) = fill(p) + 1
    end do

    rcount = -1
    call MPI_Alltoall(scount, 1, MPI_INTEGER, rcount, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    if (any(rcount < 0)) then
      print *, rank, ': MPI_Alltoall left counts unset', rcount
      ok = .false.
    end if
    rdispl(0) = 0
    do p = 1, nprocs - 1
      rdispl(p) = rdispl(p - 1) + rcount(p - 1)
    end do
    nrecv = sum(rcount)
    if (allocated(recvbuf)) deallocate(recvbuf, sorted)
    allocate(recvbuf(max(nrecv, 1)), sorted(max(nrecv, 1)))
    recvbuf = -1
    call MPI_Alltoallv(sendbuf, scount, sdispl, MPI_INTEGER, recvbuf, rcount, rdispl, &
                       MPI_INTEGER, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) ok = .false.

    ! Local counting sort within my range.
    lo = rank * maxkey / nprocs
    hi = (rank + 1) * maxkey / nprocs - 1
    cnt = 0
    do i = 1, nrecv
      if (recvbuf(i) < lo .or. recvbuf(i) > hi) then
        print *, rank, ': key', recvbuf(i), ' outside my range', lo, hi
        ok = .false.
        exit
      end if
      cnt(recvbuf(i)) = cnt(recvbuf(i)) + 1
    end do
    k = 0
    do i = lo, hi
      sorted(k + 1:k + cnt(i)) = i
      k = k + cnt(i)
    end do
    do i = 2, nrecv
      if (sorted(i - 1) > sorted(i)) then
        print *, rank, ': not sorted at', i
        ok = .false.
        exit
      end if
    end do

    ! Across ranks: rank r-1's largest key (or the one before, if empty) <= my smallest.
    prevmax = -1
    if (nrecv > 0) then
      k = sorted(nrecv)
    else
      k = -1
    end if
    call MPI_Sendrecv(k, 1, MPI_INTEGER, next(rank), 7, prevmax, 1, MPI_INTEGER, &
                      prev(rank), 7, MPI_COMM_WORLD, st, ierr)
    if (rank > 0) then
      if (st(MPI_SOURCE) /= rank - 1 .or. st(MPI_TAG) /= 7) then
        print *, rank, ': sendrecv status', st(MPI_SOURCE), st(MPI_TAG)
        ok = .false.
      end if
      if (nrecv > 0 .and. prevmax > sorted(1)) then
        print *, rank, ': previous rank ends at', prevmax, ' I start at', sorted(1)
        ok = .false.
      end if
    end if

    ! Permutation: same histogram, same count, same sum.
    hist2 = 0
    do i = 1, nrecv
      hist2(sorted(i)) = hist2(sorted(i)) + 1
    end do
    call MPI_Allreduce(hist2, ghist2, maxkey, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (any(ghist2 /= ghist)) then
      print *, rank, ': the sorted keys are not a permutation of the input'
      ok = .false.
    end if
    total = nrecv
    call MPI_Allreduce(total, gtotal, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    ksum(1) = sum(int(keys, 8))
    ksum(2) = sum(int(sorted(1:nrecv), 8))
    call MPI_Allreduce(ksum, gksum, 2, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (gtotal /= nkeys * nprocs .or. gksum(1) /= gksum(2)) then
      print *, rank, ': totals', gtotal, gksum
      ok = .false.
    end if
    if (rank == 0) print '(a,i2,a,i2,a,i8,a,i12)', ' IS iteration ', it, ' on ', nprocs, &
        ' ranks: keys', gtotal, ', key sum', gksum(2)
  end do

  call MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (ok) then
      print *, '  VERIFICATION SUCCESSFUL'
    else
      print *, '  VERIFICATION FAILED'
    end if
  end if
  deallocate(keys, sendbuf, recvbuf, sorted, scount, rcount, sdispl, rdispl, fill)
  call MPI_Finalize(ierr)
  if (.not. ok) stop 1

contains

  integer function owner(key)
    integer, intent(in) :: key
    owner = int((int(key, 8) * nprocs) / maxkey)
    ! Ranges are [p*maxkey/nprocs, (p+1)*maxkey/nprocs): correct for the rounding.
    do while (owner > 0 .and. key < owner * maxkey / nprocs)
      owner = owner - 1
    end do
    do while (owner < nprocs - 1 .and. key >= (owner + 1) * maxkey / nprocs)
      owner = owner + 1
    end do
  end function owner

  integer function next(r)
    integer, intent(in) :: r
    next = r + 1
    if (next >= nprocs) next = MPI_PROC_NULL
  end function next

  integer function prev(r)
    integer, intent(in) :: r
    prev = r - 1
    if (prev < 0) prev = MPI_PROC_NULL
  end function prev

  ! The NPB generator: x <- a * x mod 2**46, returns x * 2**-46.
  double precision function randlc(x, a)
    double precision, intent(inout) :: x
    double precision, intent(in) :: a
    double precision, parameter :: r23 = 0.5d0**23, r46 = r23**2, t23 = 2.d0**23, t46 = t23**2
    double precision :: t1, t2, t3, t4, a1, a2, x1, x2, z
    t1 = r23 * a
    a1 = int(t1)
    a2 = a - t23 * a1
    t1 = r23 * x
    x1 = int(t1)
    x2 = x - t23 * x1
    t1 = a1 * x2 + a2 * x1
    t2 = int(r23 * t1)
    z = t1 - t23 * t2
    t3 = t23 * z + a2 * x2
    t4 = int(r46 * t3)
    x = t3 - t46 * t4
    randlc = r46 * x
  end function randlc
end program nasis

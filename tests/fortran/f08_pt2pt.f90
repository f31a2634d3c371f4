! mempi-test: np=1,2,3,5 timeout=90
! f08_pt2pt.f90 -- point-to-point through `use mpi_f08`.  MemPI, BSD-3-Clause (see LICENSE).
!
! A ring exchange checks data and TYPE(MPI_Status) fields (MPI_SOURCE, MPI_TAG, MPI_ERROR,
! MPI_Get_count); nonblocking Isend/Irecv with Waitall and MPI_STATUSES_IGNORE; Iprobe's
! LOGICAL flag; MPI_Sendrecv_replace; the optional IERROR (calls without it) and the
! large-count generic (an INTEGER(MPI_COUNT_KIND) count resolves to MPI_Send_c, and
! MPI_Get_count with an INTEGER(MPI_COUNT_KIND) result to MPI_Get_count_c); handle
! comparison with == and /=; MPI_Status_f2f08/f082f.
program f08_pt2pt
  use mpi_f08
  implicit none
  integer :: ierr, rank, nprocs, right, left, i, n, fails
  integer :: sbuf(100), rbuf(100), fstat(MPI_STATUS_SIZE)
  integer(kind=MPI_COUNT_KIND) :: bigcount, ccount
  type(MPI_Status) :: status, statuses(2), st2
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: comm
  logical :: flag
  double precision :: t0

  fails = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_size ierror')
  comm = MPI_COMM_WORLD
  call check(comm == MPI_COMM_WORLD .and. comm /= MPI_COMM_SELF, 'handle ==, /=')
  call check(MPI_COMM_WORLD%MPI_VAL /= MPI_COMM_NULL%MPI_VAL, 'MPI_VAL')
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  t0 = MPI_Wtime()

  ! Blocking ring: send to the right, receive from the left.
  sbuf = [(rank * 1000 + i, i = 1, 100)]
  rbuf = -1
  if (mod(rank, 2) == 0) then
    call MPI_Send(sbuf, 77, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 100, MPI_INTEGER, left, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(rbuf, 100, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
    call MPI_Send(sbuf, 77, MPI_INTEGER, right, 10 + rank, MPI_COMM_WORLD)
  end if
  call check(status%MPI_SOURCE == left, 'status%MPI_SOURCE')
  call check(status%MPI_TAG == 10 + left, 'status%MPI_TAG')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 77, 'MPI_Get_count')
  call MPI_Get_count(status, MPI_INTEGER, ccount)
  call check(ccount == 77, 'MPI_Get_count_c through the generic')
  call check(all(rbuf(1:77) == [(left * 1000 + i, i = 1, 77)]), 'ring data')
  call check(all(rbuf(78:) == -1), 'ring: nothing beyond the count')

  ! The status in the three forms.
  call MPI_Status_f082f(status, fstat)
  call check(fstat(MPI_SOURCE) == left .and. fstat(MPI_TAG) == 10 + left, 'MPI_Status_f082f')
  call MPI_Status_f2f08(fstat, st2, ierr)
  call check(st2%MPI_SOURCE == left .and. st2%MPI_TAG == 10 + left, 'MPI_Status_f2f08')

  ! Large-count send: the generic picks MPI_Send_c.
  bigcount = 50
  rbuf = -1
  call MPI_Irecv(rbuf, 100, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(sbuf, bigcount, MPI_INTEGER, right, 5, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Send_c ierror')
  call MPI_Wait(reqs(1), status)
  call check(reqs(1) == MPI_REQUEST_NULL, 'MPI_Wait frees the request')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 50 .and. all(rbuf(1:50) == [(left * 1000 + i, i = 1, 50)]), 'MPI_Send_c data')

  ! Nonblocking both ways, statuses and MPI_STATUSES_IGNORE.
  rbuf = -1
  call MPI_Irecv(rbuf, 100, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, 33, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(statuses(1)%MPI_SOURCE == left .and. statuses(1)%MPI_TAG == 7, 'Waitall statuses')
  call check(all(rbuf(1:33) == [(left * 1000 + i, i = 1, 33)]), 'Isend/Irecv data')
  call MPI_Irecv(rbuf, 100, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'Waitall IGNORE')

  ! Iprobe's LOGICAL flag, then the matching receive with MPI_STATUS_IGNORE.
  call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, status)
  call check(.not. flag, 'Iprobe: no message with tag 99')
  call MPI_Send(sbuf, 4, MPI_INTEGER, right, 9, MPI_COMM_WORLD)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 9, MPI_COMM_WORLD, flag, status)
  end do
  call check(status%MPI_SOURCE == left, 'Iprobe status')
  call MPI_Recv(rbuf, 4, MPI_INTEGER, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(rbuf(1:4) == [(left * 1000 + i, i = 1, 4)]), 'recv after Iprobe')

  ! Sendrecv_replace around the ring.
  rbuf(1:5) = [(rank * 10 + i, i = 1, 5)]
  call MPI_Sendrecv_replace(rbuf, 5, MPI_INTEGER, right, 3, left, 3, MPI_COMM_WORLD, status)
  call check(all(rbuf(1:5) == [(left * 10 + i, i = 1, 5)]), 'Sendrecv_replace data')
  call check(status%MPI_SOURCE == left, 'Sendrecv_replace status')

  call check(MPI_Wtime() >= t0 .and. MPI_Wtick() > 0d0, 'MPI_Wtime/MPI_Wtick')
  call finish('f08_pt2pt')
contains
  include 'f08_check.inc'
end program f08_pt2pt

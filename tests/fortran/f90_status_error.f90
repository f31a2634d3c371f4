! mempi-test: np=1,2,3,5 timeout=90
! f90_status_error.f90 -- STATUS(MPI_ERROR) and MPI_ERR_IN_STATUS from Fortran.  MemPI, BSD-3-Clause (see LICENSE).
!
! A Fortran status is the C status itself, so the rules of MPI 4.0 3.2.5 hold here too:
! single-completion calls (MPI_RECV, MPI_SENDRECV, MPI_PROBE, MPI_IPROBE, MPI_MPROBE,
! MPI_MRECV, MPI_WAIT, MPI_TEST, MPI_WAITANY) and multiple-completion calls that succeed
! leave a value the program stored in STATUS(MPI_ERROR) alone; MPI_WAITALL with a truncated
! receive returns exactly MPI_ERR_IN_STATUS and puts each request's code in its status.
program status_error
  use mpi
  implicit none
  integer, parameter :: sentinel = 24301
  integer :: ierr, rank, nprocs, left, right, msg, req, idx, cls
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), reqs(2), sreqs(2)
  integer :: out(4), in(4)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  out = (/ rank, rank + 1, rank + 2, rank + 3 /)

  ! MPI_RECV, MPI_WAIT
  call MPI_Isend(out, 2, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req, ierr)
  st(MPI_ERROR) = sentinel
  call MPI_Recv(in, 4, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
  call kept(st, 'MPI_RECV')
  call chk(st(MPI_SOURCE) == left .and. st(MPI_TAG) == 1 .and. in(1) == left, 'recv status')
  st(MPI_ERROR) = sentinel
  call MPI_Wait(req, st, ierr)
  call kept(st, 'MPI_WAIT')

  ! MPI_SENDRECV
  st(MPI_ERROR) = sentinel
  call MPI_Sendrecv(out, 3, MPI_INTEGER, right, 2, in, 4, MPI_INTEGER, left, 2, &
                    MPI_COMM_WORLD, st, ierr)
  call kept(st, 'MPI_SENDRECV')

  ! MPI_PROBE, MPI_IPROBE, MPI_MPROBE + MPI_MRECV, MPI_TEST
  call MPI_Isend(out, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req, ierr)
  st(MPI_ERROR) = sentinel
  call MPI_Probe(left, 3, MPI_COMM_WORLD, st, ierr)
  call kept(st, 'MPI_PROBE')
  flag = .false.
  do while (.not. flag)
     st(MPI_ERROR) = sentinel
     call MPI_Iprobe(left, 3, MPI_COMM_WORLD, flag, st, ierr)
     call kept(st, 'MPI_IPROBE')
  end do
  st(MPI_ERROR) = sentinel
  call MPI_Mprobe(left, 3, MPI_COMM_WORLD, msg, st, ierr)
  call kept(st, 'MPI_MPROBE')
  st(MPI_ERROR) = sentinel
  call MPI_Mrecv(in, 4, MPI_INTEGER, msg, st, ierr)
  call kept(st, 'MPI_MRECV')
  call chk(st(MPI_TAG) == 3 .and. in(1) == left, 'mrecv status')
  flag = .false.
  do while (.not. flag)
     st(MPI_ERROR) = sentinel
     call MPI_Test(req, flag, st, ierr)
     call kept(st, 'MPI_TEST')
  end do

  ! MPI_WAITANY on a receive, MPI_WAITALL on sends (success: MPI_ERROR untouched)
  call MPI_Irecv(in, 4, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(1), ierr)
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Isend(out, 4, MPI_INTEGER, right, 4, MPI_COMM_WORLD, sreqs(1), ierr)
  call MPI_Isend(out, 2, MPI_INTEGER, right, 5, MPI_COMM_WORLD, sreqs(2), ierr)
  st(MPI_ERROR) = sentinel
  call MPI_Waitany(2, reqs, idx, st, ierr)
  call kept(st, 'MPI_WAITANY')
  call chk(idx == 1, 'waitany index')
  call MPI_Recv(in, 4, MPI_INTEGER, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  sts(MPI_ERROR, :) = sentinel
  call MPI_Waitall(2, sreqs, sts, ierr)
  call chk(ierr == MPI_SUCCESS, 'waitall of sends')
  call kept(sts(:, 1), 'MPI_WAITALL')
  call kept(sts(:, 2), 'MPI_WAITALL')

  ! MPI_WAITALL with a truncated receive: exactly MPI_ERR_IN_STATUS
  call MPI_Irecv(in(1), 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(in(2), 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(out, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, sreqs(1), ierr)
  call MPI_Isend(out, 4, MPI_INTEGER, right, 7, MPI_COMM_WORLD, sreqs(2), ierr)
  sts(MPI_ERROR, :) = sentinel
  call MPI_Waitall(2, reqs, sts, ierr)
  call chk(ierr == MPI_ERR_IN_STATUS, 'waitall with a truncated receive: MPI_ERR_IN_STATUS')
  call chk(sts(MPI_ERROR, 1) == MPI_SUCCESS, 'status 1 error MPI_SUCCESS')
  call MPI_Error_class(sts(MPI_ERROR, 2), cls, ierr)
  call chk(cls == MPI_ERR_TRUNCATE, 'status 2 error class MPI_ERR_TRUNCATE')
  call MPI_Waitall(2, sreqs, MPI_STATUSES_IGNORE, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'f90_status_error: OK'
  call MPI_Finalize(ierr)

contains

  subroutine kept(s, what)
    integer, intent(in) :: s(MPI_STATUS_SIZE)
    character(len=*), intent(in) :: what
    call chk(s(MPI_ERROR) == sentinel, what // ' overwrote STATUS(MPI_ERROR)')
  end subroutine kept

  subroutine chk(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. cond) then
       print *, 'rank', rank, ': FAILED: ', what
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine chk
end program status_error

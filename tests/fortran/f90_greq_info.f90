! mempi-test: np=1,2 timeout=60
! f90_greq_info.f90 -- generalized requests' EXTRA_STATE and MPI_INFO_GET_STRING from Fortran.  MemPI, BSD-3-Clause (see LICENSE).
!
! MPI_GREQUEST_START hands the callbacks the program's own EXTRA_STATE variable (by
! reference, as for every Fortran argument): the query function reads a value the program
! stored there after the start, the free function's update is seen by the program after
! MPI_WAIT, the cancel function's after MPI_CANCEL.  Before this test the callbacks got a
! copy taken at the start, and the free function's effect was lost.
!
! MPI_INFO_GET_STRING in Fortran: BUFLEN returns the value's length without a terminator;
! BUFLEN 0 only asks for it and leaves VALUE alone; a shorter BUFLEN truncates; a missing key
! sets FLAG false and leaves VALUE and BUFLEN alone.
subroutine query_fn(extra, status, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  call MPI_Status_set_elements(status, MPI_INTEGER, int(extra), ierr)
  call MPI_Status_set_cancelled(status, .false., ierr)
  ierr = MPI_SUCCESS
end subroutine query_fn

subroutine free_fn(extra, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  extra = extra + 100
  ierr = MPI_SUCCESS
end subroutine free_fn

subroutine cancel_fn(extra, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  if (complete) then
     extra = -1
  else
     extra = 42
  end if
  ierr = MPI_SUCCESS
end subroutine cancel_fn

program greq_info
  use mpi
  implicit none
  external query_fn, free_fn, cancel_fn
  ! VOLATILE: the callbacks change the variables behind the compiler's back
  integer(kind=MPI_ADDRESS_KIND), volatile :: state, state2
  integer :: ierr, rank, req, req2, count, info, buflen
  integer :: status(MPI_STATUS_SIZE)
  character(len=20) :: value
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! generalized requests
  state = 5
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, state, req, ierr)
  state = 7                                   ! the query must see this
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call chk(count == 7, 'query_fn read the EXTRA_STATE variable after the start')
  call chk(state == 107, 'free_fn updated the EXTRA_STATE variable')
  call chk(req == MPI_REQUEST_NULL, 'wait freed the request')

  state2 = 0
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, state2, req2, ierr)
  call MPI_Cancel(req2, ierr)
  call chk(state2 == 42, 'cancel_fn updated the EXTRA_STATE variable (not complete)')
  call MPI_Grequest_complete(req2, ierr)
  call MPI_Request_free(req2, ierr)
  call chk(state2 == 142, 'free_fn after MPI_REQUEST_FREE')

  ! MPI_INFO_GET_STRING
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'greeting', 'hello world', ierr)
  buflen = 0
  value = 'untouched'
  call MPI_Info_get_string(info, 'greeting', buflen, value, flag, ierr)
  call chk(ierr == MPI_SUCCESS .and. flag, 'get_string with buflen 0: flag')
  call chk(buflen == 11, 'get_string with buflen 0 returns the length 11')
  call chk(value == 'untouched', 'get_string with buflen 0 leaves the value alone')
  buflen = len(value)
  call MPI_Info_get_string(info, 'greeting', buflen, value, flag, ierr)
  call chk(flag .and. value == 'hello world' .and. buflen == 11, 'get_string: value and length')
  buflen = 5
  value = 'XXXXXXXXXXXXXXXXXXXX'
  call MPI_Info_get_string(info, 'greeting', buflen, value, flag, ierr)
  call chk(flag .and. value(1:5) == 'hello' .and. buflen == 11, 'get_string truncated to 5')
  buflen = 20
  value = 'untouched'
  call MPI_Info_get_string(info, 'nosuchkey', buflen, value, flag, ierr)
  call chk(.not. flag .and. value == 'untouched' .and. buflen == 20, 'get_string, missing key')
  call MPI_Info_free(info, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'f90_greq_info: OK'
  call MPI_Finalize(ierr)

contains

  subroutine chk(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. cond) then
       print *, 'rank', rank, ': FAILED: ', what, ' (state', state, ' buflen', buflen, &
                ' value "', value, '")'
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine chk
end program greq_info

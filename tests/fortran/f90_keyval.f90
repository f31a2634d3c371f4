! mempi-test: np=1,2,3 timeout=60
! f90_keyval.f90 -- keyvals created from Fortran, and keyvals freed while in use.  MemPI, BSD-3-Clause (see LICENSE).
!
! A keyval made by MPI_COMM_CREATE_KEYVAL, MPI_TYPE_CREATE_KEYVAL or the MPI-1
! MPI_KEYVAL_CREATE from Fortran, with Fortran copy and delete procedures, must work with
! MPI_COMM_DELETE_ATTR / MPI_TYPE_DELETE_ATTR / MPI_ATTR_DELETE: the delete procedure runs with
! the attribute's value and the keyval's extra state.  Freeing the keyval while an attribute
! uses it sets the variable to MPI_KEYVAL_INVALID, and the saved key still gets and deletes
! the attribute (MPI 4.0 7.7.2); freeing it again is an error (MPI_ERR_KEYVAL).  Before this
! test, deleting through a freed Fortran keyval failed with "invalid communicator keyval".
block data kvinit
  implicit none
  integer :: ncopy, ndel, lastval, lastextra
  common /kvstate/ ncopy, ndel, lastval, lastextra
  data ncopy, ndel, lastval, lastextra / 0, 0, -1, -1 /
end block data kvinit

subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  integer :: ncopy, ndel, lastval, lastextra
  common /kvstate/ ncopy, ndel, lastval, lastextra
  ncopy = ncopy + 1
  valout = valin + 1000
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_fn

subroutine delete_fn(comm, keyval, val, extra, ierr)
  use mpi
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  integer :: ncopy, ndel, lastval, lastextra
  common /kvstate/ ncopy, ndel, lastval, lastextra
  ndel = ndel + 1
  lastval = int(val)
  lastextra = int(extra)
  ierr = MPI_SUCCESS
end subroutine delete_fn

subroutine delete1_fn(comm, keyval, val, extra, ierr)
  implicit none
  integer :: comm, keyval, val, extra, ierr
  integer :: ncopy, ndel, lastval, lastextra
  common /kvstate/ ncopy, ndel, lastval, lastextra
  ndel = ndel + 1
  lastval = val
  lastextra = extra
  ierr = 0
end subroutine delete1_fn

program keyval
  use mpi
  implicit none
  external copy_fn, delete_fn, delete1_fn
  integer :: ncopy, ndel, lastval, lastextra
  common /kvstate/ ncopy, ndel, lastval, lastextra
  integer :: ierr, rank, key, saved, comm, dup, t, cls, key1, extra1
  integer(kind=MPI_ADDRESS_KIND) :: extra, val
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  ! MPI_COMM_CREATE_KEYVAL + MPI_COMM_DELETE_ATTR
  extra = 77
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, extra, ierr)
  call chk(ierr == MPI_SUCCESS, 'comm_create_keyval')
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
  val = 5
  call MPI_Comm_set_attr(comm, key, val, ierr)
  call chk(ierr == MPI_SUCCESS, 'comm_set_attr')
  call MPI_Comm_delete_attr(comm, key, ierr)
  call chk(ierr == MPI_SUCCESS, 'comm_delete_attr of a Fortran keyval')
  call chk(ndel == 1 .and. lastval == 5 .and. lastextra == 77, 'delete_fn ran with value and extra')

  ! freed while in use: get, dup (copy_fn), delete through the saved key, free again
  val = 6
  call MPI_Comm_set_attr(comm, key, val, ierr)
  saved = key
  call MPI_Comm_free_keyval(key, ierr)
  call chk(ierr == MPI_SUCCESS .and. key == MPI_KEYVAL_INVALID, 'comm_free_keyval')
  call MPI_Comm_get_attr(comm, saved, val, flag, ierr)
  call chk(ierr == MPI_SUCCESS .and. flag .and. val == 6, 'get_attr with the freed key')
  call MPI_Comm_dup(comm, dup, ierr)
  call chk(ierr == MPI_SUCCESS .and. ncopy == 1, 'dup copies through the freed key')
  call MPI_Comm_delete_attr(comm, saved, ierr)
  call chk(ierr == MPI_SUCCESS .and. ndel == 2 .and. lastval == 6, 'delete_attr with the freed key')
  call MPI_Comm_free(dup, ierr)
  call chk(ierr == MPI_SUCCESS .and. ndel == 3 .and. lastval == 1006, 'comm_free of the duplicate')
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  call chk(cls == MPI_ERR_KEYVAL, 'freeing MPI_KEYVAL_INVALID is MPI_ERR_KEYVAL')

  ! MPI_TYPE_CREATE_KEYVAL + MPI_TYPE_DELETE_ATTR
  call MPI_Type_contiguous(2, MPI_INTEGER, t, ierr)
  extra = 88
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fn, key, extra, ierr)
  val = 9
  call MPI_Type_set_attr(t, key, val, ierr)
  call MPI_Type_delete_attr(t, key, ierr)
  call chk(ierr == MPI_SUCCESS .and. ndel == 4 .and. lastval == 9 .and. lastextra == 88, &
           'type_delete_attr of a Fortran keyval')
  val = 10
  call MPI_Type_set_attr(t, key, val, ierr)
  saved = key
  call MPI_Type_free_keyval(key, ierr)
  call chk(ierr == MPI_SUCCESS .and. key == MPI_KEYVAL_INVALID, 'type_free_keyval')
  call MPI_Type_delete_attr(t, saved, ierr)
  call chk(ierr == MPI_SUCCESS .and. ndel == 5 .and. lastval == 10, 'type_delete_attr, freed key')
  call MPI_Type_free(t, ierr)

  ! MPI-1: MPI_KEYVAL_CREATE + MPI_ATTR_PUT + MPI_ATTR_DELETE
  extra1 = 99
  call MPI_Keyval_create(MPI_NULL_COPY_FN, delete1_fn, key1, extra1, ierr)
  call MPI_Attr_put(comm, key1, 12, ierr)
  call MPI_Attr_delete(comm, key1, ierr)
  call chk(ierr == MPI_SUCCESS .and. ndel == 6 .and. lastval == 12 .and. lastextra == 99, &
           'attr_delete of an MPI-1 Fortran keyval')
  call MPI_Attr_put(comm, key1, 13, ierr)
  saved = key1
  call MPI_Keyval_free(key1, ierr)
  call chk(ierr == MPI_SUCCESS .and. key1 == MPI_KEYVAL_INVALID, 'keyval_free')
  call MPI_Attr_delete(comm, saved, ierr)
  call chk(ierr == MPI_SUCCESS .and. ndel == 7 .and. lastval == 13, 'attr_delete, freed key')

  call MPI_Comm_free(comm, ierr)
  call chk(ndel == 7, 'no attribute left for MPI_COMM_FREE')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'f90_keyval: OK'
  call MPI_Finalize(ierr)

contains

  subroutine chk(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. cond) then
       print *, 'rank', rank, ': FAILED: ', what, ' (ierr', ierr, ' deletes', ndel, ' last', lastval, ')'
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine chk
end program keyval

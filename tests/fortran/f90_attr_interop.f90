! mempi-test: np=1,2 timeout=60
! f90_attr_interop.f90 -- attribute values set in one language and read in the other.  MemPI, BSD-3-Clause (see LICENSE).
!
! MPI 4.0 19.3.7 (Examples 19.13-19.15): an attribute set in C is a pointer; read from
! Fortran with MPI_COMM_GET_ATTR it is that address as INTEGER(KIND=MPI_ADDRESS_KIND), with
! the deprecated MPI_ATTR_GET its low-order bits.  An attribute set from Fortran is an
! integer; read from C, MPI_Comm_get_attr returns a pointer to it (to an MPI_Aint if set with
! MPI_COMM_SET_ATTR, to an int if set with MPI_ATTR_PUT, whose INTEGER is sign-extended into
! the attribute word).  The C calls are made from here through BIND(C) interfaces to the C
! functions themselves (the handles of the MPICH ABI are C ints).  Before this test a value
! set from Fortran read in C as the integer itself, not a pointer to it.
program attr_interop
  use mpi
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function c_comm_set_attr(comm, key, val) bind(C, name='MPI_Comm_set_attr')
      import :: c_int, c_ptr
      integer(c_int), value :: comm, key
      type(c_ptr), value :: val
    end function c_comm_set_attr
    integer(c_int) function c_comm_get_attr(comm, key, val, flag) bind(C, name='MPI_Comm_get_attr')
      import :: c_int, c_ptr
      integer(c_int), value :: comm, key
      type(c_ptr) :: val
      integer(c_int) :: flag
    end function c_comm_get_attr
    integer(c_int) function c_type_set_attr(t, key, val) bind(C, name='MPI_Type_set_attr')
      import :: c_int, c_ptr
      integer(c_int), value :: t, key
      type(c_ptr), value :: val
    end function c_type_set_attr
    integer(c_int) function c_type_get_attr(t, key, val, flag) bind(C, name='MPI_Type_get_attr')
      import :: c_int, c_ptr
      integer(c_int), value :: t, key
      type(c_ptr) :: val
      integer(c_int) :: flag
    end function c_type_get_attr
  end interface
  integer :: ierr, rank, key, tkey, comm, t, ival, halves(2)
  integer(kind=MPI_ADDRESS_KIND) :: aval, extra, addr
  integer(c_int), target :: cvar
  integer(c_int), pointer :: ip
  integer(c_intptr_t), pointer :: ap
  integer(c_int) :: cflag
  type(c_ptr) :: p
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)

  ! set in C: a small integer as the pointer value, then a real address
  call chk(c_comm_set_attr(comm, key, transfer(17_c_intptr_t, p)) == 0, 'C set 17')
  call MPI_Comm_get_attr(comm, key, aval, flag, ierr)
  call chk(flag .and. aval == 17, 'C pointer value 17 read by MPI_COMM_GET_ATTR')
  call MPI_Attr_get(comm, key, ival, flag, ierr)
  call chk(flag .and. ival == 17, 'C pointer value 17 read by MPI_ATTR_GET')
  cvar = 3
  call chk(c_comm_set_attr(comm, key, c_loc(cvar)) == 0, 'C set &cvar')
  addr = transfer(c_loc(cvar), addr)
  call MPI_Comm_get_attr(comm, key, aval, flag, ierr)
  call chk(flag .and. aval == addr, 'C address read by MPI_COMM_GET_ATTR')
  call MPI_Attr_get(comm, key, ival, flag, ierr)
  halves = transfer(addr, halves)                  ! little-endian: the low half first
  call chk(flag .and. ival == halves(1), 'C address read by MPI_ATTR_GET: its low bits')

  ! set with the MPI-1 MPI_ATTR_PUT: C sees a pointer to an int; sign extension
  call MPI_Attr_put(comm, key, 7, ierr)
  call chk(c_comm_get_attr(comm, key, p, cflag) == 0 .and. cflag /= 0, 'C get after ATTR_PUT')
  call c_f_pointer(p, ip)
  call chk(ip == 7, 'MPI_ATTR_PUT 7 read in C: a pointer to 7')
  call MPI_Attr_put(comm, key, -5, ierr)
  call MPI_Comm_get_attr(comm, key, aval, flag, ierr)
  call chk(flag .and. aval == -5, 'MPI_ATTR_PUT -5 read by MPI_COMM_GET_ATTR: sign extended')
  call chk(c_comm_get_attr(comm, key, p, cflag) == 0, 'C get after ATTR_PUT -5')
  call c_f_pointer(p, ip)
  call chk(ip == -5, 'MPI_ATTR_PUT -5 read in C')

  ! set with MPI_COMM_SET_ATTR: C sees a pointer to an MPI_Aint; ATTR_GET the low bits
  aval = 2_MPI_ADDRESS_KIND**40 + 3
  call MPI_Comm_set_attr(comm, key, aval, ierr)
  call chk(c_comm_get_attr(comm, key, p, cflag) == 0 .and. cflag /= 0, 'C get after SET_ATTR')
  call c_f_pointer(p, ap)
  call chk(ap == 2_c_intptr_t**40 + 3, 'MPI_COMM_SET_ATTR 2**40+3 read in C: pointer to it')
  call MPI_Attr_get(comm, key, ival, flag, ierr)
  call chk(flag .and. ival == 3, 'MPI_COMM_SET_ATTR 2**40+3 read by MPI_ATTR_GET: low bits')
  aval = -9
  call MPI_Comm_set_attr(comm, key, aval, ierr)
  call MPI_Attr_get(comm, key, ival, flag, ierr)
  call chk(flag .and. ival == -9, 'MPI_COMM_SET_ATTR -9 read by MPI_ATTR_GET')

  ! datatypes
  call MPI_Type_contiguous(2, MPI_INTEGER, t, ierr)
  aval = 123
  call MPI_Type_set_attr(t, tkey, aval, ierr)
  call chk(c_type_get_attr(t, tkey, p, cflag) == 0 .and. cflag /= 0, 'C type get')
  call c_f_pointer(p, ap)
  call chk(ap == 123, 'MPI_TYPE_SET_ATTR 123 read in C: a pointer to it')
  call chk(c_type_set_attr(t, tkey, transfer(456_c_intptr_t, p)) == 0, 'C type set')
  call MPI_Type_get_attr(t, tkey, aval, flag, ierr)
  call chk(flag .and. aval == 456, 'C type attribute 456 read by MPI_TYPE_GET_ATTR')

  ! predefined attributes read as values from both
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag, ierr)
  call chk(flag .and. aval >= 32767, 'MPI_TAG_UB from Fortran')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  call chk(flag .and. ival == aval, 'MPI_TAG_UB from MPI_ATTR_GET')

  call MPI_Type_free(t, ierr)
  call MPI_Comm_free(comm, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Type_free_keyval(tkey, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'f90_attr_interop: OK'
  call MPI_Finalize(ierr)

contains

  subroutine chk(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. cond) then
       print *, 'rank', rank, ': FAILED: ', what, ' (aval', aval, ' ival', ival, ')'
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine chk
end program attr_interop

! mempi-test: np=1,2,3,5 timeout=90
! f08_comm_types.f90 -- communicators, datatypes, callbacks and strings through `use mpi_f08`.  MemPI, BSD-3-Clause (see LICENSE).
!
! Comm_split/dup/compare and names (CHARACTER in and out), a Cartesian communicator (LOGICAL
! periods in and out), derived datatypes (Type_vector, Type_get_extent with
! INTEGER(MPI_ADDRESS_KIND), Type_size), Info strings with the LOGICAL flag, Alloc_mem's
! TYPE(C_PTR), Waitany's 1-based index, and the callbacks: user reductions
! (PROCEDURE(MPI_User_function), and MPI_User_function_c with MPI_Op_create_c), attribute
! copy/delete functions (and the predefined MPI_COMM_DUP_FN), a communicator error handler,
! and a generalized request.
module f08_cb
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: deletes = 0, handled = 0, last_code = 0, queries = 0
contains
  subroutine absmax(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    call absmax_n(invec, inoutvec, int(len, MPI_COUNT_KIND), datatype)
  end subroutine absmax
  subroutine absmax_n(invec, inoutvec, len, datatype)
    type(c_ptr), intent(in) :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND), intent(in) :: len
    type(MPI_Datatype), intent(in) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype == MPI_INTEGER) b = max(abs(a), abs(b))
  end subroutine absmax_n
  subroutine copy_fn(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    attribute_val_out = attribute_val_in + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_fn
  subroutine delete_fn(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine delete_fn
  subroutine on_error(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    handled = handled + 1
    last_code = error_code
  end subroutine on_error
  subroutine query_fn(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    call MPI_Status_set_elements(status, MPI_BYTE, int(extra_state))
    call MPI_Status_set_cancelled(status, .false.)
    status%MPI_SOURCE = MPI_UNDEFINED
    status%MPI_TAG = MPI_UNDEFINED
    ierror = MPI_SUCCESS
  end subroutine query_fn
  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine free_fn
  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine cancel_fn
  subroutine absmax_c(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    call absmax_n(invec, inoutvec, len, datatype)
  end subroutine absmax_c
end module f08_cb

program f08_comm_types
  use mpi_f08
  use f08_cb
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: ierr, rank, nprocs, i, fails, res, sz, keyval, color, crank, ndims, idx, n
  integer :: dims(2), coords(2), v(30), w(30)
  logical :: periods(2), periods_out(2), flag
  type(MPI_Comm) :: half, dup, cart
  type(MPI_Datatype) :: vec
  type(MPI_Op) :: op
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: eh
  type(MPI_Request) :: reqs(2), greq
  type(MPI_Status) :: status
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, val, mem_size
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=40) :: value
  type(c_ptr) :: mem
  integer, pointer :: ints(:)

  fails = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! Split, dup, compare, names.
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, -rank, half)
  call MPI_Comm_size(half, sz)
  call MPI_Comm_rank(half, crank)
  call check(sz == (nprocs + 1 - color) / 2, 'split size')
  call check(crank == (nprocs - 1 - rank) / 2, 'split rank (key -rank)')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, res)
  call check(res == MPI_CONGRUENT, 'compare dup')
  call MPI_Comm_set_name(dup, 'f08 duplicate   ')
  call MPI_Comm_get_name(dup, name, n)
  call check(name == 'f08 duplicate' .and. n == 13, 'comm name')

  ! Cartesian communicator: LOGICAL periods both ways.
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims)
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart)
  call MPI_Cartdim_get(cart, ndims)
  call MPI_Cart_get(cart, 2, dims, periods_out, coords)
  call check(ndims == 2 .and. periods_out(1) .and. .not. periods_out(2), 'cart periods')
  call MPI_Cart_rank(cart, coords, crank)
  call check(crank == rank, 'cart rank')

  ! Derived datatype: every third integer.
  call MPI_Type_vector(10, 1, 3, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Type_get_extent(vec, lb, extent)
  call check(lb == 0 .and. extent == 28 * 4, 'vector extent')
  call MPI_Type_size(vec, sz)
  call check(sz == 40, 'vector size')
  v = [(rank * 100 + i, i = 1, 30)]
  w = -1
  call MPI_Sendrecv(v, 1, vec, mod(rank + 1, nprocs), 0, w, 10, MPI_INTEGER, &
                    mod(rank - 1 + nprocs, nprocs), 0, MPI_COMM_WORLD, status)
  call check(all(w(1:10) == [(mod(rank - 1 + nprocs, nprocs) * 100 + i, i = 1, 28, 3)]), 'vector data')
  call MPI_Type_free(vec)
  call check(vec == MPI_DATATYPE_NULL, 'Type_free')

  ! A user reduction.
  call MPI_Op_create(absmax, .true., op)
  v(1:3) = [-rank, rank * 2, merge(-7, 7, rank == 0)]
  call MPI_Allreduce(v, w, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(w(1:3) == [nprocs - 1, 2 * (nprocs - 1), merge(-7, 7, nprocs == 1)]), 'user op')
  call MPI_Op_free(op)
  call MPI_Op_create_c(absmax_c, .true., op)
  w = 0
  call MPI_Allreduce(v, w, 3_MPI_COUNT_KIND, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(w(1:3) == [nprocs - 1, 2 * (nprocs - 1), merge(-7, 7, nprocs == 1)]), &
             'large-count user op through MPI_Allreduce_c')
  call MPI_Op_free(op)

  ! Attributes with Fortran copy and delete functions, then with the predefined ones.
  call MPI_Comm_create_keyval(copy_fn, delete_fn, keyval, 5_MPI_ADDRESS_KIND)
  call attr_through_dup(keyval, 100_MPI_ADDRESS_KIND, 105_MPI_ADDRESS_KIND, 'copy_fn')
  call check(deletes == 2, 'delete callback (the duplicate and the attribute itself)')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND)
  call attr_through_dup(keyval, 42_MPI_ADDRESS_KIND, 42_MPI_ADDRESS_KIND, 'MPI_COMM_DUP_FN')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  call check(flag .and. val >= 32767, 'MPI_TAG_UB')

  ! A Fortran error handler.
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Send(v, 1, MPI_INTEGER, nprocs + 3, 0, dup, ierr)
  call check(handled == 1 .and. ierr /= MPI_SUCCESS .and. last_code == ierr, 'user errhandler')
  call MPI_Errhandler_free(eh)

  ! Info strings and the LOGICAL flag.
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'color', 'blue  ')
  call MPI_Info_get(info, 'color', 40, value, flag)
  call check(flag .and. value == 'blue', 'Info_get')
  call MPI_Info_get(info, 'shape', 40, value, flag)
  call check(.not. flag, 'Info_get absent key')
  call MPI_Info_get_nkeys(info, n)
  call check(n == 1, 'Info_get_nkeys')
  call MPI_Info_free(info)

  ! Alloc_mem returns a TYPE(C_PTR).
  mem_size = 64
  call MPI_Alloc_mem(mem_size, MPI_INFO_NULL, mem)
  call c_f_pointer(mem, ints, [16])
  ints = 3
  call MPI_Free_mem(ints)

  ! Waitany's index is 1-based.
  call MPI_Irecv(w, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs(1))
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Waitany(2, reqs, idx, status)
  call check(idx == 1 .and. status%MPI_SOURCE == MPI_PROC_NULL, 'Waitany index')

  ! A generalized request with Fortran callbacks.
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, 12_MPI_ADDRESS_KIND, greq)
  call MPI_Grequest_complete(greq)
  call MPI_Wait(greq, status)
  call MPI_Get_count(status, MPI_BYTE, n)
  call check(queries == 1 .and. n == 12, 'generalized request')

  call MPI_Comm_free(half)
  call MPI_Comm_free(cart)
  call MPI_Comm_free(dup)
  call finish('f08_comm_types')
contains
  include 'f08_check.inc'

  ! Sets the attribute on dup, duplicates dup, checks the copy's value, frees all three.
  subroutine attr_through_dup(keyval, setval, expect, what)
    integer, intent(inout) :: keyval
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: setval, expect
    character(len=*), intent(in) :: what
    type(MPI_Comm) :: copy
    integer(kind=MPI_ADDRESS_KIND) :: got
    logical :: found
    call MPI_Comm_set_attr(dup, keyval, setval)
    call MPI_Comm_dup(dup, copy)
    call MPI_Comm_get_attr(copy, keyval, got, found)
    call check(found .and. got == expect, what)
    call MPI_Comm_free(copy)
    call MPI_Comm_delete_attr(dup, keyval)
    call MPI_Comm_free_keyval(keyval)
    call check(keyval == MPI_KEYVAL_INVALID, what // ': Comm_free_keyval')
  end subroutine attr_through_dup
end program f08_comm_types

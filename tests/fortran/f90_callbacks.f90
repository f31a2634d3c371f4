! mempi-test: np=1,2,4,5 timeout=90
! f90_callbacks.f90 -- Fortran procedures called back by MPI, attributes of every flavour, user error codes, topologies, buffered sends.  MemPI, BSD-3-Clause (see LICENSE).
!
! Generalized requests whose query/free/cancel callbacks are Fortran subroutines (query
! fills the status with MPI_STATUS_SET_ELEMENTS / MPI_STATUS_SET_CANCELLED); MPI-1
! attributes (MPI_KEYVAL_CREATE with MPI_DUP_FN, MPI_ATTR_PUT/GET, INTEGER values) and
! datatype attributes (MPI_TYPE_DUP_FN, ADDRESS_KIND values) copied by dup; user error
! classes, codes and strings raised through MPI_COMM_CALL_ERRHANDLER into a Fortran
! handler; MPI_TYPE_CREATE_F90_REAL/INTEGER; Cartesian rank/coords and neighbour
! collectives; a graph topology; MPI_BSEND with an attached buffer.
! The callbacks count their calls in a common block (a module would leave a .mod file in
! the directory the test is compiled from).
block data cbinit
  implicit none
  integer :: queries, frees, handled, lastcode
  common /cbstate/ queries, frees, handled, lastcode
  data queries, frees, handled, lastcode / 0, 0, 0, -1 /
end block data cbinit

program callbacks
  use mpi
  implicit none
  integer :: queries, frees, handled, lastcode
  common /cbstate/ queries, frees, handled, lastcode
  integer :: ierr, rank, nprocs
  logical :: ok

  ok = .true.
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call grequest()
  call attributes()
  call user_errors()
  call f90_types()
  call topologies()
  call buffered()
  call MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. ok) print *, 'f90_callbacks: all checks passed on', nprocs, 'ranks'
  call MPI_Finalize(ierr)
  if (.not. ok) stop 1

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print *, rank, ': ', what
    ok = .false.
  end subroutine fail

  subroutine grequest()
    integer :: req, st(MPI_STATUS_SIZE), n
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: done
    external :: gq_query, gq_free, gq_cancel
    extra = 1234
    call MPI_Grequest_start(gq_query, gq_free, gq_cancel, extra, req, ierr)
    if (ierr /= MPI_SUCCESS) call fail('MPI_GREQUEST_START')
    call MPI_Test(req, done, st, ierr)
    if (done) call fail('generalized request done before MPI_GREQUEST_COMPLETE')
    call MPI_Grequest_complete(req, ierr)
    call MPI_Wait(req, st, ierr)
    if (req /= MPI_REQUEST_NULL) call fail('generalized request not freed')
    if (queries /= 1 .or. frees /= 1) call fail('generalized request callbacks not called once')
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    if (n /= 3 .or. st(MPI_SOURCE) /= 1234 .or. st(MPI_TAG) /= 77) &
      call fail('status from the Fortran query callback')
    call MPI_Test_cancelled(st, done, ierr)
    if (done) call fail('MPI_TEST_CANCELLED after query set .false.')
  end subroutine grequest

  subroutine attributes()
    integer :: kv, dup, val, tkv, tdup
    integer(kind=MPI_ADDRESS_KIND) :: aval, extra
    logical :: found
    ! MPI-1 style: INTEGER attribute values.
    call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, kv, 0, ierr)
    call MPI_Attr_put(MPI_COMM_WORLD, kv, 4242 + rank, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    val = -1
    found = .false.
    call MPI_Attr_get(dup, kv, val, found, ierr)
    if (.not. found .or. val /= 4242 + rank) call fail('MPI_DUP_FN did not copy the attribute')
    call MPI_Attr_delete(dup, kv, ierr)
    call MPI_Attr_get(dup, kv, val, found, ierr)
    if (found) call fail('MPI_ATTR_DELETE')
    call MPI_Comm_free(dup, ierr)
    call MPI_Keyval_free(kv, ierr)
    if (kv /= MPI_KEYVAL_INVALID) call fail('MPI_KEYVAL_FREE')
    ! Datatype attributes, ADDRESS_KIND values, copied by MPI_TYPE_DUP_FN.
    extra = 0
    call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkv, extra, ierr)
    aval = 2_MPI_ADDRESS_KIND**40 + rank
    call MPI_Type_dup(MPI_INTEGER, tdup, ierr)
    call MPI_Type_set_attr(tdup, tkv, aval, ierr)
    call MPI_Type_dup(tdup, val, ierr)
    aval = 0
    call MPI_Type_get_attr(val, tkv, aval, found, ierr)
    if (.not. found .or. aval /= 2_MPI_ADDRESS_KIND**40 + rank) call fail('MPI_TYPE_DUP_FN')
    call MPI_Type_free(val, ierr)
    call MPI_Type_free(tdup, ierr)
    call MPI_Type_free_keyval(tkv, ierr)
  end subroutine attributes

  subroutine user_errors()
    integer :: cls, code, eh, c2, len, dup
    character(len=MPI_MAX_ERROR_STRING) :: msg
    external :: handler
    call MPI_Add_error_class(cls, ierr)
    call MPI_Add_error_code(cls, code, ierr)
    call MPI_Add_error_string(code, 'a Fortran-made error   ', ierr)
    call MPI_Error_string(code, msg, len, ierr)
    if (msg /= 'a Fortran-made error' .or. len /= 20) call fail('user error string: ' // msg)
    call MPI_Error_class(code, c2, ierr)
    if (c2 /= cls) call fail('class of a user code')
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_create_errhandler(handler, eh, ierr)
    call MPI_Comm_set_errhandler(dup, eh, ierr)
    call MPI_Comm_call_errhandler(dup, code, ierr)
    if (handled /= 1 .or. lastcode /= code) call fail('Fortran error handler not called with the code')
    call MPI_Errhandler_free(eh, ierr)
    call MPI_Comm_free(dup, ierr)
  end subroutine user_errors

  subroutine f90_types()
    integer :: t, sz, t2
    double precision :: d(2), e(2)
    call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t, ierr)
    call MPI_Type_size(t, sz, ierr)
    if (ierr /= MPI_SUCCESS .or. sz /= 8) call fail('MPI_TYPE_CREATE_F90_REAL(15)')
    d = (/ 1.5d0, -2.d0 /)
    e = 0
    call MPI_Sendrecv(d, 2, t, 0, 3, e, 2, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_SELF, &
                      MPI_STATUS_IGNORE, ierr)
    if (any(e /= d)) call fail('send with an F90 real type')
    call MPI_Type_create_f90_integer(9, t2, ierr)
    call MPI_Type_size(t2, sz, ierr)
    if (sz /= 4) call fail('MPI_TYPE_CREATE_F90_INTEGER(9)')
    call MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, t2, ierr)
    if (t2 /= MPI_REAL4) call fail('MPI_TYPE_MATCH_SIZE(REAL, 4)')
  end subroutine f90_types

  subroutine topologies()
    integer :: cart, dims(2), coords(2), r, src, dst, nb(4), mine(4), i
    logical :: periods(2)
    integer :: graph, index(8), edges(16), nn, nbrs(2)
    dims = 0
    call MPI_Dims_create(nprocs, 2, dims, ierr)
    periods = (/ .true., .false. /)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call MPI_Cart_coords(cart, rank, 2, coords, ierr)
    call MPI_Cart_rank(cart, coords, r, ierr)
    if (r /= rank) call fail('MPI_CART_RANK(MPI_CART_COORDS)')
    ! Neighbour order: -x, +x, -y, +y.  Each sends its rank to all; MPI_PROC_NULL slots stay.
    mine = rank
    nb = -5
    call MPI_Neighbor_alltoall(mine, 1, MPI_INTEGER, nb, 1, MPI_INTEGER, cart, ierr)
    do i = 0, 1
      call MPI_Cart_shift(cart, i, 1, src, dst, ierr)
      if (src /= MPI_PROC_NULL .and. nb(2 * i + 1) /= src) call fail('neighbour alltoall from -')
      if (src == MPI_PROC_NULL .and. nb(2 * i + 1) /= -5) call fail('neighbour alltoall wrote PROC_NULL slot')
      if (dst /= MPI_PROC_NULL .and. nb(2 * i + 2) /= dst) call fail('neighbour alltoall from +')
    end do
    call MPI_Comm_free(cart, ierr)
    ! A ring as a graph: node i has neighbours i-1 and i+1.
    if (nprocs >= 3 .and. nprocs <= 8) then
      do i = 1, nprocs
        index(i) = 2 * i
        edges(2 * i - 1) = mod(i - 2 + nprocs, nprocs)
        edges(2 * i) = mod(i, nprocs)
      end do
      call MPI_Graph_create(MPI_COMM_WORLD, nprocs, index, edges, .false., graph, ierr)
      call MPI_Graph_neighbors_count(graph, rank, nn, ierr)
      call MPI_Graph_neighbors(graph, rank, 2, nbrs, ierr)
      if (nn /= 2 .or. nbrs(1) /= mod(rank - 1 + nprocs, nprocs) .or. nbrs(2) /= mod(rank + 1, nprocs)) &
        call fail('graph neighbours')
      call MPI_Comm_free(graph, ierr)
    end if
  end subroutine topologies

  subroutine buffered()
    integer :: sz, bufsize, v, w, st(MPI_STATUS_SIZE)
    character(len=1), allocatable :: buf(:)
    integer :: dsize
    call MPI_Pack_size(1, MPI_INTEGER, MPI_COMM_WORLD, sz, ierr)
    bufsize = 2 * (sz + MPI_BSEND_OVERHEAD)
    allocate(buf(bufsize))
    call MPI_Buffer_attach(buf, bufsize, ierr)
    v = 500 + rank
    call MPI_Bsend(v, 1, MPI_INTEGER, mod(rank + 1, nprocs), 9, MPI_COMM_WORLD, ierr)
    call MPI_Recv(w, 1, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 9, MPI_COMM_WORLD, st, ierr)
    if (w /= 500 + mod(rank - 1 + nprocs, nprocs)) call fail('MPI_BSEND')
    call MPI_Buffer_detach(buf, dsize, ierr)
    if (dsize /= bufsize) call fail('MPI_BUFFER_DETACH size')
  end subroutine buffered
end program callbacks

subroutine gq_query(extra, status, ierr)
  use mpi
  implicit none
  integer :: queries, frees, handled, lastcode
  common /cbstate/ queries, frees, handled, lastcode
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  queries = queries + 1
  status(MPI_SOURCE) = int(extra)
  status(MPI_TAG) = 77
  call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierr)
  call MPI_Status_set_cancelled(status, .false., ierr)
  ierr = MPI_SUCCESS
end subroutine gq_query

subroutine gq_free(extra, ierr)
  use mpi
  implicit none
  integer :: queries, frees, handled, lastcode
  common /cbstate/ queries, frees, handled, lastcode
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  if (extra == 1234) frees = frees + 1
  ierr = MPI_SUCCESS
end subroutine gq_free

subroutine gq_cancel(extra, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
end subroutine gq_cancel

subroutine handler(comm, code)
  implicit none
  integer :: queries, frees, handled, lastcode
  common /cbstate/ queries, frees, handled, lastcode
  integer :: comm, code
  handled = handled + 1
  lastcode = code
end subroutine handler

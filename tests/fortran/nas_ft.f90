! mempi-test: np=1,2,3,4,5 timeout=120
! nas_ft.f90 -- an FT-style 2-D DFT by transpose, plus status, error, CHARACTER and LOGICAL arguments, with `use mpi`.  MemPI, BSD-3-Clause (see LICENSE).
!
! The FT part: an N x N DOUBLE COMPLEX array is distributed by blocks of columns.  A 1-D DFT
! runs along the local columns, the array is transposed, and a second 1-D DFT along the new
! local columns completes the 2-D DFT.  The transpose is one MPI_SENDRECV per peer whose
! send side is an MPI_TYPE_CREATE_SUBARRAY block of the local array and whose receive side
! is an MPI_TYPE_VECTOR column resized to one element and repeated, which stores the block
! transposed: no packing loop in the program.  Verified: the transpose itself (exactly, and
! back again), every status (MPI_SOURCE, MPI_TAG, MPI_GET_COUNT), the DFT against the direct
! 2-D sum at sampled points, and a checksum from MPI_ALLREDUCE with MPI_IN_PLACE.
!
! Then the binding details a port of NPB code depends on: MPI_INITIALIZED (LOGICAL) before
! and after MPI_INIT; MPI_ERRORS_RETURN and error classes (invalid rank, tag, count,
! datatype) with MPI_ERROR_CLASS and MPI_ERROR_STRING (blank-padded, no NUL);
! MPI_COMM_SET_NAME / MPI_COMM_GET_NAME and MPI_GET_PROCESSOR_NAME (CHARACTER with hidden
! lengths); MPI_TEST and MPI_IPROBE (LOGICAL flags); MPI_SIZEOF.
program nasft
  use mpi
  implicit none
  integer, parameter :: n = 60
  double precision, parameter :: pi = 3.14159265358979323846d0
  complex(kind=8), allocatable :: a(:, :), b(:, :), c(:, :), w(:)
  complex(kind=8) :: chk(1), ref, z
  integer :: ierr, rank, nprocs, nloc, to, from, sub, col, colr, tr, i, j, k, cnt
  integer :: sizes(2), subsizes(2), starts(2), st(MPI_STATUS_SIZE), sz
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  double precision :: err, maxerr(2)
  logical :: ok, flag

  ok = .true.
  flag = .true.
  call MPI_Initialized(flag, ierr)
  if (flag .or. ierr /= MPI_SUCCESS) then
    print *, 'MPI_Initialized before MPI_Init gave', flag, ierr
    ok = .false.
  end if
  call MPI_Init(ierr)
  call MPI_Initialized(flag, ierr)
  if (.not. flag) then
    print *, 'MPI_Initialized after MPI_Init gave .false.'
    ok = .false.
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (mod(n, nprocs) /= 0) then
    if (rank == 0) print *, 'n =', n, ' does not divide by', nprocs
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  nloc = n / nprocs
  allocate(a(n, nloc), b(n, nloc), c(n, nloc), w(0:n-1))
  do k = 0, n - 1
    w(k) = exp(cmplx(0.d0, -2.d0 * pi * k / n, kind=8))
  end do

  call MPI_Sizeof(z, sz, ierr)
  if (sz /= 16 .or. ierr /= MPI_SUCCESS) then
    print *, 'MPI_SIZEOF(complex(8)) =', sz
    ok = .false.
  end if
  call MPI_Sizeof(a, sz, ierr)
  if (sz /= 16) ok = .false.
  call MPI_Sizeof(nloc, sz, ierr)
  if (sz /= 4) ok = .false.

  ! Local columns j = rank*nloc+1 .. (rank+1)*nloc of G.
  do j = 1, nloc
    do i = 1, n
      a(i, j) = g(i, rank * nloc + j)
    end do
  end do

  ! The receive type: nloc elements a column (stride n) apart, resized to one element,
  ! nloc times: element (r, c) of the incoming block lands at (c, r).
  call MPI_Type_vector(nloc, 1, n, MPI_DOUBLE_COMPLEX, col, ierr)
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, sz, ierr)
  lb = 0
  extent = sz
  call MPI_Type_create_resized(col, lb, extent, colr, ierr)
  call MPI_Type_contiguous(nloc, colr, tr, ierr)
  call MPI_Type_commit(tr, ierr)
  call MPI_Type_get_extent(colr, lb, extent, ierr)
  if (lb /= 0 .or. extent /= 16) then
    print *, rank, ': resized extent', lb, extent
    ok = .false.
  end if

  ! First check the transpose alone: b = transpose(G) distributed the same way, then back.
  call transpose(a, b)
  do j = 1, nloc
    do i = 1, n
      if (b(i, j) /= g(rank * nloc + j, i)) then
        print *, rank, ': transpose wrong at', i, j, b(i, j)
        ok = .false.
      end if
    end do
  end do
  call transpose(b, c)
  if (any(c /= a)) then
    print *, rank, ': transposing twice is not the identity'
    ok = .false.
  end if

  ! The 2-D DFT: columns, transpose, columns.
  call dft_columns(a)
  call transpose(a, b)
  call dft_columns(b)
  ! b(k2, jl) = F(k1 = rank*nloc + jl, k2); check sampled points against the direct sum.
  err = 0
  do j = 1, nloc
    do i = 1, n
      if (mod(i + 3 * (rank * nloc + j), 17) /= 0) cycle
      err = max(err, abs(b(i, j) - direct(rank * nloc + j, i)))
    end do
  end do
  maxerr(1) = err
  maxerr(2) = -err
  call MPI_Allreduce(MPI_IN_PLACE, maxerr, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (maxerr(1) > 1.d-9 .or. maxerr(2) > 0.d0) then
    print *, rank, ': DFT error', maxerr
    ok = .false.
  end if
  ! Checksum: F(1,1) is the sum of G; sum of all F is n*n*G(1,1).
  chk(1) = sum(b)
  call MPI_Allreduce(MPI_IN_PLACE, chk, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  ref = n * n * g(1, 1)
  if (abs(chk(1) - ref) > 1.d-8 * abs(ref)) then
    print *, rank, ': checksum', chk(1), ' expected', ref
    ok = .false.
  end if
  if (rank == 0) print '(a,i2,a,2f14.6)', ' FT on ', nprocs, ' ranks: checksum', chk(1)
  call MPI_Type_free(tr, ierr)
  call MPI_Type_free(colr, ierr)
  call MPI_Type_free(col, ierr)

  call check_errors()
  call check_strings()
  call check_logicals()

  call MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (ok) then
      print *, '  VERIFICATION SUCCESSFUL'
    else
      print *, '  VERIFICATION FAILED'
    end if
  end if
  deallocate(a, b, c, w)
  call MPI_Finalize(ierr)
  call MPI_Finalized(flag, ierr)
  if (.not. flag) ok = .false.
  if (.not. ok) stop 1

contains

  complex(kind=8) function g(i, j)
    integer, intent(in) :: i, j
    g = cmplx(mod(3 * i + 5 * j, 11) - 5, mod(i * j, 13) - 6, kind=8) * 0.1d0
  end function g

  ! F(k1, k2) = sum over i, j of G(i, j) w^((i-1)(k1-1)) w^((j-1)(k2-1)).
  complex(kind=8) function direct(k1, k2)
    integer, intent(in) :: k1, k2
    integer :: ii, jj
    direct = 0
    do jj = 1, n
      do ii = 1, n
        direct = direct + g(ii, jj) * w(mod((ii - 1) * (k1 - 1), n)) * w(mod((jj - 1) * (k2 - 1), n))
      end do
    end do
  end function direct

  subroutine dft_columns(x)
    complex(kind=8), intent(inout) :: x(n, nloc)
    complex(kind=8) :: y(n)
    integer :: jj, kk, ii
    do jj = 1, nloc
      do kk = 1, n
        y(kk) = 0
        do ii = 1, n
          y(kk) = y(kk) + x(ii, jj) * w(mod((ii - 1) * (kk - 1), n))
        end do
      end do
      x(:, jj) = y
    end do
  end subroutine dft_columns

  ! y = transpose of x, both distributed by column blocks.  Round s sends my rows of peer
  ! `to`'s columns (a subarray) and receives `from`'s block into my rows from*nloc+1...
  subroutine transpose(x, y)
    complex(kind=8), intent(in) :: x(n, nloc)
    complex(kind=8), intent(out) :: y(n, nloc)
    integer :: ss, ie, stat(MPI_STATUS_SIZE)
    do ss = 0, nprocs - 1
      to = mod(rank + ss, nprocs)
      from = mod(rank - ss + nprocs, nprocs)
      sizes = (/ n, nloc /)
      subsizes = (/ nloc, nloc /)
      starts = (/ to * nloc, 0 /)
      call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, &
                                    MPI_DOUBLE_COMPLEX, sub, ie)
      call MPI_Type_commit(sub, ie)
      stat = -99
      call MPI_Sendrecv(x, 1, sub, to, 100 + ss, y(from * nloc + 1, 1), 1, tr, from, &
                        100 + ss, MPI_COMM_WORLD, stat, ie)
      call MPI_Get_count(stat, MPI_DOUBLE_COMPLEX, cnt, ie)
      if (stat(MPI_SOURCE) /= from .or. stat(MPI_TAG) /= 100 + ss .or. cnt /= nloc * nloc) then
        print *, rank, ': transpose status', stat(MPI_SOURCE), stat(MPI_TAG), cnt
        ok = .false.
      end if
      call MPI_Get_count(stat, tr, cnt, ie)
      if (cnt /= 1) then
        print *, rank, ': MPI_GET_COUNT in the transposing type gave', cnt
        ok = .false.
      end if
      call MPI_Type_free(sub, ie)
      if (sub /= MPI_DATATYPE_NULL) ok = .false.
    end do
  end subroutine transpose

  ! Under MPI_ERRORS_RETURN bad arguments come back as codes of the right class, with text.
  subroutine check_errors()
    integer :: ie, ie2, cls, buf(4), len, req
    character(len=MPI_MAX_ERROR_STRING) :: msg
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ie)
    buf = 0
    call MPI_Send(buf, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ie)
    call expect_class(ie, MPI_ERR_RANK, 'MPI_SEND to rank nprocs')
    msg = 'x'
    len = -1
    call MPI_Error_string(ie, msg, len, ie2)
    if (ie2 /= MPI_SUCCESS .or. len <= 0 .or. len > MPI_MAX_ERROR_STRING) then
      print *, rank, ': MPI_ERROR_STRING length', len
      ok = .false.
    else if (index(msg(1:len), char(0)) /= 0 .or. msg(len + 1:) /= ' ' .or. &
             msg(len:len) == ' ') then
      print *, rank, ': MPI_ERROR_STRING not blank-padded: "', msg(1:min(len + 5, 80)), '"'
      ok = .false.
    end if
    call MPI_Send(buf, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ie)
    call expect_class(ie, MPI_ERR_TAG, 'MPI_SEND with tag -5')
    call MPI_Send(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ie)
    call expect_class(ie, MPI_ERR_COUNT, 'MPI_SEND with count -1')
    call MPI_Isend(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, req, ie)
    call expect_class(ie, MPI_ERR_TYPE, 'MPI_ISEND with MPI_DATATYPE_NULL')
    call MPI_Recv(buf, 1, MPI_INTEGER, -7, 0, MPI_COMM_WORLD, st, ie)
    call expect_class(ie, MPI_ERR_RANK, 'MPI_RECV from rank -7')
    call MPI_Error_class(MPI_ERR_RANK, cls, ie)
    if (cls /= MPI_ERR_RANK .or. ie /= MPI_SUCCESS) ok = .false.
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ie)
  end subroutine check_errors

  subroutine expect_class(code, want, what)
    integer, intent(in) :: code, want
    character(len=*), intent(in) :: what
    integer :: cls, ie
    if (code == MPI_SUCCESS) then
      print *, rank, ': ', what, ' succeeded'
      ok = .false.
      return
    end if
    call MPI_Error_class(code, cls, ie)
    if (cls /= want) then
      print *, rank, ': ', what, ' gave class', cls, ' expected', want
      ok = .false.
    end if
  end subroutine expect_class

  subroutine check_strings()
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=MPI_MAX_PROCESSOR_NAME) :: pname, pname0
    integer :: node
    character(len=5) :: short
    integer :: dup, len, ie
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ie)
    call MPI_Comm_set_name(dup, 'ft transpose comm', ie)
    name = '?'
    call MPI_Comm_get_name(dup, name, len, ie)
    if (len /= 17 .or. name /= 'ft transpose comm' .or. index(name, char(0)) /= 0) then
      print *, rank, ': MPI_COMM_GET_NAME gave "', trim(name), '" length', len
      ok = .false.
    end if
    ! Trailing blanks of a Fortran string are not part of the name.
    call MPI_Comm_set_name(dup, 'ft   ', ie)
    call MPI_Comm_get_name(dup, name, len, ie)
    if (len /= 2 .or. name /= 'ft') then
      print *, rank, ': name set as "ft   " came back as "', trim(name), '" length', len
      ok = .false.
    end if
    call MPI_Comm_get_name(MPI_COMM_WORLD, name, len, ie)
    if (name /= 'MPI_COMM_WORLD' .or. len /= 14) then
      print *, rank, ': MPI_COMM_WORLD is called "', trim(name), '"', len
      ok = .false.
    end if
    call MPI_Comm_free(dup, ie)
    if (dup /= MPI_COMM_NULL) ok = .false.
    ! A name longer than the buffer is cut to the buffer (from an argument of length 5).
    call MPI_Comm_get_name(MPI_COMM_WORLD, short, len, ie)
    if (short /= 'MPI_C') then
      print *, rank, ': name into CHARACTER(5) gave "', short, '"'
      ok = .false.
    end if

    pname = '?'
    len = -1
    call MPI_Get_processor_name(pname, len, ie)
    if (ie /= MPI_SUCCESS .or. len <= 0 .or. len > MPI_MAX_PROCESSOR_NAME .or. &
        index(pname, char(0)) /= 0 .or. pname(len + 1:) /= ' ') then
      print *, rank, ': MPI_GET_PROCESSOR_NAME gave "', trim(pname), '"', len
      ok = .false.
    end if
    ! Every rank of a node runs on the same host (on a cluster, nodes differ).
    pname0 = pname
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node, ie)
    call MPI_Bcast(pname0, MPI_MAX_PROCESSOR_NAME, MPI_CHARACTER, 0, node, ie)
    call MPI_Comm_free(node, ie)
    if (pname0 /= pname) then
      print *, rank, ': processor name "', trim(pname), '" vs its node''s first rank "', &
        trim(pname0), '"'
      ok = .false.
    end if
  end subroutine check_strings

  ! LOGICAL flags: MPI_TEST and MPI_IPROBE say .false. before a message exists, .true. after.
  subroutine check_logicals()
    integer :: req, val, ie, tries, stat(MPI_STATUS_SIZE)
    logical :: done, found
    val = -1
    call MPI_Irecv(val, 1, MPI_INTEGER, rank, 55, MPI_COMM_WORLD, req, ie)
    done = .true.
    call MPI_Test(req, done, stat, ie)
    if (done) then
      print *, rank, ': MPI_TEST completed a receive nobody sent'
      ok = .false.
    end if
    found = .true.
    call MPI_Iprobe(MPI_ANY_SOURCE, 56, MPI_COMM_WORLD, found, stat, ie)
    if (found) then
      print *, rank, ': MPI_IPROBE found a message nobody sent'
      ok = .false.
    end if
    call MPI_Send(rank * 10 + 3, 1, MPI_INTEGER, rank, 55, MPI_COMM_WORLD, ie)
    tries = 0
    do while (.not. done)
      call MPI_Test(req, done, stat, ie)
      tries = tries + 1
    end do
    call MPI_F_sync_reg(val)            ! val was written behind the compiler's back
    call MPI_Get_count(stat, MPI_INTEGER, cnt, ie)
    if (val /= rank * 10 + 3 .or. stat(MPI_SOURCE) /= rank .or. stat(MPI_TAG) /= 55 .or. &
        cnt /= 1 .or. req /= MPI_REQUEST_NULL) then
      print *, rank, ': MPI_TEST result', val, stat(MPI_SOURCE), stat(MPI_TAG), cnt
      ok = .false.
    end if
  end subroutine check_logicals
end program nasft

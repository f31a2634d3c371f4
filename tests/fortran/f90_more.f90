! mempi-test: np=1,2,3,5 timeout=90
! f90_more.f90 -- the less common bindings: names, versions, packing, matched probes, persistent and nonblocking collectives, intercommunicators.  MemPI, BSD-3-Clause (see LICENSE).
!
! Each section calls a group of functions the other Fortran tests do not and checks every
! output argument, in the shapes Fortran gives them: CHARACTER with hidden length,
! LOGICAL flags, INTEGER(KIND=MPI_ADDRESS_KIND) displacements, 1-based indices, statuses.
program more
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, provided
  logical :: ok, flag

  ok = .true.
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  if (ierr /= MPI_SUCCESS .or. provided < MPI_THREAD_SINGLE .or. provided > MPI_THREAD_MULTIPLE) then
    print *, 'MPI_INIT_THREAD gave', ierr, provided
    ok = .false.
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  flag = .false.
  call MPI_Is_thread_main(flag, ierr)
  if (.not. flag) then
    print *, rank, ': MPI_IS_THREAD_MAIN gave .false.'
    ok = .false.
  end if

  call versions()
  call type_names()
  call packing()
  call matched_probe()
  call persistent()
  call nonblocking_coll()
  call vector_colls()
  call intercomm()
  call hindexed()

  call MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. ok) print *, 'f90_more: all checks passed on', nprocs, 'ranks'
  call MPI_Finalize(ierr)
  if (.not. ok) stop 1

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print *, rank, ': ', what
    ok = .false.
  end subroutine fail

  subroutine versions()
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
    integer :: len, v, sv
    lib = '?'
    len = -1
    call MPI_Get_library_version(lib, len, ierr)
    if (ierr /= MPI_SUCCESS .or. len <= 0 .or. len > MPI_MAX_LIBRARY_VERSION_STRING) &
      call fail('MPI_GET_LIBRARY_VERSION length')
    if (len > 0 .and. len <= MPI_MAX_LIBRARY_VERSION_STRING) then
      if (index(lib(1:len), 'MemPI') == 0 .or. index(lib, char(0)) /= 0 .or. lib(len + 1:) /= ' ') &
        call fail('MPI_GET_LIBRARY_VERSION text: ' // trim(lib))
    end if
    ! The library's level (MemPI: 4.1); a program built with MPICH 4.0.2's mpif.h has 4.0
    ! in its constants, so the library may be newer than the header, never older.
    call MPI_Get_version(v, sv, ierr)
    if (v /= 4 .or. sv /= 1 .or. v < MPI_VERSION .or. (v == MPI_VERSION .and. sv < MPI_SUBVERSION)) &
      call fail('MPI_GET_VERSION')
  end subroutine versions

  subroutine type_names()
    character(len=MPI_MAX_OBJECT_NAME) :: name
    integer :: len, t, ni, na, nd, comb, ints(4), types(2)
    integer(kind=MPI_ADDRESS_KIND) :: addrs(2)
    call MPI_Type_get_name(MPI_DOUBLE_PRECISION, name, len, ierr)
    if (name /= 'MPI_DOUBLE_PRECISION' .or. len /= 20) call fail('name of MPI_DOUBLE_PRECISION: ' // name)
    call MPI_Type_vector(3, 2, 5, MPI_REAL, t, ierr)
    call MPI_Type_set_name(t, 'my vector', ierr)
    call MPI_Type_get_name(t, name, len, ierr)
    if (name /= 'my vector' .or. len /= 9) call fail('MPI_TYPE_GET_NAME: ' // name)
    call MPI_Type_get_envelope(t, ni, na, nd, comb, ierr)
    if (ni /= 3 .or. na /= 0 .or. nd /= 1 .or. comb /= MPI_COMBINER_VECTOR) call fail('envelope')
    ints = -1
    types = -1
    call MPI_Type_get_contents(t, 4, 2, 2, ints, addrs, types, ierr)
    if (any(ints(1:3) /= (/ 3, 2, 5 /)) .or. types(1) /= MPI_REAL) call fail('contents')
    call MPI_Type_free(t, ierr)
  end subroutine type_names

  subroutine packing()
    integer :: ibuf(3), jbuf(3), psize, pos, pos2, tot
    double precision :: d, e
    character(len=1) :: packed(200)
    ibuf = (/ 7, 8, 9 /)
    d = 2.5d0
    call MPI_Pack_size(3, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
    if (psize < 12) call fail('MPI_PACK_SIZE')
    pos = 0
    call MPI_Pack(ibuf, 3, MPI_INTEGER, packed, 200, pos, MPI_COMM_WORLD, ierr)
    call MPI_Pack(d, 1, MPI_DOUBLE_PRECISION, packed, 200, pos, MPI_COMM_WORLD, ierr)
    tot = pos
    if (pos /= 20) call fail('MPI_PACK position')
    pos2 = 0
    jbuf = 0
    e = 0
    call MPI_Unpack(packed, 200, pos2, jbuf, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Unpack(packed, 200, pos2, e, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    if (any(jbuf /= ibuf) .or. e /= d .or. pos2 /= tot) call fail('MPI_UNPACK')
  end subroutine packing

  ! MPI_IMPROBE's flag and message handle, MPI_MRECV's status, MPI_REQUEST_GET_STATUS.
  subroutine matched_probe()
    integer :: msg, st(MPI_STATUS_SIZE), buf(4), n, req, tries, sreq
    logical :: found, done
    buf = (/ 1, 2, 3, rank /)
    call MPI_Isend(buf, 4, MPI_INTEGER, 0, 31, MPI_COMM_SELF, sreq, ierr)
    found = .false.
    tries = 0
    do while (.not. found)
      call MPI_Improbe(MPI_ANY_SOURCE, 31, MPI_COMM_SELF, found, msg, st, ierr)
      tries = tries + 1
    end do
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    if (n /= 4 .or. st(MPI_SOURCE) /= 0 .or. st(MPI_TAG) /= 31 .or. msg == MPI_MESSAGE_NULL) &
      call fail('MPI_IMPROBE')
    buf = 0
    call MPI_Mrecv(buf, 4, MPI_INTEGER, msg, st, ierr)
    if (any(buf /= (/ 1, 2, 3, rank /)) .or. msg /= MPI_MESSAGE_NULL .or. st(MPI_TAG) /= 31) &
      call fail('MPI_MRECV')
    call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
    ! MPI_REQUEST_GET_STATUS leaves the request alone.
    call MPI_Irecv(buf, 4, MPI_INTEGER, 0, 32, MPI_COMM_SELF, req, ierr)
    call MPI_Request_get_status(req, done, st, ierr)
    if (done) call fail('MPI_REQUEST_GET_STATUS done before the send')
    call MPI_Send((/ 5, 6 /), 2, MPI_INTEGER, 0, 32, MPI_COMM_SELF, ierr)
    done = .false.
    do while (.not. done)
      call MPI_Request_get_status(req, done, st, ierr)
    end do
    if (req == MPI_REQUEST_NULL) call fail('MPI_REQUEST_GET_STATUS freed the request')
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    if (n /= 2) call fail('MPI_REQUEST_GET_STATUS count')
    call MPI_Wait(req, st, ierr)
    call MPI_F_sync_reg(buf)
    if (any(buf(1:2) /= (/ 5, 6 /))) call fail('receive completed through MPI_REQUEST_GET_STATUS')
    ! Cancel a receive nobody matches: MPI_TEST_CANCELLED says .true.
    call MPI_Irecv(buf, 1, MPI_INTEGER, 0, 33, MPI_COMM_SELF, req, ierr)
    call MPI_Cancel(req, ierr)
    call MPI_Wait(req, st, ierr)
    done = .false.
    call MPI_Test_cancelled(st, done, ierr)
    if (.not. done) call fail('MPI_TEST_CANCELLED')
  end subroutine matched_probe

  ! Persistent ring exchange with MPI_SEND_INIT / MPI_RECV_INIT / MPI_STARTALL.
  subroutine persistent()
    integer :: reqs(2), sbuf, rbuf, it, sts(MPI_STATUS_SIZE, 2), right, left
    right = mod(rank + 1, nprocs)
    left = mod(rank - 1 + nprocs, nprocs)
    call MPI_Recv_init(rbuf, 1, MPI_INTEGER, left, 41, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Send_init(sbuf, 1, MPI_INTEGER, right, 41, MPI_COMM_WORLD, reqs(2), ierr)
    ! sbuf and rbuf are used by MPI behind the compiler's back (their addresses were given
    ! to the *_INIT calls): MPI_F_SYNC_REG makes the compiler store them before the start
    ! and reload them after the wait, instead of keeping them in registers.
    do it = 1, 3
      sbuf = 100 * it + rank
      rbuf = -1
      call MPI_F_sync_reg(sbuf)
      call MPI_F_sync_reg(rbuf)
      call MPI_Startall(2, reqs, ierr)
      call MPI_Waitall(2, reqs, sts, ierr)
      call MPI_F_sync_reg(rbuf)
      if (rbuf /= 100 * it + left .or. sts(MPI_SOURCE, 1) /= left .or. sts(MPI_TAG, 1) /= 41) &
        call fail('persistent ring')
      if (reqs(1) == MPI_REQUEST_NULL) call fail('persistent request freed by MPI_WAITALL')
    end do
    call MPI_Request_free(reqs(1), ierr)
    call MPI_Request_free(reqs(2), ierr)
    if (reqs(1) /= MPI_REQUEST_NULL) call fail('MPI_REQUEST_FREE')
  end subroutine persistent

  subroutine nonblocking_coll()
    integer :: req, reqs(2), v, w, x(2), idx
    double precision :: pair(2, 1), res(2, 1)
    v = rank + 1
    call MPI_Iallreduce(v, w, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_F_sync_reg(w)
    if (w /= nprocs * (nprocs + 1) / 2) call fail('MPI_IALLREDUCE')
    x = (/ -1, -1 /)
    if (rank == 0) x = (/ 11, 22 /)
    call MPI_Ibcast(x, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Ibarrier(MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
    if (idx < 1 .or. idx > 2) call fail('MPI_WAITANY index not 1-based')
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call MPI_F_sync_reg(x)
    if (any(x /= (/ 11, 22 /))) call fail('MPI_IBCAST')
    call MPI_Exscan(v, w, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank > 0 .and. w /= rank * (rank + 1) / 2) call fail('MPI_EXSCAN')
    ! MAXLOC on MPI_2DOUBLE_PRECISION: value and rank of the largest.
    pair(1, 1) = dble(mod(rank * 7, 5))
    pair(2, 1) = dble(rank)
    call MPI_Allreduce(pair, res, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    if (res(1, 1) /= dble(maxval((/ (mod(v * 7, 5), v = 0, nprocs - 1) /)))) call fail('MAXLOC value')
    if (mod(nint(res(2, 1)) * 7, 5) /= nint(res(1, 1))) call fail('MAXLOC location')
  end subroutine nonblocking_coll

  ! Gatherv/Scatterv with uneven counts and MPI_ALLTOALLW with per-peer types.
  subroutine vector_colls()
    integer, allocatable :: counts(:), displs(:), all(:), types(:), wd(:)
    integer :: mine(8), back(8), i, k, nall
    integer, allocatable :: sb(:), rb(:)
    allocate(counts(nprocs), displs(nprocs), types(nprocs), wd(nprocs))
    do i = 1, nprocs
      counts(i) = mod(i, 3) + 1
    end do
    displs(1) = 0
    do i = 2, nprocs
      displs(i) = displs(i - 1) + counts(i - 1) + 1
    end do
    nall = displs(nprocs) + counts(nprocs)
    allocate(all(nall))
    all = -1
    mine = 0
    do k = 1, counts(rank + 1)
      mine(k) = 1000 * rank + k
    end do
    call MPI_Gatherv(mine, counts(rank + 1), MPI_INTEGER, all, counts, displs, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      do i = 1, nprocs
        do k = 1, counts(i)
          if (all(displs(i) + k) /= 1000 * (i - 1) + k) call fail('MPI_GATHERV')
        end do
      end do
    end if
    back = 0
    call MPI_Scatterv(all, counts, displs, MPI_INTEGER, back, counts(rank + 1), MPI_INTEGER, 0, &
                      MPI_COMM_WORLD, ierr)
    if (any(back(1:counts(rank + 1)) /= mine(1:counts(rank + 1)))) call fail('MPI_SCATTERV')
    ! Alltoallw: one integer to each peer, displacements in bytes.
    allocate(sb(nprocs), rb(nprocs))
    do i = 1, nprocs
      sb(i) = 100 * rank + (i - 1)
      counts(i) = 1
      wd(i) = 4 * (i - 1)
      types(i) = MPI_INTEGER
    end do
    rb = -1
    call MPI_Alltoallw(sb, counts, wd, types, rb, counts, wd, types, MPI_COMM_WORLD, ierr)
    do i = 1, nprocs
      if (rb(i) /= 100 * (i - 1) + rank) call fail('MPI_ALLTOALLW')
    end do
  end subroutine vector_colls

  ! Even and odd ranks, joined by MPI_INTERCOMM_CREATE, merged with LOGICAL high.
  subroutine intercomm()
    integer :: half, inter, merged, rsize, mrank, color
    logical :: isinter
    if (nprocs < 2) return
    color = mod(rank, 2)
    call MPI_Comm_split(MPI_COMM_WORLD, color, rank, half, ierr)
    call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 51, inter, ierr)
    call MPI_Comm_test_inter(inter, isinter, ierr)
    if (.not. isinter) call fail('MPI_COMM_TEST_INTER')
    call MPI_Comm_remote_size(inter, rsize, ierr)
    ! Evens number (nprocs+1)/2, odds nprocs/2; the remote group is the other kind.
    if ((color == 0 .and. rsize /= nprocs / 2) .or. (color == 1 .and. rsize /= (nprocs + 1) / 2)) &
      call fail('MPI_COMM_REMOTE_SIZE')
    ! Odd ranks ask to be high: they come after all the even ones.
    call MPI_Intercomm_merge(inter, color == 1, merged, ierr)
    call MPI_Comm_rank(merged, mrank, ierr)
    if (color == 0 .and. mrank /= rank / 2) call fail('MPI_INTERCOMM_MERGE low rank')
    if (color == 1 .and. mrank /= (nprocs + 1) / 2 + rank / 2) call fail('MPI_INTERCOMM_MERGE high rank')
    call MPI_Comm_free(merged, ierr)
    call MPI_Comm_free(inter, ierr)
    call MPI_Comm_free(half, ierr)
  end subroutine intercomm

  ! Address-kind displacement arrays: hindexed and hvector over a real array.
  subroutine hindexed()
    real :: src(10), dst(10)
    integer :: t, t2, bl(2), i
    integer(kind=MPI_ADDRESS_KIND) :: d(2), stride, lb, ext
    do i = 1, 10
      src(i) = real(i)
    end do
    bl = (/ 2, 1 /)
    d = (/ 4_MPI_ADDRESS_KIND, 28_MPI_ADDRESS_KIND /)      ! elements 2,3 and 8
    call MPI_Type_create_hindexed(2, bl, d, MPI_REAL, t, ierr)
    call MPI_Type_commit(t, ierr)
    dst = 0
    call MPI_Sendrecv(src, 1, t, 0, 61, dst, 3, MPI_REAL, 0, 61, MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
    if (any(dst(1:3) /= (/ 2., 3., 8. /))) call fail('MPI_TYPE_CREATE_HINDEXED')
    call MPI_Type_get_true_extent(t, lb, ext, ierr)
    if (lb /= 4 .or. ext /= 28) call fail('MPI_TYPE_GET_TRUE_EXTENT')
    stride = 12
    call MPI_Type_create_hvector(3, 1, stride, MPI_REAL, t2, ierr)
    call MPI_Type_commit(t2, ierr)
    dst = 0
    call MPI_Sendrecv(src, 1, t2, 0, 62, dst, 3, MPI_REAL, 0, 62, MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
    if (any(dst(1:3) /= (/ 1., 4., 7. /))) call fail('MPI_TYPE_CREATE_HVECTOR')
    call MPI_Type_free(t, ierr)
    call MPI_Type_free(t2, ierr)
  end subroutine hindexed
end program more

! mempi-test: np=1,2,3,4,6 timeout=60
! f90_comm.f90 -- communicators, strings, LOGICALs and attributes from Fortran.  MemPI, BSD-3-Clause (see LICENSE).
!
! COMM_SPLIT into odd/even halves with reversed keys, COMM_DUP/COMPARE/FREE, names set and
! read back (blank padding, not NUL), MPI_TAG_UB through COMM_GET_ATTR (a value, not an
! address), a user keyval whose Fortran copy callback runs on COMM_DUP, CART_CREATE and
! CART_GET/CART_SUB with LOGICAL periods, INFO strings, INITIALIZED/FINALIZED flags,
! GET_PROCESSOR_NAME and GET_VERSION.
program f90comm
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, half, hrank, hsize, dup, res, i, key, kv, cart, sub, info
  integer :: dims(2), coords(2), src, dst, ndims, len, ver, subver, grp, wgrp, ranks(1), tr(1)
  logical :: periods(2), remain(2), flag, inter
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=40) :: value
  character(len=10) :: short
  integer :: copies
  common /cbcount/ copies
  external copy_fn, delete_fn

  copies = 0
  call MPI_Initialized(flag, ierr)
  call check(.not. flag, 'initialized before init')
  call MPI_Init(ierr)
  call MPI_Initialized(flag, ierr)
  call check(flag, 'initialized after init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! Split: colour = parity, key = -rank (reverses the order).
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  call MPI_Comm_rank(half, hrank, ierr)
  call check(hsize == (nprocs + 1 - mod(rank, 2)) / 2, 'split size')
  call check(hrank == (hsize - 1) - rank / 2, 'split rank order')
  call MPI_Allreduce(rank, i, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  call check(i == sum([(2 * key + mod(rank, 2), key = 0, hsize - 1)]), 'split allreduce')
  call MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, dup, ierr)
  call check(dup == MPI_COMM_NULL, 'split undefined')

  ! Dup, compare, names.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, res, ierr)
  call check(res == MPI_CONGRUENT, 'compare congruent')
  call MPI_Comm_compare(dup, dup, res, ierr)
  call check(res == MPI_IDENT, 'compare ident')
  call MPI_Comm_set_name(dup, 'my dup   ', ierr)
  name = 'garbage'
  call MPI_Comm_get_name(dup, name, len, ierr)
  call check(name == 'my dup' .and. len == 6, 'comm name round trip')
  call check(name(7:7) == ' ' .and. name(MPI_MAX_OBJECT_NAME:) == ' ', 'name blank padded')
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, len, ierr)
  call check(name == 'MPI_COMM_WORLD' .and. len == 14, 'world name')
  short = 'x'
  call MPI_Comm_get_name(MPI_COMM_WORLD, short, len, ierr)
  call check(short == 'MPI_COMM_W', 'name truncated to the variable')
  call MPI_Comm_test_inter(dup, inter, ierr)
  call check(.not. inter, 'test_inter')

  ! Predefined attribute: a value in Fortran.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'tag_ub value')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, i, flag, ierr)
  call check(flag .and. i == val, 'attr_get tag_ub')

  ! User keyval with Fortran callbacks: the copy callback runs on dup.
  extra = 5
  call MPI_Comm_create_keyval(copy_fn, delete_fn, kv, extra, ierr)
  call MPI_Comm_set_attr(dup, kv, 1000_MPI_ADDRESS_KIND + rank, ierr)
  call MPI_Comm_get_attr(dup, kv, val, flag, ierr)
  call check(flag .and. val == 1000 + rank, 'user attribute')
  call MPI_Comm_dup(dup, sub, ierr)
  call check(copies == 1, 'copy callback called')
  call MPI_Comm_get_attr(sub, kv, val, flag, ierr)
  call check(flag .and. val == 1000 + rank + 5, 'copied attribute')
  call MPI_Comm_free(sub, ierr)
  call check(sub == MPI_COMM_NULL, 'comm_free sets null')
  call check(copies == -1, 'delete callback called')
  call MPI_Comm_free_keyval(kv, ierr)
  call MPI_Comm_free(dup, ierr)

  ! Cartesian topology with LOGICAL periods.
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  call check(dims(1) * dims(2) == nprocs, 'dims_create')
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cartdim_get(cart, ndims, ierr)
  call check(ndims == 2, 'cartdim')
  periods = [.false., .true.]
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierr)
  call check(periods(1) .and. .not. periods(2), 'cart_get periods')
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src /= MPI_PROC_NULL .and. dst /= MPI_PROC_NULL, 'periodic shift')
  call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
  if (coords(2) == dims(2) - 1) call check(dst == MPI_PROC_NULL, 'non-periodic shift')
  remain = [.false., .true.]
  call MPI_Cart_sub(cart, remain, sub, ierr)
  call MPI_Comm_size(sub, i, ierr)
  call check(i == dims(2), 'cart_sub size')
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(cart, ierr)

  ! Groups.
  call MPI_Comm_group(MPI_COMM_WORLD, wgrp, ierr)
  ranks(1) = nprocs - 1
  call MPI_Group_incl(wgrp, 1, ranks, grp, ierr)
  call MPI_Group_translate_ranks(grp, 1, [0], wgrp, tr, ierr)
  call check(tr(1) == nprocs - 1, 'group translate')
  call MPI_Group_free(grp, ierr)
  call MPI_Group_free(wgrp, ierr)

  ! Info strings: keys and values are trimmed, values come back blank-padded.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color   ', '  blue  ', ierr)
  value = 'xxxxxxxxxxxxxxxx'
  call MPI_Info_get(info, 'color', 40, value, flag, ierr)
  call check(flag .and. value == 'blue', 'info get')
  call MPI_Info_get(info, 'shape', 40, value, flag, ierr)
  call check(.not. flag, 'info missing key')
  call MPI_Info_get_valuelen(info, 'color', len, flag, ierr)
  call check(flag .and. len == 4, 'info valuelen')
  call MPI_Info_get_nkeys(info, i, ierr)
  call check(i == 1, 'info nkeys')
  call MPI_Info_get_nthkey(info, 0, value, ierr)
  call check(value == 'color', 'info nthkey')
  call MPI_Info_free(info, ierr)

  call MPI_Get_processor_name(host, len, ierr)
  call check(len > 0 .and. len <= MPI_MAX_PROCESSOR_NAME .and. host(len+1:) == ' ', 'processor name')
  call MPI_Get_version(ver, subver, ierr)
  ! MemPI's level, 4.1; a build with MPICH 4.0.2's mpif.h has 4.0 in its constants
  call check(ver == 4 .and. subver == 1 .and. (ver > MPI_VERSION .or. &
             (ver == MPI_VERSION .and. subver >= MPI_SUBVERSION)), 'get_version')

  call MPI_Comm_free(half, ierr)
  call MPI_Finalized(flag, ierr)
  call check(.not. flag, 'finalized before finalize')
  call MPI_Finalize(ierr)
  call MPI_Finalized(flag, ierr)
  if (.not. flag) stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print *, 'rank', rank, 'FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
      stop 1
    end if
  end subroutine check

end program f90comm

subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  integer :: copies
  common /cbcount/ copies
  copies = copies + 1
  valout = valin + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_fn

subroutine delete_fn(comm, keyval, val, extra, ierr)
  use mpi
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  integer :: copies
  common /cbcount/ copies
  if (copies == 1 .and. extra == 5) copies = -1
  ierr = MPI_SUCCESS
end subroutine delete_fn

! mempi-test: np=1,2 timeout=60
! f90_type_names.f90 -- MPI_TYPE_GET_NAME of every predefined datatype from Fortran.  MemPI, BSD-3-Clause (see LICENSE).
!
! The Fortran handles are the C handles, so the names are the same -- including where two
! names share a handle (MPI_C_COMPLEX = MPI_C_FLOAT_COMPLEX, MPI_LONG_LONG =
! MPI_LONG_LONG_INT): the name MPICH returns.  The result comes back blank-padded, with
! RESULTLEN the name's length.
program type_names
  use mpi
  implicit none
  integer :: ierr, rank
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call expect(MPI_CHAR, "MPI_CHAR")
  call expect(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR")
  call expect(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR")
  call expect(MPI_BYTE, "MPI_BYTE")
  call expect(MPI_WCHAR, "MPI_WCHAR")
  call expect(MPI_SHORT, "MPI_SHORT")
  call expect(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT")
  call expect(MPI_INT, "MPI_INT")
  call expect(MPI_UNSIGNED, "MPI_UNSIGNED")
  call expect(MPI_LONG, "MPI_LONG")
  call expect(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG")
  call expect(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT")
  call expect(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG")
  call expect(MPI_FLOAT, "MPI_FLOAT")
  call expect(MPI_DOUBLE, "MPI_DOUBLE")
  call expect(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE")
  call expect(MPI_PACKED, "MPI_PACKED")
  call expect(MPI_LB, "MPI_LB")
  call expect(MPI_UB, "MPI_UB")
  call expect(MPI_INT8_T, "MPI_INT8_T")
  call expect(MPI_INT16_T, "MPI_INT16_T")
  call expect(MPI_INT32_T, "MPI_INT32_T")
  call expect(MPI_INT64_T, "MPI_INT64_T")
  call expect(MPI_UINT8_T, "MPI_UINT8_T")
  call expect(MPI_UINT16_T, "MPI_UINT16_T")
  call expect(MPI_UINT32_T, "MPI_UINT32_T")
  call expect(MPI_UINT64_T, "MPI_UINT64_T")
  call expect(MPI_C_BOOL, "MPI_C_BOOL")
  call expect(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX")
  call expect(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX")
  call expect(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX")
  call expect(MPI_AINT, "MPI_AINT")
  call expect(MPI_OFFSET, "MPI_OFFSET")
  call expect(MPI_COUNT, "MPI_COUNT")
  call expect(MPI_CXX_BOOL, "MPI_CXX_BOOL")
  call expect(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX")
  call expect(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX")
  call expect(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX")
  call expect(MPI_FLOAT_INT, "MPI_FLOAT_INT")
  call expect(MPI_DOUBLE_INT, "MPI_DOUBLE_INT")
  call expect(MPI_LONG_INT, "MPI_LONG_INT")
  call expect(MPI_SHORT_INT, "MPI_SHORT_INT")
  call expect(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT")
  call expect(MPI_2INT, "MPI_2INT")
  call expect(MPI_CHARACTER, "MPI_CHARACTER")
  call expect(MPI_LOGICAL, "MPI_LOGICAL")
  call expect(MPI_INTEGER, "MPI_INTEGER")
  call expect(MPI_REAL, "MPI_REAL")
  call expect(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION")
  call expect(MPI_COMPLEX, "MPI_COMPLEX")
  call expect(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX")
  call expect(MPI_2INTEGER, "MPI_2INTEGER")
  call expect(MPI_2REAL, "MPI_2REAL")
  call expect(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION")
  call expect(MPI_INTEGER1, "MPI_INTEGER1")
  call expect(MPI_INTEGER2, "MPI_INTEGER2")
  call expect(MPI_INTEGER4, "MPI_INTEGER4")
  call expect(MPI_INTEGER8, "MPI_INTEGER8")
  call expect(MPI_REAL4, "MPI_REAL4")
  call expect(MPI_REAL8, "MPI_REAL8")
  call expect(MPI_REAL16, "MPI_REAL16")
  call expect(MPI_COMPLEX8, "MPI_COMPLEX8")
  call expect(MPI_COMPLEX16, "MPI_COMPLEX16")
  call expect(MPI_COMPLEX32, "MPI_COMPLEX32")
  call expect(MPI_C_COMPLEX, "MPI_C_COMPLEX")
  call expect(MPI_LONG_LONG, "MPI_LONG_LONG_INT")
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'f90_type_names: OK'
  call MPI_Finalize(ierr)

contains

  subroutine expect(t, want)
    integer, intent(in) :: t
    character(len=*), intent(in) :: want
    character(len=MPI_MAX_OBJECT_NAME) :: name
    integer :: length, e
    name = '#'
    length = -1
    call MPI_Type_get_name(t, name, length, e)
    if (e /= MPI_SUCCESS .or. trim(name) /= want .or. length /= len(want)) then
       print *, 'rank', rank, ': MPI_TYPE_GET_NAME: "', trim(name), '" length', length, &
                ', want "', want, '"'
       call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine expect
end program type_names

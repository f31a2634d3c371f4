C mempi-test: np=1,2,3 timeout=60
! f77_errors.f -- error codes returned to Fortran.  MemPI, BSD-3-Clause (see LICENSE).
!
! With MPI_ERRORS_RETURN set on MPI_COMM_WORLD, erroneous calls must come back with IERROR
! set to a code of the right class (MPI_ERROR_CLASS) and a non-blank MPI_ERROR_STRING, and
! MPI_SUCCESS calls must leave IERROR = MPI_SUCCESS.  Also an error handler written in
! Fortran (MPI_COMM_CREATE_ERRHANDLER) must be called with the communicator and the code.
      program f77err
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, cls, rlen, eh, buf(4), sav
      character*(MPI_MAX_ERROR_STRING) msg
      integer ncalls, lastcode
      common /ehcount/ ncalls, lastcode
      external myhandler

      ncalls = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'set_errhandler')

!     Invalid destination rank.
      call MPI_SEND(buf, 1, MPI_INTEGER, nprocs + 3, 0,
     &              MPI_COMM_WORLD, ierr)
      call chk(ierr .ne. MPI_SUCCESS, 'bad rank returns an error')
      call MPI_ERROR_CLASS(ierr, cls, sav)
      call chk(cls .eq. MPI_ERR_RANK, 'bad rank class')
      msg = 'x'
      call MPI_ERROR_STRING(ierr, msg, rlen, sav)
      call chk(rlen .gt. 0 .and. msg(1:1) .ne. ' ', 'error string')
      call chk(msg(rlen+1:) .eq. ' ', 'error string padding')

!     Negative count, invalid tag, invalid datatype, invalid root.
      call MPI_SEND(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
      call MPI_ERROR_CLASS(ierr, cls, sav)
      call chk(cls .eq. MPI_ERR_COUNT, 'count class')
      call MPI_SEND(buf, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, ierr)
      call MPI_ERROR_CLASS(ierr, cls, sav)
      call chk(cls .eq. MPI_ERR_TAG, 'tag class')
      call MPI_SEND(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD,
     &              ierr)
      call MPI_ERROR_CLASS(ierr, cls, sav)
      call chk(cls .eq. MPI_ERR_TYPE, 'type class')
      call MPI_BCAST(buf, 1, MPI_INTEGER, nprocs, MPI_COMM_WORLD, ierr)
      call MPI_ERROR_CLASS(ierr, cls, sav)
      call chk(cls .eq. MPI_ERR_ROOT, 'root class')

!     Truncation: receive 1 integer when 4 were sent.
      call MPI_SENDRECV(buf, 4, MPI_INTEGER, rank, 1, sav, 1,
     &     MPI_INTEGER, rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      call MPI_ERROR_CLASS(ierr, cls, sav)
      call chk(cls .eq. MPI_ERR_TRUNCATE, 'truncate class')

!     A valid call still returns MPI_SUCCESS.
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'barrier success')

!     A Fortran error handler.
      call MPI_COMM_CREATE_ERRHANDLER(myhandler, eh, ierr)
      call chk(ierr .eq. MPI_SUCCESS, 'create_errhandler')
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, eh, ierr)
      call MPI_SEND(buf, 1, MPI_INTEGER, -7, 0, MPI_COMM_WORLD, ierr)
      call chk(ncalls .eq. 1, 'handler called once')
      call MPI_ERROR_CLASS(lastcode, cls, sav)
      call chk(cls .eq. MPI_ERR_RANK, 'handler got the code')
      call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             ierr)
      call MPI_ERRHANDLER_FREE(eh, ierr)
      call chk(eh .eq. MPI_ERRHANDLER_NULL, 'errhandler_free')

      call MPI_FINALIZE(ierr)
      end

      subroutine myhandler(comm, code)
      implicit none
      include 'mpif.h'
      integer comm, code
      integer ncalls, lastcode
      common /ehcount/ ncalls, lastcode
      if (comm .eq. MPI_COMM_WORLD) then
         ncalls = ncalls + 1
         lastcode = code
      end if
      end

      subroutine chk(ok, what)
      implicit none
      include 'mpif.h'
      logical ok
      character*(*) what
      integer ierr
      if (.not. ok) then
         print *, 'FAILED: ', what
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
         stop 1
      end if
      end

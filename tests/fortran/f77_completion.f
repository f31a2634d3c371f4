C mempi-test: np=1,2,3,4 timeout=60
! f77_completion.f -- WAITANY/TESTANY/WAITSOME/TESTSOME/TESTALL and SENDRECV_REPLACE.  MemPI, BSD-3-Clause (see LICENSE).
!
! The completion calls that return indices must return them 1-based in Fortran (and
! MPI_UNDEFINED when nothing is active), the TEST forms must set a LOGICAL, and
! SENDRECV_REPLACE must replace the buffer in place and fill the status.
      program f77cmp
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, next, prev, k, m, idx, outcount, i
      integer status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 3)
      integer reqs(3), idxs(3), vals(3), done
      logical flag

      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      next = mod(rank + 1, nprocs)
      prev = mod(rank - 1 + nprocs, nprocs)

!     WAITANY: only the second request is active.
      reqs(1) = MPI_REQUEST_NULL
      call MPI_IRECV(k, 1, MPI_INTEGER, prev, 13, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call MPI_SEND(rank, 1, MPI_INTEGER, next, 13, MPI_COMM_WORLD,
     &              ierr)
      call MPI_WAITANY(2, reqs, idx, status, ierr)
      call chk(idx .eq. 2, 'waitany index')
      call chk(k .eq. prev, 'waitany data')
      call chk(status(MPI_SOURCE) .eq. prev, 'waitany source')
      call MPI_WAITANY(2, reqs, idx, status, ierr)
      call chk(idx .eq. MPI_UNDEFINED, 'waitany undefined')

!     TESTANY until the one active request completes.
      reqs(1) = MPI_REQUEST_NULL
      reqs(2) = MPI_REQUEST_NULL
      call MPI_IRECV(k, 1, MPI_INTEGER, prev, 14, MPI_COMM_WORLD,
     &               reqs(3), ierr)
      call MPI_SEND(rank + 100, 1, MPI_INTEGER, next, 14,
     &              MPI_COMM_WORLD, ierr)
      flag = .false.
      do while (.not. flag)
         call MPI_TESTANY(3, reqs, idx, flag, status, ierr)
      end do
      call chk(idx .eq. 3 .and. k .eq. prev + 100, 'testany')

!     WAITSOME / TESTSOME over three receives.
      do i = 1, 3
         call MPI_IRECV(vals(i), 1, MPI_INTEGER, prev, 20 + i,
     &                  MPI_COMM_WORLD, reqs(i), ierr)
      end do
      do i = 3, 1, -1
         call MPI_SEND(rank * 10 + i, 1, MPI_INTEGER, next, 20 + i,
     &                 MPI_COMM_WORLD, ierr)
      end do
      done = 0
      do while (done .lt. 3)
         call MPI_WAITSOME(3, reqs, outcount, idxs, stats, ierr)
         call chk(outcount .ge. 1, 'waitsome outcount')
         do i = 1, outcount
            m = idxs(i)
            call chk(m .ge. 1 .and. m .le. 3, 'waitsome index')
            call chk(vals(m) .eq. prev * 10 + m, 'waitsome data')
            call chk(stats(MPI_TAG, i) .eq. 20 + m, 'waitsome status')
         end do
         done = done + outcount
      end do
      call MPI_WAITSOME(3, reqs, outcount, idxs, stats, ierr)
      call chk(outcount .eq. MPI_UNDEFINED, 'waitsome undefined')
      call MPI_TESTSOME(3, reqs, outcount, idxs, MPI_STATUSES_IGNORE,
     &                  ierr)
      call chk(outcount .eq. MPI_UNDEFINED, 'testsome undefined')

!     TESTALL sets a LOGICAL.
      call MPI_IRECV(k, 1, MPI_INTEGER, prev, 30, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_ISEND(rank, 1, MPI_INTEGER, next, 30, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      reqs(3) = MPI_REQUEST_NULL
      flag = .false.
      do while (.not. flag)
         call MPI_TESTALL(3, reqs, flag, MPI_STATUSES_IGNORE, ierr)
      end do
      call chk(k .eq. prev, 'testall data')
      call chk(reqs(1) .eq. MPI_REQUEST_NULL, 'testall frees')

!     SENDRECV_REPLACE.
      k = rank * 3
      call MPI_SENDRECV_REPLACE(k, 1, MPI_INTEGER, next, 11, prev, 11,
     &     MPI_COMM_WORLD, status, ierr)
      call chk(k .eq. prev * 3, 'sendrecv_replace')
      call chk(status(MPI_SOURCE) .eq. prev, 'replace source')

      call MPI_FINALIZE(ierr)
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

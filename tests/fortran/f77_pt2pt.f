C mempi-test: np=1,2,3,4,5 timeout=60
! f77_pt2pt.f -- fixed-form point-to-point with status.  MemPI, BSD-3-Clause (see LICENSE).
!
! Ring exchange with MPI_SEND/MPI_RECV and the status fields, wildcard receives, Isend/Irecv
! with WAITALL and MPI_STATUSES_IGNORE, SENDRECV with MPI_STATUS_IGNORE, PROBE and
! GET_COUNT, TEST's LOGICAL flag, MPI_PROC_NULL and MPI_WTIME.  (WAITANY, WAITSOME and
! SENDRECV_REPLACE are in f77_completion.f.)
      program f77pt2pt
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, next, prev, i, k, count
      integer status(MPI_STATUS_SIZE)
      integer stats(MPI_STATUS_SIZE, 4)
      integer reqs(4)
      integer ibuf(100), jbuf(100)
      double precision dbuf(50), ebuf(50), t0, t1
      logical flag
      integer nerr
      common /errs/ nerr

      nerr = 0
      call MPI_INIT(ierr)
      call check(ierr .eq. MPI_SUCCESS, 'init')
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      next = mod(rank + 1, nprocs)
      prev = mod(rank - 1 + nprocs, nprocs)
      t0 = MPI_WTIME()

!     Ring: send 100 integers to next, receive from prev with status.
      do i = 1, 100
         ibuf(i) = rank * 1000 + i
         jbuf(i) = -1
      end do
      if (nprocs .eq. 1) then
         call MPI_IRECV(jbuf, 100, MPI_INTEGER, prev, 7,
     &                  MPI_COMM_WORLD, reqs(1), ierr)
         call MPI_SEND(ibuf, 100, MPI_INTEGER, next, 7, MPI_COMM_WORLD,
     &                 ierr)
         call MPI_WAIT(reqs(1), status, ierr)
      else if (mod(rank, 2) .eq. 0) then
         call MPI_SEND(ibuf, 100, MPI_INTEGER, next, 7, MPI_COMM_WORLD,
     &                 ierr)
         call MPI_RECV(jbuf, 100, MPI_INTEGER, prev, 7, MPI_COMM_WORLD,
     &                 status, ierr)
      else
         call MPI_RECV(jbuf, 100, MPI_INTEGER, prev, 7, MPI_COMM_WORLD,
     &                 status, ierr)
         call MPI_SEND(ibuf, 100, MPI_INTEGER, next, 7, MPI_COMM_WORLD,
     &                 ierr)
      end if
      call check(ierr .eq. MPI_SUCCESS, 'ring recv ierr')
      call check(status(MPI_SOURCE) .eq. prev, 'ring source')
      call check(status(MPI_TAG) .eq. 7, 'ring tag')
      call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
      call check(count .eq. 100, 'ring count')
      do i = 1, 100
         call check(jbuf(i) .eq. prev * 1000 + i, 'ring data')
      end do

!     Wildcard receive at rank 0 from everybody, double precision.
      if (rank .eq. 0) then
         do k = 1, nprocs - 1
            call MPI_RECV(dbuf, 50, MPI_DOUBLE_PRECISION,
     &           MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status,
     &           ierr)
            call check(status(MPI_TAG) .eq. 100 + status(MPI_SOURCE),
     &                 'wild tag')
            call MPI_GET_COUNT(status, MPI_DOUBLE_PRECISION, count,
     &                         ierr)
            call check(count .eq. status(MPI_SOURCE), 'wild count')
            do i = 1, count
               call check(dbuf(i) .eq. dble(status(MPI_SOURCE)) + 0.5d0
     &                    * i, 'wild data')
            end do
         end do
      else
         do i = 1, rank
            dbuf(i) = dble(rank) + 0.5d0 * i
         end do
         call MPI_SEND(dbuf, rank, MPI_DOUBLE_PRECISION, 0, 100 + rank,
     &                 MPI_COMM_WORLD, ierr)
      end if
!     Nothing else may reach rank 0 while it receives with wildcards.
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)

!     Nonblocking exchange with both neighbours, statuses ignored.
      do i = 1, 50
         dbuf(i) = rank + i * 0.25d0
      end do
      call MPI_IRECV(ebuf, 25, MPI_DOUBLE_PRECISION, prev, 3,
     &               MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_IRECV(ibuf, 10, MPI_INTEGER, next, 4, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call MPI_ISEND(dbuf, 25, MPI_DOUBLE_PRECISION, next, 3,
     &               MPI_COMM_WORLD, reqs(3), ierr)
      do i = 1, 10
         jbuf(i) = rank + 10 * i
      end do
      call MPI_ISEND(jbuf, 10, MPI_INTEGER, prev, 4, MPI_COMM_WORLD,
     &               reqs(4), ierr)
      call MPI_WAITALL(4, reqs, MPI_STATUSES_IGNORE, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'waitall')
      do i = 1, 4
         call check(reqs(i) .eq. MPI_REQUEST_NULL, 'waitall null')
      end do
      do i = 1, 25
         call check(ebuf(i) .eq. prev + i * 0.25d0, 'iexch dbl')
      end do
      do i = 1, 10
         call check(ibuf(i) .eq. next + 10 * i, 'iexch int')
      end do

!     Waitall with real statuses.
      call MPI_IRECV(ibuf, 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_ISEND(rank, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call MPI_WAITALL(2, reqs, stats, ierr)
      call check(stats(MPI_SOURCE, 1) .eq. prev, 'stats source')
      call check(stats(MPI_TAG, 1) .eq. 5, 'stats tag')
      call check(ibuf(1) .eq. prev, 'stats data')

!     Sendrecv with MPI_STATUS_IGNORE.
      call MPI_SENDRECV(rank, 1, MPI_INTEGER, next, 9, k, 1,
     &     MPI_INTEGER, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     ierr)
      call check(k .eq. prev, 'sendrecv')

!     Probe then receive the probed size.
      call MPI_ISEND(ibuf, rank + 1, MPI_INTEGER, next, 12,
     &               MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_PROBE(prev, 12, MPI_COMM_WORLD, status, ierr)
      call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
      call check(count .eq. prev + 1, 'probe count')
      call MPI_RECV(jbuf, count, MPI_INTEGER, prev, 12, MPI_COMM_WORLD,
     &              MPI_STATUS_IGNORE, ierr)
      call MPI_WAIT(reqs(1), status, ierr)

!     TEST sets a LOGICAL.
      call MPI_IRECV(k, 1, MPI_INTEGER, prev, 14, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_SEND(rank, 1, MPI_INTEGER, next, 14, MPI_COMM_WORLD,
     &              ierr)
      flag = .false.
      do while (.not. flag)
         call MPI_TEST(reqs(1), flag, status, ierr)
      end do
      call check(flag, 'test flag')
      call check(k .eq. prev, 'test data')
      call MPI_TEST(reqs(1), flag, status, ierr)
      call check(flag .and. reqs(1) .eq. MPI_REQUEST_NULL, 'test null')

!     MPI_PROC_NULL: immediate, status source MPI_PROC_NULL.
      call MPI_RECV(k, 1, MPI_INTEGER, MPI_PROC_NULL, 1,
     &              MPI_COMM_WORLD, status, ierr)
      call check(status(MPI_SOURCE) .eq. MPI_PROC_NULL, 'procnull')
      call MPI_GET_COUNT(status, MPI_INTEGER, count, ierr)
      call check(count .eq. 0, 'procnull count')

      t1 = MPI_WTIME()
      call check(t1 .ge. t0, 'wtime')
      call check(MPI_WTICK() .gt. 0.d0, 'wtick')
      call MPI_FINALIZE(ierr)
      if (nerr .ne. 0) stop 1
      end

      subroutine check(ok, what)
      implicit none
      include 'mpif.h'
      logical ok
      character*(*) what
      integer nerr, ierr
      common /errs/ nerr
      if (.not. ok) then
         print *, 'FAILED: ', what
         nerr = nerr + 1
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      end

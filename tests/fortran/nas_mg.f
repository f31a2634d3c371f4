C mempi-test: np=1,2,3,4,5,6 timeout=120
! nas_mg.f -- an MG-style smoother on a 2-D process grid, NPB style.  MemPI, BSD-3-Clause (see LICENSE).
!
! Fixed-form Fortran 77 with include 'mpif.h'.  Weighted-Jacobi sweeps for the 2-D Poisson
! problem on an NX x NY grid (sizes that divide by no rank count), split over a PX x PY
! process grid from MPI_DIMS_CREATE; blocks may differ by one.  Rank 0 chooses the
! parameters and MPI_BCASTs them.  Each sweep exchanges halos: in y with MPI_SENDRECV of
! contiguous columns, in x with MPI_IRECV + MPI_SEND + MPI_WAITALL of strided rows described
! by MPI_TYPE_VECTOR (MPI_PROC_NULL at the edges).  MPI_COMM_SPLIT makes row and column
! communicators; per-row sums meet in MPI_ALLREDUCE over the row communicator, the residual
! in MPI_REDUCE to rank 0, the worst difference in MPI_REDUCE(MPI_MAX).
!
! Verification: every rank also runs the same sweeps serially on the whole grid (same
! arithmetic, point by point), so its block must agree bit for bit; the reduced sums must
! agree with the serial ones to rounding.
      program nasmg
      implicit none
      include 'mpif.h'
      integer nx, ny
      parameter (nx = 37, ny = 29)
      double precision u(0:nx+1, 0:ny+1), v(0:nx+1, 0:ny+1),
     &     f(0:nx+1, 0:ny+1)
      double precision us(0:nx+1, 0:ny+1), vs(0:nx+1, 0:ny+1),
     &     fs(0:nx+1, 0:ny+1)
      double precision rowsum(ny), growsum(ny), srow(ny)
      integer ierr, rank, nprocs, dims(2), px, py, i0, j0, mx, my
      integer rowcomm, colcomm, rrank, rsize, crank, csize
      integer left, right, down, up, rowtype, it, i, j
      integer params(2), niter
      double precision omega, dpar(1), diff, gdiff, res, gres, sres
      logical ok

      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      ok = .true.

!     Rank 0 decides; the others start from garbage and must receive.
      if (rank .eq. 0) then
         params(1) = 12
         params(2) = 4
         dpar(1) = 0.8d0
      else
         params(1) = -1
         params(2) = -1
         dpar(1) = -1.d0
      end if
      call MPI_BCAST(params, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call MPI_BCAST(dpar, 1, MPI_DOUBLE_PRECISION, 0,
     &               MPI_COMM_WORLD, ierr)
      niter = params(1) * params(2) / 4
      omega = dpar(1)
      if (niter .ne. 12 .or. omega .ne. 0.8d0) then
         print *, rank, ': MPI_BCAST gave', params, dpar
         ok = .false.
      end if

      dims(1) = 0
      dims(2) = 0
      call MPI_DIMS_CREATE(nprocs, 2, dims, ierr)
      if (dims(1) * dims(2) .ne. nprocs) then
         print *, 'MPI_DIMS_CREATE gave', dims
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      px = mod(rank, dims(1))
      py = rank / dims(1)
      call block(nx, dims(1), px, i0, mx)
      call block(ny, dims(2), py, j0, my)

!     Ranks with the same py form a row (key px orders them), same px a column.
      call MPI_COMM_SPLIT(MPI_COMM_WORLD, py, px, rowcomm, ierr)
      call MPI_COMM_SPLIT(MPI_COMM_WORLD, px, py, colcomm, ierr)
      call MPI_COMM_RANK(rowcomm, rrank, ierr)
      call MPI_COMM_SIZE(rowcomm, rsize, ierr)
      call MPI_COMM_RANK(colcomm, crank, ierr)
      call MPI_COMM_SIZE(colcomm, csize, ierr)
      if (rrank .ne. px .or. rsize .ne. dims(1) .or.
     &    crank .ne. py .or. csize .ne. dims(2)) then
         print *, rank, ': split gave', rrank, rsize, crank, csize
         ok = .false.
      end if
      left = MPI_PROC_NULL
      right = MPI_PROC_NULL
      down = MPI_PROC_NULL
      up = MPI_PROC_NULL
      if (px .gt. 0) left = rank - 1
      if (px .lt. dims(1) - 1) right = rank + 1
      if (py .gt. 0) down = rank - dims(1)
      if (py .lt. dims(2) - 1) up = rank + dims(1)
!     One x-halo: u(i, 1..my) for fixed i, stride nx+2.
      call MPI_TYPE_VECTOR(my, 1, nx + 2, MPI_DOUBLE_PRECISION,
     &                     rowtype, ierr)
      call MPI_TYPE_COMMIT(rowtype, ierr)

      call setup(fs, us, nx, nx, ny, 0, 0)
      call setup(f, u, nx, mx, my, i0, j0)

      do it = 1, niter
         call halo(u, nx, mx, my, rowtype, left, right, down, up, ok)
         call relax(u, v, f, nx, mx, my, omega)
         call relax(us, vs, fs, nx, nx, ny, omega)
      end do

!     Bitwise agreement of the block with the serial grid.
      diff = 0.d0
      do j = 1, my
         do i = 1, mx
            diff = max(diff, abs(u(i, j) - us(i0 + i, j0 + j)))
         end do
      end do
      call MPI_REDUCE(diff, gdiff, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0,
     &                MPI_COMM_WORLD, ierr)

!     Residual norm**2 (needs current halos): partial sums to rank 0.
      call halo(u, nx, mx, my, rowtype, left, right, down, up, ok)
      call resid(u, f, nx, mx, my, res)
      call resid(us, fs, nx, nx, ny, sres)
      call MPI_REDUCE(res, gres, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)

!     Sums of each grid row j over i: partial over the row communicator.
      do j = 1, ny
         rowsum(j) = 0.d0
         srow(j) = 0.d0
         do i = 1, nx
            srow(j) = srow(j) + us(i, j)
         end do
      end do
      do j = 1, my
         do i = 1, mx
            rowsum(j) = rowsum(j) + u(i, j)
         end do
      end do
      call MPI_ALLREDUCE(rowsum, growsum, my, MPI_DOUBLE_PRECISION,
     &                   MPI_SUM, rowcomm, ierr)
      do j = 1, my
         if (abs(growsum(j) - srow(j0 + j)) .gt.
     &       1.d-12 * abs(srow(j0 + j))) then
            print *, rank, ': row', j0 + j, growsum(j), srow(j0 + j)
            ok = .false.
         end if
      end do

      if (rank .eq. 0) then
         write (*, 100) nprocs, dims(1), dims(2), niter, sres, gres
 100     format (' MG smoother on ', i2, ' ranks (', i2, ' x ', i2,
     &           '), ', i3, ' sweeps: residual**2 ', 1pe22.15,
     &           ' serial, ', 1pe22.15, ' parallel')
         if (gdiff .ne. 0.d0) then
            print *, 'grid differs from the serial one by', gdiff
            ok = .false.
         end if
         if (abs(gres - sres) .gt. 1.d-12 * sres .or.
     &       sres .le. 0.d0) then
            print *, 'residual differs'
            ok = .false.
         end if
      end if
      call MPI_ALLREDUCE(MPI_IN_PLACE, ok, 1, MPI_LOGICAL, MPI_LAND,
     &                   MPI_COMM_WORLD, ierr)
      call MPI_TYPE_FREE(rowtype, ierr)
      call MPI_COMM_FREE(rowcomm, ierr)
      call MPI_COMM_FREE(colcomm, ierr)
      if (rowcomm .ne. MPI_COMM_NULL) ok = .false.
      if (rank .eq. 0) then
         if (ok) then
            print *, '  VERIFICATION SUCCESSFUL'
         else
            print *, '  VERIFICATION FAILED'
         end if
      end if
      call MPI_FINALIZE(ierr)
      if (.not. ok) stop 1
      end

!     Block p of n points over np parts: first index (0-based offset) and size.
      subroutine block(n, np, p, first, size)
      implicit none
      integer n, np, p, first, size
      size = n / np
      if (p .lt. mod(n, np)) then
         size = size + 1
         first = p * size
      else
         first = mod(n, np) * (size + 1) + (p - mod(n, np)) * size
      end if
      end

!     Right-hand side and start value of the points (i0+1..i0+mx, j0+1..j0+my); zero halo.
      subroutine setup(f, u, ld, mx, my, i0, j0)
      implicit none
      integer ld, mx, my, i0, j0, i, j
      double precision f(0:ld+1, 0:*), u(0:ld+1, 0:*)
      do j = 0, my + 1
         do i = 0, ld + 1
            f(i, j) = 0.d0
            u(i, j) = 0.d0
         end do
      end do
      do j = 1, my
         do i = 1, mx
            f(i, j) = dble(mod(7 * (i0 + i) + 13 * (j0 + j), 11)) - 5.d0
            u(i, j) = 1.d-2 * dble(mod((i0 + i) * (j0 + j), 17))
         end do
      end do
      end

!     One weighted-Jacobi sweep on the interior 1..mx, 1..my.
      subroutine relax(u, v, f, ld, mx, my, omega)
      implicit none
      integer ld, mx, my, i, j
      double precision u(0:ld+1, 0:*), v(0:ld+1, 0:*), f(0:ld+1, 0:*)
      double precision omega
      do j = 1, my
         do i = 1, mx
            v(i, j) = u(i, j) + omega * 0.25d0 * (f(i, j)
     &           + ((u(i - 1, j) + u(i + 1, j))
     &           + (u(i, j - 1) + u(i, j + 1))) - 4.d0 * u(i, j))
         end do
      end do
      do j = 1, my
         do i = 1, mx
            u(i, j) = v(i, j)
         end do
      end do
      end

!     Sum of squares of the residual f + Laplacian(u) on the interior.
      subroutine resid(u, f, ld, mx, my, res)
      implicit none
      integer ld, mx, my, i, j
      double precision u(0:ld+1, 0:*), f(0:ld+1, 0:*), res, r
      res = 0.d0
      do j = 1, my
         do i = 1, mx
            r = f(i, j) + ((u(i - 1, j) + u(i + 1, j))
     &           + (u(i, j - 1) + u(i, j + 1))) - 4.d0 * u(i, j)
            res = res + r * r
         end do
      end do
      end

!     Halo exchange of the block u(1..mx, 1..my) with the four neighbours.
      subroutine halo(u, ld, mx, my, rowtype, left, right, down, up, ok)
      implicit none
      include 'mpif.h'
      integer ld, mx, my, rowtype, left, right, down, up
      double precision u(0:ld+1, 0:*)
      logical ok
      integer rank, ierr, st(MPI_STATUS_SIZE), reqs(2)
      integer sts(MPI_STATUS_SIZE, 2)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
!     y direction: columns are contiguous.
      call MPI_SENDRECV(u(0, my), ld + 2, MPI_DOUBLE_PRECISION,
     &        up, 1, u(0, 0), ld + 2, MPI_DOUBLE_PRECISION, down, 1,
     &        MPI_COMM_WORLD, st, ierr)
      if (down .ne. MPI_PROC_NULL .and. (st(MPI_SOURCE) .ne. down
     &       .or. st(MPI_TAG) .ne. 1)) then
         print *, rank, ': sendrecv status', st(MPI_SOURCE),
     &               st(MPI_TAG)
         ok = .false.
      end if
      call MPI_SENDRECV(u(0, 1), ld + 2, MPI_DOUBLE_PRECISION,
     &        down, 2, u(0, my + 1), ld + 2, MPI_DOUBLE_PRECISION, up,
     &        2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
!     x direction: strided rows, nonblocking receives.
      call MPI_IRECV(u(0, 1), 1, rowtype, left, 3,
     &                  MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_IRECV(u(mx + 1, 1), 1, rowtype, right, 4,
     &                  MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_SEND(u(mx, 1), 1, rowtype, right, 3,
     &                 MPI_COMM_WORLD, ierr)
      call MPI_SEND(u(1, 1), 1, rowtype, left, 4,
     &                 MPI_COMM_WORLD, ierr)
      call MPI_WAITALL(2, reqs, sts, ierr)
      if (ierr .ne. MPI_SUCCESS .or. reqs(1) .ne. MPI_REQUEST_NULL
     &       .or. reqs(2) .ne. MPI_REQUEST_NULL) then
         print *, rank, ': waitall', ierr, reqs
         ok = .false.
      end if
      if (left .ne. MPI_PROC_NULL .and.
     &       (sts(MPI_SOURCE, 1) .ne. left .or. sts(MPI_TAG, 1) .ne. 3))
     &   then
         print *, rank, ': waitall status 1', sts(MPI_SOURCE, 1),
     &               sts(MPI_TAG, 1)
         ok = .false.
      end if
      if (right .ne. MPI_PROC_NULL .and.
     &       (sts(MPI_SOURCE, 2) .ne. right .or.
     &        sts(MPI_TAG, 2) .ne. 4)) then
         print *, rank, ': waitall status 2', sts(MPI_SOURCE, 2),
     &               sts(MPI_TAG, 2)
         ok = .false.
      end if
      end

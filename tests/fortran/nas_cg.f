C mempi-test: np=1,2,3,4,5 timeout=120
! nas_cg.f -- a conjugate-gradient kernel in the style of the NAS Parallel Benchmarks.  MemPI, BSD-3-Clause (see LICENSE).
!
! Fixed-form Fortran 77 with include 'mpif.h' and common blocks, as the NPB codes are
! written.  Solves the 2-D Poisson problem (5-point Laplacian, Dirichlet boundary) on an
! N x N grid whose columns are split into blocks over the ranks (any number of ranks, blocks
! may differ by one).  Each matrix-vector product exchanges one halo column with each
! neighbour (MPI_IRECV / MPI_ISEND / MPI_WAITALL, MPI_PROC_NULL at the edges); dot products
! use MPI_ALLREDUCE.  The right-hand side is made from a known solution, so verification is
! the error against that solution and the true residual, recomputed from scratch.
      program nascg
      implicit none
      include 'mpif.h'
      integer n, maxcols
      parameter (n = 96, maxcols = n)
      double precision x(n, 0:maxcols+1), r(n, 0:maxcols+1),
     &     p(n, 0:maxcols+1), q(n, 0:maxcols+1), b(n, 0:maxcols+1),
     &     xe(n, 0:maxcols+1)
      integer rank, nprocs, j1, ncol, left, right
      common /part/ rank, nprocs, j1, ncol, left, right
      integer ierr, i, j, it, extra
      double precision rho, rho0, alpha, beta, pq, err, gerr, rnorm,
     &     bnorm, dot
      external dot

      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      ncol = n / nprocs
      extra = mod(n, nprocs)
      if (rank .lt. extra) then
         ncol = ncol + 1
         j1 = rank * ncol + 1
      else
         j1 = extra * (ncol + 1) + (rank - extra) * ncol + 1
      end if
      left = rank - 1
      right = rank + 1
      if (left .lt. 0) left = MPI_PROC_NULL
      if (right .ge. nprocs) right = MPI_PROC_NULL

!     Known solution, b = A xe, zero start.
      do j = 0, ncol + 1
         do i = 1, n
            xe(i, j) = 0.d0
            x(i, j) = 0.d0
            p(i, j) = 0.d0
         end do
      end do
      do j = 1, ncol
         do i = 1, n
            xe(i, j) = sin(0.1d0 * i) * cos(0.07d0 * (j1 + j - 1))
     &                 + 1.d-3 * mod(i * (j1 + j - 1), 17)
         end do
      end do
      call matvec(xe, b)
      do j = 1, ncol
         do i = 1, n
            r(i, j) = b(i, j)
            p(i, j) = b(i, j)
         end do
      end do
      bnorm = sqrt(dot(b, b))
      rho = dot(r, r)
      rho0 = rho

      do it = 1, 2000
         call matvec(p, q)
         pq = dot(p, q)
         alpha = rho / pq
         do j = 1, ncol
            do i = 1, n
               x(i, j) = x(i, j) + alpha * p(i, j)
               r(i, j) = r(i, j) - alpha * q(i, j)
            end do
         end do
         beta = rho
         rho = dot(r, r)
         if (sqrt(rho) .le. 1.d-12 * bnorm) goto 200
         beta = rho / beta
         do j = 1, ncol
            do i = 1, n
               p(i, j) = r(i, j) + beta * p(i, j)
            end do
         end do
      end do
 200  continue

!     Verify: true residual and error against the known solution.
      call matvec(x, q)
      do j = 1, ncol
         do i = 1, n
            r(i, j) = b(i, j) - q(i, j)
         end do
      end do
      rnorm = sqrt(dot(r, r))
      err = 0.d0
      do j = 1, ncol
         do i = 1, n
            err = max(err, abs(x(i, j) - xe(i, j)))
         end do
      end do
      call MPI_ALLREDUCE(err, gerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         write (*, 100) n, nprocs, it, rnorm / bnorm, gerr
 100     format (' CG ', i4, '^2 on ', i3, ' ranks: ', i5,
     &           ' iterations, residual ', 1pe10.3, ' error ', 1pe10.3)
      end if
      if (rnorm / bnorm .gt. 1.d-10 .or. gerr .gt. 1.d-8
     &    .or. it .ge. 2000) then
         if (rank .eq. 0) write (*, *) '  VERIFICATION FAILED'
         call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
      end if
      if (rank .eq. 0) write (*, *) '  VERIFICATION SUCCESSFUL'
      call MPI_FINALIZE(ierr)
      end

!     q = A v for the 5-point Laplacian; fills v's halo columns first.
      subroutine matvec(v, q)
      implicit none
      include 'mpif.h'
      integer n, maxcols
      parameter (n = 96, maxcols = n)
      double precision v(n, 0:maxcols+1), q(n, 0:maxcols+1)
      integer rank, nprocs, j1, ncol, left, right
      common /part/ rank, nprocs, j1, ncol, left, right
      integer req(4), ierr, i, j
      double precision up, down
      call MPI_IRECV(v(1, 0), n, MPI_DOUBLE_PRECISION, left, 1,
     &               MPI_COMM_WORLD, req(1), ierr)
      call MPI_IRECV(v(1, ncol + 1), n, MPI_DOUBLE_PRECISION, right, 2,
     &               MPI_COMM_WORLD, req(2), ierr)
      call MPI_ISEND(v(1, ncol), n, MPI_DOUBLE_PRECISION, right, 1,
     &               MPI_COMM_WORLD, req(3), ierr)
      call MPI_ISEND(v(1, 1), n, MPI_DOUBLE_PRECISION, left, 2,
     &               MPI_COMM_WORLD, req(4), ierr)
      call MPI_WAITALL(4, req, MPI_STATUSES_IGNORE, ierr)
      if (left .eq. MPI_PROC_NULL) then
         do i = 1, n
            v(i, 0) = 0.d0
         end do
      end if
      if (right .eq. MPI_PROC_NULL) then
         do i = 1, n
            v(i, ncol + 1) = 0.d0
         end do
      end if
      do j = 1, ncol
         do i = 1, n
            up = 0.d0
            down = 0.d0
            if (i .gt. 1) up = v(i - 1, j)
            if (i .lt. n) down = v(i + 1, j)
            q(i, j) = 4.d0 * v(i, j) - up - down - v(i, j - 1)
     &                - v(i, j + 1)
         end do
      end do
      end

!     Global dot product over the owned columns.
      double precision function dot(u, v)
      implicit none
      include 'mpif.h'
      integer n, maxcols
      parameter (n = 96, maxcols = n)
      double precision u(n, 0:maxcols+1), v(n, 0:maxcols+1)
      integer rank, nprocs, j1, ncol, left, right
      common /part/ rank, nprocs, j1, ncol, left, right
      integer i, j, ierr
      double precision s, g
      s = 0.d0
      do j = 1, ncol
         do i = 1, n
            s = s + u(i, j) * v(i, j)
         end do
      end do
      call MPI_ALLREDUCE(s, g, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      dot = g
      end

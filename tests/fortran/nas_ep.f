C mempi-test: np=1,2,3,4,5 timeout=240
! nas_ep.f -- an EP kernel in the style of the NAS Parallel Benchmarks.  MemPI, BSD-3-Clause (see LICENSE).
!
! Fixed-form Fortran 77 with include 'mpif.h', as the NPB codes are written.  Generates
! 2**(M+1) uniform pseudo-random numbers with the NPB linear congruential generator
! (a = 5**13, modulus 2**46, seed 271828183), turns pairs into Gaussian deviates by the
! polar method, counts them in square annuli and sums them; the work is split into batches
! of 2**MK pairs spread over the ranks (any number of ranks), and the partial sums meet in
! MPI_ALLREDUCE.  Class S (M = 24) has published reference sums, which this checks to a
! relative 1e-8, and the published number of Gaussian pairs (13176389), counted both in
! DOUBLE PRECISION and in INTEGER (MPI_INTEGER); the two annulus histograms must agree.
      program nasep
      implicit none
      include 'mpif.h'
      integer m, mk, mm, nn, nk, nq
      parameter (m = 24, mk = 16, mm = m - mk, nn = 2 ** mm,
     &           nk = 2 ** mk, nq = 10)
      double precision a, s, epsilon
      parameter (a = 1220703125.d0, s = 271828183.d0,
     &           epsilon = 1.d-8)
      double precision sxref, syref
      parameter (sxref = -3.247834652034740d3,
     &           syref = -6.958407078382297d3)
      double precision x(2 * nk), q(0:nq-1), qq(0:nq-1)
      double precision t1, t2, t3, t4, x1, x2, an, sx, sy, gc,
     &                 sums(2), gsums(2), tm0, tm1
      double precision randlc
      external randlc
      integer ierr, rank, nprocs, np, kfirst, extra, i, k, kk, ik, l
      integer iq(0:nq-1), iqq(0:nq-1), ngc, ngcref
      parameter (ngcref = 13176389)
      logical ok

      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      tm0 = MPI_WTIME()

!     Batches kfirst .. kfirst+np-1 of 0 .. nn-1 belong to this rank.
      np = nn / nprocs
      extra = mod(nn, nprocs)
      if (rank .lt. extra) then
         np = np + 1
         kfirst = rank * np
      else
         kfirst = extra * (np + 1) + (rank - extra) * np
      end if

!     an = a ** (2 * nk) mod 2**46: the multiplier that skips one batch.
      t1 = a
      do i = 1, mk + 1
         t2 = randlc(t1, t1)
      end do
      an = t1
      sx = 0.d0
      sy = 0.d0
      do i = 0, nq - 1
         q(i) = 0.d0
         iq(i) = 0
      end do

      do k = 1, np
         kk = kfirst + k - 1
         t1 = s
         t2 = an
!        Seed of batch kk: s * an**kk, by binary powering.
         do i = 1, 100
            ik = kk / 2
            if (2 * ik .ne. kk) t3 = randlc(t1, t2)
            if (ik .eq. 0) goto 130
            t3 = randlc(t2, t2)
            kk = ik
         end do
 130     continue
         call vranlc(2 * nk, t1, a, x)
         do i = 1, nk
            x1 = 2.d0 * x(2 * i - 1) - 1.d0
            x2 = 2.d0 * x(2 * i) - 1.d0
            t1 = x1 ** 2 + x2 ** 2
            if (t1 .le. 1.d0) then
               t2 = sqrt(-2.d0 * log(t1) / t1)
               t3 = x1 * t2
               t4 = x2 * t2
               l = int(max(abs(t3), abs(t4)))
               q(l) = q(l) + 1.d0
               iq(l) = iq(l) + 1
               sx = sx + t3
               sy = sy + t4
            end if
         end do
      end do

      sums(1) = sx
      sums(2) = sy
      call MPI_ALLREDUCE(sums, gsums, 2, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      call MPI_ALLREDUCE(q, qq, nq, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      call MPI_ALLREDUCE(iq, iqq, nq, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      sx = gsums(1)
      sy = gsums(2)
      gc = 0.d0
      do i = 0, nq - 1
         gc = gc + qq(i)
      end do
      tm1 = MPI_WTIME() - tm0

      ok = abs((sx - sxref) / sxref) .le. epsilon .and.
     &     abs((sy - syref) / syref) .le. epsilon
!     About pi/4 of the 2**m pairs fall in the unit disc.
      ok = ok .and. abs(gc / 2.d0 ** m - 0.785398d0) .lt. 1.d-3
      ngc = 0
      do i = 0, nq - 1
         ngc = ngc + iqq(i)
         if (dble(iqq(i)) .ne. qq(i)) then
            print *, 'annulus', i, ': INTEGER', iqq(i), ' DOUBLE', qq(i)
            ok = .false.
         end if
      end do
      if (ngc .ne. ngcref .or. gc .ne. dble(ngcref)) then
         print *, 'gaussian pairs', ngc, gc, ' expected', ngcref
         ok = .false.
      end if
      if (rank .eq. 0) then
         write (*, 100) nprocs, tm1, sx, sy, gc
 100     format (' EP class S on ', i3, ' ranks: ', f8.3, ' s',
     &           /, '   sx = ', 1pe25.15, /, '   sy = ', 1pe25.15,
     &           /, '   gaussian pairs = ', 0pf15.0)
         if (ok) then
            write (*, *) '  VERIFICATION SUCCESSFUL'
         else
            write (*, *) '  VERIFICATION FAILED'
         end if
      end if
      call MPI_FINALIZE(ierr)
      if (.not. ok) stop 1
      end

!     The NPB generator: x <- a * x mod 2**46, returns x * 2**-46.
!     Done in double precision by splitting into 23-bit halves.
      double precision function randlc(x, a)
      implicit none
      double precision x, a
      double precision r23, r46, t23, t46
      parameter (r23 = 0.5d0 ** 23, r46 = r23 ** 2,
     &           t23 = 2.d0 ** 23, t46 = t23 ** 2)
      double precision t1, t2, t3, t4, a1, a2, x1, x2, z
      t1 = r23 * a
      a1 = int(t1)
      a2 = a - t23 * a1
      t1 = r23 * x
      x1 = int(t1)
      x2 = x - t23 * x1
      t1 = a1 * x2 + a2 * x1
      t2 = int(r23 * t1)
      z = t1 - t23 * t2
      t3 = t23 * z + a2 * x2
      t4 = int(r46 * t3)
      x = t3 - t46 * t4
      randlc = r46 * x
      end

!     n successive values of the same generator into y.
      subroutine vranlc(n, x, a, y)
      implicit none
      integer n, i
      double precision x, a, y(n)
      double precision r23, r46, t23, t46
      parameter (r23 = 0.5d0 ** 23, r46 = r23 ** 2,
     &           t23 = 2.d0 ** 23, t46 = t23 ** 2)
      double precision t1, t2, t3, t4, a1, a2, x1, x2, z
      t1 = r23 * a
      a1 = int(t1)
      a2 = a - t23 * a1
      do i = 1, n
         t1 = r23 * x
         x1 = int(t1)
         x2 = x - t23 * x1
         t1 = a1 * x2 + a2 * x1
         t2 = int(r23 * t1)
         z = t1 - t23 * t2
         t3 = t23 * z + a2 * x2
         t4 = int(r46 * t3)
         x = t3 - t46 * t4
         y(i) = r46 * x
      end do
      end

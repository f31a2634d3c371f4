C mempi-test: np=1,2,3,5 timeout=90
C f77_attrs.f -- attributes, keyvals, generalized requests and sentinels from mpif.h.  MemPI, BSD-3-Clause (see LICENSE).
C
C Fixed-form and mpif.h only, so that tests/fortran/check-mpich-built can also build it
C with MPICH's mpif77 and run it on MemPI.  MPI-1 keyvals (MPI_KEYVAL_CREATE with user
C copy and delete subroutines, MPI_ATTR_PUT/GET/DELETE, copied by MPI_COMM_DUP, deleted
C by MPI_COMM_FREE) and MPI-2 ones (MPI_COMM_CREATE_KEYVAL with MPI_COMM_DUP_FN,
C MPI_TYPE_CREATE_KEYVAL with a user copy subroutine, ADDRESS_KIND values); predefined
C attributes (MPI_TAG_UB, MPI_WTIME_IS_GLOBAL); a generalized request whose query, free
C and cancel subroutines record their calls and fill the status; the sentinels
C MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE and MPI_UNWEIGHTED.
C Every check is counted; the callbacks count their calls in a common block.
      block data cbinit
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      data ncopy, ndel, nquery, nfree, ncancel, lastval /6*0/
      end

      subroutine check(cond, what, nbad)
      logical cond
      character*(*) what
      integer nbad
      if (.not. cond) then
         print *, 'FAIL: ', what
         nbad = nbad + 1
      end if
      end

C     MPI-1 copy function: copies VAL + 1, counts the call.
      subroutine cpy1(comm, key, extra, valin, valout, flag, ierr)
      include 'mpif.h'
      integer comm, key, extra, valin, valout, ierr
      logical flag
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      ncopy = ncopy + 1
      valout = valin + 1
      flag = .true.
      ierr = MPI_SUCCESS
      end

C     MPI-1 delete function: records the value it saw.
      subroutine del1(comm, key, val, extra, ierr)
      include 'mpif.h'
      integer comm, key, val, extra, ierr
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      ndel = ndel + 1
      lastval = val
      ierr = MPI_SUCCESS
      end

C     Datatype copy function with ADDRESS_KIND values: doubles the value.
      subroutine tcpy(dtype, key, extra, valin, valout, flag, ierr)
      include 'mpif.h'
      integer dtype, key, ierr
      integer (kind=MPI_ADDRESS_KIND) extra, valin, valout
      logical flag
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      ncopy = ncopy + 1
      valout = 2 * valin + extra
      flag = .true.
      ierr = MPI_SUCCESS
      end

      subroutine gquery(extra, status, ierr)
      include 'mpif.h'
      integer (kind=MPI_ADDRESS_KIND) extra
      integer status(MPI_STATUS_SIZE), ierr
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      nquery = nquery + 1
      call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, int(extra),
     &                             ierr)
      call MPI_STATUS_SET_CANCELLED(status, .false., ierr)
      status(MPI_SOURCE) = 3
      status(MPI_TAG) = 44
      ierr = MPI_SUCCESS
      end

      subroutine gfree(extra, ierr)
      include 'mpif.h'
      integer (kind=MPI_ADDRESS_KIND) extra
      integer ierr
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      nfree = nfree + 1
      lastval = int(extra)
      ierr = MPI_SUCCESS
      end

      subroutine gcancel(extra, complete, ierr)
      include 'mpif.h'
      integer (kind=MPI_ADDRESS_KIND) extra
      logical complete
      integer ierr
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      ncancel = ncancel + 1
      ierr = MPI_SUCCESS
      end

      program f77attrs
      include 'mpif.h'
      integer ncopy, ndel, nquery, nfree, ncancel, lastval
      common /f77cb/ ncopy, ndel, nquery, nfree, ncancel, lastval
      external cpy1, del1, tcpy, gquery, gfree, gcancel
      integer ierr, rank, nprocs, nbad, key1, key2, tkey, dup, val
      integer req, st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
      integer reqs(2), cnt, ttype, tdup, sum, buf(4), i, stype
      integer blens(1), types(1), graph, indeg, outdeg, bval
      common /f77bot/ bval
      integer (kind=MPI_ADDRESS_KIND) aval, extra, disps(1), addr
      logical flag, wgt
      double precision t

      nbad = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

C     Predefined attributes: MPI-1 INTEGER and MPI-2 ADDRESS_KIND forms.
      call MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
      call check(flag .and. val .ge. 32767, 'MPI_ATTR_GET MPI_TAG_UB',
     &           nbad)
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag,
     &                       ierr)
      call check(flag .and. aval .eq. val, 'MPI_COMM_GET_ATTR TAG_UB',
     &           nbad)
      call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, aval,
     &                       flag, ierr)
      call check(flag .and. (aval .eq. 0 .or. aval .eq. 1),
     &           'MPI_WTIME_IS_GLOBAL', nbad)

C     MPI-1 keyval with user callbacks: copied by dup, deleted by free.
      call MPI_KEYVAL_CREATE(cpy1, del1, key1, 0, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'MPI_KEYVAL_CREATE', nbad)
      call MPI_ATTR_PUT(MPI_COMM_WORLD, key1, 100 + rank, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call check(ncopy .eq. 1, 'copy callback called once', nbad)
      call MPI_ATTR_GET(dup, key1, val, flag, ierr)
      call check(flag .and. val .eq. 101 + rank, 'copied attribute',
     &           nbad)
      call MPI_COMM_FREE(dup, ierr)
      call check(ndel .eq. 1 .and. lastval .eq. 101 + rank,
     &           'delete callback on MPI_COMM_FREE', nbad)
      call MPI_ATTR_DELETE(MPI_COMM_WORLD, key1, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. ndel .eq. 2 .and.
     &           lastval .eq. 100 + rank, 'MPI_ATTR_DELETE', nbad)
      call MPI_ATTR_GET(MPI_COMM_WORLD, key1, val, flag, ierr)
      call check(.not. flag, 'attribute gone after delete', nbad)
      call MPI_KEYVAL_FREE(key1, ierr)
      call check(key1 .eq. MPI_KEYVAL_INVALID, 'MPI_KEYVAL_FREE', nbad)

C     MPI-2 keyval with MPI_COMM_DUP_FN, ADDRESS_KIND values.
      call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN,
     &     MPI_COMM_NULL_DELETE_FN, key2, 0_MPI_ADDRESS_KIND, ierr)
      aval = 2_MPI_ADDRESS_KIND**40 + rank
      call MPI_COMM_SET_ATTR(MPI_COMM_WORLD, key2, aval, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      aval = 0
      call MPI_COMM_GET_ATTR(dup, key2, aval, flag, ierr)
      call check(flag .and. aval .eq. 2_MPI_ADDRESS_KIND**40 + rank,
     &           'MPI_COMM_DUP_FN copied a 64-bit value', nbad)
      call MPI_COMM_FREE(dup, ierr)
      call MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, key2, ierr)
      call MPI_COMM_FREE_KEYVAL(key2, ierr)

C     Datatype keyval with a user copy subroutine.
      ncopy = 0
      extra = 7
      call MPI_TYPE_CREATE_KEYVAL(tcpy, MPI_TYPE_NULL_DELETE_FN, tkey,
     &                            extra, ierr)
      call MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, ttype, ierr)
      aval = 21
      call MPI_TYPE_SET_ATTR(ttype, tkey, aval, ierr)
      call MPI_TYPE_DUP(ttype, tdup, ierr)
      call MPI_TYPE_GET_ATTR(tdup, tkey, aval, flag, ierr)
      call check(flag .and. aval .eq. 49 .and. ncopy .eq. 1,
     &           'datatype attribute copied by the user function', nbad)
      call MPI_TYPE_FREE(tdup, ierr)
      call MPI_TYPE_FREE(ttype, ierr)
      call MPI_TYPE_FREE_KEYVAL(tkey, ierr)

C     Generalized request: completed by the program, then waited for.
      extra = 5
      call MPI_GREQUEST_START(gquery, gfree, gcancel, extra, req, ierr)
      call MPI_TEST(req, flag, st, ierr)
      call check(.not. flag, 'generalized request done too early', nbad)
      call MPI_GREQUEST_COMPLETE(req, ierr)
      call MPI_WAIT(req, st, ierr)
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      call check(req .eq. MPI_REQUEST_NULL .and. cnt .eq. 5 .and.
     &           st(MPI_SOURCE) .eq. 3 .and. st(MPI_TAG) .eq. 44,
     &           'generalized request status from the query function',
     &           nbad)
      call check(nquery .eq. 1 .and. nfree .eq. 1 .and. lastval .eq. 5,
     &           'query and free called once with extra_state', nbad)
      call MPI_GREQUEST_START(gquery, gfree, gcancel, extra, req, ierr)
      call MPI_CANCEL(req, ierr)
      call check(ncancel .eq. 1, 'cancel callback', nbad)
      call MPI_GREQUEST_COMPLETE(req, ierr)
      call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      call check(nfree .eq. 2, 'free after cancel', nbad)

C     MPI_IN_PLACE, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE.
      sum = rank + 1
      call MPI_ALLREDUCE(MPI_IN_PLACE, sum, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      call check(sum .eq. nprocs * (nprocs + 1) / 2, 'MPI_IN_PLACE',
     &           nbad)
      buf(1) = rank
      call MPI_SENDRECV(buf(1), 1, MPI_INTEGER, mod(rank + 1, nprocs),
     &     9, buf(2), 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs),
     &     9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call check(buf(2) .eq. mod(rank + nprocs - 1, nprocs),
     &           'MPI_STATUS_IGNORE', nbad)
      call MPI_IRECV(buf(3), 1, MPI_INTEGER, rank, 10, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_ISEND(rank + 50, 1, MPI_INTEGER, rank, 10,
     &               MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
      call check(buf(3) .eq. rank + 50, 'MPI_STATUSES_IGNORE', nbad)

C     MPI_BOTTOM with an absolute address in a struct type.  The target is in a common
C     block, which the compiler reloads after any external call (MPICH's F77 MPI_F_SYNC_REG
C     crashes, so it cannot be used here).
      call MPI_GET_ADDRESS(bval, addr, ierr)
      blens(1) = 1
      disps(1) = addr
      types(1) = MPI_INTEGER
      call MPI_TYPE_CREATE_STRUCT(1, blens, disps, types, stype, ierr)
      call MPI_TYPE_COMMIT(stype, ierr)
      bval = -1
      call MPI_SENDRECV(rank + 70, 1, MPI_INTEGER, rank, 11,
     &     MPI_BOTTOM, 1, stype, rank, 11, MPI_COMM_WORLD, st, ierr)
      call check(bval .eq. rank + 70, 'MPI_BOTTOM', nbad)
      call MPI_TYPE_FREE(stype, ierr)

C     MPI_UNWEIGHTED: a ring as a distributed graph.
      i = mod(rank + 1, nprocs)
      cnt = mod(rank + nprocs - 1, nprocs)
      call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, cnt,
     &     MPI_UNWEIGHTED, 1, i, MPI_UNWEIGHTED, MPI_INFO_NULL,
     &     .false., graph, ierr)
      call check(ierr .eq. MPI_SUCCESS, 'dist graph, unweighted', nbad)
      call MPI_DIST_GRAPH_NEIGHBORS_COUNT(graph, indeg, outdeg, wgt,
     &                                    ierr)
      call check(indeg .eq. 1 .and. outdeg .eq. 1 .and. .not. wgt,
     &           'MPI_UNWEIGHTED recognised', nbad)
      call MPI_COMM_FREE(graph, ierr)

      t = MPI_WTIME()
      call check(t .gt. 0.0d0 .and. MPI_WTICK() .gt. 0.0d0,
     &           'MPI_WTIME', nbad)
      call MPI_ALLREDUCE(MPI_IN_PLACE, nbad, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. nbad .eq. 0) print *, 'f77_attrs: ok on',
     &   nprocs, 'ranks'
      call MPI_FINALIZE(ierr)
      if (nbad .ne. 0) stop 1
      end

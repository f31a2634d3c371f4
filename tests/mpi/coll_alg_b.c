/* mempi-test: np=2,3,4,7,9 timeout=300 env=MEMPI_COLL_ALLREDUCE=ring,MEMPI_COLL_ALLGATHER=bruck,MEMPI_COLL_GATHER=linear,MEMPI_COLL_SCATTER=linear,MEMPI_COLL_REDUCE=binomial */
/* mempi-test: np=2,3,5,8,9 timeout=300 env=MEMPI_COLL_ALLTOALL=pairwise,MEMPI_COLL_ALLTOALLV=linear,MEMPI_COLL_ALLTOALLW=linear,MEMPI_COLL_ALLGATHERV=gatherv_bcast */
/* mempi-test: np=2,3,5,6,9 timeout=300 env=MEMPI_COLL_REDUCE_SCATTER=reduce_scatterv,MEMPI_COLL_REDUCE_SCATTER_BLOCK=reduce_scatterv,MEMPI_COLL_SCAN=recursive_doubling */
/* coll_alg_b.c -- every collective, second set of forced algorithms.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The checks live in coll_suite.c; this file only picks the configurations above (the
 * test runner runs each mempi-test line as its own job, with env= set).
 */
#include "coll_suite.c"

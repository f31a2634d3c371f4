/* mempi-test: np=1,2,3,5,8,9 timeout=300 env=MEMPI_COLL_BCAST=scatter_allgather,MEMPI_COLL_ALLREDUCE=rabenseifner,MEMPI_COLL_ALLGATHER=recursive_doubling,MEMPI_COLL_GATHER=binomial,MEMPI_COLL_SCATTER=binomial */
/* mempi-test: np=2,3,5,8,9 timeout=300 env=MEMPI_COLL_ALLTOALL=bruck,MEMPI_COLL_ALLTOALLV=pairwise,MEMPI_COLL_ALLTOALLW=pairwise,MEMPI_COLL_REDUCE_SCATTER=pairwise,MEMPI_COLL_REDUCE_SCATTER_BLOCK=pairwise */
/* mempi-test: np=2,3,4,7,9 timeout=300 env=MEMPI_COLL_SCAN=linear,MEMPI_COLL_EXSCAN=linear,MEMPI_COLL_REDUCE=linear,MEMPI_COLL_BCAST=linear */
/* coll_alg_a.c -- every collective, first set of forced algorithms.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The checks live in coll_suite.c; this file only picks the configurations above (the
 * test runner runs each mempi-test line as its own job, with env= set).
 */
#include "coll_suite.c"

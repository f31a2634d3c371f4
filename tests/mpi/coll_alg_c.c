/* mempi-test: np=2,3,5,6,9 timeout=300 env=MEMPI_COLL_BCAST=binomial,MEMPI_COLL_ALLREDUCE=reduce_bcast,MEMPI_COLL_ALLGATHER=gather_bcast,MEMPI_COLL_ALLTOALL=linear,MEMPI_COLL_ALLGATHERV=ring,MEMPI_COLL_BARRIER=dissemination */
/* coll_alg_c.c -- every collective, third set of forced algorithms.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The checks live in coll_suite.c; this file only picks the configurations above (the
 * test runner runs each mempi-test line as its own job, with env= set).
 */
#include "coll_suite.c"

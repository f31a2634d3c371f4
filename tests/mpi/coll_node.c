/* mempi-test: np=2,4,5,9 timeout=300 env=MEMPI_NODE_SIZE=2,MEMPI_COLL_BARRIER=node,MEMPI_COLL_BCAST=two_stage,MEMPI_COLL_REDUCE=node,MEMPI_COLL_ALLREDUCE=btree4,MEMPI_COLL_ALLGATHER=btree4star,MEMPI_COLL_ALLGATHERV=btree4star */
/* mempi-test: np=3,7,9 timeout=300 env=MEMPI_NODE_SIZE=4,MEMPI_COLL_BARRIER=node,MEMPI_COLL_BCAST=two_stage,MEMPI_COLL_REDUCE=node,MEMPI_COLL_ALLREDUCE=btree4,MEMPI_COLL_ALLGATHER=btree4star,MEMPI_COLL_ALLGATHERV=btree4star */
/* mempi-test: np=3,5 timeout=300 env=MEMPI_NODE_SIZE=1,MEMPI_COLL_BARRIER=node,MEMPI_COLL_BCAST=two_stage,MEMPI_COLL_REDUCE=node,MEMPI_COLL_ALLREDUCE=btree4,MEMPI_COLL_ALLGATHER=btree4star,MEMPI_COLL_ALLGATHERV=btree4star */
/* mempi-test: np=6 timeout=300 env=MEMPI_NODE_SIZE=5,MEMPI_COLL_BARRIER=node,MEMPI_COLL_BCAST=two_stage,MEMPI_COLL_REDUCE=node,MEMPI_COLL_ALLREDUCE=btree4,MEMPI_COLL_ALLGATHER=btree4star,MEMPI_COLL_ALLGATHERV=btree4star */
/* coll_node.c -- node-aware algorithms forced, on simulated node layouts.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The checks live in coll_suite.c; this file only picks the configurations above (the
 * test runner runs each mempi-test line as its own job, with env= set).
 */
#include "coll_suite.c"

/* mempi-test: np=1,2,3,4,5,8,9 timeout=300 env=MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* mempi-test: np=2,3 timeout=300 env=MEMPI_CMA=0,MEMPI_COLL_SHM_SLOT=4096,MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* mempi-test: np=7,9 timeout=300 env=MEMPI_CMA=0,MEMPI_COLL_SHM_SLOT=16384,MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* mempi-test: np=4,5,9 timeout=300 env=MEMPI_NODE_SIZE=2,MEMPI_COLL_BARRIER=shm,MEMPI_COLL_BCAST=shm,MEMPI_COLL_REDUCE=shm,MEMPI_COLL_ALLREDUCE=shm,MEMPI_COLL_ALLGATHER=shm */
/* coll_alg_shm.c -- every collective with the shared-memory algorithms forced.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The checks live in coll_suite.c; this file only picks the configurations above (the
 * test runner runs each mempi-test line as its own job, with env= set): the default slot
 * (data above 64 KiB per rank moves by single copy), 4 KiB and 16 KiB slots without single
 * copy (0.6 / 2.9 KiB big cells and 4 / 16 small ones: larger data is pipelined through the
 * cells in many chunks, and the ring of small cells wraps often), and
 * simulated nodes (the host is still shared, so a forced shm still applies).  Nonblocking
 * calls and the MINLOC type (not contiguous) fall back to the message algorithms.
 */
#include "coll_suite.c"

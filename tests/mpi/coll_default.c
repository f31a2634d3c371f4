/* mempi-test: np=1,2,3,4,5,7,8,9 timeout=300 */
/* mempi-test: np=4,5,9 timeout=300 env=MEMPI_NODE_SIZE=2 */
/* mempi-test: np=3,7,9 timeout=300 env=MEMPI_NODE_SIZE=3 */
/* coll_default.c -- every collective with the default algorithm selection, flat and node-aware.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The checks live in coll_suite.c; this file only picks the configurations above (the
 * test runner runs each mempi-test line as its own job, with env= set).
 */
#include "coll_suite.c"

/* segv_exit_code.c -- a rank that segfaults must be reported as killed by signal 11, and keep the program's own handlers.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Status 2026-11-25: fixed on main: libmpi no longer links libfabric, src/transport/net/fabric.c
 * dlopen()s it only for jobs that span hosts; exit 139 and "killed by signal 11" under mpiexec,
 * and 139 as a singleton, without IPATH_NO_BACKTRACE.
 *
 * Found while checking that tests/mpi4py/driver.py catches crashes: Python's faulthandler
 * never ran in a crashing rank, and mpiexec said "exited with code 1" instead of "was
 * killed by signal 11 (Segmentation fault)".
 *
 * Cause: libmpi.so.12 links libfabric, which pulls in libpsm_infinipath.so.1 and
 * libinfinipath.so.4.  libinfinipath's load-time constructor installs its own SIGSEGV
 * (and SIGBUS/SIGILL/...) handler that prints "<prog>:<pid> terminated with signal 11 at
 * PC=... Backtrace:" and calls exit(1).  So (a) every MemPI rank that crashes exits with
 * code 1 and the launcher cannot name the signal, and (b) a program that loads libmpi
 * after installing its own handler -- Python importing mpi4py after faulthandler.enable(),
 * or any dlopen-based binding -- silently loses that handler.  A C program that calls
 * signal() in main() keeps its handler (the constructor ran before main).
 *
 * Workaround, verified: IPATH_NO_BACKTRACE=1 in the environment makes libinfinipath skip
 * the handler; mpiexec then reports "killed by signal 11".  Fix options for the lead:
 * mpiexec exports IPATH_NO_BACKTRACE=1 unless the user set it (covers launched jobs), and/or
 * the net transport dlopen()s libfabric only when a job spans nodes (covers singletons
 * and keeps single-node jobs free of the PSM libraries).
 *
 * Build/run:  build/bin/mpicc -o /tmp/r tests/mpi4py/repro/segv_exit_code.c
 *             build/bin/mpiexec -n 1 /tmp/r ; echo $?
 *     expected: "mpiexec: rank 0 (pid N) was killed by signal 11 (Segmentation fault)", exit 139
 *     MemPI 0.1.0: "... terminated with signal 11 ... Backtrace:" then "exited with code 1", exit 1
 *             IPATH_NO_BACKTRACE=1 build/bin/mpiexec -n 1 /tmp/r     -> the expected line
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    volatile int *volatile nowhere = 0;
    *nowhere = 1; /* SIGSEGV */
    MPI_Finalize();
    return 0;
}

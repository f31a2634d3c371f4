/* placement.h -- which cores the job may use, and binding ranks to them.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The waiting policy (progress.c) asks how many cores the job has; MPI_Init then binds each
 * local rank to its own core when there are enough (placement.c).
 */
#ifndef MP_PLACEMENT_H
#define MP_PLACEMENT_H

/* Cores available to the job: the CPUs of the affinity mask this process started with,
 * capped by the cgroup CPU quota (v1 or v2).  Computed on the first call, before any binding,
 * and remembered. */
int mp_cores_available(void);

/* Binds this rank as MEMPI_BIND asks (auto: one core each when the node's ranks fit on the
 * available cores, nothing when oversubscribed) and, with MEMPI_REPORT_BINDINGS=1 (set by
 * mpiexec --report-bindings), prints one line saying what it did.  Returns MPI_SUCCESS, or
 * an error code when an explicit MEMPI_BIND=core|socket cannot be applied. */
int mp_placement_apply(void);

/* The plan, separated from the system for testing. */
typedef struct mp_cpu {
    int id;                            /* logical CPU number */
    int package;                       /* physical_package_id */
    int core;                          /* core_id within the package */
    int smt;                           /* index among the hardware threads of its core */
} mp_cpu;
enum { MP_BIND_AUTO = 0, MP_BIND_NONE, MP_BIND_CORE, MP_BIND_SOCKET };

/* Chooses the CPUs for local rank `rank` of `nranks` among `cpus` (the ones the job may use,
 * sorted by id), `cores` being the job's core count (cgroup quota may make it smaller than
 * ncpus).  Writes the chosen CPU ids to out (room for ncpus) and returns their number;
 * 0 means "do not bind".  Policy: consecutive ranks fill one package before the next, ranks
 * are shared among packages in proportion to their CPUs, one hardware thread per core is
 * used before any core's second thread, and with more ranks than CPUs (only with an explicit
 * MEMPI_BIND=core) rank r goes where rank r mod ncpus would. */
int mp_placement_plan(const mp_cpu *cpus, int ncpus, int cores, int nranks, int rank, int mode,
                      int *out);

#endif

/* pmi.h -- PMI-1 client: rank, size and a key-value store from the launcher.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * The library learns who it is and exchanges addresses through PMI-1, the
 * process-manager interface spoken by MPICH's Hydra, Slurm (srun --mpi=pmi2
 * serves PMI-1 too) and MemPI's own mpiexec.  Speaking the wire protocol
 * rather than linking a libpmi keeps MemPI free of launcher libraries: any
 * launcher that sets PMI_FD (or PMI_PORT) can start a MemPI job.
 *
 * Without PMI_FD/PMI_PORT the process is a singleton (rank 0 of 1) and the
 * key-value store is a local table, so the same put/fence/get code runs.
 *
 * Every function returns 0 on success or a negative MP_PMI_E* code, never
 * prints; mp_pmi_error() gives the last error as text for the caller to
 * report.  Calls are serialized by an internal lock (PMI-1 allows one request
 * in flight per connection).
 */
#ifndef MEMPI_PMI_H
#define MEMPI_PMI_H

#define MP_PMI_EFAIL      (-1)   /* I/O or protocol failure, launcher refused */
#define MP_PMI_ENOTFOUND  (-2)   /* get: no such key */
#define MP_PMI_EINVAL     (-3)   /* bad argument (length, characters, state) */

/* Keys the launcher provides in the store (besides what ranks put). */
#define MP_PMI_KEY_PROCESS_MAPPING "PMI_process_mapping"
#define MP_PMI_KEY_JOB_ID          "MEMPI_JOB_ID"

int  mp_pmi_init(int *rank, int *size, int *appnum);
int  mp_pmi_is_singleton(void);
int  mp_pmi_put(const char *key, const char *value);
int  mp_pmi_fence(void);
int  mp_pmi_get(const char *key, char *value, int maxlen);
int  mp_pmi_job_id(char *value, int maxlen);   /* unique among running jobs */
int  mp_pmi_universe_size(int *n);
/* Ends this process after asking the launcher to end the job (PMI-1: cmd=abort with the exit
 * status of mp_pmi_exit_status(code) as exitcode, and MemPI's keys errorcode=<code> and, for
 * an error that was fatal rather than a call of MPI_Abort, fatal=1; other launchers ignore
 * keys they do not know).  Exits with that status; does not return. */
void mp_pmi_abort(int code, int fatal, const char *msg) __attribute__((noreturn));
int  mp_pmi_finalize(void);
const char *mp_pmi_error(void);

/* Asks the launcher to start one new job of `count` programs (MPI_Comm_spawn_multiple), with
 * the pairs preput_key[i]=preput_val[i] in the new job's key-value space.  PMI-1's multi-line
 * `mcmd=spawn` request, as MPICH's PMI-1 client sends it (MemPI's mpiexec, Hydra, Slurm's
 * pmi2 plugin), or PMI-2's `spawn` (Slurm); singletons: MP_PMI_EINVAL.  No value may hold a
 * newline. */
typedef struct mp_pmi_spawn_cmd {
    const char *command;
    char **argv;                      /* NULL-terminated, without the command; or NULL */
    int maxprocs;
    int ninfo;
    const char *const *info_keys, *const *info_vals;
} mp_pmi_spawn_cmd;
int  mp_pmi_spawn(int count, const mp_pmi_spawn_cmd *cmds, int npreput,
                  const char *const *preput_key, const char *const *preput_val);
/* The id of the job the last successful mp_pmi_spawn started, where the launcher names it
 * (MemPI's mpiexec, core/failboard.h); "" otherwise (Hydra). */
const char *mp_pmi_spawned_job(void);

#endif /* MEMPI_PMI_H */

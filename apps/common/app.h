/* app.h -- the harness every application of apps/ shares: options, time breakdown, verification, report.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each application of the suite (FFT, OCEAN, LU, RADIX, SAMPLE, N-BODY) comes in three forms --
 * pure MPI, shared window inside a node, hybrid -- and every form is one main() that uses only
 * standard MPI plus this harness, so the same source builds against any MPI library.  The
 * harness keeps out of the way of the algorithm: a form says which of the paper's three time
 * components it is in (app_phase), brackets each timed repetition (app_rep_begin/end), reports
 * what it checked (app_verify) and ends with app_finish, which prints the report and returns
 * the exit status (non-zero when a verification failed).
 *
 * Time breakdown (as in the paper, Shan et al., Parallel Computing 29 (2003)):
 *   LOCAL  computation, including local memory traffic (packing, local transposes);
 *   RMEM   communication that moves data: MPI calls that send or receive, and in the
 *          shared-window forms the loads and stores of other ranks' memory;
 *   SYNC   synchronization: barriers and MPI_Win_sync, and waiting for others to get there.
 * In the pure MPI forms a rank that waits for a late partner inside a receive or a
 * collective charges that wait to RMEM: message passing synchronizes implicitly, which is
 * exactly why its SYNC is small.
 *
 * Output (rank 0, stdout): '#' lines describe the run, then one line per rank and a sum
 * line "rank R local L rmem M sync S msgs N bytes B" for the fastest repetition, one line per
 * check "verify WHAT VALUE <= LIMIT ok|FAILED", and a closing line of key=value pairs that
 * apps/report.py reads:
 *   result app=fft form=mpi np=4 nodes=1 time=0.1234 local=... reps=3 verified=1
 * msgs/bytes are the application's own count of what it communicated (messages it sent; in
 * the shared-window forms, bytes it loaded or stored in other ranks' memory).  Under MemPI,
 * MEMPI_STATS=1 adds the library's own counters at MPI_Finalize (stderr).
 *
 * Common options: --reps R (timed repetitions, the fastest is reported; default 3),
 * --budget SECONDS (no repetition starts once the timed ones took this long; 0: none),
 * --t1 SECONDS (the one-rank time, to print the speedup), --node-size K (treat groups of K
 * consecutive ranks of a shared-memory node as the nodes of the shared-window and hybrid
 * forms, to exercise their inter-node paths on one machine).  Applications read their own
 * options with app_arg/app_argf.
 */
#ifndef APPS_APP_H
#define APPS_APP_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

enum app_phase { APP_LOCAL, APP_RMEM, APP_SYNC, APP_NPHASE };

typedef struct app_info {
    const char *name;   /* "fft" */
    const char *form;   /* "mpi", "sas" or "hybrid" */
    int rank, size;     /* in MPI_COMM_WORLD */
    int reps;           /* repetitions to run; app_rep_end lowers it when --budget is spent */
    double budget;      /* --budget (0: none) */
    int node_size;      /* --node-size (0: nodes are what MPI_COMM_TYPE_SHARED says) */
    double t1;          /* --t1 (0: unknown) */
} app_info;

extern app_info app;

void app_init(int *argc, char ***argv, const char *name, const char *form);
long app_arg(const char *option, long dflt);       /* --option N */
double app_argf(const char *option, double dflt);  /* --option X */

/* Charge the time since the last switch to the current phase and switch to `phase`;
 * returns the phase left, so a helper can restore it. */
int app_phase(int phase);
void app_count(long msgs, long bytes);
void app_rep_begin(void);   /* collective: a barrier, then the clock starts (phase LOCAL) */
void app_rep_end(void);     /* collective: the repetition's time is the slowest rank's */

/* Collective over MPI_COMM_WORLD: passes when the largest `value` of all ranks is <= limit. */
int app_verify(const char *what, double value, double limit);
/* Prints the report, frees the shared windows, calls MPI_Finalize; returns the exit status. */
int app_finish(const char *size_text);
/* Ends the run when a form cannot run in this layout (exit status 2, printed by rank 0). */
void app_refuse(const char *why);

/* ---- shared windows (the sas and hybrid forms) ---- */
/* The ranks of this process's node: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), cut into
 * groups of --node-size ranks when that option is given. */
MPI_Comm app_node_comm(MPI_Comm comm);
/* One array spread over the ranks of `node`, this rank contributing `mine` bytes (a multiple
 * of the element size): MPI_Win_allocate_shared, contiguous across ranks, in a passive-target epoch
 * (MPI_Win_lock_all) so MPI_Win_sync may be called.  Returns the address of node rank 0's
 * part, i.e. the start of the whole array; app_part() gives any node rank's part. */
void *app_shared(MPI_Comm node, MPI_Aint mine);
void *app_part(const void *array, int node_rank);
/* The shared-window forms: every rank of MPI_COMM_WORLD must share one node; returns that
 * node's communicator (node rank = world rank), or ends the run through app_refuse. */
MPI_Comm app_one_node(void);
/* MPI_Win_sync on every shared window, MPI_Barrier(node), MPI_Win_sync again: after it, every
 * store made before it by any rank of the node is visible to every load after it.  Charged
 * to SYNC. */
void app_node_barrier(MPI_Comm node);
/* world rank -> node rank, or -1 for ranks on other nodes (array of app.size, caller frees) */
int *app_node_ranks(MPI_Comm node);

/* ---- small helpers the applications share ---- */
#define APP_PI 3.14159265358979323846
static inline uint64_t app_hash(uint64_t x)   /* splitmix64: deterministic data from indices */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static inline double app_unit(uint64_t x)     /* uniform in [0, 1) */
{
    return (double)(app_hash(x) >> 11) * 0x1.0p-53;
}
/* block distribution of n items over p owners: owner r holds [app_lo(n,p,r), app_lo(n,p,r+1)) */
static inline long app_lo(long n, int p, int r)
{
    return n * r / p;   /* n * p stays far below 2^63 in this suite */
}
void *app_alloc(size_t bytes);   /* malloc that ends the job when memory runs out */

#endif

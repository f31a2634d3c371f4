/* procs.c -- the process table beyond MPI_COMM_WORLD: processes of other jobs.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every layer names a peer by a process id, an index into mp_world.procs.  The world's ranks
 * are ids 0..size-1 (set up by nodes.c); connecting to another job (dynamic processes:
 * src/comm/dynamic.c) appends that job's processes here, once each: a process is known
 * across jobs by the pair (job id, rank in its job's MPI_COMM_WORLD), and a second connection
 * to a process already in the table reuses its id, its transport channel and the
 * point-to-point sequence numbers of the pair.  Ids are never reused before MPI_Finalize, so
 * a stale id in a freed communicator can never name another process.
 *
 * Layers with per-process arrays (point-to-point peers, one-sided queues) register a hook
 * that grows them; the table grows only from MPI calls that connect jobs, never inside a
 * packet handler, so nobody holds a pointer into those arrays across a growth.
 *
 * Each foreign job's processes on one host get a node id of their own (mp_procs_new_node),
 * above the world's: the collective layer treats them as another node and never looks for
 * them in this node's shared segment.
 */
#include "core/core.h"
#include "core/pmi.h"
#include <stdlib.h>
#include <string.h>

typedef struct foreign {
    char job[MP_JOB_ID_MAX];
    int rank;
} foreign;

static foreign *others;               /* [id - mp_world.size] */
static int next_node;                 /* 0: not yet set from mp_world.nnodes */
static char my_job[MP_JOB_ID_MAX];
static int my_job_known;

#define MAX_GROW_HOOKS 4
static void (*grow_hooks[MAX_GROW_HOOKS])(int, int);
static int ngrow_hooks;

void mp_procs_on_grow(void (*hook)(int old_n, int new_n))
{
    for (int i = 0; i < ngrow_hooks; i++)
        if (grow_hooks[i] == hook)
            return;                   /* a layer started again (sessions after the world) */
    if (ngrow_hooks == MAX_GROW_HOOKS)
        mp_fatal("internal: too many process-table hooks");
    grow_hooks[ngrow_hooks++] = hook;
}

const char *mp_procs_my_job(void)
{
    if (!my_job_known) {
        if (mp_pmi_job_id(my_job, sizeof my_job) < 0)
            my_job[0] = '\0';
        my_job[sizeof my_job - 1] = '\0';
        my_job_known = 1;
    }
    return my_job;
}

int mp_procs_new_node(void)
{
    if (next_node < mp_world.nnodes)
        next_node = mp_world.nnodes;
    return next_node++;
}

int mp_procs_find(const char *job, int job_rank)
{
    if (strcmp(job, mp_procs_my_job()) == 0)
        return job[0] && job_rank >= 0 && job_rank < mp_world.size ? job_rank : -1;
    for (int i = 0; i < mp_world.nprocs - mp_world.size; i++)
        if (others[i].rank == job_rank && strcmp(others[i].job, job) == 0)
            return mp_world.size + i;
    return -1;
}

const char *mp_procs_job(int id)
{
    return id < mp_world.size ? mp_procs_my_job() : others[id - mp_world.size].job;
}

int mp_procs_job_rank(int id)
{
    return id < mp_world.size ? id : others[id - mp_world.size].rank;
}

int mp_procs_before(int a, int b)
{
    if (a < mp_world.size && b < mp_world.size)
        return a < b;
    int c = strcmp(mp_procs_job(a), mp_procs_job(b));
    return c ? c < 0 : mp_procs_job_rank(a) < mp_procs_job_rank(b);
}

int mp_procs_add(const char *job, int job_rank, int node)
{
    int old = mp_world.nprocs, id = old;
    mp_world.procs = mp_realloc(mp_world.procs, sizeof(mp_proc) * (size_t)(old + 1));
    others = mp_realloc(others, sizeof(foreign) * (size_t)(old + 1 - mp_world.size));
    memset(&mp_world.procs[id], 0, sizeof(mp_proc));
    mp_world.procs[id].node = node;
    foreign *f = &others[id - mp_world.size];
    snprintf(f->job, sizeof f->job, "%s", job);
    f->rank = job_rank;
    mp_world.nprocs = old + 1;
    return id;
}

void mp_procs_grown(int old_n)
{
    if (old_n < mp_world.nprocs)
        for (int i = 0; i < ngrow_hooks; i++)
            grow_hooks[i](old_n, mp_world.nprocs);
}

void mp_procs_finalize(void)
{
    free(others);
    others = NULL;
    my_job_known = 0;
    next_node = 0;
}

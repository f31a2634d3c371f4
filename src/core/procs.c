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
 *
 * Failures.  Under MemPI's mpiexec a job has a failure board (core/failboard.h) where the
 * launcher of a job we spawned posts that job's death.  Once this process knows processes of
 * other jobs, a progress hook reads new records (one atomic load per poll when nothing is
 * new) and marks every process of a named job failed.  The standard leaves the outcome to
 * the error handlers: if any communicator that holds a failed process has a fatal handler
 * (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT) the job ends here with the launcher's account of
 * the death; otherwise the layers' failure hooks complete what waits for those processes
 * with errors, and later operations with them return errors.
 */
#include "core/core.h"
#include "core/failboard.h"
#include "core/pmi.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct foreign {
    char job[MP_JOB_ID_MAX];
    int rank;
    char *failure;                    /* why it is gone, NULL while alive */
} foreign;

static foreign *others;               /* [id - mp_world.size] */
static int next_node;                 /* 0: not yet set from mp_world.nnodes */
static char my_job[MP_JOB_ID_MAX];
static int my_job_known;

static mp_failboard *board;          /* NULL: none (other launchers) or not yet mapped */
static int board_tried, board_gate;
static unsigned board_seen;           /* records taken so far */
#define MAX_FAIL_HOOKS 4
static void (*fail_hooks[MAX_FAIL_HOOKS])(int);
static int nfail_hooks;

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

void mp_procs_on_fail(void (*hook)(int id))
{
    for (int i = 0; i < nfail_hooks; i++)
        if (fail_hooks[i] == hook)
            return;
    if (nfail_hooks == MAX_FAIL_HOOKS)
        mp_fatal("internal: too many process-failure hooks");
    fail_hooks[nfail_hooks++] = hook;
}

const char *mp_procs_failure(int id)
{
    return id < mp_world.size || id >= mp_world.nprocs ? NULL : others[id - mp_world.size].failure;
}

int mp_procs_failure_code(int id)
{
    const char *why = mp_procs_failure(id);
    return mp_error_code(MPI_ERR_OTHER, "process %d of job %.12s (a job this one spawned) is "
                         "gone; its launcher reported: %s", mp_procs_job_rank(id),
                         mp_procs_job(id), why ? why : "nothing");
}

static int holds(const int *world, int n, int id)
{
    for (int i = 0; world && i < n; i++)
        if (world[i] == id)
            return 1;
    return 0;
}

/* A communicator holding process id whose handler is fatal, or NULL. */
static mp_comm *fatal_holder(int id)
{
    for (int i = 0; i < mp_comm_table.next_index; i++) {
        mp_comm *c = mp_table_lookup(&mp_comm_table, MP_MAKE_HANDLE(mp_comm_table.type, i));
        if (c && (c->errhandler == MPI_ERRORS_ARE_FATAL || c->errhandler == MPI_ERRORS_ABORT) &&
            (holds(c->world, c->size, id) || (c->is_inter && holds(c->remote_world,
                                                                    c->remote_size, id))))
            return c;
    }
    return NULL;
}

/* A job the board names: mark its processes, then apply the handlers' verdict. */
static int job_failed(const char *job, const char *text)
{
    int first = mp_world.nprocs, events = 0;
    for (int id = mp_world.size; id < mp_world.nprocs; id++) {
        foreign *f = &others[id - mp_world.size];
        if (f->failure == NULL && strcmp(f->job, job) == 0) {
            f->failure = mp_malloc(strlen(text) + 1);
            strcpy(f->failure, text);
            mp_world.procs[id].failed = 1;
            if (id < first)
                first = id;
        }
    }
    for (int id = first; id < mp_world.nprocs; id++) {
        mp_comm *c = mp_world.procs[id].failed ? fatal_holder(id) : NULL;
        if (c)
            mp_error_raise(c, mp_procs_failure_code(id), NULL);   /* fatal: ends the job */
    }
    for (int id = first; id < mp_world.nprocs; id++)
        if (mp_world.procs[id].failed && strcmp(others[id - mp_world.size].job, job) == 0) {
            for (int k = 0; k < nfail_hooks; k++)
                fail_hooks[k](id);
            events++;
        }
    return events;
}

static int board_poll(void)
{
    unsigned n = atomic_load_explicit(&board->next, memory_order_acquire);
    int events = 0;
    while (board_seen < n && board_seen < MP_FAILBOARD_RECS) {
        mp_failrec *r = &board->rec[board_seen];
        if (!atomic_load_explicit(&r->ready, memory_order_acquire))
            break;
        board_seen++;
        events += job_failed(r->job, r->text);
    }
    return events;
}

/* Maps the board the launcher gave (its descriptor number is in the key-value space). */
static void board_open(void)
{
    char text[16];
    board_tried = 1;
    if (mp_pmi_get(MP_FAILBOARD_KEY, text, sizeof text) != 0)
        return;
    int fd = atoi(text);
    void *p = fd > 2 ? mmap(NULL, sizeof *board, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (p == MAP_FAILED)
        return;
    if (atomic_load(&((mp_failboard *)p)->magic) != MP_FAILBOARD_MAGIC) {
        munmap(p, sizeof *board);
        return;
    }
    board = p;
    mp_progress_register_gated(board_poll, &board_gate);
}

const char *mp_procs_job_failed(const char *job)
{
    const char *text;
    if (!board_tried || (board == NULL && mp_pmi_is_singleton()))
        board_open();
    return board && job[0] && mp_failboard_find(board, job, &text) ? text : NULL;
}

int mp_procs_add(const char *job, int job_rank, int node)
{
    /* a singleton gets its board at its first spawn (core/pmi.c) */
    if (!board_tried || (board == NULL && mp_pmi_is_singleton()))
        board_open();
    board_gate = board != NULL;       /* from the first process of another job on */
    int old = mp_world.nprocs, id = old;
    mp_world.procs = mp_realloc(mp_world.procs, sizeof(mp_proc) * (size_t)(old + 1));
    others = mp_realloc(others, sizeof(foreign) * (size_t)(old + 1 - mp_world.size));
    memset(&mp_world.procs[id], 0, sizeof(mp_proc));
    mp_world.procs[id].node = node;
    foreign *f = &others[id - mp_world.size];
    snprintf(f->job, sizeof f->job, "%s", job);
    f->rank = job_rank;
    f->failure = NULL;
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
    for (int i = 0; others && i < mp_world.nprocs - mp_world.size; i++)
        free(others[i].failure);
    if (board)
        munmap(board, sizeof *board);
    board = NULL;
    board_tried = board_gate = 0;
    board_seen = 0;
    free(others);
    others = NULL;
    my_job_known = 0;
    next_node = 0;
}

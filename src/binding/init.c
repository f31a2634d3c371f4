/* init.c -- MPI_Init, MPI_Finalize and the job-level queries.  MemPI, BSD-3-Clause.
 *
 * Start-up order: configuration (every layer's MEMPI_* rows, loaded and validated first, so a
 * typo fails before anything is created), PMI (who am I, how many, which node), the node
 * layout, the shared segment and transports, point-to-point, datatypes, MPI_COMM_WORLD/SELF,
 * then the comm and coll layers.
 * Finalize drains queued sends, passes a node barrier so no rank unmaps while a peer may still
 * need it, prints statistics and tells the launcher.  The entry points are generated from
 * src/binding/env.spec, which also holds the one-line queries.
 *
 * The world model (MPI_Init ... MPI_Finalize) and sessions (MPI_Session_init ...
 * MPI_Session_finalize, session.c) share one library instance: the first of them starts it,
 * and it stops when the world model is finalized (or was never initialized) and the last
 * session is finalized.  mp_world.initialized and .finalized describe the instance;
 * MPI_Initialized and MPI_Finalized report the world model only (mp_world_model), as MPI 4.0
 * says.  The PMI job cannot be joined twice, so once the library has stopped neither model
 * can start again.
 */
#include "binding/binding.h"
#include "rma/rma.h"
#include "transport/transport.h"
#include "core/placement.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A malformed MEMPI_* variable is found before PMI, by every rank alike (they share the
 * environment).  Rank 0 -- by the launcher's PMI_RANK; a process without one counts as rank 0
 * -- reports it and exits at once, and the launcher then ends the others: they wait
 * CONFIG_FAIL_GRACE_S first, so that the message appears once, not once per rank, and then
 * report it themselves in case no launcher ends them or rank 0's environment differed. */
#define CONFIG_FAIL_GRACE_S 3
static void config_fail(int err)
{
    const char *r = getenv("PMI_RANK");
    if (r != NULL && *r != '\0' && strcmp(r, "0") != 0) {
        struct timespec left = { CONFIG_FAIL_GRACE_S, 0 };
        while (nanosleep(&left, &left) != 0 && errno == EINTR) { }
    }
    fprintf(stderr, "MemPI: MPI_Init failed: %s\n", mp_error_message(err));
    _exit(1);
}

static void init_fail(int err)
{
    fprintf(stderr, "MemPI: MPI_Init failed: %s\n", mp_error_message(err));
    mp_transports_abandon();
    mp_abort_job(1, mp_error_message(err));
}

static mp_comm *predefined_comm(int handle, int ctx, int size, int rank, const int *world)
{
    int *w = mp_malloc(sizeof(int) * (size_t)size);
    memcpy(w, world, sizeof(int) * (size_t)size);
    mp_comm *c = mp_comm_new(ctx, size, rank, w);
    c->handle = handle;
    snprintf(c->name, sizeof c->name, "%s", handle == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    return c;
}

static int world_model = MP_WORLD_NONE;
static int sessions;                  /* sessions initialized and not finalized */

int mp_world_model(void)
{
    return world_model;
}

/* Starts the library at thread level `required` (clamped); configuration errors end the job
 * before PMI, other failures abort it. */
static void start(int required)
{
    mp_config_add(mp_coll_config_vars, mp_coll_config_nvars);
    int err = mp_config_load();
    if (err)
        config_fail(err);
    int rank, size, appnum;
    if (mp_pmi_init(&rank, &size, &appnum) != 0) {
        fprintf(stderr, "MemPI: MPI_Init failed: cannot talk to the launcher: %s\n", mp_pmi_error());
        exit(1);
    }
    mp_world.rank = rank;
    mp_world.size = size;
    mp_world.appnum = appnum;
    mp_world.main_thread = pthread_self();
    mp_world.wtime_base = mp_wtime();
    /* Which ranks share this host (core/nodes.c), then the transports that reach them
     * (transport.c: shared memory on this host, the network beyond; MEMPI_NODE_SIZE only
     * subdivides nodes for the collectives, never the transport). */
    if ((err = mp_nodes_setup()) || (err = mp_datatype_init()) || (err = mp_transports_init()))
        init_fail(err);
    mp_wait_policy_init();
    if ((err = mp_placement_apply()))
        init_fail(err);
    if ((err = mp_pt2pt_init()))
        init_fail(err);
    int *all = mp_malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        all[i] = i;
    mp_world.comm_world = predefined_comm(MPI_COMM_WORLD, 0, size, rank, all);
    mp_world.comm_self = predefined_comm(MPI_COMM_SELF, 2, 1, 0, &rank);
    free(all);
    mp_world.thread_level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE :
                            required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    mp_thread_multiple = mp_world.thread_level == MPI_THREAD_MULTIPLE;
    mp_lanes_init();
    mp_world.initialized = 1;
    if ((err = mp_comm_layer_init()) || (err = mp_coll_init()) || (err = mp_rma_init()) ||
        (err = mp_spawn_connect_parent()))
        init_fail(err);
}

/* MPI_Init(_thread): starts the library unless a session did; `provided` reports the level
 * the library runs at. */
static int init(const char *F, int required, int *provided)
{
    if (world_model != MP_WORLD_NONE || mp_world.finalized)
        return mp_err(F, MPI_ERR_OTHER, "MPI is already initialized%s",
                      world_model == MP_WORLD_DONE || mp_world.finalized
                          ? " (and finalized: it cannot start again)" : "");
    if (!mp_world.initialized)
        start(required);
    world_model = MP_WORLD_ACTIVE;
    if (provided)
        *provided = mp_world.thread_level;
    return MPI_SUCCESS;
}

int mp_do_init(const char *F, int *argc, char ***argv)
{
    return init(F, MPI_THREAD_SINGLE, NULL);
}

int mp_do_init_thread(const char *F, int *argc, char ***argv, int required, int *provided)
{
    return init(F, required, provided);
}

static void stop(void)
{
    mp_rma_finalize();               /* no progress thread from here on */
    /* MPI_COMM_SELF's attribute delete callbacks run first, while communication works. */
    mp_comm_layer_finalize();
    mp_pt2pt_finalize();
    if (mp_cfg.stats)
        mp_stats_report();
    mp_coll_finalize();
    mp_transports_finalize();
    mp_procs_finalize();
    mp_ports_close_all();
    mp_world.finalized = 1;
    mp_pmi_finalize();
}

int mp_do_finalize(const char *F)
{
    if (world_model != MP_WORLD_ACTIVE)
        return mp_err(F, MPI_ERR_OTHER, "MPI_Init was not called (only sessions)");
    world_model = MP_WORLD_DONE;
    if (sessions == 0)
        stop();
    return MPI_SUCCESS;
}

/* The first session starts the library (unlocked, as MPI_Init: the start sets the thread
 * level that decides whether the lock is taken); the others count under the lock. */
int mp_session_start(const char *F, int required, int *provided)
{
    if (mp_world.finalized)
        return mp_err(F, MPI_ERR_OTHER, "MPI was finalized and cannot start again");
    if (!mp_world.initialized)
        start(required);
    MP_BIG_LOCK();
    sessions++;
    *provided = mp_world.thread_level;
    return MPI_SUCCESS;
}

/* The last session stops the library unless the world model is active; the stop runs
 * outside the lock (it joins the progress thread, which takes it). */
void mp_session_stop(void)
{
    int last;
    {
        MP_BIG_LOCK();
        last = --sessions == 0 && world_model != MP_WORLD_ACTIVE;
    }
    if (last)
        stop();
}

/* The whole job ends whatever comm is (MPI 4.0 8.7 allows that).  The launcher's report names
 * the communicator as MPI_Comm_get_name would, else by handle, and the user's errorcode; the
 * exit status is mp_pmi_exit_status(errorcode), never 0. */
int mp_do_abort(const char *F, MPI_Comm comm, int errorcode)
{
    char msg[MPI_MAX_OBJECT_NAME + 96], handle[16];
    mp_comm *c = mp_world.initialized && !mp_world.finalized ? mp_comm_get(comm) : NULL;
    snprintf(handle, sizeof handle, "0x%x", (unsigned)comm);
    snprintf(msg, sizeof msg, "MPI_Abort(comm=%s, errorcode=%d) called by rank %d",
             c != NULL && c->name[0] != '\0' ? c->name : handle, errorcode, mp_world.rank);
    fflush(stdout);
    fflush(stderr);
    mp_pmi_abort(errorcode, 0, msg);
}

int mp_do_get_processor_name(const char *F, char *name, int *resultlen)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int mp_do_get_library_version(const char *F, char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "MemPI %s (memory-based communication; MPICH ABI, libmpi.so.12)", MEMPI_VERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

/* init.c -- MPI_Init, MPI_Finalize and the job-level queries.  MemPI, BSD-3-Clause.
 *
 * Start-up order: configuration (every layer's MEMPI_* rows, loaded and validated first, so a
 * typo fails before anything is created), PMI (who am I, how many, which node), the node
 * layout, the shared segment and transports, point-to-point, datatypes, MPI_COMM_WORLD/SELF,
 * then the comm and coll layers.
 * Finalize drains queued sends, passes a node barrier so no rank unmaps while a peer may still
 * need it, prints statistics and tells the launcher.
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

static int do_init(int required, int *provided)
{
    static const char *const F = "MPI_Init";
    if (mp_world.initialized)
        return mp_error(NULL, MPI_ERR_OTHER, F, "MPI is already initialized");
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
    if (provided)
        *provided = mp_world.thread_level;
    mp_world.initialized = 1;
    if ((err = mp_comm_layer_init()) || (err = mp_coll_init()) || (err = mp_rma_init()))
        init_fail(err);
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    return do_init(MPI_THREAD_SINGLE, NULL);
}
#pragma weak MPI_Init = PMPI_Init

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc; (void)argv;
    return do_init(required, provided);
}
#pragma weak MPI_Init_thread = PMPI_Init_thread

int PMPI_Finalize(void)
{
    static const char *const F = "MPI_Finalize";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    mp_rma_finalize();               /* no progress thread from here on */
    /* MPI_COMM_SELF's attribute delete callbacks run first, while communication works. */
    mp_comm_layer_finalize();
    mp_pt2pt_finalize();
    if (mp_cfg.stats)
        mp_stats_report();
    mp_coll_finalize();
    mp_transports_finalize();
    mp_world.finalized = 1;
    mp_pmi_finalize();
    return MPI_SUCCESS;
}
#pragma weak MPI_Finalize = PMPI_Finalize

int PMPI_Initialized(int *flag)
{
    if (flag == NULL)
        return mp_arg_out("MPI_Initialized", NULL, flag, "flag");
    *flag = mp_world.initialized;
    return MPI_SUCCESS;
}
#pragma weak MPI_Initialized = PMPI_Initialized

int PMPI_Finalized(int *flag)
{
    if (flag == NULL)
        return mp_arg_out("MPI_Finalized", NULL, flag, "flag");
    *flag = mp_world.finalized;
    return MPI_SUCCESS;
}
#pragma weak MPI_Finalized = PMPI_Finalized

/* The whole job ends whatever comm is (MPI 4.0 8.7 allows that).  The launcher's report names
 * the communicator as MPI_Comm_get_name would, else by handle, and the user's errorcode; the
 * exit status is mp_pmi_exit_status(errorcode), never 0. */
int PMPI_Abort(MPI_Comm comm, int errorcode)
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
#pragma weak MPI_Abort = PMPI_Abort

int PMPI_Query_thread(int *provided)
{
    int err = mp_arg_initialized("MPI_Query_thread");
    if (!err)
        err = mp_arg_out("MPI_Query_thread", NULL, provided, "provided");
    if (err)
        return err;
    *provided = mp_world.thread_level;
    return MPI_SUCCESS;
}
#pragma weak MPI_Query_thread = PMPI_Query_thread

int PMPI_Is_thread_main(int *flag)
{
    int err = mp_arg_initialized("MPI_Is_thread_main");
    if (!err)
        err = mp_arg_out("MPI_Is_thread_main", NULL, flag, "flag");
    if (err)
        return err;
    *flag = pthread_equal(pthread_self(), mp_world.main_thread);
    return MPI_SUCCESS;
}
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main

int PMPI_Comm_rank(MPI_Comm comm_h, int *rank)
{
    mp_comm *comm;
    int err = mp_arg_comm("MPI_Comm_rank", comm_h, &comm);
    if (!err)
        err = mp_arg_out("MPI_Comm_rank", comm, rank, "rank");
    if (err)
        return err;
    *rank = comm->rank;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_rank = PMPI_Comm_rank

int PMPI_Comm_size(MPI_Comm comm_h, int *size)
{
    mp_comm *comm;
    int err = mp_arg_comm("MPI_Comm_size", comm_h, &comm);
    if (!err)
        err = mp_arg_out("MPI_Comm_size", comm, size, "size");
    if (err)
        return err;
    *size = comm->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_size = PMPI_Comm_size

double PMPI_Wtime(void)
{
    return mp_wtime() - mp_world.wtime_base;
}
#pragma weak MPI_Wtime = PMPI_Wtime

double PMPI_Wtick(void)
{
    return 1e-9;
}
#pragma weak MPI_Wtick = PMPI_Wtick

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    int err;
    if ((err = mp_arg_out("MPI_Get_processor_name", NULL, name, "name")) ||
        (err = mp_arg_out("MPI_Get_processor_name", NULL, resultlen, "resultlen")))
        return err;
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name

int PMPI_Get_version(int *version, int *subversion)
{
    int err;
    if ((err = mp_arg_out("MPI_Get_version", NULL, version, "version")) ||
        (err = mp_arg_out("MPI_Get_version", NULL, subversion, "subversion")))
        return err;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_version = PMPI_Get_version

int PMPI_Get_library_version(char *version, int *resultlen)
{
    int err;
    if ((err = mp_arg_out("MPI_Get_library_version", NULL, version, "version")) ||
        (err = mp_arg_out("MPI_Get_library_version", NULL, resultlen, "resultlen")))
        return err;
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
             "MemPI %s (memory-based communication; MPICH ABI, libmpi.so.12)", MEMPI_VERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

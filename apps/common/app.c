/* app.c -- the harness of apps/: options, LOCAL/RMEM/SYNC clock, verification, report, shared windows.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The clock is a single stopwatch with a current phase: app_phase() charges the time since
 * the last switch to the phase being left, so the three components of a rank always add up to
 * its elapsed time and nothing is counted twice.  A repetition's time is the slowest rank's
 * (one MPI_Allreduce after the clock stops), and the fastest repetition is the one reported,
 * per rank and summed.  Every option must be read by the program before its first
 * repetition; one that was not is a typo and ends the run (app_rep_begin).
 *
 * Shared windows are kept in a small table so that app_node_barrier can MPI_Win_sync all of
 * them and app_finish can end their epochs and free them.  Only standard MPI is used here.
 */
#include "app.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

app_info app;

static int g_argc;
static char **g_argv;
static char *g_used;              /* which argv entries an option consumed */
static int g_checked_args;

static double t_mark;             /* MPI_Wtime of the last phase switch */
static int t_phase = APP_LOCAL;
static double t_acc[APP_NPHASE];
static long c_msgs, c_bytes;
static double best_time = -1, best_acc[APP_NPHASE], spent;
static int reps_done;
static long best_msgs, best_bytes;
static int all_verified = 1, nverified;
static char verify_lines[2048];   /* rank 0: printed after the run's description */

typedef struct shared_array { void *array; MPI_Win win; } shared_array;
static shared_array *g_wins;
static int g_nwins;

void *app_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s_%s: rank %d: out of memory (%zu bytes)\n", app.name, app.form, app.rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static const char *find_arg(const char *option)
{
    for (int i = 1; i < g_argc; i++)
        if (!strcmp(g_argv[i], option)) {
            if (i + 1 >= g_argc) break;
            g_used[i] = g_used[i + 1] = 1;
            return g_argv[i + 1];
        }
    for (int i = 1; i < g_argc; i++)
        if (!strcmp(g_argv[i], option)) {
            if (app.rank == 0) fprintf(stderr, "%s_%s: %s needs a value\n", app.name, app.form, option);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    return NULL;
}

static void bad_value(const char *option, const char *v)
{
    if (app.rank == 0)
        fprintf(stderr, "%s_%s: invalid value '%s' for %s\n", app.name, app.form, v, option);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

long app_arg(const char *option, long dflt)
{
    const char *v = find_arg(option);
    if (!v) return dflt;
    char *end;
    long x = strtol(v, &end, 0);
    if (*v == '\0' || *end != '\0' || x < 0) bad_value(option, v);
    return x;
}

double app_argf(const char *option, double dflt)
{
    const char *v = find_arg(option);
    if (!v) return dflt;
    char *end;
    double x = strtod(v, &end);
    if (*v == '\0' || *end != '\0' || !(x >= 0)) bad_value(option, v);
    return x;
}

void app_init(int *argc, char ***argv, const char *name, const char *form)
{
    MPI_Init(argc, argv);
    app.name = name;
    app.form = form;
    MPI_Comm_rank(MPI_COMM_WORLD, &app.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &app.size);
    g_argc = *argc;
    g_argv = *argv;
    g_used = calloc((size_t)g_argc + 1, 1);
    app.reps = (int)app_arg("--reps", 3);
    app.budget = app_argf("--budget", 0);
    app.t1 = app_argf("--t1", 0);
    app.node_size = (int)app_arg("--node-size", 0);
    if (app.reps < 1) app.reps = 1;
}

int app_phase(int phase)
{
    double now = MPI_Wtime();
    int left = t_phase;
    t_acc[t_phase] += now - t_mark;
    t_mark = now;
    t_phase = phase;
    return left;
}

void app_count(long msgs, long bytes)
{
    c_msgs += msgs;
    c_bytes += bytes;
}

void app_rep_begin(void)
{
    if (!g_checked_args) {
        g_checked_args = 1;
        for (int i = 1; i < g_argc; i++)
            if (!g_used[i]) {
                if (app.rank == 0)
                    fprintf(stderr, "%s_%s: unknown option '%s'\n", app.name, app.form, g_argv[i]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    memset(t_acc, 0, sizeof t_acc);
    c_msgs = c_bytes = 0;
    t_phase = APP_LOCAL;
    t_mark = MPI_Wtime();
}

void app_rep_end(void)
{
    app_phase(APP_LOCAL);
    double mine = t_acc[APP_LOCAL] + t_acc[APP_RMEM] + t_acc[APP_SYNC], slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (best_time < 0 || slowest < best_time) {
        best_time = slowest;
        memcpy(best_acc, t_acc, sizeof best_acc);
        best_msgs = c_msgs;
        best_bytes = c_bytes;
    }
    spent += slowest;        /* the same on every rank, so they all stop at the same repetition */
    reps_done++;
    if (app.budget > 0 && spent >= app.budget && reps_done < app.reps) app.reps = reps_done;
}

int app_verify(const char *what, double value, double limit)
{
    double worst;
    if (isnan(value)) value = INFINITY;
    MPI_Allreduce(&value, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int ok = worst <= limit;
    if (app.rank == 0) {
        size_t used = strlen(verify_lines);
        snprintf(verify_lines + used, sizeof verify_lines - used, "verify %s %.3e <= %.1e %s\n",
                 what, worst, limit, ok ? "ok" : "FAILED");
    }
    all_verified &= ok;
    nverified++;
    return ok;
}

void app_refuse(const char *why)
{
    if (app.rank == 0) fprintf(stderr, "%s_%s: cannot run: %s\n", app.name, app.form, why);
    MPI_Finalize();
    exit(2);
}

/* the nodes the forms see: MPI_COMM_TYPE_SHARED's, or --node-size's groups of them */
static int count_nodes(void)
{
    MPI_Comm node = app_node_comm(MPI_COMM_WORLD);
    int nr, leaders;
    MPI_Comm_rank(node, &nr);
    nr = nr == 0;
    MPI_Allreduce(&nr, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    return leaders;
}

int app_finish(const char *size_text)
{
    enum { NV = 5 };
    double mine[NV] = { best_acc[APP_LOCAL], best_acc[APP_RMEM], best_acc[APP_SYNC],
                        (double)best_msgs, (double)best_bytes };
    double *all = app.rank == 0 ? app_alloc(sizeof(double) * NV * (size_t)app.size) : NULL;
    MPI_Gather(mine, NV, MPI_DOUBLE, all, NV, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int nodes = count_nodes();
    if (nverified == 0) all_verified = 0;   /* a run that checked nothing proves nothing */
    if (best_time < 0) all_verified = 0;
    if (app.rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, "\n")] = '\0';
        printf("# %s, %s form, %d ranks on %d node(s)%s; %s; the fastest of %d repetition(s)\n",
               app.name, app.form, app.size, nodes, app.node_size ? " (by --node-size)" : "",
               size_text, reps_done);
        printf("# library: %.200s\n", lib);
        double sum[NV] = { 0 };
        for (int r = 0; r < app.size; r++) {
            const double *v = all + NV * r;
            printf("rank %d local %.6f rmem %.6f sync %.6f msgs %.0f bytes %.0f\n",
                   r, v[0], v[1], v[2], v[3], v[4]);
            for (int i = 0; i < NV; i++) sum[i] += v[i];
        }
        printf("sum local %.6f rmem %.6f sync %.6f msgs %.0f bytes %.0f\n",
               sum[0], sum[1], sum[2], sum[3], sum[4]);
        fputs(verify_lines, stdout);
        if (app.t1 > 0 && best_time > 0)
            printf("speedup %.3f (one rank: %.6f s)\n", app.t1 / best_time, app.t1);
        printf("result app=%s form=%s np=%d nodes=%d time=%.6f local=%.6f rmem=%.6f sync=%.6f "
               "msgs=%.0f bytes=%.0f reps=%d verified=%d\n",
               app.name, app.form, app.size, nodes, best_time, sum[0], sum[1], sum[2],
               sum[3], sum[4], reps_done, all_verified);
        fflush(stdout);
        free(all);
    }
    for (int i = 0; i < g_nwins; i++) {
        MPI_Win_unlock_all(g_wins[i].win);
        MPI_Win_free(&g_wins[i].win);
    }
    free(g_wins);
    free(g_used);
    MPI_Finalize();
    return all_verified ? 0 : 1;
}

/* ---- shared windows ---- */

MPI_Comm app_node_comm(MPI_Comm comm)
{
    MPI_Comm node, part;
    int r;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
    if (app.node_size <= 0) return node;
    MPI_Comm_rank(node, &r);
    MPI_Comm_split(node, r / app.node_size, r, &part);
    MPI_Comm_free(&node);
    return part;
}

MPI_Comm app_one_node(void)
{
    MPI_Comm node = app_node_comm(MPI_COMM_WORLD);
    int n, all_here;
    MPI_Comm_size(node, &n);
    n = n == app.size;
    MPI_Allreduce(&n, &all_here, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_here)
        app_refuse("the shared-window form runs on one node and these ranks span several "
                   "(run the mpi or hybrid form)");
    return node;
}

void *app_shared(MPI_Comm node, MPI_Aint mine)
{
    void *base, *array;
    MPI_Aint size;
    int unit;
    MPI_Win win;
    MPI_Win_allocate_shared(mine, 1, MPI_INFO_NULL, node, &base, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    /* MPI_PROC_NULL: the first segment of non-zero size, i.e. the start of the whole array */
    MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &array);
    g_wins = realloc(g_wins, sizeof *g_wins * (size_t)(g_nwins + 1));
    g_wins[g_nwins++] = (shared_array){ array, win };
    return array;
}

void *app_part(const void *array, int node_rank)
{
    for (int i = 0; i < g_nwins; i++)
        if (g_wins[i].array == array) {
            void *p;
            MPI_Aint size;
            int unit;
            MPI_Win_shared_query(g_wins[i].win, node_rank, &size, &unit, &p);
            return p;
        }
    fprintf(stderr, "%s_%s: app_part: %p is not a shared array\n", app.name, app.form, array);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return NULL;
}

void app_node_barrier(MPI_Comm node)
{
    int left = app_phase(APP_SYNC);
    for (int i = 0; i < g_nwins; i++) MPI_Win_sync(g_wins[i].win);
    MPI_Barrier(node);
    for (int i = 0; i < g_nwins; i++) MPI_Win_sync(g_wins[i].win);
    app_phase(left);
}

int *app_node_ranks(MPI_Comm node)
{
    MPI_Group wg, ng;
    int *world = app_alloc(sizeof(int) * (size_t)app.size);
    int *out = app_alloc(sizeof(int) * (size_t)app.size);
    for (int q = 0; q < app.size; q++) world[q] = q;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(node, &ng);
    MPI_Group_translate_ranks(wg, app.size, world, ng, out);
    for (int q = 0; q < app.size; q++)
        if (out[q] == MPI_UNDEFINED) out[q] = -1;
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    free(world);
    return out;
}

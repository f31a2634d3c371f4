/* window.c -- windows: creation in every flavor, the host segment, attributes, info, free.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Creation is collective over a private duplicate of the user's communicator (so the
 * window's own messages never meet the user's) in four collective steps:
 *   1. every rank's size, displacement unit and host: each rank learns which ranks share
 *      its host and in which order (comm rank order), and the first of them, the host
 *      leader, lays out the host segment: a control area (win.h) for the host's ranks and,
 *      for MPI_Win_allocate(_shared), their window memory one after the other (contiguous
 *      for shared windows unless alloc_shared_noncontig, page aligned otherwise);
 *   2. the segment's name, which the leader created (owner-only, unpredictable name, as the
 *      node segment: transport.h, mp_shared_create); the others map it.  A host with one
 *      rank of the window uses private memory and skips the name;
 *   3. whether every rank succeeded (an allreduce): when it returns, every rank has mapped
 *      its host's segment, so the leader unlinks the name -- from then on only the mappings
 *      keep it, and nothing is left in /dev/shm whatever happens to the job;
 *   4. every rank's window address in its own process.
 * The window is findable by arriving packets (mp_win_of_ctx) before step 4, so no packet
 * sent after a peer's creation returned can miss it.
 *
 * Each target's path follows from where its memory is (rma.h): mapped here -> direct; on
 * this host and single copy works -> copy; otherwise messages.
 */
#include "rma/win.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mp_table win_table = { .type = MP_OBJ_WIN, .lock = ATOMIC_FLAG_INIT };

/* Windows by context id (ids are below 2^15 and the window's is even: index ctx / 2). */
#define MP_WIN_IDS 32768
static mp_win **by_ctx;

mp_win *mp_win_get(MPI_Win handle)
{
    if (handle == MPI_WIN_NULL)
        return NULL;
    return mp_table_lookup(&win_table, handle);
}

int mp_win_handle(const mp_win *win)
{
    return win->handle;
}

mp_win *mp_win_of_ctx(int ctx)
{
    unsigned i = (unsigned)ctx / 2;
    return by_ctx && i < MP_WIN_IDS ? by_ctx[i] : NULL;
}

static void ctx_register(mp_win *win, mp_win *value)
{
    if (!by_ctx)
        by_ctx = mp_calloc(MP_WIN_IDS, sizeof *by_ctx);
    by_ctx[(unsigned)win->ctx / 2] = value;
}

int mp_win_live(void)
{
    return mp_table_live(&win_table);
}

mp_comm *mp_win_comm(const mp_win *win)
{
    return win->comm;
}

int mp_win_errhandler(const mp_win *win)
{
    return win->errhandler;
}

void mp_win_set_errhandler(mp_win *win, int errhandler)
{
    mp_errhandler_release(win->errhandler);
    win->errhandler = errhandler;
}

char *mp_win_name(mp_win *win)
{
    return win->name;
}

int mp_win_raise(mp_win *win, int code, const char *func)
{
    if (code == MPI_SUCCESS)
        return code;
    if (win == NULL)
        return mp_error_raise(NULL, code, func);
    return mp_errhandler_raise(win->errhandler, win->handle, code, func);
}

/* ---- hints ----------------------------------------------------------------------------- */

static int info_true(MPI_Info info, const char *key)
{
    const char *v = mp_info_value(info, key);
    return v && strcmp(v, "true") == 0;
}

/* Keys MemPI knows, with the value in effect when the user gave none. */
static const char *const hint_keys[][2] = {
    { "no_locks", "false" },
    { "accumulate_ordering", "rar,raw,war,waw" },
    { "accumulate_ops", "same_op_no_op" },
    { "same_size", "false" },
    { "same_disp_unit", "false" },
    { "alloc_shared_noncontig", "false" },
};

/* Creation takes the user's hints; MPI_Win_set_info changes only the keys it names. */
static int take_info(const char *F, mp_win *win, MPI_Info info)
{
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && mp_info_dup_handle(info, &copy) != MPI_SUCCESS)
        return mp_error_code(MPI_ERR_INFO, "%s: cannot copy info 0x%x", F, (unsigned)info);
    if (win->info != MPI_INFO_NULL)
        mp_info_free_handle(win->info);
    win->info = copy;
    win->no_locks = info_true(copy, "no_locks");
    return MPI_SUCCESS;
}

int mp_win_set_info(const char *F, mp_win *win, MPI_Info info)
{
    mp_info *given = mp_info_get(info);
    if (!given)
        return MPI_SUCCESS;
    if (win->info == MPI_INFO_NULL)
        return take_info(F, win, info);
    mp_info *mine = mp_info_get(win->info);
    for (int i = 0; i < mp_info_count(given); i++)
        mp_info_put(mine, mp_info_key(given, i), mp_info_val(given, i));
    win->no_locks = info_true(win->info, "no_locks");
    return MPI_SUCCESS;
}

int mp_win_get_info(const char *F, mp_win *win, MPI_Info *out)
{
    mp_info *used = mp_info_alloc();
    for (size_t i = 0; i < sizeof hint_keys / sizeof hint_keys[0]; i++) {
        const char *v = mp_info_value(win->info, hint_keys[i][0]);
        mp_info_put(used, hint_keys[i][0], v ? v : hint_keys[i][1]);
    }
    *out = mp_info_publish(used);
    if (*out == 0) {
        mp_info_destroy(used);
        *out = MPI_INFO_NULL;
        return mp_error_code(MPI_ERR_INFO, "%s: too many info objects", F);
    }
    return MPI_SUCCESS;
}

/* ---- attributes ------------------------------------------------------------------------ */

int mp_win_get_attr(const char *F, mp_win *win, int keyval, void **value, int *flag)
{
    *flag = 1;
    switch (keyval) {
    case MPI_WIN_BASE:
        *value = win->base;
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        *value = &win->size;
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        *value = &win->disp_unit_int;
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        *value = &win->flavor;
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        *value = &win->model;
        return MPI_SUCCESS;
    }
    *flag = 0;
    if (mp_keyval_check(MP_OBJ_WIN, keyval, MP_KEYVAL_FREED) != MPI_SUCCESS)
        return mp_error_code(MPI_ERR_KEYVAL, "%s: invalid window keyval 0x%x", F, (unsigned)keyval);
    return mp_attr_get(MP_OBJ_WIN, win->attrs, keyval, MP_ATTR_PTR, value, flag);
}

/* set takes only a keyval the user has not freed; delete also one freed while in use */
static int user_keyval(const char *F, int keyval, int flags)
{
    if (mp_keyval_is_predefined(keyval))
        return mp_error_code(MPI_ERR_KEYVAL, "%s: keyval 0x%x is predefined (read-only)", F,
                             (unsigned)keyval);
    if (mp_keyval_check(MP_OBJ_WIN, keyval, flags) != MPI_SUCCESS)
        return mp_error_code(MPI_ERR_KEYVAL, "%s: invalid window keyval 0x%x", F, (unsigned)keyval);
    return MPI_SUCCESS;
}

int mp_win_set_attr(const char *F, mp_win *win, int keyval, void *value)
{
    int err = user_keyval(F, keyval, 0);
    return err ? err : mp_attr_set(MP_OBJ_WIN, win->handle, &win->attrs, keyval,
                                   (MPI_Aint)value, MP_ATTR_PTR);
}

int mp_win_delete_attr(const char *F, mp_win *win, int keyval)
{
    int err = user_keyval(F, keyval, MP_KEYVAL_FREED);
    return err ? err : mp_attr_delete(MP_OBJ_WIN, win->handle, &win->attrs, keyval);
}

/* ---- creation -------------------------------------------------------------------------- */

typedef struct rank_info {            /* step 1 */
    int64_t size, disp_unit;
    int32_t host, pad;
} rank_info;

typedef struct host_plan {
    int n;                            /* ranks of the window on this host */
    int *ranks;                       /* their comm ranks, ascending */
    int me;                           /* my index among them */
    size_t *off;                      /* window memory offset of each in the segment */
    size_t dirs;                      /* offset of the directories (dynamic windows) */
    size_t total;
} host_plan;

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

static void plan_host(host_plan *hp, const rank_info *all, int size, int me, int allocates,
                      int contiguous, int dynamic)
{
    hp->ranks = mp_malloc(sizeof(int) * (size_t)size);
    hp->n = 0;
    for (int r = 0; r < size; r++)
        if (all[r].host == all[me].host) {
            if (r == me)
                hp->me = hp->n;
            hp->ranks[hp->n++] = r;
        }
    hp->off = mp_calloc((size_t)hp->n, sizeof(size_t));
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t at = (size_t)hp->n * sizeof(mp_win_ctl);
    hp->dirs = at;
    if (dynamic)
        at += (size_t)hp->n * sizeof(mp_win_dir);
    at = align_up(at, page);
    for (int i = 0; i < hp->n; i++) {
        if (!allocates)
            break;
        if (!contiguous)
            at = align_up(at, page);
        hp->off[i] = at;
        at += (size_t)all[hp->ranks[i]].size;
    }
    hp->total = align_up(at > 0 ? at : 1, page);
}

static int host_index(const host_plan *hp, int rank)
{
    for (int i = 0; i < hp->n; i++)
        if (hp->ranks[i] == rank)
            return i;
    return -1;
}

/* Step 2: the leader creates, the others attach; a host's lone rank uses private memory.
 * Every rank takes part in both collectives, whatever its host looks like. */
static int map_segment(mp_win *win, const host_plan *hp, char *names)
{
    char *mine = names + (size_t)win->comm->rank * MP_SHARED_NAME_MAX;
    int err = MPI_SUCCESS, bad = 0, any_bad = 0;
    if (hp->n == 1) {
        win->seg = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), hp->total);
        if (win->seg)
            memset(win->seg, 0, hp->total);
        else
            err = mp_error_code(MPI_ERR_NO_MEM, "cannot allocate %zu bytes of window memory",
                                hp->total);
    } else if (hp->me == 0) {
        err = mp_shared_create(hp->total, mine, &win->seg);
        win->seg_shared = win->seg != NULL;
    }
    mp_datatype *bytes = mp_datatype_get(MPI_CHAR);
    int e = mp_allgather(mine, MP_SHARED_NAME_MAX, bytes, names, MP_SHARED_NAME_MAX, bytes,
                         win->comm);
    if (e)
        return e;
    if (hp->n > 1 && hp->me != 0) {
        const char *leader = names + (size_t)hp->ranks[0] * MP_SHARED_NAME_MAX;
        if (leader[0] == '\0')
            bad = 1;                  /* the leader failed: it reports why */
        else
            err = mp_shared_attach(leader, hp->total, &win->seg);
        win->seg_shared = win->seg != NULL;
    }
    win->seg_size = hp->total;
    bad |= err != MPI_SUCCESS;
    e = mp_allreduce(&bad, &any_bad, 1, mp_datatype_get(MPI_INT), MPI_LOR, win->comm);
    if (hp->n > 1 && hp->me == 0 && win->seg)
        mp_shared_unlink(mine);       /* everyone mapped it, or the creation failed */
    if (e)
        return e;
    if (any_bad)
        return err ? err : mp_error_code(MPI_ERR_NO_MEM, "the window memory of another rank "
                                         "could not be created (see that rank's error)");
    return MPI_SUCCESS;
}

static void path_of(mp_win *win, mp_win_target *t, int rank, const host_plan *hp, int allocates)
{
    int hidx = host_index(hp, rank);
    mp_transport *tp = mp_transport_of(t->world);
    if (hidx >= 0)
        t->ctl = (mp_win_ctl *)win->seg + hidx;
    if (hidx >= 0 && win->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        t->dir = (mp_win_dir *)((char *)win->seg + hp->dirs) + hidx;
    if (hidx >= 0 && allocates) {
        t->path = MP_PATH_DIRECT;
        t->mapped = (char *)win->seg + hp->off[hidx];
    } else if (rank == win->comm->rank) {
        t->path = MP_PATH_DIRECT;     /* our own memory */
        t->mapped = (char *)(uintptr_t)t->base;
    } else if (hidx >= 0 && tp->single_copy && tp->readv && tp->writev) {
        t->path = MP_PATH_COPY;
    } else {
        t->path = MP_PATH_MSG;
    }
}

static void win_release(mp_win *win)
{
    mp_win_dyn_release(win);          /* reads comm and t: first */
    if (win->seg) {
        if (win->seg_shared)
            mp_shared_unmap(win->seg, win->seg_size);
        else
            free(win->seg);
    }
    if (win->ctx && mp_win_of_ctx(win->ctx) == win)
        ctx_register(win, NULL);
    if (win->comm)
        mp_comm_free_internal(win->comm);
    if (win->info != MPI_INFO_NULL)
        mp_info_free_handle(win->info);
    mp_errhandler_release(win->errhandler);
    if (win->handle)
        mp_table_remove(&win_table, win->handle);
    free(win->t);
    free(win);
}

/* The whole creation protocol (see the top) for every flavor. */
static int win_setup(const char *F, mp_comm *comm, int flavor, void *user_base, MPI_Aint size,
                     MPI_Aint disp_unit, MPI_Info info, mp_win **out)
{
    *out = NULL;
    if (comm->is_inter)
        return mp_error_code(MPI_ERR_COMM, "%s: windows need an intracommunicator", F);
    mp_win *win = mp_calloc(1, sizeof *win);
    win->flavor = flavor;
    win->model = MPI_WIN_UNIFIED;
    win->size = size;
    win->disp_unit = disp_unit;
    win->disp_unit_int = disp_unit > INT32_MAX ? INT32_MAX : (int)disp_unit;
    win->errhandler = MPI_ERRORS_ARE_FATAL;
    win->info = MPI_INFO_NULL;
    int err = take_info(F, win, info);
    if (!err)
        err = mp_comm_dup_internal(comm, &win->comm);
    if (err) {
        win_release(win);
        return err;
    }
    win->ctx = win->comm->ctx;
    int n = win->comm->size, me = win->comm->rank;
    int allocates = flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED;
    mp_datatype *bytes = mp_datatype_get(MPI_BYTE);

    rank_info mine = { size, disp_unit, mp_nodes_host_of(mp_world.rank), 0 };
    rank_info *all = mp_malloc(sizeof(rank_info) * (size_t)n);
    char *names = mp_calloc((size_t)n, MP_SHARED_NAME_MAX);
    uint64_t *bases = mp_malloc(sizeof(uint64_t) * (size_t)n);
    host_plan hp = { 0 };
    err = mp_allgather(&mine, sizeof mine, bytes, all, sizeof mine, bytes, win->comm);
    if (!err && flavor == MPI_WIN_FLAVOR_SHARED) {
        for (int r = 0; r < n && !err; r++)
            if (all[r].host != mine.host)
                err = mp_error_code(MPI_ERR_RMA_SHARED, "%s: rank %d of the communicator is "
                                    "on another host: a shared window needs every rank on "
                                    "one host (MPI_Comm_split_type with "
                                    "MPI_COMM_TYPE_SHARED makes such a communicator)", F, r);
    }
    if (!err) {
        int contiguous = flavor == MPI_WIN_FLAVOR_SHARED &&
                         !info_true(win->info, "alloc_shared_noncontig");
        plan_host(&hp, all, n, me, allocates, contiguous, flavor == MPI_WIN_FLAVOR_DYNAMIC);
        err = map_segment(win, &hp, names);
    }
    if (!err) {
        /* Packets may arrive from here on (a peer that finished creating posts at once):
         * the per-target state they touch exists before the window can be found. */
        win->t = mp_calloc((size_t)n, sizeof *win->t);
        win->my_ctl = (mp_win_ctl *)win->seg + hp.me;
        if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
            win->my_dir = (mp_win_dir *)((char *)win->seg + hp.dirs) + hp.me;
        win->base = allocates ? (char *)win->seg + hp.off[hp.me] : user_base;
        if (allocates && size == 0)
            win->base = NULL;
        ctx_register(win, win);
        uint64_t b = (uint64_t)(uintptr_t)win->base;
        err = mp_allgather(&b, sizeof b, bytes, bases, sizeof b, bytes, win->comm);
    }
    if (!err) {
        for (int r = 0; r < n; r++) {
            mp_win_target *t = &win->t[r];
            t->world = win->comm->world[r];
            t->base = bases[r];
            t->size = (MPI_Aint)all[r].size;
            t->disp_unit = (MPI_Aint)all[r].disp_unit;
            path_of(win, t, r, &hp, allocates);
        }
        win->handle = mp_table_insert(&win_table, win);
        if (!win->handle)
            err = mp_error_code(MPI_ERR_WIN, "%s: too many windows", F);
    }
    free(all);
    free(names);
    free(bases);
    free(hp.ranks);
    free(hp.off);
    if (err) {
        win_release(win);
        return err;
    }
    *out = win;
    return MPI_SUCCESS;
}

int mp_win_create(const char *F, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                  mp_comm *comm, mp_win **out)
{
    return win_setup(F, comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, out);
}

int mp_win_allocate(const char *F, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                    mp_comm *comm, int shared, void **base, mp_win **out)
{
    int err = win_setup(F, comm, shared ? MPI_WIN_FLAVOR_SHARED : MPI_WIN_FLAVOR_ALLOCATE, NULL,
                        size, disp_unit, info, out);
    *base = err ? NULL : (*out)->base;
    return err;
}

int mp_win_create_dynamic(const char *F, MPI_Info info, mp_comm *comm, mp_win **out)
{
    return win_setup(F, comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, out);
}

int mp_win_free(const char *F, mp_win *win)
{
    if (win->access == MP_EPOCH_LOCK || win->access == MP_EPOCH_LOCK_ALL ||
        win->access == MP_EPOCH_START || win->exposed || win->fence_busy)
        return mp_error_code(MPI_ERR_RMA_SYNC, "%s: the window is inside an epoch (%s); end "
                             "it before freeing the window", F,
                             win->exposed ? "an exposure epoch: MPI_Win_post without "
                                            "MPI_Win_wait" :
                             win->access == MP_EPOCH_START ? "MPI_Win_start without "
                                                             "MPI_Win_complete" :
                             win->fence_busy ? "operations since the last MPI_Win_fence" :
                             "a lock is held");
    int err = mp_barrier(win->comm);  /* nobody accesses our memory any more */
    if (err)
        return err;
    err = mp_attr_delete_all(MP_OBJ_WIN, win->handle, &win->attrs);
    if (err)
        return err;
    win_release(win);
    return MPI_SUCCESS;
}

/* ---- shared windows -------------------------------------------------------------------- */

int mp_win_shared_query(const char *F, mp_win *win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void **base)
{
    if (win->flavor != MPI_WIN_FLAVOR_SHARED) {
        /* MPI 4.1 12.2.3: any window may be asked; memory this process cannot reach by load
         * and store has size 0 and no base.  It reaches its own, and a target's mapped here
         * (direct path); a dynamic window has no one window memory. */
        if (rank == MPI_PROC_NULL)
            rank = 0;
        if (rank < 0 || rank >= win->comm->size)
            return mp_error_code(MPI_ERR_RANK, "%s: invalid rank %d in a window of %d "
                                 "processes", F, rank, win->comm->size);
        const mp_win_target *t = &win->t[rank];
        int self = rank == win->comm->rank, direct = t->path == MP_PATH_DIRECT && t->mapped;
        int reach = win->flavor != MPI_WIN_FLAVOR_DYNAMIC && t->size > 0 && (self || direct);
        *size = reach ? t->size : 0;
        *disp_unit = t->disp_unit;
        *base = !reach ? NULL : self ? (void *)(uintptr_t)t->base : t->mapped;
        return MPI_SUCCESS;
    }
    if (rank == MPI_PROC_NULL) {      /* the first rank with memory */
        for (int r = 0; r < win->comm->size; r++)
            if (win->t[r].size > 0) {
                rank = r;
                break;
            }
        if (rank == MPI_PROC_NULL) {
            *size = 0;
            *disp_unit = win->t[0].disp_unit;
            *base = NULL;
            return MPI_SUCCESS;
        }
    }
    if (rank < 0 || rank >= win->comm->size)
        return mp_error_code(MPI_ERR_RANK, "%s: invalid rank %d in a window of %d processes",
                             F, rank, win->comm->size);
    const mp_win_target *t = &win->t[rank];
    *size = t->size;
    *disp_unit = t->disp_unit;
    *base = t->size > 0 ? t->mapped : NULL;
    return MPI_SUCCESS;
}

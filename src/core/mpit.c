/* mpit.c -- the MPI tool information interface (MPI_T, MPI 4.0 chapter 15).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Control variables are the rows of the configuration table (config.c plus the rows other
 * layers add), in table order: cvar i is mp_config_row(i).  A row's type gives the datatype
 * (size: MPI_UNSIGNED_LONG, the size_t field; int and bool: MPI_INT; choice: MPI_INT with an
 * enumeration whose items are the choices and whose values are what the field holds; string
 * and rows of irregular syntax: MPI_CHAR, the text in effect).  Every variable is bound to no
 * object.  A row marked MP_CFG_RUNTIME may be written while MPI is initialised: its scope is
 * MPI_T_SCOPE_ALL_EQ when all ranks must agree (MP_CFG_ALL_EQ), else MPI_T_SCOPE_LOCAL.  The
 * other rows are read once by MPI_Init and never change afterwards, so they are
 * MPI_T_SCOPE_READONLY and a write returns MPI_T_ERR_CVAR_SET_NEVER; a write before MPI_Init
 * or after MPI_Finalize returns MPI_T_ERR_CVAR_SET_NOT_NOW, because MPI_Init loads the table
 * from the environment again.  Before MPI_Init, MPI_T_init_thread loads the table so values
 * read then are the ones MPI_Init will use (a malformed value reads as its default; MPI_Init
 * reports it).  Descriptions are the rows' meanings, so mempi-info, the README table and
 * MPI_T agree.
 *
 * Performance variables are the statistics counters of MEMPI_STATS (stats.c, mp_stat):
 * messages and bytes per protocol, one-sided operations and network registrations are
 * MPI_T_PVAR_CLASS_COUNTER (MPI_UNSIGNED_LONG_LONG, started and stopped per handle: a handle
 * accumulates what the counter gained while it was started), the unexpected queue's current
 * length LEVEL and its maximum HIGHWATERMARK, and the remote-write share of sent bytes a
 * PERCENTAGE (MPI_DOUBLE, 0..1); those last ones are continuous and read-only.  Counters
 * count whether or not MEMPI_STATS prints them.  Categories are one per layer.
 *
 * Events (MPI 4.0 15.3.8): mempi_unexpected_arrival (a message arrived for which no receive
 * was posted: it waits in the unexpected queue) and mempi_rendezvous_start (a send too large
 * for the eager path sent its request to send).  Both carry the peer's world rank, its rank in
 * the communicator, the tag, the wire context and the byte count (MPI_INT x4, MPI_COUNT), and
 * come from one ordered source, "mempi_process", stamped with MPI_Wtime in nanoseconds.
 * Point-to-point raises them only while some registration of the event has a callback
 * (mp_t_event_wanted), so they cost nothing otherwise.  An event is delivered at once, on the
 * thread that raised it, inside the progress engine: a callback may call only the MPI_T event
 * functions, so the context is MPI_T_CB_REQUIRE_MPI_RESTRICTED, or THREAD_SAFE under
 * MPI_THREAD_MULTIPLE (any thread may raise it).  Of a registration's callbacks the one with
 * the lowest safety level that the context admits is called; with none such the event is
 * dropped and counted, and the registration's dropped handler gets the count before its next
 * delivered event and when the registration is freed.  An event instance is valid during its
 * callback only (a per-thread list of the instances being delivered).  Callbacks run with no
 * lock of this file held.
 *
 * The interface is reference counted (MPI_T_init_thread / MPI_T_finalize), usable before
 * MPI_Init and after MPI_Finalize, and serialised by its own mutex, so tools may call it from
 * any thread.  Handles are pointers to objects this file keeps in lists; a handle argument is
 * looked up in its list before use, so a stale or invented handle returns
 * MPI_T_ERR_INVALID_HANDLE instead of being dereferenced.
 */
#include "core/core.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mpit_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_count;

/* ---- categories ------------------------------------------------------------------------ */
enum { CAT_CORE, CAT_TRANSPORT, CAT_PT2PT, CAT_COLL, CAT_RMA, NCAT };
/* A name and its description: categories and events. */
typedef struct {
    const char *name, *desc;
} named;

/* The index of name in table[0..n), or -1. */
static int index_of(const named *table, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(table[i].name, name) == 0)
            return i;
    return -1;
}

static const named categories[NCAT] = {
    [CAT_CORE]      = { "mempi_core", "MemPI core: start-up, waiting policy, binding, PMI, "
                                      "statistics and diagnostics" },
    [CAT_TRANSPORT] = { "mempi_transport", "MemPI transports: shared-memory queues and pools, "
                                           "single copy, the libfabric network transport" },
    [CAT_PT2PT]     = { "mempi_pt2pt", "MemPI point-to-point: protocol thresholds and "
                                       "per-protocol traffic" },
    [CAT_COLL]      = { "mempi_coll", "MemPI collectives: algorithm choices and shared-memory "
                                      "collective buffers" },
    [CAT_RMA]       = { "mempi_rma", "MemPI one-sided communication" },
};

/* The layer a configuration row belongs to, by its name. */
static int cvar_category(const mp_config_var *v)
{
    static const struct { const char *prefix; int cat; } map[] = {
        { "MEMPI_SHM_", CAT_TRANSPORT }, { "MEMPI_NET_", CAT_TRANSPORT },
        { "MEMPI_CMA", CAT_TRANSPORT },  { "MEMPI_EAGER_MAX", CAT_PT2PT },
        { "MEMPI_SENDREQ", CAT_PT2PT },  { "MEMPI_COLL_", CAT_COLL },
        { "MEMPI_NODE_SIZE", CAT_COLL }, { "MEMPI_ASYNC_PROGRESS", CAT_RMA },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strncmp(v->name, map[i].prefix, strlen(map[i].prefix)) == 0)
            return map[i].cat;
    return CAT_CORE;
}

/* ---- performance variables -------------------------------------------------------------- */
#define STAT(f) offsetof(mp_stats, f)
/* A row of a counter in mp_stat: its name is the field's with the prefix mempi_. */
#define PVAR(cat, cls, f, desc) { "mempi_" #f, MPI_T_PVAR_CLASS_##cls, CAT_##cat, STAT(f), desc }
/* Two rows: the messages and the bytes of one kind of traffic ("messages <what>"). */
#define PAIR(cat, cls, fm, fb, what) PVAR(cat, cls, fm, "messages " what), \
                                     PVAR(cat, cls, fb, "bytes " what)
enum { SHARE = -1 };                  /* offset of the computed remote-write share */
static const struct pvar {
    const char *name;
    int var_class, cat;
    long offset;                      /* of the uint64_t in mp_stat, or SHARE */
    const char *desc;
} pvars[] = {
    PAIR(PT2PT, COUNTER, msgs_sent, bytes_sent,
         "sent point-to-point (all protocols; collectives' messages included)"),
    PAIR(PT2PT, COUNTER, eager_msgs, eager_bytes, "sent eagerly (through the receiver's queue)"),
    PAIR(PT2PT, COUNTER, sendreq_msgs, sendreq_bytes,
         "delivered by remote write into a receive posted first (request for sending)"),
    PAIR(PT2PT, COUNTER, rndv_msgs, rndv_bytes, "sent by rendezvous"),
    PVAR(PT2PT, COUNTER, split_msgs,
         "single copies this rank shared with its peer (remote writes it sent, rendezvous it pulled)"),
    PVAR(PT2PT, COUNTER, split_help_bytes, "bytes this rank copied helping a peer's single copy"),
    PVAR(PT2PT, COUNTER, unlocked_copies,
         "single copies this rank ran without the big lock (MPI_THREAD_MULTIPLE: other threads progressed meanwhile)"),
    PVAR(COLL, COUNTER, unlocked_coll_copies,
         "shared-memory collectives' single copies and reductions this rank ran without the big lock"),
    { "mempi_remote_write_share", MPI_T_PVAR_CLASS_PERCENTAGE, CAT_PT2PT, SHARE,
      "share of the bytes sent that were delivered by remote write (0..1)" },
    PAIR(PT2PT, LEVEL, unexpected_msgs, unexpected_bytes, "now in the unexpected queue"),
    PAIR(PT2PT, HIGHWATERMARK, unexpected_max_msgs, unexpected_max_bytes,
         "the unexpected queue has held at most"),
    PVAR(TRANSPORT, COUNTER, net_mr_hits,
         "network keys sent for reused registrations (registration cache hits)"),
    PVAR(TRANSPORT, COUNTER, net_mr_misses, "network keys sent for new registrations"),
    PVAR(TRANSPORT, COUNTER, net_batches,
         "network packets that carried several messages queued behind flow control"),
    PVAR(TRANSPORT, COUNTER, net_batched_msgs, "messages sent inside such packets"),
    PVAR(RMA, COUNTER, rma_ops, "one-sided operations issued"),
    PVAR(RMA, COUNTER, rma_bytes, "bytes of one-sided operations issued"),
    PVAR(RMA, COUNTER, unlocked_rma_copies,
         "puts and gets this rank moved without the big lock (MPI_THREAD_MULTIPLE)"),
    PVAR(CORE, COUNTER, unlocked_io_accesses,
         "blocking file accesses whose transfer this rank ran without the big lock (MPI_THREAD_MULTIPLE)"),
    PVAR(PT2PT, COUNTER, lane_calls,
         "sends and receives this rank ran in a lane, beside other threads instead of under the big lock (MPI_THREAD_MULTIPLE)"),
};
enum { NPVAR = (int)(sizeof pvars / sizeof pvars[0]) };

static int pvar_is_counter(int i)
{
    return pvars[i].var_class == MPI_T_PVAR_CLASS_COUNTER;
}

static uint64_t stat_value(int i)
{
    return mp_stat_field((size_t)pvars[i].offset);
}

static double share_value(void)
{
    uint64_t sent = mp_stat_field(offsetof(mp_stats, bytes_sent));
    return sent ? (double)mp_stat_field(offsetof(mp_stats, sendreq_bytes)) / (double)sent : 0.0;
}

/* ---- handles --------------------------------------------------------------------------- */
struct mp_t_cvar_handle { int index; struct mp_t_cvar_handle *next; };
struct mp_t_pvar_handle {
    int index, started;
    uint64_t accum, base;             /* counters: value = accum + (started ? now - base : 0) */
    struct mp_t_pvar_session *session;
    struct mp_t_pvar_handle *next;
};
struct mp_t_pvar_session { struct mp_t_pvar_handle *handles; struct mp_t_pvar_session *next; };
struct mp_t_enum { int row; };        /* the configuration row of a choice */

static struct mp_t_cvar_handle *cvar_handles;
static struct mp_t_pvar_session *sessions;
static struct mp_t_enum *enums;       /* one per row, made at the first init */
static int nenums;

static int session_known(MPI_T_pvar_session s)
{
    for (struct mp_t_pvar_session *p = sessions; p; p = p->next)
        if (p == s)
            return 1;
    return 0;
}

static int handle_known(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct mp_t_pvar_handle *p = s->handles; p; p = p->next)
        if (p == h)
            return 1;
    return 0;
}

/* ---- strings: MPI 4.0 15.3.3 ------------------------------------------------------------ */
/* *len 0 (or no buffer): only the length needed, with the terminator; else at most *len - 1
 * characters and a terminator are written and *len becomes what was written. */
static void put_string(const char *src, char *dst, int *len)
{
    if (len == NULL)
        return;
    int need = (int)strlen(src) + 1;
    if (dst == NULL || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need : *len;
    memcpy(dst, src, (size_t)(n - 1));
    dst[n - 1] = '\0';
    *len = n;
}

/* ---- life cycle ------------------------------------------------------------------------- */
#define LOCKED_CHECK()                                                                 \
    pthread_mutex_lock(&mpit_lock);                                                    \
    if (init_count == 0) {                                                             \
        pthread_mutex_unlock(&mpit_lock);                                              \
        return MPI_T_ERR_NOT_INITIALIZED;                                              \
    }
#define UNLOCK_RETURN(rc) do { pthread_mutex_unlock(&mpit_lock); return (rc); } while (0)
/* An optional output argument: set unless the caller passed NULL. */
#define OUT(p, v) do { if ((p) != NULL) *(p) = (v); } while (0)

/* The MPI_T_*_get_num calls: how many there are of a kind. */
static int count_out(int *num, int n)
{
    LOCKED_CHECK();
    if (num == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    *num = n;
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* Frees a performance-variable session and its handles (unlinked by the caller). */
static void session_destroy(struct mp_t_pvar_session *s)
{
    while (s->handles) {
        struct mp_t_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

static void events_clear(void);

int mp_t_init(int required, int *provided)
{
    pthread_mutex_lock(&mpit_lock);
    if (init_count++ == 0 && enums == NULL) {
        if (!mp_world.initialized)
            (void)mp_config_load();   /* errors are MPI_Init's to report */
        nenums = mp_config_count();
        enums = mp_calloc((size_t)nenums, sizeof *enums);
        for (int i = 0; i < nenums; i++)
            enums[i].row = i;
    }
    pthread_mutex_unlock(&mpit_lock);
    if (provided != NULL)
        *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE :
                    required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    return MPI_SUCCESS;
}

int mp_t_finalize(void)
{
    LOCKED_CHECK();
    if (--init_count == 0) {
        while (cvar_handles) {
            struct mp_t_cvar_handle *h = cvar_handles;
            cvar_handles = h->next;
            free(h);
        }
        while (sessions) {
            struct mp_t_pvar_session *s = sessions;
            sessions = s->next;
            session_destroy(s);
        }
        events_clear();
    }
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* ---- events ---------------------------------------------------------------------------- */
static const named events[MP_T_NEVENTS] = {
    [MP_T_EVENT_UNEXPECTED] = { "mempi_unexpected_arrival",
                                "a message arrived before a matching receive was posted and "
                                "waits in the unexpected queue" },
    [MP_T_EVENT_RNDV_START] = { "mempi_rendezvous_start",
                                "a send above the eager limit started the rendezvous protocol "
                                "(request to send)" },
};
/* The elements of both events, in a packed record of EVENT_BYTES. */
static const struct { const char *name; MPI_Datatype type; MPI_Aint disp; } elements[] = {
    { "world_rank", MPI_INT, 0 }, { "rank", MPI_INT, 4 }, { "tag", MPI_INT, 8 },
    { "context", MPI_INT, 12 },   { "bytes", MPI_COUNT, 16 },
};
enum { NELEMENTS = sizeof elements / sizeof elements[0], EVENT_BYTES = 24 };
enum { NSAFETY = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE + 1 };

atomic_int mp_t_event_wanted[MP_T_NEVENTS];

struct mp_t_event_reg {
    int event;
    MPI_T_event_cb_function *cb[NSAFETY];
    void *user[NSAFETY];
    MPI_T_event_dropped_cb_function *dropped;
    MPI_Count ndropped;
    struct mp_t_event_reg *next;
};
struct mp_t_event_inst {
    int event;
    MPI_Count timestamp;
    unsigned char data[EVENT_BYTES];
};
static struct mp_t_event_reg *registrations;
/* The instances this thread is delivering (nested only if a callback raises events). */
static _Thread_local struct mp_t_event_inst *delivering[4];
static _Thread_local int ndelivering;

static MPI_Count now_ns(void)
{
    return (MPI_Count)(mp_wtime() * 1e9);
}

static int reg_known(MPI_T_event_registration r)
{
    for (struct mp_t_event_reg *k = registrations; k; k = k->next)
        if (k == r)
            return 1;
    return 0;
}

static int has_callback(const struct mp_t_event_reg *r)
{
    for (int i = 0; i < NSAFETY; i++)
        if (r->cb[i])
            return 1;
    return 0;
}

static int inst_known(MPI_T_event_instance e)
{
    for (int i = 0; i < ndelivering; i++)
        if (delivering[i] == e)
            return 1;
    return 0;
}

/* What one raise does for one registration, decided under the lock, done outside it. */
struct delivery {
    MPI_T_event_registration reg;
    MPI_T_event_cb_function *cb;
    void *user;
    MPI_T_event_dropped_cb_function *dropped;
    MPI_Count ndropped;
};

void mp_t_event_raise(int event, int world_peer, int peer, int tag, int ctx, size_t bytes)
{
    struct mp_t_event_inst inst = { .event = event, .timestamp = now_ns() };
    int ints[4] = { world_peer, peer, tag, ctx };
    MPI_Count count = (MPI_Count)bytes;
    memcpy(inst.data, ints, sizeof ints);
    memcpy(inst.data + 16, &count, sizeof count);
    MPI_T_cb_safety level = mp_world.thread_level == MPI_THREAD_MULTIPLE
                                ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
    struct delivery out[16];
    int n = 0;
    pthread_mutex_lock(&mpit_lock);
    for (struct mp_t_event_reg *r = registrations; r && n < 16; r = r->next) {
        if (r->event != event || !has_callback(r))
            continue;
        int lv = level;
        while (lv < NSAFETY && r->cb[lv] == NULL)
            lv++;
        if (lv == NSAFETY) {
            r->ndropped++;
            continue;
        }
        out[n] = (struct delivery){ r, r->cb[lv], r->user[lv], r->dropped, r->ndropped };
        r->ndropped = 0;
        n++;
    }
    pthread_mutex_unlock(&mpit_lock);
    if (n == 0 || ndelivering == 4)
        return;
    delivering[ndelivering++] = &inst;
    for (int i = 0; i < n; i++) {
        if (out[i].ndropped && out[i].dropped)
            out[i].dropped(out[i].ndropped, out[i].reg, 0, level, out[i].user);
        out[i].cb(&inst, out[i].reg, level, out[i].user);
    }
    ndelivering--;
}

/* The number of registrations with a callback, which point-to-point reads to decide whether
 * to raise an event. */
static void update_wanted(int event)
{
    int n = 0;
    for (struct mp_t_event_reg *r = registrations; r; r = r->next)
        n += r->event == event && has_callback(r);
    atomic_store_explicit(&mp_t_event_wanted[event], n, memory_order_relaxed);
}

/* MPI_T_finalize's: every registration goes, and no event is raised any more. */
static void events_clear(void)
{
    while (registrations) {
        struct mp_t_event_reg *r = registrations;
        registrations = r->next;
        free(r);
    }
    for (int i = 0; i < MP_T_NEVENTS; i++)
        update_wanted(i);
}

int mp_t_event_get_num(int *num)
{
    return count_out(num, MP_T_NEVENTS);
}

int mp_t_event_get_info(int index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype types[], MPI_Aint displs[], int *num_elements,
                        MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind)
{
    LOCKED_CHECK();
    if (index < 0 || index >= MP_T_NEVENTS)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    put_string(events[index].name, name, name_len);
    put_string(events[index].desc, desc, desc_len);
    OUT(verbosity, MPI_T_VERBOSITY_USER_DETAIL);
    if (num_elements) {
        for (int i = 0; i < NELEMENTS && i < *num_elements; i++) {
            if (types)
                types[i] = elements[i].type;
            if (displs)
                displs[i] = elements[i].disp;
        }
        *num_elements = NELEMENTS;
    }
    OUT(enumtype, MPI_T_ENUM_NULL);
    OUT(bind, MPI_T_BIND_NO_OBJECT);
    UNLOCK_RETURN(MPI_SUCCESS);
}

static int find_event(const char *name, int unused)
{
    return index_of(events, MP_T_NEVENTS, name);
}

int mp_t_event_handle_alloc(int index, MPI_T_event_registration *reg)
{
    LOCKED_CHECK();
    if (index < 0 || index >= MP_T_NEVENTS)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (reg == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    struct mp_t_event_reg *r = mp_calloc(1, sizeof *r);
    r->event = index;
    r->next = registrations;
    registrations = r;
    *reg = r;
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_event_handle_free(MPI_T_event_registration reg, void *user_data,
                           MPI_T_event_free_cb_function *free_cb)
{
    LOCKED_CHECK();
    struct mp_t_event_reg **pp = &registrations;
    while (*pp && *pp != reg)
        pp = &(*pp)->next;
    if (*pp == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    *pp = reg->next;
    update_wanted(reg->event);
    MPI_T_event_dropped_cb_function *dropped = reg->dropped;
    MPI_Count ndropped = reg->ndropped;
    pthread_mutex_unlock(&mpit_lock);
    /* No event reaches it any more: its last drops, then its owner's clean-up. */
    if (dropped && ndropped)
        dropped(ndropped, reg, 0, MPI_T_CB_REQUIRE_NONE, user_data);
    if (free_cb)
        free_cb(reg, MPI_T_CB_REQUIRE_NONE, user_data);
    free(reg);
    return MPI_SUCCESS;
}

int mp_t_event_register_callback(MPI_T_event_registration reg, int safety, void *user_data,
                                 MPI_T_event_cb_function *cb)
{
    LOCKED_CHECK();
    if (!reg_known(reg))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    if (safety < 0 || safety >= NSAFETY)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    reg->cb[safety] = cb;                   /* NULL takes the level's callback away */
    reg->user[safety] = cb ? user_data : NULL;
    update_wanted(reg->event);
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_event_set_dropped_handler(MPI_T_event_registration reg,
                                   MPI_T_event_dropped_cb_function *dropped)
{
    LOCKED_CHECK();
    if (!reg_known(reg))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    reg->dropped = dropped;
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* The info calls of registrations and callbacks: MemPI takes no hints, so they only check
 * the handle and the level (the binding makes the empty info). */
int mp_t_event_reg_check(MPI_T_event_registration reg, int safety)
{
    LOCKED_CHECK();
    if (!reg_known(reg))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    if (safety < 0 || safety >= NSAFETY)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* Instance queries: the instance must be one this thread is delivering. */
int mp_t_event_instance(MPI_T_event_instance e, int what, int element, void *buf)
{
    LOCKED_CHECK();
    pthread_mutex_unlock(&mpit_lock);
    if (!inst_known(e))
        return MPI_T_ERR_INVALID_HANDLE;
    if (buf == NULL)
        return MPI_T_ERR_INVALID;
    switch (what) {
    case 0:                                             /* MPI_T_event_read */
        if (element < 0 || element >= NELEMENTS)
            return MPI_T_ERR_INVALID_INDEX;
        memcpy(buf, e->data + elements[element].disp,
               elements[element].type == MPI_COUNT ? sizeof(MPI_Count) : sizeof(int));
        break;
    case 1:                                             /* MPI_T_event_copy */
        memcpy(buf, e->data, EVENT_BYTES);
        break;
    case 2:                                             /* MPI_T_event_get_timestamp */
        *(MPI_Count *)buf = e->timestamp;
        break;
    default:                                            /* MPI_T_event_get_source */
        *(int *)buf = 0;
        break;
    }
    return MPI_SUCCESS;
}

int mp_t_source_get_num(int *num)
{
    return count_out(num, 1);
}

int mp_t_source_get_info(int index, char *name, int *name_len, char *desc, int *desc_len,
                         MPI_T_source_order *ordering, MPI_Count *ticks, MPI_Count *max_ticks)
{
    LOCKED_CHECK();
    if (index != 0)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    put_string("mempi_process", name, name_len);
    put_string("this process's point-to-point engine; time stamps are MPI_Wtime in "
               "nanoseconds", desc, desc_len);
    OUT(ordering, MPI_T_SOURCE_ORDERED);
    OUT(ticks, 1000000000);
    OUT(max_ticks, INT64_MAX);
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_source_get_timestamp(int index, MPI_Count *timestamp)
{
    LOCKED_CHECK();
    if (index != 0)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (timestamp == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    *timestamp = now_ns();
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* ---- control variables ------------------------------------------------------------------ */
static int cvar_is_text(const mp_config_var *v)
{
    return v->type == MP_CFG_STRING || v->parse != NULL;
}

static const char *cvar_text(const mp_config_var *v)
{
    if (v->parse == NULL && *(const char *const *)v->field != NULL)
        return *(const char *const *)v->field;
    const char *s = mp_config_current(v->name);
    return s ? s : "";
}

static MPI_Datatype cvar_type(const mp_config_var *v)
{
    if (cvar_is_text(v))
        return MPI_CHAR;
    return v->type == MP_CFG_SIZE ? MPI_UNSIGNED_LONG : MPI_INT;
}

static int cvar_scope(const mp_config_var *v)
{
    if (!(v->flags & MP_CFG_RUNTIME))
        return MPI_T_SCOPE_READONLY;
    return v->flags & MP_CFG_ALL_EQ ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
}

int mp_t_cvar_get_num(int *num)
{
    return count_out(num, nenums);
}

int mp_t_cvar_get_info(int index, char *name, int *name_len, int *verbosity,
                       MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                       int *bind, int *scope)
{
    LOCKED_CHECK();
    if (index < 0 || index >= nenums)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    const mp_config_var *v = mp_config_row(index);
    put_string(v->name, name, name_len);
    put_string(v->meaning, desc, desc_len);
    OUT(verbosity, v->flags & MP_CFG_RUNTIME ? MPI_T_VERBOSITY_USER_BASIC
                                               : MPI_T_VERBOSITY_TUNER_BASIC);
    OUT(datatype, cvar_type(v));
    OUT(enumtype, v->type == MP_CFG_CHOICE && v->parse == NULL ? &enums[index]
                                                                 : MPI_T_ENUM_NULL);
    OUT(bind, MPI_T_BIND_NO_OBJECT);
    OUT(scope, cvar_scope(v));
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* The get_index functions: name and index checked, then find(name, arg) (-1: no such name). */
static int lookup(const char *name, int *index, int (*find)(const char *name, int arg), int arg)
{
    LOCKED_CHECK();
    if (name == NULL || index == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    int i = find(name, arg);
    if (i < 0)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_NAME);
    *index = i;
    UNLOCK_RETURN(MPI_SUCCESS);
}

static int find_cvar(const char *name, int unused)
{
    return mp_config_index(name, strlen(name));
}

int mp_t_cvar_get_index(const char *name, int *index)
{
    return lookup(name, index, find_cvar, 0);
}

int mp_t_cvar_handle_alloc(int index, MPI_T_cvar_handle *handle, int *count)
{
    LOCKED_CHECK();
    if (index < 0 || index >= nenums)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (handle == NULL || count == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    const mp_config_var *v = mp_config_row(index);
    struct mp_t_cvar_handle *h = mp_calloc(1, sizeof *h);
    h->index = index;
    h->next = cvar_handles;
    cvar_handles = h;
    *handle = h;
    *count = cvar_is_text(v) ? (int)strlen(cvar_text(v)) + 1 : 1;
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* Unlinks h from the list of live cvar handles: 0 if it was not there. */
static int cvar_handle_take(MPI_T_cvar_handle h)
{
    for (struct mp_t_cvar_handle **pp = &cvar_handles; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            return 1;
        }
    return 0;
}

static int cvar_handle_known(MPI_T_cvar_handle h)
{
    for (struct mp_t_cvar_handle *p = cvar_handles; p; p = p->next)
        if (p == h)
            return 1;
    return 0;
}

int mp_t_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    LOCKED_CHECK();
    if (handle == NULL || !cvar_handle_take(*handle))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* The row behind handle h of a read or a write of buf; NULL with the error in *rc. */
static const mp_config_var *cvar_target(MPI_T_cvar_handle h, const void *buf, int *rc)
{
    *rc = !cvar_handle_known(h) ? MPI_T_ERR_INVALID_HANDLE
        : buf == NULL           ? MPI_T_ERR_INVALID : MPI_SUCCESS;
    return *rc ? NULL : mp_config_row(h->index);
}

int mp_t_cvar_read(MPI_T_cvar_handle h, void *buf)
{
    LOCKED_CHECK();
    int rc;
    const mp_config_var *v = cvar_target(h, buf, &rc);
    if (v == NULL)
        UNLOCK_RETURN(rc);
    if (cvar_is_text(v)) {
        const char *s = cvar_text(v);
        memcpy(buf, s, strlen(s) + 1);
    } else if (v->type == MP_CFG_SIZE) {
        unsigned long z = (unsigned long)*(const size_t *)v->field;
        memcpy(buf, &z, sizeof z);
    } else {
        memcpy(buf, v->field, sizeof(int));
    }
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_cvar_write(MPI_T_cvar_handle h, const void *buf)
{
    LOCKED_CHECK();
    int rc;
    const mp_config_var *v = cvar_target(h, buf, &rc);
    if (v == NULL)
        UNLOCK_RETURN(rc);
    if (!(v->flags & MP_CFG_RUNTIME))
        UNLOCK_RETURN(MPI_T_ERR_CVAR_SET_NEVER);
    if (!mp_world.initialized || mp_world.finalized)
        UNLOCK_RETURN(MPI_T_ERR_CVAR_SET_NOT_NOW);
    int value;
    memcpy(&value, buf, sizeof value);
    if (v->type == MP_CFG_CHOICE) {
        int n = 0;
        while (v->choices[n] != NULL)
            n++;
        if (value < v->base || value >= v->base + n)
            UNLOCK_RETURN(MPI_T_ERR_INVALID);
    } else if (v->type != MP_CFG_INT && v->type != MP_CFG_BOOL) {
        UNLOCK_RETURN(MPI_T_ERR_CVAR_SET_NEVER);   /* no run-time row of another type */
    } else if (value < v->lo || value > v->hi) {
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    }
    mp_lock();                        /* the library reads the field under its lock */
    *(int *)v->field = value;
    mp_unlock();
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* ---- enumerations ----------------------------------------------------------------------- */
static const mp_config_var *enum_var(MPI_T_enum e, int *nchoices)
{
    if (enums == NULL || e < enums || e >= enums + nenums)
        return NULL;
    const mp_config_var *v = mp_config_row((int)(e - enums));
    if (v->type != MP_CFG_CHOICE || v->parse != NULL)
        return NULL;
    for (*nchoices = 0; v->choices[*nchoices] != NULL; ++*nchoices) { }
    return v;
}

int mp_t_enum_get_info(MPI_T_enum e, int *num, char *name, int *name_len)
{
    LOCKED_CHECK();
    int n;
    const mp_config_var *v = enum_var(e, &n);
    if (v == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    OUT(num, n);
    put_string(v->name, name, name_len);
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_enum_get_item(MPI_T_enum e, int index, int *value, char *name, int *name_len)
{
    LOCKED_CHECK();
    int n;
    const mp_config_var *v = enum_var(e, &n);
    if (v == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    if (index < 0 || index >= n)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_ITEM);
    OUT(value, index + v->base);
    put_string(v->choices[index], name, name_len);
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* ---- performance variables -------------------------------------------------------------- */
int mp_t_pvar_get_num(int *num)
{
    return count_out(num, NPVAR);
}

int mp_t_pvar_get_info(int index, char *name, int *name_len, int *verbosity, int *var_class,
                       MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                       int *bind, int *readonly, int *continuous, int *atomic)
{
    LOCKED_CHECK();
    if (index < 0 || index >= NPVAR)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    const struct pvar *p = &pvars[index];
    put_string(p->name, name, name_len);
    put_string(p->desc, desc, desc_len);
    OUT(verbosity, MPI_T_VERBOSITY_USER_BASIC);
    OUT(var_class, p->var_class);
    OUT(datatype, p->offset == SHARE ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG);
    OUT(enumtype, MPI_T_ENUM_NULL);
    OUT(bind, MPI_T_BIND_NO_OBJECT);
    OUT(readonly, !pvar_is_counter(index));
    OUT(continuous, !pvar_is_counter(index));
    OUT(atomic, 0);
    UNLOCK_RETURN(MPI_SUCCESS);
}

static int find_pvar(const char *name, int var_class)
{
    for (int i = 0; i < NPVAR; i++)
        if (strcmp(pvars[i].name, name) == 0 && pvars[i].var_class == var_class)
            return i;
    return -1;
}

int mp_t_pvar_get_index(const char *name, int var_class, int *index)
{
    return lookup(name, index, find_pvar, var_class);
}

int mp_t_pvar_session_create(MPI_T_pvar_session *session)
{
    LOCKED_CHECK();
    if (session == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    struct mp_t_pvar_session *s = mp_calloc(1, sizeof *s);
    s->next = sessions;
    sessions = s;
    *session = s;
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_pvar_session_free(MPI_T_pvar_session *session)
{
    LOCKED_CHECK();
    if (session == NULL || !session_known(*session))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_SESSION);
    struct mp_t_pvar_session *s = *session;
    for (struct mp_t_pvar_session **pp = &sessions; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    session_destroy(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_pvar_handle_alloc(MPI_T_pvar_session session, int index, MPI_T_pvar_handle *handle,
                           int *count)
{
    LOCKED_CHECK();
    if (!session_known(session))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (index < 0 || index >= NPVAR)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (handle == NULL || count == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    struct mp_t_pvar_handle *h = mp_calloc(1, sizeof *h);
    h->index = index;
    h->session = session;
    h->started = !pvar_is_counter(index);   /* continuous ones always run */
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    LOCKED_CHECK();
    if (!session_known(session))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (handle == NULL || !handle_known(session, *handle))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    for (struct mp_t_pvar_handle **pp = &session->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* Resolves (session, handle) for start/stop/reset, where MPI_T_PVAR_ALL_HANDLES stands for
 * every handle of the session. */
static int pvar_target(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int *all)
{
    if (!session_known(session))
        return MPI_T_ERR_INVALID_SESSION;
    *all = handle == MPI_T_PVAR_ALL_HANDLES;
    if (!*all && !handle_known(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

static uint64_t counter_now(const struct mp_t_pvar_handle *h)
{
    return h->accum + (h->started ? stat_value(h->index) - h->base : 0);
}

enum { OP_START, OP_STOP, OP_RESET };
static void apply(struct mp_t_pvar_handle *h, int op)
{
    if (op == OP_START && !h->started) {
        h->base = stat_value(h->index);
        h->started = 1;
    } else if (op == OP_STOP && h->started) {
        h->accum = counter_now(h);
        h->started = 0;
    } else if (op == OP_RESET) {
        h->accum = 0;
        h->base = stat_value(h->index);
    }
}

/* start/stop/reset of one handle or of all handles of a session; with all handles, those
 * the operation does not apply to (continuous or read-only) are skipped, as MPI 4.0 says. */
static int pvar_control(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op)
{
    LOCKED_CHECK();
    int all, err = pvar_target(session, handle, &all);
    if (err)
        UNLOCK_RETURN(err);
    mp_lock();
    if (all) {
        for (struct mp_t_pvar_handle *h = session->handles; h; h = h->next)
            if (pvar_is_counter(h->index))
                apply(h, op);
    } else if (!pvar_is_counter(handle->index)) {
        err = op == OP_RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
    } else {
        apply(handle, op);
    }
    mp_unlock();
    UNLOCK_RETURN(err);
}

int mp_t_pvar_start(MPI_T_pvar_session s, MPI_T_pvar_handle h) { return pvar_control(s, h, OP_START); }
int mp_t_pvar_stop(MPI_T_pvar_session s, MPI_T_pvar_handle h)  { return pvar_control(s, h, OP_STOP); }
int mp_t_pvar_reset(MPI_T_pvar_session s, MPI_T_pvar_handle h) { return pvar_control(s, h, OP_RESET); }

int mp_t_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf, int reset)
{
    LOCKED_CHECK();
    if (!session_known(session))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES || !handle_known(session, handle))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    if (buf == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    int i = handle->index;
    if (reset && !pvar_is_counter(i))
        UNLOCK_RETURN(MPI_T_ERR_PVAR_NO_WRITE);
    mp_lock();
    if (pvars[i].offset == SHARE) {
        double d = share_value();
        memcpy(buf, &d, sizeof d);
    } else {
        uint64_t v = pvar_is_counter(i) ? counter_now(handle) : stat_value(i);
        unsigned long long u = v;
        memcpy(buf, &u, sizeof u);
        if (reset)
            apply(handle, OP_RESET);
    }
    mp_unlock();
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    LOCKED_CHECK();
    if (!session_known(session))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES || !handle_known(session, handle))
        UNLOCK_RETURN(MPI_T_ERR_INVALID_HANDLE);
    if (!pvar_is_counter(handle->index))
        UNLOCK_RETURN(MPI_T_ERR_PVAR_NO_WRITE);
    if (buf == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    unsigned long long u;
    memcpy(&u, buf, sizeof u);
    mp_lock();
    handle->accum = u;
    handle->base = stat_value(handle->index);
    mp_unlock();
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* ---- categories ------------------------------------------------------------------------- */
int mp_t_category_get_num(int *num)
{
    return count_out(num, NCAT);
}

/* Members of category cat: cvars (kind 0) or pvars (kind 1); writes up to len indices. */
static int members(int cat, int kind, int len, int *indices)
{
    int n = 0, total = kind == 0 ? nenums : NPVAR;
    for (int i = 0; i < total; i++) {
        int c = kind == 0 ? cvar_category(mp_config_row(i)) : pvars[i].cat;
        if (c != cat)
            continue;
        if (indices != NULL && n < len)
            indices[n] = i;
        n++;
    }
    return n;
}

int mp_t_category_get_info(int cat, char *name, int *name_len, char *desc, int *desc_len,
                           int *num_cvars, int *num_pvars, int *num_categories)
{
    LOCKED_CHECK();
    if (cat < 0 || cat >= NCAT)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    put_string(categories[cat].name, name, name_len);
    put_string(categories[cat].desc, desc, desc_len);
    OUT(num_cvars, members(cat, 0, 0, NULL));
    OUT(num_pvars, members(cat, 1, 0, NULL));
    OUT(num_categories, 0);
    UNLOCK_RETURN(MPI_SUCCESS);
}

static int find_category(const char *name, int unused)
{
    return index_of(categories, NCAT, name);
}

int mp_t_category_get_index(const char *name, int *cat)
{
    return lookup(name, cat, find_category, 0);
}

/* kind: 0 cvars, 1 pvars, 2 subcategories (none), 3 events (all point-to-point's) */
int mp_t_category_get_members(int cat, int kind, int len, int *indices)
{
    LOCKED_CHECK();
    if (cat < 0 || cat >= NCAT)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && indices == NULL))
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    if (kind < 2)
        members(cat, kind, len, indices);
    for (int i = 0; kind == 3 && cat == CAT_PT2PT && i < MP_T_NEVENTS && i < len; i++)
        indices[i] = i;
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_category_num_events(int cat, int *num)
{
    LOCKED_CHECK();
    if (cat < 0 || cat >= NCAT)
        UNLOCK_RETURN(MPI_T_ERR_INVALID_INDEX);
    if (num == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    *num = cat == CAT_PT2PT ? MP_T_NEVENTS : 0;
    UNLOCK_RETURN(MPI_SUCCESS);
}

/* The category set never changes: its update number stays 0. */
int mp_t_category_changed(int *update_number)
{
    LOCKED_CHECK();
    if (update_number == NULL)
        UNLOCK_RETURN(MPI_T_ERR_INVALID);
    *update_number = 0;
    UNLOCK_RETURN(MPI_SUCCESS);
}

int mp_t_event_get_index(const char *name, int *index)
{
    return lookup(name, index, find_event, 0);
}

/* shm.c -- intra-node collectives through the shared segment: barrier, bcast, reduce,
 * allreduce, allgather, alltoall(v,w) ("shm" algorithm of each).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Inside one host the ranks map one segment, and the transport gives every local rank a slot
 * there (mp_shm_coll_slot).  These algorithms skip messages altogether: a rank copies its
 * contribution into its own slot once, and the others read it straight from there (copy out
 * once, or reduce while reading); flags replace messages.  Only blocking collectives use them
 * (a nonblocking collective has no place to wait, so it keeps the message schedules), and
 * only on intracommunicators whose ranks all share this host (or, for the node-local halves
 * of the node-aware algorithms, on the ranks of one node).
 *
 * Threads.  The transport's slots are one per process, so two threads of a process running
 * collectives on two communicators at once would write the same cells.  A communicator any of
 * whose members is multi-threaded (mp_thread_multiple) therefore gets its own slots: a
 * segment with one slot per member on this host, made at its first shm collective -- the
 * first member creates it (mode 0600, a random name, as window memory), the name goes to the
 * others by a message broadcast, they map it, and an allreduce confirms that all did before
 * the name is unlinked (if a rank dies in between, mpiexec sweeps the job's names).  Whether
 * a communicator needs its own slots is agreed in the allreduce that agrees on its epoch, so
 * members at different thread levels pick the same slots.  Everything else a collective
 * touches is the communicator's own (its view and step counters), and MPI lets only one
 * thread at a time run a collective on a communicator; waits give up the big lock (through
 * mp_progress and mp_idle_packet) like any other wait, so a thread blocked in a collective
 * never stops the others.  For the same reason the long work between waits -- single copies
 * and the folds of a single-copy reduction with a predefined operation -- runs with the big
 * lock released (mp_lock_step_out: only where a wait could release it, never inside a poll):
 * it touches only the call's buffers, the peers' memory and the communicator's view, so
 * threads on other communicators progress during a large collective too.  A user's reduction function keeps the lock: it may call MPI or read
 * handles.
 *
 * Slot layout.  The first three quarters of a slot hold CELLS (4) big cells, the last quarter
 * a ring of small cells of SMALL_STRIDE (256) bytes -- 64 in the default 64 KiB slot:
 *
 *     cell = { stamp (64 bit, own cache line), readers_left (32 bit, own cache line), data }
 *
 * Every step of a collective that makes data visible is a *publication* by one rank into one
 * of its own cells; a rank only ever writes its own slot (and decrements others' counters).
 * A communicator numbers its publication steps 1, 2, 3, ... (every rank advances the counter
 * identically, since blocking collectives are called in the same order everywhere), with one
 * counter per kind of cell: a publication of at most SMALL_MAX (128) bytes -- barrier flags,
 * addresses, small broadcasts and reductions; the length is the same on every rank -- takes
 * the next small cell, a larger one the next big cell (step % 4), and bit 30 of the step says
 * which.  So a writer can fill one cell while its readers still read the others: large data
 * is pipelined in chunks, and back-to-back small collectives let a rank run up to 63 steps
 * ahead of its slowest reader -- with more ranks than cores that saves context switches
 * (docs/decisions.md, "Collective cells").
 *
 * The protocol of one publication with k readers, and its memory orders:
 *
 *   writer  1. wait until readers_left == 0          (acquire load: pairs with the readers'
 *              release decrements, so their reads of the previous contents happen before
 *              our writes below)
 *           2. write the data                         (plain stores)
 *           3. readers_left = k                       (relaxed: published by step 4)
 *           4. stamp = S                              (release store)
 *   reader  1. wait until stamp == S                  (acquire load: pairs with writer step 4,
 *              so the data and readers_left = k are visible)
 *           2. read / reduce the data
 *           3. readers_left -= 1                      (release fetch_sub; the decrements form a
 *              release sequence, so the writer's acquire load that sees 0 synchronizes with
 *              every reader)
 *
 * Views.  A run of publications involves either the whole communicator or, for the node-aware
 * algorithms (barrier "node", bcast "two_stage", allreduce "btree4" in blocking calls), the
 * ranks of one node: their node-local halves run here while the leaders exchange messages.
 * Each view has its own step counters (all members of a node take part in the same node-local
 * steps); node steps carry bit 31, so the counters never yield the same stamp.
 *
 * Stamp.  S = epoch << 32 | step.  The epoch is a per-communicator number agreed once, at the
 * first shm collective of the communicator, as the maximum over its ranks of (each rank's last
 * epoch + 1) with a message-based allreduce: so for every rank the epochs of its
 * communicators are distinct, and a stamp left in a slot by a freed communicator (whose
 * context id a new communicator may reuse) or by another communicator can never equal a
 * stamp a reader waits for.  Readers therefore cannot confuse two collectives, even when
 * overlapping communicators run theirs in different orders.
 *
 * Waiting.  A writer that finds its cell still being read (readers_left > 0) waits for
 * readers that are members of an earlier collective -- a wait that a synchronizing
 * implementation of that collective would have imposed earlier, which the standard allows,
 * so correct programs cannot deadlock.  Every wait drives the progress engine, so
 * point-to-point traffic and nonblocking collectives keep moving, and follows the waiting
 * policy of packet waits (mp_idle_packet: spin, yield, sleep on the futex), watching the word
 * it waits for (mp_coll_watch*): a writer's publication wakes the members that sleep, and the
 * last reader of a cell wakes its owner (mp_coll_wake; the protocol is transport/shm/wait.c's,
 * the stamp or counter store being the sender's W1).
 * With more ranks than cores the policy yields at once (the rank we wait for most likely
 * waits for our core); no rank spins on a guess of where the awaited one runs (measured
 * slower: docs/decisions.md, "Waiting when oversubscribed").
 *
 * Large data (above SHM_DIRECT_MIN bytes per rank, when the kernel allows single copy) does
 * not go through the cells at all: the publication carries only the address of the owner's
 * data (its user buffer when contiguous -- for allgather the send buffer, which the owner did
 * not just write, so the pull finds it clean in the owner's cache: that halved the cost of a
 * 64 KiB allgather on 2 ranks -- else a packed copy), readers pull it with one
 * process_vm_readv each, and the owner leaves the collective only after its readers_left has
 * dropped to 0 (its buffer must stay valid until then).  A broadcast between two members
 * splits the copy between both cores: the root writes the second half into the receiver's
 * buffer while the receiver pulls the first.  That makes a 1 MiB collective two or
 * three synchronisations instead of dozens of chunk hand-offs, which matters most when the
 * node is oversubscribed and every hand-off may cost a time slice.
 *
 * Reductions work on contiguous types (data = size bytes per element, elements abut), in
 * place in shared memory: small vectors are folded by every reader over all slots (one
 * step); larger ones are cut into chunks and, per chunk, each rank folds one segment over all
 * slots into its second cell, and then everyone copies the segments out (two steps).  Folds
 * run from the highest rank down (x0 op (x1 op (... op xP-1))), so non-commutative
 * operations get the rank order they must.
 */
#include "coll/coll_impl.h"
#include "transport/transport.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CELLS 4                       /* big cells per slot */
#define SMALL_STRIDE ((size_t)256)      /* bytes per cell of the small ring (header + data) */
#define SMALL_MAX (SMALL_STRIDE - sizeof(shm_cell))   /* data bytes of a small cell */
#define SMALL_BIT (1u << 30)          /* in a step: the publication uses the small ring */

typedef struct shm_cell {
    _Atomic uint64_t stamp;
    char pad0[MP_CACHELINE - sizeof(uint64_t)];
    atomic_uint readers_left;
    char pad1[MP_CACHELINE - sizeof(atomic_uint)];
} shm_cell;                           /* the data follows the header */
_Static_assert(sizeof(shm_cell) == 2 * MP_CACHELINE, "stamp and readers_left on their own lines");

/* The ranks taking part in a run of publications: the whole communicator, or my node (the
 * node-aware algorithms).  Each view numbers its own steps; the node view's stamps have the
 * top bit of the step set, so the two never produce the same stamp. */
typedef struct shm_view {
    int size, me;
    char **slot;                      /* member -> its slot in the segment */
    int *local;                       /* member -> its local rank (whom mp_coll_wake wakes) */
    const int *map;                   /* member -> communicator rank (NULL: identity) */
    uint32_t epoch;
    uint32_t step;                    /* last big-cell publication step used */
    uint32_t small_step;              /* last small-ring publication step used */
    uint32_t flag;                    /* 0 (communicator) or 1u << 31 (node) */
    mp_comm *comm;
} shm_view;

/* A communicator's own slots (see "Threads"), and a spare kept after it (below). */
typedef struct own_slots {
    char *seg;                        /* NULL: the transport's slot of each member's process */
    size_t size;
    int shared;                       /* a shared mapping (else private memory: a team of one) */
    uint64_t token;                   /* a whole communicator's segment: names it among its
                                         members (a hash of its name); 0: not to be kept */
    int n;                            /* with a token: the members, and the world rank of */
    int *world;                       /* each slot's owner */
} own_slots;

struct mp_shm_comm {
    shm_view all, node;
    own_slots own;
};

/* Spare slots.  Making a segment costs system calls and two message rounds, which a program
 * that creates a communicator per task would pay every time; so a whole communicator's own
 * segment outlives it here, and the next communicator of the same processes in the same order
 * takes it over when every member offers the same one (the epoch agreement carries the offers).
 * Reuse is the node segment's own rule: the new communicator's epoch exceeds the old one's at
 * every member, and a writer waits for the old readers of a cell before it writes it.  A
 * spare is taken out of the list before it is offered, so two threads cannot offer it for two
 * communicators at once; an offer not agreed puts it back. */
#define SPARES 4
static own_slots spares[SPARES];      /* oldest first; under the big lock */
static int nspares;

static uint32_t last_epoch;           /* the largest epoch this process agreed on */

/* ------------------------------------------------------------------------------------------ */
/* Eligibility and per-communicator state                                                     */
/* ------------------------------------------------------------------------------------------ */
/* The node view: the members of one node always share this host's segment, whatever the rest
 * of the communicator does -- so the node-aware algorithms run their node-local halves here on
 * communicators spanning several hosts too. */
int mp_coll_shm_node_usable(mp_comm *comm)
{
    return !comm->is_inter && comm->size >= 2 && mp_coll_slot_size() >= 4096;
}

/* The whole-communicator view: as the node view, and every rank on this host. */
int mp_coll_shm_usable(mp_comm *comm)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    if (cs->shm_usable == 0) {
        int ok = mp_coll_shm_node_usable(comm);
        for (int r = 0; ok && r < comm->size; r++)
            ok = mp_transport_of(comm->world[r])->shares_memory;
        cs->shm_usable = ok ? 1 : -1;
    }
    return cs->shm_usable > 0;
}

static void own_release(own_slots o)
{
    if (o.shared)
        mp_shared_unmap(o.seg, o.size);
    else
        free(o.seg);
    free(o.world);
}

static void spare_put(own_slots sp)
{
    if (nspares == SPARES) {
        own_release(spares[0]);
        memmove(spares, spares + 1, sizeof spares[0] * (SPARES - 1));
        nspares--;
    }
    spares[nspares++] = sp;
}

/* Takes out the spare whose slots belong to the communicator's ranks in its order. */
static own_slots spare_take(const mp_comm *comm)
{
    for (int i = nspares - 1; i >= 0; i--) {
        own_slots sp = spares[i];
        if (sp.n == comm->size && memcmp(sp.world, comm->world, sizeof(int) * (size_t)sp.n) == 0) {
            memmove(spares + i, spares + i + 1, sizeof spares[0] * (size_t)(nspares - i - 1));
            nspares--;
            return sp;
        }
    }
    own_slots none = { NULL, 0, 0, 0, 0, NULL };
    return none;
}

void mp_coll_shm_comm_free(mp_coll_state *cs)
{
    if (cs->shm) {
        if (cs->shm->own.token)
            spare_put(cs->shm->own);
        else
            own_release(cs->shm->own);
        free(cs->shm->all.slot);
        free(cs->shm->node.slot);
        free(cs->shm->all.local);
        free(cs->shm->node.local);
        free(cs->shm);
        cs->shm = NULL;
    }
}

/* The epoch agreement, a recursive-doubling MAX over the communicator by messages, also
 * agrees on whether the communicator needs its own slots (some member is multi-threaded) and
 * whether every member offered the same spare (`offer`, 0: none): the maximum of the offer's
 * halves and of their complements give the largest and the smallest offer. */
static int agree(mp_comm *comm, uint64_t offer, uint32_t *epoch, int *own, int *reuse)
{
    unsigned hi = (unsigned)(offer >> 32), lo = (unsigned)offer;
    unsigned v[6] = { last_epoch + 1, mp_thread_multiple != 0, hi, lo, ~hi, ~lo };
    mp_sched *s = mp_sched_new(comm);
    mp_team t = mp_team_all(comm);
    mp_build_allreduce_rd(s, &t, v, 6, mp_datatype_get(MPI_UNSIGNED), MPI_MAX);
    int err = mp_sched_run(s);
    if (err == MPI_SUCCESS) {
        *epoch = v[0];
        if (v[0] > last_epoch)        /* another thread's agreement may have ended first */
            last_epoch = v[0];
        *own = v[1] != 0;
        *reuse = offer != 0 && v[2] == ~v[4] && v[3] == ~v[5];
    }
    return err;
}

/* 64-bit FNV-1a of a segment's name: how the members of a communicator name its segment. */
static uint64_t name_token(const char *name)
{
    uint64_t h = 14695981039346656037ull;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return h ? h : 1;
}

/* The communicator's own slots for the members of team t (the whole communicator when it
 * lives on this host, else my node): member 0 creates them, the name goes out by broadcast,
 * the others map them, and an allreduce over the whole communicator (every rank calls this,
 * each for its own team) says whether every rank got there.  A team of one needs no sharing. */
static int map_own(mp_comm *comm, const mp_team *t, int whole, own_slots *o)
{
    size_t bytes = (size_t)t->size * mp_coll_slot_size();
    char name[MP_SHARED_NAME_MAX] = "";
    void *addr = NULL;
    int err = MPI_SUCCESS, bad = 0;
    own_slots made = { NULL, bytes, t->size > 1, 0, 0, NULL };
    if (t->size == 1) {
        addr = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), bytes);
        if (addr)
            memset(addr, 0, bytes);
        else
            err = mp_error_code(MPI_ERR_NO_MEM, "cannot allocate %zu bytes of collective slots",
                                bytes);
    } else if (t->rank == 0) {
        err = mp_shared_create(bytes, name, &addr);
    }
    mp_sched *s = mp_sched_new(comm);          /* on every rank: keeps the tags in step */
    if (t->size > 1)
        mp_build_bcast_binomial(s, t, name, MP_SHARED_NAME_MAX, mp_datatype_get(MPI_CHAR), 0);
    int e = mp_sched_run(s);
    if (e == MPI_SUCCESS && t->size > 1 && t->rank != 0) {
        if (name[0])
            err = mp_shared_attach(name, bytes, &addr);
        else
            bad = 1;                  /* member 0 failed: it reports why */
    }
    err = err ? err : e;
    bad |= err != MPI_SUCCESS;
    s = mp_sched_new(comm);
    mp_team all = mp_team_all(comm);
    mp_build_allreduce_rd(s, &all, &bad, 1, mp_datatype_get(MPI_INT), MPI_MAX);
    e = mp_sched_run(s);                /* now bad: did any rank fail? */
    if (t->size > 1 && t->rank == 0)
        mp_shared_unlink(name);       /* everyone mapped it, or it failed */
    made.seg = addr;
    if (e == MPI_SUCCESS && !bad) {
        if (whole) {                  /* a whole communicator's segment may be kept */
            made.token = name_token(name);
            made.n = comm->size;
            made.world = mp_malloc(sizeof(int) * (size_t)comm->size);
            memcpy(made.world, comm->world, sizeof(int) * (size_t)comm->size);
        }
        *o = made;
        return MPI_SUCCESS;
    }
    own_release(made);
    if (e)
        return e;
    return err ? err : mp_error_code(MPI_ERR_NO_MEM, "the shared-memory slots of a collective "
                                     "could not be mapped on another rank (see its error)");
}

/* own: the communicator's own slots, indexed by communicator rank (whole) or position in the
 * node (else); NULL: the transport's slot of each member's process. */
static void view_init(shm_view *v, mp_comm *comm, const mp_team *t, uint32_t epoch,
                      uint32_t flag, const char *own, int whole)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    v->size = t->size;
    v->me = t->rank;
    v->map = t->map;
    v->epoch = epoch;
    v->flag = flag;
    v->comm = comm;
    v->slot = mp_malloc(sizeof(char *) * (size_t)t->size);
    v->local = mp_malloc(sizeof(int) * (size_t)t->size);
    for (int i = 0; i < t->size; i++) {
        int r = mp_team_peer(t, i);
        v->local[i] = mp_world.procs[comm->world[r]].local;
        if (own)
            v->slot[i] = (char *)own + (size_t)(whole ? r : cs->pos_in_node[r]) *
                                       mp_coll_slot_size();
        else
            v->slot[i] = mp_coll_slot(v->local[i]);
    }
}

/* The communicator's shm state; the first call agrees on the epoch and, if needed, makes
 * the communicator's own slots (collective). */
static int prepare(mp_comm *comm, struct mp_shm_comm **out)
{
    mp_coll_state *cs = mp_coll_state_of(comm);
    if (!cs->shm) {
        uint32_t epoch;
        int own, reuse;
        int whole = mp_coll_shm_usable(comm);  /* else ranks on other hosts: no slots */
        own_slots sp = { NULL, 0, 0, 0, 0, NULL };
        if (whole)
            sp = spare_take(comm);
        int err = agree(comm, sp.token, &epoch, &own, &reuse);
        if (sp.token && (err != MPI_SUCCESS || !own || !reuse))
            spare_put(sp);            /* not taken over: keep it for another communicator */
        if (err != MPI_SUCCESS)
            return err;
        struct mp_shm_comm *sc = mp_calloc(1, sizeof *sc);
        mp_team all = mp_team_all(comm), node = mp_team_node(comm);
        if (own && reuse) {
            sc->own = sp;
        } else if (own && (err = map_own(comm, whole ? &all : &node, whole, &sc->own))) {
            free(sc);
            return err;
        }
        if (whole)
            view_init(&sc->all, comm, &all, epoch, 0, sc->own.seg, 1);
        view_init(&sc->node, comm, &node, epoch, 1u << 31, sc->own.seg, whole);
        cs->shm = sc;
    }
    *out = cs->shm;
    return MPI_SUCCESS;
}

static int view_all(mp_comm *comm, shm_view **v)
{
    struct mp_shm_comm *sc;
    int err = prepare(comm, &sc);
    *v = err == MPI_SUCCESS ? &sc->all : NULL;
    return err;
}

static int view_node(mp_comm *comm, shm_view **v)
{
    struct mp_shm_comm *sc;
    int err = prepare(comm, &sc);
    *v = err == MPI_SUCCESS ? &sc->node : NULL;
    return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Cells and the publication protocol                                                         */
/* ------------------------------------------------------------------------------------------ */
/* The big cells fill the first three quarters of the slot, the small ring the last one. */
static size_t cell_stride(void) { return mp_coll_slot_size() / 4 * 3 / CELLS; }
size_t mp_coll_shm_cell_capacity(void) { return cell_stride() - sizeof(shm_cell); }
/* The small ring: all of the last quarter. */
static size_t small_cells(void) { return mp_coll_slot_size() / 4 / SMALL_STRIDE; }

/* The next step of a publication of `len` bytes (all members pass the same len): small ones
 * take the next cell of the small ring, the others the next big cell.  Bit 30 tells them
 * apart and stays in the stamp, so the two counters never yield the same stamp either. */
static uint32_t next_step(shm_view *v, size_t len)
{
    if (len <= SMALL_MAX)
        return (++v->small_step & (SMALL_BIT - 1)) | SMALL_BIT;
    return ++v->step & (SMALL_BIT - 1);
}
static uint64_t stamp_of(const shm_view *v, uint32_t step)
{
    return (uint64_t)v->epoch << 32 | v->flag | (step & 0x7fffffffu);
}
static shm_cell *cell_of(const shm_view *v, int r, uint32_t step)
{
    if (step & SMALL_BIT)
        return (shm_cell *)(v->slot[r] + mp_coll_slot_size() / 4 * 3 +
                            (step & (SMALL_BIT - 1)) % small_cells() * SMALL_STRIDE);
    return (shm_cell *)(v->slot[r] + (step % CELLS) * cell_stride());
}
static char *data_of(shm_cell *c) { return (char *)(c + 1); }

/* ------------------------------------------------------------------------------------------ */
/* Waiting (see "Waiting" at the top)                                                         */
/* ------------------------------------------------------------------------------------------ */
typedef struct shm_wait {
    int peer;                         /* the member waited for; -1: any of the others */
    shm_cell *cell;                   /* whose stamp (peer >= 0) or readers_left we watch */
    uint64_t seen;                    /* the word's value when the wait last found it wanting */
    unsigned spins;                   /* mp_idle's stage */
} shm_wait;

/* The policy's next step (spin, yield, sleep: mp_idle_packet), watching our word.  The
 * watch ends a sleep when the word differs from the value the wait found wanting (not from a
 * fresh load, which may already be the one awaited). */
static void wait_policy(shm_wait *w)
{
    if (w->peer >= 0)
        mp_coll_watch_stamp(&w->cell->stamp, w->seen);
    else
        mp_coll_watch(&w->cell->readers_left, (unsigned)w->seen);
    mp_idle_packet(&w->spins);
}

static void wait_done(shm_wait *w)
{
    if (w->spins == 0)
        return;                       /* never reached the policy: nothing watched */
    if (w->peer >= 0)
        mp_coll_watch_stamp(NULL, 0);
    else
        mp_coll_watch(NULL, 0);
}

static char *publish_begin(const shm_view *v, shm_cell *c)
{
    shm_wait w = { -1, c, 0, 0 };
    while ((w.seen = atomic_load_explicit(&c->readers_left, memory_order_acquire)) != 0)
        if (mp_progress() == 0)
            wait_policy(&w);
    wait_done(&w);
    return data_of(c);
}

/* Publishes my cell of `step` to `readers` readers and wakes those that sleep. */
static void publish_end(const shm_view *v, uint32_t step, unsigned readers)
{
    shm_cell *c = cell_of(v, v->me, step);
    atomic_store_explicit(&c->readers_left, readers, memory_order_relaxed);
    atomic_store_explicit(&c->stamp, stamp_of(v, step), memory_order_release);
    if (readers)
        mp_coll_wake(v->local, v->size);
}

/* Waits for member r's publication of `step`; returns its data. */
static char *read_begin(const shm_view *v, int r, uint32_t step)
{
    shm_cell *c = cell_of(v, r, step);
    uint64_t stamp = stamp_of(v, step);
    shm_wait w = { r, c, 0, 0 };
    while ((w.seen = atomic_load_explicit(&c->stamp, memory_order_acquire)) != stamp)
        if (mp_progress() == 0)
            wait_policy(&w);
    wait_done(&w);
    return data_of(c);
}

/* Done with member r's cell of `step`; the last reader wakes its owner if it sleeps. */
static void read_end(const shm_view *v, int r, uint32_t step)
{
    shm_cell *c = cell_of(v, r, step);
    if (atomic_fetch_sub_explicit(&c->readers_left, 1, memory_order_release) == 1)
        mp_coll_wake(&v->local[r], 1);
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Waits until every reader of this rank's cell is done (before the data it names may go). */
static void wait_readers(const shm_view *v, shm_cell *c) { (void)publish_begin(v, c); }

/* ------------------------------------------------------------------------------------------ */
/* Single copy ("direct") helpers                                                             */
/* ------------------------------------------------------------------------------------------ */
/* Per-rank bytes from which data moves by single copy instead of through the cells. */
#define SHM_DIRECT_MIN ((size_t)64 * 1024)

/* The transport between the ranks of this host (every rank reaches itself through it). */
static const mp_transport *host_tp(void)
{
    return mp_transport_of(mp_world.rank);
}

static int direct_ok(size_t bytes)
{
    return bytes >= SHM_DIRECT_MIN && host_tp()->single_copy && host_tp()->read;
}

/* The data of (buf, count, dt) as one byte range, or NULL if the type is not contiguous. */
static char *contig_range(const void *buf, MPI_Aint count, const mp_datatype *dt)
{
    return dt->is_contig ? (char *)buf + dt->true_lb : NULL;
}

/* Publishes the address of `data` (readers readers) in my cell of `step`. */
static void publish_addr(const shm_view *sc, uint32_t step, const void *data,
                         unsigned readers)
{
    shm_cell *c = cell_of(sc, sc->me, step);
    uint64_t addr = (uint64_t)(uintptr_t)data;
    memcpy(publish_begin(sc, c), &addr, sizeof addr);
    publish_end(sc, step, readers);
}

static uint64_t addr_of(const shm_view *sc, int r, uint32_t step)
{
    uint64_t addr;
    memcpy(&addr, read_begin(sc, r, step), sizeof addr);
    return addr;
}

/* Moves len bytes between dst and remote address addr of view member r (write: to it),
 * without the big lock when it may go (see "Threads" at the top). */
static int cross_copy(const shm_view *v, int r, int write, uint64_t addr, void *dst, size_t len)
{
    if (len == 0)
        return MPI_SUCCESS;
    struct iovec iov = { dst, len };
    const mp_transport *tp = host_tp();
    int world_peer = v->comm->world[v->map ? v->map[r] : r];
    int depth = tp->copy_unlocked ? mp_lock_step_out(len) : 0;
    int err = write ? tp->write(world_peer, addr, &iov, 1) : tp->read(world_peer, addr, &iov, 1);
    mp_lock_step_in(depth, &mp_stat.unlocked_coll_copies);
    return err;
}

/* Pulls len bytes at remote address addr of view member r into dst. */
static int pull(const shm_view *v, int r, uint64_t addr, void *dst, size_t len)
{
    return cross_copy(v, r, 0, addr, dst, len);
}

/* Pulls the first len bytes of the packed stream of member r (at addr) into (buf, count,
 * dt); len is at most the type's size. */
static int pull_bytes(const shm_view *comm, int r, uint64_t addr, void *buf, MPI_Aint count,
                      mp_datatype *dt, size_t len)
{
    char *dst = contig_range(buf, count, dt);
    if (dst)
        return pull(comm, r, addr, dst, len);
    char *tmp = mp_malloc(len);
    int err = pull(comm, r, addr, tmp, len);
    if (err == MPI_SUCCESS)
        mp_unpack(buf, count, dt, 0, tmp, len);
    free(tmp);
    return err;
}

/* Pulls the packed stream of member r (at addr) into (buf, count, dt). */
static int pull_typed(const shm_view *comm, int r, uint64_t addr, void *buf, MPI_Aint count,
                      mp_datatype *dt)
{
    return pull_bytes(comm, r, addr, buf, count, dt, mp_datatype_bytes(dt, count));
}

/* The packed stream of (buf, count, dt): the buffer itself when contiguous, else a packed
 * copy in *tmp (to free). */
static const char *packed_source(const void *buf, MPI_Aint count, mp_datatype *dt, char **tmp)
{
    *tmp = NULL;
    char *p = contig_range(buf, count, dt);
    if (p)
        return p;
    size_t len = mp_datatype_bytes(dt, count);
    *tmp = mp_malloc(len ? len : 1);
    mp_pack(buf, count, dt, 0, *tmp, len);
    return *tmp;
}

/* Two members: the reader pulls the first half while the root writes the second half into
 * the reader's buffer (process_vm_writev), so both cores copy and the call takes about half
 * of one pull.  Both publish an address; the reader's is 0 when its buffer is not contiguous,
 * and then it pulls everything.  Each side's read_end on the other's cell says "done with
 * your buffer", and each waits for it before returning. */
static int bcast_direct_pair(shm_view *v, void *buf, MPI_Aint count, mp_datatype *dt, int root)
{
    uint32_t step = next_step(v, sizeof(uint64_t));
    int peer = 1 - v->me, err = MPI_SUCCESS;
    size_t total = mp_datatype_bytes(dt, count), split = total / 2;
    if (v->me == root) {
        char *tmp;
        const char *src = packed_source(buf, count, dt, &tmp);
        publish_addr(v, step, src, 1);
        uint64_t dst = addr_of(v, peer, step);
        if (dst)
            err = cross_copy(v, peer, 1, dst + split, (char *)src + split, total - split);
        read_end(v, peer, step);
        wait_readers(v, cell_of(v, v->me, step));
        free(tmp);
        return err;
    }
    char *dst = contig_range(buf, count, dt);
    publish_addr(v, step, dst, 1);
    uint64_t src = addr_of(v, root, step);
    err = dst ? pull(v, root, src, dst, split) : pull_typed(v, root, src, buf, count, dt);
    read_end(v, root, step);
    wait_readers(v, cell_of(v, v->me, step));
    return err;
}

static int bcast_direct(shm_view *v, void *buf, MPI_Aint count, mp_datatype *dt, int root)
{
    if (v->size == 2 && host_tp()->write)
        return bcast_direct_pair(v, buf, count, dt, root);
    uint32_t step = next_step(v, sizeof(uint64_t));
    if (v->me == root) {
        char *tmp;
        publish_addr(v, step, packed_source(buf, count, dt, &tmp), (unsigned)v->size - 1);
        wait_readers(v, cell_of(v, root, step));
        free(tmp);
        return MPI_SUCCESS;
    }
    int err = pull_typed(v, root, addr_of(v, root, step), buf, count, dt);
    read_end(v, root, step);
    return err;
}

/* Publishes the address of my block -- the send buffer itself when it is contiguous (data the
 * peers read from a buffer we did not just write stays clean in our cache), else the block
 * in rbuf -- then copies my own block while the others pull it, and pulls theirs. */
static int allgather_direct(shm_view *v, const void *sbuf, MPI_Aint scount, mp_datatype *sdt,
                            void *rbuf, MPI_Aint rcount, mp_datatype *rdt)
{
    int n = v->size, me = v->me, err = MPI_SUCCESS;
    uint32_t step = next_step(v, sizeof(uint64_t));
    void *my_block = mp_elem(rbuf, me * rcount, rdt);
    const char *src = sbuf == MPI_IN_PLACE ? NULL : contig_range(sbuf, scount, sdt);
    char *tmp = NULL;
    if (!src && sbuf != MPI_IN_PLACE)
        err = mp_datatype_copy(sbuf, scount, sdt, my_block, rcount, rdt);
    if (!src)
        src = packed_source(my_block, rcount, rdt, &tmp);
    publish_addr(v, step, src, (unsigned)n - 1);
    if (sbuf != MPI_IN_PLACE && src == contig_range(sbuf, scount, sdt))
        err = mp_datatype_copy(sbuf, scount, sdt, my_block, rcount, rdt);
    for (int k = 1; k < n; k++) {
        int r = (me + k) % n;
        int e = pull_typed(v, r, addr_of(v, r, step), mp_elem(rbuf, r * rcount, rdt), rcount,
                           rdt);
        read_end(v, r, step);
        if (err == MPI_SUCCESS)
            err = e;
    }
    wait_readers(v, cell_of(v, me, step));
    free(tmp);
    return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Barrier.  Up to BARRIER_ALL_MAX members, one step: everyone publishes its arrival and     */
/* waits for everybody else's -- whoever arrives last leaves at once, and nobody waits for a  */
/* rank that must be scheduled to release the others (with more ranks than cores that rank    */
/* often is not running).  Larger ones: everyone signals member 0, member 0 releases          */
/* everyone (n-1 reads per member would cost n^2 cache-line moves).  The node-aware barrier   */
/* runs those two halves on the node view with the leaders' barrier between them.            */
/* ------------------------------------------------------------------------------------------ */
static void barrier_arrive(shm_view *v)
{
    uint32_t step = next_step(v, 0);
    if (v->me != 0) {
        shm_cell *mine = cell_of(v, v->me, step);
        publish_begin(v, mine);
        publish_end(v, step, 1);
        return;
    }
    for (int r = 1; r < v->size; r++) {
        read_begin(v, r, step);
        read_end(v, r, step);
    }
}

static void barrier_release(shm_view *v)
{
    uint32_t step = next_step(v, 0);
    shm_cell *c = cell_of(v, 0, step);
    if (v->me == 0) {
        publish_begin(v, c);
        publish_end(v, step, (unsigned)v->size - 1);
    } else {
        read_begin(v, 0, step);
        read_end(v, 0, step);
    }
}

#define BARRIER_ALL_MAX 8

static void barrier_all(shm_view *v)
{
    uint32_t step = next_step(v, 0);
    shm_cell *mine = cell_of(v, v->me, step);
    publish_begin(v, mine);
    publish_end(v, step, (unsigned)v->size - 1);
    for (int k = 1; k < v->size; k++) {
        int r = (v->me + k) % v->size;
        read_begin(v, r, step);
        read_end(v, r, step);
    }
}

int mp_coll_shm_barrier(mp_comm *comm)
{
    shm_view *v;
    int err = view_all(comm, &v);
    if (err != MPI_SUCCESS)
        return err;
    if (v->size <= BARRIER_ALL_MAX) {
        barrier_all(v);
        return MPI_SUCCESS;
    }
    barrier_arrive(v);
    barrier_release(v);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Bcast: the root packs chunk after chunk into its cells, the others unpack them.            */
/* ------------------------------------------------------------------------------------------ */
static int bcast_view(shm_view *v, void *buf, MPI_Aint count, mp_datatype *dt, int root)
{
    size_t total = mp_datatype_bytes(dt, count), cap = mp_coll_shm_cell_capacity();
    if (v->size == 1)
        return MPI_SUCCESS;
    /* with 3+ members, broadcasts up to SHM_DIRECT_MIN go through the cells (pipelined chunks
     * beat every reader pulling from the root); two members split the single copy instead */
    if (direct_ok(total) && (v->size == 2 || total > SHM_DIRECT_MIN))
        return bcast_direct(v, buf, count, dt, root);
    for (size_t off = 0; off < total; off += cap) {
        size_t len = min_size(cap, total - off);
        uint32_t step = next_step(v, len);
        shm_cell *c = cell_of(v, root, step);
        if (v->me == root) {
            mp_pack(buf, count, dt, off, publish_begin(v, c), len);
            publish_end(v, step, (unsigned)v->size - 1);
        } else {
            mp_unpack(buf, count, dt, off, read_begin(v, root, step), len);
            read_end(v, root, step);
        }
    }
    return MPI_SUCCESS;
}

int mp_coll_shm_bcast(void *buf, MPI_Aint count, mp_datatype *dt, int root, mp_comm *comm)
{
    shm_view *v;
    int err = view_all(comm, &v);
    return err != MPI_SUCCESS ? err : bcast_view(v, buf, count, dt, root);
}

/* ------------------------------------------------------------------------------------------ */
/* Allgather: everyone publishes chunk k of its block, then unpacks chunk k of all others.    */
/* ------------------------------------------------------------------------------------------ */
int mp_coll_shm_allgather(const void *sbuf, MPI_Aint scount, mp_datatype *sdt, void *rbuf,
                          MPI_Aint rcount, mp_datatype *rdt, mp_comm *comm)
{
    shm_view *v;
    int err = view_all(comm, &v);
    if (err != MPI_SUCCESS)
        return err;
    int n = v->size, me = v->me;
    void *my_block = mp_elem(rbuf, me * rcount, rdt);
    size_t total = mp_datatype_bytes(rdt, rcount), cap = mp_coll_shm_cell_capacity();
    if (direct_ok(total))
        return allgather_direct(v, sbuf, scount, sdt, rbuf, rcount, rdt);
    if (sbuf != MPI_IN_PLACE) {
        err = mp_datatype_copy(sbuf, scount, sdt, my_block, rcount, rdt);
        if (err != MPI_SUCCESS)
            return err;
    }
    for (size_t off = 0; off < total; off += cap) {
        size_t len = min_size(cap, total - off);
        uint32_t step = next_step(v, len);
        shm_cell *mine = cell_of(v, me, step);
        mp_pack(my_block, rcount, rdt, off, publish_begin(v, mine), len);
        publish_end(v, step, (unsigned)n - 1);
        for (int k = 1; k < n; k++) {
            int r = (me + k) % n;          /* start at different peers: spread the reads */
            mp_unpack(mp_elem(rbuf, r * rcount, rdt), rcount, rdt, off,
                      read_begin(v, r, step), len);
            read_end(v, r, step);
        }
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* All-to-all (regular, v and w, in the w form: byte displacements, a type per peer).  One    */
/* publication per call: a table with an entry per member giving the length of the block for */
/* it and where it is -- inline in the cell after the table (blocks up to A2A_INLINE_MAX     */
/* while the cell has room), or the address of a packed stream (the send buffer itself when  */
/* the block is contiguous, else one packed copy) that the member pulls with one             */
/* process_vm_readv.  Each member then copies its own block (while the others may already    */
/* pull from it) and fetches the other n-1 in the order me-1, me-2, ...: in every round the  */
/* sources form a permutation, so no two readers pull from one rank at once.  It leaves when */
/* its readers are done with its buffers.  Unlike the pairwise schedule nobody waits for a   */
/* partner between blocks, and no packet is matched.  MPI_IN_PLACE packs every block first,  */
/* since the rank's own fetches overwrite the receive buffer the others would read.          */
/* ------------------------------------------------------------------------------------------ */
#define A2A_INLINE_MAX ((size_t)4096)

enum { A2A_INLINE, A2A_ADDR, A2A_PACK };
typedef struct a2a_entry {
    uint64_t len;                     /* bytes of the block for this member */
    uint64_t where;                   /* A2A_INLINE: offset in the cell; A2A_ADDR: address */
    uint64_t kind;                    /* A2A_INLINE or A2A_ADDR (A2A_PACK while building) */
} a2a_entry;

int mp_coll_shm_alltoall_fits(mp_comm *comm)
{
    return host_tp()->single_copy && host_tp()->read &&
           (size_t)comm->size * sizeof(a2a_entry) <= mp_coll_shm_cell_capacity();
}

/* Fills my table in `cell` (cap bytes); returns the packed copy the A2A_ADDR entries may point
 * into (to free after the readers are done), or NULL. */
static char *a2a_table(const shm_view *v, const mp_a2a_args *x, int in_place, char *cell,
                       size_t cap)
{
    int n = v->size;
    a2a_entry *e = (a2a_entry *)cell;
    const char *base = in_place ? x->rbase : x->sbase;
    const MPI_Aint *c = in_place ? x->rc : x->sc, *d = in_place ? x->rd : x->sd;
    mp_datatype *const *t = in_place ? x->rt : x->st;
    size_t at = (size_t)n * sizeof *e, packed = 0;
    for (int i = 0; i < n; i++) {
        size_t len = i == v->me ? 0 : mp_datatype_bytes(t[i], c[i]);
        e[i].len = len;
        if (len <= A2A_INLINE_MAX && len <= cap - at) {
            e[i].kind = A2A_INLINE;
            e[i].where = at;
            mp_pack(base + d[i], c[i], t[i], 0, cell + at, len);
            at += len;
        } else if (!in_place && t[i]->is_contig) {
            e[i].kind = A2A_ADDR;
            e[i].where = (uint64_t)(uintptr_t)(base + d[i] + t[i]->true_lb);
        } else {
            e[i].kind = A2A_PACK;
            e[i].where = packed;
            packed += len;
        }
    }
    if (packed == 0)
        return NULL;
    char *tmp = mp_malloc(packed);
    for (int i = 0; i < n; i++) {
        if (e[i].kind != A2A_PACK)
            continue;
        mp_pack(base + d[i], c[i], t[i], 0, tmp + e[i].where, e[i].len);
        e[i].where += (uint64_t)(uintptr_t)tmp;
        e[i].kind = A2A_ADDR;
    }
    return tmp;
}

int mp_coll_shm_alltoall(const mp_a2a_args *x, mp_comm *comm)
{
    shm_view *v;
    int err = view_all(comm, &v);
    if (err != MPI_SUCCESS)
        return err;
    int n = v->size, me = v->me, in_place = x->sbase == MPI_IN_PLACE;
    size_t cap = mp_coll_shm_cell_capacity();
    uint32_t step = next_step(v, cap);
    shm_cell *mine = cell_of(v, me, step);
    char *tmp = a2a_table(v, x, in_place, publish_begin(v, mine), cap);
    publish_end(v, step, (unsigned)n - 1);
    if (!in_place)
        err = mp_datatype_copy(x->sbase + x->sd[me], x->sc[me], x->st[me], x->rbase + x->rd[me],
                               x->rc[me], x->rt[me]);
    for (int k = 1; k < n; k++) {
        int r = (me - k + n) % n, e = MPI_SUCCESS;
        char *cell = read_begin(v, r, step);
        const a2a_entry *en = (const a2a_entry *)cell + me;
        void *dst = x->rbase + x->rd[r];
        size_t want = mp_datatype_bytes(x->rt[r], x->rc[r]);
        size_t sent = en->len, len = min_size(sent, want);
        if (en->kind == A2A_INLINE)
            mp_unpack(dst, x->rc[r], x->rt[r], 0, cell + en->where, len);
        else if (len)
            e = pull_bytes(v, r, en->where, dst, x->rc[r], x->rt[r], len);
        read_end(v, r, step);
        if (e == MPI_SUCCESS && sent > want)
            e = MPI_ERR_TRUNCATE;
        if (err == MPI_SUCCESS)
            err = e;
    }
    wait_readers(v, mine);
    free(tmp);
    return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Reduce and allreduce (contiguous types)                                                    */
/* ------------------------------------------------------------------------------------------ */
int mp_coll_shm_reduce_fits(const mp_datatype *dt)
{
    return dt->is_contig && dt->size > 0 && dt->extent == dt->size &&
           (size_t)dt->size <= mp_coll_shm_cell_capacity();
}

/* out = x[0] op (x[1] op (... op x[n-1])) over `cnt` elements, where x[r] is the data of
 * member r's cell at byte offset `at`.  `out` is the address of the first element's data. */
static int fold(const shm_view *v, uint32_t step, size_t at, char *out, MPI_Aint cnt,
                mp_datatype *dt, MPI_Op op)
{
    int err = MPI_SUCCESS;
    MPI_Aint lb = dt->true_lb;
    memcpy(out, data_of(cell_of(v, v->size - 1, step)) + at, (size_t)(cnt * dt->size));
    for (int r = v->size - 2; r >= 0 && err == MPI_SUCCESS; r--)
        err = mp_reduce_local(data_of(cell_of(v, r, step)) + at - lb, out - lb, cnt, dt, op);
    return err;
}

static void wait_all(const shm_view *v, uint32_t step)
{
    for (int k = 1; k < v->size; k++)
        read_begin(v, (v->me + k) % v->size, step);
}

static void done_all(const shm_view *v, uint32_t step)
{
    for (int r = 0; r < v->size; r++)
        if (r != v->me)
            read_end(v, r, step);
}

/* Elements [lo, hi) of segment `seg` of a chunk of m elements cut in n pieces. */
static MPI_Aint seg_lo(MPI_Aint m, int n, int seg)
{
    MPI_Aint q = m / n, r = m % n;
    return seg * q + (seg < r ? seg : r);
}

/* Single copy: publish the input's address; each member pulls its segment of every input and
 * folds it; publish the result segment's address; who wants the result pulls the segments. */
static int reduce_direct(shm_view *v, const void *in, void *rbuf, MPI_Aint count,
                         mp_datatype *dt, MPI_Op op, int root)
{
    int n = v->size, me = v->me, all = root < 0, want = all || me == root, err = MPI_SUCCESS;
    size_t e = (size_t)dt->size, total = (size_t)count * e;
    MPI_Aint lb = dt->true_lb;
    const char *src = (const char *)in + lb;
    char *dst = (char *)rbuf + lb, *in_copy = NULL, *out_tmp = NULL;
    if (want && in == rbuf) {          /* in place: others read my input while I write results */
        in_copy = mp_malloc(total);
        memcpy(in_copy, src, total);
        src = in_copy;
    }
    uint32_t s1 = next_step(v, sizeof(uint64_t)), s2 = next_step(v, sizeof(uint64_t));
    publish_addr(v, s1, src, (unsigned)n - 1);
    MPI_Aint lo = seg_lo(count, n, me), hi = seg_lo(count, n, me + 1);
    size_t seg = (size_t)(hi - lo) * e;
    char *segs = mp_malloc(seg * (size_t)n + 1);
    const char **from = mp_malloc(sizeof(char *) * (size_t)n);
    for (int k = 0; k < n; k++) {
        int r = (me + k) % n;
        if (r == me) {
            from[r] = src + lo * (MPI_Aint)e;
            continue;
        }
        int x = pull(v, r, addr_of(v, r, s1) + (uint64_t)lo * e, segs + (size_t)r * seg, seg);
        read_end(v, r, s1);
        from[r] = segs + (size_t)r * seg;
        if (err == MPI_SUCCESS)
            err = x;
    }
    char *out = want ? dst + lo * (MPI_Aint)e : (out_tmp = mp_malloc(seg + 1));
    if (seg > 0) {
        /* a user's function may look at library state (handles): it runs under the lock */
        int depth = mp_op_is_builtin(op) ? mp_lock_step_out(seg * (size_t)n) : 0;
        memcpy(out, from[n - 1], seg);
        for (int r = n - 2; r >= 0 && err == MPI_SUCCESS; r--)
            err = mp_reduce_local(from[r] - lb, out - lb, hi - lo, dt, op);
        mp_lock_step_in(depth, &mp_stat.unlocked_coll_copies);
    }
    publish_addr(v, s2, out, all ? (unsigned)n - 1 : me == root ? 0 : 1);
    if (want) {
        for (int k = 1; k < n; k++) {
            int r = (me + k) % n;
            MPI_Aint rlo = seg_lo(count, n, r), rhi = seg_lo(count, n, r + 1);
            int x = pull(v, r, addr_of(v, r, s2), dst + rlo * (MPI_Aint)e,
                         (size_t)(rhi - rlo) * e);
            read_end(v, r, s2);
            if (err == MPI_SUCCESS)
                err = x;
        }
    }
    wait_readers(v, cell_of(v, me, s1));
    wait_readers(v, cell_of(v, me, s2));
    free(from);
    free(segs);
    free(out_tmp);
    free(in_copy);
    return err;
}

/* Vectors up to this many bytes are folded whole by every member that needs the result. */
#define SHM_REDUCE_WHOLE 4096

/* root < 0: allreduce.  `in` is this member's input (sbuf, or rbuf for MPI_IN_PLACE). */
static int reduce_view(shm_view *v, const void *in, void *rbuf, MPI_Aint count, mp_datatype *dt,
                       MPI_Op op, int root)
{
    int n = v->size, me = v->me, all = root < 0, want = all || me == root, err = MPI_SUCCESS;
    size_t e = (size_t)dt->size;
    MPI_Aint per = (MPI_Aint)(mp_coll_shm_cell_capacity() / e), lb = dt->true_lb;
    const char *src = (const char *)in + lb;
    char *dst = (char *)rbuf + lb;
    if (n == 1) {
        if (in != rbuf && count > 0)
            memcpy(dst, src, (size_t)count * e);
        return MPI_SUCCESS;
    }
    if (direct_ok(mp_datatype_bytes(dt, count)))
        return reduce_direct(v, in, rbuf, count, dt, op, root);
    int whole = mp_datatype_bytes(dt, count) <= SHM_REDUCE_WHOLE;
    for (MPI_Aint c0 = 0; c0 < count && err == MPI_SUCCESS; c0 += per) {
        MPI_Aint m = count - c0 < per ? count - c0 : per;
        size_t len = (size_t)m * e;
        uint32_t step = next_step(v, len);
        shm_cell *mine = cell_of(v, me, step);
        memcpy(publish_begin(v, mine), src + c0 * (MPI_Aint)e, len);
        if (whole) {                  /* one step: readers fold everything themselves */
            publish_end(v, step, all ? (unsigned)n - 1 : me == root ? 0 : 1);
            if (want) {
                wait_all(v, step);
                err = fold(v, step, 0, dst + c0 * (MPI_Aint)e, m, dt, op);
                done_all(v, step);
            }
            continue;
        }
        /* two steps: fold my segment of everyone's chunk, then gather the segments */
        publish_end(v, step, (unsigned)n - 1);
        MPI_Aint lo = seg_lo(m, n, me), hi = seg_lo(m, n, me + 1);
        uint32_t step2 = next_step(v, len);
        shm_cell *mine2 = cell_of(v, me, step2);
        char *out = publish_begin(v, mine2);
        wait_all(v, step);
        if (hi > lo)
            err = fold(v, step, (size_t)lo * e, out, hi - lo, dt, op);
        done_all(v, step);
        publish_end(v, step2, all ? (unsigned)n - 1 : me == root ? 0 : 1);
        if (!want)
            continue;
        for (int k = 0; k < n; k++) {
            int r = (me + k) % n;
            MPI_Aint rlo = seg_lo(m, n, r), rhi = seg_lo(m, n, r + 1);
            const char *seg = r == me ? out : read_begin(v, r, step2);
            memcpy(dst + (c0 + rlo) * (MPI_Aint)e, seg, (size_t)(rhi - rlo) * e);
            if (r != me)
                read_end(v, r, step2);
        }
    }
    return err;
}

int mp_coll_shm_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt,
                          MPI_Op op, mp_comm *comm)
{
    shm_view *v;
    int err = view_all(comm, &v);
    if (err != MPI_SUCCESS)
        return err;
    return reduce_view(v, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, -1);
}

int mp_coll_shm_reduce(const void *sbuf, void *rbuf, MPI_Aint count, mp_datatype *dt,
                       MPI_Op op, int root, mp_comm *comm)
{
    shm_view *v;
    int err = view_all(comm, &v);
    if (err != MPI_SUCCESS)
        return err;
    return reduce_view(v, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, root);
}

/* ------------------------------------------------------------------------------------------ */
/* The node-local halves of the node-aware algorithms (members = the ranks of my node, in     */
/* node order; member 0 is the node leader).                                                  */
/* ------------------------------------------------------------------------------------------ */
int mp_coll_shm_node_arrive(mp_comm *comm)
{
    shm_view *v;
    int err = view_node(comm, &v);
    if (err == MPI_SUCCESS && v->size > 1)
        barrier_arrive(v);
    return err;
}

int mp_coll_shm_node_release(mp_comm *comm)
{
    shm_view *v;
    int err = view_node(comm, &v);
    if (err == MPI_SUCCESS && v->size > 1)
        barrier_release(v);
    return err;
}

int mp_coll_shm_node_bcast(void *buf, MPI_Aint count, mp_datatype *dt, int member,
                           mp_comm *comm)
{
    shm_view *v;
    int err = view_node(comm, &v);
    return err != MPI_SUCCESS ? err : bcast_view(v, buf, count, dt, member);
}

int mp_coll_shm_node_reduce(const void *in, void *out, MPI_Aint count, mp_datatype *dt,
                            MPI_Op op, mp_comm *comm)
{
    shm_view *v;
    int err = view_node(comm, &v);
    return err != MPI_SUCCESS ? err : reduce_view(v, in, out, count, dt, op, 0);
}

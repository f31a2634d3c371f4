/* comm.c -- communicator creation and destruction: dup, split, create, free.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Every constructor has the same three steps:
 *   1. learn who the members are (split: exchange (color, key) with mp_xfer_allgather),
 *   2. get a context id (context.c): dup, idup, split and create -- collective over all of
 *      the parent -- take the next id of the parent's pool, with no message unless the pool
 *      needs a refill; create_group, whose callers are only the group's members, runs an
 *      agreement among them,
 *   3. build the object over the members' world ranks (mp_comm_build), inheriting the
 *      parent's error handler.
 * Steps 1 and 2 run on the parent's collective context with tags of the comm layer, so they
 * never interfere with user traffic or with the collective layer (whose tags stay below
 * MP_TAG_COMM_BASE).  Processes that end up outside the new communicator (color
 * MPI_UNDEFINED, not in the group) take the id like the others, to keep the pool in step, and
 * give it back.
 *
 * Communicators that differ only in color share one context id: their members are disjoint,
 * so messages can never be confused, and ids last longer.
 *
 * MPI_Comm_idup builds the new object at once (so attributes can be copied at the call, as
 * the standard says) with no context id, and completes it from the callback of the
 * nonblocking take (context.c): at once when the pool has the id, else from the progress
 * engine when the refill ends.
 *
 * Intercommunicators are in intercomm.c; freeing one also frees its hidden local
 * intracommunicator, which is remembered per context id in inter_local[].
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>

static mp_comm **inter_local;         /* ctx id -> hidden local comm of an intercommunicator */

/* A communicator's own send buffer goes with it (its messages are waited for first). */
static void free_bbuf(mp_comm *comm)
{
    mp_bbuf_free(comm->bbuf);
    comm->bbuf = NULL;
}

int mp_comm_layer_init(void)
{
    mp_comm_on_release(free_bbuf);
    mp_ctx_init();
    mp_errhandler_layer_init();
    inter_local = mp_calloc(MP_CTX_IDS, sizeof(mp_comm *));
    if (mp_world.comm_world && !mp_world.comm_world->name[0])
        strcpy(mp_world.comm_world->name, "MPI_COMM_WORLD");
    if (mp_world.comm_self && !mp_world.comm_self->name[0])
        strcpy(mp_world.comm_self->name, "MPI_COMM_SELF");
    return MPI_SUCCESS;
}

void mp_comm_layer_finalize(void)
{
    mp_comm *self = mp_world.comm_self, *world = mp_world.comm_world;
    if (self)
        mp_attr_delete_all(MP_OBJ_COMM, MPI_COMM_SELF, &self->attrs);
    if (world)
        mp_attr_delete_all(MP_OBJ_COMM, MPI_COMM_WORLD, &world->attrs);
    free(inter_local);
    inter_local = NULL;
}

void mp_intercomm_set_local(mp_comm *inter, mp_comm *local)
{
    inter_local[inter->ctx / 2] = local;
}

mp_comm *mp_intercomm_local(mp_comm *inter)
{
    return inter->is_inter && inter_local ? inter_local[inter->ctx / 2] : NULL;
}

mp_comm *mp_comm_build(mp_comm *parent, int ctx, int size, int rank, int *world)
{
    mp_comm *c = mp_comm_new(ctx, size, rank, world);
    if (parent) {
        c->errhandler = parent->errhandler;
        mp_errhandler_retain(c->errhandler);
        c->session_bbuf = parent->session_bbuf;   /* derived communicators stay the session's */
    }
    c->handle = mp_table_insert(&mp_comm_table, c);
    return c;
}

static int *copy_ints(const int *src, int n)
{
    int *dst = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (n)
        memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

/* An id from comm's pool (context.c) for a creation collective over all of comm; a process
 * that gets no communicator (claim == 0) gives it back at once. */
static int take_one(mp_comm *comm, int claim, int *ctx)
{
    int err = mp_ctx_take(comm, 1, ctx);
    if (!err && !claim)
        mp_ctx_release(*ctx);
    return err;
}

int mp_comm_dup_internal(mp_comm *comm, mp_comm **out)
{
    if (comm->is_inter)
        return mp_intercomm_dup(comm, out);
    int ctx, err;
    if ((err = take_one(comm, 1, &ctx)))
        return err;
    *out = mp_comm_build(comm, ctx, comm->size, comm->rank, copy_ints(comm->world, comm->size));
    if (!(*out)->handle) {
        mp_comm_free_internal(*out);
        return mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    }
    return MPI_SUCCESS;
}

/* Nonblocking duplication. */
typedef struct idup_op {
    mp_comm *newc;
    mp_request *req;                  /* NULL: the caller gave up (see mp_comm_idup_start) */
} idup_op;

mp_comm *mp_comm_idup_prepare(mp_comm *comm)
{
    mp_comm *c = mp_comm_build(comm, -1, comm->size, comm->rank,
                               copy_ints(comm->world, comm->size));
    if (comm->is_inter) {
        c->is_inter = 1;
        c->remote_size = comm->remote_size;
        c->remote_group = mp_group_create(comm->remote_size,
                                          copy_ints(comm->remote_world, comm->remote_size));
        c->remote_world = c->remote_group->world;
    }
    return c;
}

static void idup_done(void *arg, int err, const int *ctx)
{
    idup_op *op = arg;
    mp_request *req = op->req;
    mp_comm *c = op->newc;
    c->ctx = ctx[0];
    if (!err && c->is_inter) {        /* the hidden local communicator, as in intercomm.c */
        mp_comm *lc = mp_comm_new(ctx[1], c->size, c->rank, copy_ints(c->world, c->size));
        mp_intercomm_set_local(c, lc);
    }
    if (err || !req)
        mp_comm_free_internal(c);     /* releases the ids, if they were claimed */
    if (req) {
        mp_status_empty(&req->status);
        req->status.MPI_ERROR = err;
        mp_request_complete(req);
    }
    free(op);
}

int mp_comm_idup_start(mp_comm *comm, mp_comm *newc, mp_request **req)
{
    mp_comm *local = comm->is_inter ? mp_intercomm_local(comm) : NULL;
    if (comm->is_inter && !local)
        return mp_error_code(MPI_ERR_INTERN, "intercommunicator without a local communicator");
    idup_op *op = mp_malloc(sizeof *op);
    int err = MPI_SUCCESS;
    op->newc = newc;
    op->req = req ? mp_request_alloc(MP_REQ_COLL) : NULL;
    if (req && !op->req)              /* still take part, as with req == NULL */
        err = mp_error_code(MPI_ERR_INTERN, "nonblocking collective: out of requests");
    if (op->req) {
        op->req->comm = comm;
        *req = op->req;
    }
    mp_ctx_take_start(comm, local ? 2 : 1, idup_done, op);
    return err;
}

typedef struct split_item { int color, key, rank; } split_item;

static int split_order(const void *a, const void *b)
{
    const split_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int mp_comm_split_internal(mp_comm *comm, int color, int key, mp_comm **out)
{
    *out = NULL;
    int n = comm->size, err, ctx;
    int *ranks = mp_xfer_all_ranks(n);
    split_item mine = { color, key, comm->rank };
    split_item *all = mp_malloc(sizeof(split_item) * (size_t)n);
    err = mp_xfer_allgather(comm, ranks, n, comm->rank, MP_TAG_SPLIT, &mine, sizeof mine, all);
    if (!err)
        err = take_one(comm, color != MPI_UNDEFINED, &ctx);
    free(ranks);
    if (err || color == MPI_UNDEFINED) {
        free(all);
        return err;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (all[i].color == color)
            all[m++] = all[i];
    qsort(all, (size_t)m, sizeof *all, split_order);
    int *world = mp_malloc(sizeof(int) * (size_t)m);
    int rank = 0;
    for (int i = 0; i < m; i++) {
        world[i] = comm->world[all[i].rank];
        if (all[i].rank == comm->rank)
            rank = i;
    }
    free(all);
    *out = mp_comm_build(comm, ctx, m, rank, world);
    if (!(*out)->handle) {
        mp_comm_free_internal(*out);
        *out = NULL;
        return mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    }
    return MPI_SUCCESS;
}

/* MPI_Comm_create on an intracommunicator: collective over comm, members of g get the new
 * communicator (ranks in g's order). */
int mp_comm_create_internal(mp_comm *comm, mp_group *g, mp_comm **out)
{
    int ctx, err;
    *out = NULL;
    int member = g->rank != MPI_UNDEFINED;
    if ((err = take_one(comm, member, &ctx)) || !member)
        return err;
    *out = mp_comm_build(comm, ctx, g->size, g->rank, copy_ints(g->world, g->size));
    if (!(*out)->handle) {
        mp_comm_free_internal(*out);
        *out = NULL;
        return mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    }
    return MPI_SUCCESS;
}

/* MPI_Comm_create_group: collective over the members of g only (this process is one). */
int mp_comm_create_group_internal(mp_comm *comm, mp_group *g, int tag, mp_comm **out)
{
    int ctx, err;
    *out = NULL;
    int *map = mp_group_world_map(mp_comm_local_group(comm));
    int *ranks = mp_malloc(sizeof(int) * (size_t)g->size);
    for (int i = 0; i < g->size; i++)
        ranks[i] = map[g->world[i]];
    free(map);
    err = mp_ctx_agree(comm, ranks, g->size, g->rank,
                       MP_TAG_GROUP_CREATE + (int)((unsigned)tag & 0xffffu), 1, &ctx);
    free(ranks);
    if (err)
        return err;
    *out = mp_comm_build(comm, ctx, g->size, g->rank, copy_ints(g->world, g->size));
    if (!(*out)->handle) {
        mp_comm_free_internal(*out);
        *out = NULL;
        return mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    }
    return MPI_SUCCESS;
}

int mp_comm_free_internal(mp_comm *comm)
{
    int err = mp_attr_delete_all(MP_OBJ_COMM, comm->handle, &comm->attrs);
    if (err)
        return err;
    mp_errhandler_release(comm->errhandler);
    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    mp_info_free_handle(comm->info);
    comm->info = MPI_INFO_NULL;
    if (comm->topo) {
        mp_topo_free(comm->topo);
        comm->topo = NULL;
    }
    if (comm->is_inter) {
        mp_comm *local = mp_intercomm_local(comm);
        inter_local[comm->ctx / 2] = NULL;
        if (local) {
            mp_ctx_release(local->ctx);
            mp_comm_release(local);
        }
    }
    mp_ctx_release(comm->ctx);
    if (comm->handle) {
        mp_table_remove(&mp_comm_table, comm->handle);
        comm->handle = 0;
    }
    mp_comm_release(comm);
    return MPI_SUCCESS;
}

/* Same members in the same order (world ranks). */
static int same_order(int n, const int *a, const int *b)
{
    return n == 0 || memcmp(a, b, sizeof(int) * (size_t)n) == 0;
}

static int same_members(int n, const int *a, const int *b)
{
    if (same_order(n, a, b))
        return 1;
    int *sa = copy_ints(a, n), *sb = copy_ints(b, n);
    for (int i = 1; i < n; i++)       /* insertion sorts: small inputs, no callback needed */
        for (int j = i; j > 0 && sa[j - 1] > sa[j]; j--) {
            int t = sa[j]; sa[j] = sa[j - 1]; sa[j - 1] = t;
        }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sb[j - 1] > sb[j]; j--) {
            int t = sb[j]; sb[j] = sb[j - 1]; sb[j - 1] = t;
        }
    int same = memcmp(sa, sb, sizeof(int) * (size_t)n) == 0;
    free(sa);
    free(sb);
    return same;
}

int mp_comm_compare_internal(mp_comm *a, mp_comm *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->is_inter != b->is_inter || a->size != b->size ||
        (a->is_inter && a->remote_size != b->remote_size))
        return MPI_UNEQUAL;
    int ordered = same_order(a->size, a->world, b->world) &&
                  (!a->is_inter || same_order(a->remote_size, a->remote_world, b->remote_world));
    if (ordered)
        return MPI_CONGRUENT;
    int similar = same_members(a->size, a->world, b->world) &&
                  (!a->is_inter || same_members(a->remote_size, a->remote_world, b->remote_world));
    return similar ? MPI_SIMILAR : MPI_UNEQUAL;
}

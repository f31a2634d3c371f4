/* intercomm.c -- intercommunicators: create, dup, merge.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * An intercommunicator has one context id used in both directions, so the id must be free in
 * both groups.  MPI_Intercomm_create(_from_groups) runs one agreement (context.c,
 * mp_ctx_agree_bridged) over both groups' trees, each over an intracommunicator of the local
 * group ("local"), joined at their leaders by a bridge (the peer communicator, or
 * MPI_COMM_WORLD for MPI_Intercomm_create_from_groups).  Everything created from an existing
 * intercommunicator -- dup, idup, merge, split, create -- is collective over both its groups,
 * so it takes its ids from the intercommunicator's pool (context.c), whose refills run the
 * same kind of agreement bridged by the intercommunicator itself.
 *
 * Each intercommunicator also gets a hidden intracommunicator over its local group, which
 * later dup and merge operations and the collective layer use for local steps
 * (mp_intercomm_local); its id comes with the intercommunicator's (free in both groups, whose
 * members are disjoint, so both sides' hidden communicators can share it).
 *
 * Leaders also exchange the world ranks of their groups (create; a dup copies them), and for
 * merge the "high" flags.
 *
 * Split and create on an intercommunicator (mp_intercomm_subset) need no new machinery:
 * each group gathers its members' (color, key) over its hidden local communicator, the
 * leaders swap the two lists, and two ids from the pool serve every resulting
 * intercommunicator (they have disjoint members, as the parts of an intracommunicator split
 * share one id).  A process keeps the ids only if it gets a communicator: its color is not
 * MPI_UNDEFINED and the other group has members of that color.  MPI_Comm_create is the
 * special case color = "in my side's group", key = rank in it.
 * The merged group puts the low group first; with equal flags the group whose leader comes
 * first in the order of all processes (mp_procs_before: world rank within one job) goes
 * first, so both sides agree.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>

typedef mp_ctx_bridge bridge;

int *mp_comm_leader_first(mp_comm *local, int leader, int *me)
{
    int n = local->size, k = 1;
    int *ranks = mp_malloc(sizeof(int) * (size_t)n);
    ranks[0] = leader;
    for (int r = 0; r < n; r++)
        if (r != leader)
            ranks[k++] = r;
    for (int i = 0; i < n; i++)
        if (ranks[i] == local->rank)
            *me = i;
    return ranks;
}

/* Leaders swap an int array; then every member of the local group receives it. */
static int inter_swap(mp_comm *local, const int *ranks, int me, const bridge *b,
                      const int *send, int nsend, int **recv, int *nrecv)
{
    int err = MPI_SUCCESS, n = 0;
    if (me == 0)
        err = mp_xfer_exchange(b->comm, b->peer, b->tag, b->offset, &nsend, &n, sizeof(int));
    if (!err)
        err = mp_xfer_bcast(local, ranks, local->size, me, MP_TAG_INTER, &n, sizeof n);
    if (err)
        return err;
    int *buf = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (me == 0) {
        mp_datatype *bytes = mp_datatype_get(MPI_BYTE);
        err = mp_sendrecv(send, (MPI_Aint)(sizeof(int) * (size_t)nsend), bytes, b->peer, b->tag,
                          buf, (MPI_Aint)(sizeof(int) * (size_t)n), bytes, b->peer, b->tag,
                          b->comm, b->offset, MPI_STATUS_IGNORE);
    }
    if (!err)
        err = mp_xfer_bcast(local, ranks, local->size, me, MP_TAG_INTER, buf,
                            sizeof(int) * (size_t)n);
    if (err) {
        free(buf);
        return err;
    }
    *recv = buf;
    *nrecv = n;
    return MPI_SUCCESS;
}

static int *copy_ints(const int *src, int n)
{
    int *dst = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (n)
        memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

/* Builds the intercommunicator and its hidden local communicator. */
static mp_comm *inter_build(mp_comm *parent, mp_comm *local, const int *ctx, int *remote,
                            int nremote)
{
    mp_comm *lc = mp_comm_new(ctx[1], local->size, local->rank,
                              copy_ints(local->world, local->size));
    mp_comm *ic = mp_comm_build(parent, ctx[0], local->size, local->rank,
                                copy_ints(local->world, local->size));
    ic->is_inter = 1;
    ic->remote_size = nremote;
    ic->remote_group = mp_group_create(nremote, remote);
    ic->remote_world = ic->remote_group->world;
    mp_intercomm_set_local(ic, lc);
    return ic;
}

mp_comm *mp_intercomm_build(mp_comm *comm, const int *ctx, const int *remote, int n)
{
    return inter_build(comm, comm, ctx, copy_ints(remote, n), n);
}

static int built(mp_comm **out)
{
    if (!(*out)->handle) {
        mp_comm_free_internal(*out);
        *out = NULL;
        return mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    }
    return MPI_SUCCESS;
}

/* Ids by an agreement over both groups, the leaders swap the world ranks of their groups,
 * and the intercommunicator is built. */
static int intercomm_create(mp_comm *local, int local_leader, const bridge *b, mp_comm **out)
{
    int me = 0, ctx[2], *remote = NULL, nremote = 0, err;
    int *ranks = mp_comm_leader_first(local, local_leader, &me);
    err = mp_ctx_agree_bridged(local, ranks, me, MP_TAG_INTER, b, 2, ctx);
    if (!err && (err = inter_swap(local, ranks, me, b, local->world, local->size, &remote,
                                  &nremote))) {
        mp_ctx_release(ctx[0]);
        mp_ctx_release(ctx[1]);
    }
    free(ranks);
    if (err)
        return err;
    *out = inter_build(local, local, ctx, remote, nremote);
    return built(out);
}

int mp_intercomm_create(mp_comm *local, int local_leader, mp_comm *peer, int remote_leader,
                        int tag, mp_comm **out)
{
    bridge b = { peer, remote_leader, tag, MP_CTX_PT2PT };
    return intercomm_create(local, local_leader, &b, out);
}

/* Both groups stay: the ids come from the intercommunicator's pool, nothing is exchanged. */
int mp_intercomm_dup(mp_comm *inter, mp_comm **out)
{
    mp_comm *local = mp_intercomm_local(inter);
    if (!local)
        return mp_error_code(MPI_ERR_INTERN, "intercommunicator without a local communicator");
    int ctx[2], err = mp_ctx_take(inter, 2, ctx);
    if (err)
        return err;
    *out = inter_build(inter, local, ctx, copy_ints(inter->remote_world, inter->remote_size),
                       inter->remote_size);
    return built(out);
}

int mp_intercomm_merge(mp_comm *inter, int high, mp_comm **out)
{
    mp_comm *local = mp_intercomm_local(inter);
    if (!local)
        return mp_error_code(MPI_ERR_INTERN, "intercommunicator without a local communicator");
    int me = 0, err, ctx[1];
    int *ranks = mp_comm_leader_first(local, 0, &me);
    bridge b = { inter, 0, MP_TAG_MERGE, MP_CTX_COLL };
    int info[2] = { high ? 1 : 0, 0 }, *rinfo = NULL, n = 0;
    err = inter_swap(local, ranks, me, &b, info, 2, &rinfo, &n);
    if (!err)
        err = mp_ctx_take(inter, 1, ctx);
    free(ranks);
    if (err) {
        free(rinfo);
        return err;
    }
    /* equal flags: the leaders' order (the same at both sides, also across jobs) */
    int local_first = info[0] != rinfo[0] ? info[0] < rinfo[0]
                                          : mp_procs_before(local->world[0], inter->remote_world[0]);
    free(rinfo);
    int size = inter->size + inter->remote_size;
    int *world = mp_malloc(sizeof(int) * (size_t)size);
    int off_local = local_first ? 0 : inter->remote_size;
    int off_remote = local_first ? inter->size : 0;
    memcpy(world + off_local, inter->world, sizeof(int) * (size_t)inter->size);
    memcpy(world + off_remote, inter->remote_world, sizeof(int) * (size_t)inter->remote_size);
    *out = mp_comm_build(inter, ctx[0], size, off_local + inter->rank, world);
    return built(out);
}

/* ---------------------------------------------------------------------------------------------
 * Split and create on intercommunicators
 * ------------------------------------------------------------------------------------------- */
typedef struct member {
    int color, key, rank;             /* rank: in the side's group (sort tie-break) */
} member;

static int member_order(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The members of one side with color `color`, ordered by (key, rank), as world ranks;
 * *pos = index of side rank `rank` in the result (if present). */
static int *pick(const member *all, int n, const int *world, int color, int rank, int *count,
                 int *pos)
{
    member *m = mp_malloc(sizeof(member) * (size_t)(n ? n : 1));
    int k = 0;
    for (int i = 0; i < n; i++)
        if (all[i].color == color)
            m[k++] = all[i];
    qsort(m, (size_t)k, sizeof *m, member_order);
    int *w = mp_malloc(sizeof(int) * (size_t)(k ? k : 1));
    for (int i = 0; i < k; i++) {
        w[i] = world[m[i].rank];
        if (m[i].rank == rank)
            *pos = i;
    }
    free(m);
    *count = k;
    return w;
}

int mp_intercomm_subset(mp_comm *inter, int color, int key, mp_comm **out)
{
    *out = NULL;
    mp_comm *local = mp_intercomm_local(inter);
    if (!local)
        return mp_error_code(MPI_ERR_INTERN, "intercommunicator without a local communicator");
    int n = local->size, me = 0, err, nr = 0, *flat = NULL;
    int *ranks = mp_comm_leader_first(local, 0, &me);
    member mine = { color, key, local->rank };
    member *all = mp_malloc(sizeof(member) * (size_t)n);
    bridge b = { inter, 0, MP_TAG_SPLIT, MP_CTX_COLL };
    err = mp_xfer_allgather(local, ranks, n, me, MP_TAG_INTER, &mine, sizeof mine, all);
    if (!err)
        err = inter_swap(local, ranks, me, &b, (const int *)all, 3 * n, &flat, &nr);
    int m = nr / 3, partner = 0;
    const member *remote = (const member *)flat;
    for (int i = 0; !err && color != MPI_UNDEFINED && i < m; i++)
        if (remote[i].color == color)
            partner = 1;
    int ctx[2];
    if (!err && !(err = mp_ctx_take(inter, 2, ctx)) && !partner) {
        mp_ctx_release(ctx[0]);       /* taken to keep the pool in step (context.c) */
        mp_ctx_release(ctx[1]);
    }
    free(ranks);
    if (err || !partner) {
        free(all);
        free(flat);
        return err;
    }
    int lsize, rsize, lrank = 0, dummy;
    int *lworld = pick(all, n, inter->world, color, local->rank, &lsize, &lrank);
    int *rworld = pick(remote, m, inter->remote_world, color, -1, &rsize, &dummy);
    free(all);
    free(flat);
    mp_comm *lc = mp_comm_new(ctx[1], lsize, lrank, copy_ints(lworld, lsize));
    mp_comm *ic = mp_comm_build(inter, ctx[0], lsize, lrank, lworld);
    ic->is_inter = 1;
    ic->remote_size = rsize;
    ic->remote_group = mp_group_create(rsize, rworld);
    ic->remote_world = ic->remote_group->world;
    mp_intercomm_set_local(ic, lc);
    if (!ic->handle) {
        mp_comm_free_internal(ic);
        return mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    }
    *out = ic;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Creation from groups (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups).
 * MemPI has no sessions, so every group is a set of MPI_COMM_WORLD's processes: the id
 * agreement runs among the group's members over MPI_COMM_WORLD's collective context, and
 * the two leaders of an intercommunicator meet there too.  The tag is a hash of stringtag in
 * a range of its own; the standard makes stringtag unique among concurrent creations, and the
 * internal exchanges name their sources, so creations over disjoint groups cannot mix.
 * ------------------------------------------------------------------------------------------- */
static int stringtag_tag(const char *s)
{
    uint32_t h = 2166136261u;                 /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return MP_TAG_FROM_GROUP + (int)((h ^ (h >> 16)) & 0xffffu);
}

int mp_comm_from_group(mp_group *g, const char *stringtag, mp_comm **out)
{
    mp_comm *world = mp_world.comm_world;
    int ctx, err;
    *out = NULL;
    /* world ranks are MPI_COMM_WORLD ranks */
    err = mp_ctx_agree(world, g->world, g->size, g->rank, stringtag_tag(stringtag), 1, &ctx);
    if (err)
        return err;
    *out = mp_comm_build(world, ctx, g->size, g->rank, copy_ints(g->world, g->size));
    return built(out);
}

int mp_intercomm_from_groups(mp_group *local_group, int local_leader, mp_group *remote_group,
                             int remote_leader, const char *stringtag, mp_comm **out)
{
    mp_comm *local;
    int err = mp_comm_from_group(local_group, stringtag, &local);
    if (err)
        return err;
    bridge b = { mp_world.comm_world, remote_group->world[remote_leader],
                 stringtag_tag(stringtag), MP_CTX_COLL };
    err = intercomm_create(local, local_leader, &b, out);
    int ferr = mp_comm_free_internal(local);
    return err ? err : ferr;
}

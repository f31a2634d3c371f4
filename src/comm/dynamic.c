/* dynamic.c -- connecting two groups of processes of different jobs into an intercommunicator.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Comm_accept/connect, MPI_Comm_spawn's two sides and MPI_Comm_join all end here
 * (mp_dyn_connect): each side is a communicator and a root, and the two roots can already
 * exchange bytes (a stream socket that the caller opened; only the root uses it, and only
 * through the caller's `io` function, called without the big lock, since it blocks).  Steps:
 *
 *   1. the roots swap a hello (group size, a nonce) and broadcast what they got, so both
 *      groups know the other's size (an I/O failure is broadcast too: nobody waits forever);
 *   2. every process creates its inbox for the other group (transport.h, mp_conn_*) and the
 *      groups gather their processes' descriptions -- job id, rank in that job, host
 *      identity, inbox name -- which the roots swap and broadcast;
 *   3. every process looks each remote process up in the process table (core/procs.c) and,
 *      if it is new, adds it and attaches a channel to it: shared memory on the same host;
 *      to a process of another job on another host, the network transport.  For those the
 *      groups swap a second record per process (same gather/swap/broadcast): its network
 *      address (a job on one host opens its endpoint here, at its first such peer) and its
 *      ids of the other group's processes, which its packets carry as their source, since
 *      each job numbers processes its own way.  Receive buffers for a new network peer are
 *      posted before the address goes out, so its first packets always find room.  A
 *      process already known (same job, or an earlier connection) keeps its id and channel;
 *   4. one context-id agreement over both groups (context.c, mp_ctx_agree_bridged), its two
 *      trees joined by a bridge between the roots: an intercommunicator {root} x {other root}
 *      on a wire context that no communicator ever gets (MP_CTX_DYN_BRIDGE), with a tag both
 *      roots derive from the two nonces;
 *   5. the intercommunicator is built, and a closing handshake (local gather, roots swap,
 *      local broadcast) tells every process that everyone attached: each closes the means of
 *      opening its inbox (mp_conn_inbox_done, also on every error path; the inbox never has
 *      a name in /dev/shm, see transport/shm/conn.c, so a process killed anywhere in here
 *      leaves nothing behind).
 * Every decision (sizes, "another host", errors of the exchange) is computed from data that
 * both groups hold in full, so both reach the same verdict and neither waits for the other.
 *
 * Foreign processes of one (job, host) share a node id of their own (mp_procs_new_node), so
 * collectives never look for them in this node's segment.
 */
#include "comm/comm.h"
#include "transport/transport.h"
#include <stdlib.h>
#include <string.h>

#define DYN_MAGIC 0x4d50444eu         /* "MPDN" */
#define HOST_MAX 192

typedef struct hello {
    uint32_t magic;
    int32_t size;                     /* the group's size; -1: the root failed */
    int32_t root;                     /* the root's rank in its group */
    int32_t pad;
    uint64_t nonce;
} hello;

typedef struct desc {
    char job[MP_JOB_ID_MAX];
    int32_t rank;                     /* in its job's MPI_COMM_WORLD */
    int32_t pad;
    char host[HOST_MAX];
    char inbox[MP_SHARED_NAME_MAX];
} desc;

typedef struct shared {               /* what the root broadcasts after the swap */
    int32_t status;                   /* MPI_SUCCESS or an error class */
    int32_t tag;                      /* of the bridge */
    int32_t pad[2];
} shared;

/* Node ids of foreign (job, host) pairs. */
typedef struct foreign_node {
    char job[MP_JOB_ID_MAX], host[HOST_MAX];
    int node;
} foreign_node;
static foreign_node *fnodes;
static int nfnodes;

static int node_for(const desc *d)
{
    for (int i = 0; i < nfnodes; i++)
        if (strcmp(fnodes[i].job, d->job) == 0 && strcmp(fnodes[i].host, d->host) == 0)
            return fnodes[i].node;
    fnodes = mp_realloc(fnodes, sizeof *fnodes * (size_t)(nfnodes + 1));
    foreign_node *f = &fnodes[nfnodes++];
    memcpy(f->job, d->job, sizeof f->job);
    memcpy(f->host, d->host, sizeof f->host);
    f->node = mp_procs_new_node();
    return f->node;
}

static uint32_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* The root's socket exchange, without the big lock (it blocks on the other job). */
static int root_io(mp_dyn_io *io, void *arg, const void *out, size_t nout, void *in, size_t nin)
{
    int depth = mp_lock_release();
    int err = io(arg, out, nout, in, nin);
    mp_lock_reacquire(depth);
    return err;
}

/* A bridge {me} x {remote root}: point-to-point only, on the reserved context. */
static mp_comm *bridge_new(int remote_root)
{
    int *me = mp_malloc(sizeof(int)), *peer = mp_malloc(sizeof(int));
    *me = mp_world.rank;
    *peer = remote_root;
    mp_comm *b = mp_comm_new(MP_CTX_DYN_BRIDGE, 1, 0, me);
    b->is_inter = 1;
    b->remote_size = 1;
    b->remote_group = mp_group_create(1, peer);
    b->remote_world = b->remote_group->world;
    return b;
}

/* 1 if the processes described by a and b are of different jobs on different hosts. */
static int apart(const desc *a, const desc *b)
{
    return strcmp(a->job, b->job) != 0 && strcmp(a->host, b->host) != 0;
}

/* 1 if some pair (local, remote) of different jobs lives on different hosts. */
static int crosses_hosts(const desc *a, int na, const desc *b, int nb)
{
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (apart(&a[i], &b[j]))
                return 1;
    return 0;
}

/* Every process's record of `size` bytes goes to every process of both groups: gathered
 * (kept in rank order in local[]), swapped by the roots, broadcast (remote[], nremote records
 * of rsize bytes).  `sh` is the root's, broadcast with the outcome (sh->status). */
static int swap_records(mp_comm *comm, const int *ranks, int me, mp_dyn_io *io, void *arg,
                        int io_class, const void *mine, size_t size, void *local,
                        void *remote, size_t rsize, int nremote, shared *sh)
{
    int n = comm->size;
    char *gathered = mp_malloc(size * (size_t)n);
    int err = mp_xfer_allgather(comm, ranks, n, me, MP_TAG_DYN, mine, size, gathered);
    for (int i = 0; i < n && !err; i++)
        memcpy((char *)local + size * (size_t)ranks[i], gathered + size * (size_t)i, size);
    free(gathered);
    if (err)
        return err;
    if (me == 0 && root_io(io, arg, local, size * (size_t)n, remote, rsize * (size_t)nremote))
        sh->status = io_class;
    if ((err = mp_xfer_bcast(comm, ranks, n, me, MP_TAG_DYN, sh, sizeof *sh)) ||
        (!sh->status && (err = mp_xfer_bcast(comm, ranks, n, me, MP_TAG_DYN, remote,
                                             rsize * (size_t)nremote))))
        return err;
    return sh->status ? mp_error_code(sh->status, "the exchange of process descriptions with "
                                      "the other group's root failed") : MPI_SUCCESS;
}

/* What a process tells the other group when the groups span hosts: its network address
 * (len 0: it needs none, -1: it could not open one) and its ids of the other group's
 * processes (nids of them follow), which the other group's packets carry as their source. */
typedef struct netrec {
    int32_t len;
    int32_t pad;
    unsigned char addr[MP_NET_ADDRESS_MAX];
    int32_t ids[];
} netrec;

#define NETREC(base, size, i) ((netrec *)((char *)(base) + (size) * (size_t)(i)))

/* Processes of other jobs on other hosts: network addresses and ids both ways, then every
 * such new peer is reached through the network transport.  Collective over both groups;
 * every decision is made from records that both groups hold in full. */
static int attach_over_network(mp_comm *comm, const int *ranks, int me, mp_dyn_io *io,
                               void *arg, int io_class, const desc *local, const desc *remote,
                               int nremote, const int *ids, const char *fresh)
{
    int n = comm->size, err = MPI_SUCCESS, need = 0;
    for (int j = 0; j < nremote; j++)
        need |= fresh[j] && apart(&local[comm->rank], &remote[j]);
    size_t size = sizeof(netrec) + sizeof(int32_t) * (size_t)nremote;
    size_t rsize = sizeof(netrec) + sizeof(int32_t) * (size_t)n;
    netrec *mine = mp_calloc(1, size);
    char *lrec = mp_calloc((size_t)n, size), *rrec = mp_calloc((size_t)nremote, rsize);
    int len = 0;
    if (need && (mp_net_address(mine->addr, &len) != MPI_SUCCESS || len <= 0))
        len = -1;
    mine->len = len;
    for (int j = 0; j < nremote; j++) {
        mine->ids[j] = ids[j];
        if (len > 0 && fresh[j] && apart(&local[comm->rank], &remote[j]) &&
            mp_net_prepare(ids[j]) != MPI_SUCCESS)
            mine->len = -1;
    }
    shared sh = { MPI_SUCCESS, 0, { 0, 0 } };
    err = swap_records(comm, ranks, me, io, arg, io_class, mine, size, lrec, rrec, rsize,
                       nremote, &sh);
    /* Every pair apart needs both addresses: a failure anywhere fails everyone. */
    for (int i = 0; i < n && !err; i++)
        for (int j = 0; j < nremote && !err; j++)
            if (apart(&local[i], &remote[j]) &&
                (NETREC(lrec, size, i)->len < 0 || NETREC(rrec, rsize, j)->len < 0))
                err = mp_error_code(MPI_ERR_OTHER, "rank %d of %s group could not open its "
                                    "network endpoint to reach processes of another job on "
                                    "another host (see MEMPI_NET_PROVIDER, MEMPI_NET_IFACE)",
                                    NETREC(lrec, size, i)->len < 0 ? i : j,
                                    NETREC(lrec, size, i)->len < 0 ? "this" : "the other");
    for (int j = 0; j < nremote && !err; j++) {
        netrec *r = NETREC(rrec, rsize, j);
        if (fresh[j] && apart(&local[comm->rank], &remote[j]))
            err = mp_net_attach(ids[j], r->addr, r->len, r->ids[comm->rank]);
    }
    free(mine);
    free(lrec);
    free(rrec);
    return err;
}

/* Gives every remote process an id (a new one if it has none yet: fresh[j]) and attaches a
 * shared-memory channel to each new one on this host; fills ids[].  The caller tells the
 * layers of the new processes (mp_procs_grown) once every one has its transport. */
static int attach_same_host(const desc *my, const desc *remote, int nremote,
                            mp_conn_inbox *inbox, int my_index, int *ids, char *fresh)
{
    int err = MPI_SUCCESS;
    for (int j = 0; j < nremote; j++) {
        ids[j] = mp_procs_find(remote[j].job, remote[j].rank);
        if (ids[j] >= 0)
            continue;
        fresh[j] = 1;
        ids[j] = mp_procs_add(remote[j].job, remote[j].rank, node_for(&remote[j]));
        if (!apart(my, &remote[j]) && !err)
            err = mp_conn_attach(ids[j], inbox, j, remote[j].inbox, my_index);
    }
    return err;
}

int mp_dyn_connect(mp_comm *comm, int root, mp_dyn_io *io, void *arg, int io_class,
                   mp_comm **out)
{
    static uint64_t counter;
    *out = NULL;
    int me = 0, err = MPI_SUCCESS, n = comm->size;
    int *ranks = mp_comm_leader_first(comm, root, &me);

    /* 1. sizes */
    hello mine = { DYN_MAGIC, n, root, 0, 0 }, theirs = { 0, -1, 0, 0, 0 };
    if (me == 0) {
        unsigned char rnd[8];
        mp_random_bytes(rnd, sizeof rnd);
        memcpy(&mine.nonce, rnd, sizeof rnd);
        mine.nonce ^= ++counter;
        if (root_io(io, arg, &mine, sizeof mine, &theirs, sizeof theirs) != 0 ||
            theirs.magic != DYN_MAGIC || theirs.size <= 0 || theirs.root < 0 ||
            theirs.root >= theirs.size)
            theirs.size = -1;
    }
    if ((err = mp_xfer_bcast(comm, ranks, n, me, MP_TAG_DYN, &theirs, sizeof theirs)))
        goto out_ranks;
    if (theirs.size < 0) {
        err = mp_error_code(io_class, "the exchange with the other group's root failed "
                            "(it went away or is not a MemPI process)");
        goto out_ranks;
    }
    int nremote = theirs.size;

    /* 2. descriptions */
    desc my, *local = mp_calloc((size_t)n, sizeof(desc));
    desc *remote = mp_calloc((size_t)nremote, sizeof(desc));
    memset(&my, 0, sizeof my);
    snprintf(my.job, sizeof my.job, "%s", mp_procs_my_job());
    my.rank = mp_world.rank;
    mp_nodes_host_identity(my.host, sizeof my.host);
    mp_conn_inbox *inbox = NULL;
    if ((err = mp_conn_inbox_create(nremote, my.inbox, &inbox)))
        goto out_descs;
    /* gathered in tree order, kept in rank order: slot j of an inbox is remote rank j's */
    shared sh = { MPI_SUCCESS, 0, { 0, 0 } };
    if (me == 0) {
        /* the same tag at both roots, and another one for every connection they make */
        uint64_t lo = mine.nonce < theirs.nonce ? mine.nonce : theirs.nonce;
        uint64_t hi = mine.nonce < theirs.nonce ? theirs.nonce : mine.nonce;
        sh.tag = (int32_t)(mix(lo * 31 + hi) & 0x0fffffff);
    }
    if ((err = swap_records(comm, ranks, me, io, arg, io_class, &my, sizeof my, local, remote,
                            sizeof(desc), nremote, &sh)))
        goto out_descs;
    for (int j = 0; j < nremote; j++) {
        remote[j].job[MP_JOB_ID_MAX - 1] = remote[j].host[HOST_MAX - 1] = '\0';
        remote[j].inbox[MP_SHARED_NAME_MAX - 1] = '\0';
    }

    /* 3. channels: shared memory on this host, the network to other hosts */
    int *ids = mp_malloc(sizeof(int) * (size_t)nremote);
    char *fresh = mp_calloc((size_t)nremote, 1);
    int old = mp_world.nprocs;
    err = attach_same_host(&my, remote, nremote, inbox, comm->rank, ids, fresh);
    if (crosses_hosts(local, n, remote, nremote)) {      /* collective: also after an error */
        int e = attach_over_network(comm, ranks, me, io, arg, io_class, local, remote,
                                    nremote, ids, fresh);
        err = err ? err : e;
    }
    for (int j = 0; j < nremote; j++)   /* failed attachments still need a transport */
        if (fresh[j] && mp_world.procs[ids[j]].tp == NULL)
            mp_world.procs[ids[j]].tp = mp_world.procs[mp_world.rank].tp;
    mp_procs_grown(old);                /* the layers see each new process's transport */
    free(fresh);
    if (err) {
        free(ids);
        goto out_descs;
    }

    /* 4. context ids, over both groups */
    int ctx[2];
    mp_comm *bridge = bridge_new(ids[theirs.root]);
    mp_ctx_bridge b = { bridge, 0, sh.tag, MP_CTX_PT2PT };
    err = mp_ctx_agree_bridged(comm, ranks, me, MP_TAG_DYN, &b, 2, ctx);
    if (err) {
        free(ids);
        goto out_bridge;
    }

    /* 5. the intercommunicator; everyone attached once the handshake is over */
    *out = mp_intercomm_build(comm, ctx, ids, nremote);
    free(ids);
    int one = 1, other = 0;
    int *all = mp_malloc(sizeof(int) * (size_t)n);
    err = mp_xfer_allgather(comm, ranks, n, me, MP_TAG_DYN, &one, sizeof one, all);
    if (!err && me == 0)
        err = mp_xfer_exchange(bridge, 0, sh.tag, MP_CTX_PT2PT, &one, &other, sizeof one);
    if (!err)
        err = mp_xfer_bcast(comm, ranks, n, me, MP_TAG_DYN, &other, sizeof other);
    free(all);
out_bridge:
    mp_comm_release(bridge);
out_descs:
    mp_conn_inbox_done(inbox);
    free(local);
    free(remote);
out_ranks:
    free(ranks);
    return err;
}

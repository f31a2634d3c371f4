/* comm.c -- communicator constructors, destructors and queries; intercommunicators.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/comm.spec.  These functions call the comm
 * layer (src/comm/comm.c, intercomm.c) and then do the user-visible parts of duplication:
 * copying attributes through their copy callbacks, the topology and the info hints.
 * MPI_Comm_idup is nonblocking: the new communicator's handle and attributes exist when the
 * call returns (copy callbacks run at the call, as the standard says), its context id is
 * agreed in the background (context.c) and the request completes when it is usable; the same
 * for intercommunicators.
 *
 * Split, split_type and create also accept intercommunicators (mp_intercomm_subset), and the
 * MPI-4 creations from groups run over MPI_COMM_WORLD (there are no sessions).
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

/* The handle of a new communicator for the user (MPI_COMM_NULL for none). */
static int publish(int err, mp_comm *const *c, MPI_Comm *out)
{
    if (!err)
        *out = *c ? (*c)->handle : MPI_COMM_NULL;
    return err;
}

/* Attributes, topology and hints of a duplicate.  On failure the new comm is freed. */
static int dup_extras(mp_comm *old, mp_comm *c, MPI_Info info, int use_info)
{
    int err = mp_attr_copy_all(MP_OBJ_COMM, old->handle, c->handle, old->attrs, &c->attrs);
    if (err) {
        mp_comm_free_internal(c);
        return err;
    }
    c->topo = mp_topo_copy(old->topo);
    mp_info_dup_handle(use_info ? info : old->info, &c->info);
    return MPI_SUCCESS;
}

static int comm_dup(mp_comm *comm, MPI_Info info, int use_info, MPI_Comm *newcomm)
{
    mp_comm *c = NULL;
    int err = mp_comm_dup_internal(comm, &c);
    if (!err)
        err = dup_extras(comm, c, info, use_info);
    return publish(err, &c, newcomm);
}

int mp_do_comm_dup(const char *F, mp_comm *comm, MPI_Comm *newcomm)
{
    return comm_dup(comm, MPI_INFO_NULL, 0, newcomm);
}

int mp_do_comm_dup_with_info(const char *F, mp_comm *comm, MPI_Info info, MPI_Comm *newcomm)
{
    return comm_dup(comm, info, 1, newcomm);
}

static int comm_idup(const char *F, mp_comm *comm, MPI_Info info, int use_info,
                     MPI_Comm *newcomm, mp_request **req)
{
    if (comm->is_inter && !mp_intercomm_local(comm))
        return mp_err(F, MPI_ERR_INTERN, "intercommunicator without a local communicator");
    /* Every failure below still starts the agreement: the other members count on us. */
    mp_comm *c = mp_comm_idup_prepare(comm);
    int err = c->handle ? MPI_SUCCESS : mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    if (!err)
        err = mp_attr_copy_all(MP_OBJ_COMM, comm->handle, c->handle, comm->attrs, &c->attrs);
    if (err) {
        mp_comm_idup_start(comm, c, NULL);
        return err;
    }
    c->topo = mp_topo_copy(comm->topo);
    mp_info_dup_handle(use_info ? info : comm->info, &c->info);
    *newcomm = c->handle;             /* before start: c may be complete, even freed, after it */
    if ((err = mp_comm_idup_start(comm, c, req)))
        *newcomm = MPI_COMM_NULL;
    return err;
}

int mp_do_comm_idup(const char *F, mp_comm *comm, MPI_Comm *newcomm, mp_request **req)
{
    return comm_idup(F, comm, MPI_INFO_NULL, 0, newcomm, req);
}

int mp_do_comm_idup_with_info(const char *F, mp_comm *comm, MPI_Info info, MPI_Comm *newcomm,
                              mp_request **req)
{
    return comm_idup(F, comm, info, 1, newcomm, req);
}

/* Every member of g must be in comm's local group. */
static int arg_subgroup(const char *F, mp_comm *comm, mp_group *g)
{
    int *map = mp_group_world_map(mp_comm_local_group(comm));
    int bad = -1;
    for (int i = 0; i < g->size && bad < 0; i++)
        if (map[g->world[i]] == MPI_UNDEFINED)
            bad = i;
    free(map);
    if (bad >= 0)
        return mp_err(F, MPI_ERR_GROUP, "rank %d of the group is not a member of the "
                      "communicator", bad);
    return MPI_SUCCESS;
}

int mp_do_comm_create(const char *F, mp_comm *comm, mp_group *g, MPI_Comm *newcomm)
{
    mp_comm *c = NULL;
    int err = arg_subgroup(F, comm, g);
    if (err)
        return err;
    /* on an intercommunicator: the intercommunicator between the groups both sides passed */
    if (comm->is_inter)
        err = mp_intercomm_subset(comm, g->rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0, g->rank,
                                  &c);
    else
        err = mp_comm_create_internal(comm, g, &c);
    return publish(err, &c, newcomm);
}

int mp_do_comm_create_group(const char *F, mp_comm *comm, mp_group *g, int tag,
                            MPI_Comm *newcomm)
{
    mp_comm *c = NULL;
    int err = arg_subgroup(F, comm, g);
    if (err)
        return err;
    if (g->rank == MPI_UNDEFINED)
        return g->size == 0 ? MPI_SUCCESS
                            : mp_err(F, MPI_ERR_GROUP, "the calling process is not in the group");
    return publish(mp_comm_create_group_internal(comm, g, tag, &c), &c, newcomm);
}

/* color/key split of an intra- or intercommunicator. */
static int split(mp_comm *comm, int color, int key, mp_comm **c)
{
    if (comm->is_inter)
        return mp_intercomm_subset(comm, color, key, c);
    return mp_comm_split_internal(comm, color, key, c);
}

int mp_do_comm_split(const char *F, mp_comm *comm, int color, int key, MPI_Comm *newcomm)
{
    mp_comm *c = NULL;
    return publish(split(comm, color, key, &c), &c, newcomm);
}

/* True if the processes of comm's local group are on more than one node. */
static int spans_nodes(const mp_comm *comm)
{
    if (!mp_world.procs)
        return 0;
    int node = mp_world.procs[comm->world[0]].node;
    for (int i = 1; i < comm->size; i++)
        if (mp_world.procs[comm->world[i]].node != node)
            return 1;
    return 0;
}

/* The color of a guided split (MPI 4.1 7.4.2): the instance of hardware level `hw`
 * ("mpi_shared_memory": the node; a level hwloc names, within the node) this process is
 * restricted to, or for MPI_COMM_TYPE_RESOURCE_GUIDED's `pset` the process set's members
 * (named by the set's lowest world rank, so that mpix://SHARED, which differs per node,
 * splits by node).  MPI_UNDEFINED -- no communicator -- for a level or set
 * that is unknown or that does not hold this process as one instance. */
static int guided_color(const mp_comm *comm, const char *hw, const char *pset)
{
    int node = mp_world.procs ? mp_world.procs[comm->world[comm->rank]].node : 0;
    if (hw && strcmp(hw, "mpi_shared_memory") == 0)
        return node;
    if (hw) {
        int level = mp_hw_find_level(hw), inst = level < 0 ? -2 : mp_hw_instance(level);
        return inst < 0 || node >= 32768 || inst >= 65536 ? MPI_UNDEFINED : node * 65536 + inst;
    }
    if (pset) {
        int n = mp_pset_find(pset);
        if (n < 0)
            return MPI_UNDEFINED;
        mp_group *g = mp_pset_group(n);   /* members in world rank order */
        int color = g->rank == MPI_UNDEFINED ? MPI_UNDEFINED : g->world[0];
        mp_group_release(g);
        return color;
    }
    return MPI_UNDEFINED;
}

int mp_do_comm_split_type(const char *F, mp_comm *comm, int split_type, int key, MPI_Info info,
                          MPI_Comm *newcomm)
{
    mp_comm *c = NULL;
    int color;
    const char *hw = mp_info_value(info, "mpi_hw_resource_type");
    switch (split_type) {
    case MPI_UNDEFINED:
        color = MPI_UNDEFINED;
        break;
    case MPI_COMM_TYPE_SHARED:
        color = mp_world.procs ? mp_world.procs[comm->world[comm->rank]].node : 0;
        break;
    case MPI_COMM_TYPE_HW_GUIDED:
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        color = guided_color(comm, hw, split_type == MPI_COMM_TYPE_RESOURCE_GUIDED
                                           ? mp_info_value(info, "mpi_pset_name") : NULL);
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        /* the result must be a strict subset of comm: the node if comm spans several */
        color = spans_nodes(comm) ? mp_world.procs[comm->world[comm->rank]].node
                                  : MPI_UNDEFINED;
        break;
    default:
        return mp_err(F, MPI_ERR_ARG, "invalid split_type %d", split_type);
    }
    int err = split(comm, color, key, &c);
    /* MPI-4: a hardware split names the level it chose in the new communicator's info */
    if (!err && c && split_type != MPI_COMM_TYPE_SHARED && (hw || split_type ==
                                                            MPI_COMM_TYPE_HW_UNGUIDED)) {
        mp_info *ni = mp_info_alloc();
        mp_info_put(ni, "mpi_hw_resource_type",
                    split_type == MPI_COMM_TYPE_HW_UNGUIDED ? "mpi_shared_memory" : hw);
        c->info = mp_info_publish(ni);
        if (c->info == 0) {
            mp_info_destroy(ni);
            c->info = MPI_INFO_NULL;
        }
    }
    return publish(err, &c, newcomm);
}

/* One key per hardware level MemPI knows, valued "true" when this process is restricted to
 * one instance of it (a guided split then gives it a communicator) and "false" when not:
 * mpi_shared_memory (always true: a process runs on one node) and the hwloc levels by their
 * URI ("hwloc://Core"), those only when hwloc is there. */
int mp_do_get_hw_resource_info(const char *F, MPI_Info *hw_info)
{
    mp_info *i = mp_info_alloc();
    mp_info_put(i, "mpi_shared_memory", "true");
    for (int level = 0; level < mp_hw_levels(); level++) {
        int inst = mp_hw_instance(level);
        char key[64];
        snprintf(key, sizeof key, "hwloc://%s", mp_hw_level_name(level));
        if (inst != -2)
            mp_info_put(i, key, inst >= 0 ? "true" : "false");
    }
    int h = mp_info_publish(i);
    if (!h) {
        mp_info_destroy(i);
        return mp_err(F, MPI_ERR_NO_MEM, "too many info objects");
    }
    *hw_info = h;
    return MPI_SUCCESS;
}

/* Free and disconnect: not of the predefined communicators. */
static int not_predefined(const char *F, const mp_comm *comm, const char *what)
{
    if (comm->handle != MPI_COMM_WORLD && comm->handle != MPI_COMM_SELF)
        return MPI_SUCCESS;
    return mp_err(F, MPI_ERR_COMM, "cannot %s the predefined communicator %s", what,
                  comm->handle == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
}

int mp_do_comm_free(const char *F, mp_comm *comm)
{
    int err = not_predefined(F, comm, "free");
    return err ? err : mp_comm_free_internal(comm);
}

/* Disconnect = wait for this process's pending communication on it, then free it.  Pending
 * operations complete through progress; without dynamic processes there is nothing else to
 * sever. */
int mp_do_comm_disconnect(const char *F, mp_comm *comm)
{
    int err = not_predefined(F, comm, "disconnect");
    if (!err)
        err = mp_barrier(comm);
    return err ? err : mp_comm_free_internal(comm);
}

int mp_do_comm_set_info(const char *F, mp_comm *comm, MPI_Info info)
{
    MPI_Info copy;
    if (mp_info_dup_handle(info, &copy))
        return mp_err(F, MPI_ERR_NO_MEM, "too many info objects");
    mp_info_free_handle(comm->info);
    comm->info = copy;
    return MPI_SUCCESS;
}

int mp_do_comm_get_info(const char *F, mp_comm *comm, MPI_Info *info_used)
{
    if (comm->info == MPI_INFO_NULL)
        return mp_do_info_create(F, info_used);
    if (mp_info_dup_handle(comm->info, info_used))
        return mp_err(F, MPI_ERR_NO_MEM, "too many info objects");
    return MPI_SUCCESS;
}

int mp_do_intercomm_create(const char *F, mp_comm *local, int local_leader, MPI_Comm peer_h,
                           int remote_leader, int tag, MPI_Comm *newintercomm)
{
    mp_comm *peer = NULL, *c = NULL;
    int err;
    if (local_leader < 0 || local_leader >= local->size)
        return mp_err(F, MPI_ERR_RANK, "invalid local_leader %d in a communicator of size %d",
                      local_leader, local->size);
    if (local->rank == local_leader) {
        /* only the leader uses peer_comm and remote_leader */
        if ((err = mp_chk_comm(F, peer_h, &peer)) ||
            (err = mp_chk_comm_ready(F, peer, "peer_comm")))
            return err;
        int psize = peer->is_inter ? peer->remote_size : peer->size;
        if (remote_leader < 0 || remote_leader >= psize)
            return mp_err(F, MPI_ERR_RANK, "invalid remote_leader %d in a peer communicator "
                          "of size %d", remote_leader, psize);
        if (!peer->is_inter && remote_leader == peer->rank)
            return mp_err(F, MPI_ERR_RANK, "remote_leader %d is the local leader itself",
                          remote_leader);
    }
    err = mp_intercomm_create(local, local_leader, peer, remote_leader, tag, &c);
    return publish(err, &c, newintercomm);
}

int mp_do_intercomm_merge(const char *F, mp_comm *comm, int high, MPI_Comm *newintracomm)
{
    mp_comm *c = NULL;
    return publish(mp_intercomm_merge(comm, high, &c), &c, newintracomm);
}

/* ---------------------------------------------------------------------------------------------
 * MPI-4 creation from groups (without sessions: the groups come from MPI_Comm_group and the
 * group operations, and every process is in MPI_COMM_WORLD)
 * ------------------------------------------------------------------------------------------- */
static int from_group_args(const char *F, MPI_Errhandler errhandler, mp_group *g,
                           const char *what)
{
    if (errhandler != MPI_ERRHANDLER_NULL && mp_errhandler_check(errhandler, MP_EH_COMM))
        return mp_err(F, MPI_ERR_ARG, "invalid errhandler 0x%x", (unsigned)errhandler);
    if (g->rank == MPI_UNDEFINED)
        return mp_err(F, MPI_ERR_GROUP, "the calling process is not a member of %s", what);
    return MPI_SUCCESS;
}

/* The new communicator gets the requested handler and a copy of the info. */
static int from_group_finish(int err, mp_comm *c, MPI_Info info, MPI_Errhandler errhandler,
                             MPI_Comm *out)
{
    if (err)
        return err;
    if (errhandler != MPI_ERRHANDLER_NULL) {
        mp_errhandler_retain(errhandler);
        mp_errhandler_release(c->errhandler);
        c->errhandler = errhandler;
    }
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && mp_info_dup_handle(info, &copy) == MPI_SUCCESS)
        c->info = copy;
    *out = c->handle;
    return MPI_SUCCESS;
}

int mp_do_comm_create_from_group(const char *F, mp_group *g, const char *stringtag,
                                 MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    mp_comm *c = NULL;
    int err = from_group_args(F, errhandler, g, "group");
    if (!err)
        err = mp_comm_from_group(g, stringtag, &c);
    if (!err && c)
        c->session_bbuf = g->session_bbuf;
    return from_group_finish(err, c, info, errhandler, newcomm);
}

int mp_do_intercomm_create_from_groups(const char *F, mp_group *lg, int local_leader,
                                       mp_group *rg, int remote_leader, const char *stringtag,
                                       MPI_Info info, MPI_Errhandler errhandler,
                                       MPI_Comm *newintercomm)
{
    mp_comm *c = NULL;
    int err = from_group_args(F, errhandler, lg, "local_group");
    if (err)
        return err;
    if (local_leader < 0 || local_leader >= lg->size)
        return mp_err(F, MPI_ERR_RANK, "invalid local_leader %d in a group of size %d",
                      local_leader, lg->size);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return mp_err(F, MPI_ERR_RANK, "invalid remote_leader %d in a group of size %d",
                      remote_leader, rg->size);
    if (rg->rank != MPI_UNDEFINED)
        return mp_err(F, MPI_ERR_GROUP, "the local and remote groups overlap (the calling "
                      "process is in both)");
    err = mp_intercomm_from_groups(lg, local_leader, rg, remote_leader, stringtag, &c);
    if (!err && c)
        c->session_bbuf = lg->session_bbuf;
    return from_group_finish(err, c, info, errhandler, newintercomm);
}

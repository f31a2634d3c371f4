/* comm.c -- MPI_Comm_* constructors, destructors and queries; intercommunicators.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Entry points check arguments, call the comm layer (src/comm/comm.c, intercomm.c) and then
 * do the user-visible parts of duplication: copying attributes through their copy callbacks,
 * the topology and the info hints.  MPI_Comm_idup is nonblocking: the
 * new communicator's handle and attributes exist when the call returns (copy callbacks run
 * at the call, as the standard says), its context id is agreed in the background
 * (context.c) and the request completes when it is usable; the same for intercommunicators.
 *
 * Split, split_type and create also accept intercommunicators (mp_intercomm_subset), and the
 * MPI-4 creations from groups run over MPI_COMM_WORLD (there are no sessions).
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

static int arg_out(const char *F, mp_comm *comm, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : mp_error(comm, MPI_ERR_ARG, F, "%s is NULL", name);
}

static int arg_intra(const char *F, mp_comm *comm)
{
    return comm->is_inter ? mp_error(comm, MPI_ERR_COMM, F,
                                     "communicator is an intercommunicator") : MPI_SUCCESS;
}

static int arg_info_or_null(const char *F, mp_comm *comm, MPI_Info info)
{
    if (info == MPI_INFO_NULL || mp_info_get(info))
        return MPI_SUCCESS;
    return mp_error(comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
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

static int comm_dup(const char *F, MPI_Comm h, MPI_Info info, int use_info, MPI_Comm *newcomm)
{
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, newcomm, "newcomm")))
        return err;
    if (use_info && (err = arg_info_or_null(F, comm, info)))
        return err;
    if ((err = mp_comm_dup_internal(comm, &c)) || (err = dup_extras(comm, c, info, use_info)))
        return mp_ret(comm, F, err);
    *newcomm = c->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    return comm_dup("MPI_Comm_dup", comm, MPI_INFO_NULL, 0, newcomm);
}
#pragma weak MPI_Comm_dup = PMPI_Comm_dup

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    return comm_dup("MPI_Comm_dup_with_info", comm, info, 1, newcomm);
}
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info

static int comm_idup(const char *F, MPI_Comm h, MPI_Info info, int use_info, MPI_Comm *newcomm,
                     MPI_Request *request)
{
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    MP_OUT_NULL(request, MPI_REQUEST_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, request, "request")) ||
        (err = arg_out(F, comm, newcomm, "newcomm")))
        return err;
    if (use_info && (err = arg_info_or_null(F, comm, info)))
        return err;
    if (comm->is_inter && !mp_intercomm_local(comm))
        return mp_error(comm, MPI_ERR_INTERN, F, "intercommunicator without a local "
                        "communicator");
    /* Every failure below still starts the agreement: the other members count on us. */
    mp_comm *c = mp_comm_idup_prepare(comm);
    err = c->handle ? MPI_SUCCESS : mp_error_code(MPI_ERR_NO_MEM, "too many communicators");
    if (!err)
        err = mp_attr_copy_all(MP_OBJ_COMM, comm->handle, c->handle, comm->attrs, &c->attrs);
    if (err) {
        mp_comm_idup_start(comm, c, NULL);
        return mp_ret(comm, F, err);
    }
    c->topo = mp_topo_copy(comm->topo);
    mp_info_dup_handle(use_info ? info : comm->info, &c->info);
    *newcomm = c->handle;             /* before start: c may be complete, even freed, after it */
    mp_request *req = NULL;
    if ((err = mp_comm_idup_start(comm, c, &req))) {
        *newcomm = MPI_COMM_NULL;
        return mp_ret(comm, F, err);
    }
    *request = mp_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    MP_BIG_LOCK();
    return comm_idup("MPI_Comm_idup", comm, MPI_INFO_NULL, 0, newcomm, request);
}
#pragma weak MPI_Comm_idup = PMPI_Comm_idup

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    MP_BIG_LOCK();
    return comm_idup("MPI_Comm_idup_with_info", comm, info, 1, newcomm, request);
}
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info

static int arg_group(const char *F, mp_comm *comm, MPI_Group h, mp_group **out)
{
    mp_group *g = h == MPI_GROUP_NULL ? NULL : mp_group_get(h);
    if (!g)
        return mp_error(comm, MPI_ERR_GROUP, F, "invalid group 0x%x%s", (unsigned)h,
                        h == MPI_GROUP_NULL ? " (MPI_GROUP_NULL)" : "");
    *out = g;
    return MPI_SUCCESS;
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
        return mp_error(comm, MPI_ERR_GROUP, F,
                        "rank %d of the group is not a member of the communicator", bad);
    return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm h, MPI_Group group, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_create";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    mp_group *g = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, newcomm, "newcomm")) ||
        (err = arg_group(F, comm, group, &g)))
        return err;
    if ((err = arg_subgroup(F, comm, g)))
        return err;
    /* on an intercommunicator: the intercommunicator between the groups both sides passed */
    if (comm->is_inter)
        err = mp_intercomm_subset(comm, g->rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0, g->rank,
                                  &c);
    else
        err = mp_comm_create_internal(comm, g, &c);
    if (err)
        return mp_ret(comm, F, err);
    *newcomm = c ? c->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create = PMPI_Comm_create

int PMPI_Comm_create_group(MPI_Comm h, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_create_group";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    mp_group *g = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_out(F, comm, newcomm, "newcomm")) || (err = arg_group(F, comm, group, &g)))
        return err;
    if (tag < 0 || tag > MP_TAG_UB)
        return mp_error(comm, MPI_ERR_TAG, F, "invalid tag %d", tag);
    if ((err = arg_subgroup(F, comm, g)))
        return err;
    if (g->rank == MPI_UNDEFINED) {
        if (g->size == 0) {
            *newcomm = MPI_COMM_NULL;
            return MPI_SUCCESS;
        }
        return mp_error(comm, MPI_ERR_GROUP, F, "the calling process is not in the group");
    }
    if ((err = mp_comm_create_group_internal(comm, g, tag, &c)))
        return mp_ret(comm, F, err);
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group

int PMPI_Comm_split(MPI_Comm h, int color, int key, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_split";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, newcomm, "newcomm")))
        return err;
    if (color < 0 && color != MPI_UNDEFINED)
        return mp_error(comm, MPI_ERR_ARG, F, "invalid color %d", color);
    if (comm->is_inter)
        err = mp_intercomm_subset(comm, color, key, &c);
    else
        err = mp_comm_split_internal(comm, color, key, &c);
    if (err)
        return mp_ret(comm, F, err);
    *newcomm = c ? c->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_split = PMPI_Comm_split

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

int PMPI_Comm_split_type(MPI_Comm h, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_split_type";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    int err, color;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, newcomm, "newcomm")) ||
        (err = arg_info_or_null(F, comm, info)))
        return err;
    const char *hw = mp_info_value(info, "mpi_hw_resource_type");
    switch (split_type) {
    case MPI_UNDEFINED:
        color = MPI_UNDEFINED;
        break;
    case MPI_COMM_TYPE_SHARED:
        color = mp_world.procs ? mp_world.procs[comm->world[comm->rank]].node : 0;
        break;
    case MPI_COMM_TYPE_HW_GUIDED:
        /* the node is the only level of hardware MemPI knows */
        color = hw && strcmp(hw, "mpi_shared_memory") == 0 && mp_world.procs
                    ? mp_world.procs[comm->world[comm->rank]].node : MPI_UNDEFINED;
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        /* the result must be a strict subset of comm: the node if comm spans several */
        color = spans_nodes(comm) ? mp_world.procs[comm->world[comm->rank]].node
                                  : MPI_UNDEFINED;
        break;
    default:
        return mp_error(comm, MPI_ERR_ARG, F, "invalid split_type %d", split_type);
    }
    if (comm->is_inter)
        err = mp_intercomm_subset(comm, color, key, &c);
    else
        err = mp_comm_split_internal(comm, color, key, &c);
    if (err)
        return mp_ret(comm, F, err);
    /* MPI-4: a hardware split names the level it chose in the new communicator's info */
    if (c && (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_HW_UNGUIDED)) {
        mp_info *ni = mp_info_alloc();
        mp_info_put(ni, "mpi_hw_resource_type", "mpi_shared_memory");
        c->info = mp_info_publish(ni);
        if (c->info == 0) {
            mp_info_destroy(ni);
            c->info = MPI_INFO_NULL;
        }
    }
    *newcomm = c ? c->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type

int PMPI_Comm_free(MPI_Comm *h)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_free";
    mp_comm *comm;
    int err;
    if (!h)
        return mp_error(NULL, MPI_ERR_ARG, F, "comm is NULL");
    if ((err = mp_arg_comm(F, *h, &comm)))
        return err;
    if (*h == MPI_COMM_WORLD || *h == MPI_COMM_SELF)
        return mp_error(comm, MPI_ERR_COMM, F, "cannot free the predefined communicator %s",
                        *h == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    if ((err = mp_comm_free_internal(comm)))
        return mp_ret(comm, F, err);
    *h = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_free = PMPI_Comm_free

int PMPI_Comm_compare(MPI_Comm h1, MPI_Comm h2, int *result)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_compare";
    mp_comm *a, *b;
    int err;
    if ((err = mp_arg_comm(F, h1, &a)) || (err = mp_arg_comm(F, h2, &b)) ||
        (err = arg_out(F, a, result, "result")))
        return err;
    *result = mp_comm_compare_internal(a, b);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_compare = PMPI_Comm_compare

int PMPI_Comm_test_inter(MPI_Comm h, int *flag)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_test_inter";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, flag, "flag")))
        return err;
    *flag = comm->is_inter;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter

int PMPI_Comm_remote_size(MPI_Comm h, int *size)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_remote_size";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, size, "size")))
        return err;
    if (!comm->is_inter)
        return mp_error(comm, MPI_ERR_COMM, F, "communicator is not an intercommunicator");
    *size = comm->remote_size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size

int PMPI_Comm_set_name(MPI_Comm h, const char *name)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_set_name";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, name, "comm_name")))
        return err;
    snprintf(comm->name, sizeof comm->name, "%s", name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name

int PMPI_Comm_get_name(MPI_Comm h, char *name, int *resultlen)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_get_name";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, name, "comm_name")) ||
        (err = arg_out(F, comm, resultlen, "resultlen")))
        return err;
    strcpy(name, comm->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name

int PMPI_Comm_set_info(MPI_Comm h, MPI_Info info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_set_info";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)))
        return err;
    if (info == MPI_INFO_NULL || !mp_info_get(info))
        return mp_error(comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    MPI_Info copy;
    if (mp_info_dup_handle(info, &copy))
        return mp_error(comm, MPI_ERR_NO_MEM, F, "too many info objects");
    mp_info_free_handle(comm->info);
    comm->info = copy;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info

int PMPI_Comm_get_info(MPI_Comm h, MPI_Info *info_used)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_get_info";
    MP_OUT_NULL(info_used, MPI_INFO_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, info_used, "info_used")))
        return err;
    if (comm->info != MPI_INFO_NULL)
        err = mp_info_dup_handle(comm->info, info_used);
    else if ((err = PMPI_Info_create(info_used)))
        return err;
    return err ? mp_error(comm, MPI_ERR_NO_MEM, F, "too many info objects") : MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info

int PMPI_Intercomm_create(MPI_Comm local_h, int local_leader, MPI_Comm peer_h,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Intercomm_create";
    MP_OUT_NULL(newintercomm, MPI_COMM_NULL);
    mp_comm *local, *peer = NULL, *c;
    int err;
    if ((err = mp_arg_comm(F, local_h, &local)) || (err = arg_intra(F, local)) ||
        (err = arg_out(F, local, newintercomm, "newintercomm")))
        return err;
    if (local_leader < 0 || local_leader >= local->size)
        return mp_error(local, MPI_ERR_RANK, F,
                        "invalid local_leader %d in a communicator of size %d", local_leader,
                        local->size);
    if (tag < 0 || tag > MP_TAG_UB)
        return mp_error(local, MPI_ERR_TAG, F, "invalid tag %d", tag);
    if (local->rank == local_leader) {
        /* only the leader uses peer_comm and remote_leader */
        if ((err = mp_arg_comm(F, peer_h, &peer)))
            return err;
        int psize = peer->is_inter ? peer->remote_size : peer->size;
        if (remote_leader < 0 || remote_leader >= psize)
            return mp_error(local, MPI_ERR_RANK, F,
                            "invalid remote_leader %d in a peer communicator of size %d",
                            remote_leader, psize);
        if (!peer->is_inter && remote_leader == peer->rank)
            return mp_error(local, MPI_ERR_RANK, F,
                            "remote_leader %d is the local leader itself", remote_leader);
    }
    if ((err = mp_intercomm_create(local, local_leader, peer, remote_leader, tag, &c)))
        return mp_ret(local, F, err);
    *newintercomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create

int PMPI_Intercomm_merge(MPI_Comm h, int high, MPI_Comm *newintracomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Intercomm_merge";
    MP_OUT_NULL(newintracomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_out(F, comm, newintracomm,
                                                           "newintracomm")))
        return err;
    if (!comm->is_inter)
        return mp_error(comm, MPI_ERR_COMM, F, "communicator is not an intercommunicator");
    if ((err = mp_intercomm_merge(comm, high, &c)))
        return mp_ret(comm, F, err);
    *newintracomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge

/* ---------------------------------------------------------------------------------------------
 * MPI-4 creation from groups (without sessions: the groups come from MPI_Comm_group and the
 * group operations, and every process is in MPI_COMM_WORLD)
 * ------------------------------------------------------------------------------------------- */
static int from_group_args(const char *F, const char *stringtag, MPI_Info info,
                           MPI_Errhandler errhandler, const void *out)
{
    int err;
    if ((err = arg_out(F, NULL, out, "newcomm")) ||
        (err = arg_out(F, NULL, stringtag, "stringtag")) ||
        (err = arg_info_or_null(F, NULL, info)))
        return err;
    if (errhandler != MPI_ERRHANDLER_NULL && mp_errhandler_check(errhandler, MP_EH_COMM))
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid errhandler 0x%x", (unsigned)errhandler);
    return MPI_SUCCESS;
}

static int member_of(const char *F, mp_group *g, const char *what)
{
    if (g->rank != MPI_UNDEFINED)
        return MPI_SUCCESS;
    return mp_error(NULL, MPI_ERR_GROUP, F, "the calling process is not a member of %s", what);
}

/* The new communicator gets the requested handler and a copy of the info. */
static void from_group_finish(mp_comm *c, MPI_Info info, MPI_Errhandler errhandler)
{
    if (errhandler != MPI_ERRHANDLER_NULL) {
        mp_errhandler_retain(errhandler);
        mp_errhandler_release(c->errhandler);
        c->errhandler = errhandler;
    }
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && mp_info_dup_handle(info, &copy) == MPI_SUCCESS)
        c->info = copy;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_create_from_group";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_group *g = NULL;
    mp_comm *c;
    int err;
    if ((err = mp_arg_initialized(F)) ||
        (err = from_group_args(F, stringtag, info, errhandler, newcomm)) ||
        (err = arg_group(F, NULL, group, &g)) || (err = member_of(F, g, "group")))
        return err;
    if ((err = mp_comm_from_group(g, stringtag, &c)))
        return mp_ret(NULL, F, err);
    from_group_finish(c, info, errhandler);
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Intercomm_create_from_groups";
    MP_OUT_NULL(newintercomm, MPI_COMM_NULL);
    mp_group *lg = NULL, *rg = NULL;
    mp_comm *c;
    int err;
    if ((err = mp_arg_initialized(F)) ||
        (err = from_group_args(F, stringtag, info, errhandler, newintercomm)) ||
        (err = arg_group(F, NULL, local_group, &lg)) ||
        (err = arg_group(F, NULL, remote_group, &rg)) ||
        (err = member_of(F, lg, "local_group")))
        return err;
    if (local_leader < 0 || local_leader >= lg->size)
        return mp_error(NULL, MPI_ERR_RANK, F, "invalid local_leader %d in a group of size %d",
                        local_leader, lg->size);
    if (remote_leader < 0 || remote_leader >= rg->size)
        return mp_error(NULL, MPI_ERR_RANK, F, "invalid remote_leader %d in a group of size %d",
                        remote_leader, rg->size);
    if (rg->rank != MPI_UNDEFINED)
        return mp_error(NULL, MPI_ERR_GROUP, F, "the local and remote groups overlap (the "
                        "calling process is in both)");
    if ((err = mp_intercomm_from_groups(lg, local_leader, rg, remote_leader, stringtag, &c)))
        return mp_ret(NULL, F, err);
    from_group_finish(c, info, errhandler);
    *newintercomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups

/* No process of a MemPI job is spawned (MPI_Comm_spawn is not supported), so every process
 * has no parent, which the standard reports as MPI_COMM_NULL. */
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_get_parent";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    if (parent == NULL)
        return mp_error(NULL, MPI_ERR_ARG, F, "parent is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent

/* Disconnect = wait for this process's pending communication on it, then free it.  Pending
 * operations complete through progress; without dynamic processes there is nothing else to
 * sever. */
int PMPI_Comm_disconnect(MPI_Comm *h)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Comm_disconnect";
    mp_comm *comm;
    int err;
    if (!h)
        return mp_error(NULL, MPI_ERR_ARG, F, "comm is NULL");
    if ((err = mp_arg_comm(F, *h, &comm)))
        return err;
    if (*h == MPI_COMM_WORLD || *h == MPI_COMM_SELF)
        return mp_error(comm, MPI_ERR_COMM, F, "cannot disconnect the predefined communicator %s",
                        *h == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    if ((err = mp_barrier(comm)) || (err = mp_comm_free_internal(comm)))
        return mp_ret(comm, F, err);
    *h = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect

/* attr.c -- keyvals and attributes of communicators and datatypes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/attr.spec (windows: rma.spec); these are
 * thin checks over src/comm/attr.c.  The MPI-1 names (MPI_Keyval_create, MPI_Attr_put,
 * MPI_Attr_get, MPI_Attr_delete, MPI_Keyval_free) are the communicator functions under other
 * names, as they are in C.  Predefined communicator attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE) are answered from
 * static ints on every communicator and cannot be set, deleted or freed.  MPI_UNIVERSE_SIZE is
 * the process manager's (PMI get_universe_size: MemPI's mpiexec's --universe-size or its slots;
 * Hydra's; the job's size where the manager has none), asked when first read.
 *
 * Attribute values come in every language form (comm.h, MP_ATTR_*): the C entry points pass
 * MP_ATTR_PTR, the Fortran ones (fortran/attr.c) MP_ATTR_AINT or, for MPI_ATTR_PUT/GET,
 * MP_ATTR_INT, through mp_comm_attr_put/fetch and mp_type_attr_put/fetch, which are the
 * Fortran binding's entry points: they take the big lock and raise their errors.
 */
#include "binding/binding.h"
#include "core/pmi.h"

static int is_comm_predefined(int keyval)
{
    return mp_keyval_is_predefined(keyval) && ((unsigned)keyval & 0xfff00000u) == 0x64400000u;
}

int mp_attr_predefined(int keyval, void **value, int *flag)
{
    static int tag_ub = MP_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE;
    static int wtime_global = 0, universe, appnum, lastused;
    int *p = NULL;
    switch (keyval) {
    case MPI_TAG_UB: p = &tag_ub; break;
    case MPI_HOST: p = &host; break;
    case MPI_IO: p = &io; break;
    case MPI_WTIME_IS_GLOBAL: p = &wtime_global; break;
    case MPI_UNIVERSE_SIZE:
        if (mp_pmi_universe_size(&universe) != 0 || universe < 1)
            universe = mp_world.size;
        p = &universe;
        break;
    case MPI_APPNUM: appnum = mp_world.appnum; p = &appnum; break;
    case MPI_LASTUSEDCODE: lastused = mp_error_last_used(); p = &lastused; break;
    default: break;
    }
    *flag = p != NULL;
    if (p)
        *value = p;
    return MPI_SUCCESS;
}

static const char *const kind_name[] = { [MP_OBJ_COMM] = "communicator",
                                         [MP_OBJ_DATATYPE] = "datatype", [MP_OBJ_WIN] = "window" };

/* A keyval that `objtype` (MP_OBJ_*) does not know, given the check's flags. */
static int keyval_check(const char *F, int objtype, int keyval, int flags)
{
    if (mp_keyval_check(objtype, keyval, flags))
        return mp_err(F, MPI_ERR_KEYVAL, "invalid %s keyval 0x%x", kind_name[objtype],
                      (unsigned)keyval);
    return MPI_SUCCESS;
}

/* ---- keyvals of every object kind ---- */

int mp_new_keyval(const char *F, int objtype, mp_attr_copy_fn *copy, mp_attr_delete_fn *del,
                  void *extra, int *keyval)
{
    if (mp_keyval_create(objtype, copy, del, extra, keyval))
        return mp_err(F, MPI_ERR_NO_MEM, "too many keyvals");
    return MPI_SUCCESS;
}

int mp_free_keyval(const char *F, int objtype, int *keyval)
{
    if (mp_keyval_is_predefined(*keyval))
        return mp_err(F, MPI_ERR_KEYVAL, "cannot free the predefined keyval 0x%x",
                      (unsigned)*keyval);
    if (mp_keyval_free(objtype, keyval))
        return mp_err(F, MPI_ERR_KEYVAL, "invalid %s keyval 0x%x", kind_name[objtype],
                      (unsigned)*keyval);
    return MPI_SUCCESS;
}

/* ---- communicators ---- */

int mp_do_comm_attr_put(const char *F, mp_comm *comm, int keyval, MPI_Aint value, int kind)
{
    if (is_comm_predefined(keyval))
        return mp_err(F, MPI_ERR_KEYVAL, "cannot set the predefined attribute 0x%x",
                      (unsigned)keyval);
    int err = keyval_check(F, MP_OBJ_COMM, keyval, 0);
    return err ? err : mp_attr_set(MP_OBJ_COMM, comm->handle, &comm->attrs, keyval, value, kind);
}

int mp_do_comm_attr_fetch(const char *F, mp_comm *comm, int keyval, void *value, int *flag,
                          int kind)
{
    if (is_comm_predefined(keyval)) {
        void *p = NULL;
        mp_attr_predefined(keyval, &p, flag);
        if (*flag && kind == MP_ATTR_PTR)
            *(void **)value = p;
        else if (*flag && kind == MP_ATTR_AINT)
            *(MPI_Aint *)value = *(int *)p;
        else if (*flag)
            *(int *)value = *(int *)p;
        return MPI_SUCCESS;
    }
    int err = keyval_check(F, MP_OBJ_COMM, keyval, MP_KEYVAL_FREED);
    return err ? err : mp_attr_get(MP_OBJ_COMM, comm->attrs, keyval, kind, value, flag);
}

int mp_do_comm_attr_delete(const char *F, mp_comm *comm, int keyval)
{
    if (is_comm_predefined(keyval))
        return mp_err(F, MPI_ERR_KEYVAL, "cannot delete the predefined attribute 0x%x",
                      (unsigned)keyval);
    int err = keyval_check(F, MP_OBJ_COMM, keyval, MP_KEYVAL_FREED);
    return err ? err : mp_attr_delete(MP_OBJ_COMM, comm->handle, &comm->attrs, keyval);
}

/* ---- datatypes ---- */

int mp_do_type_attr_put(const char *F, mp_datatype *dt, MPI_Datatype h, int keyval,
                        MPI_Aint value, int kind)
{
    int err = keyval_check(F, MP_OBJ_DATATYPE, keyval, 0);
    return err ? err : mp_attr_set(MP_OBJ_DATATYPE, h, &dt->attrs, keyval, value, kind);
}

int mp_do_type_attr_fetch(const char *F, mp_datatype *dt, int keyval, void *value, int *flag,
                          int kind)
{
    int err = keyval_check(F, MP_OBJ_DATATYPE, keyval, MP_KEYVAL_FREED);
    return err ? err : mp_attr_get(MP_OBJ_DATATYPE, dt->attrs, keyval, kind, value, flag);
}

int mp_do_type_attr_delete(const char *F, mp_datatype *dt, MPI_Datatype h, int keyval)
{
    int err = keyval_check(F, MP_OBJ_DATATYPE, keyval, MP_KEYVAL_FREED);
    return err ? err : mp_attr_delete(MP_OBJ_DATATYPE, h, &dt->attrs, keyval);
}

/* ---- the Fortran binding's entry points ---- */

/* Sets (out == NULL) or fetches an attribute of communicator or datatype handle h. */
static int attr_entry(const char *F, int objtype, int h, int keyval, MPI_Aint value, void *out,
                      int *flag, int kind)
{
    MP_BIG_LOCK();
    mp_comm *comm = NULL;
    mp_datatype *dt = NULL;
    int err = objtype == MP_OBJ_COMM
                  ? mp_chk_comm(F, h, &comm)
                  : mp_chk_type(F, h, "datatype", MP_TYPE_UNCOMMITTED | MP_TYPE_MARKERS, &dt);
    if (!err && comm)
        err = out ? mp_do_comm_attr_fetch(F, comm, keyval, out, flag, kind)
                  : mp_do_comm_attr_put(F, comm, keyval, value, kind);
    else if (!err)
        err = out ? mp_do_type_attr_fetch(F, dt, keyval, out, flag, kind)
                  : mp_do_type_attr_put(F, dt, h, keyval, value, kind);
    return mp_error_raise(comm, err, F);
}

int mp_comm_attr_put(const char *F, MPI_Comm h, int keyval, MPI_Aint value, int kind)
{
    return attr_entry(F, MP_OBJ_COMM, h, keyval, value, NULL, NULL, kind);
}

int mp_comm_attr_fetch(const char *F, MPI_Comm h, int keyval, void *value, int *flag, int kind)
{
    return attr_entry(F, MP_OBJ_COMM, h, keyval, 0, value, flag, kind);
}

int mp_type_attr_put(const char *F, MPI_Datatype h, int keyval, MPI_Aint value, int kind)
{
    return attr_entry(F, MP_OBJ_DATATYPE, h, keyval, value, NULL, NULL, kind);
}

int mp_type_attr_fetch(const char *F, MPI_Datatype h, int keyval, void *value, int *flag,
                       int kind)
{
    return attr_entry(F, MP_OBJ_DATATYPE, h, keyval, 0, value, flag, kind);
}

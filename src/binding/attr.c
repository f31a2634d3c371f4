/* attr.c -- attribute entry points: keyvals and attributes of communicators and datatypes.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Thin checks over src/comm/attr.c.  The MPI-1 names (MPI_Keyval_create, MPI_Attr_put,
 * MPI_Attr_get, MPI_Attr_delete, MPI_Keyval_free) are the communicator functions under other
 * names, as they are in C.  Predefined communicator attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE) are answered from
 * static ints on every communicator and cannot be set, deleted or freed.
 */
#include "binding/binding.h"

static int arg_ptr(const char *F, mp_comm *comm, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : mp_error(comm, MPI_ERR_ARG, F, "%s is NULL", name);
}

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
    case MPI_UNIVERSE_SIZE: universe = mp_world.size; p = &universe; break;
    case MPI_APPNUM: appnum = mp_world.appnum; p = &appnum; break;
    case MPI_LASTUSEDCODE: lastused = mp_error_last_used(); p = &lastused; break;
    default: break;
    }
    *flag = p != NULL;
    if (p)
        *value = p;
    return MPI_SUCCESS;
}

static int keyval_error(const char *F, mp_comm *comm, int keyval, const char *what)
{
    return mp_error(comm, MPI_ERR_KEYVAL, F, "invalid %s keyval 0x%x", what, (unsigned)keyval);
}

/* ---- communicators ---- */

static int comm_create_keyval(const char *F, void *copy, void *del, int *keyval, void *extra)
{
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, keyval, "keyval")))
        return err;
    if (mp_keyval_create(MP_OBJ_COMM, (mp_attr_copy_fn *)copy, (mp_attr_delete_fn *)del, extra,
                         keyval))
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many keyvals");
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy,
                            MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
    return comm_create_keyval("MPI_Comm_create_keyval", (void *)copy, (void *)del, keyval,
                              extra);
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

int PMPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval,
                       void *extra)
{
    return comm_create_keyval("MPI_Keyval_create", (void *)copy, (void *)del, keyval, extra);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

static int comm_free_keyval(const char *F, int *keyval)
{
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, keyval, "keyval")))
        return err;
    if (mp_keyval_is_predefined(*keyval))
        return mp_error(NULL, MPI_ERR_KEYVAL, F, "cannot free the predefined keyval 0x%x",
                        (unsigned)*keyval);
    if (mp_keyval_free(MP_OBJ_COMM, keyval))
        return keyval_error(F, NULL, *keyval, "communicator");
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *keyval)
{
    return comm_free_keyval("MPI_Comm_free_keyval", keyval);
}
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval

int PMPI_Keyval_free(int *keyval)
{
    return comm_free_keyval("MPI_Keyval_free", keyval);
}
#pragma weak MPI_Keyval_free = PMPI_Keyval_free

/* Attribute access in every language form (comm.h, MP_ATTR_*): the C entry points below pass
 * MP_ATTR_PTR, the Fortran ones (fortran/attr.c) MP_ATTR_AINT or, for MPI_ATTR_PUT/GET,
 * MP_ATTR_INT. */
int mp_comm_attr_put(const char *F, MPI_Comm h, int keyval, MPI_Aint value, int kind)
{
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)))
        return err;
    if (is_comm_predefined(keyval))
        return mp_error(comm, MPI_ERR_KEYVAL, F, "cannot set the predefined attribute 0x%x",
                        (unsigned)keyval);
    if (mp_keyval_check(MP_OBJ_COMM, keyval, 0))
        return keyval_error(F, comm, keyval, "communicator");
    return mp_ret(comm, F, mp_attr_set(MP_OBJ_COMM, comm->handle, &comm->attrs, keyval, value,
                                       kind));
}

int mp_comm_attr_fetch(const char *F, MPI_Comm h, int keyval, void *value, int *flag, int kind)
{
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_ptr(F, comm, value, "attribute_val")) ||
        (err = arg_ptr(F, comm, flag, "flag")))
        return err;
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
    if (mp_keyval_check(MP_OBJ_COMM, keyval, MP_KEYVAL_FREED))
        return keyval_error(F, comm, keyval, "communicator");
    return mp_ret(comm, F, mp_attr_get(MP_OBJ_COMM, comm->attrs, keyval, kind, value, flag));
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    return mp_comm_attr_put("MPI_Comm_set_attr", comm, keyval, (MPI_Aint)value, MP_ATTR_PTR);
}
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *value)
{
    return mp_comm_attr_put("MPI_Attr_put", comm, keyval, (MPI_Aint)value, MP_ATTR_PTR);
}
#pragma weak MPI_Attr_put = PMPI_Attr_put

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    return mp_comm_attr_fetch("MPI_Comm_get_attr", comm, keyval, value, flag, MP_ATTR_PTR);
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
    return mp_comm_attr_fetch("MPI_Attr_get", comm, keyval, value, flag, MP_ATTR_PTR);
}
#pragma weak MPI_Attr_get = PMPI_Attr_get

static int comm_delete_attr(const char *F, MPI_Comm h, int keyval)
{
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)))
        return err;
    if (is_comm_predefined(keyval))
        return mp_error(comm, MPI_ERR_KEYVAL, F, "cannot delete the predefined attribute 0x%x",
                        (unsigned)keyval);
    if (mp_keyval_check(MP_OBJ_COMM, keyval, MP_KEYVAL_FREED))
        return keyval_error(F, comm, keyval, "communicator");
    return mp_ret(comm, F, mp_attr_delete(MP_OBJ_COMM, comm->handle, &comm->attrs, keyval));
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    return comm_delete_attr("MPI_Comm_delete_attr", comm, keyval);
}
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_delete_attr("MPI_Attr_delete", comm, keyval);
}
#pragma weak MPI_Attr_delete = PMPI_Attr_delete

/* ---- datatypes ---- */

static int arg_type(const char *F, MPI_Datatype h, mp_datatype **out)
{
    mp_datatype *dt = h == MPI_DATATYPE_NULL ? NULL : mp_datatype_get(h);
    if (!dt)
        return mp_error(NULL, MPI_ERR_TYPE, F, "invalid datatype 0x%x%s", (unsigned)h,
                        h == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    *out = dt;
    return MPI_SUCCESS;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy,
                            MPI_Type_delete_attr_function *del, int *keyval, void *extra)
{
    static const char *const F = "MPI_Type_create_keyval";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, keyval, "keyval")))
        return err;
    if (mp_keyval_create(MP_OBJ_DATATYPE, (mp_attr_copy_fn *)(void *)copy,
                         (mp_attr_delete_fn *)(void *)del, extra, keyval))
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many keyvals");
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Type_free_keyval(int *keyval)
{
    static const char *const F = "MPI_Type_free_keyval";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_ptr(F, NULL, keyval, "keyval")))
        return err;
    if (mp_keyval_free(MP_OBJ_DATATYPE, keyval))
        return keyval_error(F, NULL, *keyval, "datatype");
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval

int mp_type_attr_put(const char *F, MPI_Datatype h, int keyval, MPI_Aint value, int kind)
{
    mp_datatype *dt = NULL;
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_type(F, h, &dt)))
        return err;
    if (mp_keyval_check(MP_OBJ_DATATYPE, keyval, 0))
        return keyval_error(F, NULL, keyval, "datatype");
    return mp_ret(NULL, F, mp_attr_set(MP_OBJ_DATATYPE, h, &dt->attrs, keyval, value, kind));
}

int mp_type_attr_fetch(const char *F, MPI_Datatype h, int keyval, void *value, int *flag,
                       int kind)
{
    mp_datatype *dt = NULL;
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_type(F, h, &dt)) ||
        (err = arg_ptr(F, NULL, value, "attribute_val")) || (err = arg_ptr(F, NULL, flag, "flag")))
        return err;
    if (mp_keyval_check(MP_OBJ_DATATYPE, keyval, MP_KEYVAL_FREED))
        return keyval_error(F, NULL, keyval, "datatype");
    return mp_ret(NULL, F, mp_attr_get(MP_OBJ_DATATYPE, dt->attrs, keyval, kind, value, flag));
}

int PMPI_Type_set_attr(MPI_Datatype h, int keyval, void *value)
{
    return mp_type_attr_put("MPI_Type_set_attr", h, keyval, (MPI_Aint)value, MP_ATTR_PTR);
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

int PMPI_Type_get_attr(MPI_Datatype h, int keyval, void *value, int *flag)
{
    return mp_type_attr_fetch("MPI_Type_get_attr", h, keyval, value, flag, MP_ATTR_PTR);
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

int PMPI_Type_delete_attr(MPI_Datatype h, int keyval)
{
    static const char *const F = "MPI_Type_delete_attr";
    mp_datatype *dt = NULL;
    int err;
    if ((err = mp_arg_initialized(F)) || (err = arg_type(F, h, &dt)))
        return err;
    if (mp_keyval_check(MP_OBJ_DATATYPE, keyval, MP_KEYVAL_FREED))
        return keyval_error(F, NULL, keyval, "datatype");
    return mp_ret(NULL, F, mp_attr_delete(MP_OBJ_DATATYPE, h, &dt->attrs, keyval));
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr

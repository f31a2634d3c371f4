/* info.c -- MPI_Info_* entry points.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Argument checks and copies between user buffers and the info objects of src/comm/info.c.
 * Info objects have no communicator, so errors go through MPI_COMM_WORLD's handler
 * (mp_error with comm NULL).  MPI_INFO_ENV may be read and duplicated but not changed or
 * freed.  Keys longer than MPI_MAX_INFO_KEY and values longer than MPI_MAX_INFO_VAL are
 * refused with MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

static int arg_info(const char *F, MPI_Info h, int writable, mp_info **out)
{
    mp_info *info = h == MPI_INFO_NULL ? NULL : mp_info_get(h);
    if (!info)
        return mp_error(NULL, MPI_ERR_INFO, F, "invalid info handle 0x%x%s", (unsigned)h,
                        h == MPI_INFO_NULL ? " (MPI_INFO_NULL)" : "");
    if (writable && mp_info_is_env(info))
        return mp_error(NULL, MPI_ERR_INFO, F, "MPI_INFO_ENV is read-only");
    *out = info;
    return MPI_SUCCESS;
}

static int arg_key(const char *F, const char *key)
{
    if (!key)
        return mp_error(NULL, MPI_ERR_INFO_KEY, F, "key is NULL");
    size_t n = strlen(key);
    if (n == 0)
        return mp_error(NULL, MPI_ERR_INFO_KEY, F, "key is the empty string");
    if (n > MPI_MAX_INFO_KEY)
        return mp_error(NULL, MPI_ERR_INFO_KEY, F,
                        "key of length %zu exceeds MPI_MAX_INFO_KEY (%d)", n, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

static int arg_ptr(const char *F, const void *p, const char *name)
{
    if (!p)
        return mp_error(NULL, MPI_ERR_ARG, F, "%s is NULL", name);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    static const char *const F = "MPI_Info_create";
    MP_OUT_NULL(info, MPI_INFO_NULL);
    int err;
    if ((err = arg_ptr(F, info, "info")))
        return err;
    mp_info *obj = mp_info_alloc();
    int handle = mp_info_publish(obj);
    if (!handle) {
        mp_info_destroy(obj);
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many info objects");
    }
    *info = handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_create = PMPI_Info_create

int PMPI_Info_set(MPI_Info h, const char *key, const char *value)
{
    static const char *const F = "MPI_Info_set";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 1, &info)) || (err = arg_key(F, key)))
        return err;
    if (!value)
        return mp_error(NULL, MPI_ERR_INFO_VALUE, F, "value is NULL");
    size_t n = strlen(value);
    if (n > MPI_MAX_INFO_VAL)
        return mp_error(NULL, MPI_ERR_INFO_VALUE, F,
                        "value of length %zu exceeds MPI_MAX_INFO_VAL (%d)", n, MPI_MAX_INFO_VAL);
    mp_info_put(info, key, value);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_set = PMPI_Info_set

int PMPI_Info_delete(MPI_Info h, const char *key)
{
    static const char *const F = "MPI_Info_delete";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 1, &info)) || (err = arg_key(F, key)))
        return err;
    if (!mp_info_remove(info, key))
        return mp_error(NULL, MPI_ERR_INFO_NOKEY, F, "key \"%s\" is not in the info object", key);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_delete = PMPI_Info_delete

int PMPI_Info_get(MPI_Info h, const char *key, int valuelen, char *value, int *flag)
{
    static const char *const F = "MPI_Info_get";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 0, &info)) || (err = arg_key(F, key)) ||
        (err = arg_ptr(F, flag, "flag")))
        return err;
    if (valuelen < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid valuelen %d", valuelen);
    if (!value)
        return mp_error(NULL, MPI_ERR_ARG, F, "value is NULL");
    int i = mp_info_find(info, key);
    *flag = i >= 0;
    if (i >= 0) {
        const char *v = mp_info_val(info, i);
        size_t n = strlen(v);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get = PMPI_Info_get

int PMPI_Info_get_string(MPI_Info h, const char *key, int *buflen, char *value, int *flag)
{
    static const char *const F = "MPI_Info_get_string";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 0, &info)) || (err = arg_key(F, key)) ||
        (err = arg_ptr(F, flag, "flag")) || (err = arg_ptr(F, buflen, "buflen")))
        return err;
    if (*buflen < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid buflen %d", *buflen);
    if (*buflen > 0 && !value)
        return mp_error(NULL, MPI_ERR_ARG, F, "value is NULL with buflen %d", *buflen);
    int i = mp_info_find(info, key);
    *flag = i >= 0;
    if (i >= 0) {
        const char *v = mp_info_val(info, i);
        size_t n = strlen(v);
        if (*buflen > 0) {
            size_t c = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
            memcpy(value, v, c);
            value[c] = '\0';
        }
        *buflen = (int)n + 1;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_string = PMPI_Info_get_string

int PMPI_Info_get_valuelen(MPI_Info h, const char *key, int *valuelen, int *flag)
{
    static const char *const F = "MPI_Info_get_valuelen";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 0, &info)) || (err = arg_key(F, key)) ||
        (err = arg_ptr(F, flag, "flag")) || (err = arg_ptr(F, valuelen, "valuelen")))
        return err;
    int i = mp_info_find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(mp_info_val(info, i));
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen

int PMPI_Info_get_nkeys(MPI_Info h, int *nkeys)
{
    static const char *const F = "MPI_Info_get_nkeys";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 0, &info)) || (err = arg_ptr(F, nkeys, "nkeys")))
        return err;
    *nkeys = mp_info_count(info);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys

int PMPI_Info_get_nthkey(MPI_Info h, int n, char *key)
{
    static const char *const F = "MPI_Info_get_nthkey";
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 0, &info)) || (err = arg_ptr(F, key, "key")))
        return err;
    if (n < 0 || n >= mp_info_count(info))
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid key index %d for an info with %d keys",
                        n, mp_info_count(info));
    strcpy(key, mp_info_key(info, n));
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey

int PMPI_Info_dup(MPI_Info h, MPI_Info *newinfo)
{
    static const char *const F = "MPI_Info_dup";
    MP_OUT_NULL(newinfo, MPI_INFO_NULL);
    mp_info *info = NULL;
    int err;
    if ((err = arg_info(F, h, 0, &info)) || (err = arg_ptr(F, newinfo, "newinfo")))
        return err;
    if (mp_info_dup_handle(h, newinfo))
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many info objects");
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_dup = PMPI_Info_dup

int PMPI_Info_free(MPI_Info *h)
{
    static const char *const F = "MPI_Info_free";
    mp_info *info = NULL;
    int err;
    if ((err = arg_ptr(F, h, "info")) || (err = arg_info(F, *h, 1, &info)))
        return err;
    mp_info_destroy(info);
    *h = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_free = PMPI_Info_free

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char *const F = "MPI_Info_create_env";
    MP_OUT_NULL(info, MPI_INFO_NULL);
    int err;
    if ((err = arg_ptr(F, info, "info")))
        return err;
    mp_info *obj = mp_info_clone(mp_info_get(MPI_INFO_ENV));
    if (argc > 0 && argv && argv[0]) {
        mp_info_put(obj, "command", argv[0]);
        size_t len = 0;
        for (int i = 1; i < argc && argv[i]; i++)
            len += strlen(argv[i]) + 1;
        char *args = mp_calloc(1, len + 1);
        for (int i = 1; i < argc && argv[i]; i++) {
            if (i > 1)
                strcat(args, " ");
            strcat(args, argv[i]);
        }
        if (len <= MPI_MAX_INFO_VAL)
            mp_info_put(obj, "argv", args);
        free(args);
    }
    int handle = mp_info_publish(obj);
    if (!handle) {
        mp_info_destroy(obj);
        return mp_error(NULL, MPI_ERR_NO_MEM, F, "too many info objects");
    }
    *info = handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_create_env = PMPI_Info_create_env

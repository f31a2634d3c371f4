/* info.c -- info objects: keys and values between user buffers and src/comm/info.c.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/info.spec.  Info objects have no
 * communicator, so errors go through MPI_COMM_WORLD's handler.  MPI_INFO_ENV may be read and
 * duplicated but not changed or freed.  Keys longer than MPI_MAX_INFO_KEY and values longer
 * than MPI_MAX_INFO_VAL are refused with MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

static int writable(const char *F, const mp_info *info)
{
    return mp_info_is_env(info) ? mp_err(F, MPI_ERR_INFO, "MPI_INFO_ENV is read-only")
                                : MPI_SUCCESS;
}

static int arg_key(const char *F, const char *key)
{
    if (!key)
        return mp_err(F, MPI_ERR_INFO_KEY, "key is NULL");
    size_t n = strlen(key);
    if (n == 0)
        return mp_err(F, MPI_ERR_INFO_KEY, "key is the empty string");
    if (n > MPI_MAX_INFO_KEY)
        return mp_err(F, MPI_ERR_INFO_KEY, "key of length %zu exceeds MPI_MAX_INFO_KEY (%d)", n,
                      MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

/* A new handle for obj (destroyed if the handle table is full). */
static int publish(const char *F, mp_info *obj, MPI_Info *out)
{
    int handle = mp_info_publish(obj);
    if (!handle) {
        mp_info_destroy(obj);
        return mp_err(F, MPI_ERR_NO_MEM, "too many info objects");
    }
    *out = handle;
    return MPI_SUCCESS;
}

int mp_do_info_create(const char *F, MPI_Info *info)
{
    return publish(F, mp_info_alloc(), info);
}

int mp_do_info_dup(const char *F, mp_info *info, MPI_Info *newinfo)
{
    return publish(F, mp_info_clone(info), newinfo);
}

int mp_do_info_free(const char *F, mp_info *info)
{
    int err = writable(F, info);
    if (!err)
        mp_info_destroy(info);
    return err;
}

int mp_do_info_set(const char *F, mp_info *info, const char *key, const char *value)
{
    int err;
    if ((err = writable(F, info)) || (err = arg_key(F, key)))
        return err;
    if (!value)
        return mp_err(F, MPI_ERR_INFO_VALUE, "value is NULL");
    size_t n = strlen(value);
    if (n > MPI_MAX_INFO_VAL)
        return mp_err(F, MPI_ERR_INFO_VALUE, "value of length %zu exceeds MPI_MAX_INFO_VAL (%d)",
                      n, MPI_MAX_INFO_VAL);
    mp_info_put(info, key, value);
    return MPI_SUCCESS;
}

int mp_do_info_delete(const char *F, mp_info *info, const char *key)
{
    int err;
    if ((err = writable(F, info)) || (err = arg_key(F, key)))
        return err;
    if (!mp_info_remove(info, key))
        return mp_err(F, MPI_ERR_INFO_NOKEY, "key \"%s\" is not in the info object", key);
    return MPI_SUCCESS;
}

/* The index of key in info (-1: absent, *flag 0), after the checks every getter makes. */
static int lookup(const char *F, mp_info *info, const char *key, int *flag, int *index)
{
    int err;
    if ((err = arg_key(F, key)) || (err = mp_chk_out(F, flag, "flag")))
        return err;
    *index = mp_info_find(info, key);
    *flag = *index >= 0;
    return MPI_SUCCESS;
}

int mp_do_info_get(const char *F, mp_info *info, const char *key, int valuelen, char *value,
                   int *flag)
{
    int i, err = lookup(F, info, key, flag, &i);
    if (err)
        return err;
    if (valuelen < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid valuelen %d", valuelen);
    if (!value)
        return mp_err(F, MPI_ERR_ARG, "value is NULL");
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

int mp_do_info_get_string(const char *F, mp_info *info, const char *key, int *buflen,
                          char *value, int *flag)
{
    int i, err = lookup(F, info, key, flag, &i);
    if (err || (err = mp_chk_out(F, buflen, "buflen")))
        return err;
    if (*buflen < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid buflen %d", *buflen);
    if (*buflen > 0 && !value)
        return mp_err(F, MPI_ERR_ARG, "value is NULL with buflen %d", *buflen);
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

int mp_do_info_get_valuelen(const char *F, mp_info *info, const char *key, int *valuelen,
                            int *flag)
{
    int i, err = lookup(F, info, key, flag, &i);
    if (err || (err = mp_chk_out(F, valuelen, "valuelen")))
        return err;
    if (i >= 0)
        *valuelen = (int)strlen(mp_info_val(info, i));
    return MPI_SUCCESS;
}

int mp_do_info_get_nthkey(const char *F, mp_info *info, int n, char *key)
{
    if (n < 0 || n >= mp_info_count(info))
        return mp_err(F, MPI_ERR_ARG, "invalid key index %d for an info with %d keys", n,
                      mp_info_count(info));
    strcpy(key, mp_info_key(info, n));
    return MPI_SUCCESS;
}

int mp_do_info_create_env(const char *F, int argc, char *argv[], MPI_Info *info)
{
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
    return publish(F, obj, info);
}

/* MPI_T calls that hand out an info: an empty new one once the call succeeded (rc), none
 * when the caller passed no place for it. */
int mp_t_info(int rc, MPI_Info *info)
{
    if (rc != MPI_SUCCESS || info == NULL)
        return rc;
    mp_info *i = mp_info_alloc();
    int h = mp_info_publish(i);
    if (!h) {
        mp_info_destroy(i);
        return MPI_T_ERR_MEMORY;
    }
    *info = h;
    return MPI_SUCCESS;
}

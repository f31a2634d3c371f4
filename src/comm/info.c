/* info.c -- info objects: ordered (key, value) string lists.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * An info object keeps its pairs in insertion order because MPI_Info_get_nthkey numbers keys
 * in that order.  Objects are few and small, so lookup is a linear scan and the arrays grow
 * by doubling.  MPI_INFO_ENV is a builtin handle resolved to a static object that is filled
 * on first use with what the standard suggests (maxprocs, soft, host, arch, wdir,
 * thread_level) and is read-only for the user.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

struct mp_info {
    int handle;
    int n, cap;
    char **keys, **vals;
};

static mp_table info_table = { .type = MP_OBJ_INFO, .lock = ATOMIC_FLAG_INIT };
static mp_info env_info;
static atomic_int env_ready;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

mp_info *mp_info_alloc(void)
{
    return mp_calloc(1, sizeof(mp_info));
}

int mp_info_publish(mp_info *info)
{
    info->handle = mp_table_insert(&info_table, info);
    return info->handle;
}

void mp_info_destroy(mp_info *info)
{
    if (!info || info == &env_info)
        return;
    if (info->handle)
        mp_table_remove(&info_table, info->handle);
    for (int i = 0; i < info->n; i++) {
        free(info->keys[i]);
        free(info->vals[i]);
    }
    free(info->keys);
    free(info->vals);
    free(info);
}

int mp_info_find(const mp_info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->keys[i], key) == 0)
            return i;
    return -1;
}

void mp_info_put(mp_info *info, const char *key, const char *value)
{
    int i = mp_info_find(info, key);
    if (i >= 0) {
        free(info->vals[i]);
        info->vals[i] = mp_strdup(value);
        return;
    }
    if (info->n == info->cap) {
        info->cap = info->cap ? 2 * info->cap : 8;
        info->keys = mp_realloc(info->keys, (size_t)info->cap * sizeof(char *));
        info->vals = mp_realloc(info->vals, (size_t)info->cap * sizeof(char *));
    }
    info->keys[info->n] = mp_strdup(key);
    info->vals[info->n] = mp_strdup(value);
    info->n++;
}

int mp_info_remove(mp_info *info, const char *key)
{
    int i = mp_info_find(info, key);
    if (i < 0)
        return 0;
    free(info->keys[i]);
    free(info->vals[i]);
    memmove(&info->keys[i], &info->keys[i + 1], (size_t)(info->n - i - 1) * sizeof(char *));
    memmove(&info->vals[i], &info->vals[i + 1], (size_t)(info->n - i - 1) * sizeof(char *));
    info->n--;
    return 1;
}

int mp_info_count(const mp_info *info) { return info->n; }
const char *mp_info_key(const mp_info *info, int n) { return info->keys[n]; }
const char *mp_info_val(const mp_info *info, int n) { return info->vals[n]; }
int mp_info_is_env(const mp_info *info) { return info == &env_info; }

mp_info *mp_info_clone(const mp_info *info)
{
    mp_info *copy = mp_info_alloc();
    for (int i = 0; i < info->n; i++)
        mp_info_put(copy, info->keys[i], info->vals[i]);
    return copy;
}

static void env_fill(void)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%d", mp_world.size);
    mp_info_put(&env_info, "maxprocs", buf);
    snprintf(buf, sizeof buf, "0:%d", mp_world.size);
    mp_info_put(&env_info, "soft", buf);
    if (gethostname(buf, sizeof buf - 1) == 0) {
        buf[sizeof buf - 1] = '\0';
        mp_info_put(&env_info, "host", buf);
    }
    struct utsname u;
    if (uname(&u) == 0)
        mp_info_put(&env_info, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        mp_info_put(&env_info, "wdir", buf);
    static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    int lvl = mp_world.thread_level;
    mp_info_put(&env_info, "thread_level", levels[lvl >= 0 && lvl <= 3 ? lvl : 0]);
}

mp_info *mp_info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        if (!atomic_load_explicit(&env_ready, memory_order_acquire)) {
            pthread_mutex_lock(&env_lock);
            if (!atomic_load_explicit(&env_ready, memory_order_relaxed)) {
                env_fill();
                atomic_store_explicit(&env_ready, 1, memory_order_release);
            }
            pthread_mutex_unlock(&env_lock);
        }
        return &env_info;
    }
    return mp_table_lookup(&info_table, h);
}

const char *mp_info_value(MPI_Info h, const char *key)
{
    mp_info *info = h == MPI_INFO_NULL ? NULL : mp_info_get(h);
    if (!info)
        return NULL;
    int i = mp_info_find(info, key);
    return i < 0 ? NULL : info->vals[i];
}

int mp_info_dup_handle(MPI_Info h, MPI_Info *out)
{
    mp_info *info = h == MPI_INFO_NULL ? NULL : mp_info_get(h);
    if (!info) {
        *out = MPI_INFO_NULL;
        return MPI_SUCCESS;
    }
    mp_info *copy = mp_info_clone(info);
    if (!mp_info_publish(copy)) {
        mp_info_destroy(copy);
        return MPI_ERR_NO_MEM;
    }
    *out = copy->handle;
    return MPI_SUCCESS;
}

void mp_info_free_handle(MPI_Info h)
{
    if (h == MPI_INFO_NULL || h == MPI_INFO_ENV)
        return;
    mp_info_destroy(mp_table_lookup(&info_table, h));
}

int mp_info_live(void)
{
    return mp_table_live(&info_table);
}

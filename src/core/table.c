/* table.c -- handle tables: integer MPI handles to objects.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A run-time handle is MP_MAKE_HANDLE(type, index).  The table stores object pointers in
 * fixed chunks of MP_TABLE_CHUNK slots allocated on first use; a slot's address never changes,
 * so lookup reads two pointers without any lock.  Insert and remove take a spin lock because
 * they are rare compared with lookups and short (MPI_THREAD_MULTIPLE callers may race).
 * Released indices are reused LIFO, which keeps the live range dense.
 *
 * Lookup validates: wrong kind, wrong type, an index never handed out, or a released slot all
 * return NULL, so bindings can turn a bad handle into a clear error instead of a crash.
 */
#include "core/core.h"
#include <stdlib.h>

static void table_lock(mp_table *t)
{
    while (atomic_flag_test_and_set_explicit(&t->lock, memory_order_acquire))
        ;
}

static void table_unlock(mp_table *t)
{
    atomic_flag_clear_explicit(&t->lock, memory_order_release);
}

int mp_table_insert(mp_table *t, void *obj)
{
    int index = -1;
    table_lock(t);
    if (t->free_count > 0) {
        index = t->free_list[--t->free_count];
    } else if (t->next_index < MP_TABLE_CHUNK * MP_TABLE_CHUNKS) {
        index = t->next_index++;
        void ***chunk = &t->chunks[index / MP_TABLE_CHUNK];
        if (*chunk == NULL) {
            *chunk = calloc(MP_TABLE_CHUNK, sizeof(void *));
            if (*chunk == NULL) {
                t->next_index--;
                index = -1;
            }
        }
    }
    if (index >= 0)
        t->chunks[index / MP_TABLE_CHUNK][index % MP_TABLE_CHUNK] = obj;
    table_unlock(t);
    return index < 0 ? 0 : MP_MAKE_HANDLE(t->type, index);
}

void *mp_table_lookup(const mp_table *t, int handle)
{
    if (MP_HANDLE_KIND(handle) != MP_KIND_DYNAMIC || (int)MP_HANDLE_TYPE(handle) != t->type)
        return NULL;
    unsigned index = MP_HANDLE_INDEX(handle);
    if (index >= (unsigned)MP_TABLE_CHUNK * MP_TABLE_CHUNKS)
        return NULL;
    void **chunk = t->chunks[index / MP_TABLE_CHUNK];
    return chunk ? chunk[index % MP_TABLE_CHUNK] : NULL;
}

void mp_table_remove(mp_table *t, int handle)
{
    if (mp_table_lookup(t, handle) == NULL)
        return;
    unsigned index = MP_HANDLE_INDEX(handle);
    table_lock(t);
    t->chunks[index / MP_TABLE_CHUNK][index % MP_TABLE_CHUNK] = NULL;
    if (t->free_count == t->free_cap) {
        int cap = t->free_cap ? 2 * t->free_cap : 256;
        int *list = realloc(t->free_list, (size_t)cap * sizeof(int));
        if (list) {
            t->free_list = list;
            t->free_cap = cap;
        }
    }
    if (t->free_count < t->free_cap)
        t->free_list[t->free_count++] = (int)index;
    table_unlock(t);
}

int mp_table_live(const mp_table *t)
{
    return t->next_index - t->free_count;
}

/* kvs.c -- the launcher's PMI key-value store: a chained hash table.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Every rank typically puts a few keys and gets every other rank's, so the
 * store sees O(N) puts and O(N^2) gets: a hash table keeps each get O(1).
 * Keys are unique (PMI-1 forbids putting a key twice; refusing it here makes
 * a library bug visible under MemPI's launcher, not only under Hydra).
 * The table doubles when the load passes 1.
 */
#include "mpiexec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    struct entry *next;
    char *key, *value;
} entry;

struct mp_kvs {
    entry **slots;
    size_t nslots, count;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

mp_kvs *mp_kvs_new(void)
{
    mp_kvs *kvs = calloc(1, sizeof *kvs);
    if (kvs == NULL)
        return NULL;
    kvs->nslots = 64;
    kvs->slots = calloc(kvs->nslots, sizeof *kvs->slots);
    if (kvs->slots == NULL) {
        free(kvs);
        return NULL;
    }
    return kvs;
}

void mp_kvs_free(mp_kvs *kvs)
{
    if (kvs == NULL)
        return;
    for (size_t i = 0; i < kvs->nslots; i++) {
        for (entry *e = kvs->slots[i], *next; e != NULL; e = next) {
            next = e->next;
            free(e->key);
            free(e->value);
            free(e);
        }
    }
    free(kvs->slots);
    free(kvs);
}

static entry *find(const mp_kvs *kvs, const char *key)
{
    for (entry *e = kvs->slots[hash(key) & (kvs->nslots - 1)]; e != NULL; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static void grow(mp_kvs *kvs)
{
    size_t n = kvs->nslots * 2;
    entry **slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return;   /* keep the longer chains; still correct */
    for (size_t i = 0; i < kvs->nslots; i++) {
        for (entry *e = kvs->slots[i], *next; e != NULL; e = next) {
            next = e->next;
            size_t j = hash(e->key) & (n - 1);
            e->next = slots[j];
            slots[j] = e;
        }
    }
    free(kvs->slots);
    kvs->slots = slots;
    kvs->nslots = n;
}

int mp_kvs_put(mp_kvs *kvs, const char *key, const char *value)
{
    if (find(kvs, key) != NULL)
        return -1;
    entry *e = malloc(sizeof *e);
    char *k = strdup(key), *v = strdup(value);
    if (e == NULL || k == NULL || v == NULL) {
        free(e);
        free(k);
        free(v);
        return -1;
    }
    if (kvs->count >= kvs->nslots)
        grow(kvs);
    size_t i = hash(key) & (kvs->nslots - 1);
    e->key = k;
    e->value = v;
    e->next = kvs->slots[i];
    kvs->slots[i] = e;
    kvs->count++;
    return 0;
}

const char *mp_kvs_get(const mp_kvs *kvs, const char *key)
{
    entry *e = find(kvs, key);
    return e ? e->value : NULL;
}

/* comm_internals.c -- unit test of context-id masks, attributes, topology helpers and info objects.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Runs without MPI_Init: exercises the comm layer's pure functions directly.  Context ids:
 * the steps of an agreement round at one process (snapshot excludes taken and reserved ids,
 * a speculation reserves the first free ids from its start but not when few are free, a vote
 * reserves each free id or refuses it, settling claims or drops), release bookkeeping.  Attributes: copy/delete callbacks, newest-first deletion, keyval
 * lifetime past MPI_*_free_keyval.  Cartesian helpers: rank/coords round trip, periodic wrap,
 * shifts at open edges.  Info: order of keys, replacement, removal.
 */
#include "comm/comm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond) do { if (!(cond)) { printf("FAIL line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

static int order[8], norder;
static int del_cb(int obj, int keyval, void *value, void *extra)
{
    order[norder++] = (int)(long)value;
    return (long)extra == 99 ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static int copy_cb(int obj, int keyval, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = (void *)((long)in * 10);
    *flag = (long)in != 3;            /* value 3 is not copied */
    return MPI_SUCCESS;
}

static int bit(const uint32_t *w, int id)
{
    return (w[id / 32] >> (id % 32)) & 1;
}

static void test_ctx(void)
{
    uint32_t *w = calloc(MP_CTX_IDS / 32, sizeof(uint32_t));
    mp_ctx_init();
    mp_ctx_snapshot(w);
    EXPECT(!bit(w, 0) && !bit(w, 1) && bit(w, 2) && bit(w, 3));   /* WORLD, SELF taken */
    EXPECT(bit(w, MP_CTX_IDS - 1));
    /* a vote reserves: the next snapshot and any other vote exclude the ids */
    int ids[2] = { 2, 3 };
    EXPECT(mp_ctx_reserve(ids, 2) == 3u);
    mp_ctx_snapshot(w);
    EXPECT(!bit(w, 2) && !bit(w, 3) && bit(w, 4));
    int other[2] = { 3, 4 };
    EXPECT(mp_ctx_reserve(other, 2) == 2u);  /* 3 is reserved: refused; 4 reserved */
    mp_ctx_snapshot(w);
    EXPECT(!bit(w, 4));
    mp_ctx_settle(&other[1], 1, 0);          /* 4 dropped again */
    mp_ctx_snapshot(w);
    EXPECT(bit(w, 4));
    EXPECT(mp_ctx_live() == 2);
    mp_ctx_settle(ids, 2, 1);                /* all voted yes: claimed */
    EXPECT(mp_ctx_live() == 4);
    mp_ctx_snapshot(w);
    EXPECT(!bit(w, 2) && !bit(w, 3));
    EXPECT(mp_ctx_reserve(ids, 1) == 0);     /* claimed ids are refused */
    /* a failed round (or a non-member) drops its reservation without claiming */
    int four = 4;
    EXPECT(mp_ctx_reserve(&four, 1) == 1u);
    mp_ctx_settle(&four, 1, 0);
    mp_ctx_snapshot(w);
    EXPECT(bit(w, 4) && mp_ctx_live() == 4);
    EXPECT(mp_ctx_reserve(&four, 1) == 1u);  /* free again */
    mp_ctx_settle(&four, 1, 0);
    /* a speculation takes the first free, unreserved ids from its start, wrapping */
    int spec[8];
    EXPECT(mp_ctx_reserve_run(MP_CTX_IDS - 2, 4, spec) == 4);
    EXPECT(spec[0] == MP_CTX_IDS - 2 && spec[1] == MP_CTX_IDS - 1 && spec[2] == 4 &&
           spec[3] == 5);                    /* 0-3 are taken */
    int run2[2];
    EXPECT(mp_ctx_reserve_run(MP_CTX_IDS - 1, 2, run2) == 2 && run2[0] == 6 && run2[1] == 7);
    EXPECT(mp_ctx_reserve(&spec[2], 1) == 0);    /* reserved by the speculation */
    mp_ctx_settle(spec, 4, 0);
    mp_ctx_settle(run2, 2, 0);
    mp_ctx_snapshot(w);
    EXPECT(bit(w, 4) && bit(w, 7) && bit(w, MP_CTX_IDS - 1) && mp_ctx_live() == 4);
    /* no speculation when few ids are free */
    int *all = malloc(sizeof(int) * MP_CTX_IDS), nall = 0;
    for (int id = 8; id < MP_CTX_IDS - 100; id++)
        all[nall++] = id;
    for (int i = 0; i < nall; i += 32)
        mp_ctx_reserve(all + i, nall - i < 32 ? nall - i : 32);
    EXPECT(mp_ctx_reserve_run(0, 4, spec) == 0);
    mp_ctx_settle(all, nall, 0);
    EXPECT(mp_ctx_reserve_run(0, 1, spec) == 1 && spec[0] == 4);
    mp_ctx_settle(spec, 1, 0);
    free(all);
    mp_ctx_release(2 * 2);
    EXPECT(mp_ctx_live() == 3);
    mp_ctx_snapshot(w);
    EXPECT(bit(w, 2) && !bit(w, 3));
    mp_ctx_release(0);                       /* WORLD's id is never released */
    EXPECT(mp_ctx_live() == 3);
    free(w);
}

static void test_attr(void)
{
    int kv, kv2;
    mp_attr *list = NULL, *copy = NULL;
    EXPECT(mp_keyval_create(MP_OBJ_COMM, copy_cb, del_cb, NULL, &kv) == MPI_SUCCESS);
    EXPECT(mp_keyval_create(MP_OBJ_COMM, copy_cb, del_cb, NULL, &kv2) == MPI_SUCCESS);
    EXPECT(mp_keyval_check(MP_OBJ_DATATYPE, kv, 0) == MPI_ERR_KEYVAL);
    EXPECT(mp_attr_set(MP_OBJ_COMM, 1, &list, kv, 1, MP_ATTR_PTR) == MPI_SUCCESS);
    EXPECT(mp_attr_set(MP_OBJ_COMM, 1, &list, kv2, 2, MP_ATTR_PTR) == MPI_SUCCESS);
    EXPECT(mp_attr_set(MP_OBJ_DATATYPE, 1, &list, kv, 5, MP_ATTR_PTR) == MPI_ERR_KEYVAL);
    EXPECT(mp_attr_copy_all(MP_OBJ_COMM, 1, 2, list, &copy) == MPI_SUCCESS);
    void *v;
    int flag;
    mp_attr_get(MP_OBJ_COMM, copy, kv, MP_ATTR_PTR, &v, &flag);
    EXPECT(flag && (long)v == 10);
    mp_attr_get(MP_OBJ_COMM, copy, kv2, MP_ATTR_PTR, &v, &flag);
    EXPECT(flag && (long)v == 20);
    /* freeing the keyval keeps the attributes reachable and deletable (MPI 4.0 7.7.2), but
     * the key takes no new attribute and cannot be freed again */
    int kvcopy = kv;
    EXPECT(mp_keyval_free(MP_OBJ_COMM, &kvcopy) == MPI_SUCCESS && kvcopy == MPI_KEYVAL_INVALID);
    EXPECT(mp_attr_get(MP_OBJ_COMM, list, kv, MP_ATTR_PTR, &v, &flag) == MPI_SUCCESS &&
           flag && (long)v == 1);
    EXPECT(mp_keyval_check(MP_OBJ_COMM, kv, 0) == MPI_ERR_KEYVAL);
    EXPECT(mp_keyval_check(MP_OBJ_COMM, kv, MP_KEYVAL_FREED) == MPI_SUCCESS);
    EXPECT(mp_attr_set(MP_OBJ_COMM, 1, &list, kv, 3, MP_ATTR_PTR) == MPI_ERR_KEYVAL);
    kvcopy = kv;
    EXPECT(mp_keyval_free(MP_OBJ_COMM, &kvcopy) == MPI_ERR_KEYVAL);
    norder = 0;
    EXPECT(mp_attr_delete_all(MP_OBJ_COMM, 1, &list) == MPI_SUCCESS);
    EXPECT(norder == 2 && order[0] == 2 && order[1] == 1);   /* newest first */
    EXPECT(list == NULL);
    EXPECT(mp_attr_delete_all(MP_OBJ_COMM, 2, &copy) == MPI_SUCCESS && norder == 4);
    int before = mp_keyval_live();
    EXPECT(mp_keyval_free(MP_OBJ_COMM, &kv2) == MPI_SUCCESS);
    EXPECT(mp_keyval_live() == before - 1);
    /* a failing delete callback keeps the attribute */
    int kv3;
    mp_keyval_create(MP_OBJ_COMM, NULL, del_cb, (void *)99L, &kv3);
    mp_attr_set(MP_OBJ_COMM, 1, &list, kv3, 7, MP_ATTR_PTR);
    EXPECT(mp_attr_delete(MP_OBJ_COMM, 1, &list, kv3) == MPI_ERR_OTHER);
    EXPECT(list != NULL);
    free(list);                 /* the kept attribute: its delete callback refuses to go */
}

static void test_cart(void)
{
    int dims[3] = { 3, 2, 5 }, periods[3] = { 1, 0, 0 }, coords[3], r;
    mp_topo t = { .kind = MPI_CART, .ndims = 3, .dims = dims, .periods = periods };
    for (int rank = 0; rank < 30; rank++) {
        mp_cart_coords_of(&t, rank, coords);
        EXPECT(mp_cart_rank_of(&t, coords, &r) == MPI_SUCCESS && r == rank);
    }
    int c[3] = { -1, 1, 4 };
    EXPECT(mp_cart_rank_of(&t, c, &r) == MPI_SUCCESS && r == 2 * 10 + 1 * 5 + 4);
    c[2] = 5;
    EXPECT(mp_cart_rank_of(&t, c, &r) == MPI_ERR_ARG);
    int src, dst;
    mp_cart_shift_of(&t, 4, 2, 1, &src, &dst);      /* rank 4 = (0,0,4): open edge above */
    EXPECT(dst == MPI_PROC_NULL && src == 3);
    mp_cart_shift_of(&t, 0, 0, 1, &src, &dst);      /* periodic dim */
    EXPECT(dst == 10 && src == 20);
}

static void test_info(void)
{
    mp_info *i = mp_info_alloc();
    mp_info_put(i, "b", "1");
    mp_info_put(i, "a", "2");
    mp_info_put(i, "b", "3");
    EXPECT(mp_info_count(i) == 2);
    EXPECT(strcmp(mp_info_key(i, 0), "b") == 0 && strcmp(mp_info_val(i, 0), "3") == 0);
    mp_info *c = mp_info_clone(i);
    EXPECT(mp_info_remove(i, "b") == 1 && mp_info_remove(i, "b") == 0);
    EXPECT(mp_info_count(i) == 1 && mp_info_count(c) == 2);
    mp_info_destroy(i);
    mp_info_destroy(c);
}

int main(void)
{
    test_ctx();
    test_attr();
    test_cart();
    test_info();
    if (failures == 0)
        printf("comm_internals: ok\n");
    return failures != 0;
}

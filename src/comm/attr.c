/* attr.c -- keyvals and attribute lists on communicators, datatypes and windows.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * A keyval is an object (handle table, MP_OBJ_KEYVAL) holding the copy and delete callbacks
 * and the extra state, tagged with the kind of object it attaches to.  An object's attributes
 * are a singly linked list of (keyval, value), newest first, so destroying an object runs
 * the delete callbacks in the reverse order of creation (the order MPI requires for
 * MPI_COMM_SELF at MPI_Finalize).
 *
 * Keyval lifetime: the user's handle is one reference and every attribute using the keyval
 * another.  MPI_*_free_keyval marks the keyval freed but the object, and its handle, stay
 * until the last attribute using it is deleted: a program that kept the key's value can still
 * get and delete those attributes, a duplicate still copies them, and the delete callback
 * runs when they go (MPI 4.0 7.7.2).  A freed keyval takes no new attribute and cannot be
 * freed again.
 *
 * Values are stored as a word plus the kind they were set as (comm.h, MP_ATTR_*), so a value
 * set from Fortran reads in C as a pointer to the stored integer and one set from C reads in
 * Fortran as the pointer's bits, as MPI 4.0 19.3.7 describes.
 *
 * The callbacks of communicators, datatypes and windows have the same C shape (the first
 * argument is an int handle in this ABI), so one mp_attr_copy_fn / mp_attr_delete_fn type
 * serves all three; the bindings cast.  MPI_*_NULL_COPY_FN and MPI_*_NULL_DELETE_FN are
 * NULL pointers: no copy, and nothing to call on delete.
 *
 * MPICH's C++ binding (Debian's libmpichcxx.so.12, run on MemPI) registers C++ functions as
 * the callbacks and then a proxy per keyval (MPII_Keyval_set_proxy, binding/mpich.c) that
 * must call them for us: when a proxy is set, it is called with the user function first.
 *
 * Predefined attributes (MPI_TAG_UB ...) are builtin keyval handles answered by
 * mp_attr_predefined() in binding/attr.c; they cannot be set, deleted or freed.
 */
#include "comm/comm.h"
#include <stdlib.h>

typedef struct mp_keyval {
    int handle;
    int objtype;
    int user_freed;
    mp_attr_copy_fn *copy;
    mp_attr_delete_fn *del;
    mp_attr_copy_proxy *copy_proxy;   /* MPICH's C++ binding: calls copy/del for us */
    mp_attr_delete_proxy *del_proxy;
    void *extra;
    atomic_int refs;
} mp_keyval;

static mp_table keyval_table = { .type = MP_OBJ_KEYVAL, .lock = ATOMIC_FLAG_INIT };

int mp_keyval_create(int objtype, mp_attr_copy_fn *copy, mp_attr_delete_fn *del, void *extra,
                     int *keyval)
{
    mp_keyval *kv = mp_calloc(1, sizeof *kv);
    kv->objtype = objtype;
    kv->copy = copy;
    kv->del = del;
    kv->extra = extra;
    atomic_init(&kv->refs, 1);
    kv->handle = mp_table_insert(&keyval_table, kv);
    if (!kv->handle) {
        free(kv);
        return MPI_ERR_NO_MEM;
    }
    *keyval = kv->handle;
    return MPI_SUCCESS;
}

/* A keyval of objtype that still exists: not freed, or freed while attributes use it. */
static mp_keyval *keyval_live(int objtype, int keyval)
{
    mp_keyval *kv = mp_table_lookup(&keyval_table, keyval);
    return kv && kv->objtype == objtype ? kv : NULL;
}

static mp_keyval *keyval_user(int objtype, int keyval)
{
    mp_keyval *kv = keyval_live(objtype, keyval);
    return kv && !kv->user_freed ? kv : NULL;
}

int mp_keyval_is_predefined(int keyval)
{
    return MP_HANDLE_KIND(keyval) == MP_KIND_BUILTIN &&
           MP_HANDLE_TYPE(keyval) == MP_OBJ_KEYVAL && keyval != MPI_KEYVAL_INVALID;
}

int mp_keyval_check(int objtype, int keyval, int flags)
{
    if ((flags & MP_KEYVAL_PREDEFINED) && mp_keyval_is_predefined(keyval))
        return MPI_SUCCESS;
    mp_keyval *kv = flags & MP_KEYVAL_FREED ? keyval_live(objtype, keyval)
                                            : keyval_user(objtype, keyval);
    return kv ? MPI_SUCCESS : MPI_ERR_KEYVAL;
}

static void keyval_release(mp_keyval *kv)
{
    if (atomic_fetch_sub_explicit(&kv->refs, 1, memory_order_acq_rel) == 1) {
        mp_table_remove(&keyval_table, kv->handle);
        free(kv);
    }
}

int mp_keyval_free(int objtype, int *keyval)
{
    mp_keyval *kv = keyval_user(objtype, *keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    kv->user_freed = 1;
    keyval_release(kv);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static mp_attr *find(mp_attr *list, int keyval)
{
    for (; list; list = list->next)
        if (list->keyval == keyval)
            return list;
    return NULL;
}

void mp_keyval_set_proxy(int keyval, mp_attr_copy_proxy *copy, mp_attr_delete_proxy *del)
{
    mp_keyval *kv = mp_table_lookup(&keyval_table, keyval);
    if (kv) {
        kv->copy_proxy = copy;
        kv->del_proxy = del;
    }
}

static int call_delete(int handle, mp_attr *a)
{
    mp_keyval *kv = mp_table_lookup(&keyval_table, a->keyval);
    if (!kv || !kv->del)
        return MPI_SUCCESS;
    void *value = (void *)a->word;
    if (kv->del_proxy)
        return kv->del_proxy(kv->del, handle, a->keyval, 0, value, kv->extra);
    return kv->del(handle, a->keyval, value, kv->extra);
}

/* Unlinks and frees one list node (the delete callback has run). */
static void unlink_attr(mp_attr **list, mp_attr *a)
{
    for (mp_attr **p = list; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    mp_keyval *kv = mp_table_lookup(&keyval_table, a->keyval);
    free(a);
    if (kv)
        keyval_release(kv);
}

static void attr_store(mp_attr *a, MPI_Aint word, int kind)
{
    a->kind = kind;
    a->word = kind == MP_ATTR_INT ? (MPI_Aint)(int)word : word;
    a->i32 = (int)word;
}

int mp_attr_set(int objtype, int handle, mp_attr **list, int keyval, MPI_Aint word, int kind)
{
    mp_keyval *kv = keyval_user(objtype, keyval);
    if (!kv)
        return MPI_ERR_KEYVAL;
    mp_attr *a = find(*list, keyval);
    if (a) {
        int err = call_delete(handle, a);
        if (err)
            return err;
        attr_store(a, word, kind);
        return MPI_SUCCESS;
    }
    a = mp_malloc(sizeof *a);
    a->keyval = keyval;
    attr_store(a, word, kind);
    a->next = *list;
    *list = a;
    atomic_fetch_add_explicit(&kv->refs, 1, memory_order_relaxed);
    return MPI_SUCCESS;
}

int mp_attr_get(int objtype, mp_attr *list, int keyval, int want, void *value, int *flag)
{
    if (!keyval_live(objtype, keyval))
        return MPI_ERR_KEYVAL;
    mp_attr *a = find(list, keyval);
    *flag = a != NULL;
    if (!a)
        return MPI_SUCCESS;
    if (want == MP_ATTR_PTR)
        *(void **)value = a->kind == MP_ATTR_PTR ? (void *)a->word
                        : a->kind == MP_ATTR_AINT ? (void *)&a->word : (void *)&a->i32;
    else if (want == MP_ATTR_AINT)
        *(MPI_Aint *)value = a->word;
    else
        *(int *)value = (int)a->word;
    return MPI_SUCCESS;
}

int mp_attr_delete(int objtype, int handle, mp_attr **list, int keyval)
{
    if (!keyval_live(objtype, keyval))
        return MPI_ERR_KEYVAL;
    mp_attr *a = find(*list, keyval);
    if (!a)
        return MPI_SUCCESS;
    int err = call_delete(handle, a);
    if (err)
        return err;
    unlink_attr(list, a);
    return MPI_SUCCESS;
}

int mp_attr_copy_all(int objtype, int old_handle, int new_handle, mp_attr *src, mp_attr **dst)
{
    mp_attr **tail = dst;
    *dst = NULL;
    for (mp_attr *a = src; a; a = a->next) {
        mp_keyval *kv = mp_table_lookup(&keyval_table, a->keyval);
        if (!kv || !kv->copy || kv->objtype != objtype)
            continue;
        void *out = NULL;
        int flag = 0;
        void *value = (void *)a->word;
        int err = kv->copy_proxy ? kv->copy_proxy(kv->copy, old_handle, a->keyval, kv->extra, 0,
                                                  value, &out, &flag)
                                 : kv->copy(old_handle, a->keyval, kv->extra, value, &out, &flag);
        if (err) {
            mp_attr_delete_all(objtype, new_handle, dst);
            return err;
        }
        if (!flag)
            continue;
        mp_attr *b = mp_malloc(sizeof *b);
        b->keyval = a->keyval;
        attr_store(b, (MPI_Aint)out, a->kind);
        b->next = NULL;
        *tail = b;
        tail = &b->next;
        atomic_fetch_add_explicit(&kv->refs, 1, memory_order_relaxed);
    }
    return MPI_SUCCESS;
}

int mp_attr_delete_all(int objtype, int handle, mp_attr **list)
{
    (void)objtype;
    while (*list) {
        mp_attr *a = *list;
        int err = call_delete(handle, a);
        if (err)
            return err;
        unlink_attr(list, a);
    }
    return MPI_SUCCESS;
}

int mp_keyval_live(void)
{
    return mp_table_live(&keyval_table);
}

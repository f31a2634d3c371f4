/* attr.c -- attributes and keyvals from Fortran: values instead of pointers, Fortran callbacks.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * In C an attribute is a void *; in Fortran it is an INTEGER(KIND=MPI_ADDRESS_KIND) value
 * (a default INTEGER for the MPI-1 calls MPI_ATTR_PUT/GET and MPI_KEYVAL_CREATE).  The
 * library keeps how a value was set (binding.h, mp_comm_attr_put/fetch with MP_ATTR_*), and
 * the rules of MPI 4.0 19.3.7 follow: a value set in Fortran reads in C as a pointer to the
 * stored integer, a pointer set in C reads in Fortran as its address, MPI_ATTR_GET returns
 * the low bits of the word and MPI_ATTR_PUT's INTEGER is sign-extended into it.  Predefined
 * attributes read as their values.  As in MPICH, the Fortran names of the predefined keys
 * have their own values (the C value + 1, see tools/gen-fortran), which mp_f_keyval_c maps
 * back.
 *
 * Fortran copy/delete callbacks take every argument by reference and return IERROR, so a
 * keyval created from Fortran registers C trampolines; its extra_state is a small record
 * holding the Fortran procedures and the user's extra state.  Freeing a keyval does not tell
 * us when the last attribute using it is gone, so the records stay on a list until the
 * Fortran MPI_FINALIZE, after which no callback can run (keyvals are few).  The predefined Fortran callbacks (MPI_COMM_DUP_FN, MPI_NULL_COPY_FN,
 * ...) are ordinary Fortran-callable procedures defined at the end of this file.
 */
#include "fortran/fortran.h"
#include "binding/binding.h"
#include <pthread.h>
#include <stdlib.h>

typedef void (mp_f_copy_fn)(MPI_Fint *oldobj, MPI_Fint *keyval, void *extra_state,
                            void *attr_in, void *attr_out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void (mp_f_delete_fn)(MPI_Fint *obj, MPI_Fint *keyval, void *attr,
                              void *extra_state, MPI_Fint *ierror);

typedef struct mp_f_keyval {
    mp_f_copy_fn *copy;
    mp_f_delete_fn *del;
    MPI_Aint extra;                   /* the user's extra state (MPI-2 calls) */
    MPI_Fint extra_int;               /* the same for MPI_KEYVAL_CREATE */
    struct mp_f_keyval *next;         /* every record, for mp_f_keyvals_release() */
} mp_f_keyval;

/* Keyvals may be created from several threads; the list is only touched here. */
static pthread_mutex_t mp_f_keyvals_lock = PTHREAD_MUTEX_INITIALIZER;
static mp_f_keyval *mp_f_keyvals;

static mp_f_keyval *mp_f_keyval_new(void *copy, void *del, const void *extra, int mpi1)
{
    mp_f_keyval *k = mp_calloc(1, sizeof *k);
    k->copy = (mp_f_copy_fn *)copy;
    k->del = (mp_f_delete_fn *)del;
    if (mpi1) k->extra_int = *(const MPI_Fint *)extra;
    else k->extra = *(const MPI_Aint *)extra;
    pthread_mutex_lock(&mp_f_keyvals_lock);
    k->next = mp_f_keyvals;
    mp_f_keyvals = k;
    pthread_mutex_unlock(&mp_f_keyvals_lock);
    return k;
}

void mp_f_keyvals_release(void)
{
    pthread_mutex_lock(&mp_f_keyvals_lock);
    mp_f_keyval *k = mp_f_keyvals;
    mp_f_keyvals = NULL;
    pthread_mutex_unlock(&mp_f_keyvals_lock);
    while (k != NULL) {
        mp_f_keyval *next = k->next;
        free(k);
        k = next;
    }
}

/* Trampolines for MPI-2 keyvals: attribute values are INTEGER(KIND=MPI_ADDRESS_KIND). */
static int mp_f_copy_tramp(int oldobj, int keyval, void *extra_state, void *attribute_val_in,
                           void *attribute_val_out, int *flag)
{
    mp_f_keyval *k = extra_state;
    MPI_Fint fobj = oldobj, fkey = keyval, fflag = MP_F_FALSE, ierr = MPI_SUCCESS;
    MPI_Aint in = (MPI_Aint)attribute_val_in, out = 0;
    k->copy(&fobj, &fkey, &k->extra, &in, &out, &fflag, &ierr);
    *flag = mp_f_is_true(&fflag);
    if (*flag) *(void **)attribute_val_out = (void *)out;
    return ierr;
}

static int mp_f_delete_tramp(int obj, int keyval, void *attribute_val, void *extra_state)
{
    mp_f_keyval *k = extra_state;
    MPI_Fint fobj = obj, fkey = keyval, ierr = MPI_SUCCESS;
    MPI_Aint val = (MPI_Aint)attribute_val;
    k->del(&fobj, &fkey, &val, &k->extra, &ierr);
    return ierr;
}

/* The same for MPI_KEYVAL_CREATE: attribute values and extra state are default INTEGERs. */
static int mp_f_copy_tramp1(MPI_Comm oldobj, int keyval, void *extra_state,
                            void *attribute_val_in, void *attribute_val_out, int *flag)
{
    mp_f_keyval *k = extra_state;
    MPI_Fint fobj = oldobj, fkey = keyval, fflag = MP_F_FALSE, ierr = MPI_SUCCESS;
    MPI_Fint in = (MPI_Fint)(MPI_Aint)attribute_val_in, out = 0;
    k->copy(&fobj, &fkey, &k->extra_int, &in, &out, &fflag, &ierr);
    *flag = mp_f_is_true(&fflag);
    if (*flag) *(void **)attribute_val_out = (void *)(MPI_Aint)out;
    return ierr;
}

static int mp_f_delete_tramp1(MPI_Comm obj, int keyval, void *attribute_val, void *extra_state)
{
    mp_f_keyval *k = extra_state;
    MPI_Fint fobj = obj, fkey = keyval, ierr = MPI_SUCCESS;
    MPI_Fint val = (MPI_Fint)(MPI_Aint)attribute_val;
    k->del(&fobj, &fkey, &val, &k->extra_int, &ierr);
    return ierr;
}

void mp_f_comm_create_keyval(void *copy, void *del, MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror);
void mp_f_comm_create_keyval(void *copy, void *del, MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_create_keyval(mp_f_copy_tramp, mp_f_delete_tramp, keyval,
                                      mp_f_keyval_new(copy, del, extra, 0));
}
MP_F_EXPORT(mp_f_comm_create_keyval, "comm_create_keyval", "COMM_CREATE_KEYVAL")

void mp_f_type_create_keyval(void *copy, void *del, MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror);
void mp_f_type_create_keyval(void *copy, void *del, MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror)
{
    *ierror = PMPI_Type_create_keyval(mp_f_copy_tramp, mp_f_delete_tramp, keyval,
                                      mp_f_keyval_new(copy, del, extra, 0));
}
MP_F_EXPORT(mp_f_type_create_keyval, "type_create_keyval", "TYPE_CREATE_KEYVAL")

void mp_f_win_create_keyval(void *copy, void *del, MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror);
void mp_f_win_create_keyval(void *copy, void *del, MPI_Fint *keyval, MPI_Aint *extra, MPI_Fint *ierror)
{
    *ierror = PMPI_Win_create_keyval(mp_f_copy_tramp, mp_f_delete_tramp, keyval,
                                     mp_f_keyval_new(copy, del, extra, 0));
}
MP_F_EXPORT(mp_f_win_create_keyval, "win_create_keyval", "WIN_CREATE_KEYVAL")

void mp_f_keyval_create(void *copy, void *del, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *ierror);
void mp_f_keyval_create(void *copy, void *del, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *ierror)
{
    *ierror = PMPI_Comm_create_keyval(mp_f_copy_tramp1, mp_f_delete_tramp1, keyval,
                                      mp_f_keyval_new(copy, del, extra, 1));
}
MP_F_EXPORT(mp_f_keyval_create, "keyval_create", "KEYVAL_CREATE")

/* ---- Getting and setting ---- */

/* The C key of a key given from Fortran: predefined keys are C value + 1 in mpif.h. */
static int mp_f_keyval_c(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB + 1: case MPI_HOST + 1: case MPI_IO + 1: case MPI_WTIME_IS_GLOBAL + 1:
    case MPI_UNIVERSE_SIZE + 1: case MPI_LASTUSEDCODE + 1: case MPI_APPNUM + 1:
    case MPI_WIN_BASE + 1: case MPI_WIN_SIZE + 1: case MPI_WIN_DISP_UNIT + 1:
    case MPI_WIN_CREATE_FLAVOR + 1: case MPI_WIN_MODEL + 1:
        return keyval - 1;
    default:
        return keyval;
    }
}

void mp_f_comm_get_attr(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_comm_get_attr(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror)
{
    int found = 0;
    int err = mp_comm_attr_fetch("MPI_Comm_get_attr", *comm, mp_f_keyval_c(*keyval), value,
                                 &found, MP_ATTR_AINT);
    *flag = mp_f_logical(err == MPI_SUCCESS && found);
    *ierror = err;
}
MP_F_EXPORT(mp_f_comm_get_attr, "comm_get_attr", "COMM_GET_ATTR")

void mp_f_attr_get(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_attr_get(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierror)
{
    int found = 0;
    int err = mp_comm_attr_fetch("MPI_Attr_get", *comm, mp_f_keyval_c(*keyval), value, &found,
                                 MP_ATTR_INT);
    *flag = mp_f_logical(err == MPI_SUCCESS && found);
    *ierror = err;
}
MP_F_EXPORT(mp_f_attr_get, "attr_get", "ATTR_GET")

void mp_f_type_get_attr(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_type_get_attr(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror)
{
    int found = 0;
    int err = mp_type_attr_fetch("MPI_Type_get_attr", *type, *keyval, value, &found,
                                 MP_ATTR_AINT);
    *flag = mp_f_logical(err == MPI_SUCCESS && found);
    *ierror = err;
}
MP_F_EXPORT(mp_f_type_get_attr, "type_get_attr", "TYPE_GET_ATTR")

void mp_f_win_get_attr(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_win_get_attr(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierror)
{
    void *v = NULL;
    int found = 0;
    int key = mp_f_keyval_c(*keyval);
    int err = PMPI_Win_get_attr(*win, key, &v, &found);
    if (err == MPI_SUCCESS && found) {
        switch (key) {
        case MPI_WIN_SIZE: *value = *(MPI_Aint *)v; break;
        case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
            *value = *(int *)v; break;
        default: *value = (MPI_Aint)v; break;       /* MPI_WIN_BASE and user attributes */
        }
    }
    *flag = mp_f_logical(err == MPI_SUCCESS && found);
    *ierror = err;
}
MP_F_EXPORT(mp_f_win_get_attr, "win_get_attr", "WIN_GET_ATTR")

void mp_f_comm_set_attr(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierror);
void mp_f_comm_set_attr(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierror)
{
    *ierror = mp_comm_attr_put("MPI_Comm_set_attr", *comm, mp_f_keyval_c(*keyval), *value,
                               MP_ATTR_AINT);
}
MP_F_EXPORT(mp_f_comm_set_attr, "comm_set_attr", "COMM_SET_ATTR")

void mp_f_attr_put(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierror);
void mp_f_attr_put(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierror)
{
    *ierror = mp_comm_attr_put("MPI_Attr_put", *comm, mp_f_keyval_c(*keyval), *value,
                               MP_ATTR_INT);
}
MP_F_EXPORT(mp_f_attr_put, "attr_put", "ATTR_PUT")

void mp_f_type_set_attr(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierror);
void mp_f_type_set_attr(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierror)
{
    *ierror = mp_type_attr_put("MPI_Type_set_attr", *type, *keyval, *value, MP_ATTR_AINT);
}
MP_F_EXPORT(mp_f_type_set_attr, "type_set_attr", "TYPE_SET_ATTR")

void mp_f_win_set_attr(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierror);
void mp_f_win_set_attr(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierror)
{
    *ierror = PMPI_Win_set_attr(*win, mp_f_keyval_c(*keyval), (void *)*value);
}
MP_F_EXPORT(mp_f_win_set_attr, "win_set_attr", "WIN_SET_ATTR")

/* ---- Predefined Fortran callbacks.  The "null" copy functions copy nothing; the "dup"
 *      ones copy the value; the "null" delete functions do nothing. ---- */
void mp_f_null_copy_fn(MPI_Fint *o, MPI_Fint *k, void *e, void *in, void *out, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_null_copy_fn(MPI_Fint *o, MPI_Fint *k, void *e, void *in, void *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)o; (void)k; (void)e; (void)in; (void)out;
    *flag = MP_F_FALSE;
    *ierror = MPI_SUCCESS;
}
MP_F_EXPORT(mp_f_null_copy_fn, "null_copy_fn", "NULL_COPY_FN")
MP_F_EXPORT(mp_f_null_copy_fn, "comm_null_copy_fn", "COMM_NULL_COPY_FN")
MP_F_EXPORT(mp_f_null_copy_fn, "type_null_copy_fn", "TYPE_NULL_COPY_FN")
MP_F_EXPORT(mp_f_null_copy_fn, "win_null_copy_fn", "WIN_NULL_COPY_FN")

void mp_f_null_delete_fn(MPI_Fint *o, MPI_Fint *k, void *attr, void *e, MPI_Fint *ierror);
void mp_f_null_delete_fn(MPI_Fint *o, MPI_Fint *k, void *attr, void *e, MPI_Fint *ierror)
{
    (void)o; (void)k; (void)attr; (void)e;
    *ierror = MPI_SUCCESS;
}
MP_F_EXPORT(mp_f_null_delete_fn, "null_delete_fn", "NULL_DELETE_FN")
MP_F_EXPORT(mp_f_null_delete_fn, "comm_null_delete_fn", "COMM_NULL_DELETE_FN")
MP_F_EXPORT(mp_f_null_delete_fn, "type_null_delete_fn", "TYPE_NULL_DELETE_FN")
MP_F_EXPORT(mp_f_null_delete_fn, "win_null_delete_fn", "WIN_NULL_DELETE_FN")

/* MPI_DUP_FN (MPI-1): default INTEGER attribute values. */
void mp_f_dup_fn(MPI_Fint *o, MPI_Fint *k, MPI_Fint *e, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_dup_fn(MPI_Fint *o, MPI_Fint *k, MPI_Fint *e, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)o; (void)k; (void)e;
    *out = *in;
    *flag = MP_F_TRUE;
    *ierror = MPI_SUCCESS;
}
MP_F_EXPORT(mp_f_dup_fn, "dup_fn", "DUP_FN")

/* MPI_COMM_DUP_FN and friends: INTEGER(KIND=MPI_ADDRESS_KIND) values. */
void mp_f_aint_dup_fn(MPI_Fint *o, MPI_Fint *k, MPI_Aint *e, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
void mp_f_aint_dup_fn(MPI_Fint *o, MPI_Fint *k, MPI_Aint *e, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)o; (void)k; (void)e;
    *out = *in;
    *flag = MP_F_TRUE;
    *ierror = MPI_SUCCESS;
}
MP_F_EXPORT(mp_f_aint_dup_fn, "comm_dup_fn", "COMM_DUP_FN")
MP_F_EXPORT(mp_f_aint_dup_fn, "type_dup_fn", "TYPE_DUP_FN")
MP_F_EXPORT(mp_f_aint_dup_fn, "win_dup_fn", "WIN_DUP_FN")

/* MPI_CONVERSION_FN_NULL: never called (MPI_REGISTER_DATAREP recognizes it by address). */
void mp_f_conversion_fn_null(MPI_Fint *ierror);
void mp_f_conversion_fn_null(MPI_Fint *ierror)
{
    *ierror = MPI_SUCCESS;
}
MP_F_EXPORT(mp_f_conversion_fn_null, "conversion_fn_null", "CONVERSION_FN_NULL")

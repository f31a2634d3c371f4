/* datatype_query.c -- functions that inspect datatypes and addresses.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/datatype.spec.  Sizes, extents and bounds come straight from struct mp_datatype.  Envelope and contents
 * return what the constructor recorded (datatype/derived.c, binding/datatype.c).  Derived
 * types handed out by MPI_Type_get_contents count as new user handles (the user frees them),
 * as the standard requires; predefined types are returned as is.
 */
#include "binding/binding.h"
#include <pthread.h>
#include <string.h>

static int query_type(const char *F, MPI_Datatype h, mp_datatype **dt)
{
    return mp_dtarg_type(F, "datatype", h, MP_TYPE_UNCOMMITTED | MP_TYPE_MARKERS, dt);
}

/* ---------------------------------------------------------------------------------------------
 * Envelope and contents
 * ------------------------------------------------------------------------------------------- */
/* A type built by a _c constructor with counts beyond int has large-count contents, which
 * only the _c forms of get_envelope/get_contents can return. */
static int large_only(const char *F, const mp_datatype *dt)
{
    return mp_error(NULL, MPI_ERR_TYPE, F, "datatype 0x%x was built with counts beyond int "
                    "and has large-count contents; use %s_c", (unsigned)dt->handle, F);
}

/* MPI_Type_get_envelope: the description resolves the type and checks the pointers. */
int mp_do_type_get_envelope(const char *F, mp_datatype *dt, int *num_integers,
                            int *num_addresses, int *num_datatypes, int *combiner)
{
    mp_type_contents c;
    mp_type_contents_of(dt, &c);
    if (c.nlarge)
        return large_only(F, dt);
    *combiner = c.combiner;
    *num_integers = c.nints;
    *num_addresses = c.naints;
    *num_datatypes = c.ntypes;
    return MPI_SUCCESS;
}

int mp_contents(const char *F, mp_datatype *dt, MPI_Count max_integers,
                MPI_Count max_addresses, MPI_Count max_datatypes, int array_of_integers[],
                MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    int err;
    mp_type_contents c;
    mp_type_contents_of(dt, &c);
    const mp_type_contents *info = &c;
    if (info->combiner == MPI_COMBINER_NAMED)
        return mp_error(NULL, MPI_ERR_ARG, F, "datatype %s is predefined (combiner "
                        "MPI_COMBINER_NAMED) and has no contents", dt->name);
    if (max_integers < info->nints || max_addresses < info->naints ||
        max_datatypes < info->ntypes)
        return mp_error(NULL, MPI_ERR_ARG, F, "arrays too small: need %d integers, %d "
                        "addresses, %d datatypes; got %lld, %lld, %lld", info->nints,
                        info->naints, info->ntypes, (long long)max_integers,
                        (long long)max_addresses, (long long)max_datatypes);
    if ((info->nints && (err = mp_dtarg_ptr(F, "array_of_integers", array_of_integers))) ||
        (info->naints && (err = mp_dtarg_ptr(F, "array_of_addresses", array_of_addresses))) ||
        (info->ntypes && (err = mp_dtarg_ptr(F, "array_of_datatypes", array_of_datatypes))))
        return err;
    if (info->nints)
        memcpy(array_of_integers, info->ints, (size_t)info->nints * sizeof(int));
    if (info->naints)
        memcpy(array_of_addresses, info->aints, (size_t)info->naints * sizeof(MPI_Aint));
    for (int i = 0; i < info->ntypes; i++) {
        mp_datatype *t = info->types[i];
        array_of_datatypes[i] = t->handle;
        mp_datatype_user_retain(t);
    }
    return MPI_SUCCESS;
}

int mp_do_type_get_contents(const char *F, MPI_Datatype datatype, int max_integers,
                            int max_addresses, int max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    mp_datatype *dt;
    int err;
    if ((err = query_type(F, datatype, &dt)))
        return err;
    mp_type_contents c;
    mp_type_contents_of(dt, &c);
    if (c.nlarge)
        return large_only(F, dt);
    return mp_contents(F, dt, max_integers, max_addresses, max_datatypes, array_of_integers,
                       array_of_addresses, array_of_datatypes);
}

/* ---------------------------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------------------------- */
int mp_do_type_set_name(const char *F, MPI_Datatype datatype, const char *type_name)
{
    mp_datatype *dt;
    int err;
    if ((err = query_type(F, datatype, &dt)) || (err = mp_dtarg_ptr(F, "type_name", type_name)))
        return err;
    snprintf(dt->name, sizeof dt->name, "%s", type_name);
    return MPI_SUCCESS;
}

int mp_do_type_get_name(const char *F, MPI_Datatype datatype, char *type_name, int *resultlen)
{
    mp_datatype *dt = NULL;
    int err;
    if ((datatype != MPI_DATATYPE_NULL && (err = query_type(F, datatype, &dt))) ||
        (err = mp_dtarg_ptr(F, "type_name", type_name)) ||
        (err = mp_dtarg_ptr(F, "resultlen", resultlen)))
        return err;
    /* MPI 4.1 7.8: the null handle's name is "MPI_DATATYPE_NULL". */
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", dt ? dt->name : "MPI_DATATYPE_NULL");
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Size matching, addresses
 * ------------------------------------------------------------------------------------------- */
int mp_do_type_match_size(const char *F, int typeclass, int size, MPI_Datatype *datatype)
{
    static const MPI_Datatype reals[] = { MPI_REAL4, MPI_REAL8, MPI_REAL16 };
    static const MPI_Datatype ints[] = { MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8 };
    static const MPI_Datatype complexes[] = { MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32 };
    const MPI_Datatype *list;
    int n, err;
    if ((err = mp_dtarg_ptr(F, "datatype", datatype)))
        return err;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL:    list = reals;     n = 3; break;
    case MPI_TYPECLASS_INTEGER: list = ints;      n = 4; break;
    case MPI_TYPECLASS_COMPLEX: list = complexes; n = 3; break;
    default:
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid typeclass %d", typeclass);
    }
    for (int i = 0; i < n; i++)
        if (mp_datatype_get(list[i])->size == size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    return mp_error(NULL, MPI_ERR_ARG, F, "no predefined type of typeclass %d has size %d",
                    typeclass, size);
}

int mp_do_get_address(const char *F, const void *location, MPI_Aint *address)
{
    int err = mp_dtarg_ptr(F, "address", address);
    if (err)
        return err;
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int mp_do_address(const char *F, void *location, MPI_Aint *address)
{
    int err = mp_dtarg_ptr(F, "address", address);
    if (err)
        return err;
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Elements of a received message
 * ------------------------------------------------------------------------------------------- */
int mp_do_get_elements_x(const char *F, const MPI_Status *status, MPI_Datatype datatype,
                         MPI_Count *count)
{
    mp_datatype *dt;
    int err;
    if ((err = mp_dtarg_ptr(F, "status", status)) || (err = mp_dtarg_ptr(F, "count", count)) ||
        (err = mp_dtarg_type(F, "datatype", datatype, 0, &dt)))
        return err;
    *count = mp_datatype_elements(dt, mp_status_bytes(status));
    return MPI_SUCCESS;
}

int mp_do_get_elements_c(const char *F, const MPI_Status *status, MPI_Datatype datatype,
                         MPI_Count *count)
{
    return mp_do_get_elements_x(F, status, datatype, count);
}

int mp_do_get_elements(const char *F, const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c;
    int err = mp_dtarg_ptr(F, "count", count);
    if (err || (err = mp_do_get_elements_x(F, status, datatype, &c)))
        return err;
    *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Fortran 90 parameterized types.  The standard makes the result a predefined type of its
 * own: MPI_Type_get_envelope reports MPI_COMBINER_F90_REAL/COMPLEX (integers p, r) or
 * MPI_COMBINER_F90_INTEGER (integer r), it must not be freed, and repeated calls with the
 * same (p, r) return the same handle.  Each one is a copy of the smallest named type with the
 * requested precision and range (same layout, same basic type for reductions, same type
 * signature, so it matches the named type in communication), marked is_builtin so that it is
 * never reference-counted or freed, and kept in a small cache for the life of the process.
 * ------------------------------------------------------------------------------------------- */
typedef struct f90_entry {
    int combiner, p, r;
    MPI_Datatype handle;
} f90_entry;

static f90_entry *f90_cache;
static int f90_n, f90_cap;
static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns the cached type for (combiner, p, r), creating it as a copy of `named`. */
static int f90_type(const char *F, int combiner, int p, int r, MPI_Datatype named,
                    MPI_Datatype *newtype)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&f90_lock);
    for (int i = 0; i < f90_n; i++)
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r) {
            *newtype = f90_cache[i].handle;
            goto out;
        }
    mp_datatype *base = mp_datatype_get(named);
    mp_datatype *dt = mp_type_named_copy(base);
    int ints[2] = { p, r };
    if (combiner == MPI_COMBINER_F90_INTEGER)
        mp_type_set_contents(dt, combiner, 1, &r, 0, NULL, 0, NULL);
    else
        mp_type_set_contents(dt, combiner, 2, ints, 0, NULL, 0, NULL);
    dt->committed = 1;
    snprintf(dt->name, sizeof dt->name, "%s", base->name);
    MPI_Datatype h;
    if ((err = mp_datatype_register(dt, &h))) {
        err = mp_error_raise(NULL, err, F);
        goto out;
    }
    dt->is_builtin = 1;                   /* from now on: no reference counting, no free */
    if (f90_n == f90_cap) {
        f90_cap = f90_cap ? 2 * f90_cap : 8;
        f90_cache = mp_realloc(f90_cache, (size_t)f90_cap * sizeof *f90_cache);
    }
    f90_cache[f90_n++] = (f90_entry){ combiner, p, r, h };
    *newtype = h;
out:
    pthread_mutex_unlock(&f90_lock);
    return err;
}

/* Index into {4, 8, 16}-byte reals of the smallest one with precision p and range r. */
static int f90_real_index(int p, int r)
{
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (p <= 6 && r <= 37)
        return 0;
    if (p <= 15 && r <= 307)
        return 1;
    if (p <= 33 && r <= 4931)
        return 2;
    return -1;
}

static int f90_real_args(const char *F, const char *kind, int p, int r, MPI_Datatype *newtype)
{
    int err = mp_dtarg_ptr(F, "newtype", newtype);
    if (err)
        return err;
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return mp_error(NULL, MPI_ERR_ARG, F, "p and r are both MPI_UNDEFINED");
    if ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED))
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid precision %d or range %d (must be >= 0 "
                        "or MPI_UNDEFINED)", p, r);
    if (f90_real_index(p, r) < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "no %s type has precision %d and range %d",
                        kind, p, r);
    return MPI_SUCCESS;
}

int mp_do_type_create_f90_real(const char *F, int p, int r, MPI_Datatype *newtype)
{
    static const MPI_Datatype reals[] = { MPI_REAL4, MPI_REAL8, MPI_REAL16 };
    int err = f90_real_args(F, "real", p, r, newtype);
    return err ? err : f90_type(F, MPI_COMBINER_F90_REAL, p, r, reals[f90_real_index(p, r)],
                                newtype);
}

int mp_do_type_create_f90_complex(const char *F, int p, int r, MPI_Datatype *newtype)
{
    static const MPI_Datatype cplx[] = { MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32 };
    int err = f90_real_args(F, "complex", p, r, newtype);
    return err ? err : f90_type(F, MPI_COMBINER_F90_COMPLEX, p, r, cplx[f90_real_index(p, r)],
                                newtype);
}

int mp_do_type_create_f90_integer(const char *F, int r, MPI_Datatype *newtype)
{
    MPI_Datatype named;
    int err = mp_dtarg_ptr(F, "newtype", newtype);
    if (err)
        return err;
    if (r < 0 || r == MPI_UNDEFINED)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid range %d (must be >= 0)", r);
    if (r <= 2)
        named = MPI_INTEGER1;
    else if (r <= 4)
        named = MPI_INTEGER2;
    else if (r <= 9)
        named = MPI_INTEGER4;
    else if (r <= 18)
        named = MPI_INTEGER8;
    else
        return mp_error(NULL, MPI_ERR_ARG, F, "no integer type has range %d", r);
    return f90_type(F, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, named, newtype);
}

int mp_do_type_get_value_index(const char *F, MPI_Datatype value, MPI_Datatype index,
                               MPI_Datatype *pair)
{
    static const MPI_Datatype table[][3] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },   { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },     { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_INT, MPI_INT, MPI_2INT },          { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
    };
    *pair = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i][0] == value && table[i][1] == index)
            *pair = table[i][2];
    return MPI_SUCCESS;
}

/* builtin.c -- the predefined datatypes and the type object lifecycle.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Predefined types have MPICH's handle values: 0x4c00SSII ("builtin" kind, SS the size in
 * bytes, II an index) and, for the value-index pairs whose layout has padding, "direct"
 * handles 0x8c00000I.  They live in a static table indexed by II (or I), so looking one up is
 * an array access plus a check that the whole handle matches.  Types created at run time get
 * "dynamic" handles from mp_datatype_table.
 *
 * Every type, builtin or not, has a loop program (engine.h); a builtin's is one block, except
 * MPI_SHORT_INT whose value and index are separated by padding.  Builtins are never freed:
 * retain/release ignore them.  Derived types are reference counted: the user's handle holds
 * one reference, every pending operation and every type built on top of it another, and the
 * object (and its handle) go away when the last reference is dropped, so MPI_Type_free while
 * a send is in flight is safe.
 */
#include "datatype/engine.h"
#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

mp_table mp_datatype_table = { .type = MP_OBJ_DATATYPE };

typedef struct builtin_desc {
    MPI_Datatype handle;
    const char *name;
    int size;                         /* bytes of data */
    int align;
    int swap;                         /* external32 byte-swap unit (1 = bytes, no swap) */
} builtin_desc;

static const builtin_desc builtin_descs[] = {
    { MPI_CHAR, "MPI_CHAR", 1, 1, 1 },
    { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, 1 },
    { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, 1 },
    { MPI_BYTE, "MPI_BYTE", 1, 1, 1 },
    { MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), _Alignof(wchar_t), sizeof(wchar_t) },
    { MPI_SHORT, "MPI_SHORT", 2, 2, 2 },
    { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2, 2, 2 },
    { MPI_INT, "MPI_INT", 4, 4, 4 },
    { MPI_UNSIGNED, "MPI_UNSIGNED", 4, 4, 4 },
    { MPI_LONG, "MPI_LONG", 8, 8, 8 },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 8, 8, 8 },
    { MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", 8, 8, 8 },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8, 8, 8 },
    { MPI_FLOAT, "MPI_FLOAT", 4, 4, 4 },
    { MPI_DOUBLE, "MPI_DOUBLE", 8, 8, 8 },
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), _Alignof(long double), 16 },
    { MPI_PACKED, "MPI_PACKED", 1, 1, 1 },
    { MPI_LB, "MPI_LB", 0, 1, 1 },
    { MPI_UB, "MPI_UB", 0, 1, 1 },
    { MPI_INT8_T, "MPI_INT8_T", 1, 1, 1 },
    { MPI_INT16_T, "MPI_INT16_T", 2, 2, 2 },
    { MPI_INT32_T, "MPI_INT32_T", 4, 4, 4 },
    { MPI_INT64_T, "MPI_INT64_T", 8, 8, 8 },
    { MPI_UINT8_T, "MPI_UINT8_T", 1, 1, 1 },
    { MPI_UINT16_T, "MPI_UINT16_T", 2, 2, 2 },
    { MPI_UINT32_T, "MPI_UINT32_T", 4, 4, 4 },
    { MPI_UINT64_T, "MPI_UINT64_T", 8, 8, 8 },
    { MPI_C_BOOL, "MPI_C_BOOL", sizeof(bool), 1, 1 },
    { MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", 8, 4, 4 },  /* one handle, MPICH's name */
    { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 8, 8 },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 32, 16, 16 },
    { MPI_AINT, "MPI_AINT", 8, 8, 8 },
    { MPI_OFFSET, "MPI_OFFSET", 8, 8, 8 },
    { MPI_COUNT, "MPI_COUNT", 8, 8, 8 },
    { MPI_CXX_BOOL, "MPI_CXX_BOOL", 1, 1, 1 },
    { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8, 4, 4 },
    { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16, 8, 8 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 32, 16, 16 },
    { MPI_2INT, "MPI_2INT", 8, 4, 4 },
    { MPI_CHARACTER, "MPI_CHARACTER", 1, 1, 1 },
    { MPI_LOGICAL, "MPI_LOGICAL", 4, 4, 4 },
    { MPI_INTEGER, "MPI_INTEGER", 4, 4, 4 },
    { MPI_REAL, "MPI_REAL", 4, 4, 4 },
    { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8, 8 },
    { MPI_COMPLEX, "MPI_COMPLEX", 8, 4, 4 },
    { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 8, 8 },
    { MPI_2INTEGER, "MPI_2INTEGER", 8, 4, 4 },
    { MPI_2REAL, "MPI_2REAL", 8, 4, 4 },
    { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 8, 8 },
    { MPI_INTEGER1, "MPI_INTEGER1", 1, 1, 1 },
    { MPI_INTEGER2, "MPI_INTEGER2", 2, 2, 2 },
    { MPI_INTEGER4, "MPI_INTEGER4", 4, 4, 4 },
    { MPI_INTEGER8, "MPI_INTEGER8", 8, 8, 8 },
    { MPI_REAL4, "MPI_REAL4", 4, 4, 4 },
    { MPI_REAL8, "MPI_REAL8", 8, 8, 8 },
    { MPI_REAL16, "MPI_REAL16", 16, 16, 16 },
    { MPI_COMPLEX8, "MPI_COMPLEX8", 8, 4, 4 },
    { MPI_COMPLEX16, "MPI_COMPLEX16", 16, 8, 8 },
    { MPI_COMPLEX32, "MPI_COMPLEX32", 32, 16, 16 },
};
#define NBUILTIN ((int)(sizeof builtin_descs / sizeof builtin_descs[0]))

/* Value-index pairs: struct { value; int index; } with the compiler's layout. */
struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };

typedef struct pair_desc {
    MPI_Datatype handle;
    const char *name;
    MPI_Datatype value;               /* type of the value member */
    int value_size, index_off, extent, align;
} pair_desc;

static const pair_desc pair_descs[] = {
    { MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, sizeof(float),
      offsetof(struct float_int, i), sizeof(struct float_int), _Alignof(struct float_int) },
    { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, sizeof(double),
      offsetof(struct double_int, i), sizeof(struct double_int), _Alignof(struct double_int) },
    { MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, sizeof(long),
      offsetof(struct long_int, i), sizeof(struct long_int), _Alignof(struct long_int) },
    { MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, sizeof(short),
      offsetof(struct short_int, i), sizeof(struct short_int), _Alignof(struct short_int) },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, sizeof(long double),
      offsetof(struct long_double_int, i), sizeof(struct long_double_int),
      _Alignof(struct long_double_int) },
};
#define NPAIR ((int)(sizeof pair_descs / sizeof pair_descs[0]))

static mp_datatype builtin_types[NBUILTIN], pair_types[NPAIR];
static mp_dtinfo builtin_infos[NBUILTIN], pair_infos[NPAIR];
static mp_datatype *builtin_by_index[256];
static int builtins_ready;

static void builtin_common(mp_datatype *dt, mp_dtinfo *info, MPI_Datatype handle,
                           const char *name, MPI_Aint size, MPI_Aint extent, int align)
{
    memset(dt, 0, sizeof *dt);
    dt->handle = handle;
    dt->size = size;
    dt->extent = extent;
    dt->lb = 0;
    dt->ub = extent;
    dt->is_builtin = 1;
    dt->committed = 1;
    dt->basic = (handle == MPI_LB || handle == MPI_UB) ? MPI_DATATYPE_NULL : handle;
    atomic_init(&dt->refs, 1);
    snprintf(dt->name, sizeof dt->name, "%s", name);
    dt->engine = info;
    mp_prog_init(&info->prog);
    info->combiner = MPI_COMBINER_NAMED;
    info->align = align;
    info->builtin_name = name;
}

static void build_scalar(int i)
{
    const builtin_desc *d = &builtin_descs[i];
    mp_datatype *dt = &builtin_types[i];
    mp_dtinfo *info = &builtin_infos[i];
    builtin_common(dt, info, d->handle, d->name, d->size, d->size, d->align);
    dt->true_lb = 0;
    dt->true_ub = d->size;
    dt->is_contig = 1;
    info->swap = d->swap;
    info->prog.root = mp_prog_block(&info->prog, 0, d->size);
    builtin_by_index[(unsigned)d->handle & 0xff] = dt;
}

static void build_pair(int i)
{
    const pair_desc *d = &pair_descs[i];
    mp_datatype *dt = &pair_types[i];
    mp_dtinfo *info = &pair_infos[i];
    MPI_Aint size = d->value_size + (MPI_Aint)sizeof(int);
    builtin_common(dt, info, d->handle, d->name, size, d->extent, d->align);
    dt->true_lb = 0;
    dt->true_ub = d->index_off + (MPI_Aint)sizeof(int);
    info->pair = d->value_size;
    info->swap = 0;
    if (d->index_off == d->value_size) {
        info->prog.root = mp_prog_block(&info->prog, 0, size);
        dt->is_contig = (size == d->extent);
    } else {
        int32_t byte = mp_prog_block(&info->prog, 0, 1);
        mp_dentry e[2] = {
            { .disp = 0, .n = d->value_size, .stride = 1, .child = byte },
            { .disp = d->index_off, .n = sizeof(int), .stride = 1, .child = byte },
        };
        mp_prog_finish(&info->prog, mp_prog_indexed(&info->prog, 2, e, 0));
    }
}

int mp_datatype_init(void)
{
    if (builtins_ready)
        return MPI_SUCCESS;
    for (int i = 0; i < NBUILTIN; i++)
        build_scalar(i);
    for (int i = 0; i < NPAIR; i++)
        build_pair(i);
    builtins_ready = 1;
    return MPI_SUCCESS;
}

void mp_datatype_finalize(void)
{
    /* Builtins stay valid (tools may query names after finalize); derived types the user
     * did not free are left to process exit. */
}

mp_datatype *mp_datatype_builtin(MPI_Datatype handle)
{
    if (!builtins_ready)
        mp_datatype_init();
    unsigned h = (unsigned)handle;
    if (MP_HANDLE_TYPE(h) != MP_OBJ_DATATYPE)
        return NULL;
    if (MP_HANDLE_KIND(h) == MP_KIND_BUILTIN) {
        mp_datatype *dt = builtin_by_index[h & 0xff];
        return dt && dt->handle == handle ? dt : NULL;
    }
    if (MP_HANDLE_KIND(h) == MP_KIND_DIRECT && MP_HANDLE_INDEX(h) < (unsigned)NPAIR)
        return &pair_types[MP_HANDLE_INDEX(h)];
    return NULL;
}

mp_datatype *mp_datatype_get(MPI_Datatype handle)
{
    if (MP_HANDLE_KIND(handle) == MP_KIND_DYNAMIC)
        return mp_table_lookup(&mp_datatype_table, handle);
    return mp_datatype_builtin(handle);
}

int mp_datatype_check(const char *func, MPI_Datatype handle, MPI_Aint count, mp_datatype **out)
{
    mp_datatype *dt = mp_datatype_get(handle);
    if (handle == MPI_DATATYPE_NULL)
        return mp_error_code(MPI_ERR_TYPE, "%s: datatype is MPI_DATATYPE_NULL", func);
    if (dt == NULL || !mp_dt_user_valid(dt))
        return mp_error_code(MPI_ERR_TYPE, "%s: invalid datatype handle 0x%x", func,
                             (unsigned)handle);
    if (!dt->committed)
        return mp_error_code(MPI_ERR_TYPE, "%s: datatype %s (0x%x) is not committed", func,
                             dt->name[0] ? dt->name : "(unnamed)", (unsigned)handle);
    if (handle == MPI_LB || handle == MPI_UB)
        return mp_error_code(MPI_ERR_TYPE, "%s: %s is a bound marker, not a datatype for data",
                             func, dt->name);
    if (count < 0)
        return mp_error_code(MPI_ERR_COUNT, "%s: negative count %ld", func, (long)count);
    if (out)
        *out = dt;
    return MPI_SUCCESS;
}

mp_datatype *mp_datatype_alloc(void)
{
    mp_datatype *dt = mp_calloc(1, sizeof *dt);
    mp_dtinfo *info = mp_calloc(1, sizeof *info);
    mp_prog_init(&info->prog);
    info->align = 1;
    dt->engine = info;
    dt->basic = MPI_DATATYPE_NULL;
    atomic_init(&dt->refs, 1);
    return dt;
}

int mp_datatype_register(mp_datatype *dt, MPI_Datatype *handle)
{
    int h = mp_table_insert(&mp_datatype_table, dt);
    if (h == 0) {
        mp_datatype_release(dt);
        return mp_error_code(MPI_ERR_INTERN, "too many datatypes (handle table full)");
    }
    dt->handle = h;
    atomic_store_explicit(&mp_dt_info(dt)->user_refs, 1, memory_order_relaxed);
    *handle = h;
    return MPI_SUCCESS;
}

void mp_datatype_retain(mp_datatype *dt)
{
    if (dt && !dt->is_builtin)
        atomic_fetch_add_explicit(&dt->refs, 1, memory_order_relaxed);
}

static void destroy(mp_datatype *dt)
{
    mp_dtinfo *info = mp_dt_info(dt);
    if (dt->handle)
        mp_table_remove(&mp_datatype_table, dt->handle);
    for (int i = 0; i < info->ntypes; i++)
        mp_datatype_release(info->types[i]);
    free(info->types);
    free(info->ints);
    free(info->aints);
    free(info->large);
    mp_prog_free(&info->prog);
    free(info);
    free(dt);
}

void mp_datatype_release(mp_datatype *dt)
{
    if (!dt || dt->is_builtin)
        return;
    /* acq_rel: the thread that frees must see every other thread's last use. */
    if (atomic_fetch_sub_explicit(&dt->refs, 1, memory_order_acq_rel) == 1)
        destroy(dt);
}

int mp_datatype_user_valid(const mp_datatype *dt)
{
    return mp_dt_user_valid(dt);
}

void mp_datatype_user_retain(mp_datatype *dt)
{
    if (!dt->is_builtin) {
        mp_datatype_retain(dt);
        atomic_fetch_add(&mp_dt_info(dt)->user_refs, 1);
    }
}

int mp_datatype_user_count(const mp_datatype *dt)
{
    return atomic_load(&mp_dt_info(dt)->user_refs);
}

void mp_datatype_user_release(mp_datatype *dt)
{
    atomic_fetch_sub(&mp_dt_info(dt)->user_refs, 1);
    mp_datatype_release(dt);
}

void mp_datatype_discard(mp_datatype *dt)
{
    atomic_store(&mp_dt_info(dt)->user_refs, 0);
    mp_datatype_release(dt);
}

void mp_type_contents_of(const mp_datatype *dt, mp_type_contents *c)
{
    const mp_dtinfo *info = mp_dt_info(dt);
    *c = (mp_type_contents){ info->combiner, info->nints, info->naints, info->ntypes,
                             info->nlarge, info->ints, info->aints, info->types, info->large };
}

int mp_type_envelope_c(const mp_datatype *dt, MPI_Count *nints, MPI_Count *naints,
                       MPI_Count *nlarge, MPI_Count *ntypes, int *combiner)
{
    const mp_dtinfo *info = mp_dt_info(dt);
    *nints = info->nints;
    *naints = info->naints;
    *nlarge = info->nlarge;
    *ntypes = info->ntypes;
    *combiner = info->combiner;
    return MPI_SUCCESS;
}

mp_datatype *mp_type_named_copy(mp_datatype *base)
{
    mp_datatype *dt = mp_type_dup(base);
    mp_dt_info(dt)->swap = mp_dt_info(base)->swap;
    mp_dt_info(dt)->pair = mp_dt_info(base)->pair;
    return dt;
}

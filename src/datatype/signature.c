/* signature.c -- type signatures: external32 conversion and element counts.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The loop program (engine.h) knows only bytes; it merges runs of different basic types into
 * one block, which is what makes packing fast.  The few operations that need to know the
 * basic types in the packed stream -- external32 byte order and MPI_Get_elements -- use the
 * type's signature instead: a run-length list of (element size, swap unit, bytes) in stream
 * order, derived from the type's contents (the constructor tree).  For any constructor with
 * a single old type the stream is just size/oldsize copies of the old type's stream, so only
 * struct members need a real walk; a type made of one basic type is one run.
 *
 * external32 on x86-64 has the native sizes for every type MemPI supports, so conversion is
 * a byte swap per swap unit (a complex number swaps its two halves separately).  The one
 * inexact case is long double: native 80-bit extended precision is swapped as 16 bytes, not
 * converted to IEEE binary128.
 */
#include "datatype/engine.h"
#include <stdlib.h>
#include <string.h>

typedef struct sig_run {
    int64_t elem;                     /* bytes per basic element */
    int64_t unit;                     /* bytes per byte-swap unit */
    int64_t bytes;                    /* bytes in this run */
} sig_run;

typedef struct sig {
    sig_run *run;
    int64_t n, cap;
} sig;

static void sig_add(sig *s, int64_t elem, int64_t unit, int64_t bytes)
{
    if (bytes == 0)
        return;
    if (s->n > 0 && s->run[s->n - 1].elem == elem && s->run[s->n - 1].unit == unit) {
        s->run[s->n - 1].bytes += bytes;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->run = mp_realloc(s->run, (size_t)s->cap * sizeof(sig_run));
    }
    s->run[s->n++] = (sig_run){ elem, unit, bytes };
}

/* Appends n copies of `one` to s. */
static void sig_repeat(sig *s, const sig *one, int64_t n)
{
    if (one->n == 1) {
        sig_add(s, one->run[0].elem, one->run[0].unit, one->run[0].bytes * n);
        return;
    }
    for (int64_t k = 0; k < n; k++)
        for (int64_t i = 0; i < one->n; i++)
            sig_add(s, one->run[i].elem, one->run[i].unit, one->run[i].bytes);
}

static void sig_of(sig *s, const mp_datatype *dt, int64_t n);

static void sig_one(sig *one, const mp_datatype *dt)
{
    const mp_dtinfo *info = mp_dt_info(dt);
    if (info->pair) {
        const mp_datatype *value = mp_datatype_builtin(dt->handle == MPI_FLOAT_INT ? MPI_FLOAT
                                   : dt->handle == MPI_DOUBLE_INT ? MPI_DOUBLE
                                   : dt->handle == MPI_LONG_INT ? MPI_LONG
                                   : dt->handle == MPI_SHORT_INT ? MPI_SHORT : MPI_LONG_DOUBLE);
        sig_of(one, value, 1);
        sig_add(one, sizeof(int), sizeof(int), sizeof(int));
        return;
    }
    if (dt->is_builtin) {
        /* 2INT-like Fortran pairs count two elements; complex numbers one */
        int64_t elem = dt->size;
        if (dt->handle == MPI_2INT || dt->handle == MPI_2INTEGER || dt->handle == MPI_2REAL ||
            dt->handle == MPI_2DOUBLE_PRECISION)
            elem = dt->size / 2;
        sig_add(one, elem, info->swap ? info->swap : 1, dt->size);
        return;
    }
    if (info->combiner == MPI_COMBINER_STRUCT || info->combiner == MPI_COMBINER_STRUCT_INTEGER) {
        /* block lengths follow the count, as ints or (a _c constructor's) large counts */
        int64_t count = info->nlarge ? info->large[0] : info->ints[0];
        for (int64_t i = 0; i < count; i++)
            sig_of(one, info->types[i], info->nlarge ? info->large[1 + i] : info->ints[1 + i]);
        return;
    }
    if (info->ntypes >= 1 && info->types[0]->size > 0)
        sig_of(one, info->types[0], dt->size / info->types[0]->size);
}

static void sig_of(sig *s, const mp_datatype *dt, int64_t n)
{
    if (n <= 0 || dt->size == 0)
        return;
    sig one = { 0 };
    sig_one(&one, dt);
    sig_repeat(s, &one, n);
    free(one.run);
}

static void swap_run(unsigned char *p, int64_t unit, int64_t bytes)
{
    if (unit <= 1)
        return;
    for (int64_t off = 0; off + unit <= bytes; off += unit)
        for (int64_t i = 0, j = unit - 1; i < j; i++, j--) {
            unsigned char t = p[off + i];
            p[off + i] = p[off + j];
            p[off + j] = t;
        }
}

/* Swaps a packed stream of count elements of dt in place (the operation is its own inverse). */
static void swap_stream(unsigned char *p, MPI_Aint count, const mp_datatype *dt)
{
    sig s = { 0 };
    sig_of(&s, dt, count);
    for (int64_t i = 0; i < s.n; i++) {
        swap_run(p, s.run[i].unit, s.run[i].bytes);
        p += s.run[i].bytes;
    }
    free(s.run);
}

size_t mp_pack_external(const void *buf, MPI_Aint count, const mp_datatype *dt, void *out)
{
    size_t bytes = mp_pack(buf, count, dt, 0, out, mp_datatype_bytes(dt, count));
    swap_stream(out, count, dt);
    return bytes;
}

size_t mp_unpack_external(const void *in, void *buf, MPI_Aint count, const mp_datatype *dt)
{
    size_t bytes = mp_datatype_bytes(dt, count);
    unsigned char *tmp = mp_malloc(bytes ? bytes : 1);
    memcpy(tmp, in, bytes);
    swap_stream(tmp, count, dt);
    mp_unpack(buf, count, dt, 0, tmp, bytes);
    free(tmp);
    return bytes;
}

MPI_Count mp_datatype_elements(const mp_datatype *dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return 0;
    const mp_datatype *basic = dt->basic != MPI_DATATYPE_NULL ? mp_datatype_builtin(dt->basic)
                                                               : NULL;
    if (basic && !mp_dt_info(basic)->pair && basic->handle != MPI_2INT &&
        basic->handle != MPI_2INTEGER && basic->handle != MPI_2REAL &&
        basic->handle != MPI_2DOUBLE_PRECISION)
        return bytes % basic->size ? MPI_UNDEFINED : bytes / basic->size;
    /* Whole elements of dt first, then walk the signature of one element for the rest. */
    MPI_Count whole = bytes / dt->size, rest = bytes % dt->size, count = 0;
    sig one = { 0 };
    sig_one(&one, dt);
    MPI_Count per = 0;
    for (int64_t i = 0; i < one.n; i++)
        per += one.run[i].bytes / one.run[i].elem;
    count = whole * per;
    for (int64_t i = 0; i < one.n && rest > 0; i++) {
        MPI_Count take = rest < one.run[i].bytes ? rest : one.run[i].bytes;
        if (take % one.run[i].elem) {
            count = MPI_UNDEFINED;
            break;
        }
        count += take / one.run[i].elem;
        rest -= take;
    }
    free(one.run);
    return count;
}

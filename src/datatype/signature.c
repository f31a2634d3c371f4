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
 * external32 (MPI 4.0 15.5.2) is big-endian with the sizes of the standard's table.  Most
 * types have their native size there, so a run converts by a byte swap per swap unit (a
 * complex number swaps its two halves separately).  The others convert element by element:
 *   MPI_LONG, MPI_UNSIGNED_LONG (and MPI_LONG_INT's value)  8 native bytes, 4 external:
 *        the low bytes on packing, sign (or zero) extension on unpacking;
 *   MPI_WCHAR                   4 native bytes, 2 external (a UCS-2 code unit);
 *   long double (MPI_LONG_DOUBLE, its complex types, MPI_LONG_DOUBLE_INT)  x87 80-bit
 *        extended precision in 16 native bytes, IEEE binary128 external: every value
 *        converts exactly on packing, and unpacking rounds the 112-bit fraction to 64 bits.
 * A run records the conversion and the external size of its unit, so pack sizes and the
 * stream positions of a derived type come from the same signature.
 */
#include "datatype/engine.h"
#include <float.h>
#include <stdlib.h>
#include <string.h>

enum { X_SWAP, X_INT, X_UINT, X_LDBL };   /* external32 conversion of a unit */

typedef struct sig_run {
    int64_t elem;                     /* bytes per basic element */
    int64_t unit;                     /* bytes per conversion unit (byte swap, integer, float) */
    int64_t bytes;                    /* bytes in this run */
    int conv;                         /* X_*: how a unit converts to external32 */
    int64_t xunit;                    /* external32 bytes per unit */
} sig_run;

typedef struct sig {
    sig_run *run;
    int64_t n, cap;
} sig;

static void sig_add(sig *s, const sig_run *r, int64_t bytes)
{
    if (bytes == 0)
        return;
    sig_run *last = s->n > 0 ? &s->run[s->n - 1] : NULL;
    if (last && last->elem == r->elem && last->unit == r->unit && last->conv == r->conv &&
        last->xunit == r->xunit) {
        last->bytes += bytes;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->run = mp_realloc(s->run, (size_t)s->cap * sizeof(sig_run));
    }
    s->run[s->n] = *r;
    s->run[s->n++].bytes = bytes;
}

/* Appends n copies of `one` to s. */
static void sig_repeat(sig *s, const sig *one, int64_t n)
{
    if (one->n == 1) {
        sig_add(s, &one->run[0], one->run[0].bytes * n);
        return;
    }
    for (int64_t k = 0; k < n; k++)
        for (int64_t i = 0; i < one->n; i++)
            sig_add(s, &one->run[i], one->run[i].bytes);
}

/* A predefined type's run: element size, conversion unit and external32 unit size. */
static sig_run builtin_run(const mp_datatype *dt)
{
    MPI_Datatype h = dt->handle;
    int swap = mp_dt_info(dt)->swap;
    /* 2INT-like Fortran pairs count two elements; complex numbers one */
    int64_t elem = dt->size;
    if (h == MPI_2INT || h == MPI_2INTEGER || h == MPI_2REAL || h == MPI_2DOUBLE_PRECISION)
        elem = dt->size / 2;
    sig_run r = { elem, swap ? swap : 1, dt->size, X_SWAP, swap ? swap : 1 };
    if (h == MPI_LONG || h == MPI_UNSIGNED_LONG || h == MPI_WCHAR) {
        r.unit = dt->size;
        r.conv = h == MPI_LONG ? X_INT : X_UINT;
        r.xunit = h == MPI_WCHAR ? 2 : 4;
    }
#if LDBL_MANT_DIG == 64
    if (h == MPI_LONG_DOUBLE || h == MPI_C_LONG_DOUBLE_COMPLEX ||
        h == MPI_CXX_LONG_DOUBLE_COMPLEX) {
        r.unit = sizeof(long double);
        r.conv = X_LDBL;
        r.xunit = 16;
    }
#endif
    return r;
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
        sig_of(one, mp_datatype_builtin(MPI_INT), 1);
        return;
    }
    if (dt->is_builtin) {
        sig_run r = builtin_run(dt);
        sig_add(one, &r, dt->size);
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

/* ---- external32 ---- */
static void reverse(unsigned char *dst, const unsigned char *src, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

static int64_t int_native(const unsigned char *p, int64_t n, int is_signed)
{
    switch (n) {
    case 1: { int8_t v; memcpy(&v, p, 1); return is_signed ? (int64_t)v : (int64_t)(uint8_t)v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return is_signed ? (int64_t)v : (int64_t)(uint16_t)v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return is_signed ? (int64_t)v : (int64_t)(uint32_t)v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void int_store(unsigned char *p, int64_t n, int64_t v)
{
    switch (n) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* One unit from native (at n) to external32 (at x), or back when `in` is set. */
static void convert_unit(const sig_run *r, unsigned char *n, unsigned char *x, int in)
{
    switch (r->conv) {
    case X_INT:
    case X_UINT:
        if (!in) {
            uint64_t v = (uint64_t)int_native(n, r->unit, r->conv == X_INT);
            for (int64_t i = r->xunit - 1; i >= 0; i--, v >>= 8)
                x[i] = (unsigned char)v;
        } else {
            uint64_t v = 0;
            for (int64_t i = 0; i < r->xunit; i++)
                v = v << 8 | x[i];
            int shift = 64 - 8 * (int)r->xunit;      /* sign or zero extension */
            int64_t w = r->conv == X_INT ? (int64_t)(v << shift) >> shift : (int64_t)v;
            int_store(n, r->unit, w);
        }
        break;
#if LDBL_MANT_DIG == 64
    case X_LDBL: {
        long double ld;
        __float128 q;
        unsigned char b[16];
        if (!in) {
            memcpy(&ld, n, sizeof ld);
            q = (__float128)ld;
            memcpy(b, &q, 16);
            reverse(x, b, 16);
        } else {
            reverse(b, x, 16);
            memcpy(&q, b, 16);
            ld = (long double)q;
            memset(n, 0, (size_t)r->unit);
            memcpy(n, &ld, sizeof ld < (size_t)r->unit ? sizeof ld : (size_t)r->unit);
        }
        break;
    }
#endif
    default:
        if (in)
            reverse(n, x, r->unit);
        else
            reverse(x, n, r->unit);
        break;
    }
}

/* Converts a native packed stream (count elements of dt) to external32 or back; both
 * buffers hold the whole stream.  Returns the external32 byte count. */
static size_t convert_stream(unsigned char *native, unsigned char *ext, MPI_Aint count,
                             const mp_datatype *dt, int in)
{
    sig s = { 0 };
    sig_of(&s, dt, count);
    size_t total = 0;
    for (int64_t i = 0; i < s.n; i++) {
        const sig_run *r = &s.run[i];
        for (int64_t off = 0; off + r->unit <= r->bytes; off += r->unit) {
            convert_unit(r, native, ext, in);
            native += r->unit;
            ext += r->xunit;
            total += (size_t)r->xunit;
        }
    }
    free(s.run);
    return total;
}

size_t mp_datatype_external_bytes(const mp_datatype *dt, MPI_Aint count)
{
    sig s = { 0 };
    sig_of(&s, dt, count);
    size_t total = 0;
    for (int64_t i = 0; i < s.n; i++)
        total += (size_t)(s.run[i].bytes / s.run[i].unit * s.run[i].xunit);
    free(s.run);
    return total;
}

size_t mp_pack_external(const void *buf, MPI_Aint count, const mp_datatype *dt, void *out)
{
    size_t bytes = mp_datatype_bytes(dt, count);
    unsigned char *tmp = mp_malloc(bytes ? bytes : 1);
    mp_pack(buf, count, dt, 0, tmp, bytes);
    size_t ext = convert_stream(tmp, out, count, dt, 0);
    free(tmp);
    return ext;
}

size_t mp_unpack_external(const void *in, void *buf, MPI_Aint count, const mp_datatype *dt)
{
    size_t bytes = mp_datatype_bytes(dt, count);
    unsigned char *tmp = mp_malloc(bytes ? bytes : 1);
    size_t ext = convert_stream(tmp, (unsigned char *)in, count, dt, 1);
    mp_unpack(buf, count, dt, 0, tmp, bytes);
    free(tmp);
    return ext;
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

MPI_Count mp_datatype_elements_bytes(const mp_datatype *dt, MPI_Count elements)
{
    if (elements <= 0 || dt->size == 0)
        return 0;
    sig one = { 0 };
    sig_one(&one, dt);
    MPI_Count per = 0;
    for (int64_t i = 0; i < one.n; i++)
        per += one.run[i].bytes / one.run[i].elem;
    MPI_Count whole = elements / per, rest = elements % per, bytes = -1;
    if (whole <= INT64_MAX / dt->size) {
        bytes = whole * dt->size;
        for (int64_t i = 0; i < one.n && rest > 0; i++) {
            MPI_Count n = one.run[i].bytes / one.run[i].elem, take = rest < n ? rest : n;
            bytes += take * one.run[i].elem;
            rest -= take;
        }
    }
    free(one.run);
    return bytes;
}

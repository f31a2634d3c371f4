/* apply.c -- accumulate arithmetic on window memory of this process.  MemPI, BSD-3-Clause.
 *
 * Accumulates arrive as runs: `bytes` of packed basic elements for consecutive elements of
 * the target (stride = the basic type's extent).  For most basic types the packed form is the
 * memory form; the pair types of MPI_MINLOC/MPI_MAXLOC with padding (MPI_SHORT_INT,
 * MPI_DOUBLE_INT, ...) are unpacked one element at a time first.  The arithmetic is the
 * reduction kernels' (mp_reduce_local: target = operand op target, the same for the
 * standard's commutative predefined operations); MPI_REPLACE stores the operand and
 * MPI_NO_OP leaves the target alone.  The caller holds the target's accumulate lock.
 */
#include "rma/win.h"
#include <stdint.h>
#include <string.h>

/* MPI_REPLACE.  Aligned 4- and 8-byte elements are stored with single atomic stores: a target
 * that polls its window (the unified model's notification flag, read with atomic loads while
 * it computes) then never sees a torn element, even while another thread of this process --
 * MEMPI_ASYNC_PROGRESS's -- applies the update.  Release ordering costs nothing on x86 and
 * makes the data an origin put before the flag (under the same flush) visible with it. */
static void replace(void *target, const void *in, size_t bytes, size_t size)
{
    uintptr_t both = (uintptr_t)target | (uintptr_t)in;
    if (size == 8 && both % 8 == 0) {
        for (size_t i = 0; i < bytes / 8; i++)
            __atomic_store_n((uint64_t *)target + i, ((const uint64_t *)in)[i], __ATOMIC_RELEASE);
    } else if (size == 4 && both % 4 == 0) {
        for (size_t i = 0; i < bytes / 4; i++)
            __atomic_store_n((uint32_t *)target + i, ((const uint32_t *)in)[i], __ATOMIC_RELEASE);
    } else {
        memcpy(target, in, bytes);
    }
}

void mp_rma_apply(MPI_Op op, MPI_Datatype basic, void *target, const void *in, size_t bytes)
{
    if (op == MPI_NO_OP || bytes == 0)
        return;
    mp_datatype *dt = mp_datatype_get(basic);
    size_t n = bytes / (size_t)dt->size;
    if (dt->size == dt->extent) {
        if (op == MPI_REPLACE)
            replace(target, in, bytes, (size_t)dt->size);
        else
            mp_reduce_local(in, target, (MPI_Aint)n, dt, op);
        return;
    }
    if (op == MPI_REPLACE) {
        mp_unpack(target, (MPI_Aint)n, dt, 0, in, bytes);
        return;
    }
    unsigned char elem[64];               /* the largest pair type with its padding */
    for (size_t i = 0; i < n; i++) {
        mp_unpack(elem, 1, dt, 0, (const char *)in + i * (size_t)dt->size, (size_t)dt->size);
        mp_reduce_local(elem, (char *)target + i * (size_t)dt->extent, 1, dt, op);
    }
}

void mp_rma_cas(MPI_Datatype basic, void *target, const void *compare, const void *value,
                void *result)
{
    size_t size = (size_t)mp_datatype_get(basic)->size;
    memcpy(result, target, size);
    if (memcmp(target, compare, size) == 0)
        memcpy(target, value, size);
}

size_t mp_rma_span(MPI_Datatype basic, size_t bytes)
{
    mp_datatype *dt = mp_datatype_get(basic);
    size_t n = bytes / (size_t)dt->size;
    if (n == 0 || dt->size == dt->extent)
        return bytes;
    return (n - 1) * (size_t)dt->extent + (size_t)dt->true_ub;
}

void mp_rma_fetch_old(MPI_Datatype basic, const void *target, size_t bytes, void *old)
{
    mp_datatype *dt = mp_datatype_get(basic);
    if (dt->size == dt->extent)
        memcpy(old, target, bytes);
    else
        mp_pack(target, (MPI_Aint)(bytes / (size_t)dt->size), dt, 0, old, bytes);
}

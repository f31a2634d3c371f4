/* f08.c -- choice buffers of the mpi_f08 binding: CFI descriptors to addresses.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * mpi_f08 declares every choice buffer TYPE(*), DIMENSION(..), so its C side (the shims that
 * tools/gen-fortran-f08 writes into build/gen/fortran_f08.c) receives a CFI descriptor, not
 * an address.  A contiguous descriptor -- a whole array, a scalar, a contiguous section --
 * passes its base address, so MPI_BOTTOM and MPI_IN_PLACE keep the addresses mp_f_buf
 * recognises.  A noncontiguous section (a(1:n:2), a(i,:)) is where the choice lies; MemPI
 * sets MPI_SUBARRAYS_SUPPORTED to .FALSE. and:
 *   - for a call that is done with the buffer when it returns (blocking point-to-point,
 *     collectives, MPI_Pack, blocking I/O), packs the section into a contiguous temporary in
 *     array element order, passes that, and after a successful call unpacks it into the
 *     section if the buffer is an output -- exactly what the call would have seen had the
 *     user copied the section first, so every datatype and reduction works;
 *   - for a call that keeps the buffer (nonblocking, persistent, one-sided, attached buffers,
 *     split I/O) a temporary would be gone before the data moves, so the section is refused
 *     with MPI_ERR_BUFFER through the error handler of the call's communicator, window or
 *     file, naming the function and the argument;
 *   - for calls that only take an address (MPI_Get_address, MPI_Free_mem, MPI_Win_attach,
 *     MPI_Win_detach) the first element's address is the answer, as in C.
 * Building a derived datatype from the descriptor instead would also serve the nonblocking
 * case, but not reductions (predefined operations apply to predefined datatypes only).
 */
#include "fortran/fortran.h"
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

#ifdef MP_F08_CFI

/* Copies between the section d and the contiguous buffer flat, one element at a time in
 * array element order (the first subscript varies fastest). */
static void section_copy(CFI_cdesc_t *d, char *flat, int pack)
{
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    size_t n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= (size_t)d->dim[i].extent;
    for (size_t k = 0; k < n; k++) {
        char *elem = (char *)d->base_addr;
        for (int i = 0; i < d->rank; i++)
            elem += idx[i] * d->dim[i].sm;
        if (pack)
            memcpy(flat + k * d->elem_len, elem, d->elem_len);
        else
            memcpy(elem, flat + k * d->elem_len, d->elem_len);
        for (int i = 0; i < d->rank && ++idx[i] == d->dim[i].extent; i++)
            idx[i] = 0;
    }
}

/* Whether the elements of d lie next to each other in array element order (CFI_is_contiguous
 * lives in libgfortran, which libmpi does not load).  A dimension of extent 1 may have any
 * stride; an empty array is contiguous. */
static int contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent == 0)
            return 1;
        if (d->dim[i].extent != 1 && d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

static int refuse(const char *func, const char *arg, int owner_kind, const MPI_Fint *owner)
{
    int code = mp_error_code(MPI_ERR_BUFFER,
                             "%s: %s is a noncontiguous array section, which a call that keeps "
                             "its buffer cannot take (MPI_SUBARRAYS_SUPPORTED is .FALSE.); "
                             "pass a contiguous array", func, arg);
    if (owner_kind == MP_F08_WIN && owner)
        PMPI_Win_call_errhandler((MPI_Win)*owner, code);
    else if (owner_kind == MP_F08_FILE && owner)
        PMPI_File_call_errhandler(PMPI_File_f2c(*owner), code);
    else
        PMPI_Comm_call_errhandler(owner ? (MPI_Comm)*owner : MPI_COMM_WORLD, code);
    return code;
}

int mp_f08_buf_in(mp_f08_buf *b, CFI_cdesc_t *d, int mode, int copy_out, const char *func,
                  const char *arg, int owner_kind, const MPI_Fint *owner)
{
    memset(b, 0, sizeof *b);
    b->addr = d->base_addr;
    if (mode == MP_F08_ADDRESS || d->base_addr == NULL || contiguous(d))
        return MPI_SUCCESS;
    if (mode == MP_F08_RETAIN)
        return refuse(func, arg, owner_kind, owner);
    size_t n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= (size_t)d->dim[i].extent;
    b->tmp = mp_malloc(n * d->elem_len > 0 ? n * d->elem_len : 1);
    section_copy(d, b->tmp, 1);
    b->addr = b->tmp;
    b->desc = d;
    b->copy_out = copy_out;
    return MPI_SUCCESS;
}

void mp_f08_buf_done(mp_f08_buf *b, int ok)
{
    if (b->tmp == NULL)
        return;
    if (ok && b->copy_out)
        section_copy(b->desc, b->tmp, 0);
    free(b->tmp);
    b->tmp = NULL;
}

/* MPI_F_SYNC_REG of mpi_f08: a call the compiler cannot see into is all it takes. */
void mempi_f08_f_sync_reg(CFI_cdesc_t *buf) MP_F_EXPORTED;
void mempi_f08_f_sync_reg(CFI_cdesc_t *buf)
{
    (void)buf;
}

#endif

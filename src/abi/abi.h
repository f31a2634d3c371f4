/* abi.h -- the standard-ABI layer's one header: conversions between the MPI 5.0 ABI and MemPI's.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * libmpi_abi.so.1 = MemPI's objects (MPI_x/PMPI_x renamed mp_mpich_MPI_x/mp_mpich_PMPI_x and
 * hidden, mk/abi.mk) + this layer, which exports MPI_x/PMPI_x with the standard ABI's types.
 * Files of this layer include the standard ABI's mpi.h (build/include/abi/mpi.h), never
 * MemPI's: MemPI-side values appear only as the numbers tools/gen-abi reads from
 * include/mpi.h (build/gen/abi_tables.h), and MemPI-side prototypes only with plain C types.
 *
 * Conversions, each a few instructions on the common path:
 *   handles  the standard's predefined handles are small (< MP_ABI_PREDEF_END) and go through
 *            a table (mp_abi_hin); any other pointer value is a MemPI int handle.  Outward,
 *            MemPI's user handles (kind 3: >= 0xc0000000) become pointer values unchanged,
 *            the predefined ones go back through the generated mp_abi_hout_KIND.
 *   files    MemPI's MPI_File is a pointer too: only the null handle differs.
 *   statuses the standard's MPI_internal[0..1] hold MemPI's count_lo/count_hi_and_cancelled.
 *   ints     ranks, tags, error codes, modes ... through mp_abi_CONV_in/_out (abi_tables.h).
 *   errors   MemPI codes are class | slot << 7 with slots far above what fits below the
 *            standard's MPI_ERR_LASTCODE (0x3fff), so a code that carries a message is
 *            handed out as abi_class | k << 7 (k in 1..63) with MemPI's code remembered in a
 *            ring of 63 (mp_abi_err_out); user classes and codes live above MPI_ERR_LASTCODE
 *            (0x4000, 0x5000); MPI_ERR_ABI, which MemPI lacks, is MemPI class 0x7f.
 */
#ifndef MEMPI_ABI_H
#define MEMPI_ABI_H

#include "mpi.h"            /* the standard ABI's header (build/include/abi) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The layer is compiled with default visibility, so that its entry points and their aliases
 * are exported; what this header declares -- tables, helpers, MemPI's renamed entry points
 * -- is hidden and binds locally. */
#pragma GCC visibility push(hidden)

#ifndef MEMPI_ABI
#error "src/abi must be compiled against the standard ABI's mpi.h (-I build/include/abi first)"
#endif

#define MP_ABI_PREDEF_END 0x400          /* every predefined handle of the standard is below */

/* MemPI's MPI_Status (MPICH layout) */
typedef struct {
    int count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR;
} mp_abi_mstatus;
#define MP_ABI_MSTATUS_IGNORE ((mp_abi_mstatus *)1)

/* Temporary arrays for handle and status arrays: on the stack when short. */
#define MP_ABI_TMP(type, var, n)                                                   \
    type var##_stack[16];                                                          \
    type *var = (n) <= 16 ? var##_stack : malloc(sizeof(type) * (size_t)((n) > 0 ? (n) : 1))
#define MP_ABI_TMP_FREE(var) do { if (var != var##_stack) free(var); } while (0)

#include "abi_tables.h"      /* generated: mp_abi_hin, mp_abi_hout_*, the int converters */

/* ---- handles ---- */
static inline int mp_abi_in(const void *h)
{
    uintptr_t v = (uintptr_t)h;
    return v < MP_ABI_PREDEF_END ? mp_abi_hin[v] : (int)(uint32_t)v;
}
#define MP_ABI_OUT(kind)                                                           \
    static inline void *mp_abi_out_##kind(int h)                                   \
    {                                                                              \
        if ((uint32_t)h >= 0xc0000000u) return (void *)(uintptr_t)(uint32_t)h;    \
        return (void *)(uintptr_t)mp_abi_hout_##kind(h);                           \
    }
MP_ABI_OUT(comm)
MP_ABI_OUT(group)
MP_ABI_OUT(datatype)
MP_ABI_OUT(op)
MP_ABI_OUT(errhandler)
MP_ABI_OUT(info)
MP_ABI_OUT(request)
MP_ABI_OUT(message)
MP_ABI_OUT(win)
MP_ABI_OUT(session)

static inline void *mp_abi_file_in(MPI_File f) { return f == MPI_FILE_NULL ? NULL : (void *)f; }
static inline MPI_File mp_abi_file_out(void *f) { return f ? (MPI_File)f : MPI_FILE_NULL; }

/* MemPI's exported sentinel objects (renamed in libmpi_abi) */
extern int *const mp_mpich_MPI_UNWEIGHTED;
extern int *const mp_mpich_MPI_WEIGHTS_EMPTY;
extern void *const mp_mpich_MPI_T_PVAR_ALL_HANDLES;

static inline const void *mp_abi_buf_in(const void *b)
{
    return b == MPI_IN_PLACE ? (const void *)MP_ABI_M_IN_PLACE : b;
}
/* MPI_BUFFER_AUTOMATIC is (void *)2 in the standard ABI and (void *)-2 in MemPI's. */
#define MP_ABI_M_BUFFER_AUTOMATIC ((void *)(intptr_t)-2)
static inline void *mp_abi_attach_in(void *b)
{
    return b == MPI_BUFFER_AUTOMATIC ? MP_ABI_M_BUFFER_AUTOMATIC : b;
}
/* buffer_addr of a detach points to the void * that received the buffer's address. */
static inline void mp_abi_detached_out(void *buffer_addr)
{
    if (*(void **)buffer_addr == MP_ABI_M_BUFFER_AUTOMATIC)
        *(void **)buffer_addr = MPI_BUFFER_AUTOMATIC;
}
static inline int *mp_abi_weights_in(const int *w)
{
    if (w == MPI_UNWEIGHTED) return mp_mpich_MPI_UNWEIGHTED;
    if (w == MPI_WEIGHTS_EMPTY) return mp_mpich_MPI_WEIGHTS_EMPTY;
    return (int *)w;
}
static inline void *mp_abi_pvar_in(MPI_T_pvar_handle h)
{
    return h == MPI_T_PVAR_ALL_HANDLES ? mp_mpich_MPI_T_PVAR_ALL_HANDLES : (void *)h;
}
static inline int mp_abi_cbsafety_in(MPI_T_cb_safety s)
{
    return s == MPI_T_CB_REQUIRE_NONE ? 0 : s == MPI_T_CB_REQUIRE_MPI_RESTRICTED ? 1 :
           s == MPI_T_CB_REQUIRE_THREAD_SAFE ? 2 : 3;
}
static inline MPI_T_cb_safety mp_abi_cbsafety_out(int s)
{
    return s == 0 ? MPI_T_CB_REQUIRE_NONE : s == 1 ? MPI_T_CB_REQUIRE_MPI_RESTRICTED :
           s == 2 ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
}
/* The length an IN/OUT count gives an output array (MPI_T_event_get_info's num_elements). */
static inline int mp_abi_inlen(const int *n) { return n && *n > 0 ? *n : 0; }

/* ---- ranks and tags: the hot path's only constants ---- */
static inline int mp_abi_rank_in(int r) { return r >= 0 ? r : mp_abi_rank_in_slow(r); }
static inline int mp_abi_rank_out(int r) { return r >= 0 ? r : mp_abi_rank_out_slow(r); }
static inline int mp_abi_tag_in(int t) { return t >= 0 ? t : mp_abi_tag_in_slow(t); }
static inline int mp_abi_tag_out(int t) { return t >= 0 ? t : mp_abi_tag_out_slow(t); }

/* ---- error codes ---- */
int mp_abi_err_out_slow(int code);
int mp_abi_err_in_slow(int code);
static inline int mp_abi_err_out(int code) { return code == 0 ? 0 : mp_abi_err_out_slow(code); }
static inline int mp_abi_err_in(int code) { return code == 0 ? 0 : mp_abi_err_in_slow(code); }

/* ---- statuses ---- */
/* MPI_ERROR is written only where MemPI wrote it: by a multiple-completion call that failed
 * with MPI_ERR_IN_STATUS, or a call that sets a status's fields (with_error). */
static inline void mp_abi_status_out(const mp_abi_mstatus *m, MPI_Status *s, int with_error)
{
    s->MPI_SOURCE = mp_abi_rank_out(m->MPI_SOURCE);
    s->MPI_TAG = mp_abi_tag_out(m->MPI_TAG);
    if (with_error)
        s->MPI_ERROR = mp_abi_err_out(m->MPI_ERROR);
    s->MPI_internal[0] = m->count_lo;
    s->MPI_internal[1] = m->count_hi_and_cancelled;
}
static inline void mp_abi_status_in(const MPI_Status *s, mp_abi_mstatus *m)
{
    m->MPI_SOURCE = mp_abi_rank_in(s->MPI_SOURCE);
    m->MPI_TAG = mp_abi_tag_in(s->MPI_TAG);
    m->MPI_ERROR = mp_abi_err_in(s->MPI_ERROR);
    m->count_lo = s->MPI_internal[0];
    m->count_hi_and_cancelled = s->MPI_internal[1];
}

/* The number of peers whose datatypes an Alltoallw-type call takes (abi.c): the group size
 * (remote group of an intercommunicator), or for neighbor forms the in/out degree. */
int mp_abi_peers(int comm, int neighbor, int send);

/* The processes MPI_Comm_spawn_multiple starts: the sum of its maxprocs (its errcodes). */
static inline int mp_abi_sum(int n, const int *v)
{
    int s = 0;
    for (int i = 0; v != NULL && i < n; i++)
        s += v[i];
    return s;
}

/* MPI_Type_get_contents: the integers of a darray or subarray hold distributions and an
 * order, constants of MemPI's ABI; convert them in place (abi.c). */
void mp_abi_contents_ints(int type, int *ints, int n);

/* An entry point whose arguments cannot be converted yet: MPI_ERR_UNSUPPORTED_OPERATION
 * through MPI_COMM_WORLD's handler, with a message naming the function. */
int mp_abi_unsupported(const char *func);

#pragma GCC visibility pop

#endif

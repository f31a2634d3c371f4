/* fortran.h -- helpers shared by the Fortran entry points (mpif.h, `use mpi`, `use mpi_f08`).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Fortran passes every argument by reference and returns errors through a trailing INTEGER
 * IERROR, so each Fortran entry point is a small C function that dereferences its arguments,
 * calls the PMPI_ function and stores the result.  Most of them are generated from the
 * prototypes in mpi.h by tools/gen-fortran (into build/gen/fortran_gen.c); the irregular ones
 * (strings arrays, callbacks, attributes, MPI-1 INTEGER addresses, MPI_Init, MPI_Wtime) are
 * written by hand in the other files of this folder and marked with MP_F_EXPORT, which the
 * generator scans for so it does not emit them twice.
 *
 * Conversions that are identities in the MPICH ABI, and why we may rely on them:
 *   - MPI_Fint is int, and every handle except MPI_File is an int with the same value in C and
 *     Fortran, so handles and INTEGER arrays of handles pass straight through.  MPI_File is a
 *     pointer and goes through MPI_File_c2f/f2c (src/binding/interop.c).
 *   - The Fortran status (INTEGER(MPI_STATUS_SIZE) = 5) has exactly the layout of MPI_Status,
 *     so a status array is a MPI_Status pointer.
 *
 * mpi_f08 (tools/gen-fortran-f08) calls these same entry points, through C shims that turn
 * its CFI descriptors into addresses (mp_f08_buf_in below, f08.c).
 *
 * Sentinels.  mpif.h declares MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ... as variables in
 * common blocks, the same blocks as MPICH's mpif.h.  The library defines those common blocks
 * (sentinels.c), so a Fortran program -- built against MemPI's mpif.h or MPICH's -- and the
 * library agree on their addresses, and an entry point recognises a sentinel by comparing the
 * address it received (mp_f_buf, mp_f_status, ...).  mpi_f08's MPI_BOTTOM, MPI_IN_PLACE and
 * MPI_STATUS(ES)_IGNORE are mpi.h's MPIR_F08_* objects instead, recognised beside them.
 *
 * Symbol names.  Compilers decorate Fortran names differently; MP_F_EXPORT gives one function
 * all the usual forms: pmpi_send_, pmpi_send__, pmpi_send, PMPI_SEND (strong) and the same
 * with mpi_ (weak, so a profiling library may replace them).
 *
 * LOGICAL: gfortran stores .TRUE. as 1 and .FALSE. as 0 and may misbehave on other values, so
 * every LOGICAL result is normalised with mp_f_logical and every LOGICAL argument is read as
 * "non-zero is true".
 *
 * CHARACTER arguments come with a hidden length (size_t, after all other arguments) and are
 * blank-padded, not NUL-terminated: mp_f_str_in makes a C copy without trailing blanks,
 * mp_f_str_out copies a C string back and pads with blanks.
 */
#ifndef MP_FORTRAN_H
#define MP_FORTRAN_H

#include <mpi.h>
#include <stddef.h>

#define MP_F_TRUE  1
#define MP_F_FALSE 0
static inline MPI_Fint mp_f_logical(int c) { return c ? MP_F_TRUE : MP_F_FALSE; }
static inline int mp_f_is_true(const MPI_Fint *f) { return *f != MP_F_FALSE; }

/* Fortran status layout (1-based indices in mpif.h: MPI_SOURCE=3, MPI_TAG=4, MPI_ERROR=5). */
#define MP_F_STATUS_SIZE 5

/* ---- Sentinel storage: the common blocks of mpif.h (sentinels.c), with MPICH's names and
 *      layouts.  gfortran appends one underscore to a common block's name. ---- */
#define MP_F_EXPORTED __attribute__((visibility("default")))
typedef struct mp_f_priv1 {                  /* /MPIPRIV1/ */
    MPI_Fint bottom, in_place, status_ignore[MP_F_STATUS_SIZE];
} mp_f_priv1;
typedef struct mp_f_priv2 {                  /* /MPIPRIV2/ */
    MPI_Fint statuses_ignore[MP_F_STATUS_SIZE], errcodes_ignore[1];
} mp_f_priv2;
typedef struct mp_f_privc {                  /* /MPIPRIVC/ */
    char argvs_null[1], argv_null[1];
} mp_f_privc;
extern mp_f_priv1 mpipriv1_ MP_F_EXPORTED;
extern mp_f_priv2 mpipriv2_ MP_F_EXPORTED;
extern mp_f_privc mpiprivc_ MP_F_EXPORTED;
extern MPI_Fint mpifcmb5_ MP_F_EXPORTED;     /* /MPIFCMB5/ MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_ MP_F_EXPORTED;     /* /MPIFCMB9/ MPI_WEIGHTS_EMPTY */

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become their C values. */
static inline void *mp_f_buf(const void *p)
{
    if (p == (const void *)&mpipriv1_.bottom || p == (const void *)&MPIR_F08_MPI_BOTTOM)
        return MPI_BOTTOM;
    if (p == (const void *)&mpipriv1_.in_place || p == (const void *)&MPIR_F08_MPI_IN_PLACE)
        return MPI_IN_PLACE;
    return (void *)p;
}
static inline MPI_Status *mp_f_status(MPI_Fint *s)
{
    return s == mpipriv1_.status_ignore || s == (MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ
               ? MPI_STATUS_IGNORE : (MPI_Status *)s;
}
static inline MPI_Status *mp_f_statuses(MPI_Fint *s)
{
    return s == mpipriv2_.statuses_ignore || s == (MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ
               ? MPI_STATUSES_IGNORE : (MPI_Status *)s;
}
static inline int *mp_f_errcodes(MPI_Fint *e)
{
    return e == mpipriv2_.errcodes_ignore ? MPI_ERRCODES_IGNORE : (int *)e;
}
static inline int *mp_f_weights(const MPI_Fint *w)
{
    if (w == &mpifcmb5_) return MPI_UNWEIGHTED;
    if (w == &mpifcmb9_) return MPI_WEIGHTS_EMPTY;
    return (int *)w;
}

/* ---- Choice buffers of the mpi_f08 binding (f08.c) ----
 * mpi_f08 passes a choice buffer as a CFI descriptor; mp_f08_buf_in turns it into the
 * address the mpif.h entry point takes.  A contiguous buffer (and every buffer in ADDRESS
 * mode) passes its base address.  A noncontiguous array section is packed into a temporary
 * in COPY mode (blocking calls; with copy_out, mp_f08_buf_done unpacks it after a successful
 * call) and refused with MPI_ERR_BUFFER in RETAIN mode (calls that keep using the buffer
 * after they return), raised through the handler of the communicator, window or file the
 * call names (owner_kind and owner, NULL for none).  Available where the C compiler has
 * gfortran's ISO_Fortran_binding.h, whose descriptor layout the module compiler shares. */
#if defined(__has_include)
#if __has_include(<ISO_Fortran_binding.h>)
#define MP_F08_CFI 1
#include <ISO_Fortran_binding.h>
enum { MP_F08_ADDRESS, MP_F08_COPY, MP_F08_RETAIN };
enum { MP_F08_COMM, MP_F08_WIN, MP_F08_FILE };
typedef struct mp_f08_buf {
    void *addr;                  /* what the entry point receives */
    CFI_cdesc_t *desc;           /* the section to unpack into, when tmp is set */
    void *tmp;                   /* packed copy of a noncontiguous section, or NULL */
    int copy_out;
} mp_f08_buf;
int  mp_f08_buf_in(mp_f08_buf *b, CFI_cdesc_t *d, int mode, int copy_out, const char *func,
                   const char *arg, int owner_kind, const MPI_Fint *owner);
void mp_f08_buf_done(mp_f08_buf *b, int ok);
#endif
#endif

/* ---- CHARACTER arguments (strings.c) ---- */
/* Malloc'd C copy of a Fortran string without trailing (and, if trim_leading, leading)
 * blanks.  Never NULL (aborts the job when out of memory). */
char *mp_f_str_in(const char *f, size_t flen, int trim_leading);
/* Copies the C string c into the Fortran string f of length flen, blank-padded; truncates. */
void  mp_f_str_out(char *f, size_t flen, const char *c);
/* Scratch buffer for a C function that writes a string: room for max(flen, minimum) chars
 * plus the NUL, zero-filled. */
char *mp_f_str_tmp(size_t flen, size_t minimum);

/* ---- Misc helpers ---- */
int  *mp_f_logicals_in(const MPI_Fint *f, int n);    /* malloc'd C copy (n may be 0) */
void  mp_f_logicals_out(MPI_Fint *f, const int *c, int n);
int   mp_f_cartdim(MPI_Comm comm);
void  mp_f_keyvals_release(void);                 /* attr.c: after MPI_FINALIZE */                   /* ndims of a Cartesian comm, 0 if none */
/* Waitany/Testany/Waitsome/Testsome: C indices are 0-based, Fortran ones 1-based. */
static inline void mp_f_index_out(MPI_Fint *idx)
{
    if (*idx >= 0) *idx += 1;                        /* MPI_UNDEFINED stays */
}
static inline void mp_f_indices_out(MPI_Fint *idx, const MPI_Fint *outcount)
{
    if (*outcount == MPI_UNDEFINED) return;
    for (int i = 0; i < *outcount; i++) idx[i] += 1;
}

/* ---- Exporting one function under every Fortran name ---- */
#define MP_F_CAT_(a, b) a##b
#define MP_F_CAT(a, b)  MP_F_CAT_(a, b)
#define MP_F_ALIAS_(fn, sym, ...) \
    extern __typeof__(fn) MP_F_CAT(mp_f_alias_, __COUNTER__) __asm__(sym) \
        __attribute__((alias(#fn), visibility("default") __VA_ARGS__));
/* lower: the name after "mpi_" in lower case ("send"); upper: the same in upper case. */
#define MP_F_EXPORT(fn, lower, upper) \
    MP_F_ALIAS_(fn, "pmpi_" lower "_")  MP_F_ALIAS_(fn, "pmpi_" lower "__") \
    MP_F_ALIAS_(fn, "pmpi_" lower)      MP_F_ALIAS_(fn, "PMPI_" upper)      \
    MP_F_ALIAS_(fn, "mpi_" lower "_", , weak)  MP_F_ALIAS_(fn, "mpi_" lower "__", , weak) \
    MP_F_ALIAS_(fn, "mpi_" lower, , weak)      MP_F_ALIAS_(fn, "MPI_" upper, , weak)

#endif

/* datatype.h -- the datatype layer's interface: type objects, pack/unpack, segments.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Transports, point-to-point and collectives move data only through these functions.  A type
 * is described by its size (bytes of data), extent, bounds and a compact loop representation
 * owned by the engine.  Contiguous types (is_contig) take a fast path: their data is the
 * `size` bytes starting at buf + true_lb for each element, elements `extent` apart, and when
 * extent == size a whole count is one block.
 *
 * Packing and unpacking are resumable: they work on a byte range [offset, offset+len) of the
 * packed stream of (buf, count, type), so transports can pipeline large messages in chunks.
 */
#ifndef MP_DATATYPE_H
#define MP_DATATYPE_H

#include "core/core.h"
#include <sys/uio.h>

struct mp_datatype {
    int handle;
    MPI_Aint size;                    /* bytes of data in one element */
    MPI_Aint extent, lb, ub;          /* extent = ub - lb */
    MPI_Aint true_lb, true_ub;
    int is_contig;                    /* data of one element is one block at true_lb, and
                                         consecutive elements abut (extent == size) */
    int is_builtin;
    int committed;
    int basic;                        /* handle of the basic type if all data is one basic
                                         type (for reductions), else MPI_DATATYPE_NULL */
    atomic_int refs;
    char name[MPI_MAX_OBJECT_NAME];
    void *engine;                     /* private representation owned by the engine */
    mp_attr *attrs;
};

/* Returns the type for a handle, or NULL for an invalid handle or MPI_DATATYPE_NULL. */
mp_datatype *mp_datatype_get(MPI_Datatype handle);

/* Checks a (count, type) argument of an MPI call: valid handle, committed (or builtin),
 * count >= 0.  Returns MPI_SUCCESS or an error code whose message names `func`.  */
int mp_datatype_check(const char *func, MPI_Datatype handle, MPI_Aint count, mp_datatype **out);

/* Bytes of packed data for count elements. */
static inline size_t mp_datatype_bytes(const mp_datatype *dt, MPI_Aint count)
{
    return (size_t)dt->size * (size_t)count;
}

/* Copies bytes [offset, offset+len) of the packed stream of (buf, count, dt) into out.
 * Returns the number of bytes copied (len unless the stream ends first). */
size_t mp_pack(const void *buf, MPI_Aint count, const mp_datatype *dt,
               size_t offset, void *out, size_t len);
/* The inverse: scatters len bytes of packed data `in` to stream position offset. */
size_t mp_unpack(void *buf, MPI_Aint count, const mp_datatype *dt,
                 size_t offset, const void *in, size_t len);

/* Fills up to max (address, length) segments covering stream bytes [offset, offset+len) of
 * (buf, count, dt), merging adjacent ones.  Returns the number of segments written and sets
 * *covered to the stream bytes they cover (less than len when max was too small). */
int mp_segments(const void *buf, MPI_Aint count, const mp_datatype *dt,
                size_t offset, size_t len, struct iovec *iov, int max, size_t *covered);

/* Copies count elements of one layout into another (both may be non-contiguous). */
int mp_datatype_copy(const void *src, MPI_Aint scount, const mp_datatype *sdt,
                     void *dst, MPI_Aint dcount, const mp_datatype *ddt);

void mp_datatype_retain(mp_datatype *dt);
void mp_datatype_release(mp_datatype *dt);

int mp_datatype_init(void);           /* builds the predefined types */
void mp_datatype_finalize(void);

/* ---------------------------------------------------------------------------------------------
 * Additions by the datatype layer (derived.c, external32.c, builtin.c).
 * ------------------------------------------------------------------------------------------- */
/* Constructors for other layers and the bindings.  Arguments must be valid; strides and
 * displacements are in bytes.  The result has one reference, no handle and is not committed:
 * hand it to mp_datatype_register() for a user handle, or just use and release it. */
mp_datatype *mp_type_contiguous(MPI_Aint count, mp_datatype *old);
mp_datatype *mp_type_hvector(MPI_Aint count, MPI_Aint blocklen, MPI_Aint stride, mp_datatype *old);
/* blocklens == NULL: every block has `blocklen` elements */
mp_datatype *mp_type_hindexed(MPI_Aint count, const MPI_Aint *blocklens, MPI_Aint blocklen,
                              const MPI_Aint *displs, mp_datatype *old);
mp_datatype *mp_type_struct(MPI_Aint count, const MPI_Aint *blocklens, const MPI_Aint *displs,
                            mp_datatype *const *types);
mp_datatype *mp_type_resized(mp_datatype *old, MPI_Aint lb, MPI_Aint extent);
mp_datatype *mp_type_dup(mp_datatype *old);
mp_datatype *mp_type_subarray(int ndims, const MPI_Aint *sizes, const MPI_Aint *subsizes,
                              const MPI_Aint *starts, int order, mp_datatype *old);
/* NULL when a distribution argument is invalid */
mp_datatype *mp_type_darray(int size, int rank, int ndims, const MPI_Aint *gsizes,
                            const int *distribs, const int *dargs, const int *psizes, int order,
                            mp_datatype *old);
/* Records what MPI_Type_get_envelope/get_contents report (types are retained). */
void mp_type_set_contents(mp_datatype *dt, int combiner, int nints, const int *ints,
                          int naints, const MPI_Aint *aints, int ntypes, mp_datatype *const *types);
/* Adds the large counts of a _c constructor to what mp_type_set_contents recorded. */
void mp_type_set_large(mp_datatype *dt, int nlarge, const MPI_Count *large);
/* Inserts a new type into the handle table (on failure releases it and returns an error). */
int  mp_datatype_register(mp_datatype *dt, MPI_Datatype *handle);

/* Number of basic elements in the first `bytes` bytes of the packed stream of dt (for
 * MPI_Get_elements); MPI_UNDEFINED when the bytes end inside a basic element. */
MPI_Count mp_datatype_elements(const mp_datatype *dt, MPI_Count bytes);
/* The inverse, for MPI_Status_set_elements: the bytes of the first `elements` basic elements
 * of a stream of dt (whole items, then the first elements of one more); -1 on overflow. */
MPI_Count mp_datatype_elements_bytes(const mp_datatype *dt, MPI_Count elements);

/* external32 representation (big-endian, the standard's sizes: MPI_LONG is 4 bytes there,
 * long double IEEE binary128).  Both return the external32 bytes written or read;
 * mp_datatype_external_bytes is MPI_Pack_external_size. */
size_t mp_pack_external(const void *buf, MPI_Aint count, const mp_datatype *dt, void *out);
size_t mp_unpack_external(const void *in, void *buf, MPI_Aint count, const mp_datatype *dt);
size_t mp_datatype_external_bytes(const mp_datatype *dt, MPI_Aint count);

/* False for a derived type whose every user handle was freed (the object may live on while
 * pending operations or other types hold it, so mp_datatype_get still finds it). */
int mp_datatype_user_valid(const mp_datatype *dt);
/* User handles of a derived type, counted apart from internal references: one more (a
 * handle MPI_Type_get_contents hands out), how many, one fewer (MPI_Type_free: the user's
 * reference goes too), and none at all for a type that was never handed out. */
void mp_datatype_user_retain(mp_datatype *dt);
int  mp_datatype_user_count(const mp_datatype *dt);
void mp_datatype_user_release(mp_datatype *dt);
void mp_datatype_discard(mp_datatype *dt);

/* What a type's constructor recorded (MPI_Type_get_envelope and _contents): pointers into the
 * type, valid while it lives; the types are not retained for the caller. */
typedef struct mp_type_contents {
    int combiner, nints, naints, ntypes, nlarge;
    const int *ints;
    const MPI_Aint *aints;
    mp_datatype *const *types;
    const MPI_Count *large;
} mp_type_contents;
void mp_type_contents_of(const mp_datatype *dt, mp_type_contents *c);
/* MPI_Type_get_envelope_c: the counts of the contents and the combiner. */
int  mp_type_envelope_c(const mp_datatype *dt, MPI_Count *nints, MPI_Count *naints,
                        MPI_Count *nlarge, MPI_Count *ntypes, int *combiner);
/* A named copy of a predefined type (MPI_Type_create_f90_*): base's data and its external32
 * conversion. */
mp_datatype *mp_type_named_copy(mp_datatype *base);

/* Wire encoding of a type's layout (no pointers), e.g. a receive buffer's description sent
 * to the peer that will write into it.  encode returns the bytes needed and writes them only
 * when cap is large enough; decode returns a committed internal type (no handle, release it
 * with mp_datatype_release) or NULL for a malformed encoding. */
size_t       mp_datatype_encode(const mp_datatype *dt, void *buf, size_t cap);
mp_datatype *mp_datatype_decode(const void *buf, size_t len);

#endif

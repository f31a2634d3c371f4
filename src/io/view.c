/* view.c -- file views: set/get, the map from a view's data stream to file offsets, seeks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A view is (disp, etype, filetype, datarep).  Its data stream is the data of the filetype
 * tiled from disp (copy i at disp + i * extent); stream byte p lies in copy p / size at data
 * byte p % size of the filetype, and the datatype layer's segment walk (mp_segments over a base
 * address equal to the copy's file offset) turns a range of the stream into contiguous file
 * pieces -- the datatype engine describes the file exactly as it describes memory.  Filetypes
 * must have non-negative displacements (MPI 4.0 14.3) and data that is a whole number of
 * etypes.  Representations: "native" and "internal" (the same here), and "external32" for
 * types whose external32 layout is the native one (access.c converts the bytes), and user
 * representations registered without conversion functions (their data is the native bytes;
 * their extent function answers MPI_File_get_type_extent for predefined types); other
 * external32 types and representations with conversion functions are refused with
 * MPI_ERR_UNSUPPORTED_DATAREP.
 */
#include "io/io_impl.h"
#include "coll/coll.h"
#include <stdlib.h>
#include <string.h>

enum { PIECES = 64 };

int mp_io_pieces(const mp_file *f, MPI_Offset pos, size_t len, mp_io_piece_fn fn, void *ctx)
{
    const mp_datatype *ft = f->filetype;
    MPI_Offset size = ft->size, extent = ft->extent;
    MPI_Offset tile = pos / size;
    size_t r = (size_t)(pos % size), done = 0;
    MPI_Aint count = (MPI_Aint)((r + len + (size_t)size - 1) / (size_t)size);
    const char *base = (const char *)(uintptr_t)(f->disp + tile * extent);
    struct iovec iov[PIECES];
    while (done < len) {
        size_t covered;
        int n = mp_segments(base, count, ft, r + done, len - done, iov, PIECES, &covered);
        if (n <= 0 || covered == 0)
            return mp_error_code(MPI_ERR_INTERN, "view walk of '%s' made no progress", f->name);
        for (int i = 0; i < n; i++) {
            int rc = fn(ctx, (MPI_Offset)(uintptr_t)iov[i].iov_base, iov[i].iov_len, done);
            if (rc)
                return rc == 1 ? MPI_SUCCESS : rc;
            done += iov[i].iov_len;
        }
    }
    return MPI_SUCCESS;
}

static int first_piece(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    *(MPI_Offset *)ctx = off;
    return 1;
}

MPI_Offset mp_io_file_offset(const mp_file *f, MPI_Offset pos)
{
    MPI_Offset off = f->disp;
    mp_io_pieces(f, pos, 1, first_piece, &off);
    return off;
}

static int piece_end(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    *(MPI_Offset *)ctx = off + (MPI_Offset)len;
    return 1;
}

MPI_Offset mp_io_span_end(const mp_file *f, MPI_Offset pos, size_t len)
{
    MPI_Offset end = f->disp;
    mp_io_pieces(f, pos + (MPI_Offset)len - 1, 1, piece_end, &end);
    return end;
}

typedef struct { MPI_Offset limit, data; } below_ctx;

static int data_below(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    below_ctx *b = ctx;
    if (off >= b->limit)
        return 1;
    b->data += off + (MPI_Offset)len <= b->limit ? (MPI_Offset)len : b->limit - off;
    return 0;
}

MPI_Offset mp_io_view_position(const mp_file *f, MPI_Offset size)
{
    const mp_datatype *ft = f->filetype;
    MPI_Offset esize = f->etype->size;
    if (size <= f->disp)
        return 0;
    MPI_Offset bytes = size - f->disp, tiles = bytes / ft->extent;
    /* data of the whole copies, plus what the next copy has below the end */
    below_ctx b = { size, 0 };
    mp_io_pieces(f, tiles * ft->size, (size_t)ft->size, data_below, &b);
    MPI_Offset data = tiles * ft->size + b.data;
    return (data + esize - 1) / esize;
}

/* external32 is accepted where its layout is the native one: every basic type of the type
 * has the same size in both (int, float, double, char, ... but not long or long double), so
 * displacements and extents agree and only the bytes are converted (big-endian). */
static int same_layout(const mp_datatype *dt)
{
    return mp_datatype_external_bytes(dt, 1) == (size_t)dt->size;
}

/* Registered user representations.  Only those without conversion functions (both
 * MPI_CONVERSION_FN_NULL) can be used in a view: their data is the native bytes. */
typedef struct user_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    int converts;                     /* a read or write conversion function was given */
    MPI_Datarep_extent_function *extent_fn;
    void *extra;
} user_datarep;
enum { MAX_DATAREPS = 64 };
static user_datarep datareps[MAX_DATAREPS];
static int ndatareps;

static user_datarep *find_datarep(const char *name)
{
    for (int i = 0; i < ndatareps; i++)
        if (strcmp(datareps[i].name, name) == 0)
            return &datareps[i];
    return NULL;
}

int mp_io_register_datarep(const char *F, const char *name, void (*read_fn)(void),
                           void (*write_fn)(void), MPI_Datarep_extent_function *extent_fn,
                           void *extra, int large)
{
    if (strlen(name) >= MPI_MAX_DATAREP_STRING)
        return mp_error_code(MPI_ERR_ARG, "%s: datarep name of %zu characters (the limit is "
                             "%d)", F, strlen(name), MPI_MAX_DATAREP_STRING - 1);
    if (find_datarep(name) || strcmp(name, "native") == 0 || strcmp(name, "internal") == 0 ||
        strcmp(name, "external32") == 0)
        return mp_error_code(MPI_ERR_DUP_DATAREP, "%s: data representation \"%s\" is already "
                             "defined", F, name);
    if (ndatareps == MAX_DATAREPS)
        return mp_error_code(MPI_ERR_NO_MEM, "%s: too many data representations (%d)", F,
                             MAX_DATAREPS);
    user_datarep *d = &datareps[ndatareps++];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->converts = read_fn != NULL || write_fn != NULL;
    d->extent_fn = extent_fn;
    d->extra = extra;
    (void)large;
    return MPI_SUCCESS;
}

static int datarep_ok(const char *F, const char *datarep, const mp_datatype *etype,
                      const mp_datatype *filetype)
{
    if (strcmp(datarep, "native") == 0 || strcmp(datarep, "internal") == 0)
        return MPI_SUCCESS;
    const user_datarep *d = find_datarep(datarep);
    if (d && !d->converts)
        return MPI_SUCCESS;
    if (d)
        return mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation \"%s\" "
                             "has conversion functions, which MemPI does not call yet", F,
                             datarep);
    if (strcmp(datarep, "external32") == 0) {
        if (same_layout(etype) && same_layout(filetype))
            return MPI_SUCCESS;
        return mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: \"external32\" views of types "
                             "whose external32 size differs from the native one (such as "
                             "MPI_LONG) are not supported yet", F);
    }
    return mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: unknown data representation "
                         "\"%.64s\" (not native, internal, external32 or registered)", F,
                         datarep);
}

int mp_io_set_view(const char *F, mp_file *f, MPI_Offset disp, mp_datatype *etype,
                   mp_datatype *filetype, const char *datarep, MPI_Info info)
{
    int err = datarep_ok(F, datarep, etype, filetype);
    if (err)
        return err;
    if (etype->size <= 0)
        return mp_error_code(MPI_ERR_ARG, "%s: etype of size %ld for '%s' (must hold data)",
                             F, (long)etype->size, f->name);
    if (filetype->size <= 0 || filetype->size % etype->size)
        return mp_error_code(MPI_ERR_ARG, "%s: filetype of %ld bytes of data is not a whole "
                             "number of etypes of %ld bytes ('%s')", F, (long)filetype->size,
                             (long)etype->size, f->name);
    if (filetype->true_lb < 0 || filetype->extent <= 0)
        return mp_error_code(MPI_ERR_ARG, "%s: filetype with a negative displacement or "
                             "extent (true lb %ld, extent %ld) for '%s'", F,
                             (long)filetype->true_lb, (long)filetype->extent, f->name);
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return mp_error_code(MPI_ERR_ARG, "%s: MPI_DISPLACEMENT_CURRENT needs a file "
                                 "opened with MPI_MODE_SEQUENTIAL ('%s')", F, f->name);
        MPI_Offset shared;
        if ((err = mp_io_shared_fetch_add(F, f, 0, &shared)))
            return err;
        disp = mp_io_file_offset(f, shared * f->etype->size);
    } else if (disp < 0) {
        return mp_error_code(MPI_ERR_ARG, "%s: negative displacement %ld for '%s'", F,
                             (long)disp, f->name);
    }
    /* every rank has read the shared pointer before rank 0 resets it */
    if ((err = mp_barrier(f->comm)))
        return err;
    mp_datatype_retain(etype);
    mp_datatype_retain(filetype);
    mp_datatype_release(f->etype);
    mp_datatype_release(f->filetype);
    f->etype = etype;
    f->filetype = filetype;
    f->disp = disp;
    snprintf(f->datarep, sizeof f->datarep, "%s", datarep);
    f->external = strcmp(datarep, "external32") == 0;
    f->pos = 0;
    if ((err = mp_io_shared_set(F, f, 0)))
        return err;
    return info != MPI_INFO_NULL ? mp_io_set_info(F, f, info) : MPI_SUCCESS;
}

static int view_type(const char *F, mp_datatype *dt, MPI_Datatype *out)
{
    if (dt->is_builtin) {
        *out = dt->handle;
        return MPI_SUCCESS;
    }
    mp_datatype *copy = mp_type_dup(dt);
    copy->committed = 1;
    int err = mp_datatype_register(copy, out);
    return err ? mp_error_code(mp_error_class_of(err), "%s: cannot return the view's type", F)
               : MPI_SUCCESS;
}

int mp_io_get_view(const char *F, mp_file *f, MPI_Offset *disp, MPI_Datatype *etype,
                   MPI_Datatype *filetype, char *datarep)
{
    int err;
    if ((err = view_type(F, f->etype, etype)))
        return err;
    if ((err = view_type(F, f->filetype, filetype)))
        return err;
    *disp = f->disp;
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}

int mp_io_type_extent(const char *F, mp_file *f, mp_datatype *dt, MPI_Aint *extent)
{
    /* a user representation says what a predefined type's file extent is */
    const user_datarep *d = find_datarep(f->datarep);
    if (d && d->extent_fn && dt->is_builtin) {
        MPI_Aint e = 0;
        int err = d->extent_fn(dt->handle, &e, d->extra);
        if (err)
            return err;
        *extent = e;
        return MPI_SUCCESS;
    }
    /* native, internal, and external32 where the layout is native: the memory extent */
    if (f->external && !same_layout(dt)) {
        if (!dt->is_builtin)
            return mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: the external32 extent of a "
                                 "derived type with MPI_LONG-like members is not supported", F);
        *extent = (MPI_Aint)mp_datatype_external_bytes(dt, 1);
        return MPI_SUCCESS;
    }
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int mp_io_byte_offset(const char *F, mp_file *f, MPI_Offset offset, MPI_Offset *disp)
{
    if (offset < 0)
        return mp_error_code(MPI_ERR_ARG, "%s: negative offset %ld for '%s'", F,
                             (long)offset, f->name);
    *disp = mp_io_file_offset(f, offset * f->etype->size);
    return MPI_SUCCESS;
}

/* The new position of a seek from `cur`; error if it is negative. */
static int seek_target(const char *F, mp_file *f, MPI_Offset cur, MPI_Offset offset,
                       int whence, MPI_Offset *out)
{
    MPI_Offset from;
    if (whence == MPI_SEEK_SET) {
        from = 0;
    } else if (whence == MPI_SEEK_CUR) {
        from = cur;
    } else if (whence == MPI_SEEK_END) {
        MPI_Offset size;
        int err = mp_io_get_size(F, f, &size);
        if (err)
            return err;
        from = mp_io_view_position(f, size);
    } else {
        return mp_error_code(MPI_ERR_ARG, "%s: invalid whence %d (MPI_SEEK_SET, _CUR or _END)",
                             F, whence);
    }
    if (from + offset < 0)
        return mp_error_code(MPI_ERR_ARG, "%s: seek to a negative position (%ld) in '%s'", F,
                             (long)(from + offset), f->name);
    *out = from + offset;
    return MPI_SUCCESS;
}

static int not_sequential(const char *F, mp_file *f)
{
    if (!(f->amode & MPI_MODE_SEQUENTIAL))
        return MPI_SUCCESS;
    return mp_error_code(MPI_ERR_UNSUPPORTED_OPERATION, "%s: '%s' was opened with "
                         "MPI_MODE_SEQUENTIAL (only shared file pointer access)", F, f->name);
}

int mp_io_seek(const char *F, mp_file *f, MPI_Offset offset, int whence)
{
    int err = not_sequential(F, f);
    return err ? err : seek_target(F, f, f->pos, offset, whence, &f->pos);
}

int mp_io_position(const char *F, mp_file *f, MPI_Offset *offset)
{
    int err = not_sequential(F, f);
    if (!err)
        *offset = f->pos;
    return err;
}

int mp_io_seek_shared(const char *F, mp_file *f, MPI_Offset offset, int whence)
{
    MPI_Offset cur = 0, target = 0;
    int err = whence == MPI_SEEK_CUR ? mp_io_shared_fetch_add(F, f, 0, &cur) : MPI_SUCCESS;
    if (!err)
        err = seek_target(F, f, cur, offset, whence, &target);
    /* every rank must have read the old value before rank 0 replaces it */
    int mine[3] = { err ? 1 : 0, (int)(target & 0x7fffffff), -(int)(target & 0x7fffffff) };
    int all[3];
    int cerr = mp_allreduce(mine, all, 3, mp_datatype_get(MPI_INT), MPI_MAX, f->comm);
    if (err || cerr)
        return err ? err : cerr;
    if (all[0])
        return mp_error_code(MPI_ERR_ARG, "%s: another process failed to seek in '%s'", F,
                             f->name);
    if (all[1] != -all[2])
        return mp_error_code(MPI_ERR_NOT_SAME, "%s: the processes asked for different shared "
                             "positions in '%s'", F, f->name);
    return mp_io_shared_set(F, f, target);
}

int mp_io_position_shared(const char *F, mp_file *f, MPI_Offset *offset)
{
    return mp_io_shared_fetch_add(F, f, 0, offset);
}

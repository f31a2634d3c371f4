/* view.c -- file views: set/get, the map from a view's data stream to file offsets, seeks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A view is (disp, etype, filetype, datarep).  Its data stream is the data of the filetype
 * tiled from disp (copy i at disp + i * extent); stream byte p lies in copy p / size at data
 * byte p % size of the filetype, and the datatype layer's segment walk (mp_segments over a base
 * address equal to the copy's file offset) turns a range of the stream into contiguous file
 * pieces -- the datatype engine describes the file exactly as it describes memory.  Filetypes
 * must have non-negative displacements (MPI 4.0 14.3) and data that is a whole number of
 * etypes.  Representations: "native" and "internal" (the same here) move the bytes as they
 * are.  Under "external32" and user representations the view's types are laid out as they
 * lie in the file (file_layout, MPI 4.0 14.5): every predefined type takes its file extent
 * (external32's table: MPI_LONG 4 bytes, long double 16; or the user's extent function),
 * constructors that count in elements are applied to those, and byte displacements stay as
 * given; f->etype and f->filetype are these file types, the user's are kept for get_view.
 * Data converts on the way through a temporary in the file's form: the datatype layer's
 * external32 pack and unpack, or the user's conversion functions (called once per access
 * with position 0 and the whole count).  A user representation without conversion
 * functions holds the native bytes in the native layout; its extent function still answers
 * MPI_File_get_type_extent.
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

/* Registered user representations: their conversion functions (NULL: the file holds the
 * native bytes) and extent function. */
typedef struct user_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    void (*read_fn)(void), (*write_fn)(void);   /* MPI_Datarep_conversion_function(_c) */
    int large;                        /* registered by MPI_Register_datarep_c */
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
    d->read_fn = read_fn;
    d->write_fn = write_fn;
    d->large = large;
    d->extent_fn = extent_fn;
    d->extra = extra;
    return MPI_SUCCESS;
}

/* ---- file layouts of types ------------------------------------------------------------- */

/* A predefined type (or a named copy of one, MPI_Type_create_f90_*). */
static int predefined(const mp_datatype *dt)
{
    if (dt->is_builtin)
        return 1;
    mp_type_contents c;
    mp_type_contents_of(dt, &c);
    return c.combiner == MPI_COMBINER_NAMED || c.combiner == MPI_COMBINER_F90_REAL ||
           c.combiner == MPI_COMBINER_F90_COMPLEX || c.combiner == MPI_COMBINER_F90_INTEGER;
}

/* The extent in the file of predefined type dt under f's representation. */
typedef struct repr {                 /* a representation: MP_IO_REP_*, the user's, its name */
    int rep;
    const user_datarep *user;
    const char *name;
} repr;

static int predefined_extent(const char *F, const repr *r, const mp_datatype *dt,
                             MPI_Aint *ext)
{
    if (r->rep == MP_IO_REP_EXTERNAL32) {
        *ext = (MPI_Aint)mp_datatype_external_bytes(dt, 1);
        return MPI_SUCCESS;
    }
    const user_datarep *d = r->user;
    if (!d || !d->extent_fn) {
        *ext = dt->extent;
        return MPI_SUCCESS;
    }
    int err = d->extent_fn(dt->handle, ext, d->extra);
    if (err)
        return err;
    if (*ext <= 0)
        return mp_error_code(MPI_ERR_ARG, "%s: the extent function of representation \"%s\" "
                             "gave %ld bytes", F, d->name, (long)*ext);
    return MPI_SUCCESS;
}

static MPI_Aint *aints_of(const MPI_Count *v, MPI_Count n)
{
    MPI_Aint *a = mp_malloc(sizeof *a * (size_t)(n > 0 ? n : 1));
    for (MPI_Count i = 0; i < n; i++)
        a[i] = (MPI_Aint)v[i];
    return a;
}

/* file_layout's constructors for a type made by a large-count constructor, t its children
 * in the file's form.  Its contents follow the table of MPI_Type_get_contents_c: counts,
 * block lengths, strides and displacements are large counts, element strides and
 * displacements scale with the child's file extent, byte ones stay.  NULL for a combiner no
 * large-count constructor makes. */
static mp_datatype *layout_large(const mp_type_contents *c, mp_datatype **t)
{
    const MPI_Count *lc = c->large;
    const int *in = c->ints;
    mp_datatype *out = NULL;
    switch (c->combiner) {
    case MPI_COMBINER_CONTIGUOUS:
        return mp_type_contiguous((MPI_Aint)lc[0], t[0]);
    case MPI_COMBINER_VECTOR:
        return mp_type_hvector((MPI_Aint)lc[0], (MPI_Aint)lc[1],
                               (MPI_Aint)lc[2] * t[0]->extent, t[0]);
    case MPI_COMBINER_HVECTOR:
        return mp_type_hvector((MPI_Aint)lc[0], (MPI_Aint)lc[1], (MPI_Aint)lc[2], t[0]);
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT: {
        /* count, then the block lengths (or one), then the displacements */
        MPI_Count n = lc[0];
        int block = c->combiner == MPI_COMBINER_INDEXED_BLOCK ||
                    c->combiner == MPI_COMBINER_HINDEXED_BLOCK;
        int elements = c->combiner == MPI_COMBINER_INDEXED ||
                       c->combiner == MPI_COMBINER_INDEXED_BLOCK;
        MPI_Aint *bl = block ? NULL : aints_of(lc + 1, n);
        MPI_Aint *d = aints_of(lc + (block ? 2 : 1 + n), n);
        for (MPI_Count i = 0; elements && i < n; i++)
            d[i] *= t[0]->extent;
        out = c->combiner == MPI_COMBINER_STRUCT
                  ? mp_type_struct((MPI_Aint)n, bl, d, t)
                  : mp_type_hindexed((MPI_Aint)n, bl, block ? (MPI_Aint)lc[1] : 0, d, t[0]);
        free(bl);
        free(d);
        return out;
    }
    case MPI_COMBINER_SUBARRAY: {      /* ints: ndims, order; large: sizes, subsizes, starts */
        int nd = in[0];
        MPI_Aint *a = aints_of(lc, 3 * (MPI_Count)nd);
        out = mp_type_subarray(nd, a, a + nd, a + 2 * nd, in[1], t[0]);
        free(a);
        return out;
    }
    case MPI_COMBINER_DARRAY: {        /* ints: size, rank, ndims, distribs, dargs, psizes,
                                        * order; large: gsizes */
        int nd = in[2];
        MPI_Aint *g = aints_of(lc, nd);
        out = mp_type_darray(in[0], in[1], nd, g, in + 3, in + 3 + nd, in + 3 + 2 * nd,
                             in[3 + 3 * nd], t[0]);
        free(g);
        return out;
    }
    }
    return NULL;
}

/* dt as it lies in the file under a non-native representation (MPI 4.0 14.5): every
 * predefined type takes its file extent, constructors that count in elements (contiguous,
 * vector, indexed, subarray, darray) are applied to the file types, and displacements given
 * in bytes are kept as they are -- no scaling.  *out: a new type (one reference). */
static int file_layout(const char *F, const repr *r, mp_datatype *dt, mp_datatype **out)
{
    *out = NULL;
    if (predefined(dt)) {
        MPI_Aint ext;
        int err = predefined_extent(F, r, dt, &ext);
        if (!err)
            *out = mp_type_contiguous(ext, mp_datatype_get(MPI_BYTE));
        return err;
    }
    mp_type_contents c;
    mp_type_contents_of(dt, &c);
    mp_datatype **t = mp_calloc((size_t)(c.ntypes ? c.ntypes : 1), sizeof *t);
    int err = MPI_SUCCESS;
    for (int i = 0; i < c.ntypes && !err; i++)
        err = file_layout(F, r, c.types[i], &t[i]);
    const int *in = c.ints;
    const MPI_Aint *ai = c.aints;
    MPI_Aint *d = NULL, *bl = NULL;
    if (!err && c.nlarge) {
        *out = layout_large(&c, t);
    } else if (!err) {
        switch (c.combiner) {
        case MPI_COMBINER_DUP:
            *out = mp_type_dup(t[0]);
            break;
        case MPI_COMBINER_CONTIGUOUS:
            *out = mp_type_contiguous(in[0], t[0]);
            break;
        case MPI_COMBINER_VECTOR:
            *out = mp_type_hvector(in[0], in[1], (MPI_Aint)in[2] * t[0]->extent, t[0]);
            break;
        case MPI_COMBINER_HVECTOR:
        case MPI_COMBINER_HVECTOR_INTEGER:
            *out = mp_type_hvector(in[0], in[1], ai[0], t[0]);
            break;
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_INDEXED_BLOCK: {
            int n = in[0], block = c.combiner == MPI_COMBINER_INDEXED_BLOCK;
            d = mp_malloc(sizeof *d * (size_t)(n + 1));
            bl = mp_malloc(sizeof *bl * (size_t)(n + 1));
            for (int i = 0; i < n; i++) {
                bl[i] = block ? in[1] : in[1 + i];
                d[i] = (MPI_Aint)(block ? in[2 + i] : in[1 + n + i]) * t[0]->extent;
            }
            *out = mp_type_hindexed(n, bl, 0, d, t[0]);
            break;
        }
        case MPI_COMBINER_HINDEXED:
        case MPI_COMBINER_HINDEXED_INTEGER:
        case MPI_COMBINER_HINDEXED_BLOCK: {
            int n = in[0], block = c.combiner == MPI_COMBINER_HINDEXED_BLOCK;
            bl = mp_malloc(sizeof *bl * (size_t)(n + 1));
            for (int i = 0; i < n; i++)
                bl[i] = block ? in[1] : in[1 + i];
            *out = mp_type_hindexed(n, bl, 0, ai, t[0]);
            break;
        }
        case MPI_COMBINER_STRUCT:
        case MPI_COMBINER_STRUCT_INTEGER: {
            int n = in[0];
            bl = mp_malloc(sizeof *bl * (size_t)(n + 1));
            for (int i = 0; i < n; i++)
                bl[i] = in[1 + i];
            *out = mp_type_struct(n, bl, ai, t);
            break;
        }
        case MPI_COMBINER_SUBARRAY: {
            int n = in[0];
            MPI_Aint *a = mp_malloc(sizeof *a * (size_t)(3 * n + 1));
            for (int i = 0; i < 3 * n; i++)
                a[i] = in[1 + i];
            *out = mp_type_subarray(n, a, a + n, a + 2 * n, in[1 + 3 * n], t[0]);
            free(a);
            break;
        }
        case MPI_COMBINER_DARRAY: {
            int n = in[2];
            MPI_Aint *g = mp_malloc(sizeof *g * (size_t)(n + 1));
            for (int i = 0; i < n; i++)
                g[i] = in[3 + i];
            *out = mp_type_darray(in[0], in[1], n, g, in + 3 + n, in + 3 + 2 * n,
                                  in + 3 + 3 * n, in[3 + 4 * n], t[0]);
            free(g);
            break;
        }
        case MPI_COMBINER_RESIZED:
            *out = mp_type_resized(t[0], ai[0], ai[1]);
            break;
        default:
            err = mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: a type of combiner %d in a "
                                "\"%s\" view", F, c.combiner, r->name);
        }
    }
    if (!err && !*out)
        err = mp_error_code(MPI_ERR_ARG, "%s: cannot lay the type out for \"%s\"", F,
                            r->name);
    for (int i = 0; i < c.ntypes; i++)
        if (t[i])
            mp_datatype_release(t[i]);
    free(t);
    free(d);
    free(bl);
    return err;
}

/* ---- conversion between memory and file ----------------------------------------------- */

size_t mp_io_file_bytes(const char *F, const mp_file *f, mp_datatype *dt, MPI_Aint count,
                        int *err)
{
    *err = MPI_SUCCESS;
    if (f->rep == MP_IO_REP_NATIVE || count == 0)
        return mp_datatype_bytes(dt, count);
    if (f->rep == MP_IO_REP_EXTERNAL32)
        return mp_datatype_external_bytes(dt, count);
    mp_datatype *ft;
    repr r = { f->rep, f->user, f->datarep };
    if ((*err = file_layout(F, &r, dt, &ft)))
        return 0;
    size_t n = (size_t)ft->size * (size_t)count;
    mp_datatype_release(ft);
    return n;
}

int mp_io_to_file(const char *F, const mp_file *f, const void *buf, MPI_Aint count,
                  mp_datatype *dt, void *out)
{
    if (f->rep == MP_IO_REP_EXTERNAL32) {
        mp_pack_external(buf, count, dt, out);
        return MPI_SUCCESS;
    }
    const user_datarep *d = f->user;
    int e = d->large ? ((MPI_Datarep_conversion_function_c *)d->write_fn)(
                           (void *)buf, dt->handle, count, out, 0, d->extra)
                     : ((MPI_Datarep_conversion_function *)d->write_fn)(
                           (void *)buf, dt->handle, (int)count, out, 0, d->extra);
    return e ? mp_error_code(mp_error_class_of(e), "%s: the write conversion of \"%s\" failed "
                             "for '%s'", F, d->name, f->name) : MPI_SUCCESS;
}

int mp_io_from_file(const char *F, const mp_file *f, const void *in, size_t bytes, void *buf,
                    mp_datatype *dt, size_t *native)
{
    int err;
    size_t one = mp_io_file_bytes(F, f, dt, 1, &err);
    if (err)
        return err;
    MPI_Aint count = one ? (MPI_Aint)(bytes / one) : 0;
    *native = (size_t)count * (size_t)dt->size;
    if (count == 0)
        return MPI_SUCCESS;
    if (f->rep == MP_IO_REP_EXTERNAL32) {
        mp_unpack_external(in, buf, count, dt);
        return MPI_SUCCESS;
    }
    const user_datarep *d = f->user;
    int e = d->large ? ((MPI_Datarep_conversion_function_c *)d->read_fn)(
                           buf, dt->handle, count, (void *)in, 0, d->extra)
                     : ((MPI_Datarep_conversion_function *)d->read_fn)(
                           buf, dt->handle, (int)count, (void *)in, 0, d->extra);
    return e ? mp_error_code(mp_error_class_of(e), "%s: the read conversion of \"%s\" failed "
                             "for '%s'", F, d->name, f->name) : MPI_SUCCESS;
}

/* ---- set/get view ---------------------------------------------------------------------- */

/* The representation a view names: *rep and, for a user one, *user. */
static int datarep_of(const char *F, const char *datarep, int *rep, const user_datarep **user)
{
    *user = NULL;
    if (strcmp(datarep, "native") == 0 || strcmp(datarep, "internal") == 0) {
        *rep = MP_IO_REP_NATIVE;
        return MPI_SUCCESS;
    }
    if (strcmp(datarep, "external32") == 0) {
        *rep = MP_IO_REP_EXTERNAL32;
        return MPI_SUCCESS;
    }
    const user_datarep *d = find_datarep(datarep);
    if (!d)
        return mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: unknown data representation "
                             "\"%.64s\" (not native, internal, external32 or registered)", F,
                             datarep);
    if ((d->read_fn == NULL) != (d->write_fn == NULL))
        return mp_error_code(MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation \"%s\" "
                             "has only one of its two conversion functions", F, datarep);
    /* without conversion functions the file holds the native bytes, laid out natively */
    *rep = d->read_fn ? MP_IO_REP_USER : MP_IO_REP_NATIVE;
    *user = d;
    return MPI_SUCCESS;
}

/* The average contiguous piece of one filetype tile (its first VIEW_PIECE_SPAN bytes of
 * data), in bytes; INT64_MAX when the tiles make one contiguous stream. */
enum { VIEW_PIECE_SPAN = 4 << 20 };
static int64_t view_piece(const mp_datatype *ft)
{
    if (ft->is_contig)
        return INT64_MAX;
    size_t len = ft->size < VIEW_PIECE_SPAN ? (size_t)ft->size : VIEW_PIECE_SPAN, done = 0;
    int64_t n = 0;
    struct iovec iov[PIECES];
    while (done < len) {
        size_t covered;
        int k = mp_segments(NULL, 1, ft, done, len - done, iov, PIECES, &covered);
        if (k <= 0 || covered == 0)
            break;
        n += k;
        done += covered;
    }
    return n ? (int64_t)done / n : INT64_MAX;
}

int mp_io_set_view(const char *F, mp_file *f, MPI_Offset disp, mp_datatype *etype,
                   mp_datatype *filetype, const char *datarep, MPI_Info info)
{
    repr r = { 0, NULL, datarep };
    mp_io_coll_drain(f);              /* f's collectives run in the order they were called */
    int err = datarep_of(F, datarep, &r.rep, &r.user);
    if (err)
        return err;
    if (etype->size <= 0)
        return mp_error_code(MPI_ERR_ARG, "%s: etype of size %ld for '%s' (must hold data)",
                             F, (long)etype->size, f->name);
    /* the view's types as they lie in the file (the user's under native) */
    mp_datatype *fe = etype, *ff = filetype;
    if (r.rep != MP_IO_REP_NATIVE) {
        if ((err = file_layout(F, &r, etype, &fe)))
            return err;
        if ((err = file_layout(F, &r, filetype, &ff))) {
            mp_datatype_release(fe);
            return err;
        }
    } else {
        mp_datatype_retain(fe);
        mp_datatype_retain(ff);
    }
    if (ff->size <= 0 || ff->size % fe->size)
        err = mp_error_code(MPI_ERR_ARG, "%s: filetype of %ld bytes of data is not a whole "
                            "number of etypes of %ld bytes ('%s')", F, (long)ff->size,
                            (long)fe->size, f->name);
    else if (ff->true_lb < 0 || ff->extent <= 0)
        err = mp_error_code(MPI_ERR_ARG, "%s: filetype with a negative displacement or "
                            "extent (true lb %ld, extent %ld) for '%s'", F,
                            (long)ff->true_lb, (long)ff->extent, f->name);
    else if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
        err = mp_error_code(MPI_ERR_ARG, "%s: MPI_DISPLACEMENT_CURRENT needs a file "
                            "opened with MPI_MODE_SEQUENTIAL ('%s')", F, f->name);
    else if (disp != MPI_DISPLACEMENT_CURRENT && disp < 0)
        err = mp_error_code(MPI_ERR_ARG, "%s: negative displacement %ld for '%s'", F,
                            (long)disp, f->name);
    if (!err && disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset shared;
        if (!(err = mp_io_shared_fetch_add(F, f, 0, &shared)))
            disp = mp_io_file_offset(f, shared * f->etype->size);
    }
    /* every rank has read the shared pointer before rank 0 resets it: the allreduce of the
     * group's smallest pieces is a barrier too */
    int64_t mine = err ? 0 : view_piece(ff), least = 0;
    if (!err)
        err = mp_allreduce(&mine, &least, 1, mp_datatype_get(MPI_INT64_T), MPI_MIN, f->comm);
    if (err) {
        mp_datatype_release(fe);
        mp_datatype_release(ff);
        return err;
    }
    mp_datatype_retain(etype);
    mp_datatype_retain(filetype);
    mp_datatype_release(f->etype);
    mp_datatype_release(f->filetype);
    mp_datatype_release(f->vetype);
    mp_datatype_release(f->vfiletype);
    f->etype = fe;
    f->filetype = ff;
    f->vetype = etype;
    f->vfiletype = filetype;
    f->disp = disp;
    snprintf(f->datarep, sizeof f->datarep, "%s", datarep);
    f->rep = r.rep;
    f->user = r.user;
    f->pos = 0;
    f->group_piece = least;
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
    if ((err = view_type(F, f->vetype, etype)))
        return err;
    if ((err = view_type(F, f->vfiletype, filetype)))
        return err;
    *disp = f->disp;
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}

int mp_io_type_extent(const char *F, mp_file *f, mp_datatype *dt, MPI_Aint *extent)
{
    /* the extent of the type's file layout; native: the memory extent */
    repr r = { f->rep, f->user, f->datarep };
    if (f->rep == MP_IO_REP_NATIVE && !(f->user && f->user->extent_fn)) {
        *extent = dt->extent;
        return MPI_SUCCESS;
    }
    if (r.rep == MP_IO_REP_NATIVE)
        r.rep = MP_IO_REP_USER;       /* no conversion, but the user's extents */
    mp_datatype *ft;
    int err = file_layout(F, &r, dt, &ft);
    if (err)
        return err;
    *extent = ft->extent;
    mp_datatype_release(ft);
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
    int64_t mine[3] = { err ? 1 : 0, target, -target }, all[3];
    int cerr = mp_allreduce(mine, all, 3, mp_datatype_get(MPI_INT64_T), MPI_MAX, f->comm);
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

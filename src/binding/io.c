/* io.c -- MPI-IO entry points: files, views, data access, file error handlers.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Thin checks over src/io/.  Arguments that need no file state (handles, counts, types,
 * pointers, amodes) are checked here; the layer checks what depends on the file.  Errors of a
 * call on a valid file go through the file's error handler (mp_io_raise); errors before there
 * is one -- an invalid file handle, a failed MPI_File_open or MPI_File_delete -- through
 * MPI_FILE_NULL's, whose default is MPI_ERRORS_RETURN (MPI 4.0 9.3); an invalid communicator
 * given to MPI_File_open through MPI_COMM_WORLD's.  The data access functions (read/write,
 * _at, _all, _shared, _ordered, nonblocking, split collective, and the _c forms) are one
 * checking function, `data`, called with the form's position kind and flags.
 */
#include "binding/binding.h"
#include "io/io.h"
#include <stdarg.h>
#include <string.h>

static int io_error(mp_file *f, int cls, const char *F, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int io_error(mp_file *f, int cls, const char *F, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return mp_io_raise(f, mp_error_code(cls, "%s: %s", F, text), F);
}

static int file_arg(const char *F, MPI_File fh, mp_file **out)
{
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    *out = mp_io_get(fh);
    if (!*out)
        return io_error(NULL, MPI_ERR_FILE, F, "invalid file handle %p%s", (void *)fh,
                        fh == MPI_FILE_NULL ? " (MPI_FILE_NULL)" : "");
    return MPI_SUCCESS;
}

static int out_arg(mp_file *f, const char *F, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : io_error(f, MPI_ERR_ARG, F, "%s is NULL", name);
}

/* Both: a file handle and an output pointer. */
static int query_args(const char *F, MPI_File fh, const void *p, const char *name,
                      mp_file **f)
{
    int err = file_arg(F, fh, f);
    return err ? err : out_arg(*f, F, p, name);
}

static int info_arg(mp_file *f, const char *F, MPI_Info info)
{
    if (info == MPI_INFO_NULL || mp_info_get(info))
        return MPI_SUCCESS;
    return io_error(f, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
}

/* ---- open, close, delete --------------------------------------------------------------- */

/* ROMIO-style file system prefixes ("ufs:/tmp/x") name the same POSIX file. */
static const char *strip_prefix(const char *name)
{
    static const char *const prefixes[] = { "ufs:", "nfs:", "lustre:", "gpfs:", "xfs:",
                                            "pvfs2:", "panfs:", "testfs:", NULL };
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return name + strlen(prefixes[i]);
    return name;
}

int PMPI_File_open(MPI_Comm comm_h, const char *filename, int amode, MPI_Info info,
                   MPI_File *fh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_open";
    MP_OUT_NULL(fh, MPI_FILE_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, comm_h, &comm)))
        return err;
    if (comm->is_inter)
        return mp_error(comm, MPI_ERR_COMM, F, "files need an intracommunicator");
    if ((err = out_arg(NULL, F, fh, "fh")) || (err = out_arg(NULL, F, filename, "filename")) ||
        (err = info_arg(NULL, F, info)))
        return err;
    const char *name = strip_prefix(filename);
    if ((err = mp_io_check_amode(F, name, amode)))
        return mp_io_raise(NULL, err, F);
    mp_file *f;
    if ((err = mp_io_open(F, comm, name, amode, info, &f)))
        return mp_io_raise(NULL, err, F);
    *fh = f;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_open = PMPI_File_open

int PMPI_File_close(MPI_File *fh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_close";
    mp_file *f;
    int err;
    if ((err = out_arg(NULL, F, fh, "fh")) || (err = file_arg(F, *fh, &f)))
        return err;
    *fh = MPI_FILE_NULL;
    return mp_io_raise(NULL, mp_io_close(F, f), F);
}
#pragma weak MPI_File_close = PMPI_File_close

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_delete";
    int err;
    if ((err = mp_arg_initialized(F)) || (err = out_arg(NULL, F, filename, "filename")) ||
        (err = info_arg(NULL, F, info)))
        return err;
    return mp_io_raise(NULL, mp_io_delete(F, strip_prefix(filename)), F);
}
#pragma weak MPI_File_delete = PMPI_File_delete

/* ---- size, group, amode, info, sync, atomicity ----------------------------------------- */

static int size_call(const char *F, MPI_File fh, MPI_Offset size,
                     int (*op)(const char *, mp_file *, MPI_Offset))
{
    MP_BIG_LOCK();
    mp_file *f;
    int err;
    if ((err = file_arg(F, fh, &f)))
        return err;
    if (size < 0)
        return io_error(f, MPI_ERR_ARG, F, "negative size %lld", (long long)size);
    if (mp_io_amode(f) & MPI_MODE_SEQUENTIAL)
        return io_error(f, MPI_ERR_UNSUPPORTED_OPERATION, F, "the file was opened with "
                        "MPI_MODE_SEQUENTIAL");
    return mp_io_raise(f, op(F, f, size), F);
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return size_call("MPI_File_set_size", fh, size, mp_io_set_size);
}
#pragma weak MPI_File_set_size = PMPI_File_set_size

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return size_call("MPI_File_preallocate", fh, size, mp_io_preallocate);
}
#pragma weak MPI_File_preallocate = PMPI_File_preallocate

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_size";
    mp_file *f;
    int err = query_args(F, fh, size, "size", &f);
    return err ? err : mp_io_raise(f, mp_io_get_size(F, f, size), F);
}
#pragma weak MPI_File_get_size = PMPI_File_get_size

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_group";
    MP_OUT_NULL(group, MPI_GROUP_NULL);
    mp_file *f;
    int err;
    if ((err = query_args(F, fh, group, "group", &f)))
        return err;
    mp_group *g = mp_comm_local_group(mp_io_comm(f));
    if (!mp_group_publish(g))
        return io_error(f, MPI_ERR_NO_MEM, F, "too many groups");
    mp_group_retain(g);
    *group = g->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_group = PMPI_File_get_group

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    MP_BIG_LOCK();
    mp_file *f;
    int err = query_args("MPI_File_get_amode", fh, amode, "amode", &f);
    if (!err)
        *amode = mp_io_amode(f);
    return err;
}
#pragma weak MPI_File_get_amode = PMPI_File_get_amode

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_set_info";
    mp_file *f;
    int err;
    if ((err = file_arg(F, fh, &f)) || (err = info_arg(f, F, info)))
        return err;
    return mp_io_raise(f, mp_io_set_info(F, f, info), F);
}
#pragma weak MPI_File_set_info = PMPI_File_set_info

int PMPI_File_get_info(MPI_File fh, MPI_Info *info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_info";
    MP_OUT_NULL(info, MPI_INFO_NULL);
    mp_file *f;
    int err = query_args(F, fh, info, "info_used", &f);
    return err ? err : mp_io_raise(f, mp_io_get_info(F, f, info), F);
}
#pragma weak MPI_File_get_info = PMPI_File_get_info

int PMPI_File_sync(MPI_File fh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_sync";
    mp_file *f;
    int err = file_arg(F, fh, &f);
    return err ? err : mp_io_raise(f, mp_io_sync(F, f), F);
}
#pragma weak MPI_File_sync = PMPI_File_sync

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_set_atomicity";
    mp_file *f;
    int err = file_arg(F, fh, &f);
    return err ? err : mp_io_raise(f, mp_io_set_atomicity(F, f, flag), F);
}
#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    MP_BIG_LOCK();
    mp_file *f;
    int err = query_args("MPI_File_get_atomicity", fh, flag, "flag", &f);
    if (!err)
        *flag = mp_io_atomicity(f);
    return err;
}
#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity

/* ---- error handlers -------------------------------------------------------------------- */

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *out)
{
    static const char *const F = "MPI_File_create_errhandler";
    MP_OUT_NULL(out, MPI_ERRHANDLER_NULL);
    int err;
    if ((err = mp_arg_initialized(F)) || (err = out_arg(NULL, F, out, "errhandler")) ||
        (err = out_arg(NULL, F, (const void *)fn, "file_errhandler_fn")))
        return err;
    if (mp_errhandler_create(MP_EH_FILE, (mp_errhandler_fn *)(void *)fn, out))
        return io_error(NULL, MPI_ERR_NO_MEM, F, "too many error handlers");
    return MPI_SUCCESS;
}
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler

/* MPI_FILE_NULL is a valid argument here: its handler is the default of new files. */
static int eh_file_arg(const char *F, MPI_File fh, mp_file **f)
{
    *f = NULL;
    int err = mp_arg_initialized(F);
    return err || fh == MPI_FILE_NULL ? err : file_arg(F, fh, f);
}

int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler eh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_set_errhandler";
    mp_file *f;
    int err;
    if ((err = eh_file_arg(F, fh, &f)))
        return err;
    if (mp_errhandler_check(eh, MP_EH_FILE))
        return io_error(f, MPI_ERR_ARG, F, "invalid file error handler 0x%x%s", (unsigned)eh,
                        eh == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    mp_errhandler_retain(eh);
    mp_io_set_errhandler(f, eh);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler

int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *eh)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_errhandler";
    MP_OUT_NULL(eh, MPI_ERRHANDLER_NULL);
    mp_file *f;
    int err;
    if ((err = eh_file_arg(F, fh, &f)) || (err = out_arg(f, F, eh, "errhandler")))
        return err;
    *eh = mp_io_errhandler(f);
    mp_errhandler_retain(*eh);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler

int PMPI_File_call_errhandler(MPI_File fh, int code)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_call_errhandler";
    mp_file *f;
    int err = eh_file_arg(F, fh, &f);
    if (err)
        return err;
    mp_io_raise(f, code, F);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler

/* ---- views and positions --------------------------------------------------------------- */

static int type_arg(mp_file *f, const char *F, MPI_Datatype h, mp_datatype **out)
{
    int err = mp_datatype_check(F, h, 0, out);
    return err ? mp_io_raise(f, err, F) : MPI_SUCCESS;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_set_view";
    mp_file *f;
    mp_datatype *et, *ft;
    int err;
    if ((err = file_arg(F, fh, &f)) || (err = type_arg(f, F, etype, &et)) ||
        (err = type_arg(f, F, filetype, &ft)) || (err = out_arg(f, F, datarep, "datarep")) ||
        (err = info_arg(f, F, info)))
        return err;
    return mp_io_raise(f, mp_io_set_view(F, f, disp, et, ft, datarep, info), F);
}
#pragma weak MPI_File_set_view = PMPI_File_set_view

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_view";
    mp_file *f;
    int err;
    if ((err = query_args(F, fh, disp, "disp", &f)) || (err = out_arg(f, F, etype, "etype")) ||
        (err = out_arg(f, F, filetype, "filetype")) || (err = out_arg(f, F, datarep, "datarep")))
        return err;
    return mp_io_raise(f, mp_io_get_view(F, f, disp, etype, filetype, datarep), F);
}
#pragma weak MPI_File_get_view = PMPI_File_get_view

static int type_extent(const char *F, MPI_File fh, MPI_Datatype type, MPI_Count *extent)
{
    MP_BIG_LOCK();
    mp_file *f;
    mp_datatype *dt;
    int err;
    if ((err = query_args(F, fh, extent, "extent", &f)) || (err = type_arg(f, F, type, &dt)))
        return err;
    return mp_io_raise(f, mp_io_type_extent(F, f, dt, extent), F);
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype type, MPI_Aint *extent)
{
    MPI_Count e = 0;
    int err = type_extent("MPI_File_get_type_extent", fh, type, extent ? &e : NULL);
    if (!err)
        *extent = (MPI_Aint)e;
    return err;
}
#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype type, MPI_Count *extent)
{
    return type_extent("MPI_File_get_type_extent_c", fh, type, extent);
}
#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_byte_offset";
    mp_file *f;
    int err = query_args(F, fh, disp, "disp", &f);
    return err ? err : mp_io_raise(f, mp_io_byte_offset(F, f, offset, disp), F);
}
#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_seek";
    mp_file *f;
    int err = file_arg(F, fh, &f);
    return err ? err : mp_io_raise(f, mp_io_seek(F, f, offset, whence), F);
}
#pragma weak MPI_File_seek = PMPI_File_seek

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_seek_shared";
    mp_file *f;
    int err = file_arg(F, fh, &f);
    return err ? err : mp_io_raise(f, mp_io_seek_shared(F, f, offset, whence), F);
}
#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_position";
    mp_file *f;
    int err = query_args(F, fh, offset, "offset", &f);
    return err ? err : mp_io_raise(f, mp_io_position(F, f, offset), F);
}
#pragma weak MPI_File_get_position = PMPI_File_get_position

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_File_get_position_shared";
    mp_file *f;
    int err = query_args(F, fh, offset, "offset", &f);
    return err ? err : mp_io_raise(f, mp_io_position_shared(F, f, offset), F);
}
#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared

static int register_datarep(const char *F, const char *datarep, void (*read_fn)(void),
                            void (*write_fn)(void), MPI_Datarep_extent_function *extent_fn,
                            void *extra, int large)
{
    MP_BIG_LOCK();
    int err;
    if ((err = mp_arg_initialized(F)) || (err = out_arg(NULL, F, datarep, "datarep")) ||
        (err = out_arg(NULL, F, (const void *)extent_fn, "dtype_file_extent_fn")))
        return err;
    return mp_io_raise(NULL, mp_io_register_datarep(F, datarep, read_fn, write_fn, extent_fn,
                                                    extra, large), F);
}

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_fn,
                          MPI_Datarep_conversion_function *write_fn,
                          MPI_Datarep_extent_function *extent_fn, void *extra)
{
    return register_datarep("MPI_Register_datarep", datarep, (void (*)(void))read_fn,
                            (void (*)(void))write_fn, extent_fn, extra, 0);
}
#pragma weak MPI_Register_datarep = PMPI_Register_datarep

int PMPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_fn,
                            MPI_Datarep_conversion_function_c *write_fn,
                            MPI_Datarep_extent_function *extent_fn, void *extra)
{
    return register_datarep("MPI_Register_datarep_c", datarep, (void (*)(void))read_fn,
                            (void (*)(void))write_fn, extent_fn, extra, 1);
}
#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c

/* ---- data access ----------------------------------------------------------------------- */

enum { BLOCKING, NONBLOCKING, BEGIN };

static int data(const char *F, MPI_File fh, int write, int where, int coll, int form,
                MPI_Offset offset, const void *buf, MPI_Aint count, MPI_Datatype type,
                MPI_Status *status, MPI_Request *req)
{
    MP_BIG_LOCK();
    if (form == NONBLOCKING)
        MP_OUT_NULL(req, MPI_REQUEST_NULL);
    mp_file *f;
    mp_datatype *dt;
    int err;
    if ((err = file_arg(F, fh, &f)))
        return err;
    if (count < 0)
        return io_error(f, MPI_ERR_COUNT, F, "invalid count %lld", (long long)count);
    if ((err = type_arg(f, F, type, &dt)))
        return err;
    if (!buf && count > 0 && dt->size > 0)
        return io_error(f, MPI_ERR_BUFFER, F, "buf is NULL for %lld elements",
                        (long long)count);
    if (form == NONBLOCKING && (err = out_arg(f, F, req, "request")))
        return err;
    mp_io_args a = { write, where, coll, offset, (void *)buf, count, dt };
    if (form == BEGIN)
        return mp_io_raise(f, mp_io_split_begin(F, f, &a), F);
    if (form == BLOCKING)
        return mp_io_raise(f, mp_io_access(F, f, &a, status), F);
    mp_request *r = NULL;
    if ((err = mp_io_iaccess(F, f, &a, &r)))
        return mp_io_raise(f, err, F);
    *req = mp_request_handle(r);
    return MPI_SUCCESS;
}

static int split_end(const char *F, MPI_File fh, const void *buf, int write, int where,
                     MPI_Status *status)
{
    MP_BIG_LOCK();
    mp_file *f;
    int err = file_arg(F, fh, &f);
    return err ? err : mp_io_raise(f, mp_io_split_end(F, f, buf, write, where, status), F);
}

/* One entry point per form and count width: read (write 0) and write (write 1). */

int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read", fh, 0, MP_IO_INDIVIDUAL, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read = PMPI_File_read

int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_all", fh, 0, MP_IO_INDIVIDUAL, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_all = PMPI_File_read_all

int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_shared", fh, 0, MP_IO_SHARED, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_shared = PMPI_File_read_shared

int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_ordered", fh, 0, MP_IO_ORDERED, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_at", fh, 0, MP_IO_AT, 0, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_read_at = PMPI_File_read_at

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_at_all", fh, 0, MP_IO_AT, 1, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all

int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread", fh, 0, MP_IO_INDIVIDUAL, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread = PMPI_File_iread

int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_all", fh, 0, MP_IO_INDIVIDUAL, 1, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_all = PMPI_File_iread_all

int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_shared", fh, 0, MP_IO_SHARED, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_at", fh, 0, MP_IO_AT, 0, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_at = PMPI_File_iread_at

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_at_all", fh, 0, MP_IO_AT, 1, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all

int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype type)
{
    return data("MPI_File_read_all_begin", fh, 0, MP_IO_INDIVIDUAL, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin

int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype type)
{
    return data("MPI_File_read_ordered_begin", fh, 0, MP_IO_ORDERED, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                    MPI_Datatype type)
{
    return data("MPI_File_read_at_all_begin", fh, 0, MP_IO_AT, 1, BEGIN, offset, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin

int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_c", fh, 0, MP_IO_INDIVIDUAL, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_c = PMPI_File_read_c

int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_all_c", fh, 0, MP_IO_INDIVIDUAL, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_all_c = PMPI_File_read_all_c

int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_shared_c", fh, 0, MP_IO_SHARED, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_shared_c = PMPI_File_read_shared_c

int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_ordered_c", fh, 0, MP_IO_ORDERED, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_read_ordered_c = PMPI_File_read_ordered_c

int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_at_c", fh, 0, MP_IO_AT, 0, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_read_at_c = PMPI_File_read_at_c

int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_read_at_all_c", fh, 0, MP_IO_AT, 1, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_read_at_all_c = PMPI_File_read_at_all_c

int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_c", fh, 0, MP_IO_INDIVIDUAL, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_c = PMPI_File_iread_c

int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_all_c", fh, 0, MP_IO_INDIVIDUAL, 1, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_all_c = PMPI_File_iread_all_c

int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_shared_c", fh, 0, MP_IO_SHARED, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_shared_c = PMPI_File_iread_shared_c

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_at_c", fh, 0, MP_IO_AT, 0, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_at_c = PMPI_File_iread_at_c

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iread_at_all_c", fh, 0, MP_IO_AT, 1, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iread_at_all_c = PMPI_File_iread_at_all_c

int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type)
{
    return data("MPI_File_read_all_begin_c", fh, 0, MP_IO_INDIVIDUAL, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_read_all_begin_c = PMPI_File_read_all_begin_c

int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype type)
{
    return data("MPI_File_read_ordered_begin_c", fh, 0, MP_IO_ORDERED, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_read_ordered_begin_c = PMPI_File_read_ordered_begin_c

int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype type)
{
    return data("MPI_File_read_at_all_begin_c", fh, 0, MP_IO_AT, 1, BEGIN, offset, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_read_at_all_begin_c = PMPI_File_read_at_all_begin_c

int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_all_end", fh, buf, 0, MP_IO_INDIVIDUAL, status);
}
#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end

int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_ordered_end", fh, buf, 0, MP_IO_ORDERED, status);
}
#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_at_all_end", fh, buf, 0, MP_IO_AT, status);
}
#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end

int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write", fh, 1, MP_IO_INDIVIDUAL, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write = PMPI_File_write

int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_all", fh, 1, MP_IO_INDIVIDUAL, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_all = PMPI_File_write_all

int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_shared", fh, 1, MP_IO_SHARED, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_shared = PMPI_File_write_shared

int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_ordered", fh, 1, MP_IO_ORDERED, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_at", fh, 1, MP_IO_AT, 0, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_write_at = PMPI_File_write_at

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_at_all", fh, 1, MP_IO_AT, 1, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all

int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite", fh, 1, MP_IO_INDIVIDUAL, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite = PMPI_File_iwrite

int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_all", fh, 1, MP_IO_INDIVIDUAL, 1, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all

int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_shared", fh, 1, MP_IO_SHARED, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_at", fh, 1, MP_IO_AT, 0, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_at_all", fh, 1, MP_IO_AT, 1, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all

int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type)
{
    return data("MPI_File_write_all_begin", fh, 1, MP_IO_INDIVIDUAL, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin

int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type)
{
    return data("MPI_File_write_ordered_begin", fh, 1, MP_IO_ORDERED, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                    MPI_Datatype type)
{
    return data("MPI_File_write_at_all_begin", fh, 1, MP_IO_AT, 1, BEGIN, offset, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin

int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_c", fh, 1, MP_IO_INDIVIDUAL, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_c = PMPI_File_write_c

int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_all_c", fh, 1, MP_IO_INDIVIDUAL, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_all_c = PMPI_File_write_all_c

int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_shared_c", fh, 1, MP_IO_SHARED, 0, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_shared_c = PMPI_File_write_shared_c

int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_ordered_c", fh, 1, MP_IO_ORDERED, 1, BLOCKING, 0, buf, count, type, status,
                NULL);
}
#pragma weak MPI_File_write_ordered_c = PMPI_File_write_ordered_c

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_at_c", fh, 1, MP_IO_AT, 0, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_write_at_c = PMPI_File_write_at_c

int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Status *status)
{
    return data("MPI_File_write_at_all_c", fh, 1, MP_IO_AT, 1, BLOCKING, offset, buf, count, type,
                status, NULL);
}
#pragma weak MPI_File_write_at_all_c = PMPI_File_write_at_all_c

int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_c", fh, 1, MP_IO_INDIVIDUAL, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_c = PMPI_File_iwrite_c

int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_all_c", fh, 1, MP_IO_INDIVIDUAL, 1, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_all_c = PMPI_File_iwrite_all_c

int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_shared_c", fh, 1, MP_IO_SHARED, 0, NONBLOCKING, 0, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_shared_c = PMPI_File_iwrite_shared_c

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_at_c", fh, 1, MP_IO_AT, 0, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_at_c = PMPI_File_iwrite_at_c

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Request *req)
{
    return data("MPI_File_iwrite_at_all_c", fh, 1, MP_IO_AT, 1, NONBLOCKING, offset, buf, count, type,
                MPI_STATUS_IGNORE, req);
}
#pragma weak MPI_File_iwrite_at_all_c = PMPI_File_iwrite_at_all_c

int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type)
{
    return data("MPI_File_write_all_begin_c", fh, 1, MP_IO_INDIVIDUAL, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_write_all_begin_c = PMPI_File_write_all_begin_c

int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype type)
{
    return data("MPI_File_write_ordered_begin_c", fh, 1, MP_IO_ORDERED, 1, BEGIN, 0, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_write_ordered_begin_c = PMPI_File_write_ordered_begin_c

int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                    MPI_Datatype type)
{
    return data("MPI_File_write_at_all_begin_c", fh, 1, MP_IO_AT, 1, BEGIN, offset, buf, count, type,
                MPI_STATUS_IGNORE, NULL);
}
#pragma weak MPI_File_write_at_all_begin_c = PMPI_File_write_at_all_begin_c

int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_all_end", fh, buf, 1, MP_IO_INDIVIDUAL, status);
}
#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end

int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_ordered_end", fh, buf, 1, MP_IO_ORDERED, status);
}
#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_at_all_end", fh, buf, 1, MP_IO_AT, status);
}
#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end

/* io.c -- what the MPI-IO entry points do beyond their checks.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are generated from io.spec (tools/gen-bindings): they resolve the file
 * (mp_chk_file), check what needs no file state and raise failures through the file's error
 * handler, or MPI_FILE_NULL's before there is a file.  The functions here are the few that
 * need more than one call into src/io/: opening (file-system prefixes, the access mode),
 * closing (the handle is MPI_FILE_NULL even when the close fails), resizing (not on
 * sequential files), file error handlers, and the data access functions -- read/write, _at,
 * _all, _shared, _ordered, nonblocking and split collective, with and without _c -- as one
 * function given the form, direction and position kind.  Like every mp_do_* function they
 * raise nothing.
 */
#include "binding/binding.h"
#include "io/io.h"
#include <string.h>

int mp_chk_file(const char *func, MPI_File h, int null_ok, mp_file **out)
{
    *out = NULL;
    int err = mp_chk_initialized(func);
    if (err || (null_ok && h == MPI_FILE_NULL))
        return err;
    *out = mp_io_get(h);
    if (!*out)
        return mp_err(func, MPI_ERR_FILE, "invalid file handle %p%s", (void *)h,
                      h == MPI_FILE_NULL ? " (MPI_FILE_NULL)" : "");
    return MPI_SUCCESS;
}

/* ---- open, close, delete --------------------------------------------------------------- */

/* An error in the communicator argument is the communicator's, as in any call on one (the
 * only MPI_ERR_COMM an open reports); what concerns the file goes to MPI_FILE_NULL's. */
int mp_file_open_raise(mp_comm *comm, int err, const char *func)
{
    if (!comm || mp_error_class_of(err) == MPI_ERR_COMM)
        return mp_error_raise(comm, err, func);
    return mp_io_raise(NULL, err, func);
}

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

int mp_do_file_open(const char *F, mp_comm *comm, const char *filename, int amode,
                    MPI_Info info, MPI_File *fh)
{
    const char *name = strip_prefix(filename);
    mp_file *f;
    int err;
    if ((err = mp_io_check_amode(F, name, amode)) ||
        (err = mp_io_open(F, comm, name, amode, info, &f)))
        return err;
    *fh = f;
    return MPI_SUCCESS;
}

int mp_do_file_close(const char *F, MPI_File *fh)
{
    mp_file *f;
    int err = mp_chk_file(F, *fh, 0, &f);
    if (err)
        return err;
    *fh = MPI_FILE_NULL;
    return mp_io_close(F, f);
}

int mp_do_file_delete(const char *F, const char *filename, MPI_Info info)
{
    (void)info;
    return mp_io_delete(F, strip_prefix(filename));
}

/* ---- size, error handlers -------------------------------------------------------------- */

int mp_do_file_resize(const char *F, mp_file *f, MPI_Offset size,
                      int (*op)(const char *, mp_file *, MPI_Offset))
{
    if (size < 0)
        return mp_err(F, MPI_ERR_ARG, "negative size %lld", (long long)size);
    if (mp_io_amode(f) & MPI_MODE_SEQUENTIAL)
        return mp_err(F, MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened with "
                      "MPI_MODE_SEQUENTIAL");
    return op(F, f, size);
}

/* f NULL (MPI_FILE_NULL): the handler new files inherit. */
int mp_do_file_set_errhandler(const char *F, mp_file *f, MPI_Errhandler eh)
{
    if (mp_errhandler_check(eh, MP_EH_FILE))
        return mp_err(F, MPI_ERR_ARG, "invalid file error handler 0x%x%s", (unsigned)eh,
                      eh == MPI_ERRHANDLER_NULL ? " (MPI_ERRHANDLER_NULL)" : "");
    mp_errhandler_retain(eh);
    mp_io_set_errhandler(f, eh);
    return MPI_SUCCESS;
}

/* ---- data access ----------------------------------------------------------------------- */

int mp_do_file_data(const char *F, mp_file *f, int form, int write, int where, int coll,
                    MPI_Offset offset, const void *buf, MPI_Aint count, mp_datatype *dt,
                    MPI_Status *status, mp_request **req)
{
    mp_io_args a = { write, where, coll, offset, (void *)buf, count, dt };
    if (form == MP_IO_BEGIN)
        return mp_io_split_begin(F, f, &a);
    if (form == MP_IO_BLOCKING)
        return mp_io_access(F, f, &a, status);
    return mp_io_iaccess(F, f, &a, req);
}

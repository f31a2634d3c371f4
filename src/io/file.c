/* file.c -- opening, closing and deleting files; size, info, atomicity, error handlers.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_File_open is collective and all-or-nothing: rank 0 of the group opens first (it alone
 * creates the file, with O_EXCL when MPI_MODE_EXCL asks), then the others open the existing
 * file, and one allreduce of every rank's error class decides; on failure every rank closes
 * what it opened, a file that rank 0 created exclusively is removed again, and every rank
 * returns an error of the same class, whose message names the function and the file (and the
 * rank that failed, when it was another one).  The same allreduce checks that every rank gave
 * the same amode.  MPI_MODE_APPEND starts both file pointers at the end of the file; it is not
 * O_APPEND, which would make every pwrite append.  Collective size changes are done by rank 0
 * between a barrier and an allreduce of its result, so every rank sees the old size before
 * the call and the new one after it.  MPI_File_sync
 * is fsync on every rank, then a barrier: data written by any rank before the call has
 * reached the disk when it returns anywhere.  The hints MemPI acts on are parsed once per
 * change into f->hints (what was given when valid, else the default), which get_info reports.
 */
#include "io/io_impl.h"
#include "core/placement.h"
#include "coll/coll.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

static mp_file *live_files;
static int default_errhandler = MPI_ERRORS_RETURN;   /* MPI_FILE_NULL's */

mp_file *mp_io_get(MPI_File fh)
{
    for (mp_file *f = live_files; f; f = f->next)
        if (f == fh && f->magic == MP_FILE_MAGIC)
            return f;
    return NULL;
}

/* ---- errors ---------------------------------------------------------------------------- */

static int errno_class(int e)
{
    switch (e) {
    case ENOENT: case ENOTDIR:   return MPI_ERR_NO_SUCH_FILE;
    case EACCES: case EPERM:     return MPI_ERR_ACCESS;
    case EEXIST:                 return MPI_ERR_FILE_EXISTS;
    case EROFS:                  return MPI_ERR_READ_ONLY;
    case ENOSPC: case EFBIG:     return MPI_ERR_NO_SPACE;
    case EDQUOT:                 return MPI_ERR_QUOTA;
    case EISDIR: case ENAMETOOLONG: case ELOOP: return MPI_ERR_BAD_FILE;
    case ETXTBSY: case EBUSY:    return MPI_ERR_FILE_IN_USE;
    default:                     return MPI_ERR_IO;
    }
}

int mp_io_errno(const char *F, const char *name, const char *what, int e)
{
    return mp_error_code(errno_class(e), "%s: %s '%s': %s", F, what, name, strerror(e));
}

int mp_io_errhandler(const mp_file *f)
{
    return f ? f->errhandler : default_errhandler;
}

void mp_io_set_errhandler(mp_file *f, int errhandler)
{
    int *slot = f ? &f->errhandler : &default_errhandler;
    mp_errhandler_release(*slot);
    *slot = errhandler;
}

int mp_io_raise(mp_file *f, int code, const char *func)
{
    if (code == MPI_SUCCESS)
        return code;
    int eh = mp_io_errhandler(f);
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT)
        mp_error_fatal(code, func);
    MPI_File handle = f ? f : MPI_FILE_NULL;
    mp_errhandler_call(eh, &handle, code);
    return code;
}

/* ---- open and close -------------------------------------------------------------------- */

int mp_io_check_amode(const char *F, const char *name, int amode)
{
    const int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                      MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                      MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) +
             !!(amode & MPI_MODE_RDWR);
    const char *why = NULL;
    if (amode & ~known)
        why = "unknown bits";
    else if (rw != 1)
        why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
    else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        why = "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
    if (!why)
        return MPI_SUCCESS;
    return mp_error_code(MPI_ERR_AMODE, "%s: invalid amode 0x%x for '%s': %s", F,
                         (unsigned)amode, name, why);
}

/* A write-only file is opened for reading too where the permissions allow, because
 * read-modify-writes (data sieving, collective buffering over holes) read it; MPI's access
 * checks go by the amode, not the descriptor. */
static int open_fd(mp_file *f, const char *name, int extra)
{
    int amode = f->amode;
    int flags = (amode & MPI_MODE_RDONLY ? O_RDONLY : O_RDWR) | O_CLOEXEC | extra;
    int fd = open(name, flags, 0666);
    f->readable = fd >= 0;
    if (fd < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY))
        fd = open(name, (flags & ~O_RDWR) | O_WRONLY, 0666);
    return fd;
}

static void file_destroy(mp_file *f)
{
    for (mp_file **p = &live_files; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    if (f->fd >= 0)
        close(f->fd);
    mp_datatype *types[4] = { f->etype, f->filetype, f->vetype, f->vfiletype };
    for (int i = 0; i < 4; i++)
        if (types[i])
            mp_datatype_release(types[i]);
    mp_info_free_handle(f->info);
    mp_errhandler_release(f->errhandler);
    if (f->comm)
        mp_comm_free_internal(f->comm);
    for (int i = 0; i < MP_IO_NSCRATCH; i++)
        free(f->cb_scratch[i]);
    f->magic = 0;
    free(f->name);
    free(f);
}

int mp_io_open(const char *F, mp_comm *comm, const char *name, int amode, MPI_Info info,
               mp_file **out)
{
    *out = NULL;
    mp_file *f = mp_calloc(1, sizeof *f);
    f->magic = MP_FILE_MAGIC;
    f->fd = -1;
    f->name = mp_strdup(name);
    f->amode = amode;
    f->errhandler = default_errhandler;
    mp_errhandler_retain(f->errhandler);
    f->info = MPI_INFO_NULL;
    mp_datatype *byte = mp_datatype_get(MPI_BYTE);
    f->etype = f->filetype = f->vetype = f->vfiletype = byte;
    for (int i = 0; i < 4; i++)
        mp_datatype_retain(byte);
    strcpy(f->datarep, "native");
    f->group_piece = INT64_MAX;       /* the default view: every rank's bytes contiguous */

    int err = mp_comm_dup_internal(comm, &f->comm);
    if (err) {
        f->comm = NULL;
        file_destroy(f);
        return err;
    }
    mp_comm *c = f->comm;
    mp_datatype *ints = mp_datatype_get(MPI_INT);

    /* rank 0 opens (and creates) first */
    int local = MPI_SUCCESS, created = 0, e0 = 0;
    if (c->rank == 0) {
        int flags = 0;
        if (amode & MPI_MODE_CREATE)
            flags |= O_CREAT | (amode & MPI_MODE_EXCL ? O_EXCL : 0);
        f->fd = open_fd(f, name, flags);
        if (f->fd < 0)
            e0 = errno;
        else
            created = (amode & MPI_MODE_EXCL) != 0;
        if (f->fd < 0)
            local = mp_io_errno(F, name, "cannot open", e0);
    }
    int first = local ? mp_error_class_of(local) : MPI_SUCCESS;
    if ((err = mp_bcast(&first, 1, ints, 0, c)))
        goto fail;
    if (first != MPI_SUCCESS && c->rank != 0)
        local = mp_error_code(first, "%s: cannot open '%s' (rank 0 of the group failed: %s)",
                              F, name, mp_error_class_text(first));
    if (first == MPI_SUCCESS && c->rank != 0) {
        f->fd = open_fd(f, name, 0);
        if (f->fd < 0)
            local = mp_io_errno(F, name, "cannot open", errno);
    }
    struct statfs fs;
    f->on_tmpfs = f->fd >= 0 && fstatfs(f->fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
    MPI_Offset size = 0;
    if (first == MPI_SUCCESS && c->rank == 0 && (amode & MPI_MODE_APPEND)) {
        struct stat st;
        if (fstat(f->fd, &st) == 0)
            size = st.st_size;
    }
    if (first == MPI_SUCCESS && (err = mp_io_shared_init(F, f, size)))
        goto fail;
    /* agreement: {max class as -min, amode, -amode, cores}, one MIN allreduce */
    int mine[4] = { -(local ? mp_error_class_of(local) : 0), amode, -amode,
                    mp_cores_available() };
    int all[4];
    if ((err = mp_allreduce(mine, all, 4, ints, MPI_MIN, c)))
        goto fail;
    f->host_cores = all[3] > 0 ? all[3] : 1;
    int cls = -all[0];
    if (cls == MPI_SUCCESS && all[1] != -all[2]) {
        cls = MPI_ERR_NOT_SAME;
        local = mp_error_code(cls, "%s: the processes gave different amodes for '%s' (0x%x "
                              "here)", F, name, (unsigned)amode);
    } else if (cls != MPI_SUCCESS && !local)
        local = mp_error_code(cls, "%s: cannot open '%s': another process of the group "
                              "failed (%s)", F, name, mp_error_class_text(cls));
    if (cls != MPI_SUCCESS) {
        mp_io_shared_free(f);
        if (created && c->rank == 0)
            unlink(name);
        file_destroy(f);
        return local;
    }
    if (amode & MPI_MODE_APPEND) {
        if ((err = mp_bcast(&size, 1, mp_datatype_get(MPI_OFFSET), 0, c)))
            goto fail;
        f->pos = size;
    }
    if (info != MPI_INFO_NULL && mp_info_dup_handle(info, &f->info))
        f->info = MPI_INFO_NULL;
    mp_io_hints_update(f);
    f->next = live_files;
    live_files = f;
    *out = f;
    return MPI_SUCCESS;
fail:
    mp_io_shared_free(f);
    file_destroy(f);
    return err;
}

int mp_io_close(const char *F, mp_file *f)
{
    mp_io_async_drain(f);               /* this process's nonblocking accesses are done */
    mp_io_coll_drain(f);
    if (f->split_req) {                 /* a split collective never ended: done now */
        mp_request_free(f->split_req);
        f->split_req = NULL;
    }
    int err = mp_barrier(f->comm);      /* every rank's accesses are over */
    if (f->fd >= 0 && close(f->fd) && !err)
        err = mp_io_errno(F, f->name, "cannot close", errno);
    f->fd = -1;
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->comm->rank == 0 && unlink(f->name) && !err)
        err = mp_io_errno(F, f->name, "cannot delete", errno);
    mp_io_shared_free(f);
    file_destroy(f);
    return err;
}

int mp_io_delete(const char *F, const char *name)
{
    return unlink(name) ? mp_io_errno(F, name, "cannot delete", errno) : MPI_SUCCESS;
}

/* ---- size, sync, info, atomicity ------------------------------------------------------- */

/* After rank 0 did the operation: every rank learns its error class from an allreduce,
 * which also keeps every rank from returning before rank 0 is done. */
static int by_rank0(const char *F, mp_file *f, int local)
{
    int mine = local ? mp_error_class_of(local) : MPI_SUCCESS, cls;
    int err = mp_allreduce(&mine, &cls, 1, mp_datatype_get(MPI_INT), MPI_MAX, f->comm);
    if (err)
        return err;
    if (local)
        return local;
    if (cls)
        return mp_error_code(cls, "%s: '%s': rank 0 of the group failed (%s)", F, f->name,
                             mp_error_class_text(cls));
    return MPI_SUCCESS;
}

int mp_io_set_size(const char *F, mp_file *f, MPI_Offset size)
{
    mp_io_coll_drain(f);               /* f's collectives run in the order they were called */
    int local = mp_barrier(f->comm);   /* every rank's earlier calls see the old size */
    if (local)
        return local;
    if (f->comm->rank == 0 && ftruncate(f->fd, size))
        local = mp_io_errno(F, f->name, "cannot set the size of", errno);
    return by_rank0(F, f, local);
}

int mp_io_preallocate(const char *F, mp_file *f, MPI_Offset size)
{
    mp_io_coll_drain(f);
    int local = mp_barrier(f->comm);
    if (local)
        return local;
    if (f->comm->rank == 0 && size > 0) {
        int e = posix_fallocate(f->fd, 0, size);
        if (e)
            local = mp_io_errno(F, f->name, "cannot preallocate", e);
    }
    return by_rank0(F, f, local);
}

int mp_io_get_size(const char *F, mp_file *f, MPI_Offset *size)
{
    struct stat st;
    if (fstat(f->fd, &st))
        return mp_io_errno(F, f->name, "cannot stat", errno);
    *size = st.st_size;
    return MPI_SUCCESS;
}

int mp_io_sync(const char *F, mp_file *f)
{
    int err = MPI_SUCCESS;
    mp_io_coll_drain(f);
    if (!(f->amode & MPI_MODE_RDONLY) && fsync(f->fd))
        err = mp_io_errno(F, f->name, "cannot sync", errno);
    int berr = mp_barrier(f->comm);
    return err ? err : berr;
}

mp_comm *mp_io_comm(const mp_file *f) { return f->comm; }
int mp_io_amode(const mp_file *f) { return f->amode; }
int mp_io_atomicity(const mp_file *f) { return f->atomic; }

/* ---- hints -------------------------------------------------------------------------- */

/* A sieved read's buffer is copied out piece by piece right after its pread: 256 KiB stays
 * in a core's L2 cache between the two, where ROMIO's 4 MiB goes out to L3 and back. */
enum { CB_BUFFER_DEFAULT = 16 << 20, IND_RD_DEFAULT = 256 << 10, IND_WR_DEFAULT = 512 << 10 };

static long hint_long(const mp_file *f, const char *key, long lo, long def)
{
    const char *v = mp_info_value(f->info, key);
    long n;
    return v && mp_parse_int(v, lo, 1L << 40, &n) == 0 ? n : def;
}

static int hint_mode(const mp_file *f, const char *key)
{
    const char *v = mp_info_value(f->info, key);
    return !v ? MP_IO_AUTO : strcmp(v, "enable") == 0 ? MP_IO_ENABLE :
           strcmp(v, "disable") == 0 ? MP_IO_DISABLE : MP_IO_AUTO;
}

void mp_io_hints_update(mp_file *f)
{
    mp_io_hints *h = &f->hints;
    h->cb_nodes = hint_long(f, "cb_nodes", 1, 0);
    h->cb_buffer_size = hint_long(f, "cb_buffer_size", 1, CB_BUFFER_DEFAULT);
    h->cb_read = hint_mode(f, "romio_cb_read");
    h->cb_write = hint_mode(f, "romio_cb_write");
    h->ds_read = hint_mode(f, "romio_ds_read");
    h->ds_write = hint_mode(f, "romio_ds_write");
    h->ind_rd_buffer_size = hint_long(f, "ind_rd_buffer_size", 1, IND_RD_DEFAULT);
    h->ind_wr_buffer_size = hint_long(f, "ind_wr_buffer_size", 1, IND_WR_DEFAULT);
    h->striping_unit = hint_long(f, "striping_unit", 1, 0);
    /* access_style (MPI 4.0 14.2.8): a comma-separated list; the kernel's read-ahead is
     * what the list can tune on a POSIX file */
    const char *style = mp_info_value(f->info, "access_style");
    if (style && f->fd >= 0) {
        int advice = strstr(style, "random") ? POSIX_FADV_RANDOM :
                     strstr(style, "sequential") ? POSIX_FADV_SEQUENTIAL :
                     strstr(style, "read_once") || strstr(style, "write_once") ?
                         POSIX_FADV_NOREUSE : POSIX_FADV_NORMAL;
        posix_fadvise(f->fd, 0, 0, advice);
    }
}

int mp_io_set_info(const char *F, mp_file *f, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    mp_info *given = mp_info_get(info);
    if (f->info == MPI_INFO_NULL) {
        if (mp_info_dup_handle(info, &f->info))
            return mp_error_code(MPI_ERR_NO_MEM, "%s: too many info objects", F);
    } else {
        mp_info *mine = mp_info_get(f->info);
        for (int i = 0; i < mp_info_count(given); i++)
            mp_info_put(mine, mp_info_key(given, i), mp_info_val(given, i));
    }
    mp_io_hints_update(f);
    return MPI_SUCCESS;
}

static void put_long(mp_info *info, const char *key, long v)
{
    char s[24];
    snprintf(s, sizeof s, "%ld", v);
    mp_info_put(info, key, s);
}

static void put_mode(mp_info *info, const char *key, int mode)
{
    mp_info_put(info, key, mode == MP_IO_ENABLE ? "enable" : mode == MP_IO_DISABLE ? "disable"
                                                 : "automatic");
}

/* The hints given, with the values MemPI uses for those it acts on. */
int mp_io_get_info(const char *F, mp_file *f, MPI_Info *out)
{
    mp_info *copy = f->info != MPI_INFO_NULL ? mp_info_clone(mp_info_get(f->info))
                                             : mp_info_alloc();
    const mp_io_hints *h = &f->hints;
    put_long(copy, "cb_nodes", h->cb_nodes ? h->cb_nodes : mp_io_default_aggregators(f));
    put_long(copy, "cb_buffer_size", h->cb_buffer_size);
    put_mode(copy, "romio_cb_read", h->cb_read);
    put_mode(copy, "romio_cb_write", h->cb_write);
    put_mode(copy, "romio_ds_read", h->ds_read);
    put_mode(copy, "romio_ds_write", h->ds_write);
    put_long(copy, "ind_rd_buffer_size", h->ind_rd_buffer_size);
    put_long(copy, "ind_wr_buffer_size", h->ind_wr_buffer_size);
    if (h->striping_unit)
        put_long(copy, "striping_unit", h->striping_unit);
    int handle = mp_info_publish(copy);
    if (!handle) {
        mp_info_destroy(copy);
        return mp_error_code(MPI_ERR_NO_MEM, "%s: too many info objects", F);
    }
    *out = handle;
    return MPI_SUCCESS;
}

int mp_io_set_atomicity(const char *F, mp_file *f, int flag)
{
    /* all must agree; the barrier also orders it against the accesses around it */
    int mine[2] = { !!flag, -!!flag }, all[2];
    mp_io_coll_drain(f);
    int err = mp_allreduce(mine, all, 2, mp_datatype_get(MPI_INT), MPI_MIN, f->comm);
    if (err)
        return err;
    if (all[0] != -all[1])
        return mp_error_code(MPI_ERR_NOT_SAME, "%s: the processes gave different flags for "
                             "'%s'", F, f->name);
    f->atomic = !!flag;
    return MPI_SUCCESS;
}

/* access.c -- data access: explicit offsets, individual and shared file pointers, ordered,
 * collective, nonblocking and split collective reads and writes.  MemPI, BSD-3-Clause (see
 * LICENSE).
 *
 * Every form is one function, mp_io_access: it finds the starting position (the offset given,
 * the individual pointer, or a range fetched from the shared pointer; _ordered ranks take
 * consecutive ranges in rank order from one allgather of their sizes), maps the view's stream
 * range to file pieces (view.c) and moves each with pread/pwrite, from the user's buffer when
 * it is contiguous, else through a packed temporary copy (external32 views: a copy converted
 * by the datatype layer's external32 pack and unpack).  A read stops at the end of the file
 * and reports the bytes it got; the individual pointer advances by the etypes accessed, the
 * shared pointer by the etypes requested.  Collective forms with explicit offsets or individual
 * pointers (_all, _at_all, their split and nonblocking forms) go through two-phase collective
 * buffering (coll.c), whose first step, an allgather, makes sure no rank failed its checks;
 * so do _ordered ones when buffering is on, as _at_all accesses at the places the shared
 * pointer gave them.  A rank whose checks fail still takes part in _ordered's allgather.
 * In atomic mode the access holds a POSIX record lock (read or write) from its first byte to the
 * end of the file, so conflicting accesses of different processes are serialized.
 * Independent accesses of a noncontiguous view are sieved as the hints say (romio_ds_read,
 * romio_ds_write): a read reads large buffers of the span and copies the pieces out; a write
 * locks a block of the span (a POSIX byte-range write lock), reads it, copies its pieces in
 * and writes it back.  The block's other bytes are rewritten with what was read, so while
 * sieving may happen every write locks the bytes it changes (each piece here; the span of a
 * collective-buffering aggregator in coll.c): no read-modify-write can then put back bytes
 * older than another process's completed write.  Nonblocking independent forms, and
 * collective ones that are not buffered, are checked and positioned here and handed to the
 * I/O thread (aio.c); buffered nonblocking and split collective forms start coll.c's state
 * machine and return its request (a split collective keeps it with the file until its _end);
 * _ordered_begin does the access at once, which MPI 4.0 14.4.5 allows.  The transfer functions
 * record a failure instead of making an MPI error code, because the I/O thread runs them.
 *
 * Threads.  For the same reason a blocking access that moves its data here (not through an
 * aggregator) runs its transfer -- the walk of the view and the system calls -- with the big
 * lock released under MPI_THREAD_MULTIPLE when it is large (mp_lock_step_out): the walk
 * only reads the file's view, which MPI forbids changing while an access runs, and the
 * position and the data staging are done under the lock before and after.  So a thread
 * writing megabytes does not stop the process's other threads for the length of a pwrite.
 */
#include "io/io_impl.h"
#include "coll/coll.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef mp_io_xfer xfer;

/* Automatic data sieving needs pieces that fill at least 1/SIEVE_DENSITY of their span;
 * writes are sieved automatically only when their pieces are small too (a read-modify-write
 * of the span costs more than writing pieces of a few KiB each). */
enum { SIEVE_DENSITY = 8, SIEVE_WRITE_PIECE = MP_IO_DIRECT_PIECE };

/* A collective access that goes independently on one host (mp_io_cb_local) moves a rank's
 * pieces where they lie, one pread or pwrite each, with no sieving, when they average at
 * least DIRECT_PIECE bytes: the other ranks fill the bytes between them at the same time, and
 * a pread or pwrite from the page cache costs more per byte than the system call, so moving
 * only one's own bytes is fastest.  Smaller pieces are sieved as the hints say: below a page
 * or two the system calls cost more than reading (and rewriting) the bytes between them, and
 * concurrent small writes of one file contend for its inode and pages.  The same bound as
 * automatic sieving of writes.  (Writes whose group's views have pieces between this and
 * 64 KiB go through an aggregator instead: coll.c, mp_io_cb_local.) */
enum { DIRECT_PIECE = MP_IO_DIRECT_PIECE };

int mp_io_direct_pieces(const mp_file *f, MPI_Offset spos, size_t bytes)
{
    size_t n = 0;
    return !mp_io_pieces(f, spos, bytes, mp_io_count_piece, &n) && n &&
           bytes >= n * (size_t)DIRECT_PIECE;
}

/* A failure is recorded, not turned into an MPI error code here: the I/O thread (aio.c) runs
 * these functions too, and error codes are made by MPI calls (mp_io_xfer_error). */
static int io_fail(xfer *x, const char *what, MPI_Offset off, size_t len, int e)
{
    x->fail_what = what;
    x->fail_off = off;
    x->fail_len = len;
    x->fail_errno = e;
    return MP_IO_XFER_FAILED;
}

int mp_io_xfer_error(const xfer *x, int err)
{
    if (err != MP_IO_XFER_FAILED)
        return err;
    char msg[96];
    snprintf(msg, sizeof msg, "cannot %s %zu bytes at offset %lld%s of", x->fail_what,
             x->fail_len, (long long)x->fail_off, x->sbuf ? " (data sieving)" : "");
    return mp_io_errno(x->F, x->f->name, msg, x->fail_errno);
}

/* A read piece served from the sieve buffer, which is refilled from the piece on (up to the
 * span's end) when the piece is not in it. */
static int sieve_read(xfer *x, MPI_Offset off, size_t len, size_t done)
{
    if (off < x->sbase || off + (MPI_Offset)len > x->sbase + (MPI_Offset)x->slen) {
        size_t want = x->scap;
        if ((MPI_Offset)want > x->send - off)
            want = (size_t)(x->send - off);
        x->sbase = off;
        int e = mp_io_rw(x->f, 0, x->sbuf, want, off, &x->slen);
        if (e)
            return io_fail(x, "read", off, want, e);
    }
    size_t have = off + (MPI_Offset)len <= x->sbase + (MPI_Offset)x->slen
                      ? len : (size_t)(x->sbase + (MPI_Offset)x->slen - off);
    memcpy(x->mem + done, x->sbuf + (off - x->sbase), have);
    x->moved = done + have;
    return have < len;                /* short: the end of the file */
}

/* Writes the live sieve block back (the bytes read and those changed) and unlocks it. */
int mp_io_sieve_flush(xfer *x)
{
    if (!x->live)
        return MPI_SUCCESS;
    size_t n = x->slen > x->sdirty ? x->slen : x->sdirty, k = 0;
    int e = n ? mp_io_rw(x->f, 1, x->sbuf, n, x->sbase, &k) : 0;
    if (x->lock)
        mp_io_lock(x->f, x->sbase, (MPI_Offset)x->scap, 1, 0);
    x->live = 0;
    x->slen = x->sdirty = 0;
    return e ? io_fail(x, "write", x->sbase + (MPI_Offset)k, n - k, e) : MPI_SUCCESS;
}

/* A write piece copied into the sieve block; when the piece is not in it, the block is
 * written back and the one from the piece on read.  The block is locked from before it is
 * read until it is written back: bytes between the pieces are rewritten with what was read,
 * and every other writer of them holds a lock while it writes (mp_io_write_locks). */
static int sieve_write(xfer *x, MPI_Offset off, size_t len, size_t done)
{
    if (!x->live || off < x->sbase || off + (MPI_Offset)len > x->sbase + (MPI_Offset)x->scap) {
        int err = mp_io_sieve_flush(x);
        if (err)
            return err;
        size_t want = x->scap;
        if ((MPI_Offset)want > x->send - off)
            want = (size_t)(x->send - off);
        int e = x->lock ? mp_io_lock(x->f, off, (MPI_Offset)x->scap, 1, 1) : 0;
        if (e)
            return io_fail(x, "lock", off, x->scap, e);
        x->sbase = off;
        e = mp_io_rw(x->f, 0, x->sbuf, want, off, &x->slen);
        if (e) {
            if (x->lock)
                mp_io_lock(x->f, off, (MPI_Offset)x->scap, 1, 0);
            return io_fail(x, "read", off, want, e);
        }
        memset(x->sbuf + x->slen, 0, x->scap - x->slen);   /* past the end of the file */
        x->live = 1;
    }
    memcpy(x->sbuf + (off - x->sbase), x->mem + done, len);
    size_t end = (size_t)(off - x->sbase) + len;
    x->sdirty = end > x->sdirty ? end : x->sdirty;
    x->moved = done + len;
    return 0;
}

int mp_io_rw(const mp_file *f, int write, char *buf, size_t len, MPI_Offset off,
             size_t *done)
{
    size_t k = 0;
    while (k < len) {
        ssize_t n = write ? pwrite(f->fd, buf + k, len - k, off + (off_t)k)
                          : pread(f->fd, buf + k, len - k, off + (off_t)k);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *done = k;
            return errno;
        }
        if (n == 0)                   /* end of file (reads only) */
            break;
        k += (size_t)n;
    }
    *done = k;
    return 0;
}

int mp_io_lock(const mp_file *f, MPI_Offset start, MPI_Offset len, int write, int lock)
{
    struct flock fl = { .l_type = (short)(!lock ? F_UNLCK : write ? F_WRLCK : F_RDLCK),
                        .l_whence = SEEK_SET, .l_start = start, .l_len = len };
#ifdef F_OFD_SETLKW
    int cmd = F_OFD_SETLKW;
#else
    int cmd = F_SETLKW;
#endif
    while (fcntl(f->fd, cmd, &fl) < 0) {
#ifdef F_OFD_SETLKW
        if (errno == EINVAL && cmd == F_OFD_SETLKW) {   /* a kernel without them */
            cmd = F_SETLKW;
            continue;
        }
#endif
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

MPI_Offset mp_io_share_lock(mp_io_xfer *x, MPI_Offset start, MPI_Offset end)
{
    if (!x->lock || mp_io_lock(x->f, start, end - start, 0, 1))
        return 0;
    x->lock = 0;
    return end - start;
}

int mp_io_write_locks(const mp_file *f)
{
    return !f->atomic && f->hints.ds_write != MP_IO_DISABLE;
}

int mp_io_move_piece(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    xfer *x = ctx;
    if (x->sbuf && len < x->scap)
        return x->write ? sieve_write(x, off, len, done) : sieve_read(x, off, len, done);
    if (x->sbuf && x->write) {
        int err = mp_io_sieve_flush(x);
        if (err)
            return err;
    }
    int e = x->write && x->lock ? mp_io_lock(x->f, off, (MPI_Offset)len, 1, 1) : 0;
    if (e)
        return io_fail(x, "lock", off, len, e);
    size_t k;
    e = mp_io_rw(x->f, x->write, x->mem + done, len, off, &k);
    if (x->write && x->lock)
        mp_io_lock(x->f, off, (MPI_Offset)len, 1, 0);
    x->moved = done + k;
    if (e)
        return io_fail(x, x->write ? "write" : "read", off + (MPI_Offset)k, len - k, e);
    return k < len;                   /* short: the end of the file */
}

int mp_io_count_piece(void *ctx, MPI_Offset off, size_t len, size_t done)
{
    (void)off, (void)len, (void)done;
    (*(size_t *)ctx)++;
    return 0;
}

/* Whether an independent access of stream bytes [pos, pos + bytes) starting at file byte
 * start is sieved, and with which buffer size (x->scap; x->send set). */
int mp_io_sieve_plan(xfer *x, MPI_Offset pos, size_t bytes, MPI_Offset start)
{
    const mp_file *f = x->f;
    int mode = x->write ? f->hints.ds_write : f->hints.ds_read;
    if (f->filetype->is_contig || mode == MP_IO_DISABLE || (x->write && !f->readable))
        return 0;
    x->send = mp_io_span_end(f, pos, bytes);
    MPI_Offset span = x->send - start;
    if (mode == MP_IO_AUTO) {
        if ((MPI_Offset)bytes * SIEVE_DENSITY < span)
            return 0;
        size_t n = 0;
        if (x->write && (mp_io_pieces(f, pos, bytes, mp_io_count_piece, &n) ||
                         bytes >= n * (size_t)SIEVE_WRITE_PIECE))
            return 0;
    }
    long cap = x->write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
    x->scap = (MPI_Offset)cap < span ? (size_t)cap : (size_t)span;
    return 1;
}

static int check_access(const char *F, mp_file *f, const mp_io_args *a, size_t bytes)
{
    if (a->write && (f->amode & MPI_MODE_RDONLY))
        return mp_error_code(MPI_ERR_READ_ONLY, "%s: '%s' was opened MPI_MODE_RDONLY", F,
                             f->name);
    if (!a->write && (f->amode & MPI_MODE_WRONLY))
        return mp_error_code(MPI_ERR_ACCESS, "%s: '%s' was opened MPI_MODE_WRONLY", F,
                             f->name);
    if ((f->amode & MPI_MODE_SEQUENTIAL) && (a->where == MP_IO_AT ||
                                             a->where == MP_IO_INDIVIDUAL))
        return mp_error_code(MPI_ERR_UNSUPPORTED_OPERATION, "%s: '%s' was opened with "
                             "MPI_MODE_SEQUENTIAL (only shared file pointer access)", F,
                             f->name);
    if (a->where == MP_IO_AT && a->offset < 0)
        return mp_error_code(MPI_ERR_ARG, "%s: negative offset %lld for '%s'", F,
                             (long long)a->offset, f->name);
    if (bytes % (size_t)f->etype->size)
        return mp_error_code(MPI_ERR_IO, "%s: %zu bytes are not a whole number of etypes of "
                             "%ld bytes ('%s')", F, bytes, (long)f->etype->size, f->name);
    return MPI_SUCCESS;
}

/* _ordered: my first etype from one allgather of every rank's etypes and the shared
 * pointer that rank 0 advances by their sum. */
static int ordered_position(const char *F, mp_file *f, MPI_Offset mine, MPI_Offset *pos)
{
    mp_comm *c = f->comm;
    mp_datatype *off = mp_datatype_get(MPI_OFFSET);
    mp_io_coll_drain(f);              /* f's collectives run in the order they were called */
    MPI_Offset *all = mp_malloc(sizeof *all * (size_t)c->size), before = 0, total = 0, base = 0;
    int err = mp_allgather(&mine, 1, off, all, 1, off, c);
    for (int r = 0; !err && r < c->size; r++) {
        before += r < c->rank ? all[r] : 0;
        total += all[r];
    }
    free(all);
    int local = MPI_SUCCESS;
    if (!err && c->rank == 0)
        local = mp_io_shared_fetch_add(F, f, total, &base);
    /* base = -1 tells the others rank 0 failed */
    if (!err && local)
        base = -1;
    if (!err)
        err = mp_bcast(&base, 1, off, 0, c);
    if (err || local)
        return err ? err : local;
    if (base < 0)
        return mp_error_code(MPI_ERR_IO, "%s: rank 0 could not move the shared file pointer "
                             "of '%s'", F, f->name);
    *pos = base + before;
    return MPI_SUCCESS;
}

int mp_io_check(const char *F, mp_file *f, const mp_io_args *a, size_t *bytes)
{
    int err;
    *bytes = mp_io_file_bytes(F, f, a->dt, a->count, &err);
    return err ? err : check_access(F, f, a, *bytes);
}

/* The checks of an access and its first etype (the shared pointer moved by its size). */
static int start(const char *F, mp_file *f, const mp_io_args *a, size_t *bytes,
                 MPI_Offset *pos)
{
    int err = mp_io_check(F, f, a, bytes);
    if (err) {
        MPI_Offset ignored;           /* an _ordered rank still takes part: asks for nothing */
        if (a->where == MP_IO_ORDERED)
            ordered_position(F, f, 0, &ignored);
        return err;
    }
    MPI_Offset n = (MPI_Offset)*bytes / f->etype->size;
    switch (a->where) {
    case MP_IO_AT:         *pos = a->offset; break;
    case MP_IO_INDIVIDUAL: *pos = f->pos; break;
    case MP_IO_SHARED:     return mp_io_shared_fetch_add(F, f, n, pos);
    case MP_IO_ORDERED:    return ordered_position(F, f, n, pos);
    }
    return MPI_SUCCESS;
}

int mp_io_local(const char *F, const mp_file *f, MPI_Offset spos, size_t bytes, xfer *x,
                int direct)
{
    MPI_Offset start = mp_io_file_offset(f, spos);
    int err = MPI_SUCCESS;
    if (f->atomic && mp_io_lock(f, start, 0, x->write, 1))
        return mp_io_errno(F, f->name, "cannot lock a range of", errno);
    x->lock = x->write && mp_io_write_locks(f);
    MPI_Offset span = direct ? mp_io_share_lock(x, start, mp_io_span_end(f, spos, bytes)) : 0;
    if (!direct && mp_io_sieve_plan(x, spos, bytes, start)) {
        x->sbuf = mp_malloc(x->scap);
        x->sbase = x->send;
    }
    err = mp_io_pieces(f, spos, bytes, mp_io_move_piece, x);
    if (x->write) {
        int ferr = mp_io_sieve_flush(x);
        err = err ? err : ferr;
    }
    err = mp_io_xfer_error(x, err);
    free(x->sbuf);
    x->sbuf = NULL;
    if (span)
        mp_io_lock(f, start, span, 0, 0);
    if (f->atomic)
        mp_io_lock(f, start, 0, x->write, 0);
    return err;
}

/* Whether a collective access goes through collective buffering (coll.c). */
static int buffered(const mp_file *f, const mp_io_args *a)
{
    return a->coll && (a->where == MP_IO_AT || a->where == MP_IO_INDIVIDUAL) &&
           mp_io_cb_enabled(f, a->write);
}

/* A buffered access, started and waited for in turn with the file's others. */
static int buffered_access(const char *F, mp_file *f, const mp_io_args *a, MPI_Status *status)
{
    mp_request *r;
    int err = mp_io_coll_start(F, f, a, 0, &r);
    if (err)
        return err;
    err = mp_wait_request(r);
    if (!err)
        mp_status_copy(status, &r->status);
    mp_request_free(r);
    return err;
}

/* _ordered with collective buffering: each rank's place in the stream from the shared
 * pointer, then the access buffered as an explicit-offset _all there.  A rank whose checks
 * fail asks for no etypes and still takes part in both (the buffered access tells every
 * rank of its failure), so no rank waits for it. */
static int ordered_buffered(const char *F, mp_file *f, const mp_io_args *a,
                            MPI_Status *status)
{
    size_t bytes = 0;
    MPI_Offset pos = 0;
    int bad = mp_io_check(F, f, a, &bytes);
    int err = ordered_position(F, f, bad ? 0 : (MPI_Offset)bytes / f->etype->size, &pos);
    if (err)
        return err;
    mp_io_args at = *a;
    at.where = MP_IO_AT;
    at.offset = pos;
    return buffered_access(F, f, &at, status);
}

int mp_io_access(const char *F, mp_file *f, const mp_io_args *a, MPI_Status *status)
{
    if (buffered(f, a))
        return buffered_access(F, f, a, status);
    if (a->where == MP_IO_ORDERED && mp_io_cb_enabled(f, a->write))
        return ordered_buffered(F, f, a, status);
    size_t bytes;
    MPI_Offset pos = 0;
    int err = start(F, f, a, &bytes, &pos);
    if (err)
        return err;
    MPI_Offset esize = f->etype->size, n = (MPI_Offset)bytes / esize;

    xfer x = { .F = F, .f = f, .write = a->write };
    char *tmp = NULL;
    size_t native = 0;
    err = mp_io_stage(F, f, a, bytes, &x.mem, &tmp);
    if (!err && bytes) {
        int direct = a->coll && mp_io_cb_local(f, a->write) &&
                     mp_io_direct_pieces(f, pos * esize, bytes);
        int depth = mp_lock_step_out(bytes);     /* see "Threads" at the top */
        err = mp_io_local(F, f, pos * esize, bytes, &x, direct);
        mp_lock_step_in(depth, &mp_stat.unlocked_io_accesses);
    }
    if (!err)
        err = mp_io_unstage(F, f, a, tmp, x.moved, &native);
    free(tmp);
    if (err)
        return err;
    if (a->where == MP_IO_INDIVIDUAL)
        f->pos += a->write ? n : (MPI_Offset)x.moved / esize;
    if (status != MPI_STATUS_IGNORE) {
        mp_status_empty(status);
        mp_status_set_bytes(status, (MPI_Count)native);
    }
    return MPI_SUCCESS;
}

int mp_io_stage(const char *F, const mp_file *f, const mp_io_args *a, size_t bytes,
                char **mem, char **tmp)
{
    *tmp = NULL;
    if (f->rep != MP_IO_REP_NATIVE && bytes) {
        *mem = *tmp = mp_malloc(bytes);
        return a->write ? mp_io_to_file(F, f, a->buf, a->count, a->dt, *tmp) : MPI_SUCCESS;
    }
    if (a->dt->is_contig) {
        *mem = (char *)a->buf + a->dt->true_lb;
    } else if (bytes) {
        *mem = *tmp = mp_malloc(bytes);
        if (a->write)
            mp_pack(a->buf, a->count, a->dt, 0, *tmp, bytes);
    }
    return MPI_SUCCESS;
}

int mp_io_unstage(const char *F, const mp_file *f, const mp_io_args *a, const char *tmp,
                  size_t moved, size_t *native)
{
    *native = moved;
    if (f->rep == MP_IO_REP_NATIVE) {
        if (tmp && !a->write)
            mp_unpack(a->buf, a->count, a->dt, 0, tmp, moved);
        return MPI_SUCCESS;
    }
    if (a->write) {                   /* whole elements: their native size */
        *native = mp_datatype_bytes(a->dt, a->count);
        return MPI_SUCCESS;
    }
    return tmp ? mp_io_from_file(F, f, tmp, moved, a->buf, a->dt, native) : MPI_SUCCESS;
}

int mp_io_iaccess(const char *F, mp_file *f, const mp_io_args *a, mp_request **req)
{
    if (buffered(f, a))
        return mp_io_coll_start(F, f, a, 1, req);
    MPI_Status st;
    int err;
    if (a->where == MP_IO_AT || a->where == MP_IO_INDIVIDUAL || a->where == MP_IO_SHARED) {
        /* independent, or collective without buffering: no exchange, the I/O thread's */
        size_t bytes;
        MPI_Offset pos = 0;
        if ((err = start(F, f, a, &bytes, &pos)))
            return err;
        if (bytes) {
            if ((err = mp_io_async(F, f, a, pos, bytes, req)))
                return err;
            /* the individual pointer moves by what was requested, at once */
            if (a->where == MP_IO_INDIVIDUAL)
                f->pos += (MPI_Offset)bytes / f->etype->size;
            return MPI_SUCCESS;
        }
        mp_status_empty(&st);         /* nothing to move */
    } else if ((err = mp_io_access(F, f, a, &st))) {
        return err;                   /* _ordered_begin: done here, as MPI 4.0 14.4.5 allows */
    }
    mp_request *r = mp_request_alloc(MP_REQ_FILE);
    r->comm = f->comm;
    r->owner = f;
    r->status = st;
    r->status.MPI_ERROR = MPI_SUCCESS;
    mp_request_complete(r);
    *req = r;
    return MPI_SUCCESS;
}

int mp_io_split_begin(const char *F, mp_file *f, const mp_io_args *a)
{
    if (f->split_req)
        return mp_error_code(MPI_ERR_OTHER, "%s: a split collective is already active on "
                             "'%s'", F, f->name);
    int err = mp_io_iaccess(F, f, a, &f->split_req);
    if (err)
        return err;
    f->split_write = a->write;
    f->split_where = a->where;
    f->split_buf = a->buf;
    return MPI_SUCCESS;
}

int mp_io_split_end(const char *F, mp_file *f, const void *buf, int write, int where,
                    MPI_Status *status)
{
    if (!f->split_req || f->split_write != write || f->split_where != where)
        return mp_error_code(MPI_ERR_OTHER, "%s: no matching split collective begun on '%s'",
                             F, f->name);
    mp_request *r = f->split_req;
    f->split_req = NULL;
    int err = mp_wait_request(r);
    if (!err)
        mp_status_copy(status, &r->status);
    mp_request_free(r);
    return err;
}

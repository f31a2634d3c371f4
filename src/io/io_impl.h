/* io_impl.h -- the I/O layer's private header: the file object and helpers its files share.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Only src/io/ includes this.  A view maps the data stream of a file (etype-sized units,
 * counted from 0 at the view's start) to byte offsets: the filetype is tiled from `disp`,
 * copy i at disp + i * extent, and its segments (mp_segments over a base address of the copy's
 * offset) give the pieces.  Positions (individual pointer, shared pointer, explicit offsets)
 * are in etypes, as MPI counts them; the stream byte of position p is p * etype->size.
 */
#ifndef MP_IO_IMPL_H
#define MP_IO_IMPL_H

#include "io/io.h"
#include "comm/comm.h"
#include "rma/rma.h"

#define MP_FILE_MAGIC 0x46696c65u     /* "File" */

/* The hints MemPI acts on, parsed from the file's info (mp_io_hints_update): what was given
 * when it is valid, else the default.  get_info reports these values. */
enum mp_io_mode { MP_IO_AUTO, MP_IO_ENABLE, MP_IO_DISABLE };   /* romio_cb_*, romio_ds_* */
typedef struct mp_io_hints {
    long cb_nodes;                    /* aggregators; 0: one per node */
    long cb_buffer_size;              /* collective buffering window, bytes */
    int cb_read, cb_write;            /* enum mp_io_mode */
    int ds_read, ds_write;            /* data sieving of independent accesses */
    long ind_rd_buffer_size, ind_wr_buffer_size;   /* data sieving buffers, bytes */
    long striping_unit;               /* file domains aligned to it; 0: not given */
} mp_io_hints;

enum { MP_IO_NSCRATCH = 3 };          /* coll.c's kept buffers (SCR_*) */

struct mp_file {
    uint32_t magic;
    mp_file *next;                    /* list of live files (handle validation) */
    int fd;
    int readable;                     /* fd was opened for reading (read-modify-writes) */
    char *name;
    int amode;
    int atomic;
    mp_comm *comm;                    /* private duplicate: the layer's collectives */
    int errhandler;
    MPI_Info info;                    /* the hints given (a copy), or MPI_INFO_NULL */
    mp_io_hints hints;                /* what they say (or the defaults) */
    /* view */
    MPI_Offset disp;
    mp_datatype *etype, *filetype;    /* as they lie in the file (view.c); one reference each */
    mp_datatype *vetype, *vfiletype;  /* as the user gave them (get_view); one reference each */
    char datarep[MPI_MAX_DATAREP_STRING];
    int rep;                          /* MP_IO_REP_*: how data converts on the way */
    const struct user_datarep *user;  /* a registered representation, or NULL */
    int64_t group_piece;              /* the smallest over the group of the average piece
                                         of its filetype, bytes (INT64_MAX: contiguous
                                         views), agreed by set_view (mp_io_cb_local) */
    int on_tmpfs;                     /* the file lives on tmpfs, whose page cache does not
                                         keep the size of the writes that filled it
                                         (mp_io_cb_local) */
    MPI_Offset pos;                   /* individual file pointer, etypes */
    /* shared file pointer: one MPI_Offset on rank 0 of comm, in etypes */
    mp_win *shwin;
    /* split collective in progress: its request (NULL: none) and what it was begun as */
    mp_request *split_req;
    int split_write, split_where;
    const void *split_buf;
    int host_cores;                   /* a group on one host: the fewest cores any rank has */
    /* coll.c's buffers (span, data sent, data received), kept from one access to the next */
    char *cb_scratch[MP_IO_NSCRATCH];
    size_t cb_cap[MP_IO_NSCRATCH];
};

/* view.c: data representations.  Native data moves as it is; external32 and user
 * representations with conversion functions go through a temporary in the file's form. */
enum { MP_IO_REP_NATIVE, MP_IO_REP_EXTERNAL32, MP_IO_REP_USER };
/* The file bytes of count elements of dt under f's representation (*err on failure). */
size_t mp_io_file_bytes(const char *F, const mp_file *f, mp_datatype *dt, MPI_Aint count,
                        int *err);
/* count elements of dt at buf into the file form at out (mp_io_file_bytes long). */
int  mp_io_to_file(const char *F, const mp_file *f, const void *buf, MPI_Aint count,
                   mp_datatype *dt, void *out);
/* The whole elements of dt in `bytes` file bytes at in, into buf; *native gets their native
 * size (what the status counts). */
int  mp_io_from_file(const char *F, const mp_file *f, const void *in, size_t bytes, void *buf,
                     mp_datatype *dt, size_t *native);

/* access.c: the data of an access in the file's form, at *mem: the user's buffer, or a
 * temporary (*tmp, to free) packed or converted for a write; and back after a read of
 * `moved` file bytes (*native: the bytes the status counts). */
int  mp_io_stage(const char *F, const mp_file *f, const mp_io_args *a, size_t bytes,
                 char **mem, char **tmp);
int  mp_io_unstage(const char *F, const mp_file *f, const mp_io_args *a, const char *tmp,
                   size_t moved, size_t *native);

/* file.c: parses f->info into f->hints and gives the kernel access_style advice. */
void mp_io_hints_update(mp_file *f);

/* access.c: one access's transfer of its pieces, run by the calling thread or by the I/O
 * thread (aio.c) -- so it calls nothing of MPI: a failure is recorded (fail_*) and made an MPI
 * error code afterwards by mp_io_xfer_error. */
typedef struct mp_io_xfer {
    const char *F;
    const mp_file *f;
    char *mem;                        /* the packed data */
    int write;
    int lock;                         /* writes lock the bytes they change (mp_io_write_locks) */
    size_t moved;                     /* stream bytes read or written, from the start */
    /* data sieving: the file bytes [sbase, sbase + slen) are in sbuf; a write's block
     * [sbase, sbase + scap) is live while `live`, locked when `lock`, and holds changed
     * bytes up to sdirty */
    char *sbuf;
    MPI_Offset sbase, send;           /* send: where the access's span ends */
    size_t slen, scap, sdirty;
    int live;
    const char *fail_what;            /* what failed: "write", "read", "lock" */
    MPI_Offset fail_off;
    size_t fail_len;
    int fail_errno;
} mp_io_xfer;
enum { MP_IO_XFER_FAILED = -1 };      /* a piece function's failure, recorded in the xfer */
/* An mp_io_piece_fn moving one piece of x (ctx); 1 at the end of the file. */
int  mp_io_move_piece(void *ctx, MPI_Offset off, size_t len, size_t done);
int  mp_io_sieve_flush(mp_io_xfer *x);            /* a write's last sieve block */
/* An mp_io_piece_fn counting the pieces (ctx: a size_t). */
int  mp_io_count_piece(void *ctx, MPI_Offset off, size_t len, size_t done);
/* Whether the access of stream bytes [pos, pos + bytes), from file byte start, is sieved
 * (then x->scap and x->send are set and the caller allocates x->sbuf). */
int  mp_io_sieve_plan(mp_io_xfer *x, MPI_Offset pos, size_t bytes, MPI_Offset start);
/* err, or for MP_IO_XFER_FAILED the MPI error code of the recorded failure. */
int  mp_io_xfer_error(const mp_io_xfer *x, int err);

/* POSIX record lock (write or read) on [start, start + len) of f's file, len 0: to the end;
 * lock 0 unlocks.  Open file description locks where the system has them (they belong to
 * the descriptor, so two opens of a file in one process exclude each other too).  Returns
 * 0 or an errno. */
int  mp_io_lock(const mp_file *f, MPI_Offset start, MPI_Offset len, int write, int lock);
/* Whether writes of f lock the bytes they change: when independent writes may be sieved
 * (romio_ds_write not disable) and not in atomic mode (whose lock covers the access). */
int  mp_io_write_locks(const mp_file *f);
/* A direct write (the pieces a rank of a group on one host moves itself in a collective
 * access) of x, whose writes lock (x->lock), holds one shared lock over its span [start,
 * end) instead of a lock per piece: it excludes every read-modify-write of the span (sieving,
 * an aggregator's span), which locks exclusively, but not the group's other direct writers,
 * whose bytes are their own.  Returns the length locked (then x->lock is cleared; unlock
 * with mp_io_lock), or 0: a descriptor not open for reading cannot take a read lock, and
 * the write locks per piece. */
MPI_Offset mp_io_share_lock(mp_io_xfer *x, MPI_Offset start, MPI_Offset end);
/* Whether stream bytes [spos, spos + bytes) of f lie in pieces that average
 * MP_IO_DIRECT_PIECE bytes or more: a collective access of a group on one host moves them one
 * pread or pwrite each, else it sieves as the hints say. */
enum { MP_IO_DIRECT_PIECE = 2048 };
int  mp_io_direct_pieces(const mp_file *f, MPI_Offset spos, size_t bytes);

/* Calls fn for every contiguous file piece of stream bytes [pos, pos+len) of f's view, in
 * stream order; `done` is the stream bytes before the piece.  fn returns 0 to go on, 1 to
 * stop (end of file), or an MPI error code. */
typedef int (*mp_io_piece_fn)(void *ctx, MPI_Offset file_off, size_t len, size_t done);
int  mp_io_pieces(const mp_file *f, MPI_Offset pos, size_t len, mp_io_piece_fn fn, void *ctx);
/* File offset (bytes) of stream byte pos; one past the file offset of stream byte pos+len-1
 * (len > 0); the view position (etypes) of file byte size. */
MPI_Offset mp_io_file_offset(const mp_file *f, MPI_Offset pos);
MPI_Offset mp_io_span_end(const mp_file *f, MPI_Offset pos, size_t len);
MPI_Offset mp_io_view_position(const mp_file *f, MPI_Offset size);

/* pread (write 0) or pwrite of len bytes at off, retrying short transfers and EINTR; a read
 * stops at the end of the file.  *done gets the bytes moved; returns 0 or an errno. */
int  mp_io_rw(const mp_file *f, int write, char *buf, size_t len, MPI_Offset off,
              size_t *done);

/* MPI error code for errno e of an operation on f (message: "F: what 'name': strerror"). */
int  mp_io_errno(const char *F, const char *name, const char *what, int e);

/* access.c: an access's size in file bytes and its checks (the same on every path). */
int  mp_io_check(const char *F, mp_file *f, const mp_io_args *a, size_t *bytes);
/* The independent transfer of stream bytes [spos, spos + bytes) between the file and x->mem
 * (x's F, f, write and mem set): atomic mode's lock, data sieving as the hints say unless
 * `direct` (one pread or pwrite per piece; a write under one shared lock over its span when
 * writes lock), x->moved the bytes moved. */
int  mp_io_local(const char *F, const mp_file *f, MPI_Offset spos, size_t bytes,
                 mp_io_xfer *x, int direct);

/* coll.c: two-phase collective buffering.  Whether an _all access of f uses it (the same
 * answer on every rank). */
int  mp_io_cb_enabled(const mp_file *f, int write);
/* Whether an _all access of f goes independently because the group is on one host (automatic
 * mode, no cb_nodes hint): then each rank moves its own pieces, with no communication. */
int  mp_io_cb_local(const mp_file *f, int write);
/* Aggregators of f's buffered accesses without a cb_nodes hint: one per node; a group on one
 * host, one per core (at most one per rank). */
int  mp_io_default_aggregators(const mp_file *f);
/* Starts the buffered collective access a (an _all form with an explicit offset or the
 * individual pointer) and returns its request (kind MP_REQ_FILE, owner f), which progress
 * completes: the access runs as a sequence of nonblocking collectives on f's communicator,
 * the file work done between them in the progress hook.  The accesses of a file run one after
 * another in the order they were started (the same on every rank, as MPI requires of
 * collectives).  `nonblocking`: the individual pointer moves by the etypes requested now
 * (else by those accessed, at completion).  Local checks fail in the request, after every
 * rank has agreed, so no rank is left waiting in the exchange. */
int  mp_io_coll_start(const char *F, mp_file *f, const mp_io_args *a, int nonblocking,
                      mp_request **req);
/* Waits, driving progress, until f has no collective access in progress: every other
 * collective of f's communicator (views, sizes, sync, close, ordered accesses) comes after. */
void mp_io_coll_drain(const mp_file *f);

/* aio.c: a nonblocking independent access of stream bytes [pos, pos + bytes) (bytes > 0,
 * checked, position taken) handed to the I/O thread; *req completes through progress. */
int  mp_io_async(const char *F, mp_file *f, const mp_io_args *a, MPI_Offset pos, size_t bytes,
                 mp_request **req);
/* Waits (driving progress) until no job of f is outstanding (before close). */
void mp_io_async_drain(const mp_file *f);
/* Drives progress, with the waiting policy's yields, while busy(f). */
void mp_io_progress_while(int (*busy)(const mp_file *f), const mp_file *f);

/* shared.c: the shared file pointer (etypes) */
int  mp_io_shared_init(const char *F, mp_file *f, MPI_Offset initial);   /* collective */
void mp_io_shared_free(mp_file *f);                                       /* collective */
int  mp_io_shared_fetch_add(const char *F, mp_file *f, MPI_Offset add, MPI_Offset *old);
int  mp_io_shared_set(const char *F, mp_file *f, MPI_Offset value);

#endif

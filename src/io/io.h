/* io.h -- the I/O layer's interface: files, views, data access, shared file pointers.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI-IO on POSIX files.  A file (struct mp_file, what an MPI_File points to) is one
 * descriptor per process on the same path, a private duplicate of the opening communicator for
 * the layer's collectives, the view (displacement, etype, filetype: the datatype layer's
 * segments map a view's data stream to file offsets), the individual file pointer, and a small
 * one-sided window on rank 0 of the file's group that holds the shared file pointer (atomic
 * fetch-and-add, src/rma/).  Data moves with pread/pwrite, one call per contiguous piece of
 * the file; a noncontiguous memory layout is packed into (or unpacked from) a temporary
 * buffer.  Collective calls with explicit offsets or individual pointers use two-phase
 * collective buffering (coll.c: one aggregator per node reads or writes large contiguous
 * spans of its file domain); _ordered takes its ranges from one allgather of sizes.
 * Nonblocking independent calls hand the access to a per-process I/O thread (aio.c) and
 * complete through progress; nonblocking collective calls complete before they return.
 * In atomic mode every access holds a POSIX record lock over the byte range it spans.
 *
 * Functions take checked handles and values (the binding checks what needs no file state);
 * they check what depends on the file (access mode, view, offsets) and return MPI error codes
 * whose messages name the function and the file.  None invokes an error handler: the binding
 * does, through the file's (mp_io_raise).  docs/io.md has the design and what is missing.
 */
#ifndef MP_IO_H
#define MP_IO_H

#include "core/core.h"
#include "datatype/datatype.h"

typedef struct mp_file mp_file;       /* an MPI_File points to one */

/* ---- files (file.c) -------------------------------------------------------------------- */
mp_file *mp_io_get(MPI_File fh);      /* NULL unless fh is a live file of this process */
/* Collective over comm (an intracommunicator).  amode was checked by mp_io_check_amode. */
int  mp_io_open(const char *F, mp_comm *comm, const char *name, int amode, MPI_Info info,
                mp_file **out);
int  mp_io_check_amode(const char *F, const char *name, int amode);
int  mp_io_close(const char *F, mp_file *f);                   /* collective; frees f */
int  mp_io_delete(const char *F, const char *name);
int  mp_io_set_size(const char *F, mp_file *f, MPI_Offset size);      /* collective */
int  mp_io_preallocate(const char *F, mp_file *f, MPI_Offset size);   /* collective */
int  mp_io_get_size(const char *F, mp_file *f, MPI_Offset *size);
int  mp_io_sync(const char *F, mp_file *f);                           /* collective */
mp_comm *mp_io_comm(const mp_file *f);   /* the file's group (MPI_File_get_group) */
int  mp_io_amode(const mp_file *f);
int  mp_io_set_info(const char *F, mp_file *f, MPI_Info info);
int  mp_io_get_info(const char *F, mp_file *f, MPI_Info *info);      /* a new info object */
int  mp_io_set_atomicity(const char *F, mp_file *f, int flag);        /* collective */
int  mp_io_atomicity(const mp_file *f);

/* Error handlers.  f == NULL means MPI_FILE_NULL, whose handler (default MPI_ERRORS_RETURN)
 * new files inherit and failed opens and deletes use. */
int  mp_io_errhandler(const mp_file *f);
void mp_io_set_errhandler(mp_file *f, int errhandler);   /* takes over one reference */
/* Routes a code through f's handler (f NULL: MPI_FILE_NULL's); returns the code. */
int  mp_io_raise(mp_file *f, int code, const char *func);

/* ---- views (view.c) -------------------------------------------------------------------- */
int  mp_io_set_view(const char *F, mp_file *f, MPI_Offset disp, mp_datatype *etype,
                    mp_datatype *filetype, const char *datarep, MPI_Info info);  /* collective */
/* etype and filetype come back as new handles when derived (the caller frees them). */
int  mp_io_get_view(const char *F, mp_file *f, MPI_Offset *disp, MPI_Datatype *etype,
                    MPI_Datatype *filetype, char *datarep);
int  mp_io_type_extent(const char *F, mp_file *f, mp_datatype *dt, MPI_Aint *extent);
int  mp_io_byte_offset(const char *F, mp_file *f, MPI_Offset offset, MPI_Offset *disp);
int  mp_io_seek(const char *F, mp_file *f, MPI_Offset offset, int whence);
int  mp_io_position(const char *F, mp_file *f, MPI_Offset *offset);
int  mp_io_seek_shared(const char *F, mp_file *f, MPI_Offset offset, int whence);  /* coll. */
int  mp_io_position_shared(const char *F, mp_file *f, MPI_Offset *offset);

/* User data representations (MPI_Register_datarep, _c: `large` says which function types the
 * pointers have).  MPI_ERR_DUP_DATAREP for a name already known. */
int  mp_io_register_datarep(const char *F, const char *name, void (*read_fn)(void),
                            void (*write_fn)(void), MPI_Datarep_extent_function *extent_fn,
                            void *extra, int large);

/* ---- data access (access.c) ------------------------------------------------------------ */
enum mp_io_where {
    MP_IO_AT,                         /* explicit offset (etypes of the view) */
    MP_IO_INDIVIDUAL,                 /* the individual file pointer */
    MP_IO_SHARED,                     /* the shared file pointer, independent */
    MP_IO_ORDERED                     /* the shared file pointer, collective in rank order */
};
typedef struct mp_io_args {
    int write;                        /* 1 write, 0 read */
    int where;                        /* enum mp_io_where */
    int coll;                         /* collective form (_all, _ordered, split) */
    MPI_Offset offset;                /* MP_IO_AT */
    void *buf;                        /* const for writes */
    MPI_Aint count;
    mp_datatype *dt;
} mp_io_args;
/* Blocking access; *status (may be MPI_STATUS_IGNORE) gets the bytes moved. */
int  mp_io_access(const char *F, mp_file *f, const mp_io_args *a, MPI_Status *status);
/* Nonblocking access: independent ones are carried out by the I/O thread (aio.c) and *req
 * completes through progress; collective ones are done at once (*req completed). */
int  mp_io_iaccess(const char *F, mp_file *f, const mp_io_args *a, mp_request **req);
/* MPI_Cancel of a file request: cancelled if the I/O thread has not taken it yet. */
int  mp_io_cancel(mp_request *req);
/* Split collectives: one begin per file until its end; end names the begin's buffer. */
int  mp_io_split_begin(const char *F, mp_file *f, const mp_io_args *a);
int  mp_io_split_end(const char *F, mp_file *f, const void *buf, int write, int where,
                     MPI_Status *status);

#endif

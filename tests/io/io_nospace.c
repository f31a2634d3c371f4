/* io_nospace.c -- MPI-IO on a full file system and on a read-only one (run by check-fulldisk).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * `io_nospace full DIR`: DIR is a 256 KiB tmpfs.  Every rank's independent write of 300 KiB
 * fails with MPI_ERR_NO_SPACE and a message naming the file; so does a collective write of
 * an interleaved view (each rank's own 300 KiB do not fit, whether the ranks write their
 * pieces themselves, as on one host, or through an aggregator, whose failure every rank
 * learns; also in 64 KiB windows, written while the next ones are exchanged), and a
 * nonblocking write, whose MPI_Wait goes through the file's error handler (a user handler
 * here, which must see the class).  Then set_size(0) frees the space and a small write and
 * its read-back succeed: nothing is left in a failed state.
 * `io_nospace ro DIR`: DIR was remounted read-only.  Creating a file and opening the
 * existing one for writing fail with MPI_ERR_READ_ONLY on every rank (and leave no file
 * handle); opening it read-only works.
 */
#include "../mpi/check.h"
#include <string.h>

enum { BIG = 300 << 10 };
static int me, np, handler_calls, handler_class;

static void name_in_message(int err, const char *path, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, cls;
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, msg, &len);
    CHECK(cls == MPI_ERR_NO_SPACE, "%s: class %d (%s), expected MPI_ERR_NO_SPACE", what, cls,
          msg);
    CHECK(strstr(msg, path) != NULL, "%s: the message does not name the file: %s", what, msg);
}

static void on_error(MPI_File *fh, int *err, ...)
{
    handler_calls++;
    MPI_Error_class(*err, &handler_class);
}

static void full(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/full.dat", dir);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh));
    char *buf = malloc(BIG);
    memset(buf, 'a' + me, BIG);
    /* independent: more than the file system holds, from every rank */
    int err = MPI_File_write_at(fh, (MPI_Offset)me * BIG, buf, BIG, MPI_BYTE,
                                MPI_STATUS_IGNORE);
    name_in_message(err, path, "independent write");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* collective, interleaved 4 KiB blocks */
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(4096, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)4096 * np, &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 4096, MPI_BYTE, ft, "native",
                                MPI_INFO_NULL));
    err = MPI_File_write_at_all(fh, 0, buf, BIG, MPI_BYTE, MPI_STATUS_IGNORE);
    name_in_message(err, path, "collective write");
    /* through an aggregator in windows of 64 KiB: the windows written while the next ones
     * are exchanged fail too, and the failure reaches every rank */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "65536");
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)me * 4096, MPI_BYTE, ft, "native", info));
    err = MPI_File_write_at_all(fh, 0, buf, BIG, MPI_BYTE, MPI_STATUS_IGNORE);
    name_in_message(err, path, "collective write in windows");
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    /* nonblocking: the error comes with MPI_Wait, through the file's handler */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_File_create_errhandler(on_error, &eh));
    CHECK_MPI(MPI_File_set_errhandler(fh, eh));
    MPI_Request r;
    CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)me * BIG, buf, BIG, MPI_BYTE, &r));
    err = MPI_Wait(&r, MPI_STATUS_IGNORE);
    name_in_message(err, path, "nonblocking write");
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_NO_SPACE, "the file's handler was "
          "called %d times (class %d)", handler_calls, handler_class);
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);
    /* space again: a small write works */
    CHECK_MPI(MPI_File_set_size(fh, 0));
    char small[64], back[64];
    memset(small, 'A' + me, sizeof small);
    CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)me * 64, small, 64, MPI_BYTE,
                                    MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)me * 64, back, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(memcmp(small, back, 64) == 0, "the small write did not read back");
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
    free(buf);
    CHECK_MPI(MPI_File_close(&fh));
}

static void readonly(const char *dir)
{
    char path[600], newpath[600];
    snprintf(path, sizeof path, "%s/full.dat", dir);
    snprintf(newpath, sizeof newpath, "%s/new.dat", dir);
    MPI_File fh = MPI_FILE_NULL;
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, newpath, MPI_MODE_RDWR | MPI_MODE_CREATE,
                              MPI_INFO_NULL, &fh), MPI_ERR_READ_ONLY);
    CHECK(fh == MPI_FILE_NULL, "a failed open gave a handle");
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
                MPI_ERR_READ_ONLY);
    CHECK(fh == MPI_FILE_NULL, "a failed open gave a handle");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    char back[64];
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)me * 64, back, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(back[0] == 'A' + me, "read-only file holds %c", back[0]);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(argc == 3, "usage: io_nospace full|ro DIR");
    if (strcmp(argv[1], "full") == 0)
        full(argv[2]);
    else
        readonly(argv[2]);
    MPI_Finalize();
    return 0;
}

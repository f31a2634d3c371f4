/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_open.c -- MPI_File_open/close/delete, access modes and their error classes, sizes,
 * groups, info, atomicity and file error handlers.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Each failing call must fail with the class the standard (and ROMIO) gives it and leave
 * MPI_FILE_NULL; the default file error handler must be MPI_ERRORS_RETURN (for MPI_FILE_NULL
 * and for opened files), a user handler set on MPI_FILE_NULL must see open failures and one
 * set on a file the errors of that file, and MPI_ERRORS_ARE_FATAL set on MPI_FILE_NULL must
 * end a process whose open fails: a copy of this program started as a singleton
 * (IO_FATAL_CHILD) tries that and must not survive.
 */
#include "io_common.h"
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;
static int me, np;
static int handler_calls, handler_code;
static MPI_File handler_file;

static void on_error(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_file = *fh;
}

static void fatal_child(const char *path)
{
    MPI_Init(NULL, NULL);
    MPI_File fh;
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
    printf("opening\n");
    fflush(stdout);
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    printf("survived\n");
    MPI_Finalize();
    exit(0);
}

/* rank 0: run this program as a singleton that must die in MPI_File_open */
static void check_fatal(const char *self)
{
    char *child_env[256];
    int n = 0;
    static char var[700];
    snprintf(var, sizeof var, "IO_FATAL_CHILD=%s", io_path("no-such-file"));
    child_env[n++] = var;
    for (char **e = environ; *e && n < 254; e++)
        if (strncmp(*e, "PMI", 3) && strncmp(*e, "HYDRA", 5) && strncmp(*e, "MPIR", 4) &&
            strncmp(*e, "MPI_", 4) && strncmp(*e, "MEMPI_JOB", 9) && strncmp(*e, "OMPI", 4))
            child_env[n++] = *e;
    child_env[n] = NULL;
    char *argv[] = { (char *)self, NULL };
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, io_path("child.out"), O_WRONLY | O_CREAT, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, io_path("child.err"), O_WRONLY | O_CREAT, 0600);
    CHECK(posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, child_env) == 0, "spawn failed");
    posix_spawn_file_actions_destroy(&fa);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    char out[64] = "";
    FILE *f = fopen(io_path("child.out"), "r");
    if (f) {
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = 0;
        fclose(f);
    }
    CHECK(strstr(out, "opening") != NULL, "the singleton child did not reach MPI_File_open "
          "(status 0x%x)", st);
    CHECK(strstr(out, "survived") == NULL && !(WIFEXITED(st) && WEXITSTATUS(st) == 0),
          "MPI_ERRORS_ARE_FATAL on MPI_FILE_NULL: the failed open returned (status 0x%x)", st);
}

int main(int argc, char **argv)
{
    if (getenv("IO_FATAL_CHILD"))
        fatal_child(getenv("IO_FATAL_CHILD"));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    io_setup();
    const char *a = io_path("a"), *missing = io_path("missing");
    MPI_File fh;
    MPI_Errhandler eh;

    /* default handler of MPI_FILE_NULL */
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's default handler is 0x%x", (unsigned)eh);
    MPI_Errhandler_free(&eh);

    /* amode errors */
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
                MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE,
                              MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL |
                              MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    /* a missing file, named in the message */
    int err = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_NO_SUCH_FILE, "open of a missing file: class %d",
          io_class(err));
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(err, msg, &len);
    CHECK(strstr(msg, "missing") != NULL, "message does not name the file: %s", msg);
    /* a user handler on MPI_FILE_NULL sees open failures */
    MPI_Errhandler mine;
    CHECK_MPI(MPI_File_create_errhandler(on_error, &mine));
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
    err = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK(handler_calls == 1 && handler_code == err && handler_file == MPI_FILE_NULL &&
          io_class(err) == MPI_ERR_NO_SUCH_FILE, "handler on MPI_FILE_NULL: %d calls, class %d",
          handler_calls, io_class(err));
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    handler_calls = 0;

    /* create, exclusive create of an existing file */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                            MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "a file's default handler is 0x%x", (unsigned)eh);
    MPI_Errhandler_free(&eh);
    int amode;
    CHECK_MPI(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL), "amode 0x%x", amode);
    MPI_Group g, wg;
    int cmp;
    CHECK_MPI(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "file group compares %d to the world's", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    /* sizes: set_size, preallocate (never shrinks), get_size everywhere */
    MPI_Offset size;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == 0, "new file has size %lld", (long long)size);
    MPI_Barrier(MPI_COMM_WORLD);          /* get_size is local: all look before it changes */
    /* set_size sets the size; preallocate only grows it */
    static const struct { int pre; MPI_Offset arg, want; } steps[] = {
        { 0, 1000, 1000 }, { 1, 500, 1000 }, { 1, 4096, 4096 }, { 0, 10, 10 } };
    for (int i = 0; i < 4; i++) {
        CHECK_MPI(steps[i].pre ? MPI_File_preallocate(fh, steps[i].arg)
                               : MPI_File_set_size(fh, steps[i].arg));
        CHECK_MPI(MPI_File_get_size(fh, &size));
        CHECK(size == steps[i].want, "size after %s(%lld): %lld, expected %lld",
              steps[i].pre ? "preallocate" : "set_size", (long long)steps[i].arg,
              (long long)size, (long long)steps[i].want);
    }
    CHECK_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
    /* atomicity */
    int flag = -1;
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomic by default");
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity not set");
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomicity not cleared");
    /* info */
    MPI_Info info;
    CHECK_MPI(MPI_File_get_info(fh, &info));
    CHECK(info != MPI_INFO_NULL, "get_info returned MPI_INFO_NULL");
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_sync(fh));
    /* a user handler on the file sees its errors: negative offset */
    CHECK_MPI(MPI_File_set_errhandler(fh, mine));
    char c = 0;
    err = MPI_File_read_at(fh, -1, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(handler_calls == 1 && handler_file == fh && io_class(err) == MPI_ERR_ARG,
          "negative offset: %d handler calls, class %d", handler_calls, io_class(err));
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");
    MPI_Errhandler_free(&mine);

    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                              MPI_INFO_NULL, &fh), MPI_ERR_FILE_EXISTS);
    /* read-only file: writes fail READ_ONLY; write-only: reads fail ACCESS */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    CHECK_MPI(MPI_File_close(&fh));
    /* no permission (root is never refused: skipped there) */
    if (geteuid() != 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            chmod(a, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, a, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                    MPI_ERR_ACCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            chmod(a, 0600);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* delete: present, then missing */
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_MPI(MPI_File_delete(a, MPI_INFO_NULL));
        CHECK_CLASS(MPI_File_delete(a, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* DELETE_ON_CLOSE, on MPI_COMM_SELF files of every rank */
    char own[32];
    snprintf(own, sizeof own, "own.%d", me);
    const char *ownp = io_path(own);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, ownp, MPI_MODE_WRONLY | MPI_MODE_CREATE |
                            MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK(access(ownp, F_OK) == 0, "file %s not created", ownp);
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(access(ownp, F_OK) != 0, "MPI_MODE_DELETE_ON_CLOSE left %s", ownp);
    /* invalid handle */
    CHECK_CLASS(MPI_File_get_amode(MPI_FILE_NULL, &amode), MPI_ERR_FILE);

    if (me == 0)
        check_fatal(argv[0]);
    io_done();
    MPI_Finalize();
    return 0;
}

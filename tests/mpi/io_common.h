/* mempi-test: skip (included by the io_*.c tests) */
/* io_common.h -- helpers of the MPI-IO tests: a per-test temporary directory, file names.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Rank 0 makes the directory with mkdtemp under $TMPDIR (else /tmp) and broadcasts its name;
 * io_done removes the files the test named and the directory; io_fill_background writes a
 * file's background pattern.  Every file of a test lives
 * there, so a failed run leaves at most one directory behind.
 */
#ifndef MEMPI_TEST_IO_COMMON_H
#define MEMPI_TEST_IO_COMMON_H

#include "check.h"
#include <sys/stat.h>
#include <unistd.h>

static char io_dir[512];

static void io_setup(void)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(io_dir, sizeof io_dir, "%s/mempi-io-XXXXXX", t && *t ? t : "/tmp");
        CHECK(mkdtemp(io_dir) != NULL, "mkdtemp %s failed", io_dir);
    }
    CHECK_MPI(MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD));
}

/* The path of a file in the test's directory (a static buffer per call slot). */
static const char *io_path(const char *name)
{
    static char paths[8][600];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 600, "%s/%s", io_dir, name);
    return p;
}

/* MPI_Init, the caller's rank and size, the directory. */
static void io_init(int *argc, char ***argv, int *me, int *np)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, np);
    io_setup();
}

/* A file of the test's directory opened MPI_MODE_RDWR | MPI_MODE_CREATE by every rank. */
static MPI_File io_create(const char *name, MPI_Info info)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, io_path(name), MPI_MODE_RDWR | MPI_MODE_CREATE, info,
                            &fh));
    return fh;
}

/* The library is MemPI (checks where MPICH 4.0's ROMIO behaves otherwise are strict only
 * for MemPI). */
static int io_is_mempi(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    return strncmp(lib, "MemPI", 5) == 0;
}

static void io_done(void)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", io_dir);
        CHECK(system(cmd) == 0, "cannot remove %s", io_dir);
    }
}

/* Rank 0 fills [0, size) of fh with bg(i) at byte i; then sync, barrier, sync (MPI 4.0
 * 14.6.1), so every rank's later accesses see it. */
static void io_fill_background(MPI_File fh, long size, unsigned char (*bg)(long))
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) {
        unsigned char *b = malloc((size_t)size);
        for (long i = 0; i < size; i++)
            b[i] = bg(i);
        CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)size, MPI_BYTE, MPI_STATUS_IGNORE));
        free(b);
    }
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
}

static int io_class(int code)
{
    int cls = -1;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

#endif

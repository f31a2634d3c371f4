/* mempi-test: np=1,2,3 timeout=300 */
/* mempi-test: np=2 timeout=300 env=MEMPI_WAIT=sleep */
/* io_threads.c -- blocking file accesses from several threads at once under
 * MPI_THREAD_MULTIPLE, beside a thread exchanging messages.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Every rank runs NT threads that each own a file (opened on MPI_COMM_SELF) and write and
 * read it in 256 KiB and 4 KiB pieces -- explicit offsets, the individual file pointer after a
 * seek, and a strided view (vector filetype) -- checking the data and the status counts, while
 * one more thread exchanges small messages around a ring on its own communicator, checking
 * data and status.  The data is a function of (rank, thread, round, index), so an access that
 * moved another thread's bytes or used another file's position gives a wrong value.  Under
 * MemPI the counter mempi_unlocked_io_accesses must move: the large accesses ran without the
 * big lock.
 */
#include <mpi.h>
#include "io_common.h"
#include "counters.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NT 3
#define ROUNDS 6
#define BIG 65536                     /* ints: 256 KiB */
#define RING_ITERS 2000

static int rank, size;
static MPI_Comm ring_comm;

static int val(int t, int round, long i)
{
    return (int)(rank * 1000003L + t * 10007L + round * 101L + i % 9973);
}

static void check_count(const MPI_Status *st, int want, const char *what, int t, int round)
{
    int n = -1;
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &n));
    CHECK(n == want, "thread %d round %d: %s moved %d ints, expected %d", t, round, what, n, want);
}

static void check_data(const int *got, long n, int t, int round, long first, const char *what)
{
    for (long i = 0; i < n; i++)
        if (got[i] != val(t, round, first + i))
            FAIL("thread %d round %d: %s [%ld] = %d, expected %d", t, round, what, i, got[i],
                 val(t, round, first + i));
}

static void *file_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    char path[700];                   /* io_path's buffers are not for threads */
    snprintf(path, sizeof path, "%s/f%d_%d", io_dir, rank, t);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh));
    int *out = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
    CHECK(out && in, "out of memory");
    MPI_Status st;
    MPI_Datatype every_other;         /* a strided view: ints 0, 2, 4, ... */
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &every_other));
    MPI_Datatype tile;
    CHECK_MPI(MPI_Type_create_resized(every_other, 0, 2 * sizeof(int), &tile));
    CHECK_MPI(MPI_Type_commit(&tile));
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Offset at = (MPI_Offset)round * BIG * (MPI_Offset)sizeof(int);
        for (long i = 0; i < BIG; i++)
            out[i] = val(t, round, i);
        /* explicit offsets */
        CHECK_MPI(MPI_File_write_at(fh, at, out, BIG, MPI_INT, &st));
        check_count(&st, BIG, "write_at", t, round);
        memset(in, 0, sizeof(int) * BIG);
        CHECK_MPI(MPI_File_read_at(fh, at, in, BIG, MPI_INT, &st));
        check_count(&st, BIG, "read_at", t, round);
        check_data(in, BIG, t, round, 0, "read_at");
        /* the individual pointer (in bytes: the default view's etype is MPI_BYTE): read the
         * second half of the block, then a small piece */
        MPI_Offset half = (MPI_Offset)(BIG / 2) * (MPI_Offset)sizeof(int);
        CHECK_MPI(MPI_File_seek(fh, at + half, MPI_SEEK_SET));
        memset(in, 0, sizeof(int) * BIG);
        CHECK_MPI(MPI_File_read(fh, in, BIG / 2, MPI_INT, &st));
        check_count(&st, BIG / 2, "read", t, round);
        check_data(in, BIG / 2, t, round, BIG / 2, "read (individual pointer)");
        MPI_Offset pos;
        CHECK_MPI(MPI_File_get_position(fh, &pos));
        CHECK(pos == at + 2 * half, "thread %d round %d: position %lld",
              t, round, (long long)pos);
        CHECK_MPI(MPI_File_read_at(fh, at + 16, in, 1024, MPI_INT, &st));
        check_count(&st, 1024, "small read_at", t, round);
        check_data(in, 1024, t, round, 4, "small read_at");
    }
    /* a strided view over the first block: every other int */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, tile, "native", MPI_INFO_NULL));
    memset(in, 0, sizeof(int) * BIG);
    CHECK_MPI(MPI_File_read_at(fh, 0, in, BIG / 2, MPI_INT, &st));
    check_count(&st, BIG / 2, "strided read_at", t, 0);
    for (long i = 0; i < BIG / 2; i++)
        if (in[i] != val(t, 0, 2 * i))
            FAIL("thread %d: strided read [%ld] = %d, expected %d", t, i, in[i], val(t, 0, 2 * i));
    CHECK_MPI(MPI_Type_free(&tile));
    CHECK_MPI(MPI_Type_free(&every_other));
    CHECK_MPI(MPI_File_close(&fh));
    free(out);
    free(in);
    return NULL;
}

static void *ring_thread(void *arg)
{
    (void)arg;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < RING_ITERS; it++) {
        long out[2] = { rank, it }, in[2] = { -1, -1 };
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, 2, MPI_LONG, right, it % 50, in, 2, MPI_LONG, left, it % 50,
                               ring_comm, &st));
        int n;
        MPI_Get_count(&st, MPI_LONG, &n);
        CHECK(in[0] == left && in[1] == it && st.MPI_SOURCE == left && st.MPI_TAG == it % 50 &&
              n == 2, "ring %d: got (%ld, %ld) source %d tag %d count %d", it, in[0], in[1],
              st.MPI_SOURCE, st.MPI_TAG, n);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave level %d", level);
    io_setup();
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ring_comm));

    int counted = io_is_mempi();
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    if (counted) {
        counters_open();
        h = counter_start("mempi_unlocked_io_accesses");
    }

    pthread_t th[NT + 1];
    for (int t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, file_thread, (void *)(intptr_t)t) == 0,
              "pthread_create");
    CHECK(pthread_create(&th[NT], NULL, ring_thread, NULL) == 0, "pthread_create");
    for (int t = 0; t <= NT; t++)
        pthread_join(th[t], NULL);

    if (counted) {
        unsigned long long v = counter_read(h);
        /* every round's write_at, read_at and read move 128 KiB or more */
        CHECK(v >= (unsigned long long)NT * ROUNDS * 3, "%llu accesses ran without the big "
              "lock, expected at least %d", v, NT * ROUNDS * 3);
        counters_close();
    }
    CHECK_MPI(MPI_Comm_free(&ring_comm));
    io_done();
    MPI_Finalize();
    return 0;
}

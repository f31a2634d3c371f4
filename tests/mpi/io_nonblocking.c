/* mempi-test: np=1,2,3,5 timeout=120 */
/* io_nonblocking.c -- nonblocking independent file accesses that run while the caller goes
 * on: overlap, MPI_Test/MPI_Wait/MPI_Waitall/MPI_Testsome, MPI_Cancel, MPI_Request_free.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Overlap, without timing: each rank opens a file of its own (MPI_COMM_SELF) in atomic mode,
 * where an access holds a POSIX write lock over its range, and a forked child process holds a
 * conflicting lock.  MPI_File_iwrite_at must return while the lock is held -- an
 * implementation that does the access in the call hangs there (and the test times out) -- and
 * MPI_Test must say "not complete" for as long as the child holds it; the rank meanwhile
 * exchanges messages with its neighbours.  A second request queued behind the blocked one is
 * cancelled (MPI_Cancel succeeds; MPI_Test_cancelled says so; its data never reaches the
 * file); then the child lets go and MPI_Wait completes the first with the full count.
 * Then, on a shared file: 24 outstanding iwrite_at/iwrite/iwrite_shared per rank through an
 * interleaved vector view from noncontiguous memory, completed by MPI_Waitall and
 * MPI_Testsome loops; the individual pointer moved by what was requested at initiation;
 * every byte checked by iread_at into noncontiguous memory; an iread past the end of the file
 * counts what exists; a request freed with MPI_Request_free before it completes is finished
 * by MPI_File_close.  Runs on MPICH too, where two parts are checked for MemPI only: overlap
 * and cancel (ROMIO's nonblocking writes block in atomic mode and cannot be cancelled), and
 * the freed request (MPICH 4.0's ROMIO loses a write whose request was freed before close).
 */
#include "io_common.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

enum { N = 64, NREQ = 24 };
static int me, np;

/* A child process that write-locks [0, 4096) of path, tells us, and unlocks when told. */
static pid_t locker(const char *path, int *release_fd)
{
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0, "pipe");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        int fd = open(path, O_RDWR);
        struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0,
                            .l_len = 4096 };
        char c = fd >= 0 && fcntl(fd, F_SETLKW, &fl) == 0 ? 'L' : 'E';
        if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) < 0)
            _exit(1);
        _exit(0);                     /* the lock goes with the process */
    }
    char c = 0;
    CHECK(read(up[0], &c, 1) == 1 && c == 'L', "the child could not lock %s", path);
    close(up[0]);
    close(up[1]);
    close(down[0]);
    *release_fd = down[1];
    return pid;
}

static void ring_exchange(int round)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, got = -1;
    CHECK_MPI(MPI_Sendrecv(&round, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == round, "ring exchange %d got %d", round, got);
}

static void overlap(void)
{
    char name[32];
    snprintf(name, sizeof name, "own%d", me);
    const char *path = io_path(name);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh));
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    int release;
    pid_t pid = locker(path, &release);
    int a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = 1000 * me + i, b[i] = -1;
    MPI_Request r1, r2;
    CHECK_MPI(MPI_File_iwrite_at(fh, 0, a, N, MPI_INT, &r1));   /* must not block */
    CHECK_MPI(MPI_File_iwrite_at(fh, N * sizeof(int), b, N, MPI_INT, &r2));
    int flag = 1;
    for (int round = 0; round < 20; round++) {
        CHECK_MPI(MPI_Test(&r1, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "the write completed while another process held the lock (round %d)",
              round);
        ring_exchange(round);         /* communication goes on meanwhile */
    }
    CHECK_MPI(MPI_Cancel(&r2));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&r2, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "the queued write was not cancelled");
    char c = 'U';
    CHECK(write(release, &c, 1) == 1, "cannot tell the child");
    close(release);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the locking child failed");
    CHECK_MPI(MPI_Wait(&r1, &st));
    int count;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == N, "the write moved %d ints, expected %d", count, N);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "the completed write says cancelled");
    MPI_Offset size;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == (MPI_Offset)(N * sizeof(int)), "size %lld: the cancelled write reached the "
          "file", (long long)size);
    int back[N];
    CHECK_MPI(MPI_File_read_at(fh, 0, back, N, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(back[i] == a[i], "int %d is %d, expected %d", i, back[i], a[i]);
    CHECK_MPI(MPI_File_close(&fh));
}

/* File int k of the interleaved view: rank k % np's element k / np. */
static int value(int k) { return 7 * k + 3; }

static void many(void)
{
    MPI_File fh = io_create("shared", MPI_INFO_NULL);
    MPI_Datatype ft, mt;
    /* view: my ints of the file, one in every np; memory: every other int of a buffer */
    CHECK_MPI(MPI_Type_vector(1, 1, np, MPI_INT, &ft));
    MPI_Datatype ftr;
    CHECK_MPI(MPI_Type_create_resized(ft, 0, (MPI_Aint)(np * sizeof(int)), &ftr));
    CHECK_MPI(MPI_Type_commit(&ftr));
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &mt));
    CHECK_MPI(MPI_Type_commit(&mt));
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(me * sizeof(int)), MPI_INT, ftr, "native",
                                MPI_INFO_NULL));
    /* request q writes my elements [q * N, q * N + N): explicit offsets for even q, the
     * individual pointer (seeked) for odd q */
    int *bufs = malloc(sizeof(int) * 2 * N * NREQ);
    MPI_Request reqs[NREQ];
    for (int q = 0; q < NREQ; q++) {
        int *b = bufs + 2 * N * q;
        for (int i = 0; i < N; i++)
            b[2 * i] = value((q * N + i) * np + me), b[2 * i + 1] = -7;
        if (q % 2 == 0) {
            CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)q * N, b, 1, mt, &reqs[q]));
        } else {
            CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)q * N, MPI_SEEK_SET));
            CHECK_MPI(MPI_File_iwrite(fh, b, 1, mt, &reqs[q]));
            MPI_Offset p;
            CHECK_MPI(MPI_File_get_position(fh, &p));
            CHECK(p == (MPI_Offset)(q + 1) * N, "pointer %lld after iwrite, expected %lld",
                  (long long)p, (long long)(q + 1) * N);
        }
    }
    MPI_Status sts[NREQ];
    if (me % 2 == 0) {
        CHECK_MPI(MPI_Waitall(NREQ, reqs, sts));
    } else {
        int left = NREQ, idx[NREQ], outcount;
        while (left > 0) {
            CHECK_MPI(MPI_Testsome(NREQ, reqs, &outcount, idx, sts));
            if (outcount != MPI_UNDEFINED)
                left -= outcount;
        }
        for (int q = 0; q < NREQ; q++)
            CHECK(reqs[q] == MPI_REQUEST_NULL, "request %d not freed", q);
    }
    if (me % 2 == 0)
        for (int q = 0; q < NREQ; q++) {
            int count;
            CHECK_MPI(MPI_Get_count(&sts[q], mt, &count));
            CHECK(count == 1, "request %d: count %d", q, count);
        }
    free(bufs);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_File_sync(fh));
    /* every int of the file, through the byte view, into every other int of memory */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int total = N * NREQ * np;
    int *all = malloc(sizeof(int) * 2 * (size_t)total);
    MPI_Datatype allt;
    CHECK_MPI(MPI_Type_vector(total, 1, 2, MPI_INT, &allt));
    CHECK_MPI(MPI_Type_commit(&allt));
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_File_iread_at(fh, 0, all, 1, allt, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    int count;
    CHECK_MPI(MPI_Get_count(&st, allt, &count));
    CHECK(count == 1, "whole-file read count %d", count);
    for (int k = 0; k < total; k++)
        CHECK(all[2 * k] == value(k), "file int %d is %d, expected %d", k, all[2 * k],
              value(k));
    /* past the end: only what exists */
    CHECK_MPI(MPI_File_iread_at(fh, total - 5, all, 10, MPI_INT, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 5, "read past the end counted %d ints, expected 5", count);
    CHECK(all[4] == value(total - 1), "last int %d", all[4]);
    /* a freed request: close finishes it */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int extra = value(total + me);
    CHECK_MPI(MPI_File_iwrite_at(fh, total + me, &extra, 1, MPI_INT, &r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_File_close(&fh));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("shared"), MPI_MODE_RDONLY, MPI_INFO_NULL,
                            &fh));
    int got = 0;
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)(total + me) * sizeof(int), &got, 1, MPI_INT,
                               MPI_STATUS_IGNORE));
    CHECK(got == extra || !io_is_mempi(), "the freed request's int is %d, expected %d", got,
          extra);
    CHECK_MPI(MPI_File_close(&fh));
    free(all);
    MPI_Type_free(&allt);
    MPI_Type_free(&ft);
    MPI_Type_free(&ftr);
    MPI_Type_free(&mt);
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, &me, &np);
    if (io_is_mempi())
        overlap();
    many();
    io_done();
    MPI_Finalize();
    return 0;
}

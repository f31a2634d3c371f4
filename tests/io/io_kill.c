/* io_kill.c -- a rank killed during a collective write (run by check-iokill).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * `io_kill FILE before|during`: every rank owns blocks of BLK bytes of FILE, rank r blocks
 * r, r + np, ... (an interleaved view; buffering forced on, windows of 256 KiB, rank 0 the
 * one aggregator).  Pass A writes them collectively, syncs, and every rank says "A done".
 * Then the ranks write passes B and A in turn while one of them dies by SIGKILL: `before`,
 * the last rank (not an aggregator) as the others enter the write; `during`, rank 0, the
 * aggregator, from a thread 5-40 ms later, somewhere in the exchange or in a pwritev.
 * mpiexec must end the job and name the rank.
 * `io_kill FILE check before|during NP` (one process, after the job): every byte of FILE
 * holds its owner's pass-A value (`before`: nobody may have written, the exchange needs every
 * rank) or its pass-A or pass-B value (`during`): an aggregator that dies mid-write leaves
 * no byte of another rank's data lost, shifted or zeroed.
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BLK = 4096, NB = 256 };        /* 1 MiB a rank */

static unsigned char value(long off, int pass, int owner)
{
    return (unsigned char)((off * 5 + owner * 17 + pass * 101 + 1) & 0xff);
}

static void die(const char *what)
{
    fprintf(stderr, "io_kill: %s\n", what);
    exit(2);
}

static void *killer(void *arg)
{
    struct timespec ts = { 0, (long)(size_t)arg * 1000000L };
    nanosleep(&ts, NULL);
    kill(getpid(), SIGKILL);
    return NULL;
}

static int check(const char *path, int during, int np)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open the file to check");
    long size = (long)BLK * NB * np, bad = 0, b_bytes = 0;
    unsigned char *all = malloc((size_t)size + 1);
    size_t got = fread(all, 1, (size_t)size + 1, f);
    fclose(f);
    if ((long)got != size) {
        printf("FAIL: the file holds %zu bytes, expected %ld\n", got, size);
        return 1;
    }
    for (long i = 0; i < size; i++) {
        int owner = (int)(i / BLK % np);
        int is_a = all[i] == value(i, 0, owner), is_b = all[i] == value(i, 1, owner);
        b_bytes += !is_a && is_b;
        if (!(is_a || (during && is_b)) && bad++ < 5)
            printf("FAIL: byte %ld (rank %d's) is %d: neither its pass-A value %d%s%d\n", i,
                   owner, all[i], value(i, 0, owner), during ? " nor its pass-B value " : "",
                   during ? value(i, 1, owner) : -1);
    }
    free(all);
    if (bad)
        return 1;
    printf("file intact: %ld bytes of pass B, the rest pass A\n", b_bytes);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[2], "check") == 0)
        return check(argv[1], strcmp(argv[3], "during") == 0, atoi(argv[4]));
    if (argc != 3)
        die("usage: io_kill FILE before|during | io_kill FILE check before|during NP");
    int during = strcmp(argv[2], "during") == 0, me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_buffer_size", "262144");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh))
        die("cannot open the file");
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(BLK, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)BLK * np, &ft);
    MPI_Type_commit(&ft);
    if (MPI_File_set_view(fh, (MPI_Offset)me * BLK, MPI_BYTE, ft, "native", info))
        die("set_view failed");
    unsigned char *buf[2];
    for (int pass = 0; pass < 2; pass++) {
        buf[pass] = malloc((size_t)BLK * NB);
        for (long k = 0; k < NB; k++)
            for (long j = 0; j < BLK; j++)
                buf[pass][k * BLK + j] = value((k * np + me) * BLK + j, pass, me);
    }
    if (MPI_File_write_at_all(fh, 0, buf[0], BLK * NB, MPI_BYTE, MPI_STATUS_IGNORE) ||
        MPI_File_sync(fh))
        die("pass A failed");
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: A done\n", me);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!during && me == np - 1)
        kill(getpid(), SIGKILL);
    if (during && me == 0) {
        pthread_t t;
        srand((unsigned)getpid());
        if (pthread_create(&t, NULL, killer, (void *)(size_t)(5 + rand() % 36)))
            die("cannot start the killer thread");
    }
    for (long i = 1;; i++)            /* B, A, B, ... until the job is torn down */
        MPI_File_write_at_all(fh, 0, buf[i % 2], BLK * NB, MPI_BYTE, MPI_STATUS_IGNORE);
}

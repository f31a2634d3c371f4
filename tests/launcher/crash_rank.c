/* crash_rank.c -- a real MPI program (linked to libmpi) that fails in a chosen way, for check-crash.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Unlike pmi_helper.c, which speaks PMI by hand, this program links the whole library and so
 * loads libfabric and whatever it drags in (libinfinipath installs a SIGSEGV handler at load
 * time unless IPATH_NO_BACKTRACE is set).  It checks that failures of real ranks reach
 * mpiexec undisguised.
 *
 *   crash_rank MODE RANK [CODE]
 *     segv      rank RANK dereferences NULL after a barrier
 *     abrt      rank RANK calls abort() (a failed assert())
 *     abort     rank RANK calls MPI_Abort(MPI_COMM_WORLD, CODE), CODE 7 unless given
 *     fatal     rank RANK calls MPI_Comm_call_errhandler(MPI_COMM_WORLD, CODE) under the default
 *               MPI_ERRORS_ARE_FATAL (CODE as given, 1073741824 unless given)
 *     nofinal   rank RANK returns 0 from main without MPI_Finalize
 *     hang      every rank sleeps (the script kills one with SIGKILL)
 *
 * The failing rank prints "failing at <ms>" (wall clock) just before it fails, so that the
 * script can time detection and teardown without counting start-up.  Every rank first
 * prints "segment mempi-<job>-" (the prefix of the node segment it maps,
 * read from /proc/self/maps) so that the script can check that no file of this job is left
 * in /dev/shm, without confusing it with other jobs running on the machine.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void print_segment_prefix(int rank)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strstr(line, "/dev/shm/mempi-");
        if (p == NULL)
            continue;
        p += strlen("/dev/shm/");
        char *dash = strchr(p + strlen("mempi-"), '-');
        if (dash != NULL) {
            printf("rank %d segment %.*s\n", rank, (int)(dash + 1 - p), p);
            break;
        }
    }
    fclose(f);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int rank, size;
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: crash_rank segv|abrt|abort|fatal|nofinal|hang|busy RANK [CODE]\n");
        return 2;
    }
    int victim = atoi(argv[2]);
    long code = argc == 4 ? strtol(argv[3], NULL, 0) : strcmp(argv[1], "fatal") == 0 ? 1L << 30 : 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    print_segment_prefix(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(argv[1], "hang") == 0) {
        for (;;)
            pause();
    }
    if (strcmp(argv[1], "busy") == 0) {
        /* Large messages around a ring (single copy between the ranks) until one is killed
         * from outside: its neighbours then see their copy fail, and must not replace the
         * launcher's report of the death by their own abort. */
        enum { N = 1 << 20 };
        static char buf[N];
        for (;;)
            MPI_Sendrecv_replace(buf, N, MPI_CHAR, (rank + 1) % size, 0,
                                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == victim) {
        /* The script measures from here to the end of mpiexec: detection and teardown. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("failing at %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        fflush(stdout);
        if (strcmp(argv[1], "segv") == 0) {
            volatile int *volatile nowhere = NULL;
            *nowhere = 1;
        } else if (strcmp(argv[1], "abrt") == 0) {
            abort();
        } else if (strcmp(argv[1], "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, (int)code);
        } else if (strcmp(argv[1], "fatal") == 0) {
            MPI_Comm_call_errhandler(MPI_COMM_WORLD, (int)code);
        } else if (strcmp(argv[1], "nofinal") == 0) {
            return 0;
        }
    }
    /* The others wait for a message that never comes: only the launcher can end them. */
    int x;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}

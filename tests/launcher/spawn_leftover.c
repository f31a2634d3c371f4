/* spawn_leftover.c -- a spawned job leaves a name in /dev/shm and its launcher is SIGKILLed.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Helper of check-spawn-sweep.  The parents spawn two children (this program with argument
 * "child").  Child 0 reads its job's id from its launcher's command line (the nested
 * mpiexec's --job-id), creates /dev/shm/mempi-<job id>-leftover -- what a rank killed before
 * it could unlink a segment of its job would leave -- and prints its path; every process
 * ignores SIGTERM and waits for a message that never comes.
 */
#include <mpi.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void leave_a_name(void)
{
    char args[8192], path[64], job[40] = "";
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)getppid());
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f)
        fclose(f);
    args[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(args + i) + 1)
        if (strcmp(args + i, "--job-id") == 0 && i + 9 < n) {
            snprintf(job, sizeof job, "%s", args + i + 9);
            break;
        }
    if (job[0] == '\0') {
        fprintf(stderr, "spawn_leftover: no --job-id in the launcher's command line\n");
        return;
    }
    char name[200];
    snprintf(name, sizeof name, "/mempi-%s-leftover", job);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd >= 0)
        close(fd);
    printf("/dev/shm%s\n", name);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, inter;
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    signal(SIGTERM, SIG_IGN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        if (rank == 0)
            leave_a_name();
        MPI_Recv(&v, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE);   /* never sent */
    } else {
        char *args[] = { "child", NULL };
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);       /* never sent */
    }
    return 1;
}

/* spawn.c -- MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE: Fortran CHARACTER arrays to C argv.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A Fortran ARGV is an array of CHARACTER*(*) elements of one hidden length, ended by an
 * element that is all blanks; MPI_ARGV_NULL (recognised by address) means no arguments.  For
 * SPAWN_MULTIPLE, ARRAY_OF_ARGV(COUNT, *) stores argument j of command i at (i, j), so in
 * column-major order the arguments of one command are COUNT elements apart.
 */
#include "fortran/fortran.h"
#include "core/core.h"
#include <stdlib.h>

static int mp_f_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ') return 0;
    return 1;
}

/* NULL-terminated malloc'd argv from elements first, first+stride, ... of a Fortran array. */
static char **mp_f_argv(const char *a, size_t elen, size_t stride)
{
    size_t n = 0;
    while (!mp_f_blank(a + n * stride * elen, elen)) n++;
    char **argv = mp_malloc(sizeof(char *) * (n + 1));
    for (size_t i = 0; i < n; i++) argv[i] = mp_f_str_in(a + i * stride * elen, elen, 0);
    argv[n] = NULL;
    return argv;
}

static void mp_f_argv_free(char **argv)
{
    if (!argv) return;
    for (size_t i = 0; argv[i]; i++) free(argv[i]);
    free(argv);
}

void mp_f_comm_spawn(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                     MPI_Fint *ierror, size_t command_len, size_t argv_len);
void mp_f_comm_spawn(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                     MPI_Fint *ierror, size_t command_len, size_t argv_len)
{
    char *cmd = mp_f_str_in(command, command_len, 1);
    char **cargv = argv == mpiprivc_.argv_null ? MPI_ARGV_NULL : mp_f_argv(argv, argv_len, 1);
    *ierror = PMPI_Comm_spawn(cmd, cargv, *maxprocs, *info, *root, *comm,
                              (MPI_Comm *)intercomm, mp_f_errcodes(errcodes));
    mp_f_argv_free(cargv);
    free(cmd);
}
MP_F_EXPORT(mp_f_comm_spawn, "comm_spawn", "COMM_SPAWN")

void mp_f_comm_spawn_multiple(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                              MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                              MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierror,
                              size_t commands_len, size_t argvs_len);
void mp_f_comm_spawn_multiple(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                              MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                              MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierror,
                              size_t commands_len, size_t argvs_len)
{
    int n = *count > 0 ? *count : 0;
    char **cmds = mp_calloc((size_t)n + 1, sizeof(char *));
    char ***cargvs = argvs == mpiprivc_.argvs_null ? MPI_ARGVS_NULL
                                                 : mp_calloc((size_t)n + 1, sizeof(char **));
    for (int i = 0; i < n; i++) {
        cmds[i] = mp_f_str_in(commands + (size_t)i * commands_len, commands_len, 1);
        if (cargvs) cargvs[i] = mp_f_argv(argvs + (size_t)i * argvs_len, argvs_len, (size_t)n);
    }
    *ierror = PMPI_Comm_spawn_multiple(*count, cmds, cargvs, maxprocs, (const MPI_Info *)infos,
                                       *root, *comm, (MPI_Comm *)intercomm,
                                       mp_f_errcodes(errcodes));
    for (int i = 0; i < n; i++) {
        free(cmds[i]);
        if (cargvs) mp_f_argv_free(cargvs[i]);
    }
    free(cmds);
    free(cargvs);
}
MP_F_EXPORT(mp_f_comm_spawn_multiple, "comm_spawn_multiple", "COMM_SPAWN_MULTIPLE")

/* mempi-test: np=1,2,3,5 timeout=120 */
/* dynproc_spawn.c -- MPI_Comm_spawn and _multiple: children, data both ways, merge, appnum, info keys.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The program is its own child (argv[1] == "child").  The parents spawn 1..3 children in
 * turn with root = the last rank; each time: the intercommunicator has the right sizes on
 * both sides, MPI_Comm_get_parent is MPI_COMM_NULL in the parents and the intercommunicator
 * in the children, every parent sends each child a value and each child answers every
 * parent (data both ways), a merge with the children high puts them last and an allreduce
 * over it gives the sum both sides expect, and a disconnect ends it.  Then spawn_multiple of
 * two commands (2 + 1 processes) with the info keys env (a variable the children check) and
 * wdir (the children check their working directory): MPI_APPNUM is 0, 0, 1 in the children,
 * whose MPI_COMM_WORLD has 3 processes.  A command that does not exist fails the spawn with
 * MPI_ERR_SPAWN on every parent, errcodes included.  array_of_errcodes must be MPI_SUCCESS.
 * MPI_UNIVERSE_SIZE is at least the parents' job size, and the children's is the parents'
 * (under MemPI's mpiexec).  Across hosts (tests/cluster) the children and parents talk through
 * the network transport.
 */
#include <mpi.h>
#include "check.h"

static void child(int argc, char **argv)
{
    MPI_Comm parent, merged;
    int rank, size, rsize, appnum = -1, flag = 0, *attr;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(parent, &rsize);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag);
    if (flag)
        appnum = *attr;
    if (strcmp(argv[2], "multi") == 0) {
        CHECK(size == 3, "spawn_multiple gave a world of %d", size);
        CHECK(flag && appnum == (rank < 2 ? 0 : 1), "rank %d has appnum %d", rank, appnum);
        const char *v = getenv("DYNPROC_SPAWN_VAR");
        /* MemPI's mpiexec sets it before the program starts, under Hydra MPI_Init does */
        CHECK(v && strcmp(v, rank < 2 ? "first" : "second") == 0, "env gave '%s'", v ? v : "");
        char cwd[4096];
        CHECK(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/") == 0, "wdir gave '%s'", cwd);
    } else {
        CHECK(size == atoi(argv[2]), "world of %d, expected %s", size, argv[2]);
        CHECK(!flag || appnum == 0, "appnum %d", appnum);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &attr, &flag);
        /* MemPI's mpiexec (it sets MEMPI_NAME_SCOPE) hands the universe on; Hydra does not */
        CHECK(flag && (*attr == atoi(argv[3]) || (!getenv("MEMPI_NAME_SCOPE") && *attr >= 1)),
              "the children's MPI_UNIVERSE_SIZE is %d, the parents' %s", flag ? *attr : -1,
              argv[3]);
    }
    for (int p = 0; p < rsize; p++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, p, 1, parent, MPI_STATUS_IGNORE);
        CHECK(v == 100 * p + rank, "from parent %d got %d", p, v);
        v = -v;
        MPI_Send(&v, 1, MPI_INT, p, 2, parent);
    }
    int mrank, sum = 0, one = 1;
    MPI_Intercomm_merge(parent, 1, &merged);
    MPI_Comm_rank(merged, &mrank);
    CHECK(mrank == rsize + rank, "merged rank %d", mrank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == rsize + size, "allreduce gave %d", sum);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "get_parent after disconnect");
    (void)argc;
}

static void talk(MPI_Comm inter, int nchildren)
{
    int rank, size, rsize, lsize;
    MPI_Comm merged;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(lsize == size && rsize == nchildren, "intercomm %d x %d", lsize, rsize);
    for (int c = 0; c < rsize; c++) {
        int v = 100 * rank + c;
        MPI_Send(&v, 1, MPI_INT, c, 1, inter);
    }
    for (int c = 0; c < rsize; c++) {
        int v = 0;
        MPI_Recv(&v, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE);
        CHECK(v == -(100 * rank + c), "from child %d got %d", c, v);
    }
    int mrank, sum = 0, one = 1;
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Comm_rank(merged, &mrank);
    CHECK(mrank == rank, "merged rank %d", mrank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == size + rsize, "allreduce gave %d", sum);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 2 && strcmp(argv[1], "child") == 0) {
        child(argc, argv);
        MPI_Finalize();
        return 0;
    }
    int rank, size, errs[3];
    MPI_Comm parent, inter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL, "the parents have a parent");
    int *usize, flag = 0;
    char universe[16];
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    CHECK(flag && *usize >= size, "MPI_UNIVERSE_SIZE %d in a job of %d", flag ? *usize : -1,
          size);
    snprintf(universe, sizeof universe, "%d", *usize);
    for (int n = 1; n <= 3; n++) {
        char count[8];
        snprintf(count, sizeof count, "%d", n);
        char *args[] = { "child", count, universe, NULL };
        for (int i = 0; i < 3; i++)
            errs[i] = -1;
        CHECK_MPI(MPI_Comm_spawn(argv[0], args, n, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD,
                                 &inter, errs));
        for (int i = 0; i < n; i++)
            CHECK(errs[i] == MPI_SUCCESS, "errcode[%d] = %d", i, errs[i]);
        talk(inter, n);
    }
    /* spawn_multiple: appnum, env and wdir */
    char *cmds[2] = { argv[0], argv[0] };
    char *args0[] = { "child", "multi", NULL };
    char **argvs[2] = { args0, args0 };
    int maxprocs[2] = { 2, 1 };
    MPI_Info infos[2];
    for (int i = 0; i < 2; i++) {
        MPI_Info_create(&infos[i]);
        MPI_Info_set(infos[i], "env", i == 0 ? "DYNPROC_SPAWN_VAR=first" : "DYNPROC_SPAWN_VAR=second");
        MPI_Info_set(infos[i], "wdir", "/");
    }
    char self[4096];
    if (argv[0][0] != '/') {   /* wdir "/" needs an absolute command */
        CHECK(realpath(argv[0], self) != NULL, "realpath(%s)", argv[0]);
        cmds[0] = cmds[1] = self;
    }
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
                                      errs));
    talk(inter, 3);
    for (int i = 0; i < 2; i++)
        MPI_Info_free(&infos[i]);
    /* a command that does not exist: MPI_ERR_SPAWN on every parent (the root looks for it
     * first, since Hydra would accept the request and the children never come) */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        errs[0] = 0;
        int err = MPI_Comm_spawn("/nonexistent/program", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                                 MPI_COMM_WORLD, &inter, errs);
        int cls = -1;
        MPI_Error_class(err, &cls);
        CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL, "spawning a missing program gave %d",
              cls);
        CHECK(errs[0] != MPI_SUCCESS, "errcode of a failed spawn is MPI_SUCCESS");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}

/* mempi-test: np=1,2,3,5 timeout=120 */
/* dynproc_childdeath.c -- a spawned child dies while its parents' handler is MPI_ERRORS_RETURN.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * The program is its own child (argv[1] == "child").  First, children that exit before
 * MPI_Init: every parent gets MPI_ERR_SPAWN (the root's error says how they ended), errcodes
 * too, instead of waiting forever for them to connect.  Then the parents spawn two children and set
 * MPI_ERRORS_RETURN on the intercommunicator.  Child 0 sends parent 0 a value before anything
 * fails; child 1 waits for a "go" from parent 0 and then kills itself (SIGKILL), and its
 * launcher ends the children's job.  Every parent has a receive from child 1 pending when it
 * dies: it must complete with an error (not hang) whose class is MPI_ERR_OTHER and whose
 * string names the child (rank 1, its pid, signal 9).  Afterwards parent 0 still receives
 * child 0's value (it arrived before the death), while a new receive from child 0 and a send
 * to child 1 fail at once; the parents' own MPI_COMM_WORLD still works (an allreduce), the
 * job is not torn down, and MPI_Finalize returns.  Under a launcher other than MemPI's
 * mpiexec (no MEMPI_NAME_SCOPE) a dead child ends the job, so the test only passes there;
 * a singleton runs MemPI's mpiexec for its children, so it is tested too.
 */
#include <mpi.h>
#include <signal.h>
#include "check.h"

static void child(void)
{
    MPI_Comm parent;
    int rank, v = 0;
    MPI_Comm_get_parent(&parent);
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        v = 4242;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 1, parent));
        MPI_Recv(&v, 1, MPI_INT, 0, 9, parent, MPI_STATUS_IGNORE);   /* never sent */
    } else {
        int pid = (int)getpid();
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 3, parent, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&pid, 1, MPI_INT, 0, 4, parent));
        /* let the pid arrive before dying: wait for the parent's second word */
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE));
        raise(SIGKILL);
    }
    CHECK(0, "child %d outlived its job", rank);
}

static void expect_failure(int err, const char *what, int pid)
{
    CHECK(err != MPI_SUCCESS, "%s succeeded with a dead child", what);
    int cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING], pidtext[32];
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, text, &len);
    CHECK(cls == MPI_ERR_OTHER, "%s: error class %d (%s)", what, cls, text);
    snprintf(pidtext, sizeof pidtext, "pid %d", pid);
    CHECK(strstr(text, "rank 1") && strstr(text, "signal 9"),
          "%s: the error does not name the dead child: %s", what, text);
    CHECK(pid <= 0 || strstr(text, pidtext), "%s: the error lacks '%s': %s", what, pidtext, text);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "early") == 0)
        return 3;                     /* dies before MPI_Init: never connects */
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        child();
        MPI_Finalize();
        return 0;
    }
    int rank, size, v = 0, pid = 0;
    MPI_Comm inter;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* another launcher (no MEMPI_NAME_SCOPE, but PMI variables): nothing to test; MemPI's
     * mpiexec and a singleton (which runs it) report a child's death */
    if (getenv("MEMPI_NAME_SCOPE") == NULL && (getenv("PMI_FD") || getenv("PMI_PORT"))) {
        MPI_Finalize();
        return 0;
    }
    /* children that die before they connect: MPI_ERR_SPAWN, not a hang */
    char *early[] = { "early", NULL };
    int codes[2] = { 0, 0 }, cls = -1, len;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int err = MPI_Comm_spawn(argv[0], early, 2, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD, &inter,
                             codes);
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, text, &len);
    CHECK(cls == MPI_ERR_SPAWN, "spawning children that exit before MPI_Init: class %d (%s)",
          cls, text);
    CHECK(codes[0] == err && codes[1] == err, "errcodes %d %d, error %d", codes[0], codes[1], err);
    CHECK(rank != size - 1 || strstr(text, "exited with code 3"), "the root's error does not "
          "say how the children ended: %s", text);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    char *args[] = { "child", NULL };
    CHECK_MPI(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "errcodes %d %d", codes[0], codes[1]);
    CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    /* every parent's handler is set before the child dies (a parent that learns of the
     * death while its handler is still the inherited fatal one ends the job) */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 1, 2, inter, &req));   /* pending when child 1 dies */
    if (rank == 0) {
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 3, inter));
        CHECK_MPI(MPI_Recv(&pid, 1, MPI_INT, 1, 4, inter, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 5, inter));
    }
    CHECK_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    err = MPI_Wait(&req, &st);
    expect_failure(err, "a receive pending from the dead child", pid);
    CHECK(req == MPI_REQUEST_NULL, "the failed request was not freed");

    if (rank == 0) {   /* sent before the death: still there */
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, &st));
        CHECK(v == 4242 && st.MPI_SOURCE == 0 && st.MPI_TAG == 1, "child 0's value %d from %d",
              v, st.MPI_SOURCE);
    }
    err = MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
    expect_failure(err, "a receive from a child of the dead job", 0);
    err = MPI_Send(&v, 1, MPI_INT, 1, 7, inter);
    expect_failure(err, "a send to the dead child", pid);
    err = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, MPI_STATUS_IGNORE);
    CHECK(err != MPI_SUCCESS, "a wildcard receive with every child dead succeeded");

    int sum = 0, one = rank + 1;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size + 1) / 2, "allreduce after the death gave %d", sum);
    MPI_Comm_free(&inter);
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    MPI_Finalize();
    if (rank == 0)
        printf("dynproc_childdeath: OK (%d parents)\n", size);
    return 0;
}

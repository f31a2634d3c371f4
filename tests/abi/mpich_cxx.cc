/* mpich_cxx.cc -- MPICH's C++ binding (MPI:: classes) with user ops, keyvals and error handlers, for check-mpich-cxx.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Built with MPICH's mpicxx against MPICH's mpicxx.h and run on MemPI: MPICH's
 * libmpichcxx.so.12 then calls MemPI's MPII_Op_set_cxx, MPII_Errhandler_set_cxx and
 * MPII_Keyval_set_proxy, and MemPI must call the C++ functions through the callers they
 * register.  Checks: a user op (commutative and not) in Allreduce and Reduce gives the
 * right sums; a keyval's C++ copy function runs on Dup and its delete function on Free and
 * Delete_attr, with the right communicator and value; a C++ error handler gets the
 * communicator it was raised on and the code.  Prints "ok" on every rank, exits 1 on error.
 */
#include <mpi.h>
#include <cstdio>
#include <cstdlib>

static int failures;
#define EXPECT(cond, what)                                                                     \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::printf("FAIL %s (line %d)\n", what, __LINE__);                                \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* inout[i] += in[i]; the datatype arrives as a C++ MPI::Datatype. */
static void twice_add(const void *in, void *inout, int len, const MPI::Datatype &dt)
{
    const int *a = static_cast<const int *>(in);
    int *b = static_cast<int *>(inout);
    if (dt != MPI::INT)
        failures++;
    for (int i = 0; i < len; i++)
        b[i] += a[i];
}

static int ncopy, ndel, last_deleted, copy_size;
static int copy_attr(const MPI::Comm &old, int, void *extra, void *in, void *out, bool &flag)
{
    ncopy++;
    copy_size = old.Get_size();
    *static_cast<long *>(out) = reinterpret_cast<long>(in) + reinterpret_cast<long>(extra);
    flag = true;
    return MPI::SUCCESS;
}
static int delete_attr(MPI::Comm &, int, void *value, void *)
{
    ndel++;
    last_deleted = static_cast<int>(reinterpret_cast<long>(value));
    return MPI::SUCCESS;
}

static int nerr, err_code, err_size;
static void handler(MPI::Comm &comm, int *code, ...)
{
    nerr++;
    err_code = *code;
    err_size = comm.Get_size();
}

int main(int argc, char **argv)
{
    MPI::Init(argc, argv);
    int rank = MPI::COMM_WORLD.Get_rank(), size = MPI::COMM_WORLD.Get_size();

    for (int commute = 1; commute >= 0; commute--) {
        MPI::Op op;
        op.Init(twice_add, commute != 0);
        int v[3] = { rank, 1, -rank }, s[3] = { 0, 0, 0 };
        MPI::COMM_WORLD.Allreduce(v, s, 3, MPI::INT, op);
        EXPECT(s[0] == size * (size - 1) / 2 && s[1] == size && s[2] == -s[0], "Allreduce, C++ op");
        s[0] = s[1] = s[2] = 0;
        MPI::COMM_WORLD.Reduce(v, s, 3, MPI::INT, op, size - 1);
        if (rank == size - 1)
            EXPECT(s[0] == size * (size - 1) / 2 && s[1] == size, "Reduce, C++ op");
        op.Free();
    }

    int key = MPI::Comm::Create_keyval(copy_attr, delete_attr, reinterpret_cast<void *>(1000));
    MPI::COMM_WORLD.Set_attr(key, reinterpret_cast<void *>(static_cast<long>(7 + rank)));
    MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
    EXPECT(ncopy == 1 && copy_size == size, "C++ copy function on Dup");
    void *got = 0;
    EXPECT(dup.Get_attr(key, &got) && reinterpret_cast<long>(got) == 1007 + rank, "copied value");
    dup.Free();
    EXPECT(ndel == 1 && last_deleted == 1007 + rank, "C++ delete function on Free");
    MPI::COMM_WORLD.Delete_attr(key);
    EXPECT(ndel == 2 && last_deleted == 7 + rank, "C++ delete function on Delete_attr");
    MPI::Comm::Free_keyval(key);

    MPI::Intracomm half = MPI::COMM_WORLD.Split(rank % 2, rank);
    MPI::Errhandler eh = MPI::Comm::Create_errhandler(handler);
    half.Set_errhandler(eh);
    half.Call_errhandler(MPI::ERR_OTHER);
    EXPECT(nerr == 1 && err_code == MPI::ERR_OTHER && err_size == half.Get_size(),
           "C++ error handler with its communicator and code");
    eh.Free();
    half.Free();

    int total = 0;
    MPI::COMM_WORLD.Allreduce(&failures, &total, 1, MPI::INT, MPI::SUM);
    if (total == 0)
        std::printf("ok\n");
    MPI::Finalize();
    return total == 0 ? 0 : 1;
}

/* op.c -- MPI_Op_create/free/commutative and MPI_Reduce_local.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Thin wrappers over the coll layer's operation table (src/coll/op.c): check the arguments,
 * translate, report errors through MPI_COMM_WORLD's handler (operations have no communicator).
 */
#include "binding/binding.h"

static int op_create(const char *F, void *fn, int big, int commute, MPI_Op *op)
{
    MP_OUT_NULL(op, MPI_OP_NULL);
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    if (!fn)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid user function NULL");
    if (!op)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid op pointer NULL");
    return mp_ret(NULL, F, mp_op_create(fn, big, commute, op));
}

int PMPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", (void *)fn, 0, commute, op);
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Op_create_c(MPI_User_function_c *fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", (void *)fn, 1, commute, op);
}
#pragma weak MPI_Op_create_c = PMPI_Op_create_c

int PMPI_Op_free(MPI_Op *op)
{
    static const char *const F = "MPI_Op_free";
    int err = mp_arg_initialized(F);
    if (err)
        return err;
    if (!op)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid op pointer NULL");
    return mp_ret(NULL, F, mp_op_free(op));
}
#pragma weak MPI_Op_free = PMPI_Op_free

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char *const F = "MPI_Op_commutative";
    if (!mp_op_valid(op))
        return mp_error(NULL, MPI_ERR_OP, F, "invalid operation 0x%x", (unsigned)op);
    if (!commute)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid result pointer NULL");
    *commute = mp_op_commutative(op);
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

static int reduce_local(const char *F, const void *in, void *inout, MPI_Aint count,
                        MPI_Datatype dth, MPI_Op op)
{
    mp_datatype *dt;
    int err = mp_arg_datatype(F, NULL, dth, count, &dt);
    if (err)
        return err;
    if ((err = mp_op_check_reduction(F, op, dt)))
        return mp_error_raise(NULL, err, F);
    if (in == MPI_IN_PLACE || inout == MPI_IN_PLACE)
        return mp_error(NULL, MPI_ERR_BUFFER, F, "MPI_IN_PLACE is not allowed");
    return mp_ret(NULL, F, mp_reduce_local(in, inout, count, dt, op));
}

int PMPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", in, inout, count, dt, op);
}
#pragma weak MPI_Reduce_local = PMPI_Reduce_local

int PMPI_Reduce_local_c(const void *in, void *inout, MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", in, inout, (MPI_Aint)count, dt, op);
}
#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c

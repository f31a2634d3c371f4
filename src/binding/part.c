/* part.c -- the partitioned communication entry points' implementations (MPI_Pready,
 * MPI_Pready_range, MPI_Pready_list, MPI_Parrived).  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are generated from part.spec (MPI_Psend_init and MPI_Precv_init entirely);
 * these functions look the request up, check the partitions and raise their errors through
 * the request's communicator, then call pt2pt/part.c, which owns the protocol.  The state
 * checks the standard makes erroneous -- a partition out of range, marked ready twice in one
 * round, or readied while the request is inactive -- are reported, not ignored, since a lost
 * partition would otherwise show up as a hang.  MPI_Parrived of a null or inactive request
 * returns flag = true, as the standard says (MPICH 4.0.2 raises an error for an inactive one;
 * later MPICH follows the standard).
 */
#include "binding/binding.h"

/* The partitioned request behind a handle, of the wanted direction (is_send 1, 0; -1 any). */
static int arg_part(const char *F, MPI_Request h, int is_send, mp_request **out)
{
    mp_request *req = h == MPI_REQUEST_NULL ? NULL : mp_request_get(h);
    if (req == NULL || req->kind != MP_REQ_PART ||
        (is_send >= 0 && mp_part_is_send(req) != is_send))
        return mp_error(NULL, MPI_ERR_REQUEST, F, "request 0x%x is not a partitioned %s request",
                        (unsigned)h, is_send == 1 ? "send" : is_send == 0 ? "receive" : "");
    *out = req;
    return MPI_SUCCESS;
}

static int arg_partition(const char *F, mp_request *req, int partition)
{
    int n = mp_part_partitions(req);
    if (partition < 0 || partition >= n)
        return mp_error(req->comm, MPI_ERR_ARG, F, "invalid partition %d (request has %d)",
                        partition, n);
    return MPI_SUCCESS;
}

static int ready_one(const char *F, mp_request *req, int partition)
{
    int err;
    if ((err = arg_partition(F, req, partition)))
        return err;
    if (!mp_part_active(req))
        return mp_error(req->comm, MPI_ERR_REQUEST, F, "partition %d of an inactive request "
                        "(call MPI_Start first)", partition);
    if (mp_part_is_ready(req, partition))
        return mp_error(req->comm, MPI_ERR_ARG, F, "partition %d is already ready in this "
                        "round", partition);
    return mp_ret(req->comm, F, mp_part_ready(req, partition));
}

int mp_do_pready(const char *F, int partition, MPI_Request request)
{
    mp_request *req = NULL;
    int err = arg_part(F, request, 1, &req);
    return err ? err : ready_one(F, req, partition);
}

int mp_do_pready_range(const char *F, int partition_low, int partition_high,
                       MPI_Request request)
{
    mp_request *req = NULL;
    int err = arg_part(F, request, 1, &req);
    if (err)
        return err;
    if (partition_low > partition_high)
        return mp_error(req->comm, MPI_ERR_ARG, F, "invalid range %d..%d", partition_low,
                        partition_high);
    if ((err = arg_partition(F, req, partition_low)) ||
        (err = arg_partition(F, req, partition_high)))
        return err;
    for (int i = partition_low; i <= partition_high; i++)
        if ((err = ready_one(F, req, i)))
            return err;
    return MPI_SUCCESS;
}

int mp_do_pready_list(const char *F, int length, int *array_of_partitions, MPI_Request request)
{
    mp_request *req = NULL;
    int err = arg_part(F, request, 1, &req);
    if (err)
        return err;
    if (length < 0 || (length > 0 && array_of_partitions == NULL))
        return mp_error(req->comm, MPI_ERR_ARG, F, "invalid partition list (length %d)", length);
    for (int i = 0; i < length; i++)
        if ((err = arg_partition(F, req, array_of_partitions[i])))
            return err;
    for (int i = 0; i < length; i++)
        if ((err = ready_one(F, req, array_of_partitions[i])))
            return err;
    return MPI_SUCCESS;
}

/* flag was checked by the description. */
int mp_do_parrived(const char *F, MPI_Request request, int partition, int *flag)
{
    mp_request *req = NULL;
    int err;
    if (request == MPI_REQUEST_NULL) {        /* MPI 4.0 4.2.3: flag = true */
        *flag = 1;
        return MPI_SUCCESS;
    }
    if ((err = arg_part(F, request, 0, &req)) || (err = arg_partition(F, req, partition)))
        return err;
    if (!mp_part_arrived(req, partition))
        mp_progress();
    *flag = mp_part_arrived(req, partition);
    return MPI_SUCCESS;
}

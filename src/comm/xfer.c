/* xfer.c -- small internal collectives over a list of ranks, built on point-to-point.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Creating a communicator needs a few collective steps (agree on a context id, exchange
 * colors and keys) among a set of processes that is not yet a communicator: all of a parent
 * communicator, or only the members of a group (MPI_Comm_create_group).  These helpers run
 * over `ranks[0..n-1]`, ranks of `parent`, where this process is ranks[me], and send on the
 * parent's collective context with a caller-chosen tag.  They never use MPI_ANY_SOURCE, so two
 * creations that overlap in their members cannot steal each other's messages as long as each
 * pair of processes performs them in the same order (which MPI requires of the program).
 *
 * A binomial tree rooted at index 0 for broadcast; gather is linear to index 0, which is fine
 * for the small items (two ints per rank) it carries.  (Context ids are agreed by context.c's
 * own trees.)
 * Keeping these here means the comm layer does not depend on the collective layer.
 */
#include "comm/comm.h"
#include "datatype/datatype.h"
#include <stdlib.h>
#include <string.h>

static mp_datatype *byte_type(void)
{
    static mp_datatype *dt;
    if (!dt)
        dt = mp_datatype_get(MPI_BYTE);
    return dt;
}

static int send_bytes(mp_comm *c, const void *buf, size_t n, int dest, int tag)
{
    return mp_send(buf, (MPI_Aint)n, byte_type(), dest, tag, c, MP_CTX_COLL, MP_MODE_STANDARD);
}

static int recv_bytes(mp_comm *c, void *buf, size_t n, int src, int tag)
{
    return mp_recv(buf, (MPI_Aint)n, byte_type(), src, tag, c, MP_CTX_COLL, MPI_STATUS_IGNORE);
}

int mp_xfer_bcast(mp_comm *c, const int *ranks, int n, int me, int tag, void *buf, size_t bytes)
{
    int err, mask = 1;
    while (mask < n && !(me & mask))
        mask <<= 1;
    if (me != 0 && (err = recv_bytes(c, buf, bytes, ranks[me - mask], tag)))
        return err;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n && (err = send_bytes(c, buf, bytes, ranks[me + mask], tag)))
            return err;
    return MPI_SUCCESS;
}

/* Every index's `item_bytes` item ends up in all[] on every index (all has n items). */
int mp_xfer_allgather(mp_comm *c, const int *ranks, int n, int me, int tag, const void *item,
                      size_t item_bytes, void *all)
{
    int err;
    memcpy((char *)all + (size_t)me * item_bytes, item, item_bytes);
    if (me != 0) {
        if ((err = send_bytes(c, item, item_bytes, ranks[0], tag)))
            return err;
    } else {
        for (int i = 1; i < n; i++)
            if ((err = recv_bytes(c, (char *)all + (size_t)i * item_bytes, item_bytes, ranks[i],
                                  tag)))
                return err;
    }
    return mp_xfer_bcast(c, ranks, n, me, tag, all, item_bytes * (size_t)n);
}

/* Pair exchange (intercommunicator leaders): send and receive at once. */
int mp_xfer_exchange(mp_comm *c, int peer, int tag, int ctx_offset, const void *sbuf,
                     void *rbuf, size_t bytes)
{
    return mp_sendrecv(sbuf, (MPI_Aint)bytes, byte_type(), peer, tag, rbuf, (MPI_Aint)bytes,
                       byte_type(), peer, tag, c, ctx_offset, MPI_STATUS_IGNORE);
}

/* The identity list 0..n-1 (all ranks of a communicator). */
int *mp_xfer_all_ranks(int n)
{
    int *r = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        r[i] = i;
    return r;
}

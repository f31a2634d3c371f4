/* largecount_shim.c -- diagnostic LD_PRELOAD shim: the MPI-4 large-count "_c" calls as int-count wrappers.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Why this exists.  mpi4py 4.x calls the large-count variant of every point-to-point and
 * collective function (MPI_Isend_c, MPI_Sendrecv_c, MPI_Alltoallv_c, ...) whenever the
 * library exports it.  MemPI exports all of them (the MPICH ABI), but many are still the
 * generated "not implemented" stubs, so most of mpi4py's test suite stops at the first
 * message it sends and whatever lies beneath stays hidden.
 *
 * This shim is NOT part of MemPI.  tests/mpi4py/run --shim builds it and preloads it
 * (LD_PRELOAD) into the Python ranks, so the _c symbols resolve here first.  Each wrapper
 * checks that every count and displacement fits in an int (else MPI_ERR_COUNT through the
 * communicator's error handler) and calls the int PMPI_ form.  That shows what the suite
 * does once the _c calls exist, and it is also the shape of the fix: the library's own
 * _c entry points can do exactly this until the engine takes MPI_Count natively.
 *
 * Count and displacement arrays (v/w variants) are converted into int arrays sized by the
 * communicator (remote group for inter-communicators), and only on ranks where they are
 * significant (the root of gatherv/scatterv; every rank otherwise).  The blocking forms
 * free them on return.  The nonblocking forms cannot: MPI lets the library read the arrays
 * until completion, so this diagnostic shim leaks them (a few bytes per call).
 */
#include <limits.h>
#include <stdlib.h>
#include <mpi.h>

/* ---- conversions ------------------------------------------------------------------------ */

static int fits(MPI_Count c) { return c >= INT_MIN && c <= INT_MAX; }

static int count_error(MPI_Comm comm)
{
    PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, MPI_ERR_COUNT);
    return MPI_ERR_COUNT;
}

#define CHECK1(comm, c) do { if (!fits(c)) return count_error(comm); } while (0)
#define CHECK2(comm, a, b) do { if (!fits(a) || !fits(b)) return count_error(comm); } while (0)

/* Size of the group that count arrays are indexed by: the remote group for an
 * inter-communicator, the communicator otherwise. */
static int peer_count(MPI_Comm comm)
{
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

static int local_count(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

/* Convert n MPI_Count (or MPI_Aint) values to a new int array.  NULL in, NULL out.
 * Returns 0, or -1 when a value does not fit (or memory runs out). */
static int to_ints_count(const MPI_Count *in, int n, int **out)
{
    *out = NULL;
    if (in == NULL)
        return 0;
    int *a = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (a == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!fits(in[i])) {
            free(a);
            return -1;
        }
        a[i] = (int)in[i];
    }
    *out = a;
    return 0;
}

static int to_ints_aint(const MPI_Aint *in, int n, int **out)
{
    return to_ints_count((const MPI_Count *)in, n, out); /* both are 8-byte integers here */
}

/* A rooted call's arrays are significant at the root only. */
static int is_root(MPI_Comm comm, int root)
{
    int inter = 0, rank = -1;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return root == MPI_ROOT;
    PMPI_Comm_rank(comm, &rank);
    return rank == root;
}

/* ---- point to point --------------------------------------------------------------------- */

#define P2P_SEND(NAME)                                                                        \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,  \
                       MPI_Comm comm)                                                         \
    {                                                                                         \
        CHECK1(comm, count);                                                                  \
        return PMPI_##NAME(buf, (int)count, dt, dest, tag, comm);                             \
    }
P2P_SEND(Send)
P2P_SEND(Bsend)
P2P_SEND(Ssend)
P2P_SEND(Rsend)

#define P2P_ISEND(NAME)                                                                       \
    int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,  \
                       MPI_Comm comm, MPI_Request *req)                                       \
    {                                                                                         \
        CHECK1(comm, count);                                                                  \
        return PMPI_##NAME(buf, (int)count, dt, dest, tag, comm, req);                        \
    }
P2P_ISEND(Isend)
P2P_ISEND(Ibsend)
P2P_ISEND(Issend)
P2P_ISEND(Irsend)
P2P_ISEND(Send_init)
P2P_ISEND(Bsend_init)
P2P_ISEND(Ssend_init)
P2P_ISEND(Rsend_init)

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Status *st)
{
    CHECK1(comm, count);
    return PMPI_Recv(buf, (int)count, dt, src, tag, comm, st);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    CHECK1(comm, count);
    return PMPI_Irecv(buf, (int)count, dt, src, tag, comm, req);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                    MPI_Comm comm, MPI_Request *req)
{
    CHECK1(comm, count);
    return PMPI_Recv_init(buf, (int)count, dt, src, tag, comm, req);
}

int MPI_Sendrecv_c(const void *sb, MPI_Count sc, MPI_Datatype st, int dest, int stag, void *rb,
                   MPI_Count rc, MPI_Datatype rt, int src, int rtag, MPI_Comm comm,
                   MPI_Status *status)
{
    CHECK2(comm, sc, rc);
    return PMPI_Sendrecv(sb, (int)sc, st, dest, stag, rb, (int)rc, rt, src, rtag, comm, status);
}

int MPI_Isendrecv_c(const void *sb, MPI_Count sc, MPI_Datatype st, int dest, int stag,
                    void *rb, MPI_Count rc, MPI_Datatype rt, int src, int rtag, MPI_Comm comm,
                    MPI_Request *req)
{
    CHECK2(comm, sc, rc);
    return PMPI_Isendrecv(sb, (int)sc, st, dest, stag, rb, (int)rc, rt, src, rtag, comm, req);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                           int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    CHECK1(comm, count);
    return PMPI_Sendrecv_replace(buf, (int)count, dt, dest, stag, src, rtag, comm, status);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                            int src, int rtag, MPI_Comm comm, MPI_Request *req)
{
    CHECK1(comm, count);
    return PMPI_Isendrecv_replace(buf, (int)count, dt, dest, stag, src, rtag, comm, req);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *st)
{
    CHECK1(MPI_COMM_WORLD, count);
    return PMPI_Mrecv(buf, (int)count, dt, msg, st);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg,
                 MPI_Request *req)
{
    CHECK1(MPI_COMM_WORLD, count);
    return PMPI_Imrecv(buf, (int)count, dt, msg, req);
}

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    int n = 0, err = PMPI_Get_count(status, dt, &n);
    if (err == MPI_SUCCESS)
        *count = n; /* MPI_UNDEFINED stays MPI_UNDEFINED */
    return err;
}

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    CHECK1(MPI_COMM_WORLD, size);
    return PMPI_Buffer_attach(buffer, (int)size);
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    int n = 0, err = PMPI_Buffer_detach(buffer_addr, &n);
    if (err == MPI_SUCCESS)
        *size = n;
    return err;
}

/* ---- collectives with scalar counts ----------------------------------------------------- */

int MPI_Iallgather_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc,
                     MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    CHECK2(comm, sc, rc);
    return PMPI_Iallgather(sb, (int)sc, st, rb, (int)rc, rt, comm, req);
}

int MPI_Ialltoall_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc,
                    MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    CHECK2(comm, sc, rc);
    return PMPI_Ialltoall(sb, (int)sc, st, rb, (int)rc, rt, comm, req);
}

int MPI_Igather_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc,
                  MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    CHECK2(comm, sc, rc);
    return PMPI_Igather(sb, (int)sc, st, rb, (int)rc, rt, root, comm, req);
}

int MPI_Iscatter_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc,
                   MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    CHECK2(comm, sc, rc);
    return PMPI_Iscatter(sb, (int)sc, st, rb, (int)rc, rt, root, comm, req);
}

int MPI_Iscan_c(const void *sb, void *rb, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, MPI_Request *req)
{
    CHECK1(comm, count);
    return PMPI_Iscan(sb, rb, (int)count, dt, op, comm, req);
}

int MPI_Iexscan_c(const void *sb, void *rb, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm, MPI_Request *req)
{
    CHECK1(comm, count);
    return PMPI_Iexscan(sb, rb, (int)count, dt, op, comm, req);
}

int MPI_Ireduce_scatter_block_c(const void *sb, void *rb, MPI_Count count, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    CHECK1(comm, count);
    return PMPI_Ireduce_scatter_block(sb, rb, (int)count, dt, op, comm, req);
}

/* ---- collectives with count arrays ------------------------------------------------------ */

/* Blocking calls free their arrays; nonblocking ones keep them (see the file comment). */
#define RELEASE(nb, a) do { if (!(nb)) free(a); } while (0)

static int allgatherv(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                      const MPI_Count rcs[], const MPI_Aint ds[], MPI_Datatype rt,
                      MPI_Comm comm, MPI_Request *req)
{
    int n = peer_count(comm), *rc = NULL, *d = NULL, err;
    CHECK1(comm, sc);
    if (to_ints_count(rcs, n, &rc) || to_ints_aint(ds, n, &d)) {
        free(rc);
        free(d);
        return count_error(comm);
    }
    err = req ? PMPI_Iallgatherv(sb, (int)sc, st, rb, rc, d, rt, comm, req)
              : PMPI_Allgatherv(sb, (int)sc, st, rb, rc, d, rt, comm);
    RELEASE(req, rc);
    RELEASE(req, d);
    return err;
}

int MPI_Allgatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                     const MPI_Count rcs[], const MPI_Aint ds[], MPI_Datatype rt, MPI_Comm comm)
{
    return allgatherv(sb, sc, st, rb, rcs, ds, rt, comm, NULL);
}

int MPI_Iallgatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                      const MPI_Count rcs[], const MPI_Aint ds[], MPI_Datatype rt,
                      MPI_Comm comm, MPI_Request *req)
{
    return allgatherv(sb, sc, st, rb, rcs, ds, rt, comm, req);
}

static int gatherv(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                   const MPI_Count rcs[], const MPI_Aint ds[], MPI_Datatype rt, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    int *rc = NULL, *d = NULL, err;
    CHECK1(comm, sc);
    if (is_root(comm, root)) {
        int n = peer_count(comm);
        if (to_ints_count(rcs, n, &rc) || to_ints_aint(ds, n, &d)) {
            free(rc);
            free(d);
            return count_error(comm);
        }
    }
    err = req ? PMPI_Igatherv(sb, (int)sc, st, rb, rc, d, rt, root, comm, req)
              : PMPI_Gatherv(sb, (int)sc, st, rb, rc, d, rt, root, comm);
    RELEASE(req, rc);
    RELEASE(req, d);
    return err;
}

int MPI_Gatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                  const MPI_Count rcs[], const MPI_Aint ds[], MPI_Datatype rt, int root,
                  MPI_Comm comm)
{
    return gatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, NULL);
}

int MPI_Igatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb,
                   const MPI_Count rcs[], const MPI_Aint ds[], MPI_Datatype rt, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    return gatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, req);
}

static int scatterv(const void *sb, const MPI_Count scs[], const MPI_Aint ds[],
                    MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt, int root,
                    MPI_Comm comm, MPI_Request *req)
{
    int *sc = NULL, *d = NULL, err;
    CHECK1(comm, rc);
    if (is_root(comm, root)) {
        int n = peer_count(comm);
        if (to_ints_count(scs, n, &sc) || to_ints_aint(ds, n, &d)) {
            free(sc);
            free(d);
            return count_error(comm);
        }
    }
    err = req ? PMPI_Iscatterv(sb, sc, d, st, rb, (int)rc, rt, root, comm, req)
              : PMPI_Scatterv(sb, sc, d, st, rb, (int)rc, rt, root, comm);
    RELEASE(req, sc);
    RELEASE(req, d);
    return err;
}

int MPI_Scatterv_c(const void *sb, const MPI_Count scs[], const MPI_Aint ds[], MPI_Datatype st,
                   void *rb, MPI_Count rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    return scatterv(sb, scs, ds, st, rb, rc, rt, root, comm, NULL);
}

int MPI_Iscatterv_c(const void *sb, const MPI_Count scs[], const MPI_Aint ds[],
                    MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt, int root,
                    MPI_Comm comm, MPI_Request *req)
{
    return scatterv(sb, scs, ds, st, rb, rc, rt, root, comm, req);
}

static int alltoallv(const void *sb, const MPI_Count scs[], const MPI_Aint sds[],
                     MPI_Datatype st, void *rb, const MPI_Count rcs[], const MPI_Aint rds[],
                     MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    int n = peer_count(comm), *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL, err;
    int in_place = sb == MPI_IN_PLACE;
    if ((!in_place && (to_ints_count(scs, n, &sc) || to_ints_aint(sds, n, &sd))) ||
        to_ints_count(rcs, n, &rc) || to_ints_aint(rds, n, &rd)) {
        free(sc), free(sd), free(rc), free(rd);
        return count_error(comm);
    }
    err = req ? PMPI_Ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, req)
              : PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
    RELEASE(req, sc);
    RELEASE(req, sd);
    RELEASE(req, rc);
    RELEASE(req, rd);
    return err;
}

int MPI_Alltoallv_c(const void *sb, const MPI_Count scs[], const MPI_Aint sds[],
                    MPI_Datatype st, void *rb, const MPI_Count rcs[], const MPI_Aint rds[],
                    MPI_Datatype rt, MPI_Comm comm)
{
    return alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, NULL);
}

int MPI_Ialltoallv_c(const void *sb, const MPI_Count scs[], const MPI_Aint sds[],
                     MPI_Datatype st, void *rb, const MPI_Count rcs[], const MPI_Aint rds[],
                     MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    return alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, req);
}

static int alltoallw(const void *sb, const MPI_Count scs[], const MPI_Aint sds[],
                     const MPI_Datatype sts[], void *rb, const MPI_Count rcs[],
                     const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                     MPI_Request *req)
{
    int n = peer_count(comm), *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL, err;
    int in_place = sb == MPI_IN_PLACE;
    if ((!in_place && (to_ints_count(scs, n, &sc) || to_ints_aint(sds, n, &sd))) ||
        to_ints_count(rcs, n, &rc) || to_ints_aint(rds, n, &rd)) {
        free(sc), free(sd), free(rc), free(rd);
        return count_error(comm);
    }
    err = req ? PMPI_Ialltoallw(sb, sc, sd, sts, rb, rc, rd, rts, comm, req)
              : PMPI_Alltoallw(sb, sc, sd, sts, rb, rc, rd, rts, comm);
    RELEASE(req, sc);
    RELEASE(req, sd);
    RELEASE(req, rc);
    RELEASE(req, rd);
    return err;
}

int MPI_Alltoallw_c(const void *sb, const MPI_Count scs[], const MPI_Aint sds[],
                    const MPI_Datatype sts[], void *rb, const MPI_Count rcs[],
                    const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm)
{
    return alltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm, NULL);
}

int MPI_Ialltoallw_c(const void *sb, const MPI_Count scs[], const MPI_Aint sds[],
                     const MPI_Datatype sts[], void *rb, const MPI_Count rcs[],
                     const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                     MPI_Request *req)
{
    return alltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm, req);
}

static int reduce_scatter(const void *sb, void *rb, const MPI_Count rcs[], MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    int n = local_count(comm), *rc = NULL, err;
    if (to_ints_count(rcs, n, &rc))
        return count_error(comm);
    err = req ? PMPI_Ireduce_scatter(sb, rb, rc, dt, op, comm, req)
              : PMPI_Reduce_scatter(sb, rb, rc, dt, op, comm);
    RELEASE(req, rc);
    return err;
}

int MPI_Reduce_scatter_c(const void *sb, void *rb, const MPI_Count rcs[], MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sb, rb, rcs, dt, op, comm, NULL);
}

int MPI_Ireduce_scatter_c(const void *sb, void *rb, const MPI_Count rcs[], MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return reduce_scatter(sb, rb, rcs, dt, op, comm, req);
}

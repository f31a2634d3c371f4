/* topo.c -- topology descriptions attached to communicators.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * comm->topo describes a cartesian grid (dims, periods; coordinates are computed from the
 * rank, row-major as the standard says), a graph (the whole index/edges arrays, as
 * MPI_Graph_create gives them, so MPI_Graph_get can return them), or this process's part of
 * a distributed graph (its in and out neighbours with weights).  The bindings
 * (binding/topo.c) create and query these; the collective layer reads neighbour lists
 * through mp_topo_neighbors().
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <string.h>

static int *dup_ints(const int *src, int n)
{
    if (!src)
        return NULL;
    int *dst = mp_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (n > 0)
        memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

void mp_topo_free(mp_topo *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->in);
    free(t->inw);
    free(t->out);
    free(t->outw);
    free(t);
}

mp_topo *mp_topo_copy(const mp_topo *t)
{
    if (!t)
        return NULL;
    mp_topo *c = mp_malloc(sizeof *c);
    *c = *t;
    c->dims = dup_ints(t->dims, t->ndims);
    c->periods = dup_ints(t->periods, t->ndims);
    c->index = dup_ints(t->index, t->nnodes);
    c->edges = dup_ints(t->edges, t->nedges);
    c->in = dup_ints(t->in, t->indeg);
    c->inw = dup_ints(t->inw, t->indeg);
    c->out = dup_ints(t->out, t->outdeg);
    c->outw = dup_ints(t->outw, t->outdeg);
    return c;
}

void mp_cart_coords_of(const mp_topo *t, int rank, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = t->dims[d] ? rank % t->dims[d] : 0;
        rank = t->dims[d] ? rank / t->dims[d] : 0;
    }
}

/* Row-major rank of coords; periodic dimensions wrap, others must be in range.  Returns
 * MPI_ERR_ARG (with *rank unset) for an out-of-range coordinate of a non-periodic dim. */
int mp_cart_rank_of(const mp_topo *t, const int *coords, int *rank)
{
    int r = 0;
    for (int d = 0; d < t->ndims; d++) {
        int c = coords[d], n = t->dims[d];
        if (t->periods[d]) {
            c %= n;
            if (c < 0)
                c += n;
        } else if (c < 0 || c >= n) {
            return MPI_ERR_ARG;
        }
        r = r * n + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

/* Neighbours of `rank` in dimension d at displacement disp (MPI_PROC_NULL off an open edge). */
int mp_cart_shift_of(const mp_topo *t, int rank, int d, int disp, int *src, int *dst)
{
    int *coords = mp_malloc(sizeof(int) * (size_t)(t->ndims ? t->ndims : 1));
    mp_cart_coords_of(t, rank, coords);
    int orig = coords[d];
    coords[d] = orig + disp;
    if (mp_cart_rank_of(t, coords, dst))
        *dst = MPI_PROC_NULL;
    coords[d] = orig - disp;
    if (mp_cart_rank_of(t, coords, src))
        *src = MPI_PROC_NULL;
    free(coords);
    return MPI_SUCCESS;
}

int mp_topo_neighbors(mp_comm *comm, int *indeg, int **in, int *outdeg, int **out)
{
    mp_topo *t = comm->topo;
    if (!t)
        return MPI_ERR_TOPOLOGY;
    if (t->kind == MPI_CART) {
        int n = 2 * t->ndims;
        *in = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
        *out = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
        for (int d = 0; d < t->ndims; d++) {
            int src, dst;
            mp_cart_shift_of(t, comm->rank, d, 1, &src, &dst);
            /* order per dimension: the -1 neighbour, then the +1 neighbour */
            (*in)[2 * d] = src;
            (*in)[2 * d + 1] = dst;
            (*out)[2 * d] = src;
            (*out)[2 * d + 1] = dst;
        }
        *indeg = *outdeg = n;
    } else if (t->kind == MPI_GRAPH) {
        int first = comm->rank ? t->index[comm->rank - 1] : 0;
        int n = t->index[comm->rank] - first;
        *in = dup_ints(t->edges + first, n);
        *out = dup_ints(t->edges + first, n);
        if (!*in) {
            *in = mp_malloc(sizeof(int));
            *out = mp_malloc(sizeof(int));
        }
        *indeg = *outdeg = n;
    } else {
        *in = t->indeg ? dup_ints(t->in, t->indeg) : mp_malloc(sizeof(int));
        *out = t->outdeg ? dup_ints(t->out, t->outdeg) : mp_malloc(sizeof(int));
        *indeg = t->indeg;
        *outdeg = t->outdeg;
    }
    return MPI_SUCCESS;
}

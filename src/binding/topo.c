/* topo.c -- process topologies: cartesian, graph and distributed graph entry points.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * Topology constructors build the new communicator with the comm layer (a split that keeps
 * the first N ranks for cartesian and graph topologies, a dup for distributed graphs) and
 * attach an mp_topo (src/comm/topo.c).  MemPI does not reorder ranks: `reorder` is accepted
 * and ignored, which the standard allows, so MPI_Cart_map/MPI_Graph_map return the identity.
 *
 * MPI_Dims_create divides nnodes by the fixed dimensions and spreads the rest over the free
 * ones with mp_dims_balanced (comm/topo.c: the most balanced factorisation, as MPICH picks
 * it), so 72 in 2 dimensions gives 9 x 8, not the 12 x 6 of a greedy split.
 *
 * MPI_Dist_graph_create takes edges from any process; every process sends each edge to its
 * two endpoints (counts first, then the edges) over the new communicator's collective
 * context, so each learns its own in- and out-neighbours.
 */
#include "binding/binding.h"
#include <stdlib.h>
#include <string.h>

static int arg_ptr(const char *F, mp_comm *comm, const void *p, const char *name)
{
    return p ? MPI_SUCCESS : mp_error(comm, MPI_ERR_ARG, F, "%s is NULL", name);
}

static int arg_intra(const char *F, mp_comm *comm)
{
    return comm->is_inter ? mp_error(comm, MPI_ERR_COMM, F,
                                     "communicator is an intercommunicator") : MPI_SUCCESS;
}

static int arg_topo(const char *F, mp_comm *comm, int kind, mp_topo **out)
{
    static const char *const names[] = { "", "graph", "cartesian", "distributed graph" };
    if (!comm->topo || comm->topo->kind != kind)
        return mp_error(comm, MPI_ERR_TOPOLOGY, F, "communicator has no %s topology",
                        names[kind]);
    *out = comm->topo;
    return MPI_SUCCESS;
}

static int *dup_ints(const int *src, int n)
{
    int *dst = mp_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (n > 0 && src)
        memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

/* Collective over comm: ranks below n get a new communicator of size n with topology t
 * (which it then owns); the others get MPI_COMM_NULL and t is freed. */
static int attach_first(const char *F, mp_comm *comm, int n, mp_topo *t, MPI_Comm *out)
{
    mp_comm *c;
    int err = mp_comm_split_internal(comm, comm->rank < n ? 0 : MPI_UNDEFINED, comm->rank, &c);
    if (err) {
        mp_topo_free(t);
        return mp_ret(comm, F, err);
    }
    if (!c) {
        mp_topo_free(t);
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    c->topo = t;
    *out = c->handle;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Cartesian
 * ------------------------------------------------------------------------------------------- */
static int check_dims(const char *F, mp_comm *comm, int ndims, const int dims[], long *prod)
{
    if (ndims < 0)
        return mp_error(comm, MPI_ERR_DIMS, F, "invalid ndims %d", ndims);
    if (ndims > 0 && !dims)
        return mp_error(comm, MPI_ERR_ARG, F, "dims is NULL");
    long p = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return mp_error(comm, MPI_ERR_DIMS, F, "invalid dims[%d] = %d", d, dims[d]);
        p *= dims[d];
        if (p > comm->size)
            break;
    }
    *prod = p;
    return MPI_SUCCESS;
}

static mp_topo *cart_topo(int ndims, const int dims[], const int periods[])
{
    mp_topo *t = mp_calloc(1, sizeof *t);
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = mp_malloc(sizeof(int) * (size_t)(ndims ? ndims : 1));
    for (int d = 0; d < ndims; d++)
        t->periods[d] = periods ? periods[d] != 0 : 0;
    return t;
}

int PMPI_Cart_create(MPI_Comm h, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Cart_create";
    MP_OUT_NULL(comm_cart, MPI_COMM_NULL);
    mp_comm *comm;
    long prod;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_ptr(F, comm, comm_cart, "comm_cart")) ||
        (err = check_dims(F, comm, ndims, dims, &prod)))
        return err;
    if (ndims > 0 && !periods)
        return mp_error(comm, MPI_ERR_ARG, F, "periods is NULL");
    if (prod > comm->size)
        return mp_error(comm, MPI_ERR_TOPOLOGY, F,
                        "the grid has more points than the %d processes of the communicator",
                        comm->size);
    return attach_first(F, comm, (int)prod, cart_topo(ndims, dims, periods), comm_cart);
}
#pragma weak MPI_Cart_create = PMPI_Cart_create

int PMPI_Cart_map(MPI_Comm h, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char *const F = "MPI_Cart_map";
    mp_comm *comm;
    long prod;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_ptr(F, comm, newrank, "newrank")) ||
        (err = check_dims(F, comm, ndims, dims, &prod)))
        return err;
    if (prod > comm->size)
        return mp_error(comm, MPI_ERR_TOPOLOGY, F,
                        "the grid has more points than the %d processes of the communicator",
                        comm->size);
    *newrank = comm->rank < prod ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_map = PMPI_Cart_map

int PMPI_Cartdim_get(MPI_Comm h, int *ndims)
{
    static const char *const F = "MPI_Cartdim_get";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = arg_ptr(F, comm, ndims, "ndims")))
        return err;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get

int PMPI_Cart_get(MPI_Comm h, int maxdims, int dims[], int periods[], int coords[])
{
    static const char *const F = "MPI_Cart_get";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_CART, &t)))
        return err;
    if (maxdims < t->ndims)
        return mp_error(comm, MPI_ERR_ARG, F, "maxdims %d is smaller than ndims %d", maxdims,
                        t->ndims);
    if (t->ndims > 0 && ((err = arg_ptr(F, comm, dims, "dims")) ||
                         (err = arg_ptr(F, comm, periods, "periods")) ||
                         (err = arg_ptr(F, comm, coords, "coords"))))
        return err;
    for (int d = 0; d < t->ndims; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
    }
    if (t->ndims > 0)
        mp_cart_coords_of(t, comm->rank, coords);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_get = PMPI_Cart_get

int PMPI_Cart_rank(MPI_Comm h, const int coords[], int *rank)
{
    static const char *const F = "MPI_Cart_rank";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = arg_ptr(F, comm, rank, "rank")))
        return err;
    if (t->ndims > 0 && (err = arg_ptr(F, comm, coords, "coords")))
        return err;
    if (mp_cart_rank_of(t, coords, rank)) {
        for (int d = 0; d < t->ndims; d++)
            if (!t->periods[d] && (coords[d] < 0 || coords[d] >= t->dims[d]))
                return mp_error(comm, MPI_ERR_ARG, F,
                                "coords[%d] = %d is outside the non-periodic dimension of "
                                "size %d", d, coords[d], t->dims[d]);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_rank = PMPI_Cart_rank

int PMPI_Cart_coords(MPI_Comm h, int rank, int maxdims, int coords[])
{
    static const char *const F = "MPI_Cart_coords";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_CART, &t)))
        return err;
    if (rank < 0 || rank >= comm->size)
        return mp_error(comm, MPI_ERR_RANK, F, "invalid rank %d in a communicator of size %d",
                        rank, comm->size);
    if (maxdims < t->ndims)
        return mp_error(comm, MPI_ERR_ARG, F, "maxdims %d is smaller than ndims %d", maxdims,
                        t->ndims);
    if (t->ndims > 0 && (err = arg_ptr(F, comm, coords, "coords")))
        return err;
    mp_cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_coords = PMPI_Cart_coords

int PMPI_Cart_shift(MPI_Comm h, int direction, int disp, int *source, int *dest)
{
    static const char *const F = "MPI_Cart_shift";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = arg_ptr(F, comm, source, "rank_source")) ||
        (err = arg_ptr(F, comm, dest, "rank_dest")))
        return err;
    if (direction < 0 || direction >= t->ndims)
        return mp_error(comm, MPI_ERR_ARG, F, "invalid direction %d for %d dimensions",
                        direction, t->ndims);
    return mp_cart_shift_of(t, comm->rank, direction, disp, source, dest);
}
#pragma weak MPI_Cart_shift = PMPI_Cart_shift

int PMPI_Cart_sub(MPI_Comm h, const int remain_dims[], MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Cart_sub";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = arg_ptr(F, comm, newcomm, "newcomm")))
        return err;
    if (t->ndims > 0 && (err = arg_ptr(F, comm, remain_dims, "remain_dims")))
        return err;
    int *coords = mp_malloc(sizeof(int) * (size_t)(t->ndims ? t->ndims : 1));
    mp_cart_coords_of(t, comm->rank, coords);
    /* color: position among the dropped dimensions; key: position among the kept ones */
    int color = 0, key = 0, kept = 0;
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            key = key * t->dims[d] + coords[d];
            kept++;
        } else {
            color = color * t->dims[d] + coords[d];
        }
    }
    free(coords);
    if ((err = mp_comm_split_internal(comm, color, key, &c)))
        return mp_ret(comm, F, err);
    mp_topo *s = mp_calloc(1, sizeof *s);
    s->kind = MPI_CART;
    s->ndims = kept;
    s->dims = mp_malloc(sizeof(int) * (size_t)(kept ? kept : 1));
    s->periods = mp_malloc(sizeof(int) * (size_t)(kept ? kept : 1));
    for (int d = 0, k = 0; d < t->ndims; d++)
        if (remain_dims[d]) {
            s->dims[k] = t->dims[d];
            s->periods[k++] = t->periods[d];
        }
    c->topo = s;
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char *const F = "MPI_Dims_create";
    int err;
    if ((err = mp_arg_initialized(F)))
        return err;
    if (nnodes < 0)
        return mp_error(NULL, MPI_ERR_ARG, F, "invalid nnodes %d", nnodes);
    if (ndims < 0)
        return mp_error(NULL, MPI_ERR_DIMS, F, "invalid ndims %d", ndims);
    if (ndims > 0 && !dims)
        return mp_error(NULL, MPI_ERR_ARG, F, "dims is NULL");
    long fixed = 1;
    int nfree = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return mp_error(NULL, MPI_ERR_DIMS, F, "invalid dims[%d] = %d", d, dims[d]);
        if (dims[d] == 0)
            nfree++;
        else
            fixed *= dims[d];
    }
    if (nnodes == 0) {
        if (nfree < ndims)
            return mp_error(NULL, MPI_ERR_DIMS, F, "nnodes is 0 but some dims are fixed");
        return MPI_SUCCESS;          /* nothing to distribute; leave zeros (as MPICH) */
    }
    if (fixed == 0 || nnodes % fixed)
        return mp_error(NULL, MPI_ERR_DIMS, F,
                        "nnodes %d is not a multiple of the product %ld of the fixed dims",
                        nnodes, fixed);
    int m = (int)(nnodes / fixed);
    if (nfree == 0) {
        if (m != 1)
            return mp_error(NULL, MPI_ERR_DIMS, F,
                            "the fixed dims multiply to %ld, not nnodes %d", fixed, nnodes);
        return MPI_SUCCESS;
    }
    int *best = mp_malloc(sizeof(int) * (size_t)nfree);
    mp_dims_balanced(m, nfree, best);
    for (int d = 0, k = 0; d < ndims; d++)
        if (dims[d] == 0)
            dims[d] = best[k++];
    free(best);
    return MPI_SUCCESS;
}
#pragma weak MPI_Dims_create = PMPI_Dims_create

/* ---------------------------------------------------------------------------------------------
 * Graph
 * ------------------------------------------------------------------------------------------- */
int PMPI_Graph_create(MPI_Comm h, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm *comm_graph)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Graph_create";
    MP_OUT_NULL(comm_graph, MPI_COMM_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_ptr(F, comm, comm_graph, "comm_graph")))
        return err;
    if (nnodes < 0 || nnodes > comm->size)
        return mp_error(comm, MPI_ERR_ARG, F,
                        "invalid nnodes %d for a communicator of size %d", nnodes, comm->size);
    if (nnodes > 0 && ((err = arg_ptr(F, comm, index, "index"))))
        return err;
    int nedges = nnodes ? index[nnodes - 1] : 0;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < 0 || (i > 0 && index[i] < index[i - 1]))
            return mp_error(comm, MPI_ERR_ARG, F, "index[%d] = %d is negative or decreasing",
                            i, index[i]);
    if (nedges > 0 && (err = arg_ptr(F, comm, edges, "edges")))
        return err;
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return mp_error(comm, MPI_ERR_ARG, F, "edges[%d] = %d is not a node (nnodes %d)",
                            e, edges[e], nnodes);
    mp_topo *t = mp_calloc(1, sizeof *t);
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = dup_ints(index, nnodes);
    t->edges = dup_ints(edges, nedges);
    return attach_first(F, comm, nnodes, t, comm_graph);
}
#pragma weak MPI_Graph_create = PMPI_Graph_create

int PMPI_Graph_map(MPI_Comm h, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char *const F = "MPI_Graph_map";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_ptr(F, comm, newrank, "newrank")))
        return err;
    if (nnodes < 1 || nnodes > comm->size)
        return mp_error(comm, MPI_ERR_ARG, F,
                        "invalid nnodes %d for a communicator of size %d", nnodes, comm->size);
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_map = PMPI_Graph_map

int PMPI_Graphdims_get(MPI_Comm h, int *nnodes, int *nedges)
{
    static const char *const F = "MPI_Graphdims_get";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_GRAPH, &t)) ||
        (err = arg_ptr(F, comm, nnodes, "nnodes")) || (err = arg_ptr(F, comm, nedges, "nedges")))
        return err;
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get

int PMPI_Graph_get(MPI_Comm h, int maxindex, int maxedges, int index[], int edges[])
{
    static const char *const F = "MPI_Graph_get";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_GRAPH, &t)))
        return err;
    if (maxindex < 0 || maxedges < 0)
        return mp_error(comm, MPI_ERR_ARG, F, "invalid maxindex %d or maxedges %d", maxindex,
                        maxedges);
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if ((ni > 0 && (err = arg_ptr(F, comm, index, "index"))) ||
        (ne > 0 && (err = arg_ptr(F, comm, edges, "edges"))))
        return err;
    if (ni > 0)
        memcpy(index, t->index, sizeof(int) * (size_t)ni);
    if (ne > 0)
        memcpy(edges, t->edges, sizeof(int) * (size_t)ne);
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_get = PMPI_Graph_get

static int graph_rank_arg(const char *F, mp_comm *comm, mp_topo *t, int rank)
{
    if (rank < 0 || rank >= t->nnodes)
        return mp_error(comm, MPI_ERR_RANK, F, "invalid rank %d in a graph of %d nodes", rank,
                        t->nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm h, int rank, int *nneighbors)
{
    static const char *const F = "MPI_Graph_neighbors_count";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_GRAPH, &t)) ||
        (err = graph_rank_arg(F, comm, t, rank)) ||
        (err = arg_ptr(F, comm, nneighbors, "nneighbors")))
        return err;
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count

int PMPI_Graph_neighbors(MPI_Comm h, int rank, int maxneighbors, int neighbors[])
{
    static const char *const F = "MPI_Graph_neighbors";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_GRAPH, &t)) ||
        (err = graph_rank_arg(F, comm, t, rank)))
        return err;
    int first = rank ? t->index[rank - 1] : 0;
    int n = t->index[rank] - first;
    if (maxneighbors < 0)
        return mp_error(comm, MPI_ERR_ARG, F, "invalid maxneighbors %d", maxneighbors);
    if (n > maxneighbors)
        n = maxneighbors;
    if (n > 0 && (err = arg_ptr(F, comm, neighbors, "neighbors")))
        return err;
    if (n > 0)
        memcpy(neighbors, t->edges + first, sizeof(int) * (size_t)n);
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors

int PMPI_Topo_test(MPI_Comm h, int *status)
{
    static const char *const F = "MPI_Topo_test";
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_ptr(F, comm, status, "status")))
        return err;
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Topo_test = PMPI_Topo_test

/* ---------------------------------------------------------------------------------------------
 * Distributed graph
 * ------------------------------------------------------------------------------------------- */
static int check_weights(const char *F, mp_comm *comm, const int *w, int n, const char *name)
{
    if (w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY)
        return w == MPI_WEIGHTS_EMPTY && n > 0
                   ? mp_error(comm, MPI_ERR_ARG, F, "%s is MPI_WEIGHTS_EMPTY with %d edges",
                              name, n) : MPI_SUCCESS;
    if (n > 0 && !w)
        return mp_error(comm, MPI_ERR_ARG, F, "%s is NULL", name);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return mp_error(comm, MPI_ERR_ARG, F, "negative weight %s[%d] = %d", name, i, w[i]);
    return MPI_SUCCESS;
}

static int check_ranks(const char *F, mp_comm *comm, const int *r, int n, const char *name)
{
    if (n > 0 && !r)
        return mp_error(comm, MPI_ERR_ARG, F, "%s is NULL", name);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= comm->size)
            return mp_error(comm, MPI_ERR_RANK, F,
                            "invalid rank %s[%d] = %d in a communicator of size %d", name, i,
                            r[i], comm->size);
    return MPI_SUCCESS;
}

static int dist_attach(const char *F, mp_comm *comm, mp_topo *t, MPI_Comm *out)
{
    mp_comm *c;
    int err = mp_comm_dup_internal(comm, &c);
    if (err) {
        mp_topo_free(t);
        return mp_ret(comm, F, err);
    }
    c->topo = t;
    *out = c->handle;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm h, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Dist_graph_create_adjacent";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_ptr(F, comm, newcomm, "comm_dist_graph")))
        return err;
    if (indegree < 0 || outdegree < 0)
        return mp_error(comm, MPI_ERR_ARG, F, "invalid indegree %d or outdegree %d", indegree,
                        outdegree);
    if ((err = check_ranks(F, comm, sources, indegree, "sources")) ||
        (err = check_ranks(F, comm, destinations, outdegree, "destinations")) ||
        (err = check_weights(F, comm, sourceweights, indegree, "sourceweights")) ||
        (err = check_weights(F, comm, destweights, outdegree, "destweights")))
        return err;
    if (info != MPI_INFO_NULL && !mp_info_get(info))
        return mp_error(comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    mp_topo *t = mp_calloc(1, sizeof *t);
    t->kind = MPI_DIST_GRAPH;
    t->indeg = indegree;
    t->outdeg = outdegree;
    t->weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    t->in = dup_ints(sources, indegree);
    t->out = dup_ints(destinations, outdegree);
    if (t->weighted) {
        t->inw = dup_ints(sourceweights == MPI_WEIGHTS_EMPTY ? NULL : sourceweights, indegree);
        t->outw = dup_ints(destweights == MPI_WEIGHTS_EMPTY ? NULL : destweights, outdegree);
    }
    return dist_attach(F, comm, t, newcomm);
}
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent

/* One edge as exchanged by MPI_Dist_graph_create. */
typedef struct edge { int src, dst, w; } edge;

/* Sends each edge to both endpoints; returns this process's in- and out-edge lists. */
static int dist_exchange(mp_comm *c, const edge *mine, int nmine, edge **got, int *ngot)
{
    int n = c->size, err = MPI_SUCCESS;
    int *scount = mp_calloc((size_t)n, sizeof(int)), *rcount = mp_calloc((size_t)n, sizeof(int));
    for (int i = 0; i < nmine; i++) {
        scount[mine[i].src]++;
        if (mine[i].dst != mine[i].src)
            scount[mine[i].dst]++;
    }
    int *soff = mp_malloc(sizeof(int) * (size_t)(n + 1));
    soff[0] = 0;
    for (int r = 0; r < n; r++)
        soff[r + 1] = soff[r] + scount[r];
    edge *sbuf = mp_malloc(sizeof(edge) * (size_t)(soff[n] ? soff[n] : 1));
    int *fill = dup_ints(soff, n);
    for (int i = 0; i < nmine; i++) {
        sbuf[fill[mine[i].src]++] = mine[i];
        if (mine[i].dst != mine[i].src)
            sbuf[fill[mine[i].dst]++] = mine[i];
    }
    free(fill);
    mp_datatype *bytes = mp_datatype_get(MPI_BYTE);
    mp_request **reqs = mp_malloc(sizeof(mp_request *) * (size_t)(2 * n));
    /* counts */
    for (int r = 0; r < n && !err; r++)
        err = mp_irecv(&rcount[r], sizeof(int), bytes, r, MP_TAG_TOPO, c, MP_CTX_COLL, &reqs[r]);
    for (int r = 0; r < n && !err; r++)
        err = mp_isend(&scount[r], sizeof(int), bytes, r, MP_TAG_TOPO, c, MP_CTX_COLL,
                       MP_MODE_STANDARD, &reqs[n + r]);
    if (!err)
        err = mp_waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
    int total = 0;
    for (int r = 0; r < n; r++)
        total += rcount[r];
    edge *rbuf = mp_malloc(sizeof(edge) * (size_t)(total ? total : 1));
    int k = 0, nr = 0;
    for (int r = 0; r < n && !err; r++) {
        if (rcount[r])
            err = mp_irecv(rbuf + k, (MPI_Aint)(sizeof(edge) * (size_t)rcount[r]), bytes, r,
                           MP_TAG_TOPO + 1, c, MP_CTX_COLL, &reqs[nr++]);
        k += rcount[r];
    }
    for (int r = 0; r < n && !err; r++)
        if (scount[r])
            err = mp_isend(sbuf + soff[r], (MPI_Aint)(sizeof(edge) * (size_t)scount[r]), bytes,
                           r, MP_TAG_TOPO + 1, c, MP_CTX_COLL, MP_MODE_STANDARD, &reqs[nr++]);
    if (!err)
        err = mp_waitall(nr, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    free(sbuf);
    free(soff);
    free(scount);
    free(rcount);
    if (err) {
        free(rbuf);
        return err;
    }
    *got = rbuf;
    *ngot = total;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create(MPI_Comm h, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *newcomm)
{
    MP_BIG_LOCK();
    static const char *const F = "MPI_Dist_graph_create";
    MP_OUT_NULL(newcomm, MPI_COMM_NULL);
    mp_comm *comm, *c;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_intra(F, comm)) ||
        (err = arg_ptr(F, comm, newcomm, "comm_dist_graph")))
        return err;
    if (n < 0)
        return mp_error(comm, MPI_ERR_ARG, F, "invalid n %d", n);
    if ((err = check_ranks(F, comm, sources, n, "sources")))
        return err;
    if (n > 0 && (err = arg_ptr(F, comm, degrees, "degrees")))
        return err;
    long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return mp_error(comm, MPI_ERR_ARG, F, "invalid degrees[%d] = %d", i, degrees[i]);
        nedges += degrees[i];
    }
    if ((err = check_ranks(F, comm, destinations, (int)nedges, "destinations")) ||
        (err = check_weights(F, comm, weights, (int)nedges, "weights")))
        return err;
    if (info != MPI_INFO_NULL && !mp_info_get(info))
        return mp_error(comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    int weighted = weights != MPI_UNWEIGHTED;
    edge *mine = mp_malloc(sizeof(edge) * (size_t)(nedges ? nedges : 1));
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            mine[e].src = sources[i];
            mine[e].dst = destinations[e];
            mine[e].w = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
        }
    if ((err = mp_comm_dup_internal(comm, &c))) {
        free(mine);
        return mp_ret(comm, F, err);
    }
    edge *got;
    int ngot;
    err = dist_exchange(c, mine, (int)nedges, &got, &ngot);
    free(mine);
    if (err) {
        mp_comm_free_internal(c);
        return mp_ret(comm, F, err);
    }
    mp_topo *t = mp_calloc(1, sizeof *t);
    t->kind = MPI_DIST_GRAPH;
    t->weighted = weighted;
    t->in = mp_malloc(sizeof(int) * (size_t)(ngot ? ngot : 1));
    t->inw = mp_malloc(sizeof(int) * (size_t)(ngot ? ngot : 1));
    t->out = mp_malloc(sizeof(int) * (size_t)(ngot ? ngot : 1));
    t->outw = mp_malloc(sizeof(int) * (size_t)(ngot ? ngot : 1));
    for (int i = 0; i < ngot; i++) {
        if (got[i].dst == c->rank) {
            t->in[t->indeg] = got[i].src;
            t->inw[t->indeg++] = got[i].w;
        }
        if (got[i].src == c->rank) {
            t->out[t->outdeg] = got[i].dst;
            t->outw[t->outdeg++] = got[i].w;
        }
    }
    free(got);
    c->topo = t;
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create

int PMPI_Dist_graph_neighbors_count(MPI_Comm h, int *indegree, int *outdegree, int *weighted)
{
    static const char *const F = "MPI_Dist_graph_neighbors_count";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_DIST_GRAPH, &t)) ||
        (err = arg_ptr(F, comm, indegree, "indegree")) ||
        (err = arg_ptr(F, comm, outdegree, "outdegree")) ||
        (err = arg_ptr(F, comm, weighted, "weighted")))
        return err;
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count

int PMPI_Dist_graph_neighbors(MPI_Comm h, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char *const F = "MPI_Dist_graph_neighbors";
    mp_comm *comm;
    mp_topo *t = NULL;
    int err;
    if ((err = mp_arg_comm(F, h, &comm)) || (err = arg_topo(F, comm, MPI_DIST_GRAPH, &t)))
        return err;
    if (maxindegree < t->indeg || maxoutdegree < t->outdeg)
        return mp_error(comm, MPI_ERR_ARG, F,
                        "maxindegree %d / maxoutdegree %d smaller than the degrees %d / %d",
                        maxindegree, maxoutdegree, t->indeg, t->outdeg);
    if ((t->indeg > 0 && (err = arg_ptr(F, comm, sources, "sources"))) ||
        (t->outdeg > 0 && (err = arg_ptr(F, comm, destinations, "destinations"))))
        return err;
    for (int i = 0; i < t->indeg; i++) {
        sources[i] = t->in[i];
        if (t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED &&
            sourceweights != MPI_WEIGHTS_EMPTY)
            sourceweights[i] = t->inw[i];
    }
    for (int i = 0; i < t->outdeg; i++) {
        destinations[i] = t->out[i];
        if (t->weighted && destweights && destweights != MPI_UNWEIGHTED &&
            destweights != MPI_WEIGHTS_EMPTY)
            destweights[i] = t->outw[i];
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors

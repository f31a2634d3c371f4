/* topo.c -- process topologies: Cartesian, graph and distributed graph.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are described in src/binding/topo.spec; errors go through the
 * communicator's handler (MPI_COMM_WORLD's for MPI_Dims_create).  Topology constructors
 * build the new communicator with the comm layer (a split that keeps the first N ranks for
 * cartesian and graph topologies, a dup for distributed graphs) and attach an mp_topo
 * (src/comm/topo.c).  MemPI does not reorder ranks: `reorder` is accepted and ignored, which
 * the standard allows, so MPI_Cart_map/MPI_Graph_map return the identity.
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

static int arg_intra(const char *F, mp_comm *comm)
{
    return comm->is_inter ? mp_err(F, MPI_ERR_COMM, "communicator is an intercommunicator")
                          : MPI_SUCCESS;
}

static int arg_topo(const char *F, mp_comm *comm, int kind, mp_topo **out)
{
    static const char *const names[] = { "", "graph", "cartesian", "distributed graph" };
    if (!comm->topo || comm->topo->kind != kind)
        return mp_err(F, MPI_ERR_TOPOLOGY, "communicator has no %s topology", names[kind]);
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
        return err;
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
        return mp_err(F, MPI_ERR_DIMS, "invalid ndims %d", ndims);
    if (ndims > 0 && !dims)
        return mp_err(F, MPI_ERR_ARG, "dims is NULL");
    long p = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return mp_err(F, MPI_ERR_DIMS, "invalid dims[%d] = %d", d, dims[d]);
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
    t->periods = dup_ints(NULL, ndims);
    for (int d = 0; d < ndims; d++)
        t->periods[d] = periods ? periods[d] != 0 : 0;
    return t;
}

int mp_do_cart_create(const char *F, mp_comm *comm, int ndims, const int dims[],
                      const int periods[], int reorder, MPI_Comm *comm_cart)
{
    long prod;
    int err;
    if ((err = arg_intra(F, comm)) ||
        (err = check_dims(F, comm, ndims, dims, &prod)))
        return err;
    if (ndims > 0 && !periods)
        return mp_err(F, MPI_ERR_ARG, "periods is NULL");
    if (prod > comm->size)
        return mp_err(F, MPI_ERR_TOPOLOGY,
                      "the grid has more points than the %d processes of the communicator",
                      comm->size);
    return attach_first(F, comm, (int)prod, cart_topo(ndims, dims, periods), comm_cart);
}

int mp_do_cart_map(const char *F, mp_comm *comm, int ndims, const int dims[], const int periods[],
                   int *newrank)
{
    long prod;
    int err;
    if ((err = arg_intra(F, comm)) ||
        (err = mp_chk_out(F, newrank, "newrank")) ||
        (err = check_dims(F, comm, ndims, dims, &prod)))
        return err;
    if (prod > comm->size)
        return mp_err(F, MPI_ERR_TOPOLOGY,
                      "the grid has more points than the %d processes of the communicator",
                      comm->size);
    *newrank = comm->rank < prod ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int mp_do_cartdim_get(const char *F, mp_comm *comm, int *ndims)
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = mp_chk_out(F, ndims, "ndims")))
        return err;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

int mp_do_cart_get(const char *F, mp_comm *comm, int maxdims, int dims[], int periods[],
                   int coords[])
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_CART, &t)))
        return err;
    if (maxdims < t->ndims)
        return mp_err(F, MPI_ERR_ARG, "maxdims %d is smaller than ndims %d", maxdims, t->ndims);
    if (t->ndims > 0 && ((err = mp_chk_out(F, dims, "dims")) ||
                         (err = mp_chk_out(F, periods, "periods")) ||
                         (err = mp_chk_out(F, coords, "coords"))))
        return err;
    for (int d = 0; d < t->ndims; d++) {
        dims[d] = t->dims[d];
        periods[d] = t->periods[d];
    }
    if (t->ndims > 0)
        mp_cart_coords_of(t, comm->rank, coords);
    return MPI_SUCCESS;
}

int mp_do_cart_rank(const char *F, mp_comm *comm, const int coords[], int *rank)
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = mp_chk_out(F, rank, "rank")))
        return err;
    if (t->ndims > 0 && (err = mp_chk_out(F, coords, "coords")))
        return err;
    if (mp_cart_rank_of(t, coords, rank)) {
        for (int d = 0; d < t->ndims; d++)
            if (!t->periods[d] && (coords[d] < 0 || coords[d] >= t->dims[d]))
                return mp_err(F, MPI_ERR_ARG,
                              "coords[%d] = %d is outside the non-periodic dimension of size %d",
                              d, coords[d], t->dims[d]);
    }
    return MPI_SUCCESS;
}

int mp_do_cart_coords(const char *F, mp_comm *comm, int rank, int maxdims, int coords[])
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_CART, &t)))
        return err;
    if (rank < 0 || rank >= comm->size)
        return mp_err(F, MPI_ERR_RANK, "invalid rank %d in a communicator of size %d", rank,
                      comm->size);
    if (maxdims < t->ndims)
        return mp_err(F, MPI_ERR_ARG, "maxdims %d is smaller than ndims %d", maxdims, t->ndims);
    if (t->ndims > 0 && (err = mp_chk_out(F, coords, "coords")))
        return err;
    mp_cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int mp_do_cart_shift(const char *F, mp_comm *comm, int direction, int disp, int *source, int *dest)
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_CART, &t)) ||
        (err = mp_chk_out(F, source, "rank_source")) ||
        (err = mp_chk_out(F, dest, "rank_dest")))
        return err;
    if (direction < 0 || direction >= t->ndims)
        return mp_err(F, MPI_ERR_ARG, "invalid direction %d for %d dimensions", direction,
                      t->ndims);
    return mp_cart_shift_of(t, comm->rank, direction, disp, source, dest);
}

int mp_do_cart_sub(const char *F, mp_comm *comm, const int remain_dims[], MPI_Comm *newcomm)
{
    mp_comm *c;
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_CART, &t)))
        return err;
    if (t->ndims > 0 && (err = mp_chk_out(F, remain_dims, "remain_dims")))
        return err;
    int *coords = dup_ints(NULL, t->ndims);
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
        return err;
    int *dims = dup_ints(NULL, kept), *periods = dup_ints(NULL, kept);
    for (int d = 0, k = 0; d < t->ndims; d++)
        if (remain_dims[d]) {
            dims[k] = t->dims[d];
            periods[k++] = t->periods[d];
        }
    c->topo = cart_topo(kept, dims, periods);
    free(dims);
    free(periods);
    *newcomm = c->handle;
    return MPI_SUCCESS;
}

int mp_do_dims_create(const char *F, int nnodes, int ndims, int dims[])
{
    if (nnodes < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid nnodes %d", nnodes);
    if (ndims < 0)
        return mp_err(F, MPI_ERR_DIMS, "invalid ndims %d", ndims);
    if (ndims > 0 && !dims)
        return mp_err(F, MPI_ERR_ARG, "dims is NULL");
    long fixed = 1;
    int nfree = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0)
            return mp_err(F, MPI_ERR_DIMS, "invalid dims[%d] = %d", d, dims[d]);
        if (dims[d] == 0)
            nfree++;
        else
            fixed *= dims[d];
    }
    if (nnodes == 0) {
        if (nfree < ndims)
            return mp_err(F, MPI_ERR_DIMS, "nnodes is 0 but some dims are fixed");
        return MPI_SUCCESS;          /* nothing to distribute; leave zeros (as MPICH) */
    }
    if (fixed == 0 || nnodes % fixed)
        return mp_err(F, MPI_ERR_DIMS,
                      "nnodes %d is not a multiple of the product %ld of the fixed dims", nnodes,
                      fixed);
    int m = (int)(nnodes / fixed);
    if (nfree == 0) {
        if (m != 1)
            return mp_err(F, MPI_ERR_DIMS, "the fixed dims multiply to %ld, not nnodes %d", fixed,
                          nnodes);
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

/* ---------------------------------------------------------------------------------------------
 * Graph
 * ------------------------------------------------------------------------------------------- */
int mp_do_graph_create(const char *F, mp_comm *comm, int nnodes, const int index[],
                       const int edges[], int reorder, MPI_Comm *comm_graph)
{
    int err;
    if ((err = arg_intra(F, comm)))
        return err;
    if (nnodes < 0 || nnodes > comm->size)
        return mp_err(F, MPI_ERR_ARG, "invalid nnodes %d for a communicator of size %d", nnodes,
                      comm->size);
    if (nnodes > 0 && ((err = mp_chk_out(F, index, "index"))))
        return err;
    int nedges = nnodes ? index[nnodes - 1] : 0;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < 0 || (i > 0 && index[i] < index[i - 1]))
            return mp_err(F, MPI_ERR_ARG, "index[%d] = %d is negative or decreasing", i, index[i]);
    if (nedges > 0 && (err = mp_chk_out(F, edges, "edges")))
        return err;
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return mp_err(F, MPI_ERR_ARG, "edges[%d] = %d is not a node (nnodes %d)", e, edges[e],
                          nnodes);
    mp_topo *t = mp_calloc(1, sizeof *t);
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = dup_ints(index, nnodes);
    t->edges = dup_ints(edges, nedges);
    return attach_first(F, comm, nnodes, t, comm_graph);
}

int mp_do_graph_map(const char *F, mp_comm *comm, int nnodes, const int index[],
                    const int edges[], int *newrank)
{
    int err;
    if ((err = arg_intra(F, comm)) ||
        (err = mp_chk_out(F, newrank, "newrank")))
        return err;
    if (nnodes < 1 || nnodes > comm->size)
        return mp_err(F, MPI_ERR_ARG, "invalid nnodes %d for a communicator of size %d", nnodes,
                      comm->size);
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int mp_do_graphdims_get(const char *F, mp_comm *comm, int *nnodes, int *nedges)
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_GRAPH, &t)) ||
        (err = mp_chk_out(F, nnodes, "nnodes")) || (err = mp_chk_out(F, nedges, "nedges")))
        return err;
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

int mp_do_graph_get(const char *F, mp_comm *comm, int maxindex, int maxedges, int index[],
                    int edges[])
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_GRAPH, &t)))
        return err;
    if (maxindex < 0 || maxedges < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid maxindex %d or maxedges %d", maxindex, maxedges);
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if ((ni > 0 && (err = mp_chk_out(F, index, "index"))) ||
        (ne > 0 && (err = mp_chk_out(F, edges, "edges"))))
        return err;
    if (ni > 0)
        memcpy(index, t->index, sizeof(int) * (size_t)ni);
    if (ne > 0)
        memcpy(edges, t->edges, sizeof(int) * (size_t)ne);
    return MPI_SUCCESS;
}

static int graph_rank_arg(const char *F, mp_comm *comm, mp_topo *t, int rank)
{
    if (rank < 0 || rank >= t->nnodes)
        return mp_err(F, MPI_ERR_RANK, "invalid rank %d in a graph of %d nodes", rank, t->nnodes);
    return MPI_SUCCESS;
}

int mp_do_graph_neighbors_count(const char *F, mp_comm *comm, int rank, int *nneighbors)
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_GRAPH, &t)) ||
        (err = graph_rank_arg(F, comm, t, rank)) ||
        (err = mp_chk_out(F, nneighbors, "nneighbors")))
        return err;
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int mp_do_graph_neighbors(const char *F, mp_comm *comm, int rank, int maxneighbors, int neighbors[])
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_GRAPH, &t)) ||
        (err = graph_rank_arg(F, comm, t, rank)))
        return err;
    int first = rank ? t->index[rank - 1] : 0;
    int n = t->index[rank] - first;
    if (maxneighbors < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid maxneighbors %d", maxneighbors);
    if (n > maxneighbors)
        n = maxneighbors;
    if (n > 0 && (err = mp_chk_out(F, neighbors, "neighbors")))
        return err;
    if (n > 0)
        memcpy(neighbors, t->edges + first, sizeof(int) * (size_t)n);
    return MPI_SUCCESS;
}

int mp_do_topo_test(const char *F, mp_comm *comm, int *status)
{
    int err;
    if ((err = mp_chk_out(F, status, "status")))
        return err;
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * Distributed graph
 * ------------------------------------------------------------------------------------------- */
static int check_weights(const char *F, mp_comm *comm, const int *w, int n, const char *name)
{
    if (w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY)
        return w == MPI_WEIGHTS_EMPTY && n > 0
                   ? mp_err(F, MPI_ERR_ARG, "%s is MPI_WEIGHTS_EMPTY with %d edges",
                              name, n) : MPI_SUCCESS;
    if (n > 0 && !w)
        return mp_err(F, MPI_ERR_ARG, "%s is NULL", name);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return mp_err(F, MPI_ERR_ARG, "negative weight %s[%d] = %d", name, i, w[i]);
    return MPI_SUCCESS;
}

static int check_ranks(const char *F, mp_comm *comm, const int *r, int n, const char *name)
{
    if (n > 0 && !r)
        return mp_err(F, MPI_ERR_ARG, "%s is NULL", name);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= comm->size)
            return mp_err(F, MPI_ERR_RANK,
                          "invalid rank %s[%d] = %d in a communicator of size %d", name, i, r[i],
                          comm->size);
    return MPI_SUCCESS;
}

static int dist_attach(const char *F, mp_comm *comm, mp_topo *t, MPI_Comm *out)
{
    mp_comm *c;
    int err = mp_comm_dup_internal(comm, &c);
    if (err) {
        mp_topo_free(t);
        return err;
    }
    c->topo = t;
    *out = c->handle;
    return MPI_SUCCESS;
}

int mp_do_dist_graph_create_adjacent(const char *F, mp_comm *comm, int indegree,
                                     const int sources[], const int sourceweights[],
                                     int outdegree, const int destinations[],
                                     const int destweights[], MPI_Info info, int reorder,
                                     MPI_Comm *newcomm)
{
    int err;
    if ((err = arg_intra(F, comm)))
        return err;
    if (indegree < 0 || outdegree < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid indegree %d or outdegree %d", indegree, outdegree);
    if ((err = check_ranks(F, comm, sources, indegree, "sources")) ||
        (err = check_ranks(F, comm, destinations, outdegree, "destinations")) ||
        (err = check_weights(F, comm, sourceweights, indegree, "sourceweights")) ||
        (err = check_weights(F, comm, destweights, outdegree, "destweights")))
        return err;
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

int mp_do_dist_graph_create(const char *F, mp_comm *comm, int n, const int sources[],
                            const int degrees[], const int destinations[], const int weights[],
                            MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    mp_comm *c;
    int err;
    if ((err = arg_intra(F, comm)))
        return err;
    if (n < 0)
        return mp_err(F, MPI_ERR_ARG, "invalid n %d", n);
    if ((err = check_ranks(F, comm, sources, n, "sources")))
        return err;
    if (n > 0 && (err = mp_chk_out(F, degrees, "degrees")))
        return err;
    long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return mp_err(F, MPI_ERR_ARG, "invalid degrees[%d] = %d", i, degrees[i]);
        nedges += degrees[i];
    }
    if ((err = check_ranks(F, comm, destinations, (int)nedges, "destinations")) ||
        (err = check_weights(F, comm, weights, (int)nedges, "weights")))
        return err;
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
        return err;
    }
    edge *got;
    int ngot;
    err = dist_exchange(c, mine, (int)nedges, &got, &ngot);
    free(mine);
    if (err) {
        mp_comm_free_internal(c);
        return err;
    }
    mp_topo *t = mp_calloc(1, sizeof *t);
    t->kind = MPI_DIST_GRAPH;
    t->weighted = weighted;
    t->in = dup_ints(NULL, ngot);
    t->inw = dup_ints(NULL, ngot);
    t->out = dup_ints(NULL, ngot);
    t->outw = dup_ints(NULL, ngot);
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

int mp_do_dist_graph_neighbors_count(const char *F, mp_comm *comm, int *indegree, int *outdegree,
                                     int *weighted)
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_DIST_GRAPH, &t)) ||
        (err = mp_chk_out(F, indegree, "indegree")) ||
        (err = mp_chk_out(F, outdegree, "outdegree")) ||
        (err = mp_chk_out(F, weighted, "weighted")))
        return err;
    *indegree = t->indeg;
    *outdegree = t->outdeg;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

int mp_do_dist_graph_neighbors(const char *F, mp_comm *comm, int maxindegree, int sources[],
                               int sourceweights[], int maxoutdegree, int destinations[],
                               int destweights[])
{
    mp_topo *t = NULL;
    int err;
    if ((err = arg_topo(F, comm, MPI_DIST_GRAPH, &t)))
        return err;
    if (maxindegree < t->indeg || maxoutdegree < t->outdeg)
        return mp_err(F, MPI_ERR_ARG,
                      "maxindegree %d / maxoutdegree %d smaller than the degrees %d / %d",
                      maxindegree, maxoutdegree, t->indeg, t->outdeg);
    if ((t->indeg > 0 && (err = mp_chk_out(F, sources, "sources"))) ||
        (t->outdeg > 0 && (err = mp_chk_out(F, destinations, "destinations"))))
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

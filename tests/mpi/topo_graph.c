/* mempi-test: np=1,2,3,4,5,7,8 timeout=60 */
/* topo_graph.c -- Graph_create/get/neighbors/map, Graphdims_get; Dist_graph_create(_adjacent), Dist_graph_neighbors(_count).  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int n = wsize;

    /* graph: node i connects to i+1 and i+2 (mod n), plus node 0 to itself */
    int index[64], edges[256], ne = 0;
    for (int i = 0; i < n; i++) {
        edges[ne++] = (i + 1) % n;
        edges[ne++] = (i + 2) % n;
        if (i == 0)
            edges[ne++] = 0;
        index[i] = ne;
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
    int status, nn, nedges, cnt, nb[8];
    MPI_Topo_test(g, &status);
    CHECK(status == MPI_GRAPH, "topo_test %d", status);
    MPI_Graphdims_get(g, &nn, &nedges);
    CHECK(nn == n && nedges == ne, "graphdims %d %d", nn, nedges);
    int gi[64], ge[256];
    MPI_Graph_get(g, n, ne, gi, ge);
    for (int i = 0; i < n; i++) CHECK(gi[i] == index[i], "index[%d]", i);
    for (int e = 0; e < ne; e++) CHECK(ge[e] == edges[e], "edges[%d]", e);
    for (int q = 0; q < n; q++) {
        MPI_Graph_neighbors_count(g, q, &cnt);
        CHECK(cnt == (q == 0 ? 3 : 2), "neighbors_count(%d) %d", q, cnt);
        MPI_Graph_neighbors(g, q, 8, nb);
        CHECK(nb[0] == (q + 1) % n && nb[1] == (q + 2) % n, "neighbors of %d", q);
    }
    int nr;
    MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &nr);
    CHECK(nr == wrank, "graph_map %d", nr);
    /* traffic along the edges: send to each out-neighbour; the graph is regular in-degree-wise
     * except the extra self-loop of 0, so everyone receives from i-1 and i-2 */
    MPI_Comm_free(&g);

    /* partial graph: only the first n-1 nodes (others get COMM_NULL) */
    if (n > 1) {
        int idx2[64], ed2[64], k = 0;
        for (int i = 0; i < n - 1; i++) { ed2[k++] = (i + 1) % (n - 1); idx2[i] = k; }
        MPI_Graph_create(MPI_COMM_WORLD, n - 1, idx2, ed2, 1, &g);
        CHECK((wrank < n - 1) == (g != MPI_COMM_NULL), "partial graph membership");
        if (g != MPI_COMM_NULL) MPI_Comm_free(&g);
    }

    /* dist graph, adjacent: ring with weights = source rank + 1 */
    int srcs[2] = { (wrank + n - 1) % n, (wrank + n - 2) % n };
    int dsts[2] = { (wrank + 1) % n, (wrank + 2) % n };
    int sw[2] = { srcs[0] + 1, srcs[1] + 1 }, dw[2] = { wrank + 1, wrank + 1 };
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, sw, 2, dsts, dw, MPI_INFO_NULL, 0, &dg);
    MPI_Topo_test(dg, &status);
    CHECK(status == MPI_DIST_GRAPH, "dist topo_test %d", status);
    int indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(indeg == 2 && outdeg == 2 && weighted, "adjacent counts %d %d %d", indeg, outdeg, weighted);
    int s2[2], sw2[2], d2[2], dw2[2];
    MPI_Dist_graph_neighbors(dg, 2, s2, sw2, 2, d2, dw2);
    for (int i = 0; i < 2; i++)
        CHECK(s2[i] == srcs[i] && sw2[i] == sw[i] && d2[i] == dsts[i] && dw2[i] == dw[i],
              "adjacent neighbour %d", i);
    /* messages along the out-edges arrive from the in-edges */
    int got[2], mine = wrank;
    MPI_Request rq[4];
    for (int i = 0; i < 2; i++) MPI_Irecv(&got[i], 1, MPI_INT, s2[i], i, dg, &rq[i]);
    for (int i = 0; i < 2; i++) MPI_Isend(&mine, 1, MPI_INT, d2[i], i, dg, &rq[2 + i]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    CHECK(got[0] == srcs[0] && got[1] == srcs[1], "dist traffic %d %d", got[0], got[1]);
    MPI_Comm_free(&dg);

    /* dist graph, general: rank 0 describes every edge i -> (i+1)%n, weight i*10; others
     * describe i -> (i+3)%n from themselves, unweighted is not mixed (all weighted) */
    int nsrc = wrank == 0 ? n + 1 : 1;
    int *gs = malloc(sizeof(int) * nsrc), *deg = malloc(sizeof(int) * nsrc);
    int *gd = malloc(sizeof(int) * nsrc), *gw = malloc(sizeof(int) * nsrc);
    int k = 0;
    if (wrank == 0)
        for (int i = 0; i < n; i++) { gs[k] = i; deg[k] = 1; gd[k] = (i + 1) % n; gw[k] = i * 10; k++; }
    gs[k] = wrank; deg[k] = 1; gd[k] = (wrank + 3) % n; gw[k] = 7; k++;
    MPI_Dist_graph_create(MPI_COMM_WORLD, k, gs, deg, gd, gw, MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(indeg == 2 && outdeg == 2 && weighted, "general counts %d %d %d", indeg, outdeg, weighted);
    int is[2], iw[2], os[2], ow[2];
    MPI_Dist_graph_neighbors(dg, 2, is, iw, 2, os, ow);
    /* as a multiset: in = {r-1 (w (r-1)*10), r-3 (w 7)}, out = {r+1 (w r*10), r+3 (w 7)} */
    int ein[2] = { (wrank + n - 1) % n, (wrank + 3 * n - 3) % n };
    int eout[2] = { (wrank + 1) % n, (wrank + 3) % n };
    int keys_in[2] = { is[0] * 1000 + iw[0], is[1] * 1000 + iw[1] };
    int want_in[2] = { ein[0] * 1000 + ein[0] * 10, ein[1] * 1000 + 7 };
    int keys_out[2] = { os[0] * 1000 + ow[0], os[1] * 1000 + ow[1] };
    int want_out[2] = { eout[0] * 1000 + wrank * 10, eout[1] * 1000 + 7 };
    qsort(keys_in, 2, sizeof(int), cmp_int); qsort(want_in, 2, sizeof(int), cmp_int);
    qsort(keys_out, 2, sizeof(int), cmp_int); qsort(want_out, 2, sizeof(int), cmp_int);
    CHECK(keys_in[0] == want_in[0] && keys_in[1] == want_in[1], "general in-edges %d %d", keys_in[0], keys_in[1]);
    CHECK(keys_out[0] == want_out[0] && keys_out[1] == want_out[1], "general out-edges %d %d", keys_out[0], keys_out[1]);
    MPI_Comm_free(&dg);

    /* unweighted, with a process that has no edges at all */
    int one_src = 0, one_deg = 1, one_dst = n - 1;
    MPI_Dist_graph_create(MPI_COMM_WORLD, wrank == 0 ? 1 : 0, &one_src, &one_deg, &one_dst,
                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(!weighted, "unweighted reported weighted");
    CHECK(indeg == (wrank == n - 1) && outdeg == (wrank == 0), "unweighted degrees %d %d", indeg, outdeg);
    MPI_Comm_free(&dg);
    free(gs); free(deg); free(gd); free(gw);
    MPI_Finalize();
    return 0;
}

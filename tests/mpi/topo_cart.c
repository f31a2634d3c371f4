/* mempi-test: np=1,2,3,4,5,6,8 timeout=60 */
/* topo_cart.c -- Dims_create, Cart_create/coords/rank/shift/sub/get/map, Cartdim_get, Topo_test.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;

static void dims_case(int n, int nd, const int *in, const int *want)
{
    int d[8];
    for (int i = 0; i < nd; i++)
        d[i] = in[i];
    MPI_Dims_create(n, nd, d);
    for (int i = 0; i < nd; i++)
        CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d expected %d", n, nd, i, d[i],
              want[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* Dims_create */
    dims_case(12, 2, (int[]){ 0, 0 }, (int[]){ 4, 3 });
    dims_case(72, 2, (int[]){ 0, 0 }, (int[]){ 9, 8 });
    dims_case(16, 3, (int[]){ 0, 0, 0 }, (int[]){ 4, 2, 2 });
    dims_case(7, 2, (int[]){ 0, 0 }, (int[]){ 7, 1 });
    dims_case(24, 3, (int[]){ 0, 3, 0 }, (int[]){ 4, 3, 2 });
    dims_case(6, 3, (int[]){ 2, 0, 3 }, (int[]){ 2, 1, 3 });
    dims_case(1, 3, (int[]){ 0, 0, 0 }, (int[]){ 1, 1, 1 });
    dims_case(30, 3, (int[]){ 0, 0, 0 }, (int[]){ 5, 3, 2 });
    /* ties in spread go to the smaller sum, then the larger leading dims (MPICH's answers;
     * the whole rule in tests/unit/dims_create.c) */
    dims_case(15984, 4, (int[]){ 0, 0, 0, 0 }, (int[]){ 37, 9, 8, 6 });
    dims_case(360, 3, (int[]){ 0, 0, 0 }, (int[]){ 10, 6, 6 });
    dims_case(31968, 5, (int[]){ 0, 0, 2, 0, 0 }, (int[]){ 37, 9, 2, 8, 6 });

    /* a 2-D grid of all processes, periodic in dim 0 only */
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
    MPI_Dims_create(wsize, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int status, nd, r;
    MPI_Topo_test(cart, &status);
    CHECK(status == MPI_CART, "topo_test %d", status);
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    CHECK(status == MPI_UNDEFINED, "topo_test world %d", status);
    MPI_Cartdim_get(cart, &nd);
    CHECK(nd == 2, "cartdim %d", nd);
    MPI_Comm_rank(cart, &r);
    int gd[2], gp[2], gc[2];
    MPI_Cart_get(cart, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0, "cart_get");
    CHECK(gc[0] == r / dims[1] && gc[1] == r % dims[1], "coords (%d,%d) of rank %d", gc[0], gc[1], r);
    for (int q = 0; q < wsize; q++) {
        int c[2], back;
        MPI_Cart_coords(cart, q, 2, c);
        CHECK(c[0] == q / dims[1] && c[1] == q % dims[1], "coords of %d", q);
        MPI_Cart_rank(cart, c, &back);
        CHECK(back == q, "rank of coords of %d is %d", q, back);
    }
    /* periodic wrap in dim 0 */
    int c2[2] = { -1, 0 }, w;
    MPI_Cart_rank(cart, c2, &w);
    CHECK(w == (dims[0] - 1) * dims[1], "wrapped rank %d", w);
    /* shifts */
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    CHECK(dst == ((gc[0] + 1) % dims[0]) * dims[1] + gc[1], "shift0 dst %d", dst);
    CHECK(src == ((gc[0] - 1 + dims[0]) % dims[0]) * dims[1] + gc[1], "shift0 src %d", src);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    CHECK(dst == (gc[1] + 1 < dims[1] ? r + 1 : MPI_PROC_NULL), "shift1 dst %d", dst);
    CHECK(src == (gc[1] > 0 ? r - 1 : MPI_PROC_NULL), "shift1 src %d", src);
    /* data moves along the shift */
    int v = r, got = -5;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Sendrecv(&v, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE);
    CHECK(got == src, "shift data %d from %d", got, src);

    /* sub: keep dim 1 (rows) */
    int remain[2] = { 0, 1 };
    MPI_Comm row;
    MPI_Cart_sub(cart, remain, &row);
    int rr, rs;
    MPI_Comm_rank(row, &rr);
    MPI_Comm_size(row, &rs);
    CHECK(rs == dims[1] && rr == gc[1], "row rank %d size %d", rr, rs);
    MPI_Cartdim_get(row, &nd);
    CHECK(nd == 1, "row cartdim %d", nd);
    int sum = 0;
    for (int k = 0; k < rs; k++) {
        int x = gc[0] * 100 + rr, y;
        MPI_Sendrecv(&x, 1, MPI_INT, k, 1, &y, 1, MPI_INT, k, 1, row, MPI_STATUS_IGNORE);
        CHECK(y == gc[0] * 100 + k, "row exchange got %d", y);
        sum += y;
    }
    MPI_Comm_free(&row);
    /* sub keeping nothing: a communicator of one with 0 dims */
    int none[2] = { 0, 0 };
    MPI_Comm single;
    MPI_Cart_sub(cart, none, &single);
    MPI_Comm_size(single, &rs);
    MPI_Cartdim_get(single, &nd);
    CHECK(rs == 1 && nd == 0, "empty sub size %d ndims %d", rs, nd);
    MPI_Comm_free(&single);

    /* fewer grid points than processes: the rest get MPI_COMM_NULL; Cart_map agrees */
    int small[1] = { wsize > 1 ? wsize - 1 : 1 }, per[1] = { 0 }, nr;
    MPI_Comm line;
    MPI_Cart_map(MPI_COMM_WORLD, 1, small, per, &nr);
    MPI_Cart_create(MPI_COMM_WORLD, 1, small, per, 1, &line);
    if (wrank < small[0]) {
        CHECK(line != MPI_COMM_NULL && nr == wrank, "line member: map %d", nr);
        MPI_Comm_free(&line);
    } else {
        CHECK(line == MPI_COMM_NULL && nr == MPI_UNDEFINED, "line non-member: map %d", nr);
    }
    /* dup keeps the topology */
    MPI_Comm cdup;
    MPI_Comm_dup(cart, &cdup);
    MPI_Topo_test(cdup, &status);
    CHECK(status == MPI_CART, "dup lost topology");
    MPI_Comm_free(&cdup);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}

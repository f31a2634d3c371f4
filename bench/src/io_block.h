/* io_block.h -- the 2-D block distribution of io.c's io2d pattern, shared with iotime.c.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * An n x n array of doubles, n the largest with n * n * 8 <= size, block-distributed over a
 * px x py grid of the P ranks (px the largest divisor of P not above its square root): the
 * subarray filetype of rank r, committed, and the doubles it holds.  Both programs include
 * it so that iotime times exactly the pattern the bench reports.
 */
#ifndef IO_BLOCK_H
#define IO_BLOCK_H
#include <mpi.h>

static inline MPI_Datatype io_block_2d(int P, int r, long size, int *count)
{
    int px = 1, n = 1;
    for (int d = 1; d * d <= P; d++)
        if (P % d == 0)
            px = d;
    int py = P / px;
    while ((long)(n + 1) * (n + 1) * 8 <= size)
        n++;
    int gs[2] = { n, n }, sub[2], st[2], co[2] = { r / py, r % py }, dims[2] = { px, py };
    for (int d = 0; d < 2; d++) {
        st[d] = (int)((long)gs[d] * co[d] / dims[d]);
        sub[d] = (int)((long)gs[d] * (co[d] + 1) / dims[d]) - st[d];
    }
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gs, sub, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    *count = sub[0] * sub[1];
    return ft;
}
#endif

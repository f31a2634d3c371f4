/* mempi-test: np=1,2,3,4,8 timeout=120 */
/* datatype_coll.c -- derived datatypes through collectives.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Bcast of a matrix column (vector), Gather of matrix columns into a row-major matrix with a
 * resized column type (the classic transpose idiom), Scatter with a subarray, Alltoall with
 * vector/resized types on both sides, Allgather of a struct type, and Allreduce/Reduce with
 * MINLOC/MAXLOC on pair types (predefined operations take predefined types only).  Every rank checks
 * every value it receives.
 */
#include <mpi.h>
#include "check.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int R = 5;                  /* rows of the test matrices */

    /* Bcast: column 2 of a R x 4 matrix from root size-1 into column 1 */
    {
        double m[5][4];
        MPI_Datatype col;
        MPI_Type_vector(R, 1, 4, MPI_DOUBLE, &col);
        MPI_Type_commit(&col);
        for (int i = 0; i < R; i++)
            for (int j = 0; j < 4; j++)
                m[i][j] = rank == size - 1 ? 100 * i + j : -1;
        MPI_Bcast(rank == size - 1 ? &m[0][2] : &m[0][1], 1, col, size - 1, MPI_COMM_WORLD);
        for (int i = 0; i < R; i++) {
            if (rank != size - 1)
                EXPECT(m[i][1] == 100 * i + 2 && m[i][0] == -1 && m[i][2] == -1, "bcast row %d", i);
            else
                EXPECT(m[i][2] == 100 * i + 2, "bcast root row %d", i);
        }
        MPI_Type_free(&col);
    }

    /* Gather: each rank sends R doubles; root stores them as column `rank` of R x size */
    {
        double mine[5], *all = malloc((size_t)R * size * sizeof(double));
        for (int i = 0; i < R; i++)
            mine[i] = rank * 1000 + i;
        MPI_Datatype col, colr;
        MPI_Type_vector(R, 1, size, MPI_DOUBLE, &col);
        MPI_Type_create_resized(col, 0, sizeof(double), &colr);
        MPI_Type_commit(&colr);
        MPI_Gather(mine, R, MPI_DOUBLE, all, 1, colr, 0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int i = 0; i < R; i++)
                for (int p = 0; p < size; p++)
                    EXPECT(all[i * size + p] == p * 1000 + i, "gather [%d][%d] = %g", i, p,
                          all[i * size + p]);
        /* Scatter back the columns with the same type */
        double back[5] = { 0 };
        MPI_Scatter(all, 1, colr, back, R, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < R; i++)
            EXPECT(back[i] == rank * 1000 + i, "scatter column element %d = %g", i, back[i]);
        MPI_Type_free(&col);
        MPI_Type_free(&colr);
        free(all);
    }

    /* Alltoall: send type = every other int (resized vector), receive contiguous */
    {
        int *s = malloc((size_t)size * 6 * sizeof(int)), *r = malloc((size_t)size * 3 * sizeof(int));
        for (int i = 0; i < size * 6; i++)
            s[i] = rank * 10000 + i;
        MPI_Datatype v, vr;
        MPI_Type_vector(3, 1, 2, MPI_INT, &v);
        MPI_Type_create_resized(v, 0, 6 * sizeof(int), &vr);
        MPI_Type_commit(&vr);
        MPI_Alltoall(s, 1, vr, r, 3, MPI_INT, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++)
            for (int k = 0; k < 3; k++)
                EXPECT(r[p * 3 + k] == p * 10000 + rank * 6 + 2 * k, "alltoall from %d item %d",
                      p, k);
        MPI_Type_free(&v);
        MPI_Type_free(&vr);
        free(s);
        free(r);
    }

    /* Allgather of a struct { int id; double x; char tag; } */
    {
        struct item { int id; double x; char tag; } me, *all = malloc((size_t)size * sizeof(struct item));
        int bl[3] = { 1, 1, 1 };
        MPI_Aint d[3] = { offsetof(struct item, id), offsetof(struct item, x), offsetof(struct item, tag) };
        MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR }, st;
        MPI_Type_create_struct(3, bl, d, ty, &st);
        MPI_Type_commit(&st);
        MPI_Aint lb, ext;
        MPI_Type_get_extent(st, &lb, &ext);
        EXPECT(ext == sizeof(struct item), "struct extent %ld vs sizeof %zu", (long)ext, sizeof(struct item));
        me.id = rank;
        me.x = rank * 0.25;
        me.tag = (char)('a' + rank);
        memset(all, 0, (size_t)size * sizeof(struct item));
        MPI_Allgather(&me, 1, st, all, 1, st, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++)
            EXPECT(all[p].id == p && all[p].x == p * 0.25 && all[p].tag == 'a' + p,
                  "allgather item %d", p);
        MPI_Type_free(&st);
        free(all);
    }

    /* Reductions: MAXLOC on MPI_DOUBLE_INT, MINLOC on MPI_2INT */
    {
        struct { double v; int i; } in[2], out[2];
        in[0].v = (rank * 7) % size; in[0].i = rank;
        in[1].v = -rank; in[1].i = rank;
        MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
        int maxv = -1, maxr = 0;
        for (int p = 0; p < size; p++)
            if ((p * 7) % size > maxv) { maxv = (p * 7) % size; maxr = p; }
        EXPECT(out[0].v == maxv && out[0].i == maxr, "maxloc %g@%d, expected %d@%d", out[0].v,
              out[0].i, maxv, maxr);
        EXPECT(out[1].v == 0 && out[1].i == 0, "maxloc 2nd %g@%d", out[1].v, out[1].i);
        int a2[2] = { size - rank, rank }, r2[2];
        MPI_Reduce(a2, r2, 1, MPI_2INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
        if (rank == 0)
            EXPECT(r2[0] == 1 && r2[1] == size - 1, "minloc %d@%d", r2[0], r2[1]);
    }

    CHECK(check_failures == 0, "datatype_coll: %d failed expectations", check_failures);
    MPI_Finalize();
    return 0;
}

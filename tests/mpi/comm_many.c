/* mempi-test: np=1,2,3,4 timeout=240 */
/* comm_many.c -- tens of thousands of live communicators; exhaustion is a clean error.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

#define NLIVE 20000
static int wrank, wsize;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm *c = malloc(sizeof(MPI_Comm) * 40000);

    /* alternate dup and split so both paths allocate ids */
    for (int i = 0; i < NLIVE; i++) {
        int err = i % 2 ? MPI_Comm_dup(MPI_COMM_WORLD, &c[i])
                        : MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &c[i]);
        CHECK(err == MPI_SUCCESS, "creation %d failed", i);
    }
    /* a few of them still work, both ends agree on which is which */
    int idx[4] = { 0, 1, NLIVE / 2, NLIVE - 1 };
    for (int k = 0; k < 4; k++) {
        int r, s, v = -1;
        MPI_Comm cm = c[idx[k]];
        MPI_Comm_rank(cm, &r);
        MPI_Comm_size(cm, &s);
        int to = (r + 1) % s, from = (r + s - 1) % s, mine = r + k * 10;
        MPI_Sendrecv(&mine, 1, MPI_INT, to, 0, &v, 1, MPI_INT, from, 0, cm, MPI_STATUS_IGNORE);
        CHECK(v == from + k * 10, "comm %d got %d", idx[k], v);
    }
    for (int i = 0; i < NLIVE; i++)
        MPI_Comm_free(&c[i]);

    /* exhaustion: creations eventually fail with a clean error, and freeing recovers */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = 0, err = MPI_SUCCESS;
    while (n < 40000 && (err = MPI_Comm_dup(MPI_COMM_WORLD, &c[n])) == MPI_SUCCESS)
        n++;
    CHECK(n >= 30000 && n < 40000, "created %d before exhaustion", n);
    int cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OTHER, "exhaustion class %d", cls);
    MPI_Comm_free(&c[n / 2]);
    MPI_Comm extra;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &extra) == MPI_SUCCESS, "dup after free failed");
    c[n / 2] = extra;
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&c[i]);
    free(c);
    MPI_Finalize();
    return 0;
}

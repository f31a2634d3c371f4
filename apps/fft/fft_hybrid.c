/* fft_hybrid.c -- FFT, hybrid form: shared-window transposes inside a node, MPI_Ialltoallv between nodes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: the six-step FFT of N = m * m complex points (fft.h), rows divided into blocks
 * over all ranks.  Each node keeps its ranks' rows in shared windows.  A transpose takes the
 * blocks of ranks on the same node by reading their rows directly (as fft_sas does) and the
 * blocks of ranks on other nodes by message (as fft_mpi does).  Communication: per transpose
 * one MPI_Ialltoallv in which only pairs on different nodes have data, overlapped with the
 * loads from the node's shared memory; a node barrier (MPI_Win_sync + MPI_Barrier +
 * MPI_Win_sync) before each transpose makes the node's rows complete.  On one node there is
 * nothing to send and the program behaves like fft_sas; --node-size K makes nodes of K ranks.
 *
 * usage: mpiexec -n P fft_hybrid [--n N (a power of 4, default 65536)] [--reps R] [--node-size K]
 */
#include "fft.h"
#include "../common/app.h"
#include <stdio.h>
#include <string.h>

static MPI_Comm node;
static int *node_rank;            /* world rank -> rank in my node, -1 elsewhere */
static MPI_Datatype cplx_type;
static int *counts, *displs;      /* per peer, in complex numbers; 0 for peers on my node */
static cplx *sendbuf, *recvbuf;

/* a shared matrix: my rows and every on-node peer's rows */
typedef struct matrix { cplx *mine, **rows_of; } matrix;

static matrix shared_matrix(long mine)
{
    matrix a;
    cplx *array = app_shared(node, (MPI_Aint)(sizeof(cplx) * (size_t)mine));
    a.rows_of = app_alloc(sizeof(cplx *) * (size_t)app.size);
    for (int q = 0; q < app.size; q++)
        a.rows_of[q] = node_rank[q] >= 0 ? app_part(array, node_rank[q]) : NULL;
    a.mine = a.rows_of[app.rank];
    return a;
}

static void transpose(const fft_plan *p, const matrix *src, const matrix *dst)
{
    long mine = p->hi - p->lo;
    MPI_Request req;
    app_node_barrier(node);
    for (int q = 0; q < app.size; q++) {
        long qlo = app_lo(p->m, app.size, q), qhi = app_lo(p->m, app.size, q + 1);
        if (node_rank[q] < 0) fft_transpose(src->mine + qlo, p->m, sendbuf + displs[q], mine, mine, qhi - qlo);
    }
    app_phase(APP_RMEM);
    MPI_Ialltoallv(sendbuf, counts, displs, cplx_type, recvbuf, counts, displs, cplx_type,
                   MPI_COMM_WORLD, &req);
    for (int q = 0; q < app.size; q++) {     /* my columns of on-node rows, read in place */
        long qlo = app_lo(p->m, app.size, q), qhi = app_lo(p->m, app.size, q + 1);
        if (node_rank[q] < 0) continue;
        fft_transpose(src->rows_of[q] + p->lo, p->m, dst->mine + qlo, p->m, qhi - qlo, mine);
        if (q != app.rank) app_count(0, (long)sizeof(cplx) * (qhi - qlo) * mine);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    app_phase(APP_LOCAL);
    for (int q = 0; q < app.size; q++) {
        long qlo = app_lo(p->m, app.size, q), width = app_lo(p->m, app.size, q + 1) - qlo;
        if (node_rank[q] >= 0) continue;
        for (long r = 0; r < mine; r++)
            memcpy(dst->mine + r * p->m + qlo, recvbuf + displs[q] + r * width, sizeof(cplx) * (size_t)width);
        if (counts[q] > 0) app_count(1, (long)sizeof(cplx) * counts[q]);
    }
}

static void forward(const fft_plan *p, const matrix *x, const matrix *y)   /* y = FFT(x) */
{
    transpose(p, x, y);
    fft_rows(p, y->mine);
    fft_twiddle(p, y->mine);
    transpose(p, y, x);
    fft_rows(p, x->mine);
    transpose(p, x, y);
}

static void inverse(const fft_plan *p, const matrix *y, const matrix *x)
{
    long mine = (p->hi - p->lo) * p->m;
    fft_conj(y->mine, mine, 1.0);
    forward(p, y, x);
    fft_conj(x->mine, mine, 1.0 / (double)p->n);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "fft", "hybrid");
    long n = app_arg("--n", 1L << 16);
    fft_plan p;
    if (!fft_plan_init(&p, n, app.size, app.rank)) app_refuse("--n must be a power of 4");
    long mine = (p.hi - p.lo) * p.m, first = p.lo * p.m;

    node = app_node_comm(MPI_COMM_WORLD);
    node_rank = app_node_ranks(node);
    MPI_Type_contiguous(2, MPI_DOUBLE, &cplx_type);
    MPI_Type_commit(&cplx_type);
    counts = app_alloc(sizeof(int) * (size_t)app.size);
    displs = app_alloc(sizeof(int) * (size_t)app.size);
    for (int q = 0, at = 0; q < app.size; q++) {
        long rows_q = app_lo(p.m, app.size, q + 1) - app_lo(p.m, app.size, q);
        counts[q] = node_rank[q] >= 0 ? 0 : (int)((p.hi - p.lo) * rows_q);
        displs[q] = at;
        at += counts[q];
    }
    matrix x = shared_matrix(mine), y = shared_matrix(mine);
    sendbuf = app_alloc(sizeof(cplx) * (size_t)mine);
    recvbuf = app_alloc(sizeof(cplx) * (size_t)mine);

    fft_input(x.mine, first, mine);         /* warm-up, and a check of the forward transform */
    forward(&p, &x, &y);
    app_verify("forward-vs-direct-DFT", fft_spot_error(y.mine, first, mine, n), 1e-9);

    for (int rep = 0; rep < app.reps; rep++) {
        fft_input(x.mine, first, mine);
        app_rep_begin();
        forward(&p, &x, &y);
        inverse(&p, &y, &x);
        app_rep_end();
    }
    app_verify("inverse-transform-error", fft_input_error(x.mine, first, mine), 1e-10);

    char size[80];
    snprintf(size, sizeof size, "N=%ld points, forward + inverse", n);
    free(x.rows_of); free(y.rows_of); free(sendbuf); free(recvbuf); free(counts); free(displs);
    free(node_rank);
    fft_plan_free(&p);
    MPI_Type_free(&cplx_type);
    return app_finish(size);
}

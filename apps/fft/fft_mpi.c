/* fft_mpi.c -- FFT, message-passing form: the six-step 1-D FFT with MPI_Alltoallv transposes.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: the six-step FFT of N = m * m complex points (fft.h): the vector is an m x m
 * matrix whose rows are divided into blocks, one block per rank; row FFTs and twiddle
 * factors are local, and each of the three transposes is one all-to-all personalized
 * exchange.  Communication: MPI_Alltoallv, three per transform.  Rank r sends rank q the
 * (rows of r) x (rows of q) block of its matrix, packed already transposed so that the
 * receiver only copies rows into place; every rank sends exactly one message to every other.
 *
 * The run transforms forward and back (the inverse is the forward transform of conjugated
 * data) and checks the round trip against the input, after checking a first forward
 * transform against direct sums at a few frequencies.
 *
 * usage: mpiexec -n P fft_mpi [--n N (a power of 4, default 65536)] [--reps R]
 */
#include "fft.h"
#include "../common/app.h"
#include <stdio.h>
#include <string.h>

static MPI_Datatype cplx_type;   /* two doubles */
static int *counts, *displs;     /* per peer, in complex numbers: the same both ways */
static cplx *sendbuf, *recvbuf;

/* dst = the transpose of src; both are m x m matrices of which this rank holds rows [lo, hi) */
static void transpose(const fft_plan *p, const cplx *src, cplx *dst)
{
    long mine = p->hi - p->lo;
    for (int q = 0; q < app.size; q++) {
        long qlo = app_lo(p->m, app.size, q), qhi = app_lo(p->m, app.size, q + 1);
        fft_transpose(src + qlo, p->m, sendbuf + displs[q], mine, mine, qhi - qlo);
    }
    app_phase(APP_RMEM);
    MPI_Alltoallv(sendbuf, counts, displs, cplx_type, recvbuf, counts, displs, cplx_type, MPI_COMM_WORLD);
    app_phase(APP_LOCAL);
    for (int q = 0; q < app.size; q++) {
        long qlo = app_lo(p->m, app.size, q), width = app_lo(p->m, app.size, q + 1) - qlo;
        for (long r = 0; r < mine; r++)
            memcpy(dst + r * p->m + qlo, recvbuf + displs[q] + r * width, sizeof(cplx) * (size_t)width);
        if (q != app.rank && counts[q] > 0) app_count(1, (long)sizeof(cplx) * counts[q]);
    }
}

static void forward(const fft_plan *p, cplx *x, cplx *y)   /* y = FFT(x); x is overwritten */
{
    transpose(p, x, y);
    fft_rows(p, y);
    fft_twiddle(p, y);
    transpose(p, y, x);
    fft_rows(p, x);
    transpose(p, x, y);
}

static void inverse(const fft_plan *p, cplx *y, cplx *x)   /* x = FFT^-1(y); y is overwritten */
{
    long mine = (p->hi - p->lo) * p->m;
    fft_conj(y, mine, 1.0);
    forward(p, y, x);
    fft_conj(x, mine, 1.0 / (double)p->n);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "fft", "mpi");
    long n = app_arg("--n", 1L << 16);
    fft_plan p;
    if (!fft_plan_init(&p, n, app.size, app.rank)) app_refuse("--n must be a power of 4");
    long mine = (p.hi - p.lo) * p.m, first = p.lo * p.m;

    MPI_Type_contiguous(2, MPI_DOUBLE, &cplx_type);
    MPI_Type_commit(&cplx_type);
    counts = app_alloc(sizeof(int) * (size_t)app.size);
    displs = app_alloc(sizeof(int) * (size_t)app.size);
    for (int q = 0, at = 0; q < app.size; q++) {
        counts[q] = (int)((p.hi - p.lo) * (app_lo(p.m, app.size, q + 1) - app_lo(p.m, app.size, q)));
        displs[q] = at;
        at += counts[q];
    }
    cplx *x = app_alloc(sizeof(cplx) * (size_t)mine), *y = app_alloc(sizeof(cplx) * (size_t)mine);
    sendbuf = app_alloc(sizeof(cplx) * (size_t)mine);
    recvbuf = app_alloc(sizeof(cplx) * (size_t)mine);

    fft_input(x, first, mine);              /* warm-up, and a check of the forward transform */
    forward(&p, x, y);
    app_verify("forward-vs-direct-DFT", fft_spot_error(y, first, mine, n), 1e-9);

    for (int rep = 0; rep < app.reps; rep++) {
        fft_input(x, first, mine);
        app_rep_begin();
        forward(&p, x, y);
        inverse(&p, y, x);
        app_rep_end();
    }
    app_verify("inverse-transform-error", fft_input_error(x, first, mine), 1e-10);

    char size[80];
    snprintf(size, sizeof size, "N=%ld points, forward + inverse", n);
    free(x); free(y); free(sendbuf); free(recvbuf); free(counts); free(displs);
    fft_plan_free(&p);
    MPI_Type_free(&cplx_type);
    return app_finish(size);
}

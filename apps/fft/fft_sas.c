/* fft_sas.c -- FFT, shared-address-space form: the six-step 1-D FFT on matrices in a shared window.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Algorithm: the six-step FFT of N = m * m complex points (fft.h), as in SPLASH-2: both
 * m x m matrices live in shared windows (MPI_Win_allocate_shared, each rank contributing its
 * block of rows, so the window is one contiguous matrix), and a rank transposes by reading
 * its columns straight out of every other rank's rows.  Communication: loads from the other
 * ranks' memory during the three transposes; synchronization: a node barrier
 * (MPI_Win_sync + MPI_Barrier + MPI_Win_sync) before each transpose, so the rows it reads
 * are complete.  Runs on one node.
 *
 * usage: mpiexec -n P fft_sas [--n N (a power of 4, default 65536)] [--reps R]
 */
#include "fft.h"
#include "../common/app.h"
#include <stdio.h>

static MPI_Comm node;

/* my rows of dst = the transpose of the whole shared matrix src */
static void transpose(const fft_plan *p, const cplx *src, cplx *dst_mine)
{
    long mine = p->hi - p->lo;
    app_node_barrier(node);
    app_phase(APP_RMEM);
    fft_transpose(src + p->lo, p->m, dst_mine, p->m, p->m, mine);
    app_phase(APP_LOCAL);
    app_count(0, (long)sizeof(cplx) * (p->m - mine) * mine);
}

/* Y = FFT(X), both whole shared matrices; X is overwritten */
static void forward(const fft_plan *p, cplx *X, cplx *Y)
{
    cplx *x = X + p->lo * p->m, *y = Y + p->lo * p->m;   /* my rows */
    transpose(p, X, y);
    fft_rows(p, y);
    fft_twiddle(p, y);
    transpose(p, Y, x);
    fft_rows(p, x);
    transpose(p, X, y);
}

static void inverse(const fft_plan *p, cplx *Y, cplx *X)
{
    long mine = (p->hi - p->lo) * p->m;
    fft_conj(Y + p->lo * p->m, mine, 1.0);
    forward(p, Y, X);
    fft_conj(X + p->lo * p->m, mine, 1.0 / (double)p->n);
}

int main(int argc, char **argv)
{
    app_init(&argc, &argv, "fft", "sas");
    long n = app_arg("--n", 1L << 16);
    node = app_one_node();
    fft_plan p;
    if (!fft_plan_init(&p, n, app.size, app.rank)) app_refuse("--n must be a power of 4");
    long mine = (p.hi - p.lo) * p.m, first = p.lo * p.m;
    cplx *X = app_shared(node, (MPI_Aint)(sizeof(cplx) * (size_t)mine));
    cplx *Y = app_shared(node, (MPI_Aint)(sizeof(cplx) * (size_t)mine));

    fft_input(X + first, first, mine);      /* warm-up, and a check of the forward transform */
    forward(&p, X, Y);
    app_verify("forward-vs-direct-DFT", fft_spot_error(Y + first, first, mine, n), 1e-9);

    for (int rep = 0; rep < app.reps; rep++) {
        fft_input(X + first, first, mine);
        app_rep_begin();
        forward(&p, X, Y);
        inverse(&p, Y, X);
        app_rep_end();
    }
    app_verify("inverse-transform-error", fft_input_error(X + first, first, mine), 1e-10);

    char size[80];
    snprintf(size, sizeof size, "N=%ld points, forward + inverse", n);
    fft_plan_free(&p);
    return app_finish(size);
}

/* fft.h -- the sequential pieces of the six-step FFT that its three forms share.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The six-step algorithm (Bailey) computes a 1-D FFT of N = m * m points by viewing the
 * vector as an m x m matrix A[j2][j1] = x[j2 * m + j1]:
 *   1. transpose;  2. an FFT of length m along every row;  3. multiply element (j1, k2) by
 *   the twiddle factor w_N^(j1 k2);  4. transpose;  5. row FFTs again;  6. transpose.
 * The result is in natural order, F[k1][k2] = X[k1 * m + k2].  Every rank owns the same block
 * of rows [lo, hi) of every matrix, so the row FFTs and the twiddles are local and only the
 * three transposes communicate: an all-to-all personalized exchange of (rows of mine) x
 * (rows of yours) blocks.  The inverse transform is the forward one applied to conjugated
 * data (conjugate, transform, conjugate, divide by N).
 */
#ifndef APPS_FFT_H
#define APPS_FFT_H

typedef struct cplx { double re, im; } cplx;

typedef struct fft_plan {
    long n, m;        /* N points, viewed as an m x m matrix */
    long lo, hi;      /* this rank's rows of every matrix */
    cplx *roots;      /* e^(-2 pi i t / m), t < m/2: the butterflies of the row FFTs */
    cplx *twiddle;    /* w_N^(j1 k2) for j1 in [lo, hi), k2 < m */
} fft_plan;

/* n must be a power of 4 (checked: returns 0 on a bad size) */
int fft_plan_init(fft_plan *p, long n, int nranks, int rank);
void fft_plan_free(fft_plan *p);
void fft_rows(const fft_plan *p, cplx *rows);       /* steps 2 and 5 on my rows, in place */
void fft_twiddle(const fft_plan *p, cplx *rows);    /* step 3 on my rows */
/* dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols (cache tiles) */
void fft_transpose(const cplx *src, long src_stride, cplx *dst, long dst_stride, long rows, long cols);
void fft_conj(cplx *x, long count, double scale);   /* x = conj(x) * scale */
void fft_input(cplx *x, long first, long count);    /* the test signal x[first .. first+count) */
double fft_input_error(const cplx *x, long first, long count);   /* max |x - signal| */
/* Largest |X[k] - direct DFT(k)| / sqrt(N) over a few fixed frequencies k held in
 * y[0 .. count) (global indices first ..); the direct sums are O(N) each. */
double fft_spot_error(const cplx *y, long first, long count, long n);

#endif

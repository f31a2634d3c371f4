/* fft.c -- row FFTs, twiddles, tiled transposes and verification of the six-step FFT.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Nothing here communicates: these are the local steps every form of the application runs
 * on its own rows (fft.h explains the algorithm).  The row FFT is an iterative radix-2
 * Cooley-Tukey transform with a bit-reversal permutation and a table of roots; the twiddle
 * factors of step 3 are precomputed for the rank's rows, as the SPLASH-2 code does.  Angles
 * are reduced exactly in integers (j * k mod N) before sin/cos, so the factors are accurate
 * to the last bit at every N.  The test signal is a hash of the global index, so every rank
 * count transforms the same vector.
 */
#include "fft.h"
#include "../common/app.h"
#include <math.h>
#include <string.h>

static cplx root_of_unity(long t, long n)   /* e^(-2 pi i t / n), 0 <= t < n */
{
    double a = -2.0 * APP_PI * (double)t / (double)n;
    return (cplx){ cos(a), sin(a) };
}

int fft_plan_init(fft_plan *p, long n, int nranks, int rank)
{
    long m = 1;
    while (m * m < n) m *= 2;
    if (n < 4 || m * m != n) return 0;
    p->n = n;
    p->m = m;
    p->lo = app_lo(m, nranks, rank);
    p->hi = app_lo(m, nranks, rank + 1);
    p->roots = app_alloc(sizeof(cplx) * (size_t)(m / 2));
    for (long t = 0; t < m / 2; t++) p->roots[t] = root_of_unity(t, m);
    p->twiddle = app_alloc(sizeof(cplx) * (size_t)((p->hi - p->lo) * m));
    for (long j1 = p->lo; j1 < p->hi; j1++)
        for (long k2 = 0; k2 < m; k2++)
            p->twiddle[(j1 - p->lo) * m + k2] = root_of_unity(j1 * k2 % n, n);
    return 1;
}

void fft_plan_free(fft_plan *p)
{
    free(p->roots);
    free(p->twiddle);
}

static void fft_one(const fft_plan *p, cplx *x)
{
    long m = p->m;
    for (long i = 1, j = 0; i < m; i++) {       /* bit-reversal permutation */
        long bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { cplx t = x[i]; x[i] = x[j]; x[j] = t; }
    }
    for (long len = 2; len <= m; len <<= 1) {
        long half = len >> 1, step = m / len;
        for (long s = 0; s < m; s += len)
            for (long k = 0; k < half; k++) {
                cplx w = p->roots[k * step], *a = &x[s + k], *b = &x[s + k + half];
                double tr = b->re * w.re - b->im * w.im, ti = b->re * w.im + b->im * w.re;
                b->re = a->re - tr; b->im = a->im - ti;
                a->re += tr; a->im += ti;
            }
    }
}

void fft_rows(const fft_plan *p, cplx *rows)
{
    for (long r = 0; r < p->hi - p->lo; r++) fft_one(p, rows + r * p->m);
}

void fft_twiddle(const fft_plan *p, cplx *rows)
{
    long count = (p->hi - p->lo) * p->m;
    for (long i = 0; i < count; i++) {
        cplx a = rows[i], w = p->twiddle[i];
        rows[i] = (cplx){ a.re * w.re - a.im * w.im, a.re * w.im + a.im * w.re };
    }
}

void fft_transpose(const cplx *src, long src_stride, cplx *dst, long dst_stride, long rows, long cols)
{
    enum { TILE = 32 };
    for (long r0 = 0; r0 < rows; r0 += TILE)
        for (long c0 = 0; c0 < cols; c0 += TILE) {
            long r1 = r0 + TILE < rows ? r0 + TILE : rows, c1 = c0 + TILE < cols ? c0 + TILE : cols;
            for (long r = r0; r < r1; r++)
                for (long c = c0; c < c1; c++) dst[c * dst_stride + r] = src[r * src_stride + c];
        }
}

void fft_conj(cplx *x, long count, double scale)
{
    for (long i = 0; i < count; i++) x[i] = (cplx){ x[i].re * scale, -x[i].im * scale };
}

static cplx signal(long j)
{
    return (cplx){ app_unit(2 * (uint64_t)j) - 0.5, app_unit(2 * (uint64_t)j + 1) - 0.5 };
}

void fft_input(cplx *x, long first, long count)
{
    for (long i = 0; i < count; i++) x[i] = signal(first + i);
}

double fft_input_error(const cplx *x, long first, long count)
{
    double worst = 0;
    for (long i = 0; i < count; i++) {
        cplx s = signal(first + i);
        double e = hypot(x[i].re - s.re, x[i].im - s.im);
        if (e > worst) worst = e;
    }
    return worst;
}

double fft_spot_error(const cplx *y, long first, long count, long n)
{
    const long spots[] = { 0, 1, 7, n / 2 + 3, 2 * n / 3, n - 1 };
    double worst = 0;
    for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++) {
        long k = spots[s];
        if (k < first || k >= first + count) continue;
        double re = 0, im = 0;
        for (long j = 0; j < n; j++) {
            cplx x = signal(j), w = root_of_unity((long)((unsigned long)j * (unsigned long)k % (unsigned long)n), n);
            re += x.re * w.re - x.im * w.im;
            im += x.re * w.im + x.im * w.re;
        }
        double e = hypot(y[k - first].re - re, y[k - first].im - im) / sqrt((double)n);
        if (e > worst) worst = e;
    }
    return worst;
}

/* topo.c -- topology descriptions attached to communicators.  MemPI, BSD-3-Clause (see LICENSE). */
/*
 * comm->topo describes a cartesian grid (dims, periods; coordinates are computed from the
 * rank, row-major as the standard says), a graph (the whole index/edges arrays, as
 * MPI_Graph_create gives them, so MPI_Graph_get can return them), or this process's part of
 * a distributed graph (its in and out neighbours with weights).  The bindings
 * (binding/topo.c) create and query these; the collective layer reads neighbour lists
 * through mp_topo_neighbors().
 *
 * mp_dims_balanced (MPI_Dims_create) searches the non-increasing factorisations of n
 * exhaustively, with pruning, over the divisors of n only (at most 1600 for an int), so a
 * large prime costs a square-root trial division and not a loop over every candidate.
 * "As close to each other as possible" is not defined further by the standard; MemPI takes
 * the smallest spread (largest minus smallest factor), then the smallest sum, then the
 * lexicographically largest: 15984 in 4 dimensions is 37 x 9 x 8 x 6 (spread 31, sum 60),
 * not 37 x 12 x 6 x 6 (spread 31, sum 61), and 360 in 3 is 10 x 6 x 6 (spread 4, sum 22)
 * rather than 9 x 8 x 5.  This is what MPICH returns for every n <= 20000 and up to six
 * dimensions, so programs ported from it get the same grids.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <math.h>
#include <string.h>

static int *dup_ints(const int *src, int n)
{
    if (!src)
        return NULL;
    int *dst = mp_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (n > 0)
        memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

void mp_topo_free(mp_topo *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->in);
    free(t->inw);
    free(t->out);
    free(t->outw);
    free(t);
}

mp_topo *mp_topo_copy(const mp_topo *t)
{
    if (!t)
        return NULL;
    mp_topo *c = mp_malloc(sizeof *c);
    *c = *t;
    c->dims = dup_ints(t->dims, t->ndims);
    c->periods = dup_ints(t->periods, t->ndims);
    c->index = dup_ints(t->index, t->nnodes);
    c->edges = dup_ints(t->edges, t->nedges);
    c->in = dup_ints(t->in, t->indeg);
    c->inw = dup_ints(t->inw, t->indeg);
    c->out = dup_ints(t->out, t->outdeg);
    c->outw = dup_ints(t->outw, t->outdeg);
    return c;
}

void mp_cart_coords_of(const mp_topo *t, int rank, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = t->dims[d] ? rank % t->dims[d] : 0;
        rank = t->dims[d] ? rank / t->dims[d] : 0;
    }
}

/* Row-major rank of coords; periodic dimensions wrap, others must be in range.  Returns
 * MPI_ERR_ARG (with *rank unset) for an out-of-range coordinate of a non-periodic dim. */
int mp_cart_rank_of(const mp_topo *t, const int *coords, int *rank)
{
    int r = 0;
    for (int d = 0; d < t->ndims; d++) {
        int c = coords[d], n = t->dims[d];
        if (t->periods[d]) {
            c %= n;
            if (c < 0)
                c += n;
        } else if (c < 0 || c >= n) {
            return MPI_ERR_ARG;
        }
        r = r * n + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

/* Neighbours of `rank` in dimension d at displacement disp (MPI_PROC_NULL off an open edge). */
int mp_cart_shift_of(const mp_topo *t, int rank, int d, int disp, int *src, int *dst)
{
    int *coords = mp_malloc(sizeof(int) * (size_t)(t->ndims ? t->ndims : 1));
    mp_cart_coords_of(t, rank, coords);
    int orig = coords[d];
    coords[d] = orig + disp;
    if (mp_cart_rank_of(t, coords, dst))
        *dst = MPI_PROC_NULL;
    coords[d] = orig - disp;
    if (mp_cart_rank_of(t, coords, src))
        *src = MPI_PROC_NULL;
    free(coords);
    return MPI_SUCCESS;
}

int mp_topo_neighbors(mp_comm *comm, int *indeg, int **in, int *outdeg, int **out)
{
    mp_topo *t = comm->topo;
    if (!t)
        return MPI_ERR_TOPOLOGY;
    if (t->kind == MPI_CART) {
        int n = 2 * t->ndims;
        *in = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
        *out = mp_malloc(sizeof(int) * (size_t)(n ? n : 1));
        for (int d = 0; d < t->ndims; d++) {
            int src, dst;
            mp_cart_shift_of(t, comm->rank, d, 1, &src, &dst);
            /* order per dimension: the -1 neighbour, then the +1 neighbour */
            (*in)[2 * d] = src;
            (*in)[2 * d + 1] = dst;
            (*out)[2 * d] = src;
            (*out)[2 * d + 1] = dst;
        }
        *indeg = *outdeg = n;
    } else if (t->kind == MPI_GRAPH) {
        int first = comm->rank ? t->index[comm->rank - 1] : 0;
        int n = t->index[comm->rank] - first;
        *in = dup_ints(t->edges + first, n);
        *out = dup_ints(t->edges + first, n);
        if (!*in) {
            *in = mp_malloc(sizeof(int));
            *out = mp_malloc(sizeof(int));
        }
        *indeg = *outdeg = n;
    } else {
        *in = t->indeg ? dup_ints(t->in, t->indeg) : mp_malloc(sizeof(int));
        *out = t->outdeg ? dup_ints(t->out, t->outdeg) : mp_malloc(sizeof(int));
        *indeg = t->indeg;
        *outdeg = t->outdeg;
    }
    return MPI_SUCCESS;
}

typedef struct dims_search {
    const int *div;                   /* the divisors of n, increasing */
    int ndiv;
    int *cur, *best, k;
    long long spread, sum;            /* of best; spread < 0 while none was found */
} dims_search;

/* b^e, or cap + 1 when that exceeds cap */
static long long pow_capped(long long b, int e, long long cap)
{
    long long r = 1;
    for (int i = 0; i < e; i++) {
        if (r > cap / (b ? b : 1))
            return cap + 1;
        r *= b;
    }
    return r;
}

/* floor(m^(1/k)) for m >= 1 */
static int root_floor(int m, int k)
{
    int r = (int)pow((double)m, 1.0 / k);
    while (r > 1 && pow_capped(r, k, m) > m)
        r--;
    while (pow_capped(r + 1, k, m) <= m)
        r++;
    return r;
}

static void dims_offer(dims_search *s, long long sum)
{
    long long spread = (long long)s->cur[0] - s->cur[s->k - 1];
    int better = s->spread < 0 || spread < s->spread || (spread == s->spread && sum < s->sum);
    if (!better && spread == s->spread && sum == s->sum)
        for (int i = 0; i < s->k; i++)
            if (s->cur[i] != s->best[i]) {
                better = s->cur[i] > s->best[i];
                break;
            }
    if (better) {
        s->spread = spread;
        s->sum = sum;
        memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
    }
}

/* The factors cur[depth..] of m, k of them, non-increasing, each <= limit.  No factor may be
 * below lo = cur[0] - best spread (a candidate that reaches the best spread still competes on
 * sum), so d is at most m / lo^(k-1) and at least the k-th root of m. */
static void dims_step(dims_search *s, int m, int k, int limit, int depth, long long sum)
{
    long long lo = s->spread < 0 ? 1 : s->cur[0] - s->spread;
    if (lo < 1)
        lo = 1;
    if (k == 1) {
        if (m <= limit && m >= lo) {
            s->cur[depth] = m;
            dims_offer(s, sum + m);
        }
        return;
    }
    long long hi = m / pow_capped(lo, k - 1, m);
    int low = root_floor(m, k);
    if (pow_capped(low, k, m) < m)
        low++;
    for (int j = s->ndiv - 1; j >= 0; j--) {
        int d = s->div[j];
        if (d < low || d < lo)
            break;
        if (d > limit || d > hi || m % d)
            continue;
        s->cur[depth] = d;
        dims_step(s, m / d, k - 1, d, depth + 1, sum + d);
        lo = s->spread < 0 ? 1 : s->cur[0] - s->spread;   /* the best may have improved */
    }
}

void mp_dims_balanced(int n, int k, int *dims)
{
    /* An int has at most 30 prime factors, so beyond 31 factors the rest are 1 in every
     * candidate; cutting there keeps the recursion shallow for any ndims. */
    for (; k > 31; k--)
        dims[k - 1] = 1;
    if (k == 1) {
        dims[0] = n;
        return;
    }
    int *low = mp_malloc(sizeof(int) * 1600), *high = mp_malloc(sizeof(int) * 1600);
    int nlow = 0, nhigh = 0;
    for (int d = 1; (long long)d * d <= n; d++)
        if (n % d == 0) {
            low[nlow++] = d;                /* increasing */
            if (d != n / d)
                high[nhigh++] = n / d;      /* decreasing */
        }
    int *div = mp_malloc(sizeof(int) * (size_t)(nlow + nhigh)), ndiv = 0;
    for (int i = 0; i < nlow; i++)
        div[ndiv++] = low[i];
    for (int i = nhigh - 1; i >= 0; i--)
        div[ndiv++] = high[i];
    dims_search s = { .div = div, .ndiv = ndiv, .cur = mp_malloc(sizeof(int) * (size_t)k),
                      .best = dims, .k = k, .spread = -1 };
    /* The largest factor goes up from the k-th root; the smallest factor is at most the
     * (k-1)-th root of what the largest leaves, so once the largest minus that root exceeds
     * the best spread, no larger first factor can do better. */
    int first = root_floor(n, k);
    if (pow_capped(first, k, n) < n)
        first++;
    for (int j = 0; j < ndiv; j++) {
        int d = div[j];
        if (d < first)
            continue;
        if (s.spread >= 0 && d - root_floor(n / d, k - 1) > s.spread)
            break;
        s.cur[0] = d;
        dims_step(&s, n / d, k - 1, d, 1, d);
    }
    free(s.cur);
    free(div);
    free(high);
    free(low);
}

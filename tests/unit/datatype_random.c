/* datatype_random.c -- random nested datatypes checked against a reference interpreter.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * The reference interpreter is deliberately naive: every type is expanded to its explicit
 * type map, a list of (offset, length) pieces in order, by enumerating every instance of
 * every constructor exactly as the MPI standard defines it, and bounds are computed from the
 * definitions (sticky MPI_LB/MPI_UB markers, resized bounds, struct padding).  Subarray and
 * darray are enumerated from their definitions too (walk every global index, keep the owned
 * ones), independently of how the engine builds them.
 *
 * Random types nest up to depth 4 with negative strides, resized extents (smaller and larger
 * than the data), struct of vectors of indexed, bound markers, pair types and zero counts.
 * For each type and a few counts the test compares: size, lb, extent, true bounds; pack of
 * the whole stream; pack of random byte ranges; pack in random chunkings (resume at any
 * offset); unpack in random chunk orders; segment lists with small limits, resumed; copy
 * between two random types; external32 round trip; wire encoding round trip.
 *
 * Usage: datatype_random [iterations] [seed]
 */
#include "datatype/engine.h"
#include <stdlib.h>
#include <string.h>

static int failures;
#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

static unsigned long long rng_state;
static unsigned rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33);
}
static long rrange(long lo, long hi) { return lo + (long)(rnd() % (unsigned)(hi - lo + 1)); }

/* ---------------------------------------------------------------------------------------------
 * Reference type maps
 * ------------------------------------------------------------------------------------------- */
typedef struct piece { long off, len; } piece;
typedef struct rtype {
    piece *map;
    long n;                           /* pieces */
    long size, lb, ub, align;
    int has_lb, has_ub;
    mp_datatype *dt;                  /* the engine's type */
    char desc[160];
} rtype;

#define MAX_PIECES 30000

static void map_add(rtype *r, long off, long len)
{
    r->map = realloc(r->map, (size_t)(r->n + 1) * sizeof(piece));
    r->map[r->n++] = (piece){ off, len };
}

/* Appends one instance of child at displacement d. */
static void place(rtype *r, const rtype *c, long d)
{
    r->map = realloc(r->map, (size_t)(r->n + c->n + 1) * sizeof(piece));
    for (long i = 0; i < c->n; i++)
        r->map[r->n++] = (piece){ c->map[i].off + d, c->map[i].len };
    r->size += c->size;
}

/* Bound bookkeeping for one instance of child at d. */
typedef struct bounds { long lb, ub, mlb, mub; int any, has_lb, has_ub; long align; } bounds;
static void bound_add(bounds *b, const rtype *c, long d)
{
    long lo = d + c->lb, hi = d + c->ub;
    b->lb = b->any ? (lo < b->lb ? lo : b->lb) : lo;
    b->ub = b->any ? (hi > b->ub ? hi : b->ub) : hi;
    b->any = 1;
    if (c->has_lb) { b->mlb = b->has_lb ? (lo < b->mlb ? lo : b->mlb) : lo; b->has_lb = 1; }
    if (c->has_ub) { b->mub = b->has_ub ? (hi > b->mub ? hi : b->mub) : hi; b->has_ub = 1; }
    if (c->align > b->align) b->align = c->align;
}
static void bound_marker(bounds *b, int is_ub, long d)
{
    if (is_ub) { b->mub = b->has_ub ? (d > b->mub ? d : b->mub) : d; b->has_ub = 1; }
    else { b->mlb = b->has_lb ? (d < b->mlb ? d : b->mlb) : d; b->has_lb = 1; }
}
static void bound_finish(rtype *r, bounds *b, int pad)
{
    r->lb = b->has_lb ? b->mlb : (b->any ? b->lb : (b->has_ub ? (b->mub < 0 ? b->mub : 0) : 0));
    r->ub = b->has_ub ? b->mub : (b->any ? b->ub : (r->lb > 0 ? r->lb : 0));
    r->has_lb = b->has_lb;
    r->has_ub = b->has_ub;
    r->align = b->align ? b->align : 1;
    if (pad && !b->has_ub) {
        long ext = r->ub - r->lb, rem = ext % r->align;
        if (rem)
            r->ub += r->align - rem;
    }
}

static rtype *rnew(void) { return calloc(1, sizeof(rtype)); }
static void rfree(rtype *r)
{
    if (!r)
        return;
    free(r->map);
    mp_datatype_release(r->dt);
    free(r);
}
static long rext(const rtype *r) { return r->ub - r->lb; }

static rtype *basic(void)
{
    static const MPI_Datatype types[] = { MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_INT,
                                          MPI_DOUBLE, MPI_SHORT_INT, MPI_DOUBLE_INT };
    MPI_Datatype h = types[rnd() % 8];
    rtype *r = rnew();
    r->dt = mp_datatype_get(h);
    if (h == MPI_SHORT_INT) {
        map_add(r, 0, 2);
        map_add(r, 4, 4);
        r->size = 6; r->ub = 8; r->align = 4;
    } else if (h == MPI_DOUBLE_INT) {
        map_add(r, 0, 8);
        map_add(r, 8, 4);
        r->size = 12; r->ub = 16; r->align = 8;
    } else {
        map_add(r, 0, r->dt->size);
        r->size = r->ub = r->align = r->dt->size;
    }
    snprintf(r->desc, sizeof r->desc, "%s", r->dt->name);
    return r;
}

static rtype *gen(int depth);

static rtype *gen_vector(int depth)
{
    rtype *c = gen(depth - 1);
    long count = rrange(0, 5), bl = rrange(0, 3);
    long stride = rnd() % 2 ? rrange(-4, 6) * rext(c) : rrange(-40, 60);
    rtype *r = rnew();
    bounds b = { 0 };
    for (long i = 0; i < count; i++)
        for (long j = 0; j < bl; j++) {
            place(r, c, i * stride + j * rext(c));
            bound_add(&b, c, i * stride + j * rext(c));
        }
    bound_finish(r, &b, 0);
    r->dt = mp_type_hvector(count, bl, stride, c->dt);
    snprintf(r->desc, sizeof r->desc, "hvector(%ld,%ld,%ld,%.100s)", count, bl, stride, c->desc);
    rfree(c);
    return r;
}

static rtype *gen_contig(int depth)
{
    rtype *c = gen(depth - 1);
    long count = rrange(0, 4);
    rtype *r = rnew();
    bounds b = { 0 };
    for (long i = 0; i < count; i++) {
        place(r, c, i * rext(c));
        bound_add(&b, c, i * rext(c));
    }
    bound_finish(r, &b, 0);
    r->dt = mp_type_contiguous(count, c->dt);
    snprintf(r->desc, sizeof r->desc, "contig(%ld,%.120s)", count, c->desc);
    rfree(c);
    return r;
}

static rtype *gen_indexed(int depth)
{
    rtype *c = gen(depth - 1);
    long count = rrange(1, 5);
    MPI_Aint bl[5], d[5];
    int same = rnd() % 3 == 0;
    rtype *r = rnew();
    bounds b = { 0 };
    for (long i = 0; i < count; i++) {
        bl[i] = same ? 2 : rrange(0, 3);
        d[i] = rnd() % 2 ? rrange(-3, 6) * rext(c) : rrange(-64, 64);
        for (long j = 0; j < bl[i]; j++) {
            place(r, c, d[i] + j * rext(c));
            bound_add(&b, c, d[i] + j * rext(c));
        }
    }
    bound_finish(r, &b, 0);
    r->dt = mp_type_hindexed(count, same ? NULL : bl, 2, d, c->dt);
    snprintf(r->desc, sizeof r->desc, "hindexed(%ld,%.120s)", count, c->desc);
    rfree(c);
    return r;
}

static rtype *gen_struct(int depth)
{
    long count = rrange(1, 4);
    rtype *c[4];
    mp_datatype *t[4];
    MPI_Aint bl[4], d[4];
    rtype *r = rnew();
    bounds b = { 0 };
    int n = snprintf(r->desc, sizeof r->desc, "struct(");
    for (long i = 0; i < count; i++) {
        int marker = rnd() % 8 == 0 ? 1 + (int)(rnd() % 2) : 0;
        c[i] = marker ? NULL : gen(depth - 1);
        t[i] = marker ? mp_datatype_get(marker == 1 ? MPI_LB : MPI_UB) : c[i]->dt;
        bl[i] = rrange(0, 3);
        d[i] = rrange(-48, 80);
        for (long j = 0; j < bl[i]; j++) {
            if (marker) {
                bound_marker(&b, marker == 2, d[i]);
            } else {
                place(r, c[i], d[i] + j * rext(c[i]));
                bound_add(&b, c[i], d[i] + j * rext(c[i]));
            }
        }
        if (n < (int)sizeof r->desc)
            n += snprintf(r->desc + n, sizeof r->desc - (size_t)n, "%ld*%.40s@%ld,", (long)bl[i],
                          marker ? (marker == 1 ? "LB" : "UB") : c[i]->desc, (long)d[i]);
    }
    bound_finish(r, &b, 1);
    r->dt = mp_type_struct(count, bl, d, t);
    for (long i = 0; i < count; i++)
        rfree(c[i]);
    return r;
}

static rtype *gen_resized(int depth)
{
    rtype *c = gen(depth - 1);
    rtype *r = rnew();
    place(r, c, 0);
    r->lb = rrange(-20, 20);
    r->ub = r->lb + rrange(0, 2 * rext(c) + 16);
    r->has_lb = r->has_ub = 1;
    r->align = c->align;
    r->dt = mp_type_resized(c->dt, r->lb, r->ub - r->lb);
    snprintf(r->desc, sizeof r->desc, "resized(%ld,%ld,%.120s)", r->lb, r->ub - r->lb, c->desc);
    rfree(c);
    return r;
}

/* Subarray and darray: enumerate global multi-indices in array order, keep the selected. */
static rtype *gen_array(int depth, int darray)
{
    rtype *c = gen(depth - 1);
    int nd = (int)rrange(1, 3), order = rnd() % 2 ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    MPI_Aint g[3], sub[3], st[3];
    int distrib[3], darg[3], psize[3], coord[3], size = 1;
    for (int i = 0; i < nd; i++) {
        g[i] = rrange(1, 6);
        sub[i] = rrange(0, g[i]);
        st[i] = rrange(0, g[i] - sub[i]);
        psize[i] = (int)rrange(1, 3);
        distrib[i] = (int)rrange(0, 2) == 0 ? MPI_DISTRIBUTE_BLOCK : (rnd() % 3 ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_NONE);
        if (distrib[i] == MPI_DISTRIBUTE_NONE)
            psize[i] = 1;
        darg[i] = rnd() % 2 ? MPI_DISTRIBUTE_DFLT_DARG : (int)rrange(1, 3);
        if (distrib[i] == MPI_DISTRIBUTE_BLOCK && darg[i] != MPI_DISTRIBUTE_DFLT_DARG &&
            darg[i] * psize[i] < g[i])
            darg[i] = MPI_DISTRIBUTE_DFLT_DARG;
        size *= psize[i];
    }
    int rank = (int)rrange(0, size - 1);
    for (int i = nd - 1, q = rank; i >= 0; i--) {
        coord[i] = q % psize[i];
        q /= psize[i];
    }
    rtype *r = rnew();
    long total = 1, ext = rext(c);
    for (int i = 0; i < nd; i++)
        total *= g[i];
    long idx[3] = { 0, 0, 0 };
    for (long k = 0; k < total; k++) {
        /* idx from k in array order: C = last dimension fastest */
        long q = k;
        for (int s = 0; s < nd; s++) {
            int dim = order == MPI_ORDER_C ? nd - 1 - s : s;
            idx[dim] = q % g[dim];
            q /= g[dim];
        }
        int keep = 1;
        long off = 0, mult = 1;
        for (int s = 0; s < nd; s++) {
            int dim = order == MPI_ORDER_C ? nd - 1 - s : s;
            long i = idx[dim];
            if (!darray) {
                keep &= i >= st[dim] && i < st[dim] + sub[dim];
            } else if (distrib[dim] == MPI_DISTRIBUTE_BLOCK) {
                long blk = darg[dim] == MPI_DISTRIBUTE_DFLT_DARG ? (g[dim] + psize[dim] - 1) / psize[dim] : darg[dim];
                keep &= i / blk == coord[dim];
            } else if (distrib[dim] == MPI_DISTRIBUTE_CYCLIC) {
                long blk = darg[dim] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg[dim];
                keep &= (i / blk) % psize[dim] == coord[dim];
            }
            off += i * mult;
            mult *= g[dim];
        }
        if (keep)
            place(r, c, off * ext);
    }
    r->lb = 0;
    r->ub = total * ext;
    r->has_lb = r->has_ub = 1;
    r->align = c->align;
    if (darray) {
        r->dt = mp_type_darray(size, rank, nd, g, distrib, darg, psize, order, c->dt);
        snprintf(r->desc, sizeof r->desc, "darray(nd=%d,o=%d,g=%ld/%ld/%ld,dist=%d/%d/%d,darg=%d/%d/%d,p=%d/%d/%d,rank=%d,%.40s)",
                 nd, order, (long)g[0], (long)g[1], (long)g[2], distrib[0], distrib[1], distrib[2],
                 darg[0], darg[1], darg[2], psize[0], psize[1], psize[2], rank, c->desc);
    } else {
        r->dt = mp_type_subarray(nd, g, sub, st, order, c->dt);
        snprintf(r->desc, sizeof r->desc, "subarray(nd=%d,o=%d,%.100s)", nd, order, c->desc);
    }
    rfree(c);
    return r;
}

static rtype *gen(int depth)
{
    if (depth <= 0 || rnd() % 5 == 0)
        return basic();
    switch (rnd() % 8) {
    case 0: return gen_contig(depth);
    case 1: case 2: return gen_vector(depth);
    case 3: return gen_indexed(depth);
    case 4: case 5: return gen_struct(depth);
    case 6: return gen_resized(depth);
    default: return gen_array(depth, rnd() % 2);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Checks
 * ------------------------------------------------------------------------------------------- */
typedef struct layout {
    unsigned char *mem;               /* allocation */
    unsigned char *buf;               /* the user's buf (may point outside [mem, mem+len)) */
    long lo, len;
} layout;

static void make_layout(layout *L, const rtype *r, long count)
{
    long lo = 0, hi = 0;
    for (long e = 0; e < count; e++)
        for (long i = 0; i < r->n; i++) {
            long a = e * rext(r) + r->map[i].off, b = a + r->map[i].len;
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
    L->lo = lo;
    L->len = hi - lo + 1;
    L->mem = malloc((size_t)L->len);
    for (long i = 0; i < L->len; i++)
        L->mem[i] = (unsigned char)rnd();
    L->buf = L->mem - lo;
}

static void ref_pack(const rtype *r, long count, const unsigned char *buf, unsigned char *out)
{
    for (long e = 0; e < count; e++)
        for (long i = 0; i < r->n; i++) {
            memcpy(out, buf + e * rext(r) + r->map[i].off, (size_t)r->map[i].len);
            out += r->map[i].len;
        }
}

static void ref_unpack(const rtype *r, long count, unsigned char *buf, const unsigned char *in)
{
    for (long e = 0; e < count; e++)
        for (long i = 0; i < r->n; i++) {
            memcpy(buf + e * rext(r) + r->map[i].off, in, (size_t)r->map[i].len);
            in += r->map[i].len;
        }
}

/* True when no two bytes of the count elements' type map coincide. */
static int no_overlap(const rtype *r, long count, const layout *L)
{
    unsigned char *seen = calloc((size_t)L->len, 1);
    int ok = 1;
    for (long e = 0; e < count && ok; e++)
        for (long i = 0; i < r->n && ok; i++)
            for (long k = 0; k < r->map[i].len; k++) {
                long a = e * rext(r) + r->map[i].off + k - L->lo;
                if (seen[a]++) { ok = 0; break; }
            }
    free(seen);
    return ok;
}

static void check_type(const rtype *r, long count)
{
    const mp_datatype *dt = r->dt;
    size_t total = (size_t)(r->size * count);
    if (dt->size != r->size || dt->lb != r->lb || dt->extent != rext(r)) {
        FAIL("%s: size/lb/extent %ld/%ld/%ld, reference %ld/%ld/%ld", r->desc, (long)dt->size,
             (long)dt->lb, (long)dt->extent, r->size, r->lb, rext(r));
        return;
    }
    if (r->n && r->size) {
        long tlb = r->map[0].off, tub = r->map[0].off + r->map[0].len;
        for (long i = 0; i < r->n; i++) {
            tlb = r->map[i].off < tlb ? r->map[i].off : tlb;
            tub = r->map[i].off + r->map[i].len > tub ? r->map[i].off + r->map[i].len : tub;
        }
        if (dt->true_lb != tlb || dt->true_ub != tub)
            FAIL("%s: true bounds [%ld,%ld), reference [%ld,%ld)", r->desc, (long)dt->true_lb,
                 (long)dt->true_ub, tlb, tub);
    }
    layout L;
    make_layout(&L, r, count);
    unsigned char *ref = malloc(total + 1), *got = malloc(total + 1);
    ref_pack(r, count, L.buf, ref);

    /* whole stream */
    memset(got, 0xa5, total + 1);
    size_t n = mp_pack(L.buf, count, dt, 0, got, total + 100);
    if (n != total || memcmp(got, ref, total) != 0) {
        FAIL("%s count %ld: pack mismatch (%zu of %zu bytes)", r->desc, count, n, total);
        mp_prog_dump(&mp_dt_info(dt)->prog, stderr);
    }
    /* random ranges */
    for (int t = 0; t < 20 && total; t++) {
        size_t off = rnd() % total, len = rnd() % (total - off + 1);
        memset(got, 0xa5, total + 1);
        n = mp_pack(L.buf, count, dt, off, got, len);
        if (n != len || memcmp(got, ref + off, len) != 0 || got[len] != 0xa5) {
            FAIL("%s count %ld: pack range [%zu,+%zu) mismatch", r->desc, count, off, len);
            break;
        }
    }
    /* the wire encoding decodes to a type that packs the same stream */
    {
        size_t need = mp_datatype_encode(dt, NULL, 0);
        void *wire = malloc(need);
        mp_datatype_encode(dt, wire, need);
        mp_datatype *copy = mp_datatype_decode(wire, need);
        if (!copy || copy->size != dt->size || copy->extent != dt->extent) {
            FAIL("%s: encode/decode failed", r->desc);
        } else {
            memset(got, 0xa5, total + 1);
            if (mp_pack(L.buf, count, copy, 0, got, total) != total || memcmp(got, ref, total))
                FAIL("%s: decoded type packs differently", r->desc);
        }
        if (need > 8) {
            ((char *)wire)[need / 2] ^= 0x40;     /* corrupt: must not crash */
            mp_datatype *bad = mp_datatype_decode(wire, need);
            mp_datatype_release(bad);
        }
        if (mp_datatype_decode(wire, need - 1) != NULL)
            FAIL("%s: truncated encoding accepted", r->desc);
        mp_datatype_release(copy);
        free(wire);
    }
    /* random chunking, sequential */
    memset(got, 0, total + 1);
    for (size_t off = 0; off < total;) {
        size_t len = 1 + rnd() % (total / 3 + 2);
        off += mp_pack(L.buf, count, dt, off, got + off, len);
    }
    if (memcmp(got, ref, total) != 0)
        FAIL("%s count %ld: chunked pack mismatch", r->desc, count);

    /* unpack: reference result vs engine (chunks in random order if no overlap) */
    {
        unsigned char *want = malloc((size_t)L.len), *have = malloc((size_t)L.len);
        unsigned char *src = malloc(total + 1);
        for (size_t i = 0; i < total; i++)
            src[i] = (unsigned char)rnd();
        memset(want, 0x3c, (size_t)L.len);
        memset(have, 0x3c, (size_t)L.len);
        ref_unpack(r, count, want - L.lo, src);
        int shuffle = no_overlap(r, count, &L);
        size_t nch = 0, cuts[64];
        for (size_t off = 0; off < total && nch < 63;) {
            cuts[nch++] = off;
            off += 1 + rnd() % (total / 4 + 2);
        }
        cuts[nch] = total;
        int order[64];
        for (size_t i = 0; i < nch; i++)
            order[i] = (int)i;
        if (shuffle)
            for (size_t i = nch; i > 1; i--) {
                size_t j = rnd() % i;
                int tmp = order[i - 1];
                order[i - 1] = order[j];
                order[j] = tmp;
            }
        for (size_t i = 0; i < nch; i++) {
            size_t a = cuts[order[i]], b = cuts[order[i] + 1];
            n = mp_unpack(have - L.lo, count, dt, a, src + a, b - a);
            if (n != b - a)
                FAIL("%s: unpack chunk returned %zu of %zu", r->desc, n, b - a);
        }
        if (memcmp(want, have, (size_t)L.len) != 0)
            FAIL("%s count %ld: unpack mismatch (%s order)", r->desc, count,
                 shuffle ? "random" : "sequential");
        free(want);
        free(have);
        free(src);
    }

    /* segments with a small limit, resumed from `covered` */
    {
        struct iovec iov[7];
        size_t off = 0, pos = 0;
        int ok = 1;
        while (off < total && ok) {
            int max = 1 + (int)(rnd() % 7);
            size_t want = 1 + rnd() % (total - off);
            size_t covered;
            int k = mp_segments(L.buf, count, dt, off, want, iov, max, &covered);
            if (k < 1 || k > max || covered == 0 || covered > want) {
                FAIL("%s: segments returned %d (max %d), covered %zu of %zu", r->desc, k, max,
                     covered, want);
                ok = 0;
                break;
            }
            size_t sum = 0;
            for (int i = 0; i < k; i++) {
                if (memcmp(iov[i].iov_base, ref + pos + sum, iov[i].iov_len) != 0) {
                    FAIL("%s: segment %d data mismatch at stream %zu", r->desc, i, pos + sum);
                    ok = 0;
                }
                if (i > 0 && (char *)iov[i - 1].iov_base + iov[i - 1].iov_len == iov[i].iov_base) {
                    FAIL("%s: segments %d and %d abut but were not merged", r->desc, i - 1, i);
                    ok = 0;
                }
                sum += iov[i].iov_len;
            }
            if (sum != covered) {
                FAIL("%s: segments sum %zu != covered %zu", r->desc, sum, covered);
                ok = 0;
            }
            off += covered;
            pos += covered;
        }
    }
    free(ref);
    free(got);
    free(L.mem);
}

/* Copy between two types: the destination's packed stream must equal the source's. */
static void check_copy(const rtype *a, long ca, const rtype *b, long cb)
{
    size_t sa = (size_t)(a->size * ca), sb = (size_t)(b->size * cb);
    if (sa > sb || sb == 0)
        return;
    layout La, Lb;
    make_layout(&La, a, ca);
    make_layout(&Lb, b, cb);
    if (!no_overlap(b, cb, &Lb))
        goto out;
    if (mp_datatype_copy(La.buf, ca, a->dt, Lb.buf, cb, b->dt) != MPI_SUCCESS)
        FAIL("copy %s -> %s failed", a->desc, b->desc);
    unsigned char *pa = malloc(sa + 1), *pb = malloc(sb + 1);
    ref_pack(a, ca, La.buf, pa);
    ref_pack(b, cb, Lb.buf, pb);
    if (memcmp(pa, pb, sa) != 0)
        FAIL("copy %s x%ld -> %s x%ld: data mismatch", a->desc, ca, b->desc, cb);
    free(pa);
    free(pb);
out:
    free(La.mem);
    free(Lb.mem);
}

static void check_external32(void)
{
    int v[3] = { 0x01020304, -2, 7 };
    unsigned char out[12];
    mp_datatype *it = mp_datatype_get(MPI_INT);
    mp_pack_external(v, 3, it, out);
    if (out[0] != 1 || out[1] != 2 || out[2] != 3 || out[3] != 4 || out[4] != 0xff)
        FAIL("external32: MPI_INT not big-endian");
    struct { double d; int i; } di[2] = { { 1.0, 5 }, { -2.5, 6 } }, back[2];
    unsigned char o2[24];
    mp_datatype *dit = mp_datatype_get(MPI_DOUBLE_INT);
    mp_pack_external(di, 2, dit, o2);
    if (o2[0] != 0x3f || o2[1] != 0xf0 || o2[11] != 5 || o2[8] != 0)
        FAIL("external32: MPI_DOUBLE_INT layout wrong");
    memset(back, 0, sizeof back);
    mp_unpack_external(o2, back, 2, dit);
    if (back[0].d != 1.0 || back[0].i != 5 || back[1].d != -2.5 || back[1].i != 6)
        FAIL("external32: MPI_DOUBLE_INT round trip");
    /* a struct {short, vector of 2 doubles} */
    mp_datatype *sh = mp_datatype_get(MPI_SHORT), *db = mp_datatype_get(MPI_DOUBLE);
    mp_datatype *vec = mp_type_hvector(2, 1, 16, db);
    mp_datatype *types[2] = { sh, vec };
    MPI_Aint bl[2] = { 1, 1 }, d[2] = { 0, 8 };
    mp_datatype *st = mp_type_struct(2, bl, d, types);
    int ints[3] = { 2, 1, 1 };
    mp_type_set_contents(vec, MPI_COMBINER_HVECTOR, 2, (int[]){ 2, 1 }, 1, (MPI_Aint[]){ 16 }, 1, &db);
    mp_type_set_contents(st, MPI_COMBINER_STRUCT, 3, ints, 2, d, 2, types);
    struct { short s; double a; double pad; double b; } x = { 0x0102, 1.0, 0, 2.0 }, y;
    unsigned char o3[18];
    mp_pack_external(&x, 1, st, o3);
    if (o3[0] != 1 || o3[1] != 2 || o3[2] != 0x3f || o3[10] != 0x40)
        FAIL("external32: struct layout wrong");
    memset(&y, 0, sizeof y);
    mp_unpack_external(o3, &y, 1, st);
    if (y.s != x.s || y.a != 1.0 || y.b != 2.0)
        FAIL("external32: struct round trip");
    if (mp_datatype_elements(st, 18) != 3 || mp_datatype_elements(st, 10) != 2 ||
        mp_datatype_elements(st, 9) != MPI_UNDEFINED || mp_datatype_elements(dit, 24) != 4)
        FAIL("elements: wrong counts %lld %lld %lld %lld",
             (long long)mp_datatype_elements(st, 18), (long long)mp_datatype_elements(st, 10),
             (long long)mp_datatype_elements(st, 9), (long long)mp_datatype_elements(dit, 24));
    mp_datatype_release(st);
    mp_datatype_release(vec);
}

/* The shapes the brief names must stay compact: no per-block entries. */
static void check_compact(void)
{
    mp_datatype *db = mp_datatype_get(MPI_DOUBLE);
    mp_datatype *v = mp_type_hvector(1000000, 1, 16, db);
    const mp_dprog *p = &mp_dt_info(v)->prog;
    if (p->nnodes > 2 || p->nentries != 0)
        FAIL("vector(1e6): %d nodes, %ld entries", p->nnodes, (long)p->nentries);
    mp_datatype *c = mp_type_contiguous(1000, db);
    if (!c->is_contig || mp_dt_info(c)->prog.nnodes != 1)
        FAIL("contiguous(1000, double) is not one block");
    MPI_Aint d[4] = { 0, 64, 128, 192 };
    mp_datatype *ib = mp_type_hindexed(4, NULL, 8, d, db);
    if (!ib->is_contig)
        FAIL("hindexed_block of abutting blocks not merged into one block");
    MPI_Aint d2[4] = { 0, 100, 200, 300 };
    mp_datatype *ib2 = mp_type_hindexed(4, NULL, 3, d2, db);
    if (mp_dt_info(ib2)->prog.nentries != 0)
        FAIL("evenly spaced hindexed_block not turned into a vector");
    mp_datatype_release(v);
    mp_datatype_release(c);
    mp_datatype_release(ib);
    mp_datatype_release(ib2);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 12345;
    mp_datatype_init();
    check_external32();
    check_compact();
    rtype *prev = NULL;
    long tested = 0;
    for (long it = 0; it < iters && failures < 20; it++) {
        rtype *r = gen((int)rrange(1, 4));
        long count = rrange(0, 4);
        if (r->n * (count + 1) > MAX_PIECES || r->size * (count + 1) > (1 << 20) ||
            labs(rext(r)) > (1 << 16)) {
            rfree(r);
            continue;
        }
        check_type(r, count);
        check_type(r, 1);
        if (prev && prev->size && r->size)
            check_copy(prev, rrange(0, 3), r, rrange(1, 4));
        rfree(prev);
        prev = r;
        tested++;
    }
    rfree(prev);
    printf("datatype_random: %ld types, %d failures\n", tested, failures);
    return failures != 0;
}

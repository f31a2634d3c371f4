/* datatype_large.c -- the datatype engine with counts, sizes and offsets beyond 32 bits.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Types of tens of gigabytes are built (never allocated): a vector of 3e9 doubles with
 * stride 2, a contiguous of 2^31+ bytes nested in a vector, an indexed type with a block
 * beyond INT_MAX, and a negative-stride hvector with more than 2^32 blocks.  Packing,
 * unpacking and segment lists of short byte ranges at offsets near 0, across 2^31 and 2^32,
 * and near the end of the stream only touch the addresses those bytes live at, so the test
 * gives the engine a base pointer such that those addresses fall inside a small window, and
 * compares with the offsets computed by hand from the type's definition.
 */
#include "datatype/engine.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

enum { WIN = 1 << 16 };
static unsigned char window[WIN];

/* Byte `pos` of the packed stream lives at this address offset from the type's origin. */
typedef int64_t (*addr_fn)(int64_t pos);

/* Checks pack, unpack and segments of stream bytes [off, off+len) (len small). */
static void check_range(const char *name, const mp_datatype *dt, int64_t count, addr_fn at,
                        int64_t off, size_t len)
{
    /* the lowest address touched goes to window + WIN/4 */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < len; i++) {      /* shorten the range where its addresses jump */
        int64_t a = at(off + (int64_t)i);
        int64_t nlo = a < lo ? a : lo, nhi = a > hi ? a : hi;
        if (nhi - nlo >= WIN / 2) {
            len = i;
            break;
        }
        lo = nlo;
        hi = nhi;
    }
    char *base = (char *)((uintptr_t)window + WIN / 4 - (uintptr_t)lo);
    for (int i = 0; i < WIN; i++)
        window[i] = (unsigned char)(i * 7 + 3);
    unsigned char out[256], want[256];
    for (size_t i = 0; i < len; i++)
        want[i] = window[WIN / 4 + at(off + (int64_t)i) - lo];
    size_t got = mp_pack(base, count, dt, (size_t)off, out, len);
    if (got != len || memcmp(out, want, len) != 0)
        FAIL("%s: pack of %zu bytes at %lld wrong (got %zu)", name, len, (long long)off, got);
    /* unpack a different pattern and check exactly those bytes changed */
    for (size_t i = 0; i < len; i++)
        out[i] = (unsigned char)~want[i];
    got = mp_unpack(base, count, dt, (size_t)off, out, len);
    int bad = got != len;
    for (size_t i = 0; i < len; i++) {
        int64_t a = WIN / 4 + at(off + (int64_t)i) - lo;
        if (window[a] != (unsigned char)~want[i])
            bad = 1;
        window[a] = (unsigned char)(a * 7 + 3);
    }
    for (int i = 0; i < WIN; i++)
        if (window[i] != (unsigned char)(i * 7 + 3))
            bad = 1;
    if (bad)
        FAIL("%s: unpack of %zu bytes at %lld wrong", name, len, (long long)off);
    /* segments, 3 at a time, resumed */
    size_t pos = 0;
    while (pos < len) {
        struct iovec iov[3];
        size_t covered;
        int k = mp_segments(base, count, dt, (size_t)off + pos, len - pos, iov, 3, &covered);
        if (k <= 0 || covered == 0) {
            FAIL("%s: segments at %lld stuck", name, (long long)off + (long long)pos);
            return;
        }
        for (int s = 0; s < k; s++)
            for (size_t b = 0; b < iov[s].iov_len; b++, pos++)
                if ((char *)iov[s].iov_base + b != base + at(off + (int64_t)pos)) {
                    FAIL("%s: segment byte %zu at %lld has the wrong address", name, b,
                         (long long)off + (long long)pos);
                    return;
                }
    }
}

/* Offsets near 0, across 2^31 and 2^32, in the middle, near the end, and `extra`. */
static void check_all(const char *name, const mp_datatype *dt, int64_t count, addr_fn at,
                      int64_t extra)
{
    int64_t total = dt->size * count;
    const int64_t offs[] = { 0, 5, (1LL << 31) - 7, (1LL << 31) + 3, (1LL << 32) - 11,
                             (1LL << 32) + 1, total / 2 + 1, total - 200, total - 13, extra };
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        int64_t off = offs[i];
        if (off < 0 || off >= total)
            continue;
        size_t len = total - off < 200 ? (size_t)(total - off) : 200;
        check_range(name, dt, count, at, off, len);
    }
    /* reading past the end returns only what is there */
    unsigned char out[8];
    if (mp_pack(window, count, dt, (size_t)total, out, sizeof out) != 0)
        FAIL("%s: pack past the end returned bytes", name);
}

/* vector(3e9, 1, 2, double): byte p is in element p/8, at 16 * (p/8) + p%8 */
static const int64_t N = 3000000000LL;
static int64_t at_vec(int64_t p) { return 16 * (p / 8) + p % 8; }

/* vector(3, 1, 2, contiguous(2^31 + 5 bytes)): element e = p / B at 2 * B * e */
static const int64_t B = (1LL << 31) + 5;
static int64_t at_vcontig(int64_t p) { return 2 * B * (p / B) + p % B; }

/* indexed {blocklens (B, 3), displs (4, -20)} of MPI_SHORT, count 2: extent from -40 to
 * 8 + 2B, so instance k starts at k * (2B + 48) */
static int64_t at_indexed(int64_t p)
{
    int64_t size = 2 * B + 6, ext = 2 * B + 48;
    int64_t k = p / size, r = p % size;
    return k * ext + (r < 2 * B ? 8 + r : -40 + (r - 2 * B));
}

/* hvector(5e9, 1, -24, MPI_INT): block k at -24 k */
static const int64_t H = 5000000000LL;
static int64_t at_hvec(int64_t p) { return -24 * (p / 4) + p % 4; }

int main(void)
{
    mp_datatype_init();
    mp_datatype *dbl = mp_datatype_get(MPI_DOUBLE), *byte = mp_datatype_get(MPI_BYTE);
    mp_datatype *sh = mp_datatype_get(MPI_SHORT), *in = mp_datatype_get(MPI_INT);

    mp_datatype *v = mp_type_hvector(N, 1, 16, dbl);
    if (v->size != 8 * N || v->extent != 16 * (N - 1) + 8 || v->is_contig)
        FAIL("vector: size %ld extent %ld", (long)v->size, (long)v->extent);
    check_all("vector(3e9,1,2,double)", v, 1, at_vec, 8 * N - 8);

    mp_datatype *c = mp_type_contiguous(B, byte);
    if (c->size != B || c->extent != B || !c->is_contig)
        FAIL("contiguous: size %ld extent %ld", (long)c->size, (long)c->extent);
    mp_datatype *vc = mp_type_hvector(3, 1, 2 * B, c);
    if (vc->size != 3 * B || vc->extent != 5 * B)
        FAIL("vector of contiguous: size %ld extent %ld", (long)vc->size, (long)vc->extent);
    check_all("vector(3,1,2,contig(2^31+5))", vc, 1, at_vcontig, 2 * B);

    MPI_Aint bl[2] = { B, 3 }, d[2] = { 8, -40 };
    mp_datatype *ix = mp_type_hindexed(2, bl, 0, d, sh);
    if (ix->size != 2 * B + 6 || ix->lb != -40 || ix->extent != 2 * B + 48)
        FAIL("indexed: size %ld lb %ld extent %ld", (long)ix->size, (long)ix->lb,
             (long)ix->extent);
    check_all("indexed{B,3}x2", ix, 2, at_indexed, 2 * B);
    check_all("indexed{B,3}x2", ix, 2, at_indexed, 2 * B + 6 + 2 * B + 1);

    mp_datatype *hv = mp_type_hvector(H, 1, -24, in);
    if (hv->size != 4 * H || hv->lb != -24 * (H - 1) || hv->true_lb != -24 * (H - 1))
        FAIL("hvector: size %ld lb %ld", (long)hv->size, (long)hv->lb);
    check_all("hvector(5e9,1,-24,int)", hv, 1, at_hvec, 4 * H - 4);

    /* element counting of a stream beyond 2^32 bytes */
    if (mp_datatype_elements(v, 8 * N) != N || mp_datatype_elements(hv, 4 * H - 4) != H - 1 ||
        mp_datatype_elements(hv, 4 * H - 3) != MPI_UNDEFINED)
        FAIL("elements: %lld %lld", (long long)mp_datatype_elements(v, 8 * N),
             (long long)mp_datatype_elements(hv, 4 * H - 4));

    mp_datatype_release(v);
    mp_datatype_release(vc);
    mp_datatype_release(c);
    mp_datatype_release(ix);
    mp_datatype_release(hv);
    printf("datatype_large: %d failures\n", failures);
    return failures != 0;
}

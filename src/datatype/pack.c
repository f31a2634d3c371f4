/* pack.c -- packing, unpacking and segment lists of any byte range.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * One walker serves three operations: pack (type layout -> stream), unpack (stream -> type
 * layout) and segments (emit the (address, length) pairs of the layout for single-copy
 * scatter/gather).  The walker works on a byte range [offset, offset+len) of the packed
 * stream and finds where to start arithmetically: at every level a byte offset divided by
 * the child's packed size gives the instance to start from, and indexed nodes binary-search
 * their entries' prefix sums.  There is no saved cursor, so a transport can ask for any chunk
 * in any order, and resuming costs O(depth + log entries).
 *
 * Contiguous types never reach the walker (one memcpy).  The innermost loop, a run of equal
 * blocks at a fixed stride, is specialised for the common block sizes (constant-size moves,
 * the 8-byte case unrolled) and calls memcpy otherwise; that loop is where vector types
 * spend their time.
 */
#include "datatype/engine.h"
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

typedef struct walker {
    int op;                           /* MP_WALK_* */
    char *stream;                     /* pack: next output byte; unpack: next input byte */
    struct iovec *iov;                /* segments */
    int niov, max;
    const mp_dprog *p;
} walker;

/* Moves one piece; returns 0 only when the segment list is full. */
static inline int emit(walker *w, char *addr, size_t n)
{
    if (n == 0)
        return 1;
    switch (w->op) {
    case MP_WALK_PACK:
        memcpy(w->stream, addr, n);
        w->stream += n;
        return 1;
    case MP_WALK_UNPACK:
        memcpy(addr, w->stream, n);
        w->stream += n;
        return 1;
    default:
        if (w->niov > 0) {
            struct iovec *last = &w->iov[w->niov - 1];
            if ((char *)last->iov_base + last->iov_len == addr) {
                last->iov_len += n;
                return 1;
            }
        }
        if (w->niov == w->max)
            return 0;
        w->iov[w->niov].iov_base = addr;
        w->iov[w->niov].iov_len = n;
        w->niov++;
        return 1;
    }
}

/* n blocks of `size` bytes from src (blocks sstride apart) to dst (dstride apart).  Packing
 * has dstride == size, unpacking sstride == size.  Constant-size copies compile to register
 * or vector moves; the 8-byte case (vectors of doubles) is unrolled so four independent
 * loads are in flight. */
/* Packs of 8-byte blocks at least this large write the output with non-temporal stores: the
 * output is larger than a core's L2 cache (1-2 MiB on current x86 servers), so fetching each
 * destination line before overwriting it (what ordinary stores do) only adds memory traffic.
 * glibc's memcpy does the same above a threshold of the same order.  Measured on the 8 MB pack
 * of vector(1e6, 1, 2, double) (bench/pack.py): about 1.3x faster than ordinary stores.
 * Only packing gathers into a contiguous output; unpacking writes strided 8-byte pieces, for
 * which streaming stores would write partial lines. */
#define MP_PACK_STREAM_MIN ((int64_t)4 << 20)

#if defined(__x86_64__)
/* 8-byte blocks gathered into a contiguous destination with streaming stores. */
static int64_t gather8_stream(char *dst, const char *src, int64_t sstride, int64_t n)
{
    int64_t i = 0;
    if ((uintptr_t)dst & 7)          /* movnti needs an 8-byte aligned target */
        return 0;
    for (; i + 4 <= n; i += 4, dst += 32, src += 4 * sstride) {
        long long x0, x1, x2, x3;
        memcpy(&x0, src, 8);
        memcpy(&x1, src + sstride, 8);
        memcpy(&x2, src + 2 * sstride, 8);
        memcpy(&x3, src + 3 * sstride, 8);
        _mm_stream_si64((long long *)dst, x0);
        _mm_stream_si64((long long *)(dst + 8), x1);
        _mm_stream_si64((long long *)(dst + 16), x2);
        _mm_stream_si64((long long *)(dst + 24), x3);
    }
    _mm_sfence();            /* streaming stores are weakly ordered: complete them here */
    return i;
}
#endif

static void copy_blocks(char *dst, int64_t dstride, const char *src, int64_t sstride,
                        size_t size, int64_t n)
{
    int64_t i = 0;
#if defined(__x86_64__)
    if (size == 8 && dstride == 8 && n * 8 >= MP_PACK_STREAM_MIN) {
        i = gather8_stream(dst, src, sstride, n);
        dst += i * 8;
        src += i * sstride;
    }
#endif
    switch (size) {
    case 4:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 4);
        break;
    case 8:
        for (; i + 4 <= n; i += 4, dst += 4 * dstride, src += 4 * sstride) {
            uint64_t x0, x1, x2, x3;
            memcpy(&x0, src, 8);
            memcpy(&x1, src + sstride, 8);
            memcpy(&x2, src + 2 * sstride, 8);
            memcpy(&x3, src + 3 * sstride, 8);
            memcpy(dst, &x0, 8);
            memcpy(dst + dstride, &x1, 8);
            memcpy(dst + 2 * dstride, &x2, 8);
            memcpy(dst + 3 * dstride, &x3, 8);
        }
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 8);
        break;
    case 12:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 12);
        break;
    case 16:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 16);
        break;
    case 24:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 24);
        break;
    case 32:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 32);
        break;
    case 48:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 48);
        break;
    case 64:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, 64);
        break;
    default:
        for (; i < n; i++, dst += dstride, src += sstride)
            memcpy(dst, src, size);
    }
}

static int64_t blocks(walker *w, char *a, int64_t stride, size_t size, int64_t n)
{
    switch (w->op) {
    case MP_WALK_PACK:
        copy_blocks(w->stream, (int64_t)size, a, stride, size, n);
        w->stream += (size_t)n * size;
        return n;
    case MP_WALK_UNPACK:
        copy_blocks(a, stride, w->stream, (int64_t)size, size, n);
        w->stream += (size_t)n * size;
        return n;
    default:
        for (int64_t i = 0; i < n; i++, a += stride)
            if (!emit(w, a, size))
                return i;
        return n;
    }
}

static size_t walk_node(walker *w, int32_t idx, char *origin, size_t off, size_t len);

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Bytes [off, off+len) of n instances of node `child`, `stride` apart, at origin.  Returns
 * the bytes handled (fewer than len only when the segment list filled up). */
static size_t walk_repeat(walker *w, int32_t child, char *origin, int64_t stride, int64_t n,
                          size_t off, size_t len)
{
    const mp_dnode *c = &w->p->nodes[child];
    size_t csize = (size_t)c->size;
    int64_t k = (int64_t)(off / csize);
    size_t r = off % csize, done = 0;

    if (c->kind == MP_DN_BLOCK) {
        char *a = origin + c->disp;
        if ((size_t)stride == csize) {
            size_t m = min_size(len, (size_t)n * csize - off);
            return emit(w, a + off, m) ? m : 0;
        }
        if (r) {
            size_t m = min_size(csize - r, len);
            if (!emit(w, a + k * stride + r, m))
                return 0;
            done += m;
            k++;
        }
        int64_t full = (int64_t)((len - done) / csize);
        if (full > n - k)
            full = n - k;
        int64_t got = blocks(w, a + k * stride, stride, csize, full);
        done += (size_t)got * csize;
        if (got < full)
            return done;
        k += full;
        if (done < len && k < n) {
            size_t m = min_size(len - done, csize);
            if (!emit(w, a + k * stride, m))
                return done;
            done += m;
        }
        return done;
    }
    while (done < len && k < n) {
        size_t want = min_size(csize - r, len - done);
        size_t got = walk_node(w, child, origin + k * stride, r, want);
        done += got;
        if (got < want)
            return done;
        r = 0;
        k++;
    }
    return done;
}

/* Index of the entry holding byte `off` of an indexed node. */
static int64_t find_entry(const mp_dentry *e, int64_t count, size_t off)
{
    int64_t lo = 0, hi = count - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if ((size_t)e[mid].pre <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static size_t walk_node(walker *w, int32_t idx, char *origin, size_t off, size_t len)
{
    const mp_dnode *n = &w->p->nodes[idx];
    switch (n->kind) {
    case MP_DN_BLOCK: {
        size_t m = min_size(len, (size_t)n->size - off);
        return emit(w, origin + n->disp + off, m) ? m : 0;
    }
    case MP_DN_VECTOR:
        return walk_repeat(w, n->child, origin + n->disp, n->stride, n->count, off, len);
    default: {
        const mp_dentry *e = w->p->entries + n->first;
        size_t done = 0;
        for (int64_t i = find_entry(e, n->count, off); i < n->count && done < len; i++) {
            size_t end = i + 1 < n->count ? (size_t)e[i + 1].pre : (size_t)n->size;
            size_t eoff = off + done - (size_t)e[i].pre;
            size_t want = min_size(end - (size_t)e[i].pre - eoff, len - done);
            size_t got = walk_repeat(w, (int32_t)e[i].child, origin + n->disp + e[i].disp,
                                     e[i].stride, e[i].n, eoff, want);
            done += got;
            if (got < want)
                break;
        }
        return done;
    }
    }
}

/* Clamps [offset, offset+len) to the stream; returns the bytes left to move. */
static size_t clamp(const mp_datatype *dt, MPI_Aint count, size_t offset, size_t len)
{
    size_t total = mp_datatype_bytes(dt, count);
    if (offset >= total)
        return 0;
    return min_size(len, total - offset);
}

static size_t walk(walker *w, char *buf, MPI_Aint count, const mp_datatype *dt,
                   size_t offset, size_t len)
{
    const mp_dtinfo *info = mp_dt_info(dt);
    w->p = &info->prog;
    return walk_repeat(w, info->prog.root, buf, dt->extent, count, offset, len);
}

size_t mp_pack(const void *buf, MPI_Aint count, const mp_datatype *dt,
               size_t offset, void *out, size_t len)
{
    len = clamp(dt, count, offset, len);
    if (len == 0)
        return 0;
    if (dt->is_contig) {
        memcpy(out, (const char *)buf + dt->true_lb + offset, len);
        return len;
    }
    walker w = { .op = MP_WALK_PACK, .stream = out };
    return walk(&w, (char *)buf, count, dt, offset, len);
}

size_t mp_unpack(void *buf, MPI_Aint count, const mp_datatype *dt,
                 size_t offset, const void *in, size_t len)
{
    len = clamp(dt, count, offset, len);
    if (len == 0)
        return 0;
    if (dt->is_contig) {
        memcpy((char *)buf + dt->true_lb + offset, in, len);
        return len;
    }
    walker w = { .op = MP_WALK_UNPACK, .stream = (char *)in };
    return walk(&w, buf, count, dt, offset, len);
}

int mp_segments(const void *buf, MPI_Aint count, const mp_datatype *dt,
                size_t offset, size_t len, struct iovec *iov, int max, size_t *covered)
{
    len = clamp(dt, count, offset, len);
    *covered = 0;
    if (len == 0 || max <= 0)
        return 0;
    if (dt->is_contig) {
        iov[0].iov_base = (char *)buf + dt->true_lb + offset;
        iov[0].iov_len = len;
        *covered = len;
        return 1;
    }
    walker w = { .op = MP_WALK_SEGMENTS, .iov = iov, .max = max };
    *covered = walk(&w, (char *)buf, count, dt, offset, len);
    return w.niov;
}

/* Copies through a bounce buffer when neither side is contiguous; a contiguous side is used
 * directly as the packed stream of the other. */
int mp_datatype_copy(const void *src, MPI_Aint scount, const mp_datatype *sdt,
                     void *dst, MPI_Aint dcount, const mp_datatype *ddt)
{
    size_t sbytes = mp_datatype_bytes(sdt, scount), dbytes = mp_datatype_bytes(ddt, dcount);
    size_t bytes = min_size(sbytes, dbytes);
    if (bytes > 0) {
        if (sdt->is_contig && ddt->is_contig) {
            memcpy((char *)dst + ddt->true_lb, (const char *)src + sdt->true_lb, bytes);
        } else if (sdt->is_contig) {
            mp_unpack(dst, dcount, ddt, 0, (const char *)src + sdt->true_lb, bytes);
        } else if (ddt->is_contig) {
            mp_pack(src, scount, sdt, 0, (char *)dst + ddt->true_lb, bytes);
        } else {
            char tmp[16384];
            for (size_t off = 0; off < bytes; off += sizeof tmp) {
                size_t m = min_size(sizeof tmp, bytes - off);
                mp_pack(src, scount, sdt, off, tmp, m);
                mp_unpack(dst, dcount, ddt, off, tmp, m);
            }
        }
    }
    if (sbytes > dbytes)
        return mp_error_code(MPI_ERR_TRUNCATE, "message of %zu bytes truncated to %zu bytes",
                             sbytes, dbytes);
    return MPI_SUCCESS;
}

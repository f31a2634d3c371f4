/* datatype_stream.c -- large packs of 8-byte blocks (the streaming-store path of pack.c).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * pack.c writes the output of packs of 8-byte blocks of at least 4 MiB with non-temporal
 * stores, four blocks at a time, and falls back to ordinary stores for the last blocks and
 * for outputs that are not 8-byte aligned.  This test packs vector(n, 1, 2, double) with n
 * not a multiple of four, whole and in ranges that start and end anywhere (unaligned output,
 * odd offsets, ranges just above and below the threshold), and compares every byte with the
 * expected stream; then unpacks the stream back and checks the strided layout.
 */
#include "datatype/engine.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

/* Packs stream bytes [off, off+len) into out + shift and compares with the expected bytes. */
static void check_pack(const double *src, int64_t n, const mp_datatype *vec, size_t off, size_t len,
                       unsigned char *out, size_t shift, const unsigned char *expect)
{
    memset(out, 0xee, len + shift + 8);
    size_t got = mp_pack(src, 1, vec, off, out + shift, len);
    if (got != len)
        FAIL("pack n=%lld off=%zu len=%zu shift=%zu: copied %zu bytes", (long long)n, off, len, shift, got);
    if (memcmp(out + shift, expect + off, len) != 0)
        FAIL("pack n=%lld off=%zu len=%zu shift=%zu: wrong bytes", (long long)n, off, len, shift);
    for (size_t i = 0; i < shift; i++)
        if (out[i] != 0xee)
            FAIL("pack n=%lld off=%zu shift=%zu: wrote before the output", (long long)n, off, shift);
    for (size_t i = 0; i < 8; i++)
        if (out[shift + len + i] != 0xee)
            FAIL("pack n=%lld off=%zu len=%zu: wrote past the output", (long long)n, off, len);
}

int main(void)
{
    if (mp_datatype_init() != MPI_SUCCESS) {
        fprintf(stderr, "mp_datatype_init failed\n");
        return 1;
    }
    const int64_t sizes[] = {524287, 524288, 1000003};     /* 4 MiB - 8 B, 4 MiB, ~8 MB */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int64_t n = sizes[s];
        size_t bytes = (size_t)n * 8;
        double *src = malloc((size_t)n * 16);
        double *back = malloc((size_t)n * 16);
        unsigned char *expect = malloc(bytes);
        unsigned char *out = malloc(bytes + 32);
        if (!src || !back || !expect || !out) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (int64_t i = 0; i < 2 * n; i++)
            src[i] = (double)i + 0.25;
        for (int64_t i = 0; i < n; i++)
            memcpy(expect + (size_t)i * 8, &src[2 * i], 8);
        mp_datatype *vec = mp_type_hvector(n, 1, 16, mp_datatype_get(MPI_DOUBLE));
        if (!vec) {
            FAIL("mp_type_hvector failed");
            break;
        }
        check_pack(src, n, vec, 0, bytes, out, 0, expect);          /* aligned, whole */
        check_pack(src, n, vec, 0, bytes, out, 4, expect);          /* unaligned output */
        check_pack(src, n, vec, 8, bytes - 8, out, 0, expect);      /* from block 1 */
        check_pack(src, n, vec, 13, bytes - 21, out, 3, expect);    /* mid-block start and end */
        check_pack(src, n, vec, bytes / 3, bytes - bytes / 3, out, 0, expect);
        /* unpack the stream into a zeroed strided buffer and check both slots of every pair */
        memset(back, 0, (size_t)n * 16);
        if (mp_unpack(back, 1, vec, 0, expect, bytes) != bytes)
            FAIL("unpack n=%lld: short", (long long)n);
        for (int64_t i = 0; i < n; i++)
            if (back[2 * i] != src[2 * i] || back[2 * i + 1] != 0) {
                FAIL("unpack n=%lld: wrong value at block %lld", (long long)n, (long long)i);
                break;
            }
        mp_datatype_release(vec);
        free(src); free(back); free(expect); free(out);
    }
    if (failures) {
        fprintf(stderr, "datatype_stream: %d failures\n", failures);
        return 1;
    }
    printf("datatype_stream: ok\n");
    return 0;
}

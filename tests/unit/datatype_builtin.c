/* datatype_builtin.c -- unit test of the predefined datatype table and contiguous packing.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Checks every predefined handle against its size/extent (the size byte of 0x4c00SSII handles
 * must match), the pair types' layouts against the C structs, and pack/unpack/segments of
 * builtin types including the non-contiguous MPI_SHORT_INT and MPI_DOUBLE_INT at arbitrary
 * offsets.
 */
#include "datatype/datatype.h"
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static const MPI_Datatype all[] = {
    MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
    MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT,
    MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_PACKED,
    MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
    MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_COMPLEX, MPI_C_DOUBLE_COMPLEX,
    MPI_C_LONG_DOUBLE_COMPLEX, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_CXX_BOOL,
    MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_2INT,
    MPI_CHARACTER, MPI_LOGICAL, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX,
    MPI_DOUBLE_COMPLEX, MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_INTEGER1,
    MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_COMPLEX8,
    MPI_COMPLEX16, MPI_COMPLEX32,
};

int main(void)
{
    CHECK(mp_datatype_init() == MPI_SUCCESS);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        mp_datatype *dt = mp_datatype_get(all[i]);
        CHECK(dt != NULL);
        if (!dt)
            continue;
        CHECK(dt->handle == all[i]);
        CHECK(dt->size == (MPI_Aint)((all[i] >> 8) & 0xff));
        CHECK(dt->extent == dt->size && dt->is_contig && dt->is_builtin && dt->committed);
        CHECK(dt->basic == all[i]);
        CHECK(mp_datatype_check("test", all[i], 3, NULL) == MPI_SUCCESS);
    }
    CHECK(mp_datatype_get(MPI_DATATYPE_NULL) == NULL);
    CHECK(mp_datatype_get(0x4c000499) == NULL);
    CHECK(mp_datatype_get(0x4c000805) == NULL);   /* index of MPI_INT, wrong size byte */
    CHECK(mp_datatype_check("test", MPI_DATATYPE_NULL, 1, NULL) != MPI_SUCCESS);
    CHECK(mp_datatype_check("test", MPI_INT, -1, NULL) != MPI_SUCCESS);
    CHECK(mp_datatype_get(MPI_LB)->size == 0 && mp_datatype_get(MPI_UB)->extent == 0);

    struct { float v; int i; } fi;
    struct { double v; int i; } di;
    struct { long v; int i; } li;
    struct { short v; int i; } si;
    struct { long double v; int i; } ldi;
    MPI_Datatype pairs[] = { MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
                             MPI_LONG_DOUBLE_INT };
    MPI_Aint ext[] = { sizeof fi, sizeof di, sizeof li, sizeof si, sizeof ldi };
    MPI_Aint size[] = { 8, 12, 12, 6, (MPI_Aint)sizeof(long double) + 4 };
    for (int i = 0; i < 5; i++) {
        mp_datatype *dt = mp_datatype_get(pairs[i]);
        CHECK(dt && dt->extent == ext[i] && dt->size == size[i] && dt->basic == pairs[i]);
    }

    /* MPI_SHORT_INT: 3 elements, every byte range */
    struct { short v; int i; } s3[3] = { { 1, 10 }, { 2, 20 }, { 3, 30 } }, r3[3];
    mp_datatype *sdt = mp_datatype_get(MPI_SHORT_INT);
    unsigned char whole[18], part[18];
    CHECK(mp_pack(s3, 3, sdt, 0, whole, 100) == 18);
    for (size_t off = 0; off < 18; off++)
        for (size_t len = 0; off + len <= 18; len++) {
            memset(part, 0xee, sizeof part);
            CHECK(mp_pack(s3, 3, sdt, off, part, len) == len);
            CHECK(memcmp(part, whole + off, len) == 0);
        }
    memset(r3, 0, sizeof r3);
    for (size_t off = 0; off < 18; off += 5)
        mp_unpack(r3, 3, sdt, off, whole + off, 5);
    for (int i = 0; i < 3; i++)
        CHECK(r3[i].v == s3[i].v && r3[i].i == s3[i].i);
    struct iovec iov[8];
    size_t covered;
    /* [0,2) [4,10) [12,18) [20,24): an index and the next value abut and merge */
    CHECK(mp_segments(s3, 3, sdt, 0, 18, iov, 8, &covered) == 4 && covered == 18);
    CHECK(iov[1].iov_len == 6 && (char *)iov[1].iov_base == (char *)s3 + 4);
    CHECK(mp_segments(s3, 3, sdt, 1, 17, iov, 2, &covered) == 2 && covered == 7);

    /* MPI_DOUBLE_INT: 12 bytes of data every 16 */
    struct { double v; int i; } d4[4] = { { 1.5, 1 }, { 2.5, 2 }, { 3.5, 3 }, { 4.5, 4 } }, e4[4];
    mp_datatype *ddt = mp_datatype_get(MPI_DOUBLE_INT);
    char packed[48];
    CHECK(mp_pack(d4, 4, ddt, 0, packed, 48) == 48);
    memset(e4, 0, sizeof e4);
    CHECK(mp_unpack(e4, 4, ddt, 0, packed, 48) == 48);
    for (int i = 0; i < 4; i++)
        CHECK(e4[i].v == d4[i].v && e4[i].i == d4[i].i);
    CHECK(mp_segments(d4, 4, ddt, 0, 48, iov, 8, &covered) == 4 && covered == 48);

    /* contiguous copy and truncation */
    int a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = i * 7;
    mp_datatype *idt = mp_datatype_get(MPI_INT);
    CHECK(mp_datatype_copy(a, 10, idt, b, 10, idt) == MPI_SUCCESS && memcmp(a, b, sizeof a) == 0);
    CHECK(mp_datatype_copy(a, 10, idt, b, 5, idt) != MPI_SUCCESS);
    if (failures)
        fprintf(stderr, "datatype_builtin: %d failures\n", failures);
    return failures != 0;
}

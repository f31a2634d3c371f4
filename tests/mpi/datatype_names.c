/* mempi-test: np=1,2 timeout=60 */
/* datatype_names.c -- the name of every predefined datatype.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI_Type_get_name of a predefined type returns its name (MPI 4.0 7.8).  In the MPICH ABI
 * some names share a handle -- MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX, MPI_LONG_LONG and
 * MPI_LONG_LONG_INT -- and then the name is the one MPICH returns, which programs and test
 * suites written against MPICH compare with (MPI_C_COMPLEX was MPI_C_FLOAT_COMPLEX before
 * this test).  The expected names below were printed by MPICH 4.0 for every predefined
 * handle of mpi.h.  A name set by the user on a derived type and its duplicate follow.
 */
#include "check.h"
#include <string.h>

static const struct { MPI_Datatype t; const char *name; } names[] = {
    { MPI_CHAR, "MPI_CHAR" },
    { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR" },
    { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR" },
    { MPI_BYTE, "MPI_BYTE" },
    { MPI_WCHAR, "MPI_WCHAR" },
    { MPI_SHORT, "MPI_SHORT" },
    { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT" },
    { MPI_INT, "MPI_INT" },
    { MPI_UNSIGNED, "MPI_UNSIGNED" },
    { MPI_LONG, "MPI_LONG" },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG" },
    { MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT" },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG" },
    { MPI_FLOAT, "MPI_FLOAT" },
    { MPI_DOUBLE, "MPI_DOUBLE" },
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE" },
    { MPI_PACKED, "MPI_PACKED" },
    { MPI_LB, "MPI_LB" },
    { MPI_UB, "MPI_UB" },
    { MPI_INT8_T, "MPI_INT8_T" },
    { MPI_INT16_T, "MPI_INT16_T" },
    { MPI_INT32_T, "MPI_INT32_T" },
    { MPI_INT64_T, "MPI_INT64_T" },
    { MPI_UINT8_T, "MPI_UINT8_T" },
    { MPI_UINT16_T, "MPI_UINT16_T" },
    { MPI_UINT32_T, "MPI_UINT32_T" },
    { MPI_UINT64_T, "MPI_UINT64_T" },
    { MPI_C_BOOL, "MPI_C_BOOL" },
    { MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX" },
    { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX" },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX" },
    { MPI_AINT, "MPI_AINT" },
    { MPI_OFFSET, "MPI_OFFSET" },
    { MPI_COUNT, "MPI_COUNT" },
    { MPI_CXX_BOOL, "MPI_CXX_BOOL" },
    { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX" },
    { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX" },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX" },
    { MPI_FLOAT_INT, "MPI_FLOAT_INT" },
    { MPI_DOUBLE_INT, "MPI_DOUBLE_INT" },
    { MPI_LONG_INT, "MPI_LONG_INT" },
    { MPI_SHORT_INT, "MPI_SHORT_INT" },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT" },
    { MPI_2INT, "MPI_2INT" },
    { MPI_CHARACTER, "MPI_CHARACTER" },
    { MPI_LOGICAL, "MPI_LOGICAL" },
    { MPI_INTEGER, "MPI_INTEGER" },
    { MPI_REAL, "MPI_REAL" },
    { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION" },
    { MPI_COMPLEX, "MPI_COMPLEX" },
    { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX" },
    { MPI_2INTEGER, "MPI_2INTEGER" },
    { MPI_2REAL, "MPI_2REAL" },
    { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION" },
    { MPI_INTEGER1, "MPI_INTEGER1" },
    { MPI_INTEGER2, "MPI_INTEGER2" },
    { MPI_INTEGER4, "MPI_INTEGER4" },
    { MPI_INTEGER8, "MPI_INTEGER8" },
    { MPI_REAL4, "MPI_REAL4" },
    { MPI_REAL8, "MPI_REAL8" },
    { MPI_REAL16, "MPI_REAL16" },
    { MPI_COMPLEX8, "MPI_COMPLEX8" },
    { MPI_COMPLEX16, "MPI_COMPLEX16" },
    { MPI_COMPLEX32, "MPI_COMPLEX32" },
    { MPI_C_COMPLEX, "MPI_C_COMPLEX" },
    { MPI_LONG_LONG, "MPI_LONG_LONG_INT" },
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, len;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        memset(name, '#', sizeof name);
        len = -1;
        CHECK_MPI(MPI_Type_get_name(names[i].t, name, &len));
        CHECK(strcmp(name, names[i].name) == 0 && len == (int)strlen(names[i].name),
              "MPI_Type_get_name(0x%x) = \"%s\" (length %d), want \"%s\"",
              (unsigned)names[i].t, name, len, names[i].name);
    }
    MPI_Datatype t, d;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_C_COMPLEX, &t));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == '\0', "a new derived type has the empty name, got \"%s\"", name);
    CHECK_MPI(MPI_Type_set_name(t, "pair of complex"));
    CHECK_MPI(MPI_Type_dup(t, &d));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "pair of complex") == 0, "set name: \"%s\"", name);
    MPI_Type_free(&d);
    MPI_Type_free(&t);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("datatype_names: OK\n");
    MPI_Finalize();
    return 0;
}

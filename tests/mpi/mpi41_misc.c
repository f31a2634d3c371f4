/* mempi-test: np=1,2,3,5 timeout=120 */
/* mpi41_misc.c -- MPI 4.1's small additions: status accessors, MPI_Request_get_status_any/
 * all/some, MPI_Type_get_value_index, MPI_Remove_error_class/code/string, MPI_Get_version.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 *   - MPI_Status_set_source/tag/error then the get forms read back what was set, on a status
 *     a receive filled (the receive's source and tag first);
 *   - every rank receives one message from each other rank with Irecv; before any is sent
 *     Request_get_status_any/all/some report nothing complete (flag 0, outcount 0); after a
 *     barrier that follows the sends, get_status_all reports every status (source, tag,
 *     count) and -- being a query -- leaves the requests valid, which MPI_Waitall then
 *     completes; get_status_some names them all; null requests only: flag 1, index and
 *     outcount MPI_UNDEFINED;
 *   - MPI_Type_get_value_index gives the predefined pair types (MPI_FLOAT_INT, ..., MPI_2INT
 *     for int/int) and MPI_DATATYPE_NULL where MPI defines none; MPI_DATATYPE_NULL as an
 *     argument is MPI_ERR_TYPE;
 *   - error classes, codes and strings are removed in dependency order: a class with a code
 *     or a string, and a code with a string, cannot be; removed ones cannot be removed again
 *     nor given codes; predefined ones cannot be removed;
 *   - the null handles' names (MPI_COMM_NULL, MPI_DATATYPE_NULL, MPI_WIN_NULL: MPI 4.1 7.8);
 *   - MPI_Get_version says what MPI_VERSION/MPI_SUBVERSION say: 4.1 (5.0 through the standard
 *     ABI, whose header is MPI 5.0's).
 * MPICH 4.0.2 has none of these functions (MPI 4.1): no cross-check.
 */
#include <mpi.h>
#include "check.h"
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int version, subversion;
    CHECK_MPI(MPI_Get_version(&version, &subversion));
    /* the library answers what the program's header says: MemPI's ABI is 4.1, the standard
     * ABI's header is MPI 5.0's */
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION, "version %d.%d, header %d.%d",
          version, subversion, MPI_VERSION, MPI_SUBVERSION);
#ifndef MPI_ABI_VERSION
    CHECK(MPI_VERSION == 4 && MPI_SUBVERSION == 1, "header version %d.%d", MPI_VERSION,
          MPI_SUBVERSION);
#else
    CHECK(MPI_VERSION == 5 && MPI_SUBVERSION == 0, "header version %d.%d", MPI_VERSION,
          MPI_SUBVERSION);
#endif

    /* Status accessors. */
    MPI_Status st;
    int v;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 42, &v, 1, MPI_INT, 0, 42,
                           MPI_COMM_SELF, &st));
    CHECK_MPI(MPI_Status_get_source(&st, &v));
    CHECK(v == 0, "source of a message to self on MPI_COMM_SELF: %d", v);
    CHECK_MPI(MPI_Status_get_tag(&st, &v));
    CHECK(v == 42, "tag %d", v);
    CHECK_MPI(MPI_Status_set_source(&st, 7));
    CHECK_MPI(MPI_Status_set_tag(&st, 8));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK_MPI(MPI_Status_get_source(&st, &v));
    CHECK(v == 7 && st.MPI_SOURCE == 7, "set source: %d", v);
    CHECK_MPI(MPI_Status_get_tag(&st, &v));
    CHECK(v == 8 && st.MPI_TAG == 8, "set tag: %d", v);
    CHECK_MPI(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TAG && st.MPI_ERROR == MPI_ERR_TAG, "set error: %d", v);
    CHECK_CLASS(MPI_Status_get_tag(NULL, &v), MPI_ERR_ARG);

    /* Request status queries. */
    int n = size;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)n);
    int *vals = malloc(sizeof(int) * (size_t)n), *idx = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        CHECK_MPI(MPI_Irecv(&vals[i], 1, MPI_INT, i, 5, MPI_COMM_WORLD, &reqs[i]));
    int flag, index, outcount;
    CHECK_MPI(MPI_Request_get_status_all(n, reqs, &flag, sts));
    CHECK(flag == 0, "get_status_all before any send: flag %d", flag);
    CHECK_MPI(MPI_Request_get_status_any(n, reqs, &index, &flag, &st));
    CHECK(flag == 0 && index == MPI_UNDEFINED, "get_status_any before any send: %d/%d", flag,
          index);
    CHECK_MPI(MPI_Request_get_status_some(n, reqs, &outcount, idx, sts));
    CHECK(outcount == 0, "get_status_some before any send: %d", outcount);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        int x = 1000 * rank + i;
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, i, 5, MPI_COMM_WORLD));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (flag = 0; !flag;)
        CHECK_MPI(MPI_Request_get_status_all(n, reqs, &flag, sts));
    for (int i = 0; i < n; i++) {
        int cnt;
        MPI_Get_count(&sts[i], MPI_INT, &cnt);
        CHECK(reqs[i] != MPI_REQUEST_NULL && sts[i].MPI_SOURCE == i && sts[i].MPI_TAG == 5 &&
              cnt == 1 && vals[i] == 1000 * i + rank, "request %d: source %d tag %d count %d "
              "value %d", i, sts[i].MPI_SOURCE, sts[i].MPI_TAG, cnt, vals[i]);
    }
    CHECK_MPI(MPI_Request_get_status_some(n, reqs, &outcount, idx, sts));
    CHECK(outcount == n, "get_status_some after the sends: %d of %d", outcount, n);
    for (int i = 0; i < n; i++)
        CHECK(idx[i] == i && sts[i].MPI_SOURCE == i, "some: index %d source %d", idx[i],
              sts[i].MPI_SOURCE);
    CHECK_MPI(MPI_Request_get_status_any(n, reqs, &index, &flag, &st));
    CHECK(flag == 1 && index == 0 && st.MPI_SOURCE == 0, "any: %d/%d/%d", flag, index,
          st.MPI_SOURCE);
    CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    st.MPI_ERROR = MPI_ERR_OTHER;
    CHECK_MPI(MPI_Request_get_status_any(n, reqs, &index, &flag, &st));
    CHECK(flag == 1 && index == MPI_UNDEFINED && st.MPI_SOURCE == MPI_ANY_SOURCE &&
          st.MPI_TAG == MPI_ANY_TAG && st.MPI_ERROR == MPI_SUCCESS,
          "any of null requests: %d/%d, empty status %d/%d/%d", flag, index, st.MPI_SOURCE,
          st.MPI_TAG, st.MPI_ERROR);
    CHECK_MPI(MPI_Request_get_status_some(n, reqs, &outcount, idx, sts));
    CHECK(outcount == MPI_UNDEFINED, "some of null requests: %d", outcount);
    CHECK_MPI(MPI_Request_get_status_all(n, reqs, &flag, sts));
    CHECK(flag == 1, "all of null requests: %d", flag);

    /* Names of null handles. */
    char name[MPI_MAX_OBJECT_NAME];
    int nlen;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &nlen));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && nlen == 13, "MPI_COMM_NULL's name: %s", name);
    CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &nlen));
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0, "MPI_DATATYPE_NULL's name: %s", name);
    CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, name, &nlen));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0, "MPI_WIN_NULL's name: %s", name);
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &nlen));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "MPI_COMM_WORLD's name: %s", name);
    CHECK_CLASS(MPI_Comm_get_name((MPI_Comm)0x12345, name, &nlen), MPI_ERR_COMM);

    /* Value-index pair types. */
    static const MPI_Datatype pairs[][3] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT }, { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },   { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_INT, MPI_INT, MPI_2INT },        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_INT, MPI_FLOAT, MPI_DATATYPE_NULL }, { MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_get_value_index(pairs[i][0], pairs[i][1], &t));
        CHECK(t == pairs[i][2], "pair %zu: 0x%x, expected 0x%x", i, (unsigned)t,
              (unsigned)pairs[i][2]);
    }
    MPI_Datatype t;
    CHECK_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Type_get_value_index(MPI_INT, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);

    /* Removing error classes, codes and strings. */
    int cls, code;
    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Add_error_string(code, "code text"));
    CHECK_MPI(MPI_Add_error_string(cls, "class text"));
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_OTHER);
    CHECK_CLASS(MPI_Remove_error_code(code), MPI_ERR_OTHER);
    CHECK_MPI(MPI_Remove_error_string(code));
    char text[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(len == 0, "string of a code after its removal: \"%s\"", text);
    CHECK_MPI(MPI_Remove_error_code(code));
    CHECK_CLASS(MPI_Remove_error_code(code), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_OTHER);   /* its string is still there */
    CHECK_MPI(MPI_Remove_error_string(cls));
    CHECK_MPI(MPI_Remove_error_class(cls));
    CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_code(cls, &code), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Remove_error_class(MPI_ERR_TAG), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Remove_error_code(0), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Remove_error_string(0), MPI_ERR_ARG);
    int cls2;
    CHECK_MPI(MPI_Add_error_class(&cls2));
    CHECK(cls2 != cls, "a removed class number was handed out again (%d)", cls2);
    int *last, found;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &found));
    CHECK(found && *last >= cls2, "MPI_LASTUSEDCODE %d below class %d", *last, cls2);

    free(reqs);
    free(sts);
    free(vals);
    free(idx);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi41_misc: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}

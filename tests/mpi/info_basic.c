/* mempi-test: np=1,2 timeout=60 */
/* info_basic.c -- every MPI_Info_* call, MPI_INFO_ENV, Comm_set_info/get_info, dup_with_info.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Info info, copy;
    int n, flag, len;
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];

    MPI_Info_create(&info);
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 0, "new info has %d keys", n);
    MPI_Info_set(info, "alpha", "1");
    MPI_Info_set(info, "beta", "two");
    MPI_Info_set(info, "gamma", "three three");
    MPI_Info_set(info, "alpha", "uno");          /* replaces, keeps position */
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 3, "nkeys %d", n);
    const char *order[3] = { "alpha", "beta", "gamma" };
    for (int i = 0; i < 3; i++) {
        MPI_Info_get_nthkey(info, i, key);
        CHECK(strcmp(key, order[i]) == 0, "key %d is '%s'", i, key);
    }
    MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "uno") == 0, "alpha = '%s'", val);
    MPI_Info_get(info, "gamma", 5, val, &flag);        /* truncated to 5 chars */
    CHECK(flag && strcmp(val, "three") == 0, "truncated gamma = '%s'", val);
    MPI_Info_get(info, "delta", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(!flag, "delta found");
    MPI_Info_get_valuelen(info, "gamma", &len, &flag);
    CHECK(flag && len == 11, "valuelen %d", len);
    MPI_Info_get_valuelen(info, "nothing", &len, &flag);
    CHECK(!flag, "valuelen of missing key");
    /* get_string: length query, then a short buffer */
    int buflen = 0;
    MPI_Info_get_string(info, "beta", &buflen, NULL, &flag);
    CHECK(flag && buflen == 4, "get_string length %d", buflen);
    char small[3];
    buflen = 3;
    MPI_Info_get_string(info, "beta", &buflen, small, &flag);
    CHECK(flag && buflen == 4 && strcmp(small, "tw") == 0, "get_string short '%s' %d", small, buflen);

    MPI_Info_dup(info, &copy);
    MPI_Info_delete(info, "beta");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 2, "nkeys after delete %d", n);
    MPI_Info_get_nthkey(info, 1, key);
    CHECK(strcmp(key, "gamma") == 0, "after delete key 1 '%s'", key);
    MPI_Info_get_nkeys(copy, &n);
    CHECK(n == 3, "dup changed with original: %d", n);
    MPI_Info_get(copy, "beta", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "two") == 0, "dup beta '%s'", val);

    /* communicator hints */
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, copy, &c);
    MPI_Info used;
    MPI_Comm_get_info(c, &used);
    MPI_Info_get(used, "gamma", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "three three") == 0, "comm info gamma '%s'", val);
    MPI_Info_free(&used);
    MPI_Comm_set_info(c, info);
    MPI_Comm_get_info(c, &used);
    MPI_Info_get_nkeys(used, &n);
    CHECK(n == 2, "set_info nkeys %d", n);
    MPI_Info_free(&used);
    MPI_Comm_get_info(MPI_COMM_WORLD, &used);
    CHECK(used != MPI_INFO_NULL, "get_info returned MPI_INFO_NULL");
    MPI_Info_free(&used);
    MPI_Comm_free(&c);

    /* MPI_INFO_ENV */
    MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
    CHECK(n >= 0, "env nkeys");
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, val, &flag);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(!flag || atoi(val) == size, "maxprocs '%s'", val);
    MPI_Info envcopy;
    MPI_Info_dup(MPI_INFO_ENV, &envcopy);
    MPI_Info_free(&envcopy);

    MPI_Info_free(&info);
    MPI_Info_free(&copy);
    CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "free did not reset");
    MPI_Finalize();
    return 0;
}

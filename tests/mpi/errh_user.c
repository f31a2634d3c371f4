/* mempi-test: np=1,2,3 timeout=60 */
/* errh_user.c -- user error handlers, Comm_call_errhandler, MPI-1 names, error classes, codes and strings.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;
static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    MPI_Errhandler eh, got;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_get_errhandler(c, &got);
    CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler 0x%x", (unsigned)got);
    MPI_Errhandler_free(&got);
    MPI_Comm_set_errhandler(c, eh);
    MPI_Comm_get_errhandler(c, &got);
    CHECK(got == eh, "get_errhandler 0x%x", (unsigned)got);
    MPI_Errhandler_free(&got);

    /* an error on c goes to the handler, which returns; the call returns the code */
    int buf = 0;
    int err = MPI_Send(&buf, 1, MPI_INT, wsize + 5, 0, c);
    int cls;
    MPI_Error_class(err, &cls);
    CHECK(calls == 1 && cls == MPI_ERR_RANK && last_code == err && last_comm == c,
          "handler calls %d class %d", calls, cls);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(err, msg, &len);
    CHECK(len == (int)strlen(msg) && strstr(msg, "MPI_Send") && strstr(msg, "rank"),
          "error string '%s'", msg);

    /* the handler is inherited by a dup, and survives the user's free */
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL, "free did not reset");
    MPI_Comm d;
    MPI_Comm_dup(c, &d);
    MPI_Comm_call_errhandler(d, MPI_ERR_OTHER);
    CHECK(calls == 2 && last_code == MPI_ERR_OTHER && last_comm == d, "call_errhandler on dup");

    /* MPI-1 names */
    MPI_Errhandler old;
    MPI_Errhandler_create(handler, &old);
    MPI_Errhandler_set(d, old);
    MPI_Errhandler g2;
    MPI_Errhandler_get(d, &g2);
    CHECK(g2 == old, "Errhandler_get");
    MPI_Errhandler_free(&g2);
    MPI_Errhandler_free(&old);
    MPI_Comm_call_errhandler(d, MPI_ERR_ARG);
    CHECK(calls == 3 && last_code == MPI_ERR_ARG, "MPI-1 handler");

    /* MPI_ERRORS_RETURN: call_errhandler just returns */
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER) == MPI_SUCCESS && calls == 3, "errors_return");

    /* user error classes, codes, strings */
    int myclass, mycode, mycode2;
    MPI_Add_error_class(&myclass);
    MPI_Add_error_code(myclass, &mycode);
    MPI_Add_error_code(myclass, &mycode2);
    CHECK(mycode != mycode2, "codes equal");
    MPI_Add_error_string(myclass, "my class");
    MPI_Add_error_string(mycode, "my first code");
    MPI_Error_class(mycode, &cls);
    CHECK(cls == myclass, "class of user code %d", cls);
    MPI_Error_string(mycode, msg, &len);
    CHECK(strcmp(msg, "my first code") == 0, "user code string '%s'", msg);
    MPI_Error_string(myclass, msg, &len);
    CHECK(strcmp(msg, "my class") == 0, "user class string '%s'", msg);
    void *v;
    int flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    CHECK(flag && *(int *)v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", flag ? *(int *)v : -1);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_call_errhandler(c, mycode);

    /* predefined classes map to themselves and have strings */
    for (int k = 1; k <= MPI_ERR_LASTCODE && k < 60; k++) {
        MPI_Error_class(k, &cls);
        CHECK(cls == k, "class of %d is %d", k, cls);
        MPI_Error_string(k, msg, &len);
        CHECK(len > 0, "empty string for class %d", k);
    }
    MPI_Error_string(MPI_SUCCESS, msg, &len);
    CHECK(len > 0, "no string for MPI_SUCCESS");

    /* alloc_mem / free_mem */
    double *mem;
    MPI_Alloc_mem(1000 * sizeof(double), MPI_INFO_NULL, &mem);
    for (int i = 0; i < 1000; i++) mem[i] = i;
    MPI_Free_mem(mem);

    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}

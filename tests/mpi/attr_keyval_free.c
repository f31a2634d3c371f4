/* mempi-test: np=1,2,3 timeout=60 */
/* attr_keyval_free.c -- a keyval freed while attributes still use it.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * MPI 4.0 7.7.2, MPI_COMM_FREE_KEYVAL: "it is not erroneous to free an attribute key that is
 * in use, because the actual free does not transpire until after all references (in other
 * communicators on the process) to the key have been freed.  These references need to be
 * explicitly freed by the program, either via calls to MPI_COMM_DELETE_ATTR ... or by calls
 * to MPI_COMM_FREE."  So after MPI_Comm_free_keyval the program's saved copy of the key
 * still reaches its attributes: MPI_Comm_get_attr finds them, MPI_Comm_delete_attr deletes
 * them and runs the delete callback, a duplicate still copies them, MPI_Comm_free runs the
 * callbacks.  The keyval variable is MPI_KEYVAL_INVALID after the free, and freeing again
 * (that value, or the saved copy) is an MPI_ERR_KEYVAL error.  The same for datatype keyvals
 * and the MPI-1 names (MPI_Keyval_create, MPI_Attr_put/get/delete, MPI_Keyval_free).
 */
#include "check.h"

static int deletes, copies;
static long last_deleted;

static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra;
    copies++;
    *(void **)out = (void *)((long)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c; (void)k; (void)extra;
    deletes++;
    last_deleted = (long)val;
    return MPI_SUCCESS;
}

static int type_delete_fn(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t; (void)k; (void)extra;
    deletes++;
    last_deleted = (long)val;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, flag;
    void *v;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* communicator keyval: get, delete, dup and free after the keyval was freed */
    int key, saved;
    MPI_Comm a, b, c;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    saved = key;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    CHECK_MPI(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_attr(a, key, (void *)11L));
    CHECK_MPI(MPI_Comm_set_attr(b, key, (void *)22L));
    CHECK_MPI(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "Comm_free_keyval left key 0x%x", (unsigned)key);
    CHECK(deletes == 0, "freeing the keyval deleted attributes");

    flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(a, saved, &v, &flag));
    CHECK(flag && (long)v == 11, "get_attr with the freed key: flag %d value %ld", flag, (long)v);
    CHECK_MPI(MPI_Comm_dup(a, &c));               /* copies through the freed key */
    CHECK(copies == 1, "dup after the keyval free: %d copy calls", copies);
    CHECK_MPI(MPI_Comm_get_attr(c, saved, &v, &flag));
    CHECK(flag && (long)v == 111, "the duplicate's attribute: flag %d value %ld", flag, (long)v);
    CHECK_MPI(MPI_Comm_delete_attr(a, saved));
    CHECK(deletes == 1 && last_deleted == 11, "delete_attr with the freed key: %d deletes, "
          "value %ld", deletes, last_deleted);
    CHECK_MPI(MPI_Comm_get_attr(a, saved, &v, &flag));
    CHECK(!flag, "the deleted attribute is still there");
    CHECK_MPI(MPI_Comm_free(&b));
    CHECK(deletes == 2 && last_deleted == 22, "Comm_free after the keyval free: %d deletes, "
          "value %ld", deletes, last_deleted);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK(deletes == 3 && last_deleted == 111, "Comm_free of the duplicate: %d deletes",
          deletes);

    /* freeing again is an error, whether with MPI_KEYVAL_INVALID or with the saved copy */
    CHECK_CLASS(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
    int again = saved;
    CHECK_CLASS(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL);
    /* with no attribute left the key is gone for good */
    CHECK_CLASS(MPI_Comm_get_attr(a, saved, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(a, saved, (void *)1L), MPI_ERR_KEYVAL);
    MPI_Comm_free(&a);

    /* MPI-1 names */
    int k1;
    MPI_Comm d;
    deletes = 0;
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, delete_fn, &k1, NULL));
    saved = k1;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_MPI(MPI_Attr_put(d, k1, (void *)33L));
    CHECK_MPI(MPI_Keyval_free(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "Keyval_free left 0x%x", (unsigned)k1);
    CHECK_MPI(MPI_Attr_get(d, saved, &v, &flag));
    CHECK(flag && (long)v == 33, "Attr_get with the freed key");
    CHECK_MPI(MPI_Attr_delete(d, saved));
    CHECK(deletes == 1 && last_deleted == 33, "Attr_delete with the freed key");
    CHECK_CLASS(MPI_Keyval_free(&k1), MPI_ERR_KEYVAL);
    MPI_Comm_free(&d);

    /* datatype keyvals */
    int tk;
    MPI_Datatype t;
    deletes = 0;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_fn, &tk, NULL));
    saved = tk;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, tk, (void *)44L));
    CHECK_MPI(MPI_Type_free_keyval(&tk));
    CHECK(tk == MPI_KEYVAL_INVALID, "Type_free_keyval left 0x%x", (unsigned)tk);
    CHECK_MPI(MPI_Type_get_attr(t, saved, &v, &flag));
    CHECK(flag && (long)v == 44, "Type_get_attr with the freed key");
    CHECK_MPI(MPI_Type_delete_attr(t, saved));
    CHECK(deletes == 1 && last_deleted == 44, "Type_delete_attr with the freed key");
    CHECK_MPI(MPI_Type_set_attr(t, saved, (void *)55L) == MPI_SUCCESS ? MPI_ERR_OTHER :
              MPI_SUCCESS);           /* no attribute left: the key is gone */
    CHECK_CLASS(MPI_Type_free_keyval(&tk), MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK(deletes == 1, "a deleted attribute's callback ran again at Type_free");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("attr_keyval_free: OK\n");
    MPI_Finalize();
    return 0;
}

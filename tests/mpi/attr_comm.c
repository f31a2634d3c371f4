/* mempi-test: np=1,2,3 timeout=60 */
/* attr_comm.c -- keyvals, copy/delete callbacks, predefined attributes, MPI-1 names, datatype attributes.  MemPI, BSD-3-Clause (see LICENSE). */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int wrank, wsize;
static int copies, deletes, last_deleted = -1;
static int extra_token = 1234;

static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    if (extra != &extra_token) return MPI_ERR_OTHER;
    copies++;
    *(void **)out = (void *)((long)in + 1);     /* the copy is one more than the original */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    if (extra != &extra_token) return MPI_ERR_OTHER;
    deletes++;
    last_deleted = (int)(long)val;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    return MPI_ERR_OTHER;
}

/* MPI_COMM_SELF attributes are deleted first thing in MPI_Finalize, newest first. */
static int self_order[3], self_n;
static int self_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    self_order[self_n++] = (int)(long)val;
    if (self_n == 3 && !(self_order[0] == 3 && self_order[1] == 2 && self_order[2] == 1)) {
        fprintf(stderr, "rank %d: MPI_COMM_SELF attributes deleted in order %d %d %d\n", wrank,
                self_order[0], self_order[1], self_order[2]);
        exit(1);
    }
    return MPI_SUCCESS;
}

static int type_deletes;
static int type_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    type_deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    void *val;
    int flag;

    /* predefined attributes */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag);
    CHECK(flag && *(int *)val >= 32767, "MPI_TAG_UB %d", flag ? *(int *)val : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag);
    CHECK(flag, "MPI_HOST missing");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag);
    CHECK(flag && (*(int *)val == MPI_ANY_SOURCE || (*(int *)val >= 0 && *(int *)val < wsize)), "MPI_IO");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag);
    CHECK(!flag || *(int *)val == 0 || *(int *)val == 1, "MPI_WTIME_IS_GLOBAL");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag);
    CHECK(!flag || *(int *)val >= wsize, "MPI_UNIVERSE_SIZE");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag);
    CHECK(!flag || *(int *)val == 0, "MPI_APPNUM %d", flag ? *(int *)val : -1);
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag);
    CHECK(flag, "MPI_Attr_get(MPI_TAG_UB)");

    /* a keyval with callbacks */
    int key, nullkey, mpi1key;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra_token);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nullkey, NULL);
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &mpi1key, NULL);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_get_attr(c, key, &val, &flag);
    CHECK(!flag, "attribute present before set");
    MPI_Comm_set_attr(c, key, (void *)100L);
    MPI_Comm_set_attr(c, nullkey, (void *)200L);
    MPI_Attr_put(c, mpi1key, (void *)300L);
    MPI_Comm_get_attr(c, key, &val, &flag);
    CHECK(flag && (long)val == 100, "get %ld", (long)val);
    /* overwrite runs the delete callback on the old value */
    MPI_Comm_set_attr(c, key, (void *)101L);
    CHECK(deletes == 1 && last_deleted == 100, "overwrite deletes %d last %d", deletes, last_deleted);

    /* dup: copy callback runs, NULL copy is not copied, MPI_DUP_FN copies as is */
    MPI_Comm d;
    MPI_Comm_dup(c, &d);
    CHECK(copies == 1, "copies %d", copies);
    MPI_Comm_get_attr(d, key, &val, &flag);
    CHECK(flag && (long)val == 102, "copied value %ld", (long)val);
    MPI_Comm_get_attr(d, nullkey, &val, &flag);
    CHECK(!flag, "null-copy attribute was copied");
    MPI_Attr_get(d, mpi1key, &val, &flag);
    CHECK(flag && (long)val == 300, "dup_fn value %ld", (long)val);

    /* delete_attr runs the callback; free runs it for what is left */
    MPI_Comm_delete_attr(d, key);
    CHECK(deletes == 2 && last_deleted == 102, "delete_attr: deletes %d last %d", deletes, last_deleted);
    MPI_Comm_get_attr(d, key, &val, &flag);
    CHECK(!flag, "attribute present after delete");
    MPI_Comm_free(&d);
    CHECK(deletes == 2, "free of d called delete %d", deletes);

    /* freeing the keyval keeps existing attributes working until the comm goes */
    MPI_Comm_free_keyval(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset");
    MPI_Comm_free(&c);
    CHECK(deletes == 3 && last_deleted == 101, "free: deletes %d last %d", deletes, last_deleted);
    MPI_Comm_free_keyval(&nullkey);
    MPI_Keyval_free(&mpi1key);

    /* a failing copy callback makes the dup fail and leaves no communicator */
    int badkey;
    MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &badkey, NULL);
    MPI_Comm e;
    MPI_Comm_dup(MPI_COMM_WORLD, &e);
    MPI_Comm_set_attr(e, badkey, (void *)1L);
    MPI_Comm_set_errhandler(e, MPI_ERRORS_RETURN);
    MPI_Comm f = MPI_COMM_NULL;
    int err = MPI_Comm_dup(e, &f);
    CHECK(err != MPI_SUCCESS, "dup with a failing copy callback succeeded");
    MPI_Comm_free(&e);
    MPI_Comm_free_keyval(&badkey);

    /* datatype attributes: Type_dup copies, Type_free deletes */
    int tkey;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &tkey, NULL);
    MPI_Datatype t, t2;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, tkey, (void *)7L);
    MPI_Type_dup(t, &t2);
    MPI_Type_get_attr(t2, tkey, &val, &flag);
    CHECK(flag && (long)val == 7, "type attr copy %d %ld", flag, (long)val);
    MPI_Type_delete_attr(t2, tkey);
    CHECK(type_deletes == 1, "type delete %d", type_deletes);
    MPI_Type_free(&t);
    MPI_Type_free(&t2);      /* t's delete callback runs by now (MPICH defers it to here) */
    CHECK(type_deletes == 2, "type free delete %d", type_deletes);
    MPI_Type_free_keyval(&tkey);

    /* attributes on MPI_COMM_SELF, checked at MPI_Finalize */
    int skey;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &skey, NULL);
    int skey2, skey3;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &skey2, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &skey3, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, skey, (void *)1L);
    MPI_Comm_set_attr(MPI_COMM_SELF, skey2, (void *)2L);
    MPI_Comm_set_attr(MPI_COMM_SELF, skey3, (void *)3L);
    MPI_Finalize();
    if (self_n != 3) {
        fprintf(stderr, "rank %d: %d MPI_COMM_SELF delete callbacks ran at MPI_Finalize\n", wrank, self_n);
        return 1;
    }
    return 0;
}

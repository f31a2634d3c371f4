/* mempi-test: np=1,2,3,5 timeout=120 */
/* mempi-test: np=2,3 timeout=180 env=MEMPI_CMA=0 */
/* rma_win_props.c -- what a window carries besides memory: user keyvals and their callbacks, names, error handlers, info hints.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * Keyvals: an attribute set, overwritten (the delete callback sees the old value, the window,
 * the keyval and the extra state), deleted, set again and freed with the window (delete
 * again); the copy callback is never called (windows are never duplicated); the predefined
 * MPI_WIN_NULL_COPY_FN / MPI_WIN_NULL_DELETE_FN / MPI_WIN_DUP_FN are accepted; a keyval freed
 * while still attached keeps its attribute, whose delete callback runs at MPI_Win_free.
 *
 * Names: empty by default (length 0), set and read back per process, a name longer than
 * MPI_MAX_OBJECT_NAME - 1 truncated to a prefix.
 *
 * Error handlers: a new window's handler is MPI_ERRORS_ARE_FATAL; a user handler made with
 * MPI_Win_create_errhandler is set and read back, runs on MPI_Win_call_errhandler with that
 * window and code, and runs on a real error (a put to rank P) with a code of class
 * MPI_ERR_RANK that the call also returns -- also after the user's handle was freed.
 *
 * Info: the six hints of the standard (no_locks, accumulate_ordering, accumulate_ops,
 * same_size, same_disp_unit, alloc_shared_noncontig) appear in MPI_Win_get_info with their
 * defaults on a window made without info, and with the values given at creation otherwise
 * (an unknown key is accepted and may be dropped); MPI_Win_set_info changes
 * accumulate_ordering (the new or the old value may be reported: an implementation may
 * ignore a hint after creation) and leaves the hints it does not name as they were; the
 * window still works afterwards.  MPICH 4.0.2 reports all six; the test asks the same.
 */
#include "rma_common.h"

static int me, np;

/* ---- keyvals ---- */
static int copies, deletes, token;
static MPI_Win last_win;
static int last_key;
static void *last_val, *last_extra;

static int copy_fn(MPI_Win w, int key, void *extra, void *in, void *out, int *flag)
{
    (void)w; (void)key; (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Win w, int key, void *val, void *extra)
{
    deletes++;
    last_win = w;
    last_key = key;
    last_val = val;
    last_extra = extra;
    return MPI_SUCCESS;
}

static void test_keyvals(void)
{
    rma_win w;
    rma_win_open(&w, FL_ALLOCATE, 64, 8, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win win = w.win;
    int key = MPI_KEYVAL_INVALID, key2, key3, flag = -1;
    void *val = NULL;
    CHECK_MPI(MPI_Win_create_keyval(copy_fn, delete_fn, &key, &token));
    CHECK(key != MPI_KEYVAL_INVALID, "MPI_Win_create_keyval gave MPI_KEYVAL_INVALID");
    CHECK_MPI(MPI_Win_get_attr(win, key, &val, &flag));
    CHECK(!flag, "unset attribute reported as set");
    CHECK_MPI(MPI_Win_set_attr(win, key, (void *)(intptr_t)100));
    CHECK_MPI(MPI_Win_get_attr(win, key, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)100, "attribute: flag %d value %p", flag, val);
    CHECK(deletes == 0, "set on an empty slot called delete");
    CHECK_MPI(MPI_Win_set_attr(win, key, (void *)(intptr_t)101));
    CHECK(deletes == 1 && last_val == (void *)(intptr_t)100 && last_win == win && last_key == key
          && last_extra == &token, "overwrite: deletes %d, value %p, window ok %d, key %d/%d, "
          "extra ok %d", deletes, last_val, last_win == win, last_key, key, last_extra == &token);
    CHECK_MPI(MPI_Win_delete_attr(win, key));
    CHECK(deletes == 2 && last_val == (void *)(intptr_t)101, "delete_attr: deletes %d value %p",
          deletes, last_val);
    CHECK_MPI(MPI_Win_get_attr(win, key, &val, &flag));
    CHECK(!flag, "deleted attribute still set");
    CHECK_MPI(MPI_Win_set_attr(win, key, (void *)(intptr_t)102));

    /* predefined callbacks */
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key2, NULL));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, delete_fn, &key3, &token));
    CHECK_MPI(MPI_Win_set_attr(win, key2, (void *)(intptr_t)7));
    CHECK_MPI(MPI_Win_get_attr(win, key2, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)7, "attribute with the null callbacks: %d %p", flag, val);
    /* a keyval freed while attached: the attribute lives on until the window goes */
    CHECK_MPI(MPI_Win_set_attr(win, key3, (void *)(intptr_t)103));
    CHECK_MPI(MPI_Win_free_keyval(&key3));
    CHECK(key3 == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval did not reset the keyval");
    CHECK_MPI(MPI_Win_free_keyval(&key2));

    /* predefined attributes stay readable next to user ones */
    int *model = NULL;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL next to user attributes");

    int before = deletes;
    rma_win_close(&w);
    CHECK(deletes == before + 2, "MPI_Win_free ran %d delete callbacks, expected 2", deletes - before);
    CHECK((last_val == (void *)(intptr_t)102 || last_val == (void *)(intptr_t)103), "MPI_Win_free "
          "deleted value %p", last_val);
    CHECK(copies == 0, "the copy callback ran %d times on a window", copies);
    CHECK_MPI(MPI_Win_free_keyval(&key));
}

/* ---- names ---- */
static void test_names(void)
{
    rma_win w;
    rma_win_open(&w, FL_CREATE, 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
    char name[MPI_MAX_OBJECT_NAME], want[64];
    int len = -1;
    CHECK_MPI(MPI_Win_get_name(w.win, name, &len));
    CHECK(len == 0 && name[0] == 0, "default window name '%s' (length %d), expected empty", name, len);
    snprintf(want, sizeof want, "halo window of rank %d", me);
    CHECK_MPI(MPI_Win_set_name(w.win, want));
    CHECK_MPI(MPI_Win_get_name(w.win, name, &len));
    CHECK(!strcmp(name, want) && len == (int)strlen(want), "name '%s' (%d), expected '%s'", name,
          len, want);
    char longname[3 * MPI_MAX_OBJECT_NAME];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    longname[0] = 'L';
    CHECK_MPI(MPI_Win_set_name(w.win, longname));
    CHECK_MPI(MPI_Win_get_name(w.win, name, &len));
    CHECK(len == (int)strlen(name) && len <= MPI_MAX_OBJECT_NAME - 1 && len > 0
          && !strncmp(name, longname, (size_t)len), "long name: length %d, '%.20s...'", len, name);
    rma_win_close(&w);
}

/* ---- error handlers ---- */
static int eh_calls, eh_code;
static MPI_Win eh_win;

static void win_handler(MPI_Win *win, int *code, ...)
{
    eh_calls++;
    eh_win = *win;
    eh_code = *code;
}

static void test_errhandlers(void)
{
    rma_win w;
    MPI_Win win;
    MPI_Errhandler eh, got;
    rma_win_open(&w, FL_ALLOCATE, 64, 8, MPI_INFO_NULL, MPI_COMM_WORLD);
    win = w.win;
    /* rma_win_open set MPI_ERRORS_RETURN; a fresh window has MPI_ERRORS_ARE_FATAL */
    MPI_Win fresh;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &fresh));
    CHECK_MPI(MPI_Win_get_errhandler(fresh, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
    CHECK_MPI(MPI_Win_free(&fresh));

    CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK_MPI(MPI_Win_set_errhandler(win, eh));
    CHECK_MPI(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "MPI_Win_get_errhandler returned another handler");
    CHECK_MPI(MPI_Errhandler_free(&got));

    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(eh_calls == 1 && eh_win == win && eh_code == MPI_ERR_OTHER, "MPI_Win_call_errhandler: "
          "%d calls, window ok %d, code %d", eh_calls, eh_win == win, eh_code);

    long v = 5;
    int cls = -1;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    int rc = MPI_Put(&v, 1, MPI_LONG, np, 0, 1, MPI_LONG, win);
    CHECK(rc != MPI_SUCCESS && eh_calls == 2 && eh_win == win && eh_code == rc, "put to rank %d: "
          "returned %d, handler calls %d, handler code %d", np, rc, eh_calls, eh_code);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "put to rank %d: class %d, expected MPI_ERR_RANK", np, cls);
    /* the user's handle freed: the window keeps its handler */
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");
    rc = MPI_Get(&v, 1, MPI_LONG, -7, 0, 1, MPI_LONG, win);
    CHECK(rc != MPI_SUCCESS && eh_calls == 3 && eh_code == rc, "get from rank -7 after "
          "MPI_Errhandler_free: returned %d, handler calls %d", rc, eh_calls);
    /* the window still works */
    long one = 1, got_v = 0;
    int t = (me + 1) % np;
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, me, 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK_MPI(MPI_Get(&got_v, 1, MPI_LONG, t, me, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK(eh_calls == 3, "a correct call ran the error handler");
    (void)got_v;   /* the window memory was not initialised: only the calls' success counts */
    rma_win_close(&w);
}

/* ---- info ---- */
static const char *const keys[6] = {"no_locks", "accumulate_ordering", "accumulate_ops",
                                    "same_size", "same_disp_unit", "alloc_shared_noncontig"};
static const char *const defaults[6] = {"false", "rar,raw,war,waw", "same_op_no_op", "false",
                                        "false", "false"};

/* Comma lists compared as sets ("waw,rar" equals "rar,waw"). */
static int same_list(const char *a, const char *b)
{
    char x[256], y[256];
    snprintf(x, sizeof x, ",%s,", a);
    snprintf(y, sizeof y, ",%s,", b);
    for (int pass = 0; pass < 2; pass++) {
        const char *p = pass ? x : y, *other = pass ? y : x;
        for (const char *s = p + 1; *s; ) {
            const char *e = strchr(s, ',');
            char tok[64];
            snprintf(tok, sizeof tok, ",%.*s,", (int)(e - s), s);
            if (e > s && !strstr(other, tok)) return 0;
            s = e + 1;
        }
    }
    return 1;
}

static void info_value(MPI_Win win, const char *key, char *value, int *found)
{
    MPI_Info used;
    CHECK_MPI(MPI_Win_get_info(win, &used));
    CHECK(used != MPI_INFO_NULL, "MPI_Win_get_info returned MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_get(used, key, 255, value, found));
    CHECK_MPI(MPI_Info_free(&used));
}

static void expect_hints(MPI_Win win, const char *const want[6], const char *what)
{
    for (int k = 0; k < 6; k++) {
        char v[256] = "";
        int found = 0;
        info_value(win, keys[k], v, &found);
        CHECK(found, "%s: MPI_Win_get_info lacks %s", what, keys[k]);
        CHECK(same_list(v, want[k]), "%s: %s = '%s', expected '%s'", what, keys[k], v, want[k]);
    }
}

static void test_info(void)
{
    rma_win w;
    rma_win_open(&w, FL_SHARED, 64, 8, MPI_INFO_NULL, MPI_COMM_SELF);
    expect_hints(w.win, defaults, "window made without info");
    rma_win_close(&w);

    static const char *const given[6] = {"false", "waw,rar", "same_op", "true", "true", "true"};
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    for (int k = 0; k < 6; k++)
        CHECK_MPI(MPI_Info_set(info, keys[k], given[k]));
    CHECK_MPI(MPI_Info_set(info, "mempi_test_unknown_hint", "42"));
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    rma_win_open(&w, FL_SHARED, 64, 8, info, node);
    CHECK_MPI(MPI_Info_free(&info));
    expect_hints(w.win, given, "window made with all six hints");

    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "accumulate_ordering", "none"));
    CHECK_MPI(MPI_Win_set_info(w.win, info));
    CHECK_MPI(MPI_Info_free(&info));
    char v[256] = "";
    int found = 0;
    info_value(w.win, "accumulate_ordering", v, &found);
    CHECK(found && (!strcmp(v, "none") || same_list(v, given[1])), "after MPI_Win_set_info: "
          "accumulate_ordering = '%s'", v);
    const char *rest[6];
    memcpy(rest, given, sizeof rest);
    rest[1] = found && !strcmp(v, "none") ? "none" : given[1];
    expect_hints(w.win, rest, "after MPI_Win_set_info(accumulate_ordering)");

    /* still a working window: accumulates from every node rank into node rank 0 */
    int nr, nn;
    CHECK_MPI(MPI_Comm_rank(node, &nr));
    CHECK_MPI(MPI_Comm_size(node, &nn));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, nr, 0, w.win));
    memset(w.base, 0, 64);
    CHECK_MPI(MPI_Win_unlock(nr, w.win));
    CHECK_MPI(MPI_Barrier(node));
    long one = nr + 1, sum = 0;
    CHECK_MPI(MPI_Win_lock_all(0, w.win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 2, 1, MPI_LONG, MPI_SUM, w.win));
    CHECK_MPI(MPI_Win_unlock_all(w.win));
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
    CHECK_MPI(MPI_Get(&sum, 1, MPI_LONG, 0, 2, 1, MPI_LONG, w.win));
    CHECK_MPI(MPI_Win_unlock(0, w.win));
    CHECK(sum == (long)nn * (nn + 1) / 2, "sum after MPI_Win_set_info: %ld, expected %ld", sum,
          (long)nn * (nn + 1) / 2);
    CHECK_MPI(MPI_Barrier(node));
    rma_win_close(&w);
    CHECK_MPI(MPI_Comm_free(&node));
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, &me, &np);
    test_keyvals();
    test_names();
    test_errhandlers();
    test_info();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("rma_win_props: keyvals, names, error handlers and info passed on %d ranks\n", np);
    MPI_Finalize();
    return 0;
}

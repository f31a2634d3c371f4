/* config_fuzz.c -- fuzzer and unit tests of the MEMPI_* value parsers, the configuration table
 * and the MEMPI_TUNING file parser.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Both take outside input (the environment, a file named by the user).  Checked here:
 *   0. the table itself (every layer's rows): unique MEMPI_ names, every default loads, a
 *      malformed value of every row stops the load with a message naming the variable and the
 *      value, and a MEMPI_TUNING file reaches every row (its values are checked the same way);
 *   1. known good and known bad inputs give the documented result (a table of cases);
 *   2. arbitrary bytes never crash or overrun the parsers (run the suite with
 *      SANITIZE=address to make that visible), and a tuning parse either fails with a message
 *      that names a line or succeeds with only MEMPI_* names and values that contain no
 *      control characters and no '#';
 *   3. what parses is stable: printing the parsed settings as `NAME = VALUE` lines and parsing
 *      them again gives the same settings.
 * The generator is seeded (xorshift64*), so a failure repeats.
 */
#include "core/core.h"
#include "coll/coll.h"

#include <stdint.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ITERATIONS 200000

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
                                             fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void test_values(void)
{
    size_t z;
    long l;
    int c;
    static const char *const choices[] = { "auto", "spin", NULL };
    CHECK(mp_parse_size("4096", &z) == 0 && z == 4096, "4096");
    CHECK(mp_parse_size("64k", &z) == 0 && z == 65536, "64k");
    CHECK(mp_parse_size("1MiB", &z) == 0 && z == 1048576, "1MiB");
    CHECK(mp_parse_size("2G", &z) == 0 && z == (size_t)2 << 30, "2G");
    const char *bad_sizes[] = { "", "-1", " 1", "1 ", "k", "1kk", "1x", "0x10", "99999999999999999999",
                                "17179869184G", "1KiBB", NULL };
    for (int i = 0; bad_sizes[i]; i++)
        CHECK(mp_parse_size(bad_sizes[i], &z) != 0, "size '%s' accepted", bad_sizes[i]);
    CHECK(mp_parse_size(NULL, &z) != 0, "NULL size accepted");
    CHECK(mp_parse_int("7", 0, 10, &l) == 0 && l == 7, "7");
    CHECK(mp_parse_int("-3", -5, 5, &l) == 0 && l == -3, "-3");
    const char *bad_ints[] = { "", "11", "-6", "1.0", "3 ", "0x1", "99999999999999999999", NULL };
    for (int i = 0; bad_ints[i]; i++)
        CHECK(mp_parse_int(bad_ints[i], -5, 10, &l) != 0, "int '%s' accepted", bad_ints[i]);
    CHECK(mp_parse_choice("SPIN", choices, &c) == 0 && c == 1, "SPIN");
    CHECK(mp_parse_choice("spinx", choices, &c) != 0, "spinx accepted");
}


/* A value row v must refuse. */
static const char *bad_value_for(const mp_config_var *v)
{
    if (v->parse != NULL)
        return "1.5M";
    switch (v->type) {
    case MP_CFG_SIZE:   return "12x";
    case MP_CFG_INT:    return "nine";
    case MP_CFG_BOOL:   return "2";
    case MP_CFG_CHOICE: return "no-such-choice";
    default:            return NULL;     /* any text is a string */
    }
}

static void test_table(void)
{
    extern char **environ;
    mp_config_add(mp_coll_config_vars, mp_coll_config_nvars);
    mp_config_add(mp_coll_config_vars, mp_coll_config_nvars);        /* registered once */
    int n = mp_config_count();
    CHECK(n >= 27 + 17, "%d rows: the core's and the collective layer's", n);
    for (char **e = environ; *e; ) {                                 /* a clean environment */
        if (strncmp(*e, "MEMPI_", 6) == 0) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
            unsetenv(name);
        } else {
            e++;
        }
    }
    CHECK(mp_config_load() == MPI_SUCCESS, "defaults refused: %s",
          mp_error_message(mp_config_load()));
    for (int i = 0; i < n; i++) {
        const mp_config_var *v = mp_config_row(i);
        CHECK(strncmp(v->name, "MEMPI_", 6) == 0, "row %d: name '%s'", i, v->name);
        CHECK(mp_config_index(v->name, strlen(v->name)) == i, "%s: not unique", v->name);
        CHECK(v->field != NULL && v->meaning != NULL && *v->meaning, "%s: field, meaning", v->name);
        CHECK(v->type != MP_CFG_CHOICE || v->choices != NULL, "%s: choices", v->name);
        CHECK(mp_config_source(v->name) == MP_CFG_FROM_DEFAULT, "%s: not from the default",
              v->name);
        CHECK(v->parse == NULL || (v->expect != NULL && *v->expect), "%s: expect", v->name);
        const char *bad = bad_value_for(v);
        if (bad == NULL || strcmp(v->name, "MEMPI_TUNING") == 0)
            continue;
        setenv(v->name, bad, 1);
        int err = mp_config_load();
        char want[160];
        snprintf(want, sizeof want, "invalid value '%s' for %s (expected ", bad, v->name);
        CHECK(err != MPI_SUCCESS && strstr(mp_error_message(err), want) != NULL,
              "%s=%s: load gave '%s'", v->name, bad, err ? mp_error_message(err) : "success");
        unsetenv(v->name);
    }
    CHECK(mp_config_load() == MPI_SUCCESS, "defaults after the bad values");

    /* MEMPI_TUNING reaches every row: each one's default, given in the file, counts as set
     * there; a bad value from the file names the file. */
    char path[] = "/tmp/mempi-config-fuzz-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "w");
    for (int i = 0; f && i < n; i++) {
        const mp_config_var *v = mp_config_row(i);
        if (*v->defval && strcmp(v->name, "MEMPI_TUNING") != 0)
            fprintf(f, "%s = %s\n", v->name, v->defval);
    }
    if (f)
        fclose(f);
    setenv("MEMPI_TUNING", path, 1);
    CHECK(mp_config_load() == MPI_SUCCESS, "tuning file of defaults refused");
    for (int i = 0; i < n; i++) {
        const mp_config_var *v = mp_config_row(i);
        if (*v->defval && strcmp(v->name, "MEMPI_TUNING") != 0)
            CHECK(mp_config_source(v->name) == MP_CFG_FROM_TUNING, "%s: file not applied", v->name);
    }
    setenv("MEMPI_SPIN", "77", 1);
    CHECK(mp_config_load() == MPI_SUCCESS && mp_cfg.spin_count == 77 &&
          mp_config_source("MEMPI_SPIN") == MP_CFG_FROM_ENV, "the environment wins");
    unsetenv("MEMPI_SPIN");
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "MEMPI_COLL_BCAST = linear\nMEMPI_NET_CREDITS = 1\n");
        fclose(f);
    }
    int err = mp_config_load();
    char want[200];
    snprintf(want, sizeof want, "invalid value '1' for MEMPI_NET_CREDITS in MEMPI_TUNING file '%s'",
             path);
    CHECK(err != MPI_SUCCESS && strstr(mp_error_message(err), want), "bad file value: '%s'",
          err ? mp_error_message(err) : "success");
    unlink(path);
    unsetenv("MEMPI_TUNING");
    CHECK(mp_config_load() == MPI_SUCCESS, "defaults at the end");
}

static int parse(const char *text, mp_tuning *t, char *err)
{
    return mp_tuning_parse(text, strlen(text), t, err, 256);
}

static void test_tuning_cases(void)
{
    mp_tuning t;
    char err[256];
    const char *good = "# written by mempi-loggp\n"
                       "MEMPI_EAGER_MAX = 8192   # k*\n"
                       "\n"
                       "  MEMPI_NET_EAGER_MAX=65536\r\n"
                       "loggp_o_s_us_shm = 0.076\n"
                       "loggp_L_us_net = -0.5e-3\n"
                       "MEMPI_WAIT\t=\tspin";             /* no final newline */
    CHECK(parse(good, &t, err) == 0, "good file refused: %s", err);
    CHECK(t.n == 3, "3 settings, got %d", t.n);
    CHECK(t.n == 3 && strcmp(mp_config_row(t.var[0])->name, "MEMPI_EAGER_MAX") == 0 &&
          strcmp(t.value[0], "8192") == 0, "first setting");
    CHECK(t.n == 3 && strcmp(t.value[1], "65536") == 0, "CR stripped: '%s'", t.value[1]);
    CHECK(t.n == 3 && strcmp(t.value[2], "spin") == 0, "tab separated value '%s'", t.value[2]);
    CHECK(parse("", &t, err) == 0 && t.n == 0, "empty file");

    struct { const char *text, *why; } bad[] = {
        { "MEMPI_EAGER_MAX 8192\n", "expected NAME = VALUE" },
        { "= 5\n", "missing name" },
        { "MEMPI_EAGER_MAX =\n", "missing value" },
        { "MEMPI_EAGER_MAX = # none\n", "missing value" },
        { "MEMPI_EAGERMAX = 1\n", "unknown name" },
        { "mempi_eager_max = 1\n", "unknown name" },
        { "MEMPI_TUNING = other\n", "unknown name" },
        { "MEMPI EAGER_MAX = 1\n", "blanks" },
        { "MEMPI_WAIT = sp in\n", "blanks" },
        { "MEMPI_EAGER_MAX = 1\nMEMPI_EAGER_MAX = 2\n", "line 2: name given twice" },
        { "loggp_x = fast\n", "must be a number" },
        { "loggp_x = 1.5us\n", "must be a number" },
        { "MEMPI_EAGER_MAX = 1\x01\n", "control character" },
        { "ok\n\x7f\n", "line 1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = parse(bad[i].text, &t, err);
        CHECK(rc != 0, "bad case %zu accepted", i);
        CHECK(rc != 0 && strstr(err, bad[i].why) != NULL, "case %zu: message '%s' lacks '%s'", i,
              err, bad[i].why);
    }
    char *huge = malloc(MP_TUNING_FILE_MAX + 2);
    memset(huge, '#', MP_TUNING_FILE_MAX + 1);
    CHECK(mp_tuning_parse(huge, MP_TUNING_FILE_MAX + 1, &t, err, sizeof err) != 0, "oversized file");
    memset(huge, ' ', 2000);
    CHECK(mp_tuning_parse(huge, 2000, &t, err, sizeof err) != 0 && strstr(err, "longer"),
          "overlong line");
    free(huge);
}

/* Properties 2 and 3 on one input. */
static void check_input(const char *buf, size_t len)
{
    mp_tuning t, again;
    char err[256] = "";
    if (mp_tuning_parse(buf, len, &t, err, sizeof err) != 0) {
        CHECK(strncmp(err, "line ", 5) == 0, "error without a line number: '%s'", err);
        return;
    }
    char out[MP_TUNING_MAX * (MP_TUNING_VALUE_MAX + 64)];
    size_t n = 0;
    for (int i = 0; i < t.n; i++) {
        const char *v = t.value[i];
        CHECK(strncmp(mp_config_row(t.var[i])->name, "MEMPI_", 6) == 0, "non-MEMPI name");
        for (const char *p = v; *p; p++)
            CHECK((unsigned char)*p > 0x20 && *p != '#' && *p != 0x7f, "bad byte 0x%02x in value",
                  (unsigned char)*p);
        n += (size_t)snprintf(out + n, sizeof out - n, "%s = %s\n", mp_config_row(t.var[i])->name, v);
    }
    CHECK(mp_tuning_parse(out, n, &again, err, sizeof err) == 0, "reparse failed: %s", err);
    CHECK(again.n == t.n, "reparse count");
    for (int i = 0; i < t.n && i < again.n; i++)
        CHECK(again.var[i] == t.var[i] && strcmp(again.value[i], t.value[i]) == 0, "reparse value");
}

static void fuzz(void)
{
    static const char *const tokens[] = { "MEMPI_EAGER_MAX", "MEMPI_WAIT", "MEMPI_SPIN", "loggp_G",
        "loggp_", "=", " = ", "\n", "\r\n", "#", " ", "\t", "16384", "1e9", "-", ".", "spin", "x",
        "\x01", "\xff", "==", "MEMPI_TUNING" };
    const int ntok = (int)(sizeof tokens / sizeof tokens[0]);
    char buf[4096];
    long accepted = 0;
    for (int it = 0; it < FUZZ_ITERATIONS; it++) {
        size_t len = 0;
        if (it % 4 == 0) {                              /* random bytes */
            len = next() % 300;
            for (size_t i = 0; i < len; i++)
                buf[i] = (char)next();
        } else {                                        /* token soup */
            int k = (int)(next() % 24);
            for (int i = 0; i < k; i++) {
                const char *tok = tokens[next() % (uint64_t)ntok];
                size_t tl = strlen(tok);
                if (len + tl >= sizeof buf)
                    break;
                memcpy(buf + len, tok, tl);
                len += tl;
            }
            if (len && next() % 3 == 0)                 /* one mutated byte */
                buf[next() % len] = (char)next();
        }
        mp_tuning t;
        char err[256];
        accepted += mp_tuning_parse(buf, len, &t, err, sizeof err) == 0;
        check_input(buf, len);
        if (it % 8 == 0) {                              /* the value parsers on the same bytes */
            char v[64];
            size_t vl = len < sizeof v - 1 ? len : sizeof v - 1;
            memcpy(v, buf, vl);
            v[vl] = '\0';
            size_t z;
            long l;
            mp_parse_size(v, &z);
            mp_parse_int(v, -100, 100, &l);
        }
    }
    CHECK(accepted > FUZZ_ITERATIONS / 100, "generator reached accepted files only %ld times", accepted);
}

int main(void)
{
    test_table();
    test_values();
    test_tuning_cases();
    fuzz();
    if (failures) {
        fprintf(stderr, "config_fuzz: %d failure(s)\n", failures);
        return 1;
    }
    printf("config_fuzz: ok (%d fuzz inputs)\n", FUZZ_ITERATIONS);
    return 0;
}

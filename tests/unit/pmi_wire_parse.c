/* pmi_wire_parse.c -- unit tests of the PMI-1 line parser and formatter.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Table-driven: lines that must parse (with the pairs they must give) and
 * lines that must be refused, then the formatter on good and bad input, the
 * escape round trip, and the limits (line length, pair count, key length).
 */
#include "core/pmi_wire.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "pmi_wire_parse:%d: ", __LINE__);             \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static int parse(const char *line, mp_pmi_msg *m, const char **err)
{
    return mp_pmi_wire_parse(line, strlen(line), m, err);
}

static void test_good_lines(void)
{
    mp_pmi_msg m;
    const char *err = NULL;

    CHECK(parse("cmd=init pmi_version=1 pmi_subversion=1\n", &m, &err) == 0, "init: %s", err);
    CHECK(m.npairs == 3, "init pairs %d", m.npairs);
    CHECK(strcmp(mp_pmi_msg_cmd(&m), "init") == 0, "cmd");
    CHECK(strcmp(mp_pmi_msg_get(&m, "pmi_subversion"), "1") == 0, "subversion");
    CHECK(mp_pmi_msg_get(&m, "absent") == NULL, "absent key");

    CHECK(parse("cmd=barrier_out", &m, &err) == 0 && m.npairs == 1, "no newline: %s", err);
    CHECK(parse("  cmd=maxes   kvsname_max=256  keylen_max=64 vallen_max=1024  \n", &m, &err) == 0,
          "extra spaces: %s", err);
    CHECK(m.npairs == 4, "extra spaces pairs");
    long v = 0;
    CHECK(mp_pmi_msg_get_long(&m, "vallen_max", 1, 100000, &v) == 0 && v == 1024, "get_long");
    CHECK(mp_pmi_msg_get_long(&m, "vallen_max", 1, 1000, &v) < 0, "get_long range");
    CHECK(parse("cmd=get_result rc=0 value=\n", &m, &err) == 0, "empty value: %s", err);
    CHECK(strcmp(mp_pmi_msg_get(&m, "value"), "") == 0, "empty value is empty");
    CHECK(parse("cmd=put kvsname=k key=a/b-c_d value=(vector,(0,1,4))=x\n", &m, &err) == 0,
          "punctuation: %s", err);
    CHECK(strcmp(mp_pmi_msg_get(&m, "value"), "(vector,(0,1,4))=x") == 0, "value with = and ()");
    CHECK(parse("cmd=abort exitcode=3 message=it\\ went\\ wrong\\\\!\n", &m, &err) == 0,
          "escapes: %s", err);
    CHECK(strcmp(mp_pmi_msg_get(&m, "message"), "it went wrong\\!") == 0, "unescaped: [%s]",
          mp_pmi_msg_get(&m, "message"));
}

static void test_bad_lines(void)
{
    static const char *const bad[] = {
        "",                                 /* empty */
        "\n",
        "   \n",
        "put=1 cmd=put",                    /* cmd not first */
        "cmd=",                             /* empty command */
        "cmd=init pmi_version",             /* no '=' */
        "cmd=init =1",                      /* empty key */
        "cmd=init pmi_version=1 pmi_version=1", /* duplicate key */
        "cmd=init a.b=1",                   /* '.' not a key char */
        "cmd=init x=a\tb",                  /* tab */
        "cmd=init x=a\rb",                  /* CR */
        "cmd=init x=\xc3\xa9",              /* non-ASCII */
        "cmd=init x=abc\\",                 /* trailing backslash */
        "cmd=init\nx=1",                    /* embedded newline */
        "mcmd=spawn",                       /* multi-line spawn: unsupported */
        NULL,
    };
    mp_pmi_msg m;
    const char *err;

    for (int i = 0; bad[i]; i++) {
        err = NULL;
        CHECK(parse(bad[i], &m, &err) < 0, "accepted bad line %d [%s]", i, bad[i]);
        CHECK(err != NULL && err[0] != '\0', "no error text for bad line %d", i);
    }
    /* NUL inside the given length */
    CHECK(mp_pmi_wire_parse("cmd=a x=b\0c", 11, &m, &err) < 0, "NUL inside the line");
}

static void test_limits(void)
{
    char line[MP_PMI_WIRE_MAXLINE + 64];
    mp_pmi_msg m;
    const char *err;
    size_t n;

    /* longest legal line: MAXLINE - 1 bytes plus '\n' */
    n = (size_t)snprintf(line, sizeof line, "cmd=x v=");
    memset(line + n, 'a', MP_PMI_WIRE_MAXLINE - 1 - n);
    line[MP_PMI_WIRE_MAXLINE - 1] = '\n';
    CHECK(mp_pmi_wire_parse(line, MP_PMI_WIRE_MAXLINE, &m, &err) == 0, "max line: %s", err);
    line[MP_PMI_WIRE_MAXLINE - 1] = 'a';
    line[MP_PMI_WIRE_MAXLINE] = '\n';
    CHECK(mp_pmi_wire_parse(line, MP_PMI_WIRE_MAXLINE + 1, &m, &err) < 0, "line too long");

    /* pair count */
    n = (size_t)snprintf(line, sizeof line, "cmd=x");
    for (int i = 1; i < MP_PMI_WIRE_MAXPAIRS; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, " k%d=%d", i, i);
    CHECK(parse(line, &m, &err) == 0 && m.npairs == MP_PMI_WIRE_MAXPAIRS, "max pairs: %s", err);
    snprintf(line + n, sizeof line - n, " one=more");
    CHECK(parse(line, &m, &err) < 0, "too many pairs");

    /* key length */
    n = (size_t)snprintf(line, sizeof line, "cmd=x ");
    memset(line + n, 'k', MP_PMI_WIRE_MAXKEY);
    strcpy(line + n + MP_PMI_WIRE_MAXKEY, "=1");
    CHECK(parse(line, &m, &err) == 0, "max key: %s", err);
    memset(line + n, 'k', MP_PMI_WIRE_MAXKEY + 1);
    strcpy(line + n + MP_PMI_WIRE_MAXKEY + 1, "=1");
    CHECK(parse(line, &m, &err) < 0, "key too long");
}

static void test_format(void)
{
    mp_pmi_line l;
    mp_pmi_msg m;
    const char *err = NULL;
    long len;

    mp_pmi_line_start(&l, "put");
    mp_pmi_line_add(&l, "kvsname", "kvs_1_0");
    mp_pmi_line_add(&l, "key", "k");
    mp_pmi_line_add(&l, "value", "a b\\c");
    mp_pmi_line_add_long(&l, "n", -42);
    len = mp_pmi_line_finish(&l, &err);
    CHECK(len > 0 && strcmp(l.buf, "cmd=put kvsname=kvs_1_0 key=k value=a\\ b\\\\c n=-42\n") == 0,
          "format: [%s]", l.buf);
    CHECK(mp_pmi_wire_parse(l.buf, (size_t)len, &m, &err) == 0, "reparse: %s", err);
    CHECK(strcmp(mp_pmi_msg_get(&m, "value"), "a b\\c") == 0, "round trip value");

    mp_pmi_line_start(&l, "x");
    mp_pmi_line_add(&l, "bad key", "v");
    CHECK(mp_pmi_line_finish(&l, &err) < 0, "bad key refused");
    mp_pmi_line_start(&l, "x");
    mp_pmi_line_add(&l, "k", "tab\there");
    CHECK(mp_pmi_line_finish(&l, &err) < 0, "tab refused");
    mp_pmi_line_start(&l, "x");
    mp_pmi_line_add(&l, "k", "1");
    mp_pmi_line_add(&l, "k", "2");
    CHECK(mp_pmi_line_finish(&l, &err) < 0, "duplicate refused");
    mp_pmi_line_start(&l, "x");
    mp_pmi_line_add(&l, "cmd", "2");
    CHECK(mp_pmi_line_finish(&l, &err) < 0, "second cmd refused");
    mp_pmi_line_start(&l, "");
    CHECK(mp_pmi_line_finish(&l, &err) < 0, "empty cmd refused");

    char big[MP_PMI_WIRE_MAXLINE];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    mp_pmi_line_start(&l, "x");
    mp_pmi_line_add(&l, "k", big);
    CHECK(mp_pmi_line_finish(&l, &err) < 0, "too long refused");
    CHECK(l.len <= MP_PMI_WIRE_MAXLINE, "no overflow");
}

static void test_parse_long(void)
{
    long v;
    CHECK(mp_pmi_parse_long("12", 0, 100, &v) == 0 && v == 12, "12");
    CHECK(mp_pmi_parse_long("-1", -1, 1, &v) == 0 && v == -1, "-1");
    CHECK(mp_pmi_parse_long(" 1", 0, 9, &v) < 0, "leading space");
    CHECK(mp_pmi_parse_long("+1", 0, 9, &v) < 0, "plus");
    CHECK(mp_pmi_parse_long("1x", 0, 9, &v) < 0, "trailing junk");
    CHECK(mp_pmi_parse_long("", 0, 9, &v) < 0, "empty");
    CHECK(mp_pmi_parse_long("99999999999999999999999", 0, 9, &v) < 0, "overflow");
    CHECK(mp_pmi_parse_long("10", 0, 9, &v) < 0, "range");
    CHECK(mp_pmi_parse_long(NULL, 0, 9, &v) < 0, "NULL");
}

int main(void)
{
    test_good_lines();
    test_bad_lines();
    test_limits();
    test_format();
    test_parse_long();
    if (failures) {
        fprintf(stderr, "pmi_wire_parse: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}

/* tuning.c -- MEMPI_TUNING files: defaults for MEMPI_* variables.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * `mempi-loggp --tune FILE` measures the machine and writes the thresholds that follow from its
 * LogGP parameters; `MEMPI_TUNING=FILE` makes MemPI start with them.  The file is a list of
 * `NAME = VALUE` lines: NAME is one of the MEMPI_* variables of the one table (config.c), or an
 * informational `loggp_*` key whose value must be a number (the measured parameters, kept so a
 * tuning file says where its thresholds came from).  `#` starts a comment; blank lines are
 * ignored.  Precedence: environment > tuning file > built-in default, so one run can still
 * override a single threshold.
 *
 * The file is outside input.  The parser is a pure function over a byte buffer (fuzzed by
 * tests/unit/config_fuzz.c) and rejects anything it does not fully understand -- unknown names,
 * duplicates, a missing '=', empty values or values with blanks, control bytes, overlong lines, files over 64 KiB --
 * with a message naming the file, the line and the offence.  The values themselves are checked
 * by config.c's loader exactly as if they came from the environment.
 */
#include "core/core.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mp_tuning mp_tuned;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static int is_number(const char *s, size_t len)
{
    char tmp[64];
    if (len == 0 || len >= sizeof tmp)
        return 0;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    strtod(tmp, &end);
    return errno == 0 && end == tmp + len && (tmp[0] == '-' || tmp[0] == '.' ||
                                              (tmp[0] >= '0' && tmp[0] <= '9'));
}

static int fail(char *err, size_t errlen, int line, const char *what)
{
    snprintf(err, errlen, "line %d: %s", line, what);
    return -1;
}

/* Parses one `NAME = VALUE` line (comments and surrounding blanks already stripped). */
static int parse_line(const char *s, size_t len, int lineno, mp_tuning *t, char *err, size_t errlen)
{
    const char *eq = memchr(s, '=', len);
    if (eq == NULL)
        return fail(err, errlen, lineno, "expected NAME = VALUE");
    size_t klen = (size_t)(eq - s);
    while (klen > 0 && is_space(s[klen - 1]))
        klen--;
    const char *v = eq + 1, *end = s + len;
    while (v < end && is_space(*v))
        v++;
    size_t vlen = (size_t)(end - v);
    if (klen == 0)
        return fail(err, errlen, lineno, "missing name before '='");
    if (vlen == 0)
        return fail(err, errlen, lineno, "missing value after '='");
    if (vlen >= MP_TUNING_VALUE_MAX)
        return fail(err, errlen, lineno, "value too long");
    for (size_t i = 0; i < klen; i++)
        if (is_space(s[i]))
            return fail(err, errlen, lineno, "a name cannot contain blanks");
    for (size_t i = 0; i < vlen; i++)
        if (is_space(v[i]))
            return fail(err, errlen, lineno, "a value cannot contain blanks");
    if (klen > 6 && memcmp(s, "loggp_", 6) == 0) {
        if (!is_number(v, vlen))
            return fail(err, errlen, lineno, "a loggp_* value must be a number");
        return 0;                                   /* informational: recorded, not used */
    }
    int var = mp_config_index(s, klen);
    if (var < 0 || strcmp(mp_config_row(var)->name, "MEMPI_TUNING") == 0) {
        char what[160];
        snprintf(what, sizeof what, "unknown name '%.*s' (expected a MEMPI_* variable listed by "
                 "mempi-info, or loggp_*)", (int)(klen < 64 ? klen : 64), s);
        return fail(err, errlen, lineno, what);
    }
    for (int i = 0; i < t->n; i++)
        if (t->var[i] == var)
            return fail(err, errlen, lineno, "name given twice");
    if (t->n == MP_TUNING_MAX)
        return fail(err, errlen, lineno, "too many settings");
    t->var[t->n] = var;
    memcpy(t->value[t->n], v, vlen);
    t->value[t->n][vlen] = '\0';
    t->n++;
    return 0;
}

int mp_tuning_parse(const char *text, size_t len, mp_tuning *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (len > MP_TUNING_FILE_MAX)
        return fail(err, errlen, 0, "file larger than 64 KiB");
    int lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl != NULL);
        lineno++;
        if (n > MP_TUNING_LINE_MAX)
            return fail(err, errlen, lineno, "line longer than 1024 bytes");
        for (size_t i = 0; i < n; i++)
            if (((unsigned char)line[i] < 0x20 && line[i] != '\t' && line[i] != '\r') ||
                (unsigned char)line[i] == 0x7f)
                return fail(err, errlen, lineno, "control character");
        const char *hash = memchr(line, '#', n);
        if (hash)
            n = (size_t)(hash - line);
        while (n > 0 && is_space(*line)) {
            line++;
            n--;
        }
        while (n > 0 && is_space(line[n - 1]))
            n--;
        if (n > 0 && parse_line(line, n, lineno, t, err, errlen) != 0)
            return -1;
    }
    return 0;
}

int mp_tuning_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return mp_error_code(MPI_ERR_OTHER, "MEMPI_TUNING: cannot open '%s': %s", path,
                             strerror(errno));
    static char buf[MP_TUNING_FILE_MAX + 1];
    size_t len = fread(buf, 1, sizeof buf, f);
    int read_error = ferror(f);
    fclose(f);
    if (read_error)
        return mp_error_code(MPI_ERR_OTHER, "MEMPI_TUNING: cannot read '%s'", path);
    char err[256];
    if (mp_tuning_parse(buf, len, &mp_tuned, err, sizeof err) != 0)
        return mp_error_code(MPI_ERR_OTHER, "MEMPI_TUNING file '%s', %s", path, err);
    return MPI_SUCCESS;
}

const char *mp_tuning_value(const char *name)
{
    for (int i = 0; i < mp_tuned.n; i++)
        if (strcmp(mp_config_row(mp_tuned.var[i])->name, name) == 0)
            return mp_tuned.value[i];
    return NULL;
}

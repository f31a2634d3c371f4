/* pmi_wire.h -- PMI-1 wire messages: parse one line, format one line.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * A PMI-1 message is one line of space-separated `key=value` tokens whose
 * first token is `cmd=<name>`, ended by '\n':
 *
 *     cmd=put kvsname=kvs_42_0 key=addr-3 value=0a1b2c
 *
 * This module is shared by the library's PMI client (src/core/pmi.c) and the
 * launcher's PMI server (tools/mpiexec/), so both sides agree byte for byte.
 * It allocates nothing and keeps no state: a parsed message lives in a
 * caller-provided mp_pmi_msg (fixed arrays), a formatted one in an
 * mp_pmi_line.
 *
 * Rules (strict, so a confused peer is detected instead of misread):
 *   - a line holds at most MP_PMI_WIRE_MAXLINE bytes including the '\n';
 *   - at most MP_PMI_WIRE_MAXPAIRS tokens, the first one must be `cmd`;
 *   - a key is 1..MP_PMI_WIRE_MAXKEY characters of [A-Za-z0-9_/-], and no key
 *     appears twice;
 *   - a value is zero or more printable ASCII characters (0x21..0x7e); a
 *     backslash escapes the next character, so `\ ` is a space and `\\` a
 *     backslash (the convention of MPICH's own PMI parser);
 *   - tokens are separated by one or more spaces; any other control byte,
 *     NUL, or byte >= 0x80 is an error.
 * Formatting escapes spaces and backslashes and refuses anything it could
 * not parse back, so format -> parse is the identity (the fuzzer checks it).
 *
 * PMI-2 (Slurm's `srun --mpi=pmi2`, Hydra): after a PMI-1 `cmd=init
 * pmi_version=2` handshake every message is a 6-character length field
 * (decimal, left-justified, space padded: printf "%-6d") followed by that many
 * bytes of `key=value;` pairs, the first being cmd:
 *
 *     31    cmd=kvs-put;key=k1;value=v1;
 *
 * Here a value is printable ASCII including space (0x20..0x7e); a literal ';'
 * is doubled (";;"), as the PMI-2 wire specification says.  Every pair ends with
 * ';'.  Keys, limits and duplicate rules are those of PMI-1.  The same
 * mp_pmi_msg holds a parsed PMI-2 body; mp_pmi2_line_start makes an
 * mp_pmi_line format PMI-2 (length field included) instead of PMI-1.
 */
#ifndef MEMPI_PMI_WIRE_H
#define MEMPI_PMI_WIRE_H

#include <stddef.h>

#define MP_PMI_WIRE_MAXLINE  4096  /* bytes in one line, '\n' included */
#define MP_PMI_WIRE_MAXPAIRS 16    /* tokens in one line, cmd included */
#define MP_PMI_WIRE_MAXKEY   32    /* characters in one token key */

typedef struct mp_pmi_pair {
    const char *key;
    const char *value;
} mp_pmi_pair;

/* A parsed message: pairs[0] is cmd; strings point into buf (unescaped). */
typedef struct mp_pmi_msg {
    int npairs;
    mp_pmi_pair pairs[MP_PMI_WIRE_MAXPAIRS];
    char buf[MP_PMI_WIRE_MAXLINE + 1];
} mp_pmi_msg;

/* A line being formatted; `error` is sticky: the first problem is kept. */
typedef struct mp_pmi_line {
    size_t len;
    int v2;                                        /* PMI-2 format (mp_pmi2_line_start) */
    int npairs;
    const char *error;
    unsigned short key_at[MP_PMI_WIRE_MAXPAIRS];   /* where each key starts */
    unsigned char key_len[MP_PMI_WIRE_MAXPAIRS];
    char buf[MP_PMI_WIRE_MAXLINE + 1];
} mp_pmi_line;

/* Parse `len` bytes of one line (a trailing '\n' is allowed and ignored).
 * Returns 0, or -1 with *err set to a static description. */
int mp_pmi_wire_parse(const char *line, size_t len, mp_pmi_msg *msg, const char **err);

/* Value of `key` in a parsed message, or NULL when absent. */
const char *mp_pmi_msg_get(const mp_pmi_msg *msg, const char *key);

/* The command name (value of the first token). */
const char *mp_pmi_msg_cmd(const mp_pmi_msg *msg);

/* Strict decimal integer value of `key` within [min, max]: 0 or -1. */
int mp_pmi_msg_get_long(const mp_pmi_msg *msg, const char *key, long min, long max, long *out);

/* Build a line: start, add pairs, finish.  finish appends '\n' and returns
 * the line length, or -1 with *err set if anything added was invalid or the
 * line would not fit. */
void mp_pmi_line_start(mp_pmi_line *line, const char *cmd);
void mp_pmi_line_add(mp_pmi_line *line, const char *key, const char *value);
void mp_pmi_line_add_long(mp_pmi_line *line, const char *key, long value);
long mp_pmi_line_finish(mp_pmi_line *line, const char **err);

/* 1 if `c` may appear in a token key / unescaped in a value. */
/* PMI-2: parse one message body (after the 6-byte length field); parse the
 * length field itself (6 bytes: digits then spaces) into *len. */
int mp_pmi2_wire_parse(const char *body, size_t len, mp_pmi_msg *msg, const char **err);
int mp_pmi2_wire_length(const char header[6], size_t *len);
void mp_pmi2_line_start(mp_pmi_line *line, const char *cmd);

int mp_pmi_wire_is_key_char(int c);
int mp_pmi_wire_is_value_char(int c);   /* 0x20..0x7e: space is escaped */

/* Strict decimal parse of a whole string into [min, max]: 0 or -1.  Shared
 * by the client (PMI_RANK...) and the launcher (its arguments). */
int mp_pmi_parse_long(const char *s, long min, long max, long *out);

/* The exit status that reports an abort with error code `code`: its low 8 bits, as exit()
 * keeps them, except that a code whose low 8 bits are 0 (0, 256, 1 << 30, ...) gives 1.  An
 * aborted job must never look successful, whoever turns the code into a status: the library
 * exits with it and sends it as PMI's exitcode (Hydra exits with that), and mpiexec maps
 * whatever code a PMI client sent through it again. */
int mp_pmi_exit_status(long code);

#endif /* MEMPI_PMI_WIRE_H */

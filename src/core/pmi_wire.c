/* pmi_wire.c -- PMI-1 wire messages: parse one line, format one line.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * The grammar is documented in pmi_wire.h.  The parser is a single pass over
 * the input that copies each key and the unescaped value into msg->buf as
 * NUL-terminated strings; since "key=value " is never shorter than
 * "key\0value\0", the copy always fits in a buffer as long as the line.
 * Every check happens before the byte is stored, so no input can write past
 * the fixed arrays: the fuzzer (tests/unit/pmi_wire_fuzz.c) hammers exactly
 * this property.
 *
 * The formatter refuses what the parser would refuse (bad key, control byte
 * in a value, duplicate key, too many tokens, too long), which is what makes
 * format -> parse an identity.
 */
#include "core/pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mp_pmi_wire_is_key_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '/';
}

int mp_pmi_wire_is_value_char(int c)
{
    return c >= 0x20 && c <= 0x7e;
}

int mp_pmi_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    long v;

    if (s == NULL || *s == '\0')
        return -1;
    /* strtol accepts leading spaces and '+'; a strict parser does not. */
    if (!(*s == '-' || (*s >= '0' && *s <= '9')))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int mp_pmi_exit_status(long code)
{
    int status = (int)((unsigned long)code & 0xff);
    return status != 0 ? status : 1;
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct parser {
    const char *in;
    size_t len, pos;
    char *out;          /* next free byte in msg->buf */
    const char *error;
} parser;

static int parse_fail(parser *p, const char *error)
{
    p->error = error;
    return -1;
}

static void skip_spaces(parser *p)
{
    while (p->pos < p->len && p->in[p->pos] == ' ')
        p->pos++;
}

/* Copies the key into the output buffer; the cursor stops on '='. */
static int parse_key(parser *p, const char **key)
{
    size_t start = p->pos;

    *key = p->out;
    while (p->pos < p->len && mp_pmi_wire_is_key_char((unsigned char)p->in[p->pos])) {
        if (p->pos - start >= MP_PMI_WIRE_MAXKEY)
            return parse_fail(p, "key too long");
        *p->out++ = p->in[p->pos++];
    }
    if (p->pos == start)
        return parse_fail(p, "invalid character where a key was expected");
    if (p->pos >= p->len || p->in[p->pos] != '=')
        return parse_fail(p, "expected '=' after key");
    p->pos++;
    *p->out++ = '\0';
    return 0;
}

/* Copies the unescaped value; the cursor stops on a space or the end. */
static int parse_value(parser *p, const char **value)
{
    *value = p->out;
    while (p->pos < p->len && p->in[p->pos] != ' ') {
        unsigned char c = (unsigned char)p->in[p->pos];
        if (c == '\\') {
            if (p->pos + 1 >= p->len)
                return parse_fail(p, "backslash at end of line");
            c = (unsigned char)p->in[p->pos + 1];
            if (!mp_pmi_wire_is_value_char(c))
                return parse_fail(p, "backslash before a control character");
            p->pos += 2;
        } else if (c > 0x20 && c < 0x7f) {
            p->pos++;
        } else {
            return parse_fail(p, "control or non-ASCII byte in value");
        }
        *p->out++ = (char)c;
    }
    *p->out++ = '\0';
    return 0;
}

static int has_key(const mp_pmi_msg *msg, const char *key)
{
    return mp_pmi_msg_get(msg, key) != NULL;
}

int mp_pmi_wire_parse(const char *line, size_t len, mp_pmi_msg *msg, const char **err)
{
    parser p = { line, len, 0, msg->buf, NULL };
    const char *dummy;

    if (err == NULL)
        err = &dummy;
    msg->npairs = 0;
    if (line == NULL)
        return *err = "no line", -1;
    if (len > 0 && line[len - 1] == '\n')
        p.len = --len;
    if (len + 1 > MP_PMI_WIRE_MAXLINE)
        return *err = "line too long", -1;
    if (memchr(line, '\n', len) != NULL)
        return *err = "newline inside a line", -1;

    skip_spaces(&p);
    while (p.pos < p.len) {
        const char *key, *value;
        if (msg->npairs == MP_PMI_WIRE_MAXPAIRS)
            return *err = "too many key=value pairs", -1;
        if (parse_key(&p, &key) < 0 || parse_value(&p, &value) < 0)
            return *err = p.error, -1;
        if (msg->npairs == 0 && strcmp(key, "cmd") != 0)
            return *err = "line does not start with cmd=", -1;
        if (has_key(msg, key))
            return *err = "duplicate key", -1;
        msg->pairs[msg->npairs].key = key;
        msg->pairs[msg->npairs].value = value;
        msg->npairs++;
        skip_spaces(&p);
    }
    if (msg->npairs == 0)
        return *err = "empty line", -1;
    if (msg->pairs[0].value[0] == '\0')
        return *err = "empty command name", -1;
    return 0;
}

/* PMI-2 value: printable ASCII with space, ";;" for ';'; the cursor stops after the ';'
 * that ends the pair. */
static int parse_value2(parser *p, const char **value)
{
    *value = p->out;
    for (;;) {
        if (p->pos >= p->len)
            return parse_fail(p, "value not ended by ';'");
        unsigned char c = (unsigned char)p->in[p->pos];
        if (c == ';') {
            if (p->pos + 1 < p->len && p->in[p->pos + 1] == ';') {
                p->pos += 2;
            } else {
                p->pos++;
                break;
            }
        } else if (mp_pmi_wire_is_value_char(c)) {
            p->pos++;
        } else {
            return parse_fail(p, "control or non-ASCII byte in value");
        }
        *p->out++ = (char)c;
    }
    *p->out++ = '\0';
    return 0;
}

int mp_pmi2_wire_parse(const char *body, size_t len, mp_pmi_msg *msg, const char **err)
{
    parser p = { body, len, 0, msg->buf, NULL };
    const char *dummy;

    if (err == NULL)
        err = &dummy;
    msg->npairs = 0;
    if (body == NULL)
        return *err = "no message", -1;
    if (len + 1 > MP_PMI_WIRE_MAXLINE)
        return *err = "message too long", -1;
    while (p.pos < p.len) {
        const char *key, *value;
        if (msg->npairs == MP_PMI_WIRE_MAXPAIRS)
            return *err = "too many key=value pairs", -1;
        if (parse_key(&p, &key) < 0 || parse_value2(&p, &value) < 0)
            return *err = p.error, -1;
        if (msg->npairs == 0 && strcmp(key, "cmd") != 0)
            return *err = "message does not start with cmd=", -1;
        if (has_key(msg, key))
            return *err = "duplicate key", -1;
        msg->pairs[msg->npairs].key = key;
        msg->pairs[msg->npairs].value = value;
        msg->npairs++;
    }
    if (msg->npairs == 0)
        return *err = "empty message", -1;
    if (msg->pairs[0].value[0] == '\0')
        return *err = "empty command name", -1;
    return 0;
}

int mp_pmi2_wire_length(const char header[6], size_t *len)
{
    size_t v = 0;
    int i = 0;
    for (; i < 6 && header[i] >= '0' && header[i] <= '9'; i++)
        v = v * 10 + (size_t)(header[i] - '0');
    if (i == 0)
        return -1;
    for (; i < 6; i++)
        if (header[i] != ' ')
            return -1;
    *len = v;
    return 0;
}

const char *mp_pmi_msg_get(const mp_pmi_msg *msg, const char *key)
{
    for (int i = 0; i < msg->npairs; i++)
        if (strcmp(msg->pairs[i].key, key) == 0)
            return msg->pairs[i].value;
    return NULL;
}

const char *mp_pmi_msg_cmd(const mp_pmi_msg *msg)
{
    return msg->npairs > 0 ? msg->pairs[0].value : "";
}

int mp_pmi_msg_get_long(const mp_pmi_msg *msg, const char *key, long min, long max, long *out)
{
    return mp_pmi_parse_long(mp_pmi_msg_get(msg, key), min, max, out);
}

/* ---- formatting --------------------------------------------------------- */

static void line_fail(mp_pmi_line *line, const char *error)
{
    if (line->error == NULL)
        line->error = error;
}

static void line_put(mp_pmi_line *line, char c)
{
    /* Keep one byte for the final '\n' (and the buffer one more for NUL). */
    if (line->len + 1 >= MP_PMI_WIRE_MAXLINE) {
        line_fail(line, "line too long");
        return;
    }
    line->buf[line->len++] = c;
}

static int key_is_valid(const char *key)
{
    size_t n = 0;
    for (; key[n] != '\0'; n++)
        if (!mp_pmi_wire_is_key_char((unsigned char)key[n]))
            return 0;
    return n >= 1 && n <= MP_PMI_WIRE_MAXKEY;
}

static int line_has_key(const mp_pmi_line *line, const char *key)
{
    size_t klen = strlen(key);
    for (int i = 0; i < line->npairs; i++)
        if (line->key_len[i] == klen && memcmp(line->buf + line->key_at[i], key, klen) == 0)
            return 1;
    return 0;
}

void mp_pmi_line_start(mp_pmi_line *line, const char *cmd)
{
    line->v2 = 0;
    line->len = 0;
    line->npairs = 0;
    line->error = NULL;
    line->buf[0] = '\0';
    if (cmd == NULL || cmd[0] == '\0')
        line_fail(line, "empty command name");
    mp_pmi_line_add(line, "cmd", cmd ? cmd : "");
}

void mp_pmi2_line_start(mp_pmi_line *line, const char *cmd)
{
    line->v2 = 1;
    line->len = 6;                                 /* the length field, filled by finish */
    line->npairs = 0;
    line->error = NULL;
    memset(line->buf, ' ', 6);
    if (cmd == NULL || cmd[0] == '\0')
        line_fail(line, "empty command name");
    mp_pmi_line_add(line, "cmd", cmd ? cmd : "");
}

void mp_pmi_line_add(mp_pmi_line *line, const char *key, const char *value)
{
    if (line->error != NULL)
        return;
    if (key == NULL || value == NULL || !key_is_valid(key))
        return line_fail(line, "invalid key");
    if (line->npairs == MP_PMI_WIRE_MAXPAIRS)
        return line_fail(line, "too many key=value pairs");
    if (line_has_key(line, key))
        return line_fail(line, "duplicate key");
    if (line->npairs > 0 && !line->v2)
        line_put(line, ' ');
    line->key_at[line->npairs] = (unsigned short)line->len;
    line->key_len[line->npairs] = (unsigned char)strlen(key);
    for (const char *k = key; *k; k++)
        line_put(line, *k);
    line_put(line, '=');
    for (const unsigned char *v = (const unsigned char *)value; *v; v++) {
        if (!mp_pmi_wire_is_value_char(*v))
            return line_fail(line, "control or non-ASCII byte in value");
        if (line->v2 ? *v == ';' : (*v == ' ' || *v == '\\'))
            line_put(line, line->v2 ? ';' : '\\');
        line_put(line, (char)*v);
    }
    if (line->v2)
        line_put(line, ';');
    line->npairs++;
}

void mp_pmi_line_add_long(mp_pmi_line *line, const char *key, long value)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    mp_pmi_line_add(line, key, text);
}

long mp_pmi_line_finish(mp_pmi_line *line, const char **err)
{
    const char *dummy;
    if (err == NULL)
        err = &dummy;
    if (line->error != NULL) {
        *err = line->error;
        return -1;
    }
    if (line->v2) {                  /* the length field: "%-6d" of the body */
        char field[16];
        snprintf(field, sizeof field, "%-6zu", line->len - 6);
        memcpy(line->buf, field, 6);
        line->buf[line->len] = '\0';
        return (long)line->len;
    }
    line->buf[line->len++] = '\n';   /* line_put kept room for it */
    line->buf[line->len] = '\0';
    return (long)line->len;
}

/* pmi_wire_fuzz.c -- deterministic fuzzer of the PMI-1 wire parser/formatter.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * Properties checked on every input (abort() on violation, so libFuzzer and
 * sanitizers see it):
 *   1. parsing arbitrary bytes never crashes or overruns (run it under
 *      -fsanitize=address,undefined to make that visible);
 *   2. whatever parses can be formatted again, and that line parses to the
 *      same pairs (parse -> format -> parse is stable);
 *   3. pairs built from the input (keys from the key alphabet, values from
 *      any printable byte including space and backslash) either are refused
 *      by the formatter (too long, duplicate) or round-trip format -> parse
 *      exactly.
 *
 * Built normally, main() runs a seeded generator (xorshift64*, fixed seed,
 * FUZZ_ITERATIONS inputs, a few seconds): random bytes, token soup, and
 * mutations (flip, insert, delete, splice) of a small corpus of real PMI
 * lines.  Built with -DMEMPI_LIBFUZZER it exposes LLVMFuzzerTestOneInput
 * instead, e.g.
 *   clang -fsanitize=fuzzer,address -DMEMPI_LIBFUZZER -Iinclude -Isrc \
 *         tests/unit/pmi_wire_fuzz.c src/core/pmi_wire.c -o pmi_wire_libfuzzer
 */
#include "core/pmi_wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ITERATIONS 300000

static long parsed_ok, roundtrips, parsed_v2;   /* coverage sanity: the generator must reach both */

static void fuzz_fail(const char *what, const uint8_t *data, size_t size)
{
    fprintf(stderr, "pmi_wire_fuzz: %s; input (%zu bytes): ", what, size);
    for (size_t i = 0; i < size && i < 200; i++)
        fprintf(stderr, data[i] >= 0x20 && data[i] < 0x7f ? "%c" : "\\x%02x", data[i]);
    fputc('\n', stderr);
    abort();
}

static int same_pairs(const mp_pmi_msg *a, const mp_pmi_msg *b)
{
    if (a->npairs != b->npairs)
        return 0;
    for (int i = 0; i < a->npairs; i++)
        if (strcmp(a->pairs[i].key, b->pairs[i].key) != 0 ||
            strcmp(a->pairs[i].value, b->pairs[i].value) != 0)
            return 0;
    return 1;
}

static int v2;   /* fuzzing the PMI-2 body parser and formatter instead of PMI-1's */

static int parse_any(const char *in, size_t len, mp_pmi_msg *m, const char **err)
{
    return v2 ? mp_pmi2_wire_parse(in, len, m, err) : mp_pmi_wire_parse(in, len, m, err);
}

/* A formatted line: PMI-1 ends with '\n'; PMI-2 starts with a length field that must
 * match.  Returns the text to parse back and its length through body/blen. */
static int formatted_ok(const mp_pmi_line *line, long len, const char **body, size_t *blen)
{
    if (!v2) {
        *body = line->buf, *blen = (size_t)len;
        return (size_t)len <= MP_PMI_WIRE_MAXLINE && line->buf[len - 1] == '\n';
    }
    size_t field;
    if (len < 6 || mp_pmi2_wire_length(line->buf, &field) < 0 || field != (size_t)len - 6)
        return 0;
    *body = line->buf + 6, *blen = (size_t)len - 6;
    return 1;
}

static void line_start_any(mp_pmi_line *line, const char *cmd)
{
    if (v2)
        mp_pmi2_line_start(line, cmd);
    else
        mp_pmi_line_start(line, cmd);
}

static long format_msg(const mp_pmi_msg *m, mp_pmi_line *line)
{
    line_start_any(line, m->pairs[0].value);
    for (int i = 1; i < m->npairs; i++)
        mp_pmi_line_add(line, m->pairs[i].key, m->pairs[i].value);
    return mp_pmi_line_finish(line, NULL);
}

/* Property 1 and 2. */
static void check_parse(const uint8_t *data, size_t size)
{
    static mp_pmi_msg m, again;
    static mp_pmi_line line;
    const char *err = NULL;

    size_t field;
    if (size >= 6 && mp_pmi2_wire_length((const char *)data, &field) == 0 && field > 999999)
        fuzz_fail("a 6-character length field above 999999", data, size);
    if (parse_any((const char *)data, size, &m, &err) < 0) {
        if (err == NULL || err[0] == '\0')
            fuzz_fail("refused without an error text", data, size);
        return;
    }
    parsed_ok++;
    parsed_v2 += v2;
    if (m.npairs < 1 || m.npairs > MP_PMI_WIRE_MAXPAIRS || strcmp(m.pairs[0].key, "cmd") != 0)
        fuzz_fail("accepted a line with a bad pair structure", data, size);
    long len = format_msg(&m, &line);
    if (len < 0)
        fuzz_fail("a parsed line cannot be formatted again", data, size);
    const char *body;
    size_t blen;
    if (!formatted_ok(&line, len, &body, &blen))
        fuzz_fail("formatted line too long, without newline or with a wrong length field", data, size);
    if (parse_any(body, blen, &again, &err) < 0)
        fuzz_fail("a formatted line does not parse", data, size);
    if (!same_pairs(&m, &again))
        fuzz_fail("parse -> format -> parse changed the pairs", data, size);
}

/* Property 3: the input is a recipe for pairs. */
static void check_roundtrip(const uint8_t *data, size_t size)
{
    static const char keychars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/";
    static char keys[MP_PMI_WIRE_MAXPAIRS][MP_PMI_WIRE_MAXKEY + 1];
    static char values[MP_PMI_WIRE_MAXPAIRS][MP_PMI_WIRE_MAXLINE];
    static mp_pmi_line line;
    static mp_pmi_msg m;
    size_t pos = 0;
    int npairs;

    if (size < 2)
        return;
    npairs = 1 + data[pos++] % MP_PMI_WIRE_MAXPAIRS;
    for (int i = 0; i < npairs; i++) {
        size_t klen = pos < size ? 1 + data[pos++] % MP_PMI_WIRE_MAXKEY : 1;
        for (size_t k = 0; k < klen; k++)
            keys[i][k] = keychars[(pos < size ? data[pos++] : (uint8_t)k) % (sizeof keychars - 1)];
        keys[i][klen] = '\0';
        size_t vlen = pos < size ? data[pos++] : 0;
        if (vlen > 200 && pos < size)
            vlen = vlen * 8 + data[pos++];   /* sometimes long values */
        if (vlen >= sizeof values[i])
            vlen = sizeof values[i] - 1;
        for (size_t v = 0; v < vlen; v++)
            values[i][v] = (char)(0x20 + (pos < size ? data[pos++] : (uint8_t)v) % 95);
        values[i][vlen] = '\0';
    }
    if (values[0][0] == '\0')
        values[0][0] = 'c', values[0][1] = '\0';

    line_start_any(&line, values[0]);
    for (int i = 1; i < npairs; i++)
        mp_pmi_line_add(&line, keys[i], values[i]);
    long len = mp_pmi_line_finish(&line, NULL);
    if (len < 0)
        return;   /* refused: too long or a duplicate key */
    const char *body;
    size_t blen;
    if (!formatted_ok(&line, len, &body, &blen))
        fuzz_fail("formatted pairs have a bad frame", data, size);
    if (parse_any(body, blen, &m, NULL) < 0)
        fuzz_fail("formatted pairs do not parse", data, size);
    if (m.npairs != npairs || strcmp(m.pairs[0].value, values[0]) != 0)
        fuzz_fail("round trip changed the command or the pair count", data, size);
    for (int i = 1; i < npairs; i++)
        if (strcmp(m.pairs[i].key, keys[i]) != 0 || strcmp(m.pairs[i].value, values[i]) != 0)
            fuzz_fail("round trip changed a pair", data, size);
    roundtrips++;
}

static void fuzz_one(const uint8_t *data, size_t size)
{
    for (v2 = 0; v2 < 2; v2++) {
        check_parse(data, size);
        check_roundtrip(data, size);
    }
}

#ifdef MEMPI_LIBFUZZER

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size);
    return 0;
}

#else

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static const char *const corpus[] = {
    "cmd=init pmi_version=1 pmi_subversion=1\n",
    "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
    "cmd=get_maxes\n",
    "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n",
    "cmd=get_appnum\n",
    "cmd=appnum appnum=0\n",
    "cmd=get_my_kvsname\n",
    "cmd=my_kvsname kvsname=kvs_4242_0\n",
    "cmd=put kvsname=kvs_4242_0 key=mempi-addr-3 value=0a1b2c3d4e5f\n",
    "cmd=put_result rc=0 msg=success\n",
    "cmd=barrier_in\n",
    "cmd=barrier_out\n",
    "cmd=get kvsname=kvs_4242_0 key=PMI_process_mapping\n",
    "cmd=get_result rc=0 msg=success value=(vector,(0,1,4))\n",
    "cmd=get_result rc=-1 msg=key_not_found\n",
    "cmd=abort exitcode=3 message=something\\ went\\ wrong\n",
    "cmd=finalize\n",
    "cmd=finalize_ack rc=0\n",
    "cmd=initack pmiid=2\n",
    "cmd=set size=4\n",
    "cmd=fullinit;pmijobid=4711.0;pmirank=1;threaded=FALSE;",
    "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=3;appnum=-1;",
    "cmd=job-getid-response;jobid=4711.0;rc=0;",
    "cmd=kvs-put;key=mempi-net-3;value=0a1b;;2c;",
    "cmd=kvs-fence-response;rc=0;",
    "cmd=kvs-get;jobid=4711.0;srcid=-1;key=k;",
    "cmd=kvs-get-response;rc=0;found=TRUE;value=with space;",
    "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,3));",
    "32    cmd=abort;isworld=TRUE;msg=x;",
};

static size_t mutate(uint8_t *buf, size_t len, size_t cap)
{
    int rounds = 1 + (int)(rng() % 4);
    for (int r = 0; r < rounds; r++) {
        size_t pos = len ? (size_t)(rng() % len) : 0;
        switch (rng() % 6) {
        case 0:   /* flip a bit */
            if (len)
                buf[pos] ^= (uint8_t)(1u << (rng() % 8));
            break;
        case 1:   /* replace with an interesting byte */
            if (len) {
                static const uint8_t hot[] = { ' ', '=', '\\', '\n', '\0', '\t', 0x7f, 0xff, 'c' };
                buf[pos] = hot[rng() % sizeof hot];
            }
            break;
        case 2:   /* insert a byte */
            if (len < cap) {
                memmove(buf + pos + 1, buf + pos, len - pos);
                buf[pos] = (uint8_t)rng();
                len++;
            }
            break;
        case 3:   /* delete a run */
            if (len) {
                size_t n = 1 + (size_t)(rng() % 8);
                if (n > len - pos)
                    n = len - pos;
                memmove(buf + pos, buf + pos + n, len - pos - n);
                len -= n;
            }
            break;
        case 4: { /* splice in another corpus line */
            const char *s = corpus[rng() % (sizeof corpus / sizeof *corpus)];
            size_t n = strlen(s);
            if (len + n <= cap) {
                memmove(buf + pos + n, buf + pos, len - pos);
                memcpy(buf + pos, s, n);
                len += n;
            }
            break;
        }
        case 5:   /* grow toward the length limit */
            while (len < cap && rng() % 64 != 0)
                buf[len++] = "ab \\=x"[rng() % 6];
            break;
        }
    }
    return len;
}

static size_t token_soup(uint8_t *buf, size_t cap)
{
    static const char *const pieces[] = { "cmd", "=", " ", "key", "value", "\\", "\\ ", "rc",
                                          "-1", "0", "put", "get", "kvsname", "x", "\n", "  " };
    size_t len = 0;
    int n = (int)(rng() % 24);
    for (int i = 0; i < n; i++) {
        const char *p = pieces[rng() % (sizeof pieces / sizeof *pieces)];
        size_t l = strlen(p);
        if (len + l > cap)
            break;
        memcpy(buf + len, p, l);
        len += l;
    }
    return len;
}

int main(void)
{
    static uint8_t buf[MP_PMI_WIRE_MAXLINE + 256];
    const size_t cap = sizeof buf;

    for (long it = 0; it < FUZZ_ITERATIONS; it++) {
        size_t len;
        switch (it % 4) {
        case 0:   /* random bytes, mostly short */
            len = (size_t)(rng() % (rng() % 8 == 0 ? cap : 96));
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)rng();
            break;
        case 1:
            len = token_soup(buf, cap);
            break;
        default: {
            const char *s = corpus[rng() % (sizeof corpus / sizeof *corpus)];
            len = strlen(s);
            memcpy(buf, s, len);
            len = mutate(buf, len, cap);
            break;
        }
        }
        fuzz_one(buf, len);
    }
    /* A generator that never produced a valid line would test nothing. */
    if (parsed_ok < FUZZ_ITERATIONS / 20 || roundtrips < FUZZ_ITERATIONS / 20 ||
        parsed_v2 < FUZZ_ITERATIONS / 100) {
        fprintf(stderr, "pmi_wire_fuzz: weak generator: %ld parsed (%ld PMI-2), %ld round trips\n",
                parsed_ok, parsed_v2, roundtrips);
        return 1;
    }
    printf("pmi_wire_fuzz: %d inputs, %ld parsed (%ld PMI-2), %ld round trips\n",
           FUZZ_ITERATIONS, parsed_ok, parsed_v2, roundtrips);
    return 0;
}

#endif /* MEMPI_LIBFUZZER */

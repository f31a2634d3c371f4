/* nodes_mapping.c -- unit test of the PMI_process_mapping parser (core/nodes.c).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Known layouts (MemPI's mpiexec, Hydra blocked and round-robin, Slurm), malformed values
 * that must be rejected, and a fuzz loop: random mutations of valid mappings must either
 * parse into a layout whose host indices are dense and start at rank 0, or be rejected --
 * never crash or loop.
 */
#include "core/core.h"
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect_layout(const char *map, int size, const int *want, int want_hosts)
{
    int got[64];
    int n = mp_nodes_parse_mapping(map, size, got);
    if (n != want_hosts) {
        fprintf(stderr, "FAIL %s (size %d): %d hosts, expected %d\n", map, size, n, want_hosts);
        failures++;
        return;
    }
    for (int i = 0; i < size; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "FAIL %s (size %d): rank %d on host %d, expected %d\n", map, size,
                    i, got[i], want[i]);
            failures++;
            return;
        }
}

static void expect_reject(const char *map)
{
    int got[64];
    if (mp_nodes_parse_mapping(map, 8, got) != -1) {
        fprintf(stderr, "FAIL: accepted malformed mapping '%s'\n", map);
        failures++;
    }
}

/* A parsed layout must use host indices 0..n-1, first appearances in increasing order. */
static int layout_ok(const int *h, int size, int n)
{
    int next = 0;
    for (int i = 0; i < size; i++) {
        if (h[i] < 0 || h[i] >= n || h[i] > next)
            return 0;
        if (h[i] == next)
            next++;
    }
    return next == n;
}

static void fuzz(unsigned seed, int rounds)
{
    static const char *const seeds[] = { "(vector,(0,1,4))", "(vector,(0,2,2))",
        "(vector,(0,3,1),(3,1,2))", "(vector,(5,2,3),(0,1,1))" };
    static const char alphabet[] = "(),0123456789vector ";
    srand(seed);
    for (int r = 0; r < rounds; r++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", seeds[rand() % 4]);
        int muts = 1 + rand() % 4;
        for (int m = 0; m < muts; m++) {
            size_t len = strlen(buf);
            int op = rand() % 3;
            size_t at = (size_t)rand() % (len + 1);
            if (op == 0 && len + 1 < sizeof buf) {                 /* insert */
                memmove(buf + at + 1, buf + at, len - at + 1);
                buf[at] = alphabet[rand() % (sizeof alphabet - 1)];
            } else if (op == 1 && at < len) {                       /* delete */
                memmove(buf + at, buf + at + 1, len - at);
            } else if (at < len) {                                  /* replace */
                buf[at] = alphabet[rand() % (sizeof alphabet - 1)];
            }
        }
        int size = 1 + rand() % 64, hosts[64];
        int n = mp_nodes_parse_mapping(buf, size, hosts);
        if (n == -1)
            continue;
        if (n < 1 || n > size || !layout_ok(hosts, size, n)) {
            fprintf(stderr, "FAIL fuzz: '%s' size %d gave an invalid layout (%d hosts)\n",
                    buf, size, n);
            failures++;
        }
    }
}

int main(void)
{
    /* MemPI's own mpiexec: everything on one host. */
    expect_layout("(vector,(0,1,4))", 4, (int[]){ 0, 0, 0, 0 }, 1);
    /* Hydra, 2 hosts x 2 ranks, blocked. */
    expect_layout("(vector,(0,2,2))", 4, (int[]){ 0, 0, 1, 1 }, 2);
    /* Hydra on one host: the block repeats cyclically. */
    expect_layout("(vector,(0,1,1))", 3, (int[]){ 0, 0, 0 }, 1);
    /* Round-robin over two hosts. */
    expect_layout("(vector,(0,2,1))", 5, (int[]){ 0, 1, 0, 1, 0 }, 2);
    /* Several blocks; host ids renumbered by first appearance. */
    expect_layout("(vector,(3,1,2),(0,1,1))", 4, (int[]){ 0, 0, 1, 0 }, 2);
    expect_layout("(vector,(0,3,1),(3,1,2))", 5, (int[]){ 0, 1, 2, 3, 3 }, 4);
    /* More hosts in the mapping than ranks. */
    expect_layout("(vector,(0,4,1))", 2, (int[]){ 0, 1 }, 2);
    expect_layout("(vector,(0,1,1))", 1, (int[]){ 0 }, 1);

    expect_reject("");
    expect_reject("(vector)");
    expect_reject("(vector,)");
    expect_reject("vector,(0,1,1)");
    expect_reject("(vector,(0,1,1)");
    expect_reject("(vector,(0,1,1)) ");
    expect_reject("(vector, (0,1,1))");
    expect_reject("(vector,(0,0,1))");
    expect_reject("(vector,(0,1,0))");
    expect_reject("(vector,(0,1))");
    expect_reject("(vector,(0,1,1,1))");
    expect_reject("(vector,(-1,1,1))");
    expect_reject("(vector,(0,1,99999999999))");
    expect_reject("(vector,(16777215,2,1))");
    expect_reject("(vector,(0,1,1))x");
    expect_reject("(VECTOR,(0,1,1))");
    if (mp_nodes_parse_mapping(NULL, 4, (int[4]){ 0 }) != -1 ||
        mp_nodes_parse_mapping("(vector,(0,1,1))", 0, (int[1]){ 0 }) != -1) {
        fprintf(stderr, "FAIL: NULL mapping or empty job accepted\n");
        failures++;
    }

    fuzz(12345u, 200000);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

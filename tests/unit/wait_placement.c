/* mempi-test: timeout=30 */
/* wait_placement.c -- unit test of the binding plan (core/placement.c).
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * Feeds mp_placement_plan made-up machines -- this 2-CPU box, two packages of four cores
 * with two hardware threads each (Linux numbers the first threads 0-7, their siblings 8-15),
 * unequal packages, a cgroup quota below the CPU count -- and checks where each rank goes:
 * one CPU per rank and all distinct when they fit, consecutive ranks on one package, first
 * threads before siblings, nothing bound when oversubscribed under auto, round robin under
 * a forced MEMPI_BIND=core, whole packages under socket.  Also checks mp_cores_available
 * against this process's affinity mask.
 */
#include "core/core.h"
#include "core/placement.h"
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n"); } } while (0)

static int machine_smt(mp_cpu *cpus, int packages, int cores, int threads)
{
    int n = 0, per = packages * cores;
    for (int t = 0; t < threads; t++)
        for (int p = 0; p < packages; p++)
            for (int c = 0; c < cores; c++) {
                mp_cpu x = { t * per + p * cores + c, p, c, t };
                cpus[n++] = x;
            }
    /* sorted by id already */
    return n;
}

static int one(const mp_cpu *cpus, int n, int cores, int nranks, int rank, int mode)
{
    int out[64];
    int k = mp_placement_plan(cpus, n, cores, nranks, rank, mode, out);
    return k == 1 ? out[0] : k == 0 ? -1 : -2;
}

static void expect_ranks(const char *what, const mp_cpu *cpus, int n, int cores, int nranks,
                         int mode, const int *want)
{
    for (int r = 0; r < nranks; r++) {
        int got = one(cpus, n, cores, nranks, r, mode);
        EXPECT(got == want[r], "%s: rank %d of %d -> %d, expected %d", what, r, nranks, got,
               want[r]);
    }
}

int main(void)
{
    mp_cpu cpus[64];

    /* this machine: 2 CPUs, one package, no SMT */
    int n = machine_smt(cpus, 1, 2, 1);
    expect_ranks("2 cpus, 2 ranks", cpus, n, 2, 2, MP_BIND_AUTO, (int[]){ 0, 1 });
    expect_ranks("2 cpus, 1 rank", cpus, n, 2, 1, MP_BIND_AUTO, (int[]){ 0 });
    expect_ranks("2 cpus, 3 ranks auto", cpus, n, 2, 3, MP_BIND_AUTO, (int[]){ -1, -1, -1 });
    expect_ranks("2 cpus, 3 ranks core", cpus, n, 2, 3, MP_BIND_CORE, (int[]){ 0, 1, 0 });
    expect_ranks("2 cpus, 2 ranks none", cpus, n, 2, 2, MP_BIND_NONE, (int[]){ -1, -1 });

    /* 2 packages x 4 cores x 2 threads */
    n = machine_smt(cpus, 2, 4, 2);
    expect_ranks("16 cpus, 4 ranks", cpus, n, 16, 4, MP_BIND_AUTO, (int[]){ 0, 1, 4, 5 });
    expect_ranks("16 cpus, 8 ranks", cpus, n, 16, 8, MP_BIND_AUTO,
                 (int[]){ 0, 1, 2, 3, 4, 5, 6, 7 });
    expect_ranks("16 cpus, 3 ranks", cpus, n, 16, 3, MP_BIND_AUTO, (int[]){ 0, 1, 4 });
    expect_ranks("16 cpus, 12 ranks", cpus, n, 16, 12, MP_BIND_AUTO,
                 (int[]){ 0, 1, 2, 3, 8, 9, 4, 5, 6, 7, 12, 13 });
    expect_ranks("16 cpus, 17 ranks auto", cpus, n, 16, 17, MP_BIND_AUTO,
                 (int[]){ -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 });
    expect_ranks("16 cpus, quota of 2 cores, 4 ranks", cpus, n, 2, 4, MP_BIND_AUTO,
                 (int[]){ -1, -1, -1, -1 });
    expect_ranks("16 cpus, quota of 4 cores, 4 ranks", cpus, n, 4, 4, MP_BIND_AUTO,
                 (int[]){ 0, 1, 4, 5 });

    /* 16 ranks: every CPU exactly once */
    int seen[16] = {0};
    for (int r = 0; r < 16; r++) {
        int c = one(cpus, n, 16, 16, r, MP_BIND_AUTO);
        EXPECT(c >= 0 && c < 16 && !seen[c], "16 ranks: rank %d -> %d (duplicate or none)", r, c);
        if (c >= 0 && c < 16)
            seen[c] = 1;
    }

    /* socket: rank 0 of 4 gets package 0 (0-3 and siblings 8-11), rank 3 package 1 */
    int out[64];
    int k = mp_placement_plan(cpus, n, 16, 4, 0, MP_BIND_SOCKET, out);
    EXPECT(k == 8 && out[0] == 0 && out[3] == 3 && out[4] == 8 && out[7] == 11,
           "socket: rank 0 got %d cpus starting %d", k, k ? out[0] : -1);
    k = mp_placement_plan(cpus, n, 16, 4, 3, MP_BIND_SOCKET, out);
    EXPECT(k == 8 && out[0] == 4 && out[7] == 15, "socket: rank 3 got %d cpus starting %d", k,
           k ? out[0] : -1);

    /* unequal packages: 2 CPUs in package 0, 6 in package 1 -> 4 ranks share 1 : 3 */
    mp_cpu uneq[8];
    for (int i = 0; i < 8; i++) {
        mp_cpu x = { i, i < 2 ? 0 : 1, i < 2 ? i : i - 2, 0 };
        uneq[i] = x;
    }
    expect_ranks("unequal packages", uneq, 8, 8, 4, MP_BIND_AUTO, (int[]){ 0, 2, 3, 4 });

    /* bad input never binds */
    EXPECT(one(cpus, 0, 0, 2, 0, MP_BIND_CORE) == -1, "no cpus: bound");
    EXPECT(one(cpus, n, 16, 2, 2, MP_BIND_CORE) == -1, "rank out of range: bound");

    /* the real mask */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = mp_cores_available();
        EXPECT(c >= 1 && c <= CPU_COUNT(&set), "mp_cores_available %d, affinity has %d", c,
               CPU_COUNT(&set));
    }
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}

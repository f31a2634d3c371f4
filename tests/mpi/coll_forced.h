/* coll_forced.h -- proves that the collective algorithms a test forces actually ran.
 * MemPI, BSD-3-Clause (see LICENSE).
 *
 * A test that forces algorithms (MEMPI_COLL_<NAME>=<alg> in its env= lines) would pass just
 * as well if the library silently fell back to another algorithm every time.  So:
 *
 *   coll_forced_begin()   before MPI_Init: if any MEMPI_COLL_<NAME> is forced, sets
 *                         MEMPI_VERBOSE=2 (one line per collective call, naming the
 *                         algorithm that ran: "MemPI: rank R: coll NAME ALG (...)") and sends
 *                         standard error to a private file;
 *   coll_forced_end(ex)   before MPI_Finalize, on every rank of MPI_COMM_WORLD: counts the
 *                         lines, sums them over the ranks, restores standard error (passing on
 *                         every other line), and fails unless every forced collective was
 *                         called (with more than one rank) and its forced algorithm ran at
 *                         least once.  Collectives after it (MPI_Finalize's) still print their
 *                         line to standard error.
 *
 * Some forced algorithms cannot run at some process counts (recursive doubling on a count
 * that is not a power of two, ...); `ex` lists them, "allgather=recursive_doubling" style, as
 * NULL-terminated strings the test picks for its configuration (NULL for none).  A forced
 * "shm" is excused when the job spans hosts (processor names differ: tests/cluster runs the
 * suite across namespace nodes), where communicators of several hosts cannot use it.  Under
 * `tests/run --np` (MEMPI_TEST_NP_OVERRIDE set) the process count is not one the test's env
 * line chose for its forced algorithms, so a fallback is excused there too; the calls must
 * still report an algorithm.
 */
#ifndef MEMPI_TEST_COLL_FORCED_H
#define MEMPI_TEST_COLL_FORCED_H

#include "check.h"
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FORCED_MAX = 32 };
static struct {
    int n;                            /* forced collectives */
    char coll[FORCED_MAX][32], alg[FORCED_MAX][32];
    int file, saved;                  /* trace file, the real standard error */
} coll_forced = { 0, { { 0 } }, { { 0 } }, -1, -1 };

extern char **environ;

static void coll_forced_begin(void)
{
    for (char **e = environ; *e && coll_forced.n < FORCED_MAX; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "MEMPI_COLL_", 11) != 0 || eq == NULL ||
            strncmp(*e, "MEMPI_COLL_SHM_SLOT=", 20) == 0 || eq[1] == '\0' ||
            strcmp(eq + 1, "auto") == 0)
            continue;
        int k = coll_forced.n++, len = (int)(eq - *e) - 11;
        for (int i = 0; i < len && i < 31; i++)
            coll_forced.coll[k][i] = (char)tolower((unsigned char)(*e)[11 + i]);
        snprintf(coll_forced.alg[k], sizeof coll_forced.alg[k], "%s", eq + 1);
    }
    if (coll_forced.n == 0)
        return;
    for (int i = 1; i < coll_forced.n; i++)          /* the same order on every rank */
        for (int j = i; j > 0 && strcmp(coll_forced.coll[j - 1], coll_forced.coll[j]) > 0; j--) {
            char t[32];
            memcpy(t, coll_forced.coll[j], 32);
            memcpy(coll_forced.coll[j], coll_forced.coll[j - 1], 32);
            memcpy(coll_forced.coll[j - 1], t, 32);
            memcpy(t, coll_forced.alg[j], 32);
            memcpy(coll_forced.alg[j], coll_forced.alg[j - 1], 32);
            memcpy(coll_forced.alg[j - 1], t, 32);
        }
    setenv("MEMPI_VERBOSE", "2", 1);
    char path[] = "/tmp/mempi-coll-forced-XXXXXX";
    coll_forced.file = mkstemp(path);
    CHECK(coll_forced.file >= 0, "cannot create a file for the collective trace");
    unlink(path);
    fflush(stderr);
    coll_forced.saved = dup(2);
    dup2(coll_forced.file, 2);
    check_fd = coll_forced.saved;     /* failures stay visible */
}

static int coll_forced_excused(int k, const char *const *ex, int several_hosts)
{
    char want[80];
    const char *np_forced = getenv("MEMPI_TEST_NP_OVERRIDE");
    if (several_hosts && strcmp(coll_forced.alg[k], "shm") == 0)
        return 1;
    if (np_forced && *np_forced)      /* tests/run --np: a count the env line was not made for */
        return 1;
    snprintf(want, sizeof want, "%s=%s", coll_forced.coll[k], coll_forced.alg[k]);
    for (; ex && *ex; ex++)
        if (strcmp(*ex, want) == 0)
            return 1;
    return 0;
}

static void coll_forced_end(const char *const *ex)
{
    if (coll_forced.n == 0)
        return;
    fflush(stderr);
    /* the trace so far (pread: standard error still writes at the end of the same file) */
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap + 1);
    for (ssize_t got;
         text && (got = pread(coll_forced.file, text + len, cap - len, (off_t)len)) > 0;) {
        len += (size_t)got;
        if (len == cap)
            text = realloc(text, (cap *= 2) + 1);
    }
    CHECK(text != NULL, "cannot read the collective trace back");
    text[len] = '\0';
    /* calls[k]: calls of collective k; ran[k]: calls that ran its forced algorithm */
    long sum[2 * FORCED_MAX] = { 0 }, *calls = sum, *ran = sum + FORCED_MAX;
    char coll[64], alg[64], *keep = malloc(len + 1);
    size_t kept = 0;
    int r;
    CHECK(keep != NULL, "out of memory");
    for (char *line = text; line < text + len;) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        size_t n = nl ? (size_t)(nl - line) + 1 : (size_t)(text + len - line);
        if (nl)
            *nl = '\0';
        if (sscanf(line, "MemPI: rank %d: coll %63s %63s", &r, coll, alg) == 3) {
            for (int k = 0; k < coll_forced.n; k++)
                if (strcmp(coll, coll_forced.coll[k]) == 0) {
                    calls[k]++;
                    ran[k] += strcmp(alg, coll_forced.alg[k]) == 0;
                }
        } else {                                         /* not ours: passed on below */
            if (nl)
                *nl = '\n';
            memcpy(keep + kept, line, n);
            kept += n;
        }
        line += n;
    }
    free(text);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sum, 2 * FORCED_MAX, MPI_LONG, MPI_SUM,
                            MPI_COMM_WORLD));
    int several_hosts = check_several_hosts(MPI_COMM_WORLD);
    dup2(coll_forced.saved, 2);
    check_fd = 2;
    for (size_t done = 0; done < kept;) {
        ssize_t w = write(2, keep + done, kept - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    free(keep);
    if (rank != 0 || size == 1)
        return;
    for (int k = 0; k < coll_forced.n; k++) {
        CHECK(calls[k] > 0, "forced %s=%s: no %s call reported an algorithm (is "
              "MEMPI_VERBOSE=2 tracing broken?)", coll_forced.coll[k], coll_forced.alg[k],
              coll_forced.coll[k]);
        CHECK(ran[k] > 0 || coll_forced_excused(k, ex, several_hosts),
              "forced %s=%s never ran: all %ld %s calls fell back to another algorithm",
              coll_forced.coll[k], coll_forced.alg[k], calls[k], coll_forced.coll[k]);
    }
}

#endif

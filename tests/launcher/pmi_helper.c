/* pmi_helper.c -- a rank program for the launcher tests, using the PMI client.  MemPI, BSD-3-Clause (see LICENSE). */

/*
 * One program, many behaviours, chosen by argv[1], so each check-* script
 * compiles one thing.  Every mode first does mp_pmi_init and a fence (so the
 * launcher has seen every rank before anything fails), then:
 *
 *   kvs                 put a key per rank, fence, get every rank's key, check
 *                       PMI_process_mapping, MEMPI_JOB_ID, universe size,
 *                       duplicate put and missing key errors; finalize
 *   exit RANK CODE      RANK exits CODE at once; the others wait in a fence
 *   kill RANK           RANK sends itself SIGKILL; the others wait
 *   abort RANK CODE     RANK calls mp_pmi_abort(CODE, 0, "helper abort ...") as MPI_Abort does
 *   nofinalize RANK     RANK exits 0 without finalize; the others wait
 *   ignoreterm RANK     all ranks ignore SIGTERM; RANK exits 3
 *   hang                every rank sleeps (for --timeout)
 *   stdin               rank 0 copies stdin to stdout as "stdin: ..."; others
 *                       check that their stdin is at end of file
 *   env NAME VALUE      every rank checks getenv(NAME) == VALUE
 *   print LINES         every rank prints LINES lines in small pieces
 *   singleton           checks singleton mode (run without mpiexec)
 *
 * Failures print "pmi_helper: rank R: ..." on stderr and exit 1.
 */
#include "core/pmi.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, appnum;

static void die(const char *what)
{
    fprintf(stderr, "pmi_helper: rank %d: %s (%s)\n", rank, what, mp_pmi_error());
    exit(1);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "pmi_helper: rank %d: check failed: %s\n", rank, what);
        exit(1);
    }
}

static void wait_forever(void)
{
    for (;;)
        pause();
}

static void mode_kvs(void)
{
    char key[64], want[128], got[1024];
    int n;

    snprintf(key, sizeof key, "helper-key-%d", rank);
    snprintf(want, sizeof want, "value_of_%d_(x=%d)", rank, rank * 7);
    if (mp_pmi_put(key, want) != 0)
        die("put");
    /* MemPI's mpiexec refuses a second put of a key (PMI-1 forbids it);
     * Hydra 4.0 silently overwrites, so only check under our launcher. */
    if (getenv("MEMPI_LOCAL_RANK") != NULL)
        check(mp_pmi_put(key, "again") < 0, "a duplicate put is refused");
    check(mp_pmi_put("bad key", "v") == MP_PMI_EINVAL, "a key with a space is refused");
    if (mp_pmi_fence() != 0)
        die("fence");
    for (int r = 0; r < size; r++) {
        int q = (rank + r) % size;
        snprintf(key, sizeof key, "helper-key-%d", q);
        snprintf(want, sizeof want, "value_of_%d_(x=%d)", q, q * 7);
        if (mp_pmi_get(key, got, sizeof got) != 0)
            die("get");
        check(strcmp(got, want) == 0, "value read back equals value put");
    }
    check(mp_pmi_get("no-such-key", got, sizeof got) == MP_PMI_ENOTFOUND, "missing key");
    check(mp_pmi_get("helper-key-0", got, 3) == MP_PMI_EINVAL, "too small buffer");
    if (mp_pmi_get(MP_PMI_KEY_PROCESS_MAPPING, got, sizeof got) != 0)
        die("get PMI_process_mapping");
    snprintf(want, sizeof want, "(vector,(0,1,%d))", size);
    /* Hydra writes the same one-node layout as (vector,(0,1,1)), repeated. */
    check(strcmp(got, want) == 0 || (getenv("MEMPI_LOCAL_RANK") == NULL &&
                                     strncmp(got, "(vector,", 8) == 0),
          "PMI_process_mapping");
    if (getenv("MEMPI_LOCAL_RANK") != NULL) {   /* only MemPI's launcher serves it */
        if (mp_pmi_get(MP_PMI_KEY_JOB_ID, got, sizeof got) != 0)
            die("get MEMPI_JOB_ID");
        check(strlen(got) == 32 && strspn(got, "0123456789abcdef") == 32, "MEMPI_JOB_ID is hex");
    }
    if (mp_pmi_universe_size(&n) != 0)
        die("universe size");
    if (getenv("MEMPI_LOCAL_RANK") != NULL) {   /* MemPI's mpiexec: its slots, at least the job */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        check(n == (cores > size ? cores : size), "universe size");
    } else {
        check(n >= size, "universe size");
    }
    check(appnum == 0, "appnum");
    /* A second round: fences are reusable. */
    snprintf(key, sizeof key, "round2-%d", rank);
    if (mp_pmi_put(key, "2") != 0 || mp_pmi_fence() != 0)
        die("second round");
    snprintf(key, sizeof key, "round2-%d", (rank + 1) % size);
    if (mp_pmi_get(key, got, sizeof got) != 0 || strcmp(got, "2") != 0)
        die("second round get");
    if (mp_pmi_finalize() != 0)
        die("finalize");
    printf("kvs ok: rank %d of %d\n", rank, size);
}

static void mode_stdin(void)
{
    char buf[4096];
    ssize_t n;
    if (rank == 0) {
        while ((n = read(0, buf, sizeof buf)) > 0)
            if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
                die("write stdout");
        check(n == 0, "stdin read ends with EOF");
    } else {
        check(read(0, buf, sizeof buf) == 0, "non-zero ranks read EOF from stdin");
    }
    if (mp_pmi_finalize() != 0)
        die("finalize");
}

static void mode_print(int lines)
{
    for (int i = 0; i < lines; i++) {
        /* Three separate writes per line: the launcher must glue them. */
        dprintf(1, "line %d ", i);
        dprintf(1, "from rank %d", rank);
        if (i % 7 == 3)
            usleep(1000);
        dprintf(1, " end\n");
    }
    if (mp_pmi_finalize() != 0)
        die("finalize");
}

static void mode_singleton(void)
{
    char got[256];
    check(mp_pmi_is_singleton(), "singleton mode without PMI_FD");
    check(rank == 0 && size == 1, "singleton rank 0 of 1");
    check(mp_pmi_put("k", "v") == 0 && mp_pmi_fence() == 0, "put and fence");
    check(mp_pmi_get("k", got, sizeof got) == 0 && strcmp(got, "v") == 0, "get");
    check(mp_pmi_get("nope", got, sizeof got) == MP_PMI_ENOTFOUND, "missing key");
    check(mp_pmi_get(MP_PMI_KEY_JOB_ID, got, sizeof got) == 0 && strlen(got) == 32, "job id");
    check(mp_pmi_get(MP_PMI_KEY_PROCESS_MAPPING, got, sizeof got) == 0 &&
              strcmp(got, "(vector,(0,1,1))") == 0, "mapping");
    check(mp_pmi_finalize() == 0, "finalize");
    printf("singleton ok\n");
}

static int arg_int(int argc, char **argv, int i)
{
    if (i >= argc) {
        fprintf(stderr, "pmi_helper: missing argument %d\n", i);
        exit(2);
    }
    return atoi(argv[i]);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "kvs";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (mp_pmi_init(&rank, &size, &appnum) != 0)
        die("init");
    if (strcmp(mode, "singleton") == 0) {
        mode_singleton();
        return 0;
    }
    if (strcmp(mode, "ignoreterm") == 0)
        signal(SIGTERM, SIG_IGN);
    if (mp_pmi_fence() != 0)
        die("first fence");

    if (strcmp(mode, "kvs") == 0) {
        mode_kvs();
    } else if (strcmp(mode, "exit") == 0) {
        if (rank == arg_int(argc, argv, 2))
            exit(arg_int(argc, argv, 3));
        mp_pmi_fence();   /* blocks: the failing rank never arrives */
        wait_forever();
    } else if (strcmp(mode, "kill") == 0) {
        if (rank == arg_int(argc, argv, 2))
            raise(SIGKILL);
        wait_forever();
    } else if (strcmp(mode, "abort") == 0) {
        if (rank == arg_int(argc, argv, 2))
            mp_pmi_abort(arg_int(argc, argv, 3), 0, "helper abort, as asked");
        wait_forever();
    } else if (strcmp(mode, "nofinalize") == 0) {
        if (rank == arg_int(argc, argv, 2))
            exit(0);
        wait_forever();
    } else if (strcmp(mode, "ignoreterm") == 0) {
        if (rank == arg_int(argc, argv, 2))
            exit(3);
        wait_forever();
    } else if (strcmp(mode, "hang") == 0) {
        wait_forever();
    } else if (strcmp(mode, "stdin") == 0) {
        mode_stdin();
    } else if (strcmp(mode, "env") == 0) {
        const char *v = getenv(argv[2]);
        check(argc > 3 && v != NULL && strcmp(v, argv[3]) == 0, "environment variable");
        if (mp_pmi_finalize() != 0)
            die("finalize");
    } else if (strcmp(mode, "print") == 0) {
        mode_print(arg_int(argc, argv, 2));
    } else {
        fprintf(stderr, "pmi_helper: unknown mode '%s'\n", mode);
        return 2;
    }
    return 0;
}

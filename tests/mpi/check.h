/* check.h -- the assertions every C test program uses.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A failed check prints one line naming the world rank, the file and line, and what was
 * wrong, then ends the job with MPI_Abort: the test driver sees a non-zero exit status and
 * the launcher tears the other ranks down, so a failure can never turn into a hang.
 *
 *   CHECK(cond, fmt, ...)      cond must hold; fmt explains what was expected
 *   CHECK_MPI(call)            call must return MPI_SUCCESS (the error string is printed)
 *   CHECK_CLASS(call, cls)     call must fail with an error of class cls
 *                              (the communicator's handler must be MPI_ERRORS_RETURN)
 *   FAIL(fmt, ...)             fails at once
 *   EXPECT(cond, fmt, ...)     like CHECK, but the program goes on: the line is printed and
 *                              check_failures counted, for tests that report every mismatch
 *                              and end with CHECK(check_failures == 0, ...)
 *
 * The rank printed is MPI_COMM_WORLD's, looked up at the failure (or -1 outside MPI).
 * Failures are written to check_fd (standard error); a test that redirects standard error to
 * look at what the library prints points check_fd at the saved descriptor.
 */
#ifndef MEMPI_TEST_CHECK_H
#define MEMPI_TEST_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_fd __attribute__((unused)) = 2;
static int check_failures __attribute__((unused));

static inline int check_world_rank(void)
{
    int init = 0, fin = 0, r = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static void check_vsay(const char *file, int line, const char *fmt, va_list ap)
{
    char msg[1200];
    int n = snprintf(msg, sizeof msg, "rank %d: %s:%d: ", check_world_rank(), file, line);
    if (n < 0 || n >= (int)sizeof msg - 2)
        n = 0;
    vsnprintf(msg + n, sizeof msg - (size_t)n - 1, fmt, ap);
    size_t len = strlen(msg);
    msg[len++] = '\n';
    fflush(stderr);
    for (size_t done = 0; done < len;) {
        ssize_t w = write(check_fd, msg + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
}

static void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn, unused));
static void check_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check_vsay(file, line, fmt, ap);
    va_end(ap);
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void check_note(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), unused));
static void check_note(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check_vsay(file, line, fmt, ap);
    va_end(ap);
    check_failures++;
}

static inline const char *check_error_string(int code)
{
    static char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error code %d", code);
    return text;
}

#define CHECK(cond, ...) \
    do { if (!(cond)) check_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

#define FAIL(...) check_fail(__FILE__, __LINE__, __VA_ARGS__)

#define EXPECT(cond, ...) \
    do { if (!(cond)) check_note(__FILE__, __LINE__, __VA_ARGS__); } while (0)

#define CHECK_MPI(call) \
    do { int check_e_ = (call); \
         if (check_e_ != MPI_SUCCESS) \
             check_fail(__FILE__, __LINE__, "%s returned %d: %s", #call, check_e_, \
                        check_error_string(check_e_)); } while (0)

#define CHECK_CLASS(call, cls) \
    do { int check_e_ = (call), check_c_ = -1; \
         if (check_e_ != MPI_SUCCESS) MPI_Error_class(check_e_, &check_c_); \
         if (check_c_ != (cls)) \
             check_fail(__FILE__, __LINE__, "%s: expected error class %d (%s), got code %d " \
                        "(class %d)", #call, (int)(cls), #cls, check_e_, check_c_); } while (0)

/* Whether the ranks of comm run on more than one host (their processor names differ):
 * tests/cluster runs the suite across namespace nodes.  Collective over comm. */
static __attribute__((unused)) int check_several_hosts(MPI_Comm comm)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    long hash[2] = { 0, 0 };                 /* min and -max of the names' hashes */
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    for (int i = 0; i < len; i++)
        hash[0] = (hash[0] * 31 + (unsigned char)name[i]) % 2147483647L;
    hash[1] = -hash[0];
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, hash, 2, MPI_LONG, MPI_MIN, comm));
    return hash[0] != -hash[1];
}

#endif

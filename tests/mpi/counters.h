/* counters.h -- reading MemPI's performance counters (MPI_T) in a test.  MemPI, BSD-3-Clause
 * (see LICENSE).
 *
 *   counters_open()          MPI_T_init_thread and a session
 *   counter_start(name)      a started handle of the counter `name`: it counts from now on
 *   counter_read(h)          its value
 *   counters_close()         frees the session (and its handles) and ends MPI_T
 *
 * The counters are MemPI's (mempi_*): a test that must also run under another MPI asks first
 * (MPI_Get_library_version) and only then opens them.
 */
#ifndef MEMPI_TEST_COUNTERS_H
#define MEMPI_TEST_COUNTERS_H

#include "check.h"

static MPI_T_pvar_session counters_session;

static __attribute__((unused)) void counters_open(void)
{
    int provided;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_session_create(&counters_session) == MPI_SUCCESS, "pvar session");
}

static __attribute__((unused)) MPI_T_pvar_handle counter_start(const char *name)
{
    int index, count;
    MPI_T_pvar_handle h;
    CHECK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS,
          "no performance variable %s", name);
    CHECK(MPI_T_pvar_handle_alloc(counters_session, index, NULL, &h, &count) == MPI_SUCCESS,
          "pvar handle");
    CHECK(MPI_T_pvar_start(counters_session, h) == MPI_SUCCESS, "pvar start");
    return h;
}

static __attribute__((unused)) unsigned long long counter_read(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(counters_session, h, &v) == MPI_SUCCESS, "pvar read");
    return v;
}

static __attribute__((unused)) void counters_close(void)
{
    MPI_T_pvar_session_free(&counters_session);
    MPI_T_finalize();
}

#endif

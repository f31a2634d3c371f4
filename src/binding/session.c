/* session.c -- the parts of the session entry points (MPI 4.0 11.3) that session.spec does
 * not describe: MPI_Session_init and _finalize, and the process-set queries that copy out a
 * name or build an object.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * The entry points are generated from session.spec: the lock, the session handle resolved and
 * every error raised through the session's handler.  The objects are the comm layer's
 * (comm/session.c); the library under them is shared with the world model, started and
 * stopped by init.c (mp_session_start/mp_session_stop).  MPI_Session_init reports its errors
 * itself, through the handler it was given when that handler is valid, as the standard says,
 * else as an error of no object.
 */
#include "binding/binding.h"
#include <string.h>

/* The thread level a session asks for: the info key of MPI 4.0 11.3.1, else single. */
static int required_level(MPI_Info info)
{
    static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    const char *level = info == MPI_INFO_NULL ? NULL : mp_info_value(info, "thread_level");
    for (int i = 0; level && i < 4; i++)
        if (strcmp(level, levels[i]) == 0)
            return i;
    return MPI_THREAD_SINGLE;
}

int mp_do_session_init(const char *F, MPI_Info info, MPI_Errhandler errhandler,
                       MPI_Session *session)
{
    if (session != NULL)
        *session = MPI_SESSION_NULL;
    if (errhandler == MPI_ERRHANDLER_NULL || mp_errhandler_check(errhandler, MP_EH_SESSION))
        return mp_session_raise(NULL, mp_err(F, MPI_ERR_ARG, "invalid session error handler "
                                             "0x%x", (unsigned)errhandler), F);
    /* A stand-in until the session exists, so that errors reach the handler given. */
    mp_session given = { .handle = MPI_SESSION_NULL, .errhandler = errhandler };
    int provided, err = mp_chk_out(F, session, "session");
    if (!err)
        err = mp_chk_info(F, info);
    if (!err)
        err = mp_session_start(F, required_level(info), &provided);
    if (err)
        return mp_session_raise(&given, err, F);
    MP_BIG_LOCK();                    /* the library runs: its thread level is fixed */
    mp_session *s = mp_session_create(info, errhandler, provided);
    if (s == NULL) {
        mp_session_stop();
        return mp_session_raise(&given, mp_err(F, MPI_ERR_NO_MEM, "too many sessions"), F);
    }
    *session = s->handle;
    return MPI_SUCCESS;
}

int mp_do_session_finalize(const char *F, mp_session *session)
{
    {
        MP_BIG_LOCK();
        mp_session_destroy(session);
    }
    mp_session_stop();                /* outside the lock: it may stop the library */
    return MPI_SUCCESS;
}

int mp_do_session_get_nth_pset(const char *F, mp_session *session, MPI_Info info, int n,
                               int *pset_len, char *pset_name)
{
    char name[MPI_MAX_PSET_NAME_LEN];
    int need = mp_pset_name(n, name, sizeof name) + 1;
    if (*pset_len > 0) {
        int k = need < *pset_len ? need : *pset_len;
        memcpy(pset_name, name, (size_t)(k - 1));
        pset_name[k - 1] = '\0';
    }
    *pset_len = need;
    return MPI_SUCCESS;
}

int mp_do_session_get_pset_info(const char *F, mp_session *session, const char *pset_name,
                                MPI_Info *info)
{
    mp_group *g = mp_pset_group(mp_pset_find(pset_name));
    char size[16];
    snprintf(size, sizeof size, "%d", g->size);
    mp_group_release(g);
    mp_info *i = mp_info_alloc();
    mp_info_put(i, "mpi_size", size);
    int h = mp_info_publish(i);
    if (!h) {
        mp_info_destroy(i);
        return mp_err(F, MPI_ERR_NO_MEM, "too many info objects");
    }
    *info = h;
    return MPI_SUCCESS;
}

int mp_do_group_from_session_pset(const char *F, mp_session *session, const char *pset_name,
                                  MPI_Group *newgroup)
{
    mp_group *g = mp_pset_group(mp_pset_find(pset_name));
    g->session_bbuf = session->bbuf;   /* its communicators send buffered through it */
    if (!mp_group_publish(g)) {
        mp_group_release(g);
        return mp_err(F, MPI_ERR_NO_MEM, "too many groups");
    }
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

/* session.c -- MPI sessions (MPI 4.0 11.3) and their process sets.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * A session is a small object: its error handler and the info it was created with.  The
 * library underneath is shared with the world model -- binding/init.c starts it at the first
 * MPI_Init or MPI_Session_init and stops it when the world model and every session are
 * finalized -- so a group from a session is a group of MPI_COMM_WORLD's processes, and
 * MPI_Comm_create_from_group builds communicators from it exactly as from a world group.
 * The process sets are mpi://WORLD (every process of the job) and mpi://SELF (this process),
 * which the standard names; mpix://SHARED, the processes of this process's node (the name
 * Open MPI gives that set; MPICH defines no process set beyond the standard's two); and
 * mpix://NODE/<n> for every node n of the job (0 up, numbered as MPI_COMM_TYPE_SHARED's
 * colors are), so that a process can name any node's processes, its own included.  Pset
 * names are compared without regard to case, as MPICH does.  Errors of
 * session calls go through the session's handler: MPI_ERRORS_RETURN returns the code, the
 * fatal ones end the job, a user handler gets a pointer to the session handle.  An error with
 * no valid session (a bad handle) goes where errors without an object go:
 * MPI_COMM_WORLD's handler, fatal unless the world model set another.
 */
#include "comm/comm.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static mp_table session_table = { .type = MP_OBJ_SESSION, .lock = ATOMIC_FLAG_INIT };

static const char *const psets[] = { "mpi://WORLD", "mpi://SELF", "mpix://SHARED" };

mp_session *mp_session_create(MPI_Info info, int errhandler, int thread_level)
{
    mp_session *s = mp_calloc(1, sizeof *s);
    s->handle = mp_table_insert(&session_table, s);
    if (s->handle == 0) {
        free(s);
        return NULL;
    }
    mp_info *used = info == MPI_INFO_NULL ? mp_info_alloc() : mp_info_clone(mp_info_get(info));
    static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    mp_info_put(used, "thread_level", levels[thread_level]);   /* MPI 4.0 11.3.1 */
    s->info = mp_info_publish(used);
    mp_errhandler_retain(errhandler);
    s->errhandler = errhandler;
    s->bbuf = mp_bbuf_new();
    return s;
}

mp_session *mp_session_get(MPI_Session h)
{
    return h == MPI_SESSION_NULL ? NULL : mp_table_lookup(&session_table, h);
}

void mp_session_set_errhandler(mp_session *s, int errhandler)
{
    mp_errhandler_retain(errhandler);
    mp_errhandler_release(s->errhandler);
    s->errhandler = errhandler;
}

void mp_session_destroy(mp_session *s)
{
    mp_table_remove(&session_table, s->handle);
    mp_bbuf_free(s->bbuf);
    mp_errhandler_release(s->errhandler);
    mp_info_free_handle(s->info);
    free(s);
}

int mp_session_raise(mp_session *s, int code, const char *func)
{
    if (code == MPI_SUCCESS)
        return code;
    if (s == NULL)                    /* no session: the library's default, as for no object */
        return mp_error_raise(NULL, code, func);
    return mp_errhandler_raise(s->errhandler, s->handle, code, func);
}

int mp_session_live(void)
{
    return mp_table_live(&session_table);
}

/* The fixed process sets, then one per node (see the design note). */
enum { PSET_WORLD, PSET_SELF, PSET_SHARED, PSET_NODE0 };
#define NODE_PREFIX "mpix://NODE/"

int mp_pset_count(void)
{
    return PSET_NODE0 + (mp_world.nnodes > 0 ? mp_world.nnodes : 1);
}

int mp_pset_name(int n, char *name, size_t len)
{
    if (n < PSET_NODE0)
        return snprintf(name, len, "%s", psets[n]);
    return snprintf(name, len, NODE_PREFIX "%d", n - PSET_NODE0);
}

int mp_pset_find(const char *name)
{
    for (int i = 0; i < PSET_NODE0; i++)
        if (strcasecmp(name, psets[i]) == 0)
            return i;
    size_t k = strlen(NODE_PREFIX);
    if (strncasecmp(name, NODE_PREFIX, k) != 0 || name[k] < '0' || name[k] > '9')
        return -1;
    char *end;
    long node = strtol(name + k, &end, 10);
    if (*end != '\0' || node >= mp_pset_count() - PSET_NODE0 || (name[k] == '0' && end > name + k + 1))
        return -1;
    return PSET_NODE0 + (int)node;
}

static int node_of(int world)
{
    return mp_world.procs ? mp_world.procs[world].node : 0;
}

mp_group *mp_pset_group(int n)
{
    if (n == PSET_SELF)
        return mp_group_copy_of(1, &mp_world.rank);
    int node = n == PSET_SHARED ? node_of(mp_world.rank) : n - PSET_NODE0, count = 0;
    int *members = mp_malloc(sizeof(int) * (size_t)mp_world.size);
    for (int i = 0; i < mp_world.size; i++)
        if (n == PSET_WORLD || node_of(i) == node)
            members[count++] = i;
    return mp_group_create(count, members);
}

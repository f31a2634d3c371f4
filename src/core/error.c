/* error.c -- error codes, messages and error-handler dispatch.  MemPI, BSD-3-Clause (see LICENSE).
 *
 * An error code carries its class in the low 7 bits and, above them, the index of a slot in a
 * ring of recent messages:  code = class | slot << 7.  So the code an application gets back
 * from a failed call still says *what* failed ("MPI_Send: invalid rank 7 in a communicator of
 * size 4") when passed to MPI_Error_string, while MPI_Error_class is a mask.  The ring holds the
 * last MP_ERR_SLOTS messages; an older code degrades gracefully to its class text.
 *
 * User-defined classes and codes (MPI_Add_error_class/code) live above MPI_ERR_LASTCODE's
 * predefined range: classes at MP_USER_CLASS_BASE + i, codes at MP_USER_CODE_BASE + j.
 * MPI 4.1's MPI_Remove_error_class/code/string take them back in the opposite order: a string
 * first, then the codes of a class, then the class (removing what something still depends on
 * is an error).  A removed number is never handed out again, so MPI_LASTUSEDCODE never
 * decreases and a stale code cannot name a new class.
 *
 * Dispatch: mp_error() formats, records, and calls the communicator's handler.  The predefined
 * fatal handlers print one line and end the job through the launcher; MPI_ERRORS_RETURN
 * returns the code; user handlers are called through a hook the comm layer installs.
 */
#include "core/core.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MP_ERR_SLOTS        256
#define MP_ERR_MSG_LEN      MPI_MAX_ERROR_STRING
#define MP_USER_CLASS_BASE  0x40000000
#define MP_USER_CODE_BASE   0x40100000
#define MP_USER_MAX         4096

static char err_ring[MP_ERR_SLOTS][MP_ERR_MSG_LEN];
static unsigned err_next = 1;
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

static int   user_classes;
static int   user_codes;
static int   user_code_class[MP_USER_MAX];
static char *user_class_text[MP_USER_MAX];
static char *user_code_text[MP_USER_MAX];
static unsigned char user_class_gone[MP_USER_MAX], user_code_gone[MP_USER_MAX];

int (*mp_errhandler_invoke_hook)(mp_comm *comm, int eh, int code);

static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduce operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument of some other kind",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid access mode",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_DUP_DATAREP] = "duplicate data representation",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_INFO_KEY] = "invalid info key",
    [MPI_ERR_INFO_VALUE] = "invalid info value",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_NAME] = "invalid service name",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments not identical",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_PORT] = "invalid port",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file",
    [MPI_ERR_SERVICE] = "invalid service",
    [MPI_ERR_SPAWN] = "spawn error",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by MemPI",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_KEYVAL] = "invalid keyval",
    [MPI_ERR_RMA_CONFLICT] = "conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "wrong RMA synchronization",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_ASSERT] = "invalid assert",
    [MPI_ERR_RMA_RANGE] = "RMA target out of range",
    [MPI_ERR_RMA_ATTACH] = "RMA attach failed",
    [MPI_ERR_RMA_SHARED] = "RMA shared memory error",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "communication with an aborted process",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to store",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
};
#define NCLASS_TEXT ((int)(sizeof class_text / sizeof class_text[0]))

static int user_class_live(int cls)
{
    return cls >= MP_USER_CLASS_BASE && cls < MP_USER_CLASS_BASE + user_classes &&
           !user_class_gone[cls - MP_USER_CLASS_BASE];
}

static int user_code_live(int code)
{
    return code >= MP_USER_CODE_BASE && code < MP_USER_CODE_BASE + user_codes &&
           !user_code_gone[code - MP_USER_CODE_BASE];
}

const char *mp_error_class_text(int cls)
{
    if (cls >= 0 && cls < NCLASS_TEXT && class_text[cls] != NULL)
        return class_text[cls];
    if (cls >= MP_USER_CLASS_BASE && cls < MP_USER_CLASS_BASE + user_classes)
        return user_class_text[cls - MP_USER_CLASS_BASE] ? user_class_text[cls - MP_USER_CLASS_BASE] : "";
    return "unknown error class";
}

int mp_error_class_of(int code)
{
    if (code >= MP_USER_CODE_BASE && code < MP_USER_CODE_BASE + user_codes)
        return user_code_class[code - MP_USER_CODE_BASE];
    if (code >= MP_USER_CLASS_BASE)
        return code;
    return code & 0x7f;
}

const char *mp_error_message(int code)
{
    if (code >= MP_USER_CODE_BASE && code < MP_USER_CODE_BASE + user_codes) {
        const char *t = user_code_text[code - MP_USER_CODE_BASE];
        return t ? t : "";
    }
    if (code >= MP_USER_CLASS_BASE)
        return mp_error_class_text(code);
    unsigned slot = (unsigned)code >> 7;
    if (slot != 0 && slot < MP_ERR_SLOTS * 64u) {
        const char *msg = err_ring[slot % MP_ERR_SLOTS];
        /* The slot may have been reused by a newer error: its class must still match. */
        if (msg[0] != '\0' && (unsigned char)msg[MP_ERR_MSG_LEN - 1] == (unsigned)(code & 0x7f))
            return msg;
    }
    return mp_error_class_text(code & 0x7f);
}

static int record(int cls, const char *text)
{
    if (cls >= MP_USER_CLASS_BASE || cls <= 0 || cls > 0x7f)
        return cls;
    pthread_mutex_lock(&err_lock);
    unsigned slot = err_next++;
    if (err_next >= MP_ERR_SLOTS * 64u)
        err_next = 1;
    char *msg = err_ring[slot % MP_ERR_SLOTS];
    snprintf(msg, MP_ERR_MSG_LEN - 1, "%s", text);
    msg[MP_ERR_MSG_LEN - 1] = (char)cls;   /* class tag checked on lookup */
    pthread_mutex_unlock(&err_lock);
    return cls | (int)(slot << 7);
}

int mp_error_code(int cls, const char *fmt, ...)
{
    char text[MP_ERR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return record(cls, text);
}

/* An error nobody may return: one line on stderr, and the same text (without the rank prefix)
 * is what the launcher reports as the reason the job ended. */
static void __attribute__((noreturn)) fatal(int code, const char *func)
{
    const char *msg = mp_error_message(code);
    char text[MP_ERR_MSG_LEN + 96], line[MP_ERR_MSG_LEN + 128];
    /* Lower layers may produce messages without the function name; add it. */
    if (func && strncmp(msg, func, strlen(func)) != 0)
        snprintf(text, sizeof text, "%s: %s (error class %d)", func, msg, mp_error_class_of(code));
    else
        snprintf(text, sizeof text, "%s (error class %d)", msg, mp_error_class_of(code));
    int n = snprintf(line, sizeof line, "MemPI: rank %d: %s\n", mp_world.rank, text);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    if (write(2, line, (size_t)n) < 0) { /* nothing else to do */ }
    mp_abort_job(mp_error_class_of(code), text);
}

void mp_error_fatal(int code, const char *func)
{
    fatal(code, func);
}

int mp_error_raise(mp_comm *comm, int code, const char *func)
{
    if (code == MPI_SUCCESS)
        return code;
    if (comm == NULL)
        comm = mp_world.comm_world;
    if (comm == NULL || !mp_world.initialized || mp_world.finalized)
        fatal(code, func);
    int eh = comm->errhandler;
    if (eh == MPI_ERRORS_RETURN)
        return code;
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT ||
        mp_errhandler_invoke_hook == NULL)
        fatal(code, func);
    mp_errhandler_invoke_hook(comm, eh, code);
    return code;
}

int mp_error(mp_comm *comm, int cls, const char *func, const char *fmt, ...)
{
    char text[MP_ERR_MSG_LEN];
    int n = snprintf(text, sizeof text, "%s: ", func);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    return mp_error_raise(comm, record(cls, text), func);
}

int mp_unsupported_on(mp_comm *comm, const char *func)
{
    return mp_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, func,
                    "not implemented in MemPI %s (see the feature table in README.md)",
                    MEMPI_VERSION);
}

int mp_unsupported(const char *func)
{
    return mp_unsupported_on(NULL, func);
}

int mp_error_add_class(int *cls)
{
    pthread_mutex_lock(&err_lock);
    int ok = user_classes < MP_USER_MAX;
    if (ok)
        *cls = MP_USER_CLASS_BASE + user_classes++;
    pthread_mutex_unlock(&err_lock);
    return ok ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int mp_error_add_code(int cls, int *code)
{
    int valid = (cls >= 0 && cls < NCLASS_TEXT) || user_class_live(cls);
    if (!valid)
        return MPI_ERR_ARG;
    pthread_mutex_lock(&err_lock);
    int ok = user_codes < MP_USER_MAX;
    if (ok) {
        user_code_class[user_codes] = cls;
        *code = MP_USER_CODE_BASE + user_codes++;
    }
    pthread_mutex_unlock(&err_lock);
    return ok ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* The string of a live user-defined class or code, else NULL. */
static char **user_text_slot(int code)
{
    if (user_code_live(code))
        return &user_code_text[code - MP_USER_CODE_BASE];
    if (user_class_live(code))
        return &user_class_text[code - MP_USER_CLASS_BASE];
    return NULL;
}

int mp_error_add_string(int code, const char *text)
{
    char **slot = user_text_slot(code);
    if (slot == NULL)
        return MPI_ERR_ARG;
    pthread_mutex_lock(&err_lock);
    free(*slot);
    *slot = mp_strdup(text);
    pthread_mutex_unlock(&err_lock);
    return MPI_SUCCESS;
}

int mp_error_remove_string(int code)
{
    pthread_mutex_lock(&err_lock);
    char **slot = user_text_slot(code);
    if (slot) {
        free(*slot);
        *slot = NULL;
    }
    pthread_mutex_unlock(&err_lock);
    return slot ? MPI_SUCCESS : MPI_ERR_ARG;
}

int mp_error_remove_code(int code)
{
    pthread_mutex_lock(&err_lock);
    int err = !user_code_live(code) ? MPI_ERR_ARG
              : user_code_text[code - MP_USER_CODE_BASE] ? MPI_ERR_OTHER : MPI_SUCCESS;
    if (!err)
        user_code_gone[code - MP_USER_CODE_BASE] = 1;
    pthread_mutex_unlock(&err_lock);
    return err;
}

int mp_error_remove_class(int cls)
{
    pthread_mutex_lock(&err_lock);
    int err = !user_class_live(cls) ? MPI_ERR_ARG
              : user_class_text[cls - MP_USER_CLASS_BASE] ? MPI_ERR_OTHER : MPI_SUCCESS;
    for (int j = 0; !err && j < user_codes; j++)
        if (!user_code_gone[j] && user_code_class[j] == cls)
            err = MPI_ERR_OTHER;
    if (!err)
        user_class_gone[cls - MP_USER_CLASS_BASE] = 1;
    pthread_mutex_unlock(&err_lock);
    return err;
}

int mp_error_last_used(void)
{
    int last = MPI_ERR_LASTCODE;
    if (user_classes > 0)
        last = MP_USER_CLASS_BASE + user_classes - 1;
    if (user_codes > 0)
        last = MP_USER_CODE_BASE + user_codes - 1;
    return last;
}

void mp_fatal(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char line[600];
    int n = snprintf(line, sizeof line, "MemPI: rank %d: fatal: %s\n", mp_world.rank, text);
    if (write(2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0) { }
    mp_abort_job(1, text);
}

#ifdef MP_DEBUG
void mp_assert_fail(const char *cond, const char *file, int line)
{
    mp_fatal("internal invariant violated: %s (%s:%d)", cond, file, line);
}
#endif

/* Every abort waits a little before it asks the launcher to end the job: the message just
 * written to stderr travels through the launcher's proxies, and an abort that lands first makes
 * the launcher kill them with the message still in a pipe (Hydra lost both ranks' "MPI_Init
 * failed: ..." lines in 2 of 8 runs when every rank failed at the same moment).
 *
 * It waits longer once a peer is known gone.  When a rank is killed, its node-mates usually
 * notice first (a single copy to it fails at once), and their abort would race the launcher's
 * report of *how* it died ("killed by signal 9") and replace it with a secondary error; the
 * launcher needs well under PEER_GONE_GRACE_MS (mpiexec 0.4 s, Hydra less) to end the job
 * itself.  Relaxed: a hint read by the same thread in practice, and a missed hint costs only
 * the better message. */
#define STDERR_DRAIN_MS    200
#define PEER_GONE_GRACE_MS 1000
static _Atomic int peer_gone = -1;

void mp_note_peer_gone(int world_rank)
{
    atomic_store_explicit(&peer_gone, world_rank, memory_order_relaxed);
}

void mp_abort_job(int code, const char *msg)
{
    if (mp_world.size > 1) {
        int ms = atomic_load_explicit(&peer_gone, memory_order_relaxed) >= 0 ?
                 PEER_GONE_GRACE_MS : STDERR_DRAIN_MS;
        struct timespec left = { ms / 1000, (long)(ms % 1000) * 1000000L };
        while (nanosleep(&left, &left) != 0 && errno == EINTR) { }
    }
    mp_pmi_abort(code, 1, msg ? msg : "");
}

/*
 * err.c — internal error codes and their conversion to MPI error codes.
 *
 * An MPI error code returned to the user must have a standard class
 * (MPI_Error_class) and a string that names the class, the operation, the
 * file and the cause.  The standard way is MPI_Add_error_code on the class
 * plus MPI_Add_error_string.  Open MPI honours it, but then prints only the
 * string given, so the class's own wording (MPI_Error_string of the class)
 * leads our text.  MPICH 4.0 returns a code for a predefined class but
 * then prints an unrelated message for it, so where MPICH's exported
 * error-stack constructor (MPIR_Err_create_code, the one its own MPI-IO
 * uses) is present it is used instead: MPICH itself puts the class's
 * wording first ("Invalid datatype, error stack:") and our text is the
 * stack's one line.  That text is passed as the argument of a bare "%s"
 * format under the generic message "**fail", which MPICH keeps out of the
 * stack line: its "**io" pair would print "Other I/O error" before the
 * text whatever the class.  Which path works is decided once, by checking
 * that a test message comes back through MPI_Error_string with the right
 * class; if neither does, the bare class is returned and the text goes to
 * stderr, where the user can still read the cause.
 *
 * Codes from MPI_Add_error_code are kept in a small ring per class and
 * their strings rewritten, so a long run does not grow MPI's code table.
 *
 * Threads.  The detail a failing function leaves for the edge is per call,
 * so it is thread-local: one thread's cause never ends up in another's
 * message.  The path choice and the rings are process-wide and taken
 * under code_lock, only on the error path: two threads failing at once
 * must not be given the same slot, where the later text would replace the
 * earlier thread's message.  A code of the ring keeps its string until
 * RING later errors of the same class in the process have been converted.
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* MPICH's exported error-stack constructor; absent elsewhere. */
extern int MPIR_Err_create_code(int lastcode, int fatal, const char fcname[], int line,
                                int error_class, const char generic_msg[],
                                const char specific_msg[], ...) __attribute__((weak));

static const struct {
    int cls;
    const char *msg;
} own_errors[] = {
#define RIO_ERR_ROW(name, cls, msg) {cls, msg},
    RIO_ERRORS(RIO_ERR_ROW)
#undef RIO_ERR_ROW
};


static int is_own(int err)
{
    return err > RIO_E__FIRST && err < RIO_E__LAST;
}

const char *rio__err_message(int err)
{
    if (err == 0)
        return "success";
    if (is_own(err))
        return own_errors[err - RIO_E__FIRST - 1].msg;
    return strerror(-err);
}

int rio__err_class(int err)
{
    if (err == 0)
        return MPI_SUCCESS;
    if (is_own(err))
        return own_errors[err - RIO_E__FIRST - 1].cls;
    switch (-err) {
    case ENOENT:
    case ENOTDIR:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return MPI_ERR_NO_SPACE;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case EISDIR:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case EBUSY:
    case ETXTBSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    case EINVAL:
        return MPI_ERR_ARG;
    case EOPNOTSUPP:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    default:
        return MPI_ERR_IO;
    }
}

/* ---- building MPI codes ------------------------------------------------ */

enum { PATH_UNKNOWN, PATH_MPICH_STACK, PATH_ADD_CODE, PATH_BARE };
#define RING 16
#define MAX_CLASS 128

static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;
/* The three below are guarded by code_lock. */
static int path = PATH_UNKNOWN;
static int ring_codes[MAX_CLASS][RING];
static int ring_next[MAX_CLASS];

static int code_from_mpich(int cls, const char *text)
{
    return MPIR_Err_create_code(MPI_SUCCESS, 0, "resonio", __LINE__, cls, "**fail", "%s", text);
}

/* Called with code_lock held. */
static int code_from_ring(int cls, const char *text)
{
    if (cls <= 0 || cls >= MAX_CLASS)
        return cls;
    int slot = ring_next[cls]++ % RING;
    if (ring_codes[cls][slot] == 0) {
        int code;
        if (MPI_Add_error_code(cls, &code) != MPI_SUCCESS)
            return cls;
        ring_codes[cls][slot] = code;
    }
    /* a copy: MPI-3 declares the string const, MPI-2 libraries (SimGrid's
     * SMPI) char *; a buffer of our own suits both without a cast. Cut to
     * fit by hand: snprintf's truncation warns at -O3. */
    char copy[MPI_MAX_ERROR_STRING];
    size_t n = strnlen(text, sizeof copy - 1);
    memcpy(copy, text, n);
    copy[n] = '\0';
    MPI_Add_error_string(ring_codes[cls][slot], copy);
    return ring_codes[cls][slot];
}

/* Does code carry class cls and a string containing text? */
static int code_works(int code, int cls, const char *text)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0, got = -1;
    if (MPI_Error_class(code, &got) != MPI_SUCCESS || got != cls)
        return 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        return 0;
    return strstr(s, text) != NULL;
}

/* Called with code_lock held. */
static void choose_path(void)
{
    const char *probe = "resonio error path probe";
    if (MPIR_Err_create_code && code_works(code_from_mpich(MPI_ERR_IO, probe), MPI_ERR_IO, probe))
        path = PATH_MPICH_STACK;
    else if (code_works(code_from_ring(MPI_ERR_IO, probe), MPI_ERR_IO, probe))
        path = PATH_ADD_CODE;
    else
        path = PATH_BARE;
}

/* Both libraries keep at most 255 characters of a message (Open MPI's
 * MPI_Add_error_string fails beyond, fatally by default; MPICH cuts its
 * stack lines there).  Where a message would be longer, the class's
 * wording shrinks to its name where it has one (Open MPI's
 * "MPI_ERR_TYPE: invalid datatype" to "MPI_ERR_TYPE"), then a long file
 * name gives way, keeping its end, so that the class, the operation and
 * the cause stay readable. */
#define TEXT_MAX 255

static void compose(char *text, size_t size, const char *lead, const char *op, const char *name,
                    const char *msg, const char *detail)
{
    char tail[768];
    snprintf(tail, sizeof tail, "): %s%s%s", msg, detail[0] ? ": " : "", detail);
    size_t fixed = strlen(lead) + strlen(op) + 1 + strlen(tail), n = strlen(name);
    const char *cut = "";
    if (fixed + n > TEXT_MAX && n > 16) {
        size_t keep = fixed + 16 < TEXT_MAX ? TEXT_MAX - fixed - 3 : 13;
        if (keep < n)
            name += n - keep;
        cut = "...";
    }
    /* What does not fit is cut at TEXT_MAX in any case. */
    int w = snprintf(text, size, "%s%s(%s%s%s", lead, op, cut, name, tail);
    if (w < 0 || (size_t)w > TEXT_MAX)
        text[RIO_MIN(size - 1, (size_t)TEXT_MAX)] = '\0';
}

int rio__err_to_mpi(int err, const char *op, const char *name)
{
    if (err == 0)
        return MPI_SUCCESS;
    int cls = rio__err_class(err);
    char text[1024], detail[RIO_ERR_DETAIL_MAX], lead[MPI_MAX_ERROR_STRING + 2] = "";
    rio__strcpy(detail, sizeof detail, rio__err_detail_peek());
    rio__err_detail_clear();

    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return cls;
    pthread_mutex_lock(&code_lock);
    if (path == PATH_UNKNOWN)
        choose_path();
    if (path == PATH_ADD_CODE) {
        /* The library prints only our string: lead with the class's words. */
        int len = 0;
        if (MPI_Error_string(cls, lead, &len) == MPI_SUCCESS) {
            while (len > 0 && lead[len - 1] == ' ')
                lead[--len] = '\0';
            rio__strcpy(lead + len, sizeof lead - (size_t)len, ": ");
        } else {
            lead[0] = '\0';
        }
    }
    const char *msg = rio__err_message(err), *nm = name ? name : "-";
    char *colon = strstr(lead, ": ");
    if (colon && colon[2] &&
        strlen(lead) + strlen(op) + strlen(nm) + strlen(msg) + strlen(detail) + 6 > TEXT_MAX)
        colon[2] = '\0'; /* short of room: the class's name only ("MPI_ERR_TYPE: ") */
    compose(text, sizeof text, lead, op, nm, msg, detail);
    int code = cls;
    switch (path) {
    case PATH_MPICH_STACK:
        code = code_from_mpich(cls, text);
        break;
    case PATH_ADD_CODE:
        code = code_from_ring(cls, text);
        break;
    default:
        /* the library cannot carry the text (SimGrid's SMPI implements
         * neither path): the class goes back, the cause to stderr; but for
         * a missing file, the error programs provoke on purpose (a delete
         * before a create) */
        if (cls != MPI_ERR_NO_SUCH_FILE)
            fprintf(stderr, "resonio: %s\n", text);
        break;
    }
    pthread_mutex_unlock(&code_lock);
    return code;
}

static double clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double rio__now(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

double rio__cpu_now(void)
{
    return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * errh.c — file error handlers and the API edge.
 *
 * MPI keeps file error handlers as MPI_Errhandler objects.  resonio cannot
 * ask the MPI library for a file-kind handler (its MPI_File_create_errhandler
 * is the very function resonio replaces), so rio_file_create_errhandler
 * makes a communicator-kind handler object with MPI_Comm_create_errhandler —
 * a real MPI object the user can free with MPI_Errhandler_free — and keeps
 * the user's file function in a table keyed by the handle.
 *
 * References.  The standard keeps a handler alive while it is attached,
 * even after the user freed it, and MPI_File_get_errhandler returns a new
 * reference that the user frees.  Only MPI can count references to its
 * object, so a user handler in use is attached to a communicator resonio
 * owns — the file's private duplicate, or a duplicate of MPI_COMM_SELF
 * for the default handler — and get_errhandler takes its reference with
 * MPI_Comm_get_errhandler.  Without that, MPI would destroy a handler that
 * a file still uses and hand its value to the next one created, and a
 * user freeing what get_errhandler returned would free it twice.  MPI
 * calls the function on those communicators only for MPI errors inside
 * resonio's own communication; it does nothing, so the call returns.
 *
 * Predefined handlers: MPI_ERRORS_RETURN returns the code;
 * MPI_ERRORS_ARE_FATAL (and MPI-4's MPI_ERRORS_ABORT) print the message and
 * abort.  The default handler of new files is the one set on RIO_FILE_NULL,
 * MPI_ERRORS_RETURN at start, as the standard says.
 *
 * Threads.  The table and the default handler are process-wide: any
 * thread may create a handler or change the default while others open
 * files or fail, so both are read and written under errh_lock.  A file's
 * own handler is the file's, used by the threads that use the file.
 */
#include "file_int.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct user_errh {
    MPI_Errhandler handle;
    MPI_File_errhandler_function *fn;
};

static pthread_mutex_t errh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct user_errh *user_errhs;
static int n_user_errhs, cap_user_errhs;
/* Both guarded by errh_lock. */
static MPI_Errhandler default_errh = MPI_ERRORS_RETURN;
static MPI_Comm default_holder = MPI_COMM_NULL; /* holds the default when it is a user's */

/* The default handler now.  An error path and open read it; a lock there
 * costs nothing next to the rest of their work. */
static MPI_Errhandler default_get(void)
{
    pthread_mutex_lock(&errh_lock);
    MPI_Errhandler eh = default_errh;
    pthread_mutex_unlock(&errh_lock);
    return eh;
}

static void comm_trampoline(MPI_Comm *comm, int *code, ...)
{
    /* Attached only to resonio's own communicators, to hold a reference. */
    (void)comm;
    (void)code;
}

static int predefined(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL)
        return 1;
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT)
        return 1;
#endif
    return 0;
}

/* Make comm hold a reference to eh when it is a user handler, and drop the
 * reference to the previous one old (comm goes back to MPI's default). */
static void hold(MPI_Comm comm, MPI_Errhandler old, MPI_Errhandler eh)
{
    if (comm == MPI_COMM_NULL || (predefined(old) && predefined(eh)))
        return;
    MPI_Comm_set_errhandler(comm, predefined(eh) ? MPI_ERRORS_ARE_FATAL : eh);
}

static MPI_File_errhandler_function *lookup(MPI_Errhandler eh)
{
    MPI_File_errhandler_function *fn = NULL;
    pthread_mutex_lock(&errh_lock);
    for (int i = 0; i < n_user_errhs; i++)
        if (user_errhs[i].handle == eh)
            fn = user_errhs[i].fn;
    pthread_mutex_unlock(&errh_lock);
    return fn;
}

int rio_file_create_errhandler(MPI_File_errhandler_function *function, MPI_Errhandler *errhandler)
{
    int err = 0;
    if (!function || !errhandler) {
        err = RIO_E_ARG;
        rio__err_detail("null function or handler pointer");
        goto out;
    }
    MPI_Errhandler eh;
    if (MPI_Comm_create_errhandler(comm_trampoline, &eh) != MPI_SUCCESS) {
        err = RIO_E_NOMEM;
        goto out;
    }
    pthread_mutex_lock(&errh_lock);
    int slot = -1;
    for (int i = 0; i < n_user_errhs; i++)
        if (user_errhs[i].handle == eh)
            slot = i; /* a freed handle's value came back */
    if (slot < 0) {
        if (n_user_errhs == cap_user_errhs) {
            int cap = cap_user_errhs ? 2 * cap_user_errhs : 8;
            struct user_errh *n = rio__realloc(user_errhs, (size_t)cap * sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&errh_lock);
                MPI_Errhandler_free(&eh);
                err = RIO_E_NOMEM;
                goto out;
            }
            user_errhs = n;
            cap_user_errhs = cap;
        }
        slot = n_user_errhs++;
    }
    user_errhs[slot].handle = eh;
    user_errhs[slot].fn = function;
    pthread_mutex_unlock(&errh_lock);
    *errhandler = eh;
out:
    return rio__file_return(NULL, err, "MPI_File_create_errhandler");
}

static int valid_errh(MPI_Errhandler eh)
{
    return predefined(eh) || lookup(eh) != NULL;
}

int rio_file_set_errhandler(rio_file *fh, MPI_Errhandler errhandler)
{
    int err = 0;
    if (!valid_errh(errhandler)) {
        err = RIO_E_ARG;
        rio__err_detail("not a file error handler");
        return rio__file_return(fh, err, "MPI_File_set_errhandler");
    }
    if (fh) {
        hold(fh->comm, fh->errh, errhandler);
        fh->errh = errhandler;
    } else {
        pthread_mutex_lock(&errh_lock);
        if (!predefined(errhandler) && default_holder == MPI_COMM_NULL)
            MPI_Comm_dup(MPI_COMM_SELF, &default_holder);
        hold(default_holder, default_errh, errhandler);
        default_errh = errhandler;
        pthread_mutex_unlock(&errh_lock);
    }
    return MPI_SUCCESS;
}

int rio_file_get_errhandler(rio_file *fh, MPI_Errhandler *errhandler)
{
    if (!errhandler) {
        rio__err_detail("null output pointer");
        return rio__file_return(fh, RIO_E_ARG, "MPI_File_get_errhandler");
    }
    if (!fh)
        pthread_mutex_lock(&errh_lock);
    MPI_Errhandler cur = fh ? fh->errh : default_errh;
    if (predefined(cur))
        *errhandler = cur;
    else /* a new reference, for the user to free */
        MPI_Comm_get_errhandler(fh ? fh->comm : default_holder, errhandler);
    if (!fh)
        pthread_mutex_unlock(&errh_lock);
    return MPI_SUCCESS;
}

void rio__file_errh_init(rio_file *fh)
{
    fh->errh = default_get();
    hold(fh->comm, MPI_ERRORS_RETURN, fh->errh);
}

/* Run handler eh for code on file fh (NULL for no file). */
static void invoke(rio_file *fh, MPI_Errhandler eh, int code)
{
    if (code == MPI_SUCCESS || eh == MPI_ERRORS_RETURN)
        return;
    int fatal = eh == MPI_ERRORS_ARE_FATAL;
#ifdef MPI_ERRORS_ABORT
    fatal = fatal || eh == MPI_ERRORS_ABORT;
#endif
    if (fatal) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(code, msg, &len);
        fprintf(stderr, "resonio: fatal file error: %s\n", msg);
        MPI_Abort(fh ? fh->comm : MPI_COMM_WORLD, code);
        return;
    }
    MPI_File_errhandler_function *fn = lookup(eh);
    if (fn) {
        MPI_File handle = fh ? (MPI_File)(void *)fh : MPI_FILE_NULL;
        fn(&handle, &code);
    }
}

int rio_file_call_errhandler(rio_file *fh, int errorcode)
{
    invoke(fh, fh ? fh->errh : default_get(), errorcode);
    return MPI_SUCCESS;
}

int rio__file_return(rio_file *fh, int err, const char *op)
{
    if (err == 0)
        return MPI_SUCCESS;
    int code = rio__err_to_mpi(err, op, fh ? fh->filename : NULL);
    invoke(fh, fh ? fh->errh : default_get(), code);
    return code;
}

int rio__file_return_name(int err, const char *op, const char *name)
{
    if (err == 0)
        return MPI_SUCCESS;
    int code = rio__err_to_mpi(err, op, name);
    invoke(NULL, default_get(), code);
    return code;
}

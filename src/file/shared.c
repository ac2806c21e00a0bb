/*
 * shared.c — the shared file pointer.
 *
 * It lives in an MPI one-sided window: one MPI_Offset in memory of rank 0,
 * updated with MPI_Fetch_and_op under a passive-target lock, so that no
 * hidden lock file is needed and any rank can move it without the others'
 * help.  The value is in etypes of the current view.
 *
 * An MPI library may be unable to make a window on a file's communicator:
 * Open MPI over TCP between hosts picks its UCX one-sided component, which
 * then fails (seen on tools/resonio-hosts' hosts).  The file opens all the
 * same, as ROMIO and OMPIO open it (their shared pointers live in files),
 * and only the calls that use the shared pointer fail, naming the MPI
 * library's error.
 */
#include "file_int.h"

#include <stdint.h>
#include <stdlib.h>

/* Under MPICH the window is made with MPI_Win_create over memory from
 * MPI_Alloc_mem: its MPI_Win_allocate sets up a shared-memory segment,
 * and open and close then cost 26 and 5.6 us instead of 5.7 and 0.7 (2
 * ranks, measured in one run).  Open MPI has no window component for
 * MPI_Win_create here (the call fails), so it keeps MPI_Win_allocate. */
#ifdef MPICH_VERSION
#define SHARED_WIN_CREATE 1
#else
#define SHARED_WIN_CREATE 0
#endif

int rio__shared_create(rio_file *fh)
{
    MPI_Aint size = fh->rank == 0 ? (MPI_Aint)sizeof(MPI_Offset) : 0;
    int ok = 1, mrc;
    fh->shared_mem = NULL;
    /* a failure must come back here, not end the job */
    MPI_Errhandler was;
    MPI_Comm_get_errhandler(fh->comm, &was);
    MPI_Comm_set_errhandler(fh->comm, MPI_ERRORS_RETURN);
    if (SHARED_WIN_CREATE) {
        if (size && MPI_Alloc_mem(size, MPI_INFO_NULL, &fh->shared_mem) != MPI_SUCCESS)
            fh->shared_mem = NULL;
        ok = !size || fh->shared_mem;
        /* collective: made on every rank, also by one whose memory failed */
        mrc = MPI_Win_create(fh->shared_mem, ok ? size : 0, (int)sizeof(MPI_Offset),
                             MPI_INFO_NULL, fh->comm, &fh->shared_win);
    } else {
        mrc = MPI_Win_allocate(size, (int)sizeof(MPI_Offset), MPI_INFO_NULL, fh->comm,
                               &fh->shared_mem, &fh->shared_win);
    }
    MPI_Comm_set_errhandler(fh->comm, was);
    MPI_Errhandler_free(&was);
    if (!ok) { /* this rank's memory */
        rio__err_detail("cannot create the shared file pointer window");
        return RIO_E_NOMEM;
    }
    int failed = mrc != MPI_SUCCESS, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, fh->comm);
    if (any) {
        /* A rank whose window exists keeps it unused: freeing it is
         * collective over ranks that have none. */
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        if (failed)
            MPI_Error_string(mrc, text, &len);
        fh->shared_why = rio__strdup(failed ? text : "it failed on another rank");
        fh->shared_win = MPI_WIN_NULL;
        if (SHARED_WIN_CREATE && fh->shared_mem)
            MPI_Free_mem(fh->shared_mem);
        fh->shared_mem = NULL;
        return fh->shared_why ? 0 : RIO_E_NOMEM;
    }
    if (fh->rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, fh->shared_win);
        *fh->shared_mem = 0;
        MPI_Win_unlock(0, fh->shared_win);
    }
    MPI_Barrier(fh->comm);
    return 0;
}

void rio__shared_free(rio_file *fh)
{
    free(fh->shared_why);
    fh->shared_why = NULL;
    if (fh->shared_win != MPI_WIN_NULL)
        MPI_Win_free(&fh->shared_win);
    fh->shared_win = MPI_WIN_NULL;
    if (SHARED_WIN_CREATE && fh->shared_mem)
        MPI_Free_mem(fh->shared_mem);
    fh->shared_mem = NULL;
}

/* The error of a call that needs the window the file does not have. */
static int no_window(rio_file *fh)
{
    rio__err_detail("no one-sided window could be made at open: %s", fh->shared_why);
    return RIO_E_NO_SHARED_FP;
}

int rio__shared_fetch_add(rio_file *fh, MPI_Offset delta, MPI_Offset *old)
{
    if (fh->shared_win == MPI_WIN_NULL)
        return no_window(fh);
    int64_t d = (int64_t)delta, o = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fh->shared_win);
    int rc = MPI_Fetch_and_op(&d, &o, MPI_INT64_T, 0, 0, delta ? MPI_SUM : MPI_NO_OP,
                              fh->shared_win);
    MPI_Win_unlock(0, fh->shared_win);
    if (rc != MPI_SUCCESS) {
        rio__err_detail("update of the shared file pointer failed");
        return RIO_E_REMOTE;
    }
    *old = (MPI_Offset)o;
    return 0;
}

int rio__shared_set(rio_file *fh, MPI_Offset value)
{
    if (fh->shared_win == MPI_WIN_NULL) /* nothing reads it */
        return 0;
    int64_t v = (int64_t)value, o = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fh->shared_win);
    int rc = MPI_Fetch_and_op(&v, &o, MPI_INT64_T, 0, 0, MPI_REPLACE, fh->shared_win);
    MPI_Win_unlock(0, fh->shared_win);
    if (rc != MPI_SUCCESS) {
        rio__err_detail("update of the shared file pointer failed");
        return RIO_E_REMOTE;
    }
    return 0;
}

/*
 * open.c — the life of a file: open, close, delete, size, preallocation,
 * sync, info, amode, group, atomicity and Fortran handles.
 *
 * Open is collective.  The access mode is checked on every rank and must
 * be the same everywhere.  When the file is to be created, rank 0 creates
 * it first (with O_EXCL if asked) and the others open it only after rank 0
 * succeeded, so that MPI_MODE_EXCL fails exactly when the file existed
 * before the call.  Every failure is agreed on, so all ranks return the
 * same error, and a rank that did open closes again.
 *
 * MPI_MODE_APPEND is not passed to open(2): on Linux pwrite ignores its
 * offset on an O_APPEND descriptor.  Instead both file pointers start at
 * the end of file, which is what the standard asks.  A write-only open
 * tries O_RDWR first so that data sieving can read around holes; if that
 * is refused, it opens write-only and turns write sieving off.
 */
#include "file_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AMODE_ALL                                                                           \
    (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL | \
     MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND)

int rio__file_check(rio_file *fh)
{
    if (!fh) {
        rio__err_detail("MPI_FILE_NULL given");
        return RIO_E_FILE;
    }
    return 0;
}

static int check_amode(int amode)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (amode & ~AMODE_ALL) {
        rio__err_detail("unknown bits 0x%x", amode & ~AMODE_ALL);
        return RIO_E_AMODE;
    }
    if (rw != 1) {
        rio__err_detail("exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR is required");
        return RIO_E_AMODE;
    }
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) {
        rio__err_detail("MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL");
        return RIO_E_AMODE;
    }
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) {
        rio__err_detail("MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
        return RIO_E_AMODE;
    }
    return 0;
}

/* ---- Fortran handles ----------------------------------------------------- */

static pthread_mutex_t fint_lock = PTHREAD_MUTEX_INITIALIZER;
static rio_file **fint_table;
static int fint_cap;

MPI_Fint rio_file_c2f(rio_file *fh)
{
    if (!fh)
        return 0;
    pthread_mutex_lock(&fint_lock);
    if (!fh->fint) {
        int slot = -1;
        for (int i = 0; i < fint_cap; i++)
            if (!fint_table[i]) {
                slot = i;
                break;
            }
        if (slot < 0) {
            int cap = fint_cap ? 2 * fint_cap : 16;
            rio_file **t = rio__realloc(fint_table, (size_t)cap * sizeof *t);
            if (t) {
                memset(t + fint_cap, 0, (size_t)(cap - fint_cap) * sizeof *t);
                slot = fint_cap;
                fint_table = t;
                fint_cap = cap;
            }
        }
        if (slot >= 0) {
            fint_table[slot] = fh;
            fh->fint = slot + 1;
        }
    }
    MPI_Fint f = fh->fint;
    pthread_mutex_unlock(&fint_lock);
    return f;
}

rio_file *rio_file_f2c(MPI_Fint f)
{
    rio_file *fh = NULL;
    pthread_mutex_lock(&fint_lock);
    if (f > 0 && f <= fint_cap)
        fh = fint_table[f - 1];
    pthread_mutex_unlock(&fint_lock);
    return fh;
}

static void fint_release(rio_file *fh)
{
    pthread_mutex_lock(&fint_lock);
    if (fh->fint > 0 && fh->fint <= fint_cap)
        fint_table[fh->fint - 1] = NULL;
    pthread_mutex_unlock(&fint_lock);
}

/* ---- open / close ------------------------------------------------------- */

static void file_free(rio_file *fh)
{
    if (!fh)
        return;
    if (fh->store_open)
        rio__store_close(&fh->st);
    rio__shared_free(fh);
    rio__coll_free(fh->coll);
    rio__view_free(fh);
    rio__hints_free(&fh->hints);
    rio__comm_give(&fh->comm);
    fint_release(fh);
    free(fh->filename);
    free(fh);
}

/* A rank that opens the file write-only cannot read it: no data sieving
 * of writes and no read-modify-write of collective rounds, now or after a
 * later set_info or set_view (which pass write_only to rio__hints_apply). */
static void no_reads(rio_file *fh)
{
    rio__hints_no_reads(&fh->hints);
    fh->write_only = 1;
}

/* Every rank plans collective calls with the layout rank 0 reads (rank 0
 * always has the file open; a rank whose open is deferred could not ask
 * without opening, and ranks that disagree would plan differently).
 * Collective. */
static void layout_share(rio_file *fh)
{
    struct rio_layout l;
    memset(&l, 0, sizeof l);
    if (fh->rank == 0)
        rio__store_layout(&fh->st, &l);
    MPI_Bcast(&l, (int)sizeof l, MPI_BYTE, 0, fh->comm);
    rio__store_layout_fix(&fh->st, &l);
}

static int open_store(rio_file *fh, int create, int excl)
{
    int oflags = O_CLOEXEC;
    /* romio_no_indep_rw: only ranks that make storage requests open the
     * file; rank 0 opens at once to create it and report errors.  Ranks
     * that defer open it write-only under MPI_MODE_WRONLY, so no rank
     * reads to write (every rank alike, as any may aggregate). */
    const struct rio_file_settings *fs = rio__file_settings(&fh->hints);
    mode_t perm = fs->file_perm >= 0 ? (mode_t)fs->file_perm : 0666;
    if (fs->no_indep_rw && (fh->amode & MPI_MODE_WRONLY))
        no_reads(fh);
    if (fs->no_indep_rw && fh->rank != 0) {
        int how = fh->amode & MPI_MODE_RDONLY ? O_RDONLY : fh->amode & MPI_MODE_WRONLY ? O_WRONLY
                                                                                         : O_RDWR;
        return rio__store_open_deferred(&fh->st, fh->filename, oflags | how, perm, &fh->hints);
    }
    if (create)
        oflags |= O_CREAT;
    if (excl)
        oflags |= O_EXCL;
    if (fh->amode & MPI_MODE_RDONLY)
        return rio__store_open(&fh->st, fh->filename, oflags | O_RDONLY, perm, &fh->hints);
    if (fh->amode & MPI_MODE_RDWR)
        return rio__store_open(&fh->st, fh->filename, oflags | O_RDWR, perm, &fh->hints);
    int err = rio__store_open(&fh->st, fh->filename, oflags | O_RDWR, perm, &fh->hints);
    if (err == -EACCES || err == -EPERM) {
        err = rio__store_open(&fh->st, fh->filename, oflags | O_WRONLY, perm, &fh->hints);
        no_reads(fh);
    }
    return err;
}

int rio_file_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, rio_file **out)
{
    static const char op[] = "MPI_File_open";
    rio_file *fh = NULL;
    int err = 0, flag = 0;

    if (out)
        *out = NULL;
    if (comm == MPI_COMM_NULL) {
        rio__err_detail("MPI_COMM_NULL given");
        return rio__file_return_name(RIO_E_ARG, op, filename);
    }
    if (MPI_Comm_test_inter(comm, &flag) != MPI_SUCCESS || flag) {
        rio__err_detail("intercommunicators cannot open files");
        return rio__file_return_name(RIO_E_ARG, op, filename);
    }
    /* Local argument errors still take part in the agreement below so that
     * no rank is left waiting in a collective. */
    if (!out || !filename || !*filename) {
        err = RIO_E_ARG;
        rio__err_detail("null or empty file name or handle pointer");
    }
    if (!err)
        err = check_amode(amode);
    if (!err) {
        const char *path;
        if (!rio__store_find(filename, &path)) {
            err = RIO_E_DRIVER;
            rio__err_detail("its prefix names a storage driver this build does not have");
        }
    }
    /* Rank 0 reads the hints file now so that its length rides on the
     * amode check's reduction: with no file, open costs no extra
     * collective; with one, a broadcast gives every rank rank 0's text. */
    char hint_text[RIO_HINTFILE_MAX + 1], hint_name[256] = "";
    int crank = 0, hint_len = -1;
    MPI_Comm_rank(comm, &crank);
    if (crank == 0)
        hint_len = rio__hints_file_read(hint_text, hint_name, sizeof hint_name);
    int mm[3] = {amode, -amode, hint_len}, mmr[3];
    MPI_Allreduce(mm, mmr, 3, MPI_INT, MPI_MAX, comm);
    hint_len = mmr[2];
    if (!err && (mmr[0] != amode || -mmr[1] != amode)) {
        err = RIO_E_NOT_SAME;
        rio__err_detail("amode differs between ranks");
    }
    if (!err) {
        fh = rio__calloc(1, sizeof *fh);
        if (fh) {
            fh->comm = MPI_COMM_NULL;
            fh->shared_win = MPI_WIN_NULL;
            fh->etype = fh->filetype = MPI_DATATYPE_NULL;
            fh->filename = rio__strdup(filename);
        }
        if (!fh || !fh->filename || rio__hints_defaults(&fh->hints))
            err = RIO_E_NOMEM;
    }
    err = rio__agree(comm, err);
    if (err)
        goto fail_local;

    rio__comm_take(comm, RIO_COMM_DUP, &fh->comm, &fh->stats.comms_made, &fh->stats.comms_reused);
    MPI_Comm_rank(fh->comm, &fh->rank);
    MPI_Comm_size(fh->comm, &fh->nprocs);
    fh->amode = amode;
    fh->report = rio__stats_wanted();
    rio__file_errh_init(fh);
    fh->st.stats = &fh->stats;
    if (hint_len >= 0) {
        MPI_Bcast(hint_text, hint_len + 1, MPI_CHAR, 0, fh->comm);
        rio__hints_file_apply(&fh->hints, info, hint_text, hint_name, fh->rank == 0);
    }
    rio__hints_apply(&fh->hints, info, 1, 0);

    /* Rank 0 creates; the others follow once it has. */
    int create = !!(amode & MPI_MODE_CREATE), excl = !!(amode & MPI_MODE_EXCL);
    if (create) {
        if (fh->rank == 0) {
            err = open_store(fh, 1, excl);
            fh->store_open = !err;
        }
        int e0 = err;
        MPI_Bcast(&e0, 1, MPI_INT, 0, fh->comm);
        if (!e0 && fh->rank != 0) {
            err = open_store(fh, 0, 0);
            fh->store_open = !err;
        }
    } else {
        err = open_store(fh, 0, 0);
        fh->store_open = !err;
    }
    if (!err)
        err = rio__view_default(fh);
    err = rio__agree(fh->comm, err);
    if (!err)
        layout_share(fh);
    if (!err)
        err = rio__agree(fh->comm, rio__shared_create(fh));
    if (!err && (amode & MPI_MODE_APPEND)) {
        MPI_Offset size = 0;
        err = fh->st.ops->get_size(&fh->st, &size);
        err = rio__agree(fh->comm, err);
        if (!err) {
            fh->fp_ind = size;
            if (fh->rank == 0)
                err = rio__shared_set(fh, size);
            err = rio__agree(fh->comm, err);
        }
    }
    /* The collective context (node map, communicators) and the selector
     * (with a profile, its remembered winners) are made here, where every
     * rank takes part anyway, rather than inside the first collective
     * call.  A file whose opens are deferred makes them at its first
     * collective call, where every rank has the file open; so does one
     * whose context could not be made here (the call reports why: a failed
     * rio__coll_create leaves fh->coll NULL, on every rank). */
    if (!err && !rio__file_settings(&fh->hints)->no_indep_rw)
        (void)rio__coll_create(fh->comm, &fh->st, &fh->hints, &fh->coll);
    if (err)
        goto fail;
    *out = fh;
    return MPI_SUCCESS;

fail:
    file_free(fh);
    return rio__file_return_name(err, op, filename);
fail_local:
    if (fh) {
        rio__hints_free(&fh->hints); /* another rank may have failed */
        free(fh->filename);
        free(fh);
    }
    return rio__file_return_name(err, op, filename);
}

int rio_file_close(rio_file **pfh)
{
    static const char op[] = "MPI_File_close";
    if (!pfh || !*pfh)
        return rio__file_return(NULL, rio__file_check(NULL), op);
    rio_file *fh = *pfh;
    int err = 0;
    if (fh->split_active) {
        err = RIO_E_PENDING_SPLIT;
        rio__err_detail("end the split collective before closing");
        return rio__file_return(fh, err, op);
    }
    /* The user must complete every request first (the standard); one left
     * outstanding is reported, but only after its I/O ran: no job outlives
     * the handle it writes through.  The file is closed all the same. */
    int pending = rio__async_detach(fh);
    rio__capture_close(fh);
    rio__stats_report(fh);
    if (fh->store_open) {
        err = rio__store_close(&fh->st);
        fh->store_open = 0;
    }
    if (pending && !err) {
        err = RIO_E_PENDING_IO;
        rio__err_detail("%d nonblocking request%s outstanding at close (their I/O was done)",
                        pending, pending == 1 ? " was" : "s were");
    }
    err = rio__agree(fh->comm, err);
    if (fh->amode & MPI_MODE_DELETE_ON_CLOSE) {
        int derr = 0;
        if (fh->rank == 0)
            derr = rio__store_remove(fh->filename, &fh->hints);
        derr = rio__agree(fh->comm, derr);
        if (!err)
            err = derr;
    }
    if (err) {
        int code = rio__err_to_mpi(err, op, fh->filename);
        file_free(fh);
        *pfh = RIO_FILE_NULL;
        rio_file_call_errhandler(NULL, code);
        return code;
    }
    file_free(fh);
    *pfh = RIO_FILE_NULL;
    return MPI_SUCCESS;
}

int rio_file_delete(const char *filename, MPI_Info info)
{
    static const char op[] = "MPI_File_delete";
    int err = 0;
    struct rio_hints h;
    if (!filename || !*filename) {
        rio__err_detail("null or empty file name");
        return rio__file_return_name(RIO_E_ARG, op, filename);
    }
    if (rio__hints_defaults(&h) == 0) /* else the defaults serve */
        rio__hints_apply(&h, info, 1, 0);
    const char *path;
    if (!rio__store_find(filename, &path)) {
        err = RIO_E_DRIVER;
        rio__err_detail("its prefix names a storage driver this build does not have");
    } else {
        err = rio__store_remove(filename, &h);
    }
    rio__hints_free(&h);
    return rio__file_return_name(err, op, filename);
}

/* ---- size, sync ---------------------------------------------------------- */

/* Is value the same on every rank of fh? Collective. */
static int same_everywhere(rio_file *fh, MPI_Offset value)
{
    MPI_Offset mm[2] = {value, -value}, r[2];
    MPI_Allreduce(mm, r, 2, RIO_MPI_OFFSET_SIGNED, MPI_MAX, fh->comm);
    return r[0] == value && -r[1] == value;
}

static int resize(rio_file *fh, MPI_Offset size, int grow_only, const char *op)
{
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, op);
    if (size < 0) {
        err = RIO_E_ARG;
        rio__err_detail("negative size %lld", (long long)size);
    } else if (fh->amode & MPI_MODE_SEQUENTIAL) {
        err = RIO_E_SEQUENTIAL;
    } else if (fh->amode & MPI_MODE_RDONLY) {
        err = RIO_E_RDONLY;
    }
    if (!same_everywhere(fh, size) && !err) {
        err = RIO_E_NOT_SAME;
        rio__err_detail("size differs between ranks");
    }
    /* a write still running in the background would land after the new
     * size, against the order the program wrote */
    rio__async_drain(fh, 1);
    err = rio__agree(fh->comm, err);
    if (!err && fh->rank == 0) {
        if (grow_only) {
            MPI_Offset cur = 0;
            err = fh->st.ops->get_size(&fh->st, &cur);
            if (!err && size > cur)
                err = fh->st.ops->allocate ? fh->st.ops->allocate(&fh->st, 0, size)
                                           : fh->st.ops->set_size(&fh->st, size);
        } else {
            err = fh->st.ops->set_size(&fh->st, size);
        }
    }
    err = rio__agree(fh->comm, err);
    return rio__file_return(fh, err, op);
}

int rio_file_set_size(rio_file *fh, MPI_Offset size)
{
    return resize(fh, size, 0, "MPI_File_set_size");
}

int rio_file_preallocate(rio_file *fh, MPI_Offset size)
{
    return resize(fh, size, 1, "MPI_File_preallocate");
}

int rio_file_get_size(rio_file *fh, MPI_Offset *size)
{
    int err = rio__file_check(fh);
    if (!err && !size) {
        err = RIO_E_ARG;
        rio__err_detail("null output pointer");
    }
    if (!err)
        err = fh->st.ops->get_size(&fh->st, size);
    return rio__file_return(fh, err, "MPI_File_get_size");
}

int rio_file_sync(rio_file *fh)
{
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, "MPI_File_sync");
    /* the handle's writes still running in the background go first */
    rio__async_drain(fh, 1);
    if (!(fh->amode & MPI_MODE_RDONLY) && fh->st.ops->sync)
        err = fh->st.ops->sync(&fh->st);
    err = rio__agree(fh->comm, err);
    return rio__file_return(fh, err, "MPI_File_sync");
}

/* ---- small queries -------------------------------------------------------- */

int rio_file_get_group(rio_file *fh, MPI_Group *group)
{
    int err = rio__file_check(fh);
    if (!err && !group)
        err = RIO_E_ARG;
    if (!err && MPI_Comm_group(fh->comm, group) != MPI_SUCCESS)
        err = RIO_E_NOMEM;
    return rio__file_return(fh, err, "MPI_File_get_group");
}

int rio_file_get_amode(rio_file *fh, int *amode)
{
    int err = rio__file_check(fh);
    if (!err && !amode)
        err = RIO_E_ARG;
    if (!err)
        *amode = fh->amode;
    return rio__file_return(fh, err, "MPI_File_get_amode");
}

int rio_file_set_info(rio_file *fh, MPI_Info info)
{
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, "MPI_File_set_info");
    rio__hints_apply(&fh->hints, info, 0, fh->write_only);
    err = rio__agree(fh->comm, 0);
    return rio__file_return(fh, err, "MPI_File_set_info");
}

/* The layout in effect, over whatever the striping hints asked for: the
 * storage's own where it has one (CephFS, emu), as ROMIO reports Lustre's. */
static void layout_to_info(rio_file *fh, MPI_Info info)
{
    struct rio_layout l;
    char v[32];
    rio__store_layout(&fh->st, &l);
    if (!l.known)
        return;
    snprintf(v, sizeof v, "%lld", l.unit);
    MPI_Info_set(info, "striping_unit", v);
    snprintf(v, sizeof v, "%d", l.count);
    MPI_Info_set(info, "striping_factor", v);
    if (l.object_size > 0) {
        snprintf(v, sizeof v, "%lld", l.object_size);
        MPI_Info_set(info, "resonio_object_size", v);
    }
}

int rio_file_get_info(rio_file *fh, MPI_Info *info_used)
{
    int err = rio__file_check(fh);
    if (!err && !info_used)
        err = RIO_E_ARG;
    if (!err)
        err = rio__hints_to_info(&fh->hints, info_used);
    if (!err)
        layout_to_info(fh, *info_used);
    return rio__file_return(fh, err, "MPI_File_get_info");
}

int rio_file_set_atomicity(rio_file *fh, int flag)
{
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, "MPI_File_set_atomicity");
    flag = !!flag;
    const char *drv = NULL;
    if (!same_everywhere(fh, flag)) {
        err = RIO_E_NOT_SAME;
        rio__err_detail("flag differs between ranks");
    } else if (flag && !rio__store_has_locks(fh->filename, &drv)) {
        /* atomic mode locks every access: without locks it would promise
         * what it cannot keep */
        err = RIO_E_NOLOCK;
        rio__err_detail("the %s driver has no byte-range locks", drv);
    }
    err = rio__agree(fh->comm, err);
    /* jobs captured the mode they were issued in; those of the old mode
     * end before the new one holds */
    rio__async_drain(fh, 0);
    if (!err)
        fh->atomic = flag;
    return rio__file_return(fh, err, "MPI_File_set_atomicity");
}

int rio_file_get_atomicity(rio_file *fh, int *flag)
{
    int err = rio__file_check(fh);
    if (!err && !flag)
        err = RIO_E_ARG;
    if (!err)
        *flag = fh->atomic;
    return rio__file_return(fh, err, "MPI_File_get_atomicity");
}

int rio_coll_last(rio_file *fh, struct rio_coll_info *out)
{
    struct rio_coll_info full;
    int err = rio__file_check(fh);
    if (!err && !fh->coll) {
        err = RIO_E_ARG;
        rio__err_detail("no collective data call has been made on this file");
    }
    /* every rank gathers, whatever its out: a bad one fails here only;
     * zeroed first so no stale stack byte reaches the caller */
    memset(&full, 0, sizeof full);
    if (!err)
        err = rio__coll_last(fh->coll, &full);
    if (!err && !out)
        err = RIO_E_ARG;
    if (!err)
        err = rio__stats_copy_sized(out, &full, sizeof full, RIO_COLL_INFO_SIZE_V1,
                                    "struct rio_coll_info");
    return rio__file_return(fh, err, "rio_coll_last");
}

int rio_file_get_servers(rio_file *fh, long long first, int n, int *server)
{
    int err = rio__file_check(fh);
    if (!err && (first < 0 || n < 0 || (n > 0 && !server))) {
        err = RIO_E_ARG;
        rio__err_detail("objects %lld.. (%d of them) into %p", first, n, (void *)server);
    }
    for (int i = 0; !err && i < n; i++)
        server[i] = rio__coll_server_of(fh->coll, first + i);
    return rio__file_return(fh, err, "rio_file_get_servers");
}

int rio_select_count(rio_file *fh, int *count)
{
    int err = rio__file_check(fh);
    if (!err && !count)
        err = RIO_E_ARG;
    if (!err)
        err = rio__coll_select_info(fh->coll, 0, NULL, count);
    return rio__file_return(fh, err, "rio_select_count");
}

int rio_select_get(rio_file *fh, int i, struct rio_select_info *out)
{
    struct rio_select_info full;
    int err = rio__file_check(fh);
    if (!err && !out)
        err = RIO_E_ARG;
    if (!err)
        err = rio__coll_select_info(fh->coll, i, &full, NULL);
    if (!err)
        err = rio__stats_copy_sized(out, &full, sizeof full, RIO_SELECT_INFO_SIZE_V1,
                                    "struct rio_select_info");
    return rio__file_return(fh, err, "rio_select_get");
}

int rio_stats_get(rio_file *fh, struct rio_stats *out)
{
    rio_stats full;
    int err = rio__file_check(fh);
    if (!err && !out)
        err = RIO_E_ARG;
    if (!err) {
        rio__stats_file(fh, &full);
        err = rio__stats_copy_sized(out, &full, sizeof full, RIO_STATS_SIZE_V1,
                                    "struct rio_stats");
    }
    return rio__file_return(fh, err, "rio_stats_get");
}

/*
 * sieve.c — data sieving (datatype-io.txt §II-B).
 *
 * Reads: a window of ind_rd_buffer_size bytes, but no more than
 * RIO_INDEP_READ_WINDOW_MAX (256 KiB), starting at the next wanted file
 * byte (so large holes are skipped, not read) and ending no later than the
 * last byte of the request is read in one call; the pairs that fall in it
 * are copied out; repeat.  A window cut short by end of file ends the
 * request at the first byte not read.
 *
 * The bound keeps a rank's memory from growing with its extent: a rank of
 * N reading every N-th piece of a file (resonio-bench noncontig and ecio
 * under independent or direct) had a window of its whole extent, which
 * grows with N, up to ind_rd_buffer_size (4 MiB, ROMIO's default).  A
 * window that stays in the processor's cache also copies out faster.
 * One process reading 64 pieces of 256 bytes N × 256 bytes apart, and
 * 4096 such pieces at N = 2 and 4, from ext4's page cache, best of 400
 * (100 for the large) reads, microseconds, by window size:
 *
 *   N    extent   4 MiB    1 MiB   256 KiB   64 KiB
 *   16   256 KiB   15.2    13.5     15.0     13.6
 *   64     1 MiB   49.4    52.2     51.9     42.7
 *   128    2 MiB  101.8   103.1     95.4     62.2
 *   2      2 MiB  154.8   164.4    160.1    130.6
 *   4      4 MiB  278.1   266.6    232.7    287.6
 *
 * 256 KiB: never slower than the large window beyond the noise of these
 * runs, for one storage call more per 256 KiB.
 *
 * Reads of regions of RIO_INDEP_IOV_REGION bytes and more skip the copy: one
 * preadv puts the regions straight into the user's memory and the holes
 * between them (up to RIO_INDEP_HOLE_MAX each; a larger one starts the
 * next call) into one small buffer whose bytes are dropped.  Measured
 * with resonio-micro-indep (ms per read of 2 MiB in 4 KiB regions, best
 * of 3, a file read again and again):
 *
 *             tmpfs                      ext4 (page cache)
 *   density   sieve  per-region  list    sieve  per-region  list
 *     0.50     0.24     0.36     0.33     0.14     0.38     0.33
 *     0.90     0.17     0.43     0.39     0.11     0.40     0.35
 *
 * The chooser sieves such regions only when their holes are shorter than
 * a page: on a file just written, density 0.50 (holes of a page) read
 * faster one call per region (indep.c).
 *
 * Regions from RIO_INDEP_IOV_SMALL bytes go the same way when their mean
 * hole is shorter than RIO_INDEP_HOLE_SUBPAGE (holes up to that long are
 * read into the dropped buffer): the kernel then moves each byte once,
 * where the window moves the holes too and copies the data a second
 * time.  2 ranks reading every other region of a 16 MiB tmpfs file
 * (MPICH, independent strategy), median of 31 reads, ms, window against
 * this way, three alternating runs each:
 *
 *                      file re-read            file written before each read
 *   1 KiB regions  3.95/2.98 3.06/2.57 3.05/2.96   3.54/3.34 3.40/3.34 3.64/3.57
 *   2 KiB regions  3.29/2.26 3.16/2.66 3.64/3.03   3.39/2.93 3.54/2.98 3.58/3.33
 *
 * (resonio-bench's hpio and noncontig reads, whose phase includes open
 * and close, moved both ways between runs by more than this.)  Smaller
 * regions lose: their iovec entries cost more than the copy they save
 * (the same runs with the bound at 256 bytes, re-read / written first):
 *
 *   256 B regions  4.08/4.91 3.45/5.82 3.67/4.78   3.60/5.05 3.75/4.71 3.91/5.23
 *   512 B regions  3.26/3.81 3.52/4.19 3.09/4.60   3.54/4.48 3.54/4.30 3.47/4.20
 *
 * The hole bound for these regions is two pages, not one: resonio-bench
 * tile (rows of 3 KiB 4524 bytes apart, a tile of 768 rows per call),
 * read MiB/s with the bound at 4 KiB (windows) against 8 KiB, 2 ranks,
 * 5 rounds, alternating runs:
 *
 *                          auto                       independent
 *   MPICH ext4     8325/10709 8372/10307 7680/10253   5604/6728 5934/6376 5808/6753
 *   MPICH tmpfs    6814/6588  6488/6920  6803/6305    6205/5751 5672/7275 6529/6731
 *   Open MPI ext4  9474/10995 9578/10908 8541/10664   6394/6820 5668/5616 6277/6617
 *   Open MPI tmpfs 5514/6669  5936/6385               5582/6489 6044/6265
 *
 * One process reading 1 KiB regions 7 KiB apart from a 64 MiB tmpfs file
 * took 5.0 ms this way against 4.6 through windows; 2 and 3 KiB regions
 * with 8 KiB holes read faster this way on tmpfs (7.5 against 8.0 ms, 5.5
 * against 6.1), and on ext4 this way was as fast or faster in every shape
 * tried.
 *
 * Smaller regions are copied out of the window by one tight loop over the
 * type's blocks, not given an iovec entry each, unless the read is sparse:
 * regions below RIO_INDEP_IOV_REGION whose mean hole is a page
 * (RIO_INDEP_HOLE_SPARSE) or more go by one preadv over the holes too, the
 * dropped buffer twice the mean hole, so each call covers up to 512
 * regions whatever the extent, and the memory is the hole's, not the
 * extent's.  The hole bytes are read either way; into one small buffer
 * they stay in the processor's cache.  One process reading regions N
 * times their length apart (64 to 4096 of them, 2 MiB of extent or 4096
 * regions), ext4's page cache, best of 100 reads, microseconds, window
 * (at most 256 KiB) against this way:
 *
 *   region  hole    window  preadv       region  hole    window  preadv
 *     64     960    105.8   209.9          256    768    138.6   311.1
 *     64    1984    120.6   124.6          256   1792    125.2   135.3
 *     64    3008    108.9   136.9          256   2816     98.0   134.6
 *     64    4032    108.1    92.5          256   3840    113.2    88.5
 *     64    8128    120.0    94.4          256  16128     99.4    66.0
 *     16    4080    122.3   109.1         1024  15360    105.6    84.7
 *
 * Writes: the same windows, ind_wr_buffer_size long, under an exclusive
 * byte-range lock (when the driver has locks): read the window (bytes past
 * end of file are zero, as the file would read after the write), copy the
 * pairs in, write back from the window start to the last byte written, and
 * unlock.  The lock keeps another process's writes to the holes of the
 * window from being undone by the write-back.
 *
 * A file opened write-only cannot be read: a write window whose read fails
 * with EBADF ends sieving, and the rest of the request goes by datatype I/O.
 * The window buffer is the file's scratch buffer, reused across calls.
 */
#include "indep_int.h"

#include <errno.h>
#include <string.h>

static MPI_Offset window_size(const struct rio_indep_req *req, MPI_Offset span)
{
    const struct rio_indep_settings *h = rio__indep_settings(req->st->hints);
    /* > 0: the keys' defaults are in indep.c's table, and a value of 0 is refused */
    MPI_Offset rd = RIO_MIN((MPI_Offset)h->ind_rd_buffer_size, RIO_INDEP_READ_WINDOW_MAX);
    MPI_Offset w = req->write ? (MPI_Offset)h->ind_wr_buffer_size : rd;
    return RIO_MAX(1, RIO_MIN(w, span));
}

static int sieve_read(const struct rio_indep_req *req, struct rio_pairs *c, char *win,
                      MPI_Offset wsize, MPI_Offset end, long long *reqs)
{
    MPI_Offset fo, len;
    char *mp;
    int rc;
    while ((rc = rio__indep_pairs_peek(c, &fo, &mp, &len)) > 0) {
        MPI_Offset ws = fo, we = RIO_MIN(ws + wsize, end), got = 0;
        rc = rio__store_pread_full(req->st, win, (size_t)(we - ws), ws, &got);
        (*reqs)++;
        if (rc)
            return rc;
        while ((rc = rio__indep_pairs_peek(c, &fo, &mp, &len)) > 0 && fo < we) {
            MPI_Offset n = RIO_MIN(len, we - fo), avail = ws + got - fo;
            if (avail < n) { /* end of file */
                if (avail > 0) {
                    memcpy(mp, win + (fo - ws), (size_t)avail);
                    rio__indep_pairs_take(c, avail);
                }
                return 0;
            }
            memcpy(mp, win + (fo - ws), (size_t)n);
            rio__indep_pairs_take(c, n);
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* Returns 1 when the file cannot be read (write-only): the caller goes on
 * another way from the cursor's position. */
static int sieve_write(const struct rio_indep_req *req, struct rio_pairs *c, char *win,
                       MPI_Offset wsize, MPI_Offset end, long long *reqs)
{
    struct rio_store *st = req->st;
    MPI_Offset fo, len;
    char *mp;
    int rc;
    while ((rc = rio__indep_pairs_peek(c, &fo, &mp, &len)) > 0) {
        MPI_Offset ws = fo, we = RIO_MIN(ws + wsize, end), got = 0, last = ws;
        MPI_Offset pos0 = c->pos;
        int locked = 0;
        /* In atomic mode the caller already holds a lock over the whole
         * extent; an unlock here would release part of it. */
        if (st->ops->lock && !req->locked) {
            rc = st->ops->lock(st, ws, we - ws, 1);
            if (rc)
                return rc;
            locked = 1;
        }
        rc = rio__store_pread_full(st, win, (size_t)(we - ws), ws, &got);
        (*reqs)++;
        if (rc == -EBADF)
            rc = 1;
        if (rc)
            goto unlock;
        if (got < we - ws)
            memset(win + got, 0, (size_t)(we - ws - got));
        while ((rc = rio__indep_pairs_peek(c, &fo, &mp, &len)) > 0 && fo < we) {
            MPI_Offset n = RIO_MIN(len, we - fo);
            memcpy(win + (fo - ws), mp, (size_t)n);
            rio__indep_pairs_take(c, n);
            last = fo + n;
        }
        if (rc >= 0) {
            rc = rio__store_pwrite_full(st, win, (size_t)(last - ws), ws);
            (*reqs)++;
        }
        if (rc)
            c->pos = pos0;
    unlock:
        if (locked) {
            int urc = st->ops->unlock(st, ws, we - ws);
            if (!rc)
                rc = urc;
        }
        if (rc)
            return rc;
    }
    return rc;
}

/*
 * Reads into contiguous memory go by stream chunks instead of by pairs: a
 * chunk of the stream whose file extent fits the window is read in one
 * call and copied out with the filetype's iterator (rio__dtype_iter_copy:
 * a tight loop over vector blocks), not one cursor step and one memcpy per
 * file region — the per-region steps were most of the time of a read of
 * every second int.  The cursor only learns the bytes moved: the method
 * ends here.
 */
static int sieve_read_stream(const struct rio_indep_req *req, struct rio_pairs *c, char *mp,
                             MPI_Offset wsize, long long *reqs)
{
    const struct rio_dtype *ft = req->filetype;
    const struct rio_dtype_info *fi = rio__dtype_info(ft);
    struct rio_dtype_iter it;
    MPI_Offset pos = req->file_start + c->pos, left = c->left, moved = 0;
    int rc = rio__dtype_iter_init(&it, ft, -1, pos);
    if (rc)
        return rc;
    MPI_Offset per = fi->extent > 0 ? wsize * fi->size / fi->extent : wsize;
    while (left > 0 && !rc) {
        /* all that is left if its extent fits the window (a small request
         * is one read, though its density may be below the type's mean),
         * else the stream bytes of a window at the type's mean density */
        MPI_Offset n = left, first, end;
        rio__dtype_view_extent(ft, req->disp, pos, n, &first, &end);
        if (end - first > wsize) {
            n = RIO_MIN(left, RIO_MAX(1, per));
            for (;;) {
                rio__dtype_view_extent(ft, req->disp, pos, n, &first, &end);
                if (end - first <= wsize || n == 1)
                    break;
                n /= 2;
            }
        }
        char *win = rio__store_scratch_get(req->st, (size_t)(end - first));
        if (!win) {
            rc = RIO_E_NOMEM;
            break;
        }
        MPI_Offset got = 0;
        rc = rio__store_pread_full(req->st, win, (size_t)(end - first), first, &got);
        (*reqs)++;
        if (!rc && got < end - first) {
            /* end of file inside the window: the stream bytes below it */
            struct rio_dtype_iter probe;
            MPI_Offset o, l, keep = 0;
            rc = rio__dtype_iter_init(&probe, ft, -1, pos);
            while (!rc && keep < n && rio__dtype_iter_next(&probe, n - keep, &o, &l) &&
                   req->disp + o < first + got) {
                keep += RIO_MIN(l, first + got - (req->disp + o));
                if (req->disp + o + l > first + got)
                    break;
            }
            rio__dtype_iter_free(&probe);
            n = keep;
            left = n; /* nothing after end of file */
        }
        if (!rc && n > 0)
            rio__dtype_iter_copy(&it, win - (first - req->disp), mp + moved, n, 1);
        rio__store_scratch_put(req->st, win);
        if (!rc) {
            moved += n;
            pos += n;
            left -= n;
        }
    }
    rio__dtype_iter_free(&it);
    c->pos += moved;
    c->left -= moved;
    return rc;
}

/* Are the regions of a read of len stream bytes over span file bytes
 * long enough, and its holes short enough, for one preadv over the holes
 * (see the top), or its holes long enough (sparse reads, below)?  The
 * hole is the request's mean gap, as the chooser's.  Returns the longest
 * hole read into the dropped buffer (its size), or 0 for windows. */
static MPI_Offset iov_read(const struct rio_indep_req *req, MPI_Offset span, MPI_Offset len)
{
    const struct rio_dtype_info *fi = rio__dtype_info(req->filetype);
    if (fi->regions <= 0)
        return 0;
    MPI_Offset mean = fi->size / fi->regions;
    if (mean >= RIO_INDEP_IOV_REGION)
        return RIO_INDEP_HOLE_MAX;
    double hole = rio__indep_mean_hole(span, len, (double)mean);
    if (hole >= (double)RIO_INDEP_HOLE_SPARSE) {
        /* twice the mean hole, whole pages, at most a window */
        MPI_Offset page = RIO_INDEP_HOLE_SPARSE, h = (MPI_Offset)(2 * hole) + page - 1;
        return RIO_MIN(h / page * page, RIO_INDEP_READ_WINDOW_MAX);
    }
    if (mean < RIO_INDEP_IOV_SMALL)
        return 0;
    return hole < (double)RIO_INDEP_HOLE_SUBPAGE ? RIO_INDEP_HOLE_SUBPAGE : 0;
}

int rio__indep_sieve(const struct rio_indep_req *req, struct rio_pairs *c)
{
    MPI_Offset first, end;
    long long reqs = 0;
    char *win = NULL;
    int rc;

    if (c->left <= 0)
        return 0;
    if (c->pos == 0 && req->end > 0) { /* the whole request, as rio__indep_rw found it */
        first = req->first;
        end = req->end;
    } else {
        rio__dtype_view_extent(req->filetype, req->disp, req->file_start + c->pos, c->left,
                               &first, &end);
    }
    MPI_Offset wsize = window_size(req, end - first);
    MPI_Offset hole_max = req->write ? 0 : iov_read(req, end - first, c->left);
    if (hole_max > 0) {
        win = rio__store_scratch_get(req->st, (size_t)hole_max);
        if (!win)
            return RIO_E_NOMEM;
        rc = rio__indep_by_regions(req, c, win, hole_max, &reqs);
        rio__store_scratch_put(req->st, win);
        rio__indep_count(req, RIO_INDEP_SIEVE, reqs);
        return rc;
    }
    if (!req->write && rio__dtype_info(req->memtype)->contig) {
        MPI_Offset fo, len;
        char *mp;
        rc = rio__indep_pairs_peek(c, &fo, &mp, &len);
        if (rc > 0)
            rc = sieve_read_stream(req, c, mp, wsize, &reqs);
        rio__indep_count(req, RIO_INDEP_SIEVE, reqs);
        return rc;
    }
    win = rio__store_scratch_get(req->st, (size_t)wsize);
    if (!win)
        return RIO_E_NOMEM;
    if (req->write)
        rc = sieve_write(req, c, win, wsize, end, &reqs);
    else
        rc = sieve_read(req, c, win, wsize, end, &reqs);
    rio__store_scratch_put(req->st, win);
    rio__indep_count(req, RIO_INDEP_SIEVE, reqs);
    if (rc == 1) /* write-only file: no sieving */
        rc = rio__indep_dtype(req, c);
    return rc;
}

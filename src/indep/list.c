/*
 * list.c — list I/O and datatype I/O (datatype-io.txt §II-D and §III).
 *
 * Both hand the driver batches of at most RIO_INDEP_BATCH (file region,
 * memory piece) pairs through rio__store_read_list / write_list, where the
 * posix driver coalesces regions adjacent in the file into vectored calls.
 * They differ in how the batches are made, as the paper's methods do:
 *
 *   list   flattens each side on its own into an offset-length list of at
 *          most RIO_INDEP_BATCH entries (the listio_read/listio_write
 *          interface: a file list and a memory list of different lengths),
 *          then merges the two lists into pairs.  File regions the memory
 *          list did not reach are carried into the next batch.
 *   dtype  takes pairs straight from the two dataloop iterators into the
 *          batch, merging pairs contiguous on both sides; no list of either
 *          side exists.
 *
 * On the posix driver the storage calls are the same, so dtype is never
 * slower (one pass instead of flatten-then-merge) and is the chooser's
 * default for many small regions.  Arrays come from the file's scratch
 * buffer, reused across calls.
 */
#include "indep_int.h"

#include <string.h>

#define N RIO_INDEP_BATCH

static int issue(const struct rio_indep_req *req, const struct rio_region *file,
                 const struct iovec *mem, int n, MPI_Offset *got)
{
    if (req->write && n == 1 && req->shared)
        return rio__indep_write_run(req, mem[0].iov_base, mem[0].iov_len, file[0].off);
    if (req->write)
        return rio__store_write_list(req->st, file, mem, n);
    return rio__store_read_list(req->st, file, mem, n, got);
}

int rio__indep_dtype(const struct rio_indep_req *req, struct rio_pairs *c)
{
    struct rio_region *freg;
    struct iovec *fiov;
    long long reqs = 0;
    void *scratch = rio__store_scratch_get(req->st, N * (sizeof *freg + sizeof *fiov));
    int rc = 0;

    if (!scratch)
        return RIO_E_NOMEM;
    fiov = scratch;
    freg = (struct rio_region *)(fiov + N);
    for (;;) {
        MPI_Offset fo, len, tot = 0, pos0 = c->pos;
        char *mp;
        int n = 0;
        while ((rc = rio__indep_pairs_peek(c, &fo, &mp, &len)) > 0) {
            if (n > 0 && freg[n - 1].off + freg[n - 1].len == fo &&
                (char *)fiov[n - 1].iov_base + fiov[n - 1].iov_len == mp) {
                freg[n - 1].len += len;
                fiov[n - 1].iov_len += (size_t)len;
            } else {
                if (n == N)
                    break;
                freg[n] = (struct rio_region){fo, len};
                fiov[n] = (struct iovec){mp, (size_t)len};
                n++;
            }
            tot += len;
            rio__indep_pairs_take(c, len);
        }
        if (rc < 0) {
            c->pos = pos0;
            break;
        }
        if (n == 0)
            break;
        MPI_Offset got = tot;
        rc = issue(req, freg, fiov, n, &got);
        reqs++;
        if (rc || got < tot) {
            c->pos = pos0 + (rc ? 0 : got);
            break;
        }
    }
    rio__store_scratch_put(req->st, scratch);
    rio__indep_count(req, RIO_INDEP_DTYPE, reqs);
    return rc < 0 ? rc : 0;
}

int rio__indep_list(const struct rio_indep_req *req, struct rio_pairs *c)
{
    struct rio_region *fl, *preg;
    struct iovec *ml, *piov;
    long long reqs = 0;
    size_t need = N * (sizeof *fl + sizeof *ml) + 2 * N * (sizeof *preg + sizeof *piov);
    void *scratch = rio__store_scratch_get(req->st, need);
    int rc = 0, nf = 0;
    MPI_Offset fbytes = 0; /* bytes in fl[0..nf) */

    if (!scratch)
        return RIO_E_NOMEM;
    ml = scratch;
    piov = ml + N;
    fl = (struct rio_region *)(piov + 2 * N);
    preg = fl + N;

    while (c->left > 0) {
        MPI_Offset o, l, mbytes = 0;
        int nm = 0;
        /* the file list: carried entries, then new ones up to the request's end */
        while (nf < N && fbytes < c->left) {
            if (!rio__indep_pairs_region(c, 1, c->left - fbytes, &o, &l)) {
                rio__err_detail("the file view ends before the request does");
                rc = RIO_E_FILETYPE;
                goto out;
            }
            fl[nf++] = (struct rio_region){o, l};
            fbytes += l;
        }
        /* the memory list, covering at most the file list */
        while (nm < N && mbytes < fbytes) {
            if (!rio__indep_pairs_region(c, 0, fbytes - mbytes, &o, &l)) {
                rio__err_detail("the memory buffer holds fewer bytes than the request moves");
                rc = RIO_E_ARG;
                goto out;
            }
            ml[nm++] = (struct iovec){c->buf + o, (size_t)l};
            mbytes += l;
        }
        /* merge the two lists into pairs covering mbytes */
        int i = 0, j = 0, np = 0;
        MPI_Offset fu = 0, mu = 0, done = 0;
        while (done < mbytes) {
            MPI_Offset n = RIO_MIN(fl[i].len - fu, (MPI_Offset)ml[j].iov_len - mu);
            preg[np] = (struct rio_region){fl[i].off + fu, n};
            piov[np] = (struct iovec){(char *)ml[j].iov_base + mu, (size_t)n};
            np++;
            done += n;
            fu += n;
            mu += n;
            if (fu == fl[i].len) {
                i++;
                fu = 0;
            }
            if (mu == (MPI_Offset)ml[j].iov_len) {
                j++;
                mu = 0;
            }
        }
        /* carry the file regions not reached into the next batch */
        if (i < nf) {
            fl[i].off += fu;
            fl[i].len -= fu;
            memmove(fl, fl + i, sizeof *fl * (size_t)(nf - i));
        }
        nf -= i;
        fbytes -= mbytes;

        MPI_Offset got = mbytes;
        rc = issue(req, preg, piov, np, &got);
        reqs++;
        if (rc)
            goto out;
        c->pos += got;
        c->left -= mbytes;
        if (got < mbytes) /* end of file */
            break;
    }
out:
    rio__store_scratch_put(req->st, scratch);
    rio__indep_count(req, RIO_INDEP_LIST, reqs);
    return rc;
}

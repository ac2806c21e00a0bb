/*
 * view.c — the view method: the whole request as one datatype request to
 * storage (datatype-io.txt §III with the expansion at the server: ECIO's
 * direct path).
 *
 * The file side goes to the driver's write_view/read_view as the filetype
 * itself, so a driver that ships dataloops (rados: through the OSDs' lua
 * class, emu: to its servers) sends one request per object or target
 * whatever the number of regions, and one that has no views gets list I/O
 * over the view's regions (rio__store_write_view's fallback).  The memory
 * side must be one contiguous run: a request whose memory is not one is
 * packed into a buffer of its bytes first (and a read unpacked after),
 * which costs one copy of the data and nbytes of memory; the chooser
 * picks the method only for storage whose views pay for that (requests of
 * small regions on RIO_STORE_CAP_OWN_VIEWS storage, indep.c).
 *
 * The collective engine's direct strategy moves each rank's request the
 * same way, through rio__indep_view_rw, which is the method without the
 * method's counters.
 */
#include "indep_int.h"

#include <stdlib.h>

/* Contract in indep.h. */
int rio__indep_view_rw(const struct rio_indep_req *req, MPI_Offset pos, long long *copies,
                       MPI_Offset *done)
{
    struct rio_dtype_iter it;
    MPI_Offset off = 0, len = 0, n = req->nbytes - pos;
    char *buf, *tmp = NULL;
    int rc;
    *done = 0;
    if (n <= 0)
        return 0;
    /* is the memory side of [pos, nbytes) one run? */
    rc = rio__dtype_iter_init(&it, req->memtype, req->memcount, pos);
    if (rc)
        return rc;
    int one = rio__dtype_iter_next(&it, n, &off, &len) && len >= n;
    rio__dtype_iter_free(&it);
    if (one) {
        buf = (char *)req->buf + off;
    } else {
        tmp = rio__malloc((size_t)n);
        if (!tmp)
            return RIO_E_NOMEM;
        if (req->write) {
            rc = rio__dtype_pack(req->memtype, req->memcount, req->buf, pos, n, tmp);
            if (rc) {
                free(tmp);
                return rc;
            }
            *copies += n;
        }
        buf = tmp;
    }
    if (req->write) {
        rc = rio__store_write_view(req->st, req->filetype, req->disp, req->file_start + pos, buf,
                                   n);
        if (!rc)
            *done = n;
    } else {
        rc = rio__store_read_view(req->st, req->filetype, req->disp, req->file_start + pos, buf,
                                  n, done);
        if (tmp && *done > 0) {
            int urc = rio__dtype_unpack(req->memtype, req->memcount, req->buf, pos, *done, tmp);
            if (!rc)
                rc = urc;
            *copies += *done;
        }
    }
    free(tmp);
    return rc;
}

/* The file regions of stream bytes [pos, pos + len) of req's view, for
 * the regions counter (the driver walks them, not this layer): strided
 * runs count whole vector blocks at once. */
static long long count_regions(const struct rio_indep_req *req, MPI_Offset pos, MPI_Offset len)
{
    struct rio_dtype_iter it;
    MPI_Offset off, l, stride;
    MPI_Count n;
    long long k = 0;
    if (rio__dtype_iter_init(&it, req->filetype, -1, req->file_start + pos))
        return 0;
    while (len > 0 && rio__dtype_iter_strided(&it, len, &off, &l, &stride, &n)) {
        k += (long long)n;
        len -= l * (MPI_Offset)n;
    }
    rio__dtype_iter_free(&it);
    return k;
}

int rio__indep_view(const struct rio_indep_req *req, struct rio_pairs *c)
{
    long long copies = 0;
    MPI_Offset done = 0;
    int rc = rio__indep_view_rw(req, c->pos, &copies, &done);
    rio__indep_count(req, RIO_INDEP_VIEW, 1);
    if (req->st->stats) {
        rio__stat_add(&req->st->stats->copies, copies);
        rio__stat_add(&req->st->stats->regions, count_regions(req, c->pos, done));
    }
    c->pos += done;
    return rc;
}

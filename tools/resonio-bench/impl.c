/*
 * impl.c — the implementations compared, behind one table of functions.
 *
 * `native` calls MPI_File_*: this program links libresonio, not the drop-in
 * library, so those are the MPI library's own MPI-IO (ROMIO in MPICH, OMPIO
 * or ROMIO in Open MPI).  The resonio entries call rio_file_* and differ
 * only in the resonio_strategy hint given at open (one per strategy the
 * library names, and auto), except `indep_calls`,
 * which makes no collective call at all: every rank writes and reads its
 * own pieces with independent calls (rio_file_write_at/read_at, run.c),
 * the non-collective I/O of resonant-io.txt Figure 2.  `limit` is not
 * MPI-IO: run.c writes and reads the same bytes with large sequential
 * pwrite/pread and has no table.  On -storage rados, `direct_list` and
 * `direct_lua` are the direct strategy with the rados: driver's datatype
 * I/O forced to list I/O (one compound operation of extents per object)
 * and to the OSD's lua class (the dataloop shipped to the object), beside
 * `direct`, whose driver chooses between them by measuring.
 */
#include "bench.h"

#include "resonio.h"

#include <string.h>

/* native, one entry per strategy (as the library enumerates them, so a new
 * strategy is benched without an edit here), indep_calls, auto, and limit,
 * which stays last (run.c). */
struct bench_impl bench_impls[BENCH_MAX_IMPLS];
int bench_nimpls;

int bench_impls_init(void)
{
    static const struct bench_impl head = {"native", IMPL_NATIVE, NULL, 0, NULL, 0},
                                   tail[] = {
                                       {"indep_calls", IMPL_RESONIO, "independent", 1, NULL, 0},
                                       {"auto", IMPL_RESONIO, "auto", 0, NULL, 0},
                                       {"direct_list", IMPL_RESONIO, "direct", 0,
                                        "resonio_rados_view=list", 1},
                                       {"direct_lua", IMPL_RESONIO, "direct", 0,
                                        "resonio_rados_view=lua", 1},
                                       {"limit", IMPL_LIMIT, NULL, 0, NULL, 0}};
    int ns = rio_strategy_count(), n = 0;
    if (ns < 0 || 1 + ns + (int)(sizeof tail / sizeof tail[0]) > BENCH_MAX_IMPLS)
        return -1;
    bench_impls[n++] = head;
    for (int i = 0; i < ns; i++)
        bench_impls[n++] = (struct bench_impl){rio_strategy_name(i), IMPL_RESONIO,
                                               rio_strategy_name(i), 0, NULL, 0};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        bench_impls[n++] = tail[i];
    bench_nimpls = n;
    return 0;
}

/* ---- native: MPI_File_* ------------------------------------------------- */

static int n_open(MPI_Comm c, const char *f, int a, MPI_Info i, void **h)
{
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(c, f, a, i, &fh);
    *h = rc == MPI_SUCCESS ? (void *)fh : NULL;
    return rc;
}
static int n_close(void **h)
{
    MPI_File fh = (MPI_File)*h;
    int rc = MPI_File_close(&fh);
    *h = NULL;
    return rc;
}
static int n_set_view(void *h, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *r,
                      MPI_Info i)
{
    return MPI_File_set_view((MPI_File)h, d, e, f, r, i);
}
static int n_write_at_all(void *h, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                          MPI_Status *s)
{
    return MPI_File_write_at_all((MPI_File)h, o, b, c, t, s);
}
static int n_read_at_all(void *h, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return MPI_File_read_at_all((MPI_File)h, o, b, c, t, s);
}
static int n_write_at(void *h, MPI_Offset o, const void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return MPI_File_write_at((MPI_File)h, o, b, c, t, s);
}
static int n_read_at(void *h, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return MPI_File_read_at((MPI_File)h, o, b, c, t, s);
}
static int n_sync(void *h)
{
    return MPI_File_sync((MPI_File)h);
}

/* ---- resonio: rio_file_* ------------------------------------------------- */

static int r_open(MPI_Comm c, const char *f, int a, MPI_Info i, void **h)
{
    rio_file *fh = RIO_FILE_NULL;
    int rc = rio_file_open(c, f, a, i, &fh);
    *h = rc == MPI_SUCCESS ? fh : NULL;
    return rc;
}
static int r_close(void **h)
{
    rio_file *fh = *h;
    int rc = rio_file_close(&fh);
    *h = NULL;
    return rc;
}
static int r_set_view(void *h, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *r,
                      MPI_Info i)
{
    return rio_file_set_view(h, d, e, f, r, i);
}
static int r_write_at_all(void *h, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                          MPI_Status *s)
{
    return rio_file_write_at_all(h, o, b, c, t, s);
}
static int r_read_at_all(void *h, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return rio_file_read_at_all(h, o, b, c, t, s);
}
static int r_write_at(void *h, MPI_Offset o, const void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return rio_file_write_at(h, o, b, c, t, s);
}
static int r_read_at(void *h, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return rio_file_read_at(h, o, b, c, t, s);
}
static int r_sync(void *h)
{
    return rio_file_sync(h);
}
static int r_stats(void *h, void *out)
{
    struct rio_stats *s = out;
    s->size = sizeof *s;
    return rio_stats_get(h, s);
}
static int r_coll_last(void *h, void *out)
{
    struct rio_coll_info *ci = out;
    ci->size = sizeof *ci;
    return rio_coll_last(h, ci);
}
/* The selector's signatures of one direction, summed.  Local. */
static int r_selector(void *h, int write, struct bench_sel *out)
{
    int n = 0, rc = rio_select_count(h, &n);
    memset(out, 0, sizeof *out);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        struct rio_select_info in = {.size = sizeof in};
        rc = rio_select_get(h, i, &in);
        if (rc != MPI_SUCCESS || in.write != write)
            continue;
        out->nsig++;
        out->calls += in.calls;
        out->exam_calls += in.exam_calls;
        out->time += in.select_time;
        out->time_chosen += in.select_time_chosen;
    }
    out->ok = rc == MPI_SUCCESS;
    return rc;
}

static const struct bench_io native_io = {
    .open = n_open,
    .close = n_close,
    .set_view = n_set_view,
    .write_at_all = n_write_at_all,
    .read_at_all = n_read_at_all,
    .write_at = n_write_at,
    .read_at = n_read_at,
    .sync = n_sync,
};

static const struct bench_io resonio_io = {
    .open = r_open,
    .close = r_close,
    .set_view = r_set_view,
    .write_at_all = r_write_at_all,
    .read_at_all = r_read_at_all,
    .write_at = r_write_at,
    .read_at = r_read_at,
    .sync = r_sync,
    .stats = r_stats,
    .coll_last = r_coll_last,
    .selector = r_selector,
};

const struct bench_io *bench_io_of(const struct bench_impl *im)
{
    return im->kind == IMPL_NATIVE ? &native_io : im->kind == IMPL_RESONIO ? &resonio_io : NULL;
}

/*
 * t_views.c — noncontiguous file views (see rviews.h for the cases).
 *
 * For each case: set_view resets both file pointers to 0; get_view gives
 * back the displacement, "native", the predefined etype itself and new
 * handles (to free) for derived types with the same size and extent; the
 * user's filetype may be freed right after set_view; the data is written
 * with the case's access family (write_all, write, or write_at at etype
 * offsets splitting a tile), get_byte_offset agrees with the model, and
 * it is read back with read_at_all and with seek + read into a sentinel-
 * filled buffer (memory gaps must stay untouched).  At the end rank 0
 * compares the file, read with POSIX, with the image the model predicts,
 * over the bytes some rank writes.  Last, reads that meet end of file in
 * the middle of the vector view (eof_case).
 *
 * `-method m` opens the file with resonio_indep_method=m, forcing one
 * independent access method (contig, posix, sieve, list, dtype); without
 * it the library chooses.  A forced method must show in the statistics.
 */
#include "resonio.h"
#include "rviews.h"

static char path[4096];

static void pos_is(rio_file *fh, MPI_Offset want, const char *when, const char *name)
{
    MPI_Offset p = -1, s = -1;
    RT_OK(rio_file_get_position(fh, &p));
    CHECK(p == want, "%s: %s: individual pointer at %lld, expected %lld", name, when,
          (long long)p, (long long)want);
    if (!strcmp(when, "after set_view")) {
        RT_OK(rio_file_get_position_shared(fh, &s));
        CHECK(s == 0, "%s: %s: shared pointer at %lld, expected 0", name, when, (long long)s);
    }
}

static void check_returned_type(MPI_Datatype got, MPI_Datatype user, int named, long long size,
                                long long extent, const char *which, const char *name)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(got, &ni, &na, &nd, &comb);
    if (named) {
        CHECK(got == user, "%s: get_view %s is not the predefined type given", name, which);
        CHECK(comb == MPI_COMBINER_NAMED, "%s: get_view %s is not a named type", name, which);
        return;
    }
    CHECK(comb != MPI_COMBINER_NAMED, "%s: get_view %s is a named type", name, which);
    CHECK(got != user, "%s: get_view %s returned the user's handle, not a new one", name, which);
    int sz = -1;
    MPI_Aint lb, ext;
    MPI_Type_size(got, &sz);
    MPI_Type_get_extent(got, &lb, &ext);
    CHECK(sz == size && ext == extent, "%s: get_view %s has size %d extent %lld, expected %lld %lld",
          name, which, sz, (long long)ext, size, extent);
}

/* MPI_Get_count and MPI_Get_elements_x of a whole-access status. */
static void check_counts(const struct rv_case *c, const MPI_Status *st, const char *what)
{
    int cnt = -1;
    MPI_Count el = -1;
    MPI_Get_count(st, c->memtype, &cnt);
    MPI_Get_elements_x(st, c->memtype, &el);
    CHECK(cnt == c->memcount, "%s: %s count %d, expected %d", c->name, what, cnt, c->memcount);
    CHECK(el == (MPI_Count)c->memcount * c->mem_elems, "%s: %s elements %lld, expected %lld",
          c->name, what, (long long)el, (long long)c->memcount * c->mem_elems);
}

static void run_case(rio_file *fh, int kind)
{
    struct rv_case c;
    MPI_Offset base = (MPI_Offset)kind * RV_REGION;
    rv_build(kind, rt_rank, rt_nprocs, base, 1, &c);
    unsigned char *stream = rv_stream(&c, rt_rank);
    unsigned char *wmem = rv_membuf(&c, stream);
    unsigned char *rmem = rv_membuf(&c, NULL);
    MPI_Status st;
    const long long netypes = c.nbytes / c.esize;

    /* Move both pointers so that the reset by set_view shows. */
    RT_OK(rio_file_seek(fh, 3, MPI_SEEK_CUR));
    RT_OK(rio_file_seek_shared(fh, 5, MPI_SEEK_CUR));

    if (!RT_OK(rio_file_set_view(fh, c.disp, c.etype, c.filetype, "native", MPI_INFO_NULL))) {
        CHECK(0, "%s: set_view failed; case skipped", c.name);
        goto out;
    }
    pos_is(fh, 0, "after set_view", c.name);

    MPI_Offset disp = -1;
    MPI_Datatype et = MPI_DATATYPE_NULL, ft = MPI_DATATYPE_NULL;
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    if (RT_OK(rio_file_get_view(fh, &disp, &et, &ft, rep))) {
        CHECK(disp == c.disp, "%s: get_view disp %lld, expected %lld", c.name, (long long)disp,
              (long long)c.disp);
        CHECK(!strcmp(rep, "native"), "%s: get_view datarep '%s'", c.name, rep);
        check_returned_type(et, c.etype, c.etype_named, c.esize, c.esize, "etype", c.name);
        check_returned_type(ft, c.filetype, 0, c.ft_size, c.ft_extent, "filetype", c.name);
        if (!c.etype_named && et != MPI_DATATYPE_NULL)
            MPI_Type_free(&et);
        if (ft != MPI_DATATYPE_NULL)
            MPI_Type_free(&ft);
    }
    /* The view must not depend on the user's handle staying alive. */
    if (kind % 2)
        MPI_Type_free(&c.filetype);

    switch (c.access) {
    case RV_WRITE_ALL:
        if (RT_OK(rio_file_write_all(fh, wmem + c.bufoff, c.memcount, c.memtype, &st)))
            check_counts(&c, &st, "write_all");
        pos_is(fh, netypes, "after write_all", c.name);
        break;
    case RV_WRITE_IND:
        if (RT_OK(rio_file_write(fh, wmem + c.bufoff, c.memcount, c.memtype, &st)))
            check_counts(&c, &st, "write");
        pos_is(fh, netypes, "after write", c.name);
        break;
    case RV_WRITE_AT_SPLIT: {
        /* memory is MPI_INT; etype offsets of the second part mid-tile */
        int first = c.split_ints, rest = c.memcount - c.split_ints;
        MPI_Offset off2 = (MPI_Offset)first * 4 / c.esize;
        if (RT_OK(rio_file_write_at(fh, 0, wmem, first, MPI_INT, &st)))
            CHECK_STATUS(&st, MPI_INT, first, first, "%s: write_at first part", c.name);
        if (RT_OK(rio_file_write_at_all(fh, off2, wmem + first * 4, rest, MPI_INT, &st)))
            CHECK_STATUS(&st, MPI_INT, rest, rest, "%s: write_at_all at etype offset %lld",
                         c.name, (long long)off2);
        pos_is(fh, 0, "after explicit-offset writes", c.name);
        break;
    }
    }

    /* get_byte_offset against the model. */
    /* the last probe lies in a later tile than the access reaches */
    const long long probes[4] = {0, 1, netypes - 1, 2 * (c.ft_size / c.esize) + 3};
    for (int i = 0; i < 4; i++) {
        MPI_Offset bo = -1;
        long long want = rv_file_offset(&c, probes[i] * c.esize);
        if (RT_OK(rio_file_get_byte_offset(fh, probes[i], &bo)))
            CHECK(bo == want, "%s: get_byte_offset(%lld) = %lld, expected %lld", c.name,
                  probes[i], (long long)bo, want);
    }

    RT_OK(rio_file_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    RT_OK(rio_file_sync(fh));

    if (RT_OK(rio_file_read_at_all(fh, 0, rmem + c.bufoff, c.memcount, c.memtype, &st))) {
        check_counts(&c, &st, "read_at_all");
        RV_CHECK_MEM(&c, rmem, stream, "%s: read_at_all", c.name);
    }
    free(rmem);
    rmem = rv_membuf(&c, NULL);
    RT_OK(rio_file_seek(fh, 0, MPI_SEEK_SET));
    if (RT_OK(rio_file_read(fh, rmem + c.bufoff, c.memcount, c.memtype, &st))) {
        check_counts(&c, &st, "read");
        RV_CHECK_MEM(&c, rmem, stream, "%s: seek + read", c.name);
    }
    pos_is(fh, netypes, "after read", c.name);

    /* A read at an etype offset inside the stream, when memory is ints. */
    if (c.memtype == MPI_INT && (c.nbytes / 2) % c.esize == 0 && (c.nbytes / 2) % 4 == 0) {
        long long half = c.nbytes / 2;
        unsigned char *r2 = malloc((size_t)half);
        memset(r2, 0, (size_t)half);
        if (RT_OK(rio_file_read_at(fh, half / c.esize, r2, (int)(half / 4), MPI_INT, &st))) {
            CHECK_STATUS(&st, MPI_INT, (int)(half / 4), (int)(half / 4), "%s: read_at of the second half",
                         c.name);
            CHECK_BYTES(r2, stream + half, NULL, (size_t)half, "%s: read_at at etype offset %lld",
                        c.name, half / c.esize);
        }
        free(r2);
    }
out:
    free(stream);
    free(wmem);
    free(rmem);
    rv_free(&c);
}

/*
 * Reads that meet end of file inside a noncontiguous view: the vector view,
 * fully written, then the file cut 20 bytes into rank 0's sixth block.  A
 * read returns the stream bytes before the first one past the end (rank 0:
 * five rows and half a block, the others five rows), the counts say so and
 * the individual pointer moves by that much.
 */
static void eof_case(MPI_Info info)
{
    struct rv_case c, c0;
    char p[4300];
    rio_file *fh = RIO_FILE_NULL;
    MPI_Status st;
    snprintf(p, sizeof p, "%s.eof", path);
    rv_build(RV_VECTOR, rt_rank, rt_nprocs, 0, 1, &c);
    rv_build(RV_VECTOR, 0, rt_nprocs, 0, 0, &c0);
    const long long eof = rv_file_offset(&c0, 5 * 40 + 20);
    const long long want = rv_bytes_before(&c, eof);
    unsigned char *stream = rv_stream(&c, rt_rank), *wmem = rv_membuf(&c, stream);
    unsigned char *rmem = rv_membuf(&c, NULL);
    if (rt_rank == 0)
        unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, p,
                             MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, info,
                             &fh)))
        goto out;
    RT_OK(rio_file_set_view(fh, c.disp, c.etype, c.filetype, "native", MPI_INFO_NULL));
    RT_OK(rio_file_write_all(fh, wmem, c.memcount, c.memtype, &st));
    RT_OK(rio_file_set_size(fh, eof));
    RT_OK(rio_file_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    RT_OK(rio_file_sync(fh));

    RT_OK(rio_file_seek(fh, 0, MPI_SEEK_SET));
    if (RT_OK(rio_file_read_all(fh, rmem, c.memcount, MPI_INT, &st))) {
        CHECK_STATUS(&st, MPI_INT, (int)(want / 4), (int)(want / 4),
                     "read_all of the vector view cut at %lld", eof);
        CHECK_BYTES(rmem, stream, NULL, (size_t)want, "read_all of the vector view cut at %lld",
                    eof);
    }
    MPI_Offset pos = -1;
    RT_OK(rio_file_get_position(fh, &pos));
    CHECK(pos == want / 4, "after the short read_all the pointer is at %lld, expected %lld",
          (long long)pos, want / 4);
    memset(rmem, 0, (size_t)c.membytes);
    RT_OK(rio_file_seek(fh, 0, MPI_SEEK_SET));
    if (RT_OK(rio_file_read(fh, rmem, c.memcount, MPI_INT, &st))) {
        CHECK_STATUS(&st, MPI_INT, (int)(want / 4), (int)(want / 4),
                     "read of the vector view cut at %lld", eof);
        CHECK_BYTES(rmem, stream, NULL, (size_t)want, "read of the vector view cut at %lld", eof);
    }
    /* from two ints before the end: two ints come back */
    memset(rmem, 0, (size_t)c.membytes);
    if (RT_OK(rio_file_read_at(fh, want / 4 - 2, rmem, 10, MPI_INT, &st))) {
        CHECK_STATUS(&st, MPI_INT, 2, 2, "read_at 2 ints before the end of file");
        CHECK_BYTES(rmem, stream + want - 8, NULL, 8, "read_at 2 ints before the end of file");
    }
    RT_OK(rio_file_close(&fh));
out:
    free(stream);
    free(wmem);
    free(rmem);
    rv_free(&c);
    rv_free(&c0);
}

static void verify_file(void)
{
    if (rt_rank != 0)
        return;
    long long need = (long long)RV_NCASES * RV_REGION, len = 0;
    unsigned char *img = calloc((size_t)need, 1), *mask = calloc((size_t)need, 1);
    for (int k = 0; k < RV_NCASES; k++)
        rv_image(k, rt_nprocs, (MPI_Offset)k * RV_REGION, img, mask, need);
    long long last = 0;
    for (long long o = 0; o < need; o++)
        if (mask[o])
            last = o + 1;
    unsigned char *f = RT_SLURP(path, &len);
    if (f) {
        CHECK(len >= last, "file is %lld bytes; the last byte written is at %lld", len, last - 1);
        for (int k = 0; k < RV_NCASES; k++) {
            long long lo = (long long)k * RV_REGION;
            long long hi = rt_minll(lo + RV_REGION, len);
            if (hi > lo)
                CHECK_BYTES(f + lo, img + lo, mask + lo, (size_t)(hi - lo),
                            "file bytes of case %s (region at %lld), read with POSIX", rv_name(k),
                            lo);
        }
    }
    free(f);
    free(img);
    free(mask);
}

/* The storage requests of method m: its slot is its index in the
 * library's table of methods; -1 for a name the table lacks. */
static long long method_requests(const struct rio_stats *s, const char *m)
{
    for (int i = 0; i < s->nmethods && i < RIO_STATS_MAX_METHODS; i++)
        if (!strcmp(rio_indep_method_name(i), m))
            return s->req_method[i];
    return -1;
}

int main(int argc, char **argv)
{
    rio_file *fh = RIO_FILE_NULL;
    rt_init(&argc, &argv);
    const char *method = rt_arg("-method");
    char suffix[64];
    snprintf(suffix, sizeof suffix, "views.%s", method ? method : "auto");
    rt_path(path, sizeof path, suffix);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = rt_info("resonio_indep_method", method, NULL);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh))) {
        for (int k = 0; k < RV_NCASES; k++)
            run_case(fh, k);
        if (method && strcmp(method, "auto")) {
            struct rio_stats s;
            memset(&s, 0, sizeof s);
            s.size = sizeof s;
            RT_OK(rio_stats_get(fh, &s));
            long long req = rt_sum(method_requests(&s, method));
            CHECK(rt_rank != 0 || req > 0, "method %s was forced but the statistics show %lld requests of it", method,
                  req);
        }
        RT_OK(rio_file_close(&fh));
    }
    verify_file();
    eof_case(info);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        RT_OK(rio_file_delete(path, MPI_INFO_NULL));
    return rt_finish();
}

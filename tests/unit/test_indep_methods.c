/*
 * test_indep_methods.c — every independent method (forced through
 * hints.indep_method, and the chooser's own pick) over several view and
 * memory shapes, reading and writing, checked against an oracle that knows
 * the shapes as plain block lists and never uses the datatype engine.
 *
 * Writes are checked with plain pread(2) of the whole file, which was
 * filled with a pattern first (so the holes must keep it).  Reads are
 * checked byte for byte over the whole memory allocation (bytes outside the
 * memory type must keep their sentinel).  Reads that meet end of file must
 * return the stream prefix and leave the rest of memory alone.  Views
 * start at stream byte 0 and in the middle of a tile; the displacement is
 * odd.  Fault injection (EIO, ENOSPC) must give that code from every
 * method, and EINTR / SHORT must not change the bytes.
 *
 * Usage: test_indep_methods <scratch-dir>
 */
#include "file/file_int.h" /* the hints */
#include "indep/indep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* A type as the oracle sees it: blocks in type-map order, and the extent. */
struct shape {
    const char *name;
    int n;
    long long displ[8];
    long long len[8];
    long long extent;
    long long lb;      /* memory: how far below the buffer pointer it reaches */
    MPI_Datatype type;
    struct rio_dtype *dt;
    long long size;
};

#define NFSHAPES 9
static struct shape fshapes[NFSHAPES], mshapes[4];
static long long fnbytes[NFSHAPES];
static char path[4200];
static const MPI_Offset DISP = 37;

static void shape_done(struct shape *s)
{
    s->size = 0;
    for (int i = 0; i < s->n; i++)
        s->size += s->len[i];
    MPI_Type_commit(&s->type);
    if (rio__dtype_get(s->type, &s->dt) != 0) {
        printf("rio__dtype_get failed for %s\n", s->name);
        exit(1);
    }
}

/* File shape i: count blocks of len bytes, stride bytes apart, in a tile
 * of count * stride bytes; requests of nbytes. */
static void byte_vector(int i, const char *name, int count, int len, int stride,
                        long long nbytes)
{
    struct shape *s = &fshapes[i];
    MPI_Datatype t;
    *s = (struct shape){.name = name, .n = count, .extent = (long long)count * stride};
    for (int k = 0; k < count; k++) {
        s->displ[k] = (long long)k * stride;
        s->len[k] = len;
    }
    MPI_Type_vector(count, len, stride, MPI_BYTE, &t);
    MPI_Type_create_resized(t, 0, s->extent, &s->type);
    MPI_Type_free(&t);
    shape_done(s);
    fnbytes[i] = nbytes;
}

static void make_shapes(void)
{
    MPI_Datatype t;
    struct shape *s;

    s = &fshapes[0]; /* contiguous */
    *s = (struct shape){.name = "contig", .n = 1, .displ = {0}, .len = {1}, .extent = 1};
    MPI_Type_dup(MPI_BYTE, &s->type);
    shape_done(s);
    fnbytes[0] = 5000;

    s = &fshapes[1]; /* vector of ints with a tail hole */
    *s = (struct shape){.name = "vector", .n = 0, .extent = 50 * 28 + 16};
    MPI_Type_vector(50, 3, 7, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, s->extent, &s->type);
    MPI_Type_free(&t);
    shape_done(s); /* size computed below: 50 blocks do not fit the arrays */
    s->size = 50 * 12;
    fnbytes[1] = 3 * 600 + 100;

    s = &fshapes[2]; /* indexed with holes */
    *s = (struct shape){.name = "indexed", .n = 5, .displ = {0, 3, 10, 20, 100},
                        .len = {1, 5, 2, 40, 3}, .extent = 160};
    {
        int bl[5] = {1, 5, 2, 40, 3}, dp[5] = {0, 3, 10, 20, 100};
        MPI_Type_indexed(5, bl, dp, MPI_CHAR, &t);
    }
    MPI_Type_create_resized(t, 0, 160, &s->type);
    MPI_Type_free(&t);
    shape_done(s);
    fnbytes[2] = 51 * 40 + 17;

    byte_vector(3, "bigblocks", 2, 300000, 400000, 1000000); /* large blocks */
    /* page-sized blocks, holes of 3000: sieved reads by preadv */
    byte_vector(4, "pages", 3, 5000, 8000, 2 * 15000 + 7001);
    /* regions of 1500, holes of 1500: sieved reads by preadv */
    byte_vector(5, "kblocks", 2, 1500, 3000, 20 * 3000 + 701);
    /* regions of 1500, holes of 9000 (a sparse read): sieved reads by
     * preadv */
    byte_vector(6, "kblocks-apart", 2, 1500, 10500, 8 * 3000 + 701);
    /* regions of 1500, holes of 6000 (above a page, below two): sieved
     * reads by preadv */
    byte_vector(7, "kblocks-page-apart", 2, 1500, 7500, 8 * 3000 + 701);
    /* regions of 100, holes of 4900 (a sparse read): sieved reads by
     * preadv */
    byte_vector(8, "bytes-apart", 2, 100, 5000, 40 * 100 + 37);

    s = &mshapes[0];
    *s = (struct shape){.name = "mem-contig", .n = 1, .displ = {0}, .len = {1}, .extent = 1};
    MPI_Type_dup(MPI_BYTE, &s->type);
    shape_done(s);

    s = &mshapes[1];
    *s = (struct shape){.name = "mem-vector", .n = 0, .extent = 19 * 9 + 5};
    MPI_Type_vector(20, 5, 9, MPI_BYTE, &s->type);
    shape_done(s);
    s->size = 100;

    s = &mshapes[2]; /* struct reaching below the buffer pointer */
    *s = (struct shape){.name = "mem-struct", .n = 3, .displ = {-8, 0, 16}, .len = {4, 8, 3},
                        .extent = 32, .lb = 8};
    {
        int bl[3] = {1, 1, 3};
        MPI_Aint dp[3] = {-8, 0, 16};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        MPI_Type_create_struct(3, bl, dp, ty, &t);
    }
    MPI_Type_create_resized(t, -8, 32, &s->type);
    MPI_Type_free(&t);
    shape_done(s);

    s = &mshapes[3]; /* out-of-order blocks */
    *s = (struct shape){.name = "mem-unordered", .n = 3, .displ = {40, 0, 24},
                        .len = {8, 16, 4}, .extent = 48};
    {
        int bl[3] = {8, 16, 4};
        MPI_Aint dp[3] = {40, 0, 24};
        MPI_Type_create_hindexed(3, bl, dp, MPI_BYTE, &t);
    }
    MPI_Type_create_resized(t, 0, 48, &s->type);
    MPI_Type_free(&t);
    shape_done(s);
}

/* Offset of stream byte b of a shape tiled without end (from the origin). */
static long long map(const struct shape *s, long long b)
{
    long long inst = b / s->size, r = b % s->size;
    if (s->n == 0) { /* the two vectors */
        if (s == &fshapes[1])
            return inst * s->extent + (r / 12) * 28 + r % 12;
        return inst * s->extent + (r / 5) * 9 + r % 5;
    }
    for (int i = 0; i < s->n; i++) {
        if (r < s->len[i])
            return inst * s->extent + s->displ[i] + r;
        r -= s->len[i];
    }
    return -1;
}

static void fill_file(long long size, unsigned seed)
{
    unsigned char *p = malloc((size_t)size);
    for (long long i = 0; i < size; i++)
        p[i] = (unsigned char)((i * 7 + seed + (i >> 9)) & 0xff);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, p, (size_t)size, 0) != size) {
        printf("cannot fill %s\n", path);
        exit(1);
    }
    close(fd);
    free(p);
}

static unsigned char *read_file(long long *size)
{
    struct stat sb;
    int fd = open(path, O_RDONLY);
    fstat(fd, &sb);
    unsigned char *p = malloc((size_t)sb.st_size + 1);
    if (pread(fd, p, (size_t)sb.st_size, 0) != sb.st_size)
        *size = -1;
    else
        *size = sb.st_size;
    close(fd);
    return p;
}

struct run {
    enum rio_indep_method method;
    int fs, ms;         /* shape indexes */
    long long start;    /* file_start */
    long long nbytes;
    struct rio_hints h;
    const char *prefix; /* "" or "fault:" */
};

static const char *method_name(enum rio_indep_method m)
{
    return rio__indep_method_name(m);
}

/* The storage requests counted under the method called name: its slot is
 * its index in the public table of methods; -1 for a name not there. */
static long long method_requests(const struct rio_stats *s, const char *name)
{
    for (int i = 0; i < rio_indep_method_count(); i++)
        if (!strcmp(rio_indep_method_name(i), name))
            return s->req_method[i];
    return -1;
}

static int open_store(struct rio_store *st, struct run *r, struct rio_stats *stats)
{
    char name[4300];
    snprintf(name, sizeof name, "%s%s", r->prefix, path);
    memset(st, 0, sizeof *st);
    unit_hint(&r->h, "resonio_indep_method", method_name(r->method));
    int rc = rio__store_open(st, name, O_RDWR | O_CLOEXEC, 0644, &r->h);
    st->stats = stats;
    return rc;
}

static long long file_span(const struct run *r)
{
    const struct shape *f = &fshapes[r->fs];
    return DISP + map(f, r->start + r->nbytes - 1) + 1;
}

static void setup_mem(const struct run *r, long long *count, size_t *alloc)
{
    const struct shape *m = &mshapes[r->ms];
    *count = (r->nbytes + m->size - 1) / m->size;
    *alloc = (size_t)(*count * m->extent + 64);
}

/* Set up *r for method on file shape fs, memory shape ms, through prefix
 * ("" or "fault:"), fill the file, and return zeroed memory for the run
 * (count: its memcount).  Other fields of r are 0. */
static unsigned char *run_prepare(struct run *r, enum rio_indep_method method, int fs, int ms,
                                  const char *prefix, long long *count)
{
    size_t alloc;
    memset(r, 0, sizeof *r);
    r->method = method;
    r->fs = fs;
    r->ms = ms;
    r->nbytes = fnbytes[fs];
    r->prefix = prefix;
    setup_mem(r, count, &alloc);
    fill_file(file_span(r) + 100, 5);
    return calloc(1, alloc);
}

static int do_rw(struct run *r, int write, void *buf, long long count, MPI_Offset *done,
                 struct rio_stats *stats)
{
    struct rio_store st;
    int rc = open_store(&st, r, stats);
    if (rc)
        return rc;
    struct rio_indep_req req = {
        .st = &st, .write = write, .buf = buf, .memtype = mshapes[r->ms].dt,
        .memcount = count, .filetype = fshapes[r->fs].dt, .disp = DISP,
        .file_start = r->start, .nbytes = r->nbytes};
    rc = rio__indep_rw(&req, done);
    int crc = rio__store_close(&st);
    return rc ? rc : crc;
}

static const char *desc(const struct run *r, int write)
{
    static char text[300];
    snprintf(text, sizeof text, "%s %s %s/%s start=%lld n=%lld%s", method_name(r->method),
             write ? "write" : "read", fshapes[r->fs].name, mshapes[r->ms].name, r->start,
             r->nbytes, r->prefix);
    return text;
}

/* Write with the file holding `cut` bytes before (-1: more than the
 * request reaches); the write extends it, holes past the old end read 0. */
static void check_write(struct run *r, long long cut)
{
    const struct shape *f = &fshapes[r->fs], *m = &mshapes[r->ms];
    long long count, fsize = file_span(r) + 500, got;
    size_t alloc;
    setup_mem(r, &count, &alloc);
    unsigned char *mem = malloc(alloc), *base = mem + m->lb;
    for (size_t i = 0; i < alloc; i++)
        mem[i] = (unsigned char)(rand() & 0xff);
    fill_file(fsize, 11);
    unsigned char *want = read_file(&got);
    if (cut >= 0) {
        if (truncate(path, cut) != 0)
            printf("truncate failed\n");
        memset(want + cut, 0, (size_t)(fsize - cut));
        fsize = RIO_MAX(cut, file_span(r));
    }
    for (long long b = 0; b < r->nbytes; b++)
        want[DISP + map(f, r->start + b)] = base[map(m, b)];
    MPI_Offset done = -1;
    int rc = do_rw(r, 1, base, count, &done, NULL);
    CHECK(rc == 0 && done == r->nbytes, "%s: rc %d done %lld", desc(r, 1), rc, (long long)done);
    unsigned char *have = read_file(&got);
    CHECK(got == fsize && !memcmp(have, want, (size_t)fsize), "%s cut=%lld: file bytes",
          desc(r, 1), cut);
    free(have);
    free(want);
    free(mem);
}

/* Read with the file cut at `cut` bytes (-1: not cut). */
static void check_read(struct run *r, long long cut)
{
    const struct shape *f = &fshapes[r->fs], *m = &mshapes[r->ms];
    long long count, fsize = file_span(r) + 500, got;
    size_t alloc;
    setup_mem(r, &count, &alloc);
    fill_file(fsize, 23);
    if (cut >= 0 && truncate(path, cut) != 0)
        printf("truncate failed\n");
    unsigned char *file = read_file(&got);
    unsigned char *mem = malloc(alloc), *want = malloc(alloc);
    memset(mem, 0xee, alloc);
    memset(want, 0xee, alloc);
    long long expect = r->nbytes;
    for (long long b = 0; b < r->nbytes; b++) {
        long long fo = DISP + map(f, r->start + b);
        if (fo >= got) {
            expect = b;
            break;
        }
        want[m->lb + map(m, b)] = file[fo];
    }
    MPI_Offset done = -1;
    int rc = do_rw(r, 0, mem + m->lb, count, &done, NULL);
    CHECK(rc == 0 && done == expect, "%s cut=%lld: rc %d done %lld want %lld", desc(r, 0), cut,
          rc, (long long)done, expect);
    CHECK(!memcmp(mem, want, alloc), "%s cut=%lld: memory bytes", desc(r, 0), cut);
    free(file);
    free(mem);
    free(want);
}

static void sweep(void)
{
    for (int meth = RIO_INDEP_AUTO; meth < RIO_INDEP_NMETHODS; meth++) {
        for (int fs = 0; fs < NFSHAPES; fs++) {
            for (int ms = 0; ms < 4; ms++) {
                for (int mid = 0; mid < 2; mid++) {
                    struct run r;
                    memset(&r, 0, sizeof r);
                    r.method = (enum rio_indep_method)meth;
                    r.fs = fs;
                    r.ms = ms;
                    r.prefix = "";
                    r.nbytes = fnbytes[fs];
                    r.start = mid ? fshapes[fs].size + fshapes[fs].size / 3 + 1 : 0;
                    if (mid) { /* small windows: many of them */
                        unit_hint(&r.h, "ind_rd_buffer_size", "1000");
                        unit_hint(&r.h, "ind_wr_buffer_size", "700");
                    }
                    if (ms == 3) /* the ring path too */
                        unit_hint(&r.h, "resonio_uring", "enable");
                    check_write(&r, -1);
                    check_read(&r, -1);
                    /* cut inside the data byte half-way, and in the hole after
                     * it (if any) */
                    const struct shape *f = &fshapes[fs];
                    long long half = r.start + r.nbytes / 2;
                    long long a = DISP + map(f, half), b = DISP + map(f, half + 1);
                    check_read(&r, a + 1);
                    if (b - a > 2)
                        check_read(&r, a + (b - a) / 2);
                    check_read(&r, DISP + map(f, r.start)); /* nothing readable */
                    check_write(&r, a + 1);
                    check_write(&r, 0);
                }
            }
        }
        printf("ok - method %s over all shapes\n", method_name((enum rio_indep_method)meth));
    }
}

static void faults(void)
{
    static const struct {
        const char *spec;
        int write, code;
    } cases[] = {
        {"op=write,n=1,err=EIO", 1, -EIO},   {"op=write,n=1,err=ENOSPC", 1, -ENOSPC},
        {"op=read,n=1,err=EIO", 0, -EIO},    {"op=write,n=1,every=1,err=EIO", 1, -EIO},
        {"op=any,n=1,err=EINTR", 1, 0},      {"op=any,n=2,err=SHORT", 1, 0},
        {"op=any,n=1,err=EINTR", 0, 0},      {"op=any,n=1,err=SHORT", 0, 0},
    };
    for (int meth = RIO_INDEP_AUTO + 1; meth < RIO_INDEP_NMETHODS; meth++) {
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            for (int fs = 1; fs < NFSHAPES; fs += fs == 2 ? 2 : 1) { /* all but 0 and 3 */
                struct run r;
                memset(&r, 0, sizeof r);
                r.method = (enum rio_indep_method)meth;
                r.fs = fs;
                r.ms = 1;
                r.nbytes = fnbytes[fs];
                r.prefix = "fault:";
                unit_hint(&r.h, "resonio_fault", cases[k].spec);
                if (cases[k].code == 0) {
                    if (cases[k].write)
                        check_write(&r, -1);
                    else
                        check_read(&r, -1);
                    continue;
                }
                long long count;
                size_t alloc;
                setup_mem(&r, &count, &alloc);
                unsigned char *mem = calloc(1, alloc);
                fill_file(file_span(&r) + 100, 5);
                MPI_Offset done = -1;
                int rc = do_rw(&r, cases[k].write, mem, count, &done, NULL);
                CHECK(rc == cases[k].code, "%s %s %s: rc %d", method_name(r.method),
                      cases[k].spec, fshapes[fs].name, rc);
                free(mem);
            }
        }
    }
    /* sieving a write reads first: a read fault fails it too */
    struct run r;
    long long count;
    unsigned char *mem = run_prepare(&r, RIO_INDEP_SIEVE, 2, 0, "fault:", &count);
    unit_hint(&r.h, "resonio_fault", "op=read,n=1,err=EIO");
    MPI_Offset done;
    CHECK(do_rw(&r, 1, mem, count, &done, NULL) == -EIO, "sieve write with read fault");
    unit_hint(&r.h, "resonio_fault", "op=lock,n=1,err=EIO");
    CHECK(do_rw(&r, 1, mem, count, &done, NULL) == -EIO, "sieve write with lock fault");
    free(mem);
    printf("ok - fault injection for every method\n");
}

/* A sieved read of nbytes through file shape fs into contiguous memory,
 * with the window hint's default, every byte checked against the file;
 * the storage requests, the bytes accessed and the extent read. */
static void sieved_read(int fs, long long nbytes, const char *what, long long *reqs,
                        long long *accessed, long long *span)
{
    struct run r;
    struct rio_stats stats;
    long long count, got;
    size_t alloc;
    memset(&stats, 0, sizeof stats);
    free(run_prepare(&r, RIO_INDEP_SIEVE, fs, 0, "", &count));
    r.nbytes = nbytes;
    setup_mem(&r, &count, &alloc);
    fill_file(file_span(&r) + 100, 11);
    unsigned char *mem = calloc(1, alloc), *file = read_file(&got);
    MPI_Offset done;
    CHECK(do_rw(&r, 0, mem, count, &done, &stats) == 0 && done == r.nbytes, "%s", what);
    long long bad = 0;
    for (long long b = 0; b < r.nbytes; b++)
        bad += mem[b] != file[DISP + map(&fshapes[fs], b)];
    CHECK(bad == 0, "%s: %lld bytes wrong", what, bad);
    *reqs = method_requests(&stats, "sieve");
    *accessed = stats.bytes_accessed;
    *span = file_span(&r) - DISP;
    free(mem);
    free(file);
}

/* Sieving writes on a write-only file fall back; stats count per method. */
static void stats_and_wronly(void)
{
    for (int meth = RIO_INDEP_AUTO + 1; meth < RIO_INDEP_NMETHODS; meth++) {
        struct run r;
        struct rio_stats stats;
        long long count;
        memset(&stats, 0, sizeof stats);
        unsigned char *mem = run_prepare(&r, (enum rio_indep_method)meth, 2, 1, "", &count);
        MPI_Offset done;
        CHECK(do_rw(&r, 1, mem, count, &done, &stats) == 0, "write");
        long long mine = method_requests(&stats, method_name(r.method)), all = 0;
        for (int i = 0; i < RIO_STATS_MAX_METHODS; i++)
            all += stats.req_method[i];
        CHECK(mine > 0 && mine == all, "%s: requests counted under the method's name",
              method_name(r.method));
        CHECK(stats.regions > 0 && stats.bytes_accessed >= r.nbytes && stats.time_storage > 0,
              "%s: regions %lld bytes %lld", method_name(r.method), stats.regions,
              stats.bytes_accessed);
        free(mem);
    }

    /* a sieved read's window is at most RIO_INDEP_READ_WINDOW_MAX whatever
     * ind_rd_buffer_size allows (4 MiB by default): 12-byte regions 16
     * bytes apart over more than two such windows read in windows, each
     * byte of the extent once */
    {
        long long reqs, accessed, span;
        sieved_read(1, 5 * RIO_INDEP_READ_WINDOW_MAX / 4, "bounded window read", &reqs, &accessed,
                    &span);
        long long want = (span + RIO_INDEP_READ_WINDOW_MAX - 1) / RIO_INDEP_READ_WINDOW_MAX;
        CHECK(want >= 3 && reqs >= want && reqs <= want + 1 && accessed == span,
              "bounded window read: %lld requests (want %lld or one more), %lld bytes accessed "
              "(want %lld)",
              reqs, want, accessed, span);
    }

    /* sieved reads of page-sized regions: one preadv over the small holes,
     * which are read (accessed) but land in no user byte; no window buffer,
     * so a window hint smaller than a region does not split the read */
    {
        struct run r;
        struct rio_stats stats;
        long long count;
        memset(&stats, 0, sizeof stats);
        unsigned char *mem = run_prepare(&r, RIO_INDEP_SIEVE, 4, 0, "", &count);
        unit_hint(&r.h, "ind_rd_buffer_size", "1000");
        MPI_Offset done;
        long long span = map(&fshapes[4], r.nbytes - 1) + 1;
        CHECK(do_rw(&r, 0, mem, count, &done, &stats) == 0 && done == r.nbytes, "pages read");
        CHECK(method_requests(&stats, "sieve") == 1 && stats.bytes_accessed == span,
              "pages read: %lld requests (want 1), %lld bytes accessed (want %lld)",
              method_requests(&stats, "sieve"), stats.bytes_accessed, span);
        free(mem);
    }

    /* regions of 1500 bytes: one preadv over holes of 1500, 6000 or 9000,
     * whatever the window (of 1000 bytes here); regions of 100 bytes 4900
     * apart too (sparse reads) */
    for (int fs = 5; fs <= 8; fs++) {
        struct run r;
        struct rio_stats stats;
        long long count;
        memset(&stats, 0, sizeof stats);
        unsigned char *mem = run_prepare(&r, RIO_INDEP_SIEVE, fs, 0, "", &count);
        unit_hint(&r.h, "ind_rd_buffer_size", "1000");
        MPI_Offset done;
        long long span = map(&fshapes[fs], r.nbytes - 1) + 1;
        CHECK(do_rw(&r, 0, mem, count, &done, &stats) == 0 && done == r.nbytes, "%s read",
              fshapes[fs].name);
        CHECK(method_requests(&stats, "sieve") == 1 && stats.bytes_accessed == span,
              "%s read: %lld requests (want 1), %lld bytes accessed (want %lld)", fshapes[fs].name,
              method_requests(&stats, "sieve"), stats.bytes_accessed, span);
        free(mem);
    }

    /* a sparse read of 600 regions: one preadv per 512 (two iovec
     * entries each), the hole between the calls not read */
    {
        long long reqs, accessed, span;
        sieved_read(8, 600 * 100, "sparse read of 600 regions", &reqs, &accessed, &span);
        CHECK(reqs == 2 && accessed == span - 4900,
              "sparse read of 600 regions: %lld requests (want 2), %lld bytes accessed "
              "(want %lld)",
              reqs, accessed, span - 4900);
    }

    /* write-only file: sieve cannot read its window and must still work */
    struct run r;
    memset(&r, 0, sizeof r);
    r.method = RIO_INDEP_SIEVE;
    r.fs = 2;
    r.ms = 0;
    r.nbytes = fnbytes[2];
    r.prefix = "";
    long long count, got;
    size_t alloc;
    setup_mem(&r, &count, &alloc);
    unsigned char *mem = malloc(alloc);
    for (size_t i = 0; i < alloc; i++)
        mem[i] = (unsigned char)i;
    fill_file(file_span(&r) + 100, 9);
    unsigned char *want = read_file(&got);
    for (long long b = 0; b < r.nbytes; b++)
        want[DISP + map(&fshapes[2], b)] = mem[b];
    struct rio_store st;
    memset(&st, 0, sizeof st);
    unit_hint(&r.h, "resonio_indep_method", "sieve");
    CHECK(rio__store_open(&st, path, O_WRONLY, 0, &r.h) == 0, "open write-only");
    struct rio_indep_req req = {.st = &st, .write = 1, .buf = mem, .memtype = mshapes[0].dt,
                                .memcount = count, .filetype = fshapes[2].dt, .disp = DISP,
                                .file_start = 0, .nbytes = r.nbytes};
    MPI_Offset done = -1;
    CHECK(rio__indep_rw(&req, &done) == 0 && done == r.nbytes, "sieve on write-only file");
    rio__store_close(&st);
    unsigned char *have = read_file(&got);
    CHECK(!memcmp(have, want, (size_t)got), "write-only file bytes");
    free(have);
    free(want);
    free(mem);
    printf("ok - stats per method, write-only sieving\n");
}

/* A request of tiny memory pieces larger than one staging chunk (4 MiB):
 * 8-byte blocks every 24 bytes in memory, 64 KiB file regions every
 * 96 KiB; written by each method, read back with the file cut in the
 * middle of the third chunk, every byte checked in the file and in
 * memory, and the staging copies counted. */
static void staged_chunks(void)
{
    const long long nbytes = 10LL << 20, nblk = nbytes / 8, cut = DISP + (13LL << 20) + 5;
    MPI_Datatype mt, ft;
    struct rio_dtype *mdt, *fdt;
    MPI_Type_vector((int)nblk, 1, 3, MPI_DOUBLE, &mt);
    MPI_Type_commit(&mt);
    MPI_Datatype v;
    MPI_Type_vector(1, 65536, 98304, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, 98304, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&v);
    CHECK(rio__dtype_get(mt, &mdt) == 0 && rio__dtype_get(ft, &fdt) == 0, "staged: types");
    size_t alloc = (size_t)nblk * 24;
    long long span = DISP + (nbytes / 65536) * 98304;
    unsigned char *mem = malloc(alloc), *back = malloc(alloc);
    static const enum rio_indep_method ms[] = {RIO_INDEP_AUTO, RIO_INDEP_POSIX, RIO_INDEP_LIST,
                                               RIO_INDEP_DTYPE};
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        for (size_t i = 0; i < alloc; i++)
            mem[i] = (unsigned char)(rand() & 0xff);
        fill_file(span, 3);
        long long got;
        unsigned char *want = read_file(&got);
        for (long long b = 0; b < nbytes; b++) {
            long long fo = DISP + (b / 65536) * 98304 + b % 65536;
            want[fo] = mem[(b / 8) * 24 + b % 8];
        }
        struct rio_store st;
        struct rio_stats stats;
        struct rio_hints h;
        memset(&h, 0, sizeof h);
        memset(&stats, 0, sizeof stats);
        unit_hint(&h, "resonio_indep_method", method_name(ms[k]));
        CHECK(rio__store_open(&st, path, O_RDWR, 0644, &h) == 0, "staged: open");
        st.stats = &stats;
        struct rio_indep_req req = {.st = &st, .write = 1, .buf = mem, .memtype = mdt,
                                    .memcount = 1, .filetype = fdt, .disp = DISP,
                                    .file_start = 0, .nbytes = nbytes};
        MPI_Offset done = -1;
        CHECK(rio__indep_rw(&req, &done) == 0 && done == nbytes, "staged %s write: done %lld",
              method_name(ms[k]), (long long)done);
        CHECK(stats.copies == nbytes, "staged %s write: copies %lld", method_name(ms[k]),
              stats.copies);
        unsigned char *have = read_file(&got);
        CHECK(got == span && !memcmp(have, want, (size_t)span), "staged %s: file bytes",
              method_name(ms[k]));
        free(have);
        /* read back through the same shapes with the file cut */
        CHECK(truncate(path, cut) == 0, "staged: truncate");
        long long expect = 0;
        while (expect < nbytes && DISP + (expect / 65536) * 98304 + expect % 65536 < cut)
            expect++;
        memset(back, 0xee, alloc);
        req.write = 0;
        req.buf = back;
        done = -1;
        CHECK(rio__indep_rw(&req, &done) == 0 && done == expect,
              "staged %s read: done %lld want %lld", method_name(ms[k]), (long long)done, expect);
        long long bad = 0;
        for (size_t i = 0; i < alloc; i++) {
            long long b = (long long)(i / 24) * 8 + (long long)(i % 24);
            unsigned char w = (i % 24) < 8 && b < expect ? mem[i] : 0xee;
            bad += back[i] != w;
        }
        CHECK(bad == 0, "staged %s read: %lld memory bytes wrong", method_name(ms[k]), bad);
        rio__store_close(&st);
        free(want);
    }
    free(mem);
    free(back);
    rio__dtype_put(mdt);
    rio__dtype_put(fdt);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    printf("ok - tiny memory pieces staged in chunks\n");
}

/* The chooser on reads of regions of r bytes at density d (a filetype of
 * one region per tile): it sieves when the window per region r / d is at
 * most 32 KiB and, for regions of 4 KiB and more (read by one preadv over
 * their holes), the holes are shorter than a page; else it goes per region
 * (datatype I/O), and regions of 256 KiB and more go one call each.  On
 * storage whose views are its own datatype I/O (own_views: a table with
 * RIO_STORE_CAP_OWN_VIEWS, as rados: has) the per-region and the sieved
 * cases go as one view request instead, and the others stay. */
static void chooser(int own_views)
{
    static const struct rio_store_ops views_ops = {.name = "views",
                                                   .caps = RIO_STORE_CAP_OWN_VIEWS};
    static const struct {
        int region, tile;
        enum rio_indep_method want;
    } cases[] = {
        {512, 5120, RIO_INDEP_SIEVE},        /* window 5 KiB */
        {4096, 7680, RIO_INDEP_SIEVE},       /* 7.5 KiB, holes of 3.5 KiB */
        {4096, 8192, RIO_INDEP_DTYPE},       /* 8 KiB, but holes of a page */
        {2048, 32768, RIO_INDEP_SIEVE},      /* 32 KiB, regions under 4 KiB */
        {4096, 16384, RIO_INDEP_DTYPE},      /* 16 KiB, but holes of 12 KiB */
        {16384, 32768, RIO_INDEP_DTYPE},     /* 32 KiB, but holes of 16 KiB */
        {4096, 40960, RIO_INDEP_DTYPE},      /* 40 KiB: the holes cost more */
        {32768, 57344, RIO_INDEP_DTYPE},     /* 56 KiB: the copies cost more */
        {65536, 72818, RIO_INDEP_DTYPE},     /* 71 KiB at density 0.9 */
        {262144, 294912, RIO_INDEP_POSIX},   /* large regions */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Datatype v, ft;
        struct rio_dtype *fdt = NULL, *mdt = NULL; /* set only when the gets succeed */
        MPI_Type_vector(1, cases[i].region, cases[i].tile, MPI_BYTE, &v);
        MPI_Type_create_resized(v, 0, cases[i].tile, &ft);
        MPI_Type_commit(&ft);
        MPI_Type_free(&v);
        int ok = rio__dtype_get(ft, &fdt) == 0 && rio__dtype_get(MPI_BYTE, &mdt) == 0;
        struct rio_hints h;
        memset(&h, 0, sizeof h);
        struct rio_store st;
        memset(&st, 0, sizeof st);
        st.hints = &h;
        st.ops = own_views ? &views_ops : NULL;
        long long nbytes = 16LL * cases[i].region;
        struct rio_indep_req req = {.st = &st, .write = 0, .buf = NULL, .memtype = mdt,
                                    .memcount = nbytes, .filetype = fdt, .disp = 0,
                                    .file_start = 0, .nbytes = nbytes};
        enum rio_indep_method m = ok ? rio__indep_choose(&req) : RIO_INDEP_AUTO;
        enum rio_indep_method want = cases[i].want;
        if (own_views && (want == RIO_INDEP_DTYPE || want == RIO_INDEP_SIEVE))
            want = RIO_INDEP_VIEW;
        CHECK(m == want, "chooser%s: reads of %d B regions every %d B: %s, %s expected",
              own_views ? " (storage with views of its own)" : "", cases[i].region,
              cases[i].tile, method_name(m), method_name(want));
        if (ok) {
            rio__dtype_put(fdt);
            rio__dtype_put(mdt);
        }
        MPI_Type_free(&ft);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    snprintf(path, sizeof path, "%s/indep.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    srand(7);
    make_shapes();
    sweep();
    faults();
    stats_and_wronly();
    staged_chunks();
    chooser(0);
    chooser(1);
    unlink(path);
    for (int i = 0; i < NFSHAPES; i++) {
        rio__dtype_put(fshapes[i].dt);
        MPI_Type_free(&fshapes[i].type);
    }
    for (int i = 0; i < 4; i++) {
        rio__dtype_put(mshapes[i].dt);
        MPI_Type_free(&mshapes[i].type);
    }
    printf("%d passed, %d failed\n", npass, nfail);
    MPI_Finalize();
    return nfail != 0;
}

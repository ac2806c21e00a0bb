/*
 * test_store_wrap.c — the pass-through layer under the wrapping drivers
 * and the check of driver tables.
 *
 *   - check: every driver of this build passes rio__store_ops_check; a
 *     table missing any one mandatory member, with another version, or
 *     with half a pair (lock/unlock, write_view/read_view) is refused with
 *     RIO_E_DRIVER and a detail naming the member; a wrapper over such a
 *     table is refused before anything is opened.
 *   - forward: a wrapper that overrides nothing, put over a recording fake
 *     driver, hands every operation to the fake with the same arguments
 *     (the inner file, not the wrapper's) and returns the fake's result;
 *     optional operations the inner driver lacks are absent; an override
 *     wins where the wrapper gives one.
 *   - posix: the same wrapper over the posix driver, and fault: and delay:
 *     without a spec, store exactly what the posix driver stores (checked
 *     in the file with read(2)) and answer every query as posix does;
 *     "fault:posix:", "fault:emu:" and an unknown inner prefix are parsed.
 *
 * Usage: test_store_wrap <scratch-dir>
 */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

static char dir[4096];

/* ---- a recording fake driver ------------------------------------------- */

/* What the fake saw last: which operation, on which file, with what. */
static struct {
    const char *op;
    struct rio_store *st;
    const void *p1, *p2;
    long long a, b, c;
    int opens, closes;
} seen;

static void saw(const char *op, struct rio_store *st, const void *p1, const void *p2,
                long long a, long long b, long long c)
{
    seen.op = op;
    seen.st = st;
    seen.p1 = p1;
    seen.p2 = p2;
    seen.a = a;
    seen.b = b;
    seen.c = c;
}

static int k_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                  const struct rio_hints *hints)
{
    (void)hints;
    saw("open", st, path, NULL, oflags, perm, 0);
    seen.opens++;
    st->priv = &seen;
    return 0;
}
static int k_close(struct rio_store *st)
{
    saw("close", st, NULL, NULL, 0, 0, 0);
    seen.closes++;
    return -101;
}
static int k_remove(const char *path, const struct rio_hints *hints)
{
    saw("remove", NULL, path, hints, 0, 0, 0);
    return -102;
}
static int k_get_size(struct rio_store *st, MPI_Offset *size)
{
    saw("get_size", st, size, NULL, 0, 0, 0);
    *size = 4242;
    return -103;
}
static int k_set_size(struct rio_store *st, MPI_Offset size)
{
    saw("set_size", st, NULL, NULL, size, 0, 0);
    return -104;
}
static int k_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    saw("allocate", st, NULL, NULL, off, len, 0);
    return -105;
}
static int k_sync(struct rio_store *st)
{
    saw("sync", st, NULL, NULL, 0, 0, 0);
    return -106;
}
static ssize_t k_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    saw("pread", st, buf, NULL, (long long)len, off, 0);
    return 107;
}
static ssize_t k_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    saw("pwrite", st, buf, NULL, (long long)len, off, 0);
    return 108;
}
static ssize_t k_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    saw("preadv", st, iov, NULL, n, off, 0);
    return 109;
}
static ssize_t k_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    saw("pwritev", st, iov, NULL, n, off, 0);
    return 110;
}
static int k_read_list(struct rio_store *st, const struct rio_region *file,
                       const struct iovec *mem, int n, MPI_Offset *done)
{
    saw("read_list", st, file, mem, n, 0, 0);
    *done = 77;
    return -111;
}
static int k_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    saw("write_list", st, file, mem, n, 0, 0);
    return -112;
}
static int k_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    saw("lock", st, NULL, NULL, off, len, exclusive);
    return -113;
}
static int k_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    saw("unlock", st, NULL, NULL, off, len, 0);
    return -114;
}
static int k_layout(struct rio_store *st, struct rio_layout *out)
{
    saw("layout", st, out, NULL, 0, 0, 0);
    out->unit = 12345;
    return -115;
}
static int k_is_direct(struct rio_store *st)
{
    saw("is_direct", st, NULL, NULL, 0, 0, 0);
    return 116;
}
static unsigned k_notes(struct rio_store *st)
{
    saw("notes", st, NULL, NULL, 0, 0, 0);
    return 117;
}
static int k_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    saw("prefetch", st, reg, NULL, n, 0, 0);
    return -118;
}
static int k_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                        MPI_Offset pos, const void *buf, MPI_Offset len)
{
    saw("write_view", st, ft, buf, disp, pos, len);
    return -119;
}
static int k_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    saw("read_view", st, ft, buf, disp, pos, len);
    *done = 88;
    return -120;
}

static const struct rio_store_ops fake = {
    .name = "fake", .version = RIO_STORE_OPS_VERSION, .open = k_open, .close = k_close,
    .remove = k_remove, .get_size = k_get_size, .set_size = k_set_size,
    .allocate = k_allocate, .sync = k_sync, .pread = k_pread, .pwrite = k_pwrite,
    .preadv = k_preadv, .pwritev = k_pwritev, .read_list = k_read_list,
    .write_list = k_write_list, .lock = k_lock, .unlock = k_unlock, .layout = k_layout,
    .is_direct = k_is_direct, .notes = k_notes, .prefetch = k_prefetch,
    .write_view = k_write_view, .read_view = k_read_view,
};

/* only what every driver must have */
static const struct rio_store_ops bare = {
    .name = "bare", .version = RIO_STORE_OPS_VERSION, .open = k_open, .close = k_close,
    .remove = k_remove, .get_size = k_get_size, .set_size = k_set_size, .sync = k_sync,
    .pread = k_pread, .pwrite = k_pwrite,
};

/* ---- a wrapper that changes nothing (or only pread) ---------------------- */

static const struct rio_store_ops pass;
static const struct rio_store_ops *pass_inner; /* NULL: named by the path */

static int pass_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                     const struct rio_hints *hints)
{
    struct rio_store_wrap *w = rio__calloc(1, sizeof *w);
    if (!w)
        return RIO_E_NOMEM;
    int rc = rio__store_wrap_open(st, w, &pass, pass_inner, path, oflags, perm, hints);
    if (rc)
        free(w);
    return rc;
}

static const struct rio_store_ops pass = {
    .name = "pass", .version = RIO_STORE_OPS_VERSION, .wraps = 1, .open = pass_open,
};

static ssize_t over_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    (void)st, (void)buf, (void)len, (void)off;
    return 999;
}

static const struct rio_store_ops pass_over;

static int pass_over_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                          const struct rio_hints *hints)
{
    struct rio_store_wrap *w = rio__calloc(1, sizeof *w);
    if (!w)
        return RIO_E_NOMEM;
    int rc = rio__store_wrap_open(st, w, &pass_over, pass_inner, path, oflags, perm, hints);
    if (rc)
        free(w);
    return rc;
}

static const struct rio_store_ops pass_over = {
    .name = "pass_over", .version = RIO_STORE_OPS_VERSION, .wraps = 1,
    .open = pass_over_open, .pread = over_pread,
};

/* Open st through the wrapper wops over inner (NULL: by path's prefix). */
static int wopen(struct rio_store *st, const struct rio_store_ops *wops,
                 const struct rio_store_ops *inner, const char *path, struct rio_hints *h)
{
    memset(st, 0, sizeof *st);
    st->hints = h;
    pass_inner = inner;
    int rc = wops->open(st, path, O_RDWR | O_CREAT, 0644, h);
    if (!rc && !st->ops)
        st->ops = wops;
    return rc;
}

/* ---- check ---------------------------------------------------------------- */

static int detail_has(const char *word)
{
    const char *d = rio__err_detail_peek();
    return d && strstr(d, word);
}

static void test_check(void)
{
    const struct rio_store_ops *mine[] = {&rio__store_posix, &rio__store_fault,
                                          &rio__store_delay, &rio__store_emu, &fake, &bare,
                                          &pass};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        CHECK(rio__store_ops_check(mine[i]) == 0, "driver %s refused: %s", mine[i]->name,
              rio__err_detail_peek());

    /* each mandatory member missing in turn */
    static const char *const names[] = {"open",   "close", "remove", "get_size",
                                         "set_size", "sync", "pread", "pwrite"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct rio_store_ops o = rio__store_posix;
        switch (i) {
        case 0: o.open = NULL; break;
        case 1: o.close = NULL; break;
        case 2: o.remove = NULL; break;
        case 3: o.get_size = NULL; break;
        case 4: o.set_size = NULL; break;
        case 5: o.sync = NULL; break;
        case 6: o.pread = NULL; break;
        default: o.pwrite = NULL; break;
        }
        int rc = rio__store_ops_check(&o);
        CHECK(rc == RIO_E_DRIVER && detail_has(names[i]) && detail_has("posix"),
              "posix without %s: %d (%s)", names[i], rc, rio__err_detail_peek());
        /* a wrapper may leave all but open to forwarding */
        o.wraps = 1;
        rc = rio__store_ops_check(&o);
        CHECK(i == 0 ? rc == RIO_E_DRIVER : rc == 0, "wrapper without %s: %d", names[i], rc);

        /* and a wrapper over such a driver opens nothing */
        o.wraps = 0;
        struct rio_store st;
        struct rio_hints h;
        memset(&h, 0, sizeof h);
        int before = seen.opens;
        struct rio_store_ops k = fake;
        switch (i) {
        case 0: k.open = NULL; break;
        case 1: k.close = NULL; break;
        case 2: k.remove = NULL; break;
        case 3: k.get_size = NULL; break;
        case 4: k.set_size = NULL; break;
        case 5: k.sync = NULL; break;
        case 6: k.pread = NULL; break;
        default: k.pwrite = NULL; break;
        }
        rc = wopen(&st, &pass, &k, "x", &h);
        CHECK(rc == RIO_E_DRIVER && seen.opens == before && detail_has(names[i]),
              "wrapper over fake without %s: %d, %d opens (%s)", names[i], rc,
              seen.opens - before, rio__err_detail_peek());
    }

    struct rio_store_ops o = rio__store_posix;
    o.version = RIO_STORE_OPS_VERSION + 1;
    CHECK(rio__store_ops_check(&o) == RIO_E_DRIVER && detail_has("version"),
          "a table of another version passes: %s", rio__err_detail_peek());
    o = rio__store_posix;
    o.unlock = NULL;
    CHECK(rio__store_ops_check(&o) == RIO_E_DRIVER && detail_has("unlock"),
          "lock without unlock passes: %s", rio__err_detail_peek());
    o = fake;
    o.read_view = NULL;
    CHECK(rio__store_ops_check(&o) == RIO_E_DRIVER && detail_has("read_view"),
          "write_view without read_view passes: %s", rio__err_detail_peek());
    o = rio__store_posix;
    o.name = NULL;
    CHECK(rio__store_ops_check(&o) == RIO_E_DRIVER, "an unnamed table passes");
}

/* ---- forward -------------------------------------------------------------- */

static void test_forward(void)
{
    struct rio_store st;
    struct rio_hints h;
    memset(&h, 0, sizeof h);
    int rc = wopen(&st, &pass, &fake, "some/path", &h);
    CHECK(rc == 0, "open pass over fake: %d (%s)", rc, rio__err_detail_peek());
    if (rc)
        return;
    struct rio_store *in = rio__store_wrap_inner(&st);
    CHECK(in != &st && seen.st == in && !strcmp(seen.p1, "some/path") &&
              seen.a == (O_RDWR | O_CREAT) && seen.b == 0644,
          "inner open got %s", (const char *)seen.p1);
    CHECK(in->ops == &fake && in->hints == &h, "inner file's table and hints");
    CHECK(st.ops != &pass && !strcmp(st.ops->name, "pass") && st.ops->wraps &&
              st.ops->version == RIO_STORE_OPS_VERSION,
          "the file's own table");
    CHECK(rio__store_ops_check(st.ops) == 0, "the file's table passes the check");

    char buf[16];
    MPI_Offset sz = 0, done = 0;
    struct iovec iov[3];
    struct rio_region reg[3];
    struct rio_layout lo = {0, 0, 0, 0};
    const struct rio_dtype *ft = (const struct rio_dtype *)&reg[1]; /* never dereferenced */
#define SAW(name, P1, P2, A, B, C)                                                   \
    CHECK(!strcmp(seen.op, name) && seen.st == in && seen.p1 == (const void *)(P1) && \
              seen.p2 == (const void *)(P2) && seen.a == (A) && seen.b == (B) &&    \
              seen.c == (C),                                                        \
          "%s reached the fake as %s(%lld, %lld, %lld)", name, seen.op, seen.a, seen.b, seen.c)

    CHECK(st.ops->get_size(&st, &sz) == -103 && sz == 4242, "get_size result");
    SAW("get_size", &sz, NULL, 0, 0, 0);
    CHECK(st.ops->set_size(&st, 5555) == -104, "set_size result");
    SAW("set_size", NULL, NULL, 5555, 0, 0);
    CHECK(st.ops->allocate && st.ops->allocate(&st, 7, 8) == -105, "allocate result");
    SAW("allocate", NULL, NULL, 7, 8, 0);
    CHECK(st.ops->sync(&st) == -106, "sync result");
    SAW("sync", NULL, NULL, 0, 0, 0);
    CHECK(st.ops->pread(&st, buf, 5, 33) == 107, "pread result");
    SAW("pread", buf, NULL, 5, 33, 0);
    CHECK(st.ops->pwrite(&st, buf, 6, 44) == 108, "pwrite result");
    SAW("pwrite", buf, NULL, 6, 44, 0);
    CHECK(st.ops->preadv && st.ops->preadv(&st, iov, 3, 55) == 109, "preadv result");
    SAW("preadv", iov, NULL, 3, 55, 0);
    CHECK(st.ops->pwritev && st.ops->pwritev(&st, iov, 2, 66) == 110, "pwritev result");
    SAW("pwritev", iov, NULL, 2, 66, 0);
    CHECK(st.ops->read_list && st.ops->read_list(&st, reg, iov, 3, &done) == -111 &&
              done == 77,
          "read_list result");
    SAW("read_list", reg, iov, 3, 0, 0);
    CHECK(st.ops->write_list && st.ops->write_list(&st, reg, iov, 2) == -112,
          "write_list result");
    SAW("write_list", reg, iov, 2, 0, 0);
    CHECK(st.ops->lock && st.ops->lock(&st, 9, 10, 1) == -113, "lock result");
    SAW("lock", NULL, NULL, 9, 10, 1);
    CHECK(st.ops->unlock && st.ops->unlock(&st, 11, 12) == -114, "unlock result");
    SAW("unlock", NULL, NULL, 11, 12, 0);
    CHECK(st.ops->layout && st.ops->layout(&st, &lo) == -115 && lo.unit == 12345,
          "layout result");
    SAW("layout", &lo, NULL, 0, 0, 0);
    CHECK(st.ops->is_direct && st.ops->is_direct(&st) == 116, "is_direct result");
    SAW("is_direct", NULL, NULL, 0, 0, 0);
    CHECK(st.ops->notes && st.ops->notes(&st) == 117, "notes result");
    SAW("notes", NULL, NULL, 0, 0, 0);
    CHECK(st.ops->prefetch && st.ops->prefetch(&st, reg, 2) == -118, "prefetch result");
    SAW("prefetch", reg, NULL, 2, 0, 0);
    CHECK(st.ops->write_view && st.ops->write_view(&st, ft, 13, 14, buf, 15) == -119,
          "write_view result");
    SAW("write_view", ft, buf, 13, 14, 15);
    done = 0;
    CHECK(st.ops->read_view && st.ops->read_view(&st, ft, 16, 17, buf, 18, &done) == -120 &&
              done == 88,
          "read_view result");
    SAW("read_view", ft, buf, 16, 17, 18);
    int closes = seen.closes;
    CHECK(rio__store_close(&st) == -101 && seen.closes == closes + 1 && !st.ops && !st.priv,
          "close reaches the fake once and clears the file");
    SAW("close", NULL, NULL, 0, 0, 0);
#undef SAW

    /* remove: through the driver the rest of the name gives */
    char path[4200];
    snprintf(path, sizeof path, "%s/wrap_rm.%d", dir, (int)getpid());
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    close(fd);
    char name[4300];
    snprintf(name, sizeof name, "fault:posix:%s", path);
    CHECK(rio__store_remove(name, &h) == 0 && access(path, F_OK) != 0, "remove %s", name);
    CHECK(rio__store_remove(name, &h) == -ENOENT, "remove of a missing file: -ENOENT");
    /* a wrapper over a wrapper: neither has a remove of its own */
    fd = open(path, O_CREAT | O_WRONLY, 0644);
    close(fd);
    snprintf(name, sizeof name, "fault:delay:%s", path);
    CHECK(rio__store_remove(name, &h) == 0 && access(path, F_OK) != 0, "remove %s", name);

    /* over a driver with only the mandatory members: the optional ones are
     * absent, so the layer above falls back as it would for that driver */
    rc = wopen(&st, &pass, &bare, "p", &h);
    CHECK(rc == 0, "open pass over bare: %d", rc);
    if (!rc) {
        const struct rio_store_ops *t = st.ops;
        CHECK(t->close && t->remove && t->get_size && t->set_size && t->sync && t->pread &&
                  t->pwrite,
              "mandatory members present");
        CHECK(!t->allocate && !t->preadv && !t->pwritev && !t->read_list && !t->write_list &&
                  !t->lock && !t->unlock && !t->layout && !t->is_direct && !t->notes &&
                  !t->prefetch && !t->write_view && !t->read_view,
              "optional members of a bare inner driver are absent");
        rio__store_close(&st);
    }
    /* a wrapper that gives pread gets its own; pwrite still forwards */
    rc = wopen(&st, &pass_over, &fake, "p", &h);
    CHECK(rc == 0 && st.ops->pread(&st, buf, 1, 0) == 999 && st.ops->pwrite(&st, buf, 1, 0) == 108,
          "an override wins, the rest forwards");
    if (!rc)
        rio__store_close(&st);
}

/* ---- posix ------------------------------------------------------------------ */

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 29u + seed * 11u + (i >> 7)) & 0xff);
}

static int file_is(const char *path, const unsigned char *want, size_t len)
{
    unsigned char *got = malloc(len + 1);
    int fd = open(path, O_RDONLY);
    ssize_t r = fd >= 0 ? read(fd, got, len + 1) : -1;
    int ok = r == (ssize_t)len && !memcmp(got, want, len);
    if (fd >= 0)
        close(fd);
    free(got);
    return ok;
}

enum { N = 70000 };
static unsigned char w[N], r[N], expect[N];

/* The same writes and reads through st (opened on path): the file must
 * hold expect afterwards, and the reads must return it. */
static void exercise(struct rio_store *st, const char *path, const char *what)
{
    MPI_Offset done = 0, size = -1;
    memset(expect, 0, sizeof expect);
    fill(w, N, 3);
    CHECK(rio__store_pwrite_full(st, w, 40000, 0) == 0, "%s: pwrite_full", what);
    memcpy(expect, w, 40000);
    struct iovec iv[3] = {{w + 1, 100}, {w + 500, 7000}, {w + 9000, 3}};
    CHECK(rio__store_pwritev_full(st, iv, 3, 45000) == 0, "%s: pwritev_full", what);
    memcpy(expect + 45000, w + 1, 100);
    memcpy(expect + 45100, w + 500, 7000);
    memcpy(expect + 52100, w + 9000, 3);
    struct rio_region fr[2] = {{65000, 5000}, {1000, 3000}};
    struct iovec lm[2] = {{w + 20000, 5000}, {w + 30000, 3000}};
    CHECK(rio__store_write_list(st, fr, lm, 2) == 0, "%s: write_list", what);
    memcpy(expect + 65000, w + 20000, 5000);
    memcpy(expect + 1000, w + 30000, 3000);
    CHECK(st->ops->get_size(st, &size) == 0 && size == N, "%s: size %lld", what,
          (long long)size);
    CHECK(file_is(path, expect, N), "%s: the file holds every byte written", what);

    memset(r, 0xee, sizeof r);
    CHECK(rio__store_pread_full(st, r, N + 100, 0, &done) == 0 && done == N &&
              !memcmp(r, expect, N),
          "%s: pread_full to end of file (%lld)", what, (long long)done);
    memset(r, 0xee, sizeof r);
    struct iovec rv[2] = {{r, 100}, {r + 100, 7000}};
    CHECK(rio__store_preadv_full(st, rv, 2, 45000, &done) == 0 && done == 7100 &&
              !memcmp(r, expect + 45000, 7100),
          "%s: preadv_full", what);
    memset(r, 0xee, sizeof r);
    struct iovec lr[2] = {{r, 5000}, {r + 5000, 3000}};
    CHECK(rio__store_read_list(st, fr, lr, 2, &done) == 0 && done == 8000 &&
              !memcmp(r, expect + 65000, 5000) && !memcmp(r + 5000, expect + 1000, 3000),
          "%s: read_list", what);
    CHECK(st->ops->sync(st) == 0, "%s: sync", what);
    CHECK(st->ops->set_size(st, 60000) == 0 && st->ops->get_size(st, &size) == 0 &&
              size == 60000 && file_is(path, expect, 60000),
          "%s: set_size shrinks", what);
    CHECK(!st->ops->allocate || (st->ops->allocate(st, 0, 61000) == 0 &&
                                 st->ops->get_size(st, &size) == 0 && size == 61000),
          "%s: allocate", what);
    CHECK(!st->ops->lock || (st->ops->lock(st, 0, 10, 1) == 0 && st->ops->unlock(st, 0, 10) == 0),
          "%s: lock and unlock", what);
    struct rio_region pf = {0, 4096};
    CHECK(!st->ops->prefetch || st->ops->prefetch(st, &pf, 1) == 0, "%s: prefetch", what);
    CHECK(rio__store_notes(st) == 0, "%s: no notes on a plain file", what);
    CHECK(!st->ops->is_direct || st->ops->is_direct(st) == 0, "%s: not O_DIRECT", what);
}

static void test_posix(void)
{
    char path[4200], name[4300];
    struct rio_hints h;
    struct rio_store st;
    memset(&h, 0, sizeof h);
    snprintf(path, sizeof path, "%s/wrap_posix.%d", dir, (int)getpid());

    /* the reference: posix itself */
    unlink(path);
    memset(&st, 0, sizeof st);
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT, 0644, &h) == 0, "posix open");
    const struct rio_store_ops *p = st.ops;
    exercise(&st, path, "posix");
    rio__store_close(&st);

    /* the pass-through over posix, named by the prefix */
    unlink(path);
    snprintf(name, sizeof name, "posix:%s", path);
    int rc = wopen(&st, &pass, NULL, name, &h);
    CHECK(rc == 0, "pass over posix: %d (%s)", rc, rio__err_detail_peek());
    if (!rc) {
        const struct rio_store_ops *t = st.ops;
        CHECK(rio__store_wrap_inner(&st)->ops == &rio__store_posix, "inner is posix");
        /* the same members present as posix's */
        CHECK(!t->allocate == !p->allocate && !t->preadv == !p->preadv &&
                  !t->pwritev == !p->pwritev && !t->read_list == !p->read_list &&
                  !t->write_list == !p->write_list && !t->lock == !p->lock &&
                  !t->layout == !p->layout && !t->is_direct == !p->is_direct &&
                  !t->notes == !p->notes && !t->prefetch == !p->prefetch &&
                  !t->write_view == !p->write_view,
              "pass over posix offers what posix offers");
        exercise(&st, path, "pass:posix:");
        CHECK(rio__store_close(&st) == 0, "close");
    }

    /* fault: and delay: without a spec are plain pass-throughs */
    const char *const prefixes[] = {"fault:", "fault:posix:", "delay:", "delay:posix:",
                                    "fault:delay:"};
    unsetenv("RESONIO_FAULT");
    unsetenv("RESONIO_DELAY");
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        unlink(path);
        snprintf(name, sizeof name, "%s%s", prefixes[i], path);
        memset(&st, 0, sizeof st);
        rc = rio__store_open(&st, name, O_RDWR | O_CREAT, 0644, &h);
        CHECK(rc == 0, "open %s: %d (%s)", prefixes[i], rc, rio__err_detail_peek());
        if (rc)
            continue;
        exercise(&st, path, prefixes[i]);
        CHECK(rio__store_close(&st) == 0, "%s close", prefixes[i]);
    }
    unlink(path);

    /* deferred open over a wrapper: nothing opened by a layout query, the
     * first transfer opens through the wrapper's own table */
    {
        struct rio_layout lo;
        MPI_Offset done = 0;
        unsigned char b[100];
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        close(fd);
        snprintf(name, sizeof name, "fault:posix:%s", path);
        memset(&st, 0, sizeof st);
        rc = rio__store_open_deferred(&st, name, O_RDWR, 0644, &h);
        CHECK(rc == 0 && !rio__store_deferred_opened(&st), "deferred fault: %d", rc);
        if (!rc) {
            rio__store_layout(&st, &lo);
            CHECK(!lo.known && !rio__store_deferred_opened(&st) && !st.ops->write_view,
                  "deferred fault: a layout query opens nothing; no datatype calls over posix");
            fill(w, 100, 5);
            CHECK(rio__store_pwrite_full(&st, w, 100, 10) == 0 && rio__store_deferred_opened(&st),
                  "deferred fault: the first write opens");
            CHECK(rio__store_pread_full(&st, b, 200, 10, &done) == 0 && done == 100 &&
                      !memcmp(b, w, 100),
                  "deferred fault: read back");
            CHECK(rio__store_close(&st) == 0, "deferred fault: close");
            memset(expect, 0, 10);
            memcpy(expect + 10, w, 100);
            CHECK(file_is(path, expect, 110), "deferred fault: the file holds the write");
        }
        unlink(path);
    }

    /* an inner driver this build lacks is refused by name */
    snprintf(name, sizeof name, "fault:pvfs2:%s", path);
    memset(&st, 0, sizeof st);
    rc = rio__store_open(&st, name, O_RDWR | O_CREAT, 0644, &h);
    CHECK(rc == RIO_E_DRIVER && detail_has("pvfs2") && !st.ops && access(path, F_OK) != 0,
          "fault:pvfs2: %d (%s)", rc, rio__err_detail_peek());
    /* an unknown prefix is part of a posix path, as without a wrapper */
    snprintf(name, sizeof name, "delay:%s/odd:wrap.%d", dir, (int)getpid());
    memset(&st, 0, sizeof st);
    rc = rio__store_open(&st, name, O_RDWR | O_CREAT, 0644, &h);
    CHECK(rc == 0, "delay:<dir>/odd:x: %d", rc);
    if (!rc)
        rio__store_close(&st);
    snprintf(path, sizeof path, "%s/odd:wrap.%d", dir, (int)getpid());
    CHECK(unlink(path) == 0, "delay: over a name with a colon made %s", path);
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "/tmp");
    test_check();
    test_forward();
    test_posix();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

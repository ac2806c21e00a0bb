/*
 * test_emu_ops.c — every operation of the emulated storage, round trip.
 *
 *  1. the wire format alone: headers, every request kind, layouts and
 *     counters encoded and decoded back;
 *  2. shipped dataloops: for MPI types of every shape, the regions the
 *     server's walk (dlwire.c) yields equal the dtype iterator's, from
 *     any stream position;
 *  3. the client against a 4-target service: create/lookup/remove,
 *     contiguous, list and datatype transfers (checked against the object
 *     files on disk), sizes, holes and end of file, sync, locks (a second
 *     client waits), counters;
 *  4. the emu: driver through the store layer: every op, the view
 *     wrappers (also their list fallback on posix), a service that is not
 *     running (an error naming the directory, at once; through
 *     MPI_File_open, an MPI error naming the file).
 *
 * Usage: test_emu_ops <resonio-emud>
 */
#include "dtype/dtype.h"
#include "emu/client.h"
#include "emu/dlwire.h"
#include "file/file_int.h" /* the hints */
#include "store/store.h"
#include "resonio.h"

#include <pthread.h>
#include <time.h>

#include "emu_test.h"
#include "../unit/unit.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u + seed * 17u + (i >> 10)) & 0xff);
}

/* ---- 1. wire format ------------------------------------------------------------ */

static void test_proto(void)
{
    unsigned char b[RIO_EMU_HDR_SIZE];
    struct rio_emu_hdr h = {RIO_EMU_VERSION, RIO_EMU_OP_WRITE_DT, RIO_EMU_F_REPLY, -22, 1234567,
                            99}, g;
    rio__emu_hdr_encode(b, &h);
    CHECK(!rio__emu_hdr_decode(b, &g) && g.op == h.op && g.flags == h.flags &&
              g.status == -22 && g.id == h.id && g.length == 99,
          "header round trip");
    CHECK(b[0] == 'R' && b[1] == 'I' && b[2] == 'O' && b[3] == 'E', "magic is little-endian RIOE");

    /* every request kind, built and decoded */
    for (unsigned op = 1; op < RIO_EMU_OP__COUNT; op++) {
        struct rio_emu_buf m = {0};
        struct rio_emu_req r;
        unsigned char data[40];
        fill(data, sizeof data, op);
        rio__emu_msg_begin(&m);
        switch (op) {
        case RIO_EMU_OP_HELLO: rio__emu_put_u64(&m, 42); break;
        case RIO_EMU_OP_CREATE:
            rio__emu_put_u64(&m, 4096);
            rio__emu_put_u32(&m, 3);
            rio__emu_put_bytes(&m, "name", 4);
            break;
        case RIO_EMU_OP_LOOKUP:
        case RIO_EMU_OP_REMOVE: rio__emu_put_bytes(&m, "name", 4); break;
        case RIO_EMU_OP_OBJ_REMOVE:
        case RIO_EMU_OP_GET_SIZE:
        case RIO_EMU_OP_SYNC: rio__emu_put_u64(&m, 7); break;
        case RIO_EMU_OP_SET_SIZE:
            rio__emu_put_u64(&m, 7);
            rio__emu_put_u64(&m, 5000);
            break;
        case RIO_EMU_OP_READ:
        case RIO_EMU_OP_WRITE:
            rio__emu_put_u64(&m, 7);
            rio__emu_put_u64(&m, 100);
            rio__emu_put_u64(&m, 40);
            if (op == RIO_EMU_OP_WRITE)
                rio__emu_put_bytes(&m, data, 40);
            break;
        case RIO_EMU_OP_READ_LIST:
        case RIO_EMU_OP_WRITE_LIST:
        case RIO_EMU_OP_PREFETCH:
            rio__emu_put_u64(&m, 7);
            rio__emu_put_u32(&m, 2);
            rio__emu_put_u64(&m, 300);
            rio__emu_put_u64(&m, 30);
            rio__emu_put_u64(&m, 0);
            rio__emu_put_u64(&m, 10);
            if (op == RIO_EMU_OP_WRITE_LIST)
                rio__emu_put_bytes(&m, data, 40);
            break;
        case RIO_EMU_OP_READ_DT:
        case RIO_EMU_OP_WRITE_DT:
            rio__emu_put_u64(&m, 7);
            rio__emu_put_u64(&m, 4096);
            rio__emu_put_u32(&m, 4);
            rio__emu_put_u32(&m, 2);
            rio__emu_put_u64(&m, 64);
            rio__emu_put_u64(&m, 8);
            rio__emu_put_u64(&m, 40);
            rio__emu_put_u32(&m, 3);
            rio__emu_put_bytes(&m, "abc", 3);
            if (op == RIO_EMU_OP_WRITE_DT)
                rio__emu_put_bytes(&m, data, 40);
            break;
        case RIO_EMU_OP_LOCK:
        case RIO_EMU_OP_UNLOCK:
            rio__emu_put_u64(&m, 7);
            rio__emu_put_u64(&m, 10);
            rio__emu_put_u64(&m, 0);
            if (op == RIO_EMU_OP_LOCK)
                rio__emu_put_u32(&m, 1);
            break;
        default: break;
        }
        rio__emu_msg_end(&m, op, 0, 0, op);
        int rc = rio__emu_hdr_decode(m.p, &g);
        if (!rc)
            rc = rio__emu_req_decode(&g, m.p + RIO_EMU_HDR_SIZE, m.n - RIO_EMU_HDR_SIZE, &r);
        CHECK(rc == 0, "%s: decode failed (%d)", rio__emu_op_name(op), rc);
        if (!rc) {
            int ok = r.h.op == op && r.h.id == op;
            if (op == RIO_EMU_OP_CREATE)
                ok = ok && r.unit == 4096 && r.count == 3 && r.namelen == 4 &&
                     !memcmp(r.name, "name", 4);
            if (op == RIO_EMU_OP_WRITE)
                ok = ok && r.fid == 7 && r.off == 100 && r.len == 40 && r.datalen == 40 &&
                     !memcmp(r.data, data, 40);
            if (op == RIO_EMU_OP_WRITE_LIST || op == RIO_EMU_OP_PREFETCH) {
                int64_t o, l;
                rio__emu_pair(&r, 1, &o, &l);
                ok = ok && r.n == 2 && r.list_total == 40 && o == 0 && l == 10 &&
                     (op == RIO_EMU_OP_PREFETCH ? r.datalen == 0
                                                : !memcmp(r.data, data, 40));
            }
            if (op == RIO_EMU_OP_WRITE_DT)
                ok = ok && r.unit == 4096 && r.count == 4 && r.index == 2 && r.disp == 64 &&
                     r.pos == 8 && r.len == 40 && r.dllen == 3 && r.datalen == 40;
            if (op == RIO_EMU_OP_LOCK)
                ok = ok && r.off == 10 && r.len == 0 && r.exclusive == 1;
            CHECK(ok, "%s: fields differ after decoding", rio__emu_op_name(op));
        }
        /* one byte less is refused, except where the last field is "the
         * rest of the payload" (names, datatype write data) */
        rc = rio__emu_hdr_decode(m.p, &g);
        if (m.n > RIO_EMU_HDR_SIZE && op != RIO_EMU_OP_CREATE && op != RIO_EMU_OP_LOOKUP &&
            op != RIO_EMU_OP_REMOVE && op != RIO_EMU_OP_WRITE_DT) {
            g.length--;
            CHECK(rio__emu_req_decode(&g, m.p + RIO_EMU_HDR_SIZE, m.n - RIO_EMU_HDR_SIZE - 1,
                                      &r) != 0,
                  "%s: a truncated payload decodes", rio__emu_op_name(op));
        }
        rio__emu_buf_free(&m);
    }

    struct rio_emu_buf m = {0};
    struct rio_emu_layout l = {9, 65536, 4, 3}, l2;
    struct rio_emu_stats s = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, s2;
    rio__emu_put_layout(&m, &l);
    CHECK(!rio__emu_get_layout(m.p, m.n, &l2) && !memcmp(&l, &l2, sizeof l), "layout round trip");
    rio__emu_buf_free(&m);
    rio__emu_put_stats(&m, &s);
    CHECK(!rio__emu_get_stats(m.p, m.n, &s2) && !memcmp(&s, &s2, sizeof s), "stats round trip");
    rio__emu_buf_free(&m);
}

/* ---- 2. shipped dataloops walk like the iterator --------------------------------- */

struct rl {
    int64_t off[4096], len[4096];
    int n;
};

static int collect(void *arg, int64_t off, int64_t len)
{
    struct rl *r = arg;
    if (r->n > 0 && r->off[r->n - 1] + r->len[r->n - 1] == off) {
        r->len[r->n - 1] += len;
        return 0;
    }
    if (r->n == 4096)
        return -E2BIG;
    r->off[r->n] = off;
    r->len[r->n++] = len;
    return 0;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, extent, &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

static int ntypes;
static MPI_Datatype types[8];
static const char *tnames[8];

static void make_types(void)
{
    MPI_Datatype t, u;
    int bl[3] = {2, 5, 1}, dp[3] = {0, 7, 20};
    MPI_Type_vector(5, 3, 7, MPI_INT, &t);
    types[ntypes] = resized(t, 160), tnames[ntypes++] = "vector";
    MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &t);
    types[ntypes] = resized(t, 8 * 24), tnames[ntypes++] = "indexed";
    {
        int sbl[2] = {3, 2};
        MPI_Aint sdp[2] = {0, 40};
        MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, sbl, sdp, st, &t);
        types[ntypes] = resized(t, 64), tnames[ntypes++] = "struct";
    }
    {
        int sz[3] = {6, 5, 7}, sub[3] = {2, 3, 4}, st[3] = {1, 2, 3};
        MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
        MPI_Type_commit(&t);
        types[ntypes] = t, tnames[ntypes++] = "subarray";
    }
    MPI_Type_vector(3, 2, 5, MPI_CHAR, &u);
    MPI_Type_create_hvector(4, 1, 37, u, &t);
    MPI_Type_free(&u);
    types[ntypes] = resized(t, 200), tnames[ntypes++] = "hvector(vector)";
    {
        int ibl[4] = {1, 3, 2, 7}, idp[4] = {0, 10, 30, 50};
        MPI_Type_indexed(4, ibl, idp, MPI_BYTE, &u);
        MPI_Type_contiguous(3, u, &t);
        MPI_Type_free(&u);
        types[ntypes] = resized(t, 300), tnames[ntypes++] = "contig(indexed)";
    }
}

static void test_dlwire(void)
{
    static struct rl a, b;
    for (int k = 0; k < ntypes; k++) {
        struct rio_dtype *dt = NULL;
        struct rio_emu_dltype *w = NULL;
        unsigned char *blob = NULL;
        size_t n = 0;
        int rc = rio__dtype_get(types[k], &dt);
        if (!rc)
            rc = rio__emu_dl_encode(rio__dtype_dloop(dt), rio__dtype_info(dt)->extent, &blob, &n);
        if (!rc)
            rc = rio__emu_dl_decode(blob, n, &w);
        CHECK(rc == 0, "%s: ship/decode failed (%d)", tnames[k], rc);
        if (rc) {
            rio__dtype_put(dt);
            free(blob);
            continue;
        }
        int64_t size = rio__dtype_info(dt)->size;
        CHECK(w->root->size == size, "%s: decoded size %lld, type size %lld", tnames[k],
              (long long)w->root->size, (long long)size);
        int64_t cases[][2] = {{0, size}, {1, size * 3 - 2}, {size - 1, 2}, {5 * size + 3, size},
                              {17, 3 * size + 5}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int64_t pos = cases[c][0], len = cases[c][1], disp = 1000;
            a.n = b.n = 0;
            rc = rio__emu_dl_walk(w, disp, pos, len, collect, &a);
            struct rio_dtype_iter it;
            MPI_Offset off, l, left = len;
            rio__dtype_iter_init(&it, dt, -1, pos);
            while (left > 0 && rio__dtype_iter_next(&it, left, &off, &l)) {
                collect(&b, disp + off, l);
                left -= l;
            }
            rio__dtype_iter_free(&it);
            int same = rc == 0 && a.n == b.n;
            for (int i = 0; same && i < a.n; i++)
                same = a.off[i] == b.off[i] && a.len[i] == b.len[i];
            CHECK(same, "%s: server walk from %lld for %lld differs from the iterator (%d vs %d "
                        "regions, rc %d)",
                  tnames[k], (long long)pos, (long long)len, a.n, b.n, rc);
        }
        rio__emu_dl_free(w);
        free(blob);
        rio__dtype_put(dt);
    }
}

/* ---- 3. the client --------------------------------------------------------------- */

struct regs {
    const int64_t *r; /* off, len pairs */
    int n, i;
};

static int next_reg(void *arg, int64_t *off, int64_t *len)
{
    struct regs *g = arg;
    if (g->i >= g->n)
        return 0;
    *off = g->r[2 * g->i];
    *len = g->r[2 * g->i + 1];
    g->i++;
    return 1;
}

static int rw(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int wr,
              const int64_t *r, int n, void *buf, int64_t *done)
{
    struct regs g = {r, n, 0};
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += r[2 * i + 1];
    struct iovec v = {buf, (size_t)total};
    return rio__emu_rw(cl, lay, wr, next_reg, &g, NULL, &v, 1, done);
}

struct locker {
    struct rio_emu_layout lay;
    volatile int got;
    int rc;
};

static void *lock_thread(void *arg)
{
    struct locker *L = arg;
    struct rio_emu_client *cl = NULL;
    L->rc = rio__emu_connect(emu_dir, &cl);
    if (!L->rc)
        L->rc = rio__emu_lock(cl, &L->lay, 500, 100, 1);
    L->got = 1;
    if (!L->rc)
        L->rc = rio__emu_unlock(cl, &L->lay, 500, 100);
    rio__emu_disconnect(cl);
    return NULL;
}

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_client(void)
{
    struct rio_emu_client *cl = NULL;
    struct rio_emu_layout lay, l2;
    enum { N = 300000 };
    static unsigned char w[N], r[N], *disk;
    long long dn;
    int64_t done, size;
    int rc = rio__emu_connect(emu_dir, &cl);
    CHECK(rc == 0 && rio__emu_ntargets(cl) == 4, "connect: %s", strerror(-rc));
    if (rc)
        return;

    /* metadata */
    rc = rio__emu_create(cl, "a/file", 5000, 3, 1, &lay);
    CHECK(rc == 0 && lay.unit == 5000 && lay.count == 3 && lay.first < 4, "create: %d", rc);
    CHECK(rio__emu_create(cl, "a/file", 5000, 3, 1, &l2) == -EEXIST, "create excl of an existing file");
    CHECK(rio__emu_create(cl, "a/file", 99, 1, 0, &l2) == 0 && l2.fid == lay.fid && l2.unit == 5000,
          "create of an existing file returns its layout");
    CHECK(rio__emu_lookup(cl, "a/file", &l2) == 0 && l2.fid == lay.fid && l2.count == 3,
          "lookup");
    CHECK(rio__emu_lookup(cl, "nothing", &l2) == -ENOENT, "lookup of a missing file");
    CHECK(rio__emu_create(cl, "wide", 0, 99, 0, &l2) == 0 && l2.count == 4 &&
              l2.unit == (1 << 20),
          "create with count past the targets clamps, unit 0 is the default (%u, %lld)", l2.count,
          (long long)l2.unit);

    /* contiguous across stripes, read back, on disk */
    fill(w, N, 1);
    rc = rw(cl, &lay, 1, (int64_t[]){0, N}, 1, w, NULL);
    CHECK(rc == 0, "contiguous write: %d", rc);
    rc = rw(cl, &lay, 0, (int64_t[]){0, N}, 1, r, &done);
    CHECK(rc == 0 && done == N && !memcmp(w, r, N), "contiguous read back (%lld)", (long long)done);
    disk = emu_slurp(emu_dir, "a/file", &dn);
    CHECK(disk && dn == N && !memcmp(disk, w, N), "the objects hold the file (%lld bytes)", dn);
    free(disk);
    CHECK(rio__emu_get_size(cl, &lay, &size) == 0 && size == N, "size %lld", (long long)size);

    /* lists, unordered and overlapping stripe boundaries */
    int64_t lst[] = {250000, 7000, 3, 4999, 120000, 10, 40000, 30000};
    unsigned char lw[7000 + 4999 + 10 + 30000], lr[sizeof lw];
    fill(lw, sizeof lw, 2);
    rc = rw(cl, &lay, 1, lst, 4, lw, NULL);
    CHECK(rc == 0, "list write: %d", rc);
    memset(lr, 0, sizeof lr);
    rc = rw(cl, &lay, 0, lst, 4, lr, &done);
    CHECK(rc == 0 && done == (int64_t)sizeof lw && !memcmp(lw, lr, sizeof lw), "list read back");
    {
        size_t p = 0;
        for (int i = 0; i < 4; i++) {
            memcpy(w + lst[2 * i], lw + p, (size_t)lst[2 * i + 1]);
            p += (size_t)lst[2 * i + 1];
        }
    }
    disk = emu_slurp(emu_dir, "a/file", &dn);
    CHECK(disk && dn == N && !memcmp(disk, w, N), "the objects hold the list write");
    free(disk);

    /* a datatype transfer: vector filetype, shipped */
    {
        struct rio_dtype *dt = NULL;
        unsigned char *blob = NULL;
        size_t bn = 0;
        rio__dtype_get(types[0], &dt); /* vector(5, 3, 7 ints), extent 160 */
        rio__emu_dl_encode(rio__dtype_dloop(dt), rio__dtype_info(dt)->extent, &blob, &bn);
        int64_t disp = 333, pos = 17, len = 20000;
        struct rio_emu_view v = {blob, bn, disp, pos};
        /* regions from the iterator */
        static int64_t regs[2 * 4096];
        int nr = 0;
        struct rio_dtype_iter it;
        MPI_Offset off, l, left = len;
        rio__dtype_iter_init(&it, dt, -1, pos);
        while (left > 0 && rio__dtype_iter_next(&it, left, &off, &l)) {
            regs[2 * nr] = disp + off;
            regs[2 * nr + 1] = l;
            nr++;
            left -= l;
        }
        rio__dtype_iter_free(&it);
        static unsigned char dw[20000], dr[20000];
        fill(dw, sizeof dw, 3);
        struct regs g = {regs, nr, 0};
        struct iovec iv = {dw, sizeof dw};
        rc = rio__emu_rw(cl, &lay, 1, next_reg, &g, &v, &iv, 1, NULL);
        CHECK(rc == 0, "datatype write: %d", rc);
        size_t p = 0;
        for (int i = 0; i < nr; i++) {
            memcpy(w + regs[2 * i], dw + p, (size_t)regs[2 * i + 1]);
            p += (size_t)regs[2 * i + 1];
        }
        disk = emu_slurp(emu_dir, "a/file", &dn);
        CHECK(disk && dn == N && !memcmp(disk, w, N), "the objects hold the datatype write");
        free(disk);
        g.i = 0;
        iv.iov_base = dr;
        rc = rio__emu_rw(cl, &lay, 0, next_reg, &g, &v, &iv, 1, &done);
        CHECK(rc == 0 && done == len && !memcmp(dr, dw, sizeof dw), "datatype read back");
        struct rio_emu_stats s;
        int used = 0;
        for (int t = 0; t < 4; t++)
            if (!rio__emu_stats(cl, t, &s) && s.requests > 0)
                used++;
        CHECK(used == 3, "the file's 3 targets served requests (%d did)", used);
        free(blob);
        rio__dtype_put(dt);
    }

    /* sizes: shrink, extend (zeros), end of file, holes */
    CHECK(rio__emu_set_size(cl, &lay, 123457) == 0 && rio__emu_get_size(cl, &lay, &size) == 0 &&
              size == 123457,
          "shrink to 123457: size %lld", (long long)size);
    CHECK(rio__emu_set_size(cl, &lay, 200001) == 0 && rio__emu_get_size(cl, &lay, &size) == 0 &&
              size == 200001,
          "extend to 200001: size %lld", (long long)size);
    memset(r, 0xee, N);
    rc = rw(cl, &lay, 0, (int64_t[]){100000, 150000}, 1, r, &done);
    memset(w + 123457, 0, N - 123457);
    CHECK(rc == 0 && done == 100001 && !memcmp(r, w + 100000, 100001) && r[100001] == 0xee,
          "read across end of file: %lld bytes, memory past them untouched", (long long)done);
    rc = rw(cl, &lay, 1, (int64_t[]){400000, 10}, 1, w, NULL);
    CHECK(rc == 0 && rio__emu_get_size(cl, &lay, &size) == 0 && size == 400010,
          "a write past the end grows the file (%lld)", (long long)size);
    rc = rw(cl, &lay, 0, (int64_t[]){250000, 150010}, 1, r, &done);
    int zeros = 1;
    for (int i = 0; i < 150000; i++)
        zeros &= r[i] == 0;
    CHECK(rc == 0 && done == 150010 && zeros && !memcmp(r + 150000, w, 10),
          "a hole reads as zeros up to the data (%lld)", (long long)done);
    CHECK(rio__emu_sync(cl, &lay) == 0, "sync");

    /* locks: a second client waits for a conflicting range */
    {
        struct locker L = {lay, 0, 0};
        pthread_t th;
        CHECK(rio__emu_lock(cl, &lay, 0, 1000, 1) == 0, "lock");
        CHECK(rio__emu_lock(cl, &lay, 5000, 0, 0) == 0, "shared lock to the end");
        pthread_create(&th, NULL, lock_thread, &L);
        msleep(150);
        CHECK(!L.got, "a conflicting lock was granted while held");
        CHECK(rio__emu_unlock(cl, &lay, 0, 1000) == 0, "unlock");
        pthread_join(th, NULL);
        CHECK(L.got && L.rc == 0, "the waiting lock was granted after the unlock (%d)", L.rc);
        CHECK(rio__emu_unlock(cl, &lay, 5000, 0) == 0, "unlock to the end");
    }

    /* counters */
    {
        struct rio_emu_stats s;
        CHECK(rio__emu_stats_reset(cl, 1) == 0 && rio__emu_stats(cl, 1, &s) == 0 &&
                  s.requests == 0 && s.accesses == 0,
              "stats reset");
        int64_t seq[] = {0, 3 * 5000 * 4}; /* 4 stripe rows: sequential on every target */
        static unsigned char z[60000];
        rw(cl, &lay, 1, seq, 1, z, NULL);
        rw(cl, &lay, 1, (int64_t[]){3 * 5000 * 4, 3 * 5000 * 2}, 1, z, NULL);
        int t1 = (int)((lay.first + 1) % 4);
        rio__emu_stats_reset(cl, t1);
        rw(cl, &lay, 1, seq, 1, z, NULL);
        rw(cl, &lay, 1, (int64_t[]){3 * 5000 * 4, 3 * 5000 * 2}, 1, z, NULL);
        rw(cl, &lay, 1, (int64_t[]){0, 15000}, 1, z, NULL);
        CHECK(rio__emu_stats(cl, t1, &s) == 0 && s.requests == 3 && s.accesses == 3 &&
                  s.judged == 2 && s.sequential == 1 && s.bytes_written == 20000 + 10000 + 5000,
              "counters: %llu requests, %llu accesses, %llu/%llu sequential, %llu bytes",
              (unsigned long long)s.requests, (unsigned long long)s.accesses,
              (unsigned long long)s.sequential, (unsigned long long)s.judged,
              (unsigned long long)s.bytes_written);
        CHECK(rio__emu_seq_fraction(&s) == 0.5, "sequential fraction %g", rio__emu_seq_fraction(&s));
    }

    /* raw call of an op on the wrong target */
    {
        int32_t st = 0;
        const unsigned char *rep;
        size_t rl;
        rc = rio__emu_call(cl, 2, RIO_EMU_OP_LOOKUP, 0, "a/file", 6, &st, &rep, &rl);
        CHECK(rc == 0 && st == -EOPNOTSUPP, "metadata on target 2: %d/%d", rc, st);
    }

    /* remove */
    CHECK(rio__emu_remove(cl, "a/file") == 0, "remove");
    CHECK(rio__emu_lookup(cl, "a/file", &l2) == -ENOENT, "lookup after remove");
    CHECK(rio__emu_remove(cl, "a/file") == -ENOENT, "remove twice");
    CHECK(!emu_slurp(emu_dir, "a/file", &dn), "the file is gone from the metadata");
    {
        char path[256];
        int left = 0;
        for (int t = 0; t < 4; t++) {
            snprintf(path, sizeof path, "%s/t%d/%llu.obj", emu_dir, t,
                     (unsigned long long)lay.fid);
            left += access(path, F_OK) == 0;
        }
        CHECK(left == 0, "%d object files left after remove", left);
    }
    rio__emu_disconnect(cl);
}

/* ---- 4. the driver ------------------------------------------------------------------- */

static void test_driver(const char *scratch)
{
    struct rio_hints h;
    struct rio_store st;
    struct rio_layout lo;
    enum { N = 100000 };
    static unsigned char w[N], r[N], *disk;
    long long dn;
    MPI_Offset done, size;
    memset(&h, 0, sizeof h);
    memset(&st, 0, sizeof st);
    unit_hint(&h, "resonio_emu_dir", emu_dir);
    unit_hint(&h, "striping_unit", "4096");
    unit_hint(&h, "striping_factor", "3");

    int rc = rio__store_open(&st, "emu:drv/x", O_RDWR | O_CREAT | O_EXCL, 0644, &h);
    CHECK(rc == 0 && st.ops == &rio__store_emu, "open emu:drv/x: %d (%s)", rc,
          rio__err_detail_peek());
    if (rc)
        return;
    rio__store_layout(&st, &lo);
    CHECK(lo.known && lo.unit == 4096 && lo.count == 3, "layout %lld x %d", lo.unit, lo.count);
    fill(w, N, 4);
    CHECK(rio__store_pwrite_full(&st, w, N, 0) == 0, "pwrite_full");
    CHECK(rio__store_pread_full(&st, r, N, 0, &done) == 0 && done == N && !memcmp(r, w, N),
          "pread_full");
    struct iovec iv[3] = {{w + 10, 100}, {w + 5000, 7000}, {w + 50000, 3}};
    CHECK(rio__store_pwritev_full(&st, iv, 3, 20000) == 0, "pwritev_full");
    memcpy(r, w, N);
    memcpy(r + 20000, w + 10, 100);
    memcpy(r + 20100, w + 5000, 7000);
    memcpy(r + 27100, w + 50000, 3);
    memcpy(w, r, N);
    static unsigned char v1[100], v2[7000], v3[3];
    struct iovec rv[3] = {{v1, 100}, {v2, 7000}, {v3, 3}};
    CHECK(rio__store_preadv_full(&st, rv, 3, 20000, &done) == 0 && done == 7103 &&
              !memcmp(v1, w + 20000, 100) && !memcmp(v2, w + 20100, 7000) &&
              !memcmp(v3, w + 27100, 3),
          "preadv_full");
    struct rio_region fr[2] = {{90000, 5000}, {1000, 3000}};
    unsigned char lw[8000], lr[8000];
    fill(lw, sizeof lw, 5);
    struct iovec lm[2] = {{lw, 5000}, {lw + 5000, 3000}};
    CHECK(rio__store_write_list(&st, fr, lm, 2) == 0, "write_list");
    memcpy(w + 90000, lw, 5000);
    memcpy(w + 1000, lw + 5000, 3000);
    struct iovec lmr[2] = {{lr, 5000}, {lr + 5000, 3000}};
    CHECK(rio__store_read_list(&st, fr, lmr, 2, &done) == 0 && done == 8000 &&
              !memcmp(lw, lr, 8000),
          "read_list");
    /* views: subarray filetype, shipped */
    {
        struct rio_dtype *dt = NULL;
        rio__dtype_get(types[3], &dt);
        int64_t sz = rio__dtype_info(dt)->size; /* 96 bytes a tile */
        static unsigned char vw[96 * 50], vr[96 * 50];
        fill(vw, sizeof vw, 6);
        CHECK(rio__store_write_view(&st, dt, 512, 40, vw, (MPI_Offset)sizeof vw) == 0,
              "write_view");
        struct rio_dtype_iter it;
        MPI_Offset off, l, p = 0;
        rio__dtype_iter_init(&it, dt, -1, 40);
        while (p < (MPI_Offset)sizeof vw && rio__dtype_iter_next(&it, (MPI_Offset)sizeof vw - p, &off, &l)) {
            memcpy(w + 512 + off, vw + p, (size_t)l);
            p += l;
        }
        rio__dtype_iter_free(&it);
        CHECK(rio__store_read_view(&st, dt, 512, 40, vr, (MPI_Offset)sizeof vr, &done) == 0 &&
                  done == (MPI_Offset)sizeof vr && !memcmp(vr, vw, sizeof vw),
              "read_view (%lld)", (long long)done);
        /* past the end: the view reads up to end of file */
        CHECK(rio__store_read_view(&st, dt, N - 300, 0, vr, sz * 20, &done) == 0 && done > 0 &&
                  done < sz * 20,
              "read_view across end of file stops there (%lld of %lld)", (long long)done,
              (long long)(sz * 20));
        rio__dtype_put(dt);
    }
    CHECK(st.ops->sync(&st) == 0, "sync");
    disk = emu_slurp(emu_dir, "drv/x", &dn);
    CHECK(disk && dn == N && !memcmp(disk, w, N), "the objects hold what the driver wrote");
    free(disk);
    CHECK(st.ops->get_size(&st, &size) == 0 && size == N, "get_size %lld", (long long)size);
    CHECK(st.ops->set_size(&st, 777) == 0 && st.ops->get_size(&st, &size) == 0 && size == 777,
          "set_size");
    CHECK(st.ops->allocate(&st, 1000, 5000) == 0 && st.ops->get_size(&st, &size) == 0 &&
              size == 6000,
          "allocate grows to 6000 (%lld)", (long long)size);
    CHECK(st.ops->lock(&st, 0, 0, 1) == 0 && st.ops->unlock(&st, 0, 0) == 0, "lock/unlock");
    CHECK(rio__store_close(&st) == 0, "close");
    rc = rio__store_open(&st, "emu:drv/x", O_RDWR | O_CREAT | O_EXCL, 0644, &h);
    CHECK(rc == -EEXIST, "O_EXCL on an existing emu file: %d", rc);
    rc = rio__store_open(&st, "emu:drv/x", O_RDWR | O_TRUNC, 0644, &h);
    CHECK(rc == 0 && st.ops->get_size(&st, &size) == 0 && size == 0, "O_TRUNC empties the file");
    if (!rc)
        rio__store_close(&st);
    CHECK(rio__store_remove("emu:drv/x", &h) == 0, "remove");
    rc = rio__store_open(&st, "emu:drv/x", O_RDWR, 0644, &h);
    CHECK(rc == -ENOENT, "open of a removed file: %d", rc);

    /* no service */
    unit_hint(&h, "resonio_emu_dir", "/tmp/rio-emu-no-such-service");
    rc = rio__store_open(&st, "emu:y", O_RDWR | O_CREAT, 0644, &h);
    CHECK(rc == -ECONNREFUSED && strstr(rio__err_detail_peek(), "/tmp/rio-emu-no-such-service"),
          "a service that is not running: %d, detail '%s'", rc, rio__err_detail_peek());
    rio__hints_free(&h); /* resonio_emu_dir unset: the defaults */
    unsetenv("RESONIO_EMU_DIR");
    rc = rio__store_open(&st, "emu:y", O_RDWR | O_CREAT, 0644, &h);
    CHECK(rc == -EINVAL && strstr(rio__err_detail_peek(), "resonio_emu_dir"),
          "no service directory at all: %d, '%s'", rc, rio__err_detail_peek());
    {
        MPI_Info info;
        rio_file *fh = NULL;
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Info_create(&info);
        MPI_Info_set(info, "resonio_emu_dir", "/tmp/rio-emu-no-such-service");
        rc = rio_file_open(MPI_COMM_SELF, "emu:wanted.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
                           info, &fh);
        MPI_Info_free(&info);
        msg[0] = '\0';
        if (rc != MPI_SUCCESS)
            MPI_Error_string(rc, msg, &len);
        CHECK(rc != MPI_SUCCESS && strstr(msg, "wanted.dat") && strstr(msg, "no emu service running"),
              "MPI_File_open on a stopped service: '%s'", msg);
        if (rc == MPI_SUCCESS)
            rio_file_close(&fh);
    }

    /* the view wrappers' list fallback on posix */
    {
        char path[512];
        struct rio_hints ph;
        memset(&ph, 0, sizeof ph);
        snprintf(path, sizeof path, "%s/emu_view_fallback.%d", scratch, (int)getpid());
        rc = rio__store_open(&st, path, O_RDWR | O_CREAT | O_TRUNC, 0644, &ph);
        CHECK(rc == 0, "posix open %s", path);
        if (!rc) {
            struct rio_dtype *dt = NULL;
            rio__dtype_get(types[1], &dt);
            static unsigned char vw[64 * 30], vr[64 * 30];
            fill(vw, sizeof vw, 7);
            CHECK(rio__store_write_view(&st, dt, 100, 8, vw, sizeof vw) == 0 &&
                      rio__store_read_view(&st, dt, 100, 8, vr, sizeof vr, &done) == 0 &&
                      done == (MPI_Offset)sizeof vr && !memcmp(vw, vr, sizeof vw),
                  "view through list I/O on posix (%lld)", (long long)done);
            rio__dtype_put(dt);
            rio__store_close(&st);
        }
        unlink(path);
    }
}

static const char *scratch_dir = "/tmp";

static int body(void)
{
    MPI_Init(NULL, NULL);
    make_types();
    test_proto();
    test_dlwire();
    test_client();
    test_driver(scratch_dir);
    for (int k = 0; k < ntypes; k++)
        MPI_Type_free(&types[k]);
    MPI_Finalize();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

int main(int argc, char **argv)
{
    if (argc > 2)
        scratch_dir = argv[2];
    return emu_main(argc, argv, "4", NULL, body, 120);
}

/*
 * t_cls_lua.c — datatype I/O at the OSD through Ceph's `lua` object class
 * (src/store/ceph_lua.h), against a running cluster (CEPH_CONF, pool
 * `resonio`).  Plain C: librados directly, no MPI.
 *
 * For three filetypes (a vector of 8-byte blocks, an indexed type with
 * uneven blocks, and a FLASH-like hvector of a struct of a vector and an
 * indexed type) over a striped layout of several objects, it writes a
 * stream through the class in two calls (the second starting inside a
 * tile), with each OSD write mode, into objects that already hold other
 * bytes; then it checks every byte of every object with plain rados_read
 * against an image computed here independently (the type expanded into
 * regions by a naive recursion, the striping applied byte by byte), that
 * no other object was created, and reads the stream back through the
 * class in the other mode and compares every byte.  Then it sends hostile
 * requests (too deep, truncated, a bad count, a bad header, a walk far too
 * long) and checks each answer's error and that the OSD still serves.
 *
 * `-measure lua|lua-extents|list [n]` instead writes one fine-grained pattern (n
 * 8-byte blocks 64 bytes apart in each of 4 objects; n = 131072, 1 MiB of
 * data per object, by default) once, through the class (OSD write mode
 * auto, here one patched span per object, or one class write per extent) or as one compound
 * write of all of each object's extents, the 4 objects at once, and prints
 * the bytes it handed librados and the time;
 * tests/ceph/measure_cls_lua.sh adds the OSD's counters around it.
 *
 * A cluster that cannot be reached fails the test, loudly.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rados/librados.h>

#include "store/ceph_lua.h"

static int errs;
#define CHECK(c, ...)                                                                        \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            if (++errs <= 30) {                                                              \
                printf("error (line %d): ", __LINE__);                                       \
                printf(__VA_ARGS__);                                                         \
                printf("\n");                                                                \
            }                                                                                \
        }                                                                                    \
    } while (0)

static rados_ioctx_t io;

/* ---- wire bytes of filetypes, built here -------------------------------- */

struct wb {
    unsigned char p[1 << 16];
    size_t n;
};

static void w64(struct wb *b, int64_t v)
{
    for (int i = 0; i < 8; i++)
        b->p[b->n++] = (unsigned char)((uint64_t)v >> (8 * i));
}

static void wnode(struct wb *b, unsigned kind, int64_t nb, int64_t bl, int64_t st, int64_t off,
                  int64_t ext)
{
    b->p[b->n++] = (unsigned char)kind;
    w64(b, nb);
    w64(b, bl);
    w64(b, st);
    w64(b, off);
    w64(b, ext);
}

/* A naive model of one tile, for the expected image: regions (offset from
 * the tile's origin, length) in stream order, expanded by recursion over
 * the same description the wire bytes hold. */
struct model {
    int kind; /* 0 leaf vector, 1 leaf indexed, 2 struct, 3 vector of child */
    int64_t nb, bl, st, off, ext;
    const int64_t *displs, *blens;
    const struct model *child[2];
};

struct regs {
    int64_t off[8192], len[8192];
    int n;
};

static void expand(const struct model *m, int64_t base, struct regs *r)
{
    base += m->off;
    for (int64_t i = 0; i < m->nb; i++) {
        int64_t at = base + (m->displs ? m->displs[i] : i * m->st);
        int64_t n = m->blens ? m->blens[i] : m->bl;
        if (m->kind <= 1) {
            r->off[r->n] = at;
            r->len[r->n++] = n;
            continue;
        }
        const struct model *c = m->kind == 2 ? m->child[i] : m->child[0];
        for (int64_t e = 0; e < n; e++)
            expand(c, at + e * c->ext, r);
    }
}

static void wmodel(struct wb *b, const struct model *m)
{
    unsigned kind = (m->kind <= 1 ? RIO_EMU_DL_LEAF : 0) | (m->displs ? RIO_EMU_DL_DISPLS : 0) |
                    (m->blens ? RIO_EMU_DL_BLOCKLENS : 0) | (m->kind == 2 ? RIO_EMU_DL_STRUCT : 0);
    wnode(b, kind, m->nb, m->bl, m->st, m->off, m->ext);
    for (int64_t i = 0; m->displs && i < m->nb; i++)
        w64(b, m->displs[i]);
    for (int64_t i = 0; m->blens && i < m->nb; i++)
        w64(b, m->blens[i]);
    if (m->kind == 2)
        for (int64_t i = 0; i < m->nb; i++)
            wmodel(b, m->child[i]);
    else if (m->kind == 3)
        wmodel(b, m->child[0]);
}

/* ---- the class envelope, built here independently of ceph_lua.c ------- */

static unsigned char *envelope(const char *handler, const unsigned char *in, size_t inlen,
                               size_t *n)
{
    size_t sl = strlen(rio__cls_lua_script), hl = strlen(handler);
    size_t pl = 12 + sl + hl + inlen;
    unsigned char *b = malloc(6 + pl), *p = b;
    uint32_t v[4] = {(uint32_t)pl, (uint32_t)sl, (uint32_t)hl, (uint32_t)inlen};
    *p++ = 1;
    *p++ = 1;
    memcpy(p, &v[0], 4), p += 4;
    memcpy(p, &v[1], 4), p += 4;
    memcpy(p, rio__cls_lua_script, sl), p += sl;
    memcpy(p, &v[2], 4), p += 4;
    memcpy(p, handler, hl), p += hl;
    memcpy(p, &v[3], 4), p += 4;
    memcpy(p, in, inlen), p += inlen;
    *n = (size_t)(p - b);
    return b;
}

/* ---- objects ------------------------------------------------------------ */

static void objname(char *s, size_t n, const char *base, int64_t obj)
{
    snprintf(s, n, "%s.%016llx", base, (unsigned long long)obj);
}

#define MAXOBJ 64

static void remove_all(const char *base)
{
    char name[256];
    for (int64_t o = 0; o < MAXOBJ; o++) {
        objname(name, sizeof name, base, o);
        rados_remove(io, name);
    }
}

static unsigned char bg(int64_t obj, int64_t o)
{
    return (unsigned char)(((obj * 131 + o * 7) & 0xff) ^ 0x5a);
}

static unsigned char pat(int t, int64_t s)
{
    return (unsigned char)((s * 29 + s / 251 + t * 71 + 1) & 0xff);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The request of stream bytes [pos, pos+len) and the objects it touches.
 * 0, or the error (counted as a failed check); r is made in either case. */
static int req_objects(struct rio_cls_lua_req *r, const struct rio_dl *root,
                       int64_t tile_extent, int64_t disp, int64_t pos, int64_t len,
                       const struct rio_cls_lua_layout *lay, int64_t *objs, size_t *nobj)
{
    int rc = rio__cls_lua_req_init(r, root, tile_extent, disp, pos, len, lay);
    CHECK(rc == 0, "req_init: %d", rc);
    if (!rc)
        CHECK((rc = rio__cls_lua_objects(r, objs, MAXOBJ, nobj)) == 0, "objects: %d", rc);
    return rc;
}

/* Write the stream bytes of [pos, pos+len) through the class: one request
 * per object touched.  Returns the request bytes sent, or -1. */
static long long lua_write(const char *base, const struct rio_dl *root, int64_t tile_extent,
                           int64_t disp, int64_t pos, int64_t len, const unsigned char *stream,
                           const struct rio_cls_lua_layout *lay, enum rio_cls_lua_mode mode)
{
    struct rio_cls_lua_req r;
    int64_t objs[MAXOBJ];
    size_t nobj = 0;
    long long sent = 0;
    int rc = req_objects(&r, root, tile_extent, disp, pos, len, lay, objs, &nobj);
    for (size_t i = 0; !rc && i < nobj; i++) {
        size_t n = 0, oplen;
        unsigned char *op = NULL;
        rio__cls_lua_gather(&r, objs[i], stream, NULL, &n);
        unsigned char *packed = malloc(n ? n : 1);
        CHECK((rc = rio__cls_lua_gather(&r, objs[i], stream, packed, &n)) == 0, "gather %d", rc);
        CHECK((rc = rio__cls_lua_op(&r, objs[i], 1, mode, packed, n, &op, &oplen)) == 0,
              "op: %d", rc);
        if (!rc) {
            char name[256];
            int prval = -1;
            objname(name, sizeof name, base, objs[i]);
            rados_write_op_t w = rados_create_write_op();
            rados_write_op_exec(w, RIO_CLS_LUA_CLASS, RIO_CLS_LUA_METHOD, (const char *)op,
                                oplen, &prval);
            rc = rados_write_op_operate(w, io, name, NULL, 0);
            rados_release_write_op(w);
            CHECK(rc == 0 && prval == 0, "lua write of %s: %d (%d)", name, rc, prval);
            sent += (long long)oplen;
        }
        free(op);
        free(packed);
    }
    rio__cls_lua_req_fini(&r);
    return rc ? -1 : sent;
}

/* Read [pos, pos+len) back through the class into stream. */
static void lua_read(const char *base, const struct rio_dl *root, int64_t tile_extent,
                     int64_t disp, int64_t pos, int64_t len, unsigned char *stream,
                     const struct rio_cls_lua_layout *lay, enum rio_cls_lua_mode mode)
{
    struct rio_cls_lua_req r;
    int64_t objs[MAXOBJ];
    size_t nobj = 0;
    int rc = req_objects(&r, root, tile_extent, disp, pos, len, lay, objs, &nobj);
    for (size_t i = 0; !rc && i < nobj; i++) {
        size_t n = 0, oplen;
        unsigned char *op = NULL;
        char name[256];
        rio__cls_lua_gather(&r, objs[i], NULL, NULL, &n);
        CHECK((rc = rio__cls_lua_op(&r, objs[i], 0, mode, NULL, 0, &op, &oplen)) == 0, "op %d",
              rc);
        if (rc)
            break;
        char *out = malloc(n + 16);
        objname(name, sizeof name, base, objs[i]);
        int got = rados_exec(io, name, RIO_CLS_LUA_CLASS, RIO_CLS_LUA_METHOD, (const char *)op,
                             oplen, out, n + 16);
        CHECK(got == (int)n, "lua read of %s: %d bytes, expected %zu", name, got, n);
        if (got == (int)n)
            CHECK((rc = rio__cls_lua_scatter(&r, objs[i], out, n, stream)) == 0, "scatter %d",
                  rc);
        free(out);
        free(op);
    }
    rio__cls_lua_req_fini(&r);
}

/* ---- one filetype ------------------------------------------------------ */

static void one_type(int t, const char *label, const struct model *m, int64_t tile_extent,
                     int64_t disp, int64_t len, const struct rio_cls_lua_layout *lay)
{
    static struct wb b;
    static struct regs rg;
    struct rio_emu_dltype *type = NULL;
    char base[128];
    int rc;
    b.n = 0;
    rg.n = 0;
    w64(&b, tile_extent);
    wmodel(&b, m);
    CHECK((rc = rio__emu_dl_decode(b.p, b.n, &type)) == 0, "%s: decode %d", label, rc);
    if (rc)
        return;
    expand(m, 0, &rg);
    int64_t tsize = 0;
    for (int i = 0; i < rg.n; i++)
        tsize += rg.len[i];
    CHECK(tsize == type->root->size, "%s: model %lld bytes, dataloop %lld", label,
          (long long)tsize, (long long)type->root->size);

    /* the expected file: stream byte s at the file offset the model says */
    unsigned char *stream = malloc((size_t)len), *back = malloc((size_t)len);
    int64_t *where = malloc((size_t)len * sizeof *where), fend = 0;
    for (int64_t s = 0; s < len; s++) {
        int64_t tile = s / tsize, k = s % tsize;
        int i = 0;
        while (k >= rg.len[i])
            k -= rg.len[i++];
        where[s] = disp + tile * tile_extent + rg.off[i] + k;
        stream[s] = pat(t, s);
        if (where[s] + 1 > fend)
            fend = where[s] + 1;
    }
    const int64_t su = lay->su, sc = lay->sc, per = lay->os / su;
    for (int mode = RIO_CLS_LUA_EXTENTS; mode <= RIO_CLS_LUA_SPAN; mode++) {
        snprintf(base, sizeof base, "t_cls_lua.%s.m%d", label, mode);
        remove_all(base);
        /* objects holding other bytes already (half an object each): the
         * writes must keep every byte they do not cover */
        int64_t nobj = ((fend + su - 1) / su / sc / per + 1) * sc;
        CHECK(nobj <= MAXOBJ, "%s: %lld objects", label, (long long)nobj);
        unsigned char *img = calloc((size_t)nobj, (size_t)lay->os);
        int64_t *osize = calloc((size_t)nobj, sizeof *osize);
        for (int64_t o = 0; o < nobj; o += 2) { /* every other object */
            char name[256];
            objname(name, sizeof name, base, o);
            for (int64_t x = 0; x < lay->os / 2; x++)
                img[o * lay->os + x] = bg(o, x);
            osize[o] = lay->os / 2;
            CHECK(rados_write_full(io, name, (const char *)img + o * lay->os,
                                   (size_t)(lay->os / 2)) == 0,
                  "background of %s", name);
        }
        for (int64_t s = 0; s < len; s++) { /* striping, byte by byte */
            int64_t f = where[s], block = f / su, stripe = block / sc;
            int64_t obj = (stripe / per) * sc + block % sc;
            int64_t at = (stripe % per) * su + f % su;
            img[obj * lay->os + at] = stream[s];
            if (at + 1 > osize[obj])
                osize[obj] = at + 1;
        }
        /* two calls; the second starts inside a tile */
        int64_t cut = len / 3 + 5;
        lua_write(base, type->root, tile_extent, disp, 0, cut, stream, lay, mode);
        lua_write(base, type->root, tile_extent, disp, cut, len - cut, stream + cut, lay, mode);
        /* every object, by plain reads */
        int checked = 0;
        for (int64_t o = 0; o < MAXOBJ; o++) {
            char name[256];
            uint64_t size = 0;
            time_t mt;
            objname(name, sizeof name, base, o);
            rc = rados_stat(io, name, &size, &mt);
            if (o >= nobj || !osize[o]) {
                CHECK(rc == -ENOENT, "%s: object %lld exists (%d)", base, (long long)o, rc);
                continue;
            }
            CHECK(rc == 0 && (int64_t)size == osize[o], "%s: object %lld size %llu, expected %lld",
                  base, (long long)o, (unsigned long long)size, (long long)osize[o]);
            unsigned char *got = malloc((size_t)lay->os);
            int n = rados_read(io, name, (char *)got, (size_t)lay->os, 0);
            CHECK(n == (int)osize[o], "%s: read %d", name, n);
            int bad = 0;
            for (int64_t x = 0; x < osize[o] && x < n; x++)
                if (got[x] != img[o * lay->os + x] && bad++ < 3)
                    CHECK(0, "%s: byte %lld is %d, expected %d", name, (long long)x, got[x],
                          img[o * lay->os + x]);
            checked += !bad;
            free(got);
        }
        /* back through the class, in the other mode, in other cuts */
        memset(back, 0, (size_t)len);
        enum rio_cls_lua_mode rmode = mode == RIO_CLS_LUA_SPAN ? RIO_CLS_LUA_EXTENTS
                                                               : RIO_CLS_LUA_SPAN;
        int64_t rcut = len / 2 - 3;
        lua_read(base, type->root, tile_extent, disp, 0, rcut, back, lay, rmode);
        lua_read(base, type->root, tile_extent, disp, rcut, len - rcut, back + rcut, lay,
                 RIO_CLS_LUA_AUTO);
        int64_t bad = 0;
        for (int64_t s = 0; s < len; s++)
            if (back[s] != stream[s] && bad++ < 3)
                CHECK(0, "%s: stream byte %lld read back %d, expected %d", base, (long long)s,
                      back[s], stream[s]);
        printf("%s: %lld stream bytes, %lld objects verified byte by byte, read back %s\n", base,
               (long long)len, (long long)checked, bad ? "WRONG" : "identical");
        remove_all(base);
        free(img);
        free(osize);
    }
    free(stream);
    free(back);
    free(where);
    rio__emu_dl_free(type);
}

/* ---- hostile requests --------------------------------------------------- */

static unsigned char *header(unsigned char *p, int64_t mode, int64_t su, int64_t sc, int64_t os,
                             int64_t obj, int64_t disp, int64_t pos, int64_t len, int64_t dllen)
{
    const int64_t v[9] = {mode, su, sc, os, obj, disp, pos, len, dllen};
    memcpy(p, "RIO1", 4);
    p += 4;
    for (int i = 0; i < 9; i++) {
        for (int k = 0; k < 8; k++)
            p[k] = (unsigned char)((uint64_t)v[i] >> (8 * k));
        p += 8;
    }
    return p;
}

/* Send input to handler on object name; returns the call's result and
 * the seconds it took. */
static int send_raw(const char *name, const char *handler, const unsigned char *in, size_t n,
                    double *secs)
{
    size_t oplen;
    unsigned char *op = envelope(handler, in, n, &oplen);
    char out[64];
    double t0 = now();
    int rc = rados_exec(io, name, RIO_CLS_LUA_CLASS, RIO_CLS_LUA_METHOD, (const char *)op, oplen,
                        out, sizeof out);
    *secs = now() - t0;
    free(op);
    return rc;
}

static void hostile(void)
{
    static struct wb dl;
    static unsigned char in[1 << 17];
    const char *name = "t_cls_lua.hostile";
    double secs;
    int rc;
    rados_remove(io, name);
    CHECK(rados_write_full(io, name, "0123456789", 10) == 0, "hostile: create");

    /* 33 nested nodes: one level deeper than the limit */
    dl.n = 0;
    w64(&dl, 64);
    for (int i = 0; i < 33; i++)
        wnode(&dl, i == 32 ? RIO_EMU_DL_LEAF : 0, 1, 1, 0, 0, 8);
    unsigned char *p = header(in, 0, 64, 1, 4096, 0, 0, 0, 8, (int64_t)dl.n);
    memcpy(p, dl.p, dl.n);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n, &secs);
    CHECK(rc == -EMSGSIZE, "depth 33: %d, expected %d", rc, -EMSGSIZE);
    printf("hostile: 33 levels deep -> %d (%.3f s)\n", rc, secs);

    /* a vector of 8-byte blocks, cut short by 4 bytes */
    dl.n = 0;
    w64(&dl, 64);
    wnode(&dl, RIO_EMU_DL_LEAF, 4, 8, 16, 0, 64);
    p = header(in, 0, 64, 1, 4096, 0, 0, 0, 32, (int64_t)dl.n - 4);
    memcpy(p, dl.p, dl.n - 4);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n - 4, &secs);
    CHECK(rc == -EBADMSG, "truncated: %d, expected %d", rc, -EBADMSG);
    printf("hostile: truncated dataloop -> %d\n", rc);

    /* the same, whole, with data past it for a read: trailing input */
    p = header(in, 0, 64, 1, 4096, 0, 0, 0, 32, (int64_t)dl.n);
    memcpy(p, dl.p, dl.n);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n + 3, &secs);
    CHECK(rc == -EINVAL, "read with data: %d, expected %d", rc, -EINVAL);
    /* a write whose data do not match the pieces */
    rc = send_raw(name, "rio_write", in, (size_t)(p - in) + dl.n + 3, &secs);
    CHECK(rc == -EINVAL, "write with 3 bytes: %d, expected %d", rc, -EINVAL);
    printf("hostile: data that do not match -> %d\n", rc);

    /* a well-formed read of an object that does not exist: zeros, as a
     * hole reads */
    {
        size_t oplen;
        char out[64];
        unsigned char *op;
        rados_remove(io, "t_cls_lua.absent");
        op = envelope("rio_read", in, (size_t)(p - in) + dl.n, &oplen);
        memset(out, 1, sizeof out);
        rc = rados_exec(io, "t_cls_lua.absent", RIO_CLS_LUA_CLASS, RIO_CLS_LUA_METHOD,
                        (const char *)op, oplen, out, sizeof out);
        free(op);
        int zeros = 1;
        for (int i = 0; i < 32; i++)
            zeros &= out[i] == 0;
        CHECK(rc == 32 && zeros, "absent object: %d bytes (zeros %d), expected 32 zeros", rc,
              zeros);
        uint64_t size;
        time_t mt;
        CHECK(rados_stat(io, "t_cls_lua.absent", &size, &mt) == -ENOENT,
              "a read created the object");
    }

    /* a block count of 0 */
    dl.n = 0;
    w64(&dl, 64);
    wnode(&dl, RIO_EMU_DL_LEAF, 0, 8, 16, 0, 64);
    p = header(in, 0, 64, 1, 4096, 0, 0, 0, 32, (int64_t)dl.n);
    memcpy(p, dl.p, dl.n);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n, &secs);
    CHECK(rc == -EINVAL, "count 0: %d, expected %d", rc, -EINVAL);

    /* a bad header, and a kind with unknown bits */
    memcpy(in, "XIO1", 4);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n, &secs);
    CHECK(rc == -EBADMSG, "bad magic: %d, expected %d", rc, -EBADMSG);
    dl.n = 0;
    w64(&dl, 64);
    wnode(&dl, 0x31, 1, 8, 16, 0, 64);
    p = header(in, 0, 64, 1, 4096, 0, 0, 0, 32, (int64_t)dl.n);
    memcpy(p, dl.p, dl.n);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n, &secs);
    CHECK(rc == -EBADMSG, "bad kind: %d, expected %d", rc, -EBADMSG);
    /* a stride whose product with the block index overflows */
    dl.n = 0;
    w64(&dl, 64);
    wnode(&dl, RIO_EMU_DL_LEAF, (int64_t)1 << 40, 1, (int64_t)1 << 50, 0, 64);
    p = header(in, 0, 64, 1, 4096, 0, 0, 0, 32, (int64_t)dl.n);
    memcpy(p, dl.p, dl.n);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n, &secs);
    CHECK(rc == -EINVAL, "overflowing span: %d, expected %d", rc, -EINVAL);
    printf("hostile: count 0, bad magic, bad kind, overflowing span -> refused as expected\n");

    /* 1-byte blocks over 2^40 stream bytes: the walk must stop at its bound */
    dl.n = 0;
    w64(&dl, 4);
    wnode(&dl, RIO_EMU_DL_LEAF, 1, 1, 0, 0, 2);
    p = header(in, 0, 1 << 20, 1, 1 << 20, 0, 0, 0, (int64_t)1 << 40, (int64_t)dl.n);
    memcpy(p, dl.p, dl.n);
    rc = send_raw(name, "rio_read", in, (size_t)(p - in) + dl.n, &secs);
    CHECK(rc == -E2BIG, "endless walk: %d, expected %d", rc, -E2BIG);
    printf("hostile: a walk of 2^40 one-byte regions -> %d after %.2f s\n", rc, secs);

    /* and the OSD still serves */
    char buf[16] = {0};
    rc = rados_read(io, name, buf, 10, 0);
    CHECK(rc == 10 && !memcmp(buf, "0123456789", 10), "after hostile input: read %d", rc);
    rados_remove(io, name);
}

/* ---- the measurement ---------------------------------------------------- */

static int measure(const char *how, int64_t nper)
{
    /* 8-byte blocks 64 bytes apart, nper of them in each of 4 objects of
     * one stripe unit each (su = nper * 64); nper 131072 is 1 MiB of data
     * per object */
    const struct rio_cls_lua_layout lay = {nper * 64, 4, nper * 64};
    const int64_t len = 4 * nper * 8;
    struct wb b;
    struct rio_emu_dltype *type = NULL;
    b.n = 0;
    w64(&b, 64);
    wnode(&b, RIO_EMU_DL_LEAF, 1, 8, 0, 0, 64);
    if (rio__emu_dl_decode(b.p, b.n, &type))
        return 1;
    unsigned char *stream = malloc((size_t)len);
    for (int64_t s = 0; s < len; s++)
        stream[s] = pat(9, s);
    const char *base = "t_cls_lua.measure";
    remove_all(base);
    long long sent = 0;
    double t0 = now();
    if (!strncmp(how, "lua", 3)) {
        sent = lua_write(base, type->root, 64, 0, 0, len, stream, &lay,
                         strcmp(how, "lua-extents") ? RIO_CLS_LUA_AUTO : RIO_CLS_LUA_EXTENTS);
    } else {
        /* one compound write per object, one write per 8-byte extent */
        rados_completion_t comp[4];
        rados_write_op_t w[4];
        for (int o = 0; o < 4; o++) {
            char name[256];
            objname(name, sizeof name, base, o);
            w[o] = rados_create_write_op();
            for (int64_t s = 0; s < len; s += 8) {
                int64_t f = s * 8; /* the file offset of stream byte s */
                if (f / lay.su != o)
                    continue;
                int64_t at = f % lay.su;
                rados_write_op_write(w[o], (const char *)stream + s, 8, (uint64_t)at);
                sent += 8;
            }
            rados_aio_create_completion(NULL, NULL, NULL, &comp[o]);
            rados_aio_write_op_operate(w[o], io, comp[o], name, NULL, 0);
        }
        for (int o = 0; o < 4; o++) {
            rados_aio_wait_for_complete(comp[o]);
            int r = rados_aio_get_return_value(comp[o]);
            CHECK(r == 0, "list write of object %d: %d (%s)", o, r, strerror(-r));
            rados_aio_release(comp[o]);
            rados_release_write_op(w[o]);
        }
    }
    double secs = now() - t0;
    /* every way must leave the same bytes: plain reads of each object */
    unsigned char *obj = malloc((size_t)lay.os);
    for (int o = 0; o < 4; o++) {
        char name[256];
        objname(name, sizeof name, base, o);
        int n = rados_read(io, name, (char *)obj, (size_t)lay.os, 0);
        CHECK(n == (int)(lay.os - 56), "measure %s: object %d has %d bytes", how, o, n);
        for (int64_t k = 0; n == (int)(lay.os - 56) && k < nper; k++)
            if (memcmp(obj + k * 64, stream + (o * nper + k) * 8, 8)) {
                CHECK(0, "measure %s: object %d, block %lld differs", how, o, (long long)k);
                break;
            }
    }
    free(obj);
    printf("measure %s: %lld extents of 8 bytes in each of 4 objects, %s%lld, %.3f s, "
           "%.2f MB/s\n", how, (long long)nper, strncmp(how, "lua", 3) ? "payload bytes " :
           "class input bytes ", sent, secs, len / secs / 1e6);
    remove_all(base);
    free(stream);
    rio__emu_dl_free(type);
    return errs != 0;
}

int main(int argc, char **argv)
{
    rados_t cl;
    const char *conf = getenv("CEPH_CONF");
    int rc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!conf) {
        printf("t_cls_lua: CEPH_CONF is not set: run it under ctest (the ceph_cluster fixture)\n");
        return 1;
    }
    if ((rc = rados_create(&cl, NULL)) || (rc = rados_conf_read_file(cl, conf)) ||
        (rc = rados_conf_set(cl, "client_mount_timeout", "20")) ||
        (rc = rados_conf_set(cl, "rados_osd_op_timeout", "60")) || (rc = rados_connect(cl)) ||
        (rc = rados_ioctx_create(cl, "resonio", &io))) {
        printf("t_cls_lua: cannot reach the cluster of %s (pool resonio): %s\n", conf,
               strerror(-rc));
        return 1;
    }
    if (argc >= 3 && !strcmp(argv[1], "-measure")) {
        rc = measure(argv[2], argc > 3 ? atoll(argv[3]) : 131072);
    } else {
        const struct rio_cls_lua_layout lay = {8192, 3, 32768};
        /* a vector: 8-byte blocks, stride 64 */
        static const struct model vec = {0, 32, 8, 64, 0, 2048, NULL, NULL, {NULL, NULL}};
        one_type(1, "vector", &vec, 2048, 1000, 96 << 10, &lay);
        /* indexed, uneven blocks */
        static const int64_t id[] = {0, 10, 100, 129, 600, 700};
        static const int64_t il[] = {3, 17, 1, 250, 40, 299};
        static const struct model idx = {1, 6, 0, 0, 0, 1000, id, il, {NULL, NULL}};
        one_type(2, "indexed", &idx, 1000, 3, 150 << 10, &lay);
        /* FLASH-like: an hvector of a struct of a vector and an indexed type */
        static const int64_t cd[] = {0, 20, 50};
        static const int64_t cl_[] = {5, 11, 16};
        static const struct model a = {0, 4, 8, 24, 0, 96, NULL, NULL, {NULL, NULL}};
        static const struct model bb = {1, 3, 0, 0, 0, 66, cd, cl_, {NULL, NULL}};
        static const int64_t sd[] = {0, 300};
        static const int64_t sl[] = {2, 1};
        static const struct model st = {2, 2, 0, 0, 0, 512, sd, sl, {&a, &bb}};
        static const struct model hv = {3, 3, 1, 1024, 16, 4096, NULL, NULL, {&st, NULL}};
        one_type(3, "flash", &hv, 4096, 64, 80 << 10, &lay);
        hostile();
        rc = errs != 0;
    }
    rados_ioctx_destroy(io);
    rados_shutdown(cl);
    if (!rc)
        printf(" No Errors\n");
    else
        printf(" Found %d errors\n", errs);
    return rc;
}

/*
 * ceph_lua.c — datatype I/O at a Ceph OSD (ceph_lua.h): the script that
 * runs there, the request envelope, and the client's packing.
 *
 * The script is the OSD's half of dlwire.c: a decoder with the same
 * checks (kinds, depth, node count, counts, displacements, spans, sizes,
 * no trailing bytes), a recursive walk that starts at any stream byte
 * (binary search over prefix sums where blocks differ, division where they
 * do not) and the stripe arithmetic.  Lua 5.3 integers are 64-bit and wrap
 * silently, so every product of two values from the wire is checked
 * (cmul) and every sum stays within a few spans of 2^58.  The walk's
 * work is bounded by the pieces it splits, which it counts against
 * RIO_CLS_LUA_MAX_PIECES: the class has no CPU limit of its own, and a
 * script that runs away holds the OSD's operation thread (measured in
 * docs/ceph-lua.md).  Decoding and walking run under pcall so that any
 * check that fails becomes the handler's negative errno; the object
 * reads and writes run outside it so that the OSD's own error comes back
 * as is.
 *
 * The client side never re-implements the walk: it encodes the tree with
 * dlwire.c's encoder, decodes those bytes with dlwire.c's decoder (so it
 * walks exactly what the OSD will decode) and walks with the dataloop
 * core, splitting each region at stripe-unit edges exactly as the script
 * does, with the same piece count.
 *
 * The envelope is the class's own encoding of its eval operation: a
 * version byte (1), a compat byte (1), a 32-bit length of what follows,
 * then three 32-bit-length-prefixed strings: script, handler name, input.
 */
#include "ceph_lua.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The OSD's half; ceph_lua.h describes the input it takes. */
const char rio__cls_lua_script[] =
    "-- Datatype I/O at the OSD: walk a dataloop over a stream range and write\n"
    "-- or read the pieces that fall in this object (src/store/ceph_lua.h).\n"
    "local EINVAL, EBADMSG, EMSGSIZE, E2BIG = 22, 74, 90, 7\n"
    "local MAXDEPTH, MAXNODES = 32, 4096\n"
    "local MAXCOUNT, MAXDISP, MAXSIZE = 1 << 40, 1 << 50, 1 << 50\n"
    "local MAXSPAN, MAXOFF, MAXPIECES = 1 << 58, 1 << 50, 1 << 22\n"
    "local unpack, sub, rep = string.unpack, string.sub, string.rep\n"
    "\n"
    "local function fail(e) error({rio = e}, 0) end\n"
    "\n"
    "-- |a * b| <= lim with a >= 0, or fail\n"
    "local function cmul(a, b, lim)\n"
    "  if a ~= 0 and (b > lim // a or b < -(lim // a)) then fail(EINVAL) end\n"
    "  return a * b\n"
    "end\n"
    "\n"
    "local function decode(s, p, e)\n"
    "  local nodes = 0\n"
    "  local function i64()\n"
    "    if p + 7 > e then fail(EBADMSG) end\n"
    "    local v = unpack(\"<i8\", s, p)\n"
    "    p = p + 8\n"
    "    return v\n"
    "  end\n"
    "  local function count_ok(v) return v >= 1 and v <= MAXCOUNT end\n"
    "  local function disp_ok(v) return v >= -MAXDISP and v <= MAXDISP end\n"
    "  local function array(n, ok)\n"
    "    if n > (e - p + 1) // 8 then fail(EBADMSG) end\n"
    "    local a = {}\n"
    "    for i = 1, n do\n"
    "      local v = i64()\n"
    "      if not ok(v) then fail(EINVAL) end\n"
    "      a[i] = v\n"
    "    end\n"
    "    return a\n"
    "  end\n"
    "  local function node(depth)\n"
    "    nodes = nodes + 1\n"
    "    if depth > MAXDEPTH or nodes > MAXNODES then fail(EMSGSIZE) end\n"
    "    if p > e then fail(EBADMSG) end\n"
    "    local kind = s:byte(p)\n"
    "    p = p + 1\n"
    "    if kind & ~0xf ~= 0 or (kind & 8 ~= 0 and kind & 1 ~= 0) then fail(EBADMSG) end\n"
    "    local d = {leaf = kind & 1 ~= 0}\n"
    "    d.nb, d.bl, d.st, d.off, d.ext = i64(), i64(), i64(), i64(), i64()\n"
    "    if not count_ok(d.nb) or not disp_ok(d.st) or not disp_ok(d.off) or not disp_ok(d.ext)\n"
    "       or (kind & 4 == 0 and not count_ok(d.bl)) then fail(EINVAL) end\n"
    "    if kind & 2 ~= 0 then d.displs = array(d.nb, disp_ok) end\n"
    "    if kind & 4 ~= 0 then d.blens = array(d.nb, count_ok) end\n"
    "    if kind & 8 ~= 0 then\n"
    "      if d.nb > MAXNODES then fail(EMSGSIZE) end\n"
    "      d.children = {}\n"
    "      for i = 1, d.nb do d.children[i] = node(depth + 1) end\n"
    "    elseif not d.leaf then\n"
    "      d.child = node(depth + 1)\n"
    "    end\n"
    "    -- size of one instance, and prefix sums where blocks differ\n"
    "    local function blen(i) return d.blens and d.blens[i] or d.bl end\n"
    "    local function ch(i) return d.children and d.children[i] or d.child end\n"
    "    local function esize(i) return d.leaf and 1 or ch(i).size end\n"
    "    if d.blens or d.children then\n"
    "      d.prefix = {[1] = 0}\n"
    "      local size = 0\n"
    "      for i = 1, d.nb do\n"
    "        local b = cmul(blen(i), esize(i), MAXSIZE)\n"
    "        if b > MAXSIZE - size then fail(EINVAL) end\n"
    "        size = size + b\n"
    "        d.prefix[i + 1] = size\n"
    "      end\n"
    "      d.size = size\n"
    "    else\n"
    "      d.bsize = cmul(d.bl, esize(1), MAXSIZE)\n"
    "      d.size = cmul(d.nb, d.bsize, MAXSIZE)\n"
    "    end\n"
    "    -- the bounds of the data, checked (uniform nodes: first and last block)\n"
    "    local lo, hi = MAXSPAN, -MAXSPAN\n"
    "    local uniform = not d.displs and not d.blens and not d.children\n"
    "    local i = 1\n"
    "    while i <= d.nb do\n"
    "      local start = d.displs and d.displs[i] or cmul(i - 1, d.st, 1 << 59)\n"
    "      start = start + d.off\n"
    "      local n, blo, bhi = blen(i)\n"
    "      if d.leaf then\n"
    "        blo, bhi = start, start + n\n"
    "      else\n"
    "        local c = ch(i)\n"
    "        local reach = cmul(n - 1, c.ext, 1 << 59)\n"
    "        blo = start + (reach < 0 and reach or 0) + c.tlb\n"
    "        bhi = start + (reach > 0 and reach or 0) + c.tub\n"
    "      end\n"
    "      if blo < -MAXSPAN or bhi > MAXSPAN or bhi < -MAXSPAN or blo > MAXSPAN then fail(EINVAL) end\n"
    "      if blo < lo then lo = blo end\n"
    "      if bhi > hi then hi = bhi end\n"
    "      if uniform and i == 1 and d.nb > 1 then i = d.nb else i = i + 1 end\n"
    "    end\n"
    "    d.tlb, d.tub = lo, hi\n"
    "    return d\n"
    "  end\n"
    "  local tile = i64()\n"
    "  if tile < 0 or tile > MAXDISP then fail(EINVAL) end\n"
    "  local root = node(1)\n"
    "  if p ~= e + 1 then fail(EBADMSG) end\n"
    "  return tile, root\n"
    "end\n"
    "\n"
    "-- The regions of want data bytes of the instance of d at origin base,\n"
    "-- from its data byte rem; emit(off, len) for each; returns the bytes.\n"
    "local function inst(d, base, rem, want, emit)\n"
    "  local o, k = base + d.off\n"
    "  if d.prefix then\n"
    "    local a, b = 1, d.nb   -- last block whose prefix <= rem\n"
    "    while a < b do\n"
    "      local m = (a + b + 1) // 2\n"
    "      if d.prefix[m] <= rem then a = m else b = m - 1 end\n"
    "    end\n"
    "    k = a\n"
    "    rem = rem - d.prefix[k]\n"
    "  else\n"
    "    k = rem // d.bsize + 1\n"
    "    rem = rem % d.bsize\n"
    "  end\n"
    "  local got = 0\n"
    "  while k <= d.nb and got < want do\n"
    "    local at = o + (d.displs and d.displs[k] or (k - 1) * d.st)\n"
    "    local n = d.blens and d.blens[k] or d.bl\n"
    "    if d.leaf then\n"
    "      local m = n - rem\n"
    "      if m > want - got then m = want - got end\n"
    "      emit(at + rem, m)\n"
    "      got = got + m\n"
    "    else\n"
    "      local c = d.children and d.children[k] or d.child\n"
    "      local el, er = rem // c.size, rem % c.size\n"
    "      while el < n and got < want do\n"
    "        got = got + inst(c, at + el * c.ext, er, want - got, emit)\n"
    "        er, el = 0, el + 1\n"
    "      end\n"
    "    end\n"
    "    rem, k = 0, k + 1\n"
    "  end\n"
    "  return got\n"
    "end\n"
    "\n"
    "-- Decode the request; returns the pieces (object offsets, lengths) of the\n"
    "-- stream range in this object, in stream order, and where the data starts.\n"
    "local function plan(s)\n"
    "  if #s < 80 or sub(s, 1, 4) ~= \"RIO1\" then fail(EBADMSG) end\n"
    "  local mode, su, sc, os, obj, disp, pos, len, dllen = unpack(\"<i8i8i8i8i8i8i8i8i8\", s, 5)\n"
    "  if mode < 0 or mode > 2 or su < 1 or sc < 1 or sc > MAXCOUNT or os < su\n"
    "     or os % su ~= 0 or os > 0x7fffffff or obj < 0 or obj > MAXOFF or disp < 0\n"
    "     or disp > MAXOFF or pos < 0 or pos > MAXOFF or len < 0 or len > MAXOFF\n"
    "     or dllen < 9 or dllen > #s - 76 then fail(EINVAL) end\n"
    "  local tile_extent, root = decode(s, 77, 76 + dllen)\n"
    "  local per = os // su\n"
    "  local po, pl, np, npieces = {}, {}, 0, 0\n"
    "  local function emit(off, n)\n"
    "    if off < 0 or off > MAXOFF or n > MAXOFF - off then fail(EINVAL) end\n"
    "    while n > 0 do\n"
    "      npieces = npieces + 1\n"
    "      if npieces > MAXPIECES then fail(E2BIG) end\n"
    "      local block = off // su\n"
    "      local inunit = off % su\n"
    "      local m = su - inunit\n"
    "      if m > n then m = n end\n"
    "      local stripe = block // sc\n"
    "      if (stripe // per) * sc + block % sc == obj then\n"
    "        local at = (stripe % per) * su + inunit\n"
    "        if np > 0 and po[np] + pl[np] == at then\n"
    "          pl[np] = pl[np] + m\n"
    "        else\n"
    "          np = np + 1\n"
    "          po[np], pl[np] = at, m\n"
    "        end\n"
    "      end\n"
    "      off, n = off + m, n - m\n"
    "    end\n"
    "  end\n"
    "  if len > 0 then\n"
    "    local tile, rem, got = pos // root.size, pos % root.size, 0\n"
    "    while got < len do\n"
    "      local origin = disp + cmul(tile, tile_extent, MAXOFF + MAXSPAN)\n"
    "      if origin > MAXOFF + MAXSPAN then fail(EINVAL) end\n"
    "      got = got + inst(root, origin, rem, len - got, emit)\n"
    "      tile, rem = tile + 1, 0\n"
    "    end\n"
    "  end\n"
    "  local total, mono = 0, true\n"
    "  for i = 1, np do\n"
    "    total = total + pl[i]\n"
    "    if i > 1 and po[i] < po[i - 1] + pl[i - 1] then mono = false end\n"
    "  end\n"
    "  local span = np > 0 and po[np] + pl[np] - po[1] or 0\n"
    "  local usespan = mono and np > 1 and (mode == 2 or (mode == 0 and span <= 16 * total))\n"
    "  return po, pl, np, total, usespan, 77 + dllen\n"
    "end\n"
    "\n"
    "-- bytes [a, b) of the object as read in old (which starts at lo), zeros past its end\n"
    "local function old_bytes(old, lo, a, b)\n"
    "  local x = sub(old, a - lo + 1, b - lo)\n"
    "  if #x < b - a then x = x .. rep(\"\\0\", b - a - #x) end\n"
    "  return x\n"
    "end\n"
    "\n"
    "function rio_write(input, output)\n"
    "  local s = input:str()\n"
    "  local ok, po, pl, np, total, usespan, d = pcall(plan, s)\n"
    "  if not ok then return type(po) == \"table\" and -po.rio or -EINVAL end\n"
    "  if #s - d + 1 ~= total then return -EINVAL end\n"
    "  if usespan then\n"
    "    local lo, hi = po[1], po[np] + pl[np]\n"
    "    local old = objclass.read(lo, hi - lo):str()\n"
    "    local parts, at = {}, lo\n"
    "    for i = 1, np do\n"
    "      if po[i] > at then parts[#parts + 1] = old_bytes(old, lo, at, po[i]) end\n"
    "      parts[#parts + 1] = sub(s, d, d + pl[i] - 1)\n"
    "      d, at = d + pl[i], po[i] + pl[i]\n"
    "    end\n"
    "    local bl = bufferlist.new()\n"
    "    bl:append(table.concat(parts))\n"
    "    objclass.write(lo, hi - lo, bl)\n"
    "  else\n"
    "    for i = 1, np do\n"
    "      local bl = bufferlist.new()\n"
    "      bl:append(sub(s, d, d + pl[i] - 1))\n"
    "      objclass.write(po[i], pl[i], bl)\n"
    "      d = d + pl[i]\n"
    "    end\n"
    "  end\n"
    "  return 0\n"
    "end\n"
    "\n"
    "function rio_read(input, output)\n"
    "  local s = input:str()\n"
    "  local ok, po, pl, np, total, usespan, d = pcall(plan, s)\n"
    "  if not ok then return type(po) == \"table\" and -po.rio or -EINVAL end\n"
    "  if d ~= #s + 1 then return -EINVAL end\n"
    "  local parts = {}\n"
    "  if usespan then\n"
    "    local lo, hi = po[1], po[np] + pl[np]\n"
    "    local old = objclass.read(lo, hi - lo):str()\n"
    "    for i = 1, np do parts[i] = old_bytes(old, lo, po[i], po[i] + pl[i]) end\n"
    "  else\n"
    "    for i = 1, np do\n"
    "      local x = objclass.read(po[i], pl[i]):str()\n"
    "      if #x < pl[i] then x = x .. rep(\"\\0\", pl[i] - #x) end\n"
    "      parts[i] = x\n"
    "    end\n"
    "  end\n"
    "  output:append(table.concat(parts))\n"
    "  return 0\n"
    "end\n"
    "\n"
    "objclass.register(rio_write)\n"
    "objclass.register(rio_read)\n";

#define HEADER_BYTES 76 /* "RIO1" and nine i64 */

/* Contract in ceph_lua.h. */
int rio__cls_lua_req_init(struct rio_cls_lua_req *r, const struct rio_dl *root,
                          int64_t tile_extent, int64_t disp, int64_t pos, int64_t len,
                          const struct rio_cls_lua_layout *lay)
{
    int rc;
    memset(r, 0, sizeof *r);
    if (lay->su < 1 || lay->sc < 1 || lay->sc > RIO_EMU_DL_MAX_COUNT || lay->os < lay->su ||
        lay->os % lay->su || lay->os > RIO_CLS_LUA_MAX_OBJECT || disp < 0 ||
        disp > RIO_EMU_MAX_OFFSET || pos < 0 || pos > RIO_EMU_MAX_OFFSET || len < 0 ||
        len > RIO_EMU_MAX_OFFSET)
        return -EINVAL;
    if ((rc = rio__emu_dl_encode(root, tile_extent, &r->dl, &r->dllen)))
        return rc;
    /* what the OSD will decode, with its checks */
    if ((rc = rio__emu_dl_decode(r->dl, r->dllen, &r->type)))
        return rc == -EBADMSG ? -EINVAL : rc;
    r->disp = disp;
    r->pos = pos;
    r->len = len;
    r->lay = *lay;
    return 0;
}

/* Contract in ceph_lua.h. */
void rio__cls_lua_req_fini(struct rio_cls_lua_req *r)
{
    free(r->dl);
    rio__emu_dl_free(r->type);
    memset(r, 0, sizeof *r);
}

/* ---- the client's walk: regions split into stripe-unit pieces --------- */

/* Called for each piece: object, offset in it, bytes, stream offset from
 * the range's start. */
typedef int (*piece_fn)(void *arg, int64_t obj, int64_t ooff, int64_t n, int64_t spos);

struct split {
    const struct rio_cls_lua_layout *lay;
    int64_t spos, pieces;
    piece_fn fn;
    void *arg;
};

static int split_region(void *arg, int64_t off, int64_t n)
{
    struct split *s = arg;
    const int64_t su = s->lay->su, sc = s->lay->sc, per = s->lay->os / su;
    while (n > 0) {
        if (++s->pieces > RIO_CLS_LUA_MAX_PIECES)
            return -E2BIG;
        int64_t block = off / su, inunit = off % su, m = su - inunit;
        if (m > n)
            m = n;
        int64_t stripe = block / sc;
        int rc = s->fn(s->arg, (stripe / per) * sc + block % sc, (stripe % per) * su + inunit, m,
                       s->spos);
        if (rc)
            return rc;
        off += m;
        n -= m;
        s->spos += m;
    }
    return 0;
}

static int walk_pieces(const struct rio_cls_lua_req *r, piece_fn fn, void *arg)
{
    struct split s = {&r->lay, 0, 0, fn, arg};
    return rio__emu_dl_walk(r->type, r->disp, r->pos, r->len, split_region, &s);
}

struct objlist {
    int64_t *objs;
    size_t cap, n;
};

static int note_object(void *arg, int64_t obj, int64_t ooff, int64_t n, int64_t spos)
{
    struct objlist *l = arg;
    (void)ooff;
    (void)n;
    (void)spos;
    /* a linear search: a call touches a few objects per stripe count */
    for (size_t i = 0; i < l->n; i++)
        if (l->objs[i] == obj)
            return 0;
    if (l->n >= l->cap)
        return -ENOSPC;
    l->objs[l->n++] = obj;
    return 0;
}

/* Contract in ceph_lua.h. */
int rio__cls_lua_objects(const struct rio_cls_lua_req *r, int64_t *objs, size_t cap, size_t *n)
{
    struct objlist l = {objs, cap, 0};
    int rc = walk_pieces(r, note_object, &l);
    *n = l.n;
    return rc;
}

struct copy {
    int64_t obj;
    unsigned char *dst;
    const unsigned char *src;
    size_t done, limit;
    int to_stream;
};

static int copy_piece(void *arg, int64_t obj, int64_t ooff, int64_t n, int64_t spos)
{
    struct copy *c = arg;
    (void)ooff;
    if (obj != c->obj)
        return 0;
    if (c->to_stream) {
        if ((uint64_t)n > c->limit - c->done)
            return -EINVAL;
        memcpy(c->dst + spos, c->src + c->done, (size_t)n);
    } else if (c->dst) {
        memcpy(c->dst + c->done, c->src + spos, (size_t)n);
    }
    c->done += (size_t)n;
    return 0;
}

/* Contract in ceph_lua.h. */
int rio__cls_lua_gather(const struct rio_cls_lua_req *r, int64_t obj, const void *stream,
                        void *packed, size_t *n)
{
    struct copy c = {obj, packed, stream, 0, 0, 0};
    int rc = walk_pieces(r, copy_piece, &c);
    *n = c.done;
    return rc;
}

/* Contract in ceph_lua.h. */
int rio__cls_lua_scatter(const struct rio_cls_lua_req *r, int64_t obj, const void *packed,
                         size_t n, void *stream)
{
    struct copy c = {obj, stream, packed, 0, n, 1};
    int rc = walk_pieces(r, copy_piece, &c);
    if (!rc && c.done != n)
        rc = -EINVAL;
    return rc;
}

struct srange {
    int64_t obj, first, end;
};

static int note_range(void *arg, int64_t obj, int64_t ooff, int64_t n, int64_t spos)
{
    struct srange *g = arg;
    (void)ooff;
    if (obj == g->obj) {
        if (g->end == 0)
            g->first = spos;
        g->end = spos + n;
    }
    return 0;
}

/* ---- the envelope ------------------------------------------------------ */

static void put_string(struct rio_emu_buf *b, const void *p, size_t n)
{
    rio__emu_put_u32(b, (uint32_t)n);
    rio__emu_put_bytes(b, p, n);
}

/* Contract in ceph_lua.h. */
int rio__cls_lua_op(const struct rio_cls_lua_req *r, int64_t obj, int write,
                    enum rio_cls_lua_mode mode, const void *packed, size_t n,
                    unsigned char **op, size_t *oplen)
{
    static const char *const handler[2] = {"rio_read", "rio_write"};
    struct rio_emu_buf b = {0};
    size_t script = strlen(rio__cls_lua_script), input;
    *op = NULL;
    *oplen = 0;
    if (obj < 0 || obj > RIO_EMU_MAX_OFFSET || (unsigned)mode > RIO_CLS_LUA_SPAN ||
        (!write && n) || (write && n && !packed))
        return -EINVAL;
    /* the OSD walks only the part of the range that holds this object's
     * bytes: the pieces, their order and the data are the same, and the
     * other objects' requests do not make it walk theirs */
    struct srange g = {obj, 0, 0};
    int rc = walk_pieces(r, note_range, &g);
    if (rc)
        return rc;
    input = HEADER_BYTES + r->dllen + n;
    /* everything after the first six bytes must fit the 32-bit length */
    if (n > UINT32_MAX || input > UINT32_MAX - 12 - script - 16)
        return -EMSGSIZE;
    unsigned char *h = rio__emu_buf_grow(&b, 2);
    if (h)
        h[0] = h[1] = 1; /* version, compat */
    rio__emu_put_u32(&b, (uint32_t)(12 + script + strlen(handler[!!write]) + input));
    put_string(&b, rio__cls_lua_script, script);
    put_string(&b, handler[!!write], strlen(handler[!!write]));
    rio__emu_put_u32(&b, (uint32_t)input);
    rio__emu_put_bytes(&b, "RIO1", 4);
    const int64_t v[9] = {mode, r->lay.su, r->lay.sc, r->lay.os, obj, r->disp,
                          r->pos + g.first, g.end - g.first, (int64_t)r->dllen};
    for (int i = 0; i < 9; i++)
        rio__emu_put_u64(&b, (uint64_t)v[i]);
    rio__emu_put_bytes(&b, r->dl, r->dllen);
    if (n)
        rio__emu_put_bytes(&b, packed, n);
    if (b.err) {
        rc = b.err;
        rio__emu_buf_free(&b);
        return rc;
    }
    *op = b.p;
    *oplen = b.n;
    return 0;
}

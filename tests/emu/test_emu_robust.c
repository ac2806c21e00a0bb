/*
 * test_emu_robust.c — resonio-emud against malformed input, dying
 * clients and restarts.
 *
 * Over a raw socket: a bad magic, version or op, a truncated header, a
 * length past the limit, a truncated payload, lists with absurd counts or
 * bad entries, negative and huge offsets, names out of range, trailing
 * bytes, and dataloops too deep, too wide, too large, empty or mapping
 * outside the file.  Each gets the error reply it should (or, for a
 * truncated message, a closed connection) and after each the server still
 * serves a valid request: a file written before is read back intact.
 * Then clients that die in the middle of a request or while holding a
 * lock, one that stops inside a message and stays connected (closed after
 * --stall-s) next to one idle between messages (kept), and a stop and
 * start that keeps files, layouts and data.
 *
 * Usage: test_emu_robust <resonio-emud>
 */
#include "emu/client.h"
#include "emu/dlwire.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>

#include "emu_test.h"
#include "../unit/unit.h"

#define NAME "robust-file"
#define FSIZE 200000

static unsigned char ref[FSIZE];

static int raw_connect(int t)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s/t%d.sock", emu_dir, t);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) {
        if (s >= 0)
            close(s);
        return -1;
    }
    struct timeval tv = {5, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return s;
}

static int send_raw(int s, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(s, c, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The status of the next reply on s; 1 if the server closed the
 * connection, 2 on timeout or garbage. */
static int reply_status(int s)
{
    unsigned char h[RIO_EMU_HDR_SIZE];
    size_t got = 0;
    while (got < sizeof h) {
        ssize_t r = recv(s, h + got, sizeof h - got, 0);
        if (r == 0)
            return 1;
        if (r < 0)
            return 2;
        got += (size_t)r;
    }
    /* read the fields directly: the reply to an unknown op echoes it */
    uint64_t length = rio__emu_get64(h + 24);
    if (rio__emu_get32(h) != RIO_EMU_MAGIC || !(rio__emu_get32(h + 8) & RIO_EMU_F_REPLY) ||
        length > RIO_EMU_MAX_PAYLOAD)
        return 2;
    unsigned char sink[4096];
    for (uint64_t left = length; left;) {
        ssize_t r = recv(s, sink, left < sizeof sink ? left : sizeof sink, 0);
        if (r <= 0)
            return 2;
        left -= (uint64_t)r;
    }
    return (int32_t)rio__emu_get32(h + 12);
}

/* A header with the given fields (payload length as told, not as sent). */
static void hdr(unsigned char *out, uint32_t magic, uint16_t version, uint16_t op, uint64_t len)
{
    struct rio_emu_hdr h = {version, op, 0, 0, 77, len};
    rio__emu_hdr_encode(out, &h);
    rio__emu_put32(out, magic);
}

/* Send op with payload b (after its header room) on a fresh connection;
 * the reply's status, then a valid stats request on the same connection
 * must still work when keep is set. */
static int send_msg(unsigned op, struct rio_emu_buf *b, int keep)
{
    int s = raw_connect(0);
    if (s < 0)
        return 3;
    rio__emu_msg_end(b, op, 0, 0, 5);
    int st = send_raw(s, b->p, b->n) ? 3 : reply_status(s);
    if (keep && st <= 0) {
        struct rio_emu_buf q = {0};
        rio__emu_msg_begin(&q);
        rio__emu_msg_end(&q, RIO_EMU_OP_STATS_GET, 0, 0, 6);
        CHECK(!send_raw(s, q.p, q.n) && reply_status(s) == 0,
              "the connection is not usable after a refused %s", rio__emu_op_name(op));
        rio__emu_buf_free(&q);
    }
    close(s);
    rio__emu_buf_free(b);
    return st;
}

/* The server still answers: a fresh client finds the file at its size. */
static void healthy(const char *after)
{
    struct rio_emu_client *cl = NULL;
    struct rio_emu_layout lay;
    int64_t size = -1;
    int rc = rio__emu_connect(emu_dir, &cl);
    if (!rc)
        rc = rio__emu_lookup(cl, NAME, &lay);
    if (!rc)
        rc = rio__emu_get_size(cl, &lay, &size);
    CHECK(rc == 0 && size == FSIZE, "after %s: the server does not answer (%s) or size %lld",
          after, strerror(-rc), (long long)size);
    rio__emu_disconnect(cl);
}

static int rw(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int wr, void *buf,
              int64_t off, int64_t len, int64_t *done)
{
    struct one g = {off, len, 0};
    struct iovec v = {buf, (size_t)len};
    return rio__emu_rw(cl, lay, wr, one_next, &g, NULL, &v, 1, done);
}

static void check_content(const char *after)
{
    struct rio_emu_client *cl = NULL;
    struct rio_emu_layout lay;
    static unsigned char back[FSIZE];
    int64_t done = -1;
    int rc = rio__emu_connect(emu_dir, &cl);
    if (!rc)
        rc = rio__emu_lookup(cl, NAME, &lay);
    if (!rc)
        rc = rw(cl, &lay, 0, back, 0, FSIZE, &done);
    CHECK(rc == 0 && done == FSIZE && !memcmp(back, ref, FSIZE),
          "after %s: the file does not read back (rc %d, %lld bytes)", after, rc,
          (long long)done);
    rio__emu_disconnect(cl);
}

/* ---- the cases ---------------------------------------------------------------------- */

static void framing_cases(void)
{
    unsigned char h[RIO_EMU_HDR_SIZE];
    int s, st;

    hdr(h, 0xdeadbeef, RIO_EMU_VERSION, RIO_EMU_OP_STATS_GET, 0);
    s = raw_connect(0);
    st = send_raw(s, h, sizeof h) ? 3 : reply_status(s);
    CHECK(st == -EPROTO, "bad magic: status %d, expected -EPROTO", st);
    CHECK(reply_status(s) == 1, "bad magic: the connection stays open");
    close(s);
    check_content("a bad magic");

    hdr(h, RIO_EMU_MAGIC, 99, RIO_EMU_OP_STATS_GET, 0);
    s = raw_connect(0);
    st = send_raw(s, h, sizeof h) ? 3 : reply_status(s);
    CHECK(st == -EPROTO, "bad version: status %d", st);
    close(s);
    healthy("a bad version");

    hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, 999, 0);
    s = raw_connect(0);
    st = send_raw(s, h, sizeof h) ? 3 : reply_status(s);
    CHECK(st == -EPROTO, "unknown op: status %d", st);
    close(s);
    healthy("an unknown op");

    hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, RIO_EMU_OP_WRITE, RIO_EMU_MAX_PAYLOAD + 1);
    s = raw_connect(0);
    st = send_raw(s, h, sizeof h) ? 3 : reply_status(s);
    CHECK(st == -EMSGSIZE, "length past the limit: status %d", st);
    close(s);
    hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, RIO_EMU_OP_WRITE, UINT64_MAX);
    s = raw_connect(0);
    st = send_raw(s, h, sizeof h) ? 3 : reply_status(s);
    CHECK(st == -EMSGSIZE, "length 2^64-1: status %d", st);
    close(s);
    healthy("an oversized length");

    /* truncated header: half of it, then the client stops sending */
    hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, RIO_EMU_OP_STATS_GET, 0);
    s = raw_connect(0);
    send_raw(s, h, 10);
    shutdown(s, SHUT_WR);
    st = reply_status(s);
    CHECK(st == 1, "truncated header: expected the connection closed, got %d", st);
    close(s);
    healthy("a truncated header");

    /* truncated payload */
    hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, RIO_EMU_OP_WRITE, 24 + 100);
    s = raw_connect(0);
    send_raw(s, h, sizeof h);
    send_raw(s, h, sizeof h); /* 32 of the 124 payload bytes */
    shutdown(s, SHUT_WR);
    st = reply_status(s);
    CHECK(st == 1, "truncated payload: expected the connection closed, got %d", st);
    close(s);
    check_content("a truncated payload");
}

static void payload_cases(const struct rio_emu_layout *lay)
{
    struct rio_emu_buf b = {0};
    int st;

#define BEGIN() (rio__emu_msg_begin(&b), (void)0)
    /* list with an absurd count */
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u32(&b, 0xffffffffu);
    st = send_msg(RIO_EMU_OP_WRITE_LIST, &b, 1);
    CHECK(st == -EMSGSIZE, "list of 2^32-1 entries: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u32(&b, 10); /* 10 announced, 2 sent */
    for (int i = 0; i < 4; i++)
        rio__emu_put_u64(&b, 8);
    st = send_msg(RIO_EMU_OP_READ_LIST, &b, 1);
    CHECK(st == -EBADMSG, "list shorter than its count: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u32(&b, 1);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, (uint64_t)-5);
    st = send_msg(RIO_EMU_OP_READ_LIST, &b, 1);
    CHECK(st == -EINVAL, "list entry of negative length: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u32(&b, 2);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, (uint64_t)RIO_EMU_MAX_DATA);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, 1);
    st = send_msg(RIO_EMU_OP_READ_LIST, &b, 1);
    CHECK(st == -EMSGSIZE, "list totalling more than the data limit: status %d", st);
    /* offsets */
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, (uint64_t)-1);
    rio__emu_put_u64(&b, 10);
    st = send_msg(RIO_EMU_OP_READ, &b, 1);
    CHECK(st == -EINVAL, "read at offset -1: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, (uint64_t)1 << 62);
    rio__emu_put_u64(&b, 10);
    st = send_msg(RIO_EMU_OP_READ, &b, 1);
    CHECK(st == -EINVAL, "read at offset 2^62: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, (uint64_t)RIO_EMU_MAX_OFFSET - 5);
    rio__emu_put_u64(&b, 10);
    st = send_msg(RIO_EMU_OP_READ, &b, 1);
    CHECK(st == -EINVAL, "read past the offset limit: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, (uint64_t)RIO_EMU_MAX_DATA + 1);
    st = send_msg(RIO_EMU_OP_READ, &b, 1);
    CHECK(st == -EMSGSIZE, "read longer than the data limit: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, 100);
    rio__emu_put_u64(&b, 1); /* 8 of the 100 data bytes */
    st = send_msg(RIO_EMU_OP_WRITE, &b, 1);
    CHECK(st == -EBADMSG, "write with less data than announced: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, 5);
    st = send_msg(RIO_EMU_OP_GET_SIZE, &b, 1);
    CHECK(st == -EBADMSG, "trailing bytes: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, (uint64_t)-1);
    st = send_msg(RIO_EMU_OP_SET_SIZE, &b, 1);
    CHECK(st == -EINVAL, "negative size: status %d", st);
    /* names */
    BEGIN();
    st = send_msg(RIO_EMU_OP_LOOKUP, &b, 1);
    CHECK(st == -EINVAL, "empty name: status %d", st);
    BEGIN();
    rio__emu_put_bytes(&b, "a\0b", 3);
    st = send_msg(RIO_EMU_OP_LOOKUP, &b, 1);
    CHECK(st == -EINVAL, "name with a NUL: status %d", st);
    BEGIN();
    {
        char big[RIO_EMU_MAX_NAME + 1];
        memset(big, 'x', sizeof big);
        rio__emu_put_bytes(&b, big, sizeof big);
    }
    st = send_msg(RIO_EMU_OP_LOOKUP, &b, 1);
    CHECK(st == -EINVAL, "name too long: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, 1);
    rio__emu_put_u32(&b, 100000);
    rio__emu_put_bytes(&b, "x", 1);
    st = send_msg(RIO_EMU_OP_CREATE, &b, 1);
    CHECK(st == -EINVAL, "create over 100000 targets: status %d", st);
    BEGIN();
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u32(&b, 7);
    st = send_msg(RIO_EMU_OP_LOCK, &b, 1);
    CHECK(st == -EINVAL, "lock mode 7: status %d", st);
    check_content("malformed payloads");
}

/* A datatype request with dataloop dl (and data) on target 0. */
static int send_dt(const struct rio_emu_layout *lay, unsigned op, const struct rio_emu_buf *dl,
                   int64_t pos, int64_t len, const void *data, size_t dlen)
{
    struct rio_emu_buf b = {0};
    rio__emu_msg_begin(&b);
    rio__emu_put_u64(&b, lay->fid);
    rio__emu_put_u64(&b, (uint64_t)lay->unit);
    rio__emu_put_u32(&b, lay->count);
    rio__emu_put_u32(&b, (lay->count - lay->first % lay->count) % lay->count);
    rio__emu_put_u64(&b, 0);
    rio__emu_put_u64(&b, (uint64_t)pos);
    rio__emu_put_u64(&b, (uint64_t)len);
    rio__emu_put_u32(&b, (uint32_t)dl->n);
    rio__emu_put_bytes(&b, dl->p, dl->n);
    rio__emu_put_bytes(&b, data, dlen);
    return send_msg(op, &b, 1);
}

static void node(struct rio_emu_buf *b, unsigned kind, int64_t nblocks, int64_t blocklen,
                 int64_t stride, int64_t off, int64_t extent)
{
    unsigned char *k = rio__emu_buf_grow(b, 1);
    *k = (unsigned char)kind;
    rio__emu_put_u64(b, (uint64_t)nblocks);
    rio__emu_put_u64(b, (uint64_t)blocklen);
    rio__emu_put_u64(b, (uint64_t)stride);
    rio__emu_put_u64(b, (uint64_t)off);
    rio__emu_put_u64(b, (uint64_t)extent);
}

static void dataloop_cases(const struct rio_emu_layout *lay)
{
    struct rio_emu_buf dl = {0};
    int st;

    /* too deep: 40 nested contigs over a leaf */
    rio__emu_put_u64(&dl, 8);
    for (int i = 0; i < 40; i++)
        node(&dl, 0, 1, 1, 0, 0, 8);
    node(&dl, RIO_EMU_DL_LEAF, 1, 8, 0, 0, 8);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EMSGSIZE, "dataloop of depth 41: status %d", st);
    rio__emu_buf_free(&dl);

    /* too many nodes: a struct of 5000 leaves */
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_STRUCT | RIO_EMU_DL_DISPLS, 5000, 1, 0, 0, 8);
    for (int i = 0; i < 5000; i++)
        rio__emu_put_u64(&dl, (uint64_t)i);
    for (int i = 0; i < 5000; i++)
        node(&dl, RIO_EMU_DL_LEAF, 1, 1, 0, 0, 1);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EMSGSIZE, "dataloop of 5001 nodes: status %d", st);
    rio__emu_buf_free(&dl);

    /* an index array of 2^40 entries announced, 2 sent */
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_LEAF | RIO_EMU_DL_DISPLS, (int64_t)1 << 40, 1, 0, 0, 8);
    rio__emu_put_u64(&dl, 0);
    rio__emu_put_u64(&dl, 1);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EBADMSG, "index array longer than the message: status %d", st);
    rio__emu_buf_free(&dl);

    /* a count past the limit, an empty block, a displacement past the limit */
    int64_t bad[3][5] = {{(int64_t)1 << 41, 1, 0, 0, 8},
                         {1, 0, 0, 0, 8},
                         {1, 1, 0, (int64_t)1 << 52, 8}};
    for (int i = 0; i < 3; i++) {
        rio__emu_put_u64(&dl, 8);
        node(&dl, RIO_EMU_DL_LEAF, bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4]);
        st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
        CHECK(st == -EINVAL, "dataloop field out of range (case %d): status %d", i, st);
        rio__emu_buf_free(&dl);
    }

    /* sizes that overflow: vector of 2^40 x 2^40-byte blocks */
    rio__emu_put_u64(&dl, 8);
    node(&dl, 0, (int64_t)1 << 40, (int64_t)1 << 40, 0, 0, 8);
    node(&dl, RIO_EMU_DL_LEAF, 1 << 20, 1 << 20, 1 << 20, 0, 8);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EINVAL, "dataloop whose size overflows: status %d", st);
    rio__emu_buf_free(&dl);

    /* data spread wider than a walk can address without overflow: 2^40
     * one-byte blocks 2^50 apart (each value within its own limit, the
     * first byte inside the file), refused when decoded, so that no
     * walk, however short, computes offsets past 2^63 */
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_LEAF, (int64_t)1 << 40, 1, (int64_t)1 << 50, 0, 8);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 1, NULL, 0);
    CHECK(st == -EINVAL, "dataloop spanning 2^90 bytes: status %d", st);
    rio__emu_buf_free(&dl);
    /* the same through a child's extent: 2^40 elements 2^50 apart */
    rio__emu_put_u64(&dl, 8);
    node(&dl, 0, 1, (int64_t)1 << 40, 0, 0, 8);
    node(&dl, RIO_EMU_DL_LEAF, 1, 1, 0, 0, (int64_t)1 << 50);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 1, NULL, 0);
    CHECK(st == -EINVAL, "dataloop whose elements span 2^90 bytes: status %d", st);
    rio__emu_buf_free(&dl);

    /* trailing bytes, a bad kind */
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_LEAF, 1, 8, 0, 0, 8);
    rio__emu_put_u32(&dl, 0);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EBADMSG, "dataloop with trailing bytes: status %d", st);
    rio__emu_buf_free(&dl);
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_LEAF | RIO_EMU_DL_STRUCT, 1, 8, 0, 0, 8);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EBADMSG, "dataloop leaf and struct at once: status %d", st);
    rio__emu_buf_free(&dl);

    /* regions before offset 0 */
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_LEAF, 1, 8, 0, -100, 8);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, 0, 8, NULL, 0);
    CHECK(st == -EINVAL, "dataloop mapping before offset 0: status %d", st);
    rio__emu_buf_free(&dl);
    /* regions past the offset limit (a stream position near it, the
     * block 16 bytes into its tile) */
    rio__emu_put_u64(&dl, 8);
    node(&dl, RIO_EMU_DL_LEAF, 1, 8, 0, 16, 8);
    st = send_dt(lay, RIO_EMU_OP_READ_DT, &dl, RIO_EMU_MAX_OFFSET - 4, 4, NULL, 0);
    CHECK(st == -EINVAL, "dataloop mapping past the offset limit: status %d", st);
    /* write data that does not match the view's pieces */
    {
        char data[3] = {1, 2, 3};
        st = send_dt(lay, RIO_EMU_OP_WRITE_DT, &dl, 0, 64, data, sizeof data);
        CHECK(st == -EINVAL, "datatype write with the wrong amount of data: status %d", st);
    }
    rio__emu_buf_free(&dl);
    check_content("malformed dataloops");
}

/* Clients that die: mid-request, and holding a lock. */
static void dying_clients(const struct rio_emu_layout *lay)
{
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        int s = raw_connect(1);
        unsigned char h[RIO_EMU_HDR_SIZE], half[4096] = {0};
        hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, RIO_EMU_OP_WRITE, 24 + (1 << 20));
        send_raw(s, h, sizeof h);
        send_raw(s, half, sizeof half);
        _exit(0); /* half a request, then gone */
    }
    waitpid(p, NULL, 0);
    check_content("a client killed mid-request");

    /* a client that stops inside a message and stays connected is closed
     * after --stall-s (1 s here); one that is idle between messages is not */
    int idle = raw_connect(0), stalled = raw_connect(0);
    unsigned char h[RIO_EMU_HDR_SIZE];
    hdr(h, RIO_EMU_MAGIC, RIO_EMU_VERSION, RIO_EMU_OP_STATS_GET, 0);
    CHECK(idle >= 0 && stalled >= 0 && !send_raw(stalled, h, sizeof h / 2),
          "stalled client: setup");
    struct timespec nap = {2, 500000000};
    nanosleep(&nap, NULL);
    CHECK(reply_status(stalled) == 1, "a connection stopped inside a header for 2.5 s with "
                                      "--stall-s 1 was not closed");
    struct rio_emu_buf q = {0};
    rio__emu_msg_begin(&q);
    rio__emu_msg_end(&q, RIO_EMU_OP_STATS_GET, 0, 0, 8);
    CHECK(!send_raw(idle, q.p, q.n) && reply_status(idle) == 0,
          "a connection idle between messages for 2.5 s was closed");
    rio__emu_buf_free(&q);
    if (idle >= 0)
        close(idle);
    if (stalled >= 0)
        close(stalled);
    check_content("a stalled client");

    int pipefd[2];
    if (pipe(pipefd))
        return;
    p = fork();
    if (p == 0) {
        struct rio_emu_client *cl = NULL;
        close(pipefd[0]);
        if (!rio__emu_connect(emu_dir, &cl) && !rio__emu_lock(cl, lay, 0, 0, 1))
            if (write(pipefd[1], "L", 1) != 1)
                _exit(1);
        pause(); /* killed while holding the lock */
        _exit(0);
    }
    close(pipefd[1]);
    char c = 0;
    CHECK(read(pipefd[0], &c, 1) == 1 && c == 'L', "the child could not take a lock");
    close(pipefd[0]);
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    struct rio_emu_client *cl = NULL;
    int rc = rio__emu_connect(emu_dir, &cl);
    if (!rc)
        rc = rio__emu_lock(cl, lay, 100, 10, 1); /* blocks forever if the lock leaked */
    if (!rc)
        rc = rio__emu_unlock(cl, lay, 100, 10);
    CHECK(rc == 0, "lock after its holder died: %s", strerror(-rc));
    rio__emu_disconnect(cl);
    check_content("a client killed holding a lock");
}

static int body(void)
{
    struct rio_emu_client *cl = NULL;
    struct rio_emu_layout lay;
    for (int i = 0; i < FSIZE; i++)
        ref[i] = (unsigned char)(i * 7 + (i >> 9));
    int rc = rio__emu_connect(emu_dir, &cl);
    if (!rc)
        rc = rio__emu_create(cl, NAME, 8192, 0, 1, &lay);
    if (!rc)
        rc = rw(cl, &lay, 1, ref, 0, FSIZE, NULL);
    if (!rc)
        rc = rio__emu_sync(cl, &lay);
    CHECK(rc == 0, "setting up the reference file: %s", strerror(-rc));
    if (rc)
        goto out;
    framing_cases();
    payload_cases(&lay);
    dataloop_cases(&lay);
    dying_clients(&lay);
    {
        struct rio_emu_stats s;
        rc = rio__emu_stats(cl, 0, &s);
        CHECK(rc == 0 && s.rejected >= 20, "target 0 counted %llu rejected messages",
              (unsigned long long)s.rejected);
    }

    /* restart: stop, start, everything is still there */
    rio__emu_disconnect(cl);
    cl = NULL;
    CHECK(EMU_STOP() == 0, "stop failed");
    CHECK(EMU_START("3") == 0, "restart failed");
    struct rio_emu_layout again;
    rc = rio__emu_connect(emu_dir, &cl);
    if (!rc)
        rc = rio__emu_lookup(cl, NAME, &again);
    CHECK(rc == 0 && again.fid == lay.fid && again.unit == lay.unit && again.count == lay.count &&
              again.first == lay.first,
          "after a restart the layout is gone or changed (%s)", strerror(-rc));
    check_content("a restart");
    long long n = 0;
    unsigned char *disk = emu_slurp(emu_dir, NAME, &n);
    CHECK(disk && n == FSIZE && !memcmp(disk, ref, FSIZE),
          "the objects on disk do not hold the file (%lld bytes)", n);
    free(disk);
    CHECK(EMU_START("2") != 0, "starting a running service again must fail");
out:
    rio__emu_disconnect(cl);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

int main(int argc, char **argv)
{
    static const char *const opts[] = {"--stall-s", "1", NULL};
    return emu_main(argc, argv, "3", opts, body, 120);
}

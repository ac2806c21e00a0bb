/*
 * test_store_fault.c — the fault driver and the full-transfer helpers under
 * it: EIO and ENOSPC at the N-th call, swept over N, surface from exactly
 * that call; EINTR and SHORT are absorbed and the bytes still come out
 * right; every=1 models a dead disk; the other classes and the spec parser.
 *
 * Usage: test_store_fault <scratch-dir>
 */
#include "file/file_int.h" /* the hints */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

static char path[4200], name[4300];
static struct rio_hints hints;
static struct rio_stats stats;

enum { NIOV = 2500, PIECE = 7 };
static unsigned char src[NIOV * 16], dst[NIOV * 16];
static struct iovec iov[NIOV];
static struct rio_region reg[NIOV];

static int fopen_spec(struct rio_store *st, const char *spec, int fresh)
{
    memset(st, 0, sizeof *st);
    if (fresh)
        unlink(path);
    rio__hints_free(&hints); /* back to no spec */
    if (spec)
        unit_hint(&hints, "resonio_fault", spec);
    st->stats = &stats;
    return rio__store_open(st, name, O_RDWR | O_CREAT | O_CLOEXEC, 0644, &hints);
}

static int file_is(const unsigned char *want, size_t len, off_t at)
{
    unsigned char *got = malloc(len);
    int fd = open(path, O_RDONLY), ok = 0;
    if (fd >= 0 && pread(fd, got, len, at) == (ssize_t)len)
        ok = !memcmp(got, want, len);
    close(fd);
    free(got);
    return ok;
}

static void setup_pieces(void)
{
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 13 + 5);
    for (int i = 0; i < NIOV; i++) {
        iov[i].iov_base = src + i * 16;
        iov[i].iov_len = PIECE;
        reg[i].off = (MPI_Offset)i * 10; /* holes of 3 bytes */
        reg[i].len = PIECE;
    }
}

static void packed(unsigned char *out)
{
    for (int i = 0; i < NIOV; i++)
        memcpy(out + i * PIECE, src + i * 16, PIECE);
}

/* EIO / ENOSPC at call n of 5 single-call writes, then of a 3-call pwritev. */
static void sweep_hard(const char *err, int code)
{
    char spec[100];
    struct rio_store st;
    for (int n = 1; n <= 6; n++) {
        snprintf(spec, sizeof spec, "op=write,n=%d,err=%s", n, err);
        CHECK(fopen_spec(&st, spec, 1) == 0, "open %s", spec);
        for (int call = 1; call <= 5; call++) {
            int rc = rio__store_pwrite_full(&st, src, 100, 100 * (call - 1));
            CHECK(rc == (call == n ? -code : 0), "%s: pwrite call %d gave %d", spec, call, rc);
        }
        rio__store_close(&st);

        CHECK(fopen_spec(&st, spec, 1) == 0, "open");
        int rc = rio__store_pwritev_full(&st, iov, NIOV, 0);
        CHECK(rc == (n <= 3 ? -code : 0), "%s: 3-batch pwritev gave %d", spec, rc);
        rio__store_close(&st);

        snprintf(spec, sizeof spec, "op=read,n=%d,err=%s", n, err);
        CHECK(fopen_spec(&st, spec, 0) == 0, "open");
        MPI_Offset done = -1;
        for (int call = 1; call <= 3; call++) {
            rc = rio__store_pread_full(&st, dst, 50, 0, &done);
            CHECK(rc == (call == n ? -code : 0), "%s: pread call %d gave %d", spec, call, rc);
        }
        rio__store_close(&st);
    }
    /* list calls count once per list */
    snprintf(spec, sizeof spec, "op=write,n=2,err=%s", err);
    CHECK(fopen_spec(&st, spec, 1) == 0, "open");
    CHECK(rio__store_write_list(&st, reg, iov, NIOV) == 0, "first write_list passes");
    CHECK(rio__store_write_list(&st, reg, iov, NIOV) == -code, "second write_list fails");
    rio__store_close(&st);
    snprintf(spec, sizeof spec, "op=read,n=1,err=%s", err);
    CHECK(fopen_spec(&st, spec, 0) == 0, "open");
    MPI_Offset done = -1;
    CHECK(rio__store_read_list(&st, reg, iov, NIOV, &done) == -code && done == 0,
          "read_list fails");
    rio__store_close(&st);
    printf("ok - %s at the n-th call, n = 1..6\n", err);
}

/* EINTR / SHORT at call n: every helper still completes with the right bytes. */
static void sweep_soft(const char *err)
{
    char spec[100];
    struct rio_store st;
    unsigned char want[NIOV * PIECE];
    static unsigned char back[NIOV * 16];
    packed(want);
    for (int n = 1; n <= 4; n++) {
        snprintf(spec, sizeof spec, "op=any,n=%d,err=%s", n, err);

        CHECK(fopen_spec(&st, spec, 1) == 0, "open %s", spec);
        CHECK(rio__store_pwritev_full(&st, iov, NIOV, 0) == 0, "%s pwritev_full", spec);
        rio__store_close(&st);
        CHECK(file_is(want, sizeof want, 0), "%s pwritev bytes", spec);

        CHECK(fopen_spec(&st, spec, 0) == 0, "open");
        MPI_Offset done = -1;
        memset(back, 0, sizeof back);
        CHECK(rio__store_pread_full(&st, back, sizeof want, 0, &done) == 0 &&
                  done == (MPI_Offset)sizeof want && !memcmp(back, want, sizeof want),
              "%s pread_full", spec);
        rio__store_close(&st);

        CHECK(fopen_spec(&st, spec, 0) == 0, "open");
        memset(back, 0, sizeof back);
        struct iovec rv[NIOV];
        for (int i = 0; i < NIOV; i++)
            rv[i] = (struct iovec){back + i * 16, PIECE};
        CHECK(rio__store_preadv_full(&st, rv, NIOV, 0, &done) == 0 &&
                  done == (MPI_Offset)sizeof want,
              "%s preadv_full", spec);
        int ok = 1;
        for (int i = 0; i < NIOV; i++)
            ok &= !memcmp(back + i * 16, src + i * 16, PIECE);
        CHECK(ok, "%s preadv bytes", spec);
        rio__store_close(&st);

        CHECK(fopen_spec(&st, spec, 1) == 0, "open");
        CHECK(rio__store_pwrite_full(&st, src, 1000, 3) == 0, "%s pwrite_full", spec);
        rio__store_close(&st);
        CHECK(file_is(src, 1000, 3), "%s pwrite bytes", spec);

        CHECK(fopen_spec(&st, spec, 1) == 0, "open");
        CHECK(rio__store_write_list(&st, reg, iov, NIOV) == 0, "%s write_list", spec);
        rio__store_close(&st);
        ok = 1;
        for (int i = 0; i < NIOV; i++)
            ok &= file_is(src + i * 16, PIECE, reg[i].off);
        CHECK(ok, "%s write_list bytes", spec);

        CHECK(fopen_spec(&st, spec, 0) == 0, "open");
        memset(back, 0, sizeof back);
        CHECK(rio__store_read_list(&st, reg, rv, NIOV, &done) == 0 &&
                  done == (MPI_Offset)NIOV * PIECE,
              "%s read_list", spec);
        ok = 1;
        for (int i = 0; i < NIOV; i++)
            ok &= !memcmp(back + i * 16, src + i * 16, PIECE);
        CHECK(ok, "%s read_list bytes", spec);
        CHECK(st.ops->sync(&st) == 0 && st.ops->lock(&st, 0, 10, 1) == 0 &&
                  st.ops->unlock(&st, 0, 10) == 0,
              "%s leaves non-transfer calls alone", spec);
        rio__store_close(&st);
    }
    printf("ok - %s at the n-th call is absorbed, n = 1..4\n", err);
}

static void test_classes(void)
{
    struct rio_store st;
    MPI_Offset size;

    CHECK(fopen_spec(&st, "op=write,n=2,every=1,err=EIO", 1) == 0, "open every");
    CHECK(rio__store_pwrite_full(&st, src, 10, 0) == 0, "call 1 passes");
    for (int i = 0; i < 3; i++)
        CHECK(rio__store_pwrite_full(&st, src, 10, 0) == -EIO, "dead disk from call 2");
    CHECK(rio__store_pread_full(&st, dst, 10, 0, NULL) == 0, "reads still work");
    rio__store_close(&st);

    CHECK(fopen_spec(&st, "op=sync,n=1,err=EIO", 1) == 0 && st.ops->sync(&st) == -EIO &&
              st.ops->sync(&st) == 0,
          "sync class");
    rio__store_close(&st);
    CHECK(fopen_spec(&st, "op=size,n=2,err=ENOSPC", 1) == 0 &&
              st.ops->get_size(&st, &size) == 0 && st.ops->set_size(&st, 5) == -ENOSPC &&
              st.ops->allocate(&st, 0, 10) == 0,
          "size class");
    rio__store_close(&st);
    CHECK(fopen_spec(&st, "op=lock,n=1,err=EIO", 1) == 0 && st.ops->lock(&st, 0, 1, 1) == -EIO,
          "lock class");
    rio__store_close(&st);
    CHECK(fopen_spec(&st, "op=open,n=1,err=EIO", 1) == -EIO, "open class");
    CHECK(fopen_spec(&st, "op=any,n=1,err=ENOSPC", 1) == -ENOSPC, "any counts the open");
    CHECK(fopen_spec(&st, "op=read,n=1", 1) == 0 && rio__store_pread_full(&st, dst, 1, 0, NULL) ==
                                                        -EIO,
          "defaults err=EIO");
    rio__store_close(&st);

    CHECK(fopen_spec(&st, "op=wrte,n=1", 1) == RIO_E_ARG, "bad op refused");
    CHECK(fopen_spec(&st, "op=write,n=0", 1) == RIO_E_ARG, "n=0 refused");
    CHECK(fopen_spec(&st, "op=write,err=EPERM", 1) == RIO_E_ARG, "unknown err refused");
    CHECK(fopen_spec(&st, "op=write,err=EINTR,every=1", 1) == RIO_E_ARG, "endless EINTR refused");
    CHECK(fopen_spec(&st, "bogus", 1) == RIO_E_ARG, "no '=' refused");

    /* environment when the hint is unset; the hint wins when set */
    setenv("RESONIO_FAULT", "op=write,n=1,err=ENOSPC", 1);
    CHECK(fopen_spec(&st, NULL, 1) == 0 && rio__store_pwrite_full(&st, src, 1, 0) == -ENOSPC,
          "RESONIO_FAULT used");
    rio__store_close(&st);
    CHECK(fopen_spec(&st, "op=sync,n=1", 1) == 0 && rio__store_pwrite_full(&st, src, 1, 0) == 0,
          "hint overrides RESONIO_FAULT");
    rio__store_close(&st);
    unsetenv("RESONIO_FAULT");
    CHECK(fopen_spec(&st, NULL, 1) == 0 && rio__store_pwrite_full(&st, src, 1, 0) == 0,
          "no spec: pass-through");
    CHECK(st.ops->is_direct(&st) == 0 && rio__store_notes(&st) == 0, "forwarded queries");
    rio__store_close(&st);

    /* stats: bytes and time are counted by the helpers */
    memset(&stats, 0, sizeof stats);
    CHECK(fopen_spec(&st, NULL, 1) == 0, "open");
    rio__store_pwrite_full(&st, src, 1000, 0);
    rio__store_pread_full(&st, dst, 4000, 0, NULL);
    CHECK(stats.bytes_accessed == 2000 && stats.time_storage > 0, "stats: %lld bytes",
          stats.bytes_accessed);
    rio__store_close(&st);
    printf("ok - classes, every=1, spec parsing, environment, stats\n");
}

int main(int argc, char **argv)
{
    snprintf(path, sizeof path, "%s/fault.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    snprintf(name, sizeof name, "fault:%s", path);
    setup_pieces();
    unsetenv("RESONIO_FAULT");
    sweep_hard("EIO", EIO);
    sweep_hard("ENOSPC", ENOSPC);
    sweep_soft("EINTR");
    sweep_soft("SHORT");
    test_classes();
    unlink(path);
    rio__hints_free(&hints);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

/*
 * test_store_direct.c — O_DIRECT and very large transfers in the posix
 * driver.
 *
 * Direct I/O on the scratch directory (a disk file system): writes and
 * reads at unaligned offsets, lengths and buffers, vectored and list calls,
 * must give the same bytes as buffered I/O.  The same on /dev/shm: tmpfs
 * refused O_DIRECT before Linux 6.6 and the driver must then fall back to
 * buffered I/O and say so; newer tmpfs accepts it.  A plain open(2) probe
 * tells the test which to expect.  Then one
 * transfer of more than 2 GiB through pwrite_full and pread_full, on
 * /dev/shm with a sparse pattern so it stays within a few seconds.
 *
 * Usage: test_store_direct <scratch-dir>
 */
#include "file/file_int.h" /* the hints */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

enum { SPAN = 1 << 20, MAXLEN = 70000 };

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static int whole_file_is(const char *path, const unsigned char *ref, size_t len)
{
    unsigned char *got = malloc(len + 1);
    int fd = open(path, O_RDONLY), ok = 0;
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && (size_t)sb.st_size == len &&
        pread(fd, got, len, 0) == (ssize_t)len)
        ok = !memcmp(got, ref, len);
    if (fd >= 0)
        close(fd);
    free(got);
    return ok;
}

/* Does this directory's file system take O_DIRECT? */
static int probe_direct(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/direct-probe.%d", dir, (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
    int ok = fd >= 0;
    if (fd >= 0)
        close(fd);
    unlink(path);
    return ok;
}

static void direct_case(const char *dir)
{
    int expect_direct = probe_direct(dir);
    char path[4200];
    struct rio_store st;
    struct rio_hints h;
    unsigned char *ref = calloc(1, SPAN + MAXLEN);
    unsigned char *src = NULL, *dst = NULL;
    size_t reflen = 0;
    MPI_Offset done;

    CHECK(posix_memalign((void **)&src, 4096, 2 * MAXLEN + 8192) == 0, "alloc");
    CHECK(posix_memalign((void **)&dst, 4096, 2 * MAXLEN + 8192) == 0, "alloc");
    for (size_t i = 0; i < 2 * MAXLEN + 8192; i++)
        src[i] = (unsigned char)(rnd() & 0xff);

    snprintf(path, sizeof path, "%s/direct.%d", dir, (int)getpid());
    unlink(path);
    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    unit_hint(&h, "direct_read", "enable");
    unit_hint(&h, "direct_write", "enable");
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644, &h) == 0, "open %s",
          path);
    CHECK(st.ops->is_direct(&st) == expect_direct, "is_direct on %s", dir);
    CHECK(!!(rio__store_notes(&st) & RIO_STORE_NOTE_DIRECT_REFUSED) == !expect_direct,
          "refusal noted on %s", dir);

    /* writes: aligned and unaligned offsets, lengths, buffers */
    for (int k = 0; k < 300; k++) {
        size_t off, len, boff;
        switch (k % 4) {
        case 0: /* all aligned */
            off = (rnd() % (SPAN / 4096)) * 4096;
            len = (1 + rnd() % 16) * 4096;
            boff = 0;
            break;
        case 1: /* aligned file side, unaligned buffer: bounce */
            off = (rnd() % (SPAN / 4096)) * 4096;
            len = (1 + rnd() % 16) * 4096;
            boff = 1 + rnd() % 4000;
            break;
        default:
            off = rnd() % SPAN;
            len = rnd() % MAXLEN;
            boff = rnd() % 8192;
        }
        CHECK(rio__store_pwrite_full(&st, src + boff, len, (MPI_Offset)off) == 0,
              "direct write %zu+%zu", off, len);
        memcpy(ref + off, src + boff, len);
        if (off + len > reflen)
            reflen = off + len;
    }
    /* vectored and list writes */
    struct iovec iov[3] = {{src + 4096, 8192}, {src + 3, 100}, {src + 8192 * 2, 4096}};
    CHECK(rio__store_pwritev_full(&st, iov, 3, 8192) == 0, "pwritev aligned start");
    memcpy(ref + 8192, src + 4096, 8192);
    memcpy(ref + 8192 + 8192, src + 3, 100);
    memcpy(ref + 8192 + 8292, src + 8192 * 2, 4096);
    struct rio_region reg[2] = {{5, 5000}, {9000, 9000}};
    struct iovec mem[2] = {{src + 1, 5000}, {src + 8192, 9000}};
    CHECK(rio__store_write_list(&st, reg, mem, 2) == 0, "write_list");
    memcpy(ref + 5, src + 1, 5000);
    memcpy(ref + 9000, src + 8192, 9000);
    CHECK(whole_file_is(path, ref, reflen), "direct writes give buffered bytes on %s", dir);

    /* reads */
    int ok = 1;
    for (int k = 0; k < 300; k++) {
        size_t off = (k % 3 == 0) ? (rnd() % (SPAN / 4096)) * 4096 : rnd() % SPAN;
        size_t len = (k % 3 == 0) ? (1 + rnd() % 16) * 4096 : rnd() % MAXLEN;
        size_t boff = (k % 2) ? 0 : rnd() % 8192;
        memset(dst, 0xab, 2 * MAXLEN + 8192);
        if (rio__store_pread_full(&st, dst + boff, len, (MPI_Offset)off, &done) != 0) {
            ok = 0;
            continue;
        }
        size_t want = off >= reflen ? 0 : RIO_MIN(len, reflen - off);
        ok &= (size_t)done == want && !memcmp(dst + boff, ref + off, want);
    }
    CHECK(ok, "direct reads match on %s", dir);
    memset(dst, 0, 2 * MAXLEN);
    MPI_Offset got;
    struct iovec riov[2] = {{dst, 4096}, {dst + 8192, 4096}};
    CHECK(rio__store_preadv_full(&st, riov, 2, 4096, &got) == 0 && got == 8192 &&
              !memcmp(dst, ref + 4096, 4096) && !memcmp(dst + 8192, ref + 8192, 4096),
          "preadv aligned");
    struct iovec rmem[2] = {{dst + 1, 5000}, {dst + 9001, 9000}};
    CHECK(rio__store_read_list(&st, reg, rmem, 2, &got) == 0 && got == 14000 &&
              !memcmp(dst + 1, ref + 5, 5000) && !memcmp(dst + 9001, ref + 9000, 9000),
          "read_list");
    CHECK(rio__store_pread_full(&st, dst + 3, 10000, (MPI_Offset)reflen - 100, &got) == 0 &&
              got == 100 && !memcmp(dst + 3, ref + reflen - 100, 100),
          "direct read across EOF");

    CHECK(rio__store_close(&st) == 0, "close");
    unlink(path);
    free(ref);
    free(src);
    free(dst);
    printf("ok - direct I/O on %s (%s)\n", dir, expect_direct ? "direct" : "fell back");
}

static void big_transfer(void)
{
    const size_t len = ((size_t)2 << 30) + 12345; /* more than 2 GiB */
    const MPI_Offset at = 7;
    char path[200];
    struct rio_store st;
    struct rio_hints h;
    struct rio_stats stats;
    MPI_Offset done = -1;
    double t0 = rio__now();

    snprintf(path, sizeof path, "/dev/shm/resonio-big.%d", (int)getpid());
    unlink(path);
    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    memset(&stats, 0, sizeof stats);
    st.stats = &stats;
    unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "map %zu bytes", len);
    if (buf == MAP_FAILED)
        return;
    /* sparse pattern: one marker per MiB and at the end; the rest is zero */
    for (size_t i = 0; i < len; i += (size_t)1 << 20)
        buf[i] = (unsigned char)(1 + (i >> 20) % 251);
    buf[len - 1] = 0x5a;
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644, &h) == 0, "open");
    double t1 = rio__now();
    CHECK(rio__store_pwrite_full(&st, buf, len, at) == 0, "pwrite_full of %zu bytes", len);
    printf("   pwrite_full %.2f s\n", rio__now() - t1);
    MPI_Offset size = 0;
    CHECK(st.ops->get_size(&st, &size) == 0 && size == at + (MPI_Offset)len, "size %lld",
          (long long)size);
    int fd = open(path, O_RDONLY), ok = fd >= 0;
    for (size_t i = 0; ok && i < len; i += (size_t)1 << 20) {
        unsigned char m[2];
        ok = pread(fd, m, 2, at + (off_t)i) == 2 && m[0] == buf[i] && m[1] == buf[i + 1];
    }
    unsigned char last = 0;
    ok = ok && pread(fd, &last, 1, at + (off_t)len - 1) == 1 && last == 0x5a;
    if (fd >= 0)
        close(fd);
    CHECK(ok, "markers on the file");
    munmap(buf, len);

    buf = mmap(NULL, len + 4096, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "map");
    if (buf != MAP_FAILED) {
        madvise(buf, len + 4096, MADV_HUGEPAGE); /* fewer faults; a hint only */
        buf[len + 100] = 0x77;
        t1 = rio__now();
        int rrc = rio__store_pread_full(&st, buf, len + 4096, at, &done);
        printf("   pread_full %.2f s\n", rio__now() - t1);
        CHECK(rrc == 0 &&
                  done == (MPI_Offset)len,
              "pread_full of %zu bytes stops at EOF: %lld", len, (long long)done);
        ok = 1;
        for (size_t i = 0; i < len; i += (size_t)1 << 20)
            ok &= buf[i] == (unsigned char)(1 + (i >> 20) % 251) && buf[i + 1] == 0;
        ok &= buf[len - 1] == 0x5a && buf[len + 100] == 0x77;
        CHECK(ok, "markers read back, memory past EOF untouched");
        munmap(buf, len + 4096);
    }
    CHECK(stats.bytes_accessed == 2 * (long long)len, "stats count both transfers");
    rio__store_close(&st);
    unlink(path);
    printf("ok - transfer of %zu bytes each way in %.1f s\n", len, rio__now() - t0);
}

int main(int argc, char **argv)
{
    const char *disk = argc > 1 ? argv[1] : "/tmp";
    CHECK(probe_direct(disk) || probe_direct("/dev/shm"),
          "the direct path runs somewhere (the scratch directory should be on a disk)");
    direct_case(disk);
    direct_case("/dev/shm");
    big_transfer();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

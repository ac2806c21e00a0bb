/*
 * test_store_posix.c — every operation of the posix driver on a scratch
 * file, checked against plain read(2)/fstat(2) of the same file; driver
 * lookup by prefix; list I/O with and without io_uring, including reads
 * past end of file; byte-range locks seen from a second process.
 *
 * Usage: test_store_posix <scratch-dir>
 */
#include "file/file_int.h" /* the hints */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

static char dir[4096];

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s.%d", dir, name, (int)getpid());
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 31u + seed * 7u + (i >> 8)) & 0xff);
}

/* Read the whole file with plain read(2). */
static unsigned char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0)
        return NULL;
    unsigned char *p = malloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
        ssize_t r = read(fd, p + got, (size_t)sb.st_size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *len = got;
    return p;
}

static void test_find(void)
{
    const char *rest;
    CHECK(rio__store_find("posix:/a/b", &rest) == &rio__store_posix && !strcmp(rest, "/a/b"),
          "posix: prefix");
    CHECK(rio__store_find("ufs:/a", &rest) == &rio__store_posix && !strcmp(rest, "/a"), "ufs:");
    CHECK(rio__store_find("nfs:x", &rest) == &rio__store_posix && !strcmp(rest, "x"), "nfs:");
    CHECK(rio__store_find("fault:/f", &rest) == &rio__store_fault && !strcmp(rest, "/f"),
          "fault:");
    CHECK(rio__store_find("/plain/file", &rest) == &rio__store_posix &&
              !strcmp(rest, "/plain/file"),
          "no prefix");
    CHECK(rio__store_find("odd:name", &rest) == &rio__store_posix && !strcmp(rest, "odd:name"),
          "unknown text before a colon is part of the path");
    CHECK(rio__store_find("emu:x", &rest) == &rio__store_emu && !strcmp(rest, "x"), "emu:");
    CHECK(rio__store_find("pvfs2:/x", &rest) == NULL, "pvfs2: is not in this build");
    struct rio_store st;
    memset(&st, 0, sizeof st);
    CHECK(rio__store_open(&st, "pvfs2:/x", O_RDWR, 0644, NULL) == RIO_E_DRIVER, "open pvfs2:");
    printf("ok - driver lookup\n");
}

static void test_basic(void)
{
    char path[4200], name[4300];
    struct rio_store st;
    struct rio_hints h;
    unsigned char buf[65536], back[65536];
    MPI_Offset done = -1, size = -1;
    size_t flen;
    unsigned char *f;

    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    path_of(path, sizeof path, "basic");
    snprintf(name, sizeof name, "posix:%s", path);
    unlink(path);
    CHECK(rio__store_open(&st, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644, &h) == 0,
          "open create");
    CHECK(rio__store_open(&(struct rio_store){0}, name, O_RDWR | O_CREAT | O_EXCL, 0644, &h) ==
              -EEXIST,
          "O_EXCL on existing file gives -EEXIST");

    fill(buf, sizeof buf, 1);
    CHECK(rio__store_pwrite_full(&st, buf, 1000, 0) == 0, "pwrite_full");
    CHECK(rio__store_pwrite_full(&st, buf + 1000, 3000, 5000) == 0, "pwrite_full with hole");
    f = slurp(path, &flen);
    CHECK(f && flen == 8000, "size after writes %zu", flen);
    CHECK(f && !memcmp(f, buf, 1000) && !memcmp(f + 5000, buf + 1000, 3000), "bytes on disk");
    int zero = 1;
    for (size_t i = 1000; f && i < 5000; i++)
        zero &= f[i] == 0;
    CHECK(zero, "hole reads zero");
    free(f);

    CHECK(rio__store_pread_full(&st, back, 1000, 0, &done) == 0 && done == 1000 &&
              !memcmp(back, buf, 1000),
          "pread_full");
    CHECK(rio__store_pread_full(&st, back, 4000, 6000, &done) == 0 && done == 2000 &&
              !memcmp(back, buf + 2000, 2000),
          "pread_full stops at EOF: %lld", (long long)done);
    CHECK(rio__store_pread_full(&st, back, 10, 9000, &done) == 0 && done == 0,
          "pread_full past EOF");

    /* vectored */
    struct iovec iov[3] = {{buf + 100, 10}, {buf + 300, 0}, {buf + 500, 20}};
    CHECK(rio__store_pwritev_full(&st, iov, 3, 8000) == 0, "pwritev_full");
    f = slurp(path, &flen);
    CHECK(f && flen == 8030 && !memcmp(f + 8000, buf + 100, 10) &&
              !memcmp(f + 8010, buf + 500, 20),
          "pwritev bytes");
    free(f);
    memset(back, 0, sizeof back);
    struct iovec riov[2] = {{back, 15}, {back + 100, 100}};
    CHECK(rio__store_preadv_full(&st, riov, 2, 8000, &done) == 0 && done == 30, "preadv_full");
    CHECK(!memcmp(back, buf + 100, 10) && !memcmp(back + 10, buf + 500, 5) &&
              !memcmp(back + 100, buf + 505, 15),
          "preadv bytes");
    CHECK(riov[0].iov_len == 15 && riov[1].iov_base == back + 100, "iov not modified");

    /* size, truncate, allocate, sync */
    CHECK(st.ops->get_size(&st, &size) == 0 && size == 8030, "get_size");
    CHECK(st.ops->set_size(&st, 100) == 0 && st.ops->get_size(&st, &size) == 0 && size == 100,
          "set_size shrink");
    CHECK(st.ops->set_size(&st, 20000) == 0 && st.ops->get_size(&st, &size) == 0 &&
              size == 20000,
          "set_size grow");
    CHECK(st.ops->allocate(&st, 0, 1 << 20) == 0 && st.ops->get_size(&st, &size) == 0 &&
              size == (1 << 20),
          "allocate extends");
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_blocks * 512 >= (1 << 20), "allocate reserves blocks");
    CHECK(st.ops->sync(&st) == 0, "sync");
    CHECK(st.ops->is_direct(&st) == 0, "not direct");

    struct rio_layout lo;
    rio__store_layout(&st, &lo);
    CHECK(lo.count == 1 && lo.unit > 0, "default layout");
    unit_hint(&h, "striping_unit", "65536");
    unit_hint(&h, "striping_factor", "4");
    rio__store_layout(&st, &lo);
    CHECK(lo.count == 4 && lo.unit == 65536, "layout from hints");

    CHECK(rio__store_close(&st) == 0, "close");
    CHECK(rio__store_remove(name, &h) == 0 && access(path, F_OK) < 0, "remove");
    CHECK(rio__store_remove(name, &h) == -ENOENT, "remove missing gives -ENOENT");
    CHECK(rio__store_open(&st, name, O_RDONLY, 0, &h) == -ENOENT, "open missing");

    /* O_APPEND must not redirect positional writes */
    int fd = open(path, O_CREAT | O_RDWR, 0644);
    CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10, "prepare append file");
    close(fd);
    CHECK(rio__store_open(&st, path, O_RDWR | O_APPEND, 0, &h) == 0, "open O_APPEND");
    CHECK(rio__store_pwrite_full(&st, "ab", 2, 2) == 0, "positional write");
    f = slurp(path, &flen);
    CHECK(f && flen == 10 && !memcmp(f, "01ab456789", 10), "O_APPEND ignored for positions");
    free(f);
    rio__store_close(&st);
    unlink(path);

    /* read-only and write-only descriptors */
    fd = open(path, O_CREAT | O_RDWR, 0644);
    close(fd);
    CHECK(rio__store_open(&st, path, O_RDONLY, 0, &h) == 0, "open rdonly");
    CHECK(rio__store_pwrite_full(&st, "x", 1, 0) == -EBADF, "write on rdonly is -EBADF");
    rio__store_close(&st);
    unlink(path);
    printf("ok - basic operations\n");
}

/* List I/O: scattered file regions with adjacent runs, scattered memory. */
static void test_list(enum rio_tristate uring)
{
    char path[4200];
    struct rio_store st;
    struct rio_hints h;
    enum { N = 3000 };
    static struct rio_region file[N];
    static struct iovec mem[N];
    static unsigned char src[N * 64], dst[N * 64], ref[N * 200];
    MPI_Offset off = 0, total = 0, done = -1;
    size_t flen;

    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    unit_hint(&h, "resonio_uring",
              uring == RIO_ENABLE ? "enable" : uring == RIO_DISABLE ? "disable" : "automatic");
    path_of(path, sizeof path, uring == RIO_ENABLE ? "list_uring" : "list_runs");
    unlink(path);
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644, &h) == 0, "open");
    fill(src, sizeof src, 3);
    memset(ref, 0, sizeof ref);
    for (int i = 0; i < N; i++) {
        MPI_Offset len = 1 + (i * 7) % 60;
        off += (i % 3 == 0) ? 0 : 17 + i % 50; /* every third region adjacent */
        file[i].off = off;
        file[i].len = len;
        mem[i].iov_base = src + (size_t)(N - 1 - i) * 64; /* memory in reverse */
        mem[i].iov_len = (size_t)len;
        memcpy(ref + off, mem[i].iov_base, (size_t)len);
        off += len;
        total += len;
    }
    CHECK(rio__store_write_list(&st, file, mem, N) == 0, "write_list");
    unsigned char *f = slurp(path, &flen);
    CHECK(f && flen == (size_t)off && !memcmp(f, ref, flen), "write_list bytes (uring=%d)",
          uring);
    free(f);

    memset(dst, 0, sizeof dst);
    for (int i = 0; i < N; i++)
        mem[i].iov_base = dst + (size_t)i * 64;
    CHECK(rio__store_read_list(&st, file, mem, N, &done) == 0 && done == total, "read_list");
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= !memcmp(dst + (size_t)i * 64, ref + file[i].off, (size_t)file[i].len);
    CHECK(ok, "read_list bytes (uring=%d)", uring);

    /* end of file inside region k: done is the prefix */
    int k = N / 2;
    MPI_Offset cut = file[k].off + file[k].len / 2, prefix = 0;
    for (int i = 0; i < k; i++)
        prefix += file[i].len;
    prefix += cut - file[k].off;
    CHECK(st.ops->set_size(&st, cut) == 0, "truncate");
    memset(dst, 0xee, sizeof dst);
    CHECK(rio__store_read_list(&st, file, mem, N, &done) == 0 && done == prefix,
          "read_list past EOF: %lld want %lld", (long long)done, (long long)prefix);
    ok = 1;
    for (int i = 0; i < k; i++)
        ok &= !memcmp(dst + (size_t)i * 64, ref + file[i].off, (size_t)file[i].len);
    ok &= !memcmp(dst + (size_t)k * 64, ref + file[k].off, (size_t)(cut - file[k].off));
    CHECK(ok, "read_list prefix bytes");

    struct rio_region bad = {0, 5};
    struct iovec badm = {dst, 4};
    CHECK(rio__store_write_list(&st, &bad, &badm, 1) == RIO_E_ARG, "length mismatch refused");
    CHECK(rio__store_write_list(&st, file, mem, 0) == 0, "empty list");

    /* one run longer than IOV_MAX */
    static struct rio_region run[2500];
    for (int i = 0; i < 2500; i++) {
        run[i].off = 100 + i * 3;
        run[i].len = 3;
        mem[i].iov_base = src + i * 5;
        mem[i].iov_len = 3;
    }
    CHECK(rio__store_write_list(&st, run, mem, 2500) == 0, "long run");
    f = slurp(path, &flen);
    ok = f != NULL;
    for (int i = 0; ok && i < 2500; i++)
        ok &= !memcmp(f + 100 + i * 3, src + i * 5, 3);
    CHECK(ok, "long run bytes");
    free(f);

    rio__store_close(&st);
    unlink(path);
    printf("ok - list I/O (uring=%s)\n", uring == RIO_ENABLE ? "on" : "off");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Is any part of [off, off+len) locked against us? (len 0: to EOF) */
static int probe_locked(int fd, off_t off, off_t len)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = off, .l_len = len};
    if (fcntl(fd, F_GETLK, &fl) < 0)
        return -1;
    return fl.l_type != F_UNLCK;
}

static void test_locks(void)
{
    char path[4200];
    struct rio_store st;
    struct rio_hints h;
    int pipefd[2];

    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    path_of(path, sizeof path, "locks");
    unlink(path);
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644, &h) == 0, "open");
    CHECK(st.ops->lock(&st, 100, 100, 1) == 0, "lock [100,200) exclusive");
    CHECK(st.ops->lock(&st, 1000, 0, 0) == 0, "shared lock from 1000 to EOF");
    CHECK(st.ops->lock(&st, -1, 5, 1) == RIO_E_ARG, "negative offset refused");
    CHECK(pipe(pipefd) == 0, "pipe");

    pid_t pid = fork();
    if (pid == 0) {
        /* child: probe, then block on the lock and report the wait */
        struct rio_store cs;
        memset(&cs, 0, sizeof cs);
        char res[5] = {0};
        int fd = open(path, O_RDWR);
        res[0] = (char)('0' + probe_locked(fd, 150, 1));
        res[1] = (char)('0' + probe_locked(fd, 250, 10));
        res[2] = (char)('0' + probe_locked(fd, (off_t)1 << 40, 1));
        if (rio__store_open(&cs, path, O_RDWR, 0, &h) != 0)
            _exit(3);
        double t0 = now();
        int rc = cs.ops->lock(&cs, 150, 10, 1);
        double waited = now() - t0;
        res[3] = (char)(rc == 0 ? 'L' : 'E');
        res[4] = waited > 0.15 ? 'W' : 'N';
        cs.ops->unlock(&cs, 150, 10);
        if (write(pipefd[1], res, 5) != 5)
            _exit(4);
        _exit(0);
    }
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK(st.ops->unlock(&st, 100, 100) == 0, "unlock");
    char res[6] = {0};
    ssize_t got = read(pipefd[0], res, 5);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(got == 5 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "child ran: %s", res);
    CHECK(res[0] == '1', "[100,200) locked for another process");
    CHECK(res[1] == '0', "[250,260) free");
    CHECK(res[2] == '1', "len 0 lock reaches far beyond EOF");
    CHECK(res[3] == 'L' && res[4] == 'W', "second process blocked until unlock (%c%c)", res[3],
          res[4]);
    close(pipefd[0]);
    close(pipefd[1]);
    st.ops->unlock(&st, 1000, 0);
    rio__store_close(&st);
    unlink(path);
    printf("ok - byte-range locks\n");
}

static void test_scratch(void)
{
    struct rio_store st;
    memset(&st, 0, sizeof st);
    void *a = rio__store_scratch_get(&st, 100);
    void *b = rio__store_scratch_get(&st, 100);
    CHECK(a && b && a != b && a == st.scratch, "second user gets its own buffer");
    rio__store_scratch_put(&st, b);
    rio__store_scratch_put(&st, a);
    void *c = rio__store_scratch_get(&st, 50);
    CHECK(c == a, "scratch reused");
    rio__store_scratch_put(&st, c);
    rio__store_close(&st);
    CHECK(st.scratch == NULL, "close frees scratch");
    printf("ok - scratch buffers\n");
}

/* Buffered writes go at most 1 MiB per call (posix.c): the ops return
 * short, and the full helpers complete every transfer regardless. */
static void test_write_cap(void)
{
    char path[4200];
    struct rio_store st;
    struct rio_hints h;
    const size_t cap = (size_t)1 << 20, len = 3 * cap + 4099;
    unsigned char *buf = malloc(len);
    size_t flen;

    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    path_of(path, sizeof path, "cap");
    unlink(path);
    CHECK(buf && rio__store_open(&st, path, O_RDWR | O_CREAT, 0644, &h) == 0, "open");
    fill(buf, len, 5);
    CHECK(st.ops->pwrite(&st, buf, len, 0) == (ssize_t)cap, "one pwrite stops at 1 MiB");
    struct iovec two[2] = {{buf, cap / 2}, {buf + cap / 2, cap}};
    CHECK(st.ops->pwritev(&st, two, 2, 0) == (ssize_t)(cap / 2),
          "pwritev takes the entries that fit in 1 MiB");
    struct iovec big[2] = {{buf, 2 * cap}, {buf + 2 * cap, 10}};
    CHECK(st.ops->pwritev(&st, big, 2, 0) == (ssize_t)cap,
          "pwritev of a first entry over 1 MiB writes 1 MiB of it");
    struct iovec small[3] = {{buf, 100}, {buf + 100, cap - 100}, {buf + cap, 1}};
    CHECK(st.ops->pwritev(&st, small, 3, 0) == (ssize_t)cap, "entries up to exactly 1 MiB");

    /* whole transfers: contiguous, vectored, and list I/O */
    unlink(path);
    rio__store_close(&st);
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT, 0644, &h) == 0, "reopen");
    CHECK(rio__store_pwrite_full(&st, buf, len, 0) == 0, "pwrite_full over the cap");
    struct iovec v[3] = {{buf + len - 1, 1}, {buf, 2 * cap + 7}, {buf + 5, cap}};
    CHECK(rio__store_pwritev_full(&st, v, 3, len) == 0, "pwritev_full over the cap");
    struct rio_region reg[2] = {{(MPI_Offset)(len + 3 * cap + 8) + 4096, (MPI_Offset)cap + 3},
                                {(MPI_Offset)(len + 4 * cap + 11) + 4096, (MPI_Offset)(2 * cap)}};
    struct iovec rm[2] = {{buf + 1, cap + 3}, {buf + 2, 2 * cap}};
    CHECK(rio__store_write_list(&st, reg, rm, 2) == 0, "write_list over the cap");
    unsigned char *f = slurp(path, &flen);
    size_t at = len;
    CHECK(f && flen == (size_t)(reg[1].off + reg[1].len), "file length %zu", flen);
    CHECK(f && !memcmp(f, buf, len), "contiguous bytes");
    CHECK(f && f[at] == buf[len - 1] && !memcmp(f + at + 1, buf, 2 * cap + 7) &&
              !memcmp(f + at + 1 + 2 * cap + 7, buf + 5, cap),
          "vectored bytes");
    int zero = 1;
    for (size_t i = (size_t)(len + 3 * cap + 8); f && i < (size_t)reg[0].off; i++)
        zero &= f[i] == 0;
    CHECK(f && zero && !memcmp(f + reg[0].off, buf + 1, cap + 3) &&
              !memcmp(f + reg[1].off, buf + 2, 2 * cap),
          "list bytes and the hole before them");
    free(f);
    rio__store_close(&st);
    unlink(path);
    free(buf);
    printf("ok - buffered writes of at most 1 MiB per call\n");
}

/* Where the kernel's copy is slow (store.c's band): RESONIO_STAGE=off
 * sends a read in the band straight (in a child: the decision is made once
 * a process), =on stages (this process, so test_staged sees staging
 * whatever this machine measures), and a measurement's verdict follows its
 * own figures. */
static void test_band(void)
{
    char path[4200];
    path_of(path, sizeof path, "band");
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("RESONIO_STAGE", "off", 1);
        struct rio_store st;
        struct rio_hints h;
        const size_t len = (size_t)1 << 20;
        unsigned char *page = NULL;
        MPI_Offset done = -1;
        memset(&st, 0, sizeof st);
        memset(&h, 0, sizeof h);
        if (posix_memalign((void **)&page, 4096, len + 4096) ||
            rio__store_open(&st, path, O_RDWR | O_CREAT, 0644, &h))
            _exit(2);
        memset(page, 7, len + 4096);
        int ok = rio__store_pwrite_full(&st, page, len, 0) == 0 &&
                 rio__store_pread_full(&st, page + 16, len, 0, &done) == 0 &&
                 done == (MPI_Offset)len && st.scratch == NULL;
        const struct rio_band *b = rio__store_band();
        ok = ok && b->forced && !b->slow[0] && !b->slow[1];
        rio__store_close(&st);
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "RESONIO_STAGE=off: a read in the band goes straight (child status %d)", status);
    unlink(path);

    setenv("RESONIO_STAGE", "on", 1);
    const struct rio_band *b = rio__store_band();
    CHECK(b->forced && b->slow[0] && b->slow[1], "RESONIO_STAGE=on stages both directions");

    struct rio_band m;
    memset(&m, 0, sizeof m);
    double t0 = rio__now();
    rio__store_band_measure(&m);
    double took = rio__now() - t0;
    for (int wr = 0; wr < 2; wr++) {
        CHECK(!m.forced && m.time[wr][0] > 0 && m.time[wr][1] > 0,
              "the %s copies measured: %g and %g s", wr ? "write" : "read", m.time[wr][0],
              m.time[wr][1]);
        CHECK(m.slow[wr] == (m.time[wr][0] > m.time[wr][1]),
              "the %s verdict %d follows its figures", wr ? "write" : "read", m.slow[wr]);
    }
    printf("ok - the band measured here: reads %.1f us straight, %.1f staged (slow %d); writes "
           "%.1f, %.1f (slow %d); the measurement took %.2f ms\n",
           m.time[0][0] * 1e6, m.time[0][1] * 1e6, m.slow[0], m.time[1][0] * 1e6,
           m.time[1][1] * 1e6, m.slow[1], took * 1e3);
}

/* A staging test's start: st, h and stats cleared, path (len bytes) for
 * name and no file there, h asking for O_DIRECT when direct. */
static void staging_setup(struct rio_store *st, struct rio_hints *h, rio_stats *stats,
                          char *path, size_t len, const char *name, int direct)
{
    memset(st, 0, sizeof *st);
    memset(h, 0, sizeof *h);
    memset(stats, 0, sizeof *stats);
    path_of(path, len, name);
    unlink(path);
    if (direct) {
        unit_hint(h, "direct_read", "enable");
        unit_hint(h, "direct_write", "enable");
    }
}

/* Staged transfers of rio__store_pread_full and rio__store_pwrite_full: a
 * transfer of 16 KiB or more whose buffer lies 1-31 bytes past its file
 * offset within a page (a read; the reverse for a write) goes through the
 * scratch buffer,
 * left kept afterwards (the sign it was used), with the bytes, the count at
 * the end of the file and one request's bytes in the counters; other
 * placements, smaller transfers, O_DIRECT files and wrapped files go
 * straight; a busy scratch buffer still reads. */
static void test_staged(int direct)
{
    char path[4200], name[4300];
    struct rio_store st, wst;
    struct rio_hints h;
    rio_stats stats;
    const size_t len = ((size_t)5 << 20) + 4099, cap = len + 3 * 4096;
    unsigned char *w = malloc(len), *page = NULL;
    MPI_Offset done = -1;
    size_t flen;

    staging_setup(&st, &h, &stats, path, sizeof path, "staged", direct);
    CHECK(posix_memalign((void **)&page, 4096, cap) == 0 && w, "alloc");
    if (!page || !w)
        return;
    unsigned char *r = page + 16;
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT, 0644, &h) == 0, "open");
    fill(w, len, 9);
    CHECK(rio__store_pwrite_full(&st, w, len, 0) == 0, "write %zu bytes", len);
    int is_direct = st.ops->is_direct && st.ops->is_direct(&st);
    st.stats = &stats;

    /* placements that go straight: 0 and 32 bytes apart, and a small read */
    const struct {
        size_t at, n;
        MPI_Offset off;
    } straight[] = {{16, len - 16, 16}, {48, len - 16, 16}, {16, (16 << 10) - 1, 0}};
    for (int i = 0; i < 3; i++) {
        memset(page, 0xEE, cap);
        CHECK(rio__store_pread_full(&st, page + straight[i].at, straight[i].n, straight[i].off,
                                    &done) == 0 &&
                  done == (MPI_Offset)straight[i].n &&
                  !memcmp(page + straight[i].at, w + straight[i].off, straight[i].n),
              "read %d", i);
        CHECK(st.scratch == NULL,
              "read %d (%zu bytes, buffer %zu past a page, offset %lld) is "
              "not staged",
              i, straight[i].n, straight[i].at, (long long)straight[i].off);
    }

    /* 16 bytes past: staged, across the end of the file */
    memset(page, 0xEE, cap);
    stats.bytes_accessed = 0;
    CHECK(rio__store_pread_full(&st, r, cap - 16, 0, &done) == 0, "a read across the end");
    CHECK(done == (MPI_Offset)len, "it reads %lld bytes, expected %zu", (long long)done, len);
    int tail = 1;
    for (size_t i = len; i < cap - 16; i++)
        tail &= r[i] == 0xEE;
    CHECK(!memcmp(r, w, len) && tail, "its bytes, and nothing past the end");
    CHECK(stats.bytes_accessed == (long long)len, "counted %lld bytes", stats.bytes_accessed);
    CHECK((st.scratch != NULL) == !is_direct, "staged %s", is_direct ? "on O_DIRECT" : "not");

    if (!is_direct) { /* the scratch buffer busy: its own buffer for the pieces */
        void *busy = rio__store_scratch_get(&st, 64);
        memset(page, 0xEE, cap);
        CHECK(busy && rio__store_pread_full(&st, r + 5, len - 5, 5, &done) == 0 &&
                  done == (MPI_Offset)len - 5 && !memcmp(r + 5, w + 5, len - 5),
              "a read while the scratch buffer is in use");
        rio__store_scratch_put(&st, busy);
        CHECK(rio__store_pread_full(&st, r, (size_t)8 << 20, (MPI_Offset)len + 4096, &done) == 0 &&
                  done == 0,
              "a read past the end reads nothing");
    }
    CHECK(rio__store_close(&st) == 0, "close");

    /* a write 16 bytes past its buffer: staged, the bytes in the file */
    memset(&st, 0, sizeof st);
    CHECK(rio__store_open(&st, path, O_RDWR, 0644, &h) == 0, "reopen");
    memcpy(r, w, len);
    CHECK(rio__store_pwrite_full(&st, r, len - 100, 32) == 0, "a write 16 bytes past");
    CHECK((st.scratch != NULL) == !is_direct, "the write staged %s",
          is_direct ? "on O_DIRECT" : "not");
    CHECK(rio__store_close(&st) == 0, "close");
    unsigned char *f = slurp(path, &flen);
    CHECK(f && flen == len && !memcmp(f, w, 32) && !memcmp(f + 32, w, len - 100) &&
              !memcmp(f + len - 68, w + len - 68, 68),
          "the staged write's bytes in the file");
    free(f);

    /* a wrapper counts calls: not staged through it */
    memset(&wst, 0, sizeof wst);
    snprintf(name, sizeof name, "delay:posix:%s", path);
    CHECK(rio__store_open(&wst, name, O_RDONLY, 0644, &h) == 0, "open %s", name);
    memset(page, 0xEE, cap);
    CHECK(rio__store_pread_full(&wst, r, 4096 * 8, 0, &done) == 0 && done == 4096 * 8 &&
              !memcmp(r, w, 32),
          "a read through a wrapper");
    CHECK(wst.scratch == NULL, "a wrapped file's read is not staged");
    rio__store_close(&wst);
    unlink(path);
    free(w);
    free(page);
    printf("ok - staged transfers (%s)\n", is_direct ? "O_DIRECT: not staged" : "buffered");
}

/* rio__store_pwrite_shared: a write of 16 KiB or more goes staged
 * wherever it lies (page-aligned buffer and offset, where a plain write
 * goes straight), in pieces (over 1 MiB, ending in a part piece), the
 * bytes in the file and one request's bytes counted; under 16 KiB, on
 * O_DIRECT and through a wrapper it goes straight, with its bytes. */
static void test_shared_write(int direct)
{
    char path[4200], name[4300];
    struct rio_store st, wst;
    struct rio_hints h;
    rio_stats stats;
    const size_t len = ((size_t)3 << 20) + 12345, small = (16 << 10) - 1;
    unsigned char *w = NULL;
    size_t flen;

    staging_setup(&st, &h, &stats, path, sizeof path, "shared", direct);
    CHECK(posix_memalign((void **)&w, 4096, len) == 0, "alloc");
    if (!w)
        return;
    fill(w, len, 11);
    CHECK(rio__store_open(&st, path, O_RDWR | O_CREAT, 0644, &h) == 0, "open");
    int is_direct = st.ops->is_direct && st.ops->is_direct(&st);
    st.stats = &stats;
    CHECK(rio__store_pwrite_full(&st, w, len, 4096) == 0 && st.scratch == NULL,
          "a plain write of a page-aligned buffer at a page-aligned offset goes straight");
    CHECK(rio__store_pwrite_shared(&st, w, small, (MPI_Offset)len + 4096) == 0 &&
              st.scratch == NULL,
          "a shared write of %zu bytes goes straight", small);
    stats.bytes_accessed = 0;
    CHECK(rio__store_pwrite_shared(&st, w, len, 4096) == 0, "a shared write of %zu bytes", len);
    CHECK((st.scratch != NULL) == !is_direct, "it is staged %s",
          is_direct ? "on O_DIRECT" : "not");
    CHECK(stats.bytes_accessed == (long long)len, "counted %lld bytes", stats.bytes_accessed);
    CHECK(rio__store_close(&st) == 0, "close");
    unsigned char *f = slurp(path, &flen);
    CHECK(f && flen == len + 4096 + small && !memcmp(f + 4096, w, len) &&
              !memcmp(f + 4096 + len, w, small),
          "the shared writes' bytes in the file");
    free(f);

    /* through a wrapper, whose calls count: straight, its bytes written */
    memset(&wst, 0, sizeof wst);
    snprintf(name, sizeof name, "delay:posix:%s", path);
    CHECK(rio__store_open(&wst, name, O_RDWR, 0644, &h) == 0, "open %s", name);
    CHECK(rio__store_pwrite_shared(&wst, w + 7, len - 7, 100) == 0 && wst.scratch == NULL,
          "a wrapped file's shared write is not staged");
    rio__store_close(&wst);
    f = slurp(path, &flen);
    CHECK(f && flen == len + 4096 + small && !memcmp(f + 100, w + 7, len - 7),
          "its bytes in the file");
    free(f);
    unlink(path);
    free(w);
    printf("ok - shared writes (%s)\n", is_direct ? "O_DIRECT: not staged" : "buffered");
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "/tmp");
    test_band(); /* first: it settles this process's staging */
    test_find();
    test_basic();
    test_write_cap();
    test_list(RIO_DISABLE);
    test_list(RIO_ENABLE);
    test_locks();
    test_scratch();
    test_staged(0);
    test_staged(1);
    test_shared_write(0);
    test_shared_write(1);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

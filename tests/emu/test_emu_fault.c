/*
 * test_emu_fault.c — the fault driver over the emu driver ("fault:emu:NAME").
 *
 * A file on the emulated storage is written by four calls of the write
 * class (contiguous, vectored, list, datatype); with op=write,n=N the
 * N-th of them must fail with the planned error and the others succeed,
 * for every N.  The file is then read back from the service's object
 * files (emu_slurp, which shares no code with the client): it must hold
 * exactly the bytes of the calls that succeeded, and nothing may have
 * gone to a posix file.  SHORT and EINTR must be absorbed with every
 * byte in place, reads and size queries must fail at their N-th call,
 * and the wrapped file must offer the emu driver's datatype calls.
 *
 * Usage: test_emu_fault <resonio-emud>
 */
#include "dtype/dtype.h"
#include "file/file_int.h" /* the hints */
#include "store/store.h"

#include "emu_test.h"
#include "../unit/unit.h"

enum { N = 60000 };
static unsigned char w[N], expect[N];
static struct rio_hints h;

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 37u + seed * 5u + (i >> 9)) & 0xff);
}

static int open_spec(struct rio_store *st, const char *name, const char *spec)
{
    memset(st, 0, sizeof *st);
    /* made afresh: a spec cannot be unset by a hint */
    rio__hints_free(&h);
    unit_hint(&h, "resonio_emu_dir", emu_dir);
    unit_hint(&h, "striping_unit", "4096");
    unit_hint(&h, "striping_factor", "3");
    if (spec)
        unit_hint(&h, "resonio_fault", spec);
    return rio__store_open(st, name, O_RDWR | O_CREAT, 0644, &h);
}

/* The file's bytes on the service must be want[0, len). */
static int on_service(const char *name, const unsigned char *want, long long len)
{
    long long dn = -1;
    unsigned char *disk = emu_slurp(emu_dir, name, &dn);
    int ok = disk && dn == len && !memcmp(disk, want, (size_t)len);
    if (!ok && disk) {
        long long i = 0;
        while (i < len && i < dn && disk[i] == want[i])
            i++;
        printf("  %s: %lld bytes on the service, %lld expected, first difference at %lld\n",
               name, dn, len, i);
    }
    free(disk);
    return ok;
}

/* The four writes; fail is the 1-based call expected to fail (0: none),
 * err its code.  Fills expect with what must be on the service and
 * returns its length. */
static long long four_writes(struct rio_store *st, struct rio_dtype *dt, int fail, int err,
                             const char *what)
{
    long long len = 0;
    int rc;
    memset(expect, 0, sizeof expect);
    fill(w, N, 9);

    rc = rio__store_pwrite_full(st, w, 20000, 0);
    CHECK(rc == (fail == 1 ? err : 0), "%s: pwrite_full: %d", what, rc);
    if (fail != 1) {
        memcpy(expect, w, 20000);
        len = 20000;
    }

    struct iovec iv[3] = {{w + 100, 3000}, {w + 9000, 5000}, {w + 15000, 17}};
    rc = rio__store_pwritev_full(st, iv, 3, 25000);
    CHECK(rc == (fail == 2 ? err : 0), "%s: pwritev_full: %d", what, rc);
    if (fail != 2) {
        memcpy(expect + 25000, w + 100, 3000);
        memcpy(expect + 28000, w + 9000, 5000);
        memcpy(expect + 33000, w + 15000, 17);
        len = 33017;
    }

    struct rio_region fr[3] = {{40000, 4000}, {36000, 2000}, {45000, 1}};
    struct iovec lm[3] = {{w + 30000, 4000}, {w + 35000, 2000}, {w + 41000, 1}};
    rc = rio__store_write_list(st, fr, lm, 3);
    CHECK(rc == (fail == 3 ? err : 0), "%s: write_list: %d", what, rc);
    if (fail != 3) {
        memcpy(expect + 40000, w + 30000, 4000);
        memcpy(expect + 36000, w + 35000, 2000);
        memcpy(expect + 45000, w + 41000, 1);
        len = 45001;
    }

    /* 8 blocks of 64 bytes every 256 from 48000: ends at 48000 + 7*256 + 64 */
    rc = rio__store_write_view(st, dt, 48000, 0, w + 50000, 512);
    CHECK(rc == (fail == 4 ? err : 0), "%s: write_view: %d", what, rc);
    if (fail != 4) {
        for (int b = 0; b < 8; b++)
            memcpy(expect + 48000 + 256 * b, w + 50000 + 64 * b, 64);
        len = 48000 + 7 * 256 + 64;
    }
    return len;
}

static int body(void)
{
    MPI_Init(NULL, NULL);
    struct rio_store st;
    struct rio_dtype *dt = NULL;
    MPI_Datatype vec;
    char name[64], spec[64];
    MPI_Type_vector(8, 64, 256, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    CHECK(rio__dtype_get(vec, &dt) == 0, "filetype");

    /* no spec: a pass-through that keeps the emu driver's calls */
    int rc = open_spec(&st, "fault:emu:ef/plain", NULL);
    CHECK(rc == 0, "open fault:emu:ef/plain: %d (%s)", rc, rio__err_detail_peek());
    if (rc)
        goto out;
    struct rio_layout lo;
    rio__store_layout(&st, &lo);
    CHECK(st.ops->write_view && st.ops->read_view && st.ops->layout && lo.known &&
              lo.unit == 4096 && lo.count == 3,
          "the wrapped file offers emu's datatype calls and layout (%lld x %d)", lo.unit,
          lo.count);
    long long len = four_writes(&st, dt, 0, 0, "no fault");
    CHECK(on_service("ef/plain", expect, len), "no fault: the service holds every byte");
    CHECK(access("emu:ef/plain", F_OK) != 0 && access("ef/plain", F_OK) != 0,
          "no posix file was made");
    rio__store_close(&st);

    /* EIO and ENOSPC at the N-th write, swept */
    for (int e = 0; e < 2; e++) {
        for (int n = 1; n <= 4; n++) {
            snprintf(name, sizeof name, "fault:emu:ef/w%d.%d", e, n);
            snprintf(spec, sizeof spec, "op=write,n=%d,err=%s", n, e ? "ENOSPC" : "EIO");
            rc = open_spec(&st, name, spec);
            CHECK(rc == 0, "open %s: %d", name, rc);
            if (rc)
                continue;
            len = four_writes(&st, dt, n, e ? -ENOSPC : -EIO, spec);
            CHECK(on_service(name + 10, expect, len), "%s: the service holds exactly the writes "
                  "that succeeded", spec);
            rio__store_close(&st);
        }
    }

    /* SHORT and EINTR at each write are absorbed: every byte in place */
    for (int e = 0; e < 2; e++) {
        for (int n = 1; n <= 4; n++) {
            snprintf(name, sizeof name, "fault:emu:ef/s%d.%d", e, n);
            snprintf(spec, sizeof spec, "op=write,n=%d,err=%s", n, e ? "EINTR" : "SHORT");
            rc = open_spec(&st, name, spec);
            CHECK(rc == 0, "open %s: %d", name, rc);
            if (rc)
                continue;
            len = four_writes(&st, dt, 0, 0, spec);
            CHECK(on_service(name + 10, expect, len), "%s: absorbed, every byte on the service",
                  spec);
            rio__store_close(&st);
        }
    }

    /* reads: the N-th read call fails, the bytes of the file are untouched */
    {
        static unsigned char r[N];
        MPI_Offset done = 0;
        for (int n = 1; n <= 3; n++) {
            snprintf(spec, sizeof spec, "op=read,n=%d", n);
            rc = open_spec(&st, "fault:emu:ef/plain", spec);
            CHECK(rc == 0, "open for %s: %d", spec, rc);
            if (rc)
                continue;
            four_writes(&st, dt, 0, 0, "rewrite"); /* writes are not counted */
            int r1 = rio__store_pread_full(&st, r, 20000, 0, &done);
            int ok1 = !r1 && done == 20000 && !memcmp(r, w, 20000);
            struct rio_region fr = {25000, 3000};
            struct iovec m = {r, 3000};
            int r2 = rio__store_read_list(&st, &fr, &m, 1, &done);
            int ok2 = !r2 && done == 3000 && !memcmp(r, w + 100, 3000);
            int r3 = rio__store_read_view(&st, dt, 48000, 0, r, 512, &done);
            int ok3 = !r3 && done == 512 && !memcmp(r, w + 50000, 512);
            CHECK(n == 1 ? r1 == -EIO : ok1, "%s: pread_full %d", spec, r1);
            CHECK(n == 2 ? r2 == -EIO : ok2, "%s: read_list %d", spec, r2);
            CHECK(n == 3 ? r3 == -EIO : ok3, "%s: read_view %d", spec, r3);
            rio__store_close(&st);
        }
        CHECK(on_service("ef/plain", expect, 48000 + 7 * 256 + 64), "reads changed nothing");
    }

    /* size class and the open itself */
    {
        MPI_Offset size = -1;
        rc = open_spec(&st, "fault:emu:ef/plain", "op=size,n=2");
        CHECK(rc == 0 && st.ops->get_size(&st, &size) == 0 && size == 48000 + 7 * 256 + 64 &&
                  st.ops->set_size(&st, 10) == -EIO && st.ops->get_size(&st, &size) == 0 &&
                  size == 48000 + 7 * 256 + 64,
              "op=size,n=2: the second size call fails and changes nothing");
        if (!rc)
            rio__store_close(&st);
        rc = open_spec(&st, "fault:emu:ef/never", "op=open,n=1");
        CHECK(rc == -EIO && !st.ops, "op=open: %d", rc);
        CHECK(!emu_slurp(emu_dir, "ef/never", &len), "a failed open made no file on the service");
    }
    CHECK(rio__store_remove("fault:emu:ef/plain", &h) == 0 &&
              !emu_slurp(emu_dir, "ef/plain", &len),
          "remove through fault:emu: removes from the service");
out:
    rio__dtype_put(dt);
    MPI_Type_free(&vec);
    rio__hints_free(&h);
    MPI_Finalize();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

int main(int argc, char **argv)
{
    return emu_main(argc, argv, "3", NULL, body, 120);
}

/*
 * t_basic.c — file manipulation through the native API.
 *
 * Every valid access mode (and what each one promises: CREATE, EXCL,
 * DELETE_ON_CLOSE removes the file, APPEND starts both pointers at end of
 * file, SEQUENTIAL allows only shared-pointer access), the file_perm hint,
 * close and delete, set_size / get_size / preallocate checked with stat,
 * get_group against the opening communicator, get_amode, set_info and
 * get_info (values set, documented defaults otherwise), atomicity and sync.
 */
#include "resonio.h"
#include "rtest.h"

#include <sys/stat.h>

static char path[4096];

/* Remove a file by POSIX on rank 0 and wait for it. */
static void fresh(const char *p)
{
    if (rt_rank == 0)
        unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
}

static const char *amode_name(int m, char *buf, size_t len)
{
    static const struct {
        int bit;
        const char *name;
    } bits[] = {{MPI_MODE_RDONLY, "RDONLY"},
                {MPI_MODE_WRONLY, "WRONLY"},
                {MPI_MODE_RDWR, "RDWR"},
                {MPI_MODE_CREATE, "CREATE"},
                {MPI_MODE_EXCL, "EXCL"},
                {MPI_MODE_DELETE_ON_CLOSE, "DELETE_ON_CLOSE"},
                {MPI_MODE_UNIQUE_OPEN, "UNIQUE_OPEN"},
                {MPI_MODE_SEQUENTIAL, "SEQUENTIAL"},
                {MPI_MODE_APPEND, "APPEND"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (m & bits[i].bit) {
            if (buf[0])
                strncat(buf, "|", len - strlen(buf) - 1);
            strncat(buf, bits[i].name, len - strlen(buf) - 1);
        }
    return buf;
}

/* Every valid combination on an existing file: open, get_amode, close. */
static void test_amodes(void)
{
    rio_file *fh = RIO_FILE_NULL;
    char mn[160];
    rt_path(path, sizeof path, "amode");
    fresh(path);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh))) {
        RT_OK(rio_file_close(&fh));
        CHECK(fh == RIO_FILE_NULL, "close did not set the handle to RIO_FILE_NULL");
    }
    CHECK(rt_exists(path), "MPI_MODE_CREATE did not create %s", path);

    static const int modes[] = {
        MPI_MODE_RDONLY,
        MPI_MODE_WRONLY,
        MPI_MODE_RDWR,
        MPI_MODE_WRONLY | MPI_MODE_CREATE,
        MPI_MODE_RDWR | MPI_MODE_CREATE,
        MPI_MODE_RDONLY | MPI_MODE_UNIQUE_OPEN,
        MPI_MODE_WRONLY | MPI_MODE_UNIQUE_OPEN,
        MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN,
        MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL,
        MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
        MPI_MODE_RDONLY | MPI_MODE_APPEND,
        MPI_MODE_WRONLY | MPI_MODE_APPEND,
        MPI_MODE_RDWR | MPI_MODE_APPEND,
        MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_APPEND,
        MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL | MPI_MODE_UNIQUE_OPEN,
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        int m = modes[i], got = -1;
        amode_name(m, mn, sizeof mn);
        if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, m, MPI_INFO_NULL, &fh))) {
            CHECK(0, "open with %s failed", mn);
            continue;
        }
        CHECK(fh != RIO_FILE_NULL, "open with %s gave RIO_FILE_NULL", mn);
        RT_OK(rio_file_get_amode(fh, &got));
        CHECK(got == m, "get_amode after open with %s gave 0x%x, expected 0x%x", mn, got, m);
        RT_OK(rio_file_close(&fh));
        CHECK(fh == RIO_FILE_NULL, "close after %s did not null the handle", mn);
    }

    /* EXCL: creating succeeds on a new file, fails with FILE_EXISTS after. */
    fresh(path);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                            MPI_INFO_NULL, &fh)))
        RT_OK(rio_file_close(&fh));
    int code = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                             MPI_INFO_NULL, &fh);
    RT_ERR(code, MPI_ERR_FILE_EXISTS, "MPI_File_open", path);
    CHECK(fh == RIO_FILE_NULL, "failed open left a handle");

    /* DELETE_ON_CLOSE on a new file and on an existing one opened RDONLY. */
    for (int variant = 0; variant < 2; variant++) {
        int m = variant == 0 ? MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE
                             : MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE;
        char p2[4200];
        snprintf(p2, sizeof p2, "%s.doc%d", path, variant);
        fresh(p2);
        if (variant == 1 && rt_rank == 0) {
            unsigned char b[64];
            rt_fill(b, sizeof b, 0, 0);
            CHECK(rt_pwrite_file(p2, b, sizeof b, 0, 1) == 0, "cannot create %s", p2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        amode_name(m, mn, sizeof mn);
        if (!RT_OK(rio_file_open(MPI_COMM_WORLD, p2, m, MPI_INFO_NULL, &fh)))
            continue;
        if (variant == 0) {
            unsigned char b[32];
            rt_fill(b, sizeof b, rt_rank, 32 * rt_rank);
            RT_OK(rio_file_write_at(fh, 32 * rt_rank, b, 32, MPI_BYTE, MPI_STATUS_IGNORE));
        } else {
            unsigned char b[64];
            MPI_Status st;
            if (RT_OK(rio_file_read_at(fh, 0, b, 64, MPI_BYTE, &st)))
                CHECK_PAT(b, 64, 0, 0, "read of an existing file opened %s", mn);
        }
        CHECK(rt_exists(p2), "%s: file gone before close", mn);
        RT_OK(rio_file_close(&fh));
        CHECK(!rt_exists(p2), "%s: file %s still exists after close", mn, p2);
    }
    if (rt_rank == 0)
        RT_OK(rio_file_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(!rt_exists(path), "MPI_File_delete left %s", path);
}

/* APPEND: both pointers start at end of file, so writes append. */
static void test_append(void)
{
    const int B = 100, A = 10, R = 8;
    rio_file *fh = RIO_FILE_NULL;
    MPI_Offset pos = -1;
    MPI_Status st;
    rt_path(path, sizeof path, "append");
    fresh(path);
    if (rt_rank == 0) {
        unsigned char b[100];
        rt_fill(b, (size_t)B, 0, 0);
        CHECK(rt_pwrite_file(path, b, (size_t)B, 0, 1) == 0, "cannot create %s", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND,
                            MPI_INFO_NULL, &fh))) {
        RT_OK(rio_file_get_position(fh, &pos));
        CHECK(pos == B, "APPEND: individual pointer starts at %lld, expected %d", (long long)pos,
              B);
        RT_OK(rio_file_get_position_shared(fh, &pos));
        CHECK(pos == B, "APPEND: shared pointer starts at %lld, expected %d", (long long)pos, B);
        if (rt_rank == 0) {
            unsigned char b[10];
            rt_fill(b, (size_t)A, 0, B);
            if (RT_OK(rio_file_write(fh, b, A, MPI_BYTE, &st)))
                CHECK_STATUS(&st, MPI_BYTE, A, A, "APPEND write");
            RT_OK(rio_file_get_position(fh, &pos));
            CHECK(pos == B + A, "APPEND: pointer after write is %lld, expected %d",
                  (long long)pos, B + A);
        }
        RT_OK(rio_file_close(&fh));
    }
    CHECK(rt_stat_size(path) == B + A, "APPEND: size after individual write %lld, expected %d",
          rt_stat_size(path), B + A);

    /* Second open appends after that, through the shared pointer in rank order. */
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND,
                            MPI_INFO_NULL, &fh))) {
        unsigned char b[8];
        RT_OK(rio_file_get_position(fh, &pos));
        CHECK(pos == B + A, "APPEND reopen: individual pointer %lld, expected %d", (long long)pos,
              B + A);
        rt_fill(b, (size_t)R, rt_rank, B + A + R * rt_rank);
        if (RT_OK(rio_file_write_ordered(fh, b, R, MPI_BYTE, &st)))
            CHECK_STATUS(&st, MPI_BYTE, R, R, "APPEND write_ordered");
        RT_OK(rio_file_get_position_shared(fh, &pos));
        CHECK(pos == B + A + R * rt_nprocs, "APPEND: shared pointer after write_ordered %lld, expected %d",
              (long long)pos, B + A + R * rt_nprocs);
        RT_OK(rio_file_close(&fh));
    }
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        CHECK(len == B + A + R * rt_nprocs, "APPEND: final size %lld, expected %d", len,
              B + A + R * rt_nprocs);
        if (f && len >= B + A) {
            CHECK_PAT(f, (size_t)(B + A), 0, 0, "APPEND: original data and appended write");
            for (int r = 0; r < rt_nprocs && B + A + R * (r + 1) <= len; r++)
                CHECK_PAT(f + B + A + R * r, (size_t)R, r, B + A + R * r,
                          "APPEND: record of rank %d", r);
        }
        free(f);
        unlink(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* SEQUENTIAL: shared-pointer calls work, the others are unsupported. */
static void test_sequential(void)
{
    const int R = 16;
    rio_file *fh = RIO_FILE_NULL;
    unsigned char b[16];
    MPI_Status st;
    MPI_Offset pos;
    rt_path(path, sizeof path, "seq");
    fresh(path);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path,
                            MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                            &fh))) {
        rt_fill(b, (size_t)R, rt_rank, R * rt_rank);
        if (RT_OK(rio_file_write_ordered(fh, b, R, MPI_BYTE, &st)))
            CHECK_STATUS(&st, MPI_BYTE, R, R, "SEQUENTIAL write_ordered");
        RT_ERR(rio_file_write_at(fh, 0, b, R, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write_at", path);
        RT_ERR(rio_file_write(fh, b, R, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write", path);
        RT_ERR(rio_file_write_all(fh, b, R, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write_all", path);
        RT_ERR(rio_file_write_at_all(fh, 0, b, R, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_write_at_all", path);
        RT_ERR(rio_file_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_seek", path);
        RT_ERR(rio_file_get_position(fh, &pos), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_get_position", path);
        /* MPI_DISPLACEMENT_CURRENT: the new view starts at the shared
         * pointer (in bytes), and the shared pointer is 0 in it. */
        MPI_Offset disp = -1;
        MPI_Datatype et, ft;
        char rep[MPI_MAX_DATAREP_STRING + 1];
        if (RT_OK(rio_file_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                    MPI_INFO_NULL))) {
            if (RT_OK(rio_file_get_view(fh, &disp, &et, &ft, rep)))
                CHECK(disp == (MPI_Offset)R * rt_nprocs,
                      "MPI_DISPLACEMENT_CURRENT gave disp %lld, expected %d", (long long)disp,
                      R * rt_nprocs);
            RT_OK(rio_file_get_position_shared(fh, &pos));
            CHECK(pos == 0, "shared pointer %lld after set_view, expected 0", (long long)pos);
            int v[2];
            rt_fill(v, 8, rt_rank, (long long)R * rt_nprocs + 8 * rt_rank);
            if (RT_OK(rio_file_write_ordered(fh, v, 2, MPI_INT, &st)))
                CHECK_STATUS(&st, MPI_INT, 2, 2, "write_ordered of ints after DISPLACEMENT_CURRENT");
        }
        RT_OK(rio_file_close(&fh));
    }
    CHECK(rt_stat_size(path) == (long long)(R + 8) * rt_nprocs, "SEQUENTIAL: size %lld, expected %d",
          rt_stat_size(path), (R + 8) * rt_nprocs);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        for (int r = 0; f && r < rt_nprocs && len == (long long)(R + 8) * rt_nprocs; r++) {
            CHECK_PAT(f + R * r, (size_t)R, r, R * r, "SEQUENTIAL: record of rank %d", r);
            long long o = (long long)R * rt_nprocs + 8 * r;
            CHECK_PAT(f + o, 8, r, o, "SEQUENTIAL: ints of rank %d after DISPLACEMENT_CURRENT", r);
        }
        free(f);
    }

    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL,
                            MPI_INFO_NULL, &fh))) {
        memset(b, 0, sizeof b);
        if (RT_OK(rio_file_read_ordered(fh, b, R, MPI_BYTE, &st))) {
            CHECK_STATUS(&st, MPI_BYTE, R, R, "SEQUENTIAL read_ordered");
            CHECK_PAT(b, (size_t)R, rt_rank, R * rt_rank, "SEQUENTIAL read_ordered");
        }
        RT_ERR(rio_file_read_at(fh, 0, b, R, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_read_at", path);
        RT_ERR(rio_file_read(fh, b, R, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
               "MPI_File_read", path);
        /* Skip the ints: at end of file now, a shared read returns nothing. */
        RT_OK(rio_file_seek_shared(fh, (MPI_Offset)(R + 8) * rt_nprocs, MPI_SEEK_SET));
        if (RT_OK(rio_file_read_shared(fh, b, R, MPI_BYTE, &st)))
            CHECK_STATUS(&st, MPI_BYTE, 0, 0, "SEQUENTIAL read_shared at end of file");
        RT_OK(rio_file_close(&fh));
    }
    fresh(path);
}

/* file_perm hint and the default mode, with umask 0. */
static void test_perm(void)
{
    rio_file *fh = RIO_FILE_NULL;
    umask(0);
    static const struct {
        const char *hint;
        int mode;
    } cases[] = {{"0640", 0640}, {"0600", 0600}, {NULL, 0666}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "perm%zu", i);
        rt_path(path, sizeof path, suffix);
        fresh(path);
        MPI_Info info = rt_info("file_perm", cases[i].hint, NULL);
        if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE, info,
                                &fh)))
            RT_OK(rio_file_close(&fh));
        MPI_Info_free(&info);
        struct stat sb;
        if (rt_rank == 0 && stat(path, &sb) != 0)
            CHECK(0, "stat(%s): %s", path, strerror(errno));
        else if (rt_rank == 0)
            CHECK((sb.st_mode & 07777) == (mode_t)cases[i].mode,
                  "file_perm %s: mode %04o, expected %04o", cases[i].hint ? cases[i].hint : "(none)",
                  (unsigned)(sb.st_mode & 07777), (unsigned)cases[i].mode);
        fresh(path);
    }
}

/* set_size, get_size, preallocate: sizes checked with stat, data kept. */
static void test_size(void)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Offset sz = -1;
    const int N = 10;
    rt_path(path, sizeof path, "size");
    fresh(path);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh)))
        return;
    unsigned char b[10];
    rt_fill(b, (size_t)N, rt_rank, N * rt_rank);
    RT_OK(rio_file_write_at_all(fh, N * rt_rank, b, N, MPI_BYTE, MPI_STATUS_IGNORE));
    RT_OK(rio_file_get_size(fh, &sz));
    CHECK(sz == (MPI_Offset)N * rt_nprocs, "get_size after writes %lld, expected %d",
          (long long)sz, N * rt_nprocs);

    const MPI_Offset sizes[] = {1000, 5};
    for (int i = 0; i < 2; i++) {
        RT_OK(rio_file_set_size(fh, sizes[i]));
        RT_OK(rio_file_get_size(fh, &sz));
        CHECK(sz == sizes[i], "get_size after set_size(%lld) gave %lld", (long long)sizes[i],
              (long long)sz);
        CHECK(rt_stat_size(path) == sizes[i], "stat size after set_size(%lld) is %lld",
              (long long)sizes[i], rt_stat_size(path));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rt_rank == 0) {
            long long len = 0;
            unsigned char *f = RT_SLURP(path, &len);
            if (f && len == sizes[i]) {
                long long keep = rt_minll(len, (long long)N * rt_nprocs);
                for (long long o = 0; o < keep; o++)
                    if (f[o] != pat((int)(o / N), o)) {
                        CHECK(0, "set_size(%lld): byte %lld changed", (long long)sizes[i], o);
                        break;
                    }
                for (long long o = keep; o < len; o++)
                    if (f[o] != 0) {
                        CHECK(0, "set_size(%lld): extended byte %lld is 0x%02x, not 0",
                              (long long)sizes[i], o, f[o]);
                        break;
                    }
            }
            free(f);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* preallocate grows (storage allocated), never shrinks, keeps data. */
    RT_OK(rio_file_preallocate(fh, 5000));
    RT_OK(rio_file_get_size(fh, &sz));
    CHECK(sz == 5000, "get_size after preallocate(5000) gave %lld", (long long)sz);
    struct stat sb;
    if (stat(path, &sb) == 0) {
        CHECK(sb.st_size == 5000, "stat size after preallocate(5000) is %lld",
              (long long)sb.st_size);
        CHECK((long long)sb.st_blocks * 512 >= 5000,
              "preallocate(5000): only %lld bytes of storage allocated",
              (long long)sb.st_blocks * 512);
    }
    RT_OK(rio_file_preallocate(fh, 100));
    RT_OK(rio_file_get_size(fh, &sz));
    CHECK(sz == 5000, "preallocate(100) changed the size to %lld", (long long)sz);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        unsigned char g[5];
        CHECK(rt_pread(path, g, 5, 0) == 5, "pread after preallocate");
        CHECK_PAT(g, 5, 0, 0, "data after preallocate");
    }
    RT_OK(rio_file_close(&fh));
    fresh(path);
}

/* get_group is the group of the communicator the file was opened on. */
static void test_group(void)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rt_nprocs - rt_rank, &rev);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, rev, MPI_COMM_SELF};
    for (int i = 0; i < 3; i++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "group%d.%d", i, i == 2 ? rt_rank : 0);
        rt_path(path, sizeof path, suffix);
        if (!RT_OK(rio_file_open(comms[i], path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                                                     MPI_MODE_DELETE_ON_CLOSE,
                                 MPI_INFO_NULL, &fh)))
            continue;
        MPI_Group g = MPI_GROUP_NULL, cg;
        int result = -1;
        if (RT_OK(rio_file_get_group(fh, &g))) {
            MPI_Comm_group(comms[i], &cg);
            MPI_Group_compare(g, cg, &result);
            CHECK(result == MPI_IDENT, "get_group on communicator %d: compare gives %d, not MPI_IDENT",
                  i, result);
            MPI_Group_free(&cg);
            MPI_Group_free(&g);
        }
        RT_OK(rio_file_close(&fh));
    }
    MPI_Comm_free(&rev);
}

/* Check one key of a file's info. */
static void check_info(rio_file *fh, const char *key, const char *want, const char *when)
{
    MPI_Info used = MPI_INFO_NULL;
    char val[MPI_MAX_INFO_VAL + 1];
    if (!RT_OK(rio_file_get_info(fh, &used)))
        return;
    if (!rt_info_get(used, key, val, (int)sizeof val))
        CHECK(0, "%s: get_info has no %s (expected %s)", when, key, want);
    else
        CHECK(!strcmp(val, want), "%s: get_info %s=%s, expected %s", when, key, val, want);
    MPI_Info_free(&used);
}

static void test_info(void)
{
    rio_file *fh = RIO_FILE_NULL;
    rt_path(path, sizeof path, "info");
    fresh(path);
    /* Defaults of a file opened without hints (documented in common.h). */
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh))) {
        check_info(fh, "cb_buffer_size", "16777216", "defaults");
        check_info(fh, "ind_rd_buffer_size", "4194304", "defaults");
        check_info(fh, "ind_wr_buffer_size", "524288", "defaults");
        check_info(fh, "resonio_indep_method", "auto", "defaults");
        RT_OK(rio_file_close(&fh));
    }
    fresh(path);
    MPI_Info info = rt_info("cb_buffer_size", "1048576", "resonio_indep_method", "sieve",
                            "file_perm", "0600", "romio_cb_write", "disable",
                            "resonio_no_such_key", "1", NULL);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh))) {
        MPI_Info used = MPI_INFO_NULL;
        char val[MPI_MAX_INFO_VAL + 1];
        check_info(fh, "cb_buffer_size", "1048576", "after open");
        check_info(fh, "resonio_indep_method", "sieve", "after open");
        check_info(fh, "romio_cb_write", "disable", "after open");
        check_info(fh, "ind_rd_buffer_size", "4194304", "after open (default)");
        if (RT_OK(rio_file_get_info(fh, &used))) {
            if (rt_info_get(used, "file_perm", val, (int)sizeof val))
                CHECK(strtol(val, NULL, 8) == 0600, "get_info file_perm=%s, expected 600 octal",
                      val);
            else
                CHECK(0, "get_info lacks file_perm set at open");
            MPI_Info_free(&used);
        }
        MPI_Info set = rt_info("cb_buffer_size", "2097152", "ind_rd_buffer_size", "1048576",
                               "file_perm", "0644", NULL);
        RT_OK(rio_file_set_info(fh, set));
        MPI_Info_free(&set);
        check_info(fh, "cb_buffer_size", "2097152", "after set_info");
        check_info(fh, "ind_rd_buffer_size", "1048576", "after set_info");
        check_info(fh, "resonio_indep_method", "sieve", "after set_info (unchanged)");
        if (RT_OK(rio_file_get_info(fh, &used))) {
            if (rt_info_get(used, "file_perm", val, (int)sizeof val))
                CHECK(strtol(val, NULL, 8) == 0600,
                      "file_perm is fixed at open, but get_info shows %s after set_info", val);
            MPI_Info_free(&used);
        }
        /* Hints given to set_view count too. */
        MPI_Info vi = rt_info("cb_buffer_size", "4194304", NULL);
        RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", vi));
        MPI_Info_free(&vi);
        check_info(fh, "cb_buffer_size", "4194304", "after set_view with info");

        /* Fortran handles. */
        MPI_Fint fi = rio_file_c2f(fh);
        CHECK(fi != 0, "rio_file_c2f of an open file gave 0");
        CHECK(rio_file_c2f(fh) == fi, "rio_file_c2f is not stable");
        CHECK(rio_file_f2c(fi) == fh, "rio_file_f2c(rio_file_c2f(fh)) is not fh");
        CHECK(rio_file_c2f(RIO_FILE_NULL) == 0, "rio_file_c2f(RIO_FILE_NULL) is not 0");
        CHECK(rio_file_f2c(0) == RIO_FILE_NULL, "rio_file_f2c(0) is not RIO_FILE_NULL");

        /* Atomicity. */
        int flag = -1;
        RT_OK(rio_file_get_atomicity(fh, &flag));
        CHECK(flag == 0, "atomicity starts as %d, expected 0", flag);
        RT_OK(rio_file_set_atomicity(fh, 1));
        RT_OK(rio_file_get_atomicity(fh, &flag));
        CHECK(flag == 1, "atomicity after set 1 is %d", flag);
        RT_OK(rio_file_set_atomicity(fh, 0));
        RT_OK(rio_file_get_atomicity(fh, &flag));
        CHECK(flag == 0, "atomicity after set 0 is %d", flag);

        /* Sync after a write; the data is in the file. */
        unsigned char b[16];
        rt_fill(b, 16, rt_rank, 16 * rt_rank);
        RT_OK(rio_file_write_at(fh, 16 * rt_rank, b, 16, MPI_BYTE, MPI_STATUS_IGNORE));
        RT_OK(rio_file_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        RT_OK(rio_file_sync(fh));
        int peer = (rt_rank + 1) % rt_nprocs;
        unsigned char g[16];
        CHECK(rt_pread(path, g, 16, 16 * peer) == 16, "pread after sync");
        CHECK_PAT(g, 16, peer, 16 * peer, "file bytes of rank %d after sync", peer);
        RT_OK(rio_file_close(&fh));
        CHECK(rio_file_f2c(fi) == RIO_FILE_NULL, "rio_file_f2c of a closed file's integer is not RIO_FILE_NULL");
    }
    MPI_Info_free(&info);

    /* Sync of a read-only file is fine too. */
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh))) {
        RT_OK(rio_file_sync(fh));
        RT_OK(rio_file_close(&fh));
    }
    fresh(path);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    test_amodes();
    test_append();
    test_sequential();
    test_perm();
    test_size();
    test_group();
    test_info();
    return rt_finish();
}

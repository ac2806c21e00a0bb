/*
 * t_errors.c — every bad input gives the right error class, and a message
 * (MPI_Error_string) that names the operation and the file.
 *
 * Missing file, EXCL on an existing one, no permission, access against the
 * open mode, invalid amodes, bad filetypes, negative counts and offsets,
 * MPI_FILE_NULL, explicit-offset and individual-pointer calls on a
 * SEQUENTIAL file, an unknown datarep, split collectives used wrongly,
 * ENOSPC and EIO from the fault: driver, uncommitted datatypes as memory
 * type, etype or filetype (MPI_ERR_TYPE, nothing written or read, and the
 * same type works once committed).  The strings of codes of several
 * classes hold the class's own wording (MPI_Error_string of the class)
 * and the cause, and not another class's wording (MPICH once printed
 * "Other I/O error" in every one).  Error handlers: created ones are
 * called with the code and the handle, the default (set on RIO_FILE_NULL)
 * applies to files opened later and to failed opens, call_errhandler, and a
 * handler freed while attached stays in force.  A collective call that
 * fails on one rank only fails on every rank, and nothing hangs (SIGALRM
 * watchdog).
 */
#include "resonio.h"
#include "rtest.h"

#include <linux/capability.h>
#include <signal.h>
#include <sys/syscall.h>

static char path[4096];     /* an existing file, RDWR-able */
static char missing[4096];  /* never exists */

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(1);
    _exit(1);
}

/* A call that must fail (class not prescribed by the standard). */
#define RT_FAILS(code, op, name) rt_fails((code), (op), (name), __FILE__, __LINE__)
static int rt_fails(int code, const char *op, const char *name, const char *file, int line)
{
    char s[MPI_MAX_ERROR_STRING];
    if (code == MPI_SUCCESS) {
        rt_fail(file, line, "%s succeeded, expected an error", op);
        return 0;
    }
    rt_errstr(code, s);
    if (!strstr(s, op) || (name && !strstr(s, name))) {
        rt_fail(file, line, "%s: message does not name the operation and file: %s", op, s);
        return 0;
    }
    return 1;
}

static rio_file *open_rdwr(const char *p)
{
    rio_file *fh = RIO_FILE_NULL;
    RT_OK(rio_file_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    return fh;
}

static void test_open_errors(void)
{
    rio_file *fh = (rio_file *)&fh; /* must be reset to RIO_FILE_NULL on failure */
    RT_ERR(rio_file_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
           MPI_ERR_NO_SUCH_FILE, "MPI_File_open", missing);
    CHECK(fh == RIO_FILE_NULL, "failed open did not set the handle to RIO_FILE_NULL");
    RT_ERR(rio_file_open(MPI_COMM_WORLD, missing, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
           MPI_ERR_NO_SUCH_FILE, "MPI_File_open", missing);
    if (rt_rank == 0)
        RT_ERR(rio_file_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE, "MPI_File_delete",
               missing);
    RT_ERR(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                         MPI_INFO_NULL, &fh),
           MPI_ERR_FILE_EXISTS, "MPI_File_open", path);
    RT_ERR(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_EXCL | MPI_MODE_CREATE,
                         MPI_INFO_NULL, &fh),
           MPI_ERR_FILE_EXISTS, "MPI_File_open", path);

    /* Invalid access modes. */
    static const struct {
        int amode;
        const char *what;
    } bad[] = {
        {MPI_MODE_RDONLY | MPI_MODE_RDWR, "RDONLY|RDWR"},
        {MPI_MODE_RDONLY | MPI_MODE_WRONLY, "RDONLY|WRONLY"},
        {MPI_MODE_WRONLY | MPI_MODE_RDWR, "WRONLY|RDWR"},
        {MPI_MODE_RDONLY | MPI_MODE_CREATE, "RDONLY|CREATE"},
        {MPI_MODE_RDONLY | MPI_MODE_EXCL, "RDONLY|EXCL"},
        {MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, "RDWR|SEQUENTIAL"},
        {MPI_MODE_CREATE, "CREATE alone"},
        {MPI_MODE_APPEND, "APPEND alone"},
        {0, "no mode bits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fh = RIO_FILE_NULL;
        int code = rio_file_open(MPI_COMM_WORLD, path, bad[i].amode, MPI_INFO_NULL, &fh);
        if (!RT_ERR(code, MPI_ERR_AMODE, "MPI_File_open", path))
            CHECK(0, "amode %s was not refused with MPI_ERR_AMODE", bad[i].what);
        if (fh != RIO_FILE_NULL)
            rio_file_close(&fh);
    }
    /* The amode must agree between ranks. */
    if (rt_nprocs > 1) {
        fh = RIO_FILE_NULL;
        int code = rio_file_open(MPI_COMM_WORLD, path,
                                 rt_rank == 0 ? MPI_MODE_RDWR : MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        CHECK(code != MPI_SUCCESS, "open with amodes that differ between ranks succeeded");
        int cls = rt_class(code);
        CHECK(code == MPI_SUCCESS || cls == MPI_ERR_NOT_SAME || cls == MPI_ERR_AMODE,
              "amodes differing between ranks: class %s", rt_class_name(cls));
        if (fh != RIO_FILE_NULL)
            rio_file_close(&fh);
    }
    /* A directory is not a file. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s.dir", rt_fname);
    if (rt_rank == 0)
        mkdir(dir, 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    fh = RIO_FILE_NULL;
    RT_FAILS(rio_file_open(MPI_COMM_WORLD, dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
             "MPI_File_open", dir);
    if (fh != RIO_FILE_NULL)
        rio_file_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        rmdir(dir);
}

/* Drop (on = 0) or restore (on = 1) the capabilities that let root ignore
 * file permissions, in the effective set only.  Returns 0 on success. */
static int dac_caps(int on)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return -1;
    const unsigned bits = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
    if (on)
        data[0].effective |= bits & data[0].permitted;
    else
        data[0].effective &= ~bits;
    return syscall(SYS_capset, &hdr, data) == 0 ? 0 : -1;
}

static void test_permission(void)
{
    char p[4200];
    snprintf(p, sizeof p, "%s.noperm", rt_fname);
    if (rt_rank == 0) {
        unlink(p);
        unsigned char b[8] = {0};
        CHECK(rt_pwrite_file(p, b, sizeof b, 0, 1) == 0, "cannot create %s", p);
        CHECK(chmod(p, 0) == 0, "chmod 000 %s: %s", p, strerror(errno));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int root = geteuid() == 0, dropped = 0, all = 0;
    if (root)
        dropped = dac_caps(0) == 0;
    int ok = !root || dropped;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) {
        if (root)
            rt_note("running as root: the chmod 000 case runs with CAP_DAC_OVERRIDE and "
                    "CAP_DAC_READ_SEARCH dropped from the effective set");
        rio_file *fh = RIO_FILE_NULL;
        RT_ERR(rio_file_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
               MPI_ERR_ACCESS, "MPI_File_open", p);
        if (fh != RIO_FILE_NULL)
            rio_file_close(&fh);
        RT_ERR(rio_file_open(MPI_COMM_WORLD, p, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
               MPI_ERR_ACCESS, "MPI_File_open", p);
        if (fh != RIO_FILE_NULL)
            rio_file_close(&fh);
    } else {
        rt_note("running as root and the capabilities cannot be dropped: the chmod 000 "
                "permission case is NOT APPLICABLE here and was not run (access-mode "
                "violations below still check MPI_ERR_ACCESS)");
    }
    if (dropped)
        CHECK(dac_caps(1) == 0, "cannot restore capabilities");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(p);
}

static void test_access(void)
{
    rio_file *fh = RIO_FILE_NULL;
    unsigned char b[16] = {0};
    MPI_Status st;
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh))) {
        RT_ERR(rio_file_write_at(fh, 0, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS,
               "MPI_File_write_at", path);
        RT_ERR(rio_file_write(fh, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS, "MPI_File_write", path);
        RT_ERR(rio_file_write_at_all(fh, 0, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS,
               "MPI_File_write_at_all", path);
        RT_ERR(rio_file_write_shared(fh, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS,
               "MPI_File_write_shared", path);
        MPI_Request rq = MPI_REQUEST_NULL;
        RT_ERR(rio_file_iwrite_at(fh, 0, b, 16, MPI_BYTE, &rq), MPI_ERR_ACCESS,
               "MPI_File_iwrite_at", path);
        RT_ERR(rio_file_set_size(fh, 10), MPI_ERR_ACCESS, "MPI_File_set_size", path);
        RT_OK(rio_file_close(&fh));
    }
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh))) {
        RT_ERR(rio_file_read_at(fh, 0, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS, "MPI_File_read_at",
               path);
        RT_ERR(rio_file_read(fh, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS, "MPI_File_read", path);
        RT_ERR(rio_file_read_all(fh, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS, "MPI_File_read_all",
               path);
        RT_ERR(rio_file_read_ordered(fh, b, 16, MPI_BYTE, &st), MPI_ERR_ACCESS,
               "MPI_File_read_ordered", path);
        RT_OK(rio_file_close(&fh));
    }
}

static void test_views(rio_file *fh)
{
    MPI_Datatype dec, odd, t;
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {8, 0};
    MPI_Type_create_hindexed(2, bl, dp, MPI_BYTE, &dec);
    MPI_Type_commit(&dec);
    RT_ERR(rio_file_set_view(fh, 0, MPI_BYTE, dec, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
           "MPI_File_set_view", path);
    MPI_Type_free(&dec);
    MPI_Type_contiguous(6, MPI_BYTE, &odd);
    MPI_Type_commit(&odd);
    RT_ERR(rio_file_set_view(fh, 0, MPI_INT, odd, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
           "MPI_File_set_view", path);
    MPI_Type_free(&odd);
    RT_ERR(rio_file_set_view(fh, 0, MPI_DATATYPE_NULL, MPI_BYTE, "native", MPI_INFO_NULL),
           MPI_ERR_TYPE, "MPI_File_set_view", path);
    RT_ERR(rio_file_set_view(fh, -8, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), MPI_ERR_ARG,
           "MPI_File_set_view", path);
    RT_ERR(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no_such_datarep", MPI_INFO_NULL),
           MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", path);
    /* The view is still the default one. */
    MPI_Offset disp = -1;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    if (RT_OK(rio_file_get_view(fh, &disp, &et, &ft, rep)))
        CHECK(disp == 0 && et == MPI_BYTE && ft == MPI_BYTE && !strcmp(rep, "native"),
              "failed set_view calls changed the view (disp %lld, datarep %s)", (long long)disp,
              rep);
    /* A memory type that is not a whole number of etypes. */
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    if (RT_OK(rio_file_set_view(fh, 0, t, t, "native", MPI_INFO_NULL))) {
        int v[3] = {0};
        RT_ERR(rio_file_write_at(fh, 0, v, 3, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
               "MPI_File_write_at", path);
        RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    }
    MPI_Type_free(&t);
}

static void test_args(rio_file *fh)
{
    unsigned char b[16] = {0};
    MPI_Status st;
    MPI_Offset o;
    RT_ERR(rio_file_write_at(fh, 0, b, -1, MPI_BYTE, &st), MPI_ERR_COUNT, "MPI_File_write_at",
           path);
    RT_ERR(rio_file_read(fh, b, -3, MPI_BYTE, &st), MPI_ERR_COUNT, "MPI_File_read", path);
    RT_ERR(rio_file_read_at(fh, -1, b, 16, MPI_BYTE, &st), MPI_ERR_ARG, "MPI_File_read_at", path);
    RT_ERR(rio_file_write_at(fh, -5, b, 16, MPI_BYTE, &st), MPI_ERR_ARG, "MPI_File_write_at",
           path);
    RT_ERR(rio_file_write_at(fh, 0, b, 16, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE,
           "MPI_File_write_at", path);
    RT_ERR(rio_file_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG, "MPI_File_seek", path);
    RT_ERR(rio_file_seek(fh, 0, 12345), MPI_ERR_ARG, "MPI_File_seek", path);
    RT_ERR(rio_file_get_byte_offset(fh, -1, &o), MPI_ERR_ARG, "MPI_File_get_byte_offset", path);
    RT_ERR(rio_file_set_size(fh, -1), MPI_ERR_ARG, "MPI_File_set_size", path);
    RT_ERR(rio_file_preallocate(fh, -1), MPI_ERR_ARG, "MPI_File_preallocate", path);

    /* Split collectives used wrongly. */
    RT_FAILS(rio_file_read_all_end(fh, b, &st), "MPI_File_read_all_end", path);
    if (RT_OK(rio_file_read_at_all_begin(fh, 0, b, 16, MPI_BYTE))) {
        RT_FAILS(rio_file_write_at_all_begin(fh, 0, b, 16, MPI_BYTE),
                 "MPI_File_write_at_all_begin", path);
        RT_OK(rio_file_read_at_all_end(fh, b, &st));
    }
}

static void test_null(void)
{
    unsigned char b[4] = {0};
    MPI_Status st;
    MPI_Offset o;
    int amode;
    rio_file *nul = RIO_FILE_NULL;
    RT_ERR(rio_file_write_at(RIO_FILE_NULL, 0, b, 4, MPI_BYTE, &st), MPI_ERR_FILE,
           "MPI_File_write_at", NULL);
    RT_ERR(rio_file_read(RIO_FILE_NULL, b, 4, MPI_BYTE, &st), MPI_ERR_FILE, "MPI_File_read", NULL);
    RT_ERR(rio_file_read_all(RIO_FILE_NULL, b, 4, MPI_BYTE, &st), MPI_ERR_FILE,
           "MPI_File_read_all", NULL);
    RT_ERR(rio_file_get_size(RIO_FILE_NULL, &o), MPI_ERR_FILE, "MPI_File_get_size", NULL);
    RT_ERR(rio_file_get_amode(RIO_FILE_NULL, &amode), MPI_ERR_FILE, "MPI_File_get_amode", NULL);
    RT_ERR(rio_file_seek(RIO_FILE_NULL, 0, MPI_SEEK_SET), MPI_ERR_FILE, "MPI_File_seek", NULL);
    RT_ERR(rio_file_set_view(RIO_FILE_NULL, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
           MPI_ERR_FILE, "MPI_File_set_view", NULL);
    RT_ERR(rio_file_sync(RIO_FILE_NULL), MPI_ERR_FILE, "MPI_File_sync", NULL);
    RT_ERR(rio_file_close(&nul), MPI_ERR_FILE, "MPI_File_close", NULL);
}

static void test_sequential(void)
{
    char p[4200];
    snprintf(p, sizeof p, "%s.seq", rt_fname);
    rio_file *fh = RIO_FILE_NULL;
    unsigned char b[8] = {0};
    MPI_Status st;
    MPI_Offset o;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, p,
                             MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL |
                                 MPI_MODE_DELETE_ON_CLOSE,
                             MPI_INFO_NULL, &fh)))
        return;
    RT_ERR(rio_file_write_at(fh, 0, b, 8, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_write_at", p);
    RT_ERR(rio_file_write_at_all(fh, 0, b, 8, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_write_at_all", p);
    RT_ERR(rio_file_write(fh, b, 8, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_write", p);
    RT_ERR(rio_file_write_all(fh, b, 8, MPI_BYTE, &st), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_write_all", p);
    MPI_Request rq = MPI_REQUEST_NULL;
    RT_ERR(rio_file_iwrite(fh, b, 8, MPI_BYTE, &rq), MPI_ERR_UNSUPPORTED_OPERATION,
           "MPI_File_iwrite", p);
    RT_ERR(rio_file_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek", p);
    RT_ERR(rio_file_get_position(fh, &o), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_get_position",
           p);
    RT_OK(rio_file_write_shared(fh, b, 8, MPI_BYTE, &st));
    RT_OK(rio_file_close(&fh));
}

/* Storage errors through the fault: driver. */
static void test_fault(void)
{
    static const struct {
        const char *spec;
        int cls;
    } cases[] = {{"op=write,n=1,err=ENOSPC", MPI_ERR_NO_SPACE}, {"op=write,n=1,err=EIO", MPI_ERR_IO}};
    char p[4200], fp[4300];
    snprintf(p, sizeof p, "%s.fault", rt_fname);
    snprintf(fp, sizeof fp, "fault:%s", p);
    unsigned char b[64];
    rt_fill(b, sizeof b, rt_rank, 64 * rt_rank);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rio_file *fh = RIO_FILE_NULL;
        MPI_Info info = rt_info("resonio_fault", cases[i].spec, NULL);
        if (RT_OK(rio_file_open(MPI_COMM_WORLD, fp, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh))) {
            RT_ERR(rio_file_write_at(fh, 64 * rt_rank, b, 64, MPI_BYTE, MPI_STATUS_IGNORE),
                   cases[i].cls, "MPI_File_write_at", fp);
            RT_OK(rio_file_close(&fh));
        }
        MPI_Info_free(&info);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rt_rank == 0)
            unlink(p);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* ---- uncommitted datatypes -------------------------------------------------- */

/* The file at path holds 64 bytes of rank 0's pattern. */
static void check_file_unchanged(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        if (f) {
            CHECK(len == 64, "%s: file is %lld bytes, expected 64", what, len);
            CHECK_PAT(f, (size_t)rt_minll(len, 64), 0, 0, "%s: file content", what);
            free(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The message of code also gives the cause. */
static void check_cause(int code, const char *cause, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    if (code != MPI_SUCCESS)
        CHECK(strstr(rt_errstr(code, s), cause), "%s: message lacks \"%s\": %s", what, cause, s);
}

static void test_uncommitted(rio_file *fh)
{
    MPI_Datatype u, v, fixed;
    unsigned char b[64], r[64];
    MPI_Status st;
    MPI_Type_contiguous(4, MPI_INT, &u); /* 16 bytes, never committed here */
    MPI_Type_vector(2, 4, 8, MPI_BYTE, &v); /* a filetype, never committed here */
    rt_fill(b, sizeof b, 99, 0);

    int code = rio_file_write_at_all(fh, 0, b, 1, u, &st);
    RT_ERR(code, MPI_ERR_TYPE, "MPI_File_write_at_all", path);
    check_cause(code, "not committed", "write_at_all, uncommitted memory type");
    code = rio_file_write_at(fh, 0, b, 2, u, &st);
    RT_ERR(code, MPI_ERR_TYPE, "MPI_File_write_at", path);
    check_cause(code, "not committed", "write_at, uncommitted memory type");
    check_file_unchanged("after writes with an uncommitted type");

    memset(r, 0xa5, sizeof r);
    code = rio_file_read_all(fh, r, 1, u, &st);
    RT_ERR(code, MPI_ERR_TYPE, "MPI_File_read_all", path);
    check_cause(code, "not committed", "read_all, uncommitted memory type");
    for (size_t k = 0; k < sizeof r; k++)
        if (r[k] != 0xa5) {
            CHECK(0, "read_all with an uncommitted type wrote byte %zu of the buffer", k);
            break;
        }

    code = rio_file_set_view(fh, 0, MPI_BYTE, v, "native", MPI_INFO_NULL);
    RT_ERR(code, MPI_ERR_TYPE, "MPI_File_set_view", path);
    check_cause(code, "filetype: datatype not committed", "set_view, uncommitted filetype");
    MPI_Type_contiguous(4, MPI_INT, &fixed);
    MPI_Type_commit(&fixed);
    code = rio_file_set_view(fh, 0, u, fixed, "native", MPI_INFO_NULL);
    RT_ERR(code, MPI_ERR_TYPE, "MPI_File_set_view", path);
    check_cause(code, "etype: datatype not committed", "set_view, uncommitted etype");
    MPI_Type_free(&fixed);

    /* Once committed, the same types work (the failures cached nothing). */
    MPI_Type_commit(&u);
    MPI_Type_commit(&v);
    if (RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, v, "native", MPI_INFO_NULL))) {
        /* the view's first 8 bytes are file bytes 0-3 and 8-11 */
        if (RT_OK(rio_file_read_at_all(fh, 0, r, 8, MPI_BYTE, &st))) {
            unsigned char want[8];
            rt_fill(want, 4, 0, 0);
            rt_fill(want + 4, 4, 0, 8);
            CHECK_BYTES(r, want, NULL, 8, "read through a view of a type committed late");
        }
        RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    }
    if (RT_OK(rio_file_read_at_all(fh, 16, r, 1, u, &st)))
        CHECK_PAT(r, 16, 0, 16, "read_at_all with a memory type committed late");
    MPI_Type_free(&u);
    MPI_Type_free(&v);
    check_file_unchanged("after the uncommitted-type cases");
}

/* ---- error texts -------------------------------------------------------------- */

/* The class's own words: MPI_Error_string of the class, blanks cut. */
static void class_words(int cls, char *w)
{
    int len = 0;
    w[0] = '\0';
    MPI_Error_string(cls, w, &len);
    while (len > 0 && w[len - 1] == ' ')
        w[--len] = '\0';
}

/* code has class cls; its string names op, the file name and the cause
 * and holds the class's words and not those of MPI_ERR_IO (unless that is
 * the class). */
static void check_text(int code, int cls, const char *op, const char *name, const char *cause)
{
    char s[MPI_MAX_ERROR_STRING], w[MPI_MAX_ERROR_STRING], io[MPI_MAX_ERROR_STRING];
    if (!RT_ERR(code, cls, op, name))
        return;
    rt_errstr(code, s);
    class_words(cls, w);
    class_words(MPI_ERR_IO, io);
    CHECK(w[0] && strstr(s, w), "%s: message lacks the class's words \"%s\": %s", op, w, s);
    CHECK(strstr(s, cause), "%s: message lacks the cause \"%s\": %s", op, cause, s);
    if (cls != MPI_ERR_IO)
        CHECK(!strstr(s, io), "%s: message of class %s holds MPI_ERR_IO's words \"%s\": %s", op,
              rt_class_name(cls), io, s);
}

static void test_error_texts(void)
{
    rio_file *fh = RIO_FILE_NULL;
    check_text(rio_file_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
               MPI_ERR_NO_SUCH_FILE, "MPI_File_open", missing, strerror(ENOENT));
    fh = open_rdwr(path);
    if (fh) {
        MPI_Datatype u;
        MPI_Type_contiguous(2, MPI_BYTE, &u);
        check_text(rio_file_set_view(fh, 0, MPI_BYTE, u, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
                   "MPI_File_set_view", path, "datatype not committed");
        MPI_Type_free(&u);
        check_text(rio_file_set_view(fh, -8, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL),
                   MPI_ERR_ARG, "MPI_File_set_view", path, "negative displacement");
        check_text(rio_file_write_at(fh, 0, path, -1, MPI_BYTE, MPI_STATUS_IGNORE),
                   MPI_ERR_COUNT, "MPI_File_write_at", path, "count");
        RT_OK(rio_file_close(&fh));
    }
    /* MPI_ERR_IO from the fault: driver's EIO */
    char p[4200], fp[4300];
    unsigned char b[64];
    snprintf(p, sizeof p, "%s.fault_text", rt_fname);
    snprintf(fp, sizeof fp, "fault:%s", p);
    rt_fill(b, sizeof b, rt_rank, 64 * rt_rank);
    MPI_Info info = rt_info("resonio_fault", "op=write,n=1,err=EIO", NULL);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, fp, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh))) {
        check_text(rio_file_write_at(fh, 64 * rt_rank, b, 64, MPI_BYTE, MPI_STATUS_IGNORE),
                   MPI_ERR_IO, "MPI_File_write_at", fp, strerror(EIO));
        RT_OK(rio_file_close(&fh));
    }
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- error handlers --------------------------------------------------------- */

static int a_calls, a_code, b_calls;
static MPI_File a_file;

static void handler_a(MPI_File *f, int *code, ...)
{
    a_calls++;
    a_code = *code;
    a_file = *f;
}

static void handler_b(MPI_File *f, int *code, ...)
{
    (void)f;
    (void)code;
    b_calls++;
}

static void test_errhandlers(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, ehb = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
    unsigned char b[4] = {0};
    rio_file *fh;

    RT_OK(rio_file_get_errhandler(RIO_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "the default file error handler is not MPI_ERRORS_RETURN");
    fh = open_rdwr(path);
    if (!fh)
        return;
    RT_OK(rio_file_get_errhandler(fh, &got));
    CHECK(got == MPI_ERRORS_RETURN, "a new file's error handler is not MPI_ERRORS_RETURN");

    RT_OK(rio_file_create_errhandler(handler_a, &eh));
    RT_OK(rio_file_set_errhandler(fh, eh));
    RT_OK(rio_file_get_errhandler(fh, &got));
    CHECK(got == eh, "get_errhandler does not return the handler set");
    MPI_Errhandler_free(&got); /* get_errhandler returned a new reference */
    a_calls = 0;
    int code = rio_file_write_at(fh, 0, b, -1, MPI_BYTE, MPI_STATUS_IGNORE);
    RT_ERR(code, MPI_ERR_COUNT, "MPI_File_write_at", path);
    CHECK(a_calls == 1, "handler called %d times for one error", a_calls);
    CHECK(a_code == code, "handler got code %d, the call returned %d", a_code, code);
    CHECK((void *)a_file == (void *)fh, "handler got another file handle");
    a_calls = 0;
    RT_OK(rio_file_write_at(fh, 0, b, 4, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(a_calls == 0, "handler called for a call that succeeded");

    RT_OK(rio_file_call_errhandler(fh, MPI_ERR_OTHER));
    CHECK(a_calls == 1 && a_code == MPI_ERR_OTHER,
          "call_errhandler: handler called %d times with code %d", a_calls, a_code);

    /* The default, set on RIO_FILE_NULL, for failed opens and later files. */
    RT_OK(rio_file_set_errhandler(RIO_FILE_NULL, eh));
    RT_OK(rio_file_get_errhandler(RIO_FILE_NULL, &got));
    CHECK(got == eh, "get_errhandler(RIO_FILE_NULL) does not return the new default");
    MPI_Errhandler_free(&got);
    a_calls = 0;
    a_file = (MPI_File)(void *)&a_file;
    rio_file *f2 = RIO_FILE_NULL;
    code = rio_file_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &f2);
    RT_ERR(code, MPI_ERR_NO_SUCH_FILE, "MPI_File_open", missing);
    CHECK(a_calls == 1, "default handler called %d times for a failed open", a_calls);
    CHECK(a_file == MPI_FILE_NULL, "default handler of a failed open did not get MPI_FILE_NULL");
    CHECK(a_code == code, "default handler got code %d, open returned %d", a_code, code);
    if (rt_rank == 0) {
        a_calls = 0;
        code = rio_file_delete(missing, MPI_INFO_NULL);
        RT_ERR(code, MPI_ERR_NO_SUCH_FILE, "MPI_File_delete", missing);
        CHECK(a_calls == 1, "default handler called %d times for a failed delete", a_calls);
    }
    a_calls = 0;
    RT_ERR(rio_file_get_size(RIO_FILE_NULL, NULL), MPI_ERR_FILE, "MPI_File_get_size", NULL);
    CHECK(a_calls == 1, "default handler called %d times for a call on RIO_FILE_NULL", a_calls);

    char p2[4200];
    snprintf(p2, sizeof p2, "%s.errh2", rt_fname);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, p2,
                            MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &f2))) {
        RT_OK(rio_file_get_errhandler(f2, &got));
        CHECK(got == eh, "a file opened after set_errhandler(RIO_FILE_NULL) has another handler");
        MPI_Errhandler_free(&got);
        RT_OK(rio_file_set_errhandler(RIO_FILE_NULL, MPI_ERRORS_RETURN));
        /* Freed while attached: stays in force (the standard keeps the object
         * alive while referenced), even when another handler is created. */
        RT_OK(MPI_Errhandler_free(&eh));
        RT_OK(rio_file_create_errhandler(handler_b, &ehb));
        a_calls = b_calls = 0;
        code = rio_file_read_at(f2, -1, b, 4, MPI_BYTE, MPI_STATUS_IGNORE);
        RT_ERR(code, MPI_ERR_ARG, "MPI_File_read_at", p2);
        CHECK(a_calls == 1 && b_calls == 0,
              "handler freed while attached: the file's handler ran %d times, a newer handler %d "
              "times",
              a_calls, b_calls);
        RT_OK(rio_file_set_errhandler(f2, MPI_ERRORS_RETURN));
        RT_OK(rio_file_close(&f2));
    } else {
        RT_OK(rio_file_set_errhandler(RIO_FILE_NULL, MPI_ERRORS_RETURN));
        MPI_Errhandler_free(&eh);
    }
    RT_OK(rio_file_set_errhandler(fh, MPI_ERRORS_RETURN));
    RT_OK(rio_file_close(&fh));
    if (ehb != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&ehb);
    RT_OK(rio_file_get_errhandler(RIO_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "default handler not restored to MPI_ERRORS_RETURN");
}

/* A collective call that fails on one rank fails on all. */
static void test_collective_agreement(void)
{
    rio_file *fh = open_rdwr(path);
    unsigned char b[32];
    MPI_Status st;
    const int last = rt_nprocs - 1;
    if (!fh)
        return;
    rt_fill(b, sizeof b, rt_rank, 32 * rt_rank);
    RT_ERR(rio_file_write_at_all(fh, 32 * rt_rank, b, rt_rank == last ? -1 : 32, MPI_BYTE, &st),
           MPI_ERR_COUNT, "MPI_File_write_at_all", path);
    RT_ERR(rio_file_read_at_all(fh, rt_rank == 0 ? -1 : 0, b, 32, MPI_BYTE, &st), MPI_ERR_ARG,
           "MPI_File_read_at_all", path);
    RT_ERR(rio_file_write_all(fh, b, rt_rank == last ? -2 : 32, MPI_BYTE, &st), MPI_ERR_COUNT,
           "MPI_File_write_all", path);
    MPI_Request rq = MPI_REQUEST_NULL;
    RT_ERR(rio_file_iwrite_at_all(fh, 0, b, rt_rank == last ? -1 : 32, MPI_BYTE, &rq),
           MPI_ERR_COUNT, "MPI_File_iwrite_at_all", path);
    RT_ERR(rio_file_write_ordered(fh, b, rt_rank == last ? -1 : 32, MPI_BYTE, &st), MPI_ERR_COUNT,
           "MPI_File_write_ordered", path);
    if (rt_nprocs > 1) {
        int code = rio_file_set_size(fh, rt_rank == last ? 100 : 200);
        RT_ERR(code, MPI_ERR_NOT_SAME, "MPI_File_set_size", path);
    }
    /* Still in step: a good collective works and moves the data. */
    if (RT_OK(rio_file_write_at_all(fh, 32 * rt_rank, b, 32, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 32, 32, "write_at_all after failed collectives");
    RT_OK(rio_file_close(&fh));
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, watchdog);
    alarm(120);
    rt_path(path, sizeof path, "errors");
    rt_path(missing, sizeof missing, "errors.missing");
    if (rt_rank == 0) {
        unlink(missing);
        unsigned char b[64];
        rt_fill(b, sizeof b, 0, 0);
        CHECK(rt_pwrite_file(path, b, sizeof b, 0, 1) == 0, "cannot create %s", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    test_open_errors();
    test_permission();
    test_access();
    rio_file *fh = open_rdwr(path);
    if (fh) {
        test_views(fh);
        test_args(fh);
        test_uncommitted(fh);
        RT_OK(rio_file_close(&fh));
    }
    test_null();
    test_sequential();
    test_fault();
    test_error_texts();
    test_errhandlers();
    test_collective_agreement();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        RT_OK(rio_file_delete(path, MPI_INFO_NULL));
    return rt_finish();
}

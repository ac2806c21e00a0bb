/*
 * t_hintfile.c — the hints file named by ROMIO_HINTS, with ROMIO's
 * precedence and resonio's override on top.
 *
 * Rank 0 writes a hints file (comments, a blank line, well-formed lines,
 * an unknown key, a malformed value, two malformed lines and a key given
 * twice, whose first line counts as in ROMIO) and every
 * rank points ROMIO_HINTS at it before the opens; the file is read again
 * at every open, so each case sets the environment it needs and opens.
 * Checked through MPI_File_get_info (rio_file_get_info): the file's values
 * are in effect; a key the program's info holds is the info's (ROMIO
 * takes the file's key only when the info lacks it, even if the info's
 * value turns out malformed); RESONIO_HINTS wins over both; the malformed
 * lines do not break the open and are reported, with their line numbers,
 * under RESONIO_VERBOSE; a missing file is no error (ROMIO then tries
 * /etc/romio-hints, and goes on without hints if that is missing too);
 * romio_no_indep_rw from the file enables collective buffering over the
 * info's romio_cb_read, as ROMIO's own syshints test expects.
 * Each open also writes a few bytes per rank through the view, checked in
 * the file, so a hint that upsets the collective path shows too.
 */
#include "resonio.h"
#include "rtest.h"

static char hfile[4096], data[4096];

static const char hints_text[] = "# site hints, as ROMIO reads them\n"
                                 "cb_buffer_size 8388608\n"
                                 "\n"
                                 "ind_rd_buffer_size\t2097152\n"
                                 "romio_cb_read disable\n"
                                 "cb_nodes\n"                  /* line 6: key without a value */
                                 "striping_unit 1048576 extra\n" /* line 7: three words */
                                 "resonio_no_such_key 7\n"
                                 "ind_wr_buffer_size lots\n"   /* malformed value: ignored */
                                 "   romio_ds_write disable   \n"
                                 "ind_rd_buffer_size 3145728\n"; /* line 11: the first counts */

/* Check that the file's info reports key = want (want NULL: not reported). */
#define CHECK_HINT(fh, key, want, what) check_hint((fh), (key), (want), (what), __LINE__)
static void check_hint(rio_file *fh, const char *key, const char *want, const char *what, int line)
{
    MPI_Info info = MPI_INFO_NULL;
    char val[MPI_MAX_INFO_VAL + 1];
    if (!rt_ok(rio_file_get_info(fh, &info), "rio_file_get_info", __FILE__, line))
        return;
    int flag = rt_info_get(info, key, val, sizeof val);
    if (want && (!flag || strcmp(val, want)))
        rt_fail(__FILE__, line, "%s: %s is %s, expected %s", what, key, flag ? val : "(unset)",
                want);
    if (!want && flag)
        rt_fail(__FILE__, line, "%s: %s is %s, expected it unset", what, key, val);
    MPI_Info_free(&info);
}

/* Open data with info, write 64 bytes per rank collectively, check them
 * in the file (after close), and return the handle still open for the
 * hint checks (closed by the caller through close_and_check). */
static rio_file *open_data(MPI_Info info, const char *what)
{
    rio_file *fh = RIO_FILE_NULL;
    unsigned char b[64];
    MPI_Status st;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, data, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh))) {
        rt_note("open failed in case: %s", what);
        return RIO_FILE_NULL;
    }
    rt_fill(b, sizeof b, rt_rank, 64 * rt_rank);
    if (RT_OK(rio_file_write_at_all(fh, 64 * rt_rank, b, 64, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 64, 64, "%s: write_at_all", what);
    return fh;
}

static void close_and_check(rio_file **fh, const char *what)
{
    if (*fh == RIO_FILE_NULL)
        return;
    RT_OK(rio_file_close(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(data, &len);
        if (f) {
            CHECK(len == 64LL * rt_nprocs, "%s: file is %lld bytes, expected %lld", what, len,
                  64LL * rt_nprocs);
            for (int r = 0; r < rt_nprocs && 64LL * (r + 1) <= len; r++)
                CHECK_PAT(f + 64 * r, 64, r, 64 * r, "%s: rank %d's bytes in the file", what, r);
            free(f);
        }
        unlink(data);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The file's values, with nothing else set. */
static void test_file_only(void)
{
    const char *what = "hints file only";
    rio_file *fh = open_data(MPI_INFO_NULL, what);
    if (!fh)
        return;
    CHECK_HINT(fh, "cb_buffer_size", "8388608", what);
    CHECK_HINT(fh, "ind_rd_buffer_size", "2097152", what); /* line 4, not 11 */
    CHECK_HINT(fh, "romio_cb_read", "disable", what);
    CHECK_HINT(fh, "romio_ds_write", "disable", what);
    /* malformed lines and values leave the defaults */
    CHECK_HINT(fh, "ind_wr_buffer_size", "524288", what);
    CHECK_HINT(fh, "cb_nodes", NULL, what);
    CHECK_HINT(fh, "striping_unit", NULL, what);
    /* an unknown key behaves as an unknown info key: not reported */
    CHECK_HINT(fh, "resonio_no_such_key", NULL, what);
    close_and_check(&fh, what);
}

/* A key the info holds is the info's: its valid value, and also its
 * malformed one (which then leaves the default, not the file's value). */
static void test_info_wins(void)
{
    const char *what = "info over hints file";
    MPI_Info info = rt_info("romio_cb_read", "enable", "cb_buffer_size", "bogus", NULL);
    rio_file *fh = open_data(info, what);
    MPI_Info_free(&info);
    if (!fh)
        return;
    CHECK_HINT(fh, "romio_cb_read", "enable", what);
    CHECK_HINT(fh, "cb_buffer_size", "16777216", what);
    CHECK_HINT(fh, "ind_rd_buffer_size", "2097152", what);
    /* set_info later does not bring the file back: it applies at open */
    info = rt_info("ind_wr_buffer_size", "1048576", NULL);
    RT_OK(rio_file_set_info(fh, info));
    MPI_Info_free(&info);
    CHECK_HINT(fh, "ind_wr_buffer_size", "1048576", what);
    CHECK_HINT(fh, "romio_cb_read", "enable", what);
    close_and_check(&fh, what);
}

/* RESONIO_HINTS wins over the info and the file. */
static void test_resonio_hints_win(void)
{
    const char *what = "RESONIO_HINTS over info and hints file";
    setenv("RESONIO_HINTS", "romio_cb_read=automatic;ind_rd_buffer_size=1048576", 1);
    MPI_Info info = rt_info("romio_cb_read", "enable", NULL);
    rio_file *fh = open_data(info, what);
    MPI_Info_free(&info);
    unsetenv("RESONIO_HINTS");
    if (!fh)
        return;
    CHECK_HINT(fh, "romio_cb_read", "automatic", what);
    CHECK_HINT(fh, "ind_rd_buffer_size", "1048576", what);
    CHECK_HINT(fh, "cb_buffer_size", "8388608", what);
    close_and_check(&fh, what);
}

/* Only rank 0 reads the file: the others' ROMIO_HINTS does not matter. */
static void test_rank0_reads(void)
{
    const char *what = "rank 0's hints file for all";
    char other[4200];
    snprintf(other, sizeof other, "%s.missing", hfile);
    if (rt_rank != 0)
        setenv("ROMIO_HINTS", other, 1);
    rio_file *fh = open_data(MPI_INFO_NULL, what);
    setenv("ROMIO_HINTS", hfile, 1);
    if (!fh)
        return;
    CHECK_HINT(fh, "cb_buffer_size", "8388608", what);
    close_and_check(&fh, what);
}

/* ROMIO's syshints case: romio_no_indep_rw from the file enables
 * collective buffering, over the info's romio_cb_read. */
static void test_no_indep_rw(void)
{
    const char *what = "romio_no_indep_rw from the hints file";
    static const char text[] = "romio_no_indep_rw true\nind_rd_buffer_size 49\n"
                               "ind_rd_buffer_size 60\n";
    char other[4200];
    snprintf(other, sizeof other, "%s.noindep", hfile);
    if (rt_rank == 0)
        CHECK(rt_pwrite_file(other, text, sizeof text - 1, 0, 1) == 0, "cannot create %s", other);
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("ROMIO_HINTS", other, 1);
    MPI_Info info = rt_info("romio_cb_read", "disable", NULL);
    rio_file *fh = open_data(info, what);
    MPI_Info_free(&info);
    setenv("ROMIO_HINTS", hfile, 1);
    if (fh) {
        CHECK_HINT(fh, "romio_no_indep_rw", "true", what);
        CHECK_HINT(fh, "romio_cb_read", "enable", what);
        CHECK_HINT(fh, "romio_cb_write", "enable", what);
        CHECK_HINT(fh, "ind_rd_buffer_size", "49", what);
        close_and_check(&fh, what);
    }
    if (rt_rank == 0)
        unlink(other);
}

/* A missing file, and an empty one, are no error. */
static void test_missing_and_empty(void)
{
    const char *what = "missing hints file";
    char other[4200];
    int system_file = rt_exists("/etc/romio-hints");
    snprintf(other, sizeof other, "%s.missing", hfile);
    setenv("ROMIO_HINTS", other, 1);
    rio_file *fh = open_data(MPI_INFO_NULL, what);
    if (fh) {
        if (system_file)
            rt_note("/etc/romio-hints exists: its hints apply, defaults not checked");
        else
            CHECK_HINT(fh, "cb_buffer_size", "16777216", what);
        close_and_check(&fh, what);
    }
    what = "empty hints file";
    snprintf(other, sizeof other, "%s.empty", hfile);
    if (rt_rank == 0)
        CHECK(rt_pwrite_file(other, "", 0, 0, 1) == 0, "cannot create %s", other);
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("ROMIO_HINTS", other, 1);
    fh = open_data(MPI_INFO_NULL, what);
    if (fh) {
        CHECK_HINT(fh, "cb_buffer_size", "16777216", what);
        close_and_check(&fh, what);
    }
    if (rt_rank == 0)
        unlink(other);
    setenv("ROMIO_HINTS", hfile, 1);
}

/* Under RESONIO_VERBOSE rank 0 names each malformed line on stderr. */
static void test_verbose(void)
{
    const char *what = "RESONIO_VERBOSE report";
    char log[4200];
    int saved = -1;
    snprintf(log, sizeof log, "%s.stderr", hfile);
    setenv("RESONIO_VERBOSE", "1", 1);
    if (rt_rank == 0) {
        fflush(stderr);
        saved = dup(2);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(saved >= 0 && fd >= 0, "cannot redirect stderr to %s", log);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
    }
    rio_file *fh = open_data(MPI_INFO_NULL, what);
    if (rt_rank == 0 && saved >= 0) {
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
    }
    unsetenv("RESONIO_VERBOSE");
    if (fh)
        close_and_check(&fh, what);
    if (rt_rank != 0)
        return;
    long long len = 0;
    char *text = (char *)RT_SLURP(log, &len);
    if (!text)
        return;
    char *t = realloc(text, (size_t)len + 1);
    if (t) {
        text = t;
        text[len] = '\0';
        char l6[4300], l7[4300];
        snprintf(l6, sizeof l6, "%s:6:", hfile);
        snprintf(l7, sizeof l7, "%s:7:", hfile);
        CHECK(strstr(text, l6) && strstr(text, l7),
              "%s: malformed lines 6 and 7 not both reported; stderr was: %s", what, text);
        snprintf(l7, sizeof l7, "%s:11:", hfile);
        CHECK(strstr(text, l7), "%s: the repeated key of line 11 not reported; stderr was: %s",
              what, text);
        CHECK(strstr(text, "ind_wr_buffer_size"),
              "%s: malformed value not reported; stderr was: %s", what, text);
        CHECK(!strstr(text, ":2:") && !strstr(text, ":3:") && !strstr(text, ":8:"),
              "%s: a well-formed, blank or unknown-key line reported; stderr was: %s", what,
              text);
    }
    free(text);
    unlink(log);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_path(hfile, sizeof hfile, "hints");
    rt_path(data, sizeof data, "data");
    if (rt_rank == 0) {
        unlink(data);
        CHECK(rt_pwrite_file(hfile, hints_text, sizeof hints_text - 1, 0, 1) == 0,
              "cannot create %s", hfile);
    }
    unsetenv("RESONIO_HINTS");
    unsetenv("RESONIO_VERBOSE");
    setenv("ROMIO_HINTS", hfile, 1);
    MPI_Barrier(MPI_COMM_WORLD);

    test_file_only();
    test_info_wins();
    test_resonio_hints_win();
    test_rank0_reads();
    test_no_indep_rw();
    test_missing_and_empty();
    test_verbose();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(hfile);
    return rt_finish();
}

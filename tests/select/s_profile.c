/*
 * s_profile.c — decisions kept in a profile across opens, and broken
 * profiles ignored safely.
 *
 * The profile is <fname>.profdir/sel.prof, alone in its directory so that
 * a temp file left behind shows.  Every open uses candidates two_phase and
 * independent, delay req=3000 and the pattern of stest.h.  A "deciding
 * run" opens a new file, makes 7 calls (examination of 2 x 3 calls,
 * decided with call 6) and closes; a "reuse run" opens a new file
 * and makes 1 call.  Which candidate a deciding run chooses is not
 * asserted (with delays this short the exchange decides on a loaded
 * machine, and 12 deciding runs with decisive delays would take a minute):
 * a reuse run must find the choice of the deciding run that last wrote
 * the profile.
 *
 *   1. deciding run with resonio_profile=<path>, no profile yet: examines
 *      (from_profile 0) and chooses; right after the decision (call 7) the
 *      profile exists; after close the directory holds only the profile
 *      (it was written through a temp file and rename).
 *   2. reuse run with the hint: signature chosen from the start —
 *      from_profile 1, not examining, exam_calls 0, run 1's choice, and the
 *      call ran it.  The same with RESONIO_PROFILE instead of the hint,
 *      and with the profile moved away between the open and the first
 *      call: it is read at open.
 *   3. reuse run with another layout (striping_unit/striping_factor): the
 *      storage identity differs, so the profile's decision does not apply:
 *      examining, from_profile 0.
 *   4. broken variants made from the profile of run 1: truncated to half,
 *      truncated before its last line (the end marker), emptied; a byte
 *      flipped (XOR 0xff) in the header line, in the middle, and in the
 *      end marker; every number of the header line (its version) plus
 *      one; binary garbage; text garbage; no file; a directory in its
 *      place.  Each: a deciding run must open, examine as if there were no
 *      profile, decide, and with RESONIO_VERBOSE=1 rank 0 must write a
 *      warning while opening (a missing profile is exempt: it is how every
 *      profile starts).  Then the profile must be valid again (a reuse run
 *      gets from_profile 1) and the directory must hold nothing else; with
 *      the directory in place the directory must survive (it cannot be
 *      replaced by a file) and no temp file may be left.
 *   5. sweeps, one call each: the profile of run 1 cut to 1/8 .. 7/8 of
 *      its length and to all but its last byte; a byte flipped at every
 *      24th of its length and at its last byte.  Each must be ignored
 *      (examining, from_profile 0) with a warning.
 *
 * Only rank 0 touches the profile (it reads it and broadcasts it: resonio
 * does so in MPI_File_open, and the warning is looked for during the open
 * and the first call), so the variants are made and
 * checked on rank 0; what every rank sees is compared with rank 0's after
 * every run.  The test relies on nothing of the profile's format beyond a
 * header line with a version number and an end marker as the last line.
 * About 10 s.
 */
#include "stest.h"

#include <ctype.h>
#include <dirent.h>

static char profdir[4096], prof[4200], capture[4200];
static unsigned char *good;  /* the profile written by run 1 (rank 0) */
static long long good_len;
static const int N = 3, C = 2;
static char decided[16];     /* the choice of the deciding run that last wrote the profile */

/* ---- rank 0: files -------------------------------------------------------------- */

/** Remove prof (file or empty directory) and every file in profdir. */
static void clean_profdir(void)
{
    DIR *d = opendir(profdir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[8400];
            snprintf(p, sizeof p, "%s/%s", profdir, e->d_name);
            if (unlink(p) != 0)
                rmdir(p);
        }
        closedir(d);
    }
    mkdir(profdir, 0777);
}

/** The directory must hold exactly the profile: no temp file left. */
static void check_dir_clean(const char *what)
{
    DIR *d = opendir(profdir);
    if (!d) {
        CHECK(0, "%s: opendir(%s): %s", what, profdir, strerror(errno));
        return;
    }
    struct dirent *e;
    int others = 0, has = 0;
    char list[2048] = "";
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!strcmp(e->d_name, "sel.prof")) {
            has = 1;
            continue;
        }
        others++;
        size_t o = strlen(list);
        snprintf(list + o, sizeof list - o, " '%s'", e->d_name);
    }
    closedir(d);
    CHECK(others == 0, "%s: %s holds%s besides the profile (temp files left?)", what, profdir,
          list);
    CHECK(has, "%s: %s holds no profile", what, profdir);
}

static int is_regular(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static void put_profile(const void *b, size_t n)
{
    unlink(prof);
    rmdir(prof);
    CHECK(rt_pwrite_file(prof, b, n, 0, 1) == 0, "writing the variant %s: %s", prof,
          strerror(errno));
}

/* ---- rank 0: stderr of the library ------------------------------------------------- */

static int saved_fd = -1;

static void capture_begin(void)
{
    if (rt_rank != 0)
        return;
    fflush(stderr);
    saved_fd = dup(2);
    int fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (saved_fd < 0 || fd < 0) {
        CHECK(0, "cannot capture stderr in %s: %s", capture, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    dup2(fd, 2);
    close(fd);
}

/** Restore stderr; the captured text (NUL-terminated) into out. */
static void capture_end(char *out, size_t len)
{
    out[0] = '\0';
    if (rt_rank != 0 || saved_fd < 0)
        return;
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    saved_fd = -1;
    long long n = rt_pread(capture, out, len - 1, 0);
    out[n > 0 ? n : 0] = '\0';
}

/* ---- runs -------------------------------------------------------------------------- */

/* Hints of every run; profile: the resonio_profile hint or NULL; layout:
 * add striping hints. */
static MPI_Info run_info(const char *profile, int layout)
{
    return rt_info("resonio_select_candidates", "two_phase,independent", "resonio_delay",
                   "req=3000", "resonio_profile", profile, "striping_unit",
                   layout ? "65536" : NULL, "striping_factor", layout ? "2" : NULL,
                   (char *)NULL);
}

/**
 * A deciding run on a new file <fname>.<suffix>: 7 calls; the selector
 * must examine from call 1 and choose (the choice goes to decided).
 * want_warning: rank 0's stderr during the open and call 1 must not be
 * empty.  dir_variant: the profile path is a directory (no profile can be
 * written).
 */
static void deciding_run(const char *suffix, int want_warning, int dir_variant, const char *what)
{
    struct st_file f;
    struct rio_select_info si;
    char text[4096], w[160];
    MPI_Info info = run_info(prof, 0);
    capture_begin();
    int opened = st_open(&f, suffix, info);
    if (opened)
        st_call(&f, ST_N);
    capture_end(text, sizeof text);
    MPI_Info_free(&info);
    if (rt_rank == 0 && text[0])
        printf("%s: stderr of rank 0 during open and call 1:\n%s%s", what, text,
               text[strlen(text) - 1] == '\n' ? "" : "\n");
    if (want_warning)
        CHECK(text[0] || rt_rank != 0,
              "%s: no warning on rank 0's stderr under RESONIO_VERBOSE=1", what);
    if (!opened)
        return;
    snprintf(w, sizeof w, "%s, after call 1", what);
    st_get(&f, 0, &si);
    st_agree(&si, w);
    CHECK(si.from_profile == 0 && si.examining == 1 && si.chosen[0] == '\0',
          "%s: from_profile %d examining %d chosen '%s', expected an examination as without a "
          "profile",
          w, si.from_profile, si.examining, si.chosen);
    for (int k = 2; k <= C * N + 1; k++)
        st_call(&f, ST_N);
    st_get(&f, 0, &si);
    snprintf(w, sizeof w, "%s, after call %d", what, C * N + 1);
    st_agree(&si, w);
    st_check_decided(&si, N, w);
    if (!dir_variant)
        snprintf(decided, sizeof decided, "%s", si.chosen);
    CHECK(si.exam_calls == C * N && si.from_profile == 0,
          "%s: exam_calls %lld from_profile %d, expected %d 0", w, si.exam_calls,
          si.from_profile, C * N);
    if (rt_rank == 0) {
        /* written when the decision was made, not only at close */
        if (dir_variant)
            CHECK(is_dir(prof), "%s: the directory at the profile's path is gone", w);
        else
            CHECK(is_regular(prof), "%s: no profile file %s after the decision", w, prof);
    }
    st_close_verify(&f);
    if (rt_rank == 0) {
        snprintf(w, sizeof w, "%s, after close", what);
        check_dir_clean(w);
    }
}

/**
 * A reuse run on a new file: 1 call.  expect_profile: the signature must
 * start chosen from the profile (decided); else it must examine.
 * use_env: name the profile with RESONIO_PROFILE instead of the hint.
 */
static void reuse_run_hide(const char *suffix, int expect_profile, int use_env, int layout,
                           int hide, const char *what);
static void reuse_run(const char *suffix, int expect_profile, int use_env, int layout,
                      const char *what)
{
    reuse_run_hide(suffix, expect_profile, use_env, layout, 0, what);
}

/* hide: move the profile away between the open and the first call (and
 * back after the close): a profile read at open is used all the same. */
static void reuse_run_hide(const char *suffix, int expect_profile, int use_env, int layout,
                           int hide, const char *what)
{
    char hidden[4300];
    snprintf(hidden, sizeof hidden, "%s.hidden", prof);
    struct st_file f;
    struct rio_select_info si;
    char w[160];
    if (use_env)
        setenv("RESONIO_PROFILE", prof, 1);
    MPI_Info info = run_info(use_env ? NULL : prof, layout);
    int opened = st_open(&f, suffix, info);
    MPI_Info_free(&info);
    if (opened && hide) {
        if (rt_rank == 0)
            CHECK(rename(prof, hidden) == 0, "%s: cannot move the profile away", what);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (opened) {
        st_call(&f, ST_N);
        snprintf(w, sizeof w, "%s, after call 1", what);
        CHECK(st_count(&f) >= 1, "%s: no signature", w);
        if (st_find(&f, ST_N, &si, 0) >= 0) {
            st_agree(&si, w);
            st_show(&si, w);
            if (expect_profile) {
                CHECK(si.from_profile == 1 && si.examining == 0 && si.exam_calls == 0 &&
                          !strcmp(si.chosen, decided),
                      "%s: from_profile %d examining %d exam_calls %lld chosen '%s', expected "
                      "1 0 0 '%s' from the profile",
                      w, si.from_profile, si.examining, si.exam_calls, si.chosen, decided);
                CHECK(!strcmp(f.ran[0], decided), "%s: the call ran '%s', expected '%s'", w,
                      f.ran[0], decided);
            } else {
                CHECK(si.from_profile == 0 && si.examining == 1,
                      "%s: from_profile %d examining %d, expected an examination", w,
                      si.from_profile, si.examining);
            }
        }
        st_close_verify(&f);
        if (hide && rt_rank == 0)
            CHECK(rename(hidden, prof) == 0, "%s: cannot put the profile back", what);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (use_env)
        unsetenv("RESONIO_PROFILE");
}

/**
 * A quick run on a new file: 1 call.  The profile rank 0 has just broken
 * must be ignored: the signature examines (from_profile 0) and rank 0
 * writes a warning while opening.  Nothing is decided, so the broken
 * profile stays as it is.
 */
static void quick_run(const char *what)
{
    struct st_file f;
    struct rio_select_info si;
    char text[4096];
    MPI_Info info = run_info(prof, 0);
    capture_begin();
    int opened = st_open(&f, "prof.quick", info);
    if (opened)
        st_call(&f, ST_N);
    capture_end(text, sizeof text);
    MPI_Info_free(&info);
    CHECK(text[0] || rt_rank != 0, "%s: no warning on rank 0's stderr under RESONIO_VERBOSE=1",
          what);
    if (!opened)
        return;
    st_get(&f, 0, &si);
    st_agree(&si, what);
    CHECK(si.from_profile == 0 && si.examining == 1,
          "%s: from_profile %d examining %d chosen '%s': the broken profile was used", what,
          si.from_profile, si.examining, si.chosen);
    st_close_verify(&f);
}

/* ---- variants (rank 0) --------------------------------------------------------------- */

enum variant {
    V_TRUNC_HALF,
    V_TRUNC_END,
    V_EMPTY,
    V_FLIP_HEADER,
    V_FLIP_MIDDLE,
    V_FLIP_END,
    V_VERSION,
    V_GARBAGE_BIN,
    V_GARBAGE_TEXT,
    V_MISSING,
    V_DIRECTORY,
    NV
};

static const char *const vnames[NV] = {
    "truncated to half", "truncated before the end marker", "emptied",
    "byte flipped in the header", "byte flipped in the middle", "byte flipped in the end marker",
    "other version", "binary garbage", "text garbage", "missing", "directory in its place"};

/** Offset of the first byte of the last line of good (the end marker). */
static long long last_line_start(void)
{
    long long e = good_len;
    if (e > 0 && good[e - 1] == '\n')
        e--;
    while (e > 0 && good[e - 1] != '\n')
        e--;
    return e;
}

static void make_variant(enum variant v)
{
    unsigned char *b = malloc((size_t)good_len + 64);
    memcpy(b, good, (size_t)good_len);
    long long hdr_end = 0;
    while (hdr_end < good_len && good[hdr_end] != '\n')
        hdr_end++;
    switch (v) {
    case V_TRUNC_HALF:
        put_profile(b, (size_t)good_len / 2);
        break;
    case V_TRUNC_END:
        put_profile(b, (size_t)last_line_start());
        break;
    case V_EMPTY:
        put_profile(b, 0);
        break;
    case V_FLIP_HEADER:
        b[hdr_end / 2] ^= 0xff;
        put_profile(b, (size_t)good_len);
        break;
    case V_FLIP_MIDDLE:
        b[good_len / 2] ^= 0xff;
        put_profile(b, (size_t)good_len);
        break;
    case V_FLIP_END: {
        long long s = last_line_start();
        b[s + (good_len - s) / 2] ^= 0xff;
        put_profile(b, (size_t)good_len);
        break;
    }
    case V_VERSION: {
        /* every number of the header line plus one */
        char *out = malloc((size_t)good_len + 256);
        size_t o = 0;
        int numbers = 0;
        for (long long i = 0; i < hdr_end;) {
            if (isdigit(good[i])) {
                long long val = 0;
                while (i < hdr_end && isdigit(good[i]))
                    val = val * 10 + (good[i++] - '0');
                o += (size_t)sprintf(out + o, "%lld", val + 1);
                numbers++;
            } else {
                out[o++] = (char)good[i++];
            }
        }
        memcpy(out + o, good + hdr_end, (size_t)(good_len - hdr_end));
        o += (size_t)(good_len - hdr_end);
        CHECK(numbers > 0, "the profile's header line holds no number (version)");
        put_profile(out, o);
        free(out);
        break;
    }
    case V_GARBAGE_BIN: {
        uint64_t x = 0x243F6A8885A308D3ull;
        unsigned char g[4096];
        for (size_t i = 0; i < sizeof g; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            g[i] = (unsigned char)x;
        }
        put_profile(g, sizeof g);
        break;
    }
    case V_GARBAGE_TEXT: {
        const char *g = "this is not a profile\ntwo_phase two_phase 1 2 3\n\n=\n# end\n";
        put_profile(g, strlen(g));
        break;
    }
    case V_MISSING:
        unlink(prof);
        rmdir(prof);
        break;
    case V_DIRECTORY:
        unlink(prof);
        CHECK(mkdir(prof, 0777) == 0, "mkdir(%s): %s", prof, strerror(errno));
        break;
    case NV:
        break;
    }
    free(b);
}

int main(int argc, char **argv)
{
    st_clean_env();
    setenv("RESONIO_VERBOSE", "1", 1); /* the warnings are part of the contract */
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    rt_path(profdir, sizeof profdir, "profdir");
    snprintf(prof, sizeof prof, "%s/sel.prof", profdir);
    rt_path(capture, sizeof capture, "stderr");
    if (rt_rank == 0)
        clean_profdir();
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. the first run writes the profile */
    deciding_run("prof.first", 0, 0, "run 1 (no profile yet)");
    int have = 0;
    if (rt_rank == 0) {
        good = RT_SLURP(prof, &good_len);
        have = good && good_len > 0;
        CHECK(have, "run 1 left no profile (or an empty one) at %s", prof);
        if (have) {
            printf("profile of run 1 (%lld bytes):\n%.*s%s", good_len, (int)good_len,
                   (const char *)good, good[good_len - 1] == '\n' ? "" : "\n");
            fflush(stdout);
        }
    }
    MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);

    if (have) {
        /* 2. reused through the hint and through the environment */
        reuse_run("prof.second", 1, 0, 0, "run 2 (profile by hint)");
        reuse_run("prof.env", 1, 1, 0, "run 2 (RESONIO_PROFILE)");
        reuse_run_hide("prof.atopen", 1, 0, 0, 1, "run 2 (profile gone after the open)");
        /* 3. another storage layout: the decision does not apply */
        reuse_run("prof.layout", 0, 0, 1, "run with another layout");

        /* 4. broken variants */
        for (int v = 0; v < NV; v++) {
            char what[128], suffix[32];
            if (rt_rank == 0)
                make_variant((enum variant)v);
            MPI_Barrier(MPI_COMM_WORLD);
            snprintf(what, sizeof what, "profile %s", vnames[v]);
            snprintf(suffix, sizeof suffix, "prof.v%d", v);
            deciding_run(suffix, v != V_MISSING, v == V_DIRECTORY, what);
            if (v == V_DIRECTORY) {
                if (rt_rank == 0)
                    rmdir(prof);
                MPI_Barrier(MPI_COMM_WORLD);
                continue;
            }
            snprintf(what, sizeof what, "reuse after the profile %s", vnames[v]);
            snprintf(suffix, sizeof suffix, "prof.r%d", v);
            reuse_run(suffix, 1, 0, 0, what);
        }

        /* 5. sweeps with one call each: the profile of run 1 cut to
         *    eighths of its length and to all but its last byte, and a
         *    byte flipped at every position of a stride of 1/24 of its
         *    length and at its last byte */
        long long cuts[9], flips[32];
        int ncut = 0, nflip = 0;
        if (rt_rank == 0) {
            for (int i = 1; i < 8; i++)
                cuts[ncut++] = good_len * i / 8;
            cuts[ncut++] = good_len - 1;
            long long stride = good_len / 24 > 0 ? good_len / 24 : 1;
            for (long long pos = 0; pos < good_len && nflip < 31; pos += stride)
                flips[nflip++] = pos;
            flips[nflip++] = good_len - 1;
        }
        MPI_Bcast(&ncut, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(&nflip, 1, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < ncut + nflip; i++) {
            char what[160] = "";
            if (rt_rank == 0) {
                unsigned char *b = malloc((size_t)good_len);
                memcpy(b, good, (size_t)good_len);
                if (i < ncut) {
                    put_profile(b, (size_t)cuts[i]);
                    snprintf(what, sizeof what, "profile cut to %lld of %lld bytes", cuts[i],
                             good_len);
                } else {
                    long long pos = flips[i - ncut];
                    unsigned char was = b[pos];
                    b[pos] ^= 0xff;
                    put_profile(b, (size_t)good_len);
                    snprintf(what, sizeof what,
                             "profile with byte %lld of %lld ('%s%c') flipped to 0x%02x", pos,
                             good_len, was == '\n' ? "\\n" : "",
                             was == '\n' ? ' ' : (char)was, b[pos]);
                }
                free(b);
            }
            MPI_Bcast(what, (int)sizeof what, MPI_CHAR, 0, MPI_COMM_WORLD);
            quick_run(what);
        }
    }
    free(good);
    rt_note("s_profile: %.2f s", MPI_Wtime() - t0);
    return rt_finish();
}

/*
 * t_datarep.c — data representations.
 *
 *  external32  MPI_INT, MPI_DOUBLE and MPI_SHORT written by each rank;
 *              the file (POSIX) holds the big-endian bytes the test
 *              computes from the values; reads give the values back;
 *              get_type_extent gives the external32 sizes.
 *  internal    behaves like native: the file holds the memory bytes.
 *  user        MPI_Register_datarep of "rio_swap" (ints stored
 *              byte-swapped), "rio_wide" (ints stored as 8-byte little-
 *              endian) and "rio_null" (MPI_CONVERSION_FN_NULL: native
 *              bytes): the file holds the converted bytes, reads convert
 *              back, the callbacks get our extra_state; the same name
 *              twice, or a predefined one, is MPI_ERR_DUP_DATAREP.
 *  end of file a read of 10 ints from a file of 5, through external32 and
 *              rio_wide, independent and collective, into a contiguous
 *              buffer (external32: also through a strided memory type,
 *              which rio_wide's functions do not take): the 5 ints read
 *              arrive, every other byte of the buffer (the tail, the
 *              type's gaps) keeps its value, and the count is 5.
 *  errors      an unknown datarep in set_view is MPI_ERR_UNSUPPORTED_DATAREP
 *              on every rank and leaves the view as it was.
 */
#include "resonio.h"
#include "rtest.h"

#define N 100

static char path[4096];

struct rep_state {
    int reads, writes, extents, bad_type;
    int wide; /* 0: swapped 4 bytes; 1: 8-byte little-endian */
};

static uint32_t bswap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static int rep_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    struct rep_state *s = extra;
    s->extents++;
    if (type == MPI_INT) {
        *extent = s->wide ? 8 : 4;
        return MPI_SUCCESS;
    }
    /* other predefined types are stored as they are */
    MPI_Aint lb;
    return MPI_Type_get_extent(type, &lb, extent);
}

/* position is in items of type; only MPI_INT data is converted. */
static int rep_write(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                     void *extra)
{
    struct rep_state *s = extra;
    s->writes++;
    if (type != MPI_INT) {
        s->bad_type++;
        return MPI_ERR_TYPE;
    }
    const int *u = (const int *)userbuf + position;
    unsigned char *f = filebuf;
    for (int i = 0; i < count; i++) {
        uint32_t v = (uint32_t)u[i];
        if (s->wide) {
            int64_t w = (int64_t)u[i];
            for (int k = 0; k < 8; k++)
                f[8 * i + k] = (unsigned char)((uint64_t)w >> (8 * k));
        } else {
            v = bswap32(v);
            memcpy(f + 4 * i, &v, 4);
        }
    }
    return MPI_SUCCESS;
}

static int rep_read(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                    void *extra)
{
    struct rep_state *s = extra;
    s->reads++;
    if (type != MPI_INT) {
        s->bad_type++;
        return MPI_ERR_TYPE;
    }
    int *u = (int *)userbuf + position;
    const unsigned char *f = filebuf;
    for (int i = 0; i < count; i++) {
        if (s->wide) {
            uint64_t w = 0;
            for (int k = 0; k < 8; k++)
                w |= (uint64_t)f[8 * i + k] << (8 * k);
            u[i] = (int)(int64_t)w;
        } else {
            uint32_t v;
            memcpy(&v, f + 4 * i, 4);
            u[i] = (int)bswap32(v);
        }
    }
    return MPI_SUCCESS;
}

/* Values derived from the pattern. */
static int ival(int r, int i)
{
    unsigned char b[4];
    rt_fill(b, 4, r, 4LL * i);
    return (int)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
}
static double dval(int r, int i)
{
    return (double)ival(r + 50, i) / 7.0;
}
static short sval(int r, int i)
{
    return (short)(ival(r + 90, i) & 0xffff);
}

static void be_bytes(unsigned char *out, uint64_t v, int n)
{
    for (int k = 0; k < n; k++)
        out[k] = (unsigned char)(v >> (8 * (n - 1 - k)));
}

static void sync_barrier(rio_file *fh)
{
    RT_OK(rio_file_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    RT_OK(rio_file_sync(fh));
}

static void fresh(const char *p)
{
    if (rt_rank == 0)
        unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void extent_is(rio_file *fh, MPI_Datatype t, MPI_Aint want, const char *what)
{
    MPI_Aint e = -1;
    if (RT_OK(rio_file_get_type_extent(fh, t, &e)))
        CHECK(e == want, "get_type_extent(%s) = %lld, expected %lld", what, (long long)e,
              (long long)want);
}

static void test_external32(void)
{
    const long long REC = N * 4 + N * 8 + N * 2;
    rio_file *fh = RIO_FILE_NULL;
    int iv[N], ir[N];
    double dv[N], dr[N];
    short sv[N], sr[N];
    MPI_Status st;
    rt_path(path, sizeof path, "ext32");
    fresh(path);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh)))
        return;
    RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    MPI_Offset disp;
    MPI_Datatype et, ft;
    if (RT_OK(rio_file_get_view(fh, &disp, &et, &ft, rep)))
        CHECK(!strcmp(rep, "external32"), "get_view datarep '%s', expected external32", rep);

    for (int i = 0; i < N; i++) {
        iv[i] = ival(rt_rank, i);
        dv[i] = dval(rt_rank, i);
        sv[i] = sval(rt_rank, i);
    }
    MPI_Offset base = REC * rt_rank;
    if (RT_OK(rio_file_write_at(fh, base, iv, N, MPI_INT, &st)))
        CHECK_STATUS(&st, MPI_INT, N, N, "external32 write_at MPI_INT");
    if (RT_OK(rio_file_write_at(fh, base + 4 * N, dv, N, MPI_DOUBLE, &st)))
        CHECK_STATUS(&st, MPI_DOUBLE, N, N, "external32 write_at MPI_DOUBLE");
    if (RT_OK(rio_file_write_at_all(fh, base + 12 * N, sv, N, MPI_SHORT, &st)))
        CHECK_STATUS(&st, MPI_SHORT, N, N, "external32 write_at_all MPI_SHORT");
    sync_barrier(fh);

    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        CHECK(len == REC * rt_nprocs, "external32 file size %lld, expected %lld", len,
              REC * rt_nprocs);
        if (f && len == REC * rt_nprocs) {
            unsigned char *exp = malloc((size_t)len);
            for (int q = 0; q < rt_nprocs; q++) {
                unsigned char *e = exp + REC * q;
                for (int i = 0; i < N; i++) {
                    double d = dval(q, i);
                    uint64_t du;
                    memcpy(&du, &d, 8);
                    be_bytes(e + 4 * i, (uint32_t)ival(q, i), 4);
                    be_bytes(e + 4 * N + 8 * i, du, 8);
                    be_bytes(e + 12 * N + 2 * i, (uint16_t)sval(q, i), 2);
                }
            }
            CHECK_BYTES(f, exp, NULL, (size_t)len, "external32 file bytes (big-endian)");
            free(exp);
        }
        free(f);
    }

    int p = (rt_rank + 1) % rt_nprocs;
    MPI_Offset pb = REC * p;
    memset(ir, 0, sizeof ir);
    memset(dr, 0, sizeof dr);
    memset(sr, 0, sizeof sr);
    if (RT_OK(rio_file_read_at(fh, pb, ir, N, MPI_INT, &st)))
        CHECK_STATUS(&st, MPI_INT, N, N, "external32 read_at MPI_INT");
    if (RT_OK(rio_file_read_at(fh, pb + 4 * N, dr, N, MPI_DOUBLE, &st)))
        CHECK_STATUS(&st, MPI_DOUBLE, N, N, "external32 read_at MPI_DOUBLE");
    if (RT_OK(rio_file_read_at_all(fh, pb + 12 * N, sr, N, MPI_SHORT, &st)))
        CHECK_STATUS(&st, MPI_SHORT, N, N, "external32 read_at_all MPI_SHORT");
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += ir[i] != ival(p, i) || dr[i] != dval(p, i) || sr[i] != sval(p, i);
    CHECK(bad == 0, "external32 read back: %d of %d value triples differ from rank %d's", bad, N,
          p);

    /* A read that meets end of file: the last rank's last 5 shorts. */
    {
        const int last = rt_nprocs - 1;
        MPI_Offset o = REC * last + 12 * N + 2 * (N - 5);
        short s10[10];
        memset(s10, 0, sizeof s10);
        if (RT_OK(rio_file_read_at(fh, o, s10, 10, MPI_SHORT, &st))) {
            CHECK_STATUS(&st, MPI_SHORT, 5, 5, "external32 read_at of 10 shorts, 5 before end of file");
            int bad = 0;
            for (int i = 0; i < 5; i++)
                bad += s10[i] != sval(last, N - 5 + i);
            CHECK(bad == 0, "external32 short read: %d of 5 values differ", bad);
        }
    }
    extent_is(fh, MPI_INT, 4, "MPI_INT, external32");
    extent_is(fh, MPI_DOUBLE, 8, "MPI_DOUBLE, external32");
    extent_is(fh, MPI_SHORT, 2, "MPI_SHORT, external32");
    extent_is(fh, MPI_CHAR, 1, "MPI_CHAR, external32");
    RT_OK(rio_file_close(&fh));
    fresh(path);
}

static void test_internal(void)
{
    rio_file *fh = RIO_FILE_NULL;
    int iv[N], ir[N];
    MPI_Status st;
    rt_path(path, sizeof path, "internal");
    fresh(path);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh)))
        return;
    RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "internal", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    MPI_Offset disp;
    MPI_Datatype et, ft;
    if (RT_OK(rio_file_get_view(fh, &disp, &et, &ft, rep)))
        CHECK(!strcmp(rep, "internal"), "get_view datarep '%s', expected internal", rep);
    for (int i = 0; i < N; i++)
        iv[i] = ival(rt_rank, i);
    if (RT_OK(rio_file_write_at_all(fh, (MPI_Offset)4 * N * rt_rank, iv, N, MPI_INT, &st)))
        CHECK_STATUS(&st, MPI_INT, N, N, "internal write_at_all");
    sync_barrier(fh);
    int p = (rt_rank + 1) % rt_nprocs;
    memset(ir, 0, sizeof ir);
    if (RT_OK(rio_file_read_at(fh, (MPI_Offset)4 * N * p, ir, N, MPI_INT, &st))) {
        CHECK_STATUS(&st, MPI_INT, N, N, "internal read_at");
        int bad = 0;
        for (int i = 0; i < N; i++)
            bad += ir[i] != ival(p, i);
        CHECK(bad == 0, "internal read back: %d of %d ints differ", bad, N);
    }
    extent_is(fh, MPI_INT, (MPI_Aint)sizeof(int), "MPI_INT, internal");
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        CHECK(len == 4LL * N * rt_nprocs, "internal file size %lld", len);
        for (int q = 0; f && q < rt_nprocs && len == 4LL * N * rt_nprocs; q++) {
            int v[N];
            for (int i = 0; i < N; i++)
                v[i] = ival(q, i);
            CHECK_BYTES(f + 4 * N * q, v, NULL, sizeof v, "internal file bytes of rank %d (native)",
                        q);
        }
        free(f);
    }
    RT_OK(rio_file_close(&fh));
    fresh(path);
}

static void test_user(void)
{
    static struct rep_state swap = {0, 0, 0, 0, 0}, wide = {0, 0, 0, 0, 1}, nul = {0, 0, 0, 0, 0};
    RT_OK(rio_register_datarep("rio_swap", rep_read, rep_write, rep_extent, &swap));
    RT_OK(rio_register_datarep("rio_wide", rep_read, rep_write, rep_extent, &wide));
    RT_OK(rio_register_datarep("rio_null", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                               rep_extent, &nul));
    RT_ERR(rio_register_datarep("rio_swap", rep_read, rep_write, rep_extent, &swap),
           MPI_ERR_DUP_DATAREP, "MPI_Register_datarep", "rio_swap");
    RT_ERR(rio_register_datarep("external32", rep_read, rep_write, rep_extent, &swap),
           MPI_ERR_DUP_DATAREP, "MPI_Register_datarep", "external32");
    RT_ERR(rio_register_datarep("native", rep_read, rep_write, rep_extent, &swap),
           MPI_ERR_DUP_DATAREP, "MPI_Register_datarep", "native");
    RT_ERR(rio_register_datarep("rio_noext", rep_read, rep_write, NULL, &swap), MPI_ERR_ARG,
           "MPI_Register_datarep", "an extent function is required");
    RT_ERR(rio_register_datarep("", rep_read, rep_write, rep_extent, &swap), MPI_ERR_ARG,
           "MPI_Register_datarep", "name empty");
#if MPI_VERSION >= 4
    RT_ERR(rio_register_datarep_c("rio_noext", NULL, NULL, NULL, &swap), MPI_ERR_ARG,
           "MPI_Register_datarep_c", "an extent function is required");
#endif

    static const char *const names[3] = {"rio_swap", "rio_wide", "rio_null"};
    struct rep_state *states[3] = {&swap, &wide, &nul};
    for (int k = 0; k < 3; k++) {
        const int fsz = k == 1 ? 8 : 4; /* file bytes per int */
        rio_file *fh = RIO_FILE_NULL;
        int iv[N], ir[N];
        MPI_Status st;
        char suffix[32];
        snprintf(suffix, sizeof suffix, "user.%s", names[k]);
        rt_path(path, sizeof path, suffix);
        fresh(path);
        if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                                 MPI_INFO_NULL, &fh)))
            continue;
        if (!RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, names[k], MPI_INFO_NULL))) {
            RT_OK(rio_file_close(&fh));
            continue;
        }
        for (int i = 0; i < N; i++)
            iv[i] = ival(rt_rank, i);
        MPI_Offset my = (MPI_Offset)fsz * N * rt_rank;
        /* two writes: the second one collective and starting mid-array */
        if (RT_OK(rio_file_write_at(fh, my, iv, N / 2, MPI_INT, &st)))
            CHECK_STATUS(&st, MPI_INT, N / 2, N / 2, "%s write_at", names[k]);
        if (RT_OK(rio_file_write_at_all(fh, my + (MPI_Offset)fsz * (N / 2), iv + N / 2, N - N / 2,
                                        MPI_INT, &st)))
            CHECK_STATUS(&st, MPI_INT, N - N / 2, N - N / 2, "%s write_at_all", names[k]);
        sync_barrier(fh);
        int p = (rt_rank + 1) % rt_nprocs;
        memset(ir, 0, sizeof ir);
        if (RT_OK(rio_file_read_at_all(fh, (MPI_Offset)fsz * N * p, ir, N, MPI_INT, &st))) {
            CHECK_STATUS(&st, MPI_INT, N, N, "%s read_at_all", names[k]);
            int bad = 0;
            for (int i = 0; i < N; i++)
                bad += ir[i] != ival(p, i);
            CHECK(bad == 0, "%s read back: %d of %d ints differ from rank %d's", names[k], bad, N,
                  p);
        }
        /* A read that meets end of file: the last rank's last 3 ints. */
        {
            const int last = rt_nprocs - 1;
            int i10[10];
            memset(i10, 0, sizeof i10);
            MPI_Offset o = (MPI_Offset)fsz * N * rt_nprocs - (MPI_Offset)fsz * 3;
            if (RT_OK(rio_file_read_at(fh, o, i10, 10, MPI_INT, &st))) {
                CHECK_STATUS(&st, MPI_INT, 3, 3, "%s read_at of 10 ints, 3 before end of file",
                             names[k]);
                int bad = 0;
                for (int i = 0; i < 3; i++)
                    bad += i10[i] != ival(last, N - 3 + i);
                CHECK(bad == 0, "%s short read: %d of 3 values differ", names[k], bad);
            }
        }
        extent_is(fh, MPI_INT, fsz, names[k]);
        if (k < 2) {
            CHECK(states[k]->writes > 0, "%s: write conversion never called", names[k]);
            CHECK(states[k]->reads > 0, "%s: read conversion never called", names[k]);
        }
        CHECK(states[k]->bad_type == 0, "%s: conversion called with a type other than MPI_INT",
              names[k]);
        if (rt_rank == 0) {
            long long len = 0;
            unsigned char *f = RT_SLURP(path, &len);
            long long want = (long long)fsz * N * rt_nprocs;
            CHECK(len == want, "%s: file size %lld, expected %lld", names[k], len, want);
            if (f && len == want) {
                unsigned char *exp = malloc((size_t)want);
                for (int q = 0; q < rt_nprocs; q++)
                    for (int i = 0; i < N; i++) {
                        unsigned char *e = exp + ((long long)q * N + i) * fsz;
                        int v = ival(q, i);
                        if (k == 0) {
                            uint32_t s = bswap32((uint32_t)v);
                            memcpy(e, &s, 4);
                        } else if (k == 1) {
                            int64_t w = v;
                            for (int b = 0; b < 8; b++)
                                e[b] = (unsigned char)((uint64_t)w >> (8 * b));
                        } else {
                            memcpy(e, &v, 4);
                        }
                    }
                CHECK_BYTES(f, exp, NULL, (size_t)want, "%s: file bytes", names[k]);
                free(exp);
            }
            free(f);
        }
        RT_OK(rio_file_close(&fh));
        fresh(path);
    }
}

static void test_unknown(void)
{
    rio_file *fh = RIO_FILE_NULL;
    rt_path(path, sizeof path, "unknown");
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path,
                             MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                             MPI_INFO_NULL, &fh)))
        return;
    RT_ERR(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no_such_representation", MPI_INFO_NULL),
           MPI_ERR_UNSUPPORTED_DATAREP, "MPI_File_set_view", path);
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    MPI_Offset disp;
    MPI_Datatype et, ft;
    if (RT_OK(rio_file_get_view(fh, &disp, &et, &ft, rep)))
        CHECK(!strcmp(rep, "native"), "after a failed set_view the datarep is '%s', not native",
              rep);
    /* Native extents, including a derived type's. */
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    MPI_Type_commit(&v);
    extent_is(fh, MPI_INT, (MPI_Aint)sizeof(int), "MPI_INT, native");
    extent_is(fh, MPI_DOUBLE, (MPI_Aint)sizeof(double), "MPI_DOUBLE, native");
    extent_is(fh, v, (MPI_Aint)(12 * sizeof(int)), "vector(3,2,5,int), native");
    MPI_Type_free(&v);
    RT_OK(rio_file_close(&fh));
}

/* A read that meets end of file changes only the elements it read. */
static void test_eof(void)
{
    static const char *const reps[2] = {"external32", "rio_wide"};
    MPI_Datatype every_other;
    MPI_Type_vector(10, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int k = 0; k < 2; k++) {
        rio_file *fh = RIO_FILE_NULL;
        MPI_Status st;
        char suffix[32];
        snprintf(suffix, sizeof suffix, "eof.%s", reps[k]);
        rt_path(path, sizeof path, suffix);
        fresh(path);
        if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                                 MPI_INFO_NULL, &fh)))
            continue;
        if (!RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, reps[k], MPI_INFO_NULL))) {
            RT_OK(rio_file_close(&fh));
            continue;
        }
        int five[5];
        for (int i = 0; i < 5; i++)
            five[i] = ival(7, i);
        if (rt_rank == 0 && RT_OK(rio_file_write_at(fh, 0, five, 5, MPI_INT, &st)))
            CHECK_STATUS(&st, MPI_INT, 5, 5, "%s: write of 5 ints", reps[k]);
        sync_barrier(fh);
        /* rio_wide's functions convert MPI_INT only: no strided type there */
        for (int form = 0; form < (k ? 2 : 4); form++) {
            int strided = form >= 2, coll = form & 1, buf[20];
            const char *how = coll ? "read_at_all" : "read_at";
            for (int i = 0; i < 20; i++)
                buf[i] = -7 - i;
            MPI_Datatype t = strided ? every_other : MPI_INT;
            int n = strided ? 1 : 10;
            int rc = coll ? rio_file_read_at_all(fh, 0, buf, n, t, &st)
                          : rio_file_read_at(fh, 0, buf, n, t, &st);
            if (!RT_OK(rc))
                continue;
            int elems = -1;
            MPI_Get_elements(&st, MPI_INT, &elems);
            CHECK(elems == 5, "%s %s%s past end of file: %d ints, expected 5", reps[k], how,
                  strided ? " (strided)" : "", elems);
            for (int i = 0; i < 20; i++) {
                int at = strided ? (i % 2 ? -1 : i / 2) : i;
                int want = at >= 0 && at < 5 ? ival(7, at) : -7 - i;
                CHECK(buf[i] == want, "%s %s%s past end of file: buf[%d] = %d, expected %d",
                      reps[k], how, strided ? " (strided)" : "", i, buf[i], want);
            }
        }
        RT_OK(rio_file_close(&fh));
    }
    MPI_Type_free(&every_other);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    test_external32();
    test_internal();
    test_user();
    test_eof();
    test_unknown();
    return rt_finish();
}

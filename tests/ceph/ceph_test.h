/*
 * ceph_test.h — what the tests on CephFS share: a file's layout as the
 * mount reports it, a number MPI_File_get_info reports, every rank's
 * block written and verified collectively, and the check of an open of an
 * unreachable cluster.  Include after
 * resonio.h and rtest.h; everything is static inline.
 */
#ifndef RIO_CEPH_TEST_H
#define RIO_CEPH_TEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The file's layout as CephFS reports it (0 when it has none). */
static inline int ceph_layout(const char *path, long long *su, long long *sc, long long *os)
{
    char buf[256];
    ssize_t n = getxattr(path, "ceph.file.layout", buf, sizeof buf - 1);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    *su = *sc = *os = -1;
    char *p;
    if ((p = strstr(buf, "stripe_unit=")))
        *su = atoll(p + 12);
    if ((p = strstr(buf, "stripe_count=")))
        *sc = atoll(p + 13);
    if ((p = strstr(buf, "object_size=")))
        *os = atoll(p + 12);
    return 1;
}

/* get_info's value of key as a number, -1 when absent. */
static inline long long info_num(rio_file *fh, const char *key)
{
    MPI_Info info;
    char v[64];
    long long r = -1;
    if (!RT_OK(rio_file_get_info(fh, &info)))
        return -2;
    if (rt_info_get(info, key, v, sizeof v))
        r = atoll(v);
    MPI_Info_free(&info);
    return r;
}

/* Collectively, each rank's block of per_rank bytes (rt_fill's pattern)
 * at rank * per_rank. */
static inline void ceph_write_blocks(rio_file *fh, long long per_rank)
{
    char *buf = malloc((size_t)per_rank);
    rt_fill(buf, (size_t)per_rank, rt_rank, (long long)rt_rank * per_rank);
    MPI_Status st;
    RT_OK(rio_file_write_at_all(fh, (long long)rt_rank * per_rank, buf, (int)per_rank, MPI_BYTE,
                                &st));
    free(buf);
}

/* Hints asking for unit su, count sc, objects of os bytes (and strategy,
 * when not NULL); free with MPI_Info_free. */
static inline MPI_Info ceph_layout_info(long long su, int sc, long long os, const char *strategy)
{
    char u[24], c[16], o[24];
    snprintf(u, sizeof u, "%lld", su);
    snprintf(c, sizeof c, "%d", sc);
    snprintf(o, sizeof o, "%lld", os);
    return rt_info("striping_unit", u, "striping_factor", c, "resonio_object_size", o,
                   "resonio_strategy", strategy, NULL);
}

/* File name, read by slurp on rank 0 (via: "through the mount", ...),
 * holds each rank's block of per bytes, rank q's at q*per with its
 * pattern.  Collective (barriers around). */
static inline void ceph_verify_blocks(unsigned char *(*slurp)(const char *, long long *),
                                      const char *name, long long per, const char *what,
                                      const char *via)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, size = (long long)rt_nprocs * per;
        unsigned char *all = slurp(name, &len);
        CHECK(len == size, "%s: %s is %lld bytes %s, expected %lld", what, name, len, via, size);
        for (int q = 0; all && q < rt_nprocs && len >= (long long)(q + 1) * per; q++)
            CHECK_PAT(all + (long long)q * per, per, q, (long long)q * per,
                      "%s: rank %d's block read %s", what, q, via);
        free(all);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Opening rname with a configuration whose monitor is a port bound on
 * 127.0.0.1 that nobody listens on (rank 0 holds it, so no one else can
 * take it meanwhile) fails with MPI_ERR_IO naming MPI_File_open, the file
 * and cause, within timeout_s (resonio_ceph_timeout) and margin_s. */
static inline void ceph_check_unreachable(const char *rname, const char *cause, int timeout_s,
                                          int margin_s)
{
    int s = -1, port = 0;
    char conf[4096];
    rt_path(conf, sizeof conf, "bad.conf");
    if (rt_rank == 0) {
        struct sockaddr_in a;
        socklen_t al = sizeof a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        s = socket(AF_INET, SOCK_STREAM, 0);
        if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
            getsockname(s, (struct sockaddr *)&a, &al) == 0)
            port = ntohs(a.sin_port);
        CHECK(port > 0, "unreachable: no port to bind: %s", strerror(errno));
        FILE *f = fopen(conf, "w");
        CHECK(f != NULL, "unreachable: cannot write %s", conf);
        if (f) {
            fprintf(f, "[global]\nmon host = [v2:127.0.0.1:%d,v1:127.0.0.1:%d]\n"
                       "auth cluster required = none\nauth service required = none\n"
                       "auth client required = none\nadmin socket = \nlog file = /dev/null\n",
                    port, port);
            fclose(f);
        }
    }
    MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (port > 0) {
        char tmo[16];
        snprintf(tmo, sizeof tmo, "%d", timeout_s);
        MPI_Info info = rt_info("resonio_ceph_conf", conf, "resonio_ceph_timeout", tmo, NULL);
        rio_file *fh = NULL;
        double t0 = MPI_Wtime();
        int rc = rio_file_open(MPI_COMM_WORLD, rname, MPI_MODE_RDWR, info, &fh);
        double dt = MPI_Wtime() - t0;
        if (RT_ERR(rc, MPI_ERR_IO, "MPI_File_open", rname)) {
            char m[MPI_MAX_ERROR_STRING];
            rt_errstr(rc, m);
            CHECK(strstr(m, cause) || strstr(m, "another rank"),
                  "unreachable: cause '%s' not named: %s", cause, m);
        }
        if (rc == MPI_SUCCESS)
            rio_file_close(&fh);
        CHECK(dt < timeout_s + margin_s, "unreachable: the open took %.1f s, timeout %d s", dt,
              timeout_s);
        MPI_Info_free(&info);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        if (s >= 0)
            close(s);
        unlink(conf);
    }
}

/* What the last collective call on fh did (rio_coll_last, this build's
 * whole struct). */
static inline void ceph_last(rio_file *fh, struct rio_coll_info *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->size = sizeof *ci;
    RT_OK(rio_coll_last(fh, ci));
}

/* The OSDs a collective call whose data ends at end plans over: the
 * distinct servers of the objects of the object sets (sc objects of os
 * bytes each) up to end, by the file's map; -1 when an object has none. */
static inline int ceph_map_targets(rio_file *fh, long long end, int sc, long long os)
{
    long long setbytes = (long long)sc * os, nobj = (end + setbytes - 1) / setbytes * sc;
    int ids[256], n = 0;
    for (long long i = 0; i < nobj; i++) {
        int srv = -1, k = 0;
        if (!RT_OK(rio_file_get_servers(fh, i, 1, &srv)) || srv < 0)
            return -1;
        while (k < n && ids[k] != srv)
            k++;
        if (k == n && n < 256)
            ids[n++] = srv;
    }
    return n;
}

#endif /* RIO_CEPH_TEST_H */

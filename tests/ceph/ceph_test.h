/*
 * ceph_test.h — what the tests on CephFS share: a file's layout as the
 * mount reports it, a number MPI_File_get_info reports, and every rank's
 * block written collectively.  Include after
 * resonio.h and rtest.h; everything is static inline.
 */
#ifndef RIO_CEPH_TEST_H
#define RIO_CEPH_TEST_H

#include <sys/xattr.h>

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

#endif /* RIO_CEPH_TEST_H */

/*
 * pack.c — copying between a typed buffer and a contiguous one.
 *
 * Both directions walk the stream with an iterator (rio__dtype_iter_copy,
 * which copies the blocks of a vector leaf in one tight loop), so a
 * contiguous type is one memcpy and partial copies (start, len) cost no
 * more than the regions they touch plus one seek.  Region offsets are byte displacements from
 * buf, which may be negative.
 */
#include "dtype_int.h"

#include <string.h>

static int check_range(const struct rio_dtype *dt, MPI_Count count, MPI_Offset start,
                       MPI_Offset len)
{
    if (start < 0 || len < 0) {
        rio__err_detail("negative pack range (start %lld, length %lld)", (long long)start,
                        (long long)len);
        return RIO_E_ARG;
    }
    if (count >= 0) {
        MPI_Offset total = (MPI_Offset)count * (MPI_Offset)dt->info.size;
        if (start > total || len > total - start) {
            rio__err_detail("bytes %lld..%lld are past the end of a %lld-byte stream",
                            (long long)start, (long long)(start + len), (long long)total);
            return RIO_E_ARG;
        }
    }
    return 0;
}

/* to_contig: typed buf -> contig; otherwise contig -> typed buf. */
static int copy(const struct rio_dtype *dt, MPI_Count count, char *typed, MPI_Offset start,
                MPI_Offset len, char *contig, int to_contig)
{
    struct rio_dtype_iter it;
    int err = check_range(dt, count, start, len);
    if (err || len == 0)
        return err;
    err = rio__dtype_iter_init(&it, dt, count, start);
    if (err)
        return err;
    rio__dtype_iter_copy(&it, typed, contig, len, to_contig);
    rio__dtype_iter_free(&it);
    return 0;
}

/* Contract in dtype.h: pack len stream bytes from stream byte start. */
int rio__dtype_pack(const struct rio_dtype *dt, MPI_Count count, const void *buf,
                    MPI_Offset start, MPI_Offset len, void *out)
{
    return copy(dt, count, (char *)(uintptr_t)buf, start, len, out, 1);
}

/* Contract in dtype.h: unpack len stream bytes into stream byte start on. */
int rio__dtype_unpack(const struct rio_dtype *dt, MPI_Count count, void *buf, MPI_Offset start,
                      MPI_Offset len, const void *in)
{
    return copy(dt, count, buf, start, len, (char *)(uintptr_t)in, 0);
}

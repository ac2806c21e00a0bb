/*
 * t_atomic.c — atomic mode: concurrent overlapping writes never mix.
 *
 * Rank r's view is NB blocks of BLK bytes, STRIDE apart, starting at
 * r * STRIDE: the ranks' views overlap, and the file blocks n-1 .. NB-1
 * are in every rank's view.  Each round every rank writes its whole view
 * with one byte value (unique to rank and round) and, without waiting for
 * the others, reads its view back; then after a reduction (all writes
 * done) it reads again.  With atomicity on, each write is indivisible, so
 * every read must find the common blocks entirely one value, one of the
 * values written (never a mix), and after the round all ranks must see
 * the same value.  The write is one call over 64 file regions, so without
 * locking the storage calls of two ranks would interleave.  The rounds run
 * with the library's choice of method and with posix and sieve forced.
 */
#include "resonio.h"
#include "rtest.h"

#define NB 64
#define BLK 2048
#define STRIDE 4096
#define ROUNDS 15

static char path[4096];

static int value(int round, int rank)
{
    return (round * rt_nprocs + rank) % 250 + 1;
}

/* The common blocks of a read of this rank's view: all one value?  Returns
 * it, or -1 if mixed (reported). */
static int common_value(const unsigned char *r, const char *when, int round, const char *method)
{
    int v = -2;
    for (int k = 0; k < NB; k++) {
        int j = rt_rank + k; /* file block */
        if (j < rt_nprocs - 1 || j > NB - 1)
            continue;
        for (int b = 0; b < BLK; b++) {
            int x = r[(long)k * BLK + b];
            if (v == -2)
                v = x;
            else if (x != v) {
                CHECK(0, "%s, round %d, method %s: file block %d byte %d is %d, block %d started with %d: writes mixed",
                      when, round, method, j, b, x, rt_nprocs - 1, v);
                return -1;
            }
        }
    }
    return v;
}

static int written_this_round(int v, int round)
{
    for (int q = 0; q < rt_nprocs; q++)
        if (v == value(round, q))
            return 1;
    return 0;
}

static void rounds(rio_file *fh, const char *method)
{
    static unsigned char w[NB * BLK], r[NB * BLK];
    MPI_Status st;
    for (int round = 0; round < ROUNDS; round++) {
        memset(w, value(round, rt_rank), sizeof w);
        if (RT_OK(rio_file_write_at(fh, 0, w, NB * BLK, MPI_BYTE, &st)))
            CHECK_STATUS(&st, MPI_BYTE, NB * BLK, NB * BLK, "atomic write");
        if (RT_OK(rio_file_read_at(fh, 0, r, NB * BLK, MPI_BYTE, &st))) {
            int v = common_value(r, "read during the round", round, method);
            /* the read follows this rank's own write: a value of this
             * round, or (if another rank was faster) still this round's */
            CHECK(v < 0 || written_this_round(v, round),
                  "round %d, method %s: read during the round found %d, not written this round",
                  round, method, v);
        }
        int dummy = 0, sum = 0;
        MPI_Allreduce(&dummy, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        int v = -1;
        if (RT_OK(rio_file_read_at(fh, 0, r, NB * BLK, MPI_BYTE, &st))) {
            v = common_value(r, "read after the round", round, method);
            CHECK(v < 0 || written_this_round(v, round),
                  "round %d, method %s: after the round the value is %d, not written this round",
                  round, method, v);
        }
        int mm[2] = {v, -v}, res[2];
        MPI_Allreduce(mm, res, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(res[0] == -res[1], "round %d, method %s: ranks see different values after the round (%d..%d)",
              round, method, -res[1], res[0]);
    }
}

int main(int argc, char **argv)
{
    rio_file *fh = RIO_FILE_NULL;
    rt_init(&argc, &argv);
    rt_path(path, sizeof path, "atomic");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh)))
        return rt_finish();

    /* Initial content: 0xFF everywhere any view reaches. */
    long long span = (long long)(NB + rt_nprocs) * STRIDE;
    if (rt_rank == 0) {
        unsigned char *init = malloc((size_t)span);
        memset(init, 0xff, (size_t)span);
        RT_OK(rio_file_write_at(fh, 0, init, (int)span, MPI_BYTE, MPI_STATUS_IGNORE));
        free(init);
    }
    RT_OK(rio_file_set_atomicity(fh, 1));
    int flag = 0;
    RT_OK(rio_file_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity is %d after set_atomicity(1)", flag);

    MPI_Datatype ft;
    MPI_Type_vector(NB, BLK, STRIDE, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * STRIDE, MPI_BYTE, ft, "native",
                            MPI_INFO_NULL));
    MPI_Type_free(&ft);

    static const char *const methods[] = {"auto", "posix", "sieve"};
    for (int m = 0; m < 3; m++) {
        MPI_Info info = rt_info("resonio_indep_method", methods[m], NULL);
        RT_OK(rio_file_set_info(fh, info));
        MPI_Info_free(&info);
        rounds(fh, methods[m]);
    }
    RT_OK(rio_file_close(&fh));

    /* The file itself: the common blocks are one value. */
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        if (f && len >= (long long)NB * STRIDE) {
            int v = f[(long long)(rt_nprocs - 1) * STRIDE], bad = 0;
            for (int j = rt_nprocs - 1; j < NB; j++)
                for (int b = 0; b < BLK; b++)
                    bad += f[(long long)j * STRIDE + b] != v;
            CHECK(bad == 0, "file (POSIX): %d bytes of the common blocks differ from %d", bad, v);
            CHECK(written_this_round(v, ROUNDS - 1), "file (POSIX): common value %d is not from the last round", v);
        }
        free(f);
        unlink(path);
    }
    return rt_finish();
}

/*
 * i_dropin.c — an ordinary MPI-IO program, for the drop-in test.
 *
 * It uses only MPI and MPI_File_* (no resonio header) and is linked only
 * with the MPI library.  dropin.sh runs it once as is (the MPI library's
 * own MPI-IO) and once with libresonio-mpiio preloaded, and compares the
 * two files it writes with cmp, so the program writes every byte of its
 * file deterministically — shared-pointer writes are serialized in rank
 * order — and fixes the size with set_size.  It prints which
 * implementation served MPI_File_open (resonio when rio_file_open can be
 * found in the process) so the script can tell the runs apart.
 *
 * Regions of the file (B bytes per rank each unless noted):
 *   A  vector view of MPI_INT, ranks interleaved, 4 blocks per rank:
 *      write_all, write_at_all_begin/end, iwrite_at + MPI_Wait
 *   B  individual pointer: seek, write, iwrite + MPI_Test
 *   C  write_shared in rank order       D  write_ordered
 *   E  write_ordered_begin/end (B/2)    F  iwrite_shared in rank order (B/4)
 *   G  seek + write_all_begin/end       H  iwrite_at_all + MPI_Waitall
 * with preallocate first and set_size last, get_size, get_info, get_amode,
 * get_group, atomicity, sync, an error handler called on a negative
 * count (get_errhandler's reference freed), MPI_ERR_TYPE for an
 * uncommitted type in write_at_all, read_at and set_view, and reads of every region back
 * (read_all through the vector view, read_ordered, read_shared, iread_at,
 * read_at_all of the whole file) checked against the expected image.
 */
#include <mpi.h>

#include "rtest.h"
#include "interop.h"

#define B 512

static MPI_File fh = MPI_FILE_NULL;
static char path[4096];
static MPI_Offset reg[9]; /* start of regions A..H, and the end */

static void layout(void)
{
    const MPI_Offset n = rt_nprocs;
    const MPI_Offset size[8] = {4 * n * B, n * B, n * B, n * B, n * B / 2, n * B / 4, n * B, n * B};
    reg[0] = 0;
    for (int i = 0; i < 8; i++)
        reg[i + 1] = reg[i] + size[i];
}

/* Owner of byte o of the file. */
static int owner(MPI_Offset o)
{
    const int n = rt_nprocs;
    if (o < reg[1])
        return (int)((o / B) % n);
    for (int i = 1; i < 8; i++)
        if (o < reg[i + 1]) {
            MPI_Offset per = i == 4 ? B / 2 : i == 5 ? B / 4 : B;
            return (int)((o - reg[i]) / per);
        }
    return -1;
}

static void byte_view(MPI_Offset disp)
{
    RT_OK(MPI_File_set_view(fh, disp, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
}

static void vector_view(MPI_Datatype *ft)
{
    MPI_Type_vector(4, B / 4, rt_nprocs * B / 4, MPI_INT, ft);
    MPI_Type_commit(ft);
    RT_OK(MPI_File_set_view(fh, (MPI_Offset)rt_rank * B, MPI_INT, *ft, "native", MPI_INFO_NULL));
}

static int handler_calls;
static void handler(MPI_File *f, int *code, ...)
{
    (void)f;
    (void)code;
    handler_calls++;
}

/* Each rank in turn, in rank order. */
#define IN_RANK_ORDER(stmt)                           \
    for (int q_ = 0; q_ < rt_nprocs; q_++) {          \
        if (q_ == rt_rank) {                          \
            stmt;                                     \
        }                                             \
        MPI_Barrier(MPI_COMM_WORLD);                  \
    }

static void writes(void)
{
    unsigned char w[4 * B];
    MPI_Status st, sts[2];
    MPI_Request rq[2];
    MPI_Datatype ft;
    const int me = rt_rank, n = rt_nprocs;

    /* A: the data stream of the vector view is blocks me, me+n, ... */
    for (int k = 0; k < 4; k++)
        rt_fill(w + k * B, B, me, reg[0] + ((MPI_Offset)k * n + me) * B);
    vector_view(&ft);
    RT_OK(MPI_File_write_all(fh, w, B / 2, MPI_INT, &st)); /* blocks 0, 1 */
    RT_OK(MPI_File_write_at_all_begin(fh, 2 * B / 4, w + 2 * B, B / 4, MPI_INT));
    RT_OK(MPI_File_write_at_all_end(fh, w + 2 * B, &st));
    if (RT_OK(MPI_File_iwrite_at(fh, 3 * B / 4, w + 3 * B, B / 4, MPI_INT, &rq[0])))
        MPI_Wait(&rq[0], &st);
    MPI_Type_free(&ft);

    /* B */
    byte_view(reg[1]);
    rt_fill(w, B, me, reg[1] + (MPI_Offset)me * B);
    RT_OK(MPI_File_seek(fh, (MPI_Offset)me * B, MPI_SEEK_SET));
    RT_OK(MPI_File_write(fh, w, B / 2, MPI_BYTE, &st));
    if (RT_OK(MPI_File_iwrite(fh, w + B / 2, B / 2, MPI_BYTE, &rq[0]))) {
        int flag = 0;
        for (long i = 0; i < 100000000L && !flag; i++)
            MPI_Test(&rq[0], &flag, &st);
        CHECK(flag, "MPI_Test never completed an iwrite");
    }
    MPI_Offset pos = -1, bo = -1;
    RT_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (MPI_Offset)(me + 1) * B, "position after write + iwrite %lld", (long long)pos);
    RT_OK(MPI_File_get_byte_offset(fh, pos, &bo));
    CHECK(bo == reg[1] + pos, "get_byte_offset %lld, expected %lld", (long long)bo,
          (long long)(reg[1] + pos));

    /* C: shared pointer, one rank after the other */
    byte_view(reg[2]);
    rt_fill(w, B, me, reg[2] + (MPI_Offset)me * B);
    IN_RANK_ORDER(RT_OK(MPI_File_write_shared(fh, w, B, MPI_BYTE, &st)));
    RT_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == (MPI_Offset)n * B, "shared position after write_shared %lld", (long long)pos);

    /* D: ordered */
    byte_view(reg[3]);
    rt_fill(w, B, me, reg[3] + (MPI_Offset)me * B);
    RT_OK(MPI_File_write_ordered(fh, w, B, MPI_BYTE, &st));

    /* E: split ordered */
    byte_view(reg[4]);
    rt_fill(w, B / 2, me, reg[4] + (MPI_Offset)me * (B / 2));
    RT_OK(MPI_File_write_ordered_begin(fh, w, B / 2, MPI_BYTE));
    RT_OK(MPI_File_write_ordered_end(fh, w, &st));

    /* F: nonblocking shared, one rank after the other */
    byte_view(reg[5]);
    RT_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    rt_fill(w, B / 4, me, reg[5] + (MPI_Offset)me * (B / 4));
    IN_RANK_ORDER(if (RT_OK(MPI_File_iwrite_shared(fh, w, B / 4, MPI_BYTE, &rq[0])))
                      MPI_Wait(&rq[0], &st));

    /* G: split collective with the individual pointer */
    byte_view(reg[6]);
    rt_fill(w, B, me, reg[6] + (MPI_Offset)me * B);
    RT_OK(MPI_File_seek(fh, (MPI_Offset)me * B, MPI_SEEK_SET));
    RT_OK(MPI_File_write_all_begin(fh, w, B, MPI_BYTE));
    RT_OK(MPI_File_write_all_end(fh, w, &st));

    /* H: nonblocking collective, in two requests */
    byte_view(reg[7]);
    rt_fill(w, B, me, reg[7] + (MPI_Offset)me * B);
    if (RT_OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)me * B, w, B / 2, MPI_BYTE, &rq[0])) &&
        RT_OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)me * B + B / 2, w + B / 2, B / 2, MPI_BYTE,
                                     &rq[1])))
        MPI_Waitall(2, rq, sts);
    byte_view(0);
}

static void misc(void)
{
    MPI_Offset size = -1;
    RT_OK(MPI_File_set_size(fh, reg[8]));
    RT_OK(MPI_File_get_size(fh, &size));
    CHECK(size == reg[8], "get_size %lld, expected %lld", (long long)size, (long long)reg[8]);
    MPI_Info info = MPI_INFO_NULL;
    if (RT_OK(MPI_File_get_info(fh, &info))) {
        int nkeys = -1;
        MPI_Info_get_nkeys(info, &nkeys);
        CHECK(nkeys >= 0, "get_info gave an unusable info object");
        MPI_Info_free(&info);
    }
    int flag = -1;
    RT_OK(MPI_File_set_atomicity(fh, 1));
    RT_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity %d after set 1", flag);
    RT_OK(MPI_File_set_atomicity(fh, 0));
    int amode = -1;
    RT_OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE), "get_amode 0x%x", amode);
    MPI_Group g, wg;
    int res = -1;
    if (RT_OK(MPI_File_get_group(fh, &g))) {
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_compare(g, wg, &res);
        CHECK(res == MPI_IDENT, "get_group is not the world group");
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
    }
    RT_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    RT_OK(MPI_File_sync(fh));

    /* an error handler on the file */
    MPI_Errhandler eh, got;
    RT_OK(MPI_File_create_errhandler(handler, &eh));
    RT_OK(MPI_File_set_errhandler(fh, eh));
    RT_OK(MPI_File_get_errhandler(fh, &got));
    unsigned char b[4];
    int code = MPI_File_read_at(fh, 0, b, -1, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(code != MPI_SUCCESS, "read_at with count -1 succeeded");
    CHECK(handler_calls == 1, "the file's error handler ran %d times", handler_calls);
    RT_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);

    /* An uncommitted type is refused with MPI_ERR_TYPE by both natives
     * and by resonio, and moves nothing: a write that went through would
     * change the file that dropin.sh compares. */
    MPI_Datatype u;
    MPI_Type_contiguous(4, MPI_BYTE, &u);
    memset(b, 0xee, sizeof b);
    code = MPI_File_write_at_all(fh, 0, b, 1, u, MPI_STATUS_IGNORE);
    CHECK(rt_class(code) == MPI_ERR_TYPE, "write_at_all, uncommitted type: class %s",
          rt_class_name(rt_class(code)));
    code = MPI_File_read_at(fh, 0, b, 1, u, MPI_STATUS_IGNORE);
    CHECK(rt_class(code) == MPI_ERR_TYPE, "read_at, uncommitted type: class %s",
          rt_class_name(rt_class(code)));
    CHECK(b[0] == 0xee && b[3] == 0xee, "read_at with an uncommitted type filled the buffer");
    code = MPI_File_set_view(fh, 0, MPI_BYTE, u, "native", MPI_INFO_NULL);
    CHECK(rt_class(code) == MPI_ERR_TYPE, "set_view, uncommitted filetype: class %s",
          rt_class_name(rt_class(code)));
    MPI_Type_free(&u);
}

static void reads(void)
{
    const int me = rt_rank, n = rt_nprocs;
    unsigned char r[4 * B];
    MPI_Status st;
    MPI_Request rq;
    MPI_Datatype ft;

    /* A through the view */
    memset(r, 0, sizeof r);
    vector_view(&ft);
    if (RT_OK(MPI_File_read_all(fh, r, B, MPI_INT, &st)))
        for (int k = 0; k < 4; k++)
            CHECK_PAT(r + k * B, B, me, reg[0] + ((MPI_Offset)k * n + me) * B,
                      "region A block %d through the view", k);
    MPI_Type_free(&ft);

    /* D with read_ordered, C with read_shared in rank order */
    byte_view(reg[3]);
    memset(r, 0, B);
    if (RT_OK(MPI_File_read_ordered(fh, r, B, MPI_BYTE, &st)))
        CHECK_PAT(r, B, me, reg[3] + (MPI_Offset)me * B, "region D by read_ordered");
    byte_view(reg[2]);
    memset(r, 0, B);
    IN_RANK_ORDER(RT_OK(MPI_File_read_shared(fh, r, B, MPI_BYTE, &st)));
    CHECK_PAT(r, B, me, reg[2] + (MPI_Offset)me * B, "region C by read_shared");

    /* G with iread_at */
    byte_view(0);
    memset(r, 0, B);
    if (RT_OK(MPI_File_iread_at(fh, reg[6] + (MPI_Offset)me * B, r, B, MPI_BYTE, &rq))) {
        MPI_Wait(&rq, &st);
        CHECK_PAT(r, B, me, reg[6] + (MPI_Offset)me * B, "region G by iread_at");
    }

    /* The whole file, every byte */
    unsigned char *all = malloc((size_t)reg[8]), *exp = malloc((size_t)reg[8]);
    for (MPI_Offset o = 0; o < reg[8]; o++)
        exp[o] = pat(owner(o), o);
    memset(all, 0, (size_t)reg[8]);
    if (RT_OK(MPI_File_read_at_all(fh, 0, all, (int)reg[8], MPI_BYTE, &st))) {
        int c = -1;
        MPI_Get_count(&st, MPI_BYTE, &c);
        CHECK(c == (int)reg[8], "read_at_all of the file: count %d, expected %lld", c,
              (long long)reg[8]);
        CHECK_BYTES(all, exp, NULL, (size_t)reg[8], "the whole file read back");
    }
    free(all);
    free(exp);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    snprintf(path, sizeof path, "%s", rt_fname);
    layout();

    rt_print_implementation();

    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (RT_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh))) {
        /* Preallocate the empty file: Open MPI 4.1's OMPIO grows a file that
         * already has the size by that size again (preallocate(n) of an
         * n-byte file gives 2n bytes), which would make the plain run fail. */
        RT_OK(MPI_File_preallocate(fh, reg[8]));
        writes();
        misc();
        reads();
        RT_OK(MPI_File_close(&fh));
        CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");
    }
    /* the file stays: dropin.sh compares it */
    return rt_finish();
}

/*
 * t_rw.c — every data-access family, byte-verified, in the default view.
 *
 * The file is cut into slots of nprocs blocks of B bytes; each family
 * writes one slot (rank r its block r, with the bytes pat(r, offset)):
 *   0 write_at              1 write_at_all          2 iwrite_at (Wait, Test)
 *   3 iwrite_at_all         4 write_at_all_begin/end
 *   5 individual pointer: seek SET, write, iwrite, write_all, write_all_begin/end
 *   6 individual pointer: seek CUR (backwards), iwrite_all, write_all
 *   7 write_shared          8 iwrite_shared   (records of rank-specific bytes
 *                             rec(r, k), in any order, each exactly once)
 *   9 write_ordered (block sizes differ per rank)   10 write_ordered_begin/end
 * Then after sync-barrier-sync every rank reads its neighbour's block of
 * each slot back with the matching read family (seek END and CUR for the
 * individual pointer, seek_shared for the shared one), statuses are
 * checked with MPI_Get_count and MPI_Get_elements, and rank 0 checks the
 * whole file with POSIX reads.  Last, reads at end of file: short counts,
 * MPI_UNDEFINED for a partial derived type, the pointer moved only by
 * what was read.  Then zero counts (also on one rank of a collective) and
 * MPI_BOTTOM with a type of absolute addresses.  Last, the statistics'
 * time in the agreement: none for an independent call, and at least the
 * time a late rank kept the others waiting for a collective one.
 */
#include "resonio.h"
#include "rtest.h"

#include <time.h>

#define B 1000
#define NSLOT 11

static char path[4096];
static int peer;

static MPI_Offset slot(int s)
{
    return (MPI_Offset)s * rt_nprocs * B;
}

/* Sizes of the ordered writes of slot 9, and rank r's offset in it. */
static int olen(int r)
{
    return B / 2 + 7 * r;
}
static MPI_Offset ooff(int r)
{
    MPI_Offset o = slot(9);
    for (int q = 0; q < r; q++)
        o += olen(q);
    return o;
}

/* Record bytes of the shared-pointer slots: independent of position. */
static void rec_fill(unsigned char *b, int r)
{
    rt_fill(b, B, r + 1000, 0);
}
/* Which rank's record b is, or -1. */
static int rec_owner(const unsigned char *b)
{
    for (int r = 0; r < rt_nprocs; r++)
        if (rt_find_bad(b, B, r + 1000, 0) < 0)
            return r;
    return -1;
}

/* Complete a request with MPI_Test (bounded, so a broken request fails
 * instead of hanging). */
static void test_until_done(MPI_Request *req, MPI_Status *st, const char *what)
{
    int flag = 0;
    for (long i = 0; i < 100000000L && !flag; i++)
        MPI_Test(req, &flag, st);
    CHECK(flag, "%s: MPI_Test never completed the request", what);
    CHECK(*req == MPI_REQUEST_NULL, "%s: request not freed after completion", what);
}

static void sync_barrier(rio_file *fh)
{
    RT_OK(rio_file_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    RT_OK(rio_file_sync(fh));
}

static void pos_is(rio_file *fh, MPI_Offset want, const char *when)
{
    MPI_Offset p = -1;
    RT_OK(rio_file_get_position(fh, &p));
    CHECK(p == want, "%s: individual pointer at %lld, expected %lld", when, (long long)p,
          (long long)want);
}

static void shared_is(rio_file *fh, MPI_Offset want, const char *when)
{
    MPI_Offset p = -1;
    RT_OK(rio_file_get_position_shared(fh, &p));
    CHECK(p == want, "%s: shared pointer at %lld, expected %lld", when, (long long)p,
          (long long)want);
}

static void writes(rio_file *fh)
{
    unsigned char w[B];
    MPI_Status st, sts[2];
    MPI_Request rq[2];
    const int me = rt_rank;
    MPI_Offset o;

    /* 0: write_at, as MPI_INT. */
    o = slot(0) + me * B;
    rt_fill(w, B, me, o);
    if (RT_OK(rio_file_write_at(fh, o, w, B / 4, MPI_INT, &st)))
        CHECK_STATUS(&st, MPI_INT, B / 4, B / 4, "write_at");

    /* 1: write_at_all. */
    o = slot(1) + me * B;
    rt_fill(w, B, me, o);
    if (RT_OK(rio_file_write_at_all(fh, o, w, B, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, B, B, "write_at_all");

    /* 2: iwrite_at, first half completed by MPI_Wait, second by MPI_Test. */
    o = slot(2) + me * B;
    rt_fill(w, B, me, o);
    if (RT_OK(rio_file_iwrite_at(fh, o, w, B / 2, MPI_BYTE, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_BYTE, B / 2, B / 2, "iwrite_at + MPI_Wait");
    }
    if (RT_OK(rio_file_iwrite_at(fh, o + B / 2, w + B / 2, B / 2, MPI_BYTE, &rq[1]))) {
        test_until_done(&rq[1], &st, "iwrite_at + MPI_Test");
        CHECK_STATUS(&st, MPI_BYTE, B / 2, B / 2, "iwrite_at + MPI_Test");
    }

    /* 3: iwrite_at_all, completed by MPI_Wait. */
    o = slot(3) + me * B;
    rt_fill(w, B, me, o);
    if (RT_OK(rio_file_iwrite_at_all(fh, o, w, B / 4, MPI_INT, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_INT, B / 4, B / 4, "iwrite_at_all");
    }

    /* 4: split explicit-offset collective. */
    o = slot(4) + me * B;
    rt_fill(w, B, me, o);
    if (RT_OK(rio_file_write_at_all_begin(fh, o, w, B, MPI_BYTE)))
        if (RT_OK(rio_file_write_at_all_end(fh, w, &st)))
            CHECK_STATUS(&st, MPI_BYTE, B, B, "write_at_all_end");

    /* 5: individual pointer, several calls in a row. */
    o = slot(5) + me * B;
    rt_fill(w, B, me, o);
    RT_OK(rio_file_seek(fh, o, MPI_SEEK_SET));
    pos_is(fh, o, "seek SET");
    if (RT_OK(rio_file_write(fh, w, 300, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 300, 300, "write");
    pos_is(fh, o + 300, "after write");
    if (RT_OK(rio_file_iwrite(fh, w + 300, 50, MPI_INT, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_INT, 50, 50, "iwrite");
    }
    pos_is(fh, o + 500, "after iwrite");
    if (RT_OK(rio_file_write_all(fh, w + 500, 250, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 250, 250, "write_all");
    pos_is(fh, o + 750, "after write_all");
    if (RT_OK(rio_file_write_all_begin(fh, w + 750, 250, MPI_BYTE)))
        if (RT_OK(rio_file_write_all_end(fh, w + 750, &st)))
            CHECK_STATUS(&st, MPI_BYTE, 250, 250, "write_all_end");
    pos_is(fh, o + B, "after write_all_begin/end");

    /* 6: individual pointer moved relative to itself. */
    o = slot(6) + me * B;
    rt_fill(w, B, me, o);
    RT_OK(rio_file_seek(fh, o - (slot(5) + me * B + B), MPI_SEEK_CUR));
    pos_is(fh, o, "seek CUR");
    if (RT_OK(rio_file_iwrite_all(fh, w, B / 2, MPI_BYTE, &rq[0]))) {
        test_until_done(&rq[0], &st, "iwrite_all + MPI_Test");
        CHECK_STATUS(&st, MPI_BYTE, B / 2, B / 2, "iwrite_all");
    }
    if (RT_OK(rio_file_write_all(fh, w + B / 2, B / 2, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, B / 2, B / 2, "write_all after iwrite_all");
    pos_is(fh, o + B, "after iwrite_all + write_all");
    MPI_Offset bo = -1;
    RT_OK(rio_file_get_byte_offset(fh, o + 17, &bo));
    CHECK(bo == o + 17, "get_byte_offset(%lld) in the default view gave %lld", (long long)o + 17,
          (long long)bo);

    /* 7: shared pointer, one record each, any order. */
    RT_OK(rio_file_seek_shared(fh, slot(7), MPI_SEEK_SET));
    shared_is(fh, slot(7), "seek_shared SET");
    MPI_Barrier(MPI_COMM_WORLD); /* all have looked before anyone moves it */
    rec_fill(w, me);
    if (RT_OK(rio_file_write_shared(fh, w, B, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, B, B, "write_shared");
    MPI_Barrier(MPI_COMM_WORLD);
    shared_is(fh, slot(8), "after write_shared by all");
    MPI_Barrier(MPI_COMM_WORLD);
    /* the individual pointer is not moved by shared access */
    pos_is(fh, slot(6) + me * B + B, "after write_shared");

    /* 8: nonblocking shared. */
    if (RT_OK(rio_file_iwrite_shared(fh, w, B / 4, MPI_INT, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_INT, B / 4, B / 4, "iwrite_shared");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    shared_is(fh, slot(9), "after iwrite_shared by all");

    /* 9: ordered, sizes differing per rank. */
    o = ooff(me);
    rt_fill(w, (size_t)olen(me), me, o);
    if (RT_OK(rio_file_write_ordered(fh, w, olen(me), MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, olen(me), olen(me), "write_ordered");
    shared_is(fh, ooff(rt_nprocs), "after write_ordered");

    /* 10: split ordered. */
    RT_OK(rio_file_seek_shared(fh, slot(10), MPI_SEEK_SET));
    o = slot(10) + me * B;
    rt_fill(w, B, me, o);
    if (RT_OK(rio_file_write_ordered_begin(fh, w, B, MPI_BYTE)))
        if (RT_OK(rio_file_write_ordered_end(fh, w, &st)))
            CHECK_STATUS(&st, MPI_BYTE, B, B, "write_ordered_end");
    shared_is(fh, slot(11), "after write_ordered_begin/end");
    (void)sts;
}

static void reads(rio_file *fh)
{
    unsigned char r[B];
    MPI_Status st, sts[2];
    MPI_Request rq[2];
    const int p = peer;
    MPI_Offset o;

    /* 0 */
    o = slot(0) + p * B;
    memset(r, 0, B);
    if (RT_OK(rio_file_read_at(fh, o, r, B / 4, MPI_INT, &st))) {
        CHECK_STATUS(&st, MPI_INT, B / 4, B / 4, "read_at");
        CHECK_PAT(r, B, p, o, "read_at of rank %d's write_at block", p);
    }
    /* 1 */
    o = slot(1) + p * B;
    memset(r, 0, B);
    if (RT_OK(rio_file_read_at_all(fh, o, r, B, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, B, B, "read_at_all");
        CHECK_PAT(r, B, p, o, "read_at_all of rank %d's write_at_all block", p);
    }
    /* 2: two iread_at halves, completed together by MPI_Waitall */
    o = slot(2) + p * B;
    memset(r, 0, B);
    if (RT_OK(rio_file_iread_at(fh, o, r, B / 2, MPI_BYTE, &rq[0])) &&
        RT_OK(rio_file_iread_at(fh, o + B / 2, r + B / 2, B / 8, MPI_INT, &rq[1]))) {
        MPI_Waitall(2, rq, sts);
        CHECK_STATUS(&sts[0], MPI_BYTE, B / 2, B / 2, "iread_at (Waitall, first)");
        CHECK_STATUS(&sts[1], MPI_INT, B / 8, B / 8, "iread_at (Waitall, second)");
        CHECK_PAT(r, B, p, o, "iread_at of rank %d's iwrite_at block", p);
    }
    /* 3 */
    o = slot(3) + p * B;
    memset(r, 0, B);
    if (RT_OK(rio_file_iread_at_all(fh, o, r, B, MPI_BYTE, &rq[0]))) {
        test_until_done(&rq[0], &st, "iread_at_all + MPI_Test");
        CHECK_STATUS(&st, MPI_BYTE, B, B, "iread_at_all");
        CHECK_PAT(r, B, p, o, "iread_at_all of rank %d's block", p);
    }
    /* 4 */
    o = slot(4) + p * B;
    memset(r, 0, B);
    if (RT_OK(rio_file_read_at_all_begin(fh, o, r, B / 4, MPI_INT)) &&
        RT_OK(rio_file_read_at_all_end(fh, r, &st))) {
        CHECK_STATUS(&st, MPI_INT, B / 4, B / 4, "read_at_all_end");
        CHECK_PAT(r, B, p, o, "read_at_all_begin/end of rank %d's block", p);
    }
    /* 5: individual pointer */
    o = slot(5) + p * B;
    memset(r, 0, B);
    RT_OK(rio_file_seek(fh, o, MPI_SEEK_SET));
    if (RT_OK(rio_file_read(fh, r, 400, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 400, 400, "read");
    pos_is(fh, o + 400, "after read");
    if (RT_OK(rio_file_iread(fh, r + 400, 100, MPI_BYTE, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_BYTE, 100, 100, "iread");
    }
    if (RT_OK(rio_file_read_all(fh, r + 500, 250, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 250, 250, "read_all");
    if (RT_OK(rio_file_read_all_begin(fh, r + 750, 250, MPI_BYTE)) &&
        RT_OK(rio_file_read_all_end(fh, r + 750, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 250, 250, "read_all_end");
    pos_is(fh, o + B, "after read, iread, read_all, read_all_begin/end");
    CHECK_PAT(r, B, p, o, "individual-pointer reads of rank %d's block", p);

    /* 6: seek END, then back with a negative SEEK_CUR */
    MPI_Offset end = slot(NSLOT);
    RT_OK(rio_file_seek(fh, 0, MPI_SEEK_END));
    pos_is(fh, end, "seek END");
    o = slot(6) + p * B;
    RT_OK(rio_file_seek(fh, -(end - o), MPI_SEEK_CUR));
    pos_is(fh, o, "seek CUR backwards");
    memset(r, 0, B);
    if (RT_OK(rio_file_iread_all(fh, r, B, MPI_BYTE, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_BYTE, B, B, "iread_all");
        CHECK_PAT(r, B, p, o, "iread_all of rank %d's block", p);
    }
    RT_OK(rio_file_seek(fh, -10, MPI_SEEK_END));
    pos_is(fh, end - 10, "seek END -10");

    /* 7, 8: shared pointer reads get distinct records */
    int owners[2], all[2 * 64];
    RT_OK(rio_file_seek_shared(fh, slot(7), MPI_SEEK_SET));
    memset(r, 0, B);
    owners[0] = -1;
    if (RT_OK(rio_file_read_shared(fh, r, B, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, B, B, "read_shared");
        owners[0] = rec_owner(r);
        CHECK(owners[0] >= 0, "read_shared got bytes that are no rank's record");
    }
    memset(r, 0, B);
    owners[1] = -1;
    if (RT_OK(rio_file_iread_shared(fh, r, B, MPI_BYTE, &rq[0]))) {
        MPI_Wait(&rq[0], &st);
        CHECK_STATUS(&st, MPI_BYTE, B, B, "iread_shared");
        owners[1] = rec_owner(r);
        CHECK(owners[1] >= 0, "iread_shared got bytes that are no rank's record");
    }
    if (rt_nprocs <= 64) {
        MPI_Allgather(owners, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
        /* All 2n shared reads together cover slots 7 and 8, each record once
         * per slot; so every rank's record is read exactly twice. */
        for (int q = 0; q < rt_nprocs; q++) {
            int seen = 0;
            for (int i = 0; i < 2 * rt_nprocs; i++)
                seen += all[i] == q;
            CHECK(seen == 2, "shared reads returned rank %d's record %d times, expected 2", q,
                  seen);
        }
    }
    shared_is(fh, slot(9), "after all shared reads");

    /* 9, 10: ordered */
    RT_OK(rio_file_seek_shared(fh, slot(9), MPI_SEEK_SET));
    memset(r, 0, B);
    o = ooff(rt_rank);
    if (RT_OK(rio_file_read_ordered(fh, r, olen(rt_rank), MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, olen(rt_rank), olen(rt_rank), "read_ordered");
        CHECK_PAT(r, (size_t)olen(rt_rank), rt_rank, o, "read_ordered");
    }
    RT_OK(rio_file_seek_shared(fh, slot(10), MPI_SEEK_SET));
    memset(r, 0, B);
    o = slot(10) + rt_rank * B;
    if (RT_OK(rio_file_read_ordered_begin(fh, r, B / 4, MPI_INT)) &&
        RT_OK(rio_file_read_ordered_end(fh, r, &st))) {
        CHECK_STATUS(&st, MPI_INT, B / 4, B / 4, "read_ordered_end");
        CHECK_PAT(r, B, rt_rank, o, "read_ordered_begin/end");
    }
    shared_is(fh, slot(11), "after read_ordered_begin/end");
}

/* The whole file through POSIX. */
static void verify_file(void)
{
    if (rt_rank != 0)
        return;
    long long len = 0;
    unsigned char *f = RT_SLURP(path, &len);
    if (!f)
        return;
    CHECK(len == slot(NSLOT), "file size %lld, expected %lld", len, (long long)slot(NSLOT));
    for (int s = 0; s < NSLOT && slot(s + 1) <= len; s++) {
        for (int q = 0; q < rt_nprocs; q++) {
            MPI_Offset o = slot(s) + q * B;
            if (s == 7 || s == 8)
                continue;
            if (s == 9) {
                CHECK_PAT(f + ooff(q), (size_t)olen(q), q, ooff(q),
                          "file: write_ordered block of rank %d", q);
                continue;
            }
            CHECK_PAT(f + o, B, q, o, "file: slot %d, block of rank %d", s, q);
        }
        if (s == 7 || s == 8) {
            int count[64] = {0};
            for (int k = 0; k < rt_nprocs; k++) {
                int w = rec_owner(f + slot(s) + k * B);
                CHECK(w >= 0, "file: shared slot %d block %d is no rank's record", s, k);
                if (w >= 0 && w < 64)
                    count[w]++;
            }
            for (int q = 0; q < rt_nprocs && q < 64; q++)
                CHECK(count[q] == 1, "file: shared slot %d holds rank %d's record %d times", s, q,
                      count[q]);
        }
    }
    free(f);
}

/* Reads that meet end of file. */
static void eof_reads(rio_file *fh)
{
    unsigned char r[B];
    MPI_Status st;
    const MPI_Offset F = slot(NSLOT);
    const int last = rt_nprocs - 1; /* owner of the file's last block (slot 10) */

    memset(r, 0, B);
    if (RT_OK(rio_file_read_at(fh, F - 100, r, 400, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, 100, 100, "read_at over end of file");
        CHECK_PAT(r, 100, last, F - 100, "short read_at");
    }
    /* A partial derived type: 20 bytes = 5 ints = 1 2/3 of contiguous(3, int). */
    MPI_Datatype t3;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    memset(r, 0, B);
    if (RT_OK(rio_file_read_at(fh, F - 20, r, 2, t3, &st))) {
        CHECK_STATUS(&st, t3, MPI_UNDEFINED, 5, "read_at of 2 x contiguous(3,int) with 20 bytes left");
        CHECK_STATUS(&st, MPI_INT, 5, 5, "same status counted in MPI_INT");
        CHECK_PAT(r, 20, last, F - 20, "partial derived-type read");
    }
    MPI_Type_free(&t3);
    /* Entirely past end of file. */
    if (RT_OK(rio_file_read_at(fh, F + 10, r, 10, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 0, 0, "read_at past end of file");
    /* Collective, a different short count on each rank. */
    int want = 10 * (rt_rank + 1);
    memset(r, 0, B);
    if (RT_OK(rio_file_read_at_all(fh, F - want, r, 100, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, want, want, "read_at_all over end of file");
        CHECK_PAT(r, (size_t)want, last, F - want, "short read_at_all");
    }
    /* The individual pointer moves by what was read. */
    RT_OK(rio_file_seek(fh, F - 50, MPI_SEEK_SET));
    memset(r, 0, B);
    if (RT_OK(rio_file_read(fh, r, 100, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, 50, 50, "read over end of file");
        CHECK_PAT(r, 50, last, F - 50, "short read");
    }
    pos_is(fh, F, "after short read");
    if (RT_OK(rio_file_read(fh, r, 100, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 0, 0, "read at end of file");
    pos_is(fh, F, "after read at end of file");

    /* The shared pointer from the end of the file. */
    RT_OK(rio_file_seek_shared(fh, -10, MPI_SEEK_END));
    shared_is(fh, F - 10, "seek_shared END -10");
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Zero counts (some ranks of a collective only) and MPI_BOTTOM with a
 * type of absolute addresses, past the end of the verified file. */
static void zero_and_bottom(rio_file *fh)
{
    const MPI_Offset F = slot(NSLOT);
    unsigned char w[16], r[16];
    MPI_Status st;
    MPI_Offset sz = -1;

    memset(w, 0, sizeof w);
    if (RT_OK(rio_file_write_at(fh, 5, w, 0, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 0, 0, "write_at of 0 bytes");
    RT_OK(rio_file_seek(fh, 7, MPI_SEEK_SET));
    if (RT_OK(rio_file_write(fh, w, 0, MPI_INT, &st)))
        CHECK_STATUS(&st, MPI_INT, 0, 0, "write of 0 ints");
    pos_is(fh, 7, "after a write of 0 ints");
    RT_OK(rio_file_get_size(fh, &sz));
    CHECK(sz == F, "zero-count writes changed the size to %lld", (long long)sz);

    /* Collective with rank 0 moving nothing. */
    MPI_Offset o = F + 16 * rt_rank;
    int n = rt_rank == 0 ? 0 : 16;
    rt_fill(w, 16, rt_rank, o);
    if (RT_OK(rio_file_write_at_all(fh, o, w, n, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, n, n, "write_at_all, %d bytes on this rank", n);
    sync_barrier(fh);
    memset(r, 0, sizeof r);
    int p = peer == 0 ? (rt_nprocs > 1 ? 1 : 0) : peer;
    int pn = p == 0 ? 0 : 16;
    MPI_Offset po = F + 16 * p;
    if (RT_OK(rio_file_read_at_all(fh, po, r, rt_rank == 0 ? 0 : pn, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, rt_rank == 0 ? 0 : pn, rt_rank == 0 ? 0 : pn,
                     "read_at_all, rank 0 reading nothing");
        if (rt_rank != 0)
            CHECK_PAT(r, (size_t)pn, p, po, "read_at_all of rank %d's 16 bytes", p);
    }

    /* MPI_BOTTOM: two separate arrays described by absolute addresses. */
    int a[8], b[8], ra[8], rb[8];
    rt_fill(a, sizeof a, rt_rank, 0);
    rt_fill(b, sizeof b, rt_rank + 500, 0);
    MPI_Aint ad[2];
    int bl[2] = {8, 8};
    MPI_Datatype abs_w, abs_r;
    MPI_Get_address(a, &ad[0]);
    MPI_Get_address(b, &ad[1]);
    MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &abs_w);
    MPI_Type_commit(&abs_w);
    MPI_Get_address(ra, &ad[0]);
    MPI_Get_address(rb, &ad[1]);
    MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &abs_r);
    MPI_Type_commit(&abs_r);
    MPI_Offset g = F + 16 * rt_nprocs + 64 * rt_rank;
    if (RT_OK(rio_file_write_at(fh, g, MPI_BOTTOM, 1, abs_w, &st)))
        CHECK_STATUS(&st, abs_w, 1, 16, "write_at from MPI_BOTTOM");
    memset(ra, 0, sizeof ra);
    memset(rb, 0, sizeof rb);
    if (RT_OK(rio_file_read_at(fh, g, MPI_BOTTOM, 1, abs_r, &st))) {
        CHECK_STATUS(&st, abs_r, 1, 16, "read_at into MPI_BOTTOM");
        CHECK_BYTES(ra, a, NULL, sizeof a, "MPI_BOTTOM: first array read back");
        CHECK_BYTES(rb, b, NULL, sizeof b, "MPI_BOTTOM: second array read back");
    }
    unsigned char f[64];
    CHECK(rt_pread(path, f, 64, g) == 64, "POSIX pread of the MPI_BOTTOM write");
    CHECK_BYTES(f, a, NULL, 32, "MPI_BOTTOM: file bytes of the first array");
    CHECK_BYTES(f + 32, b, NULL, 32, "MPI_BOTTOM: file bytes of the second array");
    MPI_Type_free(&abs_w);
    MPI_Type_free(&abs_r);
}

/* The last rank comes LATE seconds late to a collective write; every
 * other rank waits for it in the agreement, and rio_stats says so.  The
 * independent strategy makes the agreement the call's only communication
 * once the first collective call has set the file's engine up. */
#define LATE 0.03
static void agreement_time(void)
{
    char p[4096];
    rio_file *fh = RIO_FILE_NULL;
    unsigned char w[B];
    struct rio_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1}, s2 = {.size = sizeof s2};
    memset(w, 0x3C, sizeof w);
    rt_path(p, sizeof p, "rw-agree");
    if (rt_rank == 0)
        unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "resonio_strategy", "independent");
    int opened =
        RT_OK(rio_file_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    if (!opened)
        return;
    RT_OK(rio_stats_get(fh, &s0));
    RT_OK(rio_file_write_at(fh, (MPI_Offset)rt_rank * B, w, B, MPI_BYTE, MPI_STATUS_IGNORE));
    RT_OK(rio_stats_get(fh, &s1));
    CHECK(s0.time_agree == 0 && s1.time_agree == 0,
          "time_agree %g after open and %g after an independent write, expected 0", s0.time_agree,
          s1.time_agree);
    RT_OK(rio_file_write_at_all(fh, (MPI_Offset)(rt_nprocs + rt_rank) * B, w, B, MPI_BYTE,
                                MPI_STATUS_IGNORE));
    RT_OK(rio_stats_get(fh, &s1));
    CHECK(s1.time_agree > 0, "time_agree did not grow in a collective write (%g s)",
          s1.time_agree);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == rt_nprocs - 1) {
        struct timespec late = {0, (long)(LATE * 1e9)};
        nanosleep(&late, NULL);
    }
    RT_OK(rio_file_write_at_all(fh, (MPI_Offset)(2 * rt_nprocs + rt_rank) * B, w, B, MPI_BYTE,
                                MPI_STATUS_IGNORE));
    RT_OK(rio_stats_get(fh, &s2));
    double waited = s2.time_agree - s1.time_agree;
    CHECK(rt_rank == rt_nprocs - 1 || waited >= LATE / 2,
          "waited %g s in the agreement for a rank %g s late", waited, LATE);
    RT_OK(rio_file_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        RT_OK(rio_file_delete(p, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    rio_file *fh = RIO_FILE_NULL;
    rt_init(&argc, &argv);
    peer = (rt_rank + 1) % rt_nprocs;
    rt_path(path, sizeof path, "rw");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh))) {
        writes(fh);
        sync_barrier(fh);
        reads(fh);
        verify_file();
        eof_reads(fh);
        zero_and_bottom(fh);
        RT_OK(rio_file_close(&fh));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        RT_OK(rio_file_delete(path, MPI_INFO_NULL));
    agreement_time();
    return rt_finish();
}

/*
 * t_count.c — the counting layer (tools/resonio-count) against patterns
 * whose messages are known by hand.  2 ranks; the layer is linked in, as a
 * profiling library is.
 *
 * 1. Hand-made messages: inside a window rank 0 sends data (tag 12 and an
 *    application's tag 7, as bytes), metadata (tags 11 and 13, an empty
 *    tag 12, and two MPI_OFFSETs with tag 7) and one broadcast of 4 bytes
 *    (a collective's message, tag < 0); rank 1 sends nothing but what the
 *    broadcast needs (nothing, at 2 ranks).  A message sent outside the
 *    window is not counted, and a read zeroes the counts.
 * 2. resonio, two_phase with one aggregator (cb_nodes 1: rank 0): each rank
 *    writes 64 KiB at rank * 64 KiB.  Rank 1's block reaches the aggregator
 *    in one data message of exactly 64 KiB; rank 0 sends no data.  The read
 *    is the reverse.  Every byte is checked, in the file too.
 * 3. native (OMPIO, Open MPI's vulcan collective module with one
 *    aggregator, forced through OMPI_MCA_ settings by the test): the same
 *    pattern; rank 1's 64 KiB reaches rank 0 as data, and rank 0 sends no
 *    data to rank 1 while writing (the aggregator's message to itself is
 *    not counted).  OMPIO's read path also sends a 32-byte index message
 *    in a type of its own, which the layer counts as data; its read is
 *    only printed.
 */
#include "resonio.h"
#include "../mpi/rtest.h"
#include "../../tools/resonio-count/rio_count.h"

static struct rio_count take(void)
{
    struct rio_count c;
    memset(&c, 0, sizeof c);
    MPI_Pcontrol(2, &c);
    return c;
}

static void expect(const struct rio_count *c, int cls, long long msgs, long long bytes,
                   const char *what)
{
    static const char *const name[] = {"collective", "metadata", "data"};
    CHECK(c->msgs[cls] == msgs && c->bytes[cls] == bytes,
          "%s: rank %d sent %lld %s messages, %lld bytes; expected %lld, %lld", what, rt_rank,
          c->msgs[cls], name[cls], c->bytes[cls], msgs, bytes);
}

static void hand_made(void)
{
    char buf[256] = {0};
    int other = 1 - rt_rank;
    /* outside the window: not counted */
    if (rt_rank == 0)
        MPI_Send(buf, 10, MPI_BYTE, other, 7, MPI_COMM_WORLD);
    else
        MPI_Recv(buf, 10, MPI_BYTE, other, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    struct rio_count c = take();
    CHECK(c.magic == RIO_COUNT_MAGIC && c.seen_pml,
          "the counting layer did not answer (magic %x, seen_pml %d)", c.magic, c.seen_pml);

    MPI_Pcontrol(1);
    static const struct {
        int tag, n, offsets;
    } sends[] = {{12, 100, 0}, {7, 50, 0}, {11, 16, 0}, {13, 0, 0}, {12, 0, 0}, {7, 2, 1}};
    for (int i = 0; i < 6; i++) {
        MPI_Datatype t = sends[i].offsets ? MPI_OFFSET : MPI_BYTE;
        if (rt_rank == 0)
            MPI_Send(buf, sends[i].n, t, other, sends[i].tag, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, sends[i].n, t, other, sends[i].tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int v = 42;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD); /* outside the window again */
    c = take();
    if (rt_rank == 0) {
        expect(&c, RIO_COUNT_DATA, 2, 150, "hand-made");
        expect(&c, RIO_COUNT_META, 4, 32, "hand-made");
        expect(&c, RIO_COUNT_COLL, 1, 4, "hand-made");
    } else {
        for (int k = 0; k < RIO_COUNT_NCLASS; k++)
            expect(&c, k, 0, 0, "hand-made");
    }
    c = take();
    for (int k = 0; k < RIO_COUNT_NCLASS; k++)
        expect(&c, k, 0, 0, "a second read");
}

#define BLOCK (64 << 10)

/* Write or read this rank's block collectively through either API, the
 * call alone in the counting window (failures are counted). */
struct api {
    const char *name;
    void (*run)(const char *path, unsigned char *buf, int write);
};

static void run_resonio(const char *path, unsigned char *buf, int write)
{
    MPI_Info info = rt_info("resonio_strategy", "two_phase", "cb_nodes", "1", "cb_buffer_size",
                            "1048576", (char *)NULL);
    rio_file *fh;
    int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
    int ok = RT_OK(rio_file_open(MPI_COMM_WORLD, path, amode, info, &fh));
    MPI_Info_free(&info);
    if (!ok)
        return;
    MPI_Offset off = (MPI_Offset)rt_rank * BLOCK;
    MPI_Pcontrol(1);
    int rc = write ? rio_file_write_at_all(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE)
               : rio_file_read_at_all(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Pcontrol(0);
    RT_OK(rc);
    RT_OK(rio_file_close(&fh));
}

static void run_native(const char *path, unsigned char *buf, int write)
{
    MPI_File fh;
    int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
    if (!RT_OK(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh)))
        return;
    MPI_Offset off = (MPI_Offset)rt_rank * BLOCK;
    MPI_Pcontrol(1);
    int rc = write ? MPI_File_write_at_all(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE)
               : MPI_File_read_at_all(fh, off, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Pcontrol(0);
    RT_OK(rc);
    RT_OK(MPI_File_close(&fh));
}

static void one_aggregator(const struct api *a, int check_read)
{
    char path[4096];
    char suffix[32];
    snprintf(suffix, sizeof suffix, "count.%s", a->name);
    rt_path(path, sizeof path, suffix);
    if (rt_rank == 0)
        unlink(path);
    unsigned char *buf = malloc(BLOCK), *back = malloc(BLOCK);
    rt_fill(buf, BLOCK, rt_rank, (long long)rt_rank * BLOCK);
    memset(back, 0, BLOCK);
    MPI_Barrier(MPI_COMM_WORLD);
    take();
    a->run(path, buf, 1);
    struct rio_count w = take();
    MPI_Barrier(MPI_COMM_WORLD);
    a->run(path, back, 0);
    struct rio_count r = take();
    char what[64];
    snprintf(what, sizeof what, "%s write", a->name);
    expect(&w, RIO_COUNT_DATA, rt_rank == 1, rt_rank == 1 ? BLOCK : 0, what);
    snprintf(what, sizeof what, "%s read", a->name);
    if (check_read)
        expect(&r, RIO_COUNT_DATA, rt_rank == 0, rt_rank == 0 ? BLOCK : 0, what);
    rt_note("%s, rank %d: write: %lld/%lld/%lld messages (collective/metadata/data), "
            "%lld/%lld/%lld bytes; read: %lld/%lld/%lld messages, %lld/%lld/%lld bytes",
            a->name, rt_rank, w.msgs[0], w.msgs[1], w.msgs[2], w.bytes[0], w.bytes[1],
            w.bytes[2], r.msgs[0], r.msgs[1], r.msgs[2], r.bytes[0], r.bytes[1], r.bytes[2]);
    CHECK_PAT(back, BLOCK, rt_rank, (long long)rt_rank * BLOCK, "%s: read back", a->name);
    memset(back, 0, BLOCK);
    CHECK(rt_pread(path, back, BLOCK, (long long)rt_rank * BLOCK) == BLOCK, "short POSIX read");
    CHECK_PAT(back, BLOCK, rt_rank, (long long)rt_rank * BLOCK, "%s: the file", a->name);
    free(buf);
    free(back);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    if (rt_nprocs != 2) {
        CHECK(0, "t_count runs at 2 ranks, not %d", rt_nprocs);
        return rt_finish();
    }
    hand_made();
    static const struct api resonio = {"resonio", run_resonio}, native = {"native", run_native};
    one_aggregator(&resonio, 1);
    /* OMPIO's read path keeps its own aggregation rules; only its write is
     * checked by hand */
    one_aggregator(&native, 0);
    return rt_finish();
}

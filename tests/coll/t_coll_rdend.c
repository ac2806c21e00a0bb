/*
 * t_coll_rdend.c — a collective read that reaches end of file modifies
 * only the bytes it read, under one strategy per run (-strategy
 * two_phase|every_rank|resonant|stripe|node_first|target_first|sized|
 * direct|independent|auto).
 *
 * Why: MPI's rule for receive buffers (only the locations of the data
 * received are modified), to which the I/O chapter's data access
 * conventions point, holds for reads too; ROMIO's rd_end test checks it.
 * An aggregator that zero-fills its round past end of file and ships the
 * whole round overwrites the tail of the caller's buffer (and the gaps of a
 * noncontiguous memory type after the last byte read) with zeros, while
 * the status still counts the bytes below end of file.
 *
 * Under auto, sized is no candidate here (its one aggregator for a call
 * this small is two_phase's one for the one node); it runs under its own
 * -strategy.
 *
 * Cases (every buffer is pre-filled with a pattern of its own, the
 * sentinel, which every byte not read must keep; the files are written
 * with POSIX calls and checked again after the reads, which must leave
 * them as they were):
 *   short   a file of 5 bytes; each rank reads 10 bytes at offset 0
 *           (bytes 0..4 the file's, 5..9 the sentinel, count 5), then at
 *           offset 3 * rank (a rank past the end reads nothing)
 *   il_*    an interleaved view (etype MPI_BYTE; rank r sees blocks of BL
 *           bytes every P * BL, from block r) of a file whose end falls
 *           inside rank 1's last block: rank 0 reads all NB blocks,
 *           rank 1 NB - 1 blocks and CUT bytes, the others NB - 1 blocks.
 *           Memory: contiguous (il_contig); runs of 3 bytes every 5
 *           (il_tiny, which the engine packs); runs of 600 every 750 with
 *           cb_buffer_size 4099 (il_runs: not packed, many rounds).  The
 *           cut falls inside a memory run in both.
 * Each case runs through all six collective read forms: read_all,
 * read_at_all, iread_all + MPI_Wait, iread_at_all + MPI_Wait,
 * read_all_begin/end and read_at_all_begin/end.  The files carry a
 * striping layout (4096 x 2) so that every strategy applies.
 *
 * Under auto the whole sequence runs rio_strategy_count() + 1 times on the same
 * handles with resonio_select_calls=1, resonio_select_prune=0 and
 * resonio_select_reuse=disable: each call signature's examination runs
 * every candidate once, and every strategy must have run at least once
 * in each case (rio_coll_last).
 */
#include "ctest_util.h"

#include <signal.h>

#define SHORT_LEN 5   /* the short file's bytes */
#define SHORT_READ 10 /* what each rank asks for */
#define NFORMS 6

static const char *strategy;
#define NCASES 4 /* short and the three interleaved ones */
/* per case, strategies that ran (rank 0's view), by rio_strategy_name's
 * index; the selector's candidate arrays hold every strategy */
static int seen[NCASES][RIO_SELECT_MAX_CAND];
/* per case, strategies some call signature of the file had as candidates */
static int cand[NCASES][RIO_SELECT_MAX_CAND];

/* Sets row[i] where strategy i (rio_strategy_name) is name. */
static void mark(int *row, const char *name)
{
    for (int i = 0; i < rio_strategy_count() && i < RIO_SELECT_MAX_CAND; i++)
        if (!strcmp(name, rio_strategy_name(i)))
            row[i] = 1;
}

/* Marks in cand[cs] the candidates of every signature fh's selector knows. */
static void note_candidates(rio_file *fh, int cs)
{
    int n = 0;
    if (!RT_OK(rio_select_count(fh, &n)))
        return;
    for (int k = 0; k < n; k++) {
        struct rio_select_info si;
        si.size = sizeof si;
        if (!RT_OK(rio_select_get(fh, k, &si)))
            continue;
        for (int c = 0; c < si.ncand && c < RIO_SELECT_MAX_CAND; c++)
            mark(cand[cs], si.cand[c]);
    }
}

static const char *const form_names[NFORMS] = {
    "read_all", "read_at_all", "iread_all", "iread_at_all", "read_all_begin/end",
    "read_at_all_begin/end"};

/* The sentinel of buffer byte k on this rank: neither zero throughout nor
 * the file's pattern. */
static unsigned char sentinel(long long k)
{
    return pat(100 + rt_rank, k);
}

/* One collective read of count items of type at view offset off (etypes)
 * by form f; st receives the status. */
static int read_form(rio_file *fh, int f, MPI_Offset off, void *buf, int count, MPI_Datatype type,
                     MPI_Status *st)
{
    MPI_Request req;
    int rc;
    switch (f) {
    case 0:
        rc = rio_file_seek(fh, off, MPI_SEEK_SET);
        return rc ? rc : rio_file_read_all(fh, buf, count, type, st);
    case 1:
        return rio_file_read_at_all(fh, off, buf, count, type, st);
    case 2:
        rc = rio_file_seek(fh, off, MPI_SEEK_SET);
        if (!rc)
            rc = rio_file_iread_all(fh, buf, count, type, &req);
        return rc ? rc : MPI_Wait(&req, st);
    case 3:
        rc = rio_file_iread_at_all(fh, off, buf, count, type, &req);
        return rc ? rc : MPI_Wait(&req, st);
    case 4:
        rc = rio_file_seek(fh, off, MPI_SEEK_SET);
        if (!rc)
            rc = rio_file_read_all_begin(fh, buf, count, type);
        return rc ? rc : rio_file_read_all_end(fh, buf, st);
    default:
        rc = rio_file_read_at_all_begin(fh, off, buf, count, type);
        return rc ? rc : rio_file_read_at_all_end(fh, buf, st);
    }
}

/* The strategy the last call ran: counted, and under a forced strategy
 * it must be that one. */
static void note_strategy(rio_file *fh, int cs, const char *what)
{
    struct rio_coll_info in;
    if (!ct_last(fh, &in))
        return;
    mark(seen[cs], in.strategy);
    if (strcmp(strategy, "auto"))
        CHECK(!strcmp(in.strategy, strategy), "%s: ran %s, forced %s (reason \"%s\")", what,
              in.strategy, strategy, in.reason);
}

/*
 * A read of nmem memory bytes (buf, count items of type), of which the
 * bytes at memory offsets moff[s] for s < got are file bytes fbyte[s]:
 * those must hold them, every other byte its sentinel, and the status
 * must count got bytes.
 */
static void check_read(const unsigned char *buf, size_t nmem, const long long *moff,
                       const unsigned char *fbyte, long long got, const MPI_Status *st,
                       const char *what)
{
    int cnt = -2;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    CHECK(cnt == got, "%s: status counts %d bytes, expected %lld", what, cnt, got);
    unsigned char *exp = malloc(nmem ? nmem : 1);
    for (size_t k = 0; k < nmem; k++)
        exp[k] = sentinel((long long)k);
    for (long long s = 0; s < got; s++)
        exp[moff[s]] = fbyte[s];
    CHECK_BYTES(buf, exp, NULL, nmem,
                "%s: %lld bytes read, the rest of the buffer and the memory type's gaps untouched",
                what, got);
    free(exp);
}

/* The file must still be len bytes of pat(0, o). */
static void check_file(const char *path, long long len, const char *what)
{
    if (rt_rank != 0)
        return;
    long long n = -1;
    unsigned char *img = RT_SLURP(path, &n);
    CHECK(n == len, "%s: file is %lld bytes after the reads, expected %lld", what, n, len);
    if (img && n == len)
        CHECK_PAT(img, (size_t)n, 0, 0, "%s: file content after the reads", what);
    free(img);
}

/* A file of len bytes of pat(0, o), made by rank 0 with POSIX calls. */
static void make_file(const char *path, long long len)
{
    if (rt_rank == 0) {
        unsigned char *b = malloc((size_t)len);
        rt_fill(b, (size_t)len, 0, 0);
        unlink(path);
        CHECK(rt_pwrite_file(path, b, (size_t)len, 0, 1) == 0, "writing %s: %s", path,
              strerror(errno));
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static rio_file *open_file(const char *path, const char *cb)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", "4096",
                            "striping_factor", "2", "cb_buffer_size", cb,
                            "resonio_select_calls", "1", "resonio_select_prune", "0",
                            "resonio_select_reuse", "disable", NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    MPI_Info_free(&info);
    return RT_OK(rc) ? fh : RIO_FILE_NULL;
}

/* short: 10 bytes at offset 0 and at 3 * rank of a 5-byte file. */
static void run_short(rio_file *fh, int rep)
{
    unsigned char buf[SHORT_READ], fbyte[SHORT_READ];
    long long moff[SHORT_READ];
    char what[160];
    for (int k = 0; k < SHORT_READ; k++)
        moff[k] = k;
    for (int at = 0; at < 2; at++) {
        long long off = at ? 3LL * rt_rank : 0;
        long long got = SHORT_LEN - off < 0 ? 0 : rt_minll(SHORT_READ, SHORT_LEN - off);
        for (long long s = 0; s < got; s++)
            fbyte[s] = pat(0, off + s);
        for (int f = 0; f < NFORMS; f++) {
            snprintf(what, sizeof what, "[%s rep %d] short: %s of %d bytes at %lld", strategy,
                     rep, form_names[f], SHORT_READ, off);
            for (int k = 0; k < SHORT_READ; k++)
                buf[k] = sentinel(k);
            MPI_Status st;
            memset(&st, 0, sizeof st);
            if (RT_OK(read_form(fh, f, off, buf, SHORT_READ, MPI_BYTE, &st))) {
                check_read(buf, SHORT_READ, moff, fbyte, got, &st, what);
                note_strategy(fh, 0, what);
            }
        }
    }
}

/* The interleaved cases: blocks of BL bytes, NB per rank, the file ending
 * CUT bytes into rank 1's last block. */
struct il {
    const char *name;
    long long bl, nb, cut;
    int mrun, mstride; /* memory runs; 0: contiguous */
    const char *cb;    /* cb_buffer_size, NULL: default */
};

static const struct il ils[] = {
    {"il_contig", 6, 4, 4, 0, 0, NULL},
    {"il_tiny", 6, 4, 4, 3, 5, NULL},
    {"il_runs", 1000, 6, 457, 600, 750, "4099"},
};

static long long il_size(const struct il *c)
{
    return (c->nb - 1) * rt_nprocs * c->bl + (rt_nprocs > 1 ? c->bl + c->cut : c->cut);
}

static void run_il(const struct il *c, int cs, rio_file *fh, int rep)
{
    const int P = rt_nprocs;
    const long long n = c->nb * c->bl, size = il_size(c);
    long long *moff = malloc(sizeof *moff * (size_t)n);
    unsigned char *fbyte = malloc((size_t)n);
    long long got = 0;
    /* stream byte s: file byte (s / bl * P + rank) * bl + s % bl, memory
     * byte s / mrun * mstride + s % mrun; got: the stream below the end */
    for (long long s = 0; s < n; s++) {
        long long fo = (s / c->bl * P + rt_rank) * c->bl + s % c->bl;
        moff[s] = c->mrun ? s / c->mrun * c->mstride + s % c->mrun : s;
        fbyte[s] = fo < size ? pat(0, fo) : 0;
        if (fo < size) /* a prefix: views ascend */
            got = s + 1;
    }
    size_t nmem = c->mrun ? (size_t)((n / c->mrun - 1) * c->mstride + c->mrun) : (size_t)n;
    unsigned char *buf = malloc(nmem);
    MPI_Datatype ft, blk, mt = MPI_BYTE;
    int mcount = (int)n;
    MPI_Type_contiguous((int)c->bl, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)(P * c->bl), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&blk);
    if (c->mrun) {
        MPI_Type_vector((int)(n / c->mrun), c->mrun, c->mstride, MPI_BYTE, &mt);
        MPI_Type_commit(&mt);
        mcount = 1;
    }
    char what[160];
    if (RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * c->bl, MPI_BYTE, ft, "native",
                                MPI_INFO_NULL))) {
        for (int f = 0; f < NFORMS; f++) {
            snprintf(what, sizeof what, "[%s rep %d] %s: %s of %lld bytes (file %lld bytes)",
                     strategy, rep, c->name, form_names[f], n, size);
            for (size_t k = 0; k < nmem; k++)
                buf[k] = sentinel((long long)k);
            MPI_Status st;
            memset(&st, 0, sizeof st);
            if (RT_OK(read_form(fh, f, 0, buf, mcount, mt, &st))) {
                check_read(buf, nmem, moff, fbyte, got, &st, what);
                note_strategy(fh, cs, what);
            }
        }
    }
    if (c->mrun)
        MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    free(buf);
    free(fbyte);
    free(moff);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(240);
    strategy = ct_strategy_arg();
    unsetenv("RESONIO_PROFILE");
    const int nil = (int)(sizeof ils / sizeof ils[0]);
    _Static_assert(sizeof ils / sizeof ils[0] + 1 == NCASES, "NCASES: short and the ils");
    char spath[4200], ipath[sizeof ils / sizeof ils[0]][4200];
    rio_file *sfh, *ifh[sizeof ils / sizeof ils[0]];

    rt_path(spath, sizeof spath, "short");
    make_file(spath, SHORT_LEN);
    sfh = open_file(spath, NULL);
    for (int i = 0; i < nil; i++) {
        char sfx[32];
        snprintf(sfx, sizeof sfx, "%s", ils[i].name);
        rt_path(ipath[i], sizeof ipath[i], sfx);
        make_file(ipath[i], il_size(&ils[i]));
        ifh[i] = open_file(ipath[i], ils[i].cb);
    }

    CHECK(rio_strategy_count() <= RIO_SELECT_MAX_CAND, "%d strategies, more than %d",
          rio_strategy_count(), RIO_SELECT_MAX_CAND);
    int reps = strcmp(strategy, "auto") ? 1 : rio_strategy_count() + 1;
    for (int rep = 0; rep < reps; rep++) {
        if (sfh != RIO_FILE_NULL)
            run_short(sfh, rep);
        for (int i = 0; i < nil; i++)
            if (ifh[i] != RIO_FILE_NULL)
                run_il(&ils[i], 1 + i, ifh[i], rep);
    }

    if (!strcmp(strategy, "auto")) {
        if (sfh != RIO_FILE_NULL)
            note_candidates(sfh, 0);
        for (int i = 0; i < nil; i++)
            if (ifh[i] != RIO_FILE_NULL)
                note_candidates(ifh[i], 1 + i);
    }
    if (sfh != RIO_FILE_NULL)
        RT_OK(rio_file_close(&sfh));
    for (int i = 0; i < nil; i++)
        if (ifh[i] != RIO_FILE_NULL)
            RT_OK(rio_file_close(&ifh[i]));
    MPI_Barrier(MPI_COMM_WORLD);
    check_file(spath, SHORT_LEN, "short");
    for (int i = 0; i < nil; i++)
        check_file(ipath[i], il_size(&ils[i]), ils[i].name);

    /* auto: every strategy but sized was a candidate, and its examinations
     * ran every candidate */
    if (!strcmp(strategy, "auto") && rt_rank == 0)
        for (int cs = 0; cs < NCASES; cs++)
            for (int i = 0; i < rio_strategy_count() && i < RIO_SELECT_MAX_CAND; i++) {
                const char *name = rio_strategy_name(i), *cn = cs ? ils[cs - 1].name : "short";
                int want = strcmp(name, "sized") != 0;
                CHECK(cand[cs][i] == want, "auto: %s %s a candidate in case %s", name,
                      cand[cs][i] ? "was" : "was not", cn);
                CHECK(seen[cs][i] || !cand[cs][i],
                      "auto: %s never ran in %d repetitions of case %s", name, reps, cn);
            }

    alarm(0);
    if (rt_rank == 0) {
        unlink(spath);
        for (int i = 0; i < nil; i++)
            unlink(ipath[i]);
    }
    return rt_finish();
}

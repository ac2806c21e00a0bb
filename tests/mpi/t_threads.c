/*
 * t_threads.c — resonio called by several threads of each rank at once
 * (MPI_THREAD_MULTIPLE).
 *
 * The standard lets threads call MPI-IO concurrently as long as a file
 * handle used for collective calls is used by one thread at a time; a
 * handle may serve independent calls from several threads at once.
 * resonio's process-wide state (the allocator's pool, the datatype cache,
 * the selector's memory, the error codes and their texts) and a file's
 * counters are then touched by several threads at the same time.  Run
 * under ThreadSanitizer (run.sh test, build/tsan) any unguarded access
 * is reported; run plainly, the program checks what such a race would
 * break: bytes, counts and error texts.
 *
 * The MPI library must grant MPI_THREAD_MULTIPLE: if it does not, the
 * program fails (a test that cannot run must not look like a pass).
 *
 * With NT threads per rank (thread t of every rank uses the t-th duplicate
 * of MPI_COMM_WORLD, made beforehand by the main thread, so that no two
 * threads issue collectives on one communicator):
 *
 *   own handles  each thread opens NFILES files one after another, on its
 *                own communicator, each under another collective strategy
 *                (all of them and auto over the threads and files), and
 *                writes and reads them collectively through an
 *                interleaved view (a block of B bytes per rank, NB blocks),
 *                then independently, with the default view, an area of
 *                its own past the view's; every byte read is checked and,
 *                after close, every byte of the file.
 *   one handle   all threads share one file opened on MPI_COMM_WORLD and
 *                each writes and reads its own disjoint slots with
 *                write_at/read_at (a noncontiguous memory type every other
 *                call); the file is checked after close, and the file's
 *                counters must count every call of every thread.
 *   errors       all threads fail at once, ERR_ROUNDS times, on their own
 *                handles (a write_at at a negative offset of their own): a
 *                barrier of the threads separates failing from reading the
 *                texts, so every text is read while at most NT-1 other
 *                errors have happened since; each must name the thread's
 *                own file and offset and no other thread's.
 *
 * The byte at offset o that rank r's thread t writes is
 * pat(writer(r, t), o): a byte in the wrong place, of the wrong thread or
 * rank, or lost, shows.
 */
#include <pthread.h>

#include "resonio.h"
#include "rtest.h"

#define NT 4
#define NFILES 3
#define B 1024
#define NB 24
#define SLOT 4096     /* one independent write on the shared handle */
#define NSLOTS 32     /* per thread on the shared handle */
#define ERR_ROUNDS 40

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t err_barrier;
static MPI_Comm comms[NT];
static rio_file *shared_fh;

/* rt_fail counts and prints without a lock: the threads report through it
 * one at a time. */
#define TCHECK(cond, ...)                                   \
    do {                                                    \
        if (!(cond)) {                                      \
            pthread_mutex_lock(&report_lock);               \
            rt_fail(__FILE__, __LINE__, __VA_ARGS__);       \
            pthread_mutex_unlock(&report_lock);             \
        }                                                   \
    } while (0)
#define TOK(call) tok((call), #call, __LINE__)
static int tok(int code, const char *what, int line)
{
    if (code == MPI_SUCCESS)
        return 1;
    char s[MPI_MAX_ERROR_STRING];
    rt_errstr(code, s);
    pthread_mutex_lock(&report_lock);
    rt_fail(__FILE__, line, "%s failed: %s", what, s);
    pthread_mutex_unlock(&report_lock);
    return 0;
}

static int writer(int rank, int t)
{
    return rank * NT + t;
}

/* Own file f of thread t. */
static void own_path(char *out, size_t n, int t, int f)
{
    snprintf(out, n, "%s.t%d.f%d", rt_fname, t, f);
}

/* Bytes of the interleaved area and where the independent area starts. */
static long long view_bytes(void)
{
    return (long long)NB * B * rt_nprocs;
}

/* Expected byte at offset o of thread t's own file (both areas). */
static unsigned char own_expect(int t, long long o)
{
    if (o < view_bytes())
        return pat(writer((int)((o / B) % rt_nprocs), t), o);
    long long i = o - view_bytes();
    return pat(writer((int)(i / ((long long)NB * B)), t), o);
}

static int check_buf(const unsigned char *got, long long n, int w, long long first_off,
                     long long stride_blocks, const char *what, int t)
{
    /* got holds NB-block pieces read through the view, or one run */
    for (long long i = 0; i < n; i++) {
        long long o = stride_blocks ? first_off + (i / B) * stride_blocks * B + i % B
                                    : first_off + i;
        if (got[i] != pat(w, o)) {
            TCHECK(0, "thread %d: %s: byte %lld (file offset %lld) is %u, expected %u", t, what,
                   i, o, got[i], pat(w, o));
            return 1;
        }
    }
    return 0;
}

/* ---- own handles ------------------------------------------------------- */

static void own_file(int t, int f)
{
    const char *strategy = rt_strategy((t + f * NT) % RT_NSTRAT);
    char path[512];
    own_path(path, sizeof path, t, f);
    int w = writer(rt_rank, t);
    long long n = (long long)NB * B;
    unsigned char *out = malloc((size_t)n), *in = malloc((size_t)n);
    MPI_Info info = rt_info("resonio_strategy", strategy, NULL);
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)B * rt_nprocs, &ft);
    MPI_Type_commit(&ft);
    rio_file *fh = NULL;
    if (!out || !in) {
        TCHECK(0, "thread %d: out of memory", t);
        goto out;
    }
    if (rt_rank == 0)
        unlink(path); /* a longer file of an earlier run would keep its tail */
    MPI_Barrier(comms[t]);
    if (!TOK(rio_file_open(comms[t], path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh)))
        goto out;

    /* collective, through the interleaved view */
    MPI_Offset disp = (MPI_Offset)rt_rank * B;
    for (long long i = 0; i < n; i++)
        out[i] = pat(w, disp + (i / B) * rt_nprocs * B + i % B);
    memset(in, 0, (size_t)n);
    MPI_Status st;
    if (TOK(rio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL)) &&
        TOK(rio_file_write_at_all(fh, 0, out, (int)n, MPI_BYTE, &st)) &&
        TOK(rio_file_read_at_all(fh, 0, in, (int)n, MPI_BYTE, &st)))
        check_buf(in, n, w, disp, rt_nprocs, strategy, t);

    /* independent, default view: this rank's run past the view's area */
    MPI_Offset at = view_bytes() + (MPI_Offset)rt_rank * n;
    for (long long i = 0; i < n; i++)
        out[i] = pat(w, at + i);
    memset(in, 0, (size_t)n);
    if (TOK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)) &&
        TOK(rio_file_write_at(fh, at, out, (int)n, MPI_BYTE, &st)) &&
        TOK(rio_file_read_at(fh, at, in, (int)n, MPI_BYTE, &st)))
        check_buf(in, n, w, at, 0, "independent", t);
    TOK(rio_file_close(&fh));

    /* the file itself, once every rank has closed it */
    MPI_Barrier(comms[t]);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *all = rt_slurp(path, &len, __FILE__, __LINE__);
        long long want = view_bytes() + (long long)rt_nprocs * n;
        TCHECK(len == want, "thread %d: %s is %lld bytes, expected %lld", t, path, len, want);
        for (long long o = 0; all && o < len && o < want; o++)
            if (all[o] != own_expect(t, o)) {
                TCHECK(0, "thread %d: %s (%s): byte %lld is %u, expected %u", t, path, strategy,
                       o, all[o], own_expect(t, o));
                break;
            }
        free(all);
        unlink(path);
    }
out:
    MPI_Info_free(&info);
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
    free(out);
    free(in);
}

/* ---- errors at once on own handles --------------------------------------- */

static void errors(int t)
{
    char path[512];
    snprintf(path, sizeof path, "%s.t%d.err", rt_fname, t);
    rio_file *fh = NULL;
    int ok = TOK(rio_file_open(comms[t], path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                               &fh));
    char c = 'x';
    for (int k = 0; k < ERR_ROUNDS; k++) {
        MPI_Offset bad = -(MPI_Offset)(1000 * (t + 1) + k);
        int code = ok ? rio_file_write_at(fh, bad, &c, 1, MPI_BYTE, MPI_STATUS_IGNORE)
                      : MPI_SUCCESS;
        pthread_barrier_wait(&err_barrier); /* every thread has failed */
        if (ok) {
            char s[MPI_MAX_ERROR_STRING], mine[64];
            rt_errstr(code, s);
            snprintf(mine, sizeof mine, "%lld", (long long)bad);
            TCHECK(code != MPI_SUCCESS && rt_class(code) == MPI_ERR_ARG,
                   "thread %d: write_at at %lld: class %d, expected MPI_ERR_ARG", t,
                   (long long)bad, rt_class(code));
            TCHECK(strstr(s, path) && strstr(s, mine),
                   "thread %d: the message of its error does not name its file %s and offset "
                   "%s: %s", t, path, mine, s);
            for (int u = 0; u < NT; u++) {
                char other[64];
                snprintf(other, sizeof other, ".t%d.err", u);
                TCHECK(u == t || !strstr(s, other),
                       "thread %d: the message of its error names thread %d's file: %s", t, u, s);
            }
        }
        pthread_barrier_wait(&err_barrier); /* every thread has read its text */
    }
    if (ok)
        TOK(rio_file_close(&fh));
    MPI_Barrier(comms[t]);
    if (rt_rank == 0)
        TOK(rio_file_delete(path, MPI_INFO_NULL));
}

/* ---- one handle, many threads ---------------------------------------------- */

static MPI_Offset slot_off(int rank, int t, int s)
{
    return (((MPI_Offset)s * rt_nprocs + rank) * NT + t) * SLOT;
}

static void shared_handle(int t)
{
    int w = writer(rt_rank, t);
    unsigned char *out = malloc(2 * SLOT), *in = malloc(2 * SLOT);
    MPI_Datatype every_other; /* SLOT bytes, one in two of a 2*SLOT buffer */
    MPI_Type_vector(SLOT, 1, 2, MPI_BYTE, &every_other);
    MPI_Type_commit(&every_other);
    if (!out || !in) {
        TCHECK(0, "thread %d: out of memory", t);
        goto out;
    }
    for (int s = 0; s < NSLOTS; s++) {
        MPI_Offset at = slot_off(rt_rank, t, s);
        int strided = s % 2;
        MPI_Datatype type = strided ? every_other : MPI_BYTE;
        int count = strided ? 1 : SLOT;
        memset(out, 0, 2 * SLOT);
        memset(in, 0, 2 * SLOT);
        for (int i = 0; i < SLOT; i++)
            out[strided ? 2 * i : i] = pat(w, at + i);
        MPI_Status st;
        if (!TOK(rio_file_write_at(shared_fh, at, out, count, type, &st)) ||
            !TOK(rio_file_read_at(shared_fh, at, in, count, type, &st)))
            continue;
        for (int i = 0; i < SLOT; i++)
            if (in[strided ? 2 * i : i] != pat(w, at + i)) {
                TCHECK(0, "thread %d: shared handle, slot %d: byte %d read back as %u, "
                          "expected %u", t, s, i, in[strided ? 2 * i : i], pat(w, at + i));
                break;
            }
        if (strided)
            for (int i = 0; i < SLOT; i++)
                if (in[2 * i + 1]) {
                    TCHECK(0, "thread %d: shared handle, slot %d: the gap at memory byte %d "
                              "was written", t, s, 2 * i + 1);
                    break;
                }
    }
out:
    MPI_Type_free(&every_other);
    free(out);
    free(in);
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int f = 0; f < NFILES; f++)
        own_file(t, f);
    shared_handle(t);
    errors(t);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rt_nprocs);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-fname"))
            rt_fname = argv[i + 1];
    if (provided < MPI_THREAD_MULTIPLE) {
        CHECK(0, "the MPI library grants thread level %d, not MPI_THREAD_MULTIPLE (%d): "
                 "this test cannot run", provided, MPI_THREAD_MULTIPLE);
        return rt_finish();
    }

    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_barrier_init(&err_barrier, NULL, NT);
    char spath[512];
    snprintf(spath, sizeof spath, "%s.shared", rt_fname);
    if (rt_rank == 0)
        unlink(spath);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, spath, MPI_MODE_RDWR | MPI_MODE_CREATE,
                             MPI_INFO_NULL, &shared_fh)))
        return rt_finish();

    pthread_t th[NT];
    int started = 0;
    for (int t = 0; t < NT; t++) {
        if (pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t)) {
            CHECK(0, "pthread_create failed for thread %d", t);
            MPI_Abort(MPI_COMM_WORLD, 1); /* the others would wait at the barrier */
        }
        started++;
    }
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);

    /* every call of every thread on the shared handle was counted */
    struct rio_stats s = {.size = sizeof s};
    if (RT_OK(rio_stats_get(shared_fh, &s))) {
        CHECK(s.calls_write == NT * NSLOTS && s.calls_read == NT * NSLOTS,
              "shared handle: %lld writes and %lld reads counted, expected %d of each",
              s.calls_write, s.calls_read, NT * NSLOTS);
        CHECK(s.bytes_written == (long long)NT * NSLOTS * SLOT &&
                  s.bytes_read == (long long)NT * NSLOTS * SLOT,
              "shared handle: %lld bytes written and %lld read counted, expected %lld",
              s.bytes_written, s.bytes_read, (long long)NT * NSLOTS * SLOT);
    }
    RT_OK(rio_file_close(&shared_fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, want = (long long)NSLOTS * rt_nprocs * NT * SLOT;
        unsigned char *all = rt_slurp(spath, &len, __FILE__, __LINE__);
        CHECK(len == want, "%s is %lld bytes, expected %lld", spath, len, want);
        for (long long o = 0; all && o < len && o < want; o++) {
            long long k = o / SLOT;
            int t = (int)(k % NT), r = (int)(k / NT % rt_nprocs);
            if (all[o] != pat(writer(r, t), o)) {
                CHECK(0, "%s: byte %lld is %u, expected %u (rank %d thread %d)", spath, o, all[o],
                      pat(writer(r, t), o), r, t);
                break;
            }
        }
        free(all);
        unlink(spath);
    }

    pthread_barrier_destroy(&err_barrier);
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&comms[t]);
    return rt_finish();
}

/*
 * listio_bench.c — resonio-micro-listio: is io_uring or one call per region
 * faster for list I/O on noncontiguous file regions?
 *
 * The posix driver's default (uring_default() in src/store/posix.c) follows
 * what this program prints.  For each directory (/dev/shm and the disk
 * directory given), region size (64 B .. 64 KiB) and file state (a fresh,
 * empty file; an existing file already holding the data) it writes, and on
 * the existing file reads, REGIONS regions separated by holes of the same
 * size through rio__store_write_list / rio__store_read_list, once with the
 * hint resonio_uring disabled (per-region pwrite/pread) and once enabled
 * (batches in one ring), and prints the best of REPS runs in microseconds
 * per region.
 *
 * Usage: resonio-micro-listio <disk-dir> [regions] [reps]
 */
#include "file/file_int.h" /* the hints */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct setup {
    const char *dir;
    size_t size;
    int regions;
    struct rio_region *file;
    struct iovec *mem;
    char *buf;
};

static int open_store(struct rio_store *st, struct rio_hints *h, const char *path, int fresh)
{
    memset(st, 0, sizeof *st);
    if (fresh)
        unlink(path);
    return rio__store_open(st, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644, h);
}

/* Best time in seconds of reps runs of one case. */
static double run_case(struct setup *s, const char *path, int wr, int fresh,
                       enum rio_tristate uring, int reps, unsigned *notes)
{
    struct rio_hints h;
    struct rio_store st;
    double best = 1e30;
    const char *u = uring == RIO_ENABLE ? "enable" : uring == RIO_DISABLE ? "disable" : "automatic";
    if (rio__hints_defaults(&h) || rio__hints_set(&h, "resonio_uring", u)) {
        fprintf(stderr, "resonio_uring: cannot set the hint\n");
        exit(1);
    }
    for (int r = 0; r < reps; r++) {
        MPI_Offset done;
        if (open_store(&st, &h, path, fresh) != 0) {
            perror(path);
            exit(1);
        }
        if (!fresh && !wr) /* warm the ring so that its setup is not timed */
            rio__store_read_list(&st, s->file, s->mem, 2, &done);
        if (wr && !fresh)
            rio__store_write_list(&st, s->file, s->mem, 2);
        double t0 = rio__now();
        int rc = wr ? rio__store_write_list(&st, s->file, s->mem, s->regions)
                    : rio__store_read_list(&st, s->file, s->mem, s->regions, &done);
        double t = rio__now() - t0;
        if (rc) {
            fprintf(stderr, "%s: %s\n", path, rio__err_message(rc));
            exit(1);
        }
        *notes |= rio__store_notes(&st);
        rio__store_close(&st);
        if (t < best)
            best = t;
    }
    rio__hints_free(&h);
    return best;
}

static void bench_dir(const char *dir, int regions, int reps)
{
    static const size_t sizes[] = {64, 512, 4096, 65536};
    char path[4096];
    snprintf(path, sizeof path, "%s/resonio-micro-listio.%d", dir, (int)getpid());

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct setup s = {dir, sizes[k], regions, NULL, NULL, NULL};
        s.file = malloc(sizeof *s.file * (size_t)regions);
        s.mem = malloc(sizeof *s.mem * (size_t)regions);
        s.buf = malloc(s.size * (size_t)regions);
        if (!s.file || !s.mem || !s.buf) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        memset(s.buf, 'x', s.size * (size_t)regions);
        for (int i = 0; i < regions; i++) {
            s.file[i].off = (MPI_Offset)(2 * s.size) * i;
            s.file[i].len = (MPI_Offset)s.size;
            s.mem[i].iov_base = s.buf + s.size * (size_t)i;
            s.mem[i].iov_len = s.size;
        }
        unsigned notes = 0;
        const struct {
            const char *what;
            int wr, fresh;
        } cases[] = {{"write fresh", 1, 1}, {"write existing", 1, 0}, {"read existing", 0, 0}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            if (!cases[c].fresh) { /* make the existing file */
                double ignore = run_case(&s, path, 1, 1, RIO_DISABLE, 1, &notes);
                (void)ignore;
            }
            double per = run_case(&s, path, cases[c].wr, cases[c].fresh, RIO_DISABLE, reps, &notes);
            double ring = run_case(&s, path, cases[c].wr, cases[c].fresh, RIO_ENABLE, reps, &notes);
            printf("%-10s %6zu B  %-15s  per-region %7.2f us  io_uring %7.2f us  -> %s\n", dir,
                   s.size, cases[c].what, 1e6 * per / regions, 1e6 * ring / regions,
                   per <= ring ? "per-region" : "io_uring");
        }
        if (notes & RIO_STORE_NOTE_URING_UNAVAILABLE)
            printf("%-10s io_uring unavailable: both columns are per-region\n", dir);
        unlink(path);
        free(s.file);
        free(s.mem);
        free(s.buf);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <disk-dir> [regions] [reps]\n", argv[0]);
        return 2;
    }
    int regions = argc > 2 ? atoi(argv[2]) : 4096;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    if (regions < 2 || reps < 1) {
        fprintf(stderr, "regions must be >= 2 and reps >= 1\n");
        return 2;
    }
    printf("list I/O of %d regions with holes between, best of %d, us per region\n", regions,
           reps);
    bench_dir("/dev/shm", regions, reps);
    bench_dir(argv[1], regions, reps);
    return 0;
}

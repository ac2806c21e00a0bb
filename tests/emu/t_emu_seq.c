/*
 * t_emu_seq.c — resonance, measured at the storage targets.
 *
 * The demo pattern of resonant-io.txt: N ranks, each call covers 4N
 * segments of S bytes, rank i takes segments k*N + i; S is the stripe
 * unit and the file is striped over 4 targets of the emulated storage
 * (RESONIO_EMU_DIR).  The same CALLS calls are made once with
 * resonio_strategy=resonant and once with two_phase (cb_buffer_size = S,
 * so two_phase's aggregators work in several rounds; cb_nodes = N, one
 * aggregator per rank as with one process per node), each on a fresh
 * file, with the targets' counters reset before.  Resonant sends each
 * target its stripes in ascending order from one agent, so every target's
 * request stream must be fully sequential (fraction 1.0); two_phase's
 * aggregators write their file domains side by side, so their requests
 * interleave at the targets and some target must see a fraction below
 * 1.0.  Both files are checked byte for byte from the object files.
 *
 * Usage: mpiexec -n N t_emu_seq -fname <unused>   (RESONIO_EMU_DIR set)
 */
#include "resonio.h"
#include "emu/client.h"
#include "../mpi/rtest.h"
#include "emu_test.h"

#define S (64 * 1024)
#define CALLS 8
#define TARGETS 4

static void one_strategy(const char *dir, const char *strategy, double frac[TARGETS])
{
    const int N = rt_nprocs, me = rt_rank;
    char name[256], fname[300], unit[32], nodes[32];
    struct rio_emu_client *cl = NULL;
    MPI_Datatype vec, ft;
    rio_file *fh = RIO_FILE_NULL;
    MPI_Status st;

    snprintf(name, sizeof name, "seq-%s-np%d", strategy, N);
    snprintf(fname, sizeof fname, "emu:%s", name);
    snprintf(unit, sizeof unit, "%d", S);
    if (me == 0) {
        int rc = rio__emu_connect(dir, &cl);
        CHECK(rc == 0 && rio__emu_ntargets(cl) == TARGETS, "connecting to %s: %d", dir, rc);
        for (int t = 0; cl && t < TARGETS; t++)
            rio__emu_stats_reset(cl, t);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* one aggregator per rank (cb_nodes), as on the papers' clusters of
     * one process per node; on one node two_phase would use one */
    snprintf(nodes, sizeof nodes, "%d", N);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", unit,
                            "striping_factor", "4", "cb_buffer_size", unit, "cb_nodes", nodes,
                            NULL);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh)))
        goto out;
    MPI_Type_vector(4, S, N * S, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)4 * N * S, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(fh, (MPI_Offset)me * S, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned char *buf = malloc((size_t)4 * S);
    for (int c = 0; c < CALLS; c++) {
        /* the bytes of segment k*N + me of call c: pat(me, file offset) */
        for (int k = 0; k < 4; k++)
            rt_fill(buf + (size_t)k * S, S, me, ((long long)c * 4 * N + (long long)k * N + me) * S);
        RT_OK(rio_file_write_all(fh, buf, 4 * S, MPI_BYTE, &st));
    }
    free(buf);
    RT_OK(rio_file_close(&fh));
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);

    if (me == 0 && cl) {
        long long len = 0;
        unsigned char *f = emu_slurp(dir, name, &len);
        long long want = (long long)CALLS * 4 * N * S, bad = -1;
        for (long long o = 0; f && o < len && bad < 0; o++)
            if (f[o] != pat((int)((o / S) % N), o))
                bad = o;
        CHECK(f && len == want && bad < 0, "[%s] the file is %lld bytes (expected %lld), first "
                                          "wrong byte %lld",
              strategy, len, want, bad);
        free(f);
        printf("%s, %d ranks: sequential fraction per target:", strategy, N);
        for (int t = 0; t < TARGETS; t++) {
            struct rio_emu_stats s;
            frac[t] = -1;
            if (!rio__emu_stats(cl, t, &s))
                frac[t] = rio__emu_seq_fraction(&s);
            printf(" %.3f", frac[t]);
            if (!rio__emu_stats(cl, t, &s))
                printf(" (%llu accesses)", (unsigned long long)s.accesses);
        }
        printf("\n");
        fflush(stdout);
    }
    if (me == 0)
        rio_file_delete(fname, MPI_INFO_NULL);
out:
    MPI_Info_free(&info);
    rio__emu_disconnect(cl);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    double res[TARGETS], tp[TARGETS];
    rt_init(&argc, &argv);
    const char *dir = getenv("RESONIO_EMU_DIR");
    if (!dir) {
        CHECK(0, "RESONIO_EMU_DIR is not set");
        return rt_finish();
    }
    one_strategy(dir, "resonant", res);
    one_strategy(dir, "two_phase", tp);
    if (rt_rank == 0) {
        double tmin = 1;
        for (int t = 0; t < TARGETS; t++) {
            CHECK(res[t] == 1.0, "resonant: target %d has sequential fraction %.3f, not 1.0", t,
                  res[t]);
            if (tp[t] < tmin)
                tmin = tp[t];
        }
        CHECK(rt_nprocs < 2 || tmin < 1.0,
              "two_phase: every target saw a fully sequential stream (lowest fraction %.3f)",
              tmin);
    }
    return rt_finish();
}

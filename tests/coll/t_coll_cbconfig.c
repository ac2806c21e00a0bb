/*
 * t_coll_cbconfig.c — two_phase's aggregators under cb_config_list and
 * cb_nodes, on virtual nodes of 2 ranks (resonio_ranks_per_node=2).
 *
 * ROMIO's rule, as the test models it (expect_aggs, written from the
 * hint's definition, not from src/coll): the list's entries name[:N] apply
 * in order; an entry takes, from every node not yet taken by an earlier
 * entry whose name matches ('*' matches any), its N lowest ranks ('*': all,
 * no count: 1), and the node is then taken; at most cb_nodes aggregators
 * in all (default: every rank); "*:*" alone is ROMIO's shortcut for the
 * first cb_nodes ranks.  A node's name is its ranks' processor name, so on
 * one machine an entry naming the machine matches every virtual node.  A
 * list that names no aggregator (no node matches, or "host:0") is ignored
 * and the reason says so (ROMIO would fail the open), and so
 * is a malformed list ("host:abc", ":3", "a:-1", "*x", "a:1,"): it is
 * rejected when set, MPI_File_get_info does not show it, and without a
 * list the aggregators are cb_nodes ranks spread over the nodes (the k-th
 * lowest rank of every node for k = 0, 1, ...) or the lowest rank of each
 * node.  For 4 ranks the expectations are also written out by hand and
 * must agree with the model.
 *
 * Every case writes an interleaved pattern (rank i writes block k*P+i)
 * with write_at_all and reads it back with read_at_all; rio_coll_last must
 * show two_phase with exactly the expected aggregators, in order, for both
 * calls; every byte of the file is checked with POSIX reads, and every
 * byte read.  One more case changes the list with set_info on an open file
 * (host entry after open: the names are gathered then), and a malformed
 * list given to set_info leaves the previous one in effect.  "-short 1"
 * runs only the cases marked core (a wildcard with cb_nodes, this host's
 * name alone and before a wildcard, a host that matches nothing, a
 * malformed list).
 *
 * With -real 1 the nodes are real hosts (tools/resonio-hosts, hosts of 2
 * slots: ranks 2i and 2i+1 on host i, which the test checks first), no
 * virtual nodes are declared, and each node has its own name: "%h" names
 * the first host and "%g" the second, so a list naming one host takes
 * only that host's ranks.  The hand-written answers are for one machine
 * and are not compared there; the model, which they check, is.
 */
#include "ctest_util.h"

#include <signal.h>

#define RPN 2
#define BS 1000
#define NB 6

static char path[4200];
static char host[MPI_MAX_PROCESSOR_NAME + 1];
static int real;                                     /* -real 1: nodes are hosts */
static char node_name[64][MPI_MAX_PROCESSOR_NAME + 1]; /* node i's name */

struct cb_case {
    const char *list;   /* "%h" stands for this machine's name */
    int cb_nodes;       /* 0: unset */
    int malformed;      /* the list must be ignored */
    int nomatch;        /* the list names no aggregator: ignored, and the reason says so */
    int p4[8], n4;      /* hand-written aggregators for 4 ranks; n4 < 0: not written */
    int core;           /* one of the few cases run with -short */
};

static const struct cb_case cases[] = {
    {"*:1", 0, 0, 0, {0, 2}, 2, 0},
    {"*:2", 0, 0, 0, {0, 1, 2, 3}, 4, 0},
    {"*:*", 0, 0, 0, {0, 1, 2, 3}, 4, 0},
    {"*:*", 3, 0, 0, {0, 1, 2}, 3, 0},
    {"*:2", 3, 0, 0, {0, 1, 2}, 3, 1},
    {"*:1", 3, 0, 0, {0, 2}, 2, 0},
    {"%h:2", 0, 0, 0, {0, 1, 2, 3}, 4, 1},
    {"%h:1,*:2", 0, 0, 0, {0, 2}, 2, 1},
    {"%h:0,*:2", 0, 0, 1, {0, 2}, 2, 0}, /* the host entry takes every node and no rank */
    {"%g:2", 0, 0, 0, {0, 1, 2, 3}, 4, 1}, /* real hosts: the second host's ranks only */
    {"%g:1,*:2", 0, 0, 0, {0, 2}, 2, 0},
    {"nosuchhost:2", 0, 0, 1, {0, 2}, 2, 1},
    {"nosuchhost:2", 3, 0, 1, {0, 1, 2}, 3, 0},
    {"nosuchhost:3,*:1", 1, 0, 0, {0}, 1, 0},
    {"%h:abc", 0, 1, 0, {0, 2}, 2, 0},
    {":3", 2, 1, 0, {0, 2}, 2, 0},
    {"a:-1", 0, 1, 0, {0, 2}, 2, 1},
    {"*x:1", 0, 1, 0, {0, 2}, 2, 0},
    {"a:1,", 4, 1, 0, {0, 1, 2, 3}, 4, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* The list with %h replaced by the first node's name, %g by the
 * second's (on one machine both are its name). */
static void expand(const char *list, char *out, size_t len)
{
    const char *h = strstr(list, "%h"), *g = strstr(list, "%g");
    const char *at = h ? h : g;
    if (!at)
        snprintf(out, len, "%s", list);
    else
        snprintf(out, len, "%.*s%.*s%s", (int)(at - list), list, MPI_MAX_PROCESSOR_NAME,
                 node_name[h ? 0 : (rt_nprocs > RPN ? 1 : 0)], at + 2);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Without a list: cb_nodes ranks spread over the nodes, or the lowest rank
 * of each node; in rank order. */
static int default_aggs(int P, int cb_nodes, int *out)
{
    int nn = (P + RPN - 1) / RPN, n = 0;
    int want = cb_nodes > 0 ? (cb_nodes < P ? cb_nodes : P) : nn;
    for (int k = 0; k < RPN && n < want; k++)
        for (int node = 0; node < nn && n < want; node++)
            if (node * RPN + k < P)
                out[n++] = node * RPN + k;
    qsort(out, (size_t)n, sizeof *out, cmp_int);
    return n;
}

/* ROMIO's rule over nodes of RPN ranks, node i named node_name[i];
 * *named (if given) says whether the list itself named an aggregator. */
static int expect_aggs(const char *list, int cb_nodes, int P, int malformed, int *out,
                       int *named)
{
    if (named)
        *named = 0;
    int cap = cb_nodes > 0 && cb_nodes < P ? cb_nodes : P, n = 0;
    int nn = (P + RPN - 1) / RPN;
    if (malformed)
        return default_aggs(P, cb_nodes, out);
    if (!strcmp(list, "*:*")) {
        for (n = 0; n < cap; n++)
            out[n] = n;
        if (named)
            *named = 1;
        return n;
    }
    int taken[64] = {0};
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save = NULL, *e = strtok_r(copy, ",", &save); e && n < cap;
         e = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(e, ':');
        int max = 1;
        if (colon) {
            *colon = '\0';
            max = !strcmp(colon + 1, "*") ? cap : atoi(colon + 1);
        }
        int wild = !strcmp(e, "*");
        for (int node = 0; node < nn && n < cap; node++) {
            if (taken[node] || (!wild && strcmp(e, node_name[node])))
                continue;
            taken[node] = 1;
            for (int k = 0; k < max && k < RPN && node * RPN + k < P && n < cap; k++)
                out[n++] = node * RPN + k;
        }
    }
    if (n == 0)
        return default_aggs(P, cb_nodes, out);
    if (named)
        *named = 1;
    return n;
}

/* Interleaved access: block k*P+rank of BS bytes, NB blocks. */
static void access_of(struct ct_access *a)
{
    const int P = rt_nprocs;
    ct_access_init(a);
    for (long long k = 0; k < NB; k++)
        rt_list_add(&a->file, (k * P + rt_rank) * BS, BS);
    rt_list_add(&a->mem, 0, (long long)NB * BS);
    a->membytes = (long long)NB * BS;
    MPI_Datatype c;
    MPI_Type_contiguous(BS, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)P * BS, &a->filetype);
    MPI_Type_free(&c);
    MPI_Type_commit(&a->filetype);
    a->disp = (long long)rt_rank * BS;
}

/* Every byte of the file: block b was written by rank b % P. */
static void verify_file(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, total = (long long)rt_nprocs * NB * BS, bad = 0, first = -1;
        unsigned char *img = RT_SLURP(path, &len);
        CHECK(len == total, "%s: file is %lld bytes, expected %lld", what, len, total);
        for (long long o = 0; img && o < len && o < total; o++)
            if (img[o] != pat((int)((o / BS) % rt_nprocs), o)) {
                if (first < 0)
                    first = o;
                bad++;
            }
        CHECK(bad == 0, "%s: %lld file bytes wrong, the first at %lld", what, bad, first);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One write and one read; both must show exactly exp[0..nexp). */
static void run_calls(rio_file *fh, const int *exp, int nexp, int nomatch, const char *what)
{
    struct ct_access a;
    struct rio_coll_info in;
    MPI_Status st;
    char ab[512], eb[512];
    size_t used = 0;
    eb[0] = '\0';
    for (int k = 0; k < nexp; k++)
        used += (size_t)snprintf(eb + used, sizeof eb - used, "%s%d", k ? " " : "", exp[k]);
    access_of(&a);
    unsigned char *wb = ct_write_buf(&a, rt_rank), *rb = malloc((size_t)a.membytes);
    memset(rb, CT_SENTINEL, (size_t)a.membytes);
    RT_OK(rio_file_set_view(fh, a.disp, MPI_BYTE, a.filetype, "native", MPI_INFO_NULL));
    for (int write = 1; write >= 0; write--) {
        int rc = write ? rio_file_write_at_all(fh, 0, wb, (int)a.membytes, MPI_BYTE, &st)
                       : rio_file_read_at_all(fh, 0, rb, (int)a.membytes, MPI_BYTE, &st);
        CHECK(rc == MPI_SUCCESS, "%s: %s failed", what, write ? "write_at_all" : "read_at_all");
        if (ct_last(fh, &in) && rt_rank == 0) {
            int same = !strcmp(in.strategy, "two_phase") && in.naggs == nexp;
            for (int k = 0; same && k < nexp; k++)
                same = in.aggs[k] == exp[k];
            CHECK(same, "%s (%s): aggregators {%s} (%s), expected {%s}; reason \"%s\"", what,
                  write ? "write" : "read", ct_aggs_str(&in, ab, sizeof ab), in.strategy, eb,
                  in.reason);
            if (nomatch)
                CHECK(strstr(in.reason, "names no aggregator") != NULL,
                      "%s: the reason must say the list names no aggregator: \"%s\"", what,
                      in.reason);
        }
        if (write)
            verify_file(what);
    }
    CHECK_BYTES(rb, wb, NULL, (size_t)a.membytes, "%s: read back", what);
    free(wb);
    free(rb);
    ct_access_free(&a);
}

static rio_file *open_with(const char *list, int cb_nodes)
{
    rio_file *fh = RIO_FILE_NULL;
    char rpn[16], cbn[16];
    snprintf(rpn, sizeof rpn, "%d", RPN);
    snprintf(cbn, sizeof cbn, "%d", cb_nodes);
    ct_unlink_all(path);
    MPI_Info info = rt_info("resonio_strategy", "two_phase", "cb_config_list", list, "cb_nodes",
                            cb_nodes > 0 ? cbn : NULL, "resonio_ranks_per_node",
                            real ? NULL : rpn, NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    return RT_OK(rc) ? fh : RIO_FILE_NULL;
}

/* The cb_config_list in effect is want (NULL: none). */
static void check_info_list(rio_file *fh, const char *want, const char *what)
{
    MPI_Info used = MPI_INFO_NULL;
    char val[MPI_MAX_INFO_VAL + 1];
    if (!RT_OK(rio_file_get_info(fh, &used)))
        return;
    int flag = rt_info_get(used, "cb_config_list", val, (int)sizeof val);
    if (want)
        CHECK(flag && !strcmp(val, want), "%s: get_info cb_config_list='%s' (flag %d), expected '%s'",
              what, val, flag, want);
    else
        CHECK(!flag, "%s: the malformed list is in effect: get_info cb_config_list='%s'", what,
              val);
    MPI_Info_free(&used);
}

static void one_case(const struct cb_case *cc)
{
    char list[1024], what[1200];
    int exp[64];
    expand(cc->list, list, sizeof list);
    snprintf(what, sizeof what, "cb_config_list=%s cb_nodes=%d", list, cc->cb_nodes);
    int named = 0;
    int n = expect_aggs(list, cc->cb_nodes, rt_nprocs, cc->malformed, exp, &named);
    /* the table's "names no aggregator" is for one machine; the model's
     * holds on real hosts too (and must agree with the table on one) */
    int nomatch = !cc->malformed && !named;
    if (!real)
        CHECK(nomatch == cc->nomatch, "%s: the model says the list names %s aggregator, the "
              "table the opposite (test bug)", what, nomatch ? "no" : "an");
    if (rt_nprocs == 4 && cc->n4 >= 0 && !real) { /* the model against the hand-written answer */
        int same = n == cc->n4;
        for (int k = 0; same && k < n; k++)
            same = exp[k] == cc->p4[k];
        CHECK(same, "%s: the model gives %d aggregators (first %d), the table %d (test bug)", what,
              n, exp[0], cc->n4);
    }
    rio_file *fh = open_with(list, cc->cb_nodes);
    if (!fh)
        return;
    check_info_list(fh, cc->malformed ? NULL : list, what);
    run_calls(fh, exp, n, nomatch, what);
    RT_OK(rio_file_close(&fh));
}

/* A host entry given by set_info after open; then a malformed list by
 * set_info, which must leave the host entry in effect. */
static void set_info_case(void)
{
    char list[1024], what[1200];
    int exp[64];
    rio_file *fh = open_with("*:1", 0);
    if (!fh)
        return;
    int n = expect_aggs("*:1", 0, rt_nprocs, 0, exp, NULL);
    run_calls(fh, exp, n, 0, "set_info: before, cb_config_list=*:1");
    snprintf(list, sizeof list, "%s:2", node_name[0]);
    MPI_Info info = rt_info("cb_config_list", list, NULL);
    RT_OK(rio_file_set_info(fh, info));
    MPI_Info_free(&info);
    snprintf(what, sizeof what, "set_info cb_config_list=%s", list);
    check_info_list(fh, list, what);
    n = expect_aggs(list, 0, rt_nprocs, 0, exp, NULL);
    run_calls(fh, exp, n, 0, what);
    info = rt_info("cb_config_list", "x:y:z", NULL);
    RT_OK(rio_file_set_info(fh, info));
    MPI_Info_free(&info);
    snprintf(what, sizeof what, "set_info cb_config_list=x:y:z after %s", list);
    check_info_list(fh, list, what);
    run_calls(fh, exp, n, 0, what);
    RT_OK(rio_file_close(&fh));
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(240);
    rt_path(path, sizeof path, "cbconfig");
    int len = 0;
    MPI_Get_processor_name(host, &len);
    host[len] = '\0';
    real = rt_arg("-real") && atoi(rt_arg("-real"));
    static char names[64][MPI_MAX_PROCESSOR_NAME + 1];
    if (rt_nprocs > 64) {
        CHECK(0, "at most 64 ranks");
        return rt_finish();
    }
    MPI_Allgather(host, (int)sizeof host, MPI_CHAR, names, (int)sizeof names[0], MPI_CHAR,
                  MPI_COMM_WORLD);
    int shape_ok = 1;
    for (int r = 0; r < rt_nprocs; r++) {
        const char *want = names[r / RPN * RPN];
        if (!real) /* every rank runs on this machine: the names must agree */
            shape_ok &= !strcmp(names[r], names[0]);
        else /* host i holds ranks RPN*i .. RPN*i+RPN-1, and no other */
            for (int q = 0; q < rt_nprocs; q++)
                shape_ok &= !strcmp(names[r], names[q]) == (r / RPN == q / RPN);
        snprintf(node_name[r / RPN], sizeof node_name[0], "%s", want);
    }
    CHECK(shape_ok,
          real ? "-real: the ranks are not %d to a host in rank order (rank 0 on %s)"
               : "processor names differ: the test needs one machine (%d, rank 0 on %s)",
          RPN, names[0]);
    if (!shape_ok)
        return rt_finish();
    /* -short: the core cases only (for slow launches of many ranks) */
    int quick = rt_arg("-short") && atoi(rt_arg("-short"));
    for (int c = 0; c < NCASES; c++)
        if (!quick || cases[c].core)
            one_case(&cases[c]);
    if (!quick)
        set_info_case();
    alarm(0);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}

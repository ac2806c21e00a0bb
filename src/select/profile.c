/*
 * profile.c — decisions of the selector kept across runs (a profile file)
 * and across the files of one process (memory).
 *
 * A profile is a small text file:
 *
 *     resonio-profile 2
 *     <storage> <w|r> <ranks> <bytes> <regions> <gap> <strategy> <bytes/s>
 *     ...
 *     end <number of decision lines> <checksum>
 *
 * The checksum (64-bit FNV-1a, in hex) covers every byte before the end
 * line, so a flipped byte anywhere is noticed.
 *
 * Rank 0 reads it at open and broadcasts it, so every rank starts from the
 * same decisions.  Anything unexpected — no file, a directory, another
 * version, a byte that is not printable text, a line that does not parse,
 * a missing or wrong end line or checksum (a truncated, half-written or
 * damaged file) — makes the whole profile be ignored,
 * with a warning under RESONIO_VERBOSE.  It is rewritten by rank 0 when a
 * decision is made: into a temporary file in the same directory, then
 * renamed over the old one, so a reader, or a run writing at the same
 * time, sees one whole profile or the other, never a mixture.
 */
#include "select_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROFILE_VERSION 2
#define PROFILE_MAX (1 << 20)

static int verbose(void)
{
    const char *v = getenv("RESONIO_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static void warn(const struct rio_select *s, const char *what)
{
    if (verbose())
        fprintf(stderr, "resonio: profile %s ignored: %s\n", s->profile_path, what);
}

/* Read the file into a NUL-terminated buffer; NULL with *why on failure. */
static char *slurp(const char *path, const char **why)
{
    struct stat sb;
    FILE *f = fopen(path, "r");
    char *text = NULL;
    if (!f) {
        *why = errno == ENOENT ? "no such file" : strerror(errno);
        return NULL;
    }
    if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) || sb.st_size > PROFILE_MAX) {
        *why = "not a regular file of at most 1 MiB";
        goto out;
    }
    text = rio__malloc((size_t)sb.st_size + 1);
    if (!text) {
        *why = "out of memory";
        goto out;
    }
    size_t got = fread(text, 1, (size_t)sb.st_size, f);
    text[got] = '\0';
    if (got != (size_t)sb.st_size || memchr(text, '\0', got)) {
        free(text);
        text = NULL;
        *why = "unreadable or binary";
    }
out:
    fclose(f);
    return text;
}

/* Is p the decision for signature g on storage? */
static int same_decision(const struct prof_entry *p, const char *storage,
                         const struct rio_sel_sig *g)
{
    return !strcmp(p->storage, storage) && p->sig.write == g->write &&
           p->sig.nprocs == g->nprocs && p->sig.bytes == g->bytes &&
           p->sig.regions == g->regions && p->sig.relgap == g->relgap;
}

static unsigned long long fnv1a(const char *p, size_t n)
{
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Whole, printable, and matching its checksum?  0, or -1 with *why. */
static int intact(const char *text, const char **why)
{
    size_t n = strlen(text);
    if (n == 0 || text[n - 1] != '\n') {
        *why = "does not end with a line end (truncated)";
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if ((text[i] < 32 || text[i] > 126) && text[i] != '\n') {
            *why = "holds bytes that are not text";
            return -1;
        }
    const char *end = n >= 2 ? text + n - 2 : text; /* the start of the last line */
    while (end > text && end[-1] != '\n')
        end--;
    unsigned long long sum;
    int count;
    char tail;
    if (sscanf(end, "end %d %llx %c", &count, &sum, &tail) != 2) {
        *why = "no end line with a checksum (truncated)";
        return -1;
    }
    if (sum != fnv1a(text, (size_t)(end - text))) {
        *why = "checksum does not match (damaged)";
        return -1;
    }
    return 0;
}

/* Parse a whole profile into s->prof.  0, or -1 with *why. */
static int parse(struct rio_select *s, char *text, const char **why)
{
    if (intact(text, why))
        return -1;
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    int version = 0, n = 0, cap = 0, ended = 0;
    struct prof_entry *v = NULL;
    if (!line || sscanf(line, "resonio-profile %d", &version) != 1) {
        *why = "no header";
        return -1;
    }
    if (version != PROFILE_VERSION) {
        *why = "written by another version";
        return -1;
    }
    while ((line = strtok_r(NULL, "\n", &save))) {
        int count;
        char tail;
        if (ended) {
            *why = "text after the end line";
            goto bad;
        }
        unsigned long long sum;
        if (sscanf(line, "end %d %llx %c", &count, &sum, &tail) == 2) {
            if (count != n) {
                *why = "end line does not match the decisions";
                goto bad;
            }
            ended = 1;
            continue;
        }
        struct prof_entry e;
        char wr;
        memset(&e, 0, sizeof e);
        if (sscanf(line, "%63s %c %d %lld %lld %lld %15s %lf %c", e.storage, &wr, &e.sig.nprocs,
                   &e.sig.bytes, &e.sig.regions, &e.sig.relgap, e.strategy, &e.tput,
                   &tail) != 8 ||
            (wr != 'w' && wr != 'r') || e.sig.nprocs <= 0 || e.sig.bytes < 0 ||
            e.sig.regions < 0 || !(e.tput > 0)) {
            *why = "a decision line does not parse";
            goto bad;
        }
        e.sig.write = wr == 'w';
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            struct prof_entry *nv = rio__realloc(v, sizeof *nv * (size_t)cap);
            if (!nv) {
                *why = "out of memory";
                goto bad;
            }
            v = nv;
        }
        v[n++] = e;
    }
    if (!ended) {
        *why = "no end line (truncated)";
        goto bad;
    }
    s->prof = v;
    s->nprof = n;
    return 0;
bad:
    free(v);
    return -1;
}

int rio__select_profile_load(struct rio_select *s, MPI_Comm comm)
{
    char *text = NULL;
    long long len = 0;
    if (!s->profile_path)
        return 0;
    if (s->rank == 0) {
        const char *why = NULL;
        text = slurp(s->profile_path, &why);
        if (text) {
            /* check on a copy: parsing cuts the text into lines */
            char *copy = rio__strdup(text);
            struct rio_select probe = *s;
            probe.prof = NULL;
            if (!copy || parse(&probe, copy, &why)) {
                free(text);
                text = NULL;
            }
            free(probe.prof);
            free(copy);
        }
        if (!text && strcmp(why, "no such file"))
            warn(s, why);
        len = text ? (long long)strlen(text) : 0;
    }
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm);
    if (len == 0)
        return 0;
    if (s->rank != 0)
        text = rio__malloc((size_t)len + 1);
    int ok = text != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(text);
        return RIO_E_NOMEM;
    }
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, comm);
    text[len] = '\0';
    const char *why;
    /* checked on rank 0 already: what can fail now is memory, and every
     * rank must hold the same decisions */
    ok = parse(s, text, &why) == 0;
    free(text);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(s->prof);
        s->prof = NULL;
        s->nprof = 0;
        return ok ? RIO_E_REMOTE : RIO_E_NOMEM;
    }
    return 0;
}

const struct prof_entry *rio__select_profile_find(const struct rio_select *s,
                                                  const struct rio_sel_sig *sig)
{
    for (int i = 0; i < s->nprof; i++)
        if (same_decision(&s->prof[i], s->storage, sig))
            return &s->prof[i];
    return NULL;
}

static void put(FILE *f, const char *storage, const struct rio_sel_sig *g, const char *strategy,
                double tput)
{
    fprintf(f, "%s %c %d %lld %lld %lld %s %.6g\n", storage, g->write ? 'w' : 'r', g->nprocs,
            g->bytes, g->regions, g->relgap, strategy, tput);
}

void rio__select_profile_save(struct rio_select *s)
{
    if (!s->profile_path)
        return;
    /* the temporary name is this save's alone: threads of one process may
     * close files that share a profile at the same time */
    static atomic_uint saves;
    size_t plen = strlen(s->profile_path) + 48;
    char *tmp = rio__malloc(plen);
    if (!tmp)
        return;
    snprintf(tmp, plen, "%s.tmp.%ld.%u", s->profile_path, (long)getpid(),
             atomic_fetch_add(&saves, 1));
    FILE *f = fopen(tmp, "w");
    if (!f) {
        warn(s, "cannot be written");
        free(tmp);
        return;
    }
    int n = 0;
    char *body = NULL;
    size_t blen = 0;
    FILE *m = open_memstream(&body, &blen);
    if (!m) {
        fclose(f);
        unlink(tmp);
        free(tmp);
        return;
    }
    fprintf(m, "resonio-profile %d\n", PROFILE_VERSION);
    /* this file's decisions replace the loaded ones for the same signature */
    for (int i = 0; i < s->nprof; i++) {
        const struct prof_entry *p = &s->prof[i];
        int replaced = 0;
        for (int j = 0; j < s->n && !replaced; j++) {
            const struct sel_entry *e = &s->e[j];
            replaced = !e->examining && e->chosen >= 0 && same_decision(p, s->storage, &e->sig);
        }
        if (!replaced && !p->exam) {
            put(m, p->storage, &p->sig, p->strategy, p->tput);
            n++;
        }
    }
    for (int j = 0; j < s->n; j++) {
        const struct sel_entry *e = &s->e[j];
        if (e->examining || e->chosen < 0)
            continue;
        put(m, s->storage, &e->sig, e->x.cand[e->chosen], e->chosen_avg);
        n++;
    }
    int mbad = fclose(m) != 0;
    if (!mbad) {
        fwrite(body, 1, blen, f);
        fprintf(f, "end %d %llx\n", n, fnv1a(body, blen));
    }
    free(body);
    int bad = mbad || ferror(f);
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, s->profile_path)) {
        warn(s, "could not be replaced");
        unlink(tmp);
    }
    free(tmp);
}

/* ---- decisions kept across the files of this process ---------------------- */

/* A program that writes the same pattern to one file after another (a
 * checkpoint per step, the bench's rounds) makes the same decision each
 * time; the selector remembers its decisions per storage and signature
 * for the process, like a profile kept in memory, and a later file starts
 * with them.  Rank 0's memory is broadcast at open, so every rank of the
 * new file starts from the same decisions whatever files each rank had
 * open before.  A remembered choice that no longer holds deviates and is
 * re-examined like any other.
 *
 * An examination a file leaves unfinished is remembered too, where it
 * stands, unless a decision for the signature is remembered already; with
 * resonio_select_reuse=enable the next file with the same signature goes
 * on with it.  A program that makes one collective call per file (a
 * checkpoint of one write_all) otherwise examines the first candidate in
 * every file and never measures the others.  It is not the default: the
 * candidates the rules do not pick first run in the next files, one bad
 * call each at least, and a program that writes only a few files pays
 * that without reaching the decision.  resonio-bench (Open MPI, tmpfs,
 * 2 ranks, 3 timed files after a probe file, 2 calls per file) read demo
 * seg=1M at 0.59 of native going on, where every file examining afresh
 * runs the rules' pick and read at 0.96-1.10. */
#define MEMORY_MAX 64

static struct prof_entry memory[MEMORY_MAX];
static int nmemory;
static unsigned memory_evict;
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;


void rio__select_memory_put(const struct rio_select *s, const struct sel_entry *e)
{
    int results = 0;
    for (int k = 0; k < e->x.ncand; k++)
        results += e->x.n[k];
    if (e->examining ? results == 0 : e->chosen < 0)
        return;
    pthread_mutex_lock(&memory_lock);
    int i = 0;
    while (i < nmemory && !same_decision(&memory[i], s->storage, &e->sig))
        i++;
    if (e->examining && i < nmemory && !memory[i].exam) {
        /* a decision stays: a file that examined afresh (reuse disabled)
         * or left a re-examination unfinished does not undo it */
        pthread_mutex_unlock(&memory_lock);
        return;
    }
    if (i == nmemory)
        i = nmemory < MEMORY_MAX ? nmemory++ : (int)(memory_evict++ % MEMORY_MAX);
    struct prof_entry *p = &memory[i];
    memset(p, 0, sizeof *p);
    snprintf(p->storage, sizeof p->storage, "%s", s->storage);
    p->sig = e->sig;
    p->earlier = 1;
    p->patience = e->patience;
    p->x = e->x; /* a decision's: which candidates were behind it */
    if (e->examining) {
        p->exam = 1;
    } else {
        snprintf(p->strategy, sizeof p->strategy, "%s", e->x.cand[e->chosen]);
        p->tput = e->chosen_avg;
    }
    pthread_mutex_unlock(&memory_lock);
}

int rio__select_memory_load(struct rio_select *s, MPI_Comm comm, enum rio_tristate reuse)
{
    struct prof_entry mine[MEMORY_MAX];
    int n = 0;
    if (s->rank == 0 && reuse != RIO_DISABLE) {
        pthread_mutex_lock(&memory_lock);
        for (int i = 0; i < nmemory; i++)
            if (!strcmp(memory[i].storage, s->storage) && (reuse == RIO_ENABLE || !memory[i].exam))
                mine[n++] = memory[i];
        pthread_mutex_unlock(&memory_lock);
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    if (n == 0)
        return 0;
    MPI_Bcast(mine, (int)(sizeof mine[0]) * n, MPI_BYTE, 0, comm);
    /* ahead of the profile's, which they replace for the same signature */
    struct prof_entry *v = rio__malloc(sizeof *v * (size_t)(n + s->nprof));
    int ok = v != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(v);
        return RIO_E_NOMEM;
    }
    int m = 0;
    for (int j = 0; j < n; j++) { /* an examination yields to a profile's decision */
        int decided = 0;
        for (int i = 0; i < s->nprof && mine[j].exam && !decided; i++)
            decided = same_decision(&mine[j], s->prof[i].storage, &s->prof[i].sig);
        if (!decided)
            v[m++] = mine[j];
    }
    int kept = m;
    for (int i = 0; i < s->nprof; i++) {
        int dup = 0;
        for (int j = 0; j < kept && !dup; j++)
            dup = same_decision(&v[j], s->prof[i].storage, &s->prof[i].sig);
        if (!dup)
            v[m++] = s->prof[i];
    }
    free(s->prof);
    s->prof = v;
    s->nprof = m;
    return 0;
}

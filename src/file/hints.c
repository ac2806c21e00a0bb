/*
 * hints.c — MPI_Info hints of a file: the owners' tables gathered,
 * parsing, and the info object of values in effect.
 *
 * Each owner of hints (this layer, the storage layer and each storage
 * driver, the collective engine, the selector, the independent layer)
 * declares its keys and its settings struct in its own files
 * (common/settings.h); this file only lists the layers, asks the storage
 * layer for its drivers', and walks the tables, so parsing, defaults and
 * MPI_File_get_info cannot disagree, and a new driver's key needs no line
 * here.  Values come, lowest first, from the hints file (at open only),
 * the info object given to open/set_view/set_info and RESONIO_HINTS
 * ("key=value;key=value"), which wins, so a job script can steer an
 * unmodified program.  The hints file is ROMIO's: the file named by
 * ROMIO_HINTS, else /etc/romio-hints, of "key value" lines; as in ROMIO a
 * key of the file counts only if the program's info does not hold it, it
 * is read by one rank and broadcast (so all ranks see one set of hints),
 * and a missing file is no error.  Unlike ROMIO, which reads it at the
 * first open only, it is read at every open, so a file changed between
 * opens is seen.  Unknown keys are ignored as the standard requires; a
 * known key with a malformed value, and a malformed line of the file, are
 * ignored with a warning when RESONIO_VERBOSE is set.  Keys that fix the
 * file's layout or driver (RIO_SET_OPEN_ONLY) are honoured only at open.
 * As in ROMIO, a key given twice in the hints file counts at its first
 * line, and romio_no_indep_rw at open enables collective buffering both
 * ways.  access_style is not a key: nothing would read it, and the
 * standard lets an implementation ignore any key.
 */
#include "file_int.h"
#include "../indep/indep.h"
#include "../select/select.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* file_perm and romio_no_indep_rw act at open, on the file itself. */
#define F(m) offsetof(struct rio_file_settings, m)
static const struct rio_setting file_keys[] = {
    {"file_perm", RIO_SET_PERM, F(file_perm), NULL, RIO_SET_OPEN_ONLY,
     "octal permissions of a created file (unset: 0666 less the umask)", NULL, NULL},
    {"romio_no_indep_rw", RIO_SET_BOOL, F(no_indep_rw), "false", RIO_SET_OPEN_ONLY,
     "the program makes collective calls only: ranks that aggregate nothing do not open",
     NULL, NULL},
    {"resonio_nb_copy", RIO_SET_INT, F(nb_copy), "256m", 0,
     "below MPI_THREAD_MULTIPLE, the bytes a nonblocking collective write may copy per rank "
     "and call to write them in the background (0: none)",
     NULL, NULL},
};
#undef F

const struct rio_settings_owner rio__file_settings_owner =
    RIO_SETTINGS_OWNER("file", struct rio_file_settings, file_keys);

/* The layers' owners; the storage layer's own and its drivers' come after
 * the first (rio__store_settings_owner_at). */
static const struct rio_settings_owner *const layers[] = {
    &rio__file_settings_owner,
    &rio__coll_settings_owner,
    &rio__indep_settings_owner,
    &rio__select_settings_owner,
};
#define NLAYERS ((int)(sizeof layers / sizeof layers[0]))

/* Contract in file_int.h. */
const struct rio_settings_owner *rio__hints_owner_at(int i)
{
    if (i < 0)
        return NULL;
    if (i < NLAYERS)
        return layers[i];
    return rio__store_settings_owner_at(i - NLAYERS);
}

int rio__hints_defaults(struct rio_hints *h)
{
    return rio__settings_init(h, rio__hints_owner_at);
}

void rio__hints_free(struct rio_hints *h)
{
    rio__settings_free(h);
}

static int verbose(void)
{
    const char *v = getenv("RESONIO_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

/* Set key from val as the rules say; returns 0, 1 when the key is not
 * set (unknown, open-only after open, locked off by no_reads) or -1 for a
 * malformed value. */
static int set_one(struct rio_hints *h, const char *key, const char *val, int at_open,
                   int no_reads)
{
    void *block;
    const struct rio_setting *k = rio__settings_find(h, key, &block);
    if (!k || ((k->flags & RIO_SET_OPEN_ONLY) && !at_open) ||
        (no_reads && (k->flags & RIO_SET_READS_FILE)))
        return 1;
    return rio__settings_parse(k, block, val);
}

static void apply_one(struct rio_hints *h, const char *key, const char *val, int at_open,
                      int no_reads)
{
    /* The Lustre driver's directIO covers both directions. */
    if (!strcmp(key, "directIO")) {
        apply_one(h, "direct_read", val, at_open, no_reads);
        apply_one(h, "direct_write", val, at_open, no_reads);
        return;
    }
    if (set_one(h, key, val, at_open, no_reads) < 0 && verbose())
        fprintf(stderr, "resonio: ignoring hint %s=%s: malformed value\n", key, val);
}

/* Contract in file_int.h. */
int rio__hints_set(struct rio_hints *h, const char *key, const char *val)
{
    return set_one(h, key, val, 1, 0) ? -1 : 0;
}

/* Contract in file_int.h. */
void rio__hints_no_reads(struct rio_hints *h)
{
    for (int i = 0; i < h->n; i++) {
        const struct rio_settings_owner *o = h->slot[i].owner;
        for (int k = 0; k < o->nkeys; k++)
            if ((o->keys[k].flags & RIO_SET_READS_FILE) && o->keys[k].kind == RIO_SET_TRI)
                *(enum rio_tristate *)((char *)h->slot[i].block + o->keys[k].off) = RIO_DISABLE;
    }
}

/* ROMIO's rule: a file opened with romio_no_indep_rw does all its I/O
 * collectively, so collective buffering is enabled for both directions
 * (MPI_File_get_info says so), over the info's romio_cb_* keys. */
static void no_indep_implies_cb(struct rio_hints *h)
{
    if (rio__file_settings(h)->no_indep_rw) {
        set_one(h, "romio_cb_read", "enable", 1, 0);
        set_one(h, "romio_cb_write", "enable", 1, 0);
    }
}

void rio__hints_apply(struct rio_hints *h, MPI_Info info, int at_open, int no_reads)
{
    if (info != MPI_INFO_NULL) {
        int n = 0;
        MPI_Info_get_nkeys(info, &n);
        for (int i = 0; i < n; i++) {
            char key[MPI_MAX_INFO_KEY + 1], val[1024];
            int flag = 0;
            if (MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS)
                continue;
            if (MPI_Info_get(info, key, (int)sizeof val - 1, val, &flag) != MPI_SUCCESS || !flag)
                continue;
            apply_one(h, key, val, at_open, no_reads);
        }
    }
    if (at_open)
        no_indep_implies_cb(h);
    int no_indep_before = rio__file_settings(h)->no_indep_rw;
    const char *env = getenv("RESONIO_HINTS");
    if (env && *env) {
        char *copy = rio__strdup(env), *save = NULL;
        if (!copy)
            return;
        for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq) {
                if (verbose())
                    fprintf(stderr, "resonio: ignoring RESONIO_HINTS entry '%s'\n", kv);
                continue;
            }
            *eq = '\0';
            apply_one(h, kv, eq + 1, at_open, no_reads);
        }
        free(copy);
        /* RESONIO_HINTS's own romio_cb_* keys win unless it also turned
         * romio_no_indep_rw on, whose rule then applies as above. */
        if (at_open && !no_indep_before)
            no_indep_implies_cb(h);
    }
}

/* Contract in file_int.h. */
int rio__hints_file_read(char *text, char *name, size_t name_len)
{
    /* ROMIO's order: the named file if it opens, else the system one. */
    static const char system_file[] = "/etc/romio-hints";
    const char *env = getenv("ROMIO_HINTS"), *used = env;
    int fd = env && *env ? open(env, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) {
        used = system_file;
        fd = open(system_file, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n < RIO_HINTFILE_MAX) {
        ssize_t got = read(fd, text + n, RIO_HINTFILE_MAX - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    text[n] = '\0';
    if (name)
        rio__strcpy(name, name_len, used);
    return (int)n;
}

/* Does info hold key (whatever its value)? */
static int info_has(MPI_Info info, const char *key)
{
    int len = 0, flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
    return MPI_Info_get_valuelen(info, key, &len, &flag) == MPI_SUCCESS && flag;
}

/* Contract in file_int.h.  Lines as ROMIO takes them: blank lines and
 * lines starting with '#' are skipped, the rest must be exactly two words
 * (blanks between them) or are malformed and skipped. */
void rio__hints_file_apply(struct rio_hints *h, MPI_Info info, char *text, const char *name,
                           int report)
{
    static const char blanks[] = " \t\r";
    int lineno = 0, nseen = 0, cap = 0;
    const char **seen = NULL;
    report = report && verbose();
    if (!text)
        return;
    for (char *line = text, *next; line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *save = NULL;
        char *key = strtok_r(line, blanks, &save);
        if (!key || key[0] == '#')
            continue;
        char *val = strtok_r(NULL, blanks, &save);
        char *more = val ? strtok_r(NULL, blanks, &save) : NULL;
        if (!val || more) {
            if (report)
                fprintf(stderr, "resonio: %s:%d: ignoring malformed hint line (%s)\n",
                        name ? name : "hints file", lineno,
                        !val ? "a key without a value" : "more than a key and a value");
            continue;
        }
        /* A key given twice: the first line counts, as in ROMIO. */
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++)
            dup = !strcmp(seen[i], key);
        if (dup) {
            if (report)
                fprintf(stderr, "resonio: %s:%d: ignoring %s, set on an earlier line\n",
                        name ? name : "hints file", lineno, key);
            continue;
        }
        if (nseen == cap) {
            int ncap = cap ? 2 * cap : 32;
            const char **n = rio__realloc(seen, (size_t)ncap * sizeof *n);
            if (n) {
                seen = n;
                cap = ncap;
            }
        }
        if (nseen < cap)
            seen[nseen++] = key;
        if (!info_has(info, key))
            apply_one(h, key, val, 1, 0);
    }
    free(seen);
}

int rio__hints_to_info(const struct rio_hints *h, MPI_Info *out)
{
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS)
        return RIO_E_NOMEM;
    for (int i = 0; i < h->n; i++) {
        const struct rio_settings_owner *o = h->slot[i].owner;
        for (int k = 0; k < o->nkeys; k++) {
            char val[1024];
            if (rio__settings_format(&o->keys[k], h->slot[i].block, val, sizeof val) == 0)
                MPI_Info_set(info, o->keys[k].name, val);
        }
    }
    *out = info;
    return 0;
}

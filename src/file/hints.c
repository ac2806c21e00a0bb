/*
 * hints.c — MPI_Info hints of a file: defaults, parsing, and the info
 * object of values in effect.
 *
 * One table lists every key resonio understands with where its value lives
 * and how it parses, so parsing and MPI_File_get_info cannot disagree.
 * Values come, lowest first, from the hints file (at open only), the info
 * object given to open/set_view/set_info and RESONIO_HINTS
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
 * file's layout (striping, file_perm) are honoured only at open.  As in
 * ROMIO, a key given twice in the hints file counts at its first line, and
 * romio_no_indep_rw at open enables collective buffering both ways.
 */
#include "file_int.h"
#include "../common/cblist.h"
#include "../indep/indep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum kind { K_SIZE, K_INT, K_TRI, K_BOOL, K_STR, K_PERM, K_METHOD, K_CBLIST };

struct key {
    const char *name;
    enum kind kind;
    size_t off;
    int open_only;
};

#define F(member) offsetof(struct rio_hints, member)
static const struct key keys[] = {
    {"cb_buffer_size", K_SIZE, F(cb_buffer_size), 0},
    {"cb_nodes", K_INT, F(cb_nodes), 0},
    {"romio_cb_read", K_TRI, F(romio_cb_read), 0},
    {"romio_cb_write", K_TRI, F(romio_cb_write), 0},
    {"romio_ds_read", K_TRI, F(romio_ds_read), 0},
    {"romio_ds_write", K_TRI, F(romio_ds_write), 0},
    {"ind_rd_buffer_size", K_SIZE, F(ind_rd_buffer_size), 0},
    {"ind_wr_buffer_size", K_SIZE, F(ind_wr_buffer_size), 0},
    {"striping_unit", K_SIZE, F(striping_unit), 1},
    {"striping_factor", K_INT, F(striping_factor), 1},
    {"file_perm", K_PERM, F(file_perm), 1},
    {"romio_no_indep_rw", K_BOOL, F(no_indep_rw), 1},
    {"direct_read", K_TRI, F(direct_read), 1},
    {"direct_write", K_TRI, F(direct_write), 1},
    {"cb_config_list", K_CBLIST, F(cb_config_list), 0},
    {"access_style", K_STR, F(access_style), 0},
    {"resonio_indep_method", K_METHOD, F(indep_method), 0},
    {"resonio_strategy", K_STR, F(strategy), 0},
    {"resonio_ranks_per_node", K_INT, F(ranks_per_node), 0},
    {"resonio_fault", K_STR, F(fault), 1},
    {"resonio_uring", K_TRI, F(uring), 0},
    {"CO", K_INT, F(co), 0},
    {"big_req_size", K_SIZE, F(big_req_size), 0},
    {"ds_in_coll", K_TRI, F(ds_in_coll), 0},
    {"same_io_size", K_BOOL, F(same_io_size), 0},
    {"contiguous_data", K_BOOL, F(contiguous_data), 0},
    {"resonio_shm", K_TRI, F(shm), 0},
    {"resonio_select_calls", K_INT, F(select_calls), 0},
    {"resonio_select_threshold", K_STR, F(select_threshold), 0},
    {"resonio_select_prune", K_STR, F(select_prune), 0},
    {"resonio_select_patience", K_INT, F(select_patience), 0},
    {"resonio_select_candidates", K_STR, F(select_candidates), 0},
    {"resonio_select_reuse", K_TRI, F(select_reuse), 0},
    {"resonio_profile", K_STR, F(profile), 1},
    {"resonio_delay", K_STR, F(delay), 0},
    {"resonio_emu_dir", K_STR, F(emu_dir), 1},
};
#undef F

void rio__hints_defaults(struct rio_hints *h)
{
    memset(h, 0, sizeof *h);
    h->cb_buffer_size = 16LL << 20;
    h->ind_rd_buffer_size = 4LL << 20;
    h->ind_wr_buffer_size = 512LL << 10;
    h->file_perm = -1;
    h->co = 1;
    h->ds_in_coll = RIO_DISABLE;
    h->select_calls = 3;
    h->select_patience = 2;
}

void rio__hints_free(struct rio_hints *h)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].kind == K_STR || keys[i].kind == K_CBLIST) {
            char **p = (char **)((char *)h + keys[i].off);
            free(*p);
            *p = NULL;
        }
}

static int verbose(void)
{
    const char *v = getenv("RESONIO_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

/* Parse a size with an optional k/m/g suffix (powers of two). */
static int parse_size(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* Set one key; returns 0, or -1 for a malformed value. */
static int set_key(struct rio_hints *h, const struct key *k, const char *val)
{
    void *p = (char *)h + k->off;
    long long v;
    switch (k->kind) {
    case K_SIZE:
        if (parse_size(val, &v) || v == 0)
            return -1;
        *(long long *)p = v;
        return 0;
    case K_INT:
        if (parse_size(val, &v) || v > 1 << 30)
            return -1;
        *(int *)p = (int)v;
        return 0;
    case K_PERM: {
        char *end;
        long m = strtol(val, &end, 8);
        if (end == val || *end || m < 0 || m > 07777)
            return -1;
        *(int *)p = (int)m;
        return 0;
    }
    case K_TRI:
        if (!strcasecmp(val, "enable") || !strcasecmp(val, "true"))
            *(enum rio_tristate *)p = RIO_ENABLE;
        else if (!strcasecmp(val, "disable") || !strcasecmp(val, "false"))
            *(enum rio_tristate *)p = RIO_DISABLE;
        else if (!strcasecmp(val, "automatic") || !strcasecmp(val, "auto"))
            *(enum rio_tristate *)p = RIO_AUTO;
        else
            return -1;
        return 0;
    case K_BOOL:
        if (!strcasecmp(val, "true") || !strcasecmp(val, "enable") || !strcasecmp(val, "yes") ||
            !strcmp(val, "1"))
            *(int *)p = 1;
        else if (!strcasecmp(val, "false") || !strcasecmp(val, "disable") ||
                 !strcasecmp(val, "no") || !strcmp(val, "0"))
            *(int *)p = 0;
        else
            return -1;
        return 0;
    case K_METHOD:
        for (int i = 0; i < RIO_INDEP_NMETHODS; i++)
            if (!strcasecmp(val, rio__indep_method_name((enum rio_indep_method)i))) {
                *(enum rio_indep_method *)p = (enum rio_indep_method)i;
                return 0;
            }
        return -1;
    case K_CBLIST: { /* name[:N],...: checked here so that a bad list is ignored whole */
        int names_host;
        if (rio__cblist_check(val, &names_host))
            return -1;
    }
    /* fall through */
    case K_STR: {
        char *d = rio__strdup(val);
        if (!d)
            return -1;
        free(*(char **)p);
        *(char **)p = d;
        return 0;
    }
    }
    return -1;
}

static void apply_one(struct rio_hints *h, const char *key, const char *val, int at_open)
{
    /* The Lustre driver's directIO covers both directions. */
    if (!strcmp(key, "directIO")) {
        apply_one(h, "direct_read", val, at_open);
        apply_one(h, "direct_write", val, at_open);
        return;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(keys[i].name, key))
            continue;
        if (keys[i].open_only && !at_open)
            return;
        if (h->write_only && (keys[i].off == offsetof(struct rio_hints, romio_ds_write) ||
                              keys[i].off == offsetof(struct rio_hints, ds_in_coll)))
            return;
        if (set_key(h, &keys[i], val) && verbose())
            fprintf(stderr, "resonio: ignoring hint %s=%s: malformed value\n", key, val);
        return;
    }
}

/* ROMIO's rule: a file opened with romio_no_indep_rw does all its I/O
 * collectively, so collective buffering is enabled for both directions
 * (MPI_File_get_info says so), over the info's romio_cb_* keys. */
static void no_indep_implies_cb(struct rio_hints *h)
{
    if (h->no_indep_rw)
        h->romio_cb_read = h->romio_cb_write = RIO_ENABLE;
}

void rio__hints_apply(struct rio_hints *h, MPI_Info info, int at_open)
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
            apply_one(h, key, val, at_open);
        }
    }
    if (at_open)
        no_indep_implies_cb(h);
    int no_indep_before = h->no_indep_rw;
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
            apply_one(h, kv, eq + 1, at_open);
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
            apply_one(h, key, val, 1);
    }
    free(seen);
}

static const char *tri_name(enum rio_tristate t)
{
    return t == RIO_ENABLE ? "enable" : t == RIO_DISABLE ? "disable" : "automatic";
}

int rio__hints_to_info(const struct rio_hints *h, MPI_Info *out)
{
    MPI_Info info;
    if (MPI_Info_create(&info) != MPI_SUCCESS)
        return RIO_E_NOMEM;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const void *p = (const char *)h + keys[i].off;
        char val[64];
        const char *v = val;
        switch (keys[i].kind) {
        case K_SIZE:
            if (*(const long long *)p == 0)
                continue;
            snprintf(val, sizeof val, "%lld", *(const long long *)p);
            break;
        case K_INT:
            if (*(const int *)p == 0)
                continue;
            snprintf(val, sizeof val, "%d", *(const int *)p);
            break;
        case K_PERM:
            if (*(const int *)p < 0)
                continue;
            snprintf(val, sizeof val, "%o", *(const int *)p);
            break;
        case K_TRI:
            v = tri_name(*(const enum rio_tristate *)p);
            break;
        case K_BOOL:
            v = *(const int *)p ? "true" : "false";
            break;
        case K_METHOD:
            v = rio__indep_method_name(*(const enum rio_indep_method *)p);
            break;
        case K_STR:
        case K_CBLIST:
            v = *(char *const *)p;
            if (!v)
                continue;
            break;
        }
        MPI_Info_set(info, keys[i].name, v);
    }
    *out = info;
    return 0;
}

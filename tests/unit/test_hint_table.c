/*
 * test_hint_table.c — the owners' key tables are sound, and README.md's
 * table of hints says what they say.
 *
 * Every key is declared once, by its owner (common/settings.h); this test
 * walks the owners as the file layer does and checks that each default
 * parses, no key is declared twice, each owner's struct fits the block of
 * zeros an owner falls back to, and that README.md's table (the one whose
 * header is "| key | owner | default | meaning |") has one row per key
 * with the same owner and default, and no row for a key the code lacks.
 * A difference is named by its key.  "-print" prints the rows the tables
 * give (the meaning from the key's one-line doc), to start a README row.
 *
 * Usage: test_hint_table <scratch-dir> [-readme FILE] | test_hint_table -print
 */
#include "file/file_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#ifndef RIO_README
#error "RIO_README: the path of README.md, set by tests/CMakeLists.txt"
#endif

#define MAXROWS 256

struct row {
    char key[64], owner[32], def[64];
    int line, matched;
};

/* The README's form of a key's default: the text as written in the table,
 * or an em dash for a key that is unset by default. */
static const char *def_text(const struct rio_setting *k)
{
    return k->def ? k->def : "\xe2\x80\x94";
}

/* Copy cell (between two '|') into out without blanks around it and
 * without the backticks of code spans. */
static void cell(const char *from, const char *to, char *out, size_t n)
{
    while (from < to && (*from == ' ' || *from == '`'))
        from++;
    while (to > from && (to[-1] == ' ' || to[-1] == '`'))
        to--;
    size_t len = (size_t)(to - from) < n - 1 ? (size_t)(to - from) : n - 1;
    memcpy(out, from, len);
    out[len] = '\0';
}

/* The rows of README's table of hints; returns their count, -1 when the
 * file cannot be read or has no such table. */
static int read_rows(const char *path, struct row *rows, int max)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    int n = 0, in = 0, lineno = 0, found = 0;
    if (!f) {
        perror(path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!in) {
            if (!strncmp(line, "| key | owner | default | meaning |", 34))
                in = found = 1;
            continue;
        }
        if (line[0] != '|')
            break; /* the table ends */
        if (!strncmp(line, "|---", 4))
            continue;
        const char *c1 = line, *c2 = strchr(c1 + 1, '|'), *c3 = c2 ? strchr(c2 + 1, '|') : NULL,
                   *c4 = c3 ? strchr(c3 + 1, '|') : NULL;
        if (!c4 || n == max) {
            CHECK(0, "README.md:%d: a row of the hints table without four cells", lineno);
            continue;
        }
        cell(c1 + 1, c2, rows[n].key, sizeof rows[n].key);
        cell(c2 + 1, c3, rows[n].owner, sizeof rows[n].owner);
        cell(c3 + 1, c4, rows[n].def, sizeof rows[n].def);
        rows[n].line = lineno;
        rows[n].matched = 0;
        n++;
    }
    fclose(f);
    if (!found)
        fprintf(stderr, "%s: no table headed '| key | owner | default | meaning |'\n", path);
    return found ? n : -1;
}

static void print_rows(void)
{
    printf("| key | owner | default | meaning |\n|---|---|---|---|\n");
    for (int i = 0; rio__hints_owner_at(i); i++) {
        const struct rio_settings_owner *o = rio__hints_owner_at(i);
        for (int k = 0; k < o->nkeys; k++) {
            const struct rio_setting *key = &o->keys[k];
            printf("| `%s` | %s | %s%s%s | %s |\n", key->name, o->name, key->def ? "`" : "",
                   def_text(key), key->def ? "`" : "", key->doc);
        }
    }
}

/* The tables themselves: defaults parse, names are unique, blocks fit. */
static void check_tables(void)
{
    struct rio_hints h;
    memset(&h, 0, sizeof h);
    CHECK(rio__hints_defaults(&h) == 0, "every default parses: %s", rio__err_detail_peek());
    int nkeys = 0;
    for (int i = 0; rio__hints_owner_at(i); i++) {
        const struct rio_settings_owner *o = rio__hints_owner_at(i);
        CHECK(o->size <= 64 * sizeof(max_align_t), "owner %s: settings of %zu bytes", o->name,
              o->size);
        for (int k = 0; k < o->nkeys; k++) {
            const struct rio_setting *key = &o->keys[k];
            void *block;
            nkeys++;
            CHECK(rio__settings_find(&h, key->name, &block) == key,
                  "key %s (%s) is declared by another owner first", key->name, o->name);
            CHECK(key->doc && *key->doc && !strchr(key->doc, '|'),
                  "key %s: a one-line meaning without '|'", key->name);
            /* a zeroed struct rio_hints reads the same defaults */
            const char *a = rio__settings_get(&h, o), *b = rio__settings_get(NULL, o);
            char va[1024], vb[1024];
            int ra = rio__settings_format(key, a, va, sizeof va);
            int rb = rio__settings_format(key, b, vb, sizeof vb);
            CHECK(ra == rb && (ra || !strcmp(va, vb)), "key %s: the defaults of a file (%s) "
                  "and of no file (%s) differ", key->name, ra ? "unset" : va, rb ? "unset" : vb);
        }
    }
    CHECK(nkeys > 30, "%d keys in all", nkeys);
    CHECK(rio__settings_find(&h, "access_style", &(void *){NULL}) == NULL,
          "access_style is not a key (nothing reads it)");
    rio__hints_free(&h);
}

static void check_readme(const char *path)
{
    static struct row rows[MAXROWS];
    int n = read_rows(path, rows, MAXROWS);
    CHECK(n >= 0, "%s: the table of hints cannot be read", path);
    if (n < 0)
        return;
    for (int i = 0; rio__hints_owner_at(i); i++) {
        const struct rio_settings_owner *o = rio__hints_owner_at(i);
        for (int k = 0; k < o->nkeys; k++) {
            const struct rio_setting *key = &o->keys[k];
            int r = 0;
            while (r < n && strcmp(rows[r].key, key->name))
                r++;
            CHECK(r < n, "README.md lacks a row for the key %s (owner %s, default %s)",
                  key->name, o->name, def_text(key));
            if (r == n)
                continue;
            rows[r].matched++;
            CHECK(!strcmp(rows[r].owner, o->name), "README.md:%d: key %s: owner '%s', the code "
                  "says %s", rows[r].line, key->name, rows[r].owner, o->name);
            CHECK(!strcmp(rows[r].def, def_text(key)), "README.md:%d: key %s: default '%s', the "
                  "code says '%s'", rows[r].line, key->name, rows[r].def, def_text(key));
        }
    }
    for (int r = 0; r < n; r++)
        CHECK(rows[r].matched == 1, "README.md:%d: key %s: %s", rows[r].line, rows[r].key,
              rows[r].matched ? "more than one row" : "no such key in the code");
}

int main(int argc, char **argv)
{
    const char *readme = RIO_README;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-print")) {
            print_rows();
            return 0;
        }
        if (!strcmp(argv[i], "-readme") && i + 1 < argc)
            readme = argv[++i];
    }
    check_tables();
    check_readme(readme);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

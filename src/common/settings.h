/*
 * settings.h — hints as settings that each owner declares for itself.
 *
 * An owner (a layer such as coll/ or indep/, or a storage driver) keeps
 * the values of its hints in a struct of its own and describes them in a
 * table of keys: name, how the value parses, where in the struct it goes,
 * its default and a one-line meaning.  The file layer gathers the owners'
 * tables into one struct rio_hints per open file, which holds one block
 * per owner; an owner reads its block with rio__settings_get (through a
 * typed helper in its own header) and never sees another owner's keys.
 * So a new driver or layer brings its keys in its own files, and parsing,
 * MPI_File_get_info and the README's table of keys all read the same
 * tables.
 *
 * This file has the machinery only: the kinds of value (a size with a
 * k/m/g suffix, an int, a tristate, a bool, a string, octal permissions, a
 * name from a list) and their parsing and formatting.  An owner whose
 * value needs more than its kind checks (cb_config_list's syntax, an
 * independent method's name) gives a validator or a list of names in its
 * key; the checking is the owner's, its calling is here.
 */
#ifndef RIO_SETTINGS_H
#define RIO_SETTINGS_H

#include <stddef.h>

enum rio_tristate { RIO_AUTO = 0, RIO_ENABLE = 1, RIO_DISABLE = 2 };

enum rio_setting_kind {
    RIO_SET_SIZE,   /* long long > 0, optional k/m/g suffix (powers of two) */
    RIO_SET_INT,    /* int in [0, 2^30], optional k/m/g suffix */
    RIO_SET_TRI,    /* enum rio_tristate: enable/true, disable/false, automatic/auto */
    RIO_SET_BOOL,   /* int 0/1: true/enable/yes/1, false/disable/no/0 */
    RIO_SET_STR,    /* char *, owned (strdup'd), NULL when unset */
    RIO_SET_PERM,   /* int, octal permissions; -1 when unset */
    RIO_SET_CHOICE, /* int: the index of the value among choice(0), choice(1), ... */
};

/* Flags of a key. */
#define RIO_SET_OPEN_ONLY 1u  /* honoured at open only (the file's layout, its driver) */
#define RIO_SET_READS_FILE 2u /* enabling it makes writes read the file: a file that
                                 cannot be read keeps it at disable (RIO_SET_TRI) */

struct rio_setting {
    const char *name;
    enum rio_setting_kind kind;
    size_t off; /* of the value in the owner's struct */
    /* The default as a value of the key is written ("16m", "disable"),
     * parsed like one; NULL: unset (0, NULL, automatic, or -1 for PERM). */
    const char *def;
    unsigned flags; /* RIO_SET_* above */
    const char *doc; /* one line: what the key does */
    /* RIO_SET_CHOICE: the i-th name (matched without case), NULL past the
     * last.  RIO_SET_STR: NULL, or a check returning 0 for an acceptable
     * value (a value it refuses is ignored whole). */
    const char *(*choice)(int i);
    int (*check)(const char *val);
};

struct rio_settings_owner {
    const char *name;                 /* "coll", "posix", ... */
    size_t size;                      /* of its settings struct */
    const struct rio_setting *keys;
    int nkeys;
};

/* An owner's descriptor from its settings type and its table of keys. */
#define RIO_SETTINGS_OWNER(oname, type, table)                                      \
    {                                                                              \
        .name = (oname), .size = sizeof(type), .keys = (table),                   \
        .nkeys = (int)(sizeof(table) / sizeof((table)[0])),                        \
    }

/* The slots of one owner in a struct rio_hints. */
struct rio_settings_slot {
    const struct rio_settings_owner *owner; /* static */
    void *block;                            /* owner->size bytes, in the one allocation */
};

/* The hints of one file: a block per owner.  A struct rio_hints set to all
 * zeros (no owners) is valid: every owner then reads its defaults. */
struct rio_hints {
    int n;
    struct rio_settings_slot *slot; /* n slots, then the blocks; owned */
};

/** Fill h with a block per owner that at(0), at(1), ... return (until
 *  NULL), each key at its default.  Local.  Returns 0, or RIO_E_NOMEM (h
 *  then has no owners), or RIO_E_ARG when a default does not parse (a
 *  table's mistake, with a detail naming the key).  Free with
 *  rio__settings_free. */
int rio__settings_init(struct rio_hints *h, const struct rio_settings_owner *(*at)(int i));
/** Release h's strings and blocks; h is left with no owners.  h all
 *  zeros is fine. */
void rio__settings_free(struct rio_hints *h);
/** The block of owner o in h: a struct of o's settings type, which lives
 *  as long as h.  When h is NULL or has no block of o, o's defaults
 *  (kept for the process; zeros if memory ran out).  Never NULL.  Local;
 *  thread-safe. */
const void *rio__settings_get(const struct rio_hints *h, const struct rio_settings_owner *o);
/** The key called name in h's owners and, in *block, its owner's block;
 *  NULL when no owner has it. */
const struct rio_setting *rio__settings_find(struct rio_hints *h, const char *name,
                                             void **block);
/** Set key k in block from its text val.  Returns 0, or -1 when val is
 *  malformed or a string cannot be copied (the value is then unchanged). */
int rio__settings_parse(const struct rio_setting *k, void *block, const char *val);
/** Write key k's value in block as MPI_File_get_info reports it, into
 *  buf of n bytes.  Returns 0, or 1 when the key is unset (nothing to
 *  report: a 0 size or int, a NULL string, PERM -1). */
int rio__settings_format(const struct rio_setting *k, const void *block, char *buf, size_t n);

#endif /* RIO_SETTINGS_H */

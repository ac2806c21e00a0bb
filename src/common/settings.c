/*
 * settings.c — parsing and formatting of the owners' keys, and the block
 * per owner that a struct rio_hints holds (settings.h says why).
 *
 * The blocks of one struct rio_hints are one allocation: the slots, then
 * each owner's block at an offset aligned for any type.  An owner's block
 * is found by comparing the owner's address with the slots' (a dozen
 * owners at most, so a walk costs less than a hash would).  A struct
 * rio_hints without the owner (all zeros, or a NULL pointer: a store
 * opened by a test or a tool without a file) gives the owner's defaults,
 * made once per process from its table and kept, so the defaults are
 * written in the tables only and no reader needs a fallback of its own.
 */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ALIGN_UP(n) (((n) + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t))

static int set_defaults(const struct rio_settings_owner *o, void *block);

/* The defaults of owners read without a struct rio_hints holding them:
 * built at the first such read, kept for the process (a list that only
 * grows, so readers walk it without the lock). */
struct defaults {
    struct defaults *next;
    const struct rio_settings_owner *owner;
    max_align_t block[]; /* owner->size bytes */
};
static struct defaults *_Atomic defaults_list;
static pthread_mutex_t defaults_lock = PTHREAD_MUTEX_INITIALIZER;
/* What an owner reads when even its defaults cannot be made (out of
 * memory): zeros, as big as the largest owner's struct (test_hint_table
 * checks that each fits). */
static const max_align_t zeros[64];

static const void *defaults_of(const struct rio_settings_owner *o)
{
    for (struct defaults *d = atomic_load_explicit(&defaults_list, memory_order_acquire); d;
         d = d->next)
        if (d->owner == o)
            return d->block;
    pthread_mutex_lock(&defaults_lock);
    struct defaults *d = atomic_load_explicit(&defaults_list, memory_order_relaxed);
    while (d && d->owner != o)
        d = d->next;
    if (!d) {
        d = rio__calloc(1, sizeof *d + o->size);
        if (d && set_defaults(o, d->block) == 0) {
            d->owner = o;
            d->next = atomic_load_explicit(&defaults_list, memory_order_relaxed);
            atomic_store_explicit(&defaults_list, d, memory_order_release);
        } else {
            free(d);
            d = NULL;
        }
    }
    pthread_mutex_unlock(&defaults_lock);
    return d ? (const void *)d->block : (const void *)zeros;
}

/* Contract in settings.h. */
const void *rio__settings_get(const struct rio_hints *h, const struct rio_settings_owner *o)
{
    if (h)
        for (int i = 0; i < h->n; i++)
            if (h->slot[i].owner == o)
                return h->slot[i].block;
    return defaults_of(o);
}

/* Contract in settings.h. */
const struct rio_setting *rio__settings_find(struct rio_hints *h, const char *name,
                                             void **block)
{
    for (int i = 0; i < h->n; i++) {
        const struct rio_settings_owner *o = h->slot[i].owner;
        for (int k = 0; k < o->nkeys; k++)
            if (!strcmp(o->keys[k].name, name)) {
                *block = h->slot[i].block;
                return &o->keys[k];
            }
    }
    return NULL;
}

/* A size with an optional k/m/g suffix (powers of two). */
static int parse_size(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v > LLONG_MAX >> shift)
        return -1;
    *out = v << shift;
    return 0;
}

/* Contract in settings.h. */
int rio__settings_parse(const struct rio_setting *k, void *block, const char *val)
{
    void *p = (char *)block + k->off;
    long long v;
    switch (k->kind) {
    case RIO_SET_SIZE:
        if (parse_size(val, &v) || v == 0)
            return -1;
        *(long long *)p = v;
        return 0;
    case RIO_SET_INT:
        if (parse_size(val, &v) || v > 1 << 30)
            return -1;
        *(int *)p = (int)v;
        return 0;
    case RIO_SET_PERM: {
        char *end;
        long m = strtol(val, &end, 8);
        if (end == val || *end || m < 0 || m > 07777)
            return -1;
        *(int *)p = (int)m;
        return 0;
    }
    case RIO_SET_TRI:
        if (!strcasecmp(val, "enable") || !strcasecmp(val, "true"))
            *(enum rio_tristate *)p = RIO_ENABLE;
        else if (!strcasecmp(val, "disable") || !strcasecmp(val, "false"))
            *(enum rio_tristate *)p = RIO_DISABLE;
        else if (!strcasecmp(val, "automatic") || !strcasecmp(val, "auto"))
            *(enum rio_tristate *)p = RIO_AUTO;
        else
            return -1;
        return 0;
    case RIO_SET_BOOL:
        if (!strcasecmp(val, "true") || !strcasecmp(val, "enable") || !strcasecmp(val, "yes") ||
            !strcmp(val, "1"))
            *(int *)p = 1;
        else if (!strcasecmp(val, "false") || !strcasecmp(val, "disable") ||
                 !strcasecmp(val, "no") || !strcmp(val, "0"))
            *(int *)p = 0;
        else
            return -1;
        return 0;
    case RIO_SET_CHOICE:
        for (int i = 0; k->choice && k->choice(i); i++)
            if (!strcasecmp(val, k->choice(i))) {
                *(int *)p = i;
                return 0;
            }
        return -1;
    case RIO_SET_STR: {
        if (k->check && k->check(val))
            return -1; /* refused whole */
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

static const char *tri_name(enum rio_tristate t)
{
    return t == RIO_ENABLE ? "enable" : t == RIO_DISABLE ? "disable" : "automatic";
}

/* Contract in settings.h. */
int rio__settings_format(const struct rio_setting *k, const void *block, char *buf, size_t n)
{
    const void *p = (const char *)block + k->off;
    const char *v = NULL;
    switch (k->kind) {
    case RIO_SET_SIZE:
        if (*(const long long *)p == 0)
            return 1;
        snprintf(buf, n, "%lld", *(const long long *)p);
        return 0;
    case RIO_SET_INT:
        if (*(const int *)p == 0)
            return 1;
        snprintf(buf, n, "%d", *(const int *)p);
        return 0;
    case RIO_SET_PERM:
        if (*(const int *)p < 0)
            return 1;
        snprintf(buf, n, "%o", *(const int *)p);
        return 0;
    case RIO_SET_TRI:
        v = tri_name(*(const enum rio_tristate *)p);
        break;
    case RIO_SET_BOOL:
        v = *(const int *)p ? "true" : "false";
        break;
    case RIO_SET_CHOICE:
        v = k->choice ? k->choice(*(const int *)p) : NULL;
        if (!v)
            v = "?";
        break;
    case RIO_SET_STR:
        v = *(char *const *)p;
        if (!v)
            return 1;
        break;
    }
    rio__strcpy(buf, n, v);
    return 0;
}

/* Free the strings of o's keys in block. */
static void free_strings(const struct rio_settings_owner *o, void *block)
{
    for (int k = 0; k < o->nkeys; k++)
        if (o->keys[k].kind == RIO_SET_STR) {
            char **p = (char **)((char *)block + o->keys[k].off);
            free(*p);
            *p = NULL;
        }
}

/* Set each key of o in block (zeros) to its default.  Returns 0, or
 * RIO_E_NOMEM, or RIO_E_ARG when a default does not parse (the table's
 * mistake, named in the detail); the strings set so far are then freed. */
static int set_defaults(const struct rio_settings_owner *o, void *block)
{
    for (int k = 0; k < o->nkeys; k++) {
        const struct rio_setting *key = &o->keys[k];
        if (key->kind == RIO_SET_PERM)
            *(int *)((char *)block + key->off) = -1; /* unset */
        if (key->def && rio__settings_parse(key, block, key->def)) {
            rio__err_detail("hint %s of %s: default '%s' does not parse", key->name, o->name,
                            key->def);
            free_strings(o, block);
            return key->kind == RIO_SET_STR ? RIO_E_NOMEM : RIO_E_ARG;
        }
    }
    return 0;
}

/* Contract in settings.h. */
int rio__settings_init(struct rio_hints *h, const struct rio_settings_owner *(*at)(int i))
{
    int n = 0;
    while (at(n))
        n++;
    size_t bytes = ALIGN_UP((size_t)n * sizeof(struct rio_settings_slot));
    size_t head = bytes;
    for (int i = 0; i < n; i++)
        bytes += ALIGN_UP(at(i)->size);
    h->n = 0;
    h->slot = rio__calloc(1, bytes ? bytes : 1);
    if (!h->slot)
        return RIO_E_NOMEM;
    char *mem = (char *)h->slot + head;
    for (int i = 0; i < n; i++) {
        const struct rio_settings_owner *o = at(i);
        h->slot[i].owner = o;
        h->slot[i].block = mem;
        mem += ALIGN_UP(o->size);
        int rc = set_defaults(o, h->slot[i].block);
        if (rc) {
            rio__settings_free(h);
            return rc;
        }
        h->n = i + 1;
    }
    return 0;
}

/* Contract in settings.h. */
void rio__settings_free(struct rio_hints *h)
{
    if (!h->slot) {
        h->n = 0;
        return;
    }
    for (int i = 0; i < h->n; i++)
        free_strings(h->slot[i].owner, h->slot[i].block);
    free(h->slot);
    h->slot = NULL;
    h->n = 0;
}

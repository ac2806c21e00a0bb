/*
 * cblist.c — parsing of the cb_config_list hint (cblist.h): an entry at
 * a time, so that checking a list and walking its entries over the nodes
 * share one reading of the syntax.
 */
#include "cblist.h"

#include <string.h>

/* Contract in cblist.h. */
int rio__cblist_next(const char **p, struct rio_cblist_entry *e)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t n = strcspn(s, ":,");
    if (n == 0)
        return -1;
    e->name = (n == 1 && s[0] == '*') ? NULL : s;
    e->len = n;
    if (e->name && memchr(s, '*', n) == s)
        return -1; /* '*' must stand alone, as in ROMIO */
    s += n;
    e->max = 1;
    if (*s == ':') {
        s++;
        size_t m = strcspn(s, ",");
        if (m == 1 && s[0] == '*') {
            e->max = -1;
        } else {
            if (m == 0 || m > 9)
                return -1;
            e->max = 0;
            for (size_t k = 0; k < m; k++) {
                if (s[k] < '0' || s[k] > '9')
                    return -1;
                e->max = e->max * 10 + (s[k] - '0');
            }
        }
        s += m;
    }
    if (*s == ',') {
        s++;
        if (!*s)
            return -1; /* a trailing comma leaves an empty entry */
    }
    *p = s;
    return 1;
}

/* Contract in cblist.h. */
int rio__cblist_check(const char *list, int *names_host)
{
    struct rio_cblist_entry e;
    const char *p = list;
    int rc;
    *names_host = 0;
    if (!list || !*list)
        return -1;
    while ((rc = rio__cblist_next(&p, &e)) > 0)
        if (e.name)
            *names_host = 1;
    return rc;
}


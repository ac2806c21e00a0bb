/*
 * unit.h — the check harness the unit tests share.
 *
 * CHECK(cond, fmt, ...) counts a passed or failed check and prints the
 * failed ones with their place; a test ends by printing
 * "<npass> passed, <nfail> failed" and returning nfail != 0.
 */
#ifndef RIO_UNIT_H
#define RIO_UNIT_H

#include <stdio.h>

static int npass, nfail;

#define CHECK(cond, ...)                                \
    do {                                                \
        if (cond) {                                     \
            npass++;                                    \
        } else {                                        \
            nfail++;                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

#ifdef RIO_FILE_INT_H
/* Set the hint key=val in h as an info at open would, making h's defaults
 * first when it holds none (all zeros); a refusal counts as a failed
 * check. */
static inline void unit_hint(struct rio_hints *h, const char *key, const char *val)
{
    if (!h->n && rio__hints_defaults(h)) {
        CHECK(0, "hint %s: out of memory", key);
        return;
    }
    if (rio__hints_set(h, key, val))
        CHECK(0, "hint %s=%s refused", key, val);
}
#endif

#endif /* RIO_UNIT_H */

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

#endif /* RIO_UNIT_H */

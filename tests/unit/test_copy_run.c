/*
 * test_copy_run.c — rio__copy_run (src/common/common.h), the copy of one
 * run that the exchange and the datatype engine make per piece.
 *
 * Every length from 0 to 200 bytes, at every source and destination
 * alignment within 16 bytes: the run's bytes arrive, and no byte around
 * the destination run changes (the short paths copy overlapping words, so
 * a wrong bound would write past either end).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "unit.h"

#define MAXLEN 200
#define PAD 32

int main(void)
{
    unsigned char src[MAXLEN + 2 * PAD], dst[MAXLEN + 2 * PAD], want[MAXLEN + 2 * PAD];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    for (size_t len = 0; len <= MAXLEN; len++) {
        int bad = 0;
        for (size_t so = 0; so < 16 && !bad; so++) {
            for (size_t dof = 0; dof < 16 && !bad; dof++) {
                memset(dst, 0xC3, sizeof dst);
                memcpy(want, dst, sizeof dst);
                memcpy(want + PAD + dof, src + PAD + so, len);
                rio__copy_run(dst + PAD + dof, src + PAD + so, (MPI_Offset)len);
                if (memcmp(dst, want, sizeof dst)) {
                    size_t at = 0;
                    while (dst[at] == want[at])
                        at++;
                    CHECK(0,
                          "length %zu, source offset %zu, destination offset %zu: byte %td "
                          "from the run's start is 0x%02x, want 0x%02x",
                          len, so, dof, (ptrdiff_t)at - (ptrdiff_t)(PAD + dof), dst[at],
                          want[at]);
                    bad = 1;
                }
            }
        }
        if (!bad)
            CHECK(1, "length %zu", len);
    }
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

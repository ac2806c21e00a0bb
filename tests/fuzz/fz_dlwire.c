/*
 * fz_dlwire.c — libFuzzer target: the dataloop deserializer and the walk
 * the server makes over a shipped view.
 *
 * The first 16 bytes of the input choose the walk: stream position (up to
 * 2^32), length (up to 64 KiB, so each run is quick), displacement,
 * stripe unit (1 to 65536), stripe count (1 to 8) and index.  The rest is
 * the serialized dataloop.  What decodes is walked, each region cut into
 * stripe pieces as the server does, and every region and piece is checked
 * against the promises of dlwire.h: inside [0, RIO_EMU_MAX_OFFSET), and
 * no more stream bytes than asked for; the decoded tree is then encoded
 * again and must give back the input's bytes (the encoder and the decoder
 * agree).  A broken promise aborts (a crash for the fuzzer), and so does
 * an overflow in the shared walker (UndefinedBehaviorSanitizer).
 *
 * Build (outside the MPI build): clang -fsanitize=fuzzer,address,undefined
 * -Isrc tests/fuzz/fz_dlwire.c src/emu/dlwire.c src/dloop/dloop.c
 * src/emu/proto.c tests/fuzz/fz_alloc.c
 */
#include "emu/dlwire.h"

#include <stdlib.h>
#include <string.h>

struct walk {
    int64_t bytes, pieces, unit;
    uint32_t count, index;
};

static int piece(void *arg, int64_t off, int64_t len)
{
    struct walk *w = arg;
    if (off < 0 || len <= 0 || len > w->unit)
        abort();
    w->pieces++;
    return 0;
}

static int region(void *arg, int64_t off, int64_t len)
{
    struct walk *w = arg;
    if (off < 0 || len <= 0 || off > RIO_EMU_MAX_OFFSET || len > RIO_EMU_MAX_OFFSET - off)
        abort();
    w->bytes += len;
    return rio__emu_stripe_pieces(off, len, w->unit, w->count, w->index, piece, w);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    struct rio_emu_dltype *t = NULL;
    if (n < 16)
        return 0;
    int64_t pos = (int64_t)rio__emu_get32(d);
    int64_t len = (int64_t)(d[4] | d[5] << 8);
    int64_t disp = (int64_t)rio__emu_get32(d + 6);
    struct walk w = {0, 0, (int64_t)(d[10] | d[11] << 8) + 1, (uint32_t)(d[12] % 8) + 1, 0};
    w.index = d[13] % w.count;
    if (rio__emu_dl_decode(d + 16, n - 16, &t))
        return 0;
    if (t->depth > RIO_EMU_DL_MAX_DEPTH || t->nodes > RIO_EMU_DL_MAX_NODES || t->root->size < 1)
        abort();
    if (!rio__emu_dl_walk(t, disp, pos, len, region, &w) && w.bytes != len)
        abort(); /* a complete walk hands out exactly len bytes */
    unsigned char *again = NULL;
    size_t an = 0;
    if (rio__emu_dl_encode(t->root, t->tile_extent, &again, &an) || an != n - 16 ||
        memcmp(again, d + 16, an) != 0)
        abort(); /* what decodes encodes back to the same bytes */
    free(again);
    rio__emu_dl_free(t);
    return 0;
}

/*
 * fz_proto.c — libFuzzer target: resonio-emud's message parser.
 *
 * The input is a message as it arrives on a socket: a header, then a
 * payload.  The header goes through rio__emu_hdr_decode; the rest through
 * rio__emu_req_decode twice, once with the header's own length (which
 * must then match) and once with the length made to match, so that every
 * op's field checks are reached.  Whatever decodes is then read in full
 * (list entries, name, data, dataloop bytes) so that a pointer or count
 * the decoder let through wrongly shows under AddressSanitizer.  The
 * layout and counter decoders get the payload too.
 *
 * Build (outside the MPI build): clang -fsanitize=fuzzer,address,undefined
 * -Isrc tests/fuzz/fz_proto.c src/emu/proto.c tests/fuzz/fz_alloc.c
 */
#include "emu/proto.h"

#include <stddef.h>
#include <stdint.h>

static volatile uint64_t sink;

static void touch(const struct rio_emu_req *r)
{
    uint64_t s = r->fid + (uint64_t)r->off + (uint64_t)r->len;
    for (uint32_t i = 0; i < r->n; i++) {
        int64_t off, len;
        rio__emu_pair(r, i, &off, &len);
        s += (uint64_t)off ^ (uint64_t)len;
    }
    for (uint32_t i = 0; i < r->namelen; i++)
        s += (unsigned char)r->name[i];
    for (uint32_t i = 0; i < r->dllen; i++)
        s += r->dl[i];
    for (uint64_t i = 0; i < r->datalen; i++)
        s += r->data[i];
    sink = s;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    struct rio_emu_hdr h;
    struct rio_emu_req r;
    struct rio_emu_layout l;
    struct rio_emu_stats st;
    if (n < RIO_EMU_HDR_SIZE)
        return 0;
    rio__emu_hdr_decode(d, &h); /* fills h even when it fails */
    if (!rio__emu_req_decode(&h, d + RIO_EMU_HDR_SIZE, n - RIO_EMU_HDR_SIZE, &r))
        touch(&r);
    h.length = n - RIO_EMU_HDR_SIZE;
    if (!rio__emu_req_decode(&h, d + RIO_EMU_HDR_SIZE, n - RIO_EMU_HDR_SIZE, &r))
        touch(&r);
    if (!rio__emu_get_layout(d + RIO_EMU_HDR_SIZE, n - RIO_EMU_HDR_SIZE, &l))
        sink = l.fid;
    if (!rio__emu_get_stats(d + RIO_EMU_HDR_SIZE, n - RIO_EMU_HDR_SIZE, &st))
        sink = st.requests;
    return 0;
}

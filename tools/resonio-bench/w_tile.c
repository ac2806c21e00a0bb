/*
 * w_tile.c — the tile reader of datatype-io.txt §V-B (Figure 9, Table II):
 * a 3x2 array of displays, each 1024x768 pixels of 24-bit colour, with a
 * 270-pixel horizontal and a 128-pixel vertical overlap between tiles, so
 * a frame is 2532x1408 pixels (10.2 MiB); frames are accessed in sequence
 * (100 in the paper), each tile into a contiguous buffer.
 *
 * The paper has one process per tile.  With N ranks, frame f takes
 * ceil(6/N) collective calls and in call j rank i handles tile j*N+i (or
 * nothing past the last tile).  Every tile has the same filetype (768 rows
 * of 3072 bytes, one frame row apart); only the displacement moves, so the
 * view is set before every call.  The write phase writes the tiles the same
 * way; overlapping tiles carry the same bytes.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"frames", BP_COUNT, "2", 1, 100000, NULL, "frames in sequence (paper: 100)"},
    {"tiles_x", BP_COUNT, "3", 1, 64, NULL, "displays across (3)"},
    {"tiles_y", BP_COUNT, "2", 1, 64, NULL, "displays down (2)"},
    {"tile_w", BP_COUNT, "1024", 1, 65536, NULL, "pixels across a display (1024)"},
    {"tile_h", BP_COUNT, "768", 1, 65536, NULL, "pixels down a display (768)"},
    {"overlap_x", BP_COUNT, "270", 0, 65535, NULL, "horizontal overlap in pixels (270)"},
    {"overlap_y", BP_COUNT, "128", 0, 65535, NULL, "vertical overlap in pixels (128)"},
    {"pixel", BP_COUNT, "3", 1, 16, NULL, "bytes per pixel (3)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long frames = v[0], tx = v[1], ty = v[2], tw = v[3], th = v[4], ox = v[5], oy = v[6],
              px = v[7];
    if (ox >= tw || oy >= th)
        return bench_fail(err, len, "tile: overlaps must be smaller than the tile");
    long long W = tx * tw - (tx - 1) * ox, H = ty * th - (ty - 1) * oy;
    long long frame = W * H * px, tbytes = tw * th * px, ntile = tx * ty;
    long long per_frame = (ntile + np - 1) / np, calls = frames * per_frame;
    if (tbytes > BENCH_INT_MAX || W * px > BENCH_INT_MAX || calls > 1000000)
        return bench_fail(err, len, "tile: too large");
    p->etype = MPI_BYTE;
    p->memtype = MPI_BYTE;
    if (MPI_Type_vector((int)th, (int)(tw * px), (int)(W * px), MPI_BYTE, &p->filetype) !=
            MPI_SUCCESS ||
        MPI_Type_commit(&p->filetype) != MPI_SUCCESS || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "tile: cannot make the types");
    long long mine = 0;
    for (long long f = 0; f < frames; f++)
        for (long long j = 0; j < per_frame; j++) {
            struct bench_call *c = &p->calls[f * per_frame + j];
            long long t = j * np + rank;
            c->disp = f * frame;
            if (t >= ntile)
                continue;
            long long col = t % tx, row = t / tx;
            c->disp += (row * (th - oy) * W + col * (tw - ox)) * px;
            c->ntiles = 1;
            c->count = (int)tbytes;
            c->memoff = (MPI_Aint)(mine * tbytes);
            mine++;
        }
    p->membytes = (size_t)(mine * tbytes);
    p->view_per_call = 1;
    p->filesize = frames * frame;
    p->fregion = tw * px;
    p->mregion = tbytes;
    snprintf(p->shape, sizeof p->shape,
             "%lld frames of %lldx%lld px, %lld calls each; a tile is %lld rows of %lld B", frames,
             W, H, per_frame, th, tw * px);
    return 0;
}

const struct bench_workload bench_w_tile = {
    .name = "tile",
    .source = "datatype-io.txt §V-B, Fig. 9, Table II",
    .doc = "3x2 displays of 1024x768 24-bit pixels with 270/128-pixel overlaps, frames in sequence",
    .params = params,
    .setup = setup,
};

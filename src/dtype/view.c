/*
 * view.c — filetypes: validity and the stream-to-file mapping of a view.
 *
 * A view tiles its filetype from the displacement without end; tile k
 * starts at disp + k * extent.  Stream byte pos lies in tile pos / size at
 * data byte pos % size of the tile, which one descent of the dataloop
 * (rio__dl_locate) turns into a displacement: O(depth) plus a binary
 * search per indexed level, whatever pos is.
 *
 * Validity uses the facts computed at normalization: the regions of a
 * tile increase without overlap (mono), start at or after 0 (true lb),
 * and the extent is positive.  A filetype that holds no data (zero-length
 * blocks only, a resized type of holes, a count of 0: normalization leaves
 * no dataloop) is a legal view with no place for a byte: every stream
 * position maps to disp, accesses move nothing, and its extent, even 0,
 * tiles nothing that could overlap.  PnetCDF gives such a view to the
 * ranks that have nothing to fill.  Only when a check fails is the tile
 * walked, to name the offending region in the error detail.  A file
 * opened read-only may have a filetype whose regions overlap, as long as
 * their displacements do not decrease (MPI forbids overlaps only where
 * the file is written): the check walks the tile to make sure.
 *
 * A tile's data may reach past the start of the next tile (true ub >
 * extent + true lb): MPI asks the displacements of the filetype's
 * typemap to be nondecreasing, not those of consecutive tiles, and HDF5's
 * collective chunk I/O builds such filetypes (a struct of per-chunk types
 * whose extent ends before the last chunk's data does), accessing one
 * tile per call.  An access within one tile maps as any other; one that
 * spans tiles of such a view is not in file order
 * (rio__dtype_view_monotone), and the methods that need file order are
 * not used for it.
 */
#include "dtype_int.h"

/* Regions examined to name the cause of a failed check. */
#define SCAN_MAX (1 << 20)

/* Walk one tile for its first bad region: at a negative displacement, or
 * starting before the previous region ends (before the previous region
 * starts when overlaps are allowed).  Returns 1 when found, with the
 * region named in the detail.  Naming a failed check stops after SCAN_MAX
 * regions; allowing overlaps walks the whole tile (only a filetype that
 * is not mono comes here, once per set_view). */
static int bad_region(const struct rio_dtype *ft, int overlaps_ok)
{
    struct rio_dtype_iter it;
    MPI_Offset off, len, prev_start = 0, prev_end = 0;
    long long k = 0;
    int found = 0;
    if (rio__dtype_iter_init(&it, ft, 1, 0))
        return overlaps_ok; /* unchecked: not allowed, and nothing to name */
    while (!found && (overlaps_ok || k < SCAN_MAX) && rio__dtype_iter_next(&it, 0, &off, &len)) {
        if (off < 0) {
            rio__err_detail("filetype region %lld is at negative displacement %lld", k,
                            (long long)off);
            found = 1;
        } else if (k > 0 && off < (overlaps_ok ? prev_start : prev_end)) {
            rio__err_detail("filetype region %lld at displacement %lld starts before region %lld "
                            "%s at %lld (displacements must not decrease%s)",
                            k, (long long)off, k - 1, overlaps_ok ? "starts" : "ends",
                            (long long)(overlaps_ok ? prev_start : prev_end),
                            overlaps_ok ? "" : " nor overlap");
            found = 1;
        }
        prev_start = off;
        prev_end = off + len;
        k++;
    }
    rio__dtype_iter_free(&it);
    return found;
}

/* Contract in dtype.h: 0 or RIO_E_FILETYPE with a detail. */
int rio__dtype_check_filetype(const struct rio_dtype *filetype, const struct rio_dtype *etype,
                              int read_only, int *overlaps)
{
    const struct rio_dl *r = filetype->root;
    MPI_Count fsize = filetype->info.size, esize = etype->info.size;
    MPI_Aint extent = filetype->info.extent;
    if (esize <= 0) {
        rio__err_detail("etype holds no data");
        return RIO_E_FILETYPE;
    }
    *overlaps = 0;
    if (!r || fsize <= 0)
        return 0; /* no data: nothing to order, overlap or tile */
    if (fsize % esize != 0) {
        rio__err_detail("filetype size %lld is not a multiple of the etype size %lld",
                        (long long)fsize, (long long)esize);
        return RIO_E_FILETYPE;
    }
    if (read_only && !r->mono && r->tlb >= 0 && !bad_region(filetype, 1)) {
        *overlaps = 1; /* regions overlap: allowed where nothing is written */
    } else if (!r->mono || r->tlb < 0) {
        if (!bad_region(filetype, 0)) {
            if (r->tlb < 0)
                rio__err_detail("filetype has data at negative displacement %lld",
                                (long long)r->tlb);
            else
                rio__err_detail("filetype displacements decrease or overlap");
        }
        return RIO_E_FILETYPE;
    }
    if (extent <= 0) {
        rio__err_detail("filetype extent %lld is not positive", (long long)extent);
        return RIO_E_FILETYPE;
    }
    return 0;
}

/* Contract in dtype.h. */
int rio__dtype_view_monotone(const struct rio_dtype *ft, MPI_Offset pos, MPI_Offset len)
{
    const struct rio_dl *r = ft->root;
    MPI_Offset size = ft->info.size;
    if (!r || size <= 0 || len <= 0)
        return 1;
    if (!r->mono)
        return 0;
    if (r->tub <= ft->info.extent + r->tlb)
        return 1; /* the tiles follow one another */
    return pos / size == (pos + len - 1) / size;
}

/* Contract in dtype.h: file offset of stream byte pos of the view. */
MPI_Offset rio__dtype_view_offset(const struct rio_dtype *ft, MPI_Offset disp, MPI_Offset pos)
{
    const struct rio_dl *r = ft->root;
    MPI_Offset size = ft->info.size, at = 0;
    if (!r || size <= 0)
        return disp;
    MPI_Offset tile = pos / size, rem = pos % size;
    if (rem < 0) {
        tile--;
        rem += size;
    }
    if (ft->info.contig) {
        at = r->off + rem;
    } else {
        int64_t a;
        rio__dl_locate(r, 0, rem, NULL, &a);
        at = a;
    }
    return disp + tile * ft->info.extent + at;
}

/* Contract in dtype.h: first and one-past-last file bytes of len stream
 * bytes from pos; the filetype must have passed rio__dtype_check_filetype.
 * Where the mapping is nondecreasing (rio__dtype_view_monotone), the
 * offsets of the first and the last byte; elsewhere the bounds of the
 * tiles touched, which hold every byte. */
void rio__dtype_view_extent(const struct rio_dtype *ft, MPI_Offset disp, MPI_Offset pos,
                            MPI_Offset len, MPI_Offset *first, MPI_Offset *end)
{
    const struct rio_dl *r = ft->root;
    MPI_Offset size = ft->info.size;
    if (r && size > 0 && len > 0 && !rio__dtype_view_monotone(ft, pos, len)) {
        MPI_Offset t0 = pos / size, t1 = (pos + len - 1) / size;
        *first = disp + t0 * ft->info.extent + r->tlb;
        *end = disp + t1 * ft->info.extent + r->tub;
        return;
    }
    *first = rio__dtype_view_offset(ft, disp, pos);
    *end = len > 0 ? rio__dtype_view_offset(ft, disp, pos + len - 1) + 1 : *first;
}

/*
 * dloop.c — the cold half of the dataloop core (dloop.h): making and
 * freeing trees, and placing a walk at any byte of an instance.
 *
 * Placing divides by the block size on levels whose blocks are all alike
 * and searches the prefix sums on the others, then descends once, so a
 * walk can start anywhere in O(depth) steps without visiting the bytes
 * before.  Like the per-run steps, it trusts the tree (see dloop.h).
 */
#include "dloop.h"

#include <stdlib.h>

/* Contract in dloop.h. */
struct rio_dl *rio__dl_new(void)
{
    return rio__calloc(1, sizeof(struct rio_dl));
}

/* Contract in dloop.h. */
void rio__dl_free(struct rio_dl *d)
{
    if (!d)
        return;
    if (d->children) {
        for (int64_t i = 0; i < d->nblocks; i++)
            rio__dl_free(d->children[i]);
        free(d->children);
    }
    rio__dl_free(d->child);
    free(d->blocklens);
    free(d->displs);
    free(d->prefix);
    free(d);
}

/* Contract in dloop.h. */
int rio__dl_locate(const struct rio_dl *root, int64_t base, int64_t rem,
                   struct rio_dl_frame *frames, int64_t *at)
{
    const struct rio_dl *d = root;
    int64_t b = base + d->off;
    for (int l = 0;; l++) {
        int64_t blk;
        if (d->prefix) {
            int64_t lo = 0, hi = d->nblocks - 1;
            while (lo < hi) { /* largest blk with prefix[blk] <= rem */
                int64_t mid = lo + (hi - lo + 1) / 2;
                if (d->prefix[mid] <= rem)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            blk = lo;
            rem -= d->prefix[blk];
        } else {
            int64_t bb = d->blocklen * (d->leaf ? 1 : d->child->size);
            blk = rem / bb;
            rem -= blk * bb;
        }
        int64_t start = b + rio__dl_bdisp(d, blk);
        if (d->leaf) {
            if (frames)
                frames[l] = (struct rio_dl_frame){d, b, blk, rem};
            if (at)
                *at = start + rem;
            return l;
        }
        const struct rio_dl *c = d->children ? d->children[blk] : d->child;
        int64_t el = rem / c->size;
        rem -= el * c->size;
        if (frames)
            frames[l] = (struct rio_dl_frame){d, b, blk, el};
        b = start + el * c->extent + c->off;
        d = c;
    }
}

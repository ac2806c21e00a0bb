/*
 * test_coll_servers.c — the collective engine's domains over a server map
 * (a file's objects placed on servers by hash, as Ceph does) and over
 * stripe columns, byte by byte.
 *
 * For stripe units of 16 bytes, 1 to 4 stripe columns, objects of 1 to 3
 * stripes, 1 to 3 servers drawn at random (fixed seed) for every object,
 * groups of 1 to 3 members taking rows in runs of 1 or 2, and domain
 * extents that start and end inside stripes, every domain of every
 * (target, member) is built as the strategies build them, and then:
 *   partition  each byte of the extent lies in exactly one domain: the one
 *              of its object's server (its column without a map) and of
 *              the member its row is dealt to;
 *   dense      a domain's coordinates of its bytes, in file order, are
 *              cbase, cbase + 1, ..., cend - 1;
 *   inverse    rio__coll_fileoff gives back the byte of each coordinate;
 *   target     rio__coll_target_of names the object's server.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_int.h"
#include "unit.h"

#define U 16
#define NSETS 5

static unsigned rnd_state = 12345;
static int rnd(int n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (int)((rnd_state >> 16) % (unsigned)n);
}

static void one(int count, int spo, int T, int ngroup, int chunk, int mapped)
{
    int of[NSETS * 4];
    for (int i = 0; i < NSETS * count; i++)
        of[i] = rnd(T);
    struct rio_coll_call c;
    memset(&c, 0, sizeof c);
    c.layout.unit = U;
    c.layout.count = count;
    c.layout.known = 1;
    c.tg = (struct rio_coll_targets){.T = mapped ? T : count, .unit = U, .count = count};
    if (mapped) {
        c.tg.spo = spo;
        c.tg.nsets = NSETS;
        c.tg.of = of;
    }
    int nt = c.tg.T;
    MPI_Offset total = (MPI_Offset)NSETS * spo * count * U;
    MPI_Offset start = rnd((int)(total / 3)), end = total - rnd((int)(total / 3));
    int nd = nt * ngroup;
    struct rio_coll_domain *d = calloc((size_t)nd, sizeof *d);
    for (int t = 0; t < nt; t++)
        for (int j = 0; j < ngroup; j++) {
            struct rio_coll_domain *x = &d[t * ngroup + j];
            CHECK(rio__coll_dom_targets(x, &t, 1, ngroup, j, start, end) == 0, "domain");
            x->chunk = chunk;
            CHECK(rio__coll_domain_coords(&c, x) == 0, "coordinates");
        }
    MPI_Offset *next = calloc((size_t)nd, sizeof *next);
    for (int a = 0; a < nd; a++)
        next[a] = d[a].cbase;
    int bad = 0;
    for (MPI_Offset off = start; off < end && bad < 3; off++) {
        MPI_Offset s = off / U, row = s / count;
        int col = (int)(s % count);
        int want_t = mapped ? of[row / spo * count + col] : col;
        int want = want_t * ngroup + (int)((row / chunk) % ngroup), holders = 0;
        if (rio__coll_target_of(&c.tg, s) != want_t) {
            CHECK(0, "byte %lld: target %d, its object's server is %d", (long long)off,
                  rio__coll_target_of(&c.tg, s), want_t);
            bad++;
        }
        for (int a = 0; a < nd; a++) {
            MPI_Offset x = rio__coll_coord(&c, &d[a], off);
            if (x < 0)
                continue;
            holders++;
            if (a != want || x != next[a] || rio__coll_fileoff(&c, &d[a], x) != off) {
                CHECK(0,
                      "count %d spo %d T %d ngroup %d chunk %d map %d: byte %lld in domain "
                      "%d (expected %d) at %lld (expected %lld), back to %lld",
                      count, spo, T, ngroup, chunk, mapped, (long long)off, a, want,
                      (long long)x, (long long)next[a],
                      (long long)rio__coll_fileoff(&c, &d[a], x));
                bad++;
            }
            next[a] = x + 1;
        }
        if (holders != 1) {
            CHECK(0, "byte %lld lies in %d domains", (long long)off, holders);
            bad++;
        }
    }
    for (int a = 0; a < nd && !bad; a++)
        if (next[a] != d[a].cend) {
            CHECK(0, "domain %d: coordinates end at %lld, cend %lld", a, (long long)next[a],
                  (long long)d[a].cend);
            bad++;
        }
    CHECK(!bad, "count %d spo %d T %d ngroup %d chunk %d map %d", count, spo, T, ngroup, chunk,
          mapped);
    for (int a = 0; a < nd; a++) {
        free(d[a].targets);
        rio__coll_domain_free(&d[a]);
    }
    free(d);
    free(next);
}

int main(void)
{
    for (int mapped = 0; mapped < 2; mapped++)
        for (int count = 1; count <= 4; count++)
            for (int spo = 1; spo <= 3; spo++)
                for (int T = 1; T <= 3; T++)
                    for (int ngroup = 1; ngroup <= 3; ngroup++)
                        for (int chunk = 1; chunk <= 2; chunk++)
                            for (int rep = 0; rep < 3; rep++)
                                one(count, spo, T, ngroup, chunk, mapped);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

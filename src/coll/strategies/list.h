/*
 * list.h — the collective strategies, one row each.
 *
 * The single list of strategies: strategy.c builds its table from it (and
 * declares each rio__strategy_NAME descriptor, defined in
 * strategies/NAME.c), the table's size is every capacity that holds one
 * entry per strategy, and the tests' CMake reads the names from here
 * (tests/CMakeLists.txt).  A new strategy is a new file in this folder
 * plus one row here.  The order of the rows is the order in which auto
 * examines the applicable ones, before its rules move their pick and the
 * strategies that ask to be early to the front (strategy.c); the first row
 * is ROMIO's two_phase, the fallback.  No include guard: each includer
 * defines RIO_STRATEGY(name) for its own expansion.
 */
RIO_STRATEGY(two_phase)
RIO_STRATEGY(every_rank)
RIO_STRATEGY(resonant)
RIO_STRATEGY(stripe)
RIO_STRATEGY(node_first)
RIO_STRATEGY(target_first)
RIO_STRATEGY(sized)
RIO_STRATEGY(direct)
RIO_STRATEGY(independent)

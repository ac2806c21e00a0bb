# Every workload of resonio-bench at a tiny size, as ctest tests: the
# bench's own stage under each MPI (CMakeLists.txt) and the SMPI build
# (cmake/smpi.cmake) run the same list.
#
# rio_bench_smoke(PREFIX OUT LABELS SKIP ENV RUN...): one test
# PREFIX.<name> per entry not named in SKIP (a list), running RUN...
# -rounds 1 -noplot -o OUT/<name> -w <spec> with the environment ENV (a
# list); it passes when every byte verified.
set(RIO_BENCH_SMOKE
  "demo|demo -seg 4k -size 64k"
  "mpiiotest|mpiiotest -seg 16k -size 128k"
  "iormpiio|iormpiio -seg 8k -size 64k"
  "noncontig|noncontig -elmtcount 16 -bufsize 32k -size 64k"
  "hpio|hpio -region_count 64 -region_size 512"
  "hpio_noncontig|hpio -region_count 64 -region_size 512 -region_spacing 64 -mem noncontig"
  "collperf|collperf -n 24"
  "tile|tile -frames 1 -tile_w 64 -tile_h 48 -overlap_x 16 -overlap_y 8"
  "flash|flash -blocks 4 -nxb 4 -nguard 2 -nvar 3"
  "matrix|matrix -block 4k -depth 4 -size 64k"
  "ecio|ecio -count 4000 -calls 4"
  "varsize|varsize -record 4k -vars 8")

function(rio_bench_smoke prefix out labels skip env)
  foreach(entry ${RIO_BENCH_SMOKE})
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 name)
    list(GET parts 1 spec)
    if(name IN_LIST skip)
      continue()
    endif()
    separate_arguments(spec UNIX_COMMAND "${spec}")
    add_test(NAME ${prefix}.${name} COMMAND ${ARGN} -rounds 1 -noplot -o ${out}/${name} -w ${spec})
    set_tests_properties(${prefix}.${name} PROPERTIES LABELS "${labels}" TIMEOUT 120
      ENVIRONMENT "${env}" PASS_REGULAR_EXPRESSION "every byte verified"
      FAIL_REGULAR_EXPRESSION
      "SOME BYTES OR CALLS WRONG|Segmentation fault|Execution failed|timed out")
  endforeach()
endfunction()

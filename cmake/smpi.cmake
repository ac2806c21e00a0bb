# cmake/smpi.cmake — the SMPI build (-DRESONIO_SMPI=ON), included by the
# top CMakeLists.txt in place of the MPI library's build.
#
# smpicc compiles every program as a shared object that SimGrid's
# smpimain loads and runs as simulated ranks.  The engine (src/ without
# the MPI_File_* drop-in, whose names SMPI declares itself) becomes one
# static library linked into each program: SMPI's dlopen privatization
# gives each rank its own copy of resonio's globals only for code inside
# the program.  What SMPI lacks stays out: the Ceph drivers, io_uring,
# MPICH's extended generalized requests and resonio's I/O threads
# (nonblocking calls complete at issue time: src/file/async.c); the
# simgrid: driver (src/store/simgrid.c) comes in.  Programs run through
# tools/resonio-smpi/resonio-smpirun, which sets what every run needs.

find_program(RESONIO_SMPIRUN NAMES smpirun REQUIRED)

file(GLOB RESONIO_SOURCES CONFIGURE_DEPENDS
  src/common/*.c src/file/*.c src/dtype/*.c src/indep/*.c src/store/*.c
  src/coll/*.c src/coll/strategies/*.c src/select/*.c src/emu/*.c src/dloop/*.c)
list(FILTER RESONIO_SOURCES EXCLUDE REGEX "/src/store/(cephfs|rados|ceph_common|ceph_lua)\\.c$")
add_library(resonio_smpi STATIC ${RESONIO_SOURCES})
target_include_directories(resonio_smpi PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
# RIO_SMPI: the program runs as SMPI's simulated ranks
target_compile_definitions(resonio_smpi PUBLIC RIO_SMPI=1 RIO_HAVE_SIMGRID=1)
target_link_libraries(resonio_smpi PUBLIC m)

# The runner: smpirun with the settings every run needs, a generated
# platform when none is given, and a timeout that stops the simulator.
configure_file(tools/resonio-smpi/resonio-smpirun.in
  ${CMAKE_BINARY_DIR}/resonio-smpirun @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE
  OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

add_executable(t_simgrid tests/smpi/t_simgrid.c)
target_link_libraries(t_simgrid PRIVATE resonio_smpi)
add_executable(t_stream tests/smpi/t_stream.c)
target_link_libraries(t_stream PRIVATE resonio_smpi)

# A build of resonio for an MPI library, whose resonio-emud and t_stream
# the test of the simulated targets against resonio-emud's runs (run.sh
# gives build/<mpi>); without it that one test is not defined.
set(RESONIO_EMU_BUILD "" CACHE PATH
  "a build for an MPI library, for the test of the simgrid: targets against resonio-emud")

# this build's own name for the directories its tests make in /tmp
string(MD5 hash "${CMAKE_BINARY_DIR}")
string(SUBSTRING "${hash}" 0 10 hash)

if(BUILD_TESTING)
  # The demo's pattern at 4 simulated ranks under every strategy (their
  # names from src/coll/strategies/list.h) and auto, at 64 under two, every
  # byte verified; the targets' checksums (resonio_simgrid_data=checksum)
  # under two strategies each against independent; a failed build or run
  # fails, nothing is skipped.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${CMAKE_SOURCE_DIR}/src/coll/strategies/list.h)
  file(STRINGS ${CMAKE_SOURCE_DIR}/src/coll/strategies/list.h rows REGEX "^RIO_STRATEGY\\(")
  set(cases)
  foreach(row ${rows})
    string(REGEX REPLACE "^RIO_STRATEGY\\(([a-z0-9_]+)\\).*" "\\1" name "${row}")
    list(APPEND cases "4|${name}")
  endforeach()
  list(APPEND cases "4|auto" "64|two_phase" "64|resonant" "4|two_phase|checksum"
    "64|resonant|checksum")
  set(SMPI_RUN ${CMAKE_BINARY_DIR}/resonio-smpirun -timeout 100)
  foreach(case ${cases})
    string(REPLACE "|" ";" case "${case}")
    list(GET case 0 np)
    list(GET case 1 strategy)
    set(data keep)
    set(name smpi.t_simgrid.${strategy}.np${np})
    list(LENGTH case len)
    if(len GREATER 2)
      list(GET case 2 data)
      set(name smpi.t_simgrid.${data}.${strategy}.np${np})
    endif()
    add_test(NAME ${name} COMMAND ${SMPI_RUN} -np ${np} $<TARGET_FILE:t_simgrid>
      -strategy ${strategy} -data ${data})
    set_tests_properties(${name} PROPERTIES LABELS smpi TIMEOUT 120
      PASS_REGULAR_EXPRESSION "No Errors"
      FAIL_REGULAR_EXPRESSION "FAIL|Segmentation fault|Execution failed|timed out")
  endforeach()
  if(RESONIO_EMU_BUILD)
    load_cache(${RESONIO_EMU_BUILD} READ_WITH_PREFIX EMU_ RESONIO_MPIEXEC RESONIO_MPI)
    if(NOT EMU_RESONIO_MPIEXEC)
      message(FATAL_ERROR "RESONIO_EMU_BUILD=${RESONIO_EMU_BUILD} is not a build of resonio")
    endif()
    set(flags "")
    if(EMU_RESONIO_MPI STREQUAL "openmpi")
      set(flags " --allow-run-as-root --oversubscribe")
    endif()
    add_test(NAME smpi.model_vs_emud COMMAND ${CMAKE_COMMAND}
      -DEMUD=${RESONIO_EMU_BUILD}/tools/resonio-emud/resonio-emud
      -DSTREAM=${RESONIO_EMU_BUILD}/tests/emu/t_stream
      "-DMPIEXEC=${EMU_RESONIO_MPIEXEC}${flags}"
      -DRUNNER=${CMAKE_BINARY_DIR}/resonio-smpirun -DSIM_STREAM=$<TARGET_FILE:t_stream>
      -DDIR=/tmp/rio-model-${hash} -P ${CMAKE_SOURCE_DIR}/tests/smpi/check_model.cmake)
    set_tests_properties(smpi.model_vs_emud PROPERTIES LABELS smpi TIMEOUT 300
      PASS_REGULAR_EXPRESSION "No Errors" FAIL_REGULAR_EXPRESSION "FAIL")
    # resonio-bench --suite validate, small: the demo experiment at 2 ranks
    # on resonio-emud (that build's bench) and on the simulated targets
    # (this build's), both models; it fails unless both sides verified
    # every byte and every target received the same requests and accesses
    add_test(NAME smpi.validate COMMAND
      ${RESONIO_EMU_BUILD}/tools/resonio-bench/resonio-bench --suite validate
      --smpi ${CMAKE_BINARY_DIR} --check --ranks 2 --seg 64k,256k --size 4m --rounds 1
      -o ${CMAKE_BINARY_DIR}/bench-out/validate)
    set_tests_properties(smpi.validate PROPERTIES LABELS smpi TIMEOUT 300
      PASS_REGULAR_EXPRESSION "validation checked" FAIL_REGULAR_EXPRESSION "FAIL")
    # resonio-bench --suite sim, small: the three experiments at a few
    # ranks on the papers' platforms, every byte verified (the suite fails
    # otherwise), the report written
    add_test(NAME smpi.sim COMMAND ${CMAKE_COMMAND}
      -DRUN=${RESONIO_EMU_BUILD}/tools/resonio-bench/resonio-bench -DSMPI=${CMAKE_BINARY_DIR}
      -DOUT=${CMAKE_BINARY_DIR}/bench-out/sim -P ${CMAKE_SOURCE_DIR}/tests/smpi/check_sim.cmake)
    set_tests_properties(smpi.sim PROPERTIES LABELS smpi TIMEOUT 300
      PASS_REGULAR_EXPRESSION "No Errors" FAIL_REGULAR_EXPRESSION "FAIL")
  endif()
  # the runner's timeout stops the simulator and leaves nothing running
  add_test(NAME smpi.runner.timeout COMMAND ${CMAKE_COMMAND}
    -DRUNNER=${CMAKE_BINARY_DIR}/resonio-smpirun -DPROGRAM=$<TARGET_FILE:t_simgrid>
    -DMARK=resonio-smpi-hang-test -P ${CMAKE_SOURCE_DIR}/tests/smpi/check_timeout.cmake)
  set_tests_properties(smpi.runner.timeout PROPERTIES LABELS smpi TIMEOUT 90
    PASS_REGULAR_EXPRESSION "No Errors" FAIL_REGULAR_EXPRESSION "FAIL")
endif()

# resonio-bench on the simulated cluster (-storage simgrid).
file(GLOB BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/resonio-bench/*.c)
add_executable(resonio-bench ${BENCH_SOURCES})
target_link_libraries(resonio-bench PRIVATE resonio_smpi)
target_compile_definitions(resonio-bench PRIVATE
  RIO_CEPH_TOOL="${PROJECT_SOURCE_DIR}/tools/resonio-ceph")

if(BUILD_TESTING)
  # resonio-bench on the simulated storage, every strategy and auto, every
  # byte checked from the targets' objects: the workloads whose types SMPI
  # builds (its struct and resized types it reports as INDEXED, which the
  # datatype decoder reads as structs: decode.c); collperf's darray SMPI
  # does not implement.
  include(${CMAKE_SOURCE_DIR}/tools/resonio-bench/smoke.cmake)
  rio_bench_smoke(smpi.bench ${CMAKE_BINARY_DIR}/bench-out smpi collperf ""
    ${CMAKE_BINARY_DIR}/resonio-smpirun -timeout 100 -np 4 $<TARGET_FILE:resonio-bench>)
  # the papers' platforms (tools/resonio-smpi/resonio-platform): the bench
  # verifies on each, their disk parameters take effect, a misspelt one is
  # refused
  add_test(NAME smpi.platforms COMMAND ${CMAKE_COMMAND}
    -DRUNNER=${CMAKE_BINARY_DIR}/resonio-smpirun
    -DPLATFORM=${CMAKE_SOURCE_DIR}/tools/resonio-smpi/resonio-platform
    -DBENCH=$<TARGET_FILE:resonio-bench> -DDIR=/tmp/rio-platforms-${hash}
    -P ${CMAKE_SOURCE_DIR}/tests/smpi/check_platforms.cmake)
  set_tests_properties(smpi.platforms PROPERTIES LABELS smpi TIMEOUT 600
    PASS_REGULAR_EXPRESSION "No Errors" FAIL_REGULAR_EXPRESSION "FAIL")
  # run without privatization (a later --cfg overrides the runner's), the
  # bench refuses to start instead of mixing the ranks' state
  add_test(NAME smpi.bench.no_privatization
    COMMAND ${CMAKE_BINARY_DIR}/resonio-smpirun -timeout 100 -cfg smpi/privatization:no -np 4
            $<TARGET_FILE:resonio-bench> -rounds 1 -noplot -o ${CMAKE_BINARY_DIR}/bench-out
            -w iormpiio -seg 8k -size 64k)
  set_tests_properties(smpi.bench.no_privatization PROPERTIES LABELS smpi TIMEOUT 120
    PASS_REGULAR_EXPRESSION "the simulated ranks share their globals"
    FAIL_REGULAR_EXPRESSION "every byte verified|timed out")
endif()

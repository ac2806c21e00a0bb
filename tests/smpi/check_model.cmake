# The simgrid: driver's targets against resonio-emud's on one request
# stream (t_stream: independent writes from one rank, hdd model): per
# target the same requests, disk accesses, sequential fraction and head
# movement, and the same modelled busy time within 2 us.  The emulated side
# runs in a build for an MPI library (EMUD, STREAM, MPIEXEC), the simulated
# side in the SMPI build (RUNNER, SIM_STREAM).
#   cmake -DEMUD=... -DSTREAM=... -DMPIEXEC="..." -DRUNNER=... -DSIM_STREAM=...
#         -DDIR=... -P check_model.cmake
set(args -count 200 -targets 4 -unit 65536)
separate_arguments(mpiexec UNIX_COMMAND "${MPIEXEC}")

# the emulated side: a fresh 4-target hdd service that waits no real time
execute_process(COMMAND ${EMUD} stop --dir ${DIR} OUTPUT_QUIET ERROR_QUIET)
file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${EMUD} start --dir ${DIR} --targets 4 --model hdd --time-scale 0
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: resonio-emud start: ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env RESONIO_EMU_DIR=${DIR}
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  ${mpiexec} -n 1 ${STREAM} -fname emu:stream ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
execute_process(COMMAND ${EMUD} stats --dir ${DIR} RESULT_VARIABLE rc2 OUTPUT_VARIABLE emu
  ERROR_VARIABLE err2)
execute_process(COMMAND ${EMUD} stop --dir ${DIR} OUTPUT_QUIET ERROR_QUIET)
file(REMOVE_RECURSE ${DIR})
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "FAIL: the stream on resonio-emud: ${rc}, stats ${rc2}\n${out}\n${err}\n${err2}")
endif()

# the simulated side
execute_process(COMMAND ${RUNNER} -timeout 100 -np 1 ${SIM_STREAM} -fname simgrid:stream ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE sim ERROR_VARIABLE err TIMEOUT 150)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: the stream on the simulated targets: ${rc}\n${sim}\n${err}")
endif()

# target,requests,accesses,sequential_fraction,seek_bytes,busy_s per line
function(rows text var)
  string(REGEX MATCHALL "\n[0-9]+,[0-9]+,[0-9]+,[0-9.]+,[0-9]+,[0-9.]+" found "\n${text}")
  set(${var} ${found} PARENT_SCOPE)
endfunction()
rows("${emu}" emu_rows)
rows("${sim}" sim_rows)
list(LENGTH emu_rows ne)
list(LENGTH sim_rows ns)
if(NOT ne EQUAL 4 OR NOT ns EQUAL 4)
  message(FATAL_ERROR "FAIL: ${ne} emulated and ${ns} simulated targets, want 4\n${emu}\n${sim}")
endif()
set(bad 0)
foreach(i RANGE 3)
  list(GET emu_rows ${i} e)
  list(GET sim_rows ${i} s)
  string(STRIP "${e}" e)
  string(STRIP "${s}" s)
  message("target ${i}: emu ${e} | simgrid ${s}")
  # every column equal but busy_s, which resonio-emud sums in whole
  # nanoseconds per request (truncated) and the driver in doubles: equal
  # within 2 us (both printed with 6 decimals)
  string(REPLACE "," ";" f "${e}")
  string(REPLACE "," ";" g "${s}")
  list(SUBLIST f 0 5 fe)
  list(SUBLIST g 0 5 ge)
  list(GET f 5 be)
  list(GET g 5 bs)
  string(REGEX REPLACE "^[0.]+(.)" "\\1" be "${be}") # whole microseconds, no leading zeros
  string(REGEX REPLACE "^[0.]+(.)" "\\1" bs "${bs}")
  string(REPLACE "." "" be "${be}")
  string(REPLACE "." "" bs "${bs}")
  math(EXPR diff "${be} - ${bs}")
  if(NOT fe STREQUAL ge OR diff GREATER 2 OR diff LESS -2)
    set(bad 1)
  endif()
  list(GET f 1 requests)
  if(requests EQUAL 0)
    message("FAIL: target ${i} served no request")
    set(bad 1)
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "FAIL: the simulated targets' counters differ from resonio-emud's")
endif()
message("the same stream costs the same on both: No Errors")

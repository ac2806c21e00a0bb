# resonio-bench --suite sim at a few ranks: FLASH I/O at 4 and 8 ranks on
# the jaguar platform, mpi-io-test at 1, 2 and 4 on osc, the demo's sweep
# at 4 on pvfs2.  The suite exits non-zero unless every run verified every
# byte; the report must name each experiment, carry a verdict, and the cost
# of every run.
#   cmake -DRUN=<an MPI build's resonio-bench> -DSMPI=<the SMPI build> -DOUT=DIR
#         -P check_sim.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${RUN} --suite sim --smpi ${SMPI} --flash-ranks 4,8
  --mpiiotest-ranks 1,2,4 --demo-ranks 4 --timeout 200 -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: --suite sim: ${rc}\n${out}\n${err}")
endif()
file(READ ${OUT}/sim.md md)
foreach(want "lustre-adio-write.txt §3.2" "resonant-io.txt §4.4" "Figures 2 and 5"
    "Verdict on the direction" "| 8 | " "| 4 | 32k |")
  string(FIND "${md}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "FAIL: sim.md lacks '${want}'\n${md}")
  endif()
endforeach()
string(REGEX MATCHALL "every byte verified \\|" verified "${md}")
list(LENGTH verified n)
if(NOT n EQUAL 6)
  message(FATAL_ERROR "FAIL: ${n} of 6 runs verified in the cost tables\n${md}")
endif()
file(REMOVE_RECURSE ${OUT})
message(STATUS "No Errors")

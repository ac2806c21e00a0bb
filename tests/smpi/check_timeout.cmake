# A simulation that never ends, run by resonio-smpirun with a short
# timeout: the runner must stop it with exit status 124 and leave no
# process of it behind (smpimain outlives a killed smpirun).
#   cmake -DRUNNER=... -DPROGRAM=... -DMARK=... -P check_timeout.cmake
execute_process(COMMAND ${RUNNER} -timeout 3 -np 4 ${PROGRAM} -fname simgrid:${MARK} -hang 1
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 124)
  message(FATAL_ERROR "FAIL: exit status ${rc}, want 124 (timed out)\n${out}\n${err}")
endif()
if(NOT err MATCHES "timed out after 3 s")
  message(FATAL_ERROR "FAIL: no timeout message\n${err}")
endif()
# the pattern is in the run's command lines only, not in this script's
execute_process(COMMAND pgrep -f "simgrid:${MARK}" RESULT_VARIABLE found OUTPUT_VARIABLE pids)
if(found EQUAL 0)
  message(FATAL_ERROR "FAIL: processes of the stopped run still alive: ${pids}")
endif()
message("the hung simulation was stopped and nothing of it is left: No Errors")

# check_badinput.cmake — run resonio-bench with bad input and check that it
# exits with status 2 after one error line ("resonio-bench: ...") and the
# usage on stderr.
#   cmake -DRUN=<launcher words and program, |-separated> -DARGS=<|-separated> -P check_badinput.cmake
string(REPLACE "|" ";" run "${RUN}")
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${run} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "exit status ${rc}, expected 2\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(REGEX MATCHALL "resonio-bench: [^\n]*" lines "${err}")
list(LENGTH lines n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one error line, got ${n}:\n${err}")
endif()
if(NOT err MATCHES "usage: resonio-bench")
  message(FATAL_ERROR "no usage on stderr:\n${err}")
endif()
message(STATUS "ok: ${lines}")

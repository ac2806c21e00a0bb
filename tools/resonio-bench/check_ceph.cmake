# check_ceph.cmake — resonio-bench on Ceph at a tiny size: it starts its
# own Ceph cluster (tools/resonio-ceph), runs native and resonio's
# strategies on CephFS (STORAGE cephfs), or resonio's on RADOS objects
# with the direct strategy's list I/O and lua class side by side (STORAGE
# rados), with every byte verified, reports per OSD the requests, their
# bytes and the fraction that continue their object's previous request
# (from the OSDs' own operation histories) in the report and the JSON, and
# leaves no cluster behind (directory removed, no process naming it).
#   cmake -DRUN=<launcher words and program, |-separated> -DOUT=<dir>
#         -DSTORAGE=cephfs|rados -P check_ceph.cmake
cmake_minimum_required(VERSION 3.19)
string(REPLACE "|" ";" run "${RUN}")
file(REMOVE_RECURSE ${OUT})
if(STORAGE STREQUAL "rados")
  set(impls two_phase resonant direct direct_list direct_lua)
  # and resonant alone on the demo pattern, whose order at the OSDs the
  # check reads
  set(work -w noncontig -elmtcount 16 -bufsize 32k -size 256k
           -w demo -seg 64k -size 2m -impls resonant)
else()
  set(impls native two_phase resonant)
  set(work -w demo -seg 64k -size 2m)
endif()
string(REPLACE ";" "," implarg "${impls}")
execute_process(
  COMMAND ${run} -storage ${STORAGE} -targets 4 -stripe 64k -rounds 1 -noplot -o ${OUT}
          -impl ${implarg} ${work}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

include(${CMAKE_CURRENT_LIST_DIR}/check_service.cmake)
if(NOT out MATCHES "the cluster in (/tmp/rio-bench-[A-Za-z0-9]+)/ceph is stopped")
  fail("no word of the cluster being stopped")
endif()
set(top ${CMAKE_MATCH_1})
if(EXISTS ${top})
  fail("${top} is left behind")
endif()
no_process_names(${top}/)
file(GLOB md ${OUT}/*-${STORAGE}-np*.md)
if(NOT md)
  fail("no report section for ${STORAGE} in ${OUT}")
endif()
file(READ ${md} text)
set(f3 "[0-9.-]+ [0-9.-]+ [0-9.-]+")
set(num "[0-9.-]+")
if(STORAGE STREQUAL "rados")
  # (noncontig first) the strategies whose requests are list I/O, one
  # compound operation of extents per object (resonant's reads are each
  # rank's own, through the driver's measured choice); direct_lua's below
  set(impls two_phase direct_list)
endif()
# every implementation of list I/O: both phases with a column per OSD (-
# for an OSD that holds no object of the file: placement is by hash; - for
# all when no object got a second request, as resonant's reads at 2 ranks),
# the requests, which reached the OSDs, none a class call, and their bytes
# per request
foreach(impl ${impls})
  foreach(ph write read)
    if(NOT text MATCHES "\\| ${impl} \\| ${ph} \\| ${f3} \\| ${num} \\| ${num} \\| ${f3} \\| [1-9][0-9]* \\| 0 \\| [1-9][0-9]* \\|")
      fail("no per-OSD row of list I/O for ${impl} ${ph} in ${md}")
    endif()
  endforeach()
endforeach()
if(STORAGE STREQUAL "rados")
  # (a plain write of a stripe unit was seen now and then among them)
  foreach(ph write read)
    if(NOT text MATCHES "\\| direct_lua \\| ${ph} \\| [0-9. -]+ \\| ${num} \\| ${num} \\| [0-9. -]+ \\| ([1-9][0-9]*) \\| ([1-9][0-9]*) \\| ${num} \\|")
      fail("no per-OSD row of class calls for direct_lua ${ph} in ${md}")
    endif()
    math(EXPR twice "2 * ${CMAKE_MATCH_2}")
    if(twice LESS_EQUAL CMAKE_MATCH_1)
      fail("direct_lua ${ph}: ${CMAKE_MATCH_1} requests, of them only ${CMAKE_MATCH_2} class calls")
    endif()
  endforeach()
endif()
# resonant's agents write each OSD's objects in ascending order (issue 27:
# from the OSDs' own histories): every OSD that judged a request says 1.000
string(FIND "${text}" "#### demo" at)
if(at LESS 0)
  fail("no section for demo in ${md}")
endif()
string(SUBSTRING "${text}" ${at} -1 demo)
if(NOT demo MATCHES "\\| resonant \\| write \\| ${f3} \\| [0-9.-]+ \\| [0-9.-]+ \\| ([0-9.-]+ [0-9.-]+ [0-9.-]+) \\|")
  fail("no resonant write row for demo in ${md}")
endif()
string(REPLACE " " ";" inorder "${CMAKE_MATCH_1}")
foreach(v ${inorder})
  if(NOT v STREQUAL "1.000" AND NOT v STREQUAL "-")
    fail("resonant's writes went back on an object at an OSD (in order per OSD: ${CMAKE_MATCH_1})")
  endif()
endforeach()
if(NOT inorder MATCHES "1.000")
  fail("no OSD judged resonant's write order (${CMAKE_MATCH_1})")
endif()
message(STATUS "resonant's writes in ascending order per object at every OSD: ${CMAKE_MATCH_1}")
file(GLOB js ${OUT}/*-${STORAGE}-np*.json)
file(READ ${js} j)
string(JSON kind GET "${j}" storage kind)
if(NOT kind STREQUAL STORAGE)
  fail("JSON storage kind ${kind}")
endif()
message(STATUS "bench on ${STORAGE}: every byte verified, per-OSD rows, nothing left behind")

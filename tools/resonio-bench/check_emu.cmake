# check_emu.cmake — resonio-bench on the emulated storage at a tiny size:
# it starts its own resonio-emud, runs and verifies every byte, skips
# native, reports the targets' sequential fraction for every
# implementation (terminal, CSV, JSON, report), writes the figure data and
# sections, and leaves no service behind (directory removed, no process
# naming it).
#   cmake -DRUN=<launcher words and program, |-separated> -DOUT=<dir> -DMPI=mpich|openmpi
#         -P check_emu.cmake
cmake_minimum_required(VERSION 3.19) # string(JSON); empty list elements kept
string(REPLACE "|" ";" run "${RUN}")
file(REMOVE_RECURSE ${OUT})
execute_process(
  COMMAND ${run} -storage emu -model none -targets 4 -stripe 64k -rounds 1 -o ${OUT}
          -impl native,two_phase,resonant,node_first,target_first,indep_calls
          -w demo -seg 64k,128k -size 2m -impls indep_calls,two_phase,resonant
          -hint resonio_ranks_per_node=1
          -w matrix -block 4k -depth 4 -size 1m -hint resonio_ranks_per_node=1
          -impls two_phase,node_first,target_first
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

include(${CMAKE_CURRENT_LIST_DIR}/check_service.cmake)
if(NOT out MATCHES "native \\(the MPI library cannot open emu: files\\)[^\n]*skipped")
  fail("no word on native being skipped")
endif()

# ---- the service is gone -----------------------------------------------------
if(NOT out MATCHES "service (/tmp/rio-bench-[A-Za-z0-9]+/svc)")
  fail("the service directory is not named in the output")
endif()
set(svc ${CMAKE_MATCH_1})
if(NOT out MATCHES "the service in ${svc} is stopped and its directory removed")
  fail("no word on the service being stopped")
endif()
get_filename_component(top ${svc} DIRECTORY)
if(EXISTS ${top})
  fail("${top} is still there")
endif()
# the daemons are forked from `resonio-emud start --dir <svc> ...`
no_process_names(${svc})

# ---- sequentiality in every output -------------------------------------------
foreach(impl indep_calls two_phase resonant node_first target_first)
  # "impl  f f f f: f | f f f f: f" with four targets
  set(f "[0-9]\\.[0-9][0-9][0-9]")
  if(NOT out MATCHES "\n   ${impl} +${f} ${f} ${f} ${f}: ${f} \\| ${f} ${f} ${f} ${f}: ${f}\n")
    fail("no per-target sequential fractions for ${impl} in the terminal table")
  endif()
endforeach()

set(tag ${MPI}-emu-np2)
file(STRINGS ${OUT}/${tag}.csv csv)
list(GET csv 0 header)
string(REPLACE "," ";" cols "${header}")
list(FIND cols write_seq_fraction cw)
list(FIND cols read_target_seq ct)
if(cw LESS 0 OR ct LESS 0)
  fail("the CSV has no sequentiality columns: ${header}")
endif()
list(LENGTH csv nrows)
if(NOT nrows EQUAL 10)
  fail("the CSV has ${nrows} lines, expected a header and 9 rows (3 points, 3 implementations each)")
endif()
math(EXPR last "${nrows} - 1")
foreach(i RANGE 1 ${last})
  list(GET csv ${i} row)
  string(REPLACE "," ";" f "${row}")
  list(GET f ${cw} wseq)
  list(GET f ${ct} rlist)
  if(NOT wseq MATCHES "^[01]\\.[0-9]+$" OR NOT rlist MATCHES "^[01]\\.[0-9]+ [01]\\.[0-9]+ [01]\\.[0-9]+ [01]\\.[0-9]+$")
    fail("CSV row ${i} lacks the targets' fractions: ${row}")
  endif()
  if(row MATCHES ",native,")
    fail("native ran on emu: ${row}")
  endif()
endforeach()

file(READ ${OUT}/${tag}.json json)
string(JSON kind GET "${json}" storage kind)
string(JSON nt GET "${json}" storage targets)
if(NOT kind STREQUAL "emu" OR NOT nt EQUAL 4)
  fail("JSON storage is ${kind} with ${nt} targets")
endif()
string(JSON ntg LENGTH "${json}" points 0 impls 0 read targets)
string(JSON sf TYPE "${json}" points 0 impls 0 read targets 3 sequential_fraction)
if(NOT ntg EQUAL 4 OR NOT sf STREQUAL "NUMBER")
  fail("JSON read targets: ${ntg} entries, fraction of type ${sf}")
endif()

# ---- the report and the figure data ------------------------------------------
if(NOT EXISTS ${OUT}/${tag}.fig.tsv)
  fail("no ${tag}.fig.tsv")
endif()
file(READ ${OUT}/report.md report)
foreach(want "## The resonance experiments on the emulated storage"
             "#### Figure 2: independent calls against collective I/O"
             "#### Figure 5: resonant against two_phase"
             "#### Figure 3: matrix over the block size"
             "Verdict \\(read, the paper's phase\\): \\*\\*direction"
             "Verdict \\(read\\): \\*\\*direction"
             "## ${MPI}, 2 ranks, emulated storage"
             "Sequentiality at the targets")
  if(NOT report MATCHES "${want}")
    fail("report.md lacks '${want}'")
  endif()
endforeach()
find_program(GNUPLOT gnuplot)
if(GNUPLOT AND NOT EXISTS ${OUT}/${MPI}-emu-fig2.png)
  fail("no plot ${MPI}-emu-fig2.png")
endif()
message(STATUS "emu run in ${OUT} checks out (service ${svc} gone)")

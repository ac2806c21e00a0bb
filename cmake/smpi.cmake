# cmake/smpi.cmake — the SMPI build (-DRESONIO_SMPI=ON), included by the
# top CMakeLists.txt in place of the MPI library's build.
#
# smpicc compiles every program as a shared object that SimGrid's
# smpimain loads and runs as simulated ranks.  The engine (src/ without
# the MPI_File_* drop-in, whose names SMPI declares itself) becomes one
# static library linked into each program: SMPI's dlopen privatization
# gives each rank its own copy of resonio's globals only for code inside
# the program.  What SMPI lacks stays out: the Ceph drivers, io_uring,
# MPICH's extended generalized requests (async.c then completes its
# requests by MPI_Test polling, as under Open MPI).  Programs run
# through tools/resonio-smpi/resonio-smpirun, which sets what every run
# needs.

find_program(RESONIO_SMPIRUN NAMES smpirun REQUIRED)

file(GLOB RESONIO_SOURCES CONFIGURE_DEPENDS
  src/common/*.c src/file/*.c src/dtype/*.c src/indep/*.c src/store/*.c
  src/coll/*.c src/coll/strategies/*.c src/select/*.c src/emu/*.c src/dloop/*.c)
list(FILTER RESONIO_SOURCES EXCLUDE REGEX "/src/store/(cephfs|rados|ceph_common|ceph_lua)\\.c$")
add_library(resonio_smpi STATIC ${RESONIO_SOURCES})
target_include_directories(resonio_smpi PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
# RIO_SMPI: the program runs as SMPI's simulated ranks
target_compile_definitions(resonio_smpi PUBLIC RIO_SMPI=1)
target_link_libraries(resonio_smpi PUBLIC m)

# The runner: smpirun with the settings every run needs, a generated
# platform when none is given, and a timeout that stops the simulator.
configure_file(tools/resonio-smpi/resonio-smpirun.in
  ${CMAKE_BINARY_DIR}/resonio-smpirun @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE
  OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# resonio-bench on the simulated cluster.
file(GLOB BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/resonio-bench/*.c)
add_executable(resonio-bench ${BENCH_SOURCES})
target_link_libraries(resonio-bench PRIVATE resonio_smpi)
target_compile_definitions(resonio-bench PRIVATE
  RIO_CEPH_TOOL="${PROJECT_SOURCE_DIR}/tools/resonio-ceph")

# check_service.cmake — what the checks of a bench run with a service of
# its own (check_emu, check_ceph) share: failing with the run's output,
# the run ending well with every byte verified, and no process left that
# names the service's directory. Included after the run sets rc, out and
# err.

function(fail msg)
  message(FATAL_ERROR "${msg}\nstdout:\n${out}\nstderr:\n${err}")
endfunction()

if(NOT rc EQUAL 0)
  fail("exit status ${rc}")
endif()
if(NOT out MATCHES "every byte verified")
  fail("not every byte verified")
endif()

# no_process_names(<path>): fails when a process's command line names path
# (every process but the checking shell, which skips itself; the glob is
# expanded before its children exist; a zombie's command line is empty)
function(no_process_names path)
  execute_process(
    COMMAND sh -c "for f in /proc/[0-9]*/cmdline; do case $f in /proc/$$/*) continue;; esac; if tr '\\0' ' ' < $f 2>/dev/null | grep -qF -- \"$1\"; then echo $f; fi; done" sh ${path}
    OUTPUT_VARIABLE left)
  if(left)
    fail("processes still name ${path}: ${left}")
  endif()
endfunction()

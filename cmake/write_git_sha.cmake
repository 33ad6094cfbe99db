# Run at every build (cmake -P), not at configure time: writes OUTPUT, a C++ file defining
# rb::bench::tool_git_sha() as the commit SOURCE_DIR has checked out now, "unknown" outside git.
# A sha taken when the build was configured lagged every `git pull && cmake --build` after it, and
# results.json named a commit its binary was not built from (tool.git_sha; nightly.sh checks a cached
# baseline build by it). The file is rewritten only when the commit changed, so a build at the same
# commit recompiles nothing.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P write_git_sha.cmake
if(NOT SOURCE_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "write_git_sha.cmake: needs -DSOURCE_DIR=... -DOUTPUT=...")
endif()
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT sha MATCHES "^[0-9a-f]+$")
  set(sha unknown)
endif()
set(text "// Written by cmake/write_git_sha.cmake at build time; not in the source tree.
#include \"bench/sweep/environment.hpp\"

const char* rb::bench::tool_git_sha() { return \"${sha}\"; }
")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()

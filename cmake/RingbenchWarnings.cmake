# Warning and sanitizer flags, applied per target through ringbench_options.
add_library(ringbench_options INTERFACE)
add_library(ringbench::options ALIAS ringbench_options)
target_compile_options(ringbench_options INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${RINGBENCH_WARNINGS_AS_ERRORS}>>:-Werror>
  # In a unity build a source file is #included, and GCC warns of every type of its anonymous
  # namespace that a template or lambda of the same file uses, as though the file were a header
  # shared between units; it is not, so the warning says nothing there.
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<BOOL:$<TARGET_PROPERTY:UNITY_BUILD>>>:-Wno-subobject-linkage>)
# The sanitizer build stays at the Debug preset's -O0 (measured 2026-12-02, for CI's time): at -O1
# its files compiled 1.7 to 2.3 times slower, and linking the executables without PIE cut a process
# start from 0.15 s to 0.09 s but left the CLI tests' time as it was (it is work under ASan, not starts).
if(RINGBENCH_SANITIZE)
  target_compile_options(ringbench_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(ringbench_options INTERFACE -fsanitize=address,undefined)
endif()

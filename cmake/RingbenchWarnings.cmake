# Warning and sanitizer flags, applied per target through ringbench_options.
add_library(ringbench_options INTERFACE)
add_library(ringbench::options ALIAS ringbench_options)
target_compile_options(ringbench_options INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${RINGBENCH_WARNINGS_AS_ERRORS}>>:-Werror>)
if(RINGBENCH_SANITIZE)
  target_compile_options(ringbench_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(ringbench_options INTERFACE -fsanitize=address,undefined)
endif()

// A stand-in for an NVTX tool (libcupti, Nsight's injection library): NVTX loads the library that
// NVTX_INJECTION64_PATH names at its first call and calls this entry point. It fills in no
// callbacks, so NVTX calls stay no-ops; it only notes that it was loaded, for
// tests/common/test_nvtx_injection.cpp.
extern "C" {

__attribute__((visibility("default"))) int rb_fake_nvtx_tool_loaded = 0;

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* (*)(unsigned)) {
  rb_fake_nvtx_tool_loaded = 1;
  return 1;
}

}  // extern "C"

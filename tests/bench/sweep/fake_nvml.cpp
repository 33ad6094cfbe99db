// A stand-in for libnvidia-ml.so.1 with the few entry points ringbench calls, each answering with
// fixed values: the NVML loader (bench/sweep/gpu_state.cpp) runs on a machine without a driver, and a
// wrong signature or unit shows as a wrong value in test_gpu_state.cpp.
namespace {
struct Device {
  int unused;
} the_device;
}  // namespace

extern "C" {
using nvmlDevice_t = Device*;

int nvmlInit_v2() { return 0; }
const char* nvmlErrorString(int rc) { return rc == 6 ? "Not Found" : "Unknown Error"; }
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus, nvmlDevice_t* dev) {
  if (bus[0] != '0') return 6;  // NVML_ERROR_NOT_FOUND
  *dev = &the_device;
  return 0;
}
int nvmlDeviceGetTemperature(nvmlDevice_t, int sensor, unsigned* t) {
  *t = sensor == 0 ? 41u : 0u;
  return 0;
}
int nvmlDeviceGetClockInfo(nvmlDevice_t, int type, unsigned* mhz) {
  *mhz = type == 1 ? 1980u : 0u;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned* mw) {
  *mw = 123456u;
  return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t, unsigned* mw) {
  *mw = 700000u;
  return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t, unsigned long long* bits) {
  *bits = 0x4ull | 0x1ull;
  return 0;
}
int nvmlDeviceGetMigMode(nvmlDevice_t, unsigned* current, unsigned* pending) {
  *current = 0;
  *pending = 0;
  return 0;
}
}

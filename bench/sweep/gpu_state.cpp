// NVML through dlopen, and the runtime's device descriptions.
#include "bench/sweep/gpu_state.hpp"

#include <cstdlib>
#include <map>
#include <mutex>

#include <dlfcn.h>
#include <fmt/format.h>

#include "reports/results/run_record_writer.hpp"
#ifdef RINGBENCH_HAVE_CUDA
#include "ring/cuda/cuda_devices.hpp"
#endif

namespace rb::bench {
namespace {

using nlohmann::json;

// NVML's C interface, declared here so that no NVML header is needed: every call returns an
// nvmlReturn_t (0: NVML_SUCCESS) and a device is an opaque pointer.
using NvmlDevice = struct NvmlDeviceOpaque*;
using NvmlInit = int (*)();
using NvmlErrorString = const char* (*)(int);
using NvmlByPci = int (*)(const char*, NvmlDevice*);
using NvmlUint = int (*)(NvmlDevice, unsigned*);
using NvmlUintOf = int (*)(NvmlDevice, int, unsigned*);
using NvmlReasons = int (*)(NvmlDevice, unsigned long long*);
using NvmlMig = int (*)(NvmlDevice, unsigned*, unsigned*);
using NvmlText = int (*)(NvmlDevice, char*, unsigned);
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;         // NVML_CLOCK_SM

struct Nvml {
  void* lib = nullptr;
  std::string why_not;
  NvmlErrorString error_string = nullptr;
  NvmlByPci by_pci = nullptr;
  NvmlUintOf temperature = nullptr, clock = nullptr;
  NvmlUint power = nullptr, power_limit = nullptr;
  NvmlReasons reasons = nullptr;
  NvmlMig mig = nullptr;
  NvmlText serial = nullptr, board = nullptr;

  explicit Nvml(const std::string& path) {
    lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = ::dlerror();
      why_not = fmt::format("NVML not loaded ({})", e ? e : path);
      return;
    }
    auto sym = [&](const char* s) { return ::dlsym(lib, s); };
    const auto init = reinterpret_cast<NvmlInit>(sym("nvmlInit_v2"));
    error_string = reinterpret_cast<NvmlErrorString>(sym("nvmlErrorString"));
    by_pci = reinterpret_cast<NvmlByPci>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    temperature = reinterpret_cast<NvmlUintOf>(sym("nvmlDeviceGetTemperature"));
    clock = reinterpret_cast<NvmlUintOf>(sym("nvmlDeviceGetClockInfo"));
    power = reinterpret_cast<NvmlUint>(sym("nvmlDeviceGetPowerUsage"));
    power_limit = reinterpret_cast<NvmlUint>(sym("nvmlDeviceGetEnforcedPowerLimit"));
    // Renamed in CUDA 12.x; drivers keep the old name as well.
    reasons = reinterpret_cast<NvmlReasons>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons) reasons = reinterpret_cast<NvmlReasons>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    mig = reinterpret_cast<NvmlMig>(sym("nvmlDeviceGetMigMode"));
    serial = reinterpret_cast<NvmlText>(sym("nvmlDeviceGetSerial"));
    board = reinterpret_cast<NvmlText>(sym("nvmlDeviceGetBoardPartNumber"));
    if (!init || !by_pci) {
      why_not = fmt::format("{} lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2", path);
      return;
    }
    if (const int rc = init(); rc != 0) why_not = fmt::format("nvmlInit_v2 failed: {}", error(rc));
  }

  std::string error(int rc) const {
    const char* s = error_string ? error_string(rc) : nullptr;
    return s ? fmt::format("{} ({})", s, rc) : fmt::format("NVML error {}", rc);
  }
};

// Loaded once per library path and never unloaded: nvmlShutdown or dlclose at exit would race the
// CUDA runtime's own teardown. Callers hold the mutex.
const Nvml& nvml() {
  static std::map<std::string, Nvml> loaded;  // node-based: references stay valid
  const char* name = std::getenv("RINGBENCH_NVML_LIBRARY");
  const std::string path = name && *name ? name : "libnvidia-ml.so.1";
  auto it = loaded.find(path);
  if (it == loaded.end()) it = loaded.emplace(path, Nvml(path)).first;
  return it->second;
}

}  // namespace

std::vector<std::string> clock_event_reason_names(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> kNames[] = {{0x1, "gpu_idle"},
                                                                      {0x2, "applications_clocks_setting"},
                                                                      {0x4, "sw_power_cap"},
                                                                      {0x8, "hw_slowdown"},
                                                                      {0x10, "sync_boost"},
                                                                      {0x20, "sw_thermal_slowdown"},
                                                                      {0x40, "hw_thermal_slowdown"},
                                                                      {0x80, "hw_power_brake_slowdown"},
                                                                      {0x100, "display_clock_setting"}};
  std::vector<std::string> out;
  unsigned long long known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if (bits & bit) out.emplace_back(name);
  }
  if (bits & ~known) out.push_back(fmt::format("other (0x{:x})", bits & ~known));
  return out;
}

bool thermal_or_power_limited(unsigned long long bits) { return (bits & (0x4 | 0x8 | 0x20 | 0x40 | 0x80)) != 0; }

reports::RecordGpuDevice nvml_device_record(const std::string& pci_bus_id) {
  static std::mutex mu;  // NVML is thread-safe, but one sampler at a time keeps the records apart
  std::lock_guard lk(mu);
  const Nvml& n = nvml();
  reports::RecordGpuDevice s;
  if (!n.why_not.empty()) {
    s.unavailable = n.why_not;
    return s;
  }
  NvmlDevice dev = nullptr;
  if (const int rc = n.by_pci(pci_bus_id.c_str(), &dev); rc != 0) {
    s.unavailable = fmt::format("no NVML device at {}: {}", pci_bus_id, n.error(rc));
    return s;
  }
  auto uint_of = [&](NvmlUintOf f, int which) -> std::optional<std::int64_t> {
    unsigned v = 0;
    return f && f(dev, which, &v) == 0 ? std::optional<std::int64_t>(v) : std::nullopt;
  };
  auto milliwatts = [&](NvmlUint f) -> std::optional<double> {
    unsigned v = 0;
    return f && f(dev, &v) == 0 ? std::optional<double>(v / 1000.0) : std::nullopt;
  };
  s.temperature_c = uint_of(n.temperature, kTemperatureGpu);
  s.power_w = milliwatts(n.power);
  s.power_limit_w = milliwatts(n.power_limit);
  s.sm_clock_mhz = uint_of(n.clock, kClockSm);
  unsigned long long bits = 0;
  if (n.reasons && n.reasons(dev, &bits) == 0) {
    s.clock_event_reasons = clock_event_reason_names(bits);
    s.thermal_or_power_limited = thermal_or_power_limited(bits);
  }
  unsigned current = 0, pending = 0;
  if (n.mig && n.mig(dev, &current, &pending) == 0) s.mig_mode = current ? "enabled" : "disabled";
  return s;
}

GpuBoard nvml_board(const std::string& pci_bus_id) {
  static std::mutex mu;
  std::lock_guard lk(mu);
  const Nvml& n = nvml();
  GpuBoard b;
  NvmlDevice dev = nullptr;
  if (!n.why_not.empty() || n.by_pci(pci_bus_id.c_str(), &dev) != 0) return b;
  // NVML_DEVICE_SERIAL_BUFFER_SIZE is 30 and the part number's 80: 96 holds either with its NUL.
  const auto text = [&](NvmlText f) -> std::optional<std::string> {
    char buf[96] = {};
    if (!f || f(dev, buf, sizeof buf) != 0 || buf[0] == '\0') return std::nullopt;
    return std::string(buf);
  };
  b.serial = text(n.serial);
  b.board = text(n.board);
  return b;
}

json nvml_device_state(const std::string& pci_bus_id) { return reports::to_json(nvml_device_record(pci_bus_id)); }

std::vector<reports::RecordGpuDevice> gpu_states() {
  std::vector<reports::RecordGpuDevice> out;
#ifdef RINGBENCH_HAVE_CUDA
  for (const auto& d : ring::cuda_device_infos()) {
    reports::RecordGpuDevice s = nvml_device_record(d.pci_bus_id);
    s.pci_bus_id = d.pci_bus_id;
    out.push_back(std::move(s));
  }
#endif
  return out;
}

json gpu_descriptions() {
  json out = json::array();
#ifdef RINGBENCH_HAVE_CUDA
  for (const auto& d : ring::cuda_device_infos()) {
    json g{{"ordinal", d.ordinal},
           {"name", d.name},
           {"uuid", d.uuid},
           {"pci_bus_id", d.pci_bus_id},
           {"compute_capability", fmt::format("{}.{}", d.compute_capability_major, d.compute_capability_minor)},
           {"sm_count", d.sm_count},
           {"sm_clock_mhz", d.sm_clock_mhz},
           {"memory_clock_mhz", d.memory_clock_mhz},
           {"memory_bytes", d.memory_bytes},
           {"ecc", d.ecc},
           {"driver_version", d.driver_version},
           {"runtime_version", d.runtime_version}};
    const reports::RecordGpuDevice s = nvml_device_record(d.pci_bus_id);
    g["mig_mode"] = s.mig_mode ? json(*s.mig_mode) : json(nullptr);
    g["power_limit_w"] = s.power_limit_w ? json(*s.power_limit_w) : json(nullptr);
    const GpuBoard b = nvml_board(d.pci_bus_id);  // which board this is, for a fleet's records (2.5.0)
    g["serial"] = b.serial ? json(*b.serial) : json(nullptr);
    g["board"] = b.board ? json(*b.board) : json(nullptr);
    if (s.unavailable) g["nvml"] = *s.unavailable;
    out.push_back(std::move(g));
  }
#endif
  return out;
}

}  // namespace rb::bench

#include "ring/executor/cpu_binding.hpp"

#include <pthread.h>
#include <sched.h>

#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {

std::string_view to_string(CpuBinding b) {
  switch (b) {
    case CpuBinding::ranks: return "ranks";
    case CpuBinding::none: return "none";
  }
  return "?";
}

CpuBinding parse_cpu_binding(std::string_view s, std::string_view field) {
  if (s == "ranks") return CpuBinding::ranks;
  if (s == "none") return CpuBinding::none;
  throw InputError(std::string(field), std::string(s), "must be ranks or none");
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

int cpu_for_rank(int rank, const std::vector<int>& allowed) {
  if (allowed.empty()) throw Error("cpu_for_rank: no allowed CPU");
  if (rank < 0) throw Error(fmt::format("cpu_for_rank: rank {} is negative", rank));
  return allowed[static_cast<std::size_t>(rank) % allowed.size()];
}

void bind_thread(std::thread& t, int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) throw Error(fmt::format("cpu binding: CPU {} is out of range", cpu));
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (const int rc = pthread_setaffinity_np(t.native_handle(), sizeof one, &one); rc != 0)
    throw Error(fmt::format("cpu binding: pthread_setaffinity_np to CPU {} failed: {}", cpu, std::strerror(rc)));
}

}  // namespace rb::ring

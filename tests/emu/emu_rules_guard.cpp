// Linked into every test that runs the CUDA backend on the emulated device: a test during which the
// emulator saw a rule broken (a race, a capture rule, bounds, a use after free: emu_device.hpp)
// fails, naming each violation, even where its numbers came out right. An ordering that works only
// because one stream happened to run first is the defect a GPU shows as a wrong number sometimes.
// RINGBENCH_EMU_SEED picks the adversarial order (ctest runs these tests twice: in issue order
// and in a seeded order, tests/emu/CMakeLists.txt).
#include <gtest/gtest.h>

#include "emu/runtime/emu_device.hpp"

namespace rb::emu {
namespace {

class RulesGuard : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { clear_violations(); }
  // GoogleTest calls end events in reverse order of registration: appended after the result
  // printer, this runs first, so the failure is the test's own and printed with it.
  void OnTestEnd(const ::testing::TestInfo&) override {
    const auto seen = violations();
    constexpr std::size_t kShown = 8;
    for (std::size_t i = 0; i < seen.size() && i < kShown; ++i) ADD_FAILURE() << "emulated device: " << seen[i].text();
    if (seen.size() > kShown) ADD_FAILURE() << "emulated device: " << seen.size() - kShown << " more violations";
    clear_violations();
  }
};

struct Registration {
  Registration() {
    ::testing::UnitTest::GetInstance()->listeners().Append(new RulesGuard);  // owned by GoogleTest
  }
};
const Registration kRegistration;

}  // namespace
}  // namespace rb::emu

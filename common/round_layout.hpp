// How a configuration's timed samples are spread over its rounds: evenly, the first rounds taking
// the remainder (8 over 3 rounds: 3, 3, 2). The sweep runs its rounds so, results.json records
// the counts each round kept (`timing.round_counts`, 1.2.0; before that readers assume this
// layout), and compare's paired test and `run --require-power` reckon with it.
#pragma once

#include <algorithm>
#include <vector>

namespace rb {

// The samples of each of `rounds` rounds (at least 1) for `samples` in all.
inline std::vector<int> round_sizes(int samples, int rounds) {
  rounds = std::max(rounds, 1);
  std::vector<int> out;
  for (int k = 0; k < rounds; ++k) out.push_back(samples / rounds + (k < samples % rounds ? 1 : 0));
  return out;
}

}  // namespace rb

#include "gpulab/random_size.h"

#include "gpulab/random.h"

#include <stdexcept>

namespace gpulab {

std::vector<int> random_size_for_run(const Json& spec) {
    const auto lo = spec.at("min").get<std::vector<int>>(), hi = spec.at("max").get<std::vector<int>>();
    if (lo.size() != hi.size()) throw std::invalid_argument("a random size needs as many minimums as maximums");
    Rng rng = Rng::for_current_test();
    std::vector<int> size;
    for (std::size_t d = 0; d < lo.size(); ++d) size.push_back(lo[d] + int(rng.uniform(0, hi[d] - lo[d] + 1)) % (hi[d] - lo[d] + 1));
    return size;
}

}  // namespace gpulab

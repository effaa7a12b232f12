#include "oracle.h"

#include <cmath>
#include <stdexcept>

namespace gaussian_blur_oracle {
namespace {

constexpr int kWeight[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};  // sums to 16

// The index of coordinate v (possibly outside 0..n-1) under the border rule, or -1 for "reads 0".
int resolve(int v, int n, Border border) {
    if (v >= 0 && v < n) return v;
    switch (border) {
        case Border::clamp: return v < 0 ? 0 : n - 1;
        case Border::zero: return -1;
        case Border::mirror: {
            const int m = v < 0 ? -v : 2 * (n - 1) - v;
            return m >= 0 && m < n ? m : (v < 0 ? 0 : n - 1);  // a 1-pixel side reflects onto itself
        }
    }
    return -1;
}

std::uint8_t round_sum(int sum, Rounding rounding) {
    switch (rounding) {
        case Rounding::half_up: return std::uint8_t((sum + 8) >> 4);
        case Rounding::truncate: return std::uint8_t(sum >> 4);
        case Rounding::half_even: return std::uint8_t(std::nearbyint(sum / 16.0));  // default mode: ties to even
    }
    return 0;
}

}  // namespace

std::vector<std::uint8_t> blur(const std::vector<std::uint8_t>& in, int width, int height, int channels,
                               Border border, Rounding rounding) {
    if (width < 1 || height < 1 || std::size_t(width) * height * channels != in.size())
        throw std::logic_error("oracle::blur: the image size and the buffer disagree");
    std::vector<std::uint8_t> out(in.size());
    if (border == Border::clamp && rounding == Rounding::half_up) {
        // The rule itself, written out plainly (and fast enough for 8192 x 8192 images).
        const std::size_t row = std::size_t(width) * channels;
        for (int y = 0; y < height; ++y) {
            const std::uint8_t* up = in.data() + std::size_t(y > 0 ? y - 1 : 0) * row;
            const std::uint8_t* mid = in.data() + std::size_t(y) * row;
            const std::uint8_t* down = in.data() + std::size_t(y + 1 < height ? y + 1 : y) * row;
            std::uint8_t* o = out.data() + std::size_t(y) * row;
            for (int x = 0; x < width; ++x) {
                const std::size_t l = std::size_t(x > 0 ? x - 1 : 0) * channels, m = std::size_t(x) * channels,
                                  r = std::size_t(x + 1 < width ? x + 1 : x) * channels;
                for (int c = 0; c < channels; ++c) {
                    const int sum = up[l + c] + 2 * up[m + c] + up[r + c] + 2 * mid[l + c] + 4 * mid[m + c] +
                                    2 * mid[r + c] + down[l + c] + 2 * down[m + c] + down[r + c];
                    o[m + c] = std::uint8_t((sum + 8) >> 4);
                }
            }
        }
        return out;
    }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                int sum = 0;
                for (int dy = -1; dy <= 1; ++dy) {
                    const int yy = resolve(y + dy, height, border);
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int xx = resolve(x + dx, width, border);
                        if (xx < 0 || yy < 0) continue;
                        sum += kWeight[dy + 1][dx + 1] * in[(std::size_t(yy) * width + xx) * channels + c];
                    }
                }
                out[(std::size_t(y) * width + x) * channels + c] = round_sum(sum, rounding);
            }
    return out;
}

}  // namespace gaussian_blur_oracle

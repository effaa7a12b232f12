#include "heat_map.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace heat_2d_pictures {
namespace {

using Rgb = std::array<std::uint8_t, 3>;

// Nine colours sampled evenly along viridis, from t = 0 to t = 1; in between we interpolate linearly.
constexpr Rgb kStops[] = {{68, 1, 84},    {71, 45, 123},  {59, 82, 139},  {44, 114, 142}, {33, 145, 140},
                          {39, 173, 129}, {94, 201, 98},  {170, 220, 50}, {253, 231, 37}};
constexpr int kStopCount = sizeof(kStops) / sizeof(kStops[0]);

class Canvas {
public:
    Canvas(int width, int height, Rgb background) {
        image_.width = width;
        image_.height = height;
        image_.channels = 3;
        image_.pixels.resize(image_.size());
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) set(x, y, background);
    }
    void set(int x, int y, Rgb c) {
        if (x < 0 || y < 0 || x >= image_.width || y >= image_.height) return;
        std::uint8_t* p = &image_.pixels[(std::size_t(y) * image_.width + x) * 3];
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
    }
    void fill(int x0, int y0, int w, int h, Rgb c) {
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x) set(x, y, c);
    }
    // A line two pixels thick (Bresenham, each point drawn as a 2x2 square).
    void line(int x0, int y0, int x1, int y1, Rgb c, int thick = 2) {
        const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
        const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
        int err = dx + dy;
        for (;;) {
            fill(x0, y0, thick, thick, c);
            if (x0 == x1 && y0 == y1) break;
            const int e2 = 2 * err;
            if (e2 >= dy) {
                err += dy;
                x0 += sx;
            }
            if (e2 <= dx) {
                err += dx;
                y0 += sy;
            }
        }
    }
    // Text in a 3x5 pixel font, each font pixel drawn as a scale x scale square; (x, y) is the top left.
    void text(int x, int y, const std::string& s, Rgb c, int scale = 2) {
        static const std::map<char, const char*> font = {
            {'0', "111101101101111"}, {'1', "010110010010111"}, {'2', "111001111100111"},
            {'3', "111001111001111"}, {'4', "101101111001001"}, {'5', "111100111001111"},
            {'6', "111100111101111"}, {'7', "111001001001001"}, {'8', "111101111101111"},
            {'9', "111101111001111"}, {'e', "000110111100011"}, {'-', "000000111000000"},
            {'.', "000000000000010"}, {' ', "000000000000000"}, {'M', "101111111101101"},
            {'m', "000110111101101"}, {'s', "011100010001110"}, {'p', "000110101110100"},
            {'r', "000101110100100"}, {'t', "010111010010011"}, {'n', "000110101101101"},
            {'a', "000011101101011"}, {'i', "010000010010010"}, {'v', "000101101101010"},
            {'l', "010010010010011"}, {'d', "001001011101011"}, {'o', "000010101101010"},
            {':', "000010000010000"}};
        for (char ch : s) {
            const auto glyph = font.find(ch);
            if (glyph != font.end())
                for (int row = 0; row < 5; ++row)
                    for (int col = 0; col < 3; ++col)
                        if (glyph->second[row * 3 + col] == '1') fill(x + col * scale, y + row * scale, scale, scale, c);
            x += 4 * scale;
        }
    }
    static int text_width(const std::string& s, int scale = 2) { return int(s.size()) * 4 * scale - scale; }
    gpulab::Image take() { return std::move(image_); }

private:
    gpulab::Image image_;
};

}  // namespace

std::array<std::uint8_t, 3> viridis(double t) {
    if (!(t > 0)) t = 0;  // NaN too
    if (t > 1) t = 1;
    const double pos = t * (kStopCount - 1);
    const int lo = std::min(int(pos), kStopCount - 2);
    const double w = pos - lo;
    Rgb out;
    for (int c = 0; c < 3; ++c) out[c] = std::uint8_t(std::lround((1 - w) * kStops[lo][c] + w * kStops[lo + 1][c]));
    return out;
}

gpulab::Image heat_map(const std::vector<float>& field, int nx, int ny, double lo, double hi, int pixels) {
    const int scale = std::max(1, pixels / std::max(nx, ny));
    const int gap = std::max(8, 2 * scale), bar = std::max(24, 6 * scale);
    const int width = nx * scale + gap + bar, height = ny * scale;
    Canvas canvas(width, height, {255, 255, 255});
    const double span = hi > lo ? hi - lo : 1.0;
    for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) {
            const float v = field[std::size_t(j) * std::size_t(nx + 2) + std::size_t(i)];
            const Rgb c = std::isfinite(v) ? viridis((v - lo) / span) : Rgb{255, 0, 255};
            canvas.fill((i - 1) * scale, (ny - j) * scale, scale, scale, c);  // row ny at the top
        }
    for (int y = 0; y < height; ++y)
        canvas.fill(nx * scale + gap, y, bar, 1, viridis(1.0 - (y + 0.5) / height));
    return canvas.take();
}

gpulab::Image log_log_plot(const std::vector<double>& x, const std::vector<Series>& series) {
    const int width = 720, height = 460, left = 70, right = 34, top = 40, bottom = 44;
    const int plot_w = width - left - right, plot_h = height - top - bottom;
    Canvas canvas(width, height, {255, 255, 255});
    if (x.size() < 2) return canvas.take();

    double ymin = INFINITY, ymax = -INFINITY;
    for (const Series& s : series)
        for (double v : s.y)
            if (std::isfinite(v) && v > 0) {
                ymin = std::min(ymin, v);
                ymax = std::max(ymax, v);
            }
    if (!std::isfinite(ymin)) ymin = 1e-3, ymax = 1;
    const int d0 = int(std::floor(std::log10(ymin))), d1 = std::max(d0 + 1, int(std::ceil(std::log10(ymax))));
    const double lx0 = std::log2(x.front()), lx1 = std::log2(x.back());
    const auto px = [&](double v) { return left + int(std::lround((std::log2(v) - lx0) / (lx1 - lx0) * plot_w)); };
    const auto py = [&](double v) {
        return top + int(std::lround((d1 - std::log10(v)) / double(d1 - d0) * plot_h));
    };

    const Rgb grid{225, 225, 225}, axis{60, 60, 60};
    for (double v : x) {
        canvas.fill(px(v), top, 1, plot_h, grid);
        const std::string label = std::to_string(std::llround(v));
        canvas.text(px(v) - Canvas::text_width(label) / 2, top + plot_h + 8, label, axis);
    }
    for (int d = d0; d <= d1; ++d) {
        const int y = py(std::pow(10.0, d));
        canvas.fill(left, y, plot_w, 1, grid);
        const std::string label = "1e" + std::to_string(d);
        canvas.text(left - 8 - Canvas::text_width(label), y - 5, label, axis);
    }
    canvas.fill(left, top, 1, plot_h + 1, axis);
    canvas.fill(left, top + plot_h, plot_w + 1, 1, axis);
    canvas.text(left - 40, 10, "ms per step", axis);
    canvas.text(left + plot_w / 2 - 3, top + plot_h + 26, "M", axis);
    int legend_x = left + 120;
    for (const Series& s : series)
        if (!s.label.empty()) {
            canvas.fill(legend_x, 14, 14, 6, s.colour);
            canvas.text(legend_x + 20, 12, s.label, s.colour);
            legend_x += 40 + Canvas::text_width(s.label);
        }

    for (const Series& s : series) {
        int last_x = -1, last_y = -1;
        for (std::size_t k = 0; k < x.size() && k < s.y.size(); ++k) {
            if (!(std::isfinite(s.y[k]) && s.y[k] > 0)) {
                last_x = -1;
                continue;
            }
            const int X = px(x[k]), Y = py(s.y[k]);
            if (last_x >= 0) canvas.line(last_x, last_y, X, Y, s.colour);
            canvas.fill(X - 3, Y - 3, 7, 7, s.colour);
            last_x = X;
            last_y = Y;
        }
    }
    return canvas.take();
}

}  // namespace heat_2d_pictures

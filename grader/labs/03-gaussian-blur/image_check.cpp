#include "image_check.h"

#include "oracle.h"

#include "gpulab/image.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>

namespace gaussian_blur_check {
namespace {

namespace fs = std::filesystem;
namespace oracle = gaussian_blur_oracle;

constexpr std::size_t kShown = 6;
constexpr int kLargest = 1024;  // images wider or taller than this are saved as a window
constexpr int kWindow = 256;
constexpr int kPicturedFailures = 4;

struct Pixel {
    int x, y, c;
};

Pixel pixel_of(const ImageUnderTest& im, std::size_t index) {
    const int c = int(index % im.channels);
    const std::size_t cell = index / im.channels;
    return {int(cell % im.width), int(cell / im.width), c};
}

std::string where(const ImageUnderTest& im, std::size_t index) {
    const Pixel p = pixel_of(im, index);
    std::ostringstream out;
    out << "pixel (x=" << p.x << ", y=" << p.y << ")";
    if (im.channels > 1) out << " channel " << p.c;
    return out.str();
}

// The 3x3 input neighbourhood of a value, clamped, as the rule reads it; and the sum it gives.
std::string neighbourhood(const ImageUnderTest& im, std::size_t index) {
    const Pixel p = pixel_of(im, index);
    std::ostringstream out;
    out << "      the input around it (channel " << p.c << ", clamped at the edges as the rule reads it):\n";
    int sum = 0;
    static const int w[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
    for (int dy = -1; dy <= 1; ++dy) {
        out << "        ";
        for (int dx = -1; dx <= 1; ++dx) {
            const int xx = std::clamp(p.x + dx, 0, im.width - 1), yy = std::clamp(p.y + dy, 0, im.height - 1);
            const int v = (*im.input)[(std::size_t(yy) * im.width + xx) * im.channels + p.c];
            sum += w[dy + 1][dx + 1] * v;
            out.width(4);
            out << v;
        }
        out << "\n";
    }
    out << "      S = " << sum << ", (S + 8) >> 4 = " << ((sum + 8) >> 4) << "\n";
    return out.str();
}

bool on_border(const ImageUnderTest& im, const Pixel& p) {
    return p.x == 0 || p.y == 0 || p.x == im.width - 1 || p.y == im.height - 1;
}

// Whether `actual` equals the blur under another rule, on every written value.
bool matches_variant(const ImageUnderTest& im, oracle::Border border, oracle::Rounding rounding) {
    const auto variant = oracle::blur(*im.input, im.width, im.height, im.channels, border, rounding);
    if (variant == *im.expected) return false;  // the variant cannot be told apart on this image
    return variant == *im.actual;
}

// A period P and an edge of a P-wide tile that every wrong value lies on, e.g. "bottom row of the
// 16x16 tiles": the signature of a halo row or column not loaded, or read before it was written.
std::string tile_edge_pattern(const ImageUnderTest& im, const std::vector<std::size_t>& wrong) {
    if (wrong.size() < 2) return "";
    // Largest first: a pattern every 16 pixels also repeats every 8.
    for (int period : {64, 32, 16, 8, 62, 30, 14}) {
        struct Edge {
            const char* name;
            bool (*on)(const Pixel&, int);
            bool x_axis;
        };
        static const Edge edges[] = {
            {"left column", [](const Pixel& p, int P) { return p.x % P == 0; }, true},
            {"right column", [](const Pixel& p, int P) { return p.x % P == P - 1; }, true},
            {"top row", [](const Pixel& p, int P) { return p.y % P == 0; }, false},
            {"bottom row", [](const Pixel& p, int P) { return p.y % P == P - 1; }, false},
        };
        for (const Edge& edge : edges) {
            if ((edge.x_axis ? im.width : im.height) <= period) continue;
            bool all = true;
            for (std::size_t i : wrong)
                if (!edge.on(pixel_of(im, i), period)) {
                    all = false;
                    break;
                }
            if (all)
                return "every wrong pixel is in the " + std::string(edge.name) + " of a " + std::to_string(period) +
                       "-pixel tile (" + (edge.x_axis ? "x" : "y") + " % " + std::to_string(period) +
                       (std::string(edge.name).find("left") != std::string::npos ||
                                std::string(edge.name).find("top") != std::string::npos
                            ? " == 0"
                            : " == " + std::to_string(period - 1)) +
                       "). Those pixels read the halo on that side of the tile: it is not loaded into shared "
                       "memory (an off-by-one in the load loop or its bounds), or it is read before it was "
                       "written (check the __syncthreads() between loading and computing).";
        }
        // Any edge of the tiles, when no single side explains it.
        bool all = true;
        for (std::size_t i : wrong) {
            const Pixel p = pixel_of(im, i);
            const bool edge_x = im.width > period && (p.x % period == 0 || p.x % period == period - 1);
            const bool edge_y = im.height > period && (p.y % period == 0 || p.y % period == period - 1);
            if (!edge_x && !edge_y) {
                all = false;
                break;
            }
        }
        if (all)
            return "every wrong pixel lies on the edge of a " + std::to_string(period) +
                   "-pixel tile: those are the pixels that read the halo. Is every halo pixel loaded into shared "
                   "memory, and loaded before any thread reads it (__syncthreads())?";
    }
    return "";
}

// ---- Halo corners ------------------------------------------------------------------------------------
// A tiled 3x3 blur that never loads the four corner cells of its halo gets exactly one kind of pixel
// wrong: a pixel in a corner of its tile, whose diagonal neighbour is that corner cell. Nothing else
// reads them. On a small image those pixels are also the image's corners, which a border-rule bug gets
// wrong too, so the grader runs the kernel once more on an image with tile corners inside it before
// it names this cause.

struct Tile {
    int w = 0, h = 0;
};

// Whether pixel p sits in a corner of its tile: first or last column of the tile (or the image's last
// column, where a tile is cut short), and likewise first or last row.
bool at_tile_corner(const Pixel& p, const Tile& t, int width, int height) {
    const bool edge_x = p.x % t.w == 0 || p.x % t.w == t.w - 1 || p.x == width - 1;
    const bool edge_y = p.y % t.h == 0 || p.y % t.h == t.h - 1 || p.y == height - 1;
    return edge_x && edge_y;
}

bool all_at_tile_corners(const ImageUnderTest& im, const std::vector<std::size_t>& wrong, const Tile& t) {
    return std::all_of(wrong.begin(), wrong.end(),
                       [&](std::size_t i) { return at_tile_corner(pixel_of(im, i), t, im.width, im.height); });
}

constexpr int kTileSides[] = {64, 62, 32, 30, 16, 14, 8, 6, 4};

// The probe: primes-ish sides with several tiles of up to 64 pixels in each direction, so tile corners
// lie inside the image, away from its border.
constexpr int kProbeWidth = 199, kProbeHeight = 133;

// The kernel under test run on the probe: fresh random values in 1..254, the same for every run (a
// fixed seed), with tile corners and tile edges inside the image, away from its border.
struct Probe {
    bool ran = false;
    std::vector<std::uint8_t> input, expected;
    Rerun run;
    ImageUnderTest image;  // points at the members above: do not copy a Probe
    std::vector<std::size_t> wrong;
    Probe() = default;
    Probe(const Probe&) = delete;
    Probe& operator=(const Probe&) = delete;
};

// Fills `probe`; probe.ran says whether the kernel ran on it.
void run_probe(const ImageUnderTest& im, Probe& probe) {
    std::mt19937 engine(20240917u);
    std::uniform_int_distribution<int> value(1, 254);
    probe.input.resize(std::size_t(kProbeWidth) * kProbeHeight * im.channels);
    for (std::uint8_t& byte : probe.input) byte = std::uint8_t(value(engine));
    try {
        probe.run = im.rerun(probe.input, kProbeWidth, kProbeHeight, 255);
    } catch (const std::exception&) {
        return;  // the probe itself failed: name no cause from it
    }
    probe.expected = oracle::blur(probe.input, kProbeWidth, kProbeHeight, im.channels);
    if (probe.run.out.size() != probe.expected.size()) return;
    probe.image = im;
    probe.image.width = kProbeWidth, probe.image.height = kProbeHeight;
    probe.image.input = &probe.input, probe.image.actual = &probe.run.out, probe.image.expected = &probe.expected;
    for (std::size_t i = 0; i < probe.expected.size(); ++i)
        if (probe.run.out[i] != probe.expected[i]) probe.wrong.push_back(i);
    probe.ran = true;
}

std::string tile_edge_pattern(const ImageUnderTest& im, const std::vector<std::size_t>& wrong);

// On an image so small that every wrong pixel is a border pixel, a tiled kernel's halo bug looks like
// a border-rule bug. The probe tells them apart: a border-rule bug is wrong only on the probe's border.
// Returns the halo diagnosis when the probe shows one, else "".
std::string small_image_tile_diagnosis(const ImageUnderTest& im) {
    if (!im.tiled || !im.rerun) return "";
    Probe probe;
    run_probe(im, probe);
    if (!probe.ran) return "";
    const bool inside = std::any_of(probe.wrong.begin(), probe.wrong.end(),
                                    [&](std::size_t i) { return !on_border(probe.image, pixel_of(probe.image, i)); });
    if (!inside) return "";
    const std::string pattern = tile_edge_pattern(probe.image, probe.wrong);
    return "On this image every wrong pixel is on the border, but that is not the border rule: the grader also ran "
           "your kernel on a " + std::to_string(kProbeWidth) + "x" + std::to_string(kProbeHeight) + " image, and "
           "there pixels inside the image are wrong too" +
           (pattern.empty() ? std::string(". Look at how the tile and its halo are loaded, and at the __syncthreads() "
                                          "between loading and computing.")
                            : ": " + pattern);
}

// The tile size of a kernel whose wrong pixels (on the probe image) all sit in tile corners, at least
// one of them inside the image; {0, 0} when they do not. With the grid of the launch the tile is the
// image divided by the grid; without it (CPU execution mode), the largest tile the pattern fits.
Tile corner_tile_of_probe(const ImageUnderTest& probe, const std::vector<std::size_t>& wrong, const Rerun& run) {
    if (wrong.empty()) return {};
    const auto inside_corner = [&](const Tile& t) {
        return std::any_of(wrong.begin(), wrong.end(), [&](std::size_t i) {
            const Pixel p = pixel_of(probe, i);
            return !on_border(probe, p) && at_tile_corner(p, t, probe.width, probe.height);
        });
    };
    if (run.grid_x > 0 && run.grid_y > 0) {
        const Tile t{int((probe.width + run.grid_x - 1) / run.grid_x), int((probe.height + run.grid_y - 1) / run.grid_y)};
        return all_at_tile_corners(probe, wrong, t) && inside_corner(t) ? t : Tile{};
    }
    for (int w : kTileSides)
        for (int h : kTileSides) {
            const Tile t{w, h};
            if (all_at_tile_corners(probe, wrong, t) && inside_corner(t)) return t;
        }
    return {};
}

// "The corner cells of the halo were not loaded", when that is what the wrong pixels show and a probe
// run confirms it; "" otherwise.
std::string halo_corner_diagnosis(const ImageUnderTest& im, const std::vector<std::size_t>& wrong) {
    if (!im.tiled || !im.rerun || wrong.empty()) return "";
    // Cheap test first: could some tile size put every wrong pixel of this image in a tile corner?
    bool possible = false;
    for (int w : kTileSides)
        for (int h : kTileSides) possible = possible || all_at_tile_corners(im, wrong, Tile{w, h});
    if (!possible) return "";
    Probe probe;
    run_probe(im, probe);
    if (!probe.ran) return "";
    const Tile t = corner_tile_of_probe(probe.image, probe.wrong, probe.run);
    if (t.w == 0 || !all_at_tile_corners(im, wrong, t)) return "";
    const std::string tile = std::to_string(t.w) + "x" + std::to_string(t.h);
    return "Only pixels in the corners of your " + tile + " tiles are wrong (the grader also ran your kernel on a " +
           std::to_string(kProbeWidth) + "x" + std::to_string(kProbeHeight) + " image: there too every wrong pixel "
           "sits in a tile corner). The corner cells of the halo were not loaded: a corner pixel of the tile is the "
           "only one whose 3x3 neighbourhood includes a diagonal cell outside the tile, so it alone reads them. "
           "A 3x3 stencil needs the whole (" + std::to_string(t.w) + "+2)x(" + std::to_string(t.h) + "+2) region "
           "in shared memory, the four corner cells included (a 5-point stencil would not).";
}

bool nothing_written(const ImageUnderTest& im) {
    return std::all_of(im.actual->begin(), im.actual->end(), [](std::uint8_t v) { return v == 255; });
}

std::string likely_cause(const ImageUnderTest& im, const std::vector<std::size_t>& wrong, std::size_t unwritten,
                         std::size_t total_wrong, std::size_t computed_255) {
    const std::size_t values = im.actual->size();
    const bool all_border = im.width <= 2 || im.height <= 2;  // no pixel has all 8 neighbours inside
    if (nothing_written(im) && computed_255 == 0)
        return std::string("No pixel was written (every byte still holds the 255 the grader filled the output "
                           "with). Is the kernel launched with a grid of at least one block, and does every thread "
                           "store its result?") +
               (all_border ? " Every pixel of an image this thin is a border pixel: a kernel that skips the border "
                             "writes nothing here."
                           : "");
    std::vector<Pixel> px;
    px.reserve(wrong.size());
    for (std::size_t i : wrong) px.push_back(pixel_of(im, i));
    if (unwritten == total_wrong) {
        int min_x = im.width, min_y = im.height;
        bool channel_only = true, border_only = true;
        int min_c = im.channels;
        for (const Pixel& p : px) {
            min_x = std::min(min_x, p.x);
            min_y = std::min(min_y, p.y);
            min_c = std::min(min_c, p.c);
            border_only = border_only && on_border(im, p);
        }
        for (const Pixel& p : px) channel_only = channel_only && p.c >= min_c;
        const std::size_t right_columns = std::size_t(im.width - min_x) * im.height * im.channels;
        const std::size_t bottom_rows = std::size_t(im.height - min_y) * im.width * im.channels;
        if (min_c > 0 && channel_only && unwritten == std::size_t(im.channels - min_c) * im.width * im.height)
            return "Channels " + std::to_string(min_c) + " and up were never written: loop over all `channels` "
                   "channels of each pixel (an RGBA image has 4, alpha included).";
        if (min_x > 0 && unwritten == right_columns)
            return "Columns x >= " + std::to_string(min_x) + " were never written: the grid does not reach the right "
                   "edge. Round the number of blocks up: (width + block.x - 1) / block.x.";
        if (min_y > 0 && unwritten == bottom_rows)
            return "Rows y >= " + std::to_string(min_y) + " were never written: the grid does not reach the bottom "
                   "edge. Round the number of blocks up: (height + block.y - 1) / block.y.";
        if (border_only && !all_border)
            return "Only pixels on the image border were never written. Border pixels are blurred too: their "
                   "missing neighbours are the nearest pixels inside the image (clamp-to-edge), so no thread may "
                   "skip them.";
        return "Some pixels were never written (they still hold the grader's 255): some threads return before "
               "storing, or the grid does not cover every pixel.";
    }
    // A whole image that another border rule or rounding gives exactly: the student's blur follows that rule.
    struct Variant {
        oracle::Border border;
        oracle::Rounding rounding;
        const char* diagnosis;
    };
    static const Variant kVariants[] = {
        {oracle::Border::clamp, oracle::Rounding::truncate,
         "Your values are S >> 4: rounded down. The rule is (S + 8) >> 4 (round half up); adding 8 before the shift "
         "is what makes it round."},
        {oracle::Border::clamp, oracle::Rounding::half_even,
         "Your values round ties (S % 16 == 8) to the even neighbour, as rintf, lrintf and __float2int_rn do. The rule "
         "rounds half up: (S + 8) >> 4 in integers."},
        {oracle::Border::zero, oracle::Rounding::half_up,
         "Outside the image your kernel reads 0 (zero padding), so the border gets darker. The rule is clamp-to-edge: "
         "a neighbour outside the image is the nearest pixel inside it."},
        {oracle::Border::mirror, oracle::Rounding::half_up,
         "Outside the image your kernel reflects (p(-1) = p(1)). The rule is clamp-to-edge: p(-1) = p(0), the edge "
         "pixel itself."}};
    if (unwritten == 0)
        for (const Variant& v : kVariants)
            if (matches_variant(im, v.border, v.rounding)) return v.diagnosis;
    if (const std::string corners = halo_corner_diagnosis(im, wrong); !corners.empty()) return corners;
    if (std::all_of(px.begin(), px.end(), [&](const Pixel& p) { return on_border(im, p); }))
        if (const std::string halo = small_image_tile_diagnosis(im); !halo.empty()) return halo;
    if (!all_border && std::all_of(px.begin(), px.end(), [&](const Pixel& p) { return on_border(im, p); }))
        return "Only pixels on the image border are wrong: check how they read neighbours outside the image. "
               "The rule is clamp-to-edge: p(-1, y) = p(0, y), p(width, y) = p(width-1, y), the same in y, "
               "and a corner's diagonal neighbour is the corner itself.";
    if (const std::string tiles = tile_edge_pattern(im, wrong); !tiles.empty()) return tiles;
    if (im.channels > 1) {
        const int c0 = px.front().c;
        if (std::all_of(px.begin(), px.end(), [&](const Pixel& p) { return p.c == c0; }))
            return "Only channel " + std::to_string(c0) + " is wrong. Each channel is blurred on its own from "
                   "the same channel of the neighbours: byte (y * width + x) * channels + c.";
    }
    bool off_by_one = true;
    for (std::size_t i : wrong) off_by_one = off_by_one && std::abs(int((*im.actual)[i]) - int((*im.expected)[i])) == 1;
    if (off_by_one)
        return "Every wrong value is off by exactly one: a rounding difference. Use integers: (S + 8) >> 4.";
    if (total_wrong == values)
        return std::string("Every value is wrong: check the weights (1 2 1 / 2 4 2 / 1 2 1, which add up to 16), "
                           "the index of a channel (byte (y * width + x) * channels + c), and that the kernel reads "
                           "the input buffer.") +
               (im.tiled ? " In the tiled kernel, also check that the whole tile is loaded before any thread reads "
                           "it (__syncthreads()) and that a pixel's tile index matches where the load put it."
                         : "");
    if (im.tiled)
        return "The wrong pixels follow no simple pattern. In a tiled kernel this is usually a tile value read "
               "before it was written (a missing or misplaced __syncthreads(), or a thread returning before the "
               "barrier), or a tile index that does not match how the tile was loaded.";
    return "";
}

// Enlarges tiny images (nearest neighbour) so a viewer shows them; cuts a window out of huge ones.
struct View {
    int x0 = 0, y0 = 0, w = 0, h = 0, scale = 1;
};

View view_for(const ImageUnderTest& im, std::size_t first_wrong) {
    View v{0, 0, im.width, im.height, 1};
    if (im.width > kLargest || im.height > kLargest) {
        const Pixel p = pixel_of(im, first_wrong);
        v.w = std::min(im.width, kWindow);
        v.h = std::min(im.height, kWindow);
        v.x0 = std::clamp(p.x - v.w / 2, 0, im.width - v.w);
        v.y0 = std::clamp(p.y - v.h / 2, 0, im.height - v.h);
    }
    const int longest = std::max(v.w, v.h);
    v.scale = std::clamp(256 / longest, 1, 32);
    return v;
}

gpulab::Image render(const View& v, int channels, const std::function<void(int x, int y, std::uint8_t* out)>& pixel) {
    gpulab::Image image{v.w * v.scale, v.h * v.scale, channels, {}};
    image.pixels.resize(image.size());
    std::vector<std::uint8_t> value(static_cast<std::size_t>(channels));
    for (int y = 0; y < v.h; ++y)
        for (int x = 0; x < v.w; ++x) {
            pixel(v.x0 + x, v.y0 + y, value.data());
            for (int sy = 0; sy < v.scale; ++sy)
                for (int sx = 0; sx < v.scale; ++sx)
                    std::copy(value.begin(), value.end(),
                              image.pixels.begin() +
                                  std::ptrdiff_t((std::size_t(y * v.scale + sy) * image.width + x * v.scale + sx) * channels));
        }
    return image;
}

// Writes the four pictures; returns the lines that name them (or why they could not be written).
std::string save_pictures(const ImageUnderTest& im, const std::string& stem, std::size_t first_wrong,
                          const std::vector<bool>& unwritten_at) {
    const View v = view_for(im, first_wrong);
    const auto copy_of = [&](const std::vector<std::uint8_t>& source) {
        return render(v, im.channels, [&](int x, int y, std::uint8_t* out) {
            const std::size_t at = (std::size_t(y) * im.width + x) * im.channels;
            std::copy_n(source.begin() + std::ptrdiff_t(at), im.channels, out);
        });
    };
    // The diff: the expected image dimmed to grey for orientation; wrong pixels red (brighter for a
    // larger error), pixels never written yellow.
    const gpulab::Image diff = render(v, 3, [&](int x, int y, std::uint8_t* out) {
        const std::size_t at = (std::size_t(y) * im.width + x) * im.channels;
        int grey = 0, error = 0;
        bool unwritten = false;
        for (int c = 0; c < im.channels; ++c) {
            grey += (*im.expected)[at + c];
            error = std::max(error, std::abs(int((*im.actual)[at + c]) - int((*im.expected)[at + c])));
            unwritten = unwritten || unwritten_at[at + c];
        }
        grey = grey / im.channels / 4;
        if (unwritten) {
            out[0] = 255, out[1] = 230, out[2] = 0;
        } else if (error > 0) {
            out[0] = std::uint8_t(std::min(255, 150 + 10 * error)), out[1] = 0, out[2] = 0;
        } else {
            out[0] = out[1] = out[2] = std::uint8_t(grey);
        }
    });
    const fs::path dir = gpulab::artifact_dir();
    std::ostringstream out;
    try {
        const std::string base = (dir / stem).string();
        gpulab::save_png(base + "_input.png", copy_of(*im.input));
        gpulab::save_png(base + "_expected.png", copy_of(*im.expected));
        gpulab::save_png(base + "_actual.png", copy_of(*im.actual));
        gpulab::save_png(base + "_diff.png", diff);
        out << "  Pictures: " << display_path(base + "_diff.png") << " (red: wrong, yellow: never written, grey: right)\n"
            << "            and _input.png, _expected.png, _actual.png beside it";
        if (v.w != im.width || v.h != im.height)
            out << "; a " << v.w << "x" << v.h << " window at (x=" << v.x0 << ", y=" << v.y0
                << ") around the first wrong pixel";
        if (v.scale > 1) out << "; enlarged " << v.scale << "x";
        out << ".\n";
    } catch (const std::exception& e) {
        out << "  (The pictures of this failure could not be written: " << e.what() << ")\n";
    }
    return out.str();
}

}  // namespace

std::string display_path(const std::string& path) {
    std::error_code error;
    const fs::path absolute = fs::absolute(path, error).lexically_normal();
    const fs::path here = fs::current_path(error);
    const fs::path relative = absolute.lexically_relative(here);
    if (!relative.empty() && *relative.begin() != "..") return relative.string();
    return absolute.string();
}

std::string current_test_stem() {
    const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
    std::string stem = info ? std::string(info->test_suite_name()) + "." + info->name() : "test";
    for (char& ch : stem)
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_')) ch = '_';
    return stem;
}

ImageVerdict check_image(const ImageUnderTest& im, const std::string& artifact_stem) {
    const std::vector<std::uint8_t>& actual = *im.actual;
    const std::vector<std::uint8_t>& expected = *im.expected;
    const std::size_t values = std::size_t(im.width) * im.height * im.channels;
    if (actual.size() != values || expected.size() != values || im.input->size() != values)
        throw std::logic_error("check_image: the image sizes disagree");
    ImageVerdict v;
    v.values = values;
    std::vector<std::size_t> wrong;
    std::vector<bool> unwritten_at(values, false);
    for (std::size_t i = 0; i < values; ++i) {
        if (actual[i] == expected[i]) continue;
        ++v.wrong;
        if (actual[i] == 255) {
            ++v.unwritten;
            unwritten_at[i] = true;
        }
        v.max_error = std::max(v.max_error, std::abs(int(actual[i]) - int(expected[i])));
        if (wrong.size() < (1u << 22)) wrong.push_back(i);
    }
    v.ok = v.wrong == 0;
    if (v.ok) {
        v.figure = "exact";
        return v;
    }
    // A wrong 255 is the grader's fill, or a value the kernel computed. Run again on an output filled
    // with kSecondFill: a byte the kernel never writes holds 255 in the first run and kSecondFill in the
    // second; a byte it writes does not keep the second fill.
    bool second_run = false;
    if (v.unwritten && im.rerun) {
        try {
            const Rerun again = im.rerun(*im.input, im.width, im.height, kSecondFill);
            if (again.out.size() == values) {
                second_run = true;
                for (std::size_t i = 0; i < values; ++i)
                    if (unwritten_at[i] && again.out[i] != kSecondFill) {
                        unwritten_at[i] = false;
                        --v.unwritten;
                        ++v.computed_255;
                    }
            }
        } catch (const std::exception&) {
            // No second opinion: the first run's reading stands, with its hedge.
        }
    }
    const bool certain = second_run || im.poison_is_certain;
    const char* never = certain ? "never written" : "probably never written";
    const std::string never_long =
        second_run ? std::string("never written: a second run with the output filled with ") +
                         std::to_string(int(kSecondFill)) + " left those bytes at " + std::to_string(int(kSecondFill))
        : im.poison_is_certain ? std::string("no right answer is 255 here, so never written") +
                                     (im.tiled ? ", or computed from __shared__ memory nobody wrote" : "")
                               : "probably never written";
    const bool blank = nothing_written(im) && v.computed_255 == 0;
    v.figure = blank ? "no pixel written"
               : std::to_string(v.wrong) + " of " + std::to_string(values) + " values wrong";

    std::ostringstream out;
    out << im.what << ": " << v.wrong << " of " << values << " values are wrong";
    if (v.unwritten)
        out << " (" << v.unwritten << " still hold 255, the grader's fill: " << never_long << ")";
    out << ". The blur must match the oracle exactly (integer rule, see the handout).\n";
    if (v.computed_255)
        out << "  " << v.computed_255 << " wrong value(s) are a 255 that your kernel wrote: a second run with the "
            << "output filled with " << int(kSecondFill) << " did not leave them at " << int(kSecondFill)
            << ", so your kernel writes them (the 255 is what it computed)."
            << (im.tiled ? " In CPU execution mode __shared__ memory starts filled with 255: a tile byte read before "
                           "any thread wrote it gives bright pixels."
                         : "")
            << "\n";
    for (std::size_t k = 0; k < std::min(kShown, wrong.size()); ++k) {
        const std::size_t i = wrong[k];
        out << "    " << where(im, i) << ": ";
        if (unwritten_at[i])
            out << "255 (" << never << ")";
        else
            out << "got " << int(actual[i]);
        out << ", expected " << int(expected[i]) << "\n";
        if (k == 0 && !unwritten_at[i]) out << neighbourhood(im, i);
    }
    if (wrong.size() > kShown) out << "    ... and " << (v.wrong - kShown) << " more\n";
    const std::string cause = likely_cause(im, wrong, v.unwritten, v.wrong, v.computed_255);
    if (!cause.empty()) out << "  Likely cause: " << cause << "\n";
    // Pictures for the first few failures of each test suite in this process (a kernel that is wrong
    // everywhere would otherwise leave hundreds), and none of an output nothing was written to.
    static std::map<std::string, int> pictures_per_suite;
    const std::string suite = artifact_stem.substr(0, artifact_stem.find('.'));
    if (blank)
        out << "  (No pictures: the output is exactly as the grader filled it.)\n";
    else if (++pictures_per_suite[suite] <= kPicturedFailures)
        out << save_pictures(im, artifact_stem, wrong.front(), unwritten_at);
    else
        out << "  (Pictures are written for the first " << kPicturedFailures << " failures of each test only.)\n";
    v.explanation = out.str();
    return v;
}

}  // namespace gaussian_blur_check

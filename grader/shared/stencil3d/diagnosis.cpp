#include "diagnosis.h"

#include "oracle.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace stencil3d_grading::diagnosis {
namespace {

const char* const kNeighbour[7] = {"in(x,y,z)",   "in(x-1,y,z)", "in(x+1,y,z)", "in(x,y-1,z)",
                                   "in(x,y+1,z)", "in(x,y,z-1)", "in(x,y,z+1)"};

// The share of interior cells whose output matches the stencil with weights `w`.
double share_matching(const std::vector<double>& out, const std::vector<double>& in, const Grid3& g, const double w[7],
                      double rel_tol) {
    const Coeffs<double> c{w[0], w[1], w[2], w[3], w[4], w[5], w[6]};
    std::size_t match = 0;
    for (int z = 1; z <= g.nz - 2; ++z)
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x) {
                double scale = 0;
                const double want = oracle::at(in, g, c, x, y, z, &scale);
                if (std::fabs(out[g.at(x, y, z)] - want) <= rel_tol * scale) ++match;
            }
    return double(match) / double(g.interior_cells());
}

template <typename Pred>
std::size_t count_interior(const Grid3& g, Pred pred) {
    std::size_t n = 0;
    for (int z = 1; z <= g.nz - 2; ++z)
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x) n += pred(x, y, z) ? 1 : 0;
    return n;
}

std::string list_of(const std::vector<int>& values, std::size_t shown = 8) {
    std::ostringstream out;
    for (std::size_t i = 0; i < values.size() && i < shown; ++i) out << (i ? ", " : "") << values[i];
    if (values.size() > shown) out << ", ... (" << values.size() << " in all)";
    return out.str();
}

}  // namespace

std::string swapped_weights(const std::vector<double>& out, const std::vector<double>& in, const Grid3& g,
                            const Coeffs<double>& c, double rel_tol) {
    const double w[7] = {c.c0, c.c1, c.c2, c.c3, c.c4, c.c5, c.c6};
    for (int a = 0; a < 7; ++a)
        for (int b = a + 1; b < 7; ++b) {
            double v[7];
            std::copy(w, w + 7, v);
            std::swap(v[a], v[b]);
            if (share_matching(out, in, g, v, rel_tol) < (g.interior_cells() < 20 ? 1.0 : 0.95)) continue;
            std::ostringstream s;
            s << "Your output is the stencil with c" << a << " and c" << b << " exchanged: your kernel multiplies "
              << kNeighbour[a] << " by c" << b << " and " << kNeighbour[b] << " by c" << a << ". The weights go c1 "
              << "x-1, c2 x+1, c3 y-1, c4 y+1, c5 z-1, c6 z+1 (labs/common/stencil3d.h); the grader gives each its own "
                 "value, so an exchange shows.";
            return s.str();
        }
    const double same[7] = {c.c0, c.c1, c.c1, c.c1, c.c1, c.c1, c.c1};
    if (share_matching(out, in, g, same, rel_tol) >= (g.interior_cells() < 20 ? 1.0 : 0.95))
        return "Your output is the stencil with c1 on all six neighbours (the textbook's form when the neighbours' "
               "weights are equal, as in the heat equation). Here each neighbour has its own weight: c1 x-1, c2 x+1, "
               "c3 y-1, c4 y+1, c5 z-1, c6 z+1.";
    return "";
}

std::string plane_pattern(const std::vector<std::uint8_t>& cells, const Grid3& g) {
    if (g.nz < 5) return "";
    const std::size_t per_plane = std::size_t(g.nx - 2) * std::size_t(g.ny - 2);
    std::vector<int> bad_planes;
    bool unwritten = true;
    for (int z = 1; z <= g.nz - 2; ++z) {
        std::size_t bad = 0, never = 0;
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x) {
                bad += cells[g.at(x, y, z)] != ok;
                never += cells[g.at(x, y, z)] == diagnosis::unwritten;
            }
        if (bad == 0) continue;
        if (10 * bad < 9 * per_plane) return "";  // a plane only partly bad: not a whole-plane pattern
        bad_planes.push_back(z);
        unwritten = unwritten && 10 * never >= 9 * per_plane;
    }
    const int interior_planes = g.nz - 2;
    if (bad_planes.empty() || 2 * int(bad_planes.size()) > interior_planes) return "";
    std::ostringstream s;
    s << "The bad cells fill whole z-planes, and only " << bad_planes.size() << " of the " << interior_planes
      << ": z = " << list_of(bad_planes) << (unwritten ? " (never written)" : " (wrong values)") << ". ";
    const std::string walk_start =
        "where a block coarsened in z starts its walk: does each block compute its first plane, and load the plane "
        "below it (z_first - 1) and the first plane itself before its loop?";
    const std::string walk_end =
        "where a block coarsened in z ends its walk: does the loop run up to and including its last plane (and stop "
        "at nz - 2 for the last chunk)?";
    if (bad_planes == std::vector<int>{1}) return s.str() + "That is the first interior plane, " + walk_start;
    if (bad_planes == std::vector<int>{g.nz - 2}) return s.str() + "That is the last interior plane, " + walk_end;
    // The first (or last) plane of every chunk of P planes, counted from z = 1 (two chunks or more).
    for (int P = 2; P < interior_planes; ++P) {
        std::vector<int> firsts, lasts;
        for (int start = 1; start <= g.nz - 2; start += P) {
            firsts.push_back(start);
            lasts.push_back(std::min(start + P - 1, g.nz - 2));
        }
        if (bad_planes == firsts)
            return s.str() + "Those are the first plane of every " + std::to_string(P) + "-plane chunk, " + walk_start;
        if (bad_planes == lasts)
            return s.str() + "Those are the last plane of every " + std::to_string(P) + "-plane chunk, " + walk_end;
    }
    return s.str() + "Does every block visit every plane of its chunk?";
}

std::string coverage_pattern(const std::vector<std::uint8_t>& cells, const Grid3& g) {
    int lo[3] = {g.nx, g.ny, g.nz}, hi[3] = {-1, -1, -1};
    std::size_t never = 0;
    for (int z = 1; z <= g.nz - 2; ++z)
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x)
                if (cells[g.at(x, y, z)] == unwritten) {
                    ++never;
                    const int v[3] = {x, y, z};
                    for (int a = 0; a < 3; ++a) {
                        lo[a] = std::min(lo[a], v[a]);
                        hi[a] = std::max(hi[a], v[a]);
                    }
                }
    if (never == 0) return "";
    if (never == g.interior_cells())
        return "Not one interior cell was written. Does the launch function launch a kernel at all (or is it still the "
               "TODO), and does that kernel store its result into `out` at (z * ny + y) * nx + x?";
    const char* axis[3] = {"x", "y", "z"};
    const int last[3] = {g.nx - 2, g.ny - 2, g.nz - 2};
    std::ostringstream s;
    for (int a = 0; a < 3; ++a) {
        // Every cell beyond some coordinate unwritten, and nothing else: the grid stops short along that axis.
        if (hi[a] != last[a] || lo[a] <= 1) continue;
        const std::size_t beyond = count_interior(g, [&](int x, int y, int z) { return (a == 0 ? x : a == 1 ? y : z) >= lo[a]; });
        if (beyond != never) continue;
        s << "Every cell with " << axis[a] << " >= " << lo[a] << " was never written, and every other cell was: your "
          << "threads reach only " << lo[a] - 1 << " of the " << last[a] << " interior cells along " << axis[a]
          << ". Either the grid stops short there (round the block count up, e.g. (n - 2 + B - 1) / B blocks of B "
             "cells; for a tiled kernel, of B output cells), or the "
          << axis[a] << " index is built from the wrong block or thread index (each of x, y and z needs its own "
                        "blockIdx and threadIdx component).";
        return s.str();
    }
    s << never << " interior cell(s) were never written (the first at "
      << cell_name(lo[0] <= hi[0] ? lo[0] : 0, lo[1] <= hi[1] ? lo[1] : 0, lo[2] <= hi[2] ? lo[2] : 0)
      << " or near it). Does each thread take x from blockIdx.x and threadIdx.x, y from blockIdx.y and threadIdx.y and "
         "z from blockIdx.z and threadIdx.z (or its loop over z), and does the grid cover all "
      << last[0] << " x " << last[1] << " x " << last[2] << " interior cells?";
    return s.str();
}

std::string tile_face_pattern(const std::vector<std::uint8_t>& cells, const Grid3& g) {
    std::vector<int> wx, wy, wz;
    for (int z = 1; z <= g.nz - 2; ++z)
        for (int y = 1; y <= g.ny - 2; ++y)
            for (int x = 1; x <= g.nx - 2; ++x)
                if (cells[g.at(x, y, z)] == wrong) {
                    wx.push_back(x - 1);
                    wy.push_back(y - 1);
                    wz.push_back(z - 1);
                }
    if (wx.size() < 2 || wx.size() == g.interior_cells()) return "";
    const auto on_face = [](int v, int period, int extent) {
        return period > 0 && (v % period == 0 || v % period == period - 1 || v == extent - 1);
    };
    // Cubic output tiles (tiled kernels), then square ones in x and y (kernels coarsened in z).
    for (bool with_z : {true, false})
        for (int p = 64; p >= 3; --p) {
            const int pz = with_z ? p : 0;
            if (p >= g.nx - 2 && p >= g.ny - 2) continue;
            bool all = true;
            for (std::size_t i = 0; i < wx.size() && all; ++i)
                all = on_face(wx[i], p, g.nx - 2) || on_face(wy[i], p, g.ny - 2) || on_face(wz[i], pz, g.nz - 2);
            if (!all) continue;
            const std::size_t face_cells = count_interior(g, [&](int x, int y, int z) {
                return on_face(x - 1, p, g.nx - 2) || on_face(y - 1, p, g.ny - 2) || on_face(z - 1, pz, g.nz - 2);
            });
            // Faces that cover most of the grid say little: accept them only for many wrong cells.
            if (2 * face_cells > g.interior_cells() && !(4 * face_cells <= 3 * g.interior_cells() && wx.size() >= 20))
                continue;
            std::ostringstream s;
            s << "Every wrong cell lies on a face of a " << p << " x " << p << (with_z ? " x " + std::to_string(p) : std::string(""))
              << " output tile (counted from cell (1, 1, 1))" << (with_z ? "" : ", in x and y") << ". A face is where a tile's halo is read: a halo cell not "
                 "loaded, loaded from the wrong place, or read before the thread that loads it got there (a missing "
                 "__syncthreads()); or an edge thread that computes although its neighbour is outside the tile.";
            return s.str();
        }
    return "";
}

}  // namespace stencil3d_grading::diagnosis

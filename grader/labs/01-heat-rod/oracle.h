// The CPU oracle for lab 01, in double precision, with the grader's own constants.
#pragma once

#include <vector>

namespace heat_rod_oracle {

// One FTCS step; cells 0 and M-1 of the result are copied from the input (they are not compared).
std::vector<double> step(const std::vector<double>& in, double r);
void apply_insulated_ends(std::vector<double>& f);
// `steps` times: step, then the insulated ends.
std::vector<double> integrate(std::vector<double> f, double r, int steps);

// The handout's rule: n = ceil(tmax / (dx^2 / 2k)) steps of dt = tmax / n.
int steps_to(double k, double dx, double tmax);

// Cell i's centre: interior cells 1..M-2 tile [-L/2, L/2]; cells 0 and M-1 are the mirrored ghosts.
double cell_centre(int i, int M, double length);
// The handout's start: exp(-x^2 / 2) on every cell.
std::vector<double> gaussian_start(int M, double length);

// The Neumann eigenmode cos(pi m (i - 1/2) / N) on N = M-2 interior cells plus its ghost cells.
std::vector<double> cosine_mode(int M, int m);
// Its amplitude in f: the projection of f's interior onto the mode.
double mode_amplitude(const std::vector<double>& f, int m);

std::vector<double> widen(const std::vector<float>& f);

}  // namespace heat_rod_oracle

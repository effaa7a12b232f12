// Reference solution for lab 04 (3D seven-point stencil: naive and shared-memory tiled kernels, and
// the host code of a 3D heat solver). Same interface and file name as the starter.
#include "stencil3d_tiling.h"

#include <cmath>
#include <string>
#include <utility>

namespace stencil3d {

// The naive kernel's block: 32 threads along x make a warp read 32 neighbouring cells of one row
// (coalesced); 4 x 4 rows of them make 512 threads a block.
constexpr int kNaiveX = 32, kNaiveY = 4, kNaiveZ = 4;

// The tiled kernel follows the textbook: one thread per cell of the INPUT tile (IN_TILE^3 threads),
// of which the inner OUT_TILE^3 also compute an output cell.
constexpr int kInTile = 8;
constexpr int kOutTile = kInTile - 2;

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
}

int blocks_for(int cells, int per_block) { return (cells + per_block - 1) / per_block; }

template <typename T>
__global__ void stencil_naive(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                              Coefficients<T> c) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x + 1;  // thread (0, 0, 0) takes cell (1, 1, 1)
    const int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int z = blockIdx.z * blockDim.z + threadIdx.z + 1;
    if (x <= nx - 2 && y <= ny - 2 && z <= nz - 2) {
        const size_t row = size_t(nx), plane = size_t(nx) * size_t(ny);
        const size_t at = (size_t(z) * ny + y) * nx + x;
        out[at] = c.c0 * in[at] + c.c1 * in[at - 1] + c.c2 * in[at + 1] + c.c3 * in[at - row] + c.c4 * in[at + row] +
                  c.c5 * in[at - plane] + c.c6 * in[at + plane];
    }
}

// Block b covers output cells 1 + b*OUT_TILE ... b*OUT_TILE + OUT_TILE in each direction, and loads the
// input cells b*OUT_TILE ... b*OUT_TILE + IN_TILE - 1: thread t loads cell b*OUT_TILE + t. Cells past
// the grid's far edge (a tile cut short) are not loaded, and the threads there compute nothing.
template <typename T>
__global__ void stencil_tiled(const T* __restrict__ in, T* __restrict__ out, int nx, int ny, int nz,
                              Coefficients<T> c) {
    __shared__ T tile[kInTile][kInTile][kInTile];
    const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    const int x = blockIdx.x * kOutTile + tx;
    const int y = blockIdx.y * kOutTile + ty;
    const int z = blockIdx.z * kOutTile + tz;
    const size_t at = (size_t(z) * ny + y) * nx + x;
    if (x < nx && y < ny && z < nz) tile[tz][ty][tx] = in[at];
    __syncthreads();  // the whole tile must be in shared memory before anyone reads a neighbour
    const bool inner_thread = tx >= 1 && tx <= kInTile - 2 && ty >= 1 && ty <= kInTile - 2 && tz >= 1 &&
                              tz <= kInTile - 2;
    if (inner_thread && x <= nx - 2 && y <= ny - 2 && z <= nz - 2) {
        out[at] = c.c0 * tile[tz][ty][tx] + c.c1 * tile[tz][ty][tx - 1] + c.c2 * tile[tz][ty][tx + 1] +
                  c.c3 * tile[tz][ty - 1][tx] + c.c4 * tile[tz][ty + 1][tx] + c.c5 * tile[tz - 1][ty][tx] +
                  c.c6 * tile[tz + 1][ty][tx];
    }
}

template <typename T>
void naive(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    const dim3 block(kNaiveX, kNaiveY, kNaiveZ);
    const dim3 grid(blocks_for(nx - 2, kNaiveX), blocks_for(ny - 2, kNaiveY), blocks_for(nz - 2, kNaiveZ));
    stencil_naive<<<grid, block>>>(d_in, d_out, nx, ny, nz, c);
}

template <typename T>
void tiled(const T* d_in, T* d_out, int nx, int ny, int nz, Coefficients<T> c) {
    const dim3 block(kInTile, kInTile, kInTile);
    const dim3 grid(blocks_for(nx - 2, kOutTile), blocks_for(ny - 2, kOutTile), blocks_for(nz - 2, kOutTile));
    stencil_tiled<<<grid, block>>>(d_in, d_out, nx, ny, nz, c);
}

void launch_stencil_naive(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    naive(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_naive(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    naive(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_tiled(const float* d_in, float* d_out, int nx, int ny, int nz, Coefficients<float> c) {
    tiled(d_in, d_out, nx, ny, nz, c);
}
void launch_stencil_tiled(const double* d_in, double* d_out, int nx, int ny, int nz, Coefficients<double> c) {
    tiled(d_in, d_out, nx, ny, nz, c);
}

double choose_dt(double k, double h, double tmax) {
    const double dt_max = h * h / (6.0 * k);  // r = k dt / h^2 = 1/6
    return tmax / std::ceil(tmax / dt_max);
}

template <typename T>
void integrate_on_gpu(T* f, int nx, int ny, int nz, double k, double h, double dt, int steps, StencilKernel kernel) {
    const double r = k * dt / (h * h);
    if (r > 1.0 / 6.0 + 1e-12)
        throw std::invalid_argument("unstable time step: r = k*dt/h^2 = " + std::to_string(r) + " > 1/6");
    const Coefficients<T> heat{T(1 - 6 * r), T(r), T(r), T(r), T(r), T(r), T(r)};
    const size_t bytes = size_t(nx) * size_t(ny) * size_t(nz) * sizeof(T);
    T* d_a = nullptr;
    T* d_b = nullptr;
    try {
        check(cudaMalloc(&d_a, bytes), "cudaMalloc");
        check(cudaMalloc(&d_b, bytes), "cudaMalloc");
        // Both buffers start as f: the kernels never write the boundary, so it keeps f's fixed values in each.
        check(cudaMemcpy(d_a, f, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
        check(cudaMemcpy(d_b, f, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
        for (int n = 0; n < steps; ++n) {
            if (kernel == StencilKernel::tiled) tiled<T>(d_a, d_b, nx, ny, nz, heat);
            else naive<T>(d_a, d_b, nx, ny, nz, heat);
            std::swap(d_a, d_b);
        }
        check(cudaGetLastError(), "kernel launch");
        check(cudaMemcpy(f, d_a, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    } catch (...) {
        cudaFree(d_a);
        cudaFree(d_b);
        throw;
    }
    check(cudaFree(d_a), "cudaFree");
    check(cudaFree(d_b), "cudaFree");
}

template <typename T>
int solve_on_gpu(T* f, int nx, int ny, int nz, double k, double h, double tmax, StencilKernel kernel) {
    const double dt = choose_dt(k, h, tmax);
    const int steps = int(std::lround(tmax / dt));
    integrate_on_gpu(f, nx, ny, nz, k, h, dt, steps, kernel);
    return steps;
}

void integrate(float* f, int nx, int ny, int nz, double k, double h, double dt, int steps, StencilKernel kernel) {
    integrate_on_gpu(f, nx, ny, nz, k, h, dt, steps, kernel);
}
void integrate(double* f, int nx, int ny, int nz, double k, double h, double dt, int steps, StencilKernel kernel) {
    integrate_on_gpu(f, nx, ny, nz, k, h, dt, steps, kernel);
}
int solve(float* f, int nx, int ny, int nz, double k, double h, double tmax, StencilKernel kernel) {
    return solve_on_gpu(f, nx, ny, nz, k, h, tmax, kernel);
}
int solve(double* f, int nx, int ny, int nz, double k, double h, double tmax, StencilKernel kernel) {
    return solve_on_gpu(f, nx, ny, nz, k, h, tmax, kernel);
}

}  // namespace stencil3d

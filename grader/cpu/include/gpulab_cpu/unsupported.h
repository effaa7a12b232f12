// CUDA constructs that CPU execution mode does not implement. Each one is declared so that using it fails
// the build with a message naming it (a template whose static_assert fires only when it is instantiated,
// i.e. only in code that really uses it) -- never a silent wrong answer.
#pragma once

namespace gpulab::cpu {
template <class...>
inline constexpr bool unsupported_v = false;
}

#define GPULAB_UNSUPPORTED_MSG(what) \
  "gpulab CPU execution mode: " what " is not supported (run this kernel on a GPU, or avoid it)"

// Warp-level primitives: threads of a warp are not executed in lockstep in CPU mode.
#define GPULAB_UNSUPPORTED_WARP_FN(name)                                                      \
  template <class... A>                                                                       \
  inline int name(A...) {                                                                     \
    static_assert(::gpulab::cpu::unsupported_v<A...>, GPULAB_UNSUPPORTED_MSG(#name " (warp-level primitive)")); \
    return 0;                                                                                 \
  }
GPULAB_UNSUPPORTED_WARP_FN(__shfl_sync)
GPULAB_UNSUPPORTED_WARP_FN(__shfl_up_sync)
GPULAB_UNSUPPORTED_WARP_FN(__shfl_down_sync)
GPULAB_UNSUPPORTED_WARP_FN(__shfl_xor_sync)
GPULAB_UNSUPPORTED_WARP_FN(__shfl)
GPULAB_UNSUPPORTED_WARP_FN(__shfl_up)
GPULAB_UNSUPPORTED_WARP_FN(__shfl_down)
GPULAB_UNSUPPORTED_WARP_FN(__shfl_xor)
GPULAB_UNSUPPORTED_WARP_FN(__ballot_sync)
GPULAB_UNSUPPORTED_WARP_FN(__any_sync)
GPULAB_UNSUPPORTED_WARP_FN(__all_sync)
GPULAB_UNSUPPORTED_WARP_FN(__uni_sync)
GPULAB_UNSUPPORTED_WARP_FN(__ballot)
GPULAB_UNSUPPORTED_WARP_FN(__any)
GPULAB_UNSUPPORTED_WARP_FN(__all)
GPULAB_UNSUPPORTED_WARP_FN(__activemask)
GPULAB_UNSUPPORTED_WARP_FN(__syncwarp)
GPULAB_UNSUPPORTED_WARP_FN(__match_any_sync)
GPULAB_UNSUPPORTED_WARP_FN(__match_all_sync)
GPULAB_UNSUPPORTED_WARP_FN(__reduce_add_sync)
GPULAB_UNSUPPORTED_WARP_FN(__reduce_min_sync)
GPULAB_UNSUPPORTED_WARP_FN(__reduce_max_sync)
GPULAB_UNSUPPORTED_WARP_FN(__reduce_and_sync)
GPULAB_UNSUPPORTED_WARP_FN(__reduce_or_sync)
GPULAB_UNSUPPORTED_WARP_FN(__reduce_xor_sync)
#undef GPULAB_UNSUPPORTED_WARP_FN

// Textures and surfaces (texture objects and the legacy texture references).
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
#define GPULAB_UNSUPPORTED_TEX_FN(name)                                                       \
  template <class T = void, class... A>                                                       \
  inline T name(A...) {                                                                       \
    static_assert(::gpulab::cpu::unsupported_v<T, A...>, GPULAB_UNSUPPORTED_MSG(#name " (textures/surfaces)")); \
  }
GPULAB_UNSUPPORTED_TEX_FN(tex1Dfetch)
GPULAB_UNSUPPORTED_TEX_FN(tex1D)
GPULAB_UNSUPPORTED_TEX_FN(tex2D)
GPULAB_UNSUPPORTED_TEX_FN(tex3D)
GPULAB_UNSUPPORTED_TEX_FN(tex2DLayered)
GPULAB_UNSUPPORTED_TEX_FN(surf2Dread)
GPULAB_UNSUPPORTED_TEX_FN(surf2Dwrite)
GPULAB_UNSUPPORTED_TEX_FN(cudaCreateTextureObject)
GPULAB_UNSUPPORTED_TEX_FN(cudaDestroyTextureObject)
GPULAB_UNSUPPORTED_TEX_FN(cudaCreateSurfaceObject)
GPULAB_UNSUPPORTED_TEX_FN(cudaMallocArray)
GPULAB_UNSUPPORTED_TEX_FN(cudaMemcpy2DToArray)
GPULAB_UNSUPPORTED_TEX_FN(cudaMemcpyToArray)
GPULAB_UNSUPPORTED_TEX_FN(cudaCreateChannelDesc)
GPULAB_UNSUPPORTED_TEX_FN(cudaBindTexture)
GPULAB_UNSUPPORTED_TEX_FN(cudaBindTexture2D)
#undef GPULAB_UNSUPPORTED_TEX_FN
#define GPULAB_UNSUPPORTED_TYPE(name)                                                          \
  struct name {                                                                               \
    template <class T = void>                                                                 \
    name() { static_assert(::gpulab::cpu::unsupported_v<T>, GPULAB_UNSUPPORTED_MSG(#name " (textures/surfaces)")); } \
  };
GPULAB_UNSUPPORTED_TYPE(cudaResourceDesc)
GPULAB_UNSUPPORTED_TYPE(cudaTextureDesc)
GPULAB_UNSUPPORTED_TYPE(cudaChannelFormatDesc)
#undef GPULAB_UNSUPPORTED_TYPE
template <class T, int dim = 1, int mode = 0>
struct texture {
  static_assert(::gpulab::cpu::unsupported_v<T>, GPULAB_UNSUPPORTED_MSG("texture<> (legacy texture reference)"));
};
template <class T = void>
struct surface {
  static_assert(::gpulab::cpu::unsupported_v<T>, GPULAB_UNSUPPORTED_MSG("surface<> (legacy surface reference)"));
};

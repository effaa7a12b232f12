# CPU execution mode of gpulab: build unmodified CUDA sources with the host C++ compiler.
#
#   gpulab_cpu_add_cuda_sources(<target> <file.cu|file.cuh>...)
#
# For each file, adds a build step that runs gpulab-cu2cpp (rewrites <<<...>>> launches and __shared__
# declarations, keeping line numbers) and compiles the result as C++ in <target>:
#   * .cu files become sources of <target>; if <target> already lists the .cu itself, that copy is marked
#     HEADER_FILE_ONLY so nvcc never sees it;
#   * .cuh headers are rewritten next to the generated .cu files, so `#include "x.cuh"` finds the rewritten
#     copy first (quoted includes search the including file's directory);
#   * the directory of every listed file is searched for other quoted includes (-iquote), as nvcc would;
#   * grader/cpu/include goes FIRST on the include path (its cuda_runtime.h shadows CUDA's), C++17 is
#     required, and <target> links gpulab_cpu_runtime PUBLIC (keyword signature: call
#     target_link_libraries(<target> PUBLIC|PRIVATE ...) elsewhere too).
# Needs the targets gpulab_cpu_runtime and gpulab-cu2cpp, i.e. add_subdirectory(grader/cpu) first.
include_guard(GLOBAL)

get_filename_component(_gpulab_cpu_include "${CMAKE_CURRENT_LIST_DIR}/../include" ABSOLUTE)
set(GPULAB_CPU_INCLUDE_DIR "${_gpulab_cpu_include}" CACHE INTERNAL "CPU-mode CUDA headers")

function(gpulab_cpu_add_cuda_sources target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "gpulab_cpu_add_cuda_sources: ${target} is not a target")
  endif()
  if(NOT TARGET gpulab_cpu_runtime OR NOT TARGET gpulab-cu2cpp)
    message(FATAL_ERROR "gpulab_cpu_add_cuda_sources: add_subdirectory(grader/cpu) must come first")
  endif()
  get_target_property(existing ${target} SOURCES)
  get_target_property(target_dir ${target} SOURCE_DIR)
  set(gen_dir "${CMAKE_CURRENT_BINARY_DIR}/gpulab_cpu/${target}")
  set(outputs "")
  set(quote_dirs "")
  set(headers "")
  foreach(src IN LISTS ARGN)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(name "${abs}" NAME)
    get_filename_component(dir "${abs}" DIRECTORY)
    list(APPEND quote_dirs "${dir}")
    if(name MATCHES "\\.(cuh|h|hpp)$")
      set(out "${gen_dir}/${name}")
      list(APPEND headers "${out}")
    else()
      set(out "${gen_dir}/${name}.cpp")
      list(APPEND outputs "${out}")
    endif()
    add_custom_command(
      OUTPUT "${out}"
      COMMAND gpulab-cu2cpp "${abs}" "${out}"
      DEPENDS "${abs}" gpulab-cu2cpp
      COMMENT "gpulab-cu2cpp ${name} (CPU execution mode)"
      VERBATIM)
    # Compile the .cu only through its rewritten copy.
    foreach(s IN LISTS existing)
      get_filename_component(sabs "${s}" ABSOLUTE BASE_DIR "${target_dir}")
      if(sabs STREQUAL abs)
        set_source_files_properties("${s}" TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES quote_dirs)
  # nvcc's pragmas (#pragma unroll) mean nothing to g++; don't drown real warnings in them.
  # -fstack-clash-protection: a CUDA thread's frame larger than its fiber stack (big local arrays) must
  # touch the guard page below the stack and fault, never land silently in a neighbouring fiber's stack.
  set(iquote "-Wno-unknown-pragmas" "-fstack-clash-protection")
  # A kernel's copy loop stays its own loads and stores (GCC would call memmove for `dst[c] = src[c]`): the access
  # analysis counts each access at its instruction, and one inside the C library has no line of the .cu and mixes the
  # requests of every copy in the program (lab 03's tile loads were put down to memmove-vec-unaligned-erms.S).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND iquote "-fno-tree-loop-distribute-patterns")
  endif()
  foreach(d IN LISTS quote_dirs)
    list(APPEND iquote "-iquote" "${d}")
  endforeach()
  # Rewritten headers must exist before any generated source that may include them is compiled.
  target_sources(${target} PRIVATE ${outputs} ${headers})
  if(headers)
    set_source_files_properties(${headers} TARGET_DIRECTORY ${target} PROPERTIES HEADER_FILE_ONLY ON)
  endif()
  set_source_files_properties(${outputs} TARGET_DIRECTORY ${target} PROPERTIES
    COMPILE_OPTIONS "${iquote}" OBJECT_DEPENDS "${headers}")
  target_include_directories(${target} BEFORE PRIVATE "${GPULAB_CPU_INCLUDE_DIR}")
  target_compile_features(${target} PRIVATE cxx_std_17)
  target_link_libraries(${target} PUBLIC gpulab_cpu_runtime)
endfunction()

// The one demangler of the grader and gpulab-grade: a kernel's, a symbol's or a called function's name as C++ writes it.
#pragma once

#include <string>

namespace gpulab {

// "heat_rod::ftcs_interior(float const*, float*, int, float)" for "_ZN8heat_rod13ftcs_interiorEPKfPfif". The C++
// runtime's demangler; where it gives up (GCC 12's cannot read a generic lambda's pack in a kernel template's launch
// thunk), binutils' c++filt, once per name. The name itself where neither can, or where it is not mangled.
std::string demangle(const std::string& name);

}  // namespace gpulab

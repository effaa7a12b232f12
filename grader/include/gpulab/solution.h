// Loading a compiled solution (a student's, the reference, or a planted-bug variant).
//
// Each solution is its own shared library exporting one C function, gpulab_lab_api(), that returns
// the lab's table of function pointers. Loading two of them with dlopen(RTLD_LOCAL) lets one grader
// process call the student's and the reference's kernels side by side, and a submission that does
// not compile costs only its own grade: the grader binary does not link it.
#pragma once

#include <map>
#include <string>

namespace gpulab {

// What every lab's API table starts with, so loading the wrong library is caught.
struct LabApiHeader {
    const char* lab;  // the lab's folder name, e.g. "01-heat-rod"
};

// Defines gpulab_lab_api() in a solution library. `table` is a static object whose first member
// is a LabApiHeader.
#define GPULAB_EXPORT_LAB_API(table) \
    extern "C" __attribute__((visibility("default"))) const void* gpulab_lab_api() { return &(table); }

enum class Role { student, reference };

// Where the solution libraries are. gpulab-grade hands these over on its handshake pipe before any
// solution is loaded; a grader binary started by hand falls back on $GPULAB_SOLUTION_LIB and
// $GPULAB_REFERENCE_LIB.
void set_solution_libraries(const std::string& student, const std::string& reference);

// The path of the student's or the reference's library (as handed over, else from the environment); "" when
// neither says. The sanitizer test starts a process of its own on the student's library (sanitizer_check.h).
std::string solution_library_path(Role role);

// The reference libraries of other labs (lab.json "companions": the 3D stencil labs' progression table
// times every technique's reference), by lab name, as gpulab-grade hands them over.
void set_companion_references(const std::map<std::string, std::string>& by_lab);

// The API table of another lab's reference solution. Throws std::runtime_error saying why when it was
// not handed over (that lab is not built here) or does not load.
const void* load_companion_api(const std::string& lab);
// Whether gpulab-grade handed over a library under this name (another lab's reference, "<lab>/expert").
bool companion_handed_over(const std::string& name);
// The path handed over under this name; "" when none was. The GPU profile hands the expert's to its child
// (gpu_profile.h), which adds it under the same name (add_companion_reference) before it loads it.
std::string companion_path(const std::string& name);
void add_companion_reference(const std::string& name, const std::string& path);

template <typename Api>
const Api& companion_api(const std::string& lab) {
    return *static_cast<const Api*>(load_companion_api(lab));
}

// The API table of the student's or the reference's solution library.
// Throws std::runtime_error with a readable reason when the library is missing or does not load.
const void* load_lab_api(Role role, const std::string& expected_lab);

// From now on, the student's role is served by `role`'s library (loaded if it was not): the GPU profile's child
// (gpu_profile.cpp) runs every timed launch of the lab a second time with the reference's kernels in place of the
// student's, through the same launch code. Nothing else calls it.
void serve_student_role_from(Role role, const std::string& expected_lab);

template <typename Api>
const Api& lab_api(Role role, const std::string& expected_lab) {
    return *static_cast<const Api*>(load_lab_api(role, expected_lab));
}

}  // namespace gpulab

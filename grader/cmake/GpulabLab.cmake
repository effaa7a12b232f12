# gpulab_add_lab(<lab>): everything one lab needs, from its folder name alone.
#
#   labs/<lab>/lab.json            config: "sources" lists the files a solution consists of
#   starter/<lab>/, reference/<lab>/   those files; each becomes a shared library
#   grader/labs/<lab>/*.cpp        the lab's GoogleTest grader (api_export.cpp goes into each solution)
#   grader/labs/<lab>/wrong/*.json planted bugs: an edit of the reference and the tests that must catch it
#
# It writes <build>/gpulab-labs/<lab>.json, which tells gpulab-grade where everything is, and
# registers the lab's self-checks with ctest.

# Targets `make grade` needs before it builds the student's code.
if(NOT TARGET gpulab_graders)
    add_custom_target(gpulab_graders)
    add_dependencies(gpulab_graders gpulab-grade)
endif()

# One solution (starter, reference, a planted bug) as shared libraries: one compiled by nvcc for the
# GPU, one through CPU execution mode; whichever this machine can build.
function(_gpulab_add_solution lab name source_dir sources expect)
    string(REPLACE "/" "-" suffix "${name}")
    list(TRANSFORM sources PREPEND "${source_dir}/")
    set(includes ${PROJECT_SOURCE_DIR}/labs/${lab} ${PROJECT_SOURCE_DIR}/grader/include ${PROJECT_SOURCE_DIR}/grader/labs/${lab})
    set(export ${PROJECT_SOURCE_DIR}/grader/labs/${lab}/api_export.cpp)
    set(entry "\"expect\": \"${expect}\"")
    # A planted bug may be a file that does not compile: it stays out of the default build, and the
    # runner builds it (and reports the compiler's message) when asked to grade it.
    set(compiles ON)
    if(expect)
        file(READ ${expect} expect_text)
        string(JSON compiles ERROR_VARIABLE no_key GET "${expect_text}" compiles)
        if(no_key)
            set(compiles ON)
        endif()
    endif()
    foreach(mode gpu cpu)
        if(mode STREQUAL "gpu" AND NOT GPULAB_HAVE_CUDA OR mode STREQUAL "cpu" AND NOT GPULAB_CPU_EXECUTION)
            continue()
        endif()
        set(target solution-${lab}-${suffix}-${mode})
        if(mode STREQUAL "gpu")
            add_library(${target} SHARED ${sources} ${export})
            target_link_libraries(${target} PRIVATE CUDA::cudart)
        else()
            add_library(${target} SHARED ${export})
            gpulab_cpu_add_cuda_sources(${target} ${sources})
        endif()
        target_include_directories(${target} PRIVATE ${includes})
        if(NOT compiles)
            set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL ON)
        endif()
        # Only gpulab_lab_api() is exported; the student's and the reference's identical names stay
        # private to their libraries and bind to themselves.
        set_target_properties(${target} PROPERTIES
            CXX_VISIBILITY_PRESET hidden
            CUDA_VISIBILITY_PRESET hidden
            VISIBILITY_INLINES_HIDDEN ON
            LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/solutions/${lab}/${name}/${mode}
            OUTPUT_NAME solution)
        # --no-undefined: a function declared but never written is a link error the student can read,
        # not a dlopen failure in every test.
        target_link_options(${target} PRIVATE -Wl,-Bsymbolic -Wl,--no-undefined)
        string(APPEND entry ", \"${mode}\": {\"target\": \"${target}\", \"library\": \"$<TARGET_FILE:${target}>\"}")
        if(name STREQUAL "reference")
            add_dependencies(gpulab_graders ${target})
        endif()
    endforeach()
    set(_gpulab_solutions "${_gpulab_solutions}${_gpulab_separator}\"${name}\": {${entry}}" PARENT_SCOPE)
    set(_gpulab_separator ", " PARENT_SCOPE)
endfunction()

# The lab's grader binary for one way of running kernels.
function(_gpulab_add_grader lab mode harness)
    set(grader_dir ${PROJECT_SOURCE_DIR}/grader/labs/${lab})
    file(GLOB grader_sources CONFIGURE_DEPENDS ${grader_dir}/*.cpp)
    list(FILTER grader_sources EXCLUDE REGEX "api_export\\.cpp$")
    set(target grade-${lab}-${mode})
    add_executable(${target} ${grader_sources} ${PROJECT_SOURCE_DIR}/grader/src/grader_main.cpp)
    target_include_directories(${target} PRIVATE ${grader_dir})
    target_link_libraries(${target} PRIVATE ${harness})
    target_compile_definitions(${target} PRIVATE GPULAB_LAB_CONFIG_PATH="${PROJECT_SOURCE_DIR}/labs/${lab}/lab.json")
    # Exports the launch recorder's cudaLaunchKernel to the solution libraries it loads.
    set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
    add_dependencies(gpulab_graders ${target})
endfunction()

# Writes a copy of the reference with the planted bug's edits applied; fails the configure step
# when an edit no longer matches the reference (a planted bug must never silently vanish).
function(_gpulab_plant_bug spec reference_dir sources out_dir)
    file(READ ${spec} spec_text)
    string(JSON patched_file GET "${spec_text}" file)
    string(JSON edits LENGTH "${spec_text}" replace)
    math(EXPR last "${edits} - 1")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${spec})
    foreach(source ${sources})
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${reference_dir}/${source})
        file(READ ${reference_dir}/${source} text)
        if(source STREQUAL patched_file)
            foreach(i RANGE ${last})
                string(JSON find GET "${spec_text}" replace ${i} find)
                string(JSON with GET "${spec_text}" replace ${i} with)
                string(FIND "${text}" "${find}" at)
                if(at EQUAL -1)
                    message(FATAL_ERROR "planted bug ${spec}: the reference no longer contains\n  ${find}")
                endif()
                string(REPLACE "${find}" "${with}" text "${text}")
            endforeach()
        endif()
        file(CONFIGURE OUTPUT ${out_dir}/${source} CONTENT "${text}" @ONLY)
    endforeach()
endfunction()

# -DGPULAB_ONLY_LABS="02-heat-2d;03-gaussian-blur" builds just those (for work on one lab).
set(GPULAB_ONLY_LABS "" CACHE STRING "Build only these labs (empty: all)")

function(gpulab_add_lab lab)
    if(GPULAB_ONLY_LABS AND NOT lab IN_LIST GPULAB_ONLY_LABS)
        return()
    endif()
    set(lab_dir ${PROJECT_SOURCE_DIR}/labs/${lab})
    set(grader_dir ${PROJECT_SOURCE_DIR}/grader/labs/${lab})
    set(config ${lab_dir}/lab.json)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${config})
    file(READ ${config} config_text)
    string(JSON count LENGTH "${config_text}" sources)
    math(EXPR last "${count} - 1")
    set(sources "")
    foreach(i RANGE ${last})
        string(JSON source GET "${config_text}" sources ${i})
        list(APPEND sources ${source})
    endforeach()

    set(_gpulab_solutions "")
    set(_gpulab_separator "")
    _gpulab_add_solution(${lab} starter ${PROJECT_SOURCE_DIR}/starter/${lab} "${sources}" "")
    _gpulab_add_solution(${lab} reference ${PROJECT_SOURCE_DIR}/reference/${lab} "${sources}" "")

    file(GLOB bug_specs CONFIGURE_DEPENDS ${grader_dir}/wrong/*.json)
    set(bugs "")
    foreach(spec ${bug_specs})
        get_filename_component(bug ${spec} NAME_WE)
        set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${lab}/wrong/${bug})
        _gpulab_plant_bug(${spec} ${PROJECT_SOURCE_DIR}/reference/${lab} "${sources}" ${out_dir})
        _gpulab_add_solution(${lab} wrong/${bug} ${out_dir} "${sources}" ${spec})
        list(APPEND bugs ${bug})
    endforeach()

    set(graders "")
    if(GPULAB_HAVE_CUDA)
        _gpulab_add_grader(${lab} gpu gpulab_grader)
        string(APPEND graders "\"gpu\": \"$<TARGET_FILE:grade-${lab}-gpu>\"")
    endif()
    if(GPULAB_CPU_EXECUTION)
        _gpulab_add_grader(${lab} cpu gpulab_grader_cpu)
        if(graders)
            string(APPEND graders ", ")
        endif()
        string(APPEND graders "\"cpu\": \"$<TARGET_FILE:grade-${lab}-cpu>\"")
    endif()

    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/gpulab-labs/${lab}.json CONTENT
"{\"lab\": \"${lab}\", \"config\": \"${config}\", \"graders\": {${graders}},
 \"solutions\": {${_gpulab_solutions}}}
")

    # Self-checks (make test). They share the GPU, so they never run concurrently.
    set(grade $<TARGET_FILE:gpulab-grade> --lab ${lab} --no-build)
    set(out ${PROJECT_BINARY_DIR}/selftest-grades)
    add_test(NAME ${lab}/reference-scores-full-marks
             COMMAND ${grade} --solution reference --require full --out ${out}/${lab}-reference)
    add_test(NAME ${lab}/starter-builds-and-fails-its-todos
             COMMAND ${grade} --solution starter --require starter --out ${out}/${lab}-starter)
    set(lab_tests ${lab}/reference-scores-full-marks ${lab}/starter-builds-and-fails-its-todos)
    foreach(bug ${bugs})
        # --no-build, except for a bug that does not compile: building it is the test.
        set(build_flag --no-build)
        file(READ ${grader_dir}/wrong/${bug}.json bug_text)
        string(JSON compiles ERROR_VARIABLE no_key GET "${bug_text}" compiles)
        if(NOT no_key AND NOT compiles)
            set(build_flag "")
        endif()
        add_test(NAME ${lab}/wrong/${bug}-is-caught
                 COMMAND $<TARGET_FILE:gpulab-grade> --lab ${lab} ${build_flag} --solution wrong/${bug} --require expected
                         --out ${out}/${lab}-wrong-${bug})
        list(APPEND lab_tests ${lab}/wrong/${bug}-is-caught)
    endforeach()
    # Where a GPU exists: CPU execution mode must give the GPU's correctness verdicts.
    foreach(solution reference starter ${bugs})
        if(NOT solution STREQUAL "reference" AND NOT solution STREQUAL "starter")
            set(solution wrong/${solution})
        endif()
        string(REPLACE "/" "-" name ${solution})
        add_test(NAME ${lab}/cpu-mode-agrees-with-gpu/${name}
                 COMMAND ${grade} --solution ${solution} --compare-modes --out ${out}/${lab}-modes-${name})
        list(APPEND lab_tests ${lab}/cpu-mode-agrees-with-gpu/${name})
    endforeach()
    set_tests_properties(${lab_tests} PROPERTIES RESOURCE_LOCK gpu SKIP_RETURN_CODE 77 TIMEOUT 1800)
endfunction()

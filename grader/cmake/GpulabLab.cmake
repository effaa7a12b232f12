# gpulab_add_lab(<lab>): everything one lab needs, from its folder name alone.
#
#   labs/<lab>/lab.json            config: "sources" lists the files a solution consists of
#   starter/<lab>/, reference/<lab>/   those files; each becomes a shared library
#   reference/<lab>/{gpu,cpu}/libsolution.so   in a student release (make dist), the reference compiled
#                                  already, used as it is where reference/<lab>/ has no sources
#   grader/labs/<lab>/*.cpp        the lab's GoogleTest grader (api_export.cpp goes into each solution)
#   grader/labs/<lab>/wrong/*.json planted bugs: an edit of the reference and the tests that must catch it
#   grader/labs/<lab>/right/*.json correct variants in another style: an edit of the reference that must
#                                  still score full marks
#   grader/labs/<lab>/cheats/*.json the red-team corpus: an edit of the starter or the reference that tries
#                                  to fool the grader, and the verdict it must get instead
#   grader/labs/<lab>/slow/*.json  planted performance bugs: a right but slow edit of the reference and the
#                                  causes ("causes": {test: [cause, ...]}) its reports must measure and name
#   labs/common/                   headers several labs' interfaces include (e.g. the 3D stencil's grid)
#   grader/shared/<name>/          grader code several labs share, for a lab.json that names it in
#                                  "grader_shared": ["<name>", ...] (one oracle and one set of checks for the
#                                  three 3D stencil labs; the heat equation's checks for the rod, the square
#                                  and the box); each folder's *.cpp become one library per mode
#
# It writes <build>/gpulab-labs/<lab>.json, which tells gpulab-grade where everything is, and
# registers the lab's self-checks with ctest.

# Targets `make grade` needs before it builds the student's code: gpulab_graders for grading in either mode
# (GPU grading runs a lab's CPU-only tests in CPU execution mode too), gpulab_graders_cpu for CPU execution mode
# alone (a machine without a GPU: building the GPU graders there is minutes spent on nothing it can run).
if(NOT TARGET gpulab_graders)
    add_custom_target(gpulab_graders)
    add_custom_target(gpulab_graders_cpu)
    add_dependencies(gpulab_graders_cpu gpulab-grade)
    add_dependencies(gpulab_graders gpulab-grade gpulab_graders_cpu)
endif()

# `target` is needed to grade in `mode` (gpu or cpu).
function(_gpulab_needed_for_grading mode target)
    if(mode STREQUAL "cpu")
        add_dependencies(gpulab_graders_cpu ${target})
    else()
        add_dependencies(gpulab_graders ${target})
    endif()
endfunction()

# One solution (starter, reference, a planted bug) as shared libraries: one compiled by nvcc for the
# GPU, one through CPU execution mode; whichever this machine can build.
function(_gpulab_add_solution lab name source_dir sources expect shared)
    string(REPLACE "/" "-" suffix "${name}")
    set(entry "\"sources_dir\": \"${source_dir}\"")
    list(TRANSFORM sources PREPEND "${source_dir}/")
    set(includes ${PROJECT_SOURCE_DIR}/labs/${lab} ${PROJECT_SOURCE_DIR}/labs/common ${PROJECT_SOURCE_DIR}/grader/include
                 ${PROJECT_SOURCE_DIR}/grader/labs/${lab})
    foreach(name ${shared})
        list(APPEND includes ${PROJECT_SOURCE_DIR}/grader/shared/${name})
    endforeach()
    set(export ${PROJECT_SOURCE_DIR}/grader/labs/${lab}/api_export.cpp)
    string(APPEND entry ", \"expect\": \"${expect}\"")
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
            # Source lines for compute-sanitizer's reports (the Sanitizer test) and the GPU's cause lines (device
            # code: -lineinfo), and for the line of each launch (host code: -g1, launch_line_of); no change to the
            # code generated. Not the reference's: the sanitizer never runs it, and line info would carry the
            # instructor's source paths into the student release's compiled reference (make_dist.sh refuses that).
            if(NOT name STREQUAL "reference")
                target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>
                                       $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-g1>)
            endif()
        else()
            add_library(${target} SHARED ${export})
            gpulab_cpu_add_cuda_sources(${target} ${sources})
            # Line tables, so that the access analysis names the source line behind each cause (cause_lines.h);
            # the code generated is the same. Not the reference's, for the reason above.
            if(NOT name STREQUAL "reference")
                target_compile_options(${target} PRIVATE -g1)
            endif()
        endif()
        target_include_directories(${target} PRIVATE ${includes})
        if(NOT compiles)
            set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL ON)
        endif()
        # A slow/ variant's GPU build is built anyway: CPU execution mode reads its kernels' registers and local
        # memory from it (kernel_resources.h), the figures its named cause may rest on (register-spills).
        if(mode STREQUAL "gpu" AND NOT GPULAB_GPU_VARIANTS AND NOT name STREQUAL "reference" AND NOT name STREQUAL "starter"
           AND NOT name MATCHES "^slow/")
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
        # The object files are what the call check reads: the student's code alone, whatever the library
        # links in beside it (a static CUDA runtime, for one).
        string(APPEND entry ", \"${mode}\": {\"target\": \"${target}\", \"library\": \"$<TARGET_FILE:${target}>\", "
                            "\"objects\": \"$<TARGET_OBJECTS:${target}>\"}")
        if(name STREQUAL "reference")
            _gpulab_needed_for_grading(${mode} ${target})
        endif()
    endforeach()
    set(_gpulab_solutions "${_gpulab_solutions}${_gpulab_separator}\"${name}\": {${entry}}" PARENT_SCOPE)
    set(_gpulab_separator ", " PARENT_SCOPE)
endfunction()

# The reference as compiled libraries only (a student release: grader/release/make_dist.sh ships
# reference/<lab>/<mode>/libsolution.so instead of the sources). Nothing is built; a custom target of
# the usual name stands in, so gpulab-grade can "build" it before grading and gpulab_graders can depend
# on it. There are no objects: the call check ran on the instructor's build ("prebuilt" tells the runner).
function(_gpulab_add_prebuilt_reference lab reference_dir sources)
    set(entry "\"prebuilt\": true")
    set(found "")
    foreach(mode gpu cpu)
        if(mode STREQUAL "gpu" AND NOT GPULAB_HAVE_CUDA OR mode STREQUAL "cpu" AND NOT GPULAB_CPU_EXECUTION)
            continue()
        endif()
        set(library ${reference_dir}/${mode}/libsolution.so)
        if(NOT EXISTS ${library})
            list(JOIN sources ", " names)
            message(FATAL_ERROR "reference/${lab}/ has neither the reference sources (${names}) nor the compiled "
                                "reference for ${mode} mode (reference/${lab}/${mode}/libsolution.so). An instructor "
                                "tree needs the sources; a student release ships the libraries (make dist).")
        endif()
        set(target solution-${lab}-reference-${mode})
        add_custom_target(${target})
        _gpulab_needed_for_grading(${mode} ${target})
        string(APPEND entry ", \"${mode}\": {\"target\": \"${target}\", \"library\": \"${library}\"}")
    endforeach()
    set(_gpulab_solutions "${_gpulab_solutions}${_gpulab_separator}\"reference\": {${entry}}" PARENT_SCOPE)
    set(_gpulab_separator ", " PARENT_SCOPE)
endfunction()

# The lab's expert kernels (lab.json "expert": {"dir": "expert/<name>", "sources": [...]}), instructor-only:
# the fastest honest kernels we could write for the lab's timed work, timed beside the student's on the
# roofline report (never a bar for points). One GPU library exporting the lab's expert table
# (grader/labs/<lab>/expert_export.cpp, or grader/shared/<shared>/expert_export.cpp where labs share one),
# loaded by the grader as the companion "<lab>/expert". A tree without the expert sources (a student release)
# has none, and the report says so. Sets `expert_entry` in the caller (the manifest's "expert" field, or "").
function(_gpulab_add_expert lab config_text shared)
    set(expert_entry "" PARENT_SCOPE)
    string(JSON dir ERROR_VARIABLE no_expert GET "${config_text}" expert dir)
    if(no_expert OR NOT GPULAB_HAVE_CUDA OR NOT EXISTS ${PROJECT_SOURCE_DIR}/${dir})
        return()
    endif()
    string(JSON count LENGTH "${config_text}" expert sources)
    math(EXPR last "${count} - 1")
    set(sources "")
    foreach(i RANGE ${last})
        string(JSON source GET "${config_text}" expert sources ${i})
        if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${dir}/${source})
            return()
        endif()
        list(APPEND sources ${PROJECT_SOURCE_DIR}/${dir}/${source})
    endforeach()
    set(export ${PROJECT_SOURCE_DIR}/grader/labs/${lab}/expert_export.cpp)
    foreach(name ${shared})
        if(NOT EXISTS ${export} AND EXISTS ${PROJECT_SOURCE_DIR}/grader/shared/${name}/expert_export.cpp)
            set(export ${PROJECT_SOURCE_DIR}/grader/shared/${name}/expert_export.cpp)
        endif()
    endforeach()
    set(target expert-${lab})
    add_library(${target} SHARED ${sources} ${export})
    target_link_libraries(${target} PRIVATE CUDA::cudart)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/${dir} ${PROJECT_SOURCE_DIR}/labs/${lab}
        ${PROJECT_SOURCE_DIR}/labs/common ${PROJECT_SOURCE_DIR}/grader/include ${PROJECT_SOURCE_DIR}/grader/labs/${lab})
    foreach(name ${shared})
        target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/grader/shared/${name})
    endforeach()
    target_compile_definitions(${target} PRIVATE GPULAB_EXPERT_OF="${lab}/expert")
    set_target_properties(${target} PROPERTIES
        CXX_VISIBILITY_PRESET hidden
        CUDA_VISIBILITY_PRESET hidden
        VISIBILITY_INLINES_HIDDEN ON
        LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/solutions/${lab}/expert/gpu
        OUTPUT_NAME expert)
    target_link_options(${target} PRIVATE -Wl,-Bsymbolic -Wl,--no-undefined)
    _gpulab_needed_for_grading(gpu ${target})
    set(expert_entry "\"gpu\": {\"target\": \"${target}\", \"library\": \"$<TARGET_FILE:${target}>\"}" PARENT_SCOPE)
endfunction()

# The lab's grader binary for one way of running kernels. lab.json's "grader_links" names the libraries
# one mode's grader links beyond the harness (lab 07 times cuBLAS and an OpenMP loop beside the student's
# kernels: {"gpu": ["CUDA::cublas", "OpenMP::OpenMP_CXX"]}); the student's solution library never links them.
function(_gpulab_add_grader lab mode harness shared config_text)
    set(grader_dir ${PROJECT_SOURCE_DIR}/grader/labs/${lab})
    file(GLOB grader_sources CONFIGURE_DEPENDS ${grader_dir}/*.cpp)
    # The tables compiled into the solution and expert libraries are not the grader's.
    list(FILTER grader_sources EXCLUDE REGEX "(api|expert)_export\\.cpp$")
    set(target grade-${lab}-${mode})
    gpulab_add_grader_executable(${target} ${harness} ${PROJECT_SOURCE_DIR}/labs/${lab}/lab.json ${grader_sources})
    target_include_directories(${target} PRIVATE ${grader_dir} ${PROJECT_SOURCE_DIR}/labs/common)
    # Grader code several labs share: each folder built once per mode, linked by each of those labs' graders. A
    # folder's code may include the headers of the folders listed with it (the 3D stencil's checks judge with the
    # heat equation's).
    set(shared_includes ${PROJECT_SOURCE_DIR}/labs/common)
    foreach(name ${shared})
        list(APPEND shared_includes ${PROJECT_SOURCE_DIR}/grader/shared/${name})
    endforeach()
    foreach(name ${shared})
        set(shared_target gpulab-shared-${name}-${mode})
        if(NOT TARGET ${shared_target})
            file(GLOB shared_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/grader/shared/${name}/*.cpp)
            list(FILTER shared_sources EXCLUDE REGEX "expert_export\\.cpp$")
            # An object library: its tests register themselves, so none of its objects may be dropped.
            add_library(${shared_target} OBJECT ${shared_sources})
            gpulab_compile_as_one(${shared_target})
            target_include_directories(${shared_target} PUBLIC ${shared_includes})
            target_link_libraries(${shared_target} PUBLIC ${harness})
        endif()
        target_link_libraries(${target} PRIVATE ${shared_target})
    endforeach()
    string(JSON link_count ERROR_VARIABLE no_links LENGTH "${config_text}" grader_links ${mode})
    if(NOT no_links AND link_count GREATER 0)
        math(EXPR last_link "${link_count} - 1")
        foreach(i RANGE ${last_link})
            string(JSON library GET "${config_text}" grader_links ${mode} ${i})
            if(library STREQUAL "OpenMP::OpenMP_CXX" AND NOT TARGET OpenMP::OpenMP_CXX)
                find_package(OpenMP REQUIRED COMPONENTS CXX)
            endif()
            if(NOT TARGET ${library})
                message(FATAL_ERROR "labs/${lab}/lab.json: grader_links.${mode} names ${library}, which this build does not know")
            endif()
            target_link_libraries(${target} PRIVATE ${library})
        endforeach()
    endif()
    if(mode STREQUAL "gpu")
        # Exports the launch recorder's launch entry points to the solution libraries it loads, and
        # nothing else: the grader's oracle and checks stay out of the student's reach.
        target_link_options(${target} PRIVATE -Wl,--dynamic-list=${PROJECT_SOURCE_DIR}/grader/cmake/grader_exports.list)
        set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/grader/cmake/grader_exports.list)
    endif()
    _gpulab_needed_for_grading(${mode} ${target})
endfunction()

# Writes a copy of the reference (or of the starter, for a spec with "base": "starter") with the
# spec's edits applied, and sets `planted` in the caller. An edit of the reference that no longer matches
# fails the configure step (a planted bug must never silently vanish). An edit of the starter that no longer
# matches leaves that variant out with a warning: starter/ is where a student's (or a student's file an
# instructor copied in to look at) lives, and someone else's starter must still build and grade.
function(_gpulab_plant_bug spec reference_dir sources out_dir planted)
    set(${planted} TRUE PARENT_SCOPE)
    file(READ ${spec} spec_text)
    string(JSON base ERROR_VARIABLE no_base GET "${spec_text}" base)
    set(base_name reference)
    if(NOT no_base AND base STREQUAL "starter")
        string(REPLACE "/reference/" "/starter/" reference_dir "${reference_dir}")
        set(base_name starter)
    endif()
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
                if(at EQUAL -1 AND base_name STREQUAL "starter")
                    get_filename_component(variant ${spec} NAME_WE)
                    message(WARNING "${reference_dir}/${source} is not the starter this repository ships (someone's "
                                    "work?), so the planted variant ${variant} (${spec}), an edit of the starter, "
                                    "is left out of this build. `git checkout ${reference_dir}` brings it back.")
                    set(${planted} FALSE PARENT_SCOPE)
                    return()
                elseif(at EQUAL -1)
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
option(GPULAB_PLANTED_VARIANTS "Build the planted bugs, correct variants and cheats and their self-checks" ON)

# A timed check's --untimed-from, where the timed checks run alone: it then runs only its timed tests, taking the
# untimed ones' outcomes from the solution's cpu-mode-agrees-with-gpu check (a CTest fixture runs that first, in
# parallel with the others), so the machine is held alone only while something is timed. Elsewhere (nothing is
# timed without a GPU) a timed check grades the whole lab itself.
function(_gpulab_untimed_from lab out solution result)
    string(REPLACE "/" "-" name ${solution})
    if(GPULAB_TIMED_CHECKS_ALONE)
        set(${result} --untimed-from ${out}/${lab}-modes-${name}/gpu PARENT_SCOPE)
    else()
        set(${result} "" PARENT_SCOPE)
    endif()
endfunction()

# The CTest fixture behind --untimed-from: the timed check `check` of `solution` waits for that solution's
# cpu-mode-agrees-with-gpu check, which sets the fixture up. Nothing where the timed checks grade whole labs.
function(_gpulab_untimed_fixture lab solution check role)
    if(GPULAB_TIMED_CHECKS_ALONE)
        string(REPLACE "/" "-" name ${solution})
        set_tests_properties(${check} PROPERTIES FIXTURES_${role} ${lab}/untimed/${name})
    endif()
endfunction()

# --time-only <id> for each of `timing_ids` (lab.json's timed tests) that the variant's spec lists under `key`
# (must_fail, may_fail).
function(_gpulab_time_only_flags variant_text key timing_ids result)
    set(flags "")
    string(JSON listed ERROR_VARIABLE not_listed GET "${variant_text}" ${key})
    if(NOT not_listed)
        foreach(id ${timing_ids})
            string(FIND "${listed}" "\"${id}\"" at)
            if(NOT at EQUAL -1)
                list(APPEND flags --time-only ${id})
            endif()
        endforeach()
    endif()
    set(${result} ${flags} PARENT_SCOPE)
endfunction()

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

    # lab.json "grader_shared": the folders of grader/shared/ this lab's grader uses, as a list.
    set(shared "")
    string(JSON shared_count ERROR_VARIABLE no_shared LENGTH "${config_text}" grader_shared)
    if(NOT no_shared AND shared_count GREATER 0)
        math(EXPR last_shared "${shared_count} - 1")
        foreach(i RANGE ${last_shared})
            string(JSON name GET "${config_text}" grader_shared ${i})
            list(APPEND shared ${name})
        endforeach()
    endif()

    set(_gpulab_solutions "")
    set(_gpulab_separator "")
    _gpulab_add_solution(${lab} starter ${PROJECT_SOURCE_DIR}/starter/${lab} "${sources}" "" "${shared}")
    # The reference from its sources (the instructor's tree), or as compiled libraries (a student release).
    set(reference_dir ${PROJECT_SOURCE_DIR}/reference/${lab})
    set(prebuilt ON)
    foreach(source ${sources})
        if(EXISTS ${reference_dir}/${source})
            set(prebuilt OFF)
        endif()
    endforeach()
    if(prebuilt)
        _gpulab_add_prebuilt_reference(${lab} ${reference_dir} "${sources}")
    else()
        _gpulab_add_solution(${lab} reference ${reference_dir} "${sources}" "" "${shared}")
    endif()

    # Planted bugs, correct variants and cheats: each an edited copy of the reference (or starter). A class-
    # grading workspace (grader/class) leaves them out: its starter holds a student's files, which a cheat
    # spec based on the starter could not apply to, and it grades only the starter.
    set(variants "")
    set(kinds wrong right cheats slow)
    # Variants are mostly edits of the reference's source: a tree with the compiled reference only has none.
    if(NOT GPULAB_PLANTED_VARIANTS OR prebuilt)
        set(kinds "")
    endif()
    foreach(kind ${kinds})
        file(GLOB specs CONFIGURE_DEPENDS ${grader_dir}/${kind}/*.json)
        foreach(spec ${specs})
            get_filename_component(variant ${spec} NAME_WE)
            set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${lab}/${kind}/${variant})
            _gpulab_plant_bug(${spec} ${PROJECT_SOURCE_DIR}/reference/${lab} "${sources}" ${out_dir} planted)
            if(NOT planted)
                continue()
            endif()
            _gpulab_add_solution(${lab} ${kind}/${variant} ${out_dir} "${sources}" ${spec} "${shared}")
            list(APPEND variants ${kind}/${variant})
        endforeach()
    endforeach()

    _gpulab_add_expert(${lab} "${config_text}" "${shared}")

    # Each mode's grader binary and its target (gpulab-grade builds a grader that make grade left out).
    set(graders "")
    set(grader_targets "")
    foreach(mode gpu cpu)
        if(mode STREQUAL "gpu" AND NOT GPULAB_HAVE_CUDA OR mode STREQUAL "cpu" AND NOT GPULAB_CPU_EXECUTION)
            continue()
        endif()
        if(mode STREQUAL "gpu")
            _gpulab_add_grader(${lab} gpu gpulab_grader "${shared}" "${config_text}")
        else()
            _gpulab_add_grader(${lab} cpu gpulab_grader_cpu "${shared}" "${config_text}")
        endif()
        if(graders)
            string(APPEND graders ", ")
            string(APPEND grader_targets ", ")
        endif()
        string(APPEND graders "\"${mode}\": \"$<TARGET_FILE:grade-${lab}-${mode}>\"")
        string(APPEND grader_targets "\"${mode}\": \"grade-${lab}-${mode}\"")
    endforeach()

    # The GPU counters recorded for this lab's reference and right/ and slow/ variants (issue 35): without a GPU,
    # their CPU execution mode access figures are held to them (requirements.cpp).
    set(gpu_counters "")
    if(EXISTS ${grader_dir}/gpu_counters.json)
        set(gpu_counters ${grader_dir}/gpu_counters.json)
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${gpu_counters})
    endif()
    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/gpulab-labs/${lab}.json CONTENT
"{\"lab\": \"${lab}\", \"config\": \"${config}\", \"graders\": {${graders}}, \"grader_targets\": {${grader_targets}},
 \"solutions\": {${_gpulab_solutions}}, \"expert\": {${expert_entry}}, \"gpu_counters\": \"${gpu_counters}\"}
")

    # Self-checks (make test). Grading for correctness shares a GPU well, so those checks run in
    # parallel with --no-timing; a check whose verdict rests on a timed test (the reference's full
    # marks, a cheat caught by a speed test) runs alone (RUN_SERIAL), so no other process disturbs its
    # clock; on a GPU machine only its timed tests (_gpulab_untimed_from). Which tests time is said in
    # lab.json ("timing": true).
    set(timing_ids "")
    string(JSON test_count LENGTH "${config_text}" tests)
    math(EXPR last_test "${test_count} - 1")
    foreach(i RANGE ${last_test})
        string(JSON timing ERROR_VARIABLE no_timing GET "${config_text}" tests ${i} timing)
        if(NOT no_timing AND timing)
            string(JSON id GET "${config_text}" tests ${i} id)
            list(APPEND timing_ids ${id})
        endif()
    endforeach()
    set(grade $<TARGET_FILE:gpulab-grade> --lab ${lab} --no-build)
    set(out ${PROJECT_BINARY_DIR}/selftest-grades)
    _gpulab_untimed_from(${lab} ${out} reference untimed_from)
    add_test(NAME ${lab}/reference-scores-full-marks
             COMMAND ${grade} --solution reference --require full ${untimed_from} --out ${out}/${lab}-reference)
    _gpulab_untimed_fixture(${lab} reference ${lab}/reference-scores-full-marks REQUIRED)
    set(timed_tests ${lab}/reference-scores-full-marks)
    # An untimed check grades with --compare-modes: where a GPU exists, the one GPU grading is held to the
    # requirement and CPU execution mode must give the same correctness verdicts (graded with the same seed);
    # without one, CPU execution mode's grade is held to the requirement. A timed check (alone, on the GPU's
    # clock) has its own comparison check beside the others: cpu-mode-agrees-with-gpu/<name>.
    add_test(NAME ${lab}/starter-builds-and-fails-its-todos
             COMMAND ${grade} --solution starter --require starter --no-timing --compare-modes --out ${out}/${lab}-starter)
    set(untimed_tests ${lab}/starter-builds-and-fails-its-todos)
    set(compared_apart reference)
    foreach(variant ${variants})
        string(REPLACE "/" "-" name ${variant})
        file(READ ${grader_dir}/${variant}.json variant_text)
        # --no-build, except for a variant that does not compile: building it is the test.
        set(build_flag --no-build)
        string(JSON compiles ERROR_VARIABLE no_key GET "${variant_text}" compiles)
        if(NOT no_key AND NOT compiles)
            set(build_flag "")
        endif()
        # A variant that names speed tests is timed, alone, and only in those tests (--time-only): its other
        # speed tests are left out, as in every untimed variant's check. An untimed one compares the modes too.
        _gpulab_time_only_flags("${variant_text}" must_fail "${timing_ids}" named_speed_tests)
        # A slow/ variant whose cause Report.GpuProfile must name: that report reads the counters of timed samples
        # drawn by the speed tests, so the speed tests its spec lets fail are timed (a slow kernel's speed verdict
        # is not what the check is about, so it runs beside the others); its modes are compared by a check apart.
        set(profiled_speed_tests "")
        string(JSON profiled_causes ERROR_VARIABLE no_profile GET "${variant_text}" causes Report.GpuProfile)
        if(variant MATCHES "^slow/" AND NOT no_profile)
            _gpulab_time_only_flags("${variant_text}" may_fail "${timing_ids}" profiled_speed_tests)
        endif()
        if(named_speed_tests)
            _gpulab_untimed_from(${lab} ${out} ${variant} untimed_from)
            set(timing_flags ${named_speed_tests} ${untimed_from})
        elseif(profiled_speed_tests)
            set(timing_flags ${profiled_speed_tests})
            list(APPEND compared_apart ${variant})
        else()
            set(timing_flags --no-timing --compare-modes)
        endif()
        set(reports_flag --no-reports)
        if(variant MATCHES "^right/")
            set(check ${lab}/${variant}-scores-full-marks)
            set(require full)
        elseif(variant MATCHES "^slow/")
            # A planted performance bug: right, and slow for a cause the reports must name from what they measured.
            set(check ${lab}/${variant}-gets-its-cause)
            set(require expected)
            set(reports_flag "")
        else()
            set(check ${lab}/${variant}-is-caught)
            set(require expected)
        endif()
        # A variant's verdict rests on the tests that score; the reports (0 points) are left out.
        add_test(NAME ${check}
                 COMMAND $<TARGET_FILE:gpulab-grade> --lab ${lab} ${build_flag} ${timing_flags} ${reports_flag} --solution ${variant}
                         --require ${require} --out ${out}/${lab}-${name})
        # A right/ variant's check leaves its reports out; its access figures are held to the GPU's counters
        # (profiled here, or recorded in gpu_counters.json) by a check of their own, Report.AccessAnalysis alone.
        if(variant MATCHES "^right/" AND gpu_counters)
            file(READ ${gpu_counters} counters_text)
            string(JSON recorded ERROR_VARIABLE not_recorded GET "${counters_text}" solutions ${variant})
            if(NOT not_recorded)
                add_test(NAME ${lab}/${variant}-access-agrees-with-gpu-counters
                         COMMAND ${grade} --solution ${variant} --no-timing --filter Report.AccessAnalysis
                                 --require counters --out ${out}/${lab}-${name}-counters)
                list(APPEND untimed_tests ${lab}/${variant}-access-agrees-with-gpu-counters)
            endif()
        endif()
        if(named_speed_tests)
            _gpulab_untimed_fixture(${lab} ${variant} ${check} REQUIRED)
            list(APPEND timed_tests ${check})
            list(APPEND compared_apart ${variant})
        else()
            list(APPEND untimed_tests ${check})
        endif()
    endforeach()
    # Where a GPU exists: CPU execution mode must give the GPU's correctness verdicts. The reports (0 points) run in
    # the reference's comparison; a variant's, as in its own check above, rests on the tests that score (in CPU
    # execution mode Report.PrecisionDrift alone took 5.6 of lab 05's 12 s).
    foreach(solution ${compared_apart})
        string(REPLACE "/" "-" name ${solution})
        set(reports_flag "")
        if(NOT solution STREQUAL "reference")
            set(reports_flag --no-reports)
        endif()
        add_test(NAME ${lab}/cpu-mode-agrees-with-gpu/${name}
                 COMMAND ${grade} --solution ${solution} --compare-modes --no-timing ${reports_flag} --out ${out}/${lab}-modes-${name})
        list(APPEND untimed_tests ${lab}/cpu-mode-agrees-with-gpu/${name})
        # Two gradings, one in CPU execution mode: among make test's longest checks, so started first (COST).
        set_tests_properties(${lab}/cpu-mode-agrees-with-gpu/${name} PROPERTIES COST 60)
        _gpulab_untimed_fixture(${lab} ${solution} ${lab}/cpu-mode-agrees-with-gpu/${name} SETUP)
    endforeach()
    set_tests_properties(${untimed_tests} ${timed_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
    if(GPULAB_TIMED_CHECKS_ALONE)
        # The checks in GPULAB_CHECKS_STARTED_FIRST become what the timed checks run after (they run after every
        # other check anyway): ctest starts the checks others wait for before any other, whatever their COST, so
        # without this the long ones would start behind the fixtures above and hold back the timed checks.
        get_property(started_first GLOBAL PROPERTY GPULAB_CHECKS_STARTED_FIRST)
        set_tests_properties(${timed_tests} PROPERTIES RUN_SERIAL TRUE DEPENDS "${started_first}")
    endif()
endfunction()

# Turns a recording of a GPU's answers (grader/cpu/tools/record_gpu_answers.py record) into C++ that CPU execution
# mode's runtime compiles in: the answers it gives where the machine has no GPU of its own. Embedded at build time,
# so nothing a student's code can reach (a file, the environment) changes them at run time.
#
#   cmake -DANSWERS=<recording.json> -DOUT=<generated.cpp> -P embed_gpu_answers.cmake
#
# Every answer becomes an assignment by name (p.integrated = 0;), so a recording with a field or an error that CPU
# execution mode's declarations lack fails to compile, naming it.
cmake_minimum_required(VERSION 3.20)

if(NOT ANSWERS OR NOT OUT)
  message(FATAL_ERROR "embed_gpu_answers.cmake: give -DANSWERS=<recording.json> -DOUT=<generated.cpp>")
endif()
if(NOT EXISTS "${ANSWERS}")
  message(FATAL_ERROR
    "CPU execution mode answers device questions as the lab's GPU does, and where this machine has no GPU it "
    "gives a recording of one. That recording is missing: ${ANSWERS}\n"
    "Record it on a machine with the GPU and nvcc:\n"
    "    python3 grader/cpu/tools/record_gpu_answers.py record grader/cpu/data/gpu_answers_h100.json\n"
    "(or point -DGPULAB_CPU_GPU_ANSWERS=<file> at another recording). CPU execution mode never invents these "
    "numbers.")
endif()
get_filename_component(ANSWERS "${ANSWERS}" ABSOLUTE)
file(READ "${ANSWERS}" json)

# A C++ string literal of `value` (the recordings hold names, bus ids and messages: no control characters).
function(cxx_string value out)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# `{"value": v}` -> answer(v); `{"error": "cudaError..."}` -> failed(cudaError...).
function(cxx_answer member_json out)
  string(JSON value ERROR_VARIABLE no_value GET "${member_json}" value)
  if(no_value)
    string(JSON error GET "${member_json}" error)
    set(${out} "failed(${error})" PARENT_SCOPE)
  else()
    set(${out} "answer(${value}LL)" PARENT_SCOPE)
  endif()
endfunction()

# The names of a JSON object's members, in CMake's order (by name).
function(json_members object out)
  set(names "")
  string(JSON count LENGTH "${object}")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON name MEMBER "${object}" ${i})
      list(APPEND names "${name}")
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# The generated source, line by line (a string, not a list: C++ is full of semicolons).
set(generated "")
macro(emit line)
  string(APPEND generated "${line}\n")
endmacro()

file(RELATIVE_PATH shown "${CMAKE_CURRENT_LIST_DIR}/../../.." "${ANSWERS}")
string(JSON device GET "${json}" device)
cxx_string("${device}" device_literal)
cxx_string("a recording of ${device} (${shown})" origin_literal)

emit("// Generated from ${shown} by grader/cpu/cmake/embed_gpu_answers.cmake. Do not edit: re-record.")
emit("#include \"gpu_answers.h\"")
emit("")
emit("namespace gpulab::cpu {")
emit("namespace {")
emit("GpuAnswers recorded() {")
emit("  GpuAnswers a;")
emit("  a.origin = ${origin_literal};")
emit("  cudaDeviceProp& p = a.prop;")

# cudaDeviceProp, field by field.
string(JSON prop GET "${json}" prop)
json_members("${prop}" fields)
foreach(field IN LISTS fields)
  string(JSON type TYPE "${prop}" ${field})
  if(field STREQUAL "name")
    string(JSON name GET "${prop}" name)
    cxx_string("${name}" literal)
    emit("  set_text(p.name, sizeof p.name, ${literal});")
  elseif(type STREQUAL "STRING")  # bytes as hex: uuid, luid
    string(JSON hex GET "${prop}" ${field})
    if(field STREQUAL "uuid")
      emit("  set_bytes(p.uuid.bytes, sizeof p.uuid.bytes, \"${hex}\");")
    else()
      emit("  set_bytes(p.${field}, sizeof p.${field}, \"${hex}\");")
    endif()
  elseif(type STREQUAL "ARRAY")
    string(JSON count LENGTH "${prop}" ${field})
    math(EXPR top "${count} - 1")
    foreach(k RANGE ${top})
      string(JSON value GET "${prop}" ${field} ${k})
      emit("  p.${field}[${k}] = decltype(+p.${field}[${k}])(${value}LL);")
    endforeach()
  else()
    string(JSON value GET "${prop}" ${field})
    emit("  p.${field} = decltype(p.${field})(${value}LL);")
  endif()
endforeach()

# cudaDeviceGetAttribute: by the enumerator's name, so the value CPU execution mode declares is the one recorded.
string(JSON attributes GET "${json}" attributes)
json_members("${attributes}" names)
foreach(attr IN LISTS names)
  string(JSON member GET "${attributes}" ${attr})
  cxx_answer("${member}" answer)
  emit("  a.set_attribute(${attr}, ${answer});")
endforeach()
string(JSON unknown GET "${json}" unknown_attributes)
string(JSON error GET "${unknown}" 1000)
emit("  a.unknown_attribute = ${error};")
string(JSON bad GET "${json}" bad_device)
string(JSON error GET "${bad}" cudaGetDeviceProperties)
emit("  a.bad_device = ${error};")

string(JSON driver GET "${json}" driver_version)
string(JSON runtime GET "${json}" runtime_version)
emit("  a.driver_version = ${driver};")
emit("  a.runtime_version = ${runtime};")
string(JSON flags GET "${json}" device_flags)
cxx_answer("${flags}" answer)
emit("  a.device_flags = ${answer};")
string(JSON bus GET "${json}" pci_bus_id)
cxx_string("${bus}" literal)
emit("  a.pci_bus_id = ${literal};")
string(JSON least GET "${json}" stream_priority_range 0)
string(JSON greatest GET "${json}" stream_priority_range 1)
emit("  a.stream_priority_least = ${least};")
emit("  a.stream_priority_greatest = ${greatest};")
string(JSON cache GET "${json}" cache_config)
cxx_answer("${cache}" answer)
emit("  a.cache_config = ${answer};")
string(JSON free GET "${json}" mem_info free)
string(JSON total GET "${json}" mem_info total)
emit("  a.mem_total = ${total}ULL;")
emit("  a.context_bytes = ${total}ULL - ${free}ULL;")

string(JSON limits GET "${json}" limits)
json_members("${limits}" names)
foreach(limit IN LISTS names)
  string(JSON member GET "${limits}" ${limit})
  cxx_answer("${member}" answer)
  emit("  a.set_limit(${limit}, ${answer});")
endforeach()

# cudaMallocPitch: the recorded pitches, from which the runtime takes its alignment (and a test checks each).
string(JSON pitches GET "${json}" malloc_pitch)
json_members("${pitches}" widths)
foreach(width IN LISTS widths)
  string(JSON pitch GET "${pitches}" ${width} value)
  emit("  a.pitches.push_back({${width}ULL, ${pitch}ULL});")
endforeach()

# cudaFuncGetAttributes of a kernel with nothing in it: the fields that are facts of the device and the build.
string(JSON func GET "${json}" func_attributes)
foreach(field ptxVersion binaryVersion cacheModeCA maxDynamicSharedSizeBytes preferredShmemCarveout
        clusterDimMustBeSet requiredClusterWidth requiredClusterHeight requiredClusterDepth
        clusterSchedulingPolicyPreference nonPortableClusterSizeAllowed maxThreadsPerBlock)
  string(JSON value GET "${func}" ${field})
  emit("  a.func_defaults.${field} = ${value};")
endforeach()

# cudaGetErrorName and cudaGetErrorString: the runtime's words for every code.
string(JSON errors GET "${json}" errors)
json_members("${errors}" codes)
foreach(code IN LISTS codes)
  string(JSON name GET "${errors}" ${code} 0)
  string(JSON words GET "${errors}" ${code} 1)
  cxx_string("${name}" name_literal)
  cxx_string("${words}" text_literal)
  emit("  a.errors.push_back({${code}, ${name_literal}, ${text_literal}});")
endforeach()

emit("  a.sort_errors();  // by code: CMake lists a JSON object's members by name")
emit("  return a;")
emit("}")
emit("}  // namespace")
emit("")
emit("const GpuAnswers& recorded_answers() {")
emit("  static const GpuAnswers answers = recorded();")
emit("  return answers;")
emit("}")
emit("const char* recorded_device_name() { return ${device_literal}; }")
emit("}  // namespace gpulab::cpu")

# Written only when it changed, so an unchanged recording rebuilds nothing.
set(previous "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" previous)
endif()
if(NOT previous STREQUAL generated)
  file(WRITE "${OUT}" "${generated}")
endif()

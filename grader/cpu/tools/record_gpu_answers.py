#!/usr/bin/env python3
"""What the CUDA runtime answers about a GPU, recorded so that CPU execution mode can give the same answers.

CPU execution mode must answer every run-time question (cudaGetDeviceProperties, cudaDeviceGetAttribute, the
versions, limits, memory, occupancy...) as the lab's GPU does, or a launch function could take one path on the GPU
and another where its reads are counted (issue 43, item 3). Where the machine has no GPU it answers from a
recording made by this tool on a real one (grader/cpu/data/gpu_answers_h100.json, embedded into the runtime at
build time: grader/cpu/cmake/embed_gpu_answers.cmake).

    record_gpu_answers.py record OUT.json      on a machine with a GPU and nvcc: write the program, build it with
                                               nvcc, run it on the first visible GPU, write its answers
    record_gpu_answers.py source OUT.cu        only write the program (the same file is built in CPU execution mode
                                               by grader/cpu/tests, whose answers are compared with a recording)
    record_gpu_answers.py compare A.json B.json  the answers that differ (exit 1 if any)
    record_gpu_answers.py check-cpu-mode PROGRAM --against RECORDING.json|this-gpu
                                               the program built in CPU execution mode answers as the recording
                                               (any GPU here hidden) or as this machine's GPU (exit 77 if none)
    record_gpu_answers.py check-types INCLUDE_DIR  CPU execution mode's cudaDeviceProp, cudaFuncAttributes and enums
                                               against CUDA's: same names, offsets, sizes and values (exit 1 if not)
    record_gpu_answers.py header OUT.h         write those declarations for CPU execution mode from CUDA's
                                               (grader/cpu/include/gpulab_cpu/cuda_declarations.h)

The program enumerates the toolkit's own declarations (every field of struct cudaDeviceProp and of
cudaFuncAttributes, every cudaDeviceAttr, cudaLimit and cudaError value in driver_types.h), so a later toolkit's
new fields are recorded without editing this file.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# ---- CUDA's declarations, read from its headers ----------------------------------------------------------------


def cuda_include_dir(cuda_root):
    path = os.path.join(cuda_root, "include")
    if not os.path.exists(os.path.join(path, "driver_types.h")):
        sys.exit(f"record_gpu_answers: no driver_types.h under {path} (give --cuda-root)")
    return path


def without_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def struct_fields(src, name):
    """[(type, field, count or None)] of `struct __device_builtin__ <name> { ... };` in declaration order."""
    m = re.search(r"struct __device_builtin__ " + name + r"\s*\{(.*?)\n\};", src, re.S)
    if not m:
        sys.exit(f"record_gpu_answers: struct {name} not found in driver_types.h")
    fields = []
    for decl in without_comments(m.group(1)).split(";"):
        decl = " ".join(decl.split())
        f = re.match(r"(.+?)\s+(\w+)(?:\[(\d+)\])?$", decl)
        if f:
            fields.append((f.group(1), f.group(2), int(f.group(3)) if f.group(3) else None))
    return fields


def enum_members(src, name):
    """[(member, value)] of `enum __device_builtin__ <name> { ... };`."""
    m = re.search(r"enum __device_builtin__ " + name + r"\s*\{(.*?)\};", src, re.S)
    if not m:
        sys.exit(f"record_gpu_answers: enum {name} not found in driver_types.h")
    return [(a, int(v, 0)) for a, v in re.findall(r"(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)", without_comments(m.group(1)))]


class CudaDeclarations:
    def __init__(self, include_dir):
        src = open(os.path.join(include_dir, "driver_types.h")).read()
        self.prop = struct_fields(src, "cudaDeviceProp")
        self.func_attributes = struct_fields(src, "cudaFuncAttributes")
        self.attributes = enum_members(src, "cudaDeviceAttr")
        self.limits = enum_members(src, "cudaLimit")
        self.errors = enum_members(src, "cudaError")
        self.func_cache = enum_members(src, "cudaFuncCache")
        version = open(os.path.join(include_dir, "cuda_runtime_api.h")).read()
        self.cudart_version = int(re.search(r"#define CUDART_VERSION\s+(\d+)", version).group(1))


# ---- the program that asks ---------------------------------------------------------------------------------------

# Block sizes and dynamic shared memory the occupancy answers are recorded for (a kernel with no static shared
# memory and few registers: what limits it is the SM's threads, blocks and shared memory).
OCCUPANCY_CASES = [(32, 0), (64, 0), (96, 0), (128, 0), (256, 0), (512, 0), (768, 0), (1024, 0), (128, 1000),
                   (256, 8192), (256, 20000), (128, 49152), (64, 100000), (1024, 49152)]
# Widths (bytes) cudaMallocPitch is asked about, two rows each.
PITCH_WIDTHS = [1, 4, 100, 255, 256, 257, 511, 512, 513, 1000, 1024, 4096, 4097, 100000]
# Attribute numbers that name no cudaDeviceAttr: what a GPU answers for a number it does not know.
def unknown_attributes(decl):
    top = max(v for _, v in decl.attributes)
    return [0, top + 1, top + 50, 1000, -1]


def put_members(w, members):
    """The members of a JSON object the program prints: (key, C++ statements that print its value) each."""
    for i, (key, statements) in enumerate(members):
        sep = "," if i else ""
        w(f"    std::printf(\"{sep}\\n  \\\"{key}\\\": \");")
        for statement in statements:
            w("    " + statement)


def _preamble(w, decl):
    """The program's head: what generated it, its includes, the probe kernel and the JSON writers."""
    w("// Generated by grader/cpu/tools/record_gpu_answers.py from CUDA's driver_types.h (CUDART_VERSION %d): prints"
      % decl.cudart_version)
    w("// what the CUDA runtime answers about device 0, as JSON. Built by nvcc to record a GPU's answers, and in CPU")
    w("// execution mode by grader/cpu/tests to compare its answers with them. Do not edit: regenerate it.")
    w("#include <cuda_runtime.h>")
    w("#include <cstdio>")
    w("#include <cstring>")
    w("")
    w("__global__ void answers_probe_kernel(int* out) {")
    w("    if (out) *out = 1;")
    w("}")
    w("")
    w("static void put_string(const char* s) {")
    w("    std::putchar('\"');")
    w("    for (; *s; ++s) {")
    w("        const unsigned char c = static_cast<unsigned char>(*s);")
    w("        if (c == '\"' || c == '\\\\') std::printf(\"\\\\%c\", c);")
    w("        else if (c < 0x20) std::printf(\"\\\\u%04x\", c);")
    w("        else std::putchar(c);")
    w("    }")
    w("    std::putchar('\"');")
    w("}")
    w("static void put_hex(const char* bytes, int n) {")
    w("    std::putchar('\"');")
    w("    for (int k = 0; k < n; ++k) std::printf(\"%02x\", static_cast<unsigned char>(bytes[k]));")
    w("    std::putchar('\"');")
    w("}")
    w("// An answer: {\"value\": v} where the call succeeded, {\"error\": \"cudaError...\"} where it did not.")
    w("static void put_answer(cudaError_t e, long long value) {")
    w("    if (e == cudaSuccess) std::printf(\"{\\\"value\\\": %lld}\", value);")
    w("    else std::printf(\"{\\\"error\\\": \\\"%s\\\"}\", cudaGetErrorName(e));")
    w("    cudaGetLastError();")
    w("}")
    w("static void put_error(cudaError_t e) {")
    w("    std::printf(\"\\\"%s\\\"\", cudaGetErrorName(e));")
    w("    cudaGetLastError();")
    w("}")
    w("")


def _device_answers(w, decl):
    """main's start: the flags before a context, the properties and the attributes, known and unknown."""
    w("int main() {")
    w("    unsigned int flags_before = 0;")
    w("    const cudaError_t flags_before_status = cudaGetDeviceFlags(&flags_before);")
    w("    cudaGetLastError();")
    w("    cudaDeviceProp p;")
    w("    std::memset(&p, 0, sizeof p);")
    w("    const cudaError_t status = cudaGetDeviceProperties(&p, 0);")
    w("    if (status != cudaSuccess) {")
    w("        std::fprintf(stderr, \"cudaGetDeviceProperties(0): %s\\n\", cudaGetErrorString(status));")
    w("        return 1;")
    w("    }")
    w("    std::printf(\"{\\n \\\"device\\\": \");")
    w("    put_string(p.name);")
    w("    std::printf(\",\\n \\\"prop\\\": {\");")
    def prop_value(t, n, count):
        if n == "name":
            return ["put_string(p.name);"]
        if t == "cudaUUID_t":
            return [f"put_hex(p.{n}.bytes, 16);"]
        if t == "char" and count:
            return [f"put_hex(p.{n}, {count});"]
        if count:
            return [f"for (int k = 0; k < {count}; ++k) std::printf(\"%s%lld\", k ? \", \" : \"[\", (long long)p.{n}[k]);",
                    "std::printf(\"]\");"]
        return [f"std::printf(\"%lld\", (long long)p.{n});"]
    put_members(w, [(n, prop_value(t, n, count)) for t, n, count in decl.prop])
    w("    std::printf(\"\\n },\\n \\\"attributes\\\": {\");")
    w("    int v = 0;")
    put_members(w, [(n, [f"{{ const cudaError_t e = cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>({val}), 0); "
                         "put_answer(e, v); }"]) for n, val in decl.attributes])
    w("    std::printf(\"\\n },\\n \\\"unknown_attributes\\\": {\");")
    put_members(w, [(val, [f"put_error(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>({val}), 0));"])
                    for val in unknown_attributes(decl)])


def _runtime_state(w):
    """The device count and versions, the answers about a device that does not exist, and the state of the context."""
    w("    int count = 0, device = -1, driver = 0, runtime = 0;")
    w("    const cudaError_t count_status = cudaGetDeviceCount(&count);")
    w("    const cudaError_t device_status = cudaGetDevice(&device);")
    w("    cudaDriverGetVersion(&driver);")
    w("    cudaRuntimeGetVersion(&runtime);")
    w("    std::printf(\"\\n },\\n \\\"device_count\\\": \");")
    w("    put_answer(count_status, count);")
    w("    std::printf(\",\\n \\\"current_device\\\": \");")
    w("    put_answer(device_status, device);")
    w("    std::printf(\",\\n \\\"driver_version\\\": %d,\\n \\\"runtime_version\\\": %d\", driver, runtime);")
    w("    std::printf(\",\\n \\\"bad_device\\\": {\\\"cudaGetDeviceProperties\\\": \");")
    w("    { cudaDeviceProp q; put_error(cudaGetDeviceProperties(&q, count)); }")
    w("    std::printf(\", \\\"cudaDeviceGetAttribute\\\": \");")
    w("    put_error(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, count));")
    w("    std::printf(\", \\\"cudaSetDevice\\\": \");")
    w("    put_error(cudaSetDevice(count));")
    w("    cudaSetDevice(0);")
    w("    std::printf(\", \\\"negative\\\": \");")
    w("    { cudaDeviceProp q; put_error(cudaGetDeviceProperties(&q, -1)); }")
    w("    std::printf(\"}\");")
    w("    std::printf(\",\\n \\\"device_flags_before_context\\\": \");")
    w("    put_answer(flags_before_status, flags_before);")
    w("    {")
    w("        char bus[64] = {0};")
    w("        const cudaError_t e = cudaDeviceGetPCIBusId(bus, sizeof bus, 0);")
    w("        std::printf(\",\\n \\\"pci_bus_id\\\": \");")
    w("        if (e == cudaSuccess) put_string(bus);")
    w("        else put_answer(e, 0);")
    w("    }")
    w("    {")
    w("        int least = 0, greatest = 0;")
    w("        const cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);")
    w("        std::printf(\",\\n \\\"stream_priority_range\\\": \");")
    w("        if (e == cudaSuccess) std::printf(\"[%d, %d]\", least, greatest);")
    w("        else put_answer(e, 0);")
    w("    }")
    w("    {")
    w("        cudaFuncCache cache = cudaFuncCachePreferNone;")
    w("        const cudaError_t e = cudaDeviceGetCacheConfig(&cache);")
    w("        std::printf(\",\\n \\\"cache_config\\\": \");")
    w("        put_answer(e, cache);")
    w("    }")
    w("    // The context exists from here on (cudaMemGetInfo and cudaMalloc create it).")
    w("    {")
    w("        size_t free_bytes = 0, total_bytes = 0;")
    w("        const cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes);")
    w("        std::printf(\",\\n \\\"mem_info\\\": \");")
    w("        if (e == cudaSuccess) std::printf(\"{\\\"free\\\": %zu, \\\"total\\\": %zu}\", free_bytes, total_bytes);")
    w("        else put_answer(e, 0);")
    w("    }")
    w("    {")
    w("        unsigned int flags = 0;")
    w("        const cudaError_t e = cudaGetDeviceFlags(&flags);")
    w("        std::printf(\",\\n \\\"device_flags\\\": \");")
    w("        put_answer(e, flags);")
    w("    }")


def _limits_and_kernel(w, decl):
    """The limits, pitches, a kernel's attributes and occupancy, and the error names; main's end."""
    w("    std::printf(\",\\n \\\"limits\\\": {\");")
    put_members(w, [(n, [f"{{ size_t lim = 0; const cudaError_t e = cudaDeviceGetLimit(&lim, static_cast<cudaLimit>({val})); "
                         "put_answer(e, (long long)lim); }"]) for n, val in decl.limits])
    w("    std::printf(\"\\n },\\n \\\"malloc_pitch\\\": {\");")
    put_members(w, [(width, ["{ void* ptr = nullptr; size_t pitch = 0;",
                             f"  const cudaError_t e = cudaMallocPitch(&ptr, &pitch, {width}, 2);",
                             "  put_answer(e, (long long)pitch);",
                             "  if (ptr) cudaFree(ptr); }"]) for width in PITCH_WIDTHS])
    w("    std::printf(\"\\n },\\n \\\"func_attributes\\\": {\");")
    w("    cudaFuncAttributes fa;")
    w("    std::memset(&fa, 0, sizeof fa);")
    w("    const cudaError_t fa_status = cudaFuncGetAttributes(&fa, answers_probe_kernel);")
    w("    std::printf(\"\\n  \\\"status\\\": \");")
    w("    put_error(fa_status);")
    for t, n, count in decl.func_attributes:
        w(f"    std::printf(\",\\n  \\\"{n}\\\": \");")
        if count:
            w(f"    for (int k = 0; k < {count}; ++k) std::printf(\"%s%lld\", k ? \", \" : \"[\", (long long)fa.{n}[k]);")
            w("    std::printf(\"]\");")
        else:
            w(f"    std::printf(\"%lld\", (long long)fa.{n});")
    w("    std::printf(\"\\n },\\n \\\"occupancy\\\": {\");")
    put_members(w, [(f"{block} threads, {shared} B dynamic shared",
                     ["{ int blocks = 0;",
                      f"  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, answers_probe_kernel, "
                      f"{block}, {shared});",
                      "  put_answer(e, blocks); }"]) for block, shared in OCCUPANCY_CASES])
    w("    {")
    w("        int min_grid = 0, block = 0;")
    w("        const cudaError_t e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, answers_probe_kernel, 0, 0);")
    w("        std::printf(\"\\n },\\n \\\"max_potential_block_size\\\": \");")
    w("        if (e == cudaSuccess) std::printf(\"{\\\"min_grid\\\": %d, \\\"block\\\": %d}\", min_grid, block);")
    w("        else put_answer(e, 0);")
    w("    }")
    w("    std::printf(\",\\n \\\"errors\\\": {\");")
    put_members(w, [(val, ["std::printf(\"[\");",
                           f"put_string(cudaGetErrorName(static_cast<cudaError_t>({val})));",
                           "std::printf(\", \");",
                           f"put_string(cudaGetErrorString(static_cast<cudaError_t>({val})));",
                           "std::printf(\"]\");"]) for n, val in decl.errors])
    w("    std::printf(\"\\n }\\n}\\n\");")
    w("    return 0;")
    w("}")


def program(decl):
    """The source of a program that prints the CUDA runtime's answers about device 0 as JSON."""
    out = []
    w = out.append
    _preamble(w, decl)
    _device_answers(w, decl)
    _runtime_state(w)
    _limits_and_kernel(w, decl)
    return "\n".join(out) + "\n"

# ---- recording ------------------------------------------------------------------------------------------------


def first_visible_gpu():
    """What CUDA_VISIBLE_DEVICES the program runs with: the first GPU this process sees, alone (a grading process
    sees one GPU, so the recording's device count and device numbers are those it sees)."""
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given is None:
        return "0"
    first = given.split(",")[0].strip()
    if not first:
        sys.exit("record_gpu_answers: CUDA_VISIBLE_DEVICES is empty: no GPU to record")
    return first


def run_on_gpu(cuda_root, nvcc, arch):
    """Builds the program with nvcc and runs it on the first visible GPU: (its answers, how it was built)."""
    decl = CudaDeclarations(cuda_include_dir(cuda_root))
    nvcc = nvcc or os.path.join(cuda_root, "bin", "nvcc")
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "answers.cu")
        binary = os.path.join(tmp, "answers")
        open(source, "w").write(program(decl))
        build = [nvcc, "-O1", f"-arch=sm_{arch}", "-o", binary, source]
        subprocess.run(build, check=True)
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=first_visible_gpu())
        run = subprocess.run([binary], capture_output=True, text=True, env=env)
        if run.returncode != 0:
            sys.exit(f"record_gpu_answers: the program failed ({run.returncode}): {run.stderr.strip()}")
    built_with = " ".join(os.path.basename(a) if a == nvcc else a for a in build[:-3]) + " (" + version + ")"
    return json.loads(run.stdout), built_with, env["CUDA_VISIBLE_DEVICES"]


def record(args):
    answers, built_with, visible = run_on_gpu(args.cuda_root, args.nvcc, args.arch)
    recording = {
        "about": ("What the CUDA runtime answered about this GPU, recorded by grader/cpu/tools/record_gpu_answers.py "
                  "(record). CPU execution mode gives these answers where the machine has no GPU of its own; "
                  "embedded into its runtime at build time. Re-record rather than edit."),
        "recorded": {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "built_with": built_with,
            "cuda_visible_devices": visible,
        },
    }
    recording.update(answers)
    text = json.dumps(recording, indent=1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        open(args.out, "w").write(text)
        print(f"record_gpu_answers: {answers['device']}: {args.out}")


def source(args):
    decl = CudaDeclarations(cuda_include_dir(args.cuda_root))
    text = program(decl)
    if os.path.exists(args.out) and open(args.out).read() == text:
        return  # unchanged: keep its timestamp, so nothing that depends on it rebuilds
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    open(args.out, "w").write(text)


# ---- comparing -------------------------------------------------------------------------------------------------

# Not answers about the device: how and when the file was made.
ABOUT_KEYS = {"about", "recorded"}
# Facts of a kernel's GPU binary (registers, local and static shared memory, the threads those allow), which CPU
# execution mode cannot know (grader/cpu/README.md: "What can still differ from a GPU").
BINARY_FACTS = {"sharedSizeBytes", "constSizeBytes", "localSizeBytes", "numRegs", "maxThreadsPerBlock"}


def differences(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in list(a) + [k for k in b if k not in a]:
            where = f"{path}.{key}" if path else key
            if not path and key in ABOUT_KEYS:
                continue
            if path == "func_attributes" and key in BINARY_FACTS:
                continue
            if key not in a or key not in b:
                out.append(f"{where}: only in {'the second' if key not in a else 'the first'}")
            else:
                out += differences(a[key], b[key], where)
        return out
    return [] if a == b else [f"{path}: {json.dumps(a)} != {json.dumps(b)}"]


def report(first_name, second_name, found):
    for d in found:
        print(d)
    if found:
        print(f"{len(found)} answers differ between {first_name} and {second_name}")
        sys.exit(1)
    print(f"same answers: {first_name} and {second_name}")


def within_free_memory_tolerance(found, a, b, tolerance):
    """Free memory moves with every allocation on a GPU (other processes', the driver's), and CPU execution mode reading
    a GPU through its driver (no context) estimates it from the recording: held within `tolerance` bytes."""
    if tolerance is None:
        return found
    return [d for d in found if not (d.startswith("mem_info.free:") and
                                     abs(a["mem_info"]["free"] - b["mem_info"]["free"]) <= tolerance)]


def compare(args):
    a, b = json.load(open(args.first)), json.load(open(args.second))
    report(args.first, args.second, within_free_memory_tolerance(differences(a, b), a, b, args.free_memory_tolerance))


def gpu_visible():
    """Whether the CUDA driver sees a GPU here (asked as CPU execution mode asks: no context)."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def check_cpu_mode(args):
    """Runs the program built in CPU execution mode and compares its answers with a recording (the GPU hidden, so
    that CPU execution mode answers from its recording) or with what nvcc's build of it answers on this GPU."""
    def cpu_mode_answers(visible):
        run = subprocess.run([args.program], capture_output=True, text=True,
                             env=dict(os.environ, CUDA_VISIBLE_DEVICES=visible))
        if run.returncode != 0:
            sys.exit(f"check-cpu-mode: {args.program} failed ({run.returncode}): {run.stderr.strip()}")
        return json.loads(run.stdout)
    if args.against != "this-gpu":
        expected = json.load(open(args.against))
        got = cpu_mode_answers("")  # no GPU: CPU execution mode answers from the recording it was built with
        report(args.against, "CPU execution mode", differences(expected, got))
        return
    # The toolkit's include folder can sit under targets/<arch>/ (CMake's CUDAToolkit_INCLUDE_DIRS), so nvcc is
    # looked for where it was named, beside the root, on the PATH and in /usr/local/cuda, in that order.
    candidates = [args.nvcc, os.path.join(args.cuda_root, "bin", "nvcc"), shutil.which("nvcc"),
                  "/usr/local/cuda/bin/nvcc"]
    nvcc = next((c for c in candidates if c and os.path.exists(c)), None)
    if not gpu_visible():
        print("check-cpu-mode: the CUDA driver sees no GPU here: nothing to compare CPU execution mode with")
        sys.exit(77)
    if nvcc is None:
        print("check-cpu-mode: a GPU but no nvcc here (looked for " + ", ".join(c for c in candidates if c) +
              "): nothing to build this GPU's answers with")
        sys.exit(77)
    expected, _, visible = run_on_gpu(args.cuda_root, nvcc, args.arch)
    got = cpu_mode_answers(visible)
    report("this GPU's answers (nvcc)", "CPU execution mode's",
           within_free_memory_tolerance(differences(expected, got), expected, got, 1 << 30))


# ---- CPU execution mode's declarations against CUDA's -----------------------------------------------------------


def layout_program(decl):
    """Prints every field's offset and size and every enumerator's value, by name: compiled against CUDA's headers
    and against CPU execution mode's, the two outputs must be equal."""
    out = ["#include <cstddef>", "#include <cstdio>", "#include HEADER", "int main() {"]
    for struct, fields in (("cudaDeviceProp", decl.prop), ("cudaFuncAttributes", decl.func_attributes)):
        out.append(f'    std::printf("sizeof {struct} %zu\\n", sizeof(struct {struct}));')
        for _, n, _ in fields:
            out.append(f'    std::printf("{struct}.{n} %zu %zu\\n", offsetof(struct {struct}, {n}), '
                       f'sizeof(((struct {struct}*)0)->{n}));')
    for enum, members in (("cudaDeviceAttr", decl.attributes), ("cudaLimit", decl.limits),
                          ("cudaError", decl.errors), ("cudaFuncCache", decl.func_cache)):
        out.append(f'    std::printf("sizeof enum {enum} %zu\\n", sizeof(enum {enum}));')
        for n, _ in members:
            out.append(f'    std::printf("{enum}::{n} %lld\\n", (long long){n});')
    out += ["    return 0;", "}"]
    return "\n".join(out) + "\n"


def check_types(args):
    cuda_include = cuda_include_dir(args.cuda_root)
    decl = CudaDeclarations(cuda_include)
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    outputs = {}
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "layout.cpp")
        open(src, "w").write(layout_program(decl))
        for side, include, header in (("CUDA", cuda_include, "<cuda_runtime_api.h>"),
                                      ("CPU execution mode", args.include_dir, "<gpulab_cpu/types.h>")):
            exe = os.path.join(tmp, "layout")
            build = subprocess.run([cxx, "-std=c++17", "-I", include, f"-DHEADER={header}", src, "-o", exe],
                                   capture_output=True, text=True)
            if build.returncode != 0:
                print(f"{side}'s declarations do not compile with CUDA's names:\n{build.stderr[:6000]}")
                sys.exit(1)
            outputs[side] = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.splitlines()
    cuda, cpu = outputs["CUDA"], outputs["CPU execution mode"]
    wrong = [f"CUDA: {a}   CPU execution mode: {b}" for a, b in zip(cuda, cpu) if a != b]
    for line in wrong:
        print(line)
    if wrong or len(cuda) != len(cpu):
        print(f"{len(wrong)} of {len(cuda)} declarations differ")
        sys.exit(1)
    print(f"same layout and values: {len(cuda)} fields and enumerators of CUDA {decl.cudart_version}")


def header(args):
    decl = CudaDeclarations(cuda_include_dir(args.cuda_root))
    out = ["// CUDA's declarations of what a device is and what the runtime answers about it, for CPU execution mode: every",
           "// field of struct cudaDeviceProp and cudaFuncAttributes and every value of cudaDeviceAttr, cudaLimit and cudaError,",
           f"// in CUDA's order (CUDART_VERSION {decl.cudart_version}), so that code naming any of them builds in both modes and a",
           "// struct's bytes are laid out alike. Generated by grader/cpu/tools/record_gpu_answers.py header; the test",
           "// cpu_mode.declarations_match_cuda holds it to the toolkit's driver_types.h. Do not edit: regenerate it.",
           "#pragma once", "#include <cstddef>", "",
           "struct CUuuid_st {", "  char bytes[16];", "};", "typedef struct CUuuid_st CUuuid;",
           "typedef struct CUuuid_st cudaUUID_t;", ""]
    def enum(name, members, typedef=None):
        out.append(f"enum {name} {{")
        for i, (n, v) in enumerate(members):
            out.append(f"  {n} = {v}{',' if i + 1 < len(members) else ''}")
        out.append("};")
        if typedef:
            out.append(f"typedef enum {name} {typedef};")
        out.append("")
    def struct(name, fields):
        out.append(f"struct {name} {{")
        for t, n, count in fields:
            out.append(f"  {t} {n}{f'[{count}]' if count else ''};")
        out.append("};")
        out.append("")
    enum("cudaError", decl.errors, "cudaError_t")
    enum("cudaDeviceAttr", decl.attributes)
    enum("cudaLimit", decl.limits)
    enum("cudaFuncCache", decl.func_cache)
    struct("cudaDeviceProp", decl.prop)
    struct("cudaFuncAttributes", decl.func_attributes)
    src = open(os.path.join(cuda_include_dir(args.cuda_root), "driver_types.h")).read()
    for prefix in ("cudaDevice", "cudaOccupancy"):
        for n, v in re.findall(r"#define (" + prefix + r"\w+)\s+(0x[0-9a-fA-F]+)", src):
            out.append(f"#define {n} {v}")
    open(args.out, "w").write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuda-root", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("record", help="build and run the program on this machine's GPU, write its answers")
    p.add_argument("out", help="the JSON file to write (- for standard output)")
    p.add_argument("--nvcc", help="nvcc to build with (default: <cuda-root>/bin/nvcc)")
    p.add_argument("--arch", default="90", help="the compute capability to build for (default 90)")
    p.set_defaults(run=record)
    p = sub.add_parser("source", help="write the program only")
    p.add_argument("out")
    p.set_defaults(run=source)
    p = sub.add_parser("compare", help="list the answers that differ between two JSON files")
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--free-memory-tolerance", type=int, help="bytes by which mem_info.free may differ")
    p.set_defaults(run=compare)
    p = sub.add_parser("check-cpu-mode", help="CPU execution mode's answers against a recording or this GPU's")
    p.add_argument("program", help="the program (record_gpu_answers.py source) built in CPU execution mode")
    p.add_argument("--against", required=True, help="a recording (.json), or this-gpu")
    p.add_argument("--arch", default="90", help="the compute capability nvcc builds for (this-gpu)")
    p.add_argument("--nvcc", help="nvcc to build with (this-gpu; default: found beside --cuda-root or on the PATH)")
    p.set_defaults(run=check_cpu_mode)
    p = sub.add_parser("check-types", help="CPU execution mode's declarations against CUDA's")
    p.add_argument("include_dir", help="CPU execution mode's include directory (grader/cpu/include)")
    p.set_defaults(run=check_types)
    p = sub.add_parser("header", help="write CPU execution mode's copy of those declarations")
    p.add_argument("out")
    p.set_defaults(run=header)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()

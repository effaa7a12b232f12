// gpulab-cu2cpp: turns a CUDA C++ file into C++ that g++ compiles against the CPU runtime.
//
//   gpulab-cu2cpp <in.cu> <out.cpp>
//
// Only what is not C++ is rewritten, in place, never adding or removing a line (a `#line 1 "<in.cu>"` at the
// top then makes diagnostics and __FILE__/__LINE__ point at the student's file and line):
//   * launches  k<<<g, b[, shmem[, stream]]>>>(args)  (also k<T, 4>, ns::k, obj.k, (expr), split over lines)
//       -> ::gpulab::cpu::make_launcher("k", __FILE__, __LINE__, k, g, b, shmem, stream)(args)
//     and, where k is a kernel template of this file (`template <...> __global__ ... k(`), whose template
//     arguments the launch's arguments deduce as in a call:
//       -> ::gpulab::cpu::make_launcher("k", __FILE__, __LINE__, [](auto... a) { k(a...); }, g, b, ...)(args)
//   * static `__shared__ T a[N];` in a function -> `typedef T a_gpulab_shared_t_[N];` and a reference `a` to the
//       worker's slot for this declaration in its guarded shared arena (one element past the end faults and is
//       reported as such), poisoned (0xFF) by the first thread of every block that reaches it (device.h);
//       at file scope -> per-worker `static thread_local` storage, poisoned at every block start
//   * `extern __shared__ T a[];`   -> `T* const a` pointing at the block's dynamic shared buffer
//   * inline PTX `asm(...)`         -> a static_assert naming the construct (unsupported)
//   * `__CUDA_ARCH__` in the body of a __global__ or __device__ function -> GPULAB_CPU_CUDA_ARCH (900), as nvcc's
//       device pass sees it; anywhere else (a __host__ __device__ function, file scope, host code, a #define)
//       the build fails with a message saying why (rewrite_cuda_arch)
//   * code that asks which mode it runs in (GPULAB_CPU_MODE, <gpulab_cpu/...>, `#ifdef threadIdx`, macros nvcc
//       defines in its device pass alone besides __CUDA_ARCH__): the build fails with a message saying why
//       (refuse_mode_question); __CUDACC__, __NVCC__ and nvcc's other macros of both passes come from prelude.h
// `__global__`, `__device__`, `__constant__`, `__host__`... are macros of the CPU runtime headers.
// This is a token-level rewriter, not a parser: it skips comments, string/char literals and (except for
// launches inside #define) preprocessor directives, and tracks braces to tell file scope from function scope.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Token {
  enum Kind { Ident, Number, String, Char, Punct, DirectiveEnd } kind;
  size_t pos, len;
  std::string text;
  bool directive;  // inside a preprocessor directive
};

struct Edit {
  size_t pos, len;
  std::string text;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

[[noreturn]] void die(const std::string& file, const std::string& src, size_t pos, const std::string& msg) {
  int line = 1 + static_cast<int>(std::count(src.begin(), src.begin() + static_cast<long>(pos), '\n'));
  std::cerr << file << ":" << line << ": error: gpulab-cu2cpp: " << msg << "\n";
  std::exit(1);
}

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> toks;
  size_t i = 0, n = s.size();
  bool line_start = true, in_directive = false;
  auto push = [&](Token::Kind k, size_t b, size_t e) {
    toks.push_back(Token{k, b, e - b, s.substr(b, e - b), in_directive});
  };
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      if (in_directive) {
        in_directive = false;
        toks.push_back(Token{Token::DirectiveEnd, i, 0, "", true});
      }
      line_start = true;
      ++i;
      continue;
    }
    if (c == '\\' && (i + 1 < n) && (s[i + 1] == '\n' || (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n'))) {
      i += s[i + 1] == '\n' ? 2 : 3;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') ++i;  // continued comment line
        ++i;
      }
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 2;
      continue;
    }
    if (c == '#' && line_start) {
      in_directive = true;
      line_start = false;
      push(Token::Punct, i, i + 1);
      ++i;
      continue;
    }
    line_start = false;
    size_t b = i;
    if (ident_start(c)) {
      while (i < n && ident_char(s[i])) ++i;
      std::string id = s.substr(b, i - b);
      if (i < n && s[i] == '"' && (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR")) {
        size_t open = s.find('(', i);
        std::string delim = s.substr(i + 1, open - i - 1);
        size_t close = s.find(")" + delim + "\"", open);
        i = close == std::string::npos ? n : close + delim.size() + 2;
        push(Token::String, b, i);
        continue;
      }
      if (i < n && (s[i] == '"' || s[i] == '\'') && (id == "u8" || id == "u" || id == "U" || id == "L")) {
        c = s[i];  // prefixed literal: fall through to the literal scanner below
      } else {
        push(Token::Ident, b, i);
        continue;
      }
    }
    if (c == '"' || c == '\'') {
      char q = s[i++];
      while (i < n && s[i] != q && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
      i = std::min(n, i + 1);
      push(q == '"' ? Token::String : Token::Char, b, i);
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < n) {
        char d = s[i];
        if (ident_char(d) || d == '.' || d == '\'') {
          ++i;
        } else if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P')) {
          ++i;
        } else {
          break;
        }
      }
      push(Token::Number, b, i);
      continue;
    }
    static const char* multi[] = {"<<<", ">>>", "::", "->"};
    size_t len = 1;
    for (const char* m : multi) {
      size_t ml = std::char_traits<char>::length(m);
      if (s.compare(i, ml, m) == 0) {
        len = ml;
        break;
      }
    }
    i += len;
    push(Token::Punct, b, i);
  }
  if (in_directive) toks.push_back(Token{Token::DirectiveEnd, n, 0, "", true});
  return toks;
}

class Rewriter {
 public:
  Rewriter(std::string file, std::string src) : file_(std::move(file)), src_(std::move(src)), t_(tokenize(src_)) {}

  std::string run() {
    compute_scopes();
    find_kernel_templates();
    find_device_bodies();
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& tk = t_[i];
      refuse_mode_question(i);
      if (tk.kind == Token::Ident && tk.text == "__CUDA_ARCH__") {
        rewrite_cuda_arch(i);
      } else if (tk.kind == Token::Punct && tk.text == "<<<") {
        rewrite_launch(i);
      } else if (tk.kind == Token::Ident && !tk.directive && tk.text == "__shared__") {
        rewrite_shared(i);
      } else if (tk.kind == Token::Ident && !tk.directive && (tk.text == "asm" || tk.text == "__asm__" || tk.text == "__asm")) {
        rewrite_asm(i);
      } else if (tk.kind == Token::Ident && !tk.directive && tk.text == "clock") {
        rewrite_device_clock(i);
      }
    }
    return apply();
  }

 private:
  bool is(size_t i, const char* text) const { return i < t_.size() && t_[i].text == text && t_[i].kind != Token::String; }

  // For every token: whether it is at file (namespace) scope, from a stack of brace kinds.
  void compute_scopes() {
    file_scope_.assign(t_.size(), true);
    std::vector<bool> stack;  // true: a brace that keeps file scope (namespace, extern "C")
    int function_depth = 0;
    size_t stmt_begin = 0;
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& tk = t_[i];
      file_scope_[i] = function_depth == 0;
      if (tk.directive) continue;
      if (tk.text == "{" && tk.kind == Token::Punct) {
        bool keeps = false;
        if (i >= 2 && t_[i - 1].kind == Token::String && is(i - 2, "extern")) keeps = true;
        for (size_t j = stmt_begin; j < i && !keeps; ++j)
          if (!t_[j].directive && t_[j].kind == Token::Ident && t_[j].text == "namespace") keeps = true;
        stack.push_back(keeps);
        if (!keeps) ++function_depth;
        stmt_begin = i + 1;
      } else if (tk.text == "}" && tk.kind == Token::Punct) {
        if (!stack.empty()) {
          if (!stack.back()) --function_depth;
          stack.pop_back();
        }
        stmt_begin = i + 1;
      } else if (tk.text == ";" && tk.kind == Token::Punct) {
        stmt_begin = i + 1;
      }
    }
  }

  // Index of the token matching the bracket at i, scanning forward (open) or backward (close).
  size_t match(size_t i, const char* open, const char* close, int dir) const {
    int depth = 0;
    for (size_t j = i; j < t_.size(); j += dir) {
      if (t_[j].kind == Token::Punct) {
        if (t_[j].text == (dir > 0 ? open : close)) ++depth;
        else if (t_[j].text == (dir > 0 ? close : open) && --depth == 0) return j;
      }
      if (dir < 0 && j == 0) break;
    }
    die(file_, src_, t_[i].pos, std::string("unbalanced '") + (dir > 0 ? open : close) + "'");
  }

  std::string text(size_t b, size_t e) const { return src_.substr(t_[b].pos, t_[e].pos + t_[e].len - t_[b].pos); }

  std::string newlines_in(size_t b, size_t e) const {
    return std::string(static_cast<size_t>(std::count(src_.begin() + static_cast<long>(b), src_.begin() + static_cast<long>(e), '\n')), '\n');
  }

  // The names of kernel templates: `template <...>` (then specifiers) `__global__` ... name `(`.
  void find_kernel_templates() {
    for (size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].directive || t_[i].kind != Token::Ident || t_[i].text != "__global__") continue;
      size_t j = i;
      while (j > 0 && t_[j - 1].kind == Token::Ident && !t_[j - 1].directive &&
             (t_[j - 1].text == "static" || t_[j - 1].text == "inline" || t_[j - 1].text == "__forceinline__"))
        --j;
      if (j == 0 || !is(j - 1, ">")) continue;
      const size_t open = match(j - 1, "<", ">", -1);
      if (open == 0 || !is(open - 1, "template")) continue;
      std::string name;
      for (size_t k = i + 1; k < t_.size(); ++k) {
        if (is(k, "__launch_bounds__") && is(k + 1, "(")) {
          k = match(k + 1, "(", ")", 1);
          continue;
        }
        if (is(k, "(")) break;
        if (t_[k].kind == Token::Ident) name = t_[k].text;
      }
      if (!name.empty()) kernel_templates_.push_back(name);
    }
  }

  // The bodies of functions (and lambdas) declared __global__ or __device__: [open brace, close brace], and
  // whether the declaration says __host__ too (nvcc compiles those twice, once per side).
  struct DeviceBody {
    size_t open, close;
    bool host_too;
  };

  void find_device_bodies() {
    const size_t n = t_.size(), none = static_cast<size_t>(-1);
    for (size_t i = 0; i < n; ++i) {
      if (t_[i].directive || t_[i].kind != Token::Ident || (t_[i].text != "__global__" && t_[i].text != "__device__"))
        continue;
      // The parameter list: the first '(' that does not open an attribute or a sizeof-like group. A ';', '=',
      // '{' or '}' first: a variable (`__device__ int x = f(1);`), not a function.
      size_t k = i + 1;
      bool function = false;
      for (; k < n; ++k) {
        if (t_[k].directive) continue;
        if (is(k, ";") || is(k, "=") || is(k, "{") || is(k, "}")) break;
        if (!is(k, "(")) continue;
        static const char* groups[] = {"__launch_bounds__", "__align__", "alignas", "__attribute__", "decltype",
                                       "sizeof", "alignof", "__declspec", "operator"};
        bool group = false;
        for (const char* g : groups) group = group || is(k - 1, g);
        if (group) {
          k = match(k, "(", ")", 1);
          continue;
        }
        function = true;
        break;
      }
      if (!function) continue;
      // After the parameters: qualifiers, a trailing return type, a constructor's initialisers, then the body.
      size_t m = match(k, "(", ")", 1) + 1;
      bool initialisers = false;
      for (; m < n; ++m) {
        if (t_[m].directive) continue;
        if (is(m, ";") || is(m, "=") || is(m, "}")) {
          m = none;
          break;
        }
        if (is(m, "(")) {
          m = match(m, "(", ")", 1);
        } else if (is(m, "[")) {
          m = match(m, "[", "]", 1);
        } else if (is(m, ":")) {
          initialisers = true;
        } else if (is(m, "{")) {
          if (initialisers && (t_[m - 1].kind == Token::Ident || is(m - 1, ">"))) {
            m = match(m, "{", "}", 1);  // a member's brace initialiser
            continue;
          }
          break;
        }
      }
      if (m == none || m >= n) continue;
      bool host = false;
      for (size_t j = statement_begin(i); j < k; ++j) host = host || (!t_[j].directive && is(j, "__host__"));
      device_bodies_.push_back({m, match(m, "{", "}", 1), host});
    }
  }

  // `clock()` in device code is the GPU's cycle counter (CUDA 13: the same 64-bit count as clock64()), in host code
  // the C library's processor time. nvcc picks by the pass (`::clock` and `std::clock` name the same __host__
  // __device__ function); CPU execution mode compiles once, so inside the body of a __global__ or __device__ function
  // (not __host__ __device__: both callers share it) the call becomes the runtime's device clock.
  void rewrite_device_clock(size_t i) {
    if (!is(i + 1, "(") || !is(i + 2, ")")) return;
    if (i > 0 && (is(i - 1, ".") || is(i - 1, "->"))) return;  // a member named clock
    size_t from = i;
    if (i > 0 && is(i - 1, "::")) {
      from = i - 1;
      if (i > 1 && t_[i - 2].kind == Token::Ident) {
        if (t_[i - 2].text != "std") return;  // another namespace's clock
        from = i - 2;
      }
    }
    for (const DeviceBody& b : device_bodies_)
      if (b.open < i && i < b.close && !b.host_too) {
        edits_.push_back({t_[from].pos, t_[i].pos + t_[i].len - t_[from].pos, "::gpulab::cpu::device_clock"});
        return;
      }
  }

  // `__CUDA_ARCH__` (issue 34): device code must see it as nvcc's device pass does, or be refused. Inside the
  // body of a __global__ or __device__-only function it becomes GPULAB_CPU_CUDA_ARCH (900 unless the build
  // says otherwise: Hopper, the course's GPUs), in directives and code alike. Anywhere else CPU execution
  // mode cannot give nvcc's answer, because it compiles each function once where nvcc compiles twice:
  //   * in a __host__ __device__ function, nvcc's device pass sees it defined and its host pass does not,
  //     and the one CPU-mode copy serves both callers;
  //   * at file scope or in host code, whatever it guards (macros, whole functions) is one thing in the
  //     device pass and another in the host pass, and CPU mode has only one;
  //   * a macro defined from it (`#define ARCH __CUDA_ARCH__`) takes the value of wherever it is used.
  // Those fail the build here with a message naming the construct; headers this tool never sees are caught
  // by the `#pragma GCC poison __CUDA_ARCH__` of gpulab_cpu/prelude.h.
  void rewrite_cuda_arch(size_t i) {
    if (t_[i].directive) {
      size_t d = i;
      while (d > 0 && t_[d - 1].directive && t_[d - 1].kind != Token::DirectiveEnd) --d;
      if (is(d + 1, "define") || is(d + 1, "undef"))
        die(file_, src_, t_[i].pos,
            "gpulab CPU execution mode: a macro defined or undefined with __CUDA_ARCH__ is not supported (its value "
            "would depend on where it is used); test __CUDA_ARCH__ directly inside a __global__ or __device__ "
            "function's body");
    }
    const DeviceBody* inner = nullptr;
    for (const DeviceBody& b : device_bodies_)
      if (b.open < i && i < b.close && (!inner || b.open > inner->open)) inner = &b;
    if (!inner)
      die(file_, src_, t_[i].pos,
          "gpulab CPU execution mode: __CUDA_ARCH__ outside the body of a __global__ or __device__ function is not "
          "supported: nvcc's device pass sees it defined and its host pass does not, so the code it guards would be "
          "one thing on the GPU and another in CPU execution mode, which compiles it once; test it only inside a "
          "kernel's or a __device__ function's body");
    if (inner->host_too)
      die(file_, src_, t_[i].pos,
          "gpulab CPU execution mode: __CUDA_ARCH__ in a __host__ __device__ function is not supported: nvcc "
          "compiles such a function twice (with __CUDA_ARCH__ for the GPU, without it for the host), CPU execution "
          "mode once for both callers; move the device side into a __device__ function");
    edits_.push_back({t_[i].pos, t_[i].len, "GPULAB_CPU_CUDA_ARCH"});
  }

  // Code that asks which mode it runs in (issue 34, item 3): a kernel could compute one way on the GPU and
  // another in CPU execution mode, where every read count is taken. Refused, in directives and code alike:
  //   * the grader's and the CPU runtime's own names: GPULAB_CPU_MODE and every GPULAB_CPU_* macro,
  //     <gpulab_cpu/...> headers (`__has_include`), the namespace gpulab::cpu;
  //   * whether a name the CPU runtime defines as a macro and nvcc does not (threadIdx, __syncthreads, its
  //     GPULAB_* helpers...) is defined: `#ifdef threadIdx`, `defined(__syncthreads)`;
  //   * macros nvcc defines in its device pass alone, besides __CUDA_ARCH__ (rewrite_cuda_arch):
  //     CUDA_DOUBLE_MATH_FUNCTIONS and the include guards of the device-side CUDA headers (__SM_90_RT_HPP__,
  //     __CUDA_AND_AT_LEAST_SM_70__...), which would tell the device pass apart like __CUDA_ARCH__ does.
  // What nvcc defines in both passes (__CUDACC__, __NVCC__, __CUDACC_VER_MAJOR__...) is defined the same way by
  // gpulab_cpu/prelude.h, which also poisons GPULAB_CPU_MODE for headers this tool never sees.
  static bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
  static bool ends_with(const std::string& s, const char* p) {
    const size_t n = std::char_traits<char>::length(p);
    return s.size() >= n && s.compare(s.size() - n, n, p) == 0;
  }

  static bool cpu_only_macro(const std::string& s) {
    static const char* names[] = {
        "threadIdx", "blockIdx", "blockDim", "gridDim", "__syncthreads", "__syncthreads_and", "__syncthreads_count",
        "__syncthreads_or", "__trap", "__brkpt", "__noinline__", "atomicAdd_block", "atomicAdd_system",
        "atomicCAS_block", "atomicExch_block", "atomicMax_block", "atomicMin_block", "GPULAB_SHARED_SITE",
        "GPULAB_UNSUPPORTED_MSG", "GPULAB_UNSUPPORTED_TEX_FN", "GPULAB_UNSUPPORTED_TYPE",
        "GPULAB_UNSUPPORTED_WARP_FN", "GPULAB_VEC1", "GPULAB_VEC2", "GPULAB_VEC3", "GPULAB_VEC4", "GPULAB_VECS",
        "GPULAB_MINMAX", "GPULAB_ATOMIC_INT"};
    for (const char* n : names)
      if (s == n) return true;
    return false;
  }

  static bool device_pass_only_macro(const std::string& s) {
    return s == "CUDA_DOUBLE_MATH_FUNCTIONS" || s == "__DEVICE_ATOMIC_FUNCTIONS_HPP__" ||
           (starts_with(s, "__SM_") && ends_with(s, "_HPP__")) || starts_with(s, "__CUDA_AND_AT_LEAST_SM_");
  }

  void refuse_mode_question(size_t i) {
    const Token& tk = t_[i];
    static const std::string why =
        ": CPU execution mode runs your code exactly as the GPU does; code that asks which mode it runs in is not "
        "accepted";
    // The runtime's own names, also as a string (an #include path; an alias or weakref attribute naming a symbol,
    // "_ZN6gpulab3cpu..." mangled) and within an identifier (a mangled name declared extern "C" and weak, whose
    // address is null where the runtime is absent; `namespace g = gpulab;` before g::cpu::...).
    if (tk.kind == Token::String &&
        (tk.text.find("gpulab_cpu") != std::string::npos || tk.text.find("gpulab3cpu") != std::string::npos))
      die(file_, src_, tk.pos, "gpulab CPU execution mode: " + tk.text + why);
    if (tk.kind != Token::Ident) return;
    if (starts_with(tk.text, "GPULAB_CPU") || starts_with(tk.text, "gpulab_cpu"))
      die(file_, src_, tk.pos, "gpulab CPU execution mode: " + tk.text + why);
    if (tk.text == "gpulab" && is(i + 1, "::") && is(i + 2, "cpu"))
      die(file_, src_, tk.pos, "gpulab CPU execution mode: gpulab::cpu" + why);
    if (tk.text.find("gpulab") != std::string::npos)
      die(file_, src_, tk.pos, "gpulab CPU execution mode: " + tk.text + " (a name of the grader's and of CPU "
                               "execution mode's runtime)" + why);
    if (device_pass_only_macro(tk.text))
      die(file_, src_, tk.pos,
          "gpulab CPU execution mode: " + tk.text +
              " is not supported: nvcc defines it in its device pass only, so the code it guards would be one thing "
              "on the GPU and another in CPU execution mode; test __CUDA_ARCH__ inside a kernel's or a __device__ "
              "function's body instead");
    if (tk.directive && cpu_only_macro(tk.text)) {
      size_t d = i;
      while (d > 0 && t_[d - 1].directive && t_[d - 1].kind != Token::DirectiveEnd) --d;
      const bool tested = (i == d + 2 && (is(d + 1, "ifdef") || is(d + 1, "ifndef"))) || is(i - 1, "defined") ||
                          (is(i - 1, "(") && is(i - 2, "defined"));
      if (tested)
        die(file_, src_, tk.pos,
            "gpulab CPU execution mode: testing whether " + tk.text +
                " is defined is not accepted: it is a macro in CPU execution mode and not under nvcc" + why);
    }
  }

  bool is_kernel_template(const std::string& name) const {
    return std::find(kernel_templates_.begin(), kernel_templates_.end(), name) != kernel_templates_.end();
  }

  void rewrite_launch(size_t i) {
    // The kernel expression before <<<: (ns::)*name(<template args>)?, member access, or (expr).
    if (i == 0) die(file_, src_, t_[i].pos, "'<<<' without a kernel name");
    size_t j = i - 1, start;
    for (;;) {
      if (is(j, ")")) {
        start = match(j, "(", ")", -1);
        break;
      }
      if (is(j, ">")) j = match(j, "<", ">", -1) - 1;
      if (t_[j].kind != Token::Ident) die(file_, src_, t_[i].pos, "cannot find the kernel name before '<<<'");
      start = j;
      const bool qualified = j >= 2 && (is(j - 1, "::") || is(j - 1, ".") || is(j - 1, "->")) &&
                             (t_[j - 2].kind == Token::Ident || is(j - 2, ">"));
      if (qualified) {
        j -= 2;
        continue;
      }
      if (j >= 1 && is(j - 1, "::")) start = j - 1;  // ::kernel (global namespace)
      break;
    }
    // The configuration up to the matching >>> (at bracket depth 0).
    size_t k = i + 1;
    int depth = 0;
    for (; k < t_.size(); ++k) {
      const std::string& x = t_[k].text;
      if (t_[k].kind != Token::Punct) continue;
      if (x == "(" || x == "[" || x == "{") ++depth;
      else if (x == ")" || x == "]" || x == "}") --depth;
      else if (x == ">>>" && depth == 0) break;
    }
    if (k == t_.size()) die(file_, src_, t_[i].pos, "'<<<' without a matching '>>>'");
    if (!is(k + 1, "(")) die(file_, src_, t_[k].pos, "kernel launch without an argument list after '>>>'");
    std::string name;
    for (size_t m = start; m < i; ++m) name += t_[m].text;
    std::string quoted;
    for (char c : name) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    // The kernel's own name: the last identifier before any template argument list.
    std::string own;
    for (size_t m = start; m < i && !is(m, "<"); ++m)
      if (t_[m].kind == Token::Ident) own = t_[m].text;
    const bool deduced = !is(start, "(") && is_kernel_template(own);
    edits_.push_back({t_[start].pos, 0,
                      "::gpulab::cpu::make_launcher(\"" + quoted + "\", __FILE__, __LINE__, " +
                          (deduced ? "[](auto... gpulab_kernel_args) { " : "")});
    edits_.push_back({t_[i].pos, t_[i].len, deduced ? "(gpulab_kernel_args...); }, " : ", "});
    edits_.push_back({t_[k].pos, t_[k].len, ")"});
  }

  size_t statement_begin(size_t i) const {
    size_t s = i;
    while (s > 0) {
      const Token& p = t_[s - 1];
      if (p.kind == Token::DirectiveEnd || (p.kind == Token::Punct && (p.text == ";" || p.text == "{" || p.text == "}")))
        break;
      if (p.directive) break;
      --s;
    }
    return s;
  }

  size_t statement_end(size_t i) const {
    int depth = 0;
    for (size_t k = i; k < t_.size(); ++k) {
      if (t_[k].kind != Token::Punct) continue;
      const std::string& x = t_[k].text;
      if (x == "(" || x == "[" || x == "{") ++depth;
      else if (x == ")" || x == "]" || x == "}") --depth;
      else if (x == ";" && depth == 0) return k;
    }
    die(file_, src_, t_[i].pos, "__shared__ declaration without ';'");
  }

  void rewrite_shared(size_t i) {
    size_t s = statement_begin(i), e = statement_end(i);
    bool is_extern = false, has_static = false;
    for (size_t k = s; k < e; ++k) {
      if (is(k, "extern")) is_extern = true;
      if (is(k, "static")) has_static = true;
    }
    const bool file_scope = file_scope_[i];
    if (is_extern) {
      // extern __shared__ T name[];  ->  T* const name = <dynamic shared buffer>;
      size_t close = e - 1, open;
      if (!is(close, "]")) die(file_, src_, t_[i].pos, "extern __shared__ declaration must end in 'name[]'");
      open = match(close, "[", "]", -1);
      if (open == 0 || t_[open - 1].kind != Token::Ident) die(file_, src_, t_[i].pos, "cannot find the name of an extern __shared__ array");
      size_t name_idx = open - 1;
      std::string type;
      for (size_t k = s; k < name_idx; ++k) {
        if (is(k, "extern") || is(k, "__shared__") || is(k, "static")) continue;
        if ((is(k, "__align__") || is(k, "alignas")) && is(k + 1, "(")) {
          k = match(k + 1, "(", ")", 1);
          continue;
        }
        if (!type.empty()) type += ' ';
        type += t_[k].text;
      }
      const std::string& name = t_[name_idx].text;
      std::string repl = file_scope
                             ? "static ::gpulab::cpu::DynamicShared<" + type + "> " + name + ";"
                             : type + "* const " + name + " = reinterpret_cast<" + type +
                                   "*>(::gpulab::cpu::dynamic_shared_memory());";
      size_t b = t_[s].pos, end = t_[e].pos + 1;
      edits_.push_back({b, end - b, repl + newlines_in(b, end)});
      return;
    }
    const auto too_big = [](const std::string& name, const std::string& type) {
      // ptxas refuses a kernel with more than 48 KB of static shared memory: CPU mode must not accept what a
      // GPU build rejects (checked per array; the GPU's limit is per kernel).
      return " static_assert(sizeof(" + type + ") <= 48 * 1024, \"__shared__ " + name +
             " is larger than 48 KB: static shared memory is limited to 48 KB per block (a GPU build fails with "
             "'ptxas error: uses too much shared data'); use a smaller tile\");";
    };
    if (file_scope) {
      // File scope: same declaration, per-worker thread_local storage, poisoned at every block start.
      edits_.push_back({t_[s].pos, 0, has_static ? "thread_local " : "static thread_local "});
      edits_.push_back({t_[i].pos, t_[i].len, ""});
      std::string after;
      for (const auto& d : declarators(s, e))
        after += too_big(d.first, d.first) + " static ::gpulab::cpu::SharedRegistrar " + d.first +
                 "_gpulab_reg_([]() { return ::gpulab::cpu::SharedRegion{(void*)&" + d.first + ", sizeof(" + d.first +
                 ")}; });";
      edits_.push_back({t_[e].pos + 1, 0, after});
      return;
    }
    // In a function: the declaration becomes a typedef of each declarator's type (the same tokens, names
    // renamed), and each name a per-worker reference to this worker's slot for it in the guarded shared arena
    // (gpulab_cpu/device.h, shared_memory.h); the slot is poisoned by the first thread of every block that
    // gets here. All on the declaration's own line.
    const auto decls = declarators(s, e);
    if (decls.empty()) die(file_, src_, t_[i].pos, "cannot find the name declared by this __shared__ declaration");
    edits_.push_back({t_[s].pos, 0, "typedef "});
    for (size_t k = s; k < e; ++k) {
      if (is(k, "static") || is(k, "__shared__")) {
        edits_.push_back({t_[k].pos, t_[k].len, ""});
      } else if (is(k, "alignas") && is(k + 1, "(")) {
        // A typedef takes no alignas: the GNU attribute does the same (align_of<> accepts a type or a value).
        const size_t close = match(k + 1, "(", ")", 1);
        const size_t b = t_[k].pos, end = t_[close].pos + 1;
        edits_.push_back({b, end - b,
                          "__attribute__((aligned(::gpulab::cpu::align_of<" + text(k + 2, close - 1) + ">())))" +
                              newlines_in(b, end)});
        k = close;
      }
    }
    std::string after;
    for (const auto& [name, idx] : decls) {
      const std::string type = name + "_gpulab_shared_t_", site = name + "_gpulab_site_";
      edits_.push_back({t_[idx].pos, t_[idx].len, type});
      // The reference has static storage, like the __shared__ variable it stands for: a lambda uses it
      // without capturing it (a local reference would be captured, and [=] would copy the array). Bound once
      // per worker; the statement before it poisons the slot once per block.
      after += too_big(name, type) + " static ::gpulab::cpu::SharedSite " + site + "{GPULAB_SHARED_SITE(" + type +
               ", " + name + ")}; (void)::gpulab::cpu::shared_slot(" + site + "); static thread_local " + type + "& " +
               name + " = *(" + type + "*)::gpulab::cpu::shared_slot(" + site + ");";
    }
    edits_.push_back({t_[e].pos + 1, 0, after});
  }

  // Names declared by the declaration [s, e), with the index of each name's token: for each top-level
  // comma-separated declarator, the last identifier before its first '[', '=' or '{'.
  std::vector<std::pair<std::string, size_t>> declarators(size_t s, size_t e) const {
    std::vector<std::pair<std::string, size_t>> names;
    size_t last = 0;
    bool have = false, done = false;
    int depth = 0;
    for (size_t k = s; k <= e; ++k) {
      const Token& tk = t_[k];
      if (tk.kind == Token::Punct) {
        if (depth == 0 && (tk.text == "," || tk.text == ";")) {
          if (have) names.emplace_back(t_[last].text, last);
          have = done = false;
          continue;
        }
        if (depth == 0 && (tk.text == "[" || tk.text == "=" || tk.text == "{")) done = true;
        if (tk.text == "(" || tk.text == "[" || tk.text == "{") ++depth;
        if (tk.text == ")" || tk.text == "]" || tk.text == "}") --depth;
      } else if (tk.kind == Token::Ident && depth == 0 && !done && tk.text != "__shared__") {
        last = k;
        have = true;
      }
    }
    return names;
  }

  void rewrite_asm(size_t i) {
    size_t k = i + 1;
    while (is(k, "volatile") || is(k, "__volatile__") || is(k, "goto") || is(k, "inline")) ++k;
    if (!is(k, "(")) return;
    size_t close = match(k, "(", ")", 1);
    size_t b = t_[i].pos, end = t_[close].pos + 1;
    edits_.push_back({b, end - b,
                      "static_assert(false, \"gpulab CPU execution mode: inline PTX assembly (asm) is not supported "
                      "(run this kernel on a GPU, or avoid it)\")" +
                          newlines_in(b, end)});
  }

  std::string apply() {
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) { return a.pos < b.pos; });
    std::string out;
    size_t cur = 0;
    for (const Edit& ed : edits_) {
      if (ed.pos < cur) die(file_, src_, ed.pos, "overlapping rewrites (nested CUDA constructs it cannot handle)");
      out.append(src_, cur, ed.pos - cur);
      out += ed.text;
      cur = ed.pos + ed.len;
    }
    out.append(src_, cur, std::string::npos);
    return out;
  }

  std::string file_, src_;
  std::vector<Token> t_;
  std::vector<bool> file_scope_;
  std::vector<Edit> edits_;
  std::vector<std::string> kernel_templates_;
  std::vector<DeviceBody> device_bodies_;
};

std::string escape_path(const std::string& p) {
  std::string r;
  for (char c : p) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gpulab-cu2cpp <in.cu> <out.cpp>\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "gpulab-cu2cpp: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string out = Rewriter(argv[1], ss.str()).run();
  std::string tmp = std::string(argv[2]) + ".tmp";
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(argv[2]).parent_path(), ec);
  {
    std::ofstream o(tmp, std::ios::binary);
    o << "#include <gpulab_cpu/prelude.h>\n#line 1 \"" << escape_path(argv[1]) << "\"\n" << out;
    if (!o) {
      std::cerr << "gpulab-cu2cpp: cannot write " << tmp << "\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[2]) != 0) {
    std::cerr << "gpulab-cu2cpp: cannot rename " << tmp << " to " << argv[2] << "\n";
    return 1;
  }
  return 0;
}

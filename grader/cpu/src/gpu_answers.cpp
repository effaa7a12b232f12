// The answers CPU execution mode gives about the device (gpu_answers.h): which GPU's, and looking one up.
#include "gpu_answers.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace gpulab::cpu {

void GpuAnswers::set_attribute(int attr, Answer a) {
  if (attr < 0) return;
  if (static_cast<size_t>(attr) >= attributes.size()) {
    attributes.resize(attr + 1);
    named.resize(attr + 1, false);
  }
  if (!named[attr]) attribute_ids.push_back(attr);
  named[attr] = true;
  attributes[attr] = a;
}

Answer GpuAnswers::attribute(int attr) const {
  if (attr < 0 || static_cast<size_t>(attr) >= attributes.size() || !named[attr]) return failed(unknown_attribute);
  return attributes[attr];
}

int GpuAnswers::attribute_or(int attr, int fallback) const {
  const Answer a = attribute(attr);
  return a.ok ? static_cast<int>(a.value) : fallback;
}

void GpuAnswers::set_limit(int limit, Answer a) {
  if (limit < 0) return;
  if (static_cast<size_t>(limit) >= limits.size()) limits.resize(limit + 1, failed(cudaErrorUnsupportedLimit));
  limits[limit] = a;
}

Answer GpuAnswers::limit(int limit) const {
  if (limit < 0 || static_cast<size_t>(limit) >= limits.size()) return failed(cudaErrorUnsupportedLimit);
  return limits[limit];
}

size_t GpuAnswers::pitch_for(size_t width) const {
  // The recorded pitch of the narrowest row is the alignment (512 bytes on an H100: widths 1 to 512 give 512,
  // 513 gives 1024); a test checks that every recorded width's pitch follows from it.
  size_t alignment = 512;
  const auto narrowest = std::min_element(pitches.begin(), pitches.end(),
                                          [](const Pitch& a, const Pitch& b) { return a.width < b.width; });
  if (narrowest != pitches.end() && narrowest->pitch) alignment = narrowest->pitch;
  return (width + alignment - 1) / alignment * alignment;
}

const ErrorWords* GpuAnswers::words_of(int code) const {
  const auto at = std::lower_bound(errors.begin(), errors.end(), code,
                                   [](const ErrorWords& w, int c) { return w.code < c; });
  return at != errors.end() && at->code == code ? &*at : nullptr;
}

void GpuAnswers::sort_errors() {
  std::sort(errors.begin(), errors.end(), [](const ErrorWords& a, const ErrorWords& b) { return a.code < b.code; });
}

void set_text(char* dst, size_t size, const char* text) {
  std::memset(dst, 0, size);
  std::strncpy(dst, text, size - 1);
}

void set_bytes(char* dst, size_t size, const char* hex) {
  std::memset(dst, 0, size);
  for (size_t i = 0; i < size && hex[2 * i] && hex[2 * i + 1]; ++i) {
    unsigned byte = 0;
    std::sscanf(hex + 2 * i, "%2x", &byte);
    dst[i] = static_cast<char>(byte);
  }
}

const GpuAnswers& gpu_answers() {
  static const GpuAnswers answers = [] {
    GpuAnswers live;
    std::string why;
    if (read_this_machines_gpu(&live, &why)) return live;
    GpuAnswers recorded = recorded_answers();
    recorded.origin += "; no GPU here to ask: " + why;
    return recorded;
  }();
  return answers;
}

}  // namespace gpulab::cpu

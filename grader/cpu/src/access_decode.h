// Decoding the memory accesses of the instruction that faulted (read_count.cpp), with Capstone.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpulab::cpu {

struct MemAccess {
  uintptr_t addr = 0;  // first byte
  unsigned size = 0;   // bytes
  bool read = false, write = false;
};

// Whether accesses can be decoded here (built with Capstone, x86-64); fills *why when not.
bool access_decoder_available(std::string* why);
// Before a count, outside any signal handler: opens the decoder once and forgets decoded instructions (code
// may have been unloaded and other code loaded at the same addresses since the last count). False (and *why)
// if the decoder cannot be opened.
bool access_decoder_reset(std::string* why);
// From the SIGSEGV handler: the memory operands of the instruction at the context's instruction pointer, with
// their addresses computed from its registers (at most `max`). `fault` and `fault_write` (the faulting address
// and the page fault's write bit) give the direction of the operand at that address wherever Capstone reports
// it otherwise or not at all (Capstone 4 labels many stores as reads: access_decode.cpp). -1: the instruction
// could not be decoded, or one of its addresses cannot be computed from the general registers (a segment base,
// a vector index). Async-signal-safe: no allocation, decoded instructions are cached by address.
int decode_accesses(const void* ucontext, uintptr_t fault, bool fault_write, MemAccess* out, int max);

}  // namespace gpulab::cpu

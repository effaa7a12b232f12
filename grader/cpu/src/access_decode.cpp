// Decoding the memory operands of a faulting instruction (access_decode.h).
//
// Capstone (C API, detail mode) gives each memory operand's base, index, scale, displacement, size and
// direction; the address is computed from the registers of the signal's context. A decoded instruction is
// kept in a direct-mapped table by address, so a kernel's loop pays the decode once per instruction, not
// once per access (about 1 us against 0.05 us for a table hit). The handle, its instruction buffer and the
// table are made before the count starts: cs_disasm_iter() into a preallocated cs_insn allocates nothing.
//
// The direction of the operand that faulted comes from the page fault itself, not from Capstone: Capstone 4
// (Debian's 4.0.2) labels the memory operand of many stores as a read: movups, movupd, movdqa, movq, movlpd,
// movhpd, movlps, movhps, the non-temporal stores, pextr*/extractps, every VEX/EVEX store (vmovsd, vmovups, ...
// vextractf128, vmaskmov), movbe, the x87 stores, and a few read-modify-writes (cmpxchg, cmpxchg8b/16b, rol, ror,
// rcl, rcr) too. g++ -O3 vectorises a double kernel's loop into movlpd/movhpd stores (lab 06's streaming cheat
// at 512^3 stores two planes of its column at once), and CPU mode's atomicAdd(float) is a lock cmpxchg loop: their
// counts said "read, never written". A PROT_NONE page faults with the error code's write bit set for every instruction that
// writes the operand (a plain store and a read-modify-write alike) and clear for one that only reads it: where
// the bit and Capstone disagree about the operand at the faulting address, the bit wins, and Capstone's read
// label of a written operand is kept only for the read-modify-writes above (test_access_count.cpp,
// StoresCapstoneCallsReadsAreCountedAsWrites).
#include "access_decode.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <ucontext.h>

#if defined(GPULAB_HAVE_CAPSTONE) && defined(__x86_64__) && defined(__linux__)
#define GPULAB_DECODE 1
#include <capstone/capstone.h>
#endif

namespace gpulab::cpu {
#if GPULAB_DECODE
namespace {
constexpr int8_t kNone = -1, kRip = -2, kBad = -3;

struct Operand {
  int8_t base = kNone, index = kNone;  // REG_* of the general registers, kNone or kRip
  bool addr32 = false;                 // 32-bit address size (0x67 prefix)
  uint8_t scale = 1, size = 0, access = 0;
  bool rmw = false;  // a read-modify-write Capstone labels read-only (rmw_id)
  int64_t disp = 0;
};
struct Decoded {
  uintptr_t ip = 0;  // 0: empty
  bool ok = false;
  uint8_t insn_size = 0, nops = 0;
  Operand ops[4];
};
constexpr size_t kTable = 8192;  // entries; a kernel has a few dozen memory instructions

csh g_handle = 0;
cs_insn* g_insn = nullptr;
Decoded* g_table = nullptr;
bool g_open = false;
std::atomic_flag g_busy = ATOMIC_FLAG_INIT;  // the handle is one instruction buffer: one decode at a time

// Capstone's register -> the ucontext general-register index, and whether it is a 32-bit name.
int8_t greg_of(x86_reg r, bool* is32) {
  *is32 = false;
  switch (r) {
    case X86_REG_INVALID: return kNone;
    case X86_REG_RIP: return kRip;
    case X86_REG_RAX: return REG_RAX;
    case X86_REG_RBX: return REG_RBX;
    case X86_REG_RCX: return REG_RCX;
    case X86_REG_RDX: return REG_RDX;
    case X86_REG_RSI: return REG_RSI;
    case X86_REG_RDI: return REG_RDI;
    case X86_REG_RBP: return REG_RBP;
    case X86_REG_RSP: return REG_RSP;
    case X86_REG_R8: return REG_R8;
    case X86_REG_R9: return REG_R9;
    case X86_REG_R10: return REG_R10;
    case X86_REG_R11: return REG_R11;
    case X86_REG_R12: return REG_R12;
    case X86_REG_R13: return REG_R13;
    case X86_REG_R14: return REG_R14;
    case X86_REG_R15: return REG_R15;
    default: break;
  }
  *is32 = true;
  switch (r) {
    case X86_REG_EIP: return kRip;
    case X86_REG_EAX: return REG_RAX;
    case X86_REG_EBX: return REG_RBX;
    case X86_REG_ECX: return REG_RCX;
    case X86_REG_EDX: return REG_RDX;
    case X86_REG_ESI: return REG_RSI;
    case X86_REG_EDI: return REG_RDI;
    case X86_REG_EBP: return REG_RBP;
    case X86_REG_ESP: return REG_RSP;
    case X86_REG_R8D: return REG_R8;
    case X86_REG_R9D: return REG_R9;
    case X86_REG_R10D: return REG_R10;
    case X86_REG_R11D: return REG_R11;
    case X86_REG_R12D: return REG_R12;
    case X86_REG_R13D: return REG_R13;
    case X86_REG_R14D: return REG_R14;
    case X86_REG_R15D: return REG_R15;
    default: return kBad;  // a vector index (VSIB), a 16-bit register
  }
}

// Read-modify-writes whose memory operand Capstone 4 labels read-only (the others it labels read and write).
bool rmw_id(unsigned id) {
  switch (id) {
    case X86_INS_CMPXCHG:
    case X86_INS_CMPXCHG8B:
    case X86_INS_CMPXCHG16B:
    case X86_INS_ROL:
    case X86_INS_ROR:
    case X86_INS_RCL:
    case X86_INS_RCR:
      return true;
    default:
      return false;
  }
}

// Decodes the instruction at ip into e. The bytes after the instruction may be unmapped (the end of a code
// segment): try the bytes up to the page's end first, and all 15 only if the instruction continues.
void decode(uintptr_t ip, Decoded& e) {
  e = Decoded{};
  e.ip = ip;
  const uintptr_t to_page_end = 4096 - (ip & 4095);
  bool decoded = false;
  for (size_t len : {to_page_end < 15 ? to_page_end : size_t(15), size_t(15)}) {
    const uint8_t* code = reinterpret_cast<const uint8_t*>(ip);
    size_t size = len;
    uint64_t address = ip;
    if (cs_disasm_iter(g_handle, &code, &size, &address, g_insn)) {
      decoded = true;
      break;
    }
    if (len == 15) break;
  }
  if (!decoded || !g_insn->detail) return;
  const cs_x86& x = g_insn->detail->x86;
  e.insn_size = static_cast<uint8_t>(g_insn->size);
  for (int i = 0; i < x.op_count; ++i) {
    const cs_x86_op& op = x.operands[i];
    if (op.type != X86_OP_MEM) continue;
    if (g_insn->id == X86_INS_LEA || g_insn->id == X86_INS_NOP) continue;  // no access
    if (e.nops == 4) return;
    if (op.mem.segment == X86_REG_FS || op.mem.segment == X86_REG_GS) return;  // a segment base: not ours
    Operand& o = e.ops[e.nops++];
    bool b32 = false, i32 = false;
    o.base = greg_of(op.mem.base, &b32);
    o.index = greg_of(op.mem.index, &i32);
    if (o.base == kBad || o.index == kBad || o.index == kRip) return;
    o.addr32 = b32 || i32;
    o.scale = static_cast<uint8_t>(op.mem.scale);
    o.disp = op.mem.disp;
    o.size = op.size;
    o.access = op.access;
    o.rmw = rmw_id(g_insn->id);
  }
  e.ok = e.nops > 0;
}
}  // namespace

bool access_decoder_available(std::string*) { return true; }

bool access_decoder_reset(std::string* why) {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  if (!g_open) {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &g_handle) != CS_ERR_OK) {
      if (why) *why = "Capstone could not open its x86-64 decoder (cs_open failed)";
      return false;
    }
    cs_option(g_handle, CS_OPT_DETAIL, CS_OPT_ON);
    g_insn = cs_malloc(g_handle);
    g_table = new Decoded[kTable];
    g_open = true;
  }
  for (size_t i = 0; i < kTable; ++i) g_table[i].ip = 0;
  return true;
}

int decode_accesses(const void* ucontext, uintptr_t fault, bool fault_write, MemAccess* out, int max) {
  if (!g_open) return -1;
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  const greg_t* r = uc->uc_mcontext.gregs;
  const auto ip = static_cast<uintptr_t>(r[REG_RIP]);
  Decoded& e = g_table[(ip ^ (ip >> 13)) & (kTable - 1)];
  if (e.ip != ip) {
    if (g_busy.test_and_set(std::memory_order_acquire)) return -1;  // a stray fault on another thread
    decode(ip, e);
    g_busy.clear(std::memory_order_release);
  }
  if (!e.ok) return -1;
  int n = 0;
  bool rmw[4] = {};
  for (int i = 0; i < e.nops && n < max; ++i) {
    const Operand& o = e.ops[i];
    uint64_t a = static_cast<uint64_t>(o.disp);
    if (o.base == kRip) a += ip + e.insn_size;
    else if (o.base != kNone) a += static_cast<uint64_t>(r[o.base]);
    if (o.index != kNone) a += static_cast<uint64_t>(r[o.index]) * o.scale;
    if (o.addr32) a &= 0xFFFFFFFFu;
    MemAccess& m = out[n++];
    m.addr = static_cast<uintptr_t>(a);
    m.size = o.size ? o.size : 1;
    m.read = o.access & CS_AC_READ;
    m.write = o.access & CS_AC_WRITE;
    rmw[n - 1] = o.rmw;
    if (!m.read && !m.write) (fault_write ? m.write : m.read) = true;
  }
  // The operand at the faulting address goes the way the fault went (above). Where two operands hold that
  // address (movs over itself), one that agrees with the fault settles it.
  auto holds_fault = [&](const MemAccess& m) { return fault >= m.addr && fault - m.addr < m.size; };
  bool agrees = false;
  for (int i = 0; i < n; ++i) agrees |= holds_fault(out[i]) && (fault_write ? out[i].write : out[i].read);
  if (!agrees) {
    for (int i = 0; i < n; ++i) {
      if (!holds_fault(out[i])) continue;
      if (fault_write) {
        out[i].write = true;
        out[i].read = out[i].read && rmw[i];  // a store Capstone called a read reads nothing
      } else {
        out[i].read = true;  // an instruction that writes this operand would have faulted as a write
        out[i].write = false;
      }
    }
  }
  return n;
}
#else
bool access_decoder_available(std::string* why) {
  if (why) {
#if !(defined(__x86_64__) && defined(__linux__))
    *why = "counting device accesses needs x86-64 Linux (it single-steps each access with the trap flag); this "
           "machine is not one";
#else
    *why = "counting device accesses needs Capstone to decode each access's size (Debian: libcapstone-dev; or "
           "configure with -DGPULAB_CAPSTONE_ROOT=<unpacked libcapstone-dev and libcapstone4>): this CPU execution "
           "mode runtime was built without it";
#endif
  }
  return false;
}
bool access_decoder_reset(std::string* why) { return access_decoder_available(why); }
int decode_accesses(const void*, uintptr_t, bool, MemAccess*, int) { return -1; }
#endif
}  // namespace gpulab::cpu

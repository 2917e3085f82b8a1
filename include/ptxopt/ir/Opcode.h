// Opcode facts, one table (Opcodes.def).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxopt {

enum class Opcode : uint16_t {
#define PTX_OP(E, NAME, FLAGS, SIGNATURE) E,
#include "ptxopt/ir/Opcodes.def"
#undef PTX_OP
  NumOpcodes
};

namespace OpFlag {
enum : uint32_t {
  Pure = 0,  // computes its results from its operands and nothing else
  Commutative = 1u << 0,
  Terminator = 1u << 1,      // ends a basic block
  Branch = 1u << 2,          // transfers control to labels (bra, brx.idx)
  IndirectBranch = 1u << 3,  // the target is chosen by an index (brx.idx)
  Return = 1u << 4,
  Exit = 1u << 5,
  Trap = 1u << 6,
  Call = 1u << 7,
  MemRead = 1u << 8,   // reads memory in the state space its modifiers name (generic if none)
  MemWrite = 1u << 9,  // writes memory, likewise
  Atomic = 1u << 10,
  SideEffect = 1u << 11,     // has an effect beyond writing its result registers
  WarpCollective = 1u << 12, // lanes of a warp exchange data or wait for each other
  CtaBarrier = 1u << 13,     // a barrier among the threads of a CTA (bar, barrier)
  Fence = 1u << 14,          // orders memory (membar, fence)
  LongLatency = 1u << 15,
  Opaque = 1u << 16,  // not modelled in detail: kept verbatim, treated as having every side effect
  Pseudo = 1u << 17,  // a statement of the body that is not an instruction (scope, declaration)
  Convergent = 1u << 18,  // which threads execute it together matters: never predicate or move
                          // it across a divergent branch
  ReadsCarry = 1u << 19,  // reads the carry flag set by a `.cc` instruction (addc, subc, madc)
  // For the uniformity analysis: results that can differ between the lanes of a warp whatever
  // the operands (atomics' old values, shuffles, match, elect), and results that are the same
  // for every lane of the warp whatever the operands (votes, warp reductions, activemask).
  VaryingResult = 1u << 20,
  UniformResult = 1u << 21,
  Texture = 1u << 22,  // texture and surface instructions (tex, tld4, txq, suld, sust, sured, suq)
  // May run in lanes and on paths that the program did not send there (if-conversion to
  // selp): no memory access, no effect beyond its results, cannot fault or trap whatever its
  // operands (an integer division by zero has an unspecified result in PTX, no trap), and
  // reads no hidden state (the carry flag). Instruction::isSpeculatable refines it by
  // modifiers (`.cc` writes the carry flag).
  Speculatable = 1u << 23,
  // The result is an integer derived from its operands by scaling, masking, shifting, converting
  // or comparing: memory-space tracing (analysis/MemorySpace.cpp) takes it as no address (an
  // access through it counts as generic).
  NotAddress = 1u << 24,
  // Part of an asynchronous memory operation: it starts an access that may complete after the
  // instruction, or commits or waits for such accesses (the wait is where the data lands). The
  // `cp` family (cp.async and its commit_group/wait_group/wait_all, cp.async.bulk,
  // cp.reduce.async.bulk), st.async, red.async, wgmma and tcgen05 (shared-memory operands read
  // asynchronously) and mbarrier (the waits that complete bulk copies). One fact, two users:
  // ptxrun's race checker keeps the bytes of an issued copy in flight until its wait completes
  // it, and dead-sync counts every such instruction as every access wherever it stands (its
  // issue, its commit and its wait), so the barriers that order a landing stay.
  AsyncMemory = 1u << 25,
};
}  // namespace OpFlag

struct OpcodeInfo {
  std::string_view name;
  uint32_t flags;
  std::string_view signature;  // operand shapes, see Opcodes.def and Signature.h

  bool is(uint32_t f) const { return (flags & f) != 0; }
  bool isTerminator() const { return is(OpFlag::Terminator); }
  bool isBranch() const { return is(OpFlag::Branch); }
  bool isPseudo() const { return is(OpFlag::Pseudo); }
  bool isOpaque() const { return is(OpFlag::Opaque); }
  // Anything a dead-code or motion pass must respect beyond the result registers.
  bool hasSideEffects() const {
    return is(OpFlag::SideEffect | OpFlag::Opaque | OpFlag::MemWrite | OpFlag::Call |
              OpFlag::Trap | OpFlag::Pseudo | OpFlag::Terminator);
  }
  bool readsMemory() const { return is(OpFlag::MemRead | OpFlag::Opaque | OpFlag::Call); }
  bool writesMemory() const { return is(OpFlag::MemWrite | OpFlag::Opaque | OpFlag::Call); }
};

// The table of Opcodes.def, indexed by opcode (constant-initialized: usable at any time).
extern const OpcodeInfo kOpcodeTable[];
inline const OpcodeInfo& opcodeInfo(Opcode op) { return kOpcodeTable[static_cast<size_t>(op)]; }
inline std::string_view opcodeName(Opcode op) { return opcodeInfo(op).name; }

// Matches a full dotted mnemonic prefix exactly ("bar.warp.sync", "ld"); pseudo statements
// and Unknown are never returned.
std::optional<Opcode> lookupOpcode(std::string_view dottedName);
// The largest number of dotted components in any table mnemonic ("bar.warp.sync" has 3).
unsigned maxOpcodeComponents();
// The same among the mnemonics whose first component is `first` ("bar" -> 3, "ld" -> 1); 0
// when no mnemonic begins with it.
unsigned maxOpcodeComponents(std::string_view first);

}  // namespace ptxopt

// Functions (.entry and .func) and their basic blocks.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ptxopt/ir/Instruction.h"
#include "ptxopt/ir/Variable.h"

namespace ptxopt {

class Function;
class Module;

enum class EdgeKind : uint8_t {
  Taken,        // the target of a bra
  FallThrough,  // to the next block in layout
  Indexed,      // one entry of a brx.idx table; Edge::index is its position
};

struct Edge {
  BasicBlock* to = nullptr;
  EdgeKind kind = EdgeKind::FallThrough;
  uint32_t index = 0;
};

class BasicBlock {
 public:
  BasicBlock(Function* parent, uint32_t id) : parent_(parent), id_(id) {}

  Function* parent() const { return parent_; }
  // Dense, stable number of this block within its function (never reused).
  uint32_t id() const { return id_; }
  uint32_t label() const { return label_; }  // index into Function::labels(); kNoLabel if none
  bool hasLabel() const { return label_ != kNoLabel; }
  void setLabel(uint32_t l) { label_ = l; }
  std::string name() const;  // the label, or "<bb N>" for an unlabelled block

  std::vector<Instruction*>& insts() { return insts_; }
  const std::vector<Instruction*>& insts() const { return insts_; }
  bool empty() const { return insts_.empty(); }
  // The last instruction that is not a pseudo statement, or nullptr.
  Instruction* terminator() const;
  // The first successor reached by an edge of `kind`, or nullptr.
  BasicBlock* successor(EdgeKind kind) const {
    for (const Edge& e : succs_)
      if (e.kind == kind) return e.to;
    return nullptr;
  }
  void append(Instruction* i) {
    i->setParent(this);
    insts_.push_back(i);
  }

  std::vector<Edge>& succs() { return succs_; }
  const std::vector<Edge>& succs() const { return succs_; }
  std::vector<BasicBlock*>& preds() { return preds_; }
  const std::vector<BasicBlock*>& preds() const { return preds_; }

 private:
  Function* parent_;
  uint32_t id_;
  uint32_t label_ = kNoLabel;
  std::vector<Instruction*> insts_;
  std::vector<Edge> succs_;
  std::vector<BasicBlock*> preds_;
};

// A register: either one of a range (`.reg .b32 %r<56>` declares %r0..%r55) or a single name.
struct RegInfo {
  uint32_t name = 0;   // pool id of the whole name, or of the range prefix ("%r")
  uint32_t index = 0;  // number within its range
  bool ranged = false;
  ScalarType type = ScalarType::B32;
  uint8_t vec = 0;     // 0, 2, 4 for .v2/.v4 registers
  uint32_t scope = 0;  // scope it was declared in; 0 = the function body
  uint32_t decl = 0;   // index into Function::decls()
};

struct RegDeclEntry {
  uint32_t name = 0;   // pool id: the full name, or the prefix of a range
  uint32_t count = 0;  // 0 for a single register, N for `<N>`
  RegId first = kNoReg;
};

// A declaration statement of a function body.
struct Decl {
  enum class Kind : uint8_t { Reg, Var };
  Kind kind = Kind::Reg;
  uint32_t scope = 0;  // 0 = function body; nested declarations also sit in the stream
  // Reg
  ScalarType type = ScalarType::B32;
  uint8_t vec = 0;
  std::vector<RegDeclEntry> regs;
  // Var (.local, .shared, .param, .const, .global inside a body)
  Variable var;
  SourceLoc loc;
};

struct LabelInfo {
  uint32_t name = 0;  // pool id
  uint32_t scope = 0;
  BasicBlock* block = nullptr;
};

struct DebugLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t extra = 0;  // pool id of `, function_name ..., inlined_at ...`; 0 if none
  bool operator==(const DebugLoc& o) const {
    return file == o.file && line == o.line && col == o.col && extra == o.extra;
  }
};

struct DebugLocGroup {
  uint32_t first = 0;  // index into Function::debugLocs()
  uint32_t count = 0;
};

// A performance-tuning directive between the signature and the body, kept as written
// (`.maxntid 256, 1, 1`, `.pragma "nounroll";`).
struct FunctionDirective {
  uint32_t name = 0;  // pool id of ".maxntid"
  uint32_t text = 0;  // pool id of the arguments, normalized
};

// The CTA shape a kernel declares: `.reqntid` gives the exact extent of each dimension (a
// launch with another shape fails), `.maxntid` bounds the product of the extents only. Absent
// dimensions are 1.
struct LaunchBounds {
  std::optional<std::array<uint64_t, 3>> reqntid, maxntid;
};

class Function {
 public:
  Function(Module* parent, uint32_t name) : parent_(parent), name_(name) {}
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  Module* parent() const { return parent_; }
  uint32_t nameId() const { return name_; }
  std::string_view name() const;

  bool isEntry = false;
  uint8_t linkage = Linkage::None;
  bool noreturn = false;
  bool hasBody = false;
  bool hasReturnList = false;  // `.func (...) name` even when the list is empty
  bool hasParamList = false;
  std::vector<Variable> returnParams;
  std::vector<Variable> params;
  std::vector<FunctionDirective> directives;
  SourceLoc loc;

  // Declarations, registers, labels, scopes, .loc entries.
  std::vector<Decl>& decls() { return decls_; }
  const std::vector<Decl>& decls() const { return decls_; }
  std::vector<RegInfo>& regs() { return regs_; }
  const std::vector<RegInfo>& regs() const { return regs_; }
  const RegInfo& reg(RegId r) const { return regs_[r]; }
  std::string regName(RegId r) const;
  std::vector<LabelInfo>& labels() { return labels_; }
  const std::vector<LabelInfo>& labels() const { return labels_; }
  std::string_view labelName(uint32_t label) const;
  BasicBlock* labelBlock(uint32_t label) const { return labels_[label].block; }
  // Parent scope of each scope; scope 0 (the body) has parent 0.
  std::vector<uint32_t>& scopeParents() { return scopeParents_; }
  const std::vector<uint32_t>& scopeParents() const { return scopeParents_; }
  // Is something declared in scope `declScope` visible from scope `useScope` (the same scope
  // or one that encloses it)?
  bool scopeVisible(uint32_t declScope, uint32_t useScope) const {
    for (uint32_t s = useScope;; s = scopeParents_[s]) {
      if (s == declScope) return true;
      if (s == 0) return false;
    }
  }
  // `.loc` lines. Consecutive `.loc` lines before an instruction form one group (nvcc writes
  // the call site and then the inlined location; ptxas wants both). An instruction refers to
  // the group in force where it stands (Instruction::debugLoc is the group's index + 1).
  std::vector<DebugLoc>& debugLocs() { return debugLocs_; }
  const std::vector<DebugLoc>& debugLocs() const { return debugLocs_; }
  std::vector<DebugLocGroup>& debugLocGroups() { return debugLocGroups_; }
  const std::vector<DebugLocGroup>& debugLocGroups() const { return debugLocGroups_; }
  // The `.loc` lines of group `dbg` (1-based, as stored in instructions); empty for 0.
  std::span<const DebugLoc> locGroup(uint32_t dbg) const {
    if (dbg == 0) return {};
    const DebugLocGroup& g = debugLocGroups_[dbg - 1];
    return {debugLocs_.data() + g.first, g.count};
  }

  // Blocks in layout order. The first is the entry.
  std::vector<BasicBlock*>& blocks() { return blocks_; }
  const std::vector<BasicBlock*>& blocks() const { return blocks_; }
  BasicBlock* entry() const { return blocks_.empty() ? nullptr : blocks_.front(); }
  // Number of block ids handed out so far (an upper bound for dense per-block tables).
  uint32_t blockIdBound() const { return static_cast<uint32_t>(blockPool_.size()); }

  // Storage. Blocks and instructions live as long as the function; removing one from the
  // layout or from a block does not free it.
  BasicBlock* createBlock();
  Instruction* createInstruction(Opcode op);
  Instruction* cloneInstruction(const Instruction& inst);
  size_t instructionCount() const;

  LaunchBounds launchBounds() const;

  // A new register of `type`, declared at the top of the body, named `prefix` followed by a
  // number that no register, label or variable of the function or the module uses
  // ("%pq3"). Registers added with the same prefix and type share one declaration line.
  RegId addRegister(ScalarType type, std::string_view prefix);
  // A new label for `b` (which must have none), named `prefix` and a number that no register,
  // label or variable uses ("$Lsw3"); returns its index.
  uint32_t addLabel(BasicBlock* b, std::string_view prefix);
  // `prefix` followed by the first number that makes a name no register, label or variable of
  // the function or the module has.
  std::string freshName(std::string_view prefix) const;

 private:
  // For each prefix freshName was asked for, the numbers N for which prefix + N names something
  // already, gathered once and then brought up to date from what was appended since (registers,
  // labels, declarations, module variables, names handed out). Only names that begin with the
  // prefix are spelled out, so a function's first new register costs a scan of its names, not
  // a set of them (it was 2% of `ptxopt -O2` on thrust_sort). Before the sets, each new name
  // gathered every name again: quadratic (select on cub_device_histogram: 0.08 s of names).
  struct TakenNumbers {
    std::unordered_set<uint32_t> numbers;
    size_t regs = 0, labels = 0, decls = 0, globals = 0, tables = 0, handedOut = 0;
    uint32_t next = 0;  // first number to try
  };
  struct TakenNames {
    std::unordered_map<std::string, TakenNumbers> byPrefix;
    // The names of .branchtargets, .calltargets and .callprototype statements when freshName
    // was first called (later ones come from freshName itself); a table a pass then removes
    // keeps its name taken.
    bool tablesRead = false;
    std::vector<std::string> tables;
    std::vector<std::string> handedOut;  // every name freshName returned, in order
  };
  void updateTakenNumbers(std::string_view prefix, TakenNumbers& t) const;
  mutable TakenNames taken_;

  Module* parent_;
  uint32_t name_;
  std::vector<Decl> decls_;
  std::vector<RegInfo> regs_;
  std::vector<LabelInfo> labels_;
  std::vector<uint32_t> scopeParents_{0};
  std::vector<DebugLoc> debugLocs_;
  std::vector<DebugLocGroup> debugLocGroups_;
  std::vector<BasicBlock*> blocks_;
  std::deque<BasicBlock> blockPool_;
  std::deque<Instruction> instPool_;
};

}  // namespace ptxopt

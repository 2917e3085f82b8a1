// Operand shapes of the opcodes: the signature column of Opcodes.def, parsed once. Everything
// that needs an operand's role asks here: which operands are written, which is the address,
// the label or the table name, and of which type each operand is read or written (the
// verifier, the emulator's decoder, the analyses, the passes, the parser's label operands).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ptxopt/ir/Opcode.h"
#include "ptxopt/ir/Operand.h"
#include "ptxopt/ir/Types.h"

namespace ptxopt {

class Instruction;

// How the type of an operand follows from the instruction (see Opcodes.def).
enum class TypeRule : uint8_t { Any, T, T2, Wide, Addr, Pred, B16, B32, U32, S32, B64, U64 };

enum class OperandRole : uint8_t {
  Value,    // a register (written or read), an immediate, ...
  Address,  // [reg+off], [var+off], [imm]
  Label,    // a branch target
  Table,    // the name of a .branchtargets table
};

namespace OperandAccept {
enum : uint16_t {
  Sink = 1 << 0,      // `_` for a written register
  Special = 1 << 1,   // a special register may be read
  Symbol = 1 << 2,    // a variable or function name may be read (its address)
  ImmOnly = 1 << 3,   // only an immediate
  VecByMod = 1 << 4,  // a vector exactly when the instruction has .v2/.v4/.v8
  Pack = 1 << 5,      // a scalar or a vector whose elements pack into it
  Pair = 1 << 6,      // written: `%d|%p` or only the first element
  Sink2 = 1 << 7,     // `_` for the pair's second element
};
}

struct OperandSpec {
  std::string_view name;  // for messages: "d", "a", "membermask"
  OperandRole role = OperandRole::Value;
  bool def = false;       // written
  bool optional = false;
  bool wider = false;     // a register may be wider than the type (ld, st, cvt)
  uint16_t accept = 0;    // OperandAccept bits
  TypeRule type = TypeRule::Any;
  TypeRule type2 = TypeRule::Any;  // the pair's second element
  std::string_view name2;
  // An address: the state spaces the instruction may name (a bit per StateSpace, .shared::cta
  // counted as .shared and .param::entry as .param); 0: any.
  uint32_t spaces = 0;

  bool has(uint16_t a) const { return (accept & a) != 0; }
};

struct OperandShape {
  std::vector<Mod> when;  // applies when one of these modifiers is present; empty: otherwise
  std::vector<OperandSpec> ops;
  uint8_t minOps = 0;     // operands without the optional ones
  uint8_t numDefs = 0;    // leading written operands (0 or 1)
  bool usesT = false, usesT2 = false;
  // The classes the instruction type T may have (a bit per TypeClass), and single types it may
  // have besides (a bit per ScalarType: `T(u s f32)`); both 0: any.
  uint8_t typeClasses = 0;
  uint64_t types = 0;
  bool allowsClass(TypeClass c) const { return typeClasses == 0 || (typeClasses >> static_cast<unsigned>(c)) & 1; }
  bool restrictsType() const { return typeClasses != 0 || types != 0; }
  bool allowsType(ScalarType t) const {
    return !restrictsType() || ((typeClasses >> static_cast<unsigned>(typeClass(t))) & 1) ||
           ((types >> static_cast<unsigned>(t)) & 1);
  }
};

enum class SignatureForm : uint8_t {
  Shapes,              // the operands follow one of `shapes`
  FreeNoDefs,          // "*": anything; no register is written
  FreeFirstMaybeDef,   // "?": the first operand is written unless it is an address, and read
  FreeFirstReadWrite,  // "?+": the first operand is read and written
};

struct Signature {
  SignatureForm form = SignatureForm::FreeNoDefs;
  std::vector<OperandShape> shapes;
  // The number of written leading operands when every shape agrees; kDefsVary otherwise.
  static constexpr uint8_t kDefsVary = 0xff;
  uint8_t fixedDefs = 0;
  uint64_t labelPositions = 0;  // bit k: some shape has a label at operand k

  bool isFree() const { return form != SignatureForm::Shapes; }
  bool labelAt(unsigned k) const { return k < 64 && ((labelPositions >> k) & 1); }
};

// The table by opcode, built on first use (a run that reads no instruction never parses the
// signatures); the lookup is inline because every walk over operands asks it.
extern std::atomic<const Signature*> gSignatureTable;
const Signature& signatureOfSlow(Opcode op);  // builds the table and publishes it
inline const Signature& signatureOf(Opcode op) {
  const Signature* table = gSignatureTable.load(std::memory_order_acquire);
  return table ? table[static_cast<size_t>(op)] : signatureOfSlow(op);
}

// The shapes that apply to `inst` by its modifiers (empty for free forms), and among them the
// one its operand count picks (nullptr when none does: the instruction is malformed).
std::vector<const OperandShape*> applicableShapes(const Instruction& inst);
const OperandShape* selectShape(const Instruction& inst);
// The first of applicableShapes(inst), without building the list (nullptr when there is none).
const OperandShape* firstApplicableShape(const Instruction& inst);

// The spec of operand `k` of `inst` under `shape` (nullptr past the end).
inline const OperandSpec* specAt(const OperandShape* shape, uint32_t k) {
  return shape && k < shape->ops.size() ? &shape->ops[k] : nullptr;
}
// The index of the first operand with `role` in the selected shape; -1 when there is none.
int operandIndexOf(const Instruction& inst, OperandRole role);
// That operand, when it is there and of the kind the role has (an address, a label, a symbol).
const Operand* operandWithRole(const Instruction& inst, OperandRole role);

// The target of a `call`: the function's name (a symbol) or, for an indirect call, the
// register holding its address; nullptr when there is none. Lists before it hold the results,
// the first list after it the arguments.
const Operand* callTarget(const Instruction& call);

// The scalar type an operand of rule `r` has in `inst`: None when the rule is Any or the
// instruction lacks the type modifier it refers to. Addr gives U64.
ScalarType resolveType(TypeRule r, const Instruction& inst);

// "add d, a, b" or "setp p|q, a, b, c" for messages; all applicable shapes, joined by " or ".
std::string describeShapes(const Instruction& inst);

// The type classes `shape` lets T have, for messages: ".u, .s, .f".
std::string describeTypeClasses(const OperandShape& shape);

// Parses a signature text (exposed for the unit tests); false with `error` set when the text
// does not follow the grammar of Opcodes.def.
bool parseSignature(std::string_view text, Signature& out, std::string& error);

}  // namespace ptxopt

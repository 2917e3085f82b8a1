// Variables: module-scope .global/.const/.shared, function-scope .local/.shared/.param, and
// function parameters.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxopt/ir/Types.h"
#include "ptxopt/support/Diagnostics.h"

namespace ptxopt {

namespace Linkage {
enum : uint8_t { None = 0, Visible = 1, Extern = 2, Weak = 4, Common = 8 };
}

// One item of an initializer, flattened: `{1, {2, 3}}` is Open 1 Open 2 3 Close Close.
struct InitItem {
  enum class Kind : uint8_t { Int, Float, Symbol, Generic, Open, Close, KeyValue };
  Kind kind = Kind::Int;
  uint8_t flags = 0;   // OperandFlag::Hex / UnsignedSuffix for Int; FloatForm for Float
  uint32_t id = 0;     // Symbol/Generic: name; KeyValue: key
  int64_t value = 0;   // Int value, Float bits, symbol offset, KeyValue: value name id
};

struct Variable {
  StateSpace space = StateSpace::Global;
  uint8_t linkage = Linkage::None;
  uint32_t align = 0;  // 0 = not written
  uint8_t vec = 0;     // 0, 2, 4, 8 (.v2 ...)
  ScalarType type = ScalarType::B8;
  uint32_t name = 0;            // string-pool id; 0 for unnamed prototype parameters
  std::vector<int64_t> dims;    // array dimensions; -1 for `[]`
  // Kernel pointer parameters: `.ptr .global .align 16`.
  bool isPtr = false;
  StateSpace ptrSpace = StateSpace::Generic;
  uint32_t ptrAlign = 0;
  std::vector<uint32_t> attributes;  // `.attribute(.managed)`: pool ids of ".managed"
  bool hasInit = false;
  std::vector<InitItem> init;
  SourceLoc loc;

  // Bytes of one element times the product of the dimensions; 0 when a dimension is `[]`.
  uint64_t sizeInBytes() const;
};

}  // namespace ptxopt

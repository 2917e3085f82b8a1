#include <gtest/gtest.h>

#include "ptxopt/ir/Opcode.h"
#include "ptxopt/ir/Signature.h"
#include "ptxopt/ir/Types.h"
#include "ptxopt/support/StringPool.h"

using namespace ptxopt;

TEST(OpcodeTable, LookupAndProperties) {
  EXPECT_EQ(lookupOpcode("ld"), Opcode::Ld);
  EXPECT_EQ(lookupOpcode("bar.warp.sync"), Opcode::BarWarpSync);
  EXPECT_EQ(lookupOpcode("brx.idx"), Opcode::BrxIdx);
  EXPECT_FALSE(lookupOpcode("{"));  // pseudo statements are not mnemonics
  EXPECT_FALSE(lookupOpcode("nosuchop"));
  EXPECT_GE(maxOpcodeComponents(), 3u);

  EXPECT_TRUE(opcodeInfo(Opcode::Bra).isTerminator());
  EXPECT_TRUE(opcodeInfo(Opcode::St).writesMemory());
  EXPECT_TRUE(opcodeInfo(Opcode::St).hasSideEffects());
  EXPECT_FALSE(opcodeInfo(Opcode::Add).hasSideEffects());
  EXPECT_TRUE(opcodeInfo(Opcode::Ld).readsMemory());
  EXPECT_FALSE(opcodeInfo(Opcode::Ld).hasSideEffects());
  EXPECT_TRUE(opcodeInfo(Opcode::ShflSync).is(OpFlag::WarpCollective));
  EXPECT_TRUE(opcodeInfo(Opcode::Bar).is(OpFlag::CtaBarrier));
  EXPECT_TRUE(opcodeInfo(Opcode::Wmma).hasSideEffects());  // opaque: every side effect
  EXPECT_TRUE(opcodeInfo(Opcode::Unknown).hasSideEffects());
  EXPECT_TRUE(opcodeInfo(Opcode::Addc).is(OpFlag::ReadsCarry));
}

TEST(OpcodeTable, Modifiers) {
  StringPool pool;
  EXPECT_EQ(modType(lookupMod(".u32", pool)), ScalarType::U32);
  EXPECT_EQ(modSpace(lookupMod(".shared::cluster", pool)), StateSpace::SharedCluster);
  EXPECT_EQ(modCmp(lookupMod(".geu", pool)), CmpOp::Geu);
  EXPECT_EQ(modRounding(lookupMod(".rzi", pool)), Rounding::Rzi);
  Mod unknown = lookupMod(".L1::evict_last", pool);
  EXPECT_FALSE(isKnownMod(unknown));
  EXPECT_EQ(modName(unknown, pool), ".L1::evict_last");
  EXPECT_EQ(lookupMod(".L1::evict_last", pool), unknown);
  for (uint32_t i = 1; i < static_cast<uint32_t>(Mod::NumKnown); ++i) {
    Mod m = static_cast<Mod>(i);
    EXPECT_EQ(lookupKnownMod(modName(m, pool)), m) << modName(m, pool);
  }
  EXPECT_EQ(typeMod(ScalarType::F64), Mod::T_F64);
  EXPECT_EQ(spaceMod(StateSpace::Local), Mod::S_Local);
  EXPECT_EQ(cmpMod(CmpOp::Nan), Mod::C_Nan);
  EXPECT_EQ(roundingMod(Rounding::Rpi), Mod::R_Rpi);
  EXPECT_EQ(typeBits(ScalarType::Pred), 1u);
  EXPECT_EQ(typeClass(ScalarType::BF16x2), TypeClass::Float);
}

TEST(StringPool, InternIsStable) {
  StringPool pool;
  EXPECT_EQ(pool.str(0), "");
  uint32_t a = pool.intern("alpha");
  std::string big(10000, 'x');
  uint32_t b = pool.intern(big);
  uint32_t c = pool.intern("gamma");
  EXPECT_EQ(pool.intern("alpha"), a);
  EXPECT_EQ(pool.str(a), "alpha");
  EXPECT_EQ(pool.str(b), big);
  EXPECT_EQ(pool.str(c), "gamma");
  EXPECT_EQ(pool.find("gamma"), c);
  EXPECT_EQ(pool.find("delta"), UINT32_MAX);
  for (int i = 0; i < 20000; ++i) pool.intern("name" + std::to_string(i));
  EXPECT_EQ(pool.str(pool.find("name19999")), "name19999");
}

TEST(Signatures, EveryTableEntryParses) {
  for (uint32_t i = 0; i < static_cast<uint32_t>(Opcode::NumOpcodes); ++i) {
    Signature sig;
    std::string error;
    EXPECT_TRUE(parseSignature(opcodeInfo(static_cast<Opcode>(i)).signature, sig, error))
        << opcodeInfo(static_cast<Opcode>(i)).name << ": " << error;
    EXPECT_EQ(signatureOf(static_cast<Opcode>(i)).shapes.size(), sig.shapes.size());
  }
}

// The table names a written result `d` (or `d_`, `{d}`); it is written only when it stands
// before the `=`. activemask's shape once read "d:b32": its result counted as a read, so the
// emulator never wrote the register and the analyses saw no definition.
TEST(Signatures, ResultsNamedDAreWritten) {
  for (uint32_t i = 0; i < static_cast<uint32_t>(Opcode::NumOpcodes); ++i) {
    const Signature& sig = signatureOf(static_cast<Opcode>(i));
    for (const OperandShape& shape : sig.shapes) {
      for (const OperandSpec& op : shape.ops) {
        if (op.name == "d" || op.name == "d_") {
          EXPECT_TRUE(op.def) << opcodeInfo(static_cast<Opcode>(i)).name << ": operand d is not written";
        }
      }
    }
  }
  ASSERT_FALSE(signatureOf(Opcode::Activemask).shapes.empty());
  EXPECT_EQ(signatureOf(Opcode::Activemask).shapes[0].numDefs, 1);
}

TEST(Signatures, GrammarErrorsAreReported) {
  Signature sig;
  std::string error;
  EXPECT_FALSE(parseSignature("d:T = a:T, b?:T, c:T", sig, error));
  EXPECT_EQ(error, "an optional operand is followed by a required one");
  EXPECT_FALSE(parseSignature("d = a:T", sig, error));
  EXPECT_EQ(error, "'d' has no type");
  EXPECT_FALSE(parseSignature("d:T7 = a:T", sig, error));
  EXPECT_FALSE(parseSignature("[.nosuchmod] d:T = a:T", sig, error));
  EXPECT_FALSE(parseSignature("[a:nowhere]", sig, error));
  EXPECT_FALSE(parseSignature("d:T, e:T = a:T", sig, error));
  EXPECT_EQ(error, "more than one written operand");
  EXPECT_TRUE(parseSignature("[.red] d:T = a:u32, c:pred; a:u32, b?:u32", sig, error)) << error;
  EXPECT_EQ(sig.fixedDefs, Signature::kDefsVary);
  EXPECT_FALSE(parseSignature("T(u q) d:T = a:T", sig, error));
  EXPECT_EQ(error, "unknown type class 'q' (b, u, s, f, pred, or a type: f32)");
  EXPECT_FALSE(parseSignature("T(u s d:T = a:T", sig, error));
  EXPECT_EQ(error, "unclosed type-class list");
  ASSERT_TRUE(parseSignature("[.lo] T(u s) d:T = a:T; T(f) d:T = a:T", sig, error)) << error;
  EXPECT_TRUE(sig.shapes[0].allowsClass(TypeClass::Signed));
  EXPECT_FALSE(sig.shapes[0].allowsClass(TypeClass::Float));
  EXPECT_TRUE(sig.shapes[1].allowsClass(TypeClass::Float));
  EXPECT_FALSE(sig.shapes[1].allowsClass(TypeClass::Bit));
  // Single types beside classes: max's three-input shape takes .f32 only.
  ASSERT_TRUE(parseSignature("T(u s f) d:T = a:T, b:T; T(f32) d:T = a:T, b:T, c:T", sig, error)) << error;
  EXPECT_TRUE(sig.shapes[1].allowsType(ScalarType::F32));
  EXPECT_FALSE(sig.shapes[1].allowsType(ScalarType::F64));
  EXPECT_FALSE(sig.shapes[1].allowsType(ScalarType::S32));
  EXPECT_TRUE(sig.shapes[0].allowsType(ScalarType::S32));
  EXPECT_EQ(describeTypeClasses(sig.shapes[1]), ".f32");
  EXPECT_TRUE(parseSignature("@target", sig, error));
  EXPECT_TRUE(sig.labelAt(0));
  EXPECT_FALSE(sig.labelAt(1));
}

TEST(Signatures, ShapesAreChosenByModifiersThenCount) {
  const Signature& setp = signatureOf(Opcode::Setp);
  ASSERT_EQ(setp.shapes.size(), 2u);
  EXPECT_EQ(setp.shapes[0].when.size(), 3u);  // .and .or .xor: the shape with a third predicate
  EXPECT_EQ(setp.shapes[0].ops.size(), 4u);
  EXPECT_EQ(setp.shapes[1].ops.size(), 3u);
  const Signature& ld = signatureOf(Opcode::Ld);
  EXPECT_EQ(ld.fixedDefs, 1);
  EXPECT_EQ(ld.shapes.back().ops[1].role, OperandRole::Address);
  const Signature& st = signatureOf(Opcode::St);
  EXPECT_EQ(st.fixedDefs, 0);
  uint32_t constBit = 1u << static_cast<unsigned>(StateSpace::Const);
  EXPECT_EQ(st.shapes.back().ops[0].spaces & constBit, 0u);  // st cannot write .const
  EXPECT_TRUE(signatureOf(Opcode::Mov).shapes[0].ops[1].has(OperandAccept::Special));
  EXPECT_FALSE(signatureOf(Opcode::Add).shapes[0].ops[1].has(OperandAccept::Special));
  EXPECT_TRUE(signatureOf(Opcode::Call).isFree());
}

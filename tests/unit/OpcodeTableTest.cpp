#include <gtest/gtest.h>

#include "ptxopt/ir/Opcode.h"
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
  Mod unknown = lookupMod(".L2::cache_hint", pool);
  EXPECT_FALSE(isKnownMod(unknown));
  EXPECT_EQ(modName(unknown, pool), ".L2::cache_hint");
  EXPECT_EQ(lookupMod(".L2::cache_hint", pool), unknown);
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

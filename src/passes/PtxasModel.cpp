// The model of ptxas the passes share: see PtxasModel.h.
#include "ptxopt/passes/PtxasModel.h"

#include <algorithm>

namespace ptxopt {

const std::vector<KnobSpec>& PtxasModel::knobs() {
  static const std::vector<KnobSpec> kKnobs = {
      {"side-limit", KnobType::Int, "8",
       "ptxas if-converts a triangle or diamond itself when each side has at most this many PTX instructions "
       "(measured with ptxas 13.0, sm_90); select keeps such regions, mask-regions replays them (0: ptxas converts none)"},
      {"divergence-cost", KnobType::Float, "4",
       "warp instructions a branch that splits a warp costs beyond the branch and its sides (reconvergence), in "
       "the expected-cost models of select, predication and mask-regions"},
  };
  return kKnobs;
}

PtxasModel::PtxasModel(const KnobValues& knobs)
    : sideLimit_(knobs.getInt("side-limit")), divergenceCost_(knobs.getFloat("divergence-cost")) {}

bool PtxasModel::isLoad(const Instruction& i) {
  return i.info().is(OpFlag::MemRead) && !i.info().is(OpFlag::MemWrite) && !isParamSpace(i.space()) &&
         i.space() != StateSpace::Const;
}

unsigned PtxasModel::issueWidth(Opcode op, ScalarType type) {
  if (typeBits(type) != 64) return 1;
  switch (op) {
    case Opcode::Mov:
    case Opcode::Selp:
      return 2;
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Neg:
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Not:
      return typeClass(type) == TypeClass::Float ? 1 : 2;
    default:
      return 1;
  }
}

BranchOdds BranchOdds::fromCounts(const BranchCounts& c) {
  double e = double(c.executions());
  return {double(c.allTaken + c.divergent) / e, double(c.allNotTaken + c.divergent) / e, c.divergentFraction()};
}

BranchOdds BranchOdds::fromPrior(bool mayDiverge, double prior) {
  double d = mayDiverge ? std::min(prior, 1.0) : 0.0;
  return {(1 + d) / 2, (1 + d) / 2, d};
}

double expectedBranchCost(const PtxasModel& ptxas, const BranchOdds& odds, double taken, double fall) {
  return 1 + odds.taken * taken + odds.fall * fall + odds.split * ptxas.divergenceCost();
}

}  // namespace ptxopt

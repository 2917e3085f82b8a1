#include "GuardedCode.h"

namespace ptxopt {

Instruction* buildInstruction(Function& f, Opcode op, ScalarType type, std::initializer_list<Operand> ops,
                              const Instruction* at) {
  Instruction* i = f.createInstruction(op);
  if (type != ScalarType::None) i->addMod(typeMod(type));
  for (const Operand& o : ops) i->addOperand(o);
  if (at) {
    i->setLoc(at->loc());
    i->setDebugLoc(at->debugLoc());
  }
  return i;
}

Instruction* buildBra(Function& f, uint32_t label, RegId guard, bool negated, const Instruction* at) {
  Instruction* i = buildInstruction(f, Opcode::Bra, ScalarType::None, {Operand::label(label)}, at);
  if (guard != kNoReg) i->setGuard(guard, negated);
  return i;
}

Operand predOperand(RegId r, bool negated) {
  Operand o = Operand::reg(r);
  if (negated) o.flags |= OperandFlag::Negated;
  return o;
}

Instruction* buildPredLogic(Function& f, Opcode op, RegId dst, RegId a, bool na, RegId b, bool nb, const Instruction* at) {
  return buildInstruction(f, op, ScalarType::Pred, {Operand::reg(dst), predOperand(a, na), predOperand(b, nb)}, at);
}

Instruction* buildVoteAny(Function& f, RegId dst, Operand src, RegId lanes, const Instruction* at) {
  Instruction* v = buildInstruction(f, lanes != kNoReg ? Opcode::VoteSync : Opcode::Vote, ScalarType::None,
                                    {Operand::reg(dst), src}, at);
  v->addMod(Mod::Any);
  v->addMod(typeMod(ScalarType::Pred));
  if (lanes != kNoReg) v->addOperand(Operand::reg(lanes));
  return v;
}

std::string whyNotPredicable(const Instruction& i) {
  const OpcodeInfo& info = i.info();
  if (info.isPseudo()) return "a declaration or scope brace";
  if (info.isOpaque()) return "an instruction the opcode table does not model";
  if (info.is(OpFlag::CtaBarrier)) return "a CTA barrier";
  if (info.is(OpFlag::WarpCollective | OpFlag::Convergent)) return "a warp collective";
  if (info.is(OpFlag::Call)) return "a call";
  if (info.isTerminator()) return "a " + std::string(info.name) + " inside a side";
  return {};
}

bool FirstWrites::mayRunUnguarded(const Instruction& i) const {
  if (i.hasGuard() || !i.isSpeculatable()) return false;
  bool ok = true;
  i.forEachDefReg([&](RegId r) { ok = ok && !written_.count(r) && !liveBefore_.test(r); });
  return ok;
}

DefinitionSites::DefinitionSites(const Function& f) {
  // Two walks: count each register's blocks, then place them (a counting sort by register).
  const size_t n = f.regs().size();
  std::vector<const BasicBlock*> last(n, nullptr);
  start_.assign(n + 1, 0);
  auto each = [&](auto&& visit) {
    std::fill(last.begin(), last.end(), nullptr);
    for (const BasicBlock* b : f.blocks())
      for (const Instruction* i : b->insts())
        i->forEachDefReg([&](RegId r) {
          if (r < n && last[r] != b) {
            last[r] = b;
            visit(r, b);
          }
        });
  };
  each([&](RegId r, const BasicBlock*) { ++start_[r + 1]; });
  for (size_t r = 0; r < n; ++r) start_[r + 1] += start_[r];
  sites_.resize(start_[n]);
  std::vector<uint32_t> fill(start_.begin(), start_.end() - 1);
  each([&](RegId r, const BasicBlock* b) { sites_[fill[r]++] = b; });
}

void GuardedLine::add(Instruction* i) {
  if (i->hasGuard()) {
    const Instruction* at = at_ ? at_ : i;
    RegId t = cache_.get(i->guard(), i->guardNegated(), [&] {
      RegId c = f_.addRegister(ScalarType::Pred, prefix_);
      out_.push_back(buildPredLogic(f_, Opcode::And, c, guard_, negated_, i->guard(), i->guardNegated(), at));
      ++conjunctions_;
      return c;
    });
    i->setGuard(t, false);
  } else {
    i->setGuard(guard_, negated_);
  }
  cache_.after(*i);
  out_.push_back(i);
}

}  // namespace ptxopt

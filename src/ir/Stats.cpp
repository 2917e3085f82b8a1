#include "ptxopt/ir/Stats.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace ptxopt {

ModuleStats computeStats(const Module& m) {
  ModuleStats s;
  s.globals = m.globals().size();
  for (const auto& f : m.functions()) {
    ++s.functions;
    if (!f->hasBody) continue;
    ++s.definitions;
    if (f->isEntry) ++s.entries;
    s.blocks += f->blocks().size();
    s.registers += f->regs().size();
    for (const BasicBlock* b : f->blocks())
      for (const Instruction* i : b->insts()) {
        if (i->info().isPseudo()) continue;
        ++s.instructions;
        std::string name(i->is(Opcode::Unknown) ? m.str(i->payload()) : i->info().name);
        ++s.opcodes[name];
      }
  }
  return s;
}

std::string formatStats(const ModuleStats& s, const std::string& title) {
  std::string out = fmt::format("statistics for {}:\n", title);
  out += fmt::format("  {:<22}{:>10}\n", "functions", s.functions);
  out += fmt::format("  {:<22}{:>10}\n", "  with a body", s.definitions);
  out += fmt::format("  {:<22}{:>10}\n", "  kernels (.entry)", s.entries);
  out += fmt::format("  {:<22}{:>10}\n", "basic blocks", s.blocks);
  out += fmt::format("  {:<22}{:>10}\n", "instructions", s.instructions);
  out += fmt::format("  {:<22}{:>10}\n", "registers", s.registers);
  out += fmt::format("  {:<22}{:>10}\n", "module variables", s.globals);
  std::vector<std::pair<std::string, uint64_t>> ops(s.opcodes.begin(), s.opcodes.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "  instructions by opcode:\n";
  for (const auto& [name, count] : ops) out += fmt::format("    {:<20}{:>10}\n", name, count);
  return out;
}

}  // namespace ptxopt

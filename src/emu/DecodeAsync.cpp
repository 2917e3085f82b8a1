// Decoding of the asynchronous copies: cp.async with its groups, mbarrier, the bulk and tensor
// copies, mapa, tensormap.replace and tensormap.cp_fenceproxy (Decoder.h).
#include "Decoder.h"
#include "ptxopt/emu/TensorMap.h"
#include "ptxopt/ptx/Printer.h"

#include <algorithm>
#include <iterator>

namespace ptxopt::emu::decoding {

// The instructions the opcode table marks as asynchronous memory operations (OpFlag::AsyncMemory):
// mbarrier and cp.async.mbarrier.arrive (decodeMbarrier), the bulk copies (decodeBulk), and the
// non-bulk cp.async copy with its commit_group, wait_group and wait_all run (the tiled tensor
// copies and cp.reduce.async.bulk into global memory among the bulk ones); st.async, red.async
// and tcgen05 do not (wgmma has its own decoder, decodeWgmma). Forms the PTX ISA does not
// allow (a cp-size other than 4, 8 or 16; .cg with one other than 16; state spaces other than
// .shared{::cta} and .global; a malformed operand list) are invalid.
bool Decoder::decodeAsync(DFunction& f, const Instruction& inst, DInst& di) {
  auto modText = [&](Mod m) { return std::string(modName(m, m_.strings())); };
  auto hasText = [&](std::string_view t) {
    return std::any_of(inst.mods().begin(), inst.mods().end(), [&](Mod m) { return modText(m) == t; });
  };
  if (inst.is(Opcode::Mbarrier) || (inst.is(Opcode::Cp) && hasText(".mbarrier"))) return decodeMbarrier(f, inst, di);
  if (inst.is(Opcode::Cp) && inst.has(Mod::Async) && inst.has(Mod::Bulk)) return decodeBulk(f, inst, di);
  if (!inst.is(Opcode::Cp) || !inst.has(Mod::Async)) return fail("not emulated");
  const std::string text = printInstruction(*f.ir, inst);
  const std::string name = text.substr(0, text.find_first_of(" \t"));
  // commit_group, wait_group N, wait_all: only `.async` besides.
  for (Mod form : {Mod::CommitGroup, Mod::WaitGroup, Mod::WaitAll}) {
    if (!inst.has(form)) continue;
    for (Mod m : inst.mods())
      if (m != Mod::Async && m != form) return invalid("unexpected qualifier '" + modText(m) + "' on " + name);
    if (form == Mod::WaitGroup) {
      if (inst.numOperands() != 1 || !inst.operand(0).isImm() || inst.operand(0).value < 0 ||
          inst.operand(0).value > 0xFFFFFFFFll)
        return invalid("cp.async.wait_group takes one non-negative integer constant");
      di.op = XOp::CpAsyncWait;
      di.call = static_cast<uint32_t>(inst.operand(0).value);
      return true;
    }
    if (inst.numOperands() != 0) return invalid(name + " takes no operands");
    di.op = form == Mod::CommitGroup ? XOp::CpAsyncCommit : XOp::CpAsyncWait;
    di.waitAll = form == Mod::WaitAll;
    return true;
  }
  const bool ca = inst.has(Mod::Ca), cg = inst.has(Mod::Cg);
  if (!ca && !cg) return fail("not emulated");
  // Qualifiers: .async, one of .ca/.cg, the destination's and the source's state spaces in
  // that order, and the cache hints (.L2::cache_hint, .L2::64B/128B/256B), which change nothing here.
  std::vector<StateSpace> spaces;
  for (Mod m : inst.mods()) {
    if (auto sp = modSpace(m)) {
      spaces.push_back(*sp);
      continue;
    }
    const std::string t = modText(m);
    if (m == Mod::Async || m == Mod::Ca || m == Mod::Cg || m == Mod::L2CacheHint || t == ".L2::64B" ||
        t == ".L2::128B" || t == ".L2::256B")
      continue;
    return invalid("unexpected qualifier '" + t + "' on " + name);
  }
  if (ca && cg) return invalid("cp.async takes one of .ca and .cg, not both");
  if (spaces.size() != 2 || (spaces[0] != StateSpace::Shared && spaces[0] != StateSpace::SharedCta) ||
      spaces[1] != StateSpace::Global)
    return invalid(
        "cp.async copies from .global to .shared or .shared::cta (cp.async.ca.shared.global): the destination must be "
        "shared memory");
  const bool hint = inst.has(Mod::L2CacheHint);
  const uint32_t n = inst.numOperands();
  if (n < 3u + hint || n > 4u + hint)
    return invalid(std::string("cp.async takes [dst], [src], cp-size, an optional src-size or ignore-src") +
                   (hint ? ", and a cache-policy (.L2::cache_hint)" : "") + "; this one has " + std::to_string(n) +
                   " operand(s)");
  if (inst.operand(0).kind != OperandKind::Address || inst.operand(1).kind != OperandKind::Address)
    return invalid("cp.async's first two operands are addresses, [dst] and [src]");
  DAsyncCopy c;
  if (!decodeAddress(inst.operand(0), di) || !decodeAddress(inst.operand(1), c.src)) return false;
  auto symName = [&](const Operand& o) { return std::string(m_.str(o.id)); };
  if (!di.addrFromReg && di.addrSym.kind != SymRef::Kind::None && di.addrSym.kind != SymRef::Kind::SharedVar)
    return invalid("the destination names '" + symName(inst.operand(0)) +
                   "', which is not a .shared variable: cp.async writes shared memory");
  if (!c.src.fromReg && c.src.sym.kind != SymRef::Kind::None && c.src.sym.kind != SymRef::Kind::GlobalVar)
    return invalid("the source names '" + symName(inst.operand(1)) +
                   "', which is not a .global variable: cp.async reads global memory");
  const Operand& size = inst.operand(2);
  if (!size.isImm()) return invalid("cp.async's cp-size must be an integer constant (4, 8 or 16)");
  if (size.value != 4 && size.value != 8 && size.value != 16)
    return invalid("cp-size " + std::to_string(size.value) + " is not allowed: cp.async copies 4, 8 or 16 bytes");
  if (cg && size.value != 16)
    return invalid("cp-size " + std::to_string(size.value) + " is not allowed with .cg: cp.async.cg copies 16 bytes");
  c.cpSize = static_cast<uint8_t>(size.value);
  if (n == 4u + hint) {
    const Operand& o = inst.operand(3);
    if (o.isImm()) {
      if (o.value < 0 || o.value > c.cpSize)
        return invalid("src-size " + std::to_string(o.value) + " is larger than cp-size " + std::to_string(c.cpSize) +
                       " (undefined in PTX)");
      c.fill = DAsyncCopy::Fill::SrcSize;
      c.fillSlot = constSlot(f, static_cast<uint64_t>(o.value));
    } else if (o.kind == OperandKind::Reg && o.component() == Component::None && o.id < f.ir->regs().size()) {
      const bool pred = f.ir->reg(o.id).type == ScalarType::Pred;
      c.fill = pred ? DAsyncCopy::Fill::IgnoreSrc : DAsyncCopy::Fill::SrcSize;
      c.fillSlot = o.id;
      c.fillNegated = pred && o.negated();
    } else {
      return invalid("cp.async's fourth operand is a src-size (a 32-bit integer) or an ignore-src predicate");
    }
  }
  if (hint && inst.operand(n - 1).kind != OperandKind::Reg)
    return invalid("cp.async.L2::cache_hint's last operand is a 64-bit cache-policy register");
  di.op = XOp::CpAsync;
  di.space = StateSpace::Shared;
  di.call = static_cast<uint32_t>(f.asyncCopies.size());
  f.asyncCopies.push_back(c);
  return true;
}

// mbarrier{.op}{.sem}{.scope}{.space}.b64 and cp.async.mbarrier.arrive{.noinc}{.space}.b64 (PTX
// ISA, "Parallel Synchronization and Communication Instructions: mbarrier"): the mbarrier is
// DInst's address (a .shared variable or a register; generic without a state space), a result
// (state, waitComplete, pending count) dst[0], the count, tx-count, state or phase parity
// src[0]. The .sem and .scope qualifiers change nothing here (one CTA per cluster, every access
// visible at once); .shared::cluster names the CTA's own shared memory.
bool Decoder::decodeMbarrier(DFunction& f, const Instruction& inst, DInst& di) {
  const bool cpAsync = inst.is(Opcode::Cp);
  const char* name = cpAsync ? "cp.async.mbarrier.arrive" : "mbarrier";
  std::string op;
  bool sharedSpace = false;
  for (Mod m : inst.mods()) {
    if (modType(m)) continue;
    if (auto sp = modSpace(m)) {
      if (*sp != StateSpace::Shared && *sp != StateSpace::SharedCta && *sp != StateSpace::SharedCluster)
        return invalid(std::string(name) + " takes an mbarrier in shared memory (.shared, .shared::cta, .shared::cluster)");
      sharedSpace = true;
      continue;
    }
    const std::string t(modName(m, m_.strings()));
    if (t == ".parity") di.parity = true;
    else if (t == ".noinc") di.noinc = true;
    else if (t == ".expect_tx" && (op == "arrive" || op == "arrive_drop")) di.expectTx = true;
    else if (t == ".init" || t == ".arrive" || t == ".arrive_drop" || t == ".expect_tx" || t == ".complete_tx" ||
             t == ".test_wait" || t == ".try_wait" || t == ".pending_count" || t == ".inval") {
      if (!op.empty()) return invalid(std::string(name) + " with two operations, ." + op + " and " + t);
      op = t.substr(1);
    } else if (t == ".mbarrier" && cpAsync) {
    } else if (cpAsync && (t == ".async" || t == ".arrive")) {
    } else if (t == ".release" || t == ".acquire" || t == ".relaxed" || t == ".cta" || t == ".cluster" ||
               t == ".noComplete") {
    } else {
      return invalid("unexpected qualifier '" + t + "' on " + name);
    }
  }
  if (cpAsync) op = "cp.async";
  static const std::pair<const char*, MbarOp> ops[] = {
      {"init", MbarOp::Init}, {"arrive", MbarOp::Arrive}, {"arrive_drop", MbarOp::ArriveDrop},
      {"expect_tx", MbarOp::ExpectTx}, {"complete_tx", MbarOp::CompleteTx}, {"test_wait", MbarOp::TestWait},
      {"try_wait", MbarOp::TryWait}, {"pending_count", MbarOp::PendingCount}, {"inval", MbarOp::Inval},
      {"cp.async", MbarOp::CpAsyncArrive}};
  auto found = std::find_if(std::begin(ops), std::end(ops), [&](const auto& o) { return op == o.first; });
  if (found == std::end(ops)) return invalid("mbarrier without an operation (.init, .arrive, .try_wait, ...)");
  di.mbar = found->second;
  const bool wait = di.mbar == MbarOp::TestWait || di.mbar == MbarOp::TryWait;
  if (di.parity && !wait) return invalid(".parity is a qualifier of mbarrier.test_wait and try_wait");
  if (di.noinc && di.mbar != MbarOp::CpAsyncArrive) return invalid(".noinc is a qualifier of cp.async.mbarrier.arrive");
  // Operands: a result (all but init, expect_tx, complete_tx, inval and cp.async...arrive), the
  // mbarrier's address (all but pending_count), then the operation's values.
  const bool result = di.mbar == MbarOp::Arrive || di.mbar == MbarOp::ArriveDrop || wait || di.mbar == MbarOp::PendingCount;
  const bool address = di.mbar != MbarOp::PendingCount;
  unsigned minValues = 0, maxValues = 0;
  switch (di.mbar) {
    case MbarOp::Init:
    case MbarOp::ExpectTx:
    case MbarOp::CompleteTx: minValues = maxValues = 1; break;
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop: minValues = di.expectTx ? 1 : 0, maxValues = 1; break;
    case MbarOp::TestWait: minValues = maxValues = 1; break;
    case MbarOp::TryWait: minValues = 1, maxValues = 2; break;  // state or parity, a suspend-time hint
    case MbarOp::PendingCount: minValues = maxValues = 1; break;
    default: break;
  }
  const unsigned n = inst.numOperands(), fixed = (result ? 1u : 0u) + (address ? 1u : 0u);
  if (n < fixed + minValues || n > fixed + maxValues)
    return invalid(std::string(name) + (cpAsync ? "" : "." + op) + " takes " + std::to_string(fixed + minValues) +
                   (maxValues > minValues ? " or " + std::to_string(fixed + maxValues) : std::string()) + " operand(s); this one has " +
                   std::to_string(n));
  uint32_t k = 0;
  if (result) {
    const Operand& o = inst.operand(k++);
    if (o.kind == OperandKind::Address) return invalid(std::string("mbarrier.") + op + "'s first operand is its result");
    if (!dstSlot(o, di.dst[di.ndst++])) return false;
  }
  if (address) {
    const Operand& o = inst.operand(k++);
    if (o.kind != OperandKind::Address) return invalid(std::string(name) + " needs the mbarrier's address, [addr]");
    if (!decodeAddress(o, di)) return false;
    if (!di.addrFromReg && di.addrSym.kind != SymRef::Kind::None && di.addrSym.kind != SymRef::Kind::SharedVar)
      return invalid("the mbarrier names '" + std::string(m_.str(o.id)) + "', which is not a .shared variable");
    di.space = sharedSpace || di.addrSym.kind == SymRef::Kind::SharedVar ? StateSpace::Shared : StateSpace::Generic;
  }
  for (; k < n; ++k) {
    const Operand& o = inst.operand(k);
    if (o.kind != OperandKind::Reg && !o.isImm()) return invalid(std::string(name) + "'s values are registers or constants");
    const bool state = (wait && !di.parity && di.nsrc == 0) || di.mbar == MbarOp::PendingCount;
    if (!srcSlot(f, o, state ? ScalarType::B64 : ScalarType::U32, di.src[di.nsrc++])) return false;
  }
  di.hasCount = di.nsrc > 0;
  di.op = XOp::Mbarrier;
  return true;
}

// cp.async.bulk (PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk"): global or
// the CTA's shared memory to shared memory, completing tx bytes on an mbarrier
// (.mbarrier::complete_tx::bytes), and shared memory to global memory in bulk groups
// (.bulk_group); cp.async.bulk.commit_group and wait_group{.read} N; cp.async.bulk.prefetch (no
// effect); the tiled tensor copies (decodeTensorCopy) and cp.reduce.async.bulk into global memory
// of 32- and 64-bit elements. .multicast::cluster, .cp_mask, im2col and the reductions into
// shared memory are not emulated.
bool Decoder::decodeBulk(DFunction& f, const Instruction& inst, DInst& di) {
  std::vector<StateSpace> spaces;
  DBulkCopy c;
  bool mbarrier = false, bulkGroup = false, hint = false, prefetch = false, read = false, tile = false;
  const bool reduction = std::any_of(inst.mods().begin(), inst.mods().end(),
                                     [&](Mod m) { return modName(m, m_.strings()) == ".reduce"; });
  static const std::pair<Mod, AtomOp> kReduceOps[] = {
      {Mod::And, AtomOp::And}, {Mod::Or, AtomOp::Or},   {Mod::Xor, AtomOp::Xor}, {Mod::Add, AtomOp::Add},
      {Mod::Inc, AtomOp::Inc}, {Mod::Dec, AtomOp::Dec}, {Mod::Min, AtomOp::Min}, {Mod::Max, AtomOp::Max}};
  auto reduceOp = [&](Mod m) {
    return std::find_if(std::begin(kReduceOps), std::end(kReduceOps), [&](const auto& o) { return o.first == m; });
  };
  unsigned tensorRank = 0;
  std::string form;
  for (Mod m : inst.mods()) {
    if (modType(m)) continue;
    if (auto sp = modSpace(m)) {
      spaces.push_back(*sp);
      continue;
    }
    const std::string t(modName(m, m_.strings()));
    if (t == ".async" || t == ".bulk" || t == ".reduce" || t == ".noftz") continue;
    if (reduction && reduceOp(m) != std::end(kReduceOps)) {
      c.reduce = reduceOp(m)->second;
      c.reduction = true;
      continue;
    }
    if (t == ".mbarrier::complete_tx::bytes") mbarrier = true;
    else if (t == ".bulk_group") bulkGroup = true;
    else if (t == ".L2::cache_hint") hint = true;
    else if (t == ".prefetch") prefetch = true;
    else if (t == ".L2" && prefetch) {
    } else if (t == ".read") read = true;
    else if (t == ".commit_group" || t == ".wait_group") form = t;
    else if (t == ".tensor") tensorRank = tensorRank ? tensorRank : 6;  // the rank comes with .Nd
    else if (t.size() == 3 && t[0] == '.' && t[1] >= '1' && t[1] <= '5' && t[2] == 'd') tensorRank = static_cast<unsigned>(t[1] - '0');
    else if (t == ".tile") tile = true;
    else if (t == ".multicast::cluster" || t == ".cp_mask" || t == ".im2col" || t == ".im2col::w" ||
             t == ".im2col::w::128" || t == ".tile::gather4" || t == ".tile::scatter4")
      return fail("cp.async.bulk with " + t + " is not emulated");
    else return invalid("unexpected qualifier '" + t + "' on cp.async.bulk");
  }
  if (form == ".commit_group") {
    if (inst.numOperands() != 0 || read) return invalid("cp.async.bulk.commit_group takes no operands");
    di.op = XOp::CpAsyncBulkCommit;
    return true;
  }
  if (form == ".wait_group") {
    if (inst.numOperands() != 1 || !inst.operand(0).isImm() || inst.operand(0).value < 0 || inst.operand(0).value > 0xFFFFFFFFll)
      return invalid("cp.async.bulk.wait_group takes one non-negative integer constant");
    di.op = XOp::CpAsyncBulkWait;
    di.call = static_cast<uint32_t>(inst.operand(0).value);
    di.readOnly = read;
    return true;
  }
  if (read) return invalid(".read is a qualifier of cp.async.bulk.wait_group");
  const uint32_t n = inst.numOperands();
  if (prefetch && tensorRank) {  // cp.async.bulk.prefetch.tensor: no effect
    di.op = XOp::Nop;
    return true;
  }
  if (tensorRank) {
    if (reduction) return fail("cp.reduce.async.bulk.tensor is not emulated");
    return decodeTensorCopy(f, inst, di, spaces, mbarrier, bulkGroup, tensorRank, tile, hint);
  }
  if (prefetch) {
    if (n != 2u + hint || inst.operand(0).kind != OperandKind::Address)
      return invalid("cp.async.bulk.prefetch.L2.global takes [src], size and, with .L2::cache_hint, a cache-policy");
    di.op = XOp::Nop;
    return true;
  }
  const bool toShared = spaces.size() == 2 && (spaces[0] == StateSpace::SharedCluster || spaces[0] == StateSpace::SharedCta);
  if (toShared && (spaces[1] == StateSpace::Global || spaces[1] == StateSpace::SharedCta) && mbarrier && !bulkGroup) {
    c.fromShared = spaces[1] == StateSpace::SharedCta;
  } else if (spaces.size() == 2 && spaces[0] == StateSpace::Global && spaces[1] == StateSpace::SharedCta && bulkGroup && !mbarrier) {
    c.toGlobal = true;
  } else {
    return invalid(
        "cp.async.bulk copies .global to .shared::cluster (or .shared::cta) with .mbarrier::complete_tx::bytes, "
        ".shared::cta to .shared::cluster with .mbarrier::complete_tx::bytes, or .shared::cta to .global with "
        ".bulk_group");
  }
  if (reduction && !c.toGlobal)
    return fail("cp.reduce.async.bulk other than .global.shared::cta.bulk_group is not emulated");
  const uint32_t need = (c.toGlobal ? 3u : 4u) + hint;
  if (n != need)
    return invalid("cp.async.bulk takes [dst], [src], size" + std::string(c.toGlobal ? "" : ", [mbar]") +
                   (hint ? ", a cache-policy" : "") + "; this one has " + std::to_string(n) + " operand(s)");
  if (inst.operand(0).kind != OperandKind::Address || inst.operand(1).kind != OperandKind::Address ||
      (!c.toGlobal && inst.operand(3).kind != OperandKind::Address))
    return invalid("cp.async.bulk's [dst], [src] and [mbar] are addresses");
  if (!decodeAddress(inst.operand(0), di) || !decodeAddress(inst.operand(1), c.src)) return false;
  if (!c.toGlobal && !decodeAddress(inst.operand(3), c.mbar)) return false;
  const Operand& size = inst.operand(2);
  if (size.kind != OperandKind::Reg && !size.isImm()) return invalid("cp.async.bulk's size is a register or a constant");
  if (size.isImm() && (size.value <= 0 || size.value % 16))
    return invalid("cp.async.bulk size " + std::to_string(size.value) + " is not a positive multiple of 16");
  if (!srcSlot(f, size, ScalarType::U32, di.src[di.nsrc++])) return false;
  if (reduction) {
    if (!c.reduction) return invalid("cp.reduce.async.bulk needs its operation (.add, .min, .max, .inc, .dec, .and, .or, .xor)");
    const unsigned bits = typeBits(di.t);
    if (bits != 32 && bits != 64)
      return fail("cp.reduce.async.bulk of " + std::string(typeName(di.t)) + " elements is not emulated (32- and 64-bit ones are)");
  }
  di.op = XOp::CpAsyncBulk;
  di.space = c.toGlobal ? StateSpace::Global : StateSpace::Shared;
  di.call = static_cast<uint32_t>(f.bulkCopies.size());
  f.bulkCopies.push_back(c);
  return true;
}

// cp.async.bulk.tensor.{1..5}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// {.L2::cache_hint} [dst], [tensorMap, {c0, ...}], [mbar]{, policy}: the box of the tensor map
// at the coordinates, into shared memory, completing its bytes on the mbarrier; and the store,
// cp.async.bulk.tensor.{1..5}d.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
// [tensorMap, {c0, ...}], [src]{, policy}: the box from shared memory to the tensor's elements at
// the coordinates (those inside the tensor), in a bulk group.
bool Decoder::decodeTensorCopy(DFunction& f, const Instruction& inst, DInst& di, const std::vector<StateSpace>& spaces,
                               bool mbarrier, bool bulkGroup, unsigned rank, bool tile, bool hint) {
  if (rank > 5) return invalid("cp.async.bulk.tensor needs its dimensions (.1d to .5d)");
  const bool store = spaces.size() == 2 && spaces[0] == StateSpace::Global && spaces[1] == StateSpace::SharedCta && bulkGroup &&
                     !mbarrier;
  if (!store && (spaces.size() != 2 || (spaces[0] != StateSpace::SharedCluster && spaces[0] != StateSpace::SharedCta) ||
                 spaces[1] != StateSpace::Global || !mbarrier))
    return fail("cp.async.bulk.tensor other than global to shared memory with .mbarrier::complete_tx::bytes, or shared to "
                "global memory with .bulk_group, is not emulated");
  (void)tile;  // .tile is the default load mode
  const uint32_t n = inst.numOperands();
  if (store ? n != 2u + hint || inst.operand(1).kind != OperandKind::Address
            : n != 3u + hint || inst.operand(0).kind != OperandKind::Address || inst.operand(2).kind != OperandKind::Address)
    return invalid(std::string(store ? "cp.async.bulk.tensor (a store) takes [tensorMap, {coordinates}], [src]"
                                     : "cp.async.bulk.tensor takes [dst], [tensorMap, {coordinates}], [mbar]") +
                   (hint ? " and a cache-policy" : ""));
  const Operand& map = inst.operand(store ? 0 : 1);
  if (map.kind != OperandKind::Bracket || map.aux != 2)
    return invalid("cp.async.bulk.tensor's second operand is [tensorMap, {coordinates}]");
  DBulkCopy c;
  c.tensorRank = static_cast<uint8_t>(rank);
  const Operand& handle = inst.elements(map)[0];
  const Operand& coords = inst.elements(map)[1];
  if (handle.kind == OperandKind::Reg) {
    c.tensorMap.fromReg = true;
    c.tensorMap.slot = handle.id;
  } else if (handle.kind == OperandKind::Symbol) {
    c.tensorMap.sym = resolveSymbol(handle.id);
    if (c.tensorMap.sym.kind == SymRef::Kind::None) return fail("unknown symbol " + std::string(m_.str(handle.id)));
  } else {
    return invalid("cp.async.bulk.tensor's tensor map is a register or a parameter's name");
  }
  std::vector<Operand> cs;
  if (coords.kind == OperandKind::Vector)
    for (const Operand& e : inst.elements(coords)) cs.push_back(e);
  else
    cs.push_back(coords);
  if (cs.size() != rank)
    return invalid("cp.async.bulk.tensor." + std::to_string(rank) + "d takes " + std::to_string(rank) + " coordinate(s), not " +
                   std::to_string(cs.size()));
  for (const Operand& e : cs)
    if (!srcSlot(f, e, ScalarType::S32, di.src[di.nsrc++])) return false;
  if (store) {
    c.toGlobal = true;
    if (!decodeAddress(inst.operand(1), c.src)) return false;
    di.op = XOp::CpAsyncBulk;
    di.space = StateSpace::Global;
    di.call = static_cast<uint32_t>(f.bulkCopies.size());
    f.bulkCopies.push_back(c);
    return true;
  }
  if (!decodeAddress(inst.operand(0), di) || !decodeAddress(inst.operand(2), c.mbar)) return false;
  di.op = XOp::CpAsyncBulk;
  di.space = StateSpace::Shared;
  di.call = static_cast<uint32_t>(f.bulkCopies.size());
  f.bulkCopies.push_back(c);
  return true;
}

// mapa{.space}.u32/.u64 d, a, rank: the address of `a` in the CTA of the cluster with `rank`.
// Clusters have one CTA here, so rank 0 gives `a` itself; another rank faults.
bool Decoder::decodeMapa(DFunction& f, const Instruction& inst, DInst& di) {
  if (!decodeOperands(f, inst, di)) return false;
  if (di.ndst != 1 || di.nsrc != 2) return fail("mapa with a variable operand is not emulated");
  di.op = XOp::Mapa;
  return true;
}

// tensormap.replace.tile.FIELD{.global,.shared::cta}.b1024.{b32,b64} [map], {ord,} new_val (ord a
// constant) and tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE
// .sync.aligned [dst], [src], 128 (docs/EMULATOR.md, "Tensor maps").
bool Decoder::decodeTensormap(DFunction& f, const Instruction& inst, DInst& di) {
  std::vector<StateSpace> spaces;
  std::vector<std::string> names;
  ScalarType valueType = ScalarType::B32;
  for (Mod m : inst.mods()) {
    if (auto sp = modSpace(m)) {
      spaces.push_back(*sp == StateSpace::SharedCta ? StateSpace::Shared : *sp);  // .shared::cta is the CTA's .shared
      continue;
    }
    if (auto t = modType(m)) {
      valueType = *t;
      continue;
    }
    names.emplace_back(modName(m, m_.strings()));
  }
  auto has = [&](std::string_view t) { return std::find(names.begin(), names.end(), t) != names.end(); };
  if (has(".cp_fenceproxy")) {
    if (inst.numOperands() != 3 || inst.operand(0).kind != OperandKind::Address || inst.operand(1).kind != OperandKind::Address ||
        !inst.operand(2).isImm())
      return invalid("tensormap.cp_fenceproxy takes [dst], [src], size");
    if (inst.operand(2).value != 128) return invalid("tensormap.cp_fenceproxy copies 128 bytes");
    if (spaces.size() != 2 || spaces[0] != StateSpace::Global || spaces[1] != StateSpace::Shared)
      return invalid("tensormap.cp_fenceproxy copies from .shared::cta to .global");
    if (!decodeAddress(inst.operand(0), di)) return false;
    DBulkCopy c;
    if (!decodeAddress(inst.operand(1), c.src)) return false;
    di.space = StateSpace::Global;
    di.call = static_cast<uint32_t>(f.bulkCopies.size());
    f.bulkCopies.push_back(c);
    di.op = XOp::TensormapCopy;
    return true;
  }
  if (!has(".replace")) return fail("tensormap without .replace or .cp_fenceproxy is not emulated");
  if (!has(".tile")) return fail("tensormap.replace of a mode other than .tile is not emulated");
  static const char* const kFields[] = {".global_address", ".rank", ".box_dim", ".global_dim", ".global_stride", ".element_stride",
                                        ".elemtype", ".interleave_layout", ".swizzle_mode", ".swizzle_atomicity", ".fill_mode"};
  int field = -1;
  for (unsigned k = 0; k < std::size(kFields); ++k)
    if (has(kFields[k])) field = static_cast<int>(k);
  if (field < 0) return invalid("tensormap.replace without a field (.global_address, .rank, .box_dim, ...)");
  const auto tf = static_cast<TensorMapField>(field);
  const bool perDim = tf == TensorMapField::BoxDim || tf == TensorMapField::GlobalDim || tf == TensorMapField::GlobalStride ||
                      tf == TensorMapField::ElementStride;
  const bool wide = tf == TensorMapField::GlobalAddress || tf == TensorMapField::GlobalStride;
  const std::string name = std::string("tensormap.replace") + kFields[field];
  if (typeBits(valueType) != (wide ? 64u : 32u)) return invalid(name + " takes a ." + (wide ? "b64" : "b32") + " value");
  if (spaces.size() > 1 || (spaces.size() == 1 && spaces[0] != StateSpace::Global && spaces[0] != StateSpace::Shared))
    return invalid(name + ": the tensor map is in .global or .shared::cta memory");
  if (inst.numOperands() != (perDim ? 3u : 2u) || inst.operand(0).kind != OperandKind::Address)
    return invalid(name + (perDim ? " takes [map], ord, new_val" : " takes [map], new_val"));
  if (!decodeAddress(inst.operand(0), di)) return false;
  di.space = spaces.empty() ? StateSpace::Generic : spaces[0];
  di.call = 0;
  if (perDim) {
    const Operand& ord = inst.operand(1);
    if (!ord.isImm() || ord.value < 0 || ord.value > 4) return invalid(name + ": ord is a constant, 0 to 4");
    di.call = static_cast<uint32_t>(ord.value);
  }
  if (!srcSlot(f, inst.operand(perDim ? 2 : 1), valueType, di.src[di.nsrc++])) return false;
  di.tmapField = static_cast<uint8_t>(field);
  di.op = XOp::TensormapReplace;
  return true;
}

}  // namespace ptxopt::emu::decoding

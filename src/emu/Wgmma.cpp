// Warpgroup MMA (sm_90a): wgmma.fence, wgmma.mma_async, wgmma.commit_group and
// wgmma.wait_group (PTX ISA, section 9.7.15; docs/EMULATOR.md, "Tensor cores"). A warpgroup is four
// consecutive warps, the first with a warp index that is a multiple of 4; each of its warps
// executes each of these instructions with all 32 lanes. The multiply of a warpgroup is the rule
// of Mma.h over a 64 x N accumulator whose rows 16w .. 16w+15 the group's warp w holds, and those
// rows depend on that warp's registers and on shared memory only: each warp computes its own
// rows. An mma_async is recorded at issue (its descriptors, scale-d and register A) and computed
// when the wait_group that completes its group runs: shared memory is read then, and the
// accumulator registers are read and written then.
#include <bit>
#include <cstdio>

#include "Cta.h"

namespace ptxopt::emu {

namespace {

const char* wgmmaName(XOp op) {
  switch (op) {
    case XOp::WgmmaFence:
      return "wgmma.fence";
    case XOp::WgmmaMma:
      return "wgmma.mma_async";
    case XOp::WgmmaCommit:
      return "wgmma.commit_group";
    default:
      return "wgmma.wait_group";
  }
}

// Element (row, col) of the 16 x N accumulator slice that element i of lane `lane` holds (PTX
// ISA, section 9.7.15.5.1.1.1, the register fragment of D): lane / 4 is the row, 8 below for
// elements 2 and 3 of each group of 4; each group of 4 is the next 8 columns, lane % 4 picking
// the column pair.
int accRow(int lane, unsigned i) {
  return (lane >> 2) + 8 * static_cast<int>((i >> 1) & 1);
}
int accCol(int lane, unsigned i) {
  return 8 * static_cast<int>(i >> 2) + 2 * (lane & 3) + static_cast<int>(i & 1);
}

uint64_t signBit(MmaType t) {
  return uint64_t(1) << (mmaTypeBits(t) - 1);
}

// The value of per-lane slot `v` that every lane of the warp must agree on.
template <typename Fault>
uint64_t uniform(const uint64_t* v, const char* what, Fault&& fault) {
  for (int lane = 1; lane < 32; ++lane)
    if (v[lane] != v[0])
      fault(lane, std::string(what) + " differs between the lanes of the warp (lane 0 and lane " +
                      std::to_string(lane) + "); it is one value for the warpgroup");
  return v[0];
}

}  // namespace

// .sync.aligned over a warpgroup: every lane of the warp, and the four warps of the group are
// whole warps of the CTA. Whether the other warps reach the same instruction is not checked:
// warps run one at a time, each as far as it can, and each warp's rows are its own (above).
void CtaRunner::checkWarpgroup(const Warp& w, const DInst& I, uint32_t exec) {
  const std::string name = wgmmaName(I.op);
  if (exec != kFullWarp) {
    char lanes[16];
    std::snprintf(lanes, sizeof lanes, "0x%08x", exec);
    faultAt(w, std::countr_zero(exec), I,
            name +
                " is .sync.aligned over a warpgroup: all 32 lanes of each of its 4 warps must execute it together, "
                "but only lanes " +
                lanes + " of warp " + std::to_string(w.index) + " do here");
  }
  const uint32_t first = w.index / 4 * 4;
  for (uint32_t g = first; g < first + 4; ++g)
    if (g >= warps_.size() || warps_[g].valid != kFullWarp)
      faultAt(w, 0, I,
              name + " needs the whole warpgroup of warps " + std::to_string(first) + "-" + std::to_string(first + 3) +
                  " (128 threads), but warp " + std::to_string(g) + " is missing or partial (the CTA has " +
                  std::to_string(L_.threadsPerCta) + " threads)");
}

void CtaRunner::wgmma(Warp& w, const DInst& I, uint32_t exec) {
  checkWarpgroup(w, I, exec);
  if (wgmma_.empty()) wgmma_.resize(warps_.size());
  WgmmaWarp& s = wgmma_[w.index];
  switch (I.op) {
    case XOp::WgmmaFence:
      // Orders the warp's register and shared-memory accesses before the mma_async operations
      // that follow; in this model they read both at completion, so it has nothing to do.
      break;
    case XOp::WgmmaMma:
      wgmmaIssue(w, I);
      break;
    case XOp::WgmmaCommit:
      ++s.committed;
      break;
    default: {
      // Completes every committed group but the newest I.call, oldest first; uncommitted
      // operations stay pending.
      const uint64_t keep = I.call;
      size_t done = 0;
      for (; done < s.ops.size() && s.ops[done].group + keep < s.committed; ++done) wgmmaComplete(w, I, s.ops[done]);
      s.ops.erase(s.ops.begin(), s.ops.begin() + static_cast<std::ptrdiff_t>(done));
      break;
    }
  }
}

void CtaRunner::wgmmaIssue(Warp& w, const DInst& I) {
  Frame* f = w.stack.back().frame;
  const DMatrixOp& op = f->fn->matrixOps[I.call];
  WgmmaWarp& s = wgmma_[w.index];
  auto fault = [&](int lane, const std::string& what) { faultAt(w, lane, I, "wgmma.mma_async: " + what); };
  PendingWgmma p;
  p.op = &op;
  p.frame = f;
  p.line = I.line;
  p.group = s.committed;
  p.epoch = barrierEpoch_;
  if (!op.aInRegs) p.descA = uniform(f->slot(op.descASlot), "a-desc", fault);
  p.descB = uniform(f->slot(op.descBSlot), "b-desc", fault);
  // The base offset applies to the swizzled modes only.
  for (uint64_t desc : {op.aInRegs ? p.descB : p.descA, p.descB})
    if (const MatrixDescriptor d = decodeMatrixDescriptor(desc); d.baseOffset != 0 && d.swizzle != Swizzle::None)
      fault(0, "a matrix descriptor with a base offset (" + std::to_string(d.baseOffset) + ") is not emulated");
  p.scaleD =
      op.scaleDConst ? op.scaleD : ((uniform(f->slot(op.scaleDSlot), "scale-d", fault) & 1) != 0) != op.scaleDNegated;
  for (uint32_t r : op.a) p.a.insert(p.a.end(), f->slot(r), f->slot(r) + 32);
  const bool chained =
      std::any_of(s.ops.begin(), s.ops.end(), [&](const PendingWgmma& o) { return o.frame == f && o.op->d == op.d; });
  if (!chained)
    for (uint32_t r : op.d) p.accAtIssue.insert(p.accAtIssue.end(), f->slot(r), f->slot(r) + 32);
  s.ops.push_back(std::move(p));
}

// One pending mma_async of warp `w`, computed at the wait_group `I` that completes it: this
// warp's 16 rows of D = A * B + C (C = 0 when scale-d is false).
void CtaRunner::wgmmaComplete(Warp& w, const DInst& I, const PendingWgmma& p) {
  const DMatrixOp& op = *p.op;
  const MmaForm& F = op.form;
  Frame* f = w.stack.back().frame;
  const std::string from = "the wgmma.mma_async at line " + std::to_string(p.line);
  if (f != p.frame) faultAt(w, 0, I, "wgmma.wait_group completes " + from + ", which another function call issued");
  const unsigned rows = 16, n = F.n, k = F.k, eb = mmaTypeBits(F.a) / 8;
  std::vector<uint64_t> A(rows * k), B(static_cast<size_t>(k) * n), C(rows * n), D(rows * n);
  const unsigned firstRow = (w.index % 4) * 16;
  bool raced = false;  // one report per operation
  auto shared = [&](uint32_t addr, unsigned bytes) {
    StateSpace space = StateSpace::Shared;
    const uint8_t* b = memory(w, I, space, addr, bytes, 0, false, false, nullptr);
    if (L_.opts.checkRaces && !raced) raced = checkWgmmaRead(p, w.index * 32, addr, bytes);
    return loadElement(b, bytes);
  };
  // A: from the registers at issue, in mma.sync's m16n8kK A fragment (PTX ISA, section 9.7.15.5.1.1.1:
  // the same layout per warp), or from shared memory.
  if (op.aInRegs) {
    MmaForm frag = F;
    frag.m = 16, frag.n = 8;
    const FragmentLayout L = mmaFragment(frag, MatrixRole::A);
    const unsigned per = 32 / mmaTypeBits(F.a), bits = mmaTypeBits(F.a);
    for (int lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < L.perLane; ++i) {
        const MatrixCoord c = L.at(lane, static_cast<int>(i));
        const uint64_t reg = p.a[(i / per) * 32 + static_cast<unsigned>(lane)];
        A[c.row * k + c.col] = (reg >> (bits * (i % per))) & ((uint64_t(1) << bits) - 1);
      }
  } else {
    const MatrixDescriptor d = decodeMatrixDescriptor(p.descA);
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned c = 0; c < k; ++c)
        A[r * k + c] = shared(descriptorElementAddress(d, eb, op.transA, firstRow + r, c), eb);
  }
  const MatrixDescriptor db = decodeMatrixDescriptor(p.descB);
  for (unsigned r = 0; r < k; ++r)
    for (unsigned c = 0; c < n; ++c) B[r * n + c] = shared(descriptorElementAddress(db, eb, op.transB, c, r), eb);
  if (op.negA)
    for (uint64_t& x : A) x ^= signBit(F.a);
  if (op.negB)
    for (uint64_t& x : B) x ^= signBit(F.b);
  // C: the accumulator registers now (the program must not have touched them since the issue).
  const unsigned per = F.d == MmaType::F16 ? 2 : 1, bits = mmaTypeBits(F.d);
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  for (size_t r = 0; r < op.d.size(); ++r) {
    const uint64_t* reg = f->slot(op.d[r]);
    for (int lane = 0; lane < 32; ++lane) {
      if (!p.accAtIssue.empty() && reg[lane] != p.accAtIssue[r * 32 + static_cast<size_t>(lane)])
        faultAt(w, lane, I,
                "the accumulator registers of " + from +
                    " were written before the wgmma.wait_group that completes it (undefined in PTX)");
      for (unsigned s = 0; s < per; ++s) {
        const unsigned i = static_cast<unsigned>(r) * per + s;
        C[static_cast<size_t>(accRow(lane, i)) * n + static_cast<size_t>(accCol(lane, i))] =
            p.scaleD ? (reg[lane] >> (bits * s)) & mask : 0;
      }
    }
  }
  MmaForm slice = F;
  slice.m = rows;
  multiplyAccumulate(slice, A.data(), B.data(), C.data(), D.data());
  for (size_t r = 0; r < op.d.size(); ++r) {
    uint64_t* reg = f->slot(op.d[r]);
    for (int lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (unsigned s = 0; s < per; ++s) {
        const unsigned i = static_cast<unsigned>(r) * per + s;
        v |= (D[static_cast<size_t>(accRow(lane, i)) * n + static_cast<size_t>(accCol(lane, i))] & mask) << (bits * s);
      }
      reg[lane] = v;
    }
  }
}

// The reads at completion are checked like loads of lane 0 at the wait_group (memory()); a write
// by another thread that no barrier orders with them is reported there. A write ordered after
// the issue by a barrier is ordered with the reads too, but a GPU may read the bytes at any
// time after the issue: it is reported here. (A write in the same barrier epoch as the issue
// cannot be told from one before the issue, so a write by the warp itself between the issue
// and the wait is not reported.)
bool CtaRunner::checkWgmmaRead(const PendingWgmma& p, uint32_t thread, uint64_t addr, unsigned bytes) {
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  for (uint64_t k = 0; k < bytes; ++k) {
    auto it = sharedShadow_.find(addr + k);
    if (it == sharedShadow_.end() || !it->second.write.valid || it->second.write.epoch <= p.epoch) continue;
    Access read;
    read.thread = thread;
    read.cta = linear_;
    read.line = p.line;
    read.valid = true;
    L_.reportRace("shared", it->second.write, read, accessKind(it->second.write, true), "wgmma.mma_async read",
                  raceWhere(addr + k), false,
                  "while the wgmma.mma_async was in flight (a barrier after its issue does not order its "
                  "asynchronous read: only the wgmma.wait_group that completes it does)");
    return true;
  }
  return false;
}

}  // namespace ptxopt::emu

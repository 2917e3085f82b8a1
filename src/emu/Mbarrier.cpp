// mbarrier, the bulk asynchronous copies (cp.async.bulk) and mapa (docs/EMULATOR.md, "mbarrier"
// and "Bulk copies").
//
// An mbarrier is eight bytes of shared memory, and its state lives there, in this emulator's own
// encoding (the GPU's is not documented):
//
//   bits  0-19  pending arrivals of the current phase
//   bits 20-39  expected arrivals (the count each phase starts with)
//   bits 40-60  tx-count, 21-bit two's complement (PTX ISA: -(2^20-1) to 2^20-1)
//   bit  62     initialized (set by mbarrier.init, cleared by mbarrier.inval)
//   bit  63     the current phase's parity
//
// So a plain ld of the barrier reads this state and a plain st replaces it (both undefined in
// PTX; here the barrier then has the state written). The state token an arrive returns is the
// barrier's eight bytes before the arrive: test_wait/try_wait with a token is complete when the
// barrier's phase parity differs from the token's, and mbarrier.pending_count reads the token's
// pending arrivals. A phase completes (PTX ISA, "mbarrier: Phase Completion") when its pending
// arrivals and its tx-count are both zero: the parity flips, the pending arrivals start again at
// the expected count, the tx-count at zero, and the bulk copies (and the cp.async copies of
// cp.async.mbarrier.arrive) that named the barrier land, in issue order.
//
// A bulk copy reads its source when it issues and completes as late as the ISA lets it: when a
// test_wait or try_wait on its mbarrier would otherwise fail, the barrier's copies that have not
// completed yet perform their complete-tx (the wait then sees the phase complete if that was what
// it lacked). Their bytes land when the phase completes. So a wait that passes without them (a
// wait on the wrong parity, on the wrong barrier) leaves them in flight, and a read of the
// destination is then a race (--check-races) that reads the old bytes, as on a GPU whose copy is
// slow; a copy nobody waits for never lands.
#include <algorithm>
#include <bit>
#include <cstring>

#include "Cta.h"
#include "Mma.h"
#include "ptxopt/support/Text.h"

namespace ptxopt::emu {

namespace {

struct MbarState {
  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  bool valid = false, parity = false;
};

constexpr uint64_t kCountMask = kMbarrierMaxCount;
constexpr unsigned kExpectedShift = 20, kTxShift = 40, kTxBits = 21, kValidBit = 62, kParityBit = 63;

MbarState decodeState(uint64_t v) {
  MbarState s;
  s.pending = static_cast<uint32_t>(v & kCountMask);
  s.expected = static_cast<uint32_t>((v >> kExpectedShift) & kCountMask);
  const uint32_t tx = static_cast<uint32_t>((v >> kTxShift) & ((1u << kTxBits) - 1));
  s.tx = (tx >> (kTxBits - 1)) ? static_cast<int32_t>(tx) - (1 << kTxBits) : static_cast<int32_t>(tx);
  s.valid = (v >> kValidBit) & 1;
  s.parity = (v >> kParityBit) & 1;
  return s;
}

uint64_t encodeState(const MbarState& s) {
  const uint64_t tx = static_cast<uint64_t>(static_cast<uint32_t>(s.tx) & ((1u << kTxBits) - 1));
  return (uint64_t(s.pending) & kCountMask) | ((uint64_t(s.expected) & kCountMask) << kExpectedShift) | (tx << kTxShift) |
         (uint64_t(s.valid) << kValidBit) | (uint64_t(s.parity) << kParityBit);
}

const char* opName(MbarOp op) {
  switch (op) {
    case MbarOp::Init: return "mbarrier.init";
    case MbarOp::Arrive: return "mbarrier.arrive";
    case MbarOp::ArriveDrop: return "mbarrier.arrive_drop";
    case MbarOp::ExpectTx: return "mbarrier.expect_tx";
    case MbarOp::CompleteTx: return "mbarrier.complete_tx";
    case MbarOp::TestWait: return "mbarrier.test_wait";
    case MbarOp::TryWait: return "mbarrier.try_wait";
    case MbarOp::PendingCount: return "mbarrier.pending_count";
    case MbarOp::Inval: return "mbarrier.inval";
    case MbarOp::CpAsyncArrive: return "cp.async.mbarrier.arrive";
  }
  return "mbarrier";
}


// The coordinates a tensor copy names (registers src[0..rank), signed 32-bit).
void tensorCoordinates(Frame* f, const DInst& I, int lane, uint32_t rank, int64_t (&coord)[5]) {
  for (uint32_t k = 0; k < 5; ++k) coord[k] = k < rank ? static_cast<int32_t>(f->slot(I.src[k])[lane]) : 0;
}

// Each element of the box at `coord`, innermost dimension first: f(its index in the box, whether
// it lies inside the tensor, its global address).
template <class F>
void forEachBoxElement(const TensorMapDesc& d, const int64_t (&coord)[5], F&& f) {
  uint32_t index[5] = {0, 0, 0, 0, 0};
  for (uint64_t e = 0, n = d.boxBytes() / d.elemBytes; e < n; ++e) {
    bool inside = true;
    uint64_t addr = d.base;
    for (uint32_t k = 0; k < d.rank; ++k) {
      const int64_t i = coord[k] + index[k];
      inside = inside && i >= 0 && static_cast<uint64_t>(i) < d.dims[k];
      addr += static_cast<uint64_t>(i) * (k == 0 ? d.elemBytes : d.strides[k - 1]);
    }
    f(e, inside, addr);
    for (uint32_t k = 0; k < d.rank && ++index[k] == d.box[k]; ++k) index[k] = 0;
  }
}

// The shared-memory swizzle of a tensor map's swizzle mode (0: none, 1-3: 32, 64, 128 bytes).
Swizzle swizzleOf(const TensorMapDesc& d) {
  return d.swizzle == 1 ? Swizzle::B32 : d.swizzle == 2 ? Swizzle::B64 : d.swizzle == 3 ? Swizzle::B128 : Swizzle::None;
}

}  // namespace

std::string CtaRunner::describeMbarrier(uint32_t mbar) const {
  uint64_t v = 0;
  if (mbar + 8 <= shared_.size()) std::memcpy(&v, shared_.data() + mbar, 8);
  const MbarState s = decodeState(v);
  if (!s.valid) return "it is not initialized";
  return "phase parity " + std::to_string(s.parity) + ", pending arrivals " + std::to_string(s.pending) + " of " +
         std::to_string(s.expected) + ", tx-count " + std::to_string(s.tx);
}

uint32_t CtaRunner::mbarrierAt(Warp& w, const DInst& I, int lane, StateSpace space, uint64_t addr, bool write, bool atomic) {
  StateSpace resolved = space;
  const uint8_t* p = memory(w, I, space, addr, 8, lane, write, atomic, nullptr, &resolved);
  if (!isSharedSpace(resolved))
    faultAt(w, lane, I,
            std::string(I.op == XOp::Mbarrier ? opName(I.mbar) : "cp.async.bulk") + ": the mbarrier at " + hexNumber(addr) +
                " is not in shared memory (it is in the " + std::string(spaceName(resolved)).substr(1) + " space)",
            FaultKind::Address);
  return static_cast<uint32_t>(p - shared_.data());
}

CtaRunner::MbarOrder::Barrier& CtaRunner::orderOf(uint32_t mbar) {
  MbarOrder::Barrier& b = order_->barriers[mbar];
  if (b.pending.empty()) {
    b.pending.assign(order_->slots, 0);
    b.completed.assign(order_->slots, 0);
  }
  return b;
}

void CtaRunner::releaseTo(uint32_t t, uint32_t mbar) {
  if (!order_) return;
  MbarOrder::Barrier& b = orderOf(mbar);
  const uint32_t* acquired = order_->acquired.data() + static_cast<size_t>(t) * order_->slots;
  for (uint32_t s = 0; s < order_->slots; ++s) b.pending[s] = std::max(b.pending[s], acquired[s]);
  b.pending[t] = std::max(b.pending[t], order_->clock[t] + 1);
  ++order_->clock[t];
}

void CtaRunner::acquireFrom(uint32_t t, uint32_t mbar) {
  if (!order_) return;
  const MbarOrder::Barrier& b = orderOf(mbar);
  uint32_t* acquired = order_->acquired.data() + static_cast<size_t>(t) * order_->slots;
  for (uint32_t s = 0; s < order_->slots; ++s) acquired[s] = std::max(acquired[s], b.completed[s]);
}

void CtaRunner::wakeMbarrierWaiters() {
  if (!mbarParked_) return;
  mbarParked_ = 0;
  for (Warp& w : warps_)
    for (StackEntry& e : w.stack)
      if (e.parked && e.barrier == kMbarrierPark) {
        e.parked = false;
        e.barrier = -1;
      }
}

void CtaRunner::completePhase(uint32_t mbar) {
  uint64_t v;
  std::memcpy(&v, shared_.data() + mbar, 8);
  MbarState s = decodeState(v);
  s.parity = !s.parity;
  s.pending = s.expected;
  s.tx = 0;
  v = encodeState(s);
  std::memcpy(shared_.data() + mbar, &v, 8);
  if (order_) {  // the arrivals of the phase become visible to whoever sees it complete
    MbarOrder::Barrier& b = orderOf(mbar);
    for (uint32_t k = 0; k < order_->slots; ++k) b.completed[k] = std::max(b.completed[k], b.pending[k]);
    std::fill(b.pending.begin(), b.pending.end(), 0);
  }
  // The copies that complete on this barrier land, in issue order.
  size_t kept = 0;
  for (size_t k = 0; k < bulkToShared_.size(); ++k) {
    BulkCopy& c = bulkToShared_[k];
    if (c.mbar != mbar) {
      if (kept != k) bulkToShared_[kept] = std::move(c);
      ++kept;
      continue;
    }
    landShared(c.thread, c.dst, c.bytes.data(), c.bytes.size(), c.line, c.id, true, true);
    if (!c.globalReads.empty()) {  // its source is no longer read
      std::lock_guard<std::mutex> lock(L_.raceMutex);
      for (const auto& [at, n] : c.globalReads)
        for (uint64_t b = 0; b < n; ++b) {
          auto it = globalInFlight_.find(at + b);
          if (it != globalInFlight_.end() && it->second.copy == c.id) globalInFlight_.erase(it);
        }
    }
  }
  bulkToShared_.resize(kept);
  for (uint32_t t = 0; t < async_.size(); ++t) {
    std::vector<PendingCopy>& copies = async_[t].copies;
    size_t left = 0;
    for (const PendingCopy& c : copies) {
      if (c.mbar == mbar + 1) landShared(t, c.dst, c.bytes, c.size, c.line, c.id, false, true);
      else copies[left++] = c;
    }
    copies.resize(left);
  }
  if (order_) {  // the landed copies: ordered for whoever sees this completion
    MbarOrder::Barrier& b = orderOf(mbar);
    uint32_t& proxy = order_->clock[order_->proxy()];
    b.completed[order_->proxy()] = std::max(b.completed[order_->proxy()], proxy + 1);
    ++proxy;
  }
  wakeMbarrierWaiters();
}

bool CtaRunner::completeBulkCopies(uint32_t mbar) {
  int64_t bytes = 0;
  for (BulkCopy& c : bulkToShared_)
    if (c.mbar == mbar && !c.txDone) {
      c.txDone = true;
      bytes += static_cast<int64_t>(c.bytes.size());
    }
  if (!bytes) return false;
  uint64_t v;
  std::memcpy(&v, shared_.data() + mbar, 8);
  MbarState s = decodeState(v);
  // A tx-count below the range is undefined; it is kept at the bottom of the range here.
  s.tx = static_cast<int32_t>(std::max<int64_t>(int64_t(s.tx) - bytes, -int64_t(kMbarrierMaxCount)));
  v = encodeState(s);
  std::memcpy(shared_.data() + mbar, &v, 8);
  if (s.valid && s.pending == 0 && s.tx == 0) completePhase(mbar);
  return true;
}

// One mbarrier operation per lane, lane by lane (each is atomic on the barrier's bytes).
bool CtaRunner::mbarrier(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const uint64_t* val = I.nsrc ? f->slot(I.src[0]) : nullptr;
  uint64_t* out = I.ndst ? f->slot(I.dst[0]) : nullptr;
  if (I.mbar == MbarOp::PendingCount) {  // reads the token only
    forLanes(exec, [&](int lane) { out[lane] = val[lane] & kCountMask; });
    return true;
  }
  if (L_.opts.checkRaces && !order_) {
    order_ = std::make_unique<MbarOrder>();
    order_->slots = L_.threadsPerCta + 1;
    order_->clock.assign(order_->slots, 0);
    order_->acquired.assign(static_cast<size_t>(order_->slots) * order_->slots, 0);
  }
  const bool wait = I.mbar == MbarOp::TestWait || I.mbar == MbarOp::TryWait;
  const bool plain = I.mbar == MbarOp::Init || I.mbar == MbarOp::Inval;  // not atomic: racing with them is a race
  const MemRef ref = memRefOf(w, I);
  bool anyComplete = false;
  uint32_t firstBarrier = 0;
  forLanes(exec, [&](int lane) {
    const uint32_t thread = w.index * 32 + static_cast<uint32_t>(lane);
    const uint32_t at = mbarrierAt(w, I, lane, ref.space, ref.address(I, lane), !wait, !plain);
    if (lane == std::countr_zero(exec)) firstBarrier = at;
    uint64_t v;
    std::memcpy(&v, shared_.data() + at, 8);
    MbarState old = decodeState(v);
    MbarState s = old;
    auto fault = [&](const std::string& what) {
      faultAt(w, lane, I, std::string(opName(I.mbar)) + " on the mbarrier at shared " + hexNumber(at) + ": " + what);
    };
    auto count = [&](uint64_t c, const char* what) {
      if (c < 1 || c > kMbarrierMaxCount)
        fault(std::string(what) + " " + std::to_string(c) + " is outside 1 to 2^20-1 (undefined in PTX)");
      return static_cast<uint32_t>(c);
    };
    auto addTx = [&](int64_t d) {
      const int64_t tx = int64_t(s.tx) + d;
      if (tx < -int64_t(kMbarrierMaxCount) || tx > int64_t(kMbarrierMaxCount))
        fault("the tx-count " + std::to_string(s.tx) + (d < 0 ? " - " : " + ") + std::to_string(d < 0 ? -d : d) +
              " leaves -(2^20-1) to 2^20-1 (undefined in PTX)");
      s.tx = static_cast<int32_t>(tx);
    };
    if (I.mbar == MbarOp::Init) {
      const uint32_t c = count(val[lane] & 0xFFFFFFFFu, "the count");
      s = MbarState{c, c, 0, true, false};
      if (order_) order_->barriers.erase(at);
    } else if (!old.valid) {
      fault("it is not initialized (mbarrier.init), or mbarrier.inval invalidated it");
    }
    switch (I.mbar) {
      case MbarOp::Init: break;
      case MbarOp::Inval: s = MbarState{}; break;
      case MbarOp::Arrive:
      case MbarOp::ArriveDrop:
      case MbarOp::CpAsyncArrive: {
        if (I.expectTx) addTx(static_cast<int64_t>(val[lane] & 0xFFFFFFFFu));
        if (I.mbar == MbarOp::CpAsyncArrive) {
          // The arrive-on happens when the thread's cp.async copies so far have landed: they
          // land with this phase (or at their wait_group, whichever comes first). Without
          // .noinc the pending count is raised by one first, so the arrive changes no count.
          if (!async_.empty())
            for (PendingCopy& c : async_[thread].copies)
              if (!c.mbar) c.mbar = at + 1;
          if (!I.noinc) break;
        }
        const uint32_t c = I.hasCount && !I.expectTx ? count(val[lane] & 0xFFFFFFFFu, "the arrival count") : 1;
        if (c > s.pending) {
          // An arrival for the next phase while this one waits for its copies: they have
          // completed by now (a wait that passed without them took the wrong phase).
          const int32_t added = s.tx - old.tx;  // this operation's expect_tx
          if (completeBulkCopies(at)) {
            std::memcpy(&v, shared_.data() + at, 8);
            old = s = decodeState(v);
            addTx(added);
          }
        }
        if (c > s.pending)
          fault("an arrival count of " + std::to_string(c) + " with " + std::to_string(s.pending) +
                " pending arrival(s) in the current phase (undefined in PTX)");
        if (I.mbar == MbarOp::ArriveDrop) {
          if (c > s.expected) fault("it drops " + std::to_string(c) + " of " + std::to_string(s.expected) + " expected arrival(s)");
          s.expected -= c;
        }
        s.pending -= c;
        break;
      }
      case MbarOp::ExpectTx: addTx(static_cast<int64_t>(val[lane] & 0xFFFFFFFFu)); break;
      case MbarOp::CompleteTx: addTx(-static_cast<int64_t>(val[lane] & 0xFFFFFFFFu)); break;
      case MbarOp::TestWait:
      case MbarOp::TryWait: {
        // Complete when the phase named -- by its parity, or by a token of it -- is not the
        // current one (PTX ISA, "mbarrier.test_wait/mbarrier.try_wait").
        const bool named = I.parity ? (val[lane] & 1) != 0 : (val[lane] >> kParityBit) != 0;
        bool complete = named != s.parity;
        if (!complete && completeBulkCopies(at)) {  // the barrier's copies complete as late as this
          std::memcpy(&v, shared_.data() + at, 8);
          complete = named != decodeState(v).parity;
        }
        out[lane] = complete;
        anyComplete |= complete;
        if (complete) acquireFrom(thread, at);
        return;
      }
      case MbarOp::PendingCount: return;
    }
    if (out) out[lane] = v;  // the state token: the barrier before the operation
    if (I.mbar == MbarOp::Arrive || I.mbar == MbarOp::ArriveDrop || I.mbar == MbarOp::CpAsyncArrive) releaseTo(thread, at);
    v = encodeState(s);
    std::memcpy(shared_.data() + at, &v, 8);
    const bool changed = s.pending != old.pending || s.tx != old.tx;
    if (s.valid && changed && s.pending == 0 && s.tx == 0) completePhase(at);
    else if (plain) wakeMbarrierWaiters();
  });
  if (I.mbar == MbarOp::TryWait && exec && !anyComplete) {
    // No lane's phase has completed: the warp waits here (try_wait may suspend the thread until
    // the phase completes) and runs the instruction again when a phase completes or shared
    // memory changes. A phase that never completes is a deadlock, reported as one.
    StackEntry& e = w.stack.back();
    e.parked = true;
    e.barrier = kMbarrierPark;
    e.syncGroup = firstBarrier;
    ++mbarParked_;
    return false;
  }
  return true;
}

// ---- cp.async.bulk ----------------------------------------------------------------------------

void CtaRunner::bulkCopy(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const DBulkCopy& c = f->fn->bulkCopies[I.call];
  if (c.toGlobal && bulk_.empty()) bulk_.resize(L_.threadsPerCta);
  const MemRef dstRef = memRefOf(w, I);
  const uint64_t* sizes = c.tensorRank ? nullptr : f->slot(I.src[0]);
  auto addressOf = [&](const DAddress& a, int lane) -> uint64_t {
    if (a.fromReg) return f->slot(a.slot)[lane] + static_cast<uint64_t>(a.offset);
    if (a.sym.kind == SymRef::Kind::None) return static_cast<uint64_t>(a.offset);
    StateSpace sp;
    return symbolAddress(w, a.sym, a.offset, sp);
  };
  forLanes(exec, [&](int lane) {
    const uint32_t thread = w.index * 32 + static_cast<uint32_t>(lane);
    if (c.tensorRank && c.toGlobal) return tensorStore(w, I, lane, c, addressOf(c.tensorMap, lane), addressOf(c.src, lane));
    // A tensor copy reads its box at the issue; its size is the box's.
    std::vector<uint8_t> box;
    std::vector<std::pair<uint64_t, uint32_t>> globalReads;  // with the race check: what a copy into shared memory read
    if (c.tensorRank)
      box = readTensorBox(w, I, lane, c, addressOf(c.tensorMap, lane), dstRef.address(I, lane),
                          L_.opts.checkRaces ? &globalReads : nullptr);
    const uint64_t size = c.tensorRank ? box.size() : sizes[lane] & 0xFFFFFFFFu;
    auto fault = [&](const std::string& what) {
      faultAt(w, lane, I, std::string(c.tensorRank ? "cp.async.bulk.tensor" : "cp.async.bulk") + " of " + std::to_string(size) +
                              " bytes: " + what, FaultKind::Address);
    };
    if (!size || size % 16) fault("the size is not a positive multiple of 16");
    // A range of the CTA's shared memory (shared::cluster addresses of a one-CTA cluster are the
    // CTA's own), or of one global allocation; 16-byte aligned.
    auto checkShared = [&](uint64_t a, const char* role) {
      if (windowOf(a) == StateSpace::Shared)
        fault(std::string(role) + " " + hexNumber(a) + " is a generic address: cp.async.bulk takes a shared-space address (cvta.to.shared)");
      if (a >= shared_.size() || shared_.size() - a < size)
        fault(std::string(role) + " at shared offset " + hexNumber(a) + " is outside the CTA's " + std::to_string(shared_.size()) +
              " bytes of shared memory");
      if (a % 16) fault("misaligned " + std::string(role) + " at shared address " + hexNumber(a) + " (16-byte alignment needed)");
    };
    auto checkGlobal = [&](uint64_t a, const char* role) -> uint8_t* {
      if (windowOf(a) != StateSpace::Global)
        fault(std::string(role) + " " + hexNumber(a) + " is not a global address (it is in the " +
              std::string(spaceName(windowOf(a))).substr(1) + " window)");
      if (a % 16) fault("misaligned " + std::string(role) + " at global address " + hexNumber(a) + " (16-byte alignment needed)");
      uint8_t* p = L_.global->find(a, size);
      if (!p) fault(std::string(role) + " out of bounds: " + L_.global->describe(a));
      return p;
    };
    const uint64_t dst = dstRef.address(I, lane), src = addressOf(c.src, lane);
    // The source is read at the issue.
    std::vector<uint8_t> bytes(size);
    if (c.tensorRank) {
      bytes = std::move(box);
      if (dst % 128) fault("misaligned destination at shared address " + hexNumber(dst) + " (a tensor copy needs 128-byte alignment)");
    } else if (c.toGlobal || c.fromShared) {
      checkShared(src, "source");
      if (L_.opts.checkRaces) recordAccess(w, I, StateSpace::Shared, src, size, lane, false, false);
      std::memcpy(bytes.data(), shared_.data() + src, size);
    } else {
      const uint8_t* p = checkGlobal(src, "source");
      if (L_.opts.checkRaces) {
        recordAccess(w, I, StateSpace::Global, src, size, lane, false, false);
        globalReads.emplace_back(src, static_cast<uint32_t>(size));
      }
      loadGlobalBytes(bytes.data(), p, size);
    }
    if (c.toGlobal) {
      checkGlobal(dst, "destination");
      BulkThread& t = bulk_[thread];
      BulkStore store{dst, std::move(bytes), t.groups, I.line, static_cast<uint32_t>(src), 0, false, c.reduction, c.reduce, I.t};
      if (L_.opts.checkRaces) {  // the source is in flight until a wait_group{.read}: a write to it races
        store.id = nextCopyId_++;
        store.reading = true;
        std::lock_guard<std::mutex> lock(L_.raceMutex);
        for (uint64_t k = 0; k < size; ++k)
          inFlight_.try_emplace(src + k, InFlight{store.id, thread, I.line, InFlightKind::BulkRead});
      }
      t.stores.push_back(std::move(store));
      return;
    }
    checkShared(dst, "destination");
    const uint32_t mbar = mbarrierAt(w, I, lane, StateSpace::Shared, addressOf(c.mbar, lane), false, true);
    uint64_t v;
    std::memcpy(&v, shared_.data() + mbar, 8);
    if (!decodeState(v).valid) fault("its mbarrier at shared " + hexNumber(mbar) + " is not initialized (mbarrier.init)");
    // Its complete-tx (PTX ISA, "mbarrier: tx-count") comes when a wait on the barrier needs it.
    BulkCopy copy{mbar, static_cast<uint32_t>(dst), std::move(bytes), I.line, thread, 0, false, {}};
    if (L_.opts.checkRaces) {
      copy.id = nextCopyId_++;
      issueAsyncWrite(w, I, lane, dst, size, copy.id, true);
      // Its global source is read until it lands: a write to it meanwhile races.
      std::lock_guard<std::mutex> lock(L_.raceMutex);
      for (const auto& [at, n] : globalReads)
        for (uint64_t k = 0; k < n; ++k)
          globalInFlight_.try_emplace(at + k, InFlight{copy.id, thread, I.line, InFlightKind::BulkSourceRead});
      copy.globalReads = std::move(globalReads);
    }
    bulkToShared_.push_back(std::move(copy));
    // A warp parked at a wait on this barrier must look again: the copy's complete-tx comes
    // when a wait needs it.
    if (mbarParked_) wakeMbarrierWaiters();
  });
}

// The tensor map of a tensor copy (docs/EMULATOR.md, "Tensor maps"), from its bytes in param,
// const or global memory, checked for what the copy emulates.
TensorMapDesc CtaRunner::tensorMapAt(Warp& w, const DInst& I, int lane, const DBulkCopy& c, uint64_t mapAddr) {
  // The map: a generic address, or (below every window and global address) a kernel
  // parameter's param-space offset, as `mov.u64 %rd, param` gives it.
  StateSpace space = windowOf(mapAddr);
  uint64_t at = mapAddr - windowBase(space);
  if (space == StateSpace::Global && mapAddr < kGlobalBase) space = StateSpace::Param, at = mapAddr;
  if (c.tensorMap.sym.kind == SymRef::Kind::KernelParam) space = StateSpace::Param;
  uint8_t raw[kTensorMapBytes];
  for (uint64_t k = 0; k < kTensorMapBytes; ++k) raw[k] = *memory(w, I, space, at + k, 1, lane, false, false, nullptr);
  TensorMapDesc d;
  std::string why;
  if (!decodeTensorMap(raw, d, &why)) {
    if (std::memcmp(raw, "ptxTMAP1", 8) != 0)
      faultAt(w, lane, I,
              "cp.async.bulk.tensor: the 128 bytes at " + hexNumber(mapAddr) +
                  " do not hold a tensor map (a launch spec's \"tensormap\" parameter makes one)",
              FaultKind::Address);
    faultAt(w, lane, I, "cp.async.bulk.tensor: the tensor map at " + hexNumber(mapAddr) + " is not valid: " + why);
  }
  // Fields a kernel's tensormap.replace (or cuTensorMapEncodeTiled) may set that the copy does
  // not emulate. A swizzle (1, 2, 3: 32, 64, 128 bytes) needs an innermost box of its span.
  if (d.interleave || d.swizzle > 3)
    faultAt(w, lane, I, "cp.async.bulk.tensor: a tensor map with " +
                            std::string(d.interleave ? "interleave layout " + std::to_string(d.interleave)
                                                     : "swizzle mode " + std::to_string(d.swizzle)) +
                            " is not emulated");
  const uint32_t span = d.swizzle ? 16u << d.swizzle : 0;
  if (span && d.box[0] * d.elemBytes != span)
    faultAt(w, lane, I, "cp.async.bulk.tensor: a " + std::to_string(span) + "-byte swizzle of an innermost box of " +
                            std::to_string(d.box[0] * d.elemBytes) + " bytes (only boxes whose innermost dimension is the "
                            "swizzle's span are emulated)");
  for (uint32_t k = 0; k < d.rank; ++k)
    if (d.elementStrides[k] != 1)
      faultAt(w, lane, I, "cp.async.bulk.tensor: a tensor map with element stride " + std::to_string(d.elementStrides[k]) +
                              " in dimension " + std::to_string(k) + " is not emulated");
  if (d.rank != c.tensorRank)
    faultAt(w, lane, I,
            "cp.async.bulk.tensor." + std::to_string(c.tensorRank) + "d with a tensor map of rank " + std::to_string(d.rank));
  if (d.boxBytes() > shared_.size())  // before reading it: a box may be far larger than any CTA's shared memory
    faultAt(w, lane, I,
            "cp.async.bulk.tensor: the box (" + std::to_string(d.boxBytes()) + " bytes) is larger than the CTA's " +
                std::to_string(shared_.size()) + " bytes of shared memory",
            FaultKind::Address);
  return d;
}

// The box of a tensor load: the box's elements at the coordinates, innermost first, with zeros
// for the elements outside the tensor.
std::vector<uint8_t> CtaRunner::readTensorBox(Warp& w, const DInst& I, int lane, const DBulkCopy& c, uint64_t mapAddr,
                                             uint64_t dst, std::vector<std::pair<uint64_t, uint32_t>>* reads) {
  const TensorMapDesc d = tensorMapAt(w, I, lane, c, mapAddr);
  const uint32_t span = d.swizzle ? 16u << d.swizzle : 0;
  int64_t coord[5];
  tensorCoordinates(w.stack.back().frame, I, lane, d.rank, coord);
  std::vector<uint8_t> out(d.boxBytes(), 0);
  forEachBoxElement(d, coord, [&](uint64_t e, bool inside, uint64_t addr) {
    if (!inside) return;
    const uint8_t* p = L_.global->find(addr, d.elemBytes);
    if (!p) faultAt(w, lane, I, "cp.async.bulk.tensor: element at " + hexNumber(addr) + ": " + L_.global->describe(addr), FaultKind::Address);
    if (L_.opts.checkRaces) recordAccess(w, I, StateSpace::Global, addr, d.elemBytes, lane, false, false);
    if (reads) {  // consecutive elements extend the last range
      if (!reads->empty() && reads->back().first + reads->back().second == addr) reads->back().second += d.elemBytes;
      else reads->emplace_back(addr, d.elemBytes);
    }
    loadGlobalBytes(out.data() + e * d.elemBytes, p, d.elemBytes);
  });
  // A swizzled box lands with its 16-byte chunks where wgmma's swizzle modes read them
  // (swizzleAddress: the chunk index XOR the row index, by shared address bits). A destination
  // that is not 128-byte aligned faults in bulkCopy.
  if (span && dst % 128 == 0) {
    const Swizzle s = swizzleOf(d);
    std::vector<uint8_t> swizzled(out.size());
    for (uint64_t o = 0; o < out.size(); o += 16)
      std::memcpy(swizzled.data() + (swizzleAddress(s, static_cast<uint32_t>(dst + o)) - dst), out.data() + o, 16);
    out = std::move(swizzled);
  }
  return out;
}

// A tensor store (cp.async.bulk.tensor...global.shared::cta.bulk_group): the box at shared
// address `src` (read as a swizzled load would have left it) goes to the tensor's elements at the
// coordinates that lie inside the tensor; the others are dropped. The bytes are read at the
// issue and land as bulk stores of the thread's open group (a run of elements contiguous in
// both memories is one store), their shared source in flight until a wait_group{.read}.
void CtaRunner::tensorStore(Warp& w, const DInst& I, int lane, const DBulkCopy& c, uint64_t mapAddr, uint64_t src) {
  const TensorMapDesc d = tensorMapAt(w, I, lane, c, mapAddr);
  const uint64_t size = d.boxBytes();
  auto fault = [&](const std::string& what) {
    faultAt(w, lane, I, "cp.async.bulk.tensor of " + std::to_string(size) + " bytes: " + what, FaultKind::Address);
  };
  if (windowOf(src) == StateSpace::Shared)
    fault("source " + hexNumber(src) + " is a generic address: cp.async.bulk.tensor takes a shared-space address (cvta.to.shared)");
  if (src >= shared_.size() || shared_.size() - src < size)
    fault("source at shared offset " + hexNumber(src) + " is outside the CTA's " + std::to_string(shared_.size()) +
          " bytes of shared memory");
  if (src % 128) fault("misaligned source at shared address " + hexNumber(src) + " (a tensor copy needs 128-byte alignment)");
  if (L_.opts.checkRaces) recordAccess(w, I, StateSpace::Shared, src, size, lane, false, false);
  const Swizzle swizzle = swizzleOf(d);
  int64_t coord[5];
  tensorCoordinates(w.stack.back().frame, I, lane, d.rank, coord);
  const uint32_t thread = w.index * 32 + static_cast<uint32_t>(lane);
  BulkThread& t = bulk_[thread];
  const size_t first = t.stores.size();
  uint64_t runEnd = 0;  // where the last store's global and shared bytes end
  uint32_t runSrcEnd = 0;
  forEachBoxElement(d, coord, [&](uint64_t e, bool inside, uint64_t addr) {
    if (!inside) return;
    if (!L_.global->find(addr, d.elemBytes))
      faultAt(w, lane, I, "cp.async.bulk.tensor: element at " + hexNumber(addr) + ": " + L_.global->describe(addr), FaultKind::Address);
    // An element never straddles a 16-byte chunk, so a swizzle moves it whole.
    const uint64_t at = src + e * d.elemBytes;
    const uint32_t from = swizzle == Swizzle::None ? static_cast<uint32_t>(at) : swizzleAddress(swizzle, static_cast<uint32_t>(at));
    const uint8_t* bytes = shared_.data() + from;
    if (t.stores.size() > first && runEnd == addr && runSrcEnd == from) {
      std::vector<uint8_t>& run = t.stores.back().bytes;
      run.insert(run.end(), bytes, bytes + d.elemBytes);
    } else {
      t.stores.push_back(BulkStore{addr, std::vector<uint8_t>(bytes, bytes + d.elemBytes), t.groups, I.line, from, 0, false, false,
                                   AtomOp::Add, I.t});
    }
    runEnd = addr + d.elemBytes, runSrcEnd = from + d.elemBytes;
  });
  if (!L_.opts.checkRaces) return;
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  for (size_t k = first; k < t.stores.size(); ++k) {  // each source is in flight until a wait_group{.read}
    BulkStore& s = t.stores[k];
    s.id = nextCopyId_++;
    s.reading = true;
    for (uint64_t b = 0; b < s.bytes.size(); ++b) inFlight_.try_emplace(s.src + b, InFlight{s.id, thread, I.line, InFlightKind::BulkRead});
  }
}

void CtaRunner::bulkCommit(Warp& w, uint32_t exec) {
  if (bulk_.empty()) return;  // no bulk store yet: an empty group changes no count that matters
  forLanes(exec, [&](int lane) { ++bulk_[w.index * 32 + static_cast<uint32_t>(lane)].groups; });
}

void CtaRunner::bulkWait(Warp& w, const DInst& I, uint32_t exec) {
  if (bulk_.empty()) return;
  forLanes(exec, [&](int lane) {
    const uint32_t thread = w.index * 32 + static_cast<uint32_t>(lane);
    const BulkThread& t = bulk_[thread];
    if (t.groups <= I.call) return;
    // The sources were read at the issue; .read waits for that only, so it lands nothing.
    finishBulkReads(thread, t.groups - I.call);
    if (!I.readOnly) landBulkStores(thread, t.groups - I.call);
  });
}

void CtaRunner::finishBulkReads(uint32_t thread, uint64_t limit) {
  if (!L_.opts.checkRaces) return;
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  for (BulkStore& s : bulk_[thread].stores) {
    if (s.group >= limit || !s.reading) continue;
    s.reading = false;
    for (uint64_t b = 0; b < s.bytes.size(); ++b) {
      auto it = inFlight_.find(s.src + b);
      if (it != inFlight_.end() && it->second.copy == s.id) inFlight_.erase(it);
    }
  }
}

// Lands the thread's bulk stores of groups below `limit` in global memory, in issue order (a
// cp.reduce.async.bulk combines each element with the destination's, atomically). With the race
// check each byte's last write becomes the thread's (no race is checked at the landing itself).
void CtaRunner::landBulkStores(uint32_t thread, uint64_t limit) {
  std::vector<BulkStore>& stores = bulk_[thread].stores;
  size_t kept = 0;
  for (size_t k = 0; k < stores.size(); ++k) {
    BulkStore& s = stores[k];
    if (s.group >= limit) {
      if (kept != k) stores[kept] = std::move(s);
      ++kept;
      continue;
    }
    uint8_t* p = L_.global->find(s.dst, s.bytes.size());
    if (s.reduction) {  // element by element, atomically for the CTAs on other host threads
      const unsigned eb = typeBits(s.type) / 8;
      for (size_t k = 0; k < s.bytes.size(); k += eb) {
        uint64_t y = 0;
        std::memcpy(&y, s.bytes.data() + k, eb);
        atomicUpdate(p + k, eb, true, [&](uint64_t old) { return atomicCombine(s.reduce, s.type, eb * 8, old, y, 0); });
      }
    } else {
      storeGlobalBytes(p, s.bytes.data(), s.bytes.size());
    }
    if (!L_.opts.checkRaces) continue;
    const Warp& w = warps_[thread / 32];
    Access a;
    a.thread = thread;
    a.cta = linear_;
    a.line = s.line;
    a.epoch = barrierEpoch_;
    a.warpEpoch = w.syncEpoch;
    a.warp = static_cast<uint16_t>(w.index);
    a.valid = true;
    a.async = a.bulk = true;
    a.atomic = a.strong = s.reduction;  // reductions are atomic: they do not race with each other
    if (order_) a.mbarClock = order_->clock[thread];
    std::lock_guard<std::mutex> lock(L_.raceMutex);
    for (uint64_t b = 0; b < s.bytes.size(); ++b) {
      Shadow& sh = L_.globalShadow[s.dst + b];
      sh.write = a;
      sh.writtenKnown = !s.reduction;
      sh.written = s.bytes[b];
    }
  }
  stores.resize(kept);
}

void CtaRunner::mapa(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const uint64_t* a = f->slot(I.src[0]);
  const uint64_t* rank = f->slot(I.src[1]);
  uint64_t* d = f->slot(I.dst[0]);
  const uint64_t mask = typeBits(I.t) == 32 ? 0xFFFFFFFFu : ~uint64_t(0);
  forLanes(exec, [&](int lane) {
    if ((rank[lane] & 0xFFFFFFFFu) != 0)
      faultAt(w, lane, I,
              "mapa to CTA rank " + std::to_string(rank[lane] & 0xFFFFFFFFu) +
                  ": a cluster has one CTA in this emulator (%cluster_nctarank is 1)");
    d[lane] = a[lane] & mask;
  });
}

// ---- tensormap.replace and tensormap.cp_fenceproxy -------------------------------------------

// The 128 bytes of a tensor map at `addr` in `space` (a generic address finds its window), read
// (write false) or written 8 bytes at a time: the race checker sees them as loads and stores.
void CtaRunner::tensorMapBytes(Warp& w, const DInst& I, StateSpace space, uint64_t addr, int lane, uint8_t bytes[128], bool write,
                               const uint8_t* before) {
  const uint64_t inSpace = space == StateSpace::Generic ? addr - windowBase(windowOf(addr)) : addr;
  if (inSpace % 64)
    faultAt(w, lane, I, "the tensor map at " + hexNumber(addr) + " is not 64-byte aligned", FaultKind::Address);
  for (unsigned k = 0; k < 128; k += 8) {
    if (write && before && std::memcmp(before + k, bytes + k, 8) == 0) continue;  // unchanged
    storeBytes_ = write ? bytes + k : nullptr;
    uint8_t* p = memory(w, I, space, addr + k, 8, lane, write, false, nullptr);
    storeBytes_ = nullptr;
    if (write) std::memcpy(p, bytes + k, 8);
    else std::memcpy(bytes + k, p, 8);
  }
}

void CtaRunner::tensormapReplace(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  const uint64_t* values = f->slot(I.src[0]);
  const auto field = static_cast<TensorMapField>(I.tmapField);
  forLanes(exec, [&](int lane) {
    const uint64_t at = a.address(I, lane);
    uint8_t before[128], bytes[128];
    tensorMapBytes(w, I, a.space, at, lane, before, false, nullptr);
    std::memcpy(bytes, before, 128);
    const std::string why = replaceTensorMapField(bytes, field, I.call, values[lane]);
    if (!why.empty())
      faultAt(w, lane, I, std::string("tensormap.replace.") + tensorMapFieldName(field) + " of the tensor map at " + hexNumber(at) + ": " + why);
    tensorMapBytes(w, I, a.space, at, lane, bytes, true, before);
  });
}

void CtaRunner::tensormapCopy(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const MemRef dst = memRefOf(w, I);
  const DAddress& src = f->fn->bulkCopies[I.call].src;
  // A warp-wide (.sync.aligned) copy: lanes that name the same maps as the lane before them
  // copy nothing more.
  uint64_t lastFrom = 0, lastTo = 0;
  bool first = true;
  forLanes(exec, [&](int lane) {
    uint64_t from = static_cast<uint64_t>(src.offset);
    if (src.fromReg) {
      from += f->slot(src.slot)[lane];
    } else if (src.sym.kind != SymRef::Kind::None) {
      StateSpace sp;
      from = symbolAddress(w, src.sym, src.offset, sp);
    }
    const uint64_t to = dst.address(I, lane);
    if (!first && from == lastFrom && to == lastTo) return;
    first = false, lastFrom = from, lastTo = to;
    uint8_t bytes[128];
    tensorMapBytes(w, I, StateSpace::Shared, from, lane, bytes, false, nullptr);
    tensorMapBytes(w, I, StateSpace::Global, to, lane, bytes, true, nullptr);
  });
}

}  // namespace ptxopt::emu

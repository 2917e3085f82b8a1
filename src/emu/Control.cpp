// Memory instructions, atomics, calls, printf, CTA barriers and warp-collective operations.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <span>

#include "Cta.h"
#include "ptxopt/support/Text.h"
#include "Printf.h"
#include "Semantics.h"

namespace ptxopt::emu {

namespace {

uint64_t extendLoaded(uint64_t raw, unsigned bytes, ScalarType t) {
  if (isSignedType(t) && bytes < 8) return static_cast<uint64_t>(signExtend(raw, bytes * 8));
  return raw;
}

}  // namespace

// The address of ld/st/atom for each lane: a register plus offset, or a symbol resolved once
// (parameter symbols stay symbolic: `memory` finds them in the right frame).
CtaRunner::MemRef CtaRunner::memRefOf(Warp& w, const DInst& I) {
  MemRef a;
  a.space = I.space;
  if (I.addrFromReg) {
    a.base = w.stack.back().frame->slot(I.addrSlot);
    return a;
  }
  SymRef::Kind k = I.addrSym.kind;
  if (k == SymRef::Kind::FrameParam || k == SymRef::Kind::CalleeParam || k == SymRef::Kind::CalleeRetval ||
      k == SymRef::Kind::KernelParam) {
    a.sym = &I.addrSym;
  } else if (k != SymRef::Kind::None) {
    StateSpace symSpace;
    a.symAddr = symbolAddress(w, I.addrSym, I.addrOffset, symSpace);
    if (a.space == StateSpace::Generic) a.space = symSpace;
  } else {
    a.symAddr = static_cast<uint64_t>(I.addrOffset);
  }
  return a;
}

void CtaRunner::load(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  const unsigned eb = I.elemBytes, total = eb * I.vec;
  forLanes(exec, [&](int lane) {
    const uint8_t* p = memory(w, I, a.space, a.address(I, lane), total, lane, false, false, a.sym);
    for (unsigned k = 0; k < I.vec && k < I.ndst; ++k) f->slot(I.dst[k])[lane] = extendLoaded(loadElement(p + k * eb, eb), eb, I.t);
  });
}

void CtaRunner::store(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  const unsigned eb = I.elemBytes, total = eb * I.vec;
  if (L_.opts.checkRaces) {  // the bytes first: the race checker compares them with the last write's
    uint8_t bytes[64] = {};
    forLanes(exec, [&](int lane) {
      for (unsigned k = 0; k < I.vec && k < I.nsrc && (k + 1) * eb <= sizeof bytes; ++k)
        storeElement(bytes + k * eb, eb, f->slot(I.src[k])[lane]);
      storeBytes_ = total <= sizeof bytes ? bytes : nullptr;
      uint8_t* p = memory(w, I, a.space, a.address(I, lane), total, lane, true, false, a.sym);
      storeBytes_ = nullptr;
      for (unsigned k = 0; k < I.vec && k < I.nsrc; ++k) storeElement(p + k * eb, eb, f->slot(I.src[k])[lane]);
    });
    return;
  }
  forLanes(exec, [&](int lane) {
    uint8_t* p = memory(w, I, a.space, a.address(I, lane), total, lane, true, false, a.sym);
    for (unsigned k = 0; k < I.vec && k < I.nsrc; ++k) storeElement(p + k * eb, eb, f->slot(I.src[k])[lane]);
  });
}

const TextureDesc& CtaRunner::objectOf(Warp& w, const DInst& I, int lane, uint64_t h, bool surface, ObjectSeen& seen) {
  if (seen.desc && seen.handle == h) return *seen.desc;
  const char* kind = surface ? "surface" : "texture";
  const std::string hex = hexNumber(h);
  const TextureDesc* d = L_.global->texture(h);
  if (!d)
    faultAt(w, lane, I, std::string(kind) + " handle " + hex +
                            (L_.global->textureDestroyed(h) ? " names a destroyed object" : " is not a " + std::string(kind) + " object"));
  if (d->surface != surface)
    faultAt(w, lane, I, std::string(kind) + " handle " + hex + " is a " + (d->surface ? "surface" : "texture") + " object");
  if (I.op == XOp::TexQuery) {  // a query reads the object's description, not its texels
    seen = ObjectSeen{h, d, nullptr};
    return *d;
  }
  if (I.texCube ? !d->cubemap || d->layered != I.texLayered
                : d->cubemap || d->dims != I.texDims || d->layered != I.texLayered)
    faultAt(w, lane, I, "a " + std::string(I.texLayered ? "layered " : "") +
                            (I.texCube ? "cubemap" : std::to_string(I.texDims) + "D") +
                            (surface ? " access to a surface" : " fetch from a texture") + " that is " + describeTexture(*d));
  const uint8_t* texels = L_.global->find(d->base, d->spanBytes());
  if (!texels)
    faultAt(w, lane, I, "the texels of " + std::string(kind) + " " + std::to_string(h) + " (" + describeTexture(*d) + " at " +
                            hexNumber(d->base) + ") are not in device memory: " + L_.global->describe(d->base));
  seen = ObjectSeen{h, d, texels};
  return *d;
}

// tex through a texture object: each lane's handle names a texture of the launch's global
// memory (GlobalMemory::texture); the texels must still lie in one live allocation.
void CtaRunner::texture(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const uint64_t* handles = f->slot(I.src[0]);
  const unsigned first = I.texLayered ? 2 : 1;  // the first coordinate's source
  ObjectSeen seen;
  forLanes(exec, [&](int lane) {
    const TextureDesc* d = &objectOf(w, I, lane, handles[lane], false, seen);
    const uint8_t* texels = seen.texels;
    uint32_t coords[3] = {0, 0, 0};
    for (unsigned k = 0; k < I.texDims; ++k) coords[k] = static_cast<uint32_t>(f->slot(I.src[first + k])[lane]);
    const int32_t layer = I.texLayered ? static_cast<int32_t>(f->slot(I.src[1])[lane]) : 0;
    uint32_t out[4];
    TexelsRead read;
    TexelsRead* const readOut = L_.opts.checkRaces ? &read : nullptr;
    if (I.texGather) gatherTexture(*d, texels, coords, layer, I.texGather - 1u, out, readOut);
    else fetchTexture(*d, texels, I.texIntCoords, coords, layer, out, readOut);
    for (unsigned k = 0; k < read.count; ++k)
      checkIncoherentRead(w, I, I.texGather ? "texture gather" : "texture fetch", d->base + read.offset[k], d->texelBytes(),
                          lane, false);
    const bool sext = I.t == ScalarType::S32;
    for (unsigned c = 0; c < 4 && c < I.ndst; ++c)
      f->slot(I.dst[c])[lane] = sext ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(out[c]))) : out[c];
  });
}

// txq / suq: an attribute of each lane's texture or surface object (queryTexture).
void CtaRunner::textureQuery(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const uint64_t* handles = f->slot(I.src[0]);
  ObjectSeen seen;
  forLanes(exec, [&](int lane) {
    const TextureDesc& d = objectOf(w, I, lane, handles[lane], I.texQuerySurface, seen);
    const int32_t level = I.nsrc > 1 ? static_cast<int32_t>(f->slot(I.src[1])[lane]) : 0;
    f->slot(I.dst[0])[lane] = queryTexture(d, static_cast<TexQuery>(I.texQuery), level);
  });
}

// suld.b / sust.b: x counts bytes, y rows, z slices (a layered surface's layer is the next
// dimension). Out of range: .trap faults, .clamp moves to the nearest element, .zero reads zeros
// and drops stores. x must be a multiple of the access size.
void CtaRunner::surface(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const bool store = I.op == XOp::Sust;
  const uint64_t* handles = f->slot(I.src[0]);
  const unsigned first = I.texLayered ? 2 : 1, ncoords = I.texDims + (I.texLayered ? 1u : 0u);
  const unsigned eb = I.elemBytes, access = eb * I.vec;
  ObjectSeen seen;
  forLanes(exec, [&](int lane) {
    const TextureDesc* d = &objectOf(w, I, lane, handles[lane], true, seen);
    const uint8_t* texels = seen.texels;
    // Coordinates x (bytes), y, z; then the layer in the dimension after them.
    int64_t c[3] = {0, 0, 0};
    for (unsigned k = 0; k < I.texDims; ++k) c[k] = static_cast<int32_t>(f->slot(I.src[first + k])[lane]);
    if (I.texLayered) c[I.texDims] = static_cast<int32_t>(f->slot(I.src[1])[lane]);
    const int64_t rowBytes = static_cast<int64_t>(uint64_t(d->width) * d->texelBytes());
    const int64_t limit[3] = {rowBytes - access, int64_t(d->height) - 1, int64_t(d->depth) - 1};
    if (c[0] % access)
      faultAt(w, lane, I, "misaligned surface access: x = " + std::to_string(c[0]) + " bytes is not a multiple of " + std::to_string(access));
    bool outside = false;
    for (unsigned k = 0; k < 3; ++k) outside |= c[k] < 0 || c[k] > limit[k];
    if (outside) {
      if (I.surfaceOob == 0)
        faultAt(w, lane, I, "surface access out of range (.trap): (" + std::to_string(c[0]) + " bytes, " + std::to_string(c[1]) + ", " +
                                std::to_string(c[2]) + ") in " + describeTexture(*d), FaultKind::Address);
      if (I.surfaceOob == 2) {
        if (!store)
          for (unsigned k = 0; k < I.vec && k < I.ndst; ++k) f->slot(I.dst[k])[lane] = 0;
        return;
      }
      for (unsigned k = 0; k < 3; ++k) c[k] = std::clamp<int64_t>(c[k], 0, std::max<int64_t>(limit[k], 0));
      c[0] -= c[0] % access;
    }
    const uint64_t offset = static_cast<uint64_t>(c[0]) + static_cast<uint64_t>(c[1]) * d->rowPitch() +
                            static_cast<uint64_t>(c[2]) * d->slicePitch();
    if (L_.opts.checkRaces) {  // the texels are global memory: the race checker sees them as ld/st would
      uint8_t bytes[32] = {};
      for (unsigned k = 0; store && k < I.vec; ++k) storeElement(bytes + k * eb, eb, f->slot(I.src[1 + ncoords + k])[lane]);
      storeBytes_ = store ? bytes : nullptr;
      if (!store) checkIncoherentRead(w, I, "surface read", d->base + offset, access, lane, true);
      recordAccess(w, I, StateSpace::Global, d->base + offset, access, lane, store, false);
      storeBytes_ = nullptr;
    }
    uint8_t* p = const_cast<uint8_t*>(texels) + offset;
    for (unsigned k = 0; k < I.vec; ++k) {
      if (store) storeElement(p + k * eb, eb, f->slot(I.src[1 + ncoords + k])[lane]);
      else if (k < I.ndst) f->slot(I.dst[k])[lane] = loadElement(p + k * eb, eb);
    }
  });
}

uint64_t atomicCombine(AtomOp op, ScalarType t, unsigned bits, uint64_t old, uint64_t y, uint64_t swap) {
  y &= widthMask(bits);
  switch (op) {
    case AtomOp::And: return old & y;
    case AtomOp::Or: return old | y;
    case AtomOp::Xor: return old ^ y;
    case AtomOp::Cas: return old == y ? (swap & widthMask(bits)) : old;
    case AtomOp::Exch: return y;
    case AtomOp::Add:
      if (t == ScalarType::F32) {
        // atom.add.f32 rounds to nearest and flushes subnormals to zero
        float v = flushF(flushF(bitsFloat(static_cast<uint32_t>(old))) + flushF(bitsFloat(static_cast<uint32_t>(y))));
        return floatBits(v);
      }
      if (t == ScalarType::F64) return doubleBits(bitsDouble(old) + bitsDouble(y));
      return (old + y) & widthMask(bits);
    case AtomOp::Inc: return old >= y ? 0 : (old + 1) & widthMask(bits);
    case AtomOp::Dec: return (old == 0 || old > y) ? y : (old - 1) & widthMask(bits);
    case AtomOp::Min:
    case AtomOp::Max: {
      bool isMax = op == AtomOp::Max;
      if (t == ScalarType::F32 || t == ScalarType::F64) {
        double x = readFloat(old, t), z = readFloat(y, t);
        double m = floatMinMax(x, z, isMax, false);
        return t == ScalarType::F32 ? floatBits(static_cast<float>(m)) : doubleBits(m);
      }
      if (isSignedType(t)) {
        int64_t x = signExtend(old, bits), z = signExtend(y, bits);
        return static_cast<uint64_t>(isMax ? std::max(x, z) : std::min(x, z)) & widthMask(bits);
      }
      return isMax ? std::max(old, y) : std::min(old, y);
    }
  }
  return old;
}

void CtaRunner::atomic(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  const StateSpace space = a.space;
  const unsigned eb = I.elemBytes;
  const ScalarType t = I.t;
  const unsigned bits = eb * 8;
  const bool red = I.noResult;
  const uint64_t* b = I.nsrc > 0 ? f->slot(I.src[0]) : nullptr;
  const uint64_t* c = I.nsrc > 1 ? f->slot(I.src[1]) : nullptr;
  uint64_t* d = red ? nullptr : f->slot(I.dst[0]);
  forLanes(exec, [&](int lane) {
    uint64_t addr = a.address(I, lane);
    StateSpace resolved;
    uint8_t* p = memory(w, I, space, addr, eb, lane, true, true, a.sym, &resolved);
    const uint64_t y = b[lane], swap = c ? c[lane] : 0;
    const uint64_t old = atomicUpdate(p, eb, resolved == StateSpace::Global,
                                      [&](uint64_t o) { return atomicCombine(I.atom, t, bits, o, y, swap); });
    if (d) d[lane] = extendLoaded(old, eb, t);
  });
}

// ---- asynchronous copies ----------------------------------------------------------------------
//
// cp.async reads its source when it issues and keeps the bytes (zeros past src-size, all zeros
// when ignore-src holds) with the thread; its bytes land in shared memory when a
// cp.async.wait_group or wait_all of the same thread completes its group: a commit_group closes
// the thread's open copies into the next group, wait_group N lands every copy of the thread's
// committed groups but the N most recent, wait_all commits and lands them all. Copies land in
// the order they were issued. A barrier lands nothing, and a copy its thread never waits for
// never lands. Under --check-races the destination bytes are in flight from the issue to the
// landing: any access to them by any thread (the issuing one included, another copy included)
// is a race with the copy; the landing itself is the issuing thread's write at its wait.


void CtaRunner::asyncCopy(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const DAsyncCopy& c = f->fn->asyncCopies[I.call];
  if (async_.empty()) async_.resize(L_.threadsPerCta);
  const MemRef dst = memRefOf(w, I);
  const unsigned size = c.cpSize;
  // The source address of each lane (a register plus offset, a .global variable, a constant).
  uint64_t srcBase = static_cast<uint64_t>(c.src.offset);
  if (!c.src.fromReg && c.src.sym.kind != SymRef::Kind::None) {
    StateSpace sp;
    srcBase = symbolAddress(w, c.src.sym, c.src.offset, sp);
  }
  const uint64_t* srcReg = c.src.fromReg ? f->slot(c.src.slot) : nullptr;
  const uint64_t* fill = c.fill != DAsyncCopy::Fill::None ? f->slot(c.fillSlot) : nullptr;
  forLanes(exec, [&](int lane) {
    const uint64_t d = dst.address(I, lane);
    const uint64_t src = srcReg ? srcReg[lane] + static_cast<uint64_t>(c.src.offset) : srcBase;
    auto sizeText = [&] { return std::to_string(size) + "-byte cp.async"; };  // for faults
    // The destination: a shared-space address of the CTA's shared memory.
    if (d >= shared_.size() || shared_.size() - d < size) {
      std::string why;
      if (windowOf(d) == StateSpace::Shared)
        why = "destination " + hexNumber(d) +
              " is a generic address: cp.async.shared takes a shared-space address (cvta.to.shared)";
      else if (windowOf(d) != StateSpace::Global || L_.global->holding(d))
        why = "destination " + hexNumber(d) + " is not in shared memory (" +
              (windowOf(d) == StateSpace::Global
                   ? std::string("a global address")
                   : "in the " + std::string(spaceName(windowOf(d))).substr(1) + " window") +
              "): cp.async writes shared memory";
      else
        why = "out-of-bounds destination: shared offset " + hexNumber(d) + ", the CTA has " + std::to_string(shared_.size()) +
              " bytes of shared memory";
      faultAt(w, lane, I, sizeText() + ": " + why, FaultKind::Address);
    }
    if (d % size)
      faultAt(w, lane, I,
              "misaligned " + sizeText() + ": destination at shared address " + hexNumber(d) + " (cp-size " +
                  std::to_string(size) + " needs " + std::to_string(size) + "-byte alignment)",
              FaultKind::Address);
    // How many source bytes it reads.
    unsigned n = size;
    if (c.fill == DAsyncCopy::Fill::SrcSize) {
      const uint64_t v = fill[lane] & 0xFFFFFFFFu;
      if (v > size)
        faultAt(w, lane, I,
                sizeText() + ": src-size " + std::to_string(v) + " is larger than cp-size " + std::to_string(size) +
                    " (undefined in PTX)");
      n = static_cast<unsigned>(v);
    } else if (c.fill == DAsyncCopy::Fill::IgnoreSrc) {
      if (((fill[lane] & 1) != 0) != c.fillNegated) n = 0;
    }
    PendingCopy copy;
    copy.dst = static_cast<uint32_t>(d);
    copy.size = static_cast<uint8_t>(size);
    copy.line = I.line;
    if (n) {
      if (windowOf(src) != StateSpace::Global)
        faultAt(w, lane, I,
                sizeText() + ": source " + hexNumber(src) + " is not a global address (it is in the " +
                    std::string(spaceName(windowOf(src))).substr(1) + " window): cp.async reads global memory",
                FaultKind::Address);
      if (src % size)
        faultAt(w, lane, I,
                "misaligned " + sizeText() + ": source at global address " + hexNumber(src) + " (cp-size " +
                    std::to_string(size) + " needs " + std::to_string(size) + "-byte alignment)",
                FaultKind::Address);
      // Naturally aligned pieces (8, 4, 2, 1 bytes): the address is aligned to cp-size.
      for (unsigned off = 0; off < n;) {
        unsigned piece = 8;
        while (piece > n - off) piece /= 2;
        const uint8_t* p = memory(w, I, StateSpace::Global, src + off, piece, lane, false, false, nullptr);
        const uint64_t v = loadElement(p, piece);
        std::memcpy(copy.bytes + off, &v, piece);
        off += piece;
      }
    }
    AsyncThread& t = async_[w.index * 32 + static_cast<uint32_t>(lane)];
    copy.group = t.groups;
    if (L_.opts.checkRaces) {
      copy.id = nextCopyId_++;
      issueAsyncWrite(w, I, lane, d, size, copy.id, false);
    }
    t.copies.push_back(copy);
  });
}

void CtaRunner::issueAsyncWrite(const Warp& w, const DInst& I, int lane, uint64_t dst, uint64_t size, uint64_t copyId, bool bulk) {
  Access a = accessBy(w, I, lane);
  a.valid = true;
  a.async = true;
  a.bulk = bulk;
  const std::string kind = accessKind(a, true);
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  // Bytes another copy may still write; then the accesses before the issue that nothing
  // orders before it (the copy may land at once). The shadow takes the write when it lands.
  checkInFlight(inFlight_, a, kind, dst, size, true);
  for (uint64_t k = 0; k < size; ++k) {
    auto it = sharedShadow_.find(dst + k);
    if (it == sharedShadow_.end()) continue;
    const Shadow& sh = it->second;
    if (!ordered(w, sh.write, a)) {
      L_.reportRace("shared", sh.write, a, accessKind(sh.write, true), kind, raceWhere(dst + k));
      break;
    }
    if (!ordered(w, sh.read, a)) {
      L_.reportRace("shared", sh.read, a, accessKind(sh.read, false), kind, raceWhere(dst + k));
      break;
    }
  }
  for (uint64_t k = 0; k < size; ++k)
    inFlight_[dst + k] = InFlight{copyId, a.thread, I.line, bulk ? InFlightKind::BulkWrite : InFlightKind::CopyWrite};
}

void CtaRunner::landShared(uint32_t thread, uint32_t dst, const uint8_t* bytes, uint64_t size, uint32_t line, uint64_t copyId,
                           bool bulk, bool viaMbarrier) {
  std::memcpy(shared_.data() + dst, bytes, size);
  if (mbarParked_) wakeMbarrierWaiters();
  if (!L_.opts.checkRaces) return;
  const Warp& w = warps_[thread / 32];
  Access a;
  a.thread = thread;
  a.cta = linear_;
  a.line = line;
  a.epoch = barrierEpoch_;
  a.warpEpoch = w.syncEpoch;
  a.warp = static_cast<uint16_t>(w.index);
  a.valid = true;
  a.async = true;
  a.bulk = bulk;
  a.viaMbarrier = viaMbarrier;
  if (order_) a.mbarClock = order_->clock[viaMbarrier ? order_->proxy() : thread];
  std::lock_guard<std::mutex> lock(L_.raceMutex);
  for (uint64_t b = 0; b < size; ++b) {
    auto it = inFlight_.find(dst + b);
    if (it != inFlight_.end() && it->second.copy == copyId) inFlight_.erase(it);
    Shadow& sh = sharedShadow_[dst + b];
    sh.write = a;
    sh.writtenKnown = true;
    sh.written = bytes[b];
  }
}

void CtaRunner::asyncCommit(Warp& w, uint32_t exec) {
  if (async_.empty()) return;  // no copy yet: an empty group changes no count that matters
  forLanes(exec, [&](int lane) { ++async_[w.index * 32 + static_cast<uint32_t>(lane)].groups; });
}

void CtaRunner::asyncWait(Warp& w, const DInst& I, uint32_t exec) {
  if (async_.empty()) return;
  forLanes(exec, [&](int lane) {
    const uint32_t thread = w.index * 32 + static_cast<uint32_t>(lane);
    AsyncThread& t = async_[thread];
    if (I.waitAll) ++t.groups;
    const uint64_t pending = I.waitAll ? 0 : I.call;  // groups that may stay in flight
    if (t.groups <= pending || t.copies.empty()) return;
    const uint64_t limit = t.groups - pending;  // groups below it land
    size_t kept = 0;
    for (size_t k = 0; k < t.copies.size(); ++k) {
      const PendingCopy& c = t.copies[k];
      if (c.group >= limit) {
        t.copies[kept++] = c;
        continue;
      }
      // Landed: the issuing thread's write, now (a barrier after the wait orders it for the others).
      landShared(thread, c.dst, c.bytes, c.size, c.line, c.id, false, false);
    }
    t.copies.resize(kept);
  });
}

// ---- calls ------------------------------------------------------------------------------------

void CtaRunner::call(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const DCall& c = f->fn->calls[I.call];
  ++w.stack.back().pc;  // the caller continues after the call once the callee is done
  if (!exec) return;
  if (c.builtinPrintf) {
    printf(w, I, c, exec);
    return;
  }
  if (c.builtinAssert) faultAt(w, std::countr_zero(exec), I, "assertion failed (__assertfail)");
  LaneGroups groups;  // (function index, lanes)
  if (c.indirect) {
    const uint64_t* t = f->slot(c.targetSlot);
    groups = groupLanes(exec, [&](int lane) {
      uint64_t a = t[lane];
      uint64_t idx = (a - kCodeWindow) / 16;
      if (a < kCodeWindow || (a - kCodeWindow) % 16 || idx >= L_.P.functions.size()) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "indirect call to 0x%llx, which is not the address of a function", static_cast<unsigned long long>(a));
        faultAt(w, lane, I, buf);
      }
      return static_cast<uint32_t>(idx);
    });
  } else {
    groups.emplace_back(static_cast<uint32_t>(c.callee), exec);
  }
  for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
    const DFunction& callee = L_.P.functions[it->first];
    if (callee.paramSizes.size() != c.argOffsets.size() || callee.retSizes.size() < c.retOffsets.size())
      faultAt(w, std::countr_zero(it->second), I, "call to '" + callee.name + "' with " + std::to_string(c.argOffsets.size()) +
                                                     " argument(s); it takes " + std::to_string(callee.paramSizes.size()));
    Frame* nf = newFrame(w, callee, f, &c);
    push(w, StackEntry{nf, 0, kNoPc, it->second, false, -1});
  }
}

void CtaRunner::printf(Warp& w, const DInst& I, const DCall& c, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  if (c.argOffsets.empty()) faultAt(w, std::countr_zero(exec), I, "vprintf without a format");
  forLanes(exec, [&](int lane) {
    auto param = [&](uint64_t off) {
      uint64_t v = 0;
      std::memcpy(&v, f->params.data() + static_cast<size_t>(lane) * f->fn->paramBytes + off, 8);
      return v;
    };
    auto readString = [&](uint64_t addr) {
      std::string s;
      for (uint64_t k = 0;; ++k) {
        if (k > 65536) faultAt(w, lane, I, "printf string without an end");
        const uint8_t* p = memory(w, I, StateSpace::Generic, addr + k, 1, lane, false, false, nullptr);
        if (*p == 0) break;
        s += static_cast<char>(*p);
      }
      return s;
    };
    std::string fmt = readString(param(c.argOffsets[0]));
    std::vector<uint8_t> args;
    if (c.argOffsets.size() > 1) {
      uint64_t argsAddr = param(c.argOffsets[1]);
      if (argsAddr) {
        // The argument buffer is in local memory; read what the thread's frames hold from it.
        uint64_t off = argsAddr >= kLocalWindow ? argsAddr - kLocalWindow : argsAddr;
        uint64_t avail = off < w.localTop ? std::min<uint64_t>(w.localTop - off, 1024) : 0;
        for (uint64_t k = 0; k < avail; ++k)
          args.push_back(*memory(w, I, StateSpace::Local, off + k, 1, lane, false, false, nullptr));
      }
    }
    std::string out, error;
    if (!formatPrintf(fmt, args.data(), args.size(), readString, out, error)) faultAt(w, lane, I, error);
    output += out;
    if (!c.retOffsets.empty()) {
      int32_t n = 0;
      for (size_t k = 0; k + 1 < fmt.size(); ++k)
        if (fmt[k] == '%') {
          if (fmt[k + 1] == '%') ++k;
          else ++n;
        }
      std::memcpy(f->params.data() + static_cast<size_t>(lane) * f->fn->paramBytes + c.retOffsets[0], &n, 4);
    }
  });
}

// ---- CTA barriers -----------------------------------------------------------------------------

void CtaRunner::arriveBarrier(Warp& w, const DInst& I, uint32_t exec) {
  StackEntry& e = w.stack.back();
  Frame* f = e.frame;
  if (!exec) {
    ++e.pc;
    return;
  }
  int first = std::countr_zero(exec);
  const uint64_t* idv = f->slot(I.src[0]);
  uint64_t id = idv[first] & 0xFFFFFFFFu;
  forLanes(exec, [&](int lane) {
    if ((idv[lane] & 0xFFFFFFFFu) != id) faultAt(w, lane, I, "lanes of one warp name different barriers");
  });
  if (id >= 16) faultAt(w, first, I, "barrier " + std::to_string(id) + " does not exist (0 to 15)");
  const uint32_t live = w.live();
  if (I.aligned && exec != live)
    faultAt(w, first, I, "divergent aligned barrier: lanes " + laneList(exec) + " of warp " + std::to_string(w.index) +
                             " reached it while lanes " + laneList(live & ~exec) + " are elsewhere (bar.sync and .aligned barriers need the whole warp)");
  BarrierState& B = barriers_[id];
  B.line = I.line;
  const bool red = I.barrier == BarrierKind::Reduce;
  uint32_t predSrc = 1;
  if (I.hasCount) {
    uint64_t count = f->slot(I.src[1])[first] & 0xFFFFFFFFu;
    if (count == 0 || count % 32) faultAt(w, first, I, "barrier thread count " + std::to_string(count) + " is not a positive multiple of 32");
    B.countWarps = static_cast<uint32_t>(count / 32);
    predSrc = 2;
  }
  if (red) {
    const uint64_t* pv = f->slot(I.src[predSrc]);
    bool negate = (I.negMask >> predSrc) & 1;
    forLanes(exec, [&](int lane) {
      bool v = (pv[lane] & 1) != negate;
      B.popc += v;
      B.all = B.all && v;
      B.any = B.any || v;
    });
    B.results.push_back({&w, f, I.dst[0], exec, I.barrierReduce});
  }
  if (I.barrier == BarrierKind::Arrive) {  // count the warp once all its live lanes arrived, do not wait
    w.arrived |= exec;
    ++e.pc;
    if ((w.arrived & live) == live) {
      w.arrived = 0;
      ++B.arrivedWarps;
      checkBarrier(static_cast<uint32_t>(id));
    }
    return;
  }
  if (w.barrier >= 0 && w.barrier != static_cast<int32_t>(id))
    faultAt(w, first, I, "lanes of warp " + std::to_string(w.index) + " wait at barriers " + std::to_string(w.barrier) + " and " +
                             std::to_string(id) + " at once");
  w.barrier = static_cast<int32_t>(id);
  w.arrived |= exec;
  ++e.pc;
  e.parked = true;
  e.barrier = static_cast<int8_t>(id);
  if ((w.arrived & live) == live && !w.warpArrived) warpArrives(w);
}

void CtaRunner::warpArrives(Warp& w) {
  w.warpArrived = true;
  ++barriers_[w.barrier].arrivedWarps;
  checkBarrier(static_cast<uint32_t>(w.barrier));
}

void CtaRunner::checkBarrier(uint32_t id) {
  BarrierState& B = barriers_[id];
  uint32_t expected = B.countWarps;
  if (!expected)
    for (const Warp& w : warps_) expected += w.live() != 0;
  if (B.arrivedWarps == 0 || B.arrivedWarps < expected) return;
  // Complete: write .red results, release the waiting warps, reset.
  for (const auto& r : B.results) {
    uint64_t v = r.op == BarrierReduce::Popc ? B.popc : r.op == BarrierReduce::And ? B.all : B.any;
    uint64_t* d = r.frame->slot(r.slot);
    forLanes(r.lanes, [&](int lane) { d[lane] = v; });
  }
  for (Warp& w : warps_) {
    if (w.barrier != static_cast<int32_t>(id)) continue;
    for (StackEntry& e : w.stack)
      if (e.parked && e.barrier == static_cast<int8_t>(id)) {
        e.parked = false;
        e.barrier = -1;
      }
    w.barrier = -1;
    w.arrived = 0;
    w.warpArrived = false;
  }
  B = BarrierState{};
  ++barrierEpoch_;
}

void CtaRunner::recheckBarriersAfterExit() {
  for (Warp& w : warps_) {
    if (w.barrier >= 0 && !w.warpArrived && w.live() && (w.arrived & w.live()) == w.live()) warpArrives(w);
    if (!w.pendingSyncs.empty()) releaseWarpSyncs(w, false);
  }
  for (uint32_t id = 0; id < 16; ++id)
    if (barriers_[id].arrivedWarps) checkBarrier(id);
}

// ---- bar.warp.sync and the .sync collectives ------------------------------------------------------
//
// A lane waits at bar.warp.sync until every live lane of its membermask has executed a
// bar.warp.sync with the same membermask (on sm_70 and later the lanes of a divergent warp may
// meet at different instructions). The .sync collectives (shfl, vote, match, redux) wait the same
// way, for the lanes of their membermask to execute the same operation with the same qualifiers
// and membermask, and then combine the values of every lane that arrived. Lanes of the mask that
// are on another path of the warp (another entry of its stack) run until they arrive, while the
// arrived lanes' entries park. Lanes of the executing entry whose guard is false pass it without
// taking part. When the lanes still missing cannot arrive (they wait at their path's
// reconvergence point, which is behind the parked entries, or at a CTA barrier), step() lets the
// parked lanes go on with those present. Lanes of one path that pass different membermasks
// split into one path per mask value at the instruction, each waiting for its own mask.

namespace {

// Which source operand of an instruction that waits for its membermask holds the mask: -1 for
// none (activemask, vote and shfl without .sync, bar.warp.sync without an operand).
int memberMaskOperand(const DInst& I) {
  switch (I.op) {
    case XOp::WarpSync: return I.nsrc ? 0 : -1;
    case XOp::Shfl: return I.sync && I.nsrc > 3 ? 3 : -1;
    case XOp::Vote: return I.nsrc > 1 ? 1 : -1;
    case XOp::Match:
    case XOp::Redux: return 1;
    case XOp::Elect: return 0;
    default: return -1;
  }
}

const uint64_t* memberMask(const DInst& I, Frame* f) {
  const int k = memberMaskOperand(I);
  return k < 0 ? nullptr : f->slot(I.src[k]);
}

// Whether two arrivals are the same operation for the group: bar.warp.sync with bar.warp.sync, or
// a collective with the same operation and qualifiers.
bool sameOperation(const DInst& a, const DInst& b) {
  if (a.op != b.op) return false;
  switch (a.op) {
    case XOp::Shfl: return a.shfl == b.shfl;
    case XOp::Vote: return a.vote == b.vote;
    case XOp::Match: return a.matchAll == b.matchAll && a.t == b.t;
    case XOp::Redux: return a.redux == b.redux && a.t == b.t;
    default: return true;
  }
}

}  // namespace

void CtaRunner::arriveWarpSync(Warp& w, const DInst& I, uint32_t exec) {
  StackEntry& e = w.stack.back();
  Frame* f = e.frame;
  const uint64_t* mv = memberMask(I, f);
  const uint32_t mask = mv ? static_cast<uint32_t>(mv[std::countr_zero(exec)]) : 0xFFFFFFFFu;
  bool same = true;
  uint32_t elsewhere = 0;  // lanes of the masks on other paths
  forLanes(exec, [&](int lane) {
    const uint32_t m = mv ? static_cast<uint32_t>(mv[lane]) : mask;
    same = same && m == mask;
    elsewhere |= m & w.live() & ~e.mask;
  });
  const bool collective = I.op != XOp::WarpSync;
  // No lane waits: the operation runs now, as one execution over `exec`, each group of lanes
  // with one mask synchronizing among itself.
  auto runNow = [&](const LaneGroups& groups) {
    ++e.pc;
    for (const auto& g : groups) warpSynced(w, g.second);
    if (collective) {
      const Warp::CollectivePart part{&I, f, exec};
      combineCollective({&part, 1});
    }
  };
  if (!same) {
    LaneGroups groups = groupLanes(exec, [&](int lane) { return static_cast<uint32_t>(mv[lane]); });
    const bool awaited = std::any_of(w.pendingSyncs.begin(), w.pendingSyncs.end(),
                                     [&](const Warp::PendingSync& p) { return (p.mask & e.mask) != 0; });
    if (!elsewhere && !awaited) {
      // Every lane's mask lies within this path (the groups of a tiled warp).
      runNow(groups);
      return;
    }
    // Lanes that pass different membermasks each wait for their own mask: the entry splits by
    // mask value at this instruction (the guard-false lanes go with the first group) and the
    // paths meet again after it.
    for (auto& g : groups) g.first = e.pc;
    groups[0].second |= e.mask & ~exec;
    diverge(w, groups, e.pc + 1);
    return;
  }
  auto group = std::find_if(w.pendingSyncs.begin(), w.pendingSyncs.end(), [&](const Warp::PendingSync& p) {
    return p.mask == mask && p.parts.empty() != collective && (!collective || sameOperation(*p.parts[0].inst, I));
  });
  // Nothing to wait for: every live lane of the mask is on this path and no other path waits
  // with the same operation.
  if (!elsewhere && group == w.pendingSyncs.end()) {
    runNow({{e.pc, exec}});
    return;
  }
  ++e.pc;
  if (group == w.pendingSyncs.end()) {
    group = w.pendingSyncs.insert(w.pendingSyncs.end(), Warp::PendingSync{});
    group->mask = mask;
    group->id = w.nextSyncGroup++;
  }
  group->arrived |= exec;
  group->excused |= e.mask & ~exec;
  if (collective) group->parts.push_back(Warp::CollectivePart{&I, f, exec});
  e.parked = true;
  e.barrier = kWarpSyncPark;
  e.syncGroup = group->id;
  releaseWarpSyncs(w, false);
}

// Releases the groups that are complete (every live lane of the mask arrived or excused), or,
// with `all`, every group; a collective's group computes its results first.
void CtaRunner::releaseWarpSyncs(Warp& w, bool all) {
  const uint32_t live = w.live();
  for (size_t k = 0; k < w.pendingSyncs.size();) {
    const uint32_t needed = w.pendingSyncs[k].mask & live & ~w.pendingSyncs[k].excused;
    if (!all && (w.pendingSyncs[k].arrived & needed) != needed) {
      ++k;
      continue;
    }
    Warp::PendingSync p = std::move(w.pendingSyncs[k]);
    w.pendingSyncs.erase(w.pendingSyncs.begin() + static_cast<long>(k));
    if (!p.parts.empty()) combineCollective(p.parts);
    for (StackEntry& s : w.stack)
      if (s.parked && s.barrier == kWarpSyncPark && s.syncGroup == p.id) {
        s.parked = false;
        s.barrier = -1;
      }
    warpSynced(w, p.arrived);
  }
}

// A warp-level synchronization of `lanes` completed: their accesses before it are ordered
// before their accesses after it (race check). The order is kept per pair of lanes, so that a
// sync of some lanes orders nothing for the others.
void CtaRunner::warpSynced(Warp& w, uint32_t lanes) {
  ++w.syncEpoch;
  if (!L_.opts.checkRaces) return;
  if (w.pairSync.empty()) w.pairSync.assign(32 * 32, 0);
  forLanes(lanes, [&](int x) { forLanes(lanes, [&](int y) { w.pairSync[static_cast<size_t>(x * 32 + y)] = w.syncEpoch; }); });
}

// ---- warp-collective operations -----------------------------------------------------------------

void CtaRunner::warpCollective(Warp& w, const DInst& I, uint32_t exec) {
  if (I.op == XOp::Activemask) {
    uint64_t* d = w.stack.back().frame->slot(I.dst[0]);
    forLanes(exec, [&](int lane) { d[lane] = exec; });
    return;
  }
  if (memberMask(I, w.stack.back().frame)) {
    arriveWarpSync(w, I, exec);
    return;
  }
  ++w.stack.back().pc;
  warpSynced(w, exec);
  const Warp::CollectivePart part{&I, w.stack.back().frame, exec};
  combineCollective({&part, 1});
}

// One execution of a collective over the lanes of every part: each part's lanes read their own
// operands and write their own destinations (the parts may be different instructions of one
// operation). The lanes a lane combines with are those of its membermask among the lanes that
// take part (itself always included); lanes named in the mask that are elsewhere (divergent and
// never arrived, or exited) do not take part. A shfl from a lane that does not take part reads
// that lane's register, as the reading lane's instruction names it, as it is.
void CtaRunner::combineCollective(std::span<const Warp::CollectivePart> parts) {
  int8_t owner[32];
  std::fill(std::begin(owner), std::end(owner), int8_t(-1));
  uint32_t all = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    all |= parts[k].lanes;
    forLanes(parts[k].lanes, [&](int lane) { owner[lane] = static_cast<int8_t>(k); });
  }
  const DInst& I = *parts[0].inst;
  // Each part's source registers (at most one part per lane).
  const uint64_t* srcs[32][4] = {};
  for (size_t k = 0; k < parts.size(); ++k)
    for (int o = 0; o < parts[k].inst->nsrc && o < 4; ++o) srcs[k][o] = parts[k].frame->slot(parts[k].inst->src[o]);
  // Source operand `k` of lane `x`, as lane `reader`'s part names it when `x` takes no part.
  auto in = [&](int k, int x, int reader) -> uint64_t { return srcs[owner[x] >= 0 ? owner[x] : owner[reader]][k][x]; };
  // Results wait until every lane has read its operands: a destination may be a source of the
  // same operation (`shfl.sync.up.b32 %r2, %r2, ...`), its own or another part's.
  uint64_t result[2][32];
  uint32_t written[2] = {0, 0};
  auto out = [&](int k, int lane, uint64_t v) {
    result[k][lane] = v;
    written[k] |= 1u << lane;
  };
  // The lanes a lane combines with (vote, match, redux): those of its membermask that take part.
  const int maskOperand = memberMaskOperand(I);
  auto group = [&](int lane) -> uint32_t {
    return (maskOperand >= 0 ? all & static_cast<uint32_t>(in(maskOperand, lane, lane)) : all) | (1u << lane);
  };
  switch (I.op) {
    case XOp::Shfl: {
      forLanes(all, [&](int lane) {
        int bval = static_cast<int>(in(1, lane, lane) & 31);
        uint64_t c = in(2, lane, lane);
        int cval = static_cast<int>(c & 31);
        int segmask = static_cast<int>((c >> 8) & 31);
        int maxLane = (lane & segmask) | (cval & ~segmask);
        int minLane = lane & segmask;
        int j = lane;
        bool pval = false;
        switch (I.shfl) {
          case ShflMode::Up: j = lane - bval; pval = j >= maxLane; break;
          case ShflMode::Down: j = lane + bval; pval = j <= maxLane; break;
          case ShflMode::Bfly: j = lane ^ bval; pval = j <= maxLane; break;
          case ShflMode::Idx: j = minLane | (bval & ~segmask); pval = j <= maxLane; break;
        }
        if (!pval) j = lane;
        out(0, lane, in(0, j & 31, lane) & 0xFFFFFFFFu);
        out(1, lane, pval);
      });
      break;
    }
    case XOp::Vote: {
      uint32_t ballot = 0;
      forLanes(all, [&](int lane) {
        bool negate = parts[static_cast<size_t>(owner[lane])].inst->negMask & 1;
        ballot |= static_cast<uint32_t>(((in(0, lane, lane) & 1) != 0) != negate) << lane;
      });
      forLanes(all, [&](int lane) {
        uint32_t g = group(lane), b = ballot & g;
        switch (I.vote) {
          case VoteMode::All: out(0, lane, b == g); break;
          case VoteMode::Any: out(0, lane, b != 0); break;
          case VoteMode::Uni: out(0, lane, b == 0 || b == g); break;
          case VoteMode::Ballot: out(0, lane, b); break;
        }
      });
      break;
    }
    case XOp::Match: {
      uint64_t m = widthMask(typeBits(I.t));
      forLanes(all, [&](int lane) {
        uint32_t g = group(lane), same = 0;
        forLanes(g, [&](int o) { same |= static_cast<uint32_t>((in(0, o, lane) & m) == (in(0, lane, lane) & m)) << o; });
        if (!I.matchAll) {
          out(0, lane, same);
        } else {
          out(0, lane, same == g ? g : 0);
          out(1, lane, same == g);
        }
      });
      break;
    }
    case XOp::Redux: {
      bool sg = isSignedType(I.t);
      // Every lane of `g` takes part, so the reduction depends on `g` only: lanes with the
      // group of the lane before them reuse its result.
      uint32_t lastGroup = 0;
      uint64_t lastAcc = 0;
      forLanes(all, [&](int lane) {
        uint32_t g = group(lane);
        if (g == lastGroup) {
          out(0, lane, lastAcc);
          return;
        }
        int first = std::countr_zero(g);
        uint64_t acc = in(0, first, lane) & 0xFFFFFFFFu;
        forLanes(g & ~(1u << first), [&](int o) {
          uint64_t x = in(0, o, lane) & 0xFFFFFFFFu;
          switch (I.redux) {
            case ReduxOp::Add: acc = (acc + x) & 0xFFFFFFFFu; break;
            case ReduxOp::Min: acc = sg ? (signExtend(x, 32) < signExtend(acc, 32) ? x : acc) : std::min(acc, x); break;
            case ReduxOp::Max: acc = sg ? (signExtend(x, 32) > signExtend(acc, 32) ? x : acc) : std::max(acc, x); break;
            case ReduxOp::And: acc &= x; break;
            case ReduxOp::Or: acc |= x; break;
            case ReduxOp::Xor: acc ^= x; break;
          }
        });
        lastGroup = g;
        lastAcc = acc;
        out(0, lane, acc);
      });
      break;
    }
    case XOp::Elect:
      // The leader is the lowest lane of the membermask that takes part (PTX ISA, "elect.sync");
      // each lane gets its lane id and whether it is the leader.
      forLanes(all, [&](int lane) {
        const int leader = std::countr_zero(group(lane));
        out(0, lane, static_cast<uint64_t>(leader));
        out(1, lane, leader == lane);
      });
      break;
    default: break;
  }
  for (int k = 0; k < 2; ++k)
    forLanes(written[k], [&](int lane) {
      const Warp::CollectivePart& P = parts[static_cast<size_t>(owner[lane])];
      if (k < P.inst->ndst) P.frame->slot(P.inst->dst[k])[lane] = result[k][lane];
    });
}

}  // namespace ptxopt::emu

// Instruction semantics of the emulator.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "Cta.h"
#include "Printf.h"
#include "Semantics.h"

namespace ptxopt::emu {

namespace {


uint64_t satSigned(__int128 v, unsigned bits) {
  __int128 lo = -(static_cast<__int128>(1) << (bits - 1)), hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return static_cast<uint64_t>(v) & widthMask(bits);
}

// The high half of a full product.
uint64_t mulHigh(uint64_t a, uint64_t b, unsigned bits, bool isSigned) {
  if (isSigned) {
    __int128 p = static_cast<__int128>(signExtend(a, bits)) * static_cast<__int128>(signExtend(b, bits));
    return static_cast<uint64_t>(p >> bits) & widthMask(bits);
  }
  unsigned __int128 p = static_cast<unsigned __int128>(a & widthMask(bits)) * static_cast<unsigned __int128>(b & widthMask(bits));
  return static_cast<uint64_t>(p >> bits) & widthMask(bits);
}

uint64_t mulWide(uint64_t a, uint64_t b, unsigned bits, bool isSigned) {
  if (isSigned) {
    __int128 p = static_cast<__int128>(signExtend(a, bits)) * static_cast<__int128>(signExtend(b, bits));
    return static_cast<uint64_t>(p) & widthMask(2 * bits);
  }
  return ((a & widthMask(bits)) * (b & widthMask(bits))) & widthMask(2 * bits);
}

}  // namespace

// ---- dispatch --------------------------------------------------------------------------------

void CtaRunner::execute(Warp& w, const DInst& I) {
  StackEntry& e = w.stack.back();
  Frame* f = e.frame;
  uint32_t exec = e.mask;
  if (I.guard >= 0) {
    const uint64_t* g = f->slot(static_cast<uint32_t>(I.guard));
    uint32_t pred = 0;
    forLanes(exec, [&](int lane) { pred |= static_cast<uint32_t>(g[lane] & 1) << lane; });
    exec &= I.guardNeg ? ~pred : pred;
  }
  ++metrics.warpInstructions;
  metrics.threadInstructions += popc(exec);
  ++w.clock;
  LineMetrics* lm = nullptr;
  if (L_.opts.perLineMetrics) {
    lm = &metrics.perLine[I.line];
    ++lm->warpInstructions;
    lm->threadInstructions += popc(exec);
  }

  if (I.fast && fastPaths_) {
    if (exec) I.fast(I, f->regs.data(), exec);
    ++e.pc;
    return;
  }

  switch (I.op) {
    case XOp::Bra: {
      uint32_t taken = exec, notTaken = e.mask & ~exec;
      ++metrics.branches;
      if (lm) ++lm->branches;
      if (!notTaken) {
        e.pc = I.target;
      } else if (!taken) {
        ++e.pc;
      } else {
        ++metrics.divergentBranches;
        if (lm) ++lm->divergentBranches;
        diverge(w, {{e.pc + 1, notTaken}, {I.target, taken}}, I.rpc);
      }
      return;
    }
    case XOp::BrxIdx: {
      ++metrics.branches;
      if (lm) ++lm->branches;
      uint32_t skipped = e.mask & ~exec;  // a guarded brx.idx falls through for the others
      const uint64_t* idx = f->slot(I.src[0]);
      LaneGroups paths = groupLanes(exec, [&](int lane) {
        uint64_t k = idx[lane] & 0xFFFFFFFFu;
        if (k >= I.targets.size())
          faultAt(w, lane, I, "brx.idx index " + std::to_string(k) + " is outside its table of " + std::to_string(I.targets.size()) + " entries");
        return I.targets[k];
      });
      if (skipped) paths.emplace_back(e.pc + 1, skipped);
      if (paths.size() == 1) {
        e.pc = paths[0].first;
      } else {
        ++metrics.divergentBranches;
        if (lm) ++lm->divergentBranches;
        diverge(w, paths, I.rpc);
      }
      return;
    }
    case XOp::Ret:
    case XOp::Exit: {
      // A ret inside a call: the lanes leave the call and wait in the caller's entry, after the
      // call. A ret from the kernel, or exit: the lanes are done.
      const bool exits = I.op == XOp::Exit || !f->caller;
      const uint32_t stay = e.mask & ~exec;
      if (exits) w.exited |= exec;
      removeLanes(w, exec, exits ? nullptr : f);
      if (stay) w.stack.back().pc++;
      if (exits && exec) recheckBarriersAfterExit();
      return;
    }
    case XOp::Trap:
      if (exec) faultAt(w, std::countr_zero(exec), I, "trap executed");
      ++e.pc;
      return;
    case XOp::Call: call(w, I, exec); return;
    case XOp::Barrier:
      ++metrics.barriers;
      arriveBarrier(w, I, exec);
      return;
    case XOp::Unsupported:
      if (exec) {
        const auto& u = L_.P.unsupported[I.call];
        faultAt(w, std::countr_zero(exec), I, "unsupported instruction: " + u.text + (u.why.empty() ? "" : " (" + u.why + ")"));
      }
      ++e.pc;
      return;
    default: break;
  }

  if (exec) {
    switch (I.op) {
      case XOp::Nop: break;
      case XOp::Mov: {
        uint64_t* d = f->slot(I.dst[0]);
        if (I.mode == 1) {
          StateSpace sp;
          uint64_t a = symbolAddress(w, I.addrSym, I.addrOffset, sp);
          if (I.addrSym.kind == SymRef::Kind::None || I.addrSym.kind == SymRef::Kind::FrameParam ||
              I.addrSym.kind == SymRef::Kind::CalleeParam || I.addrSym.kind == SymRef::Kind::CalleeRetval)
            faultAt(w, std::countr_zero(exec), I, "the address of this parameter cannot be taken");
          forLanes(exec, [&](int lane) { d[lane] = a; });
        } else {
          const uint64_t* a = f->slot(I.src[0]);
          uint64_t m = widthMask(I.t == ScalarType::Pred ? 64 : std::max(8u, typeBits(I.t)));
          forLanes(exec, [&](int lane) { d[lane] = a[lane] & m; });
        }
        break;
      }
      case XOp::MovPack: {
        uint64_t* d = f->slot(I.dst[0]);
        unsigned eb = I.elemBytes * 8;
        forLanes(exec, [&](int lane) {
          uint64_t v = 0;
          for (unsigned k = 0; k < I.nsrc; ++k) v |= (f->slot(I.src[k])[lane] & widthMask(eb)) << (k * eb);
          d[lane] = v;
        });
        break;
      }
      case XOp::MovUnpack: {
        const uint64_t* a = f->slot(I.src[0]);
        unsigned eb = I.elemBytes * 8;
        forLanes(exec, [&](int lane) {
          uint64_t v = a[lane];
          for (unsigned k = 0; k < I.ndst; ++k) f->slot(I.dst[k])[lane] = (v >> (k * eb)) & widthMask(eb);
        });
        break;
      }
      case XOp::ReadClock: {
        uint64_t* d = f->slot(I.dst[0]);
        SpecialReg r = static_cast<SpecialReg>(I.mode);
        uint64_t v = w.clock * 4;  // a deterministic counter: 4 cycles per warp instruction
        if (r == SpecialReg::Globaltimer || r == SpecialReg::GlobaltimerLo || r == SpecialReg::GlobaltimerHi) v = w.clock * 2;
        if (r == SpecialReg::Clock || r == SpecialReg::GlobaltimerLo) v &= 0xFFFFFFFFu;
        if (r == SpecialReg::ClockHi || r == SpecialReg::GlobaltimerHi) v >>= 32;
        forLanes(exec, [&](int lane) { d[lane] = v; });
        break;
      }
      case XOp::IntArith: intArith(w, I, exec); break;
      case XOp::BitOp: bitOp(w, I, exec); break;
      case XOp::Sad: {
        unsigned bits = typeBits(I.t);
        bool sg = isSignedType(I.t);
        uint64_t* d = f->slot(I.dst[0]);
        const uint64_t *a = f->slot(I.src[0]), *b = f->slot(I.src[1]), *c = f->slot(I.src[2]);
        forLanes(exec, [&](int lane) {
          uint64_t diff;
          if (sg) {
            int64_t x = signExtend(a[lane], bits), y = signExtend(b[lane], bits);
            diff = x > y ? static_cast<uint64_t>(x - y) : static_cast<uint64_t>(y - x);
          } else {
            uint64_t x = a[lane] & widthMask(bits), y = b[lane] & widthMask(bits);
            diff = x > y ? x - y : y - x;
          }
          d[lane] = (diff + c[lane]) & widthMask(bits);
        });
        break;
      }
      case XOp::Dp: {
        uint64_t* d = f->slot(I.dst[0]);
        const uint64_t *a = f->slot(I.src[0]), *b = f->slot(I.src[1]), *c = f->slot(I.src[2]);
        bool sa = isSignedType(I.t), sb = isSignedType(I.t2 == ScalarType::None ? I.t : I.t2);
        bool sc = sa || sb;
        forLanes(exec, [&](int lane) {
          int64_t acc = sc ? signExtend(c[lane], 32) : static_cast<int64_t>(c[lane] & 0xFFFFFFFFu);
          if (I.mode == 4) {
            for (int k = 0; k < 4; ++k) {
              int64_t x = sa ? static_cast<int8_t>(a[lane] >> (8 * k)) : static_cast<uint8_t>(a[lane] >> (8 * k));
              int64_t y = sb ? static_cast<int8_t>(b[lane] >> (8 * k)) : static_cast<uint8_t>(b[lane] >> (8 * k));
              acc += x * y;
            }
          } else {
            for (int k = 0; k < 2; ++k) {
              int64_t x = sa ? static_cast<int16_t>(a[lane] >> (16 * k)) : static_cast<uint16_t>(a[lane] >> (16 * k));
              int byte = (I.mode2 ? 2 : 0) + k;
              int64_t y = sb ? static_cast<int8_t>(b[lane] >> (8 * byte)) : static_cast<uint8_t>(b[lane] >> (8 * byte));
              acc += x * y;
            }
          }
          d[lane] = static_cast<uint64_t>(acc) & 0xFFFFFFFFu;
        });
        break;
      }
      case XOp::FloatArith: floatArith(w, I, exec); break;
      case XOp::HalfArith: halfArith(w, I, exec); break;
      case XOp::Setp:
      case XOp::Set: setp(w, I, exec); break;
      case XOp::Selp: {
        uint64_t* d = f->slot(I.dst[0]);
        const uint64_t *a = f->slot(I.src[0]), *b = f->slot(I.src[1]), *c = f->slot(I.src[2]);
        forLanes(exec, [&](int lane) { d[lane] = (c[lane] & 1) ? a[lane] : b[lane]; });
        break;
      }
      case XOp::Slct: {
        uint64_t* d = f->slot(I.dst[0]);
        const uint64_t *a = f->slot(I.src[0]), *b = f->slot(I.src[1]), *c = f->slot(I.src[2]);
        forLanes(exec, [&](int lane) {
          bool pick = I.t2 == ScalarType::F32 ? !(bitsFloat(static_cast<uint32_t>(c[lane])) < 0.0f) : signExtend(c[lane], 32) >= 0;
          d[lane] = pick ? a[lane] : b[lane];
        });
        break;
      }
      case XOp::Cvt: cvt(w, I, exec); break;
      case XOp::Cvta: {
        uint64_t* d = f->slot(I.dst[0]);
        uint64_t base = 0;
        if (I.mode2) {
          StateSpace sp;
          base = symbolAddress(w, I.addrSym, I.addrOffset, sp);
        }
        const uint64_t* a = I.mode2 ? nullptr : f->slot(I.src[0]);
        uint64_t window = generic(I.space, 0);
        uint64_t m = typeBits(I.t) == 32 ? 0xFFFFFFFFu : ~uint64_t(0);
        forLanes(exec, [&](int lane) {
          uint64_t v = a ? a[lane] : base;
          d[lane] = (I.mode ? v - window : v + window) & m;
        });
        break;
      }
      case XOp::Isspacep: {
        uint64_t* d = f->slot(I.dst[0]);
        const uint64_t* a = f->slot(I.src[0]);
        forLanes(exec, [&](int lane) {
          uint64_t v = a[lane];
          // Global: below the first window and not in the null page the allocations start above.
          d[lane] = I.space == StateSpace::Global ? v >= kGlobalBase && v < kConstWindow
                                                  : windowBase(I.space) && windowOf(v) == windowOf(windowBase(I.space));
        });
        break;
      }
      case XOp::Ld: load(w, I, exec); break;
      case XOp::St: store(w, I, exec); break;
      case XOp::Atom: atomic(w, I, exec); break;
      case XOp::WarpSync:
      case XOp::Shfl:
      case XOp::Vote:
      case XOp::Match:
      case XOp::Redux:
      case XOp::Activemask: warpCollective(w, I, exec); break;
      default: faultAt(w, std::countr_zero(exec), I, "internal error: no semantics for this instruction");
    }
  }
  ++w.stack.back().pc;
}

// ---- integer arithmetic ----------------------------------------------------------------------

void CtaRunner::intArith(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const unsigned bits = typeBits(I.t);
  const bool sg = isSignedType(I.t);
  const uint64_t m = widthMask(bits);
  uint64_t* d = f->slot(I.dst[0]);
  const uint64_t* a = I.nsrc > 0 ? f->slot(I.src[0]) : nullptr;
  const uint64_t* b = I.nsrc > 1 ? f->slot(I.src[1]) : nullptr;
  const uint64_t* c = I.nsrc > 2 ? f->slot(I.src[2]) : nullptr;
  uint64_t* carry = f->slot(f->fn->numSlots - 1);
  auto sx = [&](uint64_t v) { return signExtend(v, bits); };
  forLanes(exec, [&](int lane) {
    uint64_t x = a[lane] & m, r = 0;
    switch (I.mode) {
      case Arith::Add: {
        uint64_t y = b[lane] & m, cin = I.readsCarry ? carry[lane] & 1 : 0;
        unsigned __int128 full = static_cast<unsigned __int128>(x) + y + cin;
        r = static_cast<uint64_t>(full) & m;
        if (I.sat && sg) r = satSigned(static_cast<__int128>(sx(x)) + sx(y), bits);
        if (I.setsCarry) carry[lane] = static_cast<uint64_t>(full >> bits) & 1;
        break;
      }
      case Arith::Sub: {
        uint64_t y = b[lane] & m, bin = I.readsCarry ? carry[lane] & 1 : 0;
        r = (x - y - bin) & m;
        if (I.sat && sg) r = satSigned(static_cast<__int128>(sx(x)) - sx(y), bits);
        if (I.setsCarry) carry[lane] = static_cast<unsigned __int128>(x) < static_cast<unsigned __int128>(y) + bin;
        break;
      }
      case Arith::Mul:
      case Arith::Mad: {
        uint64_t y = b[lane] & m;
        if (I.wide) {
          r = mulWide(x, y, bits, sg);
          if (I.mode == Arith::Mad) r = (r + c[lane]) & widthMask(2 * bits);
          break;
        }
        uint64_t p = I.hi ? mulHigh(x, y, bits, sg) : (x * y) & m;
        if (I.mode == Arith::Mul) {
          r = p;
          break;
        }
        uint64_t z = c[lane] & m, cin = I.readsCarry ? carry[lane] & 1 : 0;
        unsigned __int128 full = static_cast<unsigned __int128>(p) + z + cin;
        r = static_cast<uint64_t>(full) & m;
        if (I.sat && sg) r = satSigned(static_cast<__int128>(sx(p)) + sx(z), bits);
        if (I.setsCarry) carry[lane] = static_cast<uint64_t>(full >> bits) & 1;
        break;
      }
      case Arith::Mul24:
      case Arith::Mad24: {
        int64_t xa = sg ? signExtend(x, 24) : static_cast<int64_t>(x & 0xFFFFFF);
        int64_t ya = sg ? signExtend(b[lane], 24) : static_cast<int64_t>(b[lane] & 0xFFFFFF);
        uint64_t p = static_cast<uint64_t>(xa * ya);
        p = I.hi ? (p >> 16) & m : p & m;
        if (I.mode == Arith::Mad24) p = (p + c[lane]) & m;
        r = p;
        break;
      }
      case Arith::Div: {
        uint64_t y = b[lane] & m;
        if (y == 0) {
          r = m;  // division by zero: all ones (the hardware leaves it unspecified)
        } else if (sg) {
          int64_t sxv = sx(x), syv = sx(y);
          r = (syv == -1) ? static_cast<uint64_t>(-sxv) & m : static_cast<uint64_t>(sxv / syv) & m;
        } else {
          r = x / y;
        }
        break;
      }
      case Arith::Rem: {
        uint64_t y = b[lane] & m;
        if (y == 0) {
          r = x;  // remainder by zero: the dividend (unspecified in PTX)
        } else if (sg) {
          int64_t sxv = sx(x), syv = sx(y);
          r = syv == -1 ? 0 : static_cast<uint64_t>(sxv % syv) & m;
        } else {
          r = x % y;
        }
        break;
      }
      case Arith::Abs: r = static_cast<uint64_t>(sx(x) < 0 ? -sx(x) : sx(x)) & m; break;
      case Arith::Neg: r = (~x + 1) & m; break;
      case Arith::Min:
        r = sg ? (sx(x) < sx(b[lane]) ? x : b[lane] & m) : std::min(x, b[lane] & m);
        break;
      case Arith::Max:
        r = sg ? (sx(x) > sx(b[lane]) ? x : b[lane] & m) : std::max(x, b[lane] & m);
        break;
      default: break;
    }
    d[lane] = r;
  });
}

// ---- logic and bit manipulation --------------------------------------------------------------

void CtaRunner::bitOp(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const unsigned bits = I.t == ScalarType::Pred ? 1 : typeBits(I.t);
  const uint64_t m = widthMask(bits);
  uint64_t* d = f->slot(I.dst[0]);
  const uint64_t* a = I.nsrc > 0 ? f->slot(I.src[0]) : nullptr;
  const uint64_t* b = I.nsrc > 1 ? f->slot(I.src[1]) : nullptr;
  const uint64_t* c = I.nsrc > 2 ? f->slot(I.src[2]) : nullptr;
  const uint64_t* e4 = I.nsrc > 3 ? f->slot(I.src[3]) : nullptr;
  const Opcode op = static_cast<Opcode>(I.mode);
  auto neg = [&](unsigned k, uint64_t v) { return (I.negMask >> k) & 1 ? (~v & m) : v; };
  forLanes(exec, [&](int lane) {
    uint64_t x = a[lane] & m, r = 0;
    switch (op) {
      case Opcode::And: r = neg(0, x) & neg(1, b[lane] & m); break;
      case Opcode::Or: r = neg(0, x) | neg(1, b[lane] & m); break;
      case Opcode::Xor: r = neg(0, x) ^ neg(1, b[lane] & m); break;
      case Opcode::Not: r = ~x & m; break;
      case Opcode::Cnot: r = x == 0 ? 1 : 0; break;
      case Opcode::Popc: r = static_cast<uint64_t>(std::popcount(x)); break;
      case Opcode::Clz: r = bits == 32 ? static_cast<uint64_t>(std::countl_zero(static_cast<uint32_t>(x))) : static_cast<uint64_t>(std::countl_zero(x)); break;
      case Opcode::Bfind: {
        int64_t pos = -1;
        if (isSignedType(I.t)) {
          uint64_t v = (x >> (bits - 1)) & 1 ? ~x & m : x;  // the most significant non-sign bit
          if (v) pos = 63 - std::countl_zero(v);
        } else if (x) {
          pos = 63 - std::countl_zero(x);
        }
        if (pos < 0) r = 0xFFFFFFFFu;
        else r = I.mode2 ? static_cast<uint64_t>(bits - 1 - pos) : static_cast<uint64_t>(pos);
        break;
      }
      case Opcode::Brev: {
        uint64_t v = 0;
        for (unsigned k = 0; k < bits; ++k) v |= ((x >> k) & 1) << (bits - 1 - k);
        r = v;
        break;
      }
      case Opcode::Bfe: {
        unsigned pos = static_cast<unsigned>(b[lane] & 0xFF), len = static_cast<unsigned>(c[lane] & 0xFF);
        bool sg = isSignedType(I.t);
        unsigned msb = pos + len - 1;
        bool sbit = sg ? (len == 0 ? false : ((x >> std::min(msb, bits - 1)) & 1)) : false;
        uint64_t v = 0;
        for (unsigned k = 0; k < bits; ++k) {
          bool bit = (k < len && pos + k < bits) ? ((x >> (pos + k)) & 1) : sbit;
          v |= static_cast<uint64_t>(bit) << k;
        }
        r = v & m;
        break;
      }
      case Opcode::Bfi: {
        unsigned pos = static_cast<unsigned>(c[lane] & 0xFF), len = static_cast<unsigned>(e4[lane] & 0xFF);
        uint64_t v = b[lane] & m;
        for (unsigned k = 0; k < len && pos + k < bits; ++k) {
          uint64_t bit = (x >> k) & 1;
          v = (v & ~(uint64_t(1) << (pos + k))) | (bit << (pos + k));
        }
        r = v;
        break;
      }
      case Opcode::Prmt: {
        uint64_t y = b[lane] & 0xFFFFFFFFu, sel = c[lane] & 0xFFFFFFFFu;
        uint64_t bytesAll = (y << 32) | (x & 0xFFFFFFFFu);
        auto byteOf = [&](unsigned k) { return (bytesAll >> (8 * (k & 7))) & 0xFF; };
        uint64_t out = 0;
        if (I.mode2 == 0) {
          for (unsigned k = 0; k < 4; ++k) {
            unsigned s = static_cast<unsigned>(sel >> (4 * k)) & 0xF;
            uint64_t byte = byteOf(s & 7);
            if (s & 8) byte = (byte & 0x80) ? 0xFF : 0x00;  // replicate the sign
            out |= byte << (8 * k);
          }
        } else {
          unsigned s = static_cast<unsigned>(sel & 3);
          static const unsigned kModes[6][4][4] = {
              {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
              {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
              {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
              {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
              {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
              {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
          };
          for (unsigned k = 0; k < 4; ++k) out |= byteOf(kModes[I.mode2 - 1][s][k]) << (8 * k);
        }
        r = out;
        break;
      }
      case Opcode::Lop3: {
        uint64_t y = b[lane] & 0xFFFFFFFFu, z = c[lane] & 0xFFFFFFFFu, lut = e4[lane] & 0xFF, out = 0;
        for (unsigned k = 0; k < 32; ++k) {
          unsigned idx = static_cast<unsigned>(((x >> k) & 1) << 2 | ((y >> k) & 1) << 1 | ((z >> k) & 1));
          out |= ((lut >> idx) & 1) << k;
        }
        r = out;
        break;
      }
      case Opcode::Shf: {
        uint64_t lo = x & 0xFFFFFFFFu, hi = b[lane] & 0xFFFFFFFFu, n = c[lane] & 0xFFFFFFFFu;
        n = (I.mode2 & 2) ? std::min<uint64_t>(n, 32) : n & 31;
        uint64_t both = (hi << 32) | lo;
        r = (I.mode2 & 1) ? ((both << n) >> 32) & 0xFFFFFFFFu : (both >> n) & 0xFFFFFFFFu;
        break;
      }
      case Opcode::Shl: {
        uint64_t n = b[lane] & 0xFFFFFFFFu;
        r = n >= bits ? 0 : (x << n) & m;
        break;
      }
      case Opcode::Shr: {
        uint64_t n = b[lane] & 0xFFFFFFFFu;
        if (isSignedType(I.t)) {
          int64_t v = signExtend(x, bits);
          r = static_cast<uint64_t>(n >= bits ? (v < 0 ? -1 : 0) : v >> n) & m;
        } else {
          r = n >= bits ? 0 : x >> n;
        }
        break;
      }
      case Opcode::Bmsk: {
        uint64_t pos = x & 0xFFFFFFFFu, len = b[lane] & 0xFFFFFFFFu;
        if (I.mode2) {
          pos &= 31;
          len &= 31;
        } else {
          pos = std::min<uint64_t>(pos, 32);
          len = std::min<uint64_t>(len, 32);
        }
        uint64_t span = pos + len >= 32 ? 32 - pos : len;
        r = (widthMask(static_cast<unsigned>(span)) << pos) & 0xFFFFFFFFu;
        break;
      }
      case Opcode::Szext: {
        uint64_t pos = b[lane] & 0xFFFFFFFFu;
        pos = I.mode2 ? pos & 31 : std::min<uint64_t>(pos, 32);
        if (pos == 0) r = 0;
        else if (pos >= 32) r = x & 0xFFFFFFFFu;
        else r = isSignedType(I.t) ? static_cast<uint64_t>(signExtend(x, static_cast<unsigned>(pos))) & 0xFFFFFFFFu : x & widthMask(static_cast<unsigned>(pos));
        break;
      }
      default: break;
    }
    d[lane] = r;
  });
}

// ---- floating point --------------------------------------------------------------------------

namespace {

// mode 20 + (opcode - Sqrt): sqrt rsqrt rcp ex2 lg2 sin cos tanh copysign; 100: testp

template <typename T>
T saturate01(T v) {
  if (std::isnan(v)) return 0;
  return v < 0 ? T(0) : v > 1 ? T(1) : v;
}

}  // namespace

void CtaRunner::floatArith(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  uint64_t* d = f->slot(I.dst[0]);
  const uint64_t* a = I.nsrc > 0 ? f->slot(I.src[0]) : nullptr;
  const uint64_t* b = I.nsrc > 1 ? f->slot(I.src[1]) : nullptr;
  const uint64_t* c = I.nsrc > 2 ? f->slot(I.src[2]) : nullptr;
  const bool f64 = I.t == ScalarType::F64;
  const Rnd r = I.rnd;
  if (I.mode == Arith::Testp) {
    forLanes(exec, [&](int lane) {
      double v = f64 ? bitsDouble(a[lane]) : static_cast<double>(bitsFloat(static_cast<uint32_t>(a[lane])));
      int cls = f64 ? std::fpclassify(v) : std::fpclassify(bitsFloat(static_cast<uint32_t>(a[lane])));
      bool out = false;
      switch (I.mode2) {
        case 0: out = std::isfinite(v); break;
        case 1: out = std::isinf(v); break;
        case 2: out = !std::isnan(v); break;
        case 3: out = std::isnan(v); break;
        case 4: out = cls == FP_NORMAL; break;
        case 5: out = cls == FP_SUBNORMAL; break;
      }
      d[lane] = out;
    });
    return;
  }
  if (f64) {
    forLanes(exec, [&](int lane) {
      double x = bitsDouble(a[lane]);
      double y = b ? bitsDouble(b[lane]) : 0, z = c ? bitsDouble(c[lane]) : 0, v = 0;
      switch (I.mode) {
        case Arith::Add: v = addD(x, y, r); break;
        case Arith::Sub: v = subD(x, y, r); break;
        case Arith::Mul: v = mulD(x, y, r); break;
        case Arith::Mad: v = fmaD(x, y, z, r); break;
        case Arith::Div: v = divD(x, y, r); break;
        case Arith::Abs: v = bitsDouble(doubleBits(x) & ~(uint64_t(1) << 63)); break;
        case Arith::Neg: v = bitsDouble(doubleBits(x) ^ (uint64_t(1) << 63)); break;
        case Arith::Min:
        case Arith::Max: {
          bool both = std::isnan(x) && std::isnan(y);
          v = floatMinMax(x, y, I.mode == Arith::Max, I.mode2 & 1);
          if (both || (std::isnan(v))) v = bitsDouble(canonicalNaN64());
          break;
        }
        case Arith::Sqrt: v = sqrtD(x, r); break;
        case Arith::Rsqrt: v = 1.0 / std::sqrt(x); break;                       // rsqrt.approx.f64
        case Arith::Rcp: v = I.approx ? 1.0 / x : rcpD(x, r); break;           // rcp
        case Arith::Lg2: v = std::log2(x); break;
        case Arith::Copysign: v = std::copysign(y, x); break;                       // copysign.f64 d, a, b: b with a's sign
        default: faultAt(w, lane, I, "unsupported f64 operation");
      }
      d[lane] = doubleBits(v);
    });
    return;
  }
  const bool ftz = I.ftz;
  forLanes(exec, [&](int lane) {
    float x = bitsFloat(static_cast<uint32_t>(a[lane]));
    float y = b ? bitsFloat(static_cast<uint32_t>(b[lane])) : 0.0f;
    float z = c ? bitsFloat(static_cast<uint32_t>(c[lane])) : 0.0f;
    if (ftz) {
      x = flushF(x);
      y = flushF(y);
      z = flushF(z);
    }
    float v = 0;
    bool nanCanon = false;
    switch (I.mode) {
      case Arith::Add: v = addF(x, y, r); break;
      case Arith::Sub: v = subF(x, y, r); break;
      case Arith::Mul: v = mulF(x, y, r); break;
      case Arith::Mad: v = fmaF(x, y, z, r); break;
      case Arith::Div:
        // .rn/.rz/.rm/.rp are IEEE; .approx and .full are computed exactly too (documented)
        v = I.hasRounding ? divF(x, y, r) : static_cast<float>(static_cast<double>(x) / static_cast<double>(y));
        break;
      case Arith::Abs: v = bitsFloat(floatBits(x) & 0x7FFFFFFFu); break;
      case Arith::Neg: v = bitsFloat(floatBits(x) ^ 0x80000000u); break;
      case Arith::Min:
      case Arith::Max:
        v = floatMinMax(x, y, I.mode == Arith::Max, I.mode2 & 1);
        nanCanon = std::isnan(v);
        break;
      case Arith::Sqrt: v = I.hasRounding ? sqrtF(x, r) : static_cast<float>(std::sqrt(static_cast<double>(x))); break;
      case Arith::Rsqrt: v = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); break;
      case Arith::Rcp: v = I.hasRounding ? rcpF(x, r) : static_cast<float>(1.0 / static_cast<double>(x)); break;
      case Arith::Ex2: v = static_cast<float>(std::exp2(static_cast<double>(x))); break;
      case Arith::Lg2: v = static_cast<float>(std::log2(static_cast<double>(x))); break;
      case Arith::Sin: v = static_cast<float>(std::sin(static_cast<double>(x))); break;
      case Arith::Cos: v = static_cast<float>(std::cos(static_cast<double>(x))); break;
      case Arith::Tanh: v = static_cast<float>(std::tanh(static_cast<double>(x))); break;
      case Arith::Copysign: v = std::copysign(y, x); break;
      default: faultAt(w, lane, I, "unsupported f32 operation");
    }
    if (ftz) v = flushF(v);
    if (I.sat) v = saturate01(v);
    if ((I.mode2 & 4) && v < 0) v = 0;  // .relu
    uint32_t bitsOut = nanCanon ? canonicalNaN32() : floatBits(v);
    d[lane] = bitsOut;
  });
}

void CtaRunner::halfArith(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  uint64_t* d = f->slot(I.dst[0]);
  const uint64_t* a = I.nsrc > 0 ? f->slot(I.src[0]) : nullptr;
  const uint64_t* b = I.nsrc > 1 ? f->slot(I.src[1]) : nullptr;
  const uint64_t* c = I.nsrc > 2 ? f->slot(I.src[2]) : nullptr;
  const bool bf = I.t == ScalarType::BF16 || I.t == ScalarType::BF16x2;
  const int halves = (I.t == ScalarType::F16x2 || I.t == ScalarType::BF16x2) ? 2 : 1;
  const int eb = bf ? 8 : 5, mb = bf ? 7 : 10;
  forLanes(exec, [&](int lane) {
    uint64_t out = 0;
    for (int h = 0; h < halves; ++h) {
      uint16_t x = static_cast<uint16_t>(a[lane] >> (16 * h));
      uint16_t y = b ? static_cast<uint16_t>(b[lane] >> (16 * h)) : 0;
      uint16_t z = c ? static_cast<uint16_t>(c[lane] >> (16 * h)) : 0;
      auto flush = [&](uint16_t v) -> uint16_t {
        if (I.ftz && ((v >> mb) & ((1 << eb) - 1)) == 0) return static_cast<uint16_t>(v & (1u << 15));
        return v;
      };
      x = flush(x);
      y = flush(y);
      z = flush(z);
      uint16_t v = 0;
      switch (I.mode) {
        case Arith::Add: v = emu::halfArith(HalfOp::Add, x, y, 0, bf, I.rnd); break;
        case Arith::Sub: v = emu::halfArith(HalfOp::Sub, x, y, 0, bf, I.rnd); break;
        case Arith::Mul: v = emu::halfArith(HalfOp::Mul, x, y, 0, bf, I.rnd); break;
        case Arith::Mad: v = emu::halfArith(HalfOp::Fma, x, y, z, bf, I.rnd); break;
        case Arith::Abs: v = static_cast<uint16_t>(x & 0x7FFF); break;
        case Arith::Neg: v = static_cast<uint16_t>(x ^ 0x8000); break;
        case Arith::Min:
        case Arith::Max: {
          double dx = smallFloatToDouble(x, eb, mb), dy = smallFloatToDouble(y, eb, mb);
          double m = floatMinMax(dx, dy, I.mode == Arith::Max, I.mode2 & 1);
          v = std::isnan(m) ? static_cast<uint16_t>(0x7FFF) : doubleToHalfR(m, bf, Rnd::Nearest);
          break;
        }
        case Arith::Ex2: v = doubleToHalfR(std::exp2(smallFloatToDouble(x, eb, mb)), bf, Rnd::Nearest); break;
        case Arith::Tanh: v = doubleToHalfR(std::tanh(smallFloatToDouble(x, eb, mb)), bf, Rnd::Nearest); break;
        default: faultAt(w, lane, I, "unsupported half-precision operation");
      }
      v = halfSatRelu(flush(v), bf, I.sat, I.mode2 & 4);
      out |= static_cast<uint64_t>(v) << (16 * h);
    }
    d[lane] = out;
  });
}

// ---- comparisons -----------------------------------------------------------------------------

void CtaRunner::setp(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  const uint64_t *a = f->slot(I.src[0]), *b = f->slot(I.src[1]);
  const uint64_t* c = I.nsrc > 2 ? f->slot(I.src[2]) : nullptr;
  const CmpOp op = static_cast<CmpOp>(I.mode);
  const ScalarType t = I.t;
  const TypeClass cls = typeClass(t);
  const unsigned bits = typeBits(t);
  const bool halfPair = t == ScalarType::F16x2 || t == ScalarType::BF16x2;
  auto compare = [&](uint64_t x, uint64_t y, int half) -> bool {
    if (cls == TypeClass::Float) {
      double dx, dy;
      if (t == ScalarType::F32) {
        float fx = bitsFloat(static_cast<uint32_t>(x)), fy = bitsFloat(static_cast<uint32_t>(y));
        if (I.ftz) {
          fx = flushF(fx);
          fy = flushF(fy);
        }
        dx = fx;
        dy = fy;
      } else if (t == ScalarType::F64) {
        dx = bitsDouble(x);
        dy = bitsDouble(y);
      } else {
        bool bf = t == ScalarType::BF16 || t == ScalarType::BF16x2;
        uint16_t hx = static_cast<uint16_t>(x >> (16 * half)), hy = static_cast<uint16_t>(y >> (16 * half));
        dx = bf ? bfloat16ToDouble(hx) : halfToDouble(hx);
        dy = bf ? bfloat16ToDouble(hy) : halfToDouble(hy);
      }
      return compareFloat(op, dx, dy);
    }
    bool sg = cls == TypeClass::Signed;
    uint64_t xv = sg ? static_cast<uint64_t>(signExtend(x, bits)) : x & widthMask(bits);
    uint64_t yv = sg ? static_cast<uint64_t>(signExtend(y, bits)) : y & widthMask(bits);
    return compareInt(op, sg, xv, yv);
  };
  auto combine = [&](bool v, int lane) {
    if (!c) return v;
    bool cv = c[lane] & 1;
    if (I.negMask & 4) cv = !cv;
    switch (I.mode2) {
      case 1: return v && cv;
      case 2: return v || cv;
      case 3: return v != cv;
      default: return v;
    }
  };
  auto combineQ = [&](bool v, int lane) { return combine(!v, lane); };
  if (I.op == XOp::Set) {
    uint64_t* d = f->slot(I.dst[0]);
    ScalarType dt = I.t2;
    forLanes(exec, [&](int lane) {
      bool v = combine(compare(a[lane], b[lane], 0), lane);
      if (dt == ScalarType::F32) d[lane] = v ? floatBits(1.0f) : 0;
      else d[lane] = v ? widthMask(typeBits(dt)) : 0;
    });
    return;
  }
  uint64_t* p = f->slot(I.dst[0]);
  uint64_t* q = I.ndst > 1 ? f->slot(I.dst[1]) : nullptr;
  if (halfPair) {
    // setp.f16x2 p|q: p for the low halves, q for the high halves.
    forLanes(exec, [&](int lane) {
      p[lane] = combine(compare(a[lane], b[lane], 0), lane);
      if (q) q[lane] = combine(compare(a[lane], b[lane], 1), lane);
    });
    return;
  }
  forLanes(exec, [&](int lane) {
    bool v = compare(a[lane], b[lane], 0);
    p[lane] = combine(v, lane);
    if (q) q[lane] = combineQ(v, lane);
  });
}

// ---- conversions -----------------------------------------------------------------------------

void CtaRunner::cvt(Warp& w, const DInst& I, uint32_t exec) {
  Frame* f = w.stack.back().frame;
  uint64_t* d = f->slot(I.dst[0]);
  const uint64_t* a = f->slot(I.src[0]);
  const ScalarType dt = I.t, st = I.t2;
  const TypeClass dc = typeClass(dt), sc = typeClass(st);
  const unsigned db = typeBits(dt), sb = typeBits(st);
  const bool dFloat = dc == TypeClass::Float, sFloat = sc == TypeClass::Float;
  const Rnd r = I.rnd;
  auto writeFloat = [&](double v) -> uint64_t {
    switch (dt) {
      case ScalarType::F32: {
        float fv = doubleToFloat(v, r);
        if (I.ftz) fv = flushF(fv);
        if (I.sat) fv = std::isnan(fv) ? 0.0f : std::clamp(fv, 0.0f, 1.0f);
        return floatBits(fv);
      }
      case ScalarType::F64: {
        if (I.sat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
        return doubleBits(v);
      }
      case ScalarType::F16:
      case ScalarType::F16x2:
      case ScalarType::BF16:
      case ScalarType::BF16x2: {
        const bool bf = dt == ScalarType::BF16 || dt == ScalarType::BF16x2;
        return halfSatRelu(doubleToHalfR(v, bf, r), bf, I.sat, I.mode2 & 4);
      }
      default: return 0;
    }
  };
  if (dt == ScalarType::F16x2 || dt == ScalarType::BF16x2) {
    const uint64_t* b = f->slot(I.src[1]);
    forLanes(exec, [&](int lane) {
      double hi = readFloat(a[lane], st), lo = readFloat(b[lane], st);
      d[lane] = (writeFloat(hi) << 16) | writeFloat(lo);
    });
    return;
  }
  forLanes(exec, [&](int lane) {
    uint64_t x = a[lane];
    uint64_t out = 0;
    if (!dFloat && !sFloat) {
      // Integer to integer: extend from the source width, then wrap or saturate.
      bool ss = sc == TypeClass::Signed;
      __int128 v = ss ? static_cast<__int128>(signExtend(x, sb)) : static_cast<__int128>(x & widthMask(sb));
      if (I.sat) {
        __int128 lo = dc == TypeClass::Signed ? -(static_cast<__int128>(1) << (db - 1)) : 0;
        __int128 hi = dc == TypeClass::Signed ? (static_cast<__int128>(1) << (db - 1)) - 1 : (static_cast<__int128>(1) << db) - 1;
        v = std::clamp(v, lo, hi);
      }
      out = static_cast<uint64_t>(v) & widthMask(db);
    } else if (!sFloat) {
      // Integer to float (default rounding: to nearest).
      bool ss = sc == TypeClass::Signed;
      uint64_t v = ss ? static_cast<uint64_t>(signExtend(x, sb)) : x & widthMask(sb);
      if (dt == ScalarType::F32) {
        float fv = intToFloat(v, ss, r);
        if (I.sat) fv = std::clamp(fv, 0.0f, 1.0f);
        out = floatBits(fv);
      } else if (dt == ScalarType::F64) {
        double dv = intToDouble(v, ss, r);
        if (I.sat) dv = std::clamp(dv, 0.0, 1.0);
        out = doubleBits(dv);
      } else {
        // To f16/bf16 through double: above 2^53 the bits that double cannot hold are folded
        // into a sticky bit, so the one rounding to 16 bits still sees them.
        bool neg = ss && static_cast<int64_t>(v) < 0;
        uint64_t m = neg ? 0 - v : v;
        int k = 0;
        while (m >= (uint64_t{1} << 53)) {
          m = (m >> 1) | (m & 1);
          ++k;
        }
        double dv = std::ldexp(static_cast<double>(m), k);
        out = writeFloat(neg ? -dv : dv);
      }
    } else {
      double v = readFloat(x, st);
      if (I.ftz && st == ScalarType::F32) v = flushF(static_cast<float>(v));
      if (!dFloat) {
        out = floatToInt(v, r, dc == TypeClass::Signed, db);
      } else if (I.toIntegral && dt == st) {
        out = writeFloat(roundIntegral(v, r));  // cvt.rni.f32.f32: round to an integral value
      } else {
        out = writeFloat(v);
      }
    }
    d[lane] = out;
  });
}

}  // namespace ptxopt::emu

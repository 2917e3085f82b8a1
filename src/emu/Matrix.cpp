// The tensor-core instructions: ldmatrix, stmatrix, movmatrix, mma.sync and wmma
// (docs/EMULATOR.md, "Tensor cores"). Each is one operation of the whole warp: the fragments of
// all 32 lanes are gathered into matrices, the matrices are loaded, stored, transposed or
// multiplied (Mma.h), and the results scattered back into the lanes' registers.
#include <bit>
#include <cstdio>
#include <cstring>
#include <span>

#include "Cta.h"

namespace ptxopt::emu {

namespace {

uint64_t elementMask(MmaType t) {
  return mmaTypeBits(t) == 64 ? ~uint64_t(0) : (uint64_t(1) << mmaTypeBits(t)) - 1;
}

// A rows x cols matrix of raw element bits, row-major. Not zeroed: every element is written
// before it is read, by a gather (each layout covers its matrix once: tests/unit/MmaTest.cpp),
// by multiplyAccumulate or by the transpose.
struct Matrix {
  uint8_t rows = 0, cols = 0;
  uint64_t e[32 * 32];
  uint64_t& operator()(int r, int c) { return e[r * cols + c]; }
};

// Reads every lane's fragment (registers `regs`, elements of type `t` packed low to high) into `m`.
// Where a fragment repeats the layout, the first copy is the one read.
void gather(Frame* f, std::span<const uint32_t> regs, MmaType t, const FragmentLayout& L, Matrix& m) {
  m.rows = L.rows, m.cols = L.cols;
  const unsigned per = mmaPerRegister(t), bits = mmaTypeBits(t);
  for (int lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < L.perLane; ++i) {
      const uint64_t reg = f->slot(regs[i / per])[lane];
      const MatrixCoord c = L.at(lane, static_cast<int>(i));
      m(c.row, c.col) = (reg >> (bits * (i % per))) & elementMask(t);
    }
}

// Writes `m` into every lane's fragment, every register of it (repeated layouts included).
void scatter(Frame* f, std::span<const uint32_t> regs, MmaType t, const FragmentLayout& L, Matrix& m) {
  const unsigned per = mmaPerRegister(t), bits = mmaTypeBits(t);
  for (size_t r = 0; r < regs.size(); ++r) {
    uint64_t* d = f->slot(regs[r]);
    for (int lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (unsigned s = 0; s < per; ++s) {
        const MatrixCoord c = L.at(lane, static_cast<int>((r * per + s) % L.perLane));
        v |= (m(c.row, c.col) & elementMask(t)) << (bits * s);
      }
      d[lane] = v;
    }
  }
}

const FragmentLayout kMatrix8x8{8, 8, 2, matrix8x8Element};

const char* matrixName(XOp op) {
  switch (op) {
    case XOp::Ldmatrix:
      return "ldmatrix";
    case XOp::Stmatrix:
      return "stmatrix";
    case XOp::Movmatrix:
      return "movmatrix";
    case XOp::Mma:
      return "mma";
    case XOp::WmmaLoad:
      return "wmma.load";
    case XOp::WmmaStore:
      return "wmma.store";
    default:
      return "wmma.mma";
  }
}

}  // namespace

void CtaRunner::matrix(Warp& w, const DInst& I, uint32_t exec) {
  // .sync.aligned: one operation of the whole warp, which every lane executes together.
  if (exec != kFullWarp) {
    char lanes[16];
    std::snprintf(lanes, sizeof lanes, "0x%08x", exec);
    faultAt(w, std::countr_zero(exec), I,
            std::string(matrixName(I.op)) +
                " is .sync.aligned: all 32 lanes of the warp must execute it together, but only lanes " + lanes + " (" +
                std::to_string(popc(exec)) +
                " of 32) do here (a divergent warp, a guard false for some lanes, exited lanes or a partial warp)");
  }
  Frame* f = w.stack.back().frame;
  const DMatrixOp& op = f->fn->matrixOps[I.call];
  switch (I.op) {
    case XOp::Ldmatrix:
      matrixLoad(w, I, op);
      break;
    case XOp::Stmatrix:
      matrixStore(w, I, op);
      break;
    case XOp::Movmatrix: {
      // PTX ISA 9.0, 9.7.14.5 ("movmatrix"): the 8x8 matrix the fragments hold, transposed, in the
      // same fragment layout.
      Matrix m, t;
      gather(f, op.a, MmaType::F16, kMatrix8x8, m);
      t.rows = t.cols = 8;
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) t(r, c) = m(c, r);
      scatter(f, op.d, MmaType::F16, kMatrix8x8, t);
      break;
    }
    case XOp::Mma:
    case XOp::WmmaMma: {
      auto layout = [&](MatrixRole r) { return I.op == XOp::Mma ? mmaFragment(op.form, r) : wmmaFragment(op.form, r); };
      Matrix a, b, c, d;
      gather(f, op.a, op.form.a, layout(MatrixRole::A), a);
      gather(f, op.b, op.form.b, layout(MatrixRole::B), b);
      gather(f, op.c, op.form.c, layout(MatrixRole::C), c);
      d.rows = c.rows, d.cols = c.cols;
      multiplyAccumulate(op.form, a.e, b.e, c.e, d.e);
      scatter(f, op.d, op.form.d, layout(MatrixRole::C), d);
      break;
    }
    default:
      wmmaAccess(w, I, op);
      break;
  }
}

// ldmatrix (PTX ISA 9.0, 9.7.14.5.15): matrix j's row r is the 16 bytes at the address lane 8j + r
// holds; lane l receives, in register j, row l / 4 of matrix j, columns 2 (l % 4) and 2 (l % 4) + 1
// (with .trans: that element of the transposed matrix). Each row is a 16-byte shared-memory read by
// the lane that gave its address (bounds, alignment and the race check as for ld.shared).
void CtaRunner::matrixLoad(Warp& w, const DInst& I, const DMatrixOp& op) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  Matrix ms[4];
  for (int j = 0; j < op.matrices; ++j) {
    Matrix& m = ms[j];
    m.rows = m.cols = 8;
    for (int r = 0; r < 8; ++r) {
      const int lane = 8 * j + r;
      StateSpace space = StateSpace::Generic;
      const uint8_t* p = memory(w, I, a.space, a.address(I, lane), 16, lane, false, false, a.sym, &space);
      if (space != StateSpace::Shared && space != StateSpace::SharedCta)
        faultAt(w, lane, I,
                "ldmatrix reads shared memory; lane " + std::to_string(lane) + "'s row address is not in it");
      for (int c = 0; c < 8; ++c) {
        uint16_t v;
        std::memcpy(&v, p + 2 * c, 2);
        if (op.trans)
          m(c, r) = v;
        else
          m(r, c) = v;
      }
    }
  }
  for (int j = 0; j < op.matrices; ++j)
    scatter(f, std::span(&op.d[static_cast<size_t>(j)], 1), MmaType::F16, kMatrix8x8, ms[j]);
}

// stmatrix (PTX ISA 9.0, 9.7.14.5.16): the inverse of ldmatrix, with the same fragments and row
// addresses; each row is a 16-byte shared-memory store by the lane that gave its address.
void CtaRunner::matrixStore(Warp& w, const DInst& I, const DMatrixOp& op) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  for (int j = 0; j < op.matrices; ++j) {
    Matrix m;
    gather(f, std::span(&op.a[static_cast<size_t>(j)], 1), MmaType::F16, kMatrix8x8, m);
    for (int r = 0; r < 8; ++r) {
      uint8_t row[16];
      for (int c = 0; c < 8; ++c) {
        const uint16_t v = static_cast<uint16_t>(op.trans ? m(c, r) : m(r, c));
        std::memcpy(row + 2 * c, &v, 2);
      }
      const int lane = 8 * j + r;
      StateSpace space = StateSpace::Generic;
      storeBytes_ = row;
      uint8_t* p = memory(w, I, a.space, a.address(I, lane), 16, lane, true, false, a.sym, &space);
      storeBytes_ = nullptr;
      if (space != StateSpace::Shared && space != StateSpace::SharedCta)
        faultAt(w, lane, I,
                "stmatrix writes shared memory; lane " + std::to_string(lane) + "'s row address is not in it");
      std::memcpy(p, row, 16);
    }
  }
}

// wmma.load and wmma.store: every lane reads or writes the elements its fragment holds, element
// (row, col) at address + (row * stride + col) * size (.row) or + (col * stride + row) * size (.col);
// the stride, in elements, is the operand or else the matrix's row length (.row) or column length
// (.col). Each element is an access of that lane, with the checks of ld and st.
void CtaRunner::wmmaAccess(Warp& w, const DInst& I, const DMatrixOp& op) {
  Frame* f = w.stack.back().frame;
  const MemRef a = memRefOf(w, I);
  const bool load = I.op == XOp::WmmaLoad;
  const FragmentLayout L = wmmaFragment(op.form, op.role);
  const unsigned bytes = mmaTypeBits(op.elem) / 8;
  const unsigned per = mmaPerRegister(op.elem), bits = mmaTypeBits(op.elem);
  const std::vector<uint32_t>& regs = load ? op.d : op.a;
  const uint64_t* stride = op.hasStride ? f->slot(op.strideSlot) : nullptr;
  uint64_t values[32][32];  // per lane, its perLane elements (a load fills them all)
  for (int lane = 0; lane < 32; ++lane) {
    const uint64_t ld = stride ? (stride[lane] & 0xFFFFFFFFu) : op.colMajor ? L.rows : L.cols;
    for (unsigned i = 0; i < L.perLane; ++i) {
      const MatrixCoord c = L.at(lane, static_cast<int>(i));
      const uint64_t index = op.colMajor ? c.col * ld + c.row : c.row * ld + c.col;
      const uint64_t addr = a.address(I, lane) + index * bytes;
      if (load) {
        values[lane][i] = loadElement(memory(w, I, a.space, addr, bytes, lane, false, false, a.sym), bytes);
        continue;
      }
      const uint64_t v = (f->slot(regs[i / per])[lane] >> (bits * (i % per))) & elementMask(op.elem);
      uint8_t raw[8];
      std::memcpy(raw, &v, sizeof raw);
      storeBytes_ = raw;
      uint8_t* p = memory(w, I, a.space, addr, bytes, lane, true, false, a.sym);
      storeBytes_ = nullptr;
      storeElement(p, bytes, v);
    }
  }
  if (!load) return;
  for (size_t r = 0; r < regs.size(); ++r) {
    uint64_t* d = f->slot(regs[r]);
    for (int lane = 0; lane < 32; ++lane) {
      uint64_t v = 0;
      for (unsigned s = 0; s < per; ++s) v |= values[lane][(r * per + s) % L.perLane] << (bits * s);
      d[lane] = v;
    }
  }
}

}  // namespace ptxopt::emu

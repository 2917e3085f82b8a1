// structs: kernels taking structs by value. The parameters mix field sizes and alignments (1, 2,
// 4, 8 and 16 bytes, with padding), nest a struct and arrays, hold a pointer, and one struct is
// well over 56 bytes; small scalars sit between them so that every parameter's offset matters.
// Thread 0 copies each parameter back field by field, every thread computes an integer from
// fields it picks by its index, and the host compares both with what it passed.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROGRAM_NAME "structs"
#include "check.h"

struct Mixed {  // alignment 8, 24 bytes: char, short, int, double, float and padding
  char c;
  short s;
  int i;
  double d;
  float f;
};

struct alignas(16) Vec4 {  // alignment 16
  float x, y, z, w;
};

struct Nested {  // alignment 16, a nested struct and an array
  Vec4 v;
  int arr[3];
  unsigned char flag;
};

struct Big {  // 96 bytes, alignment 8
  int id;
  double w[5];
  short tag[3];
  char name[9];
  Mixed m;
  long long big;
};

struct Span {  // a pointer in a struct
  int* data;
  int n;
};

struct Echo {  // what thread 0 copies back
  char c;
  Mixed m;
  short s;
  Nested nested;
  double d;
  Big big;
  float4 f4;
  unsigned char u;
};

static_assert(sizeof(Big) > 56, "Big is meant to be over 56 bytes");
static_assert(alignof(Nested) == 16, "Nested is 16-aligned");

__global__ void byValue(char c, Mixed m, short s, Nested nested, double d, Big big, float4 f4, unsigned char u,
                        Echo* echo, long long* vals) {
  int t = threadIdx.x;
  if (t == 0) {
    echo->c = c;
    echo->m.c = m.c;
    echo->m.s = m.s;
    echo->m.i = m.i;
    echo->m.d = m.d;
    echo->m.f = m.f;
    echo->s = s;
    echo->nested.v = nested.v;
    for (int k = 0; k < 3; ++k) echo->nested.arr[k] = nested.arr[k];
    echo->nested.flag = nested.flag;
    echo->d = d;
    echo->big.id = big.id;
    for (int k = 0; k < 5; ++k) echo->big.w[k] = big.w[k];
    for (int k = 0; k < 3; ++k) echo->big.tag[k] = big.tag[k];
    for (int k = 0; k < 9; ++k) echo->big.name[k] = big.name[k];
    echo->big.m.c = big.m.c;
    echo->big.m.s = big.m.s;
    echo->big.m.i = big.m.i;
    echo->big.m.d = big.m.d;
    echo->big.m.f = big.m.f;
    echo->big.big = big.big;
    echo->f4 = f4;
    echo->u = u;
  }
  // Fields picked by the thread's index (dynamic indexing of the by-value arrays).
  vals[t] = (long long)big.w[t % 5] + big.tag[t % 3] + big.name[t % 9] + nested.arr[t % 3] + big.big * (t & 1) +
            (long long)m.i * c + s * u + (long long)(t % 2 ? nested.v.y : f4.w);
}

__global__ void fillSpan(Span span, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < span.n) span.data[i] = value + i;
}

static bool sameMixed(const Mixed& a, const Mixed& b) {
  return a.c == b.c && a.s == b.s && a.i == b.i && a.d == b.d && a.f == b.f;
}

int main() {
  Mixed m;
  std::memset(&m, 0, sizeof m);
  m = {'M', -1234, 987654321, 3.25, -0.5f};
  Nested nested;
  std::memset(&nested, 0, sizeof nested);
  nested.v = {1.5f, -2.5f, 3.5f, -4.5f};
  nested.arr[0] = 11;
  nested.arr[1] = -22;
  nested.arr[2] = 33;
  nested.flag = 0xA5;
  Big big;
  std::memset(&big, 0, sizeof big);
  big.id = 77;
  for (int k = 0; k < 5; ++k) big.w[k] = 100.0 * (k + 1) + 0.25;
  big.tag[0] = 7;
  big.tag[1] = -8;
  big.tag[2] = 9;
  std::strcpy(big.name, "ptxrun!!");
  big.m = {'b', 321, -42, -6.125, 2.75f};
  big.big = 0x123456789abcLL;
  const char c = 'c';
  const short s = -300;
  const double d = 1.0 / 3.0;
  const float4 f4 = make_float4(0.5f, 1.5f, 2.5f, 3.5f);
  const unsigned char u = 200;
  const int threads = 64;

  Echo* dEcho;
  long long* dVals;
  CUDA_CHECK(cudaMalloc(&dEcho, sizeof(Echo)));
  CUDA_CHECK(cudaMalloc(&dVals, threads * sizeof(long long)));
  CUDA_CHECK(cudaMemset(dEcho, 0, sizeof(Echo)));
  byValue<<<1, threads>>>(c, m, s, nested, d, big, f4, u, dEcho, dVals);
  CUDA_CHECK(cudaGetLastError());
  Echo e;
  long long vals[threads];
  CUDA_CHECK(cudaMemcpy(&e, dEcho, sizeof e, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(vals, dVals, sizeof vals, cudaMemcpyDeviceToHost));

  int wrong = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("structs: %s differs\n", what);
      ++wrong;
    }
  };
  expect(e.c == c, "char c");
  expect(sameMixed(e.m, m), "Mixed m");
  expect(e.s == s, "short s");
  expect(std::memcmp(&e.nested.v, &nested.v, sizeof(Vec4)) == 0, "Nested.v (16-aligned)");
  expect(std::memcmp(e.nested.arr, nested.arr, sizeof nested.arr) == 0, "Nested.arr");
  expect(e.nested.flag == nested.flag, "Nested.flag");
  expect(e.d == d, "double d");
  expect(e.big.id == big.id, "Big.id");
  expect(std::memcmp(e.big.w, big.w, sizeof big.w) == 0, "Big.w");
  expect(std::memcmp(e.big.tag, big.tag, sizeof big.tag) == 0, "Big.tag");
  expect(std::memcmp(e.big.name, big.name, sizeof big.name) == 0, "Big.name");
  expect(sameMixed(e.big.m, big.m), "Big.m");
  expect(e.big.big == big.big, "Big.big");
  expect(e.f4.x == f4.x && e.f4.y == f4.y && e.f4.z == f4.z && e.f4.w == f4.w, "float4 f4");
  expect(e.u == u, "unsigned char u");
  for (int t = 0; t < threads; ++t) {
    long long want = (long long)big.w[t % 5] + big.tag[t % 3] + big.name[t % 9] + nested.arr[t % 3] +
                     big.big * (t & 1) + (long long)m.i * c + s * u + (long long)(t % 2 ? nested.v.y : f4.w);
    if (vals[t] != want) {
      if (wrong < 5) std::printf("structs: thread %d computed %lld, want %lld\n", t, vals[t], want);
      ++wrong;
    }
  }

  const int n = 300;
  Span span;
  CUDA_CHECK(cudaMalloc(&span.data, n * sizeof(int)));
  span.n = n;
  fillSpan<<<(n + 127) / 128, 128>>>(span, 1000);
  CUDA_CHECK(cudaGetLastError());
  static int filled[n];
  CUDA_CHECK(cudaMemcpy(filled, span.data, sizeof filled, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (filled[i] != 1000 + i) {
      if (wrong < 5) std::printf("structs: span[%d] = %d, want %d\n", i, filled[i], 1000 + i);
      ++wrong;
    }
  CUDA_CHECK(cudaFree(span.data));
  CUDA_CHECK(cudaFree(dEcho));
  CUDA_CHECK(cudaFree(dVals));
  if (wrong) {
    std::printf("structs: FAILED (%d mismatches)\n", wrong);
    return 1;
  }
  std::printf("structs: PASSED (Big %zu bytes, Nested %zu bytes aligned %zu, %d threads)\n", sizeof(Big),
              sizeof(Nested), alignof(Nested), threads);
  return 0;
}

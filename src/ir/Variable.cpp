#include "ptxopt/ir/Variable.h"

namespace ptxopt {

uint64_t Variable::sizeInBytes() const {
  uint64_t elem = (typeBits(type) + 7) / 8;  // .pred (1 bit) takes a byte
  if (vec) elem *= vec;
  uint64_t total = elem;
  for (int64_t d : dims) {
    if (d < 0) return 0;
    total *= static_cast<uint64_t>(d);
  }
  return total;
}

}  // namespace ptxopt

#include "ptxopt/support/StringPool.h"

#include <cstring>
#include <stdexcept>

namespace ptxopt {

StringPool::StringPool() : chunks_(new std::atomic<Chunk*>[kMaxChunks]) {
  for (uint32_t i = 0; i < kMaxChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
  intern("");
}

StringPool::~StringPool() {
  for (uint32_t i = 0; i < kMaxChunks; ++i) delete chunks_[i].load(std::memory_order_relaxed);
}

const char* StringPool::store(std::string_view s) {
  if (s.size() > 4096) {
    arenas_.emplace_back(new char[s.size()]);
    std::memcpy(arenas_.back().get(), s.data(), s.size());
    return arenas_.back().get();
  }
  if (!arena_ || arenaUsed_ + s.size() > kArenaSize) {
    arenas_.emplace_back(new char[kArenaSize]);
    arena_ = arenas_.back().get();
    arenaUsed_ = 0;
  }
  char* out = arena_ + arenaUsed_;
  std::memcpy(out, s.data(), s.size());
  arenaUsed_ += s.size();
  return out;
}

uint32_t StringPool::intern(std::string_view s) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  uint32_t id = count_.load(std::memory_order_relaxed);
  if (id >= kMaxChunks * kChunkSize) throw std::length_error("too many distinct names in one module");
  const char* copy = s.empty() ? "" : store(s);
  std::string_view view(copy, s.size());
  Chunk* chunk = chunks_[id >> kChunkBits].load(std::memory_order_relaxed);
  if (!chunk) {
    chunk = new Chunk();
    chunks_[id >> kChunkBits].store(chunk, std::memory_order_release);
  }
  chunk->entries[id & (kChunkSize - 1)] = view;
  index_.emplace(view, id);
  count_.store(id + 1, std::memory_order_release);
  return id;
}

uint32_t StringPool::find(std::string_view s) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(s);
  return it == index_.end() ? UINT32_MAX : it->second;
}

}  // namespace ptxopt

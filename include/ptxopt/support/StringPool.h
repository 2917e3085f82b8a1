// Interned strings of one module: symbol names, labels, modifiers the opcode table does not
// know, verbatim directive text.
//
// Ids are dense and stable; id 0 is the empty string. Interning takes a lock, reading an id
// does not, so passes that run on several functions at once may both intern and read.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxopt {

class StringPool {
 public:
  StringPool();
  ~StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  // Returns the id of `s`, adding it when it is new.
  uint32_t intern(std::string_view s);
  // Returns the id of `s` or UINT32_MAX when it was never interned.
  uint32_t find(std::string_view s) const;
  std::string_view str(uint32_t id) const {
    const Chunk* chunk = chunks_[id >> kChunkBits].load(std::memory_order_acquire);
    return chunk->entries[id & (kChunkSize - 1)];
  }
  uint32_t size() const { return count_.load(std::memory_order_acquire); }

 private:
  static constexpr unsigned kChunkBits = 12;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr uint32_t kMaxChunks = 1u << 12;
  struct Chunk {
    std::string_view entries[kChunkSize];
  };
  const char* store(std::string_view s);

  mutable std::mutex mutex_;
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  std::atomic<uint32_t> count_{0};
  std::unordered_map<std::string_view, uint32_t> index_;
  std::vector<std::unique_ptr<char[]>> arenas_;
  static constexpr size_t kArenaSize = 64 * 1024;
  char* arena_ = nullptr;  // the arena small strings are appended to
  size_t arenaUsed_ = 0;
};

}  // namespace ptxopt

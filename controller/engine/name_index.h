// Names of records to their indexes in a table, without copies of the names: open
// addressing with linear probing over a power-of-two array of 8-byte slots (32 bits
// of the name's hash, the record's index). A slot's name is read from its record.
// Cheaper to build, probe and free than a node-based map of strings.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace gpupool::engine::internal {

// `Record` has a `name` convertible to std::string_view. The table of records may
// grow and move; a record's name must not change while it is indexed.
template <typename Record>
class NameIndex {
 public:
  explicit NameIndex(const std::vector<Record>* records) : records_(records) {}

  static std::uint32_t Hash(std::string_view name) {
    return static_cast<std::uint32_t>(std::hash<std::string_view>{}(name));
  }
  // Room for `count` names without growing.
  void Reserve(std::size_t count) {
    if (count * 2 > slots_.size()) Rehash(count * 2);
  }
  // The record's index, or -1.
  int Find(std::string_view name) const { return Find(name, Hash(name)); }
  int Find(std::string_view name, std::uint32_t hash) const {
    if (slots_.empty()) return -1;
    for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
      std::uint64_t slot = slots_[at];
      if (slot == 0) return -1;
      if (HashOf(slot) == hash && (*records_)[RecordOf(slot)].name == name) {
        return RecordOf(slot);
      }
    }
  }
  // Indexes the record under its name, which must not be indexed yet.
  void Insert(int record, std::uint32_t hash) {
    if ((size_ + 1) * 2 > slots_.size()) Rehash(std::max<std::size_t>(16, slots_.size() * 2));
    Place(Slot(hash, record));
    ++size_;
  }
  void Insert(int record) { Insert(record, Hash((*records_)[record].name)); }
  // Drops the record indexed under `name`, if any.
  void Erase(std::string_view name) {
    if (slots_.empty()) return;
    std::uint32_t hash = Hash(name);
    for (std::size_t at = hash & mask_;; at = (at + 1) & mask_) {
      std::uint64_t slot = slots_[at];
      if (slot == 0) return;
      if (HashOf(slot) == hash && (*records_)[RecordOf(slot)].name == name) {
        EraseSlot(at);
        --size_;
        return;
      }
    }
  }
  std::size_t size() const { return size_; }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(std::uint64_t); }

 private:
  static std::uint64_t Slot(std::uint32_t hash, int record) {
    return static_cast<std::uint64_t>(hash) << 32 | (static_cast<std::uint32_t>(record) + 1);
  }
  static std::uint32_t HashOf(std::uint64_t slot) { return static_cast<std::uint32_t>(slot >> 32); }
  static int RecordOf(std::uint64_t slot) {
    return static_cast<int>(static_cast<std::uint32_t>(slot) - 1);
  }
  std::size_t Home(std::uint64_t slot) const { return HashOf(slot) & mask_; }

  void Place(std::uint64_t slot) {
    std::size_t at = Home(slot);
    while (slots_[at] != 0) at = (at + 1) & mask_;
    slots_[at] = slot;
  }
  // Backward-shift deletion: later slots of the probe run move up, so no slot is
  // ever marked deleted and probes stop at the first empty slot.
  void EraseSlot(std::size_t hole) {
    for (std::size_t at = (hole + 1) & mask_; slots_[at] != 0; at = (at + 1) & mask_) {
      std::size_t home = Home(slots_[at]);
      bool stays = hole <= at ? (hole < home && home <= at) : (hole < home || home <= at);
      if (stays) continue;
      slots_[hole] = slots_[at];
      hole = at;
    }
    slots_[hole] = 0;
  }
  void Rehash(std::size_t at_least) {
    std::size_t capacity = 16;
    while (capacity < at_least) capacity *= 2;
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (std::uint64_t slot : old) {
      if (slot != 0) Place(slot);
    }
  }

  const std::vector<Record>* records_;
  std::vector<std::uint64_t> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace gpupool::engine::internal

// A set of node indexes kept as a bitset: insert and erase without allocating,
// iteration in ascending order (as std::set<int> would give), O(size / 64) to walk.
// The engine's node indexes change on every placement and are read in order.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace gpupool::engine::internal {

class NodeSet {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    using pointer = const int*;
    using reference = int;

    Iterator(const std::vector<std::uint64_t>* words, int at) : words_(words), at_(at) {}
    int operator*() const { return at_; }
    Iterator& operator++() {
      at_ = Next(*words_, at_ + 1);
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const std::vector<std::uint64_t>* words_;
    int at_;
  };

  void Resize(std::size_t nodes) { words_.assign((nodes + 63) / 64, 0); }
  void Grow(std::size_t nodes) { words_.resize((nodes + 63) / 64, 0); }  // Members stay.
  bool Contains(int node) const { return words_[Word(node)] >> Bit(node) & 1; }
  void Insert(int node) {
    if (Contains(node)) return;
    words_[Word(node)] |= std::uint64_t{1} << Bit(node);
    ++size_;
  }
  void Erase(int node) {
    if (!Contains(node)) return;
    words_[Word(node)] &= ~(std::uint64_t{1} << Bit(node));
    --size_;
  }
  void Clear() {
    std::fill(words_.begin(), words_.end(), 0);
    size_ = 0;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Iterator begin() const { return {&words_, size_ == 0 ? End(words_) : Next(words_, 0)}; }
  Iterator end() const { return {&words_, End(words_)}; }
  // Adds the members to a bitset of the same layout (grown to fit).
  void OrInto(std::vector<std::uint64_t>& words) const {
    if (words.size() < words_.size()) words.resize(words_.size(), 0);
    for (std::size_t w = 0; w < words_.size(); ++w) words[w] |= words_[w];
  }
  // The first node >= `node`, or end().
  Iterator LowerBound(int node) const { return {&words_, Next(words_, node)}; }

 private:
  static std::size_t Word(int node) { return static_cast<std::size_t>(node) / 64; }
  static int Bit(int node) { return node % 64; }
  static int End(const std::vector<std::uint64_t>& words) {
    return static_cast<int>(words.size() * 64);
  }
  static int Next(const std::vector<std::uint64_t>& words, int from) {
    std::size_t w = Word(from);
    if (w >= words.size()) return End(words);
    std::uint64_t bits = words[w] & (~std::uint64_t{0} << Bit(from));
    while (bits == 0) {
      if (++w == words.size()) return End(words);
      bits = words[w];
    }
    return static_cast<int>(w * 64) + std::countr_zero(bits);
  }

  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
};

}  // namespace gpupool::engine::internal
